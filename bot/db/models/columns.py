"""Column helpers shared by every table (snowflakes are BIGINT on every database)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, Column, DateTime, Integer, text
from sqlmodel import Field

BIGINT_MAX = 2**63 - 1  # the largest id (or snowflake) a BIGINT column holds
INT_MAX = 2**31 - 1  # the largest INTEGER (versions)

# BIGINT on PostgreSQL, but INTEGER on SQLite so that the key stays a rowid alias (autoincrement).
BIG_ID = BigInteger().with_variant(Integer, "sqlite")


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A timestamp read back from a row, zone-aware: SQLite hands them back without their zone
    (they were written in UTC), PostgreSQL with it."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def id_field() -> Any:
    """An autoincrementing surrogate primary key."""
    return Field(default=None, sa_column=Column(BIG_ID, primary_key=True, autoincrement=True))


def snowflake(*, primary_key: bool = False, nullable: bool = False, index: bool = False) -> Any:
    """A Discord id column."""
    if primary_key:
        return Field(
            sa_column=Column(BigInteger, primary_key=True, autoincrement=False), default=None
        )
    return Field(
        default=None,
        sa_column=Column(BigInteger, nullable=nullable, index=index),
    )


def timestamp() -> Any:
    return Field(default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False))


def only_where(condition: str) -> dict[str, Any]:
    """A partial index's keywords: it holds only the rows where `condition` holds, on both
    databases. A query reaches it only if it says the condition the same way (as SQL text:
    SQLAlchemy writes a boolean column as `active = 1` on SQLite, which SQLite does not match
    with an index `WHERE active`)."""
    return {"sqlite_where": text(condition), "postgresql_where": text(condition)}
