"""A whole first evening, a GM and three players, through the fake Discord, counting what it costs:
every interaction a person makes and every private message the bot answers with.

The evening: the GM role, one guided character and two imported ones, an NPC, the session and a
scene, a roll with an invoke, an advantage, a compel, a conflict with a consequence and a
concession, scene and session end, the ledger. The counts are the issue-13 measure of "fewer
clicks, less noise"; BEFORE is what the same evening cost when the measure was written.
"""

from __future__ import annotations

import json
from typing import Any

from bot.testing.harness import Table, Tally, message_text
from tests.e2e.test_characters import guided_character, imported
from tests.e2e.test_conflicts import ConflictDriver, ScriptedDice, choose, use_dice
from tests.e2e.test_rolls import FixedDice, invoke, roll_message

# Measured on main at e1477fd, before any issue-13 change to the flow.
BEFORE = Tally(interactions=55, ephemeral=25, public=9)
# Measured after guided creation became one message without its confirm-only steps, and the
# tracker stopped echoing privately what it shows (a click edits it and says nothing more, a
# form sent from a private step edits that step, a menu of one choice is skipped), and a new
# tracker stopped being followed by a whose-turn line that pings nobody (it says whose turn),
# and /scene start answers with the board itself instead of a summary line above it.
NOW = Tally(interactions=50, ephemeral=14, public=10)


async def first_evening(table: Table) -> dict[str, Tally]:
    gm, harriet, molly, dana = table.gm, table.player, table.player2, table.player3
    costs: dict[str, Tally] = {}
    mark = table.tally()

    def step(name: str) -> None:
        nonlocal mark
        now = table.tally()
        costs[name] = now - mark
        mark = now

    done = await table.slash("settings gm-role", user=table.admin, role=table.gm_role)
    assert "GM role set" in done.text
    step("gm role")

    finished = await guided_character(table, harriet, "Harriet")
    assert "Harriet" in finished.text
    await imported(table, molly, "Molly")
    await imported(table, dana, "Dana")
    ghoul = await table.slash(
        "character npc",
        user=gm,
        kind="minor",
        name="Ghoul",
        aspects="Hungry Ghoul",
        skills="Fight +2",
        stress=2,
    )
    assert "Ghoul" in ghoul.text
    step("characters")

    await table.slash("session start", user=gm)
    await table.slash(
        "scene start",
        user=gm,
        aspects="Pouring Rain, Dark Alley",
        zones="Street, Alley",
        characters="Harriet, Molly, Dana",
    )
    step("session and scene")

    assert table.bot is not None
    rolls: Any = table.bot.get_cog("Rolls")  # type: ignore[attr-defined]
    rolls.service.rng = FixedDice([0, 0, 0, 0, 1, 1, 0, 0])
    roll = await table.slash("roll", user=harriet, skill="Notice", difficulty="Fair")
    assert "Tie" in roll.text
    await invoke(table, roll, "Occult Librarian", "fate point", user=harriet)
    assert "Success" in message_text(roll_message(table, roll))
    step("a roll with an invoke")

    advantage = await table.slash("advantage", user=molly, skill="Notice", aspect="Slick Cobbles")
    created = await table.click(advantage, "Create aspect", user=molly)
    assert created.answered
    step("an advantage")

    compel = await table.slash(
        "compel offer",
        user=gm,
        target="Molly",
        aspect="Never Backs Down",
        complication="You square up to the ghoul instead of running",
    )
    await table.click(compel, "Accept", user=molly)
    step("a compel")

    dice = ScriptedDice()
    use_dice(table, dice)
    fight = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Harriet, Molly, Dana, Ghoul",
        first="Ghoul",
    )
    assert fight.message is not None
    run = ConflictDriver(table, int(fight.message["id"]))
    dice.load(1, 1, 1, 0)  # the ghoul's Fair Fight: Superb (+5)
    await run.attack(gm, "Molly", "Fight")
    dice.load(-1, 0, 0, 0)  # Molly's Good Athletics: Fair (+2), a 3-shift hit
    await run.defend(molly, "Athletics")
    await run.resolve(molly)
    opened = await table.click(run.tracker, "Take the hit", user=molly)
    form = await choose(
        table, opened, "How do you take it?", "Physical stress box 1 + Mild", user=molly
    )
    await table.submit(form, {"c0": "Bitten Forearm"}, user=molly)
    assert "Bitten Forearm" in run.text
    await run.next(gm, "Molly")
    dice.load(0, 0, 0, 0)  # Molly's Great Fight against the ghoul's Fair: a 2-shift hit
    await run.attack(molly, "Ghoul", "Fight")
    dice.load(0, 0, 0, 0)
    await run.defend(gm, "Fight")
    await run.resolve(molly)
    await run.take_hit(gm, "Stress box 1, 2")
    await run.next(molly, "Harriet")
    opened = await table.click(run.tracker, "Concede", user=gm)
    await choose(table, opened, "Who concedes?", "Ghoul", user=gm)
    assert "over" in run.text
    # the log is history: what to press next was the tracker's "Now" line, never a stale log line
    assert "defends against Great (+4)." in run.text
    assert "resolve the attack" not in run.text.lower() and "Fate points paid" not in run.text
    step("a conflict")

    await table.slash("scene end", user=gm)
    session = await table.slash("session end", user=gm)
    assert "minor" in session.text.lower()
    log = await table.slash("fp log", user=dana)
    assert "compel" in log.text.lower()
    step("wrapping up")
    return costs


async def test_a_first_evening_costs_fewer_clicks_and_messages(table: Table) -> None:
    costs = await first_evening(table)
    total = table.tally()
    report = {name: vars(cost) for name, cost in costs.items()} | {"total": vars(total)}
    print(json.dumps(report))  # `pytest -s` shows the cost of each part of the evening
    assert total.interactions <= NOW.interactions < BEFORE.interactions, report
    assert total.ephemeral <= NOW.ephemeral < BEFORE.ephemeral, report
    assert total.public <= NOW.public, report  # above BEFORE: the whose-turn lines are new
    # the conflict's clicks on the tracker repeat nothing privately: its private messages are
    # the menus asked for (two attacks, two defences, two hits taken, one concession)
    assert costs["a conflict"].ephemeral <= 7, report
