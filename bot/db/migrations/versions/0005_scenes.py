"""Scenes, compel offers, recovery clocks, campaign session state.

Revision ID: 0005_scenes
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_scenes"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "0002_campaigns"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "scene",
        sa.Column("channel_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("scene_json", sa.Text(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("board_message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.create_index("ix_scene_guild_id", "scene", ["guild_id"])
    op.create_index("ix_scene_campaign_id", "scene", ["campaign_id"])
    op.create_table(
        "compel_offer",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "target_character_id",
            BIG_ID,
            sa.ForeignKey("character.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column(
            "offerer_character_id",
            BIG_ID,
            sa.ForeignKey("character.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("offered_by_user", sa.BigInteger(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("offer_json", sa.Text(), nullable=False),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.create_index("ix_compel_offer_campaign_id", "compel_offer", ["campaign_id"])
    op.create_index("ix_compel_offer_channel_id", "compel_offer", ["channel_id"])
    op.create_table(
        "recovery_state",
        sa.Column(
            "character_id",
            BIG_ID,
            sa.ForeignKey("character.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.create_table(
        "campaign_play",
        sa.Column(
            "campaign_id",
            BIG_ID,
            sa.ForeignKey("campaign.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("campaign_play")
    op.drop_table("recovery_state")
    op.drop_table("compel_offer")
    op.drop_table("scene")
