"""AI-only games for balance checks and benchmarks (``python -m bot simulate dreamwars``)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from bot.games.base import GameEvent
from bot.games.dreamwars.engine import ENGINE, DreamwarsEngine
from bot.games.dreamwars.state import DwOptions, DwState
from bot.games.simulate import Stopwatch

MAX_STEPS = 20000

Check = Callable[[DwState, DwState, list[GameEvent]], None]


def play_one(
    engine: DreamwarsEngine,
    options: DwOptions,
    players: int,
    rng: random.Random,
    check: Check | None = None,
) -> DwState:
    """One AI-only game; ``check(before, after, events)`` runs after every step."""
    seats = [f"ai{i}" for i in range(players)]
    state = engine.new_game(options, seats, rng)
    for _step in range(MAX_STEPS):
        if engine.is_over(state):
            return state
        seat = engine.current_seats(state)[0]
        action = engine.choose_action(state, seat, rng)
        after, events = engine.apply(state, seat, action, rng)
        if check is not None:
            check(state, after, events)
        state = after
    raise RuntimeError("a simulated Dreamwars game did not end")


def simulate(
    games: int,
    players: int,
    seed: int = 0,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``games`` AI-only games; the same seed gives the same results."""
    parsed = DwOptions.model_validate(options or {})
    rng = random.Random(seed)
    wins = 0
    turns = 0
    deaths = 0
    outcomes: Counter[str] = Counter()
    watch = Stopwatch(ENGINE, parsed, players)
    for _ in range(games):
        # the engine's own loop: the same game as play_one's, on one state changed in place
        state = ENGINE.play_ai_game(parsed, players, random.Random(rng.getrandbits(64)))[0]
        wins += state.result == "won"
        turns += state.total_turns
        deaths += state.deaths
        for outcome in state.outcomes:
            outcomes[f"{outcome.scenario}:{'won' if outcome.won else 'lost'}"] += 1
    rates = watch.rates(games)
    return {
        "game": "dreamwars",
        "games": games,
        "players": players,
        "seed": seed,
        "options": parsed.model_dump(exclude_defaults=True),
        "wins": wins,
        "win_rate": round(wins / games, 3) if games else 0.0,
        "scenario_outcomes": dict(sorted(outcomes.items())),
        "mean_turns": round(turns / games, 2) if games else 0.0,
        "deaths": deaths,
        "mean_deaths": round(deaths / games, 3) if games else 0.0,
        **rates,
    }
