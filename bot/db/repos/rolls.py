"""Roll rows as other features read them (the scene's end pays what hostile invokes owe).
Every function runs in the caller's transaction.
"""

from __future__ import annotations

from datetime import datetime

from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.campaigns import FatePointEntry
from bot.db.models.rolls import RollRow
from bot.fate.rolls import Payment, Roll


async def owed_fate_points_in(
    session: AsyncSession, campaign_id: int, channel_id: int, since: datetime
) -> dict[int, int]:
    """Fate points owed for hostile invokes paid with a fate point on rolls of this channel
    since `since` (a scene's start): character id -> points. The owner gets them when the
    scene ends; the scene's end is what pays them."""
    rows = await session.exec(
        select(RollRow).where(
            RollRow.campaign_id == campaign_id,
            RollRow.channel_id == channel_id,
            col(RollRow.created_at) >= since,
        )
    )
    owed: dict[int, int] = {}
    for row in rows.all():
        roll = Roll.model_validate_json(row.roll_json)
        if roll.voided:
            continue  # a roll taken back owes nothing
        for invoke in roll.invokes:
            if (
                invoke.hostile
                and invoke.payment is Payment.FATE_POINT
                and invoke.aspect_owner_id is not None
            ):
                owed[invoke.aspect_owner_id] = owed.get(invoke.aspect_owner_id, 0) + 1
    return owed


def invoke_note(aspect_name: str, roll_id: int) -> str:
    """The ledger note of a fate point paid for an invoke on a roll (void finds it by it)."""
    return f"invoke '{aspect_name}' on roll #{roll_id}"


async def invoke_entries_in(
    session: AsyncSession, campaign_id: int, roll_id: int
) -> list[FatePointEntry]:
    """The ledger entries of fate points paid for invokes on this roll, not undone yet."""
    rows = await session.exec(
        select(FatePointEntry).where(
            FatePointEntry.campaign_id == campaign_id,
            FatePointEntry.reason == "invoke",
            FatePointEntry.delta < 0,
            col(FatePointEntry.undone).is_(False),
            col(FatePointEntry.note).endswith(f" on roll #{roll_id}"),
        )
    )
    return list(rows.all())
