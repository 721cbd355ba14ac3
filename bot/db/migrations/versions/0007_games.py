"""Game table: games and their action log.

Revision ID: 0007_games
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_games"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("engine", sa.String(32), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("active_channel_id", sa.BigInteger(), nullable=True, unique=True),
        sa.Column("host_id", sa.BigInteger(), nullable=False),
        sa.Column("seats", sa.Text(), nullable=False),
        sa.Column("options", sa.Text(), nullable=False),
        sa.Column("state", sa.Text(), nullable=True),
        sa.Column("public_log", sa.Text(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("board_message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_activity", sa.DateTime(timezone=True), nullable=False),
        sa.Column("warned_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_games_guild_id", "games", ["guild_id"])
    op.create_table(
        "game_actions",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column(
            "game_id",
            BIG_ID,
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(64), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=True),
        sa.Column("action_id", sa.String(64), nullable=False),
        sa.Column("label", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_game_actions_game_id", "game_actions", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_game_actions_game_id", table_name="game_actions")
    op.drop_table("game_actions")
    op.drop_index("ix_games_guild_id", table_name="games")
    op.drop_table("games")
