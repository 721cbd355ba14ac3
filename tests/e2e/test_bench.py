"""The benchmark harness itself runs (tiny n): a broken bench should fail CI, not a later run."""

from __future__ import annotations

import pytest

from bench.__main__ import run


async def test_bench_runs_every_scenario_briefly() -> None:
    from bench.scenarios import SCENARIOS
    from tests.conftest import TEST_UNIT_TIMEOUT

    lines = await run(
        sorted(SCENARIOS), n=8, concurrency=2, db_unit_timeout_seconds=TEST_UNIT_TIMEOUT
    )
    assert [line["scenario"] for line in lines] == sorted(SCENARIOS)
    for line in lines:
        assert line["failures"] == 0, line["wrong_replies"]
        assert line["p50_ratio"] > 0 and line["throughput_ratio"] > 0 and line["cpu_ratio"] > 0


async def test_a_wrong_reply_is_a_failure_and_is_reported(table) -> None:  # type: ignore[no-untyped-def]
    """Odd requests ask for a sheet nobody has: their refusals are failures, not fast answers."""
    import re

    from bench.__main__ import _measure
    from bench.scenarios import Scenario

    def request(t, lane, i):  # type: ignore[no-untyped-def]
        return ("about", t.player, {}) if i % 2 == 0 else ("character sheet", t.player, {})

    scenario = Scenario("mixed", request, re.compile("Version"))
    result = await _measure(table, scenario, n=10, concurrency=2)
    assert result["failures"] == 5
    [(text, count)] = result["wrong_replies"].items()
    assert count == 5 and "character" in text.lower()


async def test_the_web_view_latency_line() -> None:
    from bench.web import web_follow_line

    line = await web_follow_line(6)
    assert line["scenario"] == "web-follow" and line["failures"] == 0, line
    assert line["p50_ratio"] > 0 and line["page_p50_ms"] < 1000, line


async def test_the_startup_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Start-up in processes of their own (a few stored games): both first commands answer."""
    from bench.processes import startup_line

    line = await startup_line(tmp_path, games=20)
    assert line["failures"] == 0 and line["stored_games"] == 20
    for key in ("startup_ratio", "first_command_ratio", "new_server_first_command_ratio"):
        assert line[key] > 0, line


@pytest.mark.parametrize("spares", [1, 0])
async def test_hand_clicks_go_on_into_a_new_game_when_one_ends(table, monkeypatch, spares) -> None:  # type: ignore[no-untyped-def]
    """One lane clicks past the end of its card game: the next clicks are in a new game (the
    spare started during set-up, or one started there and then when there is none), and every
    answer is the lane's hand (no click on a finished game's buttons)."""
    from sqlmodel import select

    import bench.scenarios
    from bench.__main__ import _measure
    from bench.scenarios import SCENARIOS
    from bot.db.models.games import GameRow

    monkeypatch.setattr(bench.scenarios, "SPARE_GAMES", spares)
    # Games dealt from fixed seeds (the lane's clicks are seeded too): a game whose deal took
    # more than 90 clicks would leave nothing finished, so the test would depend on the deal.
    seeds = iter(range(1, 100))
    table.bot.get_cog("GameTable").games.new_seed = lambda: next(seeds)
    result = await _measure(table, SCENARIOS["hand-click"], n=90, concurrency=1)
    assert result["failures"] == 0, result["wrong_replies"]
    assert result["samples"] == 90
    async with table.bot.db.session() as s:
        games = (await s.exec(select(GameRow))).all()
    finished = [g for g in games if g.status == "finished"]
    assert finished and len(games) >= 2
    # with a spare, the next game is in a channel of its own; without, in the same channel
    channels = {g.channel_id for g in games}
    assert len(channels) == (len(games) if spares else 1)


async def test_game_starts_alternate_new_lobbies_and_their_start(table) -> None:  # type: ignore[no-untyped-def]
    """`game-start`: a lobby, then its Start, each game in a channel of its own."""
    from sqlmodel import select

    from bench.__main__ import _measure
    from bench.scenarios import SCENARIOS
    from bot.db.models.games import GameRow

    result = await _measure(table, SCENARIOS["game-start"], n=9, concurrency=1)
    assert result["failures"] == 0 and result["samples"] == 9, result["wrong_replies"]
    async with table.bot.db.session() as s:
        games = (await s.exec(select(GameRow))).all()
    # the warm-up's lobby, then Start, and four more lobbies each with its Start
    assert [g.status for g in games] == ["running"] * 5
    assert len({g.channel_id for g in games}) == 5


async def test_explain_gives_the_floor_and_where_the_cpu_went() -> None:
    """A roll makes two requests (its answer, and the edit closing the roller's last roll):
    its line says so, its floor is pong making as many, and its CPU is split by where it went."""
    from tests.conftest import TEST_UNIT_TIMEOUT

    [line] = await run(
        ["roll"], n=12, concurrency=2, explain=True, db_unit_timeout_seconds=TEST_UNIT_TIMEOUT
    )
    assert line["failures"] == 0, line["wrong_replies"]
    assert 1.5 < line["requests_per_answer"] <= 2.0
    assert line["floor_cpu_ratio"] > 0
    split = line["cpu_split"]
    assert {"fake discord + bench", "discord.py + http client", "database", "bot"} <= set(split)
    assert sum(split.values()) == pytest.approx(1.0, abs=0.01)


async def test_pong_makes_the_requests_it_is_asked_for() -> None:
    """The floor's pong: `extra` requests before its answer, each counted in the stretch."""
    from bench.__main__ import _pong

    plain = await _pong(10, 2)
    floor = await _pong(10, 2, requests_per_answer=2.5)
    assert plain["requests_per_answer"] == 1.0
    assert floor["requests_per_answer"] == pytest.approx(2.5, abs=0.1)
    assert floor["failures"] == 0
