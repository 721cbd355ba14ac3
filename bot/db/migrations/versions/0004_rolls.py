"""Rolls awaiting invokes.

Revision ID: 0004_rolls
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_rolls"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "0002_campaigns"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "roll",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "character_id",
            BIG_ID,
            sa.ForeignKey("character.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("gm_channel_id", sa.BigInteger(), nullable=True),
        sa.Column("gm_message_id", sa.BigInteger(), nullable=True),
        sa.Column("opposes_id", BIG_ID, nullable=True),
        sa.Column("hidden", sa.Boolean(), nullable=False),
        sa.Column("closed", sa.Boolean(), nullable=False),
        sa.Column("roll_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.create_index("ix_roll_campaign_id", "roll", ["campaign_id"])
    op.create_index("ix_roll_channel_id", "roll", ["channel_id"])
    op.create_index("ix_roll_character_id", "roll", ["character_id"])


def downgrade() -> None:
    op.drop_table("roll")
