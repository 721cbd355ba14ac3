"""Indexes for what history fills.

- On the columns that point at a character from the fate point ledger and the compel offers:
  `/fp log character:` reads a character's movements through theirs, and deleting a character
  no longer walks every ledger entry and compel of the database to clear or delete what
  pointed at it (the foreign keys' ON DELETE).
- A channel's rolls and encounters and a campaign's ledger are read newest first (the roll log,
  a scene's end, `/fp log`, `/fp undo`): their indexes take the id as a second column. On
  SQLite that changes nothing (the rowid ends every index); on PostgreSQL a newest-first read
  no longer walks the whole table's primary key backwards, or sorts the campaign's ledger.

Revision ID: 0013_character_indexes
Revises: 0001
Create Date: 2026-12-04
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0013_character_indexes"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = (
    "0002_campaigns",
    "0004_rolls",
    "0005_scenes",
    "0006_conflicts",
)

ADDED = (
    ("ix_fate_point_entry_character_id", "fate_point_entry", "character_id"),
    ("ix_compel_offer_target_character_id", "compel_offer", "target_character_id"),
    ("ix_compel_offer_offerer_character_id", "compel_offer", "offerer_character_id"),
)
# name, table, its column before, the id after it
NEWEST_FIRST = (
    ("ix_roll_channel_id", "roll", "channel_id"),
    ("ix_encounter_channel_id", "encounter", "channel_id"),
    ("ix_fate_point_entry_campaign_id", "fate_point_entry", "campaign_id"),
)


def upgrade() -> None:
    for name, table, column in ADDED:
        op.create_index(name, table, [column])
    for name, table, column in NEWEST_FIRST:
        op.drop_index(name, table_name=table)
        op.create_index(name, table, [column, "id"])


def downgrade() -> None:
    for name, table, column in reversed(NEWEST_FIRST):
        op.drop_index(name, table_name=table)
        op.create_index(name, table, [column])
    for name, table, _column in reversed(ADDED):
        op.drop_index(name, table_name=table)
