"""The roll a fate point was paid on is stored with its ledger entry, so that voiding a roll
finds that entry through an index instead of matching the end of every note of the campaign.

Revision ID: 0012_ledger_roll_id
Revises: 0001
Create Date: 2026-12-11
"""

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_ledger_roll_id"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = "0002_campaigns"

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
BIGINT_MAX = 2**63 - 1
# written as the query writes it (bot.db.models.campaigns.PAID_ON_ROLL)
PAID_ON_ROLL = "fate_point_entry.roll_id IS NOT NULL"
# the end of the note an invoke on a roll left (bot.db.repos.rolls.invoke_note)
ON_ROLL = re.compile(r" on roll #(\d+)\Z")
BATCH = 5000  # entries read at a time: a long ledger is never held in memory at once

ledger = sa.table(
    "fate_point_entry",
    sa.column("id", BIG_ID),
    sa.column("reason", sa.String),
    sa.column("note", sa.String),
    sa.column("roll_id", BIG_ID),
)


def upgrade() -> None:
    op.add_column("fate_point_entry", sa.Column("roll_id", BIG_ID, nullable=True))
    _backfill(op.get_bind())
    where = sa.text(PAID_ON_ROLL)
    op.create_index(
        "ix_fate_point_entry_roll",
        "fate_point_entry",
        ["roll_id"],
        sqlite_where=where,
        postgresql_where=where,
    )


def _backfill(bind: sa.Connection) -> None:
    """The entries written before: the roll id is at the end of their note (parsed here, in
    Python, the same way on both databases)."""
    invokes = (
        sa.select(ledger.c.id, ledger.c.note)
        .where(ledger.c.reason == "invoke", ledger.c.note.like("% on roll #%"))
        .order_by(ledger.c.id)
        .limit(BATCH)
    )
    fill = (
        ledger.update()
        .where(ledger.c.id == sa.bindparam("entry"))
        .values(roll_id=sa.bindparam("roll"))
    )
    last = 0
    while rows := bind.execute(invokes.where(ledger.c.id > last)).all():
        last = rows[-1][0]
        found = [(entry, ON_ROLL.search(note)) for entry, note in rows]
        pairs = [
            {"entry": entry, "roll": int(m[1])}
            for entry, m in found
            if m is not None and int(m[1]) <= BIGINT_MAX
        ]
        if pairs:
            bind.execute(fill, pairs)


def downgrade() -> None:
    op.drop_index("ix_fate_point_entry_roll", table_name="fate_point_entry")
    with op.batch_alter_table("fate_point_entry") as batch:
        batch.drop_column("roll_id")
