"""``private_view_from`` (the table's hand view, given the public view it has already) is
``private_view`` exactly, and leaves the public view it was given as it was."""

from __future__ import annotations

import copy
import random

import pytest

from bot.games.base import get_display, get_engine


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


@pytest.mark.parametrize(
    ("key", "players"), [("dfccg", 1), ("dfccg", 3), ("vampire-empire", 2), ("dreamwars", 2)]
)
def test_table_views_are_the_public_view_legal_actions_and_private_view(
    key: str, players: int
) -> None:
    """What the table shows after a move, asked at once (DFCCG reads the state once for all
    three), is what the three questions give one by one, at every step of a game."""
    engine = get_engine(key)
    rng = random.Random(7)
    state = engine.new_game(engine.default_options(), [f"p{i}" for i in range(players)], rng)
    for _step in range(80):
        for seat in [*dict.fromkeys(state.seats), "someone else"]:
            for with_actions in (True, False):
                public, actions, private = engine.table_views(state, seat, with_actions)
                assert public == engine.public_view(state)
                assert actions == (engine.legal_actions(state, seat) if with_actions else [])
                assert private == engine.private_view(state, seat)
        if engine.is_over(state):
            break
        seat = engine.current_seats(state)[0]
        state, _events = engine.apply(state, seat, engine.choose_action(state, seat, rng), rng)


@pytest.mark.parametrize(
    ("key", "players"), [("dfccg", 1), ("dfccg", 3), ("vampire-empire", 2), ("dreamwars", 2)]
)
def test_no_engine_call_changes_the_state_it_is_given(key: str, players: int) -> None:
    """The table keeps the state a move made and starts the next move from it (no JSON parsed
    again): that is only right while every call a move makes leaves its state as it was."""
    engine = get_engine(key)
    rng = random.Random(9)
    state = engine.new_game(engine.default_options(), [f"p{i}" for i in range(players)], rng)
    for _step in range(120):
        before = state.model_dump_json()
        for seat in [*dict.fromkeys(state.seats), "someone else"]:
            engine.table_views(state, seat)
            public_view, _actions, _hand = engine.seat_views(state, seat)
            public_view()
            engine.legal_actions(state, seat)
            engine.private_view(state, seat)
        engine.public_view(state)
        engine.result(state)
        if engine.is_over(state):
            assert state.model_dump_json() == before
            break
        seat = engine.current_seats(state)[0]
        action = engine.choose_action(state, seat, random.Random(1))
        new, _events = engine.apply(state, seat, action, random.Random(2))
        assert state.model_dump_json() == before
        assert new is not state
        state = new


@pytest.mark.parametrize(
    ("key", "players"), [("dfccg", 1), ("dfccg", 3), ("vampire-empire", 2), ("dreamwars", 2)]
)
def test_seat_views_show_what_the_table_views_show(key: str, players: int) -> None:
    """A move's answer (`seat_views`: the public view built later, a hand view that may be a
    part of the private view) shows the board and the hand exactly as `table_views` does."""
    engine = get_engine(key)
    display = get_display(key)
    rng = random.Random(11)
    state = engine.new_game(engine.default_options(), [f"p{i}" for i in range(players)], rng)
    for _step in range(80):
        for seat in [*dict.fromkeys(state.seats), "someone else"]:
            for with_actions in (True, False):
                public, actions, private = engine.table_views(state, seat, with_actions)
                build, seat_actions, hand = engine.seat_views(state, seat, with_actions)
                assert build() == public
                assert seat_actions == actions
                assert display.hand_fields(hand) == display.hand_fields(private)
        if engine.is_over(state):
            break
        seat = engine.current_seats(state)[0]
        state, _events = engine.apply(state, seat, engine.choose_action(state, seat, rng), rng)
