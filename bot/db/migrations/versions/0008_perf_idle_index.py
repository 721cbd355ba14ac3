"""An index for the idle-game check: live games by last activity.

Revision ID: 0008_perf_idle_index
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008_perf_idle_index"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "0007_games"


def upgrade() -> None:
    op.create_index("ix_games_status_last_activity", "games", ["status", "last_activity"])


def downgrade() -> None:
    op.drop_index("ix_games_status_last_activity", table_name="games")
