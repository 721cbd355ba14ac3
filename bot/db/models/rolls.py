"""Rolls awaiting invokes: the pure `bot.fate.rolls.Roll` as JSON plus what queries and buttons need."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Text
from sqlmodel import Field, SQLModel

from bot.db.models.columns import BIG_ID, id_field, only_where, snowflake, timestamp

# A roll still taking invokes, said the way its partial indexes say it: SQLAlchemy's own
# `closed IS 0` (SQLite) or `closed IS false` matches neither index.
OPEN_ROLL = "NOT roll.closed"


class RollRow(SQLModel, table=True):
    __tablename__ = "roll"
    # A new roll closes the open ones of its roller, and /roll against's autocomplete lists a
    # channel's: the partial indexes hold only the open rolls, so neither walks the campaign's
    # past rolls. (No other index may lead with channel_id: without statistics, SQLite could
    # take it instead of ix_roll_open_channel.)
    __table_args__ = (
        Index("ix_roll_open_character", "character_id", **only_where(OPEN_ROLL)),
        Index("ix_roll_open_channel", "channel_id", **only_where(OPEN_ROLL)),
        # a channel's rolls newest first (the log, a scene's end); on SQLite the same as one
        # on channel_id (the rowid ends every index), on PostgreSQL in id order too
        Index("ix_roll_channel_id", "channel_id", "id"),
    )

    id: int | None = id_field()
    campaign_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    guild_id: int = snowflake()
    channel_id: int = snowflake()
    user_id: int = snowflake()  # who rolled
    character_id: int | None = Field(
        default=None,
        sa_column=Column(
            BIG_ID, ForeignKey("character.id", ondelete="SET NULL"), nullable=True, index=True
        ),
    )
    message_id: int | None = snowflake(nullable=True)  # the public roll message
    gm_channel_id: int | None = snowflake(nullable=True)  # a hidden roll's copy for the GM
    gm_message_id: int | None = snowflake(nullable=True)
    opposes_id: int | None = Field(default=None, sa_column=Column(BIG_ID, nullable=True))
    hidden: bool = Field(default=False)
    closed: bool = Field(default=False)
    roll_json: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = timestamp()
    updated_at: datetime = timestamp()
    version: int = Field(default=1)
