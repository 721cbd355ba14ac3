"""The answers of a form refused for a rule, so that it reopens with what was typed.

Revision ID: 0010_form_answers
Revises: 0001
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_form_answers"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "form_answer",
        sa.Column("id", BIG_ID, primary_key=True, autoincrement=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("form_id", sa.String(length=100), nullable=False),
        sa.Column("answers_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sqlite_autoincrement=True,  # ids are never handed out twice
    )
    op.create_index("ix_form_answer_guild_id", "form_answer", ["guild_id"])
    op.create_index("ix_form_answer_user_id", "form_answer", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_form_answer_user_id", table_name="form_answer")
    op.drop_index("ix_form_answer_guild_id", table_name="form_answer")
    op.drop_table("form_answer")
