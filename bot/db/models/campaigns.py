"""Campaigns, the channels bound to them, characters, active characters and the fate point ledger."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from bot.db.models.columns import BIG_ID, id_field, only_where, snowflake, timestamp


class Campaign(SQLModel, table=True):
    __tablename__ = "campaign"
    __table_args__ = (UniqueConstraint("guild_id", "name"),)

    id: int | None = id_field()
    guild_id: int = snowflake(index=True)
    name: str = Field(max_length=80)
    is_default: bool = Field(default=False)
    # Campaign options as JSON (stress style, custom skill list, GM channel, custom mantles).
    settings_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    created_at: datetime = timestamp()
    version: int = Field(default=1)


class ChannelCampaign(SQLModel, table=True):
    """A channel bound to a campaign; unbound channels use the server's default campaign."""

    __tablename__ = "channel_campaign"

    channel_id: int = snowflake(primary_key=True)
    guild_id: int = snowflake(index=True)
    campaign_id: int = Field(
        sa_column=Column(BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False)
    )


class CharacterRow(SQLModel, table=True):
    """A sheet: the pure `bot.fate.sheet.Character` as JSON, plus what queries need."""

    __tablename__ = "character"
    __table_args__ = (UniqueConstraint("campaign_id", "name"),)

    id: int | None = id_field()
    campaign_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    guild_id: int = snowflake(index=True)
    owner_id: int = snowflake(index=True)
    name: str = Field(max_length=80)
    is_npc: bool = Field(default=False)
    sheet_json: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = timestamp()
    updated_at: datetime = timestamp()
    version: int = Field(default=1)


class ActiveCharacter(SQLModel, table=True):
    """Which character a user plays: per channel (channel_id set) or server-wide (channel_id 0)."""

    __tablename__ = "active_character"

    guild_id: int = snowflake(primary_key=True)
    user_id: int = snowflake(primary_key=True)
    channel_id: int = snowflake(primary_key=True)
    character_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("character.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )


# An entry paid for an invoke on a roll, said the way its partial index says it (`only_where`):
# only those entries are in the index, so it stays small however long the ledger grows.
PAID_ON_ROLL = "fate_point_entry.roll_id IS NOT NULL"


class FatePointEntry(SQLModel, table=True):
    """One fate point movement. `character_id` None is the GM's pool."""

    __tablename__ = "fate_point_entry"
    __table_args__ = (
        Index("ix_fate_point_entry_roll", "roll_id", **only_where(PAID_ON_ROLL)),
        # a campaign's ledger newest first (/fp log, undo): in id order on PostgreSQL too
        Index("ix_fate_point_entry_campaign_id", "campaign_id", "id"),
    )

    id: int | None = id_field()
    campaign_id: int = Field(
        sa_column=Column(BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False)
    )
    channel_id: int | None = snowflake(nullable=True)
    character_id: int | None = Field(
        default=None,
        sa_column=Column(
            BIG_ID, ForeignKey("character.id", ondelete="SET NULL"), nullable=True, index=True
        ),
    )
    who: str = Field(max_length=80)  # a display name, kept when the character is deleted
    delta: int
    balance_after: int
    reason: str = Field(max_length=40)
    note: str = Field(default="", max_length=200)
    actor_id: int = snowflake()
    undoes_id: int | None = Field(default=None, sa_column=Column(BIG_ID, nullable=True))
    undone: bool = Field(default=False)
    created_at: datetime = timestamp()
    # The roll an invoke's point was paid on (void finds it by this). No foreign key: a roll
    # goes only with its campaign, which takes the ledger with it, and SQLite could add one to
    # the existing table only by copying the whole ledger.
    roll_id: int | None = Field(default=None, sa_column=Column(BIG_ID, nullable=True))
