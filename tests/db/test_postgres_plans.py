"""On PostgreSQL, the reads that walk a channel's or a campaign's history newest first (a
scene's end, `/roll-log`, `/fp log`, `/fp undo`, a challenge's cost after its end) go through
an index that ends with the id (migrations 0011 and 0013): read backwards in index order, with
no sort of the channel's or campaign's rows and no walk of the whole table's primary key.

SQLite's plans are checked in test_history_plans.py; PostgreSQL plans by its statistics, so
here every statement the services really run is explained with sequential scans turned off:
what is left is the best index the planner has. Runs only when FATETABLE_TEST_DATABASE_URL
names a PostgreSQL database.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import insert

from bot.db.engine import Database
from bot.db.models.campaigns import FatePointEntry
from bot.db.models.columns import utcnow
from bot.db.models.conflicts import EncounterRow
from bot.db.models.rolls import RollRow
from bot.errors import RuleError
from bot.services.campaigns import resolve_campaign_in
from bot.services.challenges import ChallengeService
from bot.services.economy import EconomyService
from bot.services.rolls import RollService
from bot.services.scenes import SceneService
from tests.conftest import PG_URL, TEST_UNIT_TIMEOUT, ensure_pg_database, worker_pg_url
from tests.db.test_history_plans import (
    ALICE,
    CHANNEL,
    GM,
    GUILD,
    Action,
    _harrys_ledger,
    _roll,
    _statements,
    seed_history,
)

pytestmark = pytest.mark.skipif(PG_URL is None, reason="no PostgreSQL database to plan on")

HISTORY = ("roll", "fate_point_entry", "encounter")
OTHER_GUILD, OTHER_CHANNEL = 10**18 + 1000, 10**18 + 10_000
OTHER_CAMPAIGNS, OTHER_CHANNELS = 100, 2000
LIVE_ONLY = ("ix_encounter_live_channel", "ix_roll_open_channel", "ix_roll_open_character")


@pytest.fixture
async def old_campaign_pg() -> AsyncIterator[Database]:
    """The history of test_history_plans, on an emptied PostgreSQL database, analysed."""
    from sqlalchemy import text

    assert PG_URL is not None
    url = worker_pg_url(PG_URL)
    await ensure_pg_database(url)
    db = Database(url, unit_timeout=TEST_UNIT_TIMEOUT)
    async with db.engine.begin() as connection:
        await connection.execute(text("DROP SCHEMA public CASCADE"))
        await connection.execute(text("CREATE SCHEMA public"))
    await db.migrate()
    await seed_history(db, 300)
    await _harrys_ledger(db, 600)
    await _other_tables(db, 20_000)
    async with db.engine.begin() as connection:
        await connection.execute(text("ANALYZE"))
    try:
        yield db
    finally:
        await db.dispose()


async def _other_tables(db: Database, rows: int) -> None:
    """What the rest of a busy database holds, all of it newer than this campaign's history
    (as when its channel has been quiet for a while): other servers' campaigns, their
    channels' rolls and encounters, their ledgers."""
    async with db.session() as s:
        campaigns = [
            (await resolve_campaign_in(s, OTHER_GUILD + n, OTHER_CHANNEL)).id
            for n in range(OTHER_CAMPAIGNS)
        ]
        now = utcnow()
        common = [
            {
                "campaign_id": campaigns[i % OTHER_CAMPAIGNS],
                "guild_id": OTHER_GUILD + i % OTHER_CAMPAIGNS,
                "channel_id": OTHER_CHANNEL + i % OTHER_CHANNELS,
                "created_at": now,
                "updated_at": now,
            }
            for i in range(rows)
        ]
        await s.execute(
            insert(RollRow.__table__),  # type: ignore[attr-defined]
            [{**c, "user_id": ALICE, "closed": True, "roll_json": "{}"} for c in common],
        )
        ended = {"kind": "challenge", "active": False, "state_json": "{}", "version": 1}
        await s.execute(
            insert(EncounterRow.__table__),  # type: ignore[attr-defined]
            [{**c, **ended, "created_by": GM} for c in common],
        )
        entry = {"delta": 1, "balance_after": 3, "reason": "refresh", "note": "", "who": "GM"}
        await s.execute(
            insert(FatePointEntry.__table__),  # type: ignore[attr-defined]
            [
                {**entry, "campaign_id": c["campaign_id"], "actor_id": GM, "created_at": now}
                for c in common
            ],
        )


async def _newest_first_plans(
    db: Database, action: Action, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, str]]:
    """(statement, plan) of each statement `action` runs that reads a history table newest
    first, planned without sequential scans."""
    ran = await _statements(db, action, monkeypatch)
    wanted = [
        (sql, tuple(args or ()))
        for sql, args in ran
        if sql.lstrip().upper().startswith("SELECT")
        and "DESC" in sql
        and any(f"FROM {table}" in sql for table in HISTORY)
    ]
    plans = []
    async with db.engine.connect() as connection:
        raw = (await connection.get_raw_connection()).driver_connection
        assert raw is not None
        await raw.execute("SET enable_seqscan = off")
        try:
            for sql, args in wanted:
                lines = await raw.fetch(f"EXPLAIN {sql}", *args)
                plans.append((sql, "\n".join(line[0] for line in lines)))
        finally:
            await raw.execute("RESET enable_seqscan")
    return plans


def _reads_in_index_order(plan: str) -> bool:
    """No sort of the history read, and no walk of a history table's primary key (reading
    every newer row of the table to find the channel's or campaign's). Sorting what an index
    of live rows only holds (a channel's running encounters) is fine: a handful at most."""
    walks_the_table = any(f"using {table}_pkey" in plan for table in HISTORY)
    sorts_history = "Sort" in plan and not any(live in plan for live in LIVE_ONLY)
    return not sorts_history and not walks_the_table


async def _scene_end(db: Database) -> None:
    await SceneService(db).end(GUILD, CHANNEL)


async def _roll_log(db: Database) -> None:
    assert await RollService(db).log(CHANNEL, is_gm=True)


async def _ledger_pages(db: Database) -> None:
    for for_gm in (False, True):
        assert (await EconomyService(db).log(GUILD, CHANNEL, for_gm=for_gm)).lines
        await EconomyService(db).log_page(GUILD, CHANNEL, 1, 3, None, for_gm=for_gm)


async def _undo(db: Database) -> None:
    await EconomyService(db).undo(GUILD, CHANNEL, actor_id=GM)


async def _challenge_cost(db: Database) -> None:
    with pytest.raises(RuleError, match="No challenge has run here"):
        await ChallengeService(db).cost(CHANNEL, 1, "The runes wake")


@pytest.mark.parametrize(
    "action",
    [_scene_end, _roll_log, _ledger_pages, _undo, _challenge_cost],
    ids=["scene-end", "roll-log", "fp-log", "fp-undo", "challenge-cost"],
)
async def test_history_is_read_newest_first_in_index_order(
    old_campaign_pg: Database, action: Action, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = old_campaign_pg
    if action is _scene_end:
        await SceneService(db).start(GUILD, CHANNEL, actor_id=GM, characters=["Harry"])
        await _roll(db, ALICE, skill="Lore")
    plans = await _newest_first_plans(db, action, monkeypatch)
    assert plans, "the action read no history newest first"
    for sql, plan in plans:
        assert _reads_in_index_order(plan), f"{sql}\n{plan}"
