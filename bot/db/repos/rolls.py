"""Roll rows as other features read them (the scene's end pays what hostile invokes owe), and
the raw statements of making a roll (the hot path, bot/db/raw.py).
Every function runs in the caller's transaction.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, text
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.campaigns import PAID_ON_ROLL, FatePointEntry
from bot.db.models.columns import utcnow
from bot.db.models.conflicts import LIVE_ENCOUNTER
from bot.db.models.rolls import OPEN_ROLL, RollRow
from bot.db.raw import RawUnit, Sql
from bot.db.repos.characters import ACTIVE_JOIN, BOUND, CAMPAIGN_SELECT, CHARACTER_SELECT
from bot.fate.rolls import Payment, Roll

# How far before a scene's start its rolls may hide among the channel's: with several
# processes, a roll's id and its timestamp may disagree by the moment between stamping and
# inserting it, never by a minute.
CLOCK_MARGIN = timedelta(minutes=1)


async def owing_rolls_in(
    session: AsyncSession, campaign_id: int, channel_id: int, since: datetime
) -> list[tuple[RollRow, Roll, list[int]]]:
    """The rolls of this channel since `since` (a scene's start) whose invokes paid with a fate
    point owe it to the aspect's character (a hostile invoke: an aspect invoked against its
    character, with the Hostile invoke button or not), each with the characters owed, one per
    invoke. The owners get them when the scene ends; the scene's end is what pays them (and
    marks the roll paid).

    It reads the scene's rolls, not the channel's history: the newest roll from before the
    scene (a margin before it) is found by walking the channel's rolls newest first, and only
    the rolls after it are read."""
    before_scene = (
        select(RollRow.id)
        .where(RollRow.channel_id == channel_id, col(RollRow.created_at) < since - CLOCK_MARGIN)
        .order_by(col(RollRow.id).desc())
        .limit(1)
        .scalar_subquery()
    )
    rows = await session.exec(
        select(RollRow).where(
            RollRow.channel_id == channel_id,
            col(RollRow.id) > func.coalesce(before_scene, 0),
            col(RollRow.created_at) >= since,
            RollRow.campaign_id == campaign_id,
        )
    )
    owing = []
    for row in rows.all():
        roll = Roll.model_validate_json(row.roll_json)
        if roll.voided or roll.owed_paid:
            continue  # a roll taken back owes nothing; a paid one no more
        owners = [
            invoke.aspect_owner_id
            for invoke in roll.invokes
            if invoke.payment is Payment.FATE_POINT and invoke.aspect_owner_id is not None
        ]
        if owners:
            owing.append((row, roll, owners))
    return owing


async def owed_fate_points_in(
    session: AsyncSession, campaign_id: int, channel_id: int, since: datetime
) -> dict[int, int]:
    """What `owing_rolls_in` owes, per character: character id -> points."""
    owed: dict[int, int] = {}
    for _row, _roll, owners in await owing_rolls_in(session, campaign_id, channel_id, since):
        for owner in owners:
            owed[owner] = owed.get(owner, 0) + 1
    return owed


def invoke_note(aspect_name: str, roll_id: int) -> str:
    """The ledger note of a fate point paid for an invoke on a roll (what `/fp log` shows; the
    entry's `roll_id` is what void finds it by)."""
    return f"invoke '{aspect_name}' on roll #{roll_id}"


async def invoke_entries_in(
    session: AsyncSession, campaign_id: int, roll_id: int
) -> list[FatePointEntry]:
    """The ledger entries of fate points paid for invokes on this roll in this campaign, not
    undone yet. They are found by `roll_id` through the index of the entries paid on rolls
    (`text(PAID_ON_ROLL)` is the index's condition word for word); the campaign is checked on
    the few rows found, not in the statement: given it, SQLite (without statistics) picks the
    campaign's index and walks its ledger instead. (A channel bound to another campaign since
    the roll voids it there: its points stay in the campaign that spent them.)"""
    rows = await session.exec(
        select(FatePointEntry).where(
            text(PAID_ON_ROLL),
            FatePointEntry.roll_id == roll_id,
            FatePointEntry.reason == "invoke",
            FatePointEntry.delta < 0,
            col(FatePointEntry.undone).is_(False),
        )
    )
    return [entry for entry in rows.all() if entry.campaign_id == campaign_id]


# ----------------------------------------------------------------- raw statements (bot/db/raw.py)
# What a new roll reads in one statement: the channel's campaign (bound, else the server's
# default), the user's active character of it (the channel's choice, else the server-wide one)
# and whether a conflict runs in the channel. No row: the server has no campaign yet.
ROLL_CONTEXT = Sql(
    f"""
    SELECT {CAMPAIGN_SELECT}, {CHARACTER_SELECT},
           EXISTS (SELECT 1 FROM encounter WHERE encounter.channel_id = :channel
                   AND encounter.kind = 'conflict' AND {LIVE_ENCOUNTER}) AS conflict
    FROM {BOUND} {ACTIVE_JOIN}
    """
)
# A roll's columns in the order `RollView.of_columns` reads them.
ROLL_COLUMNS = (
    "id, campaign_id, guild_id, channel_id, user_id, character_id, message_id, gm_channel_id, "
    "gm_message_id, opposes_id, hidden, closed, roll_json, version"
)
# The open rolls a new roll closes: its character's, or a plain roller's in the channel.
OPEN_ROLLS_OF_CHARACTER = Sql(
    f"SELECT {ROLL_COLUMNS} FROM roll WHERE campaign_id = :campaign AND {OPEN_ROLL} "
    "AND character_id = :character"
)
OPEN_PLAIN_ROLLS = Sql(
    f"SELECT {ROLL_COLUMNS} FROM roll WHERE campaign_id = :campaign AND {OPEN_ROLL} "
    "AND user_id = :user AND character_id IS NULL AND channel_id = :channel"
)
NEW_ROLL = Sql(
    """
    INSERT INTO roll (campaign_id, guild_id, channel_id, user_id, character_id, gm_channel_id,
                      hidden, closed, roll_json, created_at, updated_at, version)
    VALUES (:campaign, :guild, :channel, :user, :character, :gm_channel, :hidden, :closed,
            :roll_json, :now, :now, 1)
    RETURNING id
    """
)
MESSAGE_IDS = Sql(
    "UPDATE roll SET message_id = :message, gm_message_id = :gm_message WHERE id = :roll"
)


async def new_roll_raw_in(unit: RawUnit, values: dict[str, Any]) -> int:
    """Insert a roll (NEW_ROLL's parameters but `now`); its id."""
    found = await unit.row(NEW_ROLL, {**values, "now": unit.timestamp(utcnow())})
    assert found is not None
    return int(found[0])
