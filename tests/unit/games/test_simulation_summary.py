"""``simulate`` reads an engine's AI-only games through ``play_ai_summary`` when the engine has
one (the final state left in its working form): the same games as ``play_ai_game``."""

from __future__ import annotations

import random

import pytest

from bot.games.base import get_engine


@pytest.mark.parametrize(("options", "players"), [({}, 3), ({"book": "side-jobs"}, 1)])
def test_summary_games_are_the_model_games(options: dict[str, str], players: int) -> None:
    engine = get_engine("dfccg")
    parsed = engine.parse_options(options)
    for seed in range(6):
        made = engine.play_ai_game(parsed, players, random.Random(seed))  # type: ignore[attr-defined]
        plain = engine.play_ai_summary(parsed, players, random.Random(seed))  # type: ignore[attr-defined]
        assert plain[1] == made[1]
        assert plain[0].turn == made[0].turn
        assert engine.is_over(plain[0])
        assert engine.result(plain[0]) == engine.result(made[0])
