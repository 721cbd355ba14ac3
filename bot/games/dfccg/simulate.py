"""AI-only games for balance checks and benchmarks (``python -m bot simulate dfccg``)."""

from __future__ import annotations

import random
from typing import Any

from bot.games import simulate as table_simulate
from bot.games.dfccg.engine import ENGINE, DfccgEngine
from bot.games.dfccg.state import DfOptions, DfState


def play_one(engine: DfccgEngine, options: DfOptions, players: int, rng: random.Random) -> DfState:
    """Play one whole game with the AI in every seat; returns the final state."""
    state: DfState = table_simulate.play_one(engine, options, players, rng)[0]
    return state


def simulate_options(options: DfOptions, players: int, games: int, seed: int) -> dict[str, Any]:
    """Play ``games`` AI-only games; the same seed gives the same results."""
    line = table_simulate.simulate_games(ENGINE, options, players, games, seed)
    line.pop("options")
    return {
        **line,
        "difficulty": options.difficulty,
        "book": options.book,
        "wins": line["winners"].get("players", 0),
        "mean_score": {k: line["mean_score"].get(k, 0.0) for k in ("players", "game")},
    }


def simulate(
    games: int, players: int, difficulty: str = "wizard", book: str = "storm-front", seed: int = 0
) -> dict[str, Any]:
    """Simulate AI-only games from the command line's arguments."""
    options = DfOptions.model_validate({"difficulty": difficulty, "book": book})
    return simulate_options(options, players, games, seed)
