"""AI-only games for balance checks and benchmarks (``python -m bot simulate dfccg``)."""

from __future__ import annotations

import random
from typing import Any

from bot.games import simulate as table_simulate
from bot.games.base import GameEngine, get_engine
from bot.games.dfccg.state import DfOptions, DfState


def play_one(
    engine: GameEngine[Any, Any], options: DfOptions, players: int, rng: random.Random
) -> DfState:
    """Play one whole game with the AI in every seat; returns the final state."""
    state: DfState = table_simulate.play_one(engine, options, players, rng)[0]
    return state


def simulate_options(
    engine: GameEngine[Any, Any], options: DfOptions, players: int, games: int, seed: int
) -> dict[str, Any]:
    """Play ``games`` AI-only games; the same seed gives the same results. Besides the
    table's line: wins, mean scores and the mean game length in turns."""
    turns = 0

    def count(state: DfState) -> None:
        nonlocal turns
        turns += state.turn

    line = table_simulate.simulate_games(engine, options, players, games, seed, on_end=count)
    line.pop("options")
    return {
        **line,
        "difficulty": options.difficulty,
        "book": options.book,
        "wins": line["winners"].get("players", 0),
        "win_rate": round(line["winners"].get("players", 0) / games, 3),
        "mean_turns": round(turns / games, 2),
        "mean_score": {k: line["mean_score"].get(k, 0.0) for k in ("players", "game")},
    }


def simulate(
    games: int, players: int, difficulty: str = "wizard", book: str = "storm-front", seed: int = 0
) -> dict[str, Any]:
    """Simulate AI-only games from the command line's arguments."""
    options = DfOptions.model_validate({"difficulty": difficulty, "book": book})
    return simulate_options(get_engine("dfccg"), options, players, games, seed)
