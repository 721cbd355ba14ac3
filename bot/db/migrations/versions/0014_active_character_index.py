"""An index on the character a user's active-character choice points at.

Deleting a character clears every choice of it (the foreign key's ON DELETE CASCADE, and the
service's own delete): without an index that walked every user's choice in every server.

Revision ID: 0014_active_character_index
Revises: 0013_character_indexes
Create Date: 2026-12-04
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014_active_character_index"
down_revision: str | Sequence[str] | None = "0013_character_indexes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_active_character_character_id"


def upgrade() -> None:
    op.create_index(NAME, "active_character", ["character_id"])


def downgrade() -> None:
    op.drop_index(NAME, table_name="active_character")
