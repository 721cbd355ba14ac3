"""Conflicts, contests and challenges (the encounter table).

Revision ID: 0006_conflicts
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_conflicts"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "0002_campaigns"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "encounter",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("state_json", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("tracker_message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_by", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_encounter_campaign_id", "encounter", ["campaign_id"])
    op.create_index("ix_encounter_guild_id", "encounter", ["guild_id"])
    op.create_index("ix_encounter_channel_id", "encounter", ["channel_id"])


def downgrade() -> None:
    op.drop_index("ix_encounter_channel_id", table_name="encounter")
    op.drop_index("ix_encounter_guild_id", table_name="encounter")
    op.drop_index("ix_encounter_campaign_id", table_name="encounter")
    op.drop_table("encounter")
