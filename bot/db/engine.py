"""The async engine, units of work and start-up migrations.

A unit of work is `async with db.session():` (may write) or `async with db.read():` (reads
only). Each one has a deadline (`UNIT_TIMEOUT`, well inside the 3 s Discord gives an
interaction): one that cannot finish in time, queueing included, is rolled back and raises
`TableBusy`, whose sentence the error handler shows.

On SQLite the statements run inline on the event loop's thread (see `_InlineConnection`):
a statement costs microseconds, which is less than handing it to another thread and back, and
the writer lock below keeps a write transaction from ever waiting on SQLite's busy handler.
Reads use their own connections, read-only, and never wait for the writer (WAL). On PostgreSQL
(asyncpg) units of work run concurrently and rows' versions settle races.

On SQLite a unit of work never suspends, so the writer lock is never contended within one
process: that is why its sessions are closed with a plain `await session.close()`.
SQLAlchemy's `async with AsyncSession()` closes in a task of its own (so that a cancellation
cannot abandon the close half-way), and waiting for that task hands the event loop to every
other ready request while the lock is still held: under load each writer then waits one full
loop turn per unit ahead of it (at 50 concurrent rolls, most of them "busy"). With the inline
connection the close cannot be interrupted, so it needs no task.

The hot paths skip the ORM: `raw()` / `raw_read()` are the same units of work for statements
written once in SQL (bot/db/raw.py), run on the driver's connection.
"""

from __future__ import annotations

import asyncio
import secrets
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, exc, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.util.concurrency import greenlet_spawn
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.orm.session import Session as SQLModelSession

from bot.db.cache import ParsedRows
from bot.db.changes import (
    NOTIFY_CHANNEL,
    ChangeHub,
    ChangeListener,
    notify_payload,
    track_changes,
)
from bot.db.raw import AsyncpgDriver, Driver, RawUnit, SessionDriver, SqliteDriver
from bot.errors import TableBusy

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
UNIT_TIMEOUT = 2.0  # seconds, lock wait included; Discord drops an unanswered interaction at 3 s
# PostgreSQL connections each process keeps open. No overflow on top: a connection opened for a
# burst and closed after it costs more than the wait for a pooled one (a roll at concurrency 50:
# 2.2 ms CPU with 20 kept, 2.5-2.7 with 5 or 20 kept plus overflow); the wait counts against the
# unit's deadline like the writer lock's on SQLite.
POOL_SIZE = 20
# The bot's tables are small enough to stay in memory (or on SSD): a page read at random costs
# about what one read in order does. With PostgreSQL's default (4x), the planner walks a whole
# history table's primary key backwards to find a quiet campaign's newest ledger entries,
# rather than read them through their (campaign, id) index (tests/db/test_postgres_plans.py).
POSTGRES_SETTINGS = {"random_page_cost": "1.1"}
_DEFAULT = object()


class _InlineCursor:
    """The part of aiosqlite's cursor SQLAlchemy uses, run on the calling thread."""

    __slots__ = ("_owner", "_cursor")

    def __init__(self, owner: _InlineConnection) -> None:
        self._owner = owner
        self._cursor = owner._connection.cursor()

    async def __aenter__(self) -> _InlineCursor:
        return self

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value

    async def execute(self, sql: str, parameters: Any = ()) -> _InlineCursor:
        self._owner.begin_if_needed()
        self._cursor.execute(sql, parameters)
        return self

    async def executemany(self, sql: str, parameters: Any) -> _InlineCursor:
        self._owner.begin_if_needed()
        self._cursor.executemany(sql, parameters)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(size or self._cursor.arraysize)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def nextset(self) -> None:
        return None

    async def close(self) -> None:
        self._cursor.close()


class _InlineConnection:
    """An aiosqlite look-alike whose coroutines never suspend: no thread, no hop per statement.

    The sqlite3 connection is in autocommit mode and the transaction is opened explicitly at the
    first statement, so a read-only unit reads one consistent snapshot and a writer takes the
    write lock up front (BEGIN IMMEDIATE) instead of upgrading half-way.
    """

    def __init__(self, path: str, *, read_only: bool) -> None:
        self._connection = _sqlite_connection(path, read_only=read_only)
        self._begin = _begin(read_only)

    def begin_if_needed(self) -> None:
        if not self._connection.in_transaction:
            self._connection.execute(self._begin)

    @property
    def isolation_level(self) -> str | None:
        return self._connection.isolation_level

    def cursor(self) -> _InlineCursor:
        return _InlineCursor(self)

    async def commit(self) -> None:
        self._connection.commit()

    async def rollback(self) -> None:
        self._connection.rollback()

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._connection.create_function(*args, **kwargs)

    async def close(self) -> None:
        self._connection.close()

    def stop(self) -> None:
        self._connection.close()


def _sqlite_connection(path: str, *, read_only: bool) -> sqlite3.Connection:
    connection = sqlite3.connect(
        path, isolation_level=None, check_same_thread=False, uri=path.startswith("file:")
    )
    for pragma in _pragmas(read_only):
        connection.execute(pragma)
    return connection


def _begin(read_only: bool) -> str:
    return "BEGIN" if read_only else "BEGIN IMMEDIATE"


def _pragmas(read_only: bool) -> list[str]:
    return [
        "PRAGMA journal_mode=WAL",
        # With WAL, NORMAL loses nothing on a crash of the process (a commit is in the WAL file
        # before COMMIT returns); only a power cut can drop the last commits.
        "PRAGMA synchronous=NORMAL",
        "PRAGMA foreign_keys=ON",
        # The writer lock means this process never waits here; a short wait covers another
        # process (a CLI tool) holding the file for a moment without stalling the event loop.
        "PRAGMA busy_timeout=200",
        *(["PRAGMA query_only=ON"] if read_only else []),
    ]


class TrackedSession(SQLModelSession):
    """The sessions of every Database: they tell its `ChangeHub` what they committed."""


track_changes(TrackedSession, lambda session: session.info.get("hub"))


def _hung_up_is_gone(connection: Any, _record: Any, _proxy: Any) -> None:
    """A pooled connection the server has hung up on (a restart, an idle kill) is dropped at
    checkout and another is taken: asyncpg knows it is closed as soon as the hang-up arrives, so
    this asks without `pool_pre_ping`'s round trip to the server for every unit of work."""
    if connection.driver_connection.is_closed():
        raise exc.DisconnectionError("the server closed this connection")


def _sqlite_path(url: str) -> str | None:
    """The database file, or None for an in-memory database (one connection, so no inline
    readers; tools such as the offline command tree use one)."""
    database = make_url(url).database
    return None if not database or database == ":memory:" else database


class Database:
    """One per process. `session()` may write, `read()` only reads; both are one unit of work."""

    def __init__(
        self,
        url: str,
        *,
        echo: bool = False,
        unit_timeout: float = UNIT_TIMEOUT,
        pool_size: int = POOL_SIZE,
    ) -> None:
        self.url = url
        self.kind = "sqlite" if url.startswith("sqlite") else url.split("+")[0].split(":")[0]
        self.unit_timeout = unit_timeout
        # Who listens for committed changes (the live web view); see bot/db/changes.py.
        self.changes = ChangeHub()
        # Sheets and settings parsed once per version (see bot/db/cache.py).
        self.parsed = ParsedRows()
        # PostgreSQL: a writing unit of work tells the other processes too (pg_notify).
        self.origin = secrets.token_hex(6)
        self.notify_others = self.kind == "postgresql"
        # SQLite writes one unit of work at a time; elsewhere units overlap, so a unit that locks
        # two rows must take them in a fixed order or risk a deadlock with one doing the reverse.
        self.one_writer = self.kind == "sqlite"
        self._listener: ChangeListener | None = None
        self._writer_turn: asyncio.Lock | None = None
        path = _sqlite_path(url) if self.kind == "sqlite" else None
        self._inline = path is not None
        self._path = path
        # Raw units (bot/db/raw.py) on SQLite: connections of their own, outside SQLAlchemy.
        self._raw_writer: sqlite3.Connection | None = None
        self._raw_readers: list[sqlite3.Connection] = []
        # Tests hear every raw statement's text (and "COMMIT") here.
        self.raw_trace: Callable[[str], None] | None = None
        if path is not None:

            async def writer() -> Any:
                return _InlineConnection(path, read_only=False)

            async def reader() -> Any:
                return _InlineConnection(path, read_only=True)

            # One writer connection is all one writer at a time needs.
            self.engine: AsyncEngine = create_async_engine(
                url, echo=echo, async_creator=writer, pool_size=1, max_overflow=2
            )
            self._read_engine = create_async_engine(
                url, echo=echo, async_creator=reader, pool_size=8, max_overflow=8
            )
        else:
            extra: dict[str, Any] = {}
            if self.kind != "sqlite":
                extra = {"pool_size": pool_size, "max_overflow": 0}
            if self.kind == "postgresql":
                extra["connect_args"] = {"server_settings": POSTGRES_SETTINGS}
            self.engine = create_async_engine(url, echo=echo, **extra)
            if self.kind == "postgresql":
                event.listen(self.engine.sync_engine.pool, "checkout", _hung_up_is_gone)
            self._read_engine = self.engine
        if self.kind == "sqlite":
            # SQLite has one writer; writers queue here, in order, never in SQLite's busy handler.
            self._writer_turn = asyncio.Lock()
        self._sessions = async_sessionmaker(
            self.engine,
            class_=AsyncSession,
            expire_on_commit=False,
            sync_session_class=TrackedSession,
            info={"hub": self.changes, "parsed": self.parsed},
        )
        self._read_sessions = async_sessionmaker(
            self._read_engine,
            class_=AsyncSession,
            expire_on_commit=False,
            info={"parsed": self.parsed},
        )

    def _deadline(self, timeout: float | None | object) -> float | None:
        return self.unit_timeout if timeout is _DEFAULT else timeout  # type: ignore[return-value]

    @asynccontextmanager
    async def session(
        self, *, timeout: float | None | object = _DEFAULT
    ) -> AsyncIterator[AsyncSession]:
        """A transaction that may write: committed when the block ends, rolled back on an
        exception; `TableBusy` when it cannot finish within `timeout` seconds (None: no limit)."""
        deadline = asyncio.timeout(self._deadline(timeout))
        try:
            async with deadline:
                if self._writer_turn is None:
                    async with self._sessions() as session:
                        self.parsed.opened(session.info)
                        async with session.begin():
                            yield session
                            if self.notify_others:
                                await self._notify_in(session)
                        self.changes.after_commit(session.sync_session)
                        self.parsed.keep(session.info)
                    return
                async with self._writer_turn:
                    session = self._sessions()
                    self.parsed.opened(session.info)
                    try:
                        async with session.begin():
                            yield session
                        self.changes.after_commit(session.sync_session)
                        self.parsed.keep(session.info)
                    finally:
                        await session.close()  # not `async with`: see the module's docstring
        except TimeoutError:
            if deadline.expired():
                raise TableBusy() from None
            raise
        except Exception as error:
            if _is_deadlock(error):
                raise TableBusy(DEADLOCK_ANSWER) from error
            raise

    async def _notify_in(self, session: AsyncSession) -> None:
        """Queue a NOTIFY of what this transaction wrote (PostgreSQL sends it on commit)."""
        await session.flush()
        wrote, guilds = self.changes.pending(session.sync_session)
        if wrote:
            await session.exec(  # type: ignore[call-overload]
                text("SELECT pg_notify(:channel, :payload)").bindparams(
                    channel=NOTIFY_CHANNEL, payload=notify_payload(self.origin, guilds)
                )
            )

    async def listen_for_changes(self) -> ChangeListener | None:
        """On PostgreSQL, start hearing what other processes commit (for the web view)."""
        if self.kind != "postgresql":
            return None
        if self._listener is None:
            dsn = make_url(self.url).set(drivername="postgresql")
            self._listener = ChangeListener(
                dsn.render_as_string(hide_password=False), self.origin, self.changes
            )
            self._listener.start()
        return self._listener

    @asynccontextmanager
    async def read(
        self, *, timeout: float | None | object = _DEFAULT
    ) -> AsyncIterator[AsyncSession]:
        """A read-only unit of work: one consistent snapshot, never queued behind a writer.
        On SQLite a write in it fails (the connection is query_only)."""
        if self.kind == "sqlite" and not self._inline:  # in memory: one shared connection
            async with self.session(timeout=timeout) as session:
                yield session
            return
        deadline = asyncio.timeout(self._deadline(timeout))
        try:
            async with deadline:
                if not self._inline:
                    async with self._read_sessions() as session:
                        self.parsed.opened(session.info)
                        async with session.begin():
                            yield session
                    self.parsed.keep(session.info)
                    return
                session = self._read_sessions()
                self.parsed.opened(session.info)
                try:
                    async with session.begin():
                        yield session
                    self.parsed.keep(session.info)
                finally:
                    await session.close()
        except TimeoutError:
            if deadline.expired():
                raise TableBusy() from None
            raise

    @asynccontextmanager
    async def raw(self, *, timeout: float | None | object = _DEFAULT) -> AsyncIterator[RawUnit]:
        """A unit of work of raw statements that may write (see bot/db/raw.py): the writer
        lock, deadline, rollback, change hub and parsed-row cache of `session()`, no ORM."""
        async with self._raw_unit(read_only=False, timeout=timeout) as unit:
            yield unit

    @asynccontextmanager
    async def raw_read(
        self, *, timeout: float | None | object = _DEFAULT
    ) -> AsyncIterator[RawUnit]:
        """A read-only unit of raw statements: like `read()`, never queued behind a writer."""
        async with self._raw_unit(read_only=True, timeout=timeout) as unit:
            yield unit

    @asynccontextmanager
    async def _raw_unit(
        self, *, read_only: bool, timeout: float | None | object
    ) -> AsyncIterator[RawUnit]:
        deadline = asyncio.timeout(self._deadline(timeout))
        try:
            async with deadline:
                async with self._raw_driver(read_only) as driver:
                    unit = RawUnit(driver, self.kind, {"parsed": self.parsed}, self.raw_trace)
                    self.parsed.opened(unit.info)
                    await driver.begin()
                    try:
                        yield unit
                        if self.notify_others and unit.wrote:
                            guilds = self.changes.named(unit.info)
                            await unit.notify(notify_payload(self.origin, guilds))
                        await driver.commit()
                    except BaseException:
                        await driver.rollback()
                        raise
                    if unit.trace is not None:
                        unit.trace("COMMIT")
                self.changes.committed(unit.info)
                self.parsed.keep(unit.info)
        except TimeoutError:
            if deadline.expired():
                raise TableBusy() from None
            raise
        except Exception as error:
            if _is_deadlock(error):
                raise TableBusy(DEADLOCK_ANSWER) from error
            raise

    @asynccontextmanager
    async def _raw_driver(self, read_only: bool) -> AsyncIterator[Driver]:
        """A connection for one raw unit: SQLite's own (the writer's under the writer lock),
        PostgreSQL's from the engine's pool, else (an in-memory SQLite) a session's."""
        if self._path is not None and self._writer_turn is not None:
            if read_only:
                connection = (
                    self._raw_readers.pop()
                    if self._raw_readers
                    else _sqlite_connection(self._path, read_only=True)
                )
                try:
                    yield SqliteDriver(connection, _begin(True))
                finally:
                    self._raw_readers.append(connection)
                return
            async with self._writer_turn:
                if self._raw_writer is None:
                    self._raw_writer = _sqlite_connection(self._path, read_only=False)
                yield SqliteDriver(self._raw_writer, _begin(False))
            return
        if self.kind == "postgresql":
            # Straight from the pool (its checkout check included), with no AsyncConnection
            # around it, whose set-up and guarded close a raw unit has no use for.
            pooled = await greenlet_spawn(self.engine.sync_engine.pool.connect)
            driver = AsyncpgDriver(pooled.driver_connection, read_only=read_only)
            try:
                yield driver
            finally:
                # Back to the pool; a connection whose rollback failed is closed instead. (A
                # clean check-in never waits, so no cancellation can stop it halfway.)
                failed = driver.connection.is_in_transaction()
                await greenlet_spawn(pooled.invalidate if failed else pooled.close)
            return
        unit = self.read if read_only else self.session
        async with unit(timeout=None) as session:
            yield SessionDriver(session)

    async def migrate(self) -> None:
        """Bring the schema to the newest revision of every migration branch (with the
        standard driver: DDL as Alembic expects it, once at start-up)."""
        engine = create_async_engine(self.url) if self._inline else self.engine
        try:
            async with engine.begin() as connection:
                if self.kind == "postgresql":  # processes starting together migrate one by one
                    await connection.execute(text("SELECT pg_advisory_xact_lock(7466298)"))
                await connection.run_sync(_upgrade)
        finally:
            if engine is not self.engine:
                await engine.dispose()

    async def dispose(self) -> None:
        for connection in [*self._raw_readers, *([self._raw_writer] if self._raw_writer else [])]:
            connection.close()
        self._raw_readers.clear()
        self._raw_writer = None
        if self._listener is not None:
            await self._listener.stop()
            self._listener = None
        await self.engine.dispose()
        if self._read_engine is not self.engine:
            await self._read_engine.dispose()


def alembic_config(connection: Connection | None = None) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def _upgrade(connection: Connection) -> None:
    from alembic import command

    command.upgrade(alembic_config(connection), "heads")


# What a player reads when PostgreSQL broke a deadlock by rolling their unit of work back: two
# units changed the same rows in opposite orders at the same moment (SQLite, one writer at a
# time, has none). Nothing of it was stored, so trying again is safe.
DEADLOCK_ANSWER = "Someone else changed this at the same moment; try again."
_DEADLOCK = "40P01"  # PostgreSQL's SQLSTATE for "deadlock detected"


def _is_deadlock(error: BaseException) -> bool:
    """Whether PostgreSQL chose this unit of work to break a deadlock: asyncpg's own error (raw
    units) or the same wrapped by SQLAlchemy (ORM units)."""
    seen: BaseException | None = error
    for _ in range(4):
        if seen is None:
            return False
        if _DEADLOCK in (getattr(seen, "sqlstate", None), getattr(seen, "pgcode", None)):
            return True
        seen = getattr(seen, "orig", None) or seen.__cause__
    return False
