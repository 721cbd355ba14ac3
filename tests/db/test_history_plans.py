"""A long campaign stays as fast as a new one: the reads behind a roll, the roll autocomplete,
a running conflict's lookup, the web view, a game's start, the compel list and a void's
refunds reach the live rows through an index that holds only them (or by time), not by walking the
closed rolls, ended encounters, finished games and answered compels a campaign leaves behind.
Checked on SQLite's query plans for the statements the services really run (SQLite only:
PostgreSQL plans by its statistics)."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, insert

from bot.db.engine import Database
from bot.db.models.campaigns import FatePointEntry
from bot.db.models.columns import utcnow
from bot.db.models.conflicts import LIVE_ENCOUNTER, EncounterRow
from bot.db.models.games import GameRow
from bot.db.models.rolls import RollRow
from bot.db.models.scenes import CompelOfferRow
from bot.db.raw import AsyncpgDriver, Sql, SqliteDriver
from bot.db.repos.games import past_games_raw_in
from bot.db.repos.rolls import invoke_note
from bot.errors import RuleError
from bot.fate.rolls import InvokeMode, Roller, make_roll
from bot.fate.sheet import AspectKind, new_character
from bot.services.campaigns import (
    get_character_in,
    insert_character_in,
    resolve_campaign_in,
    save_character_in,
    set_active_in,
)
from bot.services.challenges import ChallengeService
from bot.services.compels import CompelService
from bot.services.economy import LOG_PAGE_SIZE, LOG_PAGES_COUNTED, EconomyService
from bot.services.encounters import encounter_with_campaign_in
from bot.services.roll_base import RollRequest
from bot.services.rolls import RollService
from bot.services.scenes import SceneService
from bot.services.web import LinkScope, WebService
from bot.services.web_tokens import LinkKind
from bot.ui.scenes import ledger_embed
from tests.conftest import sqlite_url

GUILD, CHANNEL, ALICE, BOB, GM = 10**18 + 1, 10**18 + 2, 10**18 + 4, 10**18 + 5, 10**18 + 9
PAST = 300  # rows of history per table (the plans do not depend on how many)

Action = Callable[[Database], Awaitable[Any]]


@pytest.fixture
async def old_campaign(tmp_path: Path) -> AsyncIterator[tuple[Database, Path]]:
    """A campaign with history (`seed_history`), on SQLite."""
    db = Database(sqlite_url(tmp_path))
    await db.migrate()
    await seed_history(db, PAST)
    try:
        yield db, tmp_path / "fatetable.db"
    finally:
        await db.dispose()


async def seed_history(db: Database, past: int) -> None:
    """A campaign with history: `past` closed rolls of its character, ended conflicts, finished
    games and answered compels in its channel."""
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        harry = await insert_character_in(
            s, campaign, ALICE, new_character("Harry", skills={"Lore": 4})
        )
        await insert_character_in(s, campaign, GM, new_character("Ghoul", skills={"Fight": 2}))
        await set_active_in(s, GUILD, ALICE, harry.id, None)
        assert campaign.id is not None and harry.id is not None
        now, rng = utcnow(), random.Random(4)
        roller = Roller(character_id=harry.id, user_id=ALICE, name="Harry")
        common = {"campaign_id": campaign.id, "guild_id": GUILD, "channel_id": CHANNEL}
        rolls = [
            {
                **common,
                "user_id": ALICE,
                "character_id": harry.id,
                "closed": True,
                "roll_json": make_roll(rng, roller, skill="Lore", skill_rating=4)[
                    0
                ].model_dump_json(),
                "created_at": now - timedelta(hours=1),
                "updated_at": now,
            }
            for _ in range(past)
        ]
        await s.execute(insert(RollRow.__table__), rolls)  # type: ignore[attr-defined]
        ended = {**common, "kind": "conflict", "active": False, "state_json": "{}", "version": 1}
        await s.execute(
            insert(EncounterRow.__table__),  # type: ignore[attr-defined]
            [{**ended, "created_by": GM, "created_at": now, "updated_at": now}] * past,
        )
        finished: dict[str, Any] = {
            "engine": "dfccg",
            "guild_id": GUILD,
            "channel_id": CHANNEL,
            "host_id": ALICE,
            "status": "finished",
        }
        for _ in range(past):
            s.add(GameRow(**finished))
        answered = {**common, "offered_by_user": GM, "state": "accepted", "offer_json": "{}"}
        answered.pop("guild_id")
        await s.execute(
            insert(CompelOfferRow.__table__),  # type: ignore[attr-defined]
            [{**answered, "created_at": now, "version": 1}] * past,
        )


async def _statements(
    db: Database, action: Action, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, Any]]:
    """(statement, its parameters) of every statement `action` runs, ORM or raw, as the
    driver gets them (on PostgreSQL: numbered, with a tuple of arguments)."""
    ran: list[tuple[str, Any]] = []

    def seen(_conn: Any, _cursor: Any, sql: str, params: Any, *_args: Any) -> None:
        ran.append((sql, params))

    def recorded(method: Any, numbered: bool) -> Any:
        async def call(self: Any, sql: Sql, params: Any) -> Any:
            ran.append((sql.numbered, tuple(sql.args(params))) if numbered else (sql.text, params))
            return await method(self, sql, params)

        return call

    for driver, numbered in ((SqliteDriver, False), (AsyncpgDriver, True)):
        monkeypatch.setattr(driver, "rows", recorded(driver.rows, numbered))
        monkeypatch.setattr(driver, "run", recorded(driver.run, numbered))
    engines = {db.engine.sync_engine, db._read_engine.sync_engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", seen)
    try:
        await action(db)
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", seen)
    return ran


async def _plans(
    db: Database, path: Path, action: Action, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, str]]:
    """(statement, its query plan) of every statement `action` runs, ORM or raw."""
    ran = await _statements(db, action, monkeypatch)
    connection = sqlite3.connect(path)
    try:
        return [
            (sql, " / ".join(r[3] for r in connection.execute(f"EXPLAIN QUERY PLAN {sql}", p)))
            for sql, p in ran
            if sql.lstrip().upper().startswith(("SELECT", "UPDATE", "WITH"))
        ]
    finally:
        connection.close()


def _work(path: Path, sql: str, params: Any) -> int:
    """The steps of SQLite's virtual machine a read takes: how much of the database it walks,
    the same on every run and every machine."""
    steps = 0

    def step() -> int:
        nonlocal steps
        steps += 1
        return 0  # go on

    connection = sqlite3.connect(path)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master")  # the schema, read once
        connection.set_progress_handler(step, 1)
        connection.execute(sql, params).fetchall()
    finally:
        connection.close()
    return steps


def _using(plans: list[tuple[str, str]], table: str) -> str:
    """The plans of the statements that read `table`, one per line."""
    return "\n".join(plan for sql, plan in plans if f" {table} " in f" {sql} ".replace("\n", " "))


def _walks(plans: str, table: str, *indexes: str) -> bool:
    """Whether a plan reads the whole `table`, or goes through one of `indexes` (ones that
    hold its history)."""
    return bool(re.search(rf"SCAN (TABLE )?{table}\b", plans)) or any(i in plans for i in indexes)


ROLL_HISTORY = ("ix_roll_character_id", "ix_roll_channel_id", "ix_roll_campaign_id")
ENCOUNTER_HISTORY = ("ix_encounter_channel_id", "ix_encounter_campaign_id")


async def _roll(db: Database, user: int, **options: Any) -> None:
    service = RollService(db, rng=random.Random(1))
    for _ in range(2):  # the second roll closes the first
        await service.start(
            RollRequest(guild_id=GUILD, channel_id=CHANNEL, user_id=user, user_name="a", **options)
        )


@pytest.mark.parametrize(
    ("user", "options", "open_rolls"),
    [
        pytest.param(ALICE, {"skill": "Lore"}, "ix_roll_open_character", id="raw-path"),
        pytest.param(
            ALICE,
            {"skill": "Lore", "advantage_aspect": "Cornered"},
            "ix_roll_open_character",
            id="orm-path",
        ),
        pytest.param(
            GM,
            {"skill": "Fight", "character": "Ghoul", "is_gm": True},
            "ix_roll_open_character",
            id="gm-for-npc",
        ),
        pytest.param(BOB, {"modifier": 2}, "ix_roll_open_channel", id="plain-roller"),
    ],
)
async def test_a_roll_reads_only_the_open_rolls_and_running_conflicts(
    old_campaign: tuple[Database, Path],
    monkeypatch: pytest.MonkeyPatch,
    user: int,
    options: dict[str, Any],
    open_rolls: str,
) -> None:
    db, path = old_campaign
    if "advantage_aspect" in options:  # an aspect is made on the scene
        await SceneService(db).start(GUILD, CHANNEL, actor_id=GM)
    plans = await _plans(db, path, lambda d: _roll(d, user, **options), monkeypatch)
    rolls, encounters = _using(plans, "roll"), _using(plans, "encounter")
    assert open_rolls in rolls
    assert "ix_encounter_live_channel" in encounters
    assert not _walks(rolls, "roll", *ROLL_HISTORY), rolls
    assert not _walks(encounters, "encounter", *ENCOUNTER_HISTORY), encounters


async def _running_conflict(db: Database) -> None:
    async with db.read() as s:
        assert await encounter_with_campaign_in(s, "conflict", None, CHANNEL) is None


async def _past_games(db: Database) -> None:
    async with db.raw() as unit:
        assert len(await past_games_raw_in(unit, CHANNEL, "dfccg", 0)) == PAST


GM_PAGE = LinkScope(kind=LinkKind.GM, guild_id=GUILD, target_id=GM, campaign_id=1)


@pytest.mark.parametrize(
    ("action", "table", "index", "history"),
    [
        pytest.param(
            _running_conflict,
            "encounter",
            "ix_encounter_live_channel",
            ENCOUNTER_HISTORY,
            id="the running conflict",
        ),
        pytest.param(
            lambda d: WebService(d).table_view(GM_PAGE),
            "encounter",
            "ix_encounter_live_campaign",
            ENCOUNTER_HISTORY,
            id="the web view",
        ),
        pytest.param(
            lambda d: RollService(d).pending(CHANNEL, is_gm=False),
            "roll",
            "ix_roll_open_channel",
            ROLL_HISTORY,
            id="roll against's autocomplete",
        ),
        pytest.param(
            _past_games,
            "games",
            "ix_games_finished_channel",
            ("ix_games_status_last_activity",),
            id="a game's start",
        ),
        pytest.param(
            lambda d: CompelService(d).open_offers(GUILD, CHANNEL, user_id=ALICE, is_gm=False),
            "compel_offer",
            "ix_compel_offer_campaign_state (campaign_id=? AND state=?)",
            (),
            id="the compel list",
        ),
    ],
)
async def test_a_read_of_live_rows_goes_through_their_index(
    old_campaign: tuple[Database, Path],
    monkeypatch: pytest.MonkeyPatch,
    action: Action,
    table: str,
    index: str,
    history: tuple[str, ...],
) -> None:
    db, path = old_campaign
    plans = _using(await _plans(db, path, action, monkeypatch), table)
    assert index in plans
    assert not _walks(plans, table, *history), plans


LEDGER = 3000  # fate point movements of a long campaign, a third of them invokes on rolls


def _past_roll(entry: int) -> int:
    """The closed roll (ids 1 to PAST) a past invoke was paid on."""
    return entry // 3 % PAST + 1


async def test_a_void_finds_the_points_paid_on_its_roll_through_their_index(
    old_campaign: tuple[Database, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Voiding a roll reads the ledger entries paid on that roll through the index of the
    entries paid on rolls, not the campaign's whole ledger (nor the end of every note)."""
    db, path = old_campaign
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        harry = await get_character_in(s, 1)
        sheet = harry.sheet.set_aspect(AspectKind.HIGH_CONCEPT, "Wizard Private Eye")
        harry = await save_character_in(s, harry, sheet)
        past = [
            {
                "campaign_id": campaign.id,
                "channel_id": CHANNEL,
                "character_id": harry.id,
                "who": "Harry",
                "delta": -1 if i % 3 == 0 else 1,
                "balance_after": 3,
                "reason": "invoke" if i % 3 == 0 else "refresh",
                "note": invoke_note("Wizard Private Eye", _past_roll(i)) if i % 3 == 0 else "",
                "actor_id": ALICE,
                "undone": False,
                "created_at": utcnow(),
                "roll_id": _past_roll(i) if i % 3 == 0 else None,
            }
            for i in range(LEDGER)
        ]
        await s.execute(insert(FatePointEntry.__table__), past)  # type: ignore[attr-defined]
    service = RollService(db, rng=random.Random(1))
    request = RollRequest(
        guild_id=GUILD, channel_id=CHANNEL, user_id=ALICE, user_name="a", skill="Lore"
    )
    view = (await service.start(request)).view
    picker = await service.invoke_picker(view.id, user_id=ALICE, is_gm=False, hostile=False)
    aspect = next(a for a in picker.aspects if a.name == "Wizard Private Eye")
    _, _, options = await service.payment_options(
        view.id, user_id=ALICE, is_gm=False, aspect_key=aspect.key, hostile=False
    )
    paid = await service.invoke(
        view.id,
        version=view.version,
        user_id=ALICE,
        user_name="a",
        is_gm=False,
        aspect_key=aspect.key,
        mode=InvokeMode.BONUS,
        hostile=False,
        payment=next(o.value for o in options if o.value.startswith("fp")),
    )
    spent = harry.sheet.fate_points - 1

    async def void(d: Database) -> None:
        done = await RollService(d).void(paid.view.id, user_id=ALICE, is_gm=False)
        assert done.note.count("1 fate point back to Harry") == 1, done.note

    plans = _using(await _plans(db, path, void, monkeypatch), "fate_point_entry")
    assert "ix_fate_point_entry_roll (roll_id=?)" in plans, plans
    assert not _walks(plans, "fate_point_entry", "ix_fate_point_entry_campaign_id"), plans
    async with db.read() as s:
        assert (await get_character_in(s, 1)).sheet.fate_points == spent + 1


async def _harrys_ledger(db: Database, movements: int) -> None:
    """`movements` fate point movements of Harry's (character 1), then one of the Ghoul's
    (character 2)."""
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        entry = {
            "campaign_id": campaign.id,
            "character_id": 1,
            "who": "Harry",
            "delta": 1,
            "balance_after": 3,
            "reason": "refresh",
            "note": "",
            "actor_id": GM,
            "undone": False,
            "created_at": utcnow(),
        }
        ghoul = {**entry, "character_id": 2, "who": "Ghoul"}
        await s.execute(
            insert(FatePointEntry.__table__),  # type: ignore[attr-defined]
            [entry] * movements + [ghoul],
        )


async def test_a_ledger_page_counts_at_most_fifty_pages_of_a_long_ledger(
    old_campaign: tuple[Database, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """/fp log reads its page (one entry more: is there an older page?) and counts the ledger
    only up to LOG_PAGES_COUNTED pages, so a campaign's first year and its fifth cost the
    same: "Page 1 of 50+"."""
    db, path = old_campaign
    await _harrys_ledger(db, LOG_PAGES_COUNTED * LOG_PAGE_SIZE * 2)

    async def pages(d: Database) -> None:
        for for_gm in (False, True):
            first = await EconomyService(d).log(GUILD, CHANNEL, for_gm=for_gm)
            assert first.older and len(first.lines) == LOG_PAGE_SIZE
            assert first.more_pages and first.pages == LOG_PAGES_COUNTED
            assert "Page 1 of 50+" in (ledger_embed(first).footer.text or "")

    plans = await _plans(db, path, pages, monkeypatch)
    ledger = [sql for sql, _plan in plans if "fate_point_entry" in sql]
    assert len(ledger) == 4 and all("LIMIT" in sql for sql in ledger), ledger


async def test_a_scene_end_reads_the_rolls_of_its_scene_not_the_channels_history(
    old_campaign: tuple[Database, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scene's end pays what hostile invokes owe from the rolls made during the scene:
    it finds them by walking the channel's rolls newest first down to the first from before
    the scene, not by reading every roll of the channel to compare its time."""
    db, path = old_campaign
    scenes = SceneService(db)
    await scenes.start(GUILD, CHANNEL, actor_id=GM, characters=["Harry"])
    await _roll(db, ALICE, skill="Lore")
    ran = await _statements(db, lambda d: SceneService(d).end(GUILD, CHANNEL), monkeypatch)
    [(sql, params)] = [(sql, p) for sql, p in ran if "roll.roll_json" in sql]
    campaign, channel, since = params[-1], params[0], params[-2]
    walk = "SELECT roll_json FROM roll WHERE campaign_id = ? AND channel_id = ? AND created_at >= ?"
    assert _work(path, sql, params) * 10 < _work(path, walk, (campaign, channel, since))


def _newest_first(ran: list[tuple[str, Any]], table: str) -> list[str]:
    """The statements that read `table` newest first."""
    return [sql for sql, _ in ran if f"FROM {table}" in sql and "DESC" in sql]


async def test_an_undo_of_the_newest_movement_reads_one_entry(
    old_campaign: tuple[Database, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/fp undo` with no entry named reverses the newest one: it reads that one, not the
    campaign's whole ledger newest first (which the driver would fetch to the end)."""
    db, _path = old_campaign
    await _harrys_ledger(db, LEDGER)
    ran = await _statements(
        db, lambda d: EconomyService(d).undo(GUILD, CHANNEL, actor_id=GM), monkeypatch
    )
    newest = _newest_first(ran, "fate_point_entry")
    assert newest and all("LIMIT" in sql for sql in newest), newest


async def test_a_challenge_s_cost_after_its_end_reads_the_channel_s_last_challenge(
    old_campaign: tuple[Database, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no challenge running, `/challenge cost` notes the cost on the channel's last one:
    it reads that one, not every ended encounter of the channel newest first."""
    db, _path = old_campaign

    async def cost(d: Database) -> None:
        with pytest.raises(RuleError, match="No challenge has run here"):
            await ChallengeService(d).cost(CHANNEL, 1, "The runes wake")

    ran = await _statements(db, cost, monkeypatch)
    # (the running challenge's lookup reads only live encounters, through their index)
    newest = [
        sql
        for sql in _newest_first(ran, "encounter")
        if LIVE_ENCOUNTER not in sql.split("WHERE")[1]
    ]
    assert newest and all("LIMIT" in sql for sql in newest), newest


async def test_a_ledger_page_of_one_character_reads_that_character_s_movements(
    old_campaign: tuple[Database, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/fp log character:` counts and reads the named character's movements through their
    index, not the campaign's whole ledger looking for them (8.6 ms for a character with
    few movements in a ledger of 50,000)."""
    db, path = old_campaign
    await _harrys_ledger(db, LEDGER)

    async def ghoul_page(d: Database) -> None:
        page = await EconomyService(d).log(GUILD, CHANNEL, character="Ghoul", for_gm=True)
        assert len(page.lines) == 1 and page.pages == 1

    plans = _using(await _plans(db, path, ghoul_page, monkeypatch), "fate_point_entry")
    assert plans.count("ix_fate_point_entry_character_id (character_id=?)") == 2, plans
    assert "ix_fate_point_entry_campaign_id" not in plans, plans


async def test_deleting_a_character_does_not_walk_the_ledger_and_the_compels(
    old_campaign: tuple[Database, Path],
) -> None:
    """The foreign keys clear the ledger's and the compels' references to a deleted
    character: through their indexes, not by reading every entry and offer of the database."""
    db, path = old_campaign
    await _harrys_ledger(db, LEDGER)
    delete_ghoul = "DELETE FROM character WHERE id = 2"
    walk = "SELECT count(*) FROM fate_point_entry WHERE character_id + 0 = 2"
    before = _work(path, walk, ())
    connection = sqlite3.connect(path)
    try:
        steps = 0

        def step() -> int:
            nonlocal steps
            steps += 1
            return 0

        connection.execute("PRAGMA foreign_keys=ON")
        connection.execute("SELECT count(*) FROM sqlite_master")
        connection.set_progress_handler(step, 1)
        connection.execute(delete_ghoul)
        connection.set_progress_handler(None, 1)
        assert connection.execute(walk).fetchone() == (0,)  # its movement kept, unnamed
        assert connection.execute("SELECT count(*) FROM fate_point_entry").fetchone()[0] > LEDGER
    finally:
        connection.close()
    assert steps * 10 < before, (steps, before)
