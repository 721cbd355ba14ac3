"""Scenes per channel, compel offers, recovery clocks and the campaign's session state."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Index, Text
from sqlmodel import Field, SQLModel

from bot.db.models.columns import BIG_ID, id_field, snowflake, timestamp


class SceneRow(SQLModel, table=True):
    """The scene of one channel: the pure `bot.fate.scene.Scene` as JSON and its pinned board."""

    __tablename__ = "scene"

    channel_id: int = snowflake(primary_key=True)
    guild_id: int = snowflake(index=True)
    campaign_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    scene_json: str = Field(sa_column=Column(Text, nullable=False))
    active: bool = Field(default=True)
    board_message_id: int | None = snowflake(nullable=True)
    created_at: datetime = timestamp()
    updated_at: datetime = timestamp()
    version: int = Field(default=1)


class CompelOfferRow(SQLModel, table=True):
    """A compel offer (`bot.fate.compels.CompelOffer` as JSON) awaiting the target's answer."""

    __tablename__ = "compel_offer"
    # /compel offer counts, and /compel list shows, the campaign's offers still waiting; the
    # campaign's foreign key uses the same index (its own would lead PostgreSQL to walk every
    # answered offer).
    __table_args__ = (Index("ix_compel_offer_campaign_state", "campaign_id", "state"),)

    id: int | None = id_field()
    campaign_id: int = Field(
        sa_column=Column(BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False)
    )
    channel_id: int = snowflake(index=True)
    target_character_id: int | None = Field(
        default=None,
        sa_column=Column(
            BIG_ID, ForeignKey("character.id", ondelete="CASCADE"), nullable=True, index=True
        ),
    )
    offerer_character_id: int | None = Field(
        default=None,
        sa_column=Column(
            BIG_ID, ForeignKey("character.id", ondelete="SET NULL"), nullable=True, index=True
        ),
    )
    offered_by_user: int = snowflake()
    state: str = Field(default="offered", max_length=20)
    offer_json: str = Field(sa_column=Column(Text, nullable=False))
    message_id: int | None = snowflake(nullable=True)
    created_at: datetime = timestamp()
    version: int = Field(default=1)


class RecoveryRow(SQLModel, table=True):
    """How long each treated consequence of one character still needs (`RecoveryState` JSON)."""

    __tablename__ = "recovery_state"

    character_id: int = Field(
        sa_column=Column(BIG_ID, ForeignKey("character.id", ondelete="CASCADE"), primary_key=True)
    )
    state_json: str = Field(sa_column=Column(Text, nullable=False))
    version: int = Field(default=1)


class CampaignPlayRow(SQLModel, table=True):
    """Sessions, arcs, milestones, game aspects and GM points carried to the next scene."""

    __tablename__ = "campaign_play"

    campaign_id: int = Field(
        sa_column=Column(BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), primary_key=True)
    )
    state_json: str = Field(sa_column=Column(Text, nullable=False))
    version: int = Field(default=1)
