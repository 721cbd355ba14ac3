"""What a person typed into a form that was refused for a rule, kept so that "Fix what I typed"
can open the same form again filled in (cogs/common/modals.py). Rows are short-lived: a newer
refusal of the same form replaces its row, an accepted form deletes it, and rows older than a day
are dropped whenever another one is written."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, String, Text
from sqlmodel import Field, SQLModel

from bot.db.models.columns import id_field, snowflake, timestamp


class FormAnswerRow(SQLModel, table=True):
    """One refused form's answers (input custom id -> text, as JSON), private to its writer."""

    __tablename__ = "form_answer"
    # SQLite would hand a deleted row's id to the next row: an old button must not find it.
    __table_args__ = {"sqlite_autoincrement": True}

    id: int | None = id_field()
    guild_id: int = snowflake(index=True)
    user_id: int = snowflake(index=True)
    form_id: str = Field(sa_column=Column(String(100), nullable=False))  # the modal's custom id
    answers_json: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = timestamp()
