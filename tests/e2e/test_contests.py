"""Contests as the seed runs them (Contests; Teamwork; Creating Advantages in a Contest), through
the fake Discord with scripted dice."""

from __future__ import annotations

from typing import Any

from bot.testing.harness import Reply, Table, message_text
from tests.e2e.test_conflicts import (
    ScriptedDice,
    choose,
    make_characters,
    option_labels,
    sheet,
    step_message,
    use_dice,
)

HEAD_START = {"skill": "Athletics", "difficulty": "Fair", "aspect": "Head start"}


async def test_one_create_advantage_per_participant_per_exchange(table: Table) -> None:
    # "Each participant may attempt to create an advantage in addition to rolling or providing a
    # teamwork bonus": one try each per exchange, and a new one the next exchange.
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    started = await table.slash("contest start", user=gm, side_a="Charles", side_b="Ghoul")
    assert started.message is not None, started.text
    tracker_id = int(started.message["id"])

    def tracker() -> dict[str, Any]:
        return table.message(tracker_id)

    async def side_roll(user: int, skill: str, *faces: int) -> Reply:
        dice.load(*faces)
        opened = await table.click(tracker(), "Roll for my side", user=user)
        return await choose(table, opened, "Roll which skill?", skill, user=user)

    # Athletics +3 +2 = Superb vs Fair: the aspect with two free invokes.
    first = await table.click(tracker(), "Create advantage", user=alice)
    assert first.modal is not None
    dice.load(1, 1, 0, 0)
    made = await table.submit(first, HEAD_START, user=alice)
    assert "Head start is created with 2 free invokes" in made.text
    # A second try the same exchange is refused before any form, saying what to do instead.
    again = await table.click(tracker(), "Create advantage", user=alice)
    assert again.modal is None and again.ephemeral
    assert (
        "Charles already tried to create an advantage this exchange, and each participant gets "
        "one try per exchange: roll for the side or give Teamwork +1 instead, and try again "
        "next exchange." in again.text
    )
    assert message_text(tracker()).count("is created with") == 1
    # The Ghoul's try is its own: the GM's menu leaves Charles out and goes to its form.
    ghoul = await table.click(tracker(), "Create advantage", user=gm)
    assert ghoul.modal is not None

    # Charles still rolls for his side; the Ghoul's try is its own.
    rolled = await side_roll(alice, "Athletics", 0, 0, 0, 0)
    assert "Good (+3) for Charles" in rolled.text
    await side_roll(gm, "Athletics", 0, 0, 0, 0)
    done = await table.click(tracker(), "Resolve the exchange", user=gm)
    assert "Exchange 1: Charles marks" in done.text

    # The next exchange allows one try again.
    fresh = await table.click(tracker(), "Create advantage", user=alice)
    assert fresh.modal is not None
    dice.load(0, 0, 0, 0)
    made = await table.submit(fresh, {**HEAD_START, "aspect": "Second wind"}, user=alice)
    assert "Second wind is created" in made.text


async def test_teamwork_helpers_share_the_hit_in_a_harming_contest(table: Table) -> None:
    # "Supporters face the same costs and consequences as the person making the roll", and in a
    # harming contest "the PCs take hits whenever the opposition beats them".
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    started = await table.slash(
        "contest start", user=gm, side_a="Charles, Molly", side_b="Ghoul", harming="b"
    )
    assert started.message is not None, started.text
    tracker_id = int(started.message["id"])

    def tracker() -> dict[str, Any]:
        return table.message(tracker_id)

    # Molly helps; Charles rolls Athletics +3 -3 +1 = Average; the Ghoul's Fight +2 +4 =
    # Fantastic beats them by 5.
    helped = await table.click(tracker(), "Teamwork +1", user=bob)
    assert "Molly helps" in helped.text
    dice.load(-1, -1, -1, 0)
    opened = await table.click(tracker(), "Roll for my side", user=alice)
    await choose(table, opened, "Roll which skill?", "Athletics", user=alice)
    dice.load(1, 1, 1, 1)
    opened = await table.click(tracker(), "Roll for my side", user=gm)
    await choose(table, opened, "Roll which skill?", "Fight", user=gm)
    done = await table.click(tracker(), "Resolve the exchange", user=gm)
    assert "Charles takes a 5-shift hit from Ghoul." in done.text
    assert "Molly gave teamwork, so takes the same 5-shift hit from Ghoul." in done.text
    hits = message_text(tracker()).split("Hits to take", 1)[1]
    assert "Charles: a 5-shift hit from Ghoul" in hits and "Molly: a 5-shift hit from Ghoul" in hits
    assert started.labels(tracker()) == ["Take the hit"]

    # Each absorbs it on their own sheet; the next rolls wait for both.
    opened = await table.click(tracker(), "Take the hit", user=bob)
    assert opened.ephemeral and "Molly absorbs a 5-shift hit" in opened.text
    box_and_moderate = "Physical stress box 1 + Moderate consequence (4)"
    assert box_and_moderate in option_labels(step_message(opened), "How do you take it?")
    form = await choose(table, opened, "How do you take it?", box_and_moderate, user=bob)
    assert form.modal is not None
    await table.submit(form, {"c0": "Clawed shoulder"}, user=bob)
    molly = await sheet(table, people["molly"])
    assert molly.track("moderate").aspect == "Clawed shoulder"
    assert started.labels(tracker()) == ["Take the hit"]
    opened = await table.click(tracker(), "Take the hit", user=alice)
    assert "Charles absorbs a 5-shift hit" in opened.text
    form = await choose(table, opened, "How do you take it?", box_and_moderate, user=alice)
    await table.submit(form, {"c0": "Twisted ankle"}, user=alice)
    charles = await sheet(table, people["charles"])
    assert charles.track("moderate").aspect == "Twisted ankle"
    assert "Roll for my side" in started.labels(tracker())
