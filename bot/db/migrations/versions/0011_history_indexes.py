"""Indexes that keep a long campaign as fast as a new one: the reads of every roll, game start
and compel list no longer walk the rows that history leaves behind (closed rolls, ended
encounters, finished games, answered compels).

Revision ID: 0011_history_indexes
Revises: 0001
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_history_indexes"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = (
    "0004_rolls",
    "0005_scenes",
    "0006_conflicts",
    "0007_games",
)

# name, table, columns, the rows it holds (None: all); the conditions are written as the
# queries write them (bot.db.models.columns.only_where)
OPEN_ROLL = "NOT roll.closed"
LIVE_ENCOUNTER = "encounter.active"
FINISHED_GAME = "games.status = 'finished'"
INDEXES = (
    ("ix_roll_open_character", "roll", ["character_id"], OPEN_ROLL),
    ("ix_roll_open_channel", "roll", ["channel_id"], OPEN_ROLL),
    ("ix_encounter_live_channel", "encounter", ["channel_id"], LIVE_ENCOUNTER),
    ("ix_encounter_live_campaign", "encounter", ["campaign_id"], LIVE_ENCOUNTER),
    ("ix_games_finished_channel", "games", ["channel_id"], FINISHED_GAME),
    ("ix_compel_offer_campaign_state", "compel_offer", ["campaign_id", "state"], None),
)


def upgrade() -> None:
    for name, table, columns, rows in INDEXES:
        where = None if rows is None else sa.text(rows)
        op.create_index(name, table, columns, sqlite_where=where, postgresql_where=where)
    # a prefix of (campaign_id, state), which the campaign's foreign key uses as well
    op.drop_index("ix_compel_offer_campaign_id", table_name="compel_offer")


def downgrade() -> None:
    op.create_index("ix_compel_offer_campaign_id", "compel_offer", ["campaign_id"])
    for name, table, _columns, _rows in reversed(INDEXES):
        op.drop_index(name, table_name=table)
