"""The AI-only path (ids instead of Moves, plain cards, the quiet context) against the path a
table plays (issue 15): the same choice at every step, only legal ids, the same plays, the same
cost rule, the same seats waited for, and whole games that end the same."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.games.dfccg import ENGINE
from bot.games.dfccg.ai import choose, choose_id
from bot.games.dfccg.cards import ActionCard
from bot.games.dfccg.state import plain
from bot.games.simulate import play_one

BOOKS = ["storm-front", "death-masks", "fool-moon", "grave-peril", "summer-knight", "side-jobs"]
SETUPS: list[tuple[dict[str, Any], int]] = [
    ({"book": book, "difficulty": level}, players)
    for book, level, players in zip(
        BOOKS, ["wizard", "merlin", "apprentice"] * 2, [1, 2, 3, 5, 3, 2], strict=True
    )
] + [({"allow_play_without_target": True, "start": "random-variant"}, 3)]


@pytest.mark.parametrize(("options", "players"), SETUPS)
def test_the_ai_chooses_the_same_by_id_as_by_move_and_only_legal_ids(
    options: dict[str, Any], players: int
) -> None:
    parsed = ENGINE.parse_options(options)
    for seed in range(2):
        rng = random.Random(seed)
        state = ENGINE.new_game(parsed, [f"p{i}" for i in range(players)], rng)
        while not ENGINE.is_over(state):
            seat = ENGINE.current_seats(state)[0]
            waited = ENGINE.current_seats(state)
            assert [s for s in state.seats if ENGINE.waits_for(state, s)] == [
                s for s in state.seats if s in waited
            ]
            legal = [a.id for a in ENGINE.legal_actions(state, seat)]
            by_move = choose(ENGINE, plain(state), seat, random.Random(seed)).id
            assert choose_id(ENGINE, plain(state), seat, random.Random(seed)) == by_move
            assert by_move in legal
            if state.decision is None and state.phase == "play":
                working = plain(state)
                ctx = ENGINE.reading(working)
                plays = ENGINE.plays(working, ctx, 10**6)
                assert {ENGINE.play_id(p) for p in plays} == {a for a in legal if a[:2] == "p:"}
                _costs_agree(ctx, working)
            state, _ = ENGINE.apply(state, seat, ENGINE.choose_action(state, seat, rng), rng)


def _costs_agree(ctx: Any, working: Any) -> None:
    """The cost a play is charged (the printed base plus `cost_modifiers`) is the one the
    buttons and views show (`cost`)."""
    active = working.active
    modifiers = ctx.cost_modifiers(active)
    for ref in working.tableaux[active].hand:
        card = ctx.cards[ref.card_id]
        assert isinstance(card, ActionCard)
        shown = ctx.cost(active, card)
        assert (shown.base, shown.dice) == (card.cost.base + modifiers[card.type], card.cost.dice)


@pytest.mark.parametrize(("options", "players"), SETUPS)
def test_an_ai_only_game_ends_as_the_table_loop_plays_it(
    options: dict[str, Any], players: int
) -> None:
    parsed = ENGINE.parse_options(options)
    for seed in range(3):
        table_state, table_steps = play_one(ENGINE, parsed, players, random.Random(seed))
        fast_state, fast_steps = ENGINE.play_ai_game(parsed, players, random.Random(seed))
        assert fast_steps == table_steps
        assert fast_state.model_dump_json() == table_state.model_dump_json()


def test_the_layout_kept_when_a_card_is_taken_is_what_a_fresh_look_at_the_rows_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Context.remove`` brings where the cards lie up to date itself (``_lift``) instead of
    laying out the rows again: after every card taken, the two agree."""
    from bot.games.dfccg.context import Context

    taken = 0
    remove = Context.remove

    def checked(ctx: Any, uid: str, tableau: int, reason: str) -> None:
        nonlocal taken
        remove(ctx, uid, tableau, reason)
        where, laid = dict(ctx.where()), {k: list(v) for k, v in ctx.laid_by_type().items()}
        ctx._lay_out()
        assert (where, laid) == (ctx.where(), ctx.laid_by_type())
        taken += 1

    monkeypatch.setattr(Context, "remove", checked)
    for options, players in SETUPS:
        for seed in range(2):
            ENGINE.play_ai_game(ENGINE.parse_options(options), players, random.Random(seed))
    assert taken > 50
