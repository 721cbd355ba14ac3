"""Optimistic concurrency: a row is written only if nobody changed it since it was read.

Rows that buttons act on carry a `version`. A write is `UPDATE ... WHERE key = ? AND version = ?`
with version + 1; when no row matches, someone else acted first (another click, another process),
and the caller's error says so. This is the one place that does it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.raw import RawUnit, Sql
from bot.errors import RuleError


class StaleError(RuleError):
    """Someone else changed the same thing at the same moment (optimistic concurrency)."""


async def update_versioned_in(
    session: AsyncSession,
    model: Any,
    key_value: Any,
    version: int,
    values: dict[str, Any],
    stale: RuleError,
    *,
    key: str = "id",
    synchronize: bool = True,
) -> int:
    """Write `values` (and version + 1) to the row whose `key` is `key_value`, only if its version
    is still `version`; otherwise raise `stale`. Returns the new version.

    With `synchronize` an object of that row already loaded in the session is updated too, so a
    later read in the same transaction sees the write.
    """
    if not synchronize:  # one statement per (table, key, columns), built once
        params = {f"new_{name}": value for name, value in values.items()}
        params.update(old_key=key_value, old_version=version, new_version=version + 1)
        result = await session.exec(  # type: ignore[call-overload]
            _unsynchronized(model, key, tuple(values)), params=params
        )
        if result.rowcount != 1:
            raise stale
        return version + 1
    statement = (
        update(model)
        .where(getattr(model, key) == key_value, model.version == version)
        .values(**values, version=version + 1)
    )
    result = await session.exec(statement)  # type: ignore[call-overload]
    if result.rowcount != 1:
        raise stale
    return version + 1


@lru_cache(maxsize=256)
def _unsynchronized(model: Any, key: str, names: tuple[str, ...]) -> Any:
    """UPDATE model SET names..., version WHERE key AND version, with bound parameters."""
    table = model.__table__
    return (
        update(table)
        .where(table.c[key] == bindparam("old_key"), table.c.version == bindparam("old_version"))
        .values({**{n: bindparam(f"new_{n}") for n in names}, "version": bindparam("new_version")})
    )


def mark_saved(row: Any, **values: Any) -> None:
    """Tell the in-session object what a versioned UPDATE just wrote, without a second UPDATE."""
    for name, value in values.items():
        set_committed_value(row, name, value)


async def save_versioned_in(
    session: AsyncSession, row: Any, key: str, values: dict[str, Any], stale: str
) -> None:
    """`update_versioned_in` for a row object read in this session; the object then holds what
    was written, with no second UPDATE and no re-read."""
    new_version = await update_versioned_in(
        session,
        type(row),
        getattr(row, key),
        row.version,
        values,
        StaleError(stale),
        key=key,
        synchronize=False,
    )
    mark_saved(row, **values, version=new_version)


async def update_versioned_raw_in(
    unit: RawUnit,
    table: str,
    key_value: Any,
    version: int,
    values: dict[str, Any],
    stale: RuleError,
    *,
    key: str = "id",
) -> int:
    """`update_versioned_in` for a raw unit of work (bot/db/raw.py): write `values` and
    version + 1 to `table`'s row `key_value` only if its version is still `version`, else raise
    `stale`. Returns the new version."""
    params = {f"new_{name}": value for name, value in values.items()}
    params.update(old_key=key_value, old_version=version, new_version=version + 1)
    if await unit.run(_raw_versioned(table, key, tuple(values)), params) != 1:
        raise stale
    return version + 1


@lru_cache(maxsize=256)
def _raw_versioned(table: str, key: str, names: tuple[str, ...]) -> Sql:
    sets = ", ".join(f"{name} = :new_{name}" for name in names)
    return Sql(
        f"UPDATE {table} SET {sets}, version = :new_version "
        f"WHERE {key} = :old_key AND version = :old_version"
    )
