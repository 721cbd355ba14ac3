"""Random legal moves must never change a state ``apply`` was given (issue 15 review).

The DFCCG and Vampire Empire engines fork their input shallowly and share what they only ever
replace, so a slip (a list left shared, a Book slot changed in place) would let a later move
rewrite an earlier state: an undo, a stored game or a simulation would then see the wrong past.
These games pick any legal move of any seat at random, with the rules options that open the
rarer paths, keep every earlier state with its JSON, and check none of them changed.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.games.base import get_engine

STEPS = 250  # random play need not end; this many moves a game is plenty


def _random_game(key: str, options: dict[str, Any], players: int, seed: int) -> int:
    engine = get_engine(key)
    rng = random.Random(seed)
    seats = [f"p{i}" for i in range(players)]
    state = engine.new_game(engine.parse_options(options), seats, rng)
    kept: list[tuple[Any, str]] = []
    for step in range(STEPS):
        if engine.is_over(state):
            break
        choices = [(s, a) for s in seats for a in engine.legal_actions(state, s)]
        assert choices, f"a {key} game that is not over offers nobody a move"
        # DFCCG's Showdown proposal is open to every seat at every turn: taken at random it
        # would end most games in their first turns, before the paths worth checking.
        later = [(s, a) for s, a in choices if a.id != "sd"]
        if later and rng.random() > 0.02:
            choices = later
        seat, action = rng.choice(choices)
        before = state.model_dump_json()
        kept.append((state, before))
        after, _events = engine.apply(state, seat, action.id if step % 2 else action, rng)
        assert state.model_dump_json() == before, f"step {step} changed its input"
        state = after
    changed = [i for i, (old, text) in enumerate(kept) if old.model_dump_json() != text]
    assert changed == [], f"later moves changed the states before steps {changed}"
    return len(kept)


@pytest.mark.parametrize(
    ("key", "options", "players"),
    [
        ("dfccg", {"allow_play_without_target": True, "start": "choose-variant"}, 1),
        ("dfccg", {"allow_play_without_target": True, "book": "side-jobs"}, 3),
        (
            "dfccg",
            {"book": "side-jobs", "start": "choose-variant", "showdown_consent": "host"},
            4,
        ),
        ("vampire-empire", {}, 2),
        (
            "vampire-empire",
            {"reveals_per_turn": "any", "no_legal_action": "discard", "played_cards_to": "cellar"},
            2,
        ),
    ],
)
def test_random_moves_never_change_an_earlier_state(
    key: str, options: dict[str, Any], players: int
) -> None:
    moves = sum(_random_game(key, options, players, seed) for seed in range(3))
    assert moves > 100  # the games really were played
