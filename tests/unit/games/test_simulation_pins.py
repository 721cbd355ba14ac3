"""Seeded AI-only games pinned to what the engines did before their speed work (issue 15).

Each game is played the way ``python -m bot simulate`` plays it (bot/games/simulate.py: one
RNG per game drawn from the seed) and reduced to a short digest of everything it produced:
every chosen action id, every event (text, kind, who may see it), the final state's JSON and
the result. A faster engine must give the same digests; a rules change that means to change
the games updates the constants below and says so in its commit.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from bot.games.base import Action, find_action, get_engine
from bot.games.simulate import MAX_STEPS, play_one


def _game_digest(key: str, options: dict[str, Any], players: int, rng: random.Random) -> str:
    engine = get_engine(key)
    parsed = engine.parse_options(options)
    digest = hashlib.sha256()
    state = engine.new_game(parsed, [f"ai{i}" for i in range(players)], rng)
    for _step in range(MAX_STEPS):
        if engine.is_over(state):
            break
        seat = engine.current_seats(state)[0]
        action = engine.choose_action(state, seat, rng)
        state, events = engine.apply(state, seat, action, rng)
        digest.update(action.id.encode())
        for event in events:
            line = [event.text, event.kind, event.public, event.audience]
            digest.update(json.dumps(line).encode())
    else:
        raise AssertionError(f"a {key} game did not end")
    result = engine.result(state)
    assert result is not None
    digest.update(state.model_dump_json().encode())
    digest.update(result.model_dump_json().encode())
    return digest.hexdigest()[:10]


def digests(key: str, options: dict[str, Any], players: int, games: int, seed: int) -> list[str]:
    """One digest per game, each game from its own RNG drawn from ``seed`` (as simulate does)."""
    rng = random.Random(seed)
    return [
        _game_digest(key, options, players, random.Random(rng.getrandbits(64)))
        for _ in range(games)
    ]


# (game, options, players, games, seed) -> the digests the engine gave before the speed work.
PINS: list[tuple[str, dict[str, Any], int, int, int, list[str]]] = [
    (
        "dfccg",
        {},
        3,
        12,
        0,
        [
            "49eb80118c",
            "4ed6dafd89",
            "95168bdf1b",
            "12eec0e0fe",
            "f5aad8c080",
            "3730fcfb0f",
            "434691237e",
            "002d040caa",
            "2e8af89ae8",
            "d131500984",
            "e8f5c8ce5b",
            "98214c80b4",
        ],
    ),
    (
        "dfccg",
        {"difficulty": "merlin"},
        1,
        8,
        1,
        [
            "9e62bc7ace",
            "0646ae7a97",
            "9bd545df55",
            "95e11561f8",
            "67c38355c8",
            "4ddc0a8565",
            "330436fff7",
            "af0605b119",
        ],
    ),
    (
        "dfccg",
        {"difficulty": "apprentice", "start": "choose-variant"},
        2,
        4,
        2,
        ["f0d47362a3", "4c0d5db4c8", "347252b363", "6a8cededb4"],
    ),
    (
        "dfccg",
        {"book": "side-jobs", "start": "random-variant"},
        4,
        3,
        3,
        ["a1c15a046f", "f907aeedbd", "591eb1d9d4"],
    ),
    (
        "dfccg",
        {"book": "grave-peril", "showdown_consent": "host"},
        5,
        3,
        4,
        ["5ae2bed355", "a6c6641474", "8b18953a73"],
    ),
    (
        "vampire-empire",
        {},
        2,
        16,
        0,
        [
            "feb029e603",
            "75dbd9d85e",
            "6a063454b3",
            "794e26a9dc",
            "2718d8a94a",
            "540ca809c3",
            "06391243e3",
            "d7fd634d20",
            "733a4f2eba",
            "7e5e00a4ff",
            "32f0155a22",
            "6c6f1b6238",
            "11454de85d",
            "1a8f5dcd0e",
            "642cdc7660",
            "5c2f69a957",
        ],
    ),
    (
        "vampire-empire",
        {"reveals_per_turn": "any", "no_legal_action": "discard", "played_cards_to": "cellar"},
        2,
        4,
        1,
        ["bb240d0731", "b9b7040518", "84a665105e", "0e6dd87742"],
    ),
    (
        "dreamwars",
        {},
        3,
        6,
        0,
        ["a9626587e7", "e7e888fb0b", "ebdc3f98cd", "d361f3c420", "2d01c50a3f", "20d75b8fe6"],
    ),
    ("dreamwars", {}, 1, 3, 1, ["481fa1283a", "4432a1c269", "057eebd30f"]),
    (
        "dreamwars",
        {"simple_events": True, "replace_dead": False},
        5,
        2,
        2,
        ["836e0db7d9", "5b5e9482ed"],
    ),
]


@pytest.mark.parametrize(("key", "options", "players", "games", "seed", "expected"), PINS)
def test_seeded_games_are_pinned(
    key: str, options: dict[str, Any], players: int, games: int, seed: int, expected: list[str]
) -> None:
    assert digests(key, options, players, games, seed) == expected


@pytest.mark.parametrize(
    ("key", "players"), [("dfccg", 1), ("dfccg", 3), ("vampire-empire", 2), ("dreamwars", 3)]
)
def test_apply_leaves_its_input_state_alone(key: str, players: int) -> None:
    """The engines copy only what a step changes; every step is checked against its input."""
    engine = get_engine(key)
    rng = random.Random(7)
    for _game in range(2):
        state = engine.new_game(engine.default_options(), [f"ai{i}" for i in range(players)], rng)
        while not engine.is_over(state):
            seat = engine.current_seats(state)[0]
            action = engine.choose_action(state, seat, rng)
            before = state.model_dump_json()
            after, _events = engine.apply(state, seat, action, rng)
            assert state.model_dump_json() == before
            state = after


def _legal_ids(engine: Any, state: Any) -> str:
    """Every seat's legal action ids in ``state``, in order, as one line."""
    return json.dumps([[a.id for a in engine.legal_actions(state, s)] for s in state.seats])


def _clicked_game(
    key: str, options: dict[str, Any], players: int, rng: random.Random, click: bool
) -> tuple[str, str]:
    """A pinned game played again, with every seat's legal ids hashed at every step.

    ``click``: on alternate steps the AI's choice goes in the way a human's click does
    (bot/services/games_play.py ``_act_on``: the state loaded from its JSON, ``find_action`` by
    id), or as the bare id; either way ``LastChoice`` does not match, so ``apply`` checks legality itself. Returns
    (the game's digest as ``_game_digest`` makes it, the digest of the legal ids)."""
    engine = get_engine(key)
    digest, legal = hashlib.sha256(), hashlib.sha256()
    state = engine.new_game(engine.parse_options(options), [f"ai{i}" for i in range(players)], rng)
    for step in range(MAX_STEPS):
        legal.update(_legal_ids(engine, state).encode())
        if engine.is_over(state):
            break
        seat = engine.current_seats(state)[0]
        action = engine.choose_action(state, seat, rng)
        allowed = [a.id for a in engine.legal_actions(state, seat)]
        assert action.id in allowed, f"the AI chose {action.id!r}, not among {allowed}"
        given: Action | str = action
        if click and step % 4 == 1:  # as a click: the stored JSON loaded, the id looked up
            state = engine.load_state(state.model_dump_json())
            given = find_action(engine, state, seat, action.id)
        elif click and step % 4 == 3:  # the bare id, on the AI's own state object
            given = action.id
        state, events = engine.apply(state, seat, given, rng)
        digest.update(action.id.encode())
        for event in events:
            line = [event.text, event.kind, event.public, event.audience]
            digest.update(json.dumps(line).encode())
    else:
        raise AssertionError(f"a {key} game did not end")
    result = engine.result(state)
    assert result is not None
    digest.update(state.model_dump_json().encode())
    digest.update(result.model_dump_json().encode())
    return digest.hexdigest()[:10], legal.hexdigest()[:10]


# The first few games of some pins above: (index into PINS, how many games).
CLICKED = [(0, 3), (1, 2), (2, 2), (3, 1), (4, 1), (5, 4), (6, 2), (7, 1), (8, 1)]


@pytest.mark.parametrize(("pin", "games"), CLICKED)
def test_clicked_moves_give_the_pinned_games(pin: int, games: int) -> None:
    """The click path (legality checked by ``apply``) plays the same games as the AI's fast
    path, and offers every seat the same legal ids at every step."""
    key, options, players, _games, seed, expected = PINS[pin]
    fast_rng, click_rng = random.Random(seed), random.Random(seed)
    for number in range(games):
        fast = _clicked_game(
            key, options, players, random.Random(fast_rng.getrandbits(64)), click=False
        )
        clicked = _clicked_game(
            key, options, players, random.Random(click_rng.getrandbits(64)), click=True
        )
        assert fast[0] == expected[number]  # hashing the legal ids changed nothing
        assert clicked == fast


@pytest.mark.parametrize("pin", [i for i, pin in enumerate(PINS) if pin[0] == "dfccg"])
def test_simulation_fast_path_plays_the_pinned_games(pin: int) -> None:
    """``simulate`` plays DFCCG through the engine's own loop (``play_ai_game``: one state
    changed in place, no events kept); it must end every game exactly as the public
    ``choose_action``/``apply`` loop does: the same final state, result and length."""
    key, options, players, games, seed, _expected = PINS[pin]
    engine: Any = get_engine(key)
    parsed = engine.parse_options(options)
    public_rng, fast_rng = random.Random(seed), random.Random(seed)
    for _game in range(games):
        public = play_one(engine, parsed, players, random.Random(public_rng.getrandbits(64)))
        fast = engine.play_ai_game(parsed, players, random.Random(fast_rng.getrandbits(64)))
        assert fast[1] == public[1]
        assert fast[0].model_dump_json() == public[0].model_dump_json()
        assert engine.result(fast[0]) == engine.result(public[0])
