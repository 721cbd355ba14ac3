"""AI-only games for balance checks and benchmarks (``python -m bot simulate dfccg``)."""

from __future__ import annotations

import random
import time
from typing import Any

from bot.games.dfccg.engine import ENGINE, DfccgEngine
from bot.games.dfccg.state import DfOptions, DfState

MAX_STEPS = 5000


def play_one(engine: DfccgEngine, options: DfOptions, players: int, rng: random.Random) -> DfState:
    """Play one whole game with random legal moves; returns the final state."""
    seats = [f"ai{i}" for i in range(players)]
    state = engine.new_game(options, seats, rng)
    for _step in range(MAX_STEPS):
        if engine.is_over(state):
            return state
        seat = engine.current_seats(state)[0]
        action = engine.choose_action(state, seat, rng)
        state, _events = engine.apply(state, seat, action, rng)
    raise RuntimeError("a simulated game did not end")


def simulate(
    games: int, players: int, difficulty: str = "wizard", book: str = "storm-front", seed: int = 0
) -> dict[str, Any]:
    """Play ``games`` AI-only games; the same seed gives the same results."""
    options = DfOptions.model_validate({"difficulty": difficulty, "book": book})
    rng = random.Random(seed)
    wins = 0
    players_score = game_score = 0
    started = time.perf_counter()
    for _ in range(games):
        state = play_one(ENGINE, options, players, random.Random(rng.getrandbits(64)))
        result = ENGINE.result(state)
        assert result is not None
        wins += result.winner == "players"
        players_score += result.scores["players"]
        game_score += result.scores["game"]
    elapsed = time.perf_counter() - started
    return {
        "game": "dfccg",
        "games": games,
        "players": players,
        "difficulty": difficulty,
        "book": book,
        "seed": seed,
        "wins": wins,
        "mean_score": {
            "players": round(players_score / games, 3) if games else 0.0,
            "game": round(game_score / games, 3) if games else 0.0,
        },
        "games_per_second": round(games / elapsed, 2) if elapsed > 0 else 0.0,
    }
