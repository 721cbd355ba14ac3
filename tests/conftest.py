"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

from bot.config import Settings
from bot.db.engine import Database
from bot.testing.fake_discord import FakeDiscord
from bot.testing.harness import Table

PG_URL = os.environ.get("FATETABLE_TEST_DATABASE_URL")
# The suite runs in parallel on small, shared CI machines, where a unit of work can take longer
# than the 2 s a user waits for; the deadline itself is tested in tests/db/test_engine.py.
TEST_UNIT_TIMEOUT = 60.0
# For the same reason a property test has no per-example deadline (Hypothesis's 200 ms failed
# an example on a loaded machine): what it asserts is the property, never its speed.
hypothesis_settings.register_profile("fatetable", deadline=None)
hypothesis_settings.load_profile("fatetable")


def worker_pg_url(url: str) -> str:
    """Under pytest-xdist each worker gets its own database (the fixture drops the schema)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return url
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    return parsed.set(database=f"{parsed.database}_{worker}").render_as_string(hide_password=False)


async def ensure_pg_database(url: str) -> None:
    """Create the worker's database on first use, through the server's maintenance database."""
    import asyncpg  # type: ignore[import-untyped]
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    conn = await asyncpg.connect(
        user=parsed.username,
        password=parsed.password,
        host=parsed.host,
        port=parsed.port,
        database="postgres",
    )
    try:
        exists = await conn.fetchval(
            "SELECT 1 FROM pg_database WHERE datname = $1", parsed.database
        )
        if not exists:
            try:
                await conn.execute(f'CREATE DATABASE "{parsed.database}"')
            except asyncpg.DuplicateDatabaseError:
                pass
    finally:
        await conn.close()


def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'fatetable.db'}"


def make_settings(database_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "discord_token": FakeDiscord.TOKEN,
        "database_url": database_url,
        "dev_guild_id": None,
        "log_level": "WARNING",
        "db_unit_timeout_seconds": TEST_UNIT_TIMEOUT,
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]  # pydantic-settings kwarg


@pytest.fixture(autouse=True)
def _live_edits_unthrottled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Live messages edited after every change, as before the one-edit-per-second throttle:
    a test reads the board right after its command. test_coalesce.py tests the throttle."""
    import cogs.common.coalesce

    monkeypatch.setattr(cogs.common.coalesce, "LIVE_EDIT_INTERVAL", 0.0)


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return sqlite_url(tmp_path)


@pytest.fixture
async def table(database_url: str) -> AsyncIterator[Table]:
    """The real bot with every cog, connected to a fresh fake Discord and a fresh database."""
    from bot.client import create_bot

    settings = make_settings(database_url)

    async def factory():  # type: ignore[no-untyped-def]
        return await create_bot(settings, guild_ready_timeout=0.05)

    t = await Table.open(factory)
    try:
        yield t
    finally:
        await t.close()


@pytest.fixture(params=["sqlite"] + (["postgresql"] if PG_URL else []))
async def db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated database: SQLite always, PostgreSQL too when FATETABLE_TEST_DATABASE_URL is set."""
    if request.param == "sqlite":
        database = Database(sqlite_url(tmp_path), unit_timeout=TEST_UNIT_TIMEOUT)
    else:
        assert PG_URL
        url = worker_pg_url(PG_URL)
        await ensure_pg_database(url)
        database = Database(url, unit_timeout=TEST_UNIT_TIMEOUT)
        await _reset_postgres(database)
    await database.migrate()
    try:
        yield database
    finally:
        await database.dispose()


async def _reset_postgres(database: Database) -> None:
    from sqlalchemy import text

    async with database.engine.begin() as connection:
        await connection.execute(text("DROP SCHEMA public CASCADE"))
        await connection.execute(text("CREATE SCHEMA public"))


@pytest.fixture
def fast_board(monkeypatch: pytest.MonkeyPatch) -> None:
    """Game boards redrawn at once rather than coalesced over 0.3 s (the game e2e tests)."""
    import bot.ui.games

    monkeypatch.setattr(bot.ui.games, "BOARD_COALESCE_SECONDS", 0.01)
    monkeypatch.setattr(bot.ui.games, "PICTURE_EVERY_SECONDS", 0.0)
