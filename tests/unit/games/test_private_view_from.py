"""``private_view_from`` (the table's hand view, given the public view it has already) is
``private_view`` exactly, and leaves the public view it was given as it was."""

from __future__ import annotations

import copy
import random

import pytest

from bot.games.base import get_engine


@pytest.mark.parametrize(
    ("key", "players"), [("dfccg", 3), ("vampire-empire", 2), ("dreamwars", 2)]
)
def test_private_view_from_the_public_view_is_the_private_view(key: str, players: int) -> None:
    engine = get_engine(key)
    rng = random.Random(5)
    state = engine.new_game(engine.default_options(), [f"p{i}" for i in range(players)], rng)
    for step in range(60):
        if engine.is_over(state):
            break
        if step % 3 == 0:
            public = engine.public_view(state)
            before = copy.deepcopy(public)
            for seat in [*dict.fromkeys(state.seats), "someone else"]:
                assert engine.private_view_from(state, seat, public) == engine.private_view(
                    state, seat
                )
                assert engine.private_view_from(state, seat, None) == engine.private_view(
                    state, seat
                )
            assert public == before
        seat = engine.current_seats(state)[0]
        state, _events = engine.apply(state, seat, engine.choose_action(state, seat, rng), rng)
