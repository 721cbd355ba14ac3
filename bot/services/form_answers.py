"""Answers of refused forms: kept for their writer so that the form reopens filled in.

A form (modal) refused for a rule is gone from the screen; Discord cannot send a modal in answer
to a modal. So the refusal carries a "Fix what I typed" button naming a row of this service, and
the click opens the same form with those answers. The row is private to the one who typed it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlmodel import col, delete

from bot.db.engine import Database
from bot.db.models.columns import as_utc, utcnow
from bot.db.models.forms import FormAnswerRow
from bot.db.repos.scope import REACH
from bot.errors import RuleError

KEPT_FOR = timedelta(days=1)
GONE = REACH["form_answer"].missing  # the same sentence as for a row of another server


class NotYourAnswers(RuleError):
    """Someone else's typed answers: never shown, never reused."""

    offers_retry = False


@dataclass(frozen=True)
class KeptAnswers:
    """A refused form's answers, as its writer typed them."""

    id: int
    form_id: str  # the custom id of the form they were typed into
    answers: dict[str, str]


class FormAnswerService:
    """Keeps, hands back and drops the answers of refused forms."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def keep(self, guild_id: int, user_id: int, form_id: str, answers: dict[str, str]) -> int:
        """Store what `user_id` typed into `form_id` (replacing an older refusal of that form)."""
        async with self.db.session() as session:
            await session.exec(  # type: ignore[call-overload]
                delete(FormAnswerRow).where(
                    (col(FormAnswerRow.created_at) < utcnow() - KEPT_FOR)
                    | (
                        (col(FormAnswerRow.guild_id) == guild_id)
                        & (col(FormAnswerRow.user_id) == user_id)
                        & (col(FormAnswerRow.form_id) == form_id)
                    )
                )
            )
            row = FormAnswerRow(
                guild_id=guild_id,
                user_id=user_id,
                form_id=form_id,
                answers_json=json.dumps(answers),
            )
            session.add(row)
            await session.flush()
            assert row.id is not None
            return row.id

    async def get(self, answer_id: int, user_id: int) -> KeptAnswers:
        async with self.db.read() as session:
            row = await session.get(FormAnswerRow, answer_id)
            if row is None or utcnow() - as_utc(row.created_at) > KEPT_FOR:
                raise RuleError(GONE)
            if row.user_id != user_id:
                raise NotYourAnswers("These are someone else's answers; open your own form.")
            answers: Any = json.loads(row.answers_json)
            return KeptAnswers(row.id or answer_id, row.form_id, dict(answers))

    async def forget(self, answer_id: int, user_id: int) -> None:
        """The form was accepted: its kept answers are no longer needed."""
        async with self.db.session() as session:
            await session.exec(  # type: ignore[call-overload]
                delete(FormAnswerRow).where(
                    (col(FormAnswerRow.id) == answer_id) & (col(FormAnswerRow.user_id) == user_id)
                )
            )


def get_form_answers(bot: Any) -> FormAnswerService:
    """The bot's one FormAnswerService (made on first use)."""
    service = getattr(bot, "form_answers", None)
    if not isinstance(service, FormAnswerService):
        service = FormAnswerService(bot.db)
        bot.form_answers = service
    return service
