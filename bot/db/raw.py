"""Driver-level statements for the hot paths: SQL written once, run without the ORM.

An ORM statement costs about 0.3-0.5 ms of CPU (compile-cache lookup, ORM execute and result,
identity map, the greenlet bridge) against a few microseconds for SQLite itself. A raw unit of
work runs `Sql` statements straight on the driver's connection (sqlite3 on SQLite, asyncpg on
PostgreSQL) and keeps what `Database.session()` gives:

- SQLite: the same writer lock (writers queue in order, never in SQLite's busy handler), and
  a read unit on a read-only connection that never waits for the writer;
- one deadline for the whole unit, lock wait included, then `TableBusy` (rolled back);
- rolled back on any exception; committed when the block ends;
- the change hub (the live web view) hears what it wrote once it commits, with pg_notify to
  the other processes on PostgreSQL (sent only if it commits);
- the parsed-row cache (`bot.db.cache.parsed` / `remember` take the unit as the session):
  what it parsed is kept only once it has committed.

How to use it (a unit is a service method's whole transaction)::

    GAME = Sql("SELECT id, version, state_json FROM game WHERE id = :game")
    SAVE = Sql("UPDATE game SET state_json = :state, version = :new "
               "WHERE id = :game AND version = :old")

    async with self.db.raw() as unit:          # db.raw_read() for a unit that only reads
        found = await unit.row(GAME, {"game": game_id})
        ...
        if await unit.run(SAVE, {...}) != 1:   # versioned: a rowcount of 0 means stale
            raise StaleError("...")
        touched(unit, {guild_id})              # bot.db.changes: name the servers written

Write the SQL once, at module level, with `:name` parameters; it must be portable (SQLite and
PostgreSQL; booleans as `NOT closed` / `closed = :flag`, `RETURNING` works on both). Values go
in as the driver takes them: ints, str, bool, None; a timestamp through `unit.timestamp(dt)`
(stored exactly as the ORM stores it). Rows come back as tuples (sqlite3) or asyncpg records
(index them; booleans may come back as 0/1 on SQLite: wrap them in `bool`). A versioned
UPDATE is `update_versioned_raw_in` in `bot/db/repos/versioned.py`. When a path needs the ORM
after all (a rare case, say a server's first command), leave the raw unit and run the ORM one.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy.dialects.sqlite import DATETIME
from sqlalchemy.dialects.sqlite import dialect as sqlite_dialect
from sqlalchemy.exc import IntegrityError

from bot.db.changes import NOTIFY_CHANNEL, WROTE

_NAME = re.compile(r"(?<![:\w]):([A-Za-z_]\w*)")
_SQLITE_TIME: Callable[[Any], Any] = DATETIME().bind_processor(sqlite_dialect())  # type: ignore[assignment]
Row = Sequence[Any]


def is_integrity_error(error: BaseException) -> bool:
    """Whether a constraint (a unique index, say) refused a raw statement, on any driver: the
    ORM raises SQLAlchemy's IntegrityError, a raw unit the driver's own."""
    if isinstance(error, sqlite3.IntegrityError | IntegrityError):
        return True
    asyncpg = sys.modules.get("asyncpg")  # imported only where PostgreSQL is in use
    return asyncpg is not None and isinstance(
        error, asyncpg.exceptions.IntegrityConstraintViolationError
    )


class Sql:
    """One statement with `:name` parameters, translated for asyncpg (`$1`, ...) once."""

    __slots__ = ("text", "names", "numbered", "writes")

    def __init__(self, text: str) -> None:
        self.text = " ".join(text.split())
        names: list[str] = []

        def number(found: re.Match[str]) -> str:
            if found.group(1) not in names:
                names.append(found.group(1))
            return f"${names.index(found.group(1)) + 1}"

        # parameters outside 'string literals' only (the odd pieces of a split on quotes)
        pieces = self.text.split("'")
        pieces[::2] = [_NAME.sub(number, piece) for piece in pieces[::2]]
        self.numbered = "'".join(pieces)
        self.names = tuple(names)
        self.writes = self.text.split(None, 1)[0].upper() in {"INSERT", "UPDATE", "DELETE"}

    def args(self, params: Mapping[str, Any]) -> list[Any]:
        return [params[name] for name in self.names]

    def __repr__(self) -> str:
        return f"Sql({self.text!r})"


NOTIFY = Sql("SELECT pg_notify(:channel, :payload)")


class Driver(Protocol):
    """One connection's transaction, as a raw unit uses it."""

    async def begin(self) -> None: ...
    async def rows(self, sql: Sql, params: Mapping[str, Any]) -> list[Row]: ...
    async def run(self, sql: Sql, params: Mapping[str, Any]) -> int: ...
    async def run_many(self, sql: Sql, params: Sequence[Mapping[str, Any]]) -> None: ...
    async def commit(self) -> None: ...
    async def rollback(self) -> None: ...


class SqliteDriver:
    """sqlite3, in autocommit mode with the transaction opened explicitly; never suspends."""

    def __init__(self, connection: sqlite3.Connection, begin: str) -> None:
        self.connection = connection
        self._begin = begin

    async def begin(self) -> None:
        self.connection.execute(self._begin)

    async def rows(self, sql: Sql, params: Mapping[str, Any]) -> list[Row]:
        return self.connection.execute(sql.text, params).fetchall()

    async def run(self, sql: Sql, params: Mapping[str, Any]) -> int:
        return self.connection.execute(sql.text, params).rowcount

    async def run_many(self, sql: Sql, params: Sequence[Mapping[str, Any]]) -> None:
        self.connection.executemany(sql.text, params)

    async def commit(self) -> None:
        self.connection.commit()

    async def rollback(self) -> None:
        if self.connection.in_transaction:
            self.connection.rollback()


class AsyncpgDriver:
    """An asyncpg connection (checked out of the engine's pool) and a transaction on it."""

    def __init__(self, connection: Any, *, read_only: bool) -> None:
        self.connection = connection
        self._read_only = read_only
        self._transaction: Any = None

    async def begin(self) -> None:
        self._transaction = self.connection.transaction(readonly=self._read_only)
        await self._transaction.start()

    async def rows(self, sql: Sql, params: Mapping[str, Any]) -> list[Row]:
        return list(await self.connection.fetch(sql.numbered, *sql.args(params)))

    async def run(self, sql: Sql, params: Mapping[str, Any]) -> int:
        status: str = await self.connection.execute(sql.numbered, *sql.args(params))
        count = status.rsplit(" ", 1)[-1]
        return int(count) if count.isdigit() else 0

    async def run_many(self, sql: Sql, params: Sequence[Mapping[str, Any]]) -> None:
        await self.connection.executemany(sql.numbered, [sql.args(p) for p in params])

    async def commit(self) -> None:
        await self._transaction.commit()

    async def rollback(self) -> None:
        if self._transaction is not None:
            await self._transaction.rollback()


class RawUnit:
    """One transaction of raw statements; made by `Database.raw()` / `Database.raw_read()`.

    `info` plays the part of a session's `info` for the parsed-row cache and the change hub,
    so `parsed(unit, ...)`, `remember(unit, ...)` and `touched(unit, ...)` take the unit."""

    __slots__ = ("driver", "kind", "info", "trace")

    def __init__(
        self,
        driver: Driver,
        kind: str,
        info: dict[str, Any],
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.driver = driver
        self.kind = kind
        self.info = info
        self.trace = trace

    async def rows(self, sql: Sql, params: Mapping[str, Any]) -> list[Row]:
        """Every row the statement returns (a write with RETURNING too)."""
        self._seen(sql)
        return await self.driver.rows(sql, params)

    async def row(self, sql: Sql, params: Mapping[str, Any]) -> Row | None:
        """The first row, or None."""
        found = await self.rows(sql, params)
        return found[0] if found else None

    async def run(self, sql: Sql, params: Mapping[str, Any]) -> int:
        """Run a statement; how many rows it changed."""
        self._seen(sql)
        return await self.driver.run(sql, params)

    async def run_many(self, sql: Sql, params: Sequence[Mapping[str, Any]]) -> None:
        """Run one statement once per parameter set."""
        if params:
            self._seen(sql)
            await self.driver.run_many(sql, params)

    def timestamp(self, value: datetime) -> Any:
        """A timestamp as the ORM stores it on this database."""
        return _SQLITE_TIME(value) if self.kind == "sqlite" else value

    @property
    def wrote(self) -> bool:
        return bool(self.info.get(WROTE))

    async def notify(self, payload: str) -> None:
        """Queue a NOTIFY (PostgreSQL delivers it when the transaction commits)."""
        await self.rows(NOTIFY, {"channel": NOTIFY_CHANNEL, "payload": payload})

    def _seen(self, sql: Sql) -> None:
        if sql.writes:
            self.info[WROTE] = True
        if self.trace is not None:
            self.trace(sql.text)


class SessionDriver:
    """Raw statements through an ORM session's connection (an in-memory SQLite, which has one
    connection for everything); the session's own unit of work begins and ends it."""

    def __init__(self, session: Any) -> None:
        self.session = session

    async def begin(self) -> None:
        return None

    async def rows(self, sql: Sql, params: Mapping[str, Any]) -> list[Row]:
        connection = await self.session.connection()
        return list((await connection.exec_driver_sql(sql.text, dict(params))).all())

    async def run(self, sql: Sql, params: Mapping[str, Any]) -> int:
        connection = await self.session.connection()
        result = await connection.exec_driver_sql(sql.text, dict(params))
        return int(result.rowcount)

    async def run_many(self, sql: Sql, params: Sequence[Mapping[str, Any]]) -> None:
        connection = await self.session.connection()
        await connection.exec_driver_sql(sql.text, [dict(p) for p in params])

    async def commit(self) -> None:
        return None

    async def rollback(self) -> None:
        return None
