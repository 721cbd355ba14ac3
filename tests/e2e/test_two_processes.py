"""Scale-out: two bot processes (shards 0 and 1 of 2) on one PostgreSQL database, one fake
Discord in this process. Runs when FATETABLE_TEST_DATABASE_URL points at PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import select

from bot.db.engine import Database
from bot.db.models.games import GameRow
from bot.db.models.rolls import RollRow
from bot.services.games import GameService
from bot.testing.fake_discord import FakeDiscord
from bot.testing.harness import Table
from bot.testing.process import BotProcess
from tests.conftest import (
    PG_URL,
    TEST_UNIT_TIMEOUT,
    _reset_postgres,
    ensure_pg_database,
    worker_pg_url,
)

pytestmark = pytest.mark.skipif(
    not (PG_URL or "").startswith("postgresql"), reason="needs FATETABLE_TEST_DATABASE_URL"
)


@pytest.fixture
async def cluster() -> AsyncIterator[tuple[FakeDiscord, list[Table], Database, list[BotProcess]]]:
    assert PG_URL
    url = worker_pg_url(PG_URL)
    await ensure_pg_database(url)
    db = Database(url, unit_timeout=TEST_UNIT_TIMEOUT)
    await _reset_postgres(db)
    fake = FakeDiscord()
    await fake.start()
    tables = [Table(fake, _never, shard=(0, 2)), Table(fake, _never, shard=(1, 2))]
    common = {
        "DATABASE_URL": url,
        "SHARD_COUNT": "2",
        "GAME_IDLE_CHECK_SECONDS": "0.2",
        "GAME_IDLE_WARN_MINUTES": "60",
        "DB_UNIT_TIMEOUT_SECONDS": str(TEST_UNIT_TIMEOUT),
    }
    bots: list[BotProcess] = []
    try:
        # Started together: they migrate one after the other (an advisory lock), and only
        # the first pushes the command list.
        envs = [
            {**common, "SHARD_IDS": str(shard), "SYNC_COMMANDS": "true" if shard == 0 else "false"}
            for shard in (0, 1)
        ]
        started = await asyncio.gather(
            *(BotProcess.start(fake.port, env) for env in envs), return_exceptions=True
        )
        bots.extend(b for b in started if isinstance(b, BotProcess))
        for outcome in started:
            if isinstance(outcome, BaseException):
                raise outcome
        yield fake, tables, db, bots
    finally:
        for bot in bots:
            await bot.stop()
        await fake.stop()
        await db.dispose()


async def _never():  # type: ignore[no-untyped-def]
    raise AssertionError("the bots run in their own processes")


def _answering_shards(fake: FakeDiscord) -> set[int]:
    return {shard for _, shard, _ in fake._sockets}


async def test_two_shards_serve_their_guilds_share_the_database_and_act_once(cluster) -> None:  # type: ignore[no-untyped-def]
    fake, (first, second), db, _ = cluster
    assert _answering_shards(fake) == {0, 1}
    assert [count for _, count in fake.sync_calls] and len(fake.sync_calls) == 1  # one syncs

    # Each process serves the guilds of its shard, on the one database.
    for table in (first, second):
        rolled = await table.ask("roll", user=table.player, skill="+2")
        assert "rolls 4dF" in rolled.text and "Roll #" in rolled.text, rolled.text
    async with db.read() as session:
        stored = (await session.exec(select(RollRow.guild_id))).all()
    assert sorted(stored) == sorted([first.guild_id, second.guild_id])

    # A game in the first guild; then a third party (another process: here, this test)
    # ends it in the database. The serving process must not act on what it remembers.
    # (a first game in a process loads its packs: on a loaded machine that takes a while)
    lobby = await first.ask(
        "game new", user=first.player, game="dfccg", options="difficulty=apprentice", timeout=60
    )
    assert "Start" in lobby.labels(), lobby.text
    started = await first.click(lobby, "Start", user=first.player, timeout=60)
    assert started.answered
    moved = await first.ask("game move", user=first.player, action="auto")
    assert "Your hand" in moved.text, moved.text
    games = GameService(db)
    info = await games.status(first.channel)
    assert info is not None
    ended = await games.idle_check(datetime.now(UTC) + timedelta(days=1), 60, 240)
    assert [n.kind for n in ended] == ["abandon"]
    stale = await first.ask("game move", user=first.player, action="auto")
    assert "no game in this channel" in stale.text, stale.text

    # The idle loop runs in both processes; a game gone idle is announced exactly once.
    lobby = await second.ask(
        "game new", user=second.player, game="dfccg", options="difficulty=apprentice"
    )
    await second.click(lobby, "Start", user=second.player)
    async with db.session() as session:
        await session.exec(  # type: ignore[call-overload]
            update(GameRow)
            .where(GameRow.channel_id == second.channel, GameRow.active_channel_id.is_not(None))  # type: ignore[union-attr]
            .values(last_activity=datetime.now(UTC) - timedelta(minutes=90))
        )
    await _wait_for(lambda: _idle_warnings(second) >= 1)
    await asyncio.sleep(1.0)  # several more rounds of both loops
    assert _idle_warnings(second) == 1


def _idle_warnings(table: Table) -> int:
    return sum("has been idle" in (m.get("content") or "") for m in table.channel_messages())


async def _wait_for(condition, timeout: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(0.05)


# ------------------------------------------------------------------ two processes, one shard
@pytest.fixture
async def twins() -> AsyncIterator[tuple[FakeDiscord, Table, Database]]:
    """Two processes serving the same shard (as during a rolling deploy): each interaction
    reaches one of them, in turn, so the two clicks of a double click race across processes."""
    assert PG_URL
    url = worker_pg_url(PG_URL)
    await ensure_pg_database(url)
    db = Database(url, unit_timeout=TEST_UNIT_TIMEOUT)
    await _reset_postgres(db)
    fake = FakeDiscord()
    await fake.start()
    table = Table(fake, _never)
    common = {
        "DATABASE_URL": url,
        "SHARD_COUNT": "1",
        "SHARD_IDS": "0",
        "DB_UNIT_TIMEOUT_SECONDS": str(TEST_UNIT_TIMEOUT),
    }
    bots: list[BotProcess] = []
    try:
        for sync in ("true", "false"):
            bots.append(await BotProcess.start(fake.port, {**common, "SYNC_COMMANDS": sync}))
        fake.one_socket_per_event = True
        yield fake, table, db
    finally:
        for bot in bots:
            await bot.stop()
        await fake.stop()
        await db.dispose()


async def _harry(table: Table, db: Database) -> int:
    from bot.fate.sheet import AspectKind, new_character
    from bot.services.campaigns import insert_character_in, resolve_campaign_in, set_active_in

    sheet = new_character("Harry", skills={"Lore": 4}).set_aspect(
        AspectKind.HIGH_CONCEPT, "Wizard Private Eye"
    )
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        record = await insert_character_in(s, campaign, table.player, sheet)
        await set_active_in(s, table.guild_id, table.player, record.id, None)
    return record.id


async def _fate_points(db: Database, character_id: int) -> int:
    from bot.services.campaigns import get_character_in

    async with db.read() as s:
        return (await get_character_in(s, character_id)).sheet.fate_points


def _no_incident(*replies: Any) -> None:
    for reply in replies:
        assert "incident `" not in reply.text, reply.text


async def test_double_clicks_across_two_processes_apply_once(twins) -> None:  # type: ignore[no-untyped-def]
    from bot.db.models.campaigns import FatePointEntry
    from bot.db.models.games import GameActionLog

    fake, table, db = twins
    harry = await _harry(table, db)
    start = await _fate_points(db, harry)
    gm = table.admin  # an administrator is a GM

    # the same ledger entry undone twice at once
    given = await table.ask("fp give", user=gm, character="Harry")
    assert "Harry" in given.text, given.text
    preview = await table.ask("fp undo", user=gm)  # a private preview with Confirm undo
    assert "Confirm undo" in preview.labels(), preview.text
    undos = await asyncio.gather(
        *(table.click(preview, "Confirm undo", user=gm, timeout=30) for _ in range(2))
    )
    _no_incident(*undos)
    async with db.read() as s:
        entries = (await s.exec(select(FatePointEntry))).all()
    assert sum(e.reason == "undo" for e in entries) == 1, [(e.id, e.reason) for e in entries]
    assert await _fate_points(db, harry) == start

    # the same invoke paid twice at once
    roll = await table.ask("roll", user=table.player, skill="Lore")
    # (one aspect and only a fate point to pay: the click is the invoke, no menu follows)
    paid = await asyncio.gather(
        *(table.click(roll, "Invoke +2", user=table.player, timeout=30) for _ in range(2))
    )
    _no_incident(*paid)
    assert await _fate_points(db, harry) == start - 1
    async with db.read() as s:
        stored = (await s.exec(select(RollRow))).one()
    assert stored.roll_json.count('"aspect_name"') == 1, stored.roll_json

    # the same compel accepted twice at once
    offer = await table.ask(
        "compel offer", user=gm, target="Harry", aspect="Wizard Private Eye", complication="x"
    )
    accepted = await asyncio.gather(
        *(table.click(offer, "Accept", user=table.player) for _ in range(2))
    )
    _no_incident(*accepted)
    assert await _fate_points(db, harry) == start

    # the same game move clicked twice at once
    lobby = await table.ask(
        "game new", user=table.player, game="dfccg", options="difficulty=apprentice", timeout=60
    )
    await table.click(lobby, "Start", user=table.player, timeout=60)
    hand = await table.click(
        table.message(lobby.message["id"]), "My hand", user=table.player, timeout=60
    )
    label = next(
        b["label"] for b in hand.buttons() if (b.get("custom_id") or "").startswith("ftg:a:")
    )
    moves = await asyncio.gather(
        *(table.click(hand, label, user=table.player, timeout=60) for _ in range(2))
    )
    _no_incident(*moves)
    async with db.read() as s:
        assert len((await s.exec(select(GameActionLog))).all()) == 1


async def test_no_process_rolls_with_a_sheet_it_cached_before_another_changed_it(twins) -> None:  # type: ignore[no-untyped-def]
    """Both processes parse Harry's sheet once and keep it; a third (this test) raises his
    Lore. The next roll in either process uses the new rating: the cache serves a sheet only
    for the version its own transaction reads."""
    import json

    from bot.services.campaigns import get_character_in, save_character_in

    _fake, table, db = twins
    harry = await _harry(table, db)

    async def ratings() -> list[int]:
        async with db.read() as s:
            rows = (await s.exec(select(RollRow).order_by(RollRow.id))).all()  # type: ignore[arg-type]
        return [json.loads(r.roll_json)["skill_rating"] for r in rows]

    for _ in range(2):  # one roll in each process: each has parsed version 1
        rolled = await table.ask("roll", user=table.player, skill="Lore")
        assert "Harry" in rolled.text, rolled.text
    async with db.session() as s:
        record = await get_character_in(s, harry)
        await save_character_in(s, record, record.sheet.set_skill("Lore", 5))
    for _ in range(2):
        rolled = await table.ask("roll", user=table.player, skill="Lore")
        assert "Harry" in rolled.text, rolled.text
    assert await ratings() == [4, 4, 5, 5]
