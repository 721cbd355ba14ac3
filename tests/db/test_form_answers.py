"""Answers of refused forms, on SQLite and PostgreSQL: kept for their writer, replaced by a newer
refusal of the same form, dropped once accepted, and unreadable (then deleted) after a day."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlmodel import select, update

from bot.db.engine import Database
from bot.db.models.columns import as_utc, utcnow
from bot.db.models.forms import FormAnswerRow
from bot.errors import RuleError
from bot.services.form_answers import GONE, FormAnswerService, NotYourAnswers

GUILD, ALICE, BOB = 10**18, 2 * 10**17, 3 * 10**17


async def count(db: Database) -> int:
    async with db.read() as session:
        return len((await session.exec(select(FormAnswerRow))).all())


async def test_answers_are_their_writers_and_replaced_then_forgotten(db: Database) -> None:
    answers = FormAnswerService(db)
    first = await answers.keep(GUILD, ALICE, "cdraftm:1:skills", {"good": "Will"})
    kept = await answers.get(first, ALICE)
    assert kept.form_id == "cdraftm:1:skills" and kept.answers == {"good": "Will"}
    with pytest.raises(NotYourAnswers):
        await answers.get(first, BOB)
    second = await answers.keep(GUILD, ALICE, "cdraftm:1:skills", {"good": "Will, Lore"})
    await answers.keep(GUILD, BOB, "cdraftm:2:skills", {"good": "Fight"})
    assert await count(db) == 2  # Alice's older refusal of the same form was replaced
    with pytest.raises(RuleError, match="no longer kept"):
        await answers.get(first, ALICE)
    await answers.forget(second, BOB)  # not Bob's: nothing happens
    await answers.forget(second, ALICE)
    assert await count(db) == 1


async def test_answers_older_than_a_day_are_not_opened_and_are_dropped(db: Database) -> None:
    answers = FormAnswerService(db)
    old = await answers.keep(GUILD, ALICE, "stuntw:bonus:0:5", {"skill": "Perception"})
    async with db.session() as session:
        await session.exec(  # type: ignore[call-overload]
            update(FormAnswerRow).values(created_at=utcnow() - timedelta(days=2))
        )
    with pytest.raises(RuleError) as refused:
        await answers.get(old, ALICE)
    assert str(refused.value) == GONE
    await answers.keep(GUILD, BOB, "stuntw:rule:0:6", {"feat": "x"})
    assert await count(db) == 1  # the stale row went with the next one written


async def test_a_timestamp_read_back_is_utc_on_every_database(db: Database) -> None:
    """One helper makes every stored moment comparable with utcnow(): SQLite returns it
    without its zone, PostgreSQL with it (form answers and idle games both use it)."""
    answers = FormAnswerService(db)
    written = utcnow()
    kept = await answers.keep(GUILD, ALICE, "cdraftm:3:skills", {"good": "Lore"})
    async with db.read() as session:
        row = await session.get(FormAnswerRow, kept)
    assert row is not None
    moment = as_utc(row.created_at)
    assert moment.utcoffset() == timedelta(0)
    assert abs(moment - written) < timedelta(minutes=1)
    naive = datetime(2026, 12, 1, 18, 0)
    assert as_utc(naive) == naive.replace(tzinfo=UTC)
    paris = datetime(2026, 12, 1, 19, 0, tzinfo=timezone(timedelta(hours=1)))
    assert as_utc(paris) is paris  # an aware moment is kept as it is
