"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlmodel import SQLModel

import bot.db.models  # noqa: F401
from bot.db.engine import Database, alembic_config
from bot.db.models.columns import utcnow
from bot.db.repos.rolls import invoke_entries_in, invoke_note
from bot.fate.sheet import new_character
from bot.services.campaigns import insert_character_in, resolve_campaign_in
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


async def _alembic(db: Database, step: str, target: str) -> None:
    """Run one Alembic command on the database, with the standard driver as `migrate` does."""

    def run(connection: Connection) -> None:
        getattr(command, step)(alembic_config(connection), target)

    engine = create_async_engine(db.url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(run)
    finally:
        await engine.dispose()


async def test_ledger_entries_written_before_0012_get_their_roll_from_the_note(
    db: Database,
) -> None:
    """Before 0012 an invoke's entry named its roll only at the end of its note; the migration
    stores that roll id, so that void finds them by it. Other entries stay without a roll."""
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, 1, 2)
        harry = await insert_character_in(s, campaign, 3, new_character("Harry"))
    await _alembic(db, "downgrade", "0012_ledger_roll_id@-1")  # the ledger as it was
    old = [
        ("invoke", -1, invoke_note("Trouble Magnet", 7)),
        ("invoke", -1, invoke_note("Fought on roll #3", 12)),  # the last roll number counts
        ("invoke", -1, invoke_note("Wizard", 7)[:20]),  # cut short: no roll left to read
        ("invoke", -1, "Harry (contest #4)"),  # an invoke in a contest, not on a roll
        ("gm_edit", 1, "a mistake on roll #5"),  # typed by the GM: not an invoke
    ]
    async with db.engine.begin() as connection:
        for reason, delta, note in old:
            await connection.execute(
                text(
                    "INSERT INTO fate_point_entry (campaign_id, channel_id, character_id, who, "
                    "delta, balance_after, reason, note, actor_id, undone, created_at) VALUES "
                    "(:campaign, 2, :character, 'Harry', :delta, 2, :reason, :note, 3, :no, :at)"
                ),
                {
                    "campaign": campaign.id,
                    "character": harry.id,
                    "delta": delta,
                    "reason": reason,
                    "note": note,
                    "no": False,
                    "at": utcnow(),
                },
            )
    await _alembic(db, "upgrade", "heads")
    async with db.engine.connect() as connection:
        rows = await connection.execute(text("SELECT note, roll_id FROM fate_point_entry"))
        found = dict(rows.all())
    assert found == {
        old[0][2]: 7,
        old[1][2]: 12,
        old[2][2]: None,
        old[3][2]: None,
        old[4][2]: None,
    }
    async with db.read() as s:
        assert [e.note for e in await invoke_entries_in(s, campaign.id, 7)] == [old[0][2]]
        assert [e.note for e in await invoke_entries_in(s, campaign.id, 12)] == [old[1][2]]
        assert await invoke_entries_in(s, campaign.id, 5) == []
        assert await invoke_entries_in(s, campaign.id + 1, 7) == []  # another campaign's
