"""Contests and challenges say whose turn it is, as conflicts do: one short public line once the
turn has passed to someone, pinging only that player (an NPC's line pings nobody)."""

from __future__ import annotations

from typing import Any

from bot.testing.harness import Table
from tests.e2e.test_conflicts import ScriptedDice, choose, make_characters, use_dice


def turn_lines(table: Table) -> list[dict[str, Any]]:
    return [m for m in table.channel_messages() if "acts next." in (m.get("content") or "")]


def pings_only(message: dict[str, Any], user: int | None) -> bool:
    mentions = message.get("allowed_mentions") or {"parse": []}
    if user is None:
        return mentions == {"parse": []} and "<@" not in message["content"]
    return mentions == {"parse": [], "users": [user]} and message["content"].endswith(f"<@{user}>")


async def test_a_contest_names_the_side_still_to_roll(table: Table) -> None:
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    started = await table.slash(
        "contest start", user=gm, side_a="Charles", side_b="Ghoul", intent_a="Flee"
    )
    assert started.message is not None
    tracker_id = int(started.message["id"])

    async def side_roll(user: int) -> None:
        dice.load(0, 0, 0, 0)
        opened = await table.click(table.message(tracker_id), "Roll for my side", user=user)
        if "Who rolls" in opened.text:  # the GM plays every side: which one rolls now
            opened = await choose(table, opened, "Who rolls?", "Ghoul", user=user)
        await choose(table, opened, "Roll which skill?", "Athletics", user=user)

    assert turn_lines(table) == []  # both sides may roll first: nobody is waited on yet
    await side_roll(alice)
    [ghoul] = turn_lines(table)
    assert ghoul["content"] == "**Ghoul** acts next." and pings_only(ghoul, None)
    await side_roll(gm)
    assert len(turn_lines(table)) == 1  # every side rolled: the exchange is resolved next
    await table.click(table.message(tracker_id), "Resolve the exchange", user=gm)

    await side_roll(gm)  # exchange 2: the ghoul first, so Charles's player is told
    charles = turn_lines(table)[-1]
    assert charles["content"].startswith("**Charles** acts next.")
    assert pings_only(charles, alice), charles


async def test_a_challenge_names_who_rolls_the_next_task(table: Table) -> None:
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    started = await table.slash("challenge start", user=gm, tasks="Lore:Fair, Athletics:Fair")
    assert started.message is not None
    tracker_id = int(started.message["id"])
    await table.slash("challenge assign", user=gm, task=1, character="Molly")
    await table.slash("challenge assign", user=gm, task=2, character="Charles")
    assert turn_lines(table) == []  # assigning is not a turn

    dice.load(0, 0, 0, 0)
    await table.click(table.message(tracker_id), "Roll a task", user=alice)  # its one task
    await table.click(table.message(tracker_id), "Keep the roll", user=alice)
    [molly] = turn_lines(table)
    assert molly["content"].startswith("**Molly** acts next.")
    assert pings_only(molly, bob), molly

    dice.load(0, 0, 0, 0)
    await table.click(table.message(tracker_id), "Roll a task", user=bob)
    await table.click(table.message(tracker_id), "Keep the roll", user=bob)
    assert len(turn_lines(table)) == 1  # every task rolled: nobody is next


async def test_a_new_tracker_adds_a_turn_line_only_to_ping_someone(table: Table) -> None:
    """A tracker just posted says whose turn it is: a line under it that pings nobody (an NPC
    first, or pings turned off) would only repeat it. Later turns still get their line."""
    await make_characters(table)
    gm = table.gm
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Ghoul"
    )
    assert started.message is not None and "Ghoul acts" in started.text
    await table.settle()
    assert turn_lines(table) == []
    await table.slash("conflict next", user=gm, who="Charles")
    await table.settle()
    [charles] = turn_lines(table)
    assert pings_only(charles, table.player), charles
    await table.slash("conflict end", user=gm)

    await table.slash("campaign settings", user=gm, turn_ping=False)
    again = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Charles"
    )
    assert "Charles acts" in again.text
    await table.settle()
    assert len(turn_lines(table)) == 1  # no ping to give: the new tracker is the line
