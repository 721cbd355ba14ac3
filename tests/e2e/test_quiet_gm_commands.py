"""The GM's slash commands that change a tracker leave no private echo: the tracker's edit,
which the whole channel sees, is the answer. Mistakes are still answered privately, with what
to type instead."""

from __future__ import annotations

from typing import Any

from bot.testing.harness import Reply, Table, message_text
from tests.e2e.test_conflicts import make_characters


def silent(reply: Reply) -> bool:
    """Answered, and nothing of the answer stays: no message, no follow-up."""
    return reply.deferred and reply.message is None and not reply.followups


async def test_conflict_scale_leaves_only_the_tracker_edit(table: Table) -> None:
    await make_characters(table)
    gm, alice = table.gm, table.player
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Charles"
    )
    assert started.message is not None
    tracker_id = int(started.message["id"])
    refused = await table.slash("conflict scale", user=alice, side="npcs", level=1)
    assert refused.ephemeral and "Only the GM" in refused.text
    before = table.tally()
    scaled = await table.slash("conflict scale", user=gm, side="npcs", level=1)
    assert silent(scaled), scaled.text
    shown = message_text(table.message(tracker_id))
    assert "NPCs: Supernatural" in shown and "Supernatural from the next roll" in shown
    cost = table.tally() - before
    assert (cost.interactions, cost.ephemeral, cost.public) == (1, 0, 0)


async def test_challenge_assign_cost_and_end_leave_only_the_tracker_edit(table: Table) -> None:
    await make_characters(table)
    gm = table.gm
    started = await table.slash(
        "challenge start", user=gm, tasks="Lore:3:read the runes, Athletics:Fair"
    )
    assert started.message is not None
    tracker_id = int(started.message["id"])

    def tracker() -> str:
        return message_text(table.message(tracker_id))

    wrong = await table.slash("challenge assign", user=gm, task=7, character="Molly")
    assert wrong.ephemeral and "task" in wrong.text.lower(), wrong.text
    before = table.tally()
    assigned = await table.slash("challenge assign", user=gm, task=1, character="Molly")
    assert silent(assigned), assigned.text
    assert "The GM gives the Lore task to Molly." in tracker()
    # a cost is noted after a tie (test_conflicts' challenge shows the silent one); too early:
    early = await table.slash("challenge cost", user=gm, task=1, cost="The runes wake")
    assert early.ephemeral and "Roll the task before noting its cost." in early.text
    ended = await table.slash("challenge end", user=gm)
    assert silent(ended), ended.text
    assert "The GM closes the challenge: 0 successes" in tracker(), tracker()
    cost = table.tally() - before
    # the one private line is the early cost's refusal
    assert (cost.interactions, cost.ephemeral, cost.public) == (3, 1, 0)
    again = await table.slash("challenge end", user=gm)
    assert again.ephemeral and "/challenge start" in again.text, again.text  # what to type


async def test_contest_end_leaves_only_the_tracker_edit(table: Table) -> None:
    await make_characters(table)
    gm, alice = table.gm, table.player
    started = await table.slash(
        "contest start",
        user=gm,
        side_a="Charles, Molly",
        side_b="Ghoul",
        intent_a="Reach the car",
        intent_b="Catch them",
    )
    assert started.message is not None
    tracker: dict[str, Any] = table.message(int(started.message["id"]))
    refused = await table.slash("contest end", user=alice)
    assert refused.ephemeral and "Only the GM" in refused.text
    before = table.tally()
    ended = await table.slash("contest end", user=gm)
    assert silent(ended), ended.text
    assert "The GM stopped the contest." in message_text(table.message(int(tracker["id"])))
    cost = table.tally() - before
    assert (cost.interactions, cost.ephemeral, cost.public) == (1, 0, 0)


async def test_a_quiet_command_whose_tracker_was_deleted_answers_privately(table: Table) -> None:
    """The tracker's edit is the answer only once it is made: a tracker message someone deleted
    cannot be edited, so the GM is told privately that the change is saved and how to post the
    tracker again (no silent success)."""
    await make_characters(table)
    gm = table.gm
    started = await table.slash(
        "challenge start", user=gm, tasks="Lore:3:read the runes, Athletics:Fair"
    )
    assert started.message is not None
    table.fake.messages.pop(int(started.message["id"]))  # someone deleted the tracker
    before = table.tally()
    assigned = await table.slash("challenge assign", user=gm, task=1, character="Molly")
    assert assigned.ephemeral and not silent(assigned), assigned.text
    assert "The GM gives the Lore task to Molly." in assigned.text
    assert "could not update the tracker" in assigned.text
    assert "`/challenge tracker`" in assigned.text, assigned.text
    cost = table.tally() - before
    assert (cost.interactions, cost.ephemeral, cost.public) == (1, 1, 0)

    reposted = await table.slash("challenge tracker", user=gm)
    assert reposted.message is not None and not reposted.ephemeral
    assert "Molly" in message_text(reposted.message)
    quiet = await table.slash("challenge assign", user=gm, task=2, character="Charles")
    assert silent(quiet), quiet.text  # the new tracker takes the edit
    assert "Athletics task to Charles" in message_text(table.message(int(reposted.message["id"])))

    ended = await table.slash("challenge end", user=gm)
    assert silent(ended), ended.text


async def test_a_quiet_end_on_a_deleted_tracker_says_so_without_a_command(table: Table) -> None:
    await make_characters(table)
    gm = table.gm
    started = await table.slash(
        "contest start", user=gm, side_a="Charles", side_b="Ghoul", intent_a="Flee"
    )
    assert started.message is not None
    table.fake.messages.pop(int(started.message["id"]))
    ended = await table.slash("contest end", user=gm)
    assert ended.ephemeral and "The contest is stopped." in ended.text, ended.text
    assert "could not update the tracker" in ended.text and "tracker`" not in ended.text
    gone = await table.slash("contest tracker", user=gm)
    assert gone.ephemeral and "/contest start" in gone.text, gone.text


async def test_a_turn_line_answer_still_says_when_the_tracker_could_not_be_updated(
    table: Table,
) -> None:
    """When the command passes the turn, the public whose-turn line is its answer; if the
    tracker's edit then fails, the GM still hears of it privately."""
    from tests.e2e.test_conflicts import ScriptedDice, use_dice

    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, bob = table.gm, table.player2
    started = await table.slash("challenge start", user=gm, tasks="Lore:Fair, Athletics:Fair")
    assert started.message is not None
    tracker_id = int(started.message["id"])
    await table.slash("challenge assign", user=gm, task=1, character="Molly")
    dice.load(0, 0, 0, 0)
    await table.click(table.message(tracker_id), "Roll a task", user=bob)
    await table.click(table.message(tracker_id), "Keep the roll", user=bob)
    table.fake.messages.pop(tracker_id)  # someone deleted the tracker
    assigned = await table.slash("challenge assign", user=gm, task=2, character="Charles")
    assert not assigned.ephemeral and assigned.content.startswith("**Charles** acts next.")
    [note] = assigned.followups
    assert note["flags"] & 64 and "could not update the tracker" in message_text(note)
    assert "`/challenge tracker`" in message_text(note)
