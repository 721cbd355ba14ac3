"""The live web view: the signing key of its links and their revocation counters.

Revision ID: 0009_web
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_web"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "web_key",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("secret", sa.Text(), nullable=False),
    )
    op.create_table(
        "web_link_generation",
        sa.Column("scope", sa.String(16), primary_key=True),
        sa.Column("scope_id", sa.BigInteger(), primary_key=True, autoincrement=False),
        sa.Column("generation", sa.Integer(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("web_link_generation")
    op.drop_table("web_key")
