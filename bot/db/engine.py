"""The async engine, sessions and start-up migrations."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlmodel.ext.asyncio.session import AsyncSession

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()


class Database:
    """One engine per process; `session()` is one unit of work (commit on success)."""

    def __init__(self, url: str, *, echo: bool = False) -> None:
        self.url = url
        self.kind = "sqlite" if url.startswith("sqlite") else url.split("+")[0].split(":")[0]
        kwargs: dict[str, Any] = {"echo": echo}
        if self.kind != "sqlite":
            kwargs["pool_pre_ping"] = True
        self.engine: AsyncEngine = create_async_engine(url, **kwargs)
        if self.kind == "sqlite":
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self._sessions = async_sessionmaker(
            self.engine, class_=AsyncSession, expire_on_commit=False
        )
        # SQLite has one writer; letting transactions queue here is much cheaper than letting
        # them collide in SQLite's busy handler, which sleeps in steps of up to 100 ms.
        self._sqlite_turn: asyncio.Lock | None = asyncio.Lock() if self.kind == "sqlite" else None

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        """A transaction: committed when the block ends, rolled back on an exception."""
        if self._sqlite_turn is None:
            async with self._sessions() as session, session.begin():
                yield session
            return
        async with self._sqlite_turn, self._sessions() as session, session.begin():
            yield session

    async def migrate(self) -> None:
        """Bring the schema to the newest revision of every migration branch."""
        async with self.engine.begin() as connection:
            await connection.run_sync(_upgrade)

    async def dispose(self) -> None:
        await self.engine.dispose()


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
