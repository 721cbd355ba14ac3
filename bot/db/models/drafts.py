"""Character creation drafts (one per user and campaign, so an abandoned guided flow resumes),
the campaign's custom mantle entries (stunts and conditions the GM completes from DFA) and the
record of milestones each character took."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, ForeignKey, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from bot.db.models.columns import BIG_ID, id_field, snowflake, timestamp


class CharacterDraftRow(SQLModel, table=True):
    """A `bot.fate.sheet.CreationDraft` as JSON. Buttons of the guided flow carry its id."""

    __tablename__ = "character_draft"
    __table_args__ = (UniqueConstraint("campaign_id", "user_id"),)

    id: int | None = id_field()
    campaign_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    guild_id: int = snowflake(index=True)
    user_id: int = snowflake(index=True)
    draft_json: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = timestamp()
    updated_at: datetime = timestamp()
    version: int = Field(default=1)


class CustomMantleEntry(SQLModel, table=True):
    """A stunt or condition the GM wrote for a mantle, saved with the campaign.

    `kind` is "stunt" or "condition"; `entry_json` is a bot.fate Stunt or Track as JSON.
    """

    __tablename__ = "custom_mantle_entry"
    __table_args__ = (UniqueConstraint("campaign_id", "mantle_key", "kind", "name"),)

    id: int | None = id_field()
    campaign_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    mantle_key: str = Field(max_length=60)
    kind: str = Field(max_length=20)
    name: str = Field(max_length=80)
    entry_json: str = Field(sa_column=Column(Text, nullable=False))
    author_id: int = snowflake()
    created_at: datetime = timestamp()


class MilestoneLog(SQLModel, table=True):
    """One milestone a character took: its kind and the changes, one line each (JSON list)."""

    __tablename__ = "milestone_log"

    id: int | None = id_field()
    campaign_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    character_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("character.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    kind: str = Field(max_length=10)
    changes_json: str = Field(sa_column=Column(Text, nullable=False))
    actor_id: int = snowflake()
    created_at: datetime = timestamp()
