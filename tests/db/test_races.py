"""Races on one database, on SQLite (through the bot's own engine, whose writers queue) and on
PostgreSQL (where units of work really overlap): two GMs press /fp undo at the same moment (each
ledger entry is reversed at most once), and a new server's first burst of commands creates its
default campaign once."""

from __future__ import annotations

import asyncio

from sqlmodel import select

from bot.db.engine import Database
from bot.db.models.campaigns import Campaign
from bot.errors import RuleError
from bot.fate.sheet import new_character
from bot.services.campaigns import (
    get_character_in,
    insert_character_in,
    move_fate_points_in,
    resolve_campaign_in,
)
from bot.services.economy import EconomyService

GUILD, CHANNEL, GM, ALICE = 10**18 + 31, 10**18 + 32, 10**18 + 33, 10**18 + 34
PRESSES = 8
STAGGER = 0.0007  # seconds between presses: one lands inside another's transaction


async def undo_after(economy: EconomyService, delay: float) -> object:
    await asyncio.sleep(delay)
    return await economy.undo(GUILD, CHANNEL, actor_id=GM)


async def test_two_undos_at_once_reverse_one_entry_once(db: Database) -> None:
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, GUILD, CHANNEL)
        harry = await insert_character_in(s, campaign, ALICE, new_character("Harry"))
        start = harry.sheet.fate_points
        await move_fate_points_in(s, harry, 2, reason="gm_edit", actor_id=GM, channel_id=CHANNEL)
    economy = EconomyService(db)
    for round_ in range(1, 6):  # a race is a matter of luck: give it a few chances
        outcomes = await asyncio.gather(
            *(undo_after(economy, i * STAGGER) for i in range(PRESSES)), return_exceptions=True
        )
        done = [o for o in outcomes if not isinstance(o, BaseException)]
        refused = [o for o in outcomes if isinstance(o, RuleError)]
        assert len(done) == 1 and len(refused) == PRESSES - 1, outcomes
        page = await economy.log(GUILD, CHANNEL, for_gm=True)
        undos = [line for line in page.lines if line.reason == "undo"]
        assert len(undos) == round_, [(line.id, line.reason, line.delta) for line in page.lines]
        async with db.session() as s:
            record = await get_character_in(s, harry.id)
            assert record.sheet.fate_points == start
            await move_fate_points_in(s, record, 2, reason="gm_edit", actor_id=GM)  # the next


async def test_a_first_burst_creates_the_default_campaign_once(db: Database) -> None:
    guild = GUILD + 1000

    async def one_command(channel: int) -> int:
        async with db.session() as s:
            return (await resolve_campaign_in(s, guild, channel)).id

    found = await asyncio.gather(*(one_command(CHANNEL + i) for i in range(20)))
    assert len(set(found)) == 1, found
    async with db.read() as s:
        rows = (await s.exec(select(Campaign).where(Campaign.guild_id == guild))).all()
    assert [(r.id, r.is_default) for r in rows] == [(found[0], True)]


async def test_a_first_burst_of_rolls_and_other_commands_makes_one_campaign(db: Database) -> None:
    """A new server's first rolls make its default campaign on the raw path, other commands
    on the ORM path, all at once: one campaign, and every roll is in it."""
    import random

    from bot.db.models.rolls import RollRow
    from bot.services.roll_base import RollRequest
    from bot.services.rolls import RollService

    guild = GUILD + 2000
    rolls = RollService(db, random.Random(3))

    async def roll(user: int) -> None:
        await rolls.start(RollRequest(guild, CHANNEL, user, f"Player {user}", skill="+1"))

    async def other(channel: int) -> int:
        async with db.session() as s:
            return (await resolve_campaign_in(s, guild, channel)).id

    traced: list[str] = []
    db.raw_trace = traced.append
    await roll(ALICE)  # the server's very first command: made on the raw path, no ORM
    db.raw_trace = None
    assert any(t.startswith("INSERT INTO campaign") for t in traced), traced
    guild += 1
    found = await asyncio.gather(
        *(other(CHANNEL + i) for i in range(10)), *(roll(ALICE + i) for i in range(10))
    )
    assert len(set(found[:10])) == 1, found
    async with db.read() as s:
        rows = (await s.exec(select(Campaign).where(Campaign.guild_id == guild))).all()
        in_rolls = (
            await s.exec(select(RollRow.campaign_id).where(RollRow.guild_id == guild))
        ).all()
    assert [(r.id, r.name, r.is_default) for r in rows] == [(found[0], "Main campaign", True)]
    assert in_rolls == [found[0]] * 10


async def test_rolling_players_at_once_close_their_rolls_without_a_deadlock(db: Database) -> None:
    """Players roll again and again at once, as 50 tables do: each new roll closes the player's
    previous one, whose message id may still be waiting to be written. On PostgreSQL a unit of
    work that wrote other players' waiting ids and then waited to close its own roll deadlocked
    with one doing the same the other way round (a roll answered with an incident): every roll
    here must go through, close the one before it and keep its message id."""
    import random

    from bot.db.models.rolls import RollRow
    from bot.services.roll_base import RollRequest
    from bot.services.rolls import RollService

    guild, players, rounds = GUILD + 3000, 16, 6
    rolls = RollService(db, random.Random(5))
    await rolls.start(RollRequest(guild, CHANNEL, ALICE, "Alice", skill="+1"))  # the campaign

    async def player(user: int) -> None:
        for turn in range(rounds):
            change = await rolls.start(RollRequest(guild, CHANNEL + user, user, "P", skill="+1"))
            message = change.view.id * 1000 + turn  # where the answer landed
            await rolls.set_messages(change.view.id, message_id=message, guild_id=guild)
            await asyncio.sleep(0)

    await asyncio.gather(*(player(ALICE + 1 + n) for n in range(players)))
    await rolls.flush()
    # What does not depend on timing: a roll whose predecessor's message id still waits on
    # SQLite writes it in its own transaction; on PostgreSQL it was written on its own already.
    # Either way the closed roll's view knows its message (the closing edit needs it).
    first = await rolls.start(RollRequest(guild, CHANNEL, ALICE, "Alice", skill="+2"))
    await rolls.set_messages(first.view.id, message_id=first.view.id * 1000, guild_id=guild)
    traced: list[str] = []
    db.raw_trace = traced.append
    second = await rolls.start(RollRequest(guild, CHANNEL, ALICE, "Alice", skill="+2"))
    db.raw_trace = None
    assert any("SET message_id" in line for line in traced) == (db.kind == "sqlite"), traced
    assert [v.message_id for v in second.others] == [first.view.id * 1000]
    async with db.read() as s:
        rows = (
            await s.exec(select(RollRow).where(RollRow.guild_id == guild, RollRow.user_id != ALICE))
        ).all()
    assert len(rows) == players * rounds
    assert sum(not r.closed for r in rows) == players  # each player's last roll stays open
    assert all(r.message_id is not None and r.message_id // 1000 == r.id for r in rows)


async def test_both_sides_of_opposed_rolls_changed_at_once_never_deadlock(db: Database) -> None:
    """A change to one roll of an opposed pair also changes the other (its effort). The GM sets
    scale on both sides of eight pairs at once: on PostgreSQL the two units used to lock the
    pair's rows in opposite orders and deadlock (one answered after a second's wait with "try
    again"); now each side either applies or is refused as changed meanwhile, at once."""
    import random

    from bot.db.repos.versioned import StaleError
    from bot.fate.rolls import ScaleLevel, ScaleMode
    from bot.services.roll_base import RollRequest
    from bot.services.rolls import RollService

    guild, pairs = GUILD + 4000, 8
    rolls = RollService(db, random.Random(9))
    sides = []
    for n in range(pairs):
        channel, first_user, second_user = CHANNEL + n, ALICE + 2 * n, ALICE + 2 * n + 1
        first = await rolls.start(RollRequest(guild, channel, first_user, "A", skill="+1"))
        second = await rolls.start(
            RollRequest(guild, channel, second_user, "B", skill="+2", against=first.view.id)
        )
        sides += [first.view.id, second.view.id]

    async def scale(roll_id: int) -> object:
        view = await rolls.get(roll_id)
        return await rolls.scale(
            roll_id,
            version=view.version,
            is_gm=True,
            roller_level=ScaleLevel.SUPERNATURAL,
            opposition_level=ScaleLevel.MUNDANE,
            mode=ScaleMode.BEFORE_ROLL,
        )

    outcomes = await asyncio.gather(*(scale(r) for r in sides), return_exceptions=True)
    unexpected = [o for o in outcomes if isinstance(o, BaseException)]
    assert all(isinstance(o, StaleError) for o in unexpected), unexpected
    for n in range(pairs):  # at least one side of every pair applied
        assert not all(isinstance(o, StaleError) for o in outcomes[2 * n : 2 * n + 2]), n
