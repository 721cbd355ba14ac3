"""Character creation drafts, custom mantle entries and the milestone log.

Revision ID: 0003_drafts
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_drafts"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "0002_campaigns"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "character_draft",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("draft_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.UniqueConstraint("campaign_id", "user_id"),
    )
    op.create_index("ix_character_draft_campaign_id", "character_draft", ["campaign_id"])
    op.create_index("ix_character_draft_guild_id", "character_draft", ["guild_id"])
    op.create_index("ix_character_draft_user_id", "character_draft", ["user_id"])
    op.create_table(
        "custom_mantle_entry",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("mantle_key", sa.String(length=60), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("entry_json", sa.Text(), nullable=False),
        sa.Column("author_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("campaign_id", "mantle_key", "kind", "name"),
    )
    op.create_index("ix_custom_mantle_entry_campaign_id", "custom_mantle_entry", ["campaign_id"])
    op.create_table(
        "milestone_log",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "campaign_id", BIG_ID, sa.ForeignKey("campaign.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column(
            "character_id",
            BIG_ID,
            sa.ForeignKey("character.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("changes_json", sa.Text(), nullable=False),
        sa.Column("actor_id", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_milestone_log_campaign_id", "milestone_log", ["campaign_id"])
    op.create_index("ix_milestone_log_character_id", "milestone_log", ["character_id"])


def downgrade() -> None:
    op.drop_table("milestone_log")
    op.drop_table("custom_mantle_entry")
    op.drop_table("character_draft")
