"""AI-only Vampire Empire games (``python -m bot simulate vampire-empire``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from bot.games import simulate as table_simulate
from bot.games.vampire_empire.state import VeOptions

ENDINGS = ("all_humans_dead", "all_vampires_dead", "castle_taken", "out_of_cards", "turn_limit")


def simulate(
    engine: table_simulate.Playable, options: VeOptions, games: int, seed: int
) -> dict[str, Any]:
    """Win rate of each side, how the games ended and their mean length; the same seed gives
    the same line (except its ``TIMING_KEYS``)."""
    winners: Counter[str] = Counter()
    endings: Counter[str] = Counter()
    turns = actions = 0
    watch = table_simulate.Stopwatch(engine, options, 2)
    for state, length in table_simulate.play_games(engine, options, 2, games, seed, summary=True):
        winners[state.winner or "?"] += 1
        endings[state.ending or "?"] += 1
        turns += state.turn
        actions += length
    rates = watch.rates(games)
    return {
        "game": engine.key,
        "games": games,
        "seed": seed,
        "win_rate": {
            side: round(winners[side] / games, 4) for side in ("vampires", "humans", "tie")
        },
        "endings": {ending: endings[ending] for ending in ENDINGS},
        "mean_turns": round(turns / games, 2),
        "mean_actions": round(actions / games, 2),
        **rates,
    }
