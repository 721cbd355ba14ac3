"""Bench lines for bots in processes of their own (the fake Discord stays in this process).

- `startup`: the bot starting on a database with 10,000 stored games (half live, half
  finished): time until it is ready, its first command in a new server, its first command
  after a restart (in a server it knows), and its own peak memory, each against the pong bot
  started the same way.
- `roll-postgresql-1-process` / `-2-processes`: the roll scenario on PostgreSQL served by one
  process (both shards) and by two (one shard each).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text

from bench.scenarios import SCENARIOS
from bot.db.engine import Database
from bot.testing.fake_discord import FakeDiscord
from bot.testing.harness import Table
from bot.testing.process import BotProcess

STORED_GAMES = 10_000


async def _no_bot() -> Any:
    raise AssertionError("the bot runs in a process of its own")


async def _started(
    env: dict[str, str], *, pong: bool = False
) -> tuple[FakeDiscord, Table, BotProcess, float]:
    fake = FakeDiscord()
    await fake.start()
    table = Table(fake, _no_bot)
    began = time.perf_counter()
    bot = await BotProcess.start(fake.port, env, pong=pong)
    return fake, table, bot, time.perf_counter() - began


async def _store_games(url: str, games: int) -> None:
    """One real running card game, copied `games` times (every other copy finished)."""
    from bot.services.games import GameService

    db = Database(url, unit_timeout=60)
    await db.migrate()
    service = GameService(db)
    lobby = await service.create_lobby(
        guild_id=1,
        channel_id=2,
        host_id=3,
        host_name="Host",
        engine_key="dfccg",
        options={"difficulty": "apprentice"},
    )
    await service.lobby_action(lobby.id, 3, "Host", "start")
    async with db.session(timeout=None) as session:
        await session.exec(  # type: ignore[call-overload]
            text(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :games) "
                "INSERT INTO games (engine, guild_id, channel_id, active_channel_id, host_id, "
                "seats, options, state, public_log, result, status, seed, version, created_at, "
                "last_activity, ended_at) "
                "SELECT engine, guild_id, channel_id + i, "
                "CASE WHEN i % 2 = 0 THEN channel_id + i END, host_id, seats, options, state, "
                "public_log, result, CASE WHEN i % 2 = 0 THEN status ELSE 'finished' END, seed, "
                "version, created_at, last_activity, CASE WHEN i % 2 = 1 THEN last_activity END "
                "FROM games, n WHERE games.id = :first"
            ).bindparams(games=games - 1, first=lobby.id)
        )
    await db.dispose()


async def startup_line(workdir: Path, games: int = STORED_GAMES) -> dict[str, Any]:
    url = f"sqlite+aiosqlite:///{workdir / 'startup.db'}"
    await _store_games(url, games)
    measured: dict[str, dict[str, float]] = {}
    for name, pong in (("pong", True), ("bot", False)):
        env = {"DATABASE_URL": url, "LOG_LEVEL": "ERROR"}
        fake, table, bot, ready_s = await _started(env, pong=pong)
        options: dict[str, Any] = {} if pong else {"skill": "+1"}
        command = "ping" if pong else "roll"
        try:
            # The bot's first command here is a new server's (it makes the server's campaign);
            # after a restart, the first one is in a server it knows, the usual case of a deploy.
            new_ms = await _first_ms(table, name, command, options)
            measured[name] = {"ready_s": ready_s, "new_ms": new_ms, "rss": bot.peak_rss_mb()}
            await bot.stop()
            bot = await BotProcess.start(fake.port, env, pong=pong)
            measured[name]["first_ms"] = await _first_ms(table, name, command, options)
        finally:
            await bot.stop()
            await fake.stop()
    ours, base = measured["bot"], measured["pong"]
    return {
        "scenario": "startup",
        "stored_games": games,
        "startup_s": round(ours["ready_s"], 2),
        "startup_ratio": round(ours["ready_s"] / base["ready_s"], 2),
        "first_command_ms": round(ours["first_ms"], 1),
        "first_command_ratio": round(ours["first_ms"] / base["first_ms"], 2),
        "new_server_first_command_ms": round(ours["new_ms"], 1),
        "new_server_first_command_ratio": round(ours["new_ms"] / base["new_ms"], 2),
        "bot_peak_rss_mb": round(ours["rss"], 1),
        "pong_peak_rss_mb": round(base["rss"], 1),
        "rss_ratio": round(ours["rss"] / base["rss"], 2),
        "failures": 0,
    }


async def _first_ms(table: Table, name: str, command: str, options: dict[str, Any]) -> float:
    first = await table.ask(command, user=table.player, **options)
    if not first.answered:
        raise RuntimeError(f"startup: the {name} bot did not answer its first command")
    assert first.record.completed_at is not None
    return (first.record.completed_at - first.record.sent_at) * 1000


async def scale_out_lines(pg_url: str, n: int, concurrency: int) -> list[dict[str, Any]]:
    """Rolls on PostgreSQL in two guilds (one per shard): one process, then two."""
    from bench.__main__ import _line, _measure

    db = Database(pg_url, unit_timeout=60)
    lines = []
    try:
        baseline = await _pong_in_process_of_its_own(n, concurrency)
        for processes in (1, 2):
            await _reset(db)
            fake = FakeDiscord()
            await fake.start()
            tables = [Table(fake, _no_bot, shard=(k, 2)) for k in (0, 1)]
            for table in tables:
                table.db = db  # type: ignore[attr-defined]  # the setups write through it
            common = {"DATABASE_URL": pg_url, "SHARD_COUNT": "2", "LOG_LEVEL": "ERROR"}
            shards = ["0,1"] if processes == 1 else ["0", "1"]
            bots = []
            try:
                for k, ids in enumerate(shards):
                    sync = "true" if k == 0 else "false"
                    env = {**common, "SHARD_IDS": ids, "SYNC_COMMANDS": sync}
                    bots.append(await BotProcess.start(fake.port, env))
                result = await _measure(tables, SCENARIOS["roll"], n, concurrency)
                await asyncio.sleep(1.0)  # let the bots finish the edits that follow answers
            finally:
                for bot in bots:
                    await bot.stop()
                await fake.stop()
            name = f"roll-postgresql-{processes}-process{'es' if processes > 1 else ''}"
            line = _line(name, n, concurrency, result, baseline)
            line.pop("cpu_ratio", None)  # the bots' CPU is in other processes
            lines.append(line)
    finally:
        await db.dispose()
    return lines


async def _pong_in_process_of_its_own(n: int, concurrency: int) -> dict[str, Any]:
    from bench.__main__ import PONG, _measure

    fake, table, bot, _ = await _started({"LOG_LEVEL": "ERROR"}, pong=True)
    try:
        result = await _measure(table, PONG, n, concurrency)
        result["cpu_ms_per_request"] = 0.0
        return result
    finally:
        await bot.stop()
        await fake.stop()


async def _reset(db: Database) -> None:
    async with db.engine.begin() as connection:
        await connection.execute(text("DROP SCHEMA public CASCADE"))
        await connection.execute(text("CREATE SCHEMA public"))
    await db.migrate()
