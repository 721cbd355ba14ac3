"""``play_ai_game`` (one Dreamwars state changed in place, no events kept) ends each game
exactly as the ``choose_action``/``apply`` loop does: the same final state and length."""

from __future__ import annotations

import random

import pytest

from bot.games.dreamwars.engine import ENGINE
from bot.games.simulate import play_one


@pytest.mark.parametrize(
    ("options", "players"),
    [({}, 3), ({}, 1), ({"simple_events": True, "replace_dead": False}, 5)],
)
def test_play_ai_game_plays_the_public_loops_games(
    options: dict[str, object], players: int
) -> None:
    parsed = ENGINE.parse_options(options)
    for seed in range(2):
        public = play_one(ENGINE, parsed, players, random.Random(seed))
        fast = ENGINE.play_ai_game(parsed, players, random.Random(seed))
        assert fast[1] == public[1]
        assert fast[0].model_dump_json() == public[0].model_dump_json()


def test_d6_draws_what_randint_draws() -> None:
    """dice.d6 stands for rng.randint(1, 6): the same numbers, the generator left the same."""
    from bot.games.dreamwars.dice import d6

    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert [d6(ours) for _ in range(500)] == [theirs.randint(1, 6) for _ in range(500)]
        assert ours.getstate() == theirs.getstate()


def test_the_ai_picks_the_same_from_its_ids_as_from_every_legal_id() -> None:
    """actions.ai_ids leaves out what the AI never chooses: over whole games it is in order
    a part of the legal ids, and ai.choose_id picks the same from both."""
    from bot.games.dreamwars.actions import ai_ids
    from bot.games.dreamwars.ai import choose_id

    for players in (1, 3, 5):
        rng = random.Random(players)
        state = ENGINE.new_game(ENGINE.default_options(), [f"ai{i}" for i in range(players)], rng)
        while not ENGINE.is_over(state):
            seat = ENGINE.current_seats(state)[0]
            every = [a.id for a in ENGINE.legal_actions(state, seat)]
            look = ENGINE._ctx(state)
            mine = ai_ids(ENGINE, look)
            rest = iter(every)
            assert all(any(a == b for b in rest) for a in mine)  # a subsequence
            chosen = choose_id(look, dict.fromkeys(mine))
            assert chosen == choose_id(ENGINE._ctx(state), dict.fromkeys(every))
            state, _events = ENGINE.apply(state, seat, chosen, rng)
