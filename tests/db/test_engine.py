"""Units of work: reads never queue behind the writer, deadlines roll back, SQLite is durable."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlmodel import select

from bot.db.engine import Database
from bot.db.models.campaigns import Campaign
from bot.db.raw import Sql
from bot.errors import TableBusy

GUILD = 10**18 + 7


async def _add_campaign(db: Database, name: str) -> None:
    async with db.session() as session:
        session.add(Campaign(guild_id=GUILD, name=name, is_default=False))


async def _names(db: Database) -> list[str]:
    async with db.read() as session:
        return [c.name for c in (await session.exec(select(Campaign))).all()]


async def test_a_read_does_not_wait_for_a_writer(db: Database) -> None:
    await _add_campaign(db, "Before")
    writer_inside, release = asyncio.Event(), asyncio.Event()

    async def slow_writer() -> None:
        async with db.session() as session:
            session.add(Campaign(guild_id=GUILD, name="During", is_default=False))
            await session.flush()
            writer_inside.set()
            await release.wait()

    task = asyncio.create_task(slow_writer())
    await writer_inside.wait()
    assert await asyncio.wait_for(_names(db), 1) == ["Before"]  # the snapshot before the write
    release.set()
    await task
    assert sorted(await _names(db)) == ["Before", "During"]


async def test_a_unit_past_its_deadline_is_rolled_back_and_says_busy(db: Database) -> None:
    with pytest.raises(TableBusy, match="busy"):
        async with db.session(timeout=0.05) as session:
            session.add(Campaign(guild_id=GUILD, name="Too slow", is_default=False))
            await session.flush()
            await asyncio.sleep(1)
    assert await _names(db) == []


async def test_waiting_for_the_writer_counts_against_the_deadline(db: Database) -> None:
    if db.kind != "sqlite":
        pytest.skip("only SQLite queues writers in the process")
    holding, release = asyncio.Event(), asyncio.Event()

    async def holder() -> None:
        async with db.session():
            holding.set()
            await release.wait()

    task = asyncio.create_task(holder())
    await holding.wait()
    with pytest.raises(TableBusy):
        await _add_campaign_within(db, 0.05)
    release.set()
    await task
    await _add_campaign_within(db, 30.0)
    assert await _names(db) == ["Queued"]


async def test_units_beyond_the_pool_wait_for_a_kept_connection(db: Database) -> None:
    if db.kind != "postgresql":
        pytest.skip("only PostgreSQL units take connections from a pool")
    small = Database(db.url, unit_timeout=db.unit_timeout, pool_size=2)
    opened = 0

    @event.listens_for(small.engine.sync_engine, "connect")
    def _opened(*_: object) -> None:
        nonlocal opened
        opened += 1

    both_taken, release = asyncio.Event(), asyncio.Event()
    holding = 0

    async def hold() -> None:  # an ORM unit and a raw one, as the bot's paths are
        nonlocal holding
        holding += 1
        if holding == 2:
            both_taken.set()
        await release.wait()

    async def unit(n: int) -> None:
        if n % 2:
            async with small.raw() as work:
                await hold()
                await work.rows(Sql("SELECT count(*) FROM campaign"), {})
        else:
            async with small.session() as session:
                await hold()
                session.add(Campaign(guild_id=GUILD, name=f"C{n}", is_default=False))

    try:
        tasks = [asyncio.create_task(unit(n)) for n in range(8)]
        await asyncio.wait_for(both_taken.wait(), 10)
        with pytest.raises(TableBusy):  # both connections are taken: the wait is the deadline's
            async with small.read(timeout=0.2) as session:
                await session.exec(select(Campaign))
        release.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        assert sorted(await _names(db)) == [f"C{n}" for n in range(0, 8, 2)]
        for _ in range(3):  # a raw unit cut off by its deadline gives its connection back
            with pytest.raises(TableBusy):
                async with small.raw(timeout=0.05) as work:
                    await work.rows(Sql("SELECT pg_sleep(1)"), {})
        async with small.raw_read() as work:
            assert await work.rows(Sql("SELECT count(*) FROM campaign"), {})
        assert opened == 2  # the burst waited for the two kept connections; none was opened
    finally:
        await small.dispose()


async def test_units_go_on_after_postgresql_drops_every_connection(db: Database) -> None:
    """A server restart (here: every other backend terminated) costs no user a failed unit: the
    pool hands out only connections that are still open."""
    if db.kind != "postgresql":
        pytest.skip("PostgreSQL only")

    async def both_paths(name: str) -> None:
        async with db.session() as session:
            session.add(Campaign(guild_id=GUILD, name=name, is_default=False))
        async with db.raw_read() as work:
            assert await work.rows(Sql("SELECT count(*) FROM campaign"), {})

    await asyncio.gather(*(both_paths(f"Before {n}") for n in range(4)))  # several pooled
    async with db.engine.connect() as connection:
        await connection.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
    await asyncio.sleep(0.2)  # the hang-ups reach the client's sockets
    await asyncio.gather(*(both_paths(f"After {n}") for n in range(4)))
    assert len(await _names(db)) == 8


async def _add_campaign_within(db: Database, seconds: float) -> None:
    async with db.session(timeout=seconds) as session:
        session.add(Campaign(guild_id=GUILD, name="Queued", is_default=False))


async def test_a_timeout_inside_the_unit_is_not_mistaken_for_busy(db: Database) -> None:
    with pytest.raises(TimeoutError):
        async with db.read():
            await asyncio.wait_for(asyncio.sleep(1), 0.01)


async def test_a_read_unit_cannot_write_on_sqlite(tmp_path: Path) -> None:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'ro.db'}")
    await db.migrate()
    try:
        with pytest.raises(Exception, match="readonly|read-only|query_only"):
            async with db.read() as session:
                session.add(Campaign(guild_id=GUILD, name="Nope", is_default=False))
                await session.flush()
        async with db.session() as session:
            journal = (await session.exec(text("PRAGMA journal_mode"))).one()[0]  # type: ignore[call-overload]
            synchronous = (await session.exec(text("PRAGMA synchronous"))).one()[0]  # type: ignore[call-overload]
        assert (journal, synchronous) == ("wal", 1)  # WAL with synchronous=NORMAL
    finally:
        await db.dispose()


async def test_a_committed_unit_survives_a_new_process_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'durable.db'}"
    first = Database(url)
    await first.migrate()
    await _add_campaign(first, "Stored")
    await first.dispose()
    second = Database(url)
    try:
        assert await _names(second) == ["Stored"]
    finally:
        await second.dispose()


async def test_an_sqlite_unit_of_work_never_hands_the_loop_over(tmp_path: Path) -> None:
    """A unit that awaits nothing but the database runs start to end without suspending, so
    fifty at once never queue for the writer (SQLAlchemy's `async with` session closes in a
    task of its own; while the writer lock is held that cost every queued unit a loop turn)."""
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'units.db'}")
    await db.migrate()
    try:
        turns = 0

        def tick() -> None:
            nonlocal turns
            turns += 1

        for unit in (db.session, db.read):
            asyncio.get_running_loop().call_soon(tick)
            before = turns
            async with unit() as session:
                await session.exec(select(Campaign))
            assert turns == before, f"{unit.__name__} let the loop run other work"
        await asyncio.sleep(0)
        assert db._writer_turn is not None and not db._writer_turn.locked()

        async def write(k: int) -> None:
            assert db._writer_turn is not None and not db._writer_turn.locked()
            await _add_campaign(db, f"C{k}")

        await asyncio.gather(*(write(k) for k in range(50)))
        assert len(await _names(db)) == 50
    finally:
        await db.dispose()
