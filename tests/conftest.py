"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.config import Settings
from bot.db.engine import Database
from bot.testing.fake_discord import FakeDiscord
from bot.testing.harness import Table

PG_URL = os.environ.get("FATETABLE_TEST_DATABASE_URL")


def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'fatetable.db'}"


def make_settings(database_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "discord_token": FakeDiscord.TOKEN,
        "database_url": database_url,
        "dev_guild_id": None,
        "log_level": "WARNING",
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]  # pydantic-settings kwarg


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
        database = Database(sqlite_url(tmp_path))
    else:
        assert PG_URL
        database = Database(PG_URL)
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
