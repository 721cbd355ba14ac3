"""The encounter rows (conflicts, contests, challenges): find, create, load, version-checked save
and the tracker message id. Every function runs in the caller's transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, text, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.columns import utcnow
from bot.db.models.conflicts import LIVE_ENCOUNTER, EncounterRow
from bot.db.raw import RawUnit, Sql
from bot.db.repos.characters import bound_campaign_id, campaign_columns
from bot.db.repos.versioned import (
    StaleError,
    mark_saved,
    update_versioned_in,
    update_versioned_raw_in,
)
from bot.errors import RuleError

STALE = "Someone acted first (or you clicked twice); look at the tracker again and retry."


ACTIVE_ENCOUNTER = (
    select(EncounterRow)
    .where(
        col(EncounterRow.channel_id) == bindparam("channel"),
        col(EncounterRow.kind) == bindparam("kind"),
        text(LIVE_ENCOUNTER),
    )
    .order_by(col(EncounterRow.id).desc())
)  # built once: a conflict turn or a roll asks for it


async def active_encounter_in(
    session: AsyncSession, channel_id: int, kind: str
) -> EncounterRow | None:
    params = {"channel": channel_id, "kind": kind}
    return (await session.exec(ACTIVE_ENCOUNTER, params=params)).first()


LIVE_STATES = select(EncounterRow.state_json).where(
    col(EncounterRow.channel_id) == bindparam("channel"),
    col(EncounterRow.campaign_id) == bindparam("campaign"),
    text(LIVE_ENCOUNTER),
)


async def live_encounter_states_in(
    session: AsyncSession, campaign_id: int, channel_id: int
) -> list[str]:
    """The stored states of every live encounter (any kind) in the channel."""
    params = {"channel": channel_id, "campaign": campaign_id}
    return list((await session.exec(LIVE_STATES, params=params)).all())


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


# --------------------------------------------------------------------------- raw (bot/db/raw.py)
@dataclass(slots=True)
class EncounterColumns:
    """An encounter row as a raw unit reads it: the columns, no ORM object (making an
    `EncounterRow` costs more than the whole statement)."""

    id: int
    campaign_id: int
    guild_id: int
    channel_id: int
    kind: str
    active: bool
    state_json: str
    version: int
    tracker_message_id: int | None
    created_by: int

    @classmethod
    def of(cls, found: Any, kind: str) -> EncounterColumns:
        """From the first columns of a row read with `ENCOUNTER_RAW_COLUMNS`."""
        key, campaign_id, guild_id, channel_id, active, state_json, version, tracker, by = found[:9]
        return cls(
            key,
            campaign_id,
            guild_id,
            channel_id,
            kind,
            bool(active),
            state_json,
            version,
            tracker,
            by,
        )


ENCOUNTER_RAW_COLUMNS = (
    "encounter.id, encounter.campaign_id, encounter.guild_id, encounter.channel_id, "
    "encounter.active, encounter.state_json, encounter.version, encounter.tracker_message_id, "
    "encounter.created_by"
)
# The running encounter of a kind in a channel with the campaign `resolve_campaign_in` picks
# for that channel (bound, else the server's default; NULLs when there is none yet).
RUNNING_WITH_CAMPAIGN = Sql(
    f"""SELECT {ENCOUNTER_RAW_COLUMNS}, {campaign_columns("campaign")}
    FROM encounter LEFT OUTER JOIN campaign
        ON campaign.id = {bound_campaign_id("encounter.guild_id", "encounter.channel_id")}
    WHERE encounter.channel_id = :channel AND encounter.kind = :kind AND {LIVE_ENCOUNTER}
    ORDER BY encounter.id DESC LIMIT 1"""
)


async def save_encounter_raw_in(
    unit: RawUnit, row: EncounterColumns, state_json: str, *, active: bool
) -> int:
    """`save_encounter_in` in a raw unit of work: the new state if nobody changed the row since
    it was read; returns the version (`row` then holds what was written)."""
    values = {"state_json": state_json, "active": active, "updated_at": unit.timestamp(utcnow())}
    version = await update_versioned_raw_in(
        unit, "encounter", row.id, row.version, values, StaleError(STALE)
    )
    row.state_json, row.active, row.version = state_json, active, version
    return version
