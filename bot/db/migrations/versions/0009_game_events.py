"""Game table: every public event of a game, for its full history.

Revision ID: 0009_game_events
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_game_events"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "0007_games"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "game_events",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "game_id",
            BIG_ID,
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(400), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_game_events_game_id", "game_events", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_game_events_game_id", table_name="game_events")
    op.drop_table("game_events")
