"""Per-server settings."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from bot.db.models.columns import snowflake, timestamp


class GuildSettings(SQLModel, table=True):
    __tablename__ = "guild_settings"

    guild_id: int = snowflake(primary_key=True)
    gm_role_id: int | None = snowflake(nullable=True)
    updated_at: datetime = timestamp()
    version: int = Field(default=1)
