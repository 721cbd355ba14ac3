"""Campaigns, channel bindings, characters, active characters, fate point ledger.

Revision ID: 0002_campaigns
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_campaigns"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "campaign",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("is_default", sa.Boolean(), nullable=False),
        sa.Column("settings_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.UniqueConstraint("guild_id", "name"),
    )
    op.create_index("ix_campaign_guild_id", "campaign", ["guild_id"])
    op.create_table(
        "channel_campaign",
        sa.Column("channel_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
    )
    op.create_index("ix_channel_campaign_guild_id", "channel_campaign", ["guild_id"])
    op.create_table(
        "character",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("owner_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("is_npc", sa.Boolean(), nullable=False),
        sa.Column("sheet_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.UniqueConstraint("campaign_id", "name"),
    )
    op.create_index("ix_character_campaign_id", "character", ["campaign_id"])
    op.create_index("ix_character_guild_id", "character", ["guild_id"])
    op.create_index("ix_character_owner_id", "character", ["owner_id"])
    op.create_table(
        "active_character",
        sa.Column("guild_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("user_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("channel_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column(
            "character_id",
            BIG_ID,
            sa.ForeignKey("character.id", ondelete="CASCADE"),
            nullable=False,
        ),
    )
    op.create_table(
        "fate_point_entry",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("channel_id", sa.BigInteger(), nullable=True),
        sa.Column(
            "character_id",
            BIG_ID,
            sa.ForeignKey("character.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("who", sa.String(length=80), nullable=False),
        sa.Column("delta", sa.Integer(), nullable=False),
        sa.Column("balance_after", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=40), nullable=False),
        sa.Column("note", sa.String(length=200), nullable=False),
        sa.Column("actor_id", sa.BigInteger(), nullable=False),
        sa.Column("undoes_id", BIG_ID, nullable=True),
        sa.Column("undone", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_fate_point_entry_campaign_id", "fate_point_entry", ["campaign_id"])


def downgrade() -> None:
    op.drop_table("fate_point_entry")
    op.drop_table("active_character")
    op.drop_table("character")
    op.drop_table("channel_campaign")
    op.drop_table("campaign")
