"""Raw units of work (bot/db/raw.py) keep what ORM units give: commit, rollback, deadlines,
the writer lock, versioned updates, the change hub and the parsed-row cache."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from bot.db.cache import parsed, remember
from bot.db.changes import touched
from bot.db.engine import Database
from bot.db.models.campaigns import Campaign
from bot.db.raw import RawUnit, Sql
from bot.db.repos.versioned import StaleError, update_versioned_raw_in
from bot.errors import TableBusy

GUILD = 10**18 + 11
ADD = Sql(
    "INSERT INTO campaign (guild_id, name, is_default, settings_json, created_at, version) "
    "VALUES (:guild, :name, :default, '{}', :now, 1) RETURNING id"
)
NAMES = Sql("SELECT name FROM campaign WHERE guild_id = :guild ORDER BY name")


async def _add(unit: RawUnit, name: str) -> int:
    from bot.db.models.columns import utcnow

    found = await unit.row(
        ADD, {"guild": GUILD, "name": name, "default": False, "now": unit.timestamp(utcnow())}
    )
    assert found is not None
    return int(found[0])


async def _names(db: Database) -> list[str]:
    async with db.raw_read() as unit:
        return [row[0] for row in await unit.rows(NAMES, {"guild": GUILD})]


def test_named_parameters_become_numbered_once() -> None:
    sql = Sql("SELECT :a, :b::text, :a WHERE x = :b AND y = ':no'")
    assert sql.names == ("a", "b")
    assert sql.numbered == "SELECT $1, $2::text, $1 WHERE x = $2 AND y = ':no'"
    assert not sql.writes and Sql(" update t set a = 1").writes


async def test_a_raw_unit_commits_and_the_orm_reads_it(db: Database) -> None:
    async with db.raw() as unit:
        await _add(unit, "Raw")
    async with db.read() as session:
        stored = (await session.exec(select(Campaign).where(Campaign.guild_id == GUILD))).one()
    assert (stored.name, stored.is_default, stored.version) == ("Raw", False, 1)
    assert stored.created_at.year >= 2026  # stored as the ORM stores it, read back by it


async def test_an_exception_rolls_the_raw_unit_back(db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with db.raw() as unit:
            await _add(unit, "Gone")
            raise RuntimeError("boom")
    assert await _names(db) == []


async def test_a_raw_unit_past_its_deadline_is_rolled_back_and_says_busy(db: Database) -> None:
    with pytest.raises(TableBusy):
        async with db.raw(timeout=0.05) as unit:
            await _add(unit, "Too slow")
            await asyncio.sleep(1)
    assert await _names(db) == []


async def test_a_raw_writer_waits_for_the_orm_writer_within_its_deadline(db: Database) -> None:
    if db.kind != "sqlite":
        pytest.skip("only SQLite queues writers in the process")
    holding, release = asyncio.Event(), asyncio.Event()

    async def holder() -> None:
        async with db.session() as session:
            session.add(Campaign(guild_id=GUILD, name="Held", is_default=False))
            await session.flush()
            holding.set()
            await release.wait()

    task = asyncio.create_task(holder())
    await holding.wait()
    with pytest.raises(TableBusy):
        async with db.raw(timeout=0.05) as unit:
            await _add(unit, "Queued")
    release.set()
    await task
    assert await _names(db) == ["Held"]
    async with db.raw() as unit:
        await _add(unit, "After")
    assert await _names(db) == ["After", "Held"]


async def test_a_versioned_raw_update_refuses_a_stale_version(db: Database) -> None:
    async with db.raw() as unit:
        key = await _add(unit, "Versioned")
    async with db.raw() as unit:
        assert (
            await update_versioned_raw_in(unit, "campaign", key, 1, {"name": "V2"}, StaleError("x"))
            == 2
        )
    with pytest.raises(StaleError, match="changed"):
        async with db.raw() as unit:
            await update_versioned_raw_in(
                unit, "campaign", key, 1, {"name": "V3"}, StaleError("it changed")
            )
    assert await _names(db) == ["V2"]


async def test_the_hub_hears_a_raw_write_once_committed_and_a_read_never(db: Database) -> None:
    with db.changes.subscribe(GUILD) as mine, db.changes.subscribe(GUILD + 1) as other:
        async with db.raw() as unit:
            await _add(unit, "Heard")
            touched(unit, {GUILD})
            assert not mine._event.is_set()  # not before the commit
        assert mine._event.is_set() and not other._event.is_set()
        published = db.changes.published
        await _names(db)
        with pytest.raises(RuntimeError):
            async with db.raw() as unit:
                await _add(unit, "Not heard")
                touched(unit, {GUILD})
                raise RuntimeError
        assert db.changes.published == published


async def test_the_parsed_cache_keeps_only_what_a_raw_unit_committed(db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with db.raw() as unit:
            remember(unit, "campaign", 1, 7, "rolled back")
            assert parsed(unit, "campaign", 1, 7) == "rolled back"  # its own, meanwhile
            raise RuntimeError
    async with db.raw_read() as unit:
        assert parsed(unit, "campaign", 1, 7) is None
        remember(unit, "campaign", 1, 7, "kept")
    async with db.raw_read() as unit:
        assert parsed(unit, "campaign", 1, 7) == "kept"
        assert parsed(unit, "campaign", 1, 8) is None  # another version is parsed again


async def test_a_raw_read_unit_cannot_write_on_sqlite(tmp_path: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'raw-ro.db'}")
    await db.migrate()
    try:
        with pytest.raises(Exception, match="readonly|read-only|query_only"):
            async with db.raw_read() as unit:
                await _add(unit, "Nope")
    finally:
        await db.dispose()


async def test_a_raw_sqlite_unit_never_hands_the_loop_over(tmp_path: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'raw-loop.db'}")
    await db.migrate()
    try:
        turns = 0

        def tick() -> None:
            nonlocal turns
            turns += 1

        for unit_of in (db.raw, db.raw_read):
            asyncio.get_running_loop().call_soon(tick)
            before = turns
            async with unit_of() as unit:
                await unit.rows(NAMES, {"guild": GUILD})
            assert turns == before, f"{unit_of.__name__} let the loop run other work"
    finally:
        await db.dispose()


async def test_pg_notify_tells_another_process_what_a_raw_unit_wrote(db: Database) -> None:
    if db.kind != "postgresql":
        pytest.skip("pg_notify is PostgreSQL's")
    other = Database(db.url)
    try:
        listener = await other.listen_for_changes()
        assert listener is not None
        await asyncio.wait_for(listener.connected.wait(), 10)
        with other.changes.subscribe(GUILD) as heard:
            heard.drain()
            async with db.raw() as unit:
                await _add(unit, "Told")
                touched(unit, {GUILD})
            assert await heard.wait(10)
    finally:
        await other.dispose()


async def test_the_sheet_statements_find_move_and_log_on_every_database(db: Database) -> None:
    from bot.db.models.campaigns import CharacterRow, FatePointEntry
    from bot.db.repos.characters import target_raw_in
    from bot.fate.sheet import new_character
    from bot.services.campaigns import (
        insert_character_in,
        move_fate_points_raw_in,
        resolve_campaign_in,
        set_active_in,
        target_of_in,
    )

    async with db.session() as session:
        campaign = await resolve_campaign_in(session, GUILD, 5)
        record = await insert_character_in(session, campaign, 77, new_character("Ruth Kane"))
        await set_active_in(session, GUILD, 77, record.id, None)
    async with db.raw_read() as unit:
        active = await target_raw_in(unit, GUILD, 5, user_id=77, name=None, ref=None)
        named = await target_raw_in(unit, GUILD, 5, user_id=0, name="ruth kane", ref=None)
        by_ref = await target_raw_in(unit, GUILD, 5, user_id=0, name="#x", ref=record.id)
        nobody = await target_raw_in(unit, GUILD, 5, user_id=0, name="nobody", ref=None)
        assert await target_raw_in(unit, GUILD + 9, 5, user_id=77, name=None, ref=None) is None
    for found in (active, named, by_ref):
        assert found is not None
        got_campaign, got = target_of_in(unit, found)
        assert got_campaign.id == campaign.id and got_campaign.is_default is True
        assert got is not None and (got.id, got.version) == (record.id, record.version)
    assert nobody is not None and nobody[6] is None
    async with db.raw() as unit:
        saved = await move_fate_points_raw_in(
            unit, record, 2, reason="gm_edit", actor_id=1, note="raw", channel_id=5
        )
    assert saved.version == record.version + 1
    async with db.read() as session:
        row = await session.get(CharacterRow, record.id)
        entry = (await session.exec(select(FatePointEntry))).one()
    assert row is not None and row.version == saved.version and row.updated_at is not None
    assert (entry.delta, entry.balance_after, entry.note, entry.undone) == (
        2,
        saved.sheet.fate_points,
        "raw",
        False,
    )
    with pytest.raises(StaleError):
        async with db.raw() as unit:
            await move_fate_points_raw_in(unit, record, 1, reason="gm_edit", actor_id=1)


RENAME = Sql("UPDATE campaign SET name = :name WHERE id = :id")


@pytest.mark.parametrize("kind", ["raw", "orm"])
async def test_a_deadlock_is_a_sentence_and_the_other_unit_commits(db: Database, kind: str) -> None:
    """Two units of work change two rows in opposite orders at once. PostgreSQL breaks the
    deadlock by rolling one back: its player reads "try again" (TableBusy), not an incident,
    and the other unit commits. SQLite has one writer at a time, so no deadlock to break."""
    if db.kind != "postgresql":
        pytest.skip("only PostgreSQL runs writers at once")
    from sqlalchemy import text

    async with db.raw() as unit:
        first, second = await _add(unit, "A"), await _add(unit, "B")
    locked = [asyncio.Event(), asyncio.Event()]

    async def rename(me: int, ids: tuple[int, int]) -> None:
        async def step(run: Any, row: int) -> None:
            params = {"name": f"{row} by {me}", "id": row}
            if kind == "raw":
                await run.run(RENAME, params)
            else:
                await run.exec(text(RENAME.text), params=params)

        unit_of = db.raw if kind == "raw" else db.session
        async with unit_of(timeout=10) as run:
            await step(run, ids[0])
            locked[me].set()
            await locked[1 - me].wait()  # each holds one row and now asks for the other's
            await step(run, ids[1])

    outcomes = await asyncio.gather(
        rename(0, (first, second)), rename(1, (second, first)), return_exceptions=True
    )
    busy = [o for o in outcomes if isinstance(o, TableBusy)]
    assert len(busy) == 1 and "same moment" in str(busy[0]), outcomes
    winner = outcomes.index(None)
    assert await _names(db) == sorted(f"{row} by {winner}" for row in (first, second))
