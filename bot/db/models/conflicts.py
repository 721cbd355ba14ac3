"""Conflicts, contests and challenges: one row per encounter (pure state as JSON + version)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from bot.db.models.columns import BIG_ID, id_field, only_where, snowflake, timestamp

ENCOUNTER_KINDS = ("conflict", "contest", "challenge")
# An encounter still running, said the way its partial indexes say it (`only_where`).
LIVE_ENCOUNTER = "encounter.active"


class EncounterRow(SQLModel, table=True):
    """A conflict, contest or challenge running in a channel.

    `state_json` holds the service's state (the pure domain model plus who plays whom);
    `version` guards every change (UPDATE ... WHERE version = ?), so a double click applies once.
    """

    __tablename__ = "encounter"
    # Every /roll asks whether a conflict runs in its channel, and the web view lists a
    # campaign's running encounters: neither walks the ended ones.
    __table_args__ = (
        Index("ix_encounter_live_channel", "channel_id", **only_where(LIVE_ENCOUNTER)),
        Index("ix_encounter_live_campaign", "campaign_id", **only_where(LIVE_ENCOUNTER)),
        Index("ix_encounter_channel_id", "channel_id", "id"),  # newest first (as the rolls')
    )

    id: int | None = id_field()
    campaign_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    guild_id: int = snowflake(index=True)
    channel_id: int = snowflake()
    kind: str = Field(sa_column=Column(String(16), nullable=False))
    active: bool = Field(default=True)
    state_json: str = Field(sa_column=Column(Text, nullable=False))
    version: int = Field(default=1, sa_column=Column(Integer, nullable=False))
    tracker_message_id: int | None = snowflake(nullable=True)
    created_by: int = snowflake()
    created_at: datetime = timestamp()
    updated_at: datetime = timestamp()
