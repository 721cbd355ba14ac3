"""Contests as the seed runs them (Contests; Teamwork; Creating Advantages in a Contest), through
the fake Discord with scripted dice."""

from __future__ import annotations

from typing import Any

from bot.testing.harness import Reply, Table, message_text
from tests.e2e.test_conflicts import (
    ScriptedDice,
    choose,
    make_characters,
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
