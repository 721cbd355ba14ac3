"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import bot.db.models  # noqa: F401
from bot.db.engine import Database
from bot.services.guild_settings import GuildSettingsService


async def test_migrations_match_models(db: Database) -> None:
    def diff(sync_connection):  # type: ignore[no-untyped-def]
        context = MigrationContext.configure(sync_connection, opts={"compare_type": True})
        return compare_metadata(context, SQLModel.metadata)

    async with db.engine.connect() as connection:
        assert await connection.run_sync(diff) == []


async def test_migrate_twice_is_harmless(db: Database) -> None:
    await db.migrate()


async def test_guild_settings_roundtrip_with_snowflakes(db: Database) -> None:
    big = 1_234_567_890_123_456_789  # wider than 32 bits: BIGINT on every database
    service = GuildSettingsService(db)
    assert (await service.get(big)).gm_role_id is None
    await service.set_gm_role(big, big + 1)
    fresh = GuildSettingsService(db)
    assert (await fresh.get(big)).gm_role_id == big + 1
    await fresh.set_gm_role(big, None)
    assert (await GuildSettingsService(db).get(big)).gm_role_id is None
