"""The AI-only shortcuts of Vampire Empire give what the public engine calls give: the AI's
plain seat view holds the private view's facts, and ``play_ai_game`` (one state changed in place)
ends each game exactly as the ``choose_action``/``apply`` loop does."""

from __future__ import annotations

import hashlib
import itertools
import json
import random

import pytest

from bot.games.base import Move
from bot.games.simulate import play_one
from bot.games.vampire_empire import ENGINE
from bot.games.vampire_empire.ai import done_at_once, read_offer
from bot.games.vampire_empire.cards import NAMES, CardDef, Support
from bot.games.vampire_empire.plain import Card, Cards, SharedMove
from bot.games.vampire_empire.state import (
    HUMANS,
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


def _test_cards() -> Cards:
    """A card list with every kind of card a fight may see, more than the shipped pack has:
    fighting cards of each kind (a dual one, holy water, vampire), combat markers of both
    kinds, a marker played only on a turn, two cancel cards (one with copies) and a take card;
    copies in a row, as in a pack. The last two are the cards already played in the fight."""
    definitions = [
        CardDef(id="noble", name="Noble", professions=["noble"], value=2, count=2),
        CardDef(id="clergy", name="Clergy", professions=["clergy"], value=3),
        CardDef(id="dual", name="Dual", professions=["noble", "servant"], value=1),
        CardDef(id="water", name="Water", holy_water=True, professions=["servant"], value=2),
        CardDef(id="fang", name="Fang", vampire=True, professions=["clergy"], value=2),
        CardDef(
            id="claws",
            name="Claws",
            support=Support(effect="marker", marker="attack"),
            timing="combat",
            count=2,
        ),
        CardDef(
            id="guard",
            name="Guard",
            support=Support(effect="marker", marker="defence"),
            timing="combat",
            count=2,
        ),
        CardDef(
            id="shield",
            name="Shield",
            support=Support(effect="marker", marker="defence"),
            timing="turn",
        ),
        CardDef(
            id="alarm",
            name="Alarm",
            support=Support(effect="cancel"),
            timing="reaction",
            count=2,
        ),
        CardDef(id="bats", name="Bats", support=Support(effect="cancel")),
        CardDef(
            id="ledger",
            name="Ledger",
            support=Support(effect="take", pile="moat"),
            timing="action",
        ),
        CardDef(id="played-attack", name="Played attack", professions=["noble"], value=2),
        CardDef(id="played-defence", name="Played defence", professions=["clergy"], value=1),
    ]
    every = [definition for definition in definitions for _copy in range(definition.count)]
    return tuple(Card(number, definition) for number, definition in enumerate(every))


FIGHT_CARDS = _test_cards()
PLAYED_ATTACK, PLAYED_DEFENCE = len(FIGHT_CARDS) - 2, len(FIGHT_CARDS) - 1
IN_HAND = range(PLAYED_ATTACK)  # the cards a hand may hold


def _fight_hands() -> list[list[int]]:
    """Hands to fight with: none, every card, only support cards, only markers, only
    cancel cards, and random handfuls."""
    support = [n for n in IN_HAND if FIGHT_CARDS[n].effect is not None]
    rng = random.Random(3)
    return [
        [],
        list(IN_HAND),
        support,
        [n for n in support if FIGHT_CARDS[n].effect == "marker"],
        [n for n in support if FIGHT_CARDS[n].effect == "cancel"],
        *(rng.sample(IN_HAND, rng.randint(1, 8)) for _hand in range(12)),
    ]


@pytest.mark.parametrize("markers_stack", [True, False])
@pytest.mark.parametrize("cancel_timing", ["first_defence", "any_defence"])
@pytest.mark.parametrize("attacking", [VAMPIRES, HUMANS])
def test_the_fight_offer_is_what_the_moves_offer_at_any_fight(
    markers_stack: bool, cancel_timing: str, attacking: int
) -> None:
    """``_fight_offer`` restates which cards ``_combat_moves`` offers: at fights made directly
    (not only those seeded games reach) both fighters are offered the same, whatever their
    hand, the markers left and held, whether markers stack, when a cancel may be played, the
    round and who is revealed."""
    base = ENGINE.new_game(
        ENGINE.parse_options({"markers_stack": markers_stack, "cancel_timing": cancel_timing}),
        ["a", "b"],
        random.Random(0),
    )
    attacker, target = 0, 3  # the Lady (noble) attacks the Monk (clergy)
    offered = {"marker": 0, "no marker": 0, "cancel": 0}
    for hand, supply, held, fight_round, defended, revealed, side in itertools.product(
        _fight_hands(),
        [0, 1, 12],  # markers left in the supply
        [0, 1],  # markers each fighter already holds, of each kind
        [1, 2],
        [[], [PLAYED_DEFENCE]],  # the defence cards played so far
        [[], [attacker], [target]],
        [attacking, 1 - attacking],
    ):
        combat = Combat(
            attacker=attacker,
            target=target,
            side=attacking,
            start_defence=held,
            round=fight_round,
            step="attack" if side == attacking else "defend",
            attack_cards=[PLAYED_ATTACK],
            defence_cards=defended,
        )
        hands: list[list[int]] = [[], []]
        hands[side] = hand
        state = base.model_copy(
            update={
                "castle": [attacker, target, 6],
                "revealed": revealed,
                "attack_markers": [held] * 9,
                "defence_markers": [held] * 9,
                "marker_supply": supply,
                "hands": hands,
                "phase": "combat",
                "combat": combat,
            }
        )
        view = SeatView(ENGINE, state, FIGHT_CARDS, side)
        moves = ENGINE._combat_moves(state, FIGHT_CARDS, side)
        offer = ENGINE._fight_offer(state, FIGHT_CARDS, side)
        assert offer == read_offer(view, moves), (
            hand,
            supply,
            held,
            fight_round,
            defended,
            revealed,
            side,
        )
        wanted = "attack" if side == attacking else "defence"
        holds_one = any(
            FIGHT_CARDS[n].timing == "combat" and FIGHT_CARDS[n].marker == wanted for n in hand
        )
        offered["marker"] += offer[2] is not None
        offered["no marker"] += holds_one and offer[2] is None
        offered["cancel"] += offer[3] is not None
    # the cases that matter are met: a marker of the fighter's kind refused (none left, or one
    # held that does not stack) as well as offered, and cancel cards offered
    assert all(offered.values()), offered


def test_a_clicked_id_finds_the_action_legal_actions_lists() -> None:
    """``legal_action`` (a click's look-up, which makes only the clicked move an Action) finds
    what ``legal_actions`` lists, for every seat at every step, and nothing else; and apply of
    what it found plays as apply of the id does."""
    rng = random.Random(5)
    parsed = ENGINE.parse_options({"reveals_per_turn": "any", "markers_stack": False})
    for _game in range(3):
        state = ENGINE.new_game(parsed, ["a", "b"], rng)
        while not ENGINE.is_over(state):
            for seat in [*state.seats, "someone else"]:
                for action in ENGINE.legal_actions(state, seat):
                    assert ENGINE.legal_action(state, seat, action.id) == action
                assert ENGINE.legal_action(state, seat, "x:99") is None
            seat = ENGINE.current_seats(state)[0]
            chosen = ENGINE.choose_action(state, seat, rng).id
            found = ENGINE.legal_action(state, seat, chosen)
            assert found is not None
            by_id, _events = ENGINE.apply(state, seat, chosen, random.Random(1))
            state, _events = ENGINE.apply(state, seat, found, random.Random(1))
            assert state.model_dump_json() == by_id.model_dump_json()


def test_a_shared_move_shows_the_action_it_would_make_afresh() -> None:
    """A move made once for every state (``SharedMove``) makes its Action once: the same
    object each time, equal to the Action the move would make afresh."""
    rng = random.Random(6)
    parsed = ENGINE.parse_options({"reveals_per_turn": "any"})
    shared = 0
    for _game in range(3):
        state = ENGINE.new_game(parsed, ["a", "b"], rng)
        while not ENGINE.is_over(state):
            seat = ENGINE.current_seats(state)[0]
            side = state.seats.index(seat)
            for move in ENGINE.moves(state, side):
                assert move.action() == Move.action(move)
                if isinstance(move, SharedMove):
                    assert move.action() is move.action()
                    shared += 1
            state, _events = ENGINE.apply(state, seat, ENGINE.choose_action(state, seat, rng), rng)
    assert shared
