"""AI-only games of any engine, for `python -m bot simulate GAME` and the benchmarks."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from pydantic import BaseModel

MAX_STEPS = 20000  # a game longer than this is a bug in the engine
# The keys of a summary line that differ from run to run (the speed); the rest is the same
# for the same seed.
TIMING_KEYS = ("games_per_second", "games_per_cpu_second")


class Stopwatch:
    """Wall-clock and CPU time since it was made. The CPU figure is the honest one on a busy
    machine (other processes stretch the wall clock, not this process's CPU time).

    With an engine, one game is set up first (its own RNG, not the seed's), so that content
    loaded once per process (card packs) is not counted as the games' time."""

    def __init__(
        self, engine: Playable | None = None, options: Any = None, players: int = 1
    ) -> None:
        if engine is not None:
            engine.new_game(options, [f"ai{i}" for i in range(players)], random.Random(0))
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def rates(self, games: int) -> dict[str, float]:
        """``games_per_second`` (wall clock) and ``games_per_cpu_second`` (this process)."""
        wall = time.perf_counter() - self.wall
        cpu = time.process_time() - self.cpu
        return {
            "games_per_second": round(games / wall, 2) if wall > 0 else 0.0,
            "games_per_cpu_second": round(games / cpu, 2) if cpu > 0 else 0.0,
        }


class Playable(Protocol):
    """What simulation needs of an engine (bot.games.base.GameEngine has it all; this module
    does not import base, which calls it back for its default ``simulate``)."""

    @property
    def key(self) -> str: ...
    @property
    def name(self) -> str: ...
    def new_game(self, options: Any, seats: list[str], rng: random.Random) -> Any: ...
    def is_over(self, state: Any) -> bool: ...
    def current_seats(self, state: Any) -> list[str]: ...
    def choose_action(self, state: Any, seat: str, rng: random.Random) -> Any: ...
    def apply(self, state: Any, seat: str, action: Any, rng: random.Random) -> tuple[Any, Any]: ...
    def result(self, state: Any) -> Any: ...


def play_one(
    engine: Playable, options: BaseModel, players: int, rng: random.Random
) -> tuple[Any, int]:
    """One AI-only game from one RNG: the final state and the number of actions."""
    seats = [f"ai{i}" for i in range(players)]
    state = engine.new_game(options, seats, rng)
    for step in range(MAX_STEPS):
        if engine.is_over(state):
            return state, step
        seat = engine.current_seats(state)[0]
        action = engine.choose_action(state, seat, rng)
        state, _events = engine.apply(state, seat, action, rng)
    raise RuntimeError(f"a simulated {engine.name} game did not end in {MAX_STEPS} actions")


def play_games(
    engine: Playable,
    options: BaseModel,
    players: int,
    games: int,
    seed: int,
    summary: bool = False,
) -> Iterator[tuple[Any, int]]:
    """``games`` AI-only games, each from its own RNG drawn from ``seed``: (final state,
    actions) of each, the same for the same seed. ``summary``: the caller reads a final state
    only through the engine's ``result`` and ``is_over`` and the fields the state model and
    its working form share (``simulate_games``), so an engine may give it in that form."""
    rng = random.Random(seed)
    # An engine may play its AI-only games its own faster way (``play_ai_game``), as long as
    # it gives what ``play_one`` would give for the same RNG; ``play_ai_summary`` is the same
    # game with the final state left in the engine's working form (no model made of it).
    play = (summary and getattr(engine, "play_ai_summary", None)) or getattr(
        engine, "play_ai_game", None
    )
    for _ in range(games):
        game_rng = random.Random(rng.getrandbits(64))
        if play is not None:
            yield play(options, players, game_rng)
        else:
            yield play_one(engine, options, players, game_rng)


def simulate_games(
    engine: Playable,
    options: BaseModel,
    players: int,
    games: int,
    seed: int,
    on_end: Callable[[Any], None] | None = None,
) -> dict[str, Any]:
    """Winners, mean scores and mean length of ``games`` games; the same seed, the same line
    (except its ``TIMING_KEYS``). ``on_end`` sees each final state (a game's own counts)."""
    winners: Counter[str] = Counter()
    scores: Counter[str] = Counter()
    steps = 0
    watch = Stopwatch(engine, options, players)
    for state, length in play_games(engine, options, players, games, seed, summary=True):
        result = engine.result(state)
        assert result is not None
        if on_end is not None:
            on_end(state)
        winners[result.winner] += 1
        scores.update(result.scores)
        steps += length
    rates = watch.rates(games)
    return {
        "game": engine.key,
        "games": games,
        "players": players,
        "seed": seed,
        "options": options.model_dump(mode="json"),
        "winners": dict(sorted(winners.items())),
        "mean_score": {k: round(v / games, 3) for k, v in sorted(scores.items())},
        "mean_actions": round(steps / games, 2),
        **rates,
    }
