"""Seeded AI-only games with invariants checked after every step."""

import random

import pytest

from bot.games.dfccg import ENGINE, DfOptions, DfState
from bot.games.dfccg.simulate import simulate
from bot.games.dfccg.state import FATE_SUPPLY, TOKEN_SUPPLY
from bot.games.simulate import TIMING_KEYS


def check_invariants(state: DfState, hand_names: set[str], public_texts: list[str]) -> None:
    hits = sum(
        s.tokens
        for row in state.rows
        for s in row
        if s.card_id and s.tokens and ENGINE._ctx(state, random.Random(0)).book(s).type == "foe"
    )
    clues = sum(s.tokens for row in state.rows for s in row if s.tokens) - hits
    assert hits + state.hit_supply == TOKEN_SUPPLY
    assert clues + state.clue_supply == TOKEN_SUPPLY
    assert 0 <= state.available <= FATE_SUPPLY and 0 <= state.spent <= FATE_SUPPLY
    assert state.available + state.spent == FATE_SUPPLY
    assert all(len(row) <= 6 for row in state.rows)
    uids = [s.uid for row in state.rows for s in row]
    assert len(uids) == len(set(uids))  # rows are plain lists: no gaps, no duplicates
    for text in public_texts:
        for name in hand_names:
            assert name not in text, f"hand card {name!r} leaked in {text!r}"


def hand_card_names(state: DfState) -> set[str]:
    ctx = ENGINE._ctx(state, random.Random(0))
    return {ctx.cards[r.card_id].name for t in state.tableaux for r in t.hand}


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("book", ["storm-front", "side-jobs"])
def test_seeded_games_keep_invariants_and_end(players: int, book: str) -> None:
    _play_checked(players, book, range(12))


@pytest.mark.parametrize("players", [1, 2, 4])
@pytest.mark.parametrize("book", ["fool-moon", "grave-peril", "summer-knight", "death-masks"])
def test_every_campaign_book_keeps_invariants_and_ends(players: int, book: str) -> None:
    _play_checked(players, book, range(4))


def _play_checked(players: int, book: str, seeds: range) -> None:
    for seed in seeds:
        rng = random.Random(seed * 31 + players)
        difficulty = ("apprentice", "wizard", "merlin")[seed % 3]
        options = DfOptions.model_validate({"difficulty": difficulty, "book": book})
        state = ENGINE.new_game(options, [f"p{i}" for i in range(players)], rng)
        for _step in range(3000):
            if ENGINE.is_over(state):
                break
            seat = ENGINE.current_seats(state)[0]
            action = ENGINE.choose_action(state, seat, rng)
            before_hands = hand_card_names(state)
            state, events = ENGINE.apply(state, seat, action, rng)
            after_hands = hand_card_names(state)
            public = [e.text for e in events if e.public]
            public.append(str(ENGINE.public_view(state)))
            # A card is secret only while it stays in a hand across the step.
            check_invariants(state, before_hands & after_hands, public)
            assert DfState.model_validate_json(state.model_dump_json()) == state
        assert ENGINE.is_over(state)
        result = ENGINE.result(state)
        assert result is not None
        assert result.winner == (
            "players" if result.scores["players"] > result.scores["game"] else "game"
        )


def test_simulate_is_deterministic() -> None:
    first = simulate(15, 3, "wizard", "storm-front", seed=7)
    second = simulate(15, 3, "wizard", "storm-front", seed=7)
    for key in TIMING_KEYS:
        first.pop(key)
        second.pop(key)
    assert first == second
    assert first["games"] == 15 and 0 <= first["wins"] <= 15
