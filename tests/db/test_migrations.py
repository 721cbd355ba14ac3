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


async def test_partial_indexes_hold_the_rows_the_models_say(db: Database) -> None:
    """`compare_metadata` ignores an index's WHERE: the migrated partial indexes must say what
    the models say (on SQLite word for word; PostgreSQL rewrites it, so there: partial or not)."""
    wanted = {
        index.name: index.dialect_options["sqlite"]["where"]
        for table in SQLModel.metadata.tables.values()
        for index in table.indexes
    }
    async with db.engine.connect() as connection:
        if db.engine.dialect.name == "sqlite":
            rows = await connection.exec_driver_sql(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            )
        else:
            rows = await connection.exec_driver_sql("SELECT indexname, indexdef FROM pg_indexes")
        made = {name: sql for name, sql in rows.all() if name in wanted}
    assert set(made) == {name for name in wanted if name is not None}
    for name, sql in made.items():
        where = wanted[name]
        if db.engine.dialect.name == "sqlite":
            assert sql.endswith(f"WHERE {where}") if where is not None else "WHERE" not in sql
        else:
            assert ("WHERE" in sql) == (where is not None), sql
