"""Indexes on the columns that point at a character from the tables history fills: the fate
point ledger and the compel offers. `/fp log character:` reads a character's movements
through theirs, and deleting a character no longer walks every ledger entry and compel of the
database to clear or delete what pointed at it (the foreign keys' ON DELETE).

Revision ID: 0013_character_indexes
Revises: 0001
Create Date: 2026-12-04
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0013_character_indexes"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = ("0002_campaigns", "0005_scenes")

INDEXES = (
    ("ix_fate_point_entry_character_id", "fate_point_entry", "character_id"),
    ("ix_compel_offer_target_character_id", "compel_offer", "target_character_id"),
    ("ix_compel_offer_offerer_character_id", "compel_offer", "offerer_character_id"),
)


def upgrade() -> None:
    for name, table, column in INDEXES:
        op.create_index(name, table, [column])


def downgrade() -> None:
    for name, table, _column in reversed(INDEXES):
        op.drop_index(name, table_name=table)
