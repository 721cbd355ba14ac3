"""The encounter rows (conflicts, contests, challenges): find, create, load, version-checked save
and the tracker message id. Every function runs in the caller's transaction.
"""

from __future__ import annotations

from sqlalchemy import bindparam, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.columns import utcnow
from bot.db.models.conflicts import EncounterRow
from bot.db.repos.versioned import StaleError, mark_saved, update_versioned_in
from bot.errors import RuleError

STALE = "Someone acted first (or you clicked twice); look at the tracker again and retry."


ACTIVE_ENCOUNTER = (
    select(EncounterRow)
    .where(
        col(EncounterRow.channel_id) == bindparam("channel"),
        col(EncounterRow.kind) == bindparam("kind"),
        col(EncounterRow.active),
    )
    .order_by(col(EncounterRow.id).desc())
)  # built once: a conflict turn or a roll asks for it


async def active_encounter_in(
    session: AsyncSession, channel_id: int, kind: str
) -> EncounterRow | None:
    params = {"channel": channel_id, "kind": kind}
    return (await session.exec(ACTIVE_ENCOUNTER, params=params)).first()


async def new_encounter_in(
    session: AsyncSession, campaign_id: int, guild_id: int, channel_id: int, kind: str, user_id: int
) -> EncounterRow:
    """An encounter row with its id (the rules name the encounter by it); state comes next."""
    row = EncounterRow(
        campaign_id=campaign_id,
        guild_id=guild_id,
        channel_id=channel_id,
        kind=kind,
        state_json="{}",
        created_by=user_id,
    )
    session.add(row)
    await session.flush()
    assert row.id is not None
    return row


async def load_encounter_in(session: AsyncSession, encounter_id: int, kind: str) -> EncounterRow:
    row = await session.get(EncounterRow, encounter_id)
    if row is None or row.kind != kind:
        raise RuleError(f"That {kind} no longer exists.")
    return row


def check_version(row: EncounterRow, version: int | None) -> None:
    if version is not None and row.version != version:
        raise StaleError(STALE)


async def save_encounter_in(
    session: AsyncSession, row: EncounterRow, state_json: str, *, active: bool
) -> int:
    """Write the new state if nobody changed the row since it was read; returns the version."""
    assert row.id is not None
    stale = StaleError(STALE)
    values = {"state_json": state_json, "active": active, "updated_at": utcnow()}
    version = await update_versioned_in(
        session, EncounterRow, row.id, row.version, values, stale, synchronize=False
    )
    mark_saved(row, **values, version=version)  # the loaded row holds what was written
    return version


async def set_tracker_in(session: AsyncSession, encounter_id: int, message_id: int) -> None:
    await session.exec(  # type: ignore[call-overload]
        update(EncounterRow)
        .where(col(EncounterRow.id) == encounter_id)
        .values(tracker_message_id=message_id)
    )
