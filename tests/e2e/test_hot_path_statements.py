"""How many statements a conflict turn and a scene move run, and what each answer costs in
Discord calls: the two paths issue 15 measures (bench conflict-turn and scene-move)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from bot.fate.sheet import new_character, new_minor_npc
from bot.services.campaigns import insert_character_in, resolve_campaign_in, set_active_in
from bot.testing.harness import Table, message_text


@contextmanager
def counted(table: Table) -> Iterator[tuple[list[str], list[int]]]:
    """The first word of every statement the bot's engines run, and their commits."""
    assert table.bot is not None
    db = table.bot.db  # type: ignore[attr-defined]
    statements: list[str] = []
    commits: list[int] = []

    def seen(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        statements.append(sql.split()[0].upper())

    def committed(_conn: Any) -> None:
        commits.append(1)

    def raw(sql: str) -> None:  # raw units of work (bot/db/raw.py) trace their statements
        if sql == "COMMIT":
            committed(None)
        else:
            seen(None, None, f"raw-{sql}")

    engines = {db.engine.sync_engine, db._read_engine.sync_engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", seen)
        event.listen(engine, "commit", committed)
    db.raw_trace = raw
    try:
        yield statements, commits
    finally:
        db.raw_trace = None
        for engine in engines:
            event.remove(engine, "before_cursor_execute", seen)
            event.remove(engine, "commit", committed)


async def _conflict(table: Table) -> None:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        knight = new_character("Knight", skills={"Fight": 3})
        ghoul = new_minor_npc("Ghoul", ["Ghoul"], {"Fight": 2}, stress_boxes=2)
        await insert_character_in(s, campaign, table.player, knight)
        await insert_character_in(s, campaign, table.gm, ghoul)
    started = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Knight, Ghoul",
        first="Ghoul",
        zones="Street, Alley",
    )
    assert "Ghoul" in started.text


async def test_a_conflict_turn_is_one_unit_of_three_statements(table: Table) -> None:
    """`/conflict next` loads the running conflict and its campaign, saves the row with its
    version and reads the members' sheets: three statements, one commit, nothing parsed twice,
    whether the turn passes to an NPC or to a player (whose ping setting comes along)."""
    await _conflict(table)
    await table.slash("conflict next", user=table.gm)  # warm: the first turn parses the sheets
    await table.settle()
    db: Any = table.bot.db  # type: ignore[union-attr]
    for _turn in ("to the ghoul", "to the knight's player"):
        hits = db.parsed.hits
        calls = len(table.fake.requests)
        with counted(table) as (statements, commits):
            record = await table.fire("conflict next", user=table.gm)
            await asyncio.wait_for(record.completed.wait(), 10)
            await table.settle()
        assert len(commits) == 1, statements
        # raw statements (bot/db/raw.py), not the ORM's
        assert statements == ["RAW-SELECT", "RAW-UPDATE", "RAW-SELECT"], statements
        assert db.parsed.hits >= hits + 3  # the campaign and both sheets
        # the public whose-turn answer and the tracker's edit, nothing else
        assert len(table.fake.requests) - calls == 2, table.fake.requests[calls:]
    assert "<@" in table.fake.requests[calls].body["data"]["content"]  # the player was pinged


async def test_a_scene_move_is_one_unit_and_the_board_one_read(table: Table) -> None:
    """`/scene move` reads the scene, the channel's campaign and the mover in one raw
    statement and saves the scene with its version; the pinned board's coalesced edit reads
    the scene with the campaign's play state, then the sheets, in one raw read unit; nothing
    is parsed twice."""
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        record = await insert_character_in(s, campaign, table.player, new_character("Scout"))
        await set_active_in(s, table.guild_id, table.player, record.id, None)
    await table.slash("scene start", user=table.gm, aspects="Fog", zones="Street, Roof")
    await table.slash("scene join", user=table.player, zone="Street")
    await table.slash("scene move", user=table.player, zone="Roof")  # warm
    await table.settle()
    calls = len(table.fake.requests)
    db: Any = table.bot.db  # type: ignore[attr-defined]
    misses = db.parsed.misses
    with counted(table) as (statements, commits):
        record_ = await table.fire("scene move", user=table.player, zone="Street")
        await asyncio.wait_for(record_.completed.wait(), 10)
        moved = list(statements)
        await table.settle()
    assert moved == ["RAW-SELECT", "RAW-UPDATE"], moved
    assert statements[2:] == ["RAW-SELECT", "RAW-SELECT"], statements
    assert len(commits) <= 2, statements
    assert db.parsed.misses == misses  # campaign, scene, sheet and play state all parsed before
    # the public answer and the board's edit
    assert len(table.fake.requests) - calls == 2, table.fake.requests[calls:]


async def test_a_burst_of_turns_edits_the_tracker_once_at_once_and_once_at_the_end(
    table: Table, monkeypatch: Any
) -> None:
    """With the one-edit-per-interval throttle on (as in production): the first turn of a
    quiet table edits the tracker at once, the turns after it within the interval fold into a
    single edit at its end, and that edit shows the newest turn. Every turn is still answered
    at once with its public whose-turn line."""
    import cogs.common.coalesce

    await _conflict(table)
    await table.settle()
    # long enough for the five turns below to fit in it on a loaded machine (0.5 s did not)
    monkeypatch.setattr(cogs.common.coalesce, "LIVE_EDIT_INTERVAL", 2.0)

    def tracker_edits(since: int) -> list[Any]:
        return [
            r
            for r in table.fake.requests[since:]
            if r.method == "PATCH" and "/channels/" in r.path and "/messages/" in r.path
        ]

    calls = len(table.fake.requests)
    first = await table.fire("conflict next", user=table.gm)
    await asyncio.wait_for(first.completed.wait(), 10)
    await asyncio.sleep(0.05)
    assert len(tracker_edits(calls)) == 1  # drawn at once, not after the interval
    for _ in range(5):
        record = await table.fire("conflict next", user=table.gm)
        await asyncio.wait_for(record.completed.wait(), 10)
        said = message_text(table.fake.messages.get(record.original_id or 0))
        assert " acts next." in said, said
        actor = said.split("**")[1]
    assert len(tracker_edits(calls)) == 1  # the burst waits for the interval's end
    await table.settle()
    edits = tracker_edits(calls)
    assert len(edits) == 2, edits
    tracker = message_text(table.fake.messages[int(edits[-1].path.rsplit("/", 1)[1])])
    assert "exchange 4" in tracker  # six turns from the start: the newest state is shown
    assert f"{actor} (NPC) in Street - acting now" in tracker, tracker


async def test_a_stop_in_the_middle_of_a_burst_still_draws_the_newest_turn(
    table: Table, monkeypatch: Any
) -> None:
    """A graceful stop (a deploy) while the throttle holds a burst's last edit: the bot draws
    it on its way out instead of leaving the tracker one burst behind until the next change."""
    import cogs.common.coalesce

    await _conflict(table)
    await table.settle()
    monkeypatch.setattr(cogs.common.coalesce, "LIVE_EDIT_INTERVAL", 30.0)
    for _ in range(3):  # the third turn starts exchange 2
        record = await table.fire("conflict next", user=table.gm)
        await asyncio.wait_for(record.completed.wait(), 10)
    edits = [
        r
        for r in table.fake.requests
        if r.method == "PATCH" and "/channels/" in r.path and "/messages/" in r.path
    ]
    tracker_id = int(edits[-1].path.rsplit("/", 1)[1])
    assert "exchange 1" in message_text(table.fake.messages[tracker_id])  # held back
    await asyncio.wait_for(table.stop_bot(), 10)  # well within the 30 s interval
    drawn = message_text(table.fake.messages[tracker_id])
    assert "exchange 2" in drawn and "Exchange 2 begins." in drawn, drawn  # the third turn's
    await table.start_bot()
