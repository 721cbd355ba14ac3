"""The AI-only shortcuts of Vampire Empire give what the public engine calls give: the AI's
plain seat view holds the private view's facts, and ``play_ai_game`` (one state changed in place)
ends each game exactly as the ``choose_action``/``apply`` loop does."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from bot.games.simulate import play_one
from bot.games.vampire_empire import ENGINE
from bot.games.vampire_empire.ai import done_at_once, read_offer
from bot.games.vampire_empire.cards import NAMES
from bot.games.vampire_empire.state import (
    SIDE_NAMES,
    VAMPIRES,
    Combat,
    PlainCombat,
    VeState,
    model,
    new_plain,
)
from bot.games.vampire_empire.views import Rules, SeatView

OPTIONS = [
    {},
    {"reveals_per_turn": "any", "no_legal_action": "discard", "played_cards_to": "cellar"},
    {"reveal_in_city": True, "vampire_attacks_vampire": True, "markers_stack": False},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_seat_view_holds_what_the_private_view_shows(options: dict[str, object]) -> None:
    """The AI's plain view holds the private view's facts (by number instead of by name)."""
    rng = random.Random(11)
    parsed = ENGINE.parse_options(options)
    for _game in range(3):
        state = ENGINE.new_game(parsed, ["a", "b"], rng)
        cards = ENGINE.plain_cards(state)
        while not ENGINE.is_over(state):
            for side, seat in enumerate(state.seats):
                full = ENGINE.private_view(state, seat)
                plain = SeatView(ENGINE, state, cards, side)
                assert SIDE_NAMES[plain.side] == full["side"] and plain.phase == full["phase"]
                assert [cards[c].name for c in sorted(plain.hand)] == [
                    c["name"] for c in full["hand"]
                ]
                secret = full["vampires"] if side == VAMPIRES else full["known_humans"]
                assert [NAMES[c] for c in plain.mine] == secret
                assert [NAMES[c] for c in plain.castle] == [c["name"] for c in full["castle"]]
                assert {NAMES[c] for c in plain.revealed if c in state.castle} == {
                    c["name"] for c in full["castle"] if c["revealed"]
                }
                assert [NAMES[c] for c in plain.dead_vampires] == [
                    d["name"] for d in full["dead"] if d["vampire"]
                ]
                assert {NAMES[int(c)]: v for c, v in plain.tested.items()} == full["tested"]
                if full["combat"] is not None:
                    assert (plain.attack, plain.defence) == (
                        full["combat"]["attack"],
                        full["combat"]["defence"],
                    )
                choosing = [c["card"] for c in full.get("choosing", [])]
                assert (plain.choosing or []) == choosing  # sorted: the pile's order is hidden
            seat = ENGINE.current_seats(state)[0]
            state, _events = ENGINE.apply(state, seat, ENGINE.choose_action(state, seat, rng), rng)


@pytest.mark.parametrize("options", OPTIONS)
def test_play_ai_game_plays_the_public_loops_games(options: dict[str, object]) -> None:
    parsed = ENGINE.parse_options(options)
    for seed in range(6):
        public = play_one(ENGINE, parsed, 2, random.Random(seed))
        fast = ENGINE.play_ai_game(parsed, 2, random.Random(seed))
        assert fast[1] == public[1]
        assert fast[0].model_dump_json() == public[0].model_dump_json()


def test_play_ai_summary_is_play_ai_game_left_plain() -> None:
    """``simulate`` reads the final states plain: the same games, the same results."""
    parsed = ENGINE.parse_options({})
    for seed in range(6):
        made = ENGINE.play_ai_game(parsed, 2, random.Random(seed))
        working = ENGINE.play_ai_summary(parsed, 2, random.Random(seed))
        assert working[1] == made[1]
        assert model(working[0]).model_dump_json() == made[0].model_dump_json()
        assert ENGINE.is_over(working[0])  # type: ignore[arg-type]
        assert ENGINE.result(working[0]) == ENGINE.result(made[0])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "seed", "expected"),
    [
        ({}, 3, "0a04eb787e"),
        (
            {
                "reveals_per_turn": "any",
                "no_legal_action": "discard",
                "reveal_in_city": True,
                "markers_stack": False,
                "cancel_timing": "any_defence",
            },
            4,
            "089bb2a2de",
        ),
    ],
)
def test_the_buttons_are_what_they_were(
    options: dict[str, object], seed: int, expected: str
) -> None:
    """The legal actions a seat is shown (id, label, kind, private, table) at every step of
    seeded games, pinned to what the engine showed before its moves became plain data."""
    digest = hashlib.sha256()
    rng = random.Random(seed)
    parsed = ENGINE.parse_options(options)
    for _game in range(6):
        state = ENGINE.new_game(parsed, ["a", "b"], rng)
        while not ENGINE.is_over(state):
            seat = ENGINE.current_seats(state)[0]
            for a in ENGINE.legal_actions(state, seat):
                digest.update(json.dumps([a.id, a.label, a.kind, a.private, a.table]).encode())
            state, _events = ENGINE.apply(state, seat, ENGINE.choose_action(state, seat, rng), rng)
    assert digest.hexdigest()[:10] == expected


def test_a_plain_combat_starts_as_a_combat_does() -> None:
    """``PlainCombat`` sets ``Combat``'s defaults itself: they must agree, field by field, and
    its lists must be its own."""
    given = {
        "attacker": 1,
        "target": 2,
        "side": 0,
        "start_defence": 1,
        "attack_cards": [3],
        "holy_water": True,
    }
    first = PlainCombat(**given)  # type: ignore[arg-type]
    second = PlainCombat(**given)  # type: ignore[arg-type]
    assert {name: getattr(first, name) for name in Combat.model_fields} == (
        Combat.model_validate(given).model_dump()
    )
    assert first.defence_cards is not second.defence_cards


def test_a_plain_new_game_starts_as_the_model_does() -> None:
    """``new_plain`` fills in the model's defaults itself: the same set-up gives the same state,
    and each state has lists of its own."""
    parsed = ENGINE.parse_options({})
    for seed in range(3):
        fresh = new_plain(ENGINE._deal(parsed, ["a", "b"], random.Random(seed)))
        made = ENGINE.new_game(parsed, ["a", "b"], random.Random(seed))
        assert model(fresh).model_dump_json() == made.model_dump_json()
    first = new_plain(ENGINE._deal(parsed, ["a", "b"], random.Random(0)))
    second = new_plain(ENGINE._deal(parsed, ["a", "b"], random.Random(0)))
    assert first.attacks is not second.attacks and first.tested is not second.tested


@pytest.mark.parametrize("options", OPTIONS)
def test_the_fights_offered_are_those_can_start_allows(options: dict[str, object]) -> None:
    """``_fights`` works out what makes a card count itself (``fight_bits``, restated):
    at every turn of seeded games it offers exactly the fights ``can_start`` allows."""
    rng = random.Random(5)
    parsed = ENGINE.parse_options(options)
    for _game in range(4):
        state = ENGINE.new_game(parsed, ["a", "b"], rng)
        cards = ENGINE.plain_cards(state)
        while not ENGINE.is_over(state):
            side = ENGINE.acting_side(state)
            assert side is not None
            if state.phase == "act":
                allowed = [
                    f"c:{attacker}:{target}"
                    for attacker in ENGINE.attackers(state, side)
                    for target in ENGINE.targets(state, attacker)
                    if ENGINE.can_start(state, cards, side, attacker, target)
                ]
                assert [m.id for m in ENGINE._fights(state, cards, side)] == allowed
            seat = state.seats[side]
            state, _events = ENGINE.apply(state, seat, ENGINE.choose_action(state, seat, rng), rng)


@pytest.mark.parametrize("options", OPTIONS)
def test_the_views_an_ai_only_game_keeps_are_the_views_made_afresh(
    options: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An AI-only game keeps one ``SeatView`` per seat and only reads again what a move
    replaces: after every ``update`` it holds what a view made afresh from the state holds."""
    update = SeatView.update
    updates = 0
    making = False  # a fresh view is being made (its own update is not checked)

    def checked(view: SeatView, engine: Rules, state: VeState) -> None:
        nonlocal updates, making
        update(view, engine, state)
        if making:
            return
        making = True
        fresh = SeatView(ENGINE, state, view.cards, view.side)
        making = False
        for name in SeatView.__slots__:
            assert getattr(view, name) == getattr(fresh, name), name
        updates += 1

    monkeypatch.setattr(SeatView, "update", checked)
    parsed = ENGINE.parse_options(options)
    for seed in range(4):
        ENGINE.play_ai_summary(parsed, 2, random.Random(seed))
    assert updates > 200


@pytest.mark.parametrize("options", OPTIONS + [{"cancel_timing": "any_defence"}])
def test_an_ai_only_fight_step_is_the_one_the_moves_give(options: dict[str, object]) -> None:
    """An AI-only game ends a fighter's step without making its moves when ``done_at_once``
    says so (``done`` must then be offered, last), and otherwise weighs what
    ``_fight_offer`` finds in the hand: what the moves offer."""
    rng = random.Random(9)
    parsed = ENGINE.parse_options(options)
    at_once = weighed = 0
    for _game in range(6):
        state = ENGINE.new_game(parsed, ["a", "b"], rng)
        cards = ENGINE.plain_cards(state)
        while not ENGINE.is_over(state):
            side = ENGINE.acting_side(state)
            assert side is not None
            if state.phase == "combat":
                view = SeatView(ENGINE, state, cards, side)
                moves = ENGINE.moves(state, side)
                if done_at_once(view):
                    assert moves[-1].id == "done"
                    at_once += 1
                else:
                    assert ENGINE._fight_offer(state, cards, side) == read_offer(view, moves)
                    weighed += 1
            seat = state.seats[side]
            state, _events = ENGINE.apply(state, seat, ENGINE.choose_action(state, seat, rng), rng)
    assert at_once > 20 and weighed > 20
