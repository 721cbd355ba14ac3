"""The AI-only shortcuts of Vampire Empire give what the public engine calls give: the lazy
seat view holds the private view's entries, and ``play_ai_game`` (one state changed in place)
ends each game exactly as the ``choose_action``/``apply`` loop does."""

from __future__ import annotations

import random

import pytest

from bot.games.simulate import play_one
from bot.games.vampire_empire import ENGINE
from bot.games.vampire_empire.views import SeatView

OPTIONS = [
    {},
    {"reveals_per_turn": "any", "no_legal_action": "discard", "played_cards_to": "cellar"},
    {"reveal_in_city": True, "vampire_attacks_vampire": True, "markers_stack": False},
]


@pytest.mark.parametrize("options", OPTIONS)
def test_seat_view_is_the_private_view(options: dict[str, object]) -> None:
    rng = random.Random(11)
    parsed = ENGINE.parse_options(options)
    for _game in range(3):
        state = ENGINE.new_game(parsed, ["a", "b"], rng)
        while not ENGINE.is_over(state):
            for seat in state.seats:
                full = ENGINE.private_view(state, seat)
                lazy = ENGINE._seat_view(state, seat)
                assert isinstance(lazy, SeatView)
                assert list(lazy) == list(full)
                assert {key: lazy[key] for key in lazy} == full
                assert lazy.get("paying") == full.get("paying")
                assert ("choosing" in lazy) == ("choosing" in full)
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
