"""Conflicts, contests and challenges through the fake Discord: trackers, buttons, restarts.

Dice are scripted: the three services take their dice from the bot's `DiceSource`, which these
tests point at a generator that hands out the faces the seed's worked examples need.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from sqlmodel import select

from bot.db.models.campaigns import FatePointEntry
from bot.fate.sheet import AspectKind, NpcKind, new_character, new_minor_npc
from bot.services.campaigns import (
    CharacterRecord,
    get_character_in,
    insert_character_in,
    resolve_campaign_in,
    set_active_in,
)
from bot.testing.harness import Reply, Table, iter_components, message_text
from cogs.common.trackers import TrackerCog
from cogs.conflicts import Conflicts
from cogs.contests import Contests


class ScriptedDice(random.Random):
    """Fate dice in the order the test queues them; 0 once the queue is empty."""

    def __init__(self) -> None:
        super().__init__(0)
        self.queue: list[int] = []

    def choice(self, seq: Any) -> Any:
        return self.queue.pop(0) if self.queue else 0

    def load(self, *dice: int) -> None:
        self.queue.extend(dice)


def use_dice(table: Table, dice: ScriptedDice) -> None:
    assert table.bot is not None
    bot: Any = table.bot
    bot.dice.factory = lambda: dice


async def make_characters(table: Table) -> dict[str, CharacterRecord]:
    assert table.bot is not None
    db: Any = table.bot.db  # type: ignore[attr-defined]
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        charles = new_character("Charles", skills={"Athletics": 3, "Fight": 2, "Lore": 1})
        charles = charles.set_aspect(AspectKind.HIGH_CONCEPT, "Knight of the Sword")
        molly = new_character("Molly", skills={"Shoot": 3, "Athletics": 1, "Lore": 2})
        molly = molly.set_aspect(AspectKind.HIGH_CONCEPT, "Wizard's apprentice")
        ghoul = new_character(
            "Ghoul", skills={"Fight": 2, "Athletics": 1}, npc_kind=NpcKind.MAJOR
        ).set_aspect(AspectKind.HIGH_CONCEPT, "Hungry ghoul")
        ghoul2 = new_minor_npc("Ghoul Two", ["Ghoul pack"], {"Fight": 1}, stress_boxes=1)
        made = {
            "charles": await insert_character_in(s, campaign, table.player, charles),
            "molly": await insert_character_in(s, campaign, table.player2, molly),
            "ghoul": await insert_character_in(s, campaign, table.gm, ghoul),
            "ghoul2": await insert_character_in(s, campaign, table.gm, ghoul2),
        }
        await set_active_in(s, table.guild_id, table.player, made["charles"].id, None)
        await set_active_in(s, table.guild_id, table.player2, made["molly"].id, None)
    return made


async def sheet(table: Table, record: CharacterRecord) -> Any:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        return (await get_character_in(s, record.id)).sheet


def option_value(message: dict[str, Any], placeholder: str, label_start: str) -> str:
    for component in iter_components(message.get("components") or []):
        if component.get("placeholder") == placeholder:
            for option in component.get("options") or []:
                if option["label"].startswith(label_start):
                    return str(option["value"])
            labels = [o["label"] for o in component.get("options") or []]
            raise AssertionError(f"no option {label_start!r} in {placeholder!r}: {labels}")
    raise AssertionError(f"no select {placeholder!r}")


def option_labels(message: dict[str, Any], placeholder: str) -> list[str]:
    for component in iter_components(message.get("components") or []):
        if component.get("placeholder") == placeholder:
            return [o["label"] for o in component.get("options") or []]
    raise AssertionError(f"no select {placeholder!r}")


def step_message(reply: Reply) -> dict[str, Any]:
    message = reply.message or (reply.followups[-1] if reply.followups else None)
    assert message is not None, reply.text
    return message


async def choose(
    table: Table, reply: Reply, placeholder: str, label_start: str, *, user: int
) -> Reply:
    message = step_message(reply)
    value = option_value(message, placeholder, label_start)
    return await table.select(message, placeholder, [value], user=user)


def taken_at_once(reply: Reply) -> bool:
    """A tracker click that acted at once (its only choice): the tracker edited, nothing private."""
    return reply.callback_type == 7 and not reply.followups


def has_menu(reply: Reply, placeholder: str) -> bool:
    """Whether a reply asks with the select `placeholder` (a single choice is taken at once)."""
    message = reply.message or (reply.followups[-1] if reply.followups else None) or {}
    return any(
        c.get("placeholder") == placeholder
        for c in iter_components(message.get("components") or [])
    )


class ConflictDriver:
    def __init__(self, table: Table, tracker_id: int) -> None:
        self.table = table
        self.tracker_id = tracker_id
        self.offered: list[str] = []

    @property
    def tracker(self) -> dict[str, Any]:
        return self.table.message(self.tracker_id)

    @property
    def text(self) -> str:
        return message_text(self.tracker)

    async def attack(self, user: int, target: str, skill: str) -> Reply:
        opened = await self.table.click(self.tracker, "Attack", user=user)
        assert opened.ephemeral, opened.text
        if has_menu(opened, "Attack whom?"):
            picked = await choose(self.table, opened, "Attack whom?", target, user=user)
        else:  # the one possible target: straight to the skill
            assert f"Attack {target} with which skill?" in opened.text, opened.text
            picked = opened
        return await choose(self.table, picked, "Attack with", skill, user=user)

    async def defend(self, user: int, skill: str) -> Reply:
        opened = await self.table.click(self.tracker, "Defend", user=user)
        return await choose(self.table, opened, "Defend with", skill, user=user)

    async def resolve(self, user: int) -> Reply:
        return await self.table.click(self.tracker, "Resolve the attack", user=user)

    async def take_hit(self, user: int, option: str) -> Reply:
        opened = await self.table.click(self.tracker, "Take the hit", user=user)
        if not has_menu(opened, "How do you take it?"):  # the one way to take it, taken
            assert opened.callback_type == 7 and opened.message == self.tracker, opened.text
            return opened
        assert opened.ephemeral, opened.text
        return await choose(self.table, opened, "How do you take it?", option, user=user)

    async def invoke(self, user: int, option: str) -> Reply:
        opened = await self.table.click(self.tracker, "Invoke +2", user=user)
        if not has_menu(opened, "Pick an aspect"):  # the one aspect to invoke, invoked
            assert opened.callback_type == 7 and opened.message == self.tracker, opened.text
            self.offered = [option]
            return opened
        assert opened.ephemeral, opened.text
        self.offered = option_labels(step_message(opened), "Pick an aspect")
        return await choose(self.table, opened, "Pick an aspect", option, user=user)

    async def next(self, user: int, name: str) -> Reply:
        value = option_value(self.tracker, "Pick who acts next", name)
        return await self.table.select(self.tracker, "Pick who acts next", [value], user=user)


async def test_whole_conflict_with_seed_numbers_and_restart(table: Table) -> None:
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2

    refused = await table.slash(
        "conflict start",
        user=alice,
        kind="physical",
        participants="Charles, Ghoul",
        first="Ghoul",
    )
    assert refused.ephemeral and "Only the GM" in refused.text

    choices = await table.autocomplete(
        "conflict start", "participants", user=gm, participants="Charles, Gh"
    )
    assert {c["value"] for c in choices} == {"Charles, Ghoul", "Charles, Ghoul Two"}
    # the contest's sides suggest names the same way (the harness cannot focus "side_a")
    name_lists = [
        Conflicts.conflict_start._params["participants"],
        *(Contests.contest_start._params[side] for side in ("side_a", "side_b", "side_c")),
    ]
    assert {param.autocomplete for param in name_lists} == {TrackerCog._name_list_ac}

    started = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Molly, Ghoul, Ghoul Two",
        first="Ghoul",
        zones="Street, Alley, Roof",
    )
    assert not started.ephemeral, started.text
    assert started.message is not None
    tracker_id = int(started.message["id"])
    assert tracker_id in table.fake.pins[table.channel]
    run = ConflictDriver(table, tracker_id)
    first_view = json.loads(json.dumps(run.tracker))
    assert "exchange 1" in run.text and "Ghoul (NPC) in Street - acting now" in run.text
    assert {"Attack", "Overcome", "Create advantage", "Move", "Concede"} <= set(
        started.labels(run.tracker)
    )

    # Only the GM acts for the ghoul.
    wrong = await table.click(run.tracker, "Attack", user=alice)
    assert wrong.ephemeral and "Only the GM" in wrong.text

    # Seed example 1: the ghoul's Fair Fight [0][0][+][+] vs Charles's Good Athletics [0][0][0][-].
    dice.load(0, 0, 1, 1)
    attacked = await run.attack(gm, "Charles", "Fight")
    assert "attacks Charles" in attacked.text and "Great (+4)" in attacked.text
    assert "Charles must defend" in run.text
    dice.load(0, 0, 0, -1)
    defended = await run.defend(alice, "Athletics")
    assert "Fair (+2)" in defended.text and "Resolve the attack" in run.text
    resolved = await run.resolve(alice)
    assert "2-shift hit" in resolved.text
    taken = await run.take_hit(alice, "Physical stress box 1, 2")
    assert "2 stress boxes marked" in taken.text
    charles = await sheet(table, people["charles"])
    assert [b.marked for b in charles.track("physical").boxes] == [True, True, False]
    assert "[x][x][1]" in run.text

    # A double click on the old tracker buttons applies nothing.
    stale = await table.click(first_view, "Attack", user=gm)
    assert stale.ephemeral and "out of date" in stale.text

    # Elective order: the GM picks Molly for the ghoul.
    await run.next(gm, "Molly")
    assert "Molly (PC) in Street - acting now" in run.text

    # Molly attacks Ghoul Two, and invokes her aspect with a fate point after the defence.
    dice.load(0, 0, 0, 0)
    await run.attack(bob, "Ghoul Two", "Shoot")
    dice.load(0, 0, 0, 0)
    await run.defend(gm, "Fight")
    invoked = await run.invoke(bob, "Fate point: Wizard's apprentice")
    assert "The attack is now Superb (+5)" in invoked.text
    assert run.offered[0] == "Fate point: Wizard's apprentice"  # her own aspects come first
    assert not any("Hungry ghoul" in label for label in run.offered)  # NPC aspects stay secret
    resolved = await run.resolve(bob)
    assert "4-shift hit" in resolved.text
    assert (await sheet(table, people["molly"])).fate_points == 2
    out = await run.take_hit(gm, "Taken out")
    # a 4-shift hit on one stress box has one way to be taken: no menu of one, no private echo
    assert taken_at_once(out)
    assert "Taken out" in out.text
    assert "Ghoul Two (NPC) in Street - taken out" in run.text

    # Molly hands over to Charles, who only moves (a free move) and opens exchange 2 with the ghoul.
    await run.next(bob, "Charles")
    opened = await table.click(run.tracker, "Move", user=alice)
    moved = await choose(table, opened, "Move where?", "Alley", user=alice)
    assert "moves to Alley" in moved.text
    assert "Charles (PC) in Alley" in run.text
    await run.next(alice, "Ghoul")
    assert "exchange 2" in run.text

    # Seed example 2: a Fantastic (+6) blow against an Average (+1) defence is 5 shifts,
    # absorbed by a moderate consequence and his last box.
    dice.load(1, 1, 1, 1)
    attacked = await run.attack(gm, "Charles", "Fight")
    assert "Fantastic (+6)" in attacked.text
    dice.load(-1, -1, 0, 0)
    defended = await run.defend(alice, "Athletics")
    assert "Average (+1)" in defended.text
    resolved = await run.resolve(gm)
    assert "5-shift hit" in resolved.text
    opened = await table.click(run.tracker, "Take the hit", user=alice)
    modal = await choose(
        table, opened, "How do you take it?", "Physical stress box 3 + Moderate", user=alice
    )
    assert modal.modal is not None
    named = await table.submit(modal, {"c0": "Torn shoulder"}, user=alice)
    assert "Torn shoulder" in named.text
    charles = await sheet(table, people["charles"])
    assert charles.track("moderate").aspect == "Torn shoulder"
    assert all(b.marked for b in charles.track("physical").boxes)
    assert "free invokes: Ghoul" in run.text
    await run.next(gm, "Charles")

    # A restart in the middle: the pinned tracker's buttons carry on where they stopped.
    await table.restart()
    use_dice(table, dice)
    await run.next(alice, "Molly")
    assert "Molly (PC) in Street - acting now" in run.text

    # Molly concedes before any dice: paid 1 fate point when the conflict ends.
    conceded = await table.click(run.tracker, "Concede", user=bob)  # Molly is bob's only one
    assert taken_at_once(conceded)
    assert "concedes and will gain 1 fate point" in conceded.text
    assert "The GM picks who acts next" in run.text
    not_gm = await run.next(bob, "Ghoul")
    assert not_gm.ephemeral and "GM picks" in not_gm.text
    await run.next(gm, "Ghoul")
    assert "exchange 3" in run.text

    # Seed example 3: Legendary (+8) (a free invoke on his consequence) against Poor (-1),
    # with every box and the moderate slot used: Charles is taken out.
    dice.load(1, 1, 1, 1)
    await run.attack(gm, "Charles", "Fight")
    dice.load(-1, -1, -1, -1)
    defended = await run.defend(alice, "Athletics")
    assert "Poor (-1)" in defended.text
    invoked = await run.invoke(gm, "Free invoke: Torn shoulder")
    assert "The attack is now Legendary (+8)" in invoked.text
    assert "Fate point: Hungry ghoul" in run.offered  # the GM may invoke the ghoul's own aspect
    resolved = await run.resolve(alice)
    assert "9-shift hit" in resolved.text
    # nothing is left to absorb it: being taken out is the one way, taken without a menu of one
    out = await table.click(run.tracker, "Take the hit", user=alice)
    assert taken_at_once(out) and "Charles: Taken out" in run.text

    assert "over" in run.text and "The NPCs carry the day" in run.text
    assert not started.labels(run.tracker)
    assert (await sheet(table, people["molly"])).fate_points == 3
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        entries = (await s.exec(select(FatePointEntry))).all()
    reasons = [(e.who, e.delta, e.reason) for e in entries]
    assert ("Molly", -1, "invoke") in reasons and ("Molly", 1, "concession") in reasons
    # Nothing the conflict posted publicly pings anyone, except that each "acts next" line
    # pings the one player whose turn it is.
    for message in table.channel_messages():
        mentions = message.get("allowed_mentions") or {"parse": []}
        if mentions.get("users"):
            [user] = mentions["users"]
            assert message["content"].endswith(f"acts next. <@{user}>"), message["content"]
            assert mentions == {"parse": [], "users": [user]}
        else:
            assert mentions == {"parse": []}


async def test_overcome_advantage_and_gm_end_pays_concessions(table: Table) -> None:
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    started = await table.slash(
        "conflict start",
        user=gm,
        kind="mental",
        participants="Charles, Ghoul",
        first="Charles",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    opened = await table.click(run.tracker, "Create advantage", user=alice)
    opened = await choose(table, opened, "Which aspect?", "A new aspect", user=alice)
    assert opened.modal is not None
    dice.load(1, 1, 1, 1)
    made = await table.submit(
        opened, {"skill": "Lore", "difficulty": "Fair", "aspect": "Ghoul lore"}, user=alice
    )
    assert "Superb (+5) vs Fair (+2)" in made.text and "Resolve the roll" in run.text
    # the roll waits: another action, a pick of who goes next or a concession must wait too
    early = await table.slash("conflict next", user=alice, who="Ghoul")
    assert early.ephemeral and "Resolve the roll" in early.text
    opened = await table.click(run.tracker, "Invoke +2", user=table.gm)
    assert opened.ephemeral  # the GM may invoke for the acting PC too (it is shown privately)
    resolved = await table.click(run.tracker, "Resolve the roll", user=alice)
    assert "Ghoul lore is created with 2 free invokes" in resolved.text
    assert "Ghoul lore" in run.text
    again = await table.click(run.tracker, "Overcome", user=alice)
    dice.load(0, 0, 0, 0)
    refused = await table.submit(again, {"skill": "Lore", "difficulty": "2"}, user=alice)
    assert "already took your action" in refused.text

    wrong = await table.slash("conflict next", user=alice, who="Nobody")
    assert wrong.ephemeral and "not in this conflict" in wrong.text
    passed = await table.slash("conflict next", user=alice)
    # the public whose-turn line is the answer: no private copy of it
    assert not passed.ephemeral and passed.text == "**Ghoul** acts next." and not passed.followups
    assert "Ghoul (NPC) - acting now" in run.text
    opened = await table.click(run.tracker, "Concede", user=gm)
    await choose(table, opened, "Who concedes?", "Ghoul", user=gm)
    assert "over" in run.text and "The PCs carry the day" in run.text
    # the log says each thing once, naming the ghoul once, and where an NPC's point goes
    assert "Ghoul concedes and will gain 1 fate point." in run.text
    assert "Ghoul: Ghoul" not in run.text and "Fate points paid" not in run.text
    assert "Ghoul: +1 fate point for the GM, in the next scene with them (concession)." in (
        run.text
    )
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        entries = (await s.exec(select(FatePointEntry))).all()
    assert [(e.who, e.delta, e.reason) for e in entries] == [("GM", 1, "concession")]
    from bot.services.campaign_play import load_play_in

    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        _, play = await load_play_in(s, campaign.id)
    # the GM pool of the next scene with the ghoul gets it
    assert list(play.npc_carried.values()) == [1] and play.carried_gm_points == 0

    ended = await table.slash("conflict end", user=gm)
    assert ended.ephemeral and "No conflict is running" in ended.text


async def test_tracker_repost_and_gm_end(table: Table) -> None:
    await make_characters(table)
    gm, alice = table.gm, table.player
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Charles"
    )
    assert started.message is not None
    first_id = int(started.message["id"])
    again = await table.slash("conflict tracker", user=alice)
    assert again.message is not None and not again.ephemeral
    second_id = int(again.message["id"])
    assert table.fake.pins[table.channel] == [second_id] and first_id != second_id
    old_copy = table.message(first_id)
    assert not old_copy.get("components") and "This tracker moved" in old_copy["content"]
    await table.slash("conflict next", user=alice, who="Ghoul")
    assert "Ghoul (NPC) - acting now" in message_text(table.message(second_id))
    refused = await table.slash("conflict end", user=alice)
    assert refused.ephemeral and "Only the GM" in refused.text
    ended = await table.slash("conflict end", user=gm)
    assert not ended.ephemeral and "The GM ends the conflict" in ended.text
    assert "over" in message_text(table.message(second_id))
    again = await table.slash(
        "conflict start", user=gm, kind="mental", participants="Charles, Ghoul", first="Ghoul"
    )
    assert not again.ephemeral, again.text


async def test_contest_to_three_victories_with_twist_and_restart(table: Table) -> None:
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    started = await table.slash(
        "contest start",
        user=gm,
        side_a="Charles, Molly",
        side_b="Ghoul",
        intent_a="Reach the car",
        intent_b="Catch them",
    )
    assert started.message is not None and not started.ephemeral, started.text
    tracker_id = int(started.message["id"])
    assert tracker_id in table.fake.pins[table.channel]

    def tracker() -> dict[str, Any]:
        return table.message(tracker_id)

    async def side_roll(user: int, skill: str, *faces: int) -> Reply:
        dice.load(*faces)
        opened = await table.click(tracker(), "Roll for my side", user=user)
        return await choose(table, opened, "Roll which skill?", skill, user=user)

    async def resolve(user: int) -> Reply:
        return await table.click(tracker(), "Resolve the exchange", user=user)

    # Exchange 1: Molly helps, Charles rolls Athletics +3 +1 teamwork; the ghoul rolls +1.
    helped = await table.click(tracker(), "Teamwork +1", user=bob)
    assert "helps" in helped.text
    rolled = await side_roll(alice, "Athletics", 0, 0, 0, 0)
    assert "teamwork +1" in rolled.text
    await side_roll(gm, "Athletics", 0, 0, 0, 0)
    assert "Resolve the exchange" in started.labels(tracker())
    done = await resolve(alice)
    assert "Exchange 1: Charles & Molly marks 2 victory(ies)" in done.text

    # Exchange 2: a tie, so the GM adds a twist (after a restart).
    await side_roll(alice, "Athletics", 0, 0, 0, -1)
    await side_roll(gm, "Athletics", 0, 0, 0, 1)
    tie = await resolve(gm)
    assert "tie" in tie.text
    assert "Add a twist (GM)" in started.labels(tracker())
    not_gm = await table.click(tracker(), "Add a twist (GM)", user=alice)
    assert not_gm.ephemeral and "Only the GM" in not_gm.text

    await table.restart()
    use_dice(table, dice)
    modal = await table.click(tracker(), "Add a twist (GM)", user=gm)
    twisted = await table.submit(modal, {"aspect": "Bridge collapsing"}, user=gm)
    assert "twist: Bridge collapsing" in twisted.text
    assert "Bridge collapsing" in message_text(tracker())

    # Exchange 3: the ghoul fails to create an advantage and gives the PCs a free invoke on it;
    # Charles uses it to beat the ghoul's roll and wins the contest (3 victories).
    opened = await table.click(tracker(), "Create advantage", user=gm)
    form = await choose(table, opened, "Who acts?", "Ghoul", user=gm)
    assert form.modal is not None
    dice.load(-1, -1, 0, 0)
    failed = await table.submit(
        form, {"skill": "Athletics", "difficulty": "Fair", "aspect": "Rotten planks"}, user=gm
    )
    assert "failed" in failed.text
    early = await table.click(tracker(), "Give them a free invoke", user=alice)
    assert early.ephemeral and "None of your sides" in early.text
    await table.click(tracker(), "Give them a free invoke", user=gm)
    assert "Rotten planks* - free invokes: Charles & Molly" in message_text(tracker())
    await side_roll(alice, "Athletics", -1, -1, 0, 0)
    await side_roll(gm, "Athletics", 1, 0, 0, 0)
    invoked = await table.click(tracker(), "Invoke +2", user=alice)
    plus = await choose(table, invoked, "Pick an aspect", "Free invoke: Rotten planks", user=alice)
    assert "Good (+3)" in plus.text
    won = await resolve(gm)
    assert "Charles & Molly wins the contest" in won.text
    assert "wins." in message_text(tracker()) and not started.labels(tracker())


async def test_challenge_of_three_tasks_with_restart(table: Table) -> None:
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    bad = await table.slash("challenge start", user=gm, tasks="Lore, Athletics:2")
    assert bad.ephemeral and "skill:difficulty" in bad.text
    started = await table.slash(
        "challenge start",
        user=gm,
        tasks="Lore:3:read the runes, Athletics:Fair, Shoot:Good",
        title="Escape the library",
    )
    assert started.message is not None and not started.ephemeral, started.text
    tracker_id = int(started.message["id"])

    def tracker() -> dict[str, Any]:
        return table.message(tracker_id)

    opened = await table.click(tracker(), "Claim a task", user=alice)
    claimed = await choose(table, opened, "Which task?", "2. Athletics", user=alice)
    assert "Charles takes the Athletics task" in claimed.text
    assigned = await table.slash("challenge assign", user=gm, task=3, character="Molly")
    assert assigned.message is None and "task to Molly" in message_text(tracker())  # no echo
    # one task is left to claim, and Charles has one task to roll: no menus of one
    claimed = await table.click(tracker(), "Claim a task", user=bob)
    assert taken_at_once(claimed)
    assert "Molly takes the Lore task." in message_text(tracker())

    dice.load(0, 0, 0, 0)
    rolled = await table.click(tracker(), "Roll a task", user=alice)
    assert taken_at_once(rolled)
    assert "Good (+3) vs Fair (+2)" in rolled.text and "Keep the roll" in rolled.labels()
    assert "rolled Good (+3), invoke or keep it" in message_text(tracker())

    # The roll waits for invokes across a restart; only its owner (or the GM) keeps it.
    await table.restart()
    use_dice(table, dice)
    nothing = await table.click(tracker(), "Roll a task", user=alice)
    assert nothing.ephemeral and "no task to roll" in nothing.text
    not_yours = await table.click(tracker(), "Keep the roll", user=bob)
    assert not_yours.ephemeral and "no task roll waiting" in not_yours.text
    kept = await table.click(tracker(), "Keep the roll", user=alice)
    assert "success" in kept.text
    dice.load(1, 0, 0, 0)
    opened = await table.click(tracker(), "Roll a task", user=bob)
    await choose(table, opened, "Which task?", "1. Lore", user=bob)
    await table.click(tracker(), "Keep the roll", user=bob)
    dice.load(-1, -1, 0, 0)
    last = await table.click(tracker(), "Roll a task", user=bob)  # Shoot is all that is left
    assert taken_at_once(last) and "Shoot" in message_text(tracker())
    # Molly invokes her high concept (a fate point): Average (+1) becomes Good (+3), a tie.
    opened = await table.click(tracker(), "Invoke +2", user=bob)
    invoked = await choose(
        table, opened, "Pick an aspect", "Fate point: Wizard's apprentice", user=bob
    )
    assert "the Shoot roll is now Good (+3) vs Good (+3)" in invoked.text
    assert (await sheet(table, people["molly"])).fate_points == 2
    kept = await table.click(tracker(), "Keep the roll", user=bob)
    assert "tie" in kept.text
    cost = await table.slash("challenge cost", user=gm, task=1, cost="The runes wake the guardian")
    assert cost.deferred and cost.message is None and not cost.followups  # the tracker says it
    text = message_text(tracker())
    assert "1 success" in text and "2 ties" in text and "0 failures" in text
    assert "complete" in text and "The runes wake the guardian" in text
    assert not started.labels(tracker())
    assert people["molly"].name == "Molly"


async def test_burst_of_turns_leaves_the_newest_state_on_the_tracker(table: Table) -> None:
    await make_characters(table)
    gm = table.gm
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Ghoul"
    )
    assert started.message is not None
    tracker_id = int(started.message["id"])
    records = [await table.fire("conflict next", user=gm) for _ in range(8)]
    await asyncio.gather(*(asyncio.wait_for(r.completed.wait(), 10) for r in records))
    await table.settle()
    assert table.bot is not None
    bot: Any = table.bot
    cog: Any = bot.get_cog("Conflicts")
    newest = await cog.conflicts.in_channel(table.channel)
    assert newest.version > 1
    shown = message_text(table.message(tracker_id))
    assert f"v{newest.version}" in shown
    edits = [
        r
        for r in table.fake.requests
        if r.method == "PATCH" and r.path.endswith(f"/messages/{tracker_id}")
    ]
    assert 1 <= len(edits) <= newest.version - 1


async def make_team(table: Table) -> dict[str, CharacterRecord]:
    """Charles with a +2 Fight attack stunt, Molly who can help with Fight, and a ghoul."""
    from bot.fate.stunts import write_bonus_stunt

    assert table.bot is not None
    db: Any = table.bot.db  # type: ignore[attr-defined]
    async with db.session() as s:
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        charles = new_character("Charles", skills={"Fight": 3, "Athletics": 2, "Lore": 1})
        charles = charles.set_aspect(AspectKind.HIGH_CONCEPT, "Knight of the Sword")
        charles = charles.add_stunt(
            write_bonus_stunt(
                "Sword training", "trained with Amoracchius", "Fight", "attack", "I wield a blade"
            )
        )
        molly = new_character("Molly", skills={"Fight": 1, "Lore": 2})
        ghoul = new_character(
            "Ghoul", skills={"Fight": 2, "Athletics": 1}, npc_kind=NpcKind.MAJOR
        ).set_aspect(AspectKind.HIGH_CONCEPT, "Hungry ghoul")
        made = {
            "charles": await insert_character_in(s, campaign, table.player, charles),
            "molly": await insert_character_in(s, campaign, table.player2, molly),
            "ghoul": await insert_character_in(s, campaign, table.gm, ghoul),
        }
        await set_active_in(s, table.guild_id, table.player, made["charles"].id, None)
        await set_active_in(s, table.guild_id, table.player2, made["molly"].id, None)
    return made


async def test_teamwork_scale_stunts_pending_rolls_and_existing_advantage(table: Table) -> None:
    await make_team(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    started = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Molly, Ghoul",
        first="Charles",
        zones="Street, Alley",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))

    refused = await table.slash("conflict scale", user=alice, side="npcs", level=1)
    assert refused.ephemeral and "Only the GM" in refused.text
    scaled = await table.slash("conflict scale", user=gm, side="npcs", level=1)
    assert scaled.deferred and scaled.message is None and not scaled.followups  # no echo
    assert "NPCs: Supernatural" in run.text

    # Exchange 1: Charles creates an advantage on the scene (a new aspect, not on the ghoul).
    opened = await table.click(run.tracker, "Create advantage", user=alice)
    labels = option_labels(step_message(opened), "Which aspect?")
    assert labels == ["A new aspect", "A new aspect on Ghoul"]
    opened = await choose(table, opened, "Which aspect?", "A new aspect", user=alice)
    assert opened.modal is not None
    dice.load(0, 0, 0, 0)
    rolled = await table.submit(
        opened, {"skill": "Fight", "difficulty": "Fair", "aspect": "Cornered"}, user=alice
    )
    # The NPCs' higher scale raises what Charles must beat by one.
    assert "Good (+3) vs Good (+3)" in rolled.text and "Resolve the roll" in run.text
    # His attack stunt does not fit an advantage.
    no_stunt = await table.click(run.tracker, "Stunt", user=alice)
    assert no_stunt.ephemeral and "No stunt of yours fits" in no_stunt.text
    # Molly helps (Fight +1): +1, and it costs her action this exchange.
    helped = await table.click(run.tracker, "Teamwork +1", user=bob)
    assert "Molly helps Charles with Fight: +1" in helped.text and "Great (+4)" in helped.text
    again = await table.click(run.tracker, "Teamwork +1", user=bob)
    assert again.ephemeral and "None of your characters can help" in again.text
    invoked = await run.invoke(alice, "Fate point: Knight of the Sword")
    assert "the roll is now Fantastic (+6)" in invoked.text
    done = await table.click(run.tracker, "Resolve the roll", user=alice)
    assert "Cornered is created with 2 free invokes" in done.text
    assert "Molly (PC) in Street - acted" in run.text
    assert option_labels(run.tracker, "Pick who acts next") == ["Ghoul"]
    await run.next(alice, "Ghoul")

    # The ghoul creates an advantage on the existing aspect and fails: Charles gains an invoke.
    opened = await table.click(run.tracker, "Create advantage", user=gm)
    form = await choose(table, opened, "Which aspect?", "Existing: Cornered", user=gm)
    assert form.modal is not None
    dice.load(-1, -1, 0, 0)  # Fight 2 - 2 + 1 scale = Average (+1) vs Fair (+2)
    rolled = await table.submit(form, {"skill": "Fight", "difficulty": "Fair"}, user=gm)
    assert "+1 scale = Average (+1) vs Fair (+2)" in rolled.text
    done = await table.click(run.tracker, "Resolve the roll", user=gm)
    assert "Cornered gains 1 free invoke for Charles" in done.text
    assert "free invokes: Charles, Charles, Charles" in run.text
    await run.next(gm, "Charles")
    assert "exchange 2" in run.text

    # Exchange 2: Charles attacks with his stunt and Molly's help; the ghoul's scale helps it defend.
    dice.load(0, 0, 0, 0)
    await run.attack(alice, "Ghoul", "Fight")
    stunted = await table.click(run.tracker, "Stunt", user=alice)  # his one stunt that fits
    assert taken_at_once(stunted) and "Sword training" in run.text
    assert "the attack roll is now Superb (+5)" in stunted.text
    helped = await table.click(run.tracker, "Teamwork +1", user=bob)
    assert "Fantastic (+6)" in helped.text
    dice.load(0, 0, 0, 0)
    defended = await run.defend(gm, "Fight")
    assert "+1 scale = Good (+3)" in defended.text
    resolved = await run.resolve(alice)
    assert "3-shift hit" in resolved.text
    await run.take_hit(gm, "Physical stress box 1, 2, 3")
    await run.next(alice, "Ghoul")

    # The ghoul's move to a touching zone is impeded: an overcome that waits for Resolve,
    # even across a restart.
    opened = await table.click(run.tracker, "Move", user=gm)
    labels = option_labels(step_message(opened), "Move where?")
    assert labels == ["Alley", "Alley - impeded"]
    form = await choose(table, opened, "Move where?", "Alley - impeded", user=gm)
    assert form.modal is not None
    dice.load(1, 0, 0, 0)
    rolled = await table.submit(form, {"skill": "Athletics", "difficulty": "Fair"}, user=gm)
    assert "Good (+3) vs Fair (+2)" in rolled.text
    await table.restart()
    use_dice(table, dice)
    done = await table.click(run.tracker, "Resolve the roll", user=gm)
    assert "Ghoul moves to Alley" in done.text
    assert "Ghoul (NPC) in Alley" in run.text
    # Moving took the action: no attack now.
    late = await table.click(run.tracker, "Attack", user=gm)
    assert late.ephemeral
    target = await choose(table, late, "Attack whom?", "Charles", user=gm)
    refused = await choose(table, target, "Attack with", "Fight", user=gm)
    assert "already took your action" in refused.text


async def test_scale_can_be_kept_to_rolls_between_the_sides(table: Table) -> None:
    """The seed gives scale "on any rolled action against their lesser" without saying whether
    a set difficulty stands for the higher side: `/conflict scale difficulties:False` keeps it
    to the rolls between the sides (an attack's defence still gets it)."""
    await make_team(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    started = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Ghoul",
        first="Charles",
        zones="Street, Alley",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    await table.slash("conflict scale", user=gm, side="npcs", level=1, difficulties=False)
    assert "Scale counts only between the sides, not against set difficulties" in run.text
    assert "NPCs: Supernatural (not against set difficulties)" in run.text

    # Charles (Athletics Fair +2) overcomes a Fair obstacle: nothing raises it.
    form = await table.click(run.tracker, "Overcome", user=alice)
    dice.load(0, 0, 0, 0)
    rolled = await table.submit(form, {"skill": "Athletics", "difficulty": "Fair"}, user=alice)
    assert "overcome: Fair (+2) vs Fair (+2)" in rolled.text and "+1 scale" not in rolled.text
    await table.click(run.tracker, "Resolve the roll", user=alice)
    await run.next(alice, "Ghoul")
    # The ghoul (Fight Fair +2) against a set difficulty: no +1 for its scale either.
    form = await table.click(run.tracker, "Overcome", user=gm)
    dice.load(0, 0, 0, 0)
    rolled = await table.submit(form, {"skill": "Fight", "difficulty": "Fair"}, user=gm)
    assert "overcome: Fair (+2) vs Fair (+2)" in rolled.text and "+1 scale" not in rolled.text
    await table.click(run.tracker, "Resolve the roll", user=gm)
    await run.next(gm, "Charles")
    # Between the sides it still counts: the ghoul's defence gets +1.
    dice.load(0, 0, 0, 0)
    await run.attack(alice, "Ghoul", "Fight")
    dice.load(0, 0, 0, 0)
    defended = await run.defend(gm, "Fight")
    assert "+1 scale = Good (+3)" in defended.text
    # Back to the default: the NPCs' scale raises Charles's difficulty again.
    await run.resolve(alice)
    await table.slash("conflict scale", user=gm, side="npcs", level=1, difficulties=True)
    assert "Scale counts against set difficulties too" in run.text
    assert "(not against set difficulties)" not in run.text


async def test_contest_hits_go_through_the_absorb_choice(table: Table) -> None:
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    started = await table.slash(
        "contest start",
        user=gm,
        side_a="Charles",
        side_b="Ghoul",
        intent_b="Drag him down",
        harming="b",
        victories=3,
    )
    assert started.message is not None and not started.ephemeral, started.text
    tracker_id = int(started.message["id"])

    def tracker() -> dict[str, Any]:
        return table.message(tracker_id)

    async def side_roll(user: int, skill: str, *faces: int) -> Reply:
        dice.load(*faces)
        opened = await table.click(tracker(), "Roll for my side", user=user)
        return await choose(table, opened, "Roll which skill?", skill, user=user)

    # The ghoul (Fight 2 +2) beats Charles (Athletics 3 -3) by 4 (two victories, with style)
    # and, as the harming side, deals a 4-shift hit to absorb.
    await side_roll(alice, "Athletics", -1, -1, -1, 0)
    await side_roll(gm, "Fight", 1, 1, 0, 0)
    done = await table.click(tracker(), "Resolve the exchange", user=gm)
    assert "Charles takes a 4-shift hit from Ghoul" in done.text
    assert started.labels(tracker()) == ["Take the hit"]
    assert "Hits to take" in message_text(tracker())
    blocked = await table.click(tracker(), "Take the hit", user=table.player2)
    assert blocked.ephemeral and "their players or the GM" in blocked.text

    # The next exchange waits for the hit (a restart in between changes nothing).
    await table.restart()
    use_dice(table, dice)
    opened = await table.click(tracker(), "Take the hit", user=alice)
    assert opened.ephemeral and "Charles absorbs a 4-shift hit" in opened.text
    form = await choose(table, opened, "How do you take it?", "Moderate", user=alice)
    assert form.modal is not None
    taken = await table.submit(form, {"c0": "Twisted ankle"}, user=alice)
    assert "Twisted ankle" in taken.text
    charles = await sheet(table, people["charles"])
    assert charles.track("moderate").aspect == "Twisted ankle"
    assert "Twisted ankle* - free invokes: Ghoul" in message_text(tracker())
    assert "Roll for my side" in started.labels(tracker())

    # A winning exchange that also hits keeps the tracker open until the hit is taken.
    await side_roll(alice, "Athletics", -1, -1, -1, -1)
    await side_roll(gm, "Fight", 1, 1, 1, 0)
    won = await table.click(tracker(), "Resolve the exchange", user=gm)
    assert "Ghoul wins the contest" in won.text and "6-shift hit" in won.text
    assert started.labels(tracker()) == ["Take the hit"]
    opened = await table.click(tracker(), "Take the hit", user=gm)
    out = await choose(table, opened, "How do you take it?", "Taken out", user=gm)
    assert "decides how Charles is taken out" in out.text
    assert not started.labels(tracker()) and "Taken out" in message_text(tracker())


async def test_npc_secret_aspects_stay_out_of_the_public_log(table: Table) -> None:
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm = table.gm
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Ghoul"
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    opened = await table.click(run.tracker, "Overcome", user=gm)
    dice.load(0, 0, 0, 0)
    rolled = await table.submit(opened, {"skill": "Fight", "difficulty": "Good"}, user=gm)
    assert "Fair (+2) vs Good (+3)" in rolled.text
    invoked = await run.invoke(gm, "Fate point: Hungry ghoul")
    assert "invokes a hidden aspect for +2" in invoked.text
    done = await table.click(run.tracker, "Resolve the roll", user=gm)
    assert "Overcome: success" in done.text
    for message in table.channel_messages():
        assert "Hungry ghoul" not in message_text(message)


async def test_advantages_on_scene_aspects_hidden_ones_and_one_that_leaves_play(
    table: Table,
) -> None:
    from bot.services import aspects_in_play

    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    scene = await table.slash("scene start", user=gm, aspects="Thick smoke")
    assert not scene.ephemeral, scene.text
    hidden = await table.slash("aspect add", user=gm, text="Secret tunnel", hidden=True)
    assert hidden.ephemeral, hidden.text
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Charles"
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))

    # Charles sees the scene's visible aspect, not the hidden one.
    opened = await table.click(run.tracker, "Create advantage", user=alice)
    labels = option_labels(step_message(opened), "Which aspect?")
    assert labels == ["A new aspect", "A new aspect on Ghoul", "Existing: Thick smoke"]
    form = await choose(table, opened, "Which aspect?", "Existing: Thick smoke", user=alice)
    dice.load(0, 0, 0, 0)  # Athletics 3 vs Fair (+2): a success, one more free invoke
    await table.submit(form, {"skill": "Athletics", "difficulty": "Fair"}, user=alice)
    done = await table.click(run.tracker, "Resolve the roll", user=alice)
    assert "Thick smoke gains 1 free invoke for Charles" in done.text
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        found = await aspects_in_play.aspects_in_play_in(
            s, campaign, table.channel, include_hidden=True
        )
    smoke = next(a for a in found if a.name == "Thick smoke")
    assert smoke.free_invokes == {f"char:{people['charles'].id}": 1}
    await run.next(alice, "Ghoul")

    # The GM's ghoul may work the hidden aspect; the public log does not name it.
    opened = await table.click(run.tracker, "Create advantage", user=gm)
    form = await choose(table, opened, "Which aspect?", "Existing: Secret tunnel", user=gm)
    dice.load(0, 0, 0, 0)  # Fight 2 vs Fair (+2): a tie, one free invoke for the GM side
    await table.submit(form, {"skill": "Fight", "difficulty": "Fair"}, user=gm)
    done = await table.click(run.tracker, "Resolve the roll", user=gm)
    assert "A hidden aspect gains 1 free invoke for the GM" in done.text
    for message in table.channel_messages():
        assert "Secret tunnel" not in message_text(message)
    await run.next(gm, "Charles")

    # An aspect removed while the roll waits: the action is spent, nothing is stuck.
    opened = await table.click(run.tracker, "Create advantage", user=alice)
    form = await choose(table, opened, "Which aspect?", "Existing: Thick smoke", user=alice)
    await table.submit(form, {"skill": "Athletics", "difficulty": "Fair"}, user=alice)
    removed = await table.slash("aspect remove", user=gm, aspect="Thick smoke")
    assert "gone" in removed.text
    done = await table.click(run.tracker, "Resolve the roll", user=alice)
    assert "left play" in done.text
    assert "Pick who acts next" in json.dumps(run.tracker)


async def test_a_new_aspect_named_as_a_hidden_one_discovers_it(table: Table) -> None:
    """Create an advantage "creates (or discovers)" an aspect: Charles names, as a new aspect,
    the words of the scene's hidden one; made, it is revealed with his free invoke and no copy
    is made beside it (as /advantage does). A tie makes its own boost and reveals nothing."""
    from bot.services import aspects_in_play

    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    await table.slash("scene start", user=gm, aspects="Thick smoke")
    await table.slash("aspect add", user=gm, text="Secret tunnel", hidden=True)
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Charles"
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))

    async def advantage(aspect: str, *dice_faces: int) -> str:
        opened = await table.click(run.tracker, "Create advantage", user=alice)
        form = await choose(table, opened, "Which aspect?", "A new aspect", user=alice)
        dice.load(*dice_faces)
        await table.submit(
            form, {"skill": "Athletics", "difficulty": "Fair", "aspect": aspect}, user=alice
        )
        return (await table.click(run.tracker, "Resolve the roll", user=alice)).text

    tied = await advantage("secret tunnel", -1, 0, 0, 0)  # Athletics 3 - 1 vs Fair: a tie
    assert "A tie: secret tunnel is a boost." in tied, tied
    for message in table.channel_messages():
        assert "Secret tunnel" not in message_text(message)
    await run.next(alice, "Ghoul")
    await run.next(gm, "Charles")
    done = await advantage("secret   TUNNEL", 0, 0, 0, 0)  # Athletics 3 vs Fair: a success
    assert (
        "Charles: Secret tunnel was already there, hidden: it is revealed with 1 free invoke."
        in done
    ), done
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        found = await aspects_in_play.aspects_in_play_in(
            s, campaign, table.channel, include_hidden=True
        )
    tunnels = [a for a in found if a.name.casefold() == "secret tunnel" and not a.is_boost]
    assert len(tunnels) == 1 and not tunnels[0].hidden, tunnels
    assert tunnels[0].free_invokes == {f"char:{people['charles'].id}": 1}
    assert "Existing: Secret tunnel" in option_labels(
        step_message(await table.click(run.tracker, "Create advantage", user=gm)), "Which aspect?"
    )


async def test_a_boost_passes_to_an_ally_on_the_same_side(table: Table) -> None:
    """The rules: whoever controls a boost may pass it to an ally (CONTRIBUTING.md's recipe)."""
    made = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    started = await table.slash(
        "conflict start",
        user=gm,
        kind="mental",
        participants="Charles, Molly, Ghoul",
        first="Charles",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    assert "Pass a boost" not in [
        c.get("label") for c in iter_components(run.tracker["components"])
    ]
    # Charles: Lore +1, dice 0 0 0 +1 = Fair (+2) against Fair (+2): a tie, so only a boost
    opened = await table.click(run.tracker, "Create advantage", user=alice)
    opened = await choose(table, opened, "Which aspect?", "A new aspect", user=alice)
    dice.load(0, 0, 0, 1)
    await table.submit(
        opened, {"skill": "Lore", "difficulty": "Fair", "aspect": "Ghoul lore"}, user=alice
    )
    resolved = await table.click(run.tracker, "Resolve the roll", user=alice)
    assert "A tie: Ghoul lore is a boost." in resolved.text
    labels = [c.get("label") for c in iter_components(run.tracker["components"])]
    assert "Pass a boost" in labels

    refused = await table.click(run.tracker, "Pass a boost", user=bob)  # Molly holds none
    assert refused.ephemeral and "holds a boost" in refused.text
    # only allies on Charles's side could take it, never the Ghoul: Molly is the one choice,
    # so the boost passes at once
    passed = await table.click(run.tracker, "Pass a boost", user=alice)
    assert taken_at_once(passed)
    assert "Charles passes the boost Ghoul lore to Molly." in passed.text
    assert "Charles passes the boost Ghoul lore to Molly." in run.text
    assert table.bot is not None
    bot: Any = table.bot
    snap = await bot.get_cog("Conflicts").conflicts.in_channel(table.channel)
    boost = next(a for a in snap.state.aspects if a.text == "Ghoul lore")
    assert boost.free_invokes == [str(made["molly"].id)]
    again = await table.click(run.tracker, "Pass a boost", user=alice)  # Charles has none now
    assert again.ephemeral and "holds a boost" in again.text


async def test_one_line_names_who_acts_next_and_pings_only_that_player(table: Table) -> None:
    await make_characters(table)
    started = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Charles, Molly, Ghoul",
        first="Charles",
    )
    assert "Charles" in started.text
    await table.settle()

    def turn_lines() -> list[dict[str, Any]]:
        return [m for m in table.channel_messages() if "acts next." in (m.get("content") or "")]

    [first] = turn_lines()
    assert first["content"] == f"**Charles** acts next. <@{table.player}>"
    assert first["allowed_mentions"] == {"parse": [], "users": [table.player]}
    await table.slash("conflict next", user=table.player, who="Ghoul")
    await table.settle()
    ghoul = turn_lines()[-1]
    assert ghoul["content"] == "**Ghoul** acts next." and ghoul["allowed_mentions"] == {"parse": []}
    # the tracker re-drawn with no turn change posts no second line
    await table.slash("conflict tracker", user=table.gm)
    await table.settle()
    assert len(turn_lines()) == 2
    # the GM turns the ping off: the next line names Molly without pinging her
    quiet = await table.slash("campaign settings", user=table.gm, turn_ping=False)
    assert "names them without a ping" in quiet.text
    refused = await table.slash("campaign settings", user=table.player, turn_ping=True)
    assert refused.ephemeral and "Only the GM" in refused.text
    await table.slash("conflict next", user=table.gm, who="Molly")
    await table.settle()
    molly = turn_lines()[-1]
    assert molly["content"] == "**Molly** acts next." and molly["allowed_mentions"] == {"parse": []}


async def test_name_lists_complete_for_scenes_too_and_hide_npcs_from_players(table: Table) -> None:
    await make_characters(table)
    for_gm = await table.autocomplete(
        "scene start", "characters", user=table.gm, characters="Charles, Gh"
    )
    assert {c["value"] for c in for_gm} == {"Charles, Ghoul", "Charles, Ghoul Two"}
    assert any(c["name"].endswith("(NPC)") for c in for_gm)
    for_player = await table.autocomplete(
        "conflict start", "participants", user=table.player, participants=""
    )
    assert {c["value"] for c in for_player} == {"Charles", "Molly"}  # no NPC named to a player
    started = await table.slash(
        "scene start", user=table.gm, zones="Street", characters=for_gm[0]["value"]
    )
    assert not started.ephemeral and "Not in a zone\nCharles\nGhoul" in started.text  # the board


async def test_the_target_undoes_the_last_absorb_and_takes_the_hit_again(table: Table) -> None:
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    started = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Molly, Ghoul",
        first="Ghoul",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    dice.load(0, 0, 1, 1)
    await run.attack(gm, "Charles", "Fight")
    dice.load(0, 0, 0, -1)
    await run.defend(alice, "Athletics")
    await run.resolve(alice)
    await run.take_hit(alice, "Physical stress box 1, 2")
    assert [b.marked for b in (await sheet(table, people["charles"])).track("physical").boxes] == [
        True,
        True,
        False,
    ]
    assert "Undo the absorb" in started.labels(run.tracker)
    before = json.loads(json.dumps(run.tracker))

    other = await table.click(run.tracker, "Undo the absorb", user=bob)
    assert other.ephemeral and "Only Charles's player or the GM" in other.text
    undone = await table.click(run.tracker, "Undo the absorb", user=alice)
    assert "absorb is undone: the hit of 2 shifts waits" in undone.text + run.text
    charles = await sheet(table, people["charles"])
    assert not any(b.marked for b in charles.track("physical").boxes)
    assert started.labels(run.tracker)[0] == "Take the hit"
    assert "Undo the absorb" not in started.labels(run.tracker)
    again = await table.click(before, "Undo the absorb", user=alice)  # a double click
    assert again.ephemeral and "out of date" in again.text

    opened = await table.click(run.tracker, "Take the hit", user=alice)
    modal = await choose(table, opened, "How do you take it?", "Mild", user=alice)
    await table.submit(modal, {"c0": "Bruised ribs"}, user=alice)
    assert (await sheet(table, people["charles"])).track("mild").aspect == "Bruised ribs"
    await run.next(gm, "Molly")  # someone acts: the absorb can no longer be undone
    assert "Undo the absorb" not in started.labels(run.tracker)


async def test_a_roll_during_a_conflict_says_how_to_act_through_the_tracker(table: Table) -> None:
    await make_characters(table)
    before = await table.slash("roll", user=table.player, skill="Fight")
    assert not before.followups  # no conflict yet: no hint
    started = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Charles, Ghoul",
        first="Ghoul",
    )
    assert not started.ephemeral, started.text
    rolled = await table.slash("roll", user=table.player, skill="Fight")
    assert not rolled.ephemeral and "Charles rolls Fight" in rolled.text
    [hint] = rolled.followups
    assert hint.get("flags", 0) & 64 and "Act through the conflict's tracker" in hint["content"]
    assert "/conflict tracker" in hint["content"]


async def absorbed_hit(table: Table) -> tuple[dict[str, CharacterRecord], ConflictDriver]:
    """Charles takes a 2-shift hit on boxes 1 and 2, with Undo the absorb on the tracker."""
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    started = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Charles, Molly, Ghoul",
        first="Ghoul",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    dice.load(0, 0, 1, 1)
    await run.attack(table.gm, "Charles", "Fight")
    dice.load(0, 0, 0, -1)
    await run.defend(table.player, "Athletics")
    await run.resolve(table.player)
    await run.take_hit(table.player, "Physical stress box 1, 2")
    assert "Undo the absorb" in started.labels(run.tracker)
    return people, run


async def test_undoing_an_absorb_never_overwrites_a_sheet_edit_made_since(table: Table) -> None:
    people, run = await absorbed_hit(table)
    edited = await table.slash(
        "character edit box", user=table.gm, character="Charles", track="physical", box=3
    )
    assert "[x][x][x]" in edited.text.replace(" ", ""), edited.text
    refused = await table.click(run.tracker, "Undo the absorb", user=table.player)
    assert refused.ephemeral and "changed since the absorb" in refused.text
    assert "`/character edit box`" in refused.text  # what to do instead
    boxes = (await sheet(table, people["charles"])).track("physical").boxes
    assert [b.marked for b in boxes] == [True, True, True]  # the edit is kept
    assert "absorb is undone" not in run.text


async def test_undoing_an_absorb_keeps_other_changes_to_the_sheet(table: Table) -> None:
    people, run = await absorbed_hit(table)
    given = await table.slash("fp give", user=table.gm, character="Charles", amount=2)
    assert not given.ephemeral, given.text
    undone = await table.click(run.tracker, "Undo the absorb", user=table.player)
    assert "absorb is undone" in run.text, undone.text
    charles = await sheet(table, people["charles"])
    assert not any(b.marked for b in charles.track("physical").boxes)
    assert charles.fate_points == people["charles"].sheet.fate_points + 2  # the gift stays


async def test_zones_are_one_truth_for_the_scene_and_its_conflict(table: Table) -> None:
    """Placed on the scene, a character starts the conflict there; moves in the conflict are
    moves on the scene, and its board shows where everyone ended once the conflict is over."""
    await make_characters(table)
    gm, alice = table.gm, table.player
    await table.slash(
        "scene start", user=gm, zones="Street, Alley, Roof", characters="Charles, Molly"
    )
    await table.slash("scene move", user=gm, character="Molly", zone="Roof")

    def zones_on_board() -> str:
        pinned = table.fake.pins.get(table.channel, [])
        board = next(m for m in map(table.message, pinned) if "Zones" in message_text(m))
        return message_text(board).split("Zones", 1)[1]

    started = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Molly, Ghoul",
        first="Charles",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    assert "Molly (PC) in Roof" in run.text  # where the scene put her
    assert "Charles (PC) in Street" in run.text  # not placed: the first zone ...
    await table.settle()
    assert "**Street**: Charles, Ghoul" in zones_on_board()  # ... on the scene as well
    assert "**Roof**: Molly" in zones_on_board()

    # the scene says nothing of which zones touch: a move takes the action, and one with
    # something in the way is an overcome (Athletics, Fair)
    use_dice(table, ScriptedDice())  # all blanks: Good (+3) against Fair (+2)
    moved = await table.click(run.tracker, "Move", user=alice)
    labels = option_labels(step_message(moved), "Move where?")
    assert labels == ["Alley", "Alley - impeded", "Roof", "Roof - impeded"], labels
    form = await choose(table, moved, "Move where?", "Alley - impeded", user=alice)
    await table.submit(form, {"skill": "Athletics", "difficulty": "Fair"}, user=alice)
    await table.click(run.tracker, "Resolve the roll", user=alice)
    assert "Charles (PC) in Alley" in run.text
    await table.settle()
    assert "**Alley**: Charles" in zones_on_board()

    await table.slash("conflict end", user=gm)
    await table.settle()
    after = zones_on_board()
    assert "**Alley**: Charles" in after and "**Roof**: Molly" in after

    # a conflict with its own row of zones (each touching the next) and the same names: Charles
    # starts where the scene has him, and his free move is on the scene too
    again = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Ghoul",
        first="Charles",
        zones="Street, Alley, Roof",
    )
    assert again.message is not None
    run = ConflictDriver(table, int(again.message["id"]))
    assert "Charles (PC) in Alley" in run.text
    moved = await table.click(run.tracker, "Move", user=alice)
    await choose(table, moved, "Move where?", "Roof", user=alice)
    assert "Charles (PC) in Roof" in run.text
    await table.settle()
    assert "**Roof**: Charles, Molly" in zones_on_board()


async def test_an_exchange_with_one_target_and_one_skill_asks_nothing(table: Table) -> None:
    """A campaign that uses one skill, two fighters: Attack goes straight to the roll (one
    target, one skill) and so does Defend; the clicks edit the tracker and nothing is private."""
    from tests.e2e.test_rolls import make_character

    gm, alice = table.gm, table.player
    done = await table.slash("campaign settings", user=gm, skills="Fight")
    assert "Settings saved" in done.text, done.text
    await make_character(table, alice, "Charles", {"Fight": 3})
    brute = await table.slash(
        "character npc",
        user=gm,
        kind="minor",
        name="Brute",
        aspects="Hired Muscle",
        skills="Fight +1",
        stress=2,
    )
    assert "Brute" in brute.text, brute.text
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Brute", first="Charles"
    )
    assert not started.ephemeral and started.message is not None, started.text
    run = ConflictDriver(table, int(started.message["id"]))
    use_dice(table, ScriptedDice())  # all blanks
    before = table.tally()
    attacked = await table.click(run.tracker, "Attack", user=alice)
    assert taken_at_once(attacked), attacked.text
    assert "Charles: Fight +3 [0][0][0][0] = Good (+3) - attacks Brute." in run.text
    defended = await table.click(run.tracker, "Defend", user=gm)
    assert taken_at_once(defended), defended.text
    assert "Brute: Fight +1 [0][0][0][0] = Average (+1)" in run.text
    assert (table.tally() - before).ephemeral == 0


async def test_trackers_invoke_for_a_reroll_too(table: Table) -> None:
    """Rules: "When you invoke an aspect, you can either gain a +2 bonus to your roll or
    reroll all four dice." Charles's overcome rolls [-][-][-][-] (Athletics 3: Poor -1); he
    pays a fate point on Knight of the Sword to reroll: [+][+][+][+], Epic (+7). In a
    challenge the same button rerolls a task roll."""
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    started = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Charles, Ghoul",
        first="Charles",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    form = await table.click(run.tracker, "Overcome", user=table.player)
    dice.load(-1, -1, -1, -1)
    await table.submit(form, {"skill": "Athletics", "difficulty": "Fair"}, user=table.player)
    opened = await table.click(run.tracker, "Invoke reroll", user=table.player)
    assert "reroll the dice of the roll in progress" in opened.text, opened.text
    dice.load(1, 1, 1, 1)
    done = await choose(
        table, opened, "Pick an aspect", "Fate point: Knight of the Sword", user=table.player
    )
    line = "Charles invokes Knight of the Sword to reroll: [-][-][-][-] -> [+][+][+][+]: "
    assert line + "the roll is now Epic (+7)." in done.text + run.text, run.text
    charles = await sheet(table, people["charles"])
    assert charles.fate_points == 2
    await table.click(run.tracker, "Resolve the roll", user=table.player)
    await table.slash("conflict end", user=table.gm)

    challenge = await table.slash(
        "challenge start", user=table.gm, tasks="Athletics:Fair", title="Over the wall"
    )
    assert challenge.message is not None, challenge.text
    tracker_id = int(challenge.message["id"])
    await table.click(table.message(tracker_id), "Claim a task", user=table.player)
    dice.load(-1, -1, -1, -1)
    rolled = await table.click(table.message(tracker_id), "Roll a task", user=table.player)
    assert "Invoke reroll" in [
        c.get("label") for c in iter_components(table.message(tracker_id)["components"])
    ], rolled.text
    opened = await table.click(table.message(tracker_id), "Invoke reroll", user=table.player)
    dice.load(1, 1, 0, 0)
    done = await choose(
        table, opened, "Pick an aspect", "Fate point: Knight of the Sword", user=table.player
    )
    assert "to reroll: [-][-][-][-] -> [+][+][0][0]" in done.text + message_text(
        table.message(tracker_id)
    ), done.text


async def conflict_state(table: Table) -> Any:
    """The running conflict's stored state (its aspects, what waits)."""
    from bot.db.repos.encounters import active_encounter_in
    from bot.services.conflict_state import ConflictState

    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        row = await active_encounter_in(s, table.channel, "conflict")
        assert row is not None
        return ConflictState.model_validate_json(row.state_json)


CREATE_FOR_ENEMY = "Create it \u2014 the enemy gets the free invoke"


async def fail_new_advantage(
    table: Table, run: ConflictDriver, dice: ScriptedDice, user: int, skill: str, aspect: str
) -> Reply:
    """A new aspect on the scene against Fair (+2) with - - 0 0 on the dice, resolved."""
    opened = await table.click(run.tracker, "Create advantage", user=user)
    form = await choose(table, opened, "Which aspect?", "A new aspect", user=user)
    dice.load(-1, -1, 0, 0)
    await table.submit(form, {"skill": skill, "difficulty": "Fair", "aspect": aspect}, user=user)
    return await table.click(run.tracker, "Resolve the roll", user=user)


async def test_a_failed_advantage_is_created_for_the_enemy_at_the_rollers_choice(
    table: Table,
) -> None:
    """The seed: "If you fail, you either don't create the aspect (failure) or you create it
    but the enemy gets the free invoke (success at a cost)". Charles's Lore +1 with - - 0 0 is
    Poor (-1) against Fair (+2): a failure; his player creates it for the enemy, and the ghoul
    (the GM's) spends that free invoke on its attack."""
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Charles"
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))

    failed = await fail_new_advantage(table, run, dice, alice, "Lore", "Ghoul lore")
    assert "Charles fails to create Ghoul lore." in failed.text, failed.text
    assert "Charles's player picks Don't create it, or Create it (the GM gets its free" in run.text
    assert started.labels(run.tracker)[:2] == ["Don't create it", CREATE_FOR_ENEMY]
    assert "Charles's advantage failed: Charles's player picks Don't create it" in run.text
    assert (await conflict_state(table)).aspects == []
    # the GM's bookkeeping meanwhile leaves the choice waiting
    await table.slash("conflict scale", user=gm, side="npcs", level=0)
    assert started.labels(run.tracker)[:2] == ["Don't create it", CREATE_FOR_ENEMY]
    seen = json.loads(json.dumps(run.tracker))  # the tracker as it was before the choice

    wrong = await table.click(run.tracker, CREATE_FOR_ENEMY, user=bob)
    assert wrong.ephemeral and "Only Charles's player or the GM can choose what it does" in (
        wrong.text
    ), wrong.text
    made = await table.click(run.tracker, CREATE_FOR_ENEMY, user=alice)
    assert "Ghoul lore is created, but the GM holds its free invoke." in made.text, made.text
    assert "*Ghoul lore* - free invokes: the GM" in run.text
    assert "Don't create it" not in started.labels(run.tracker)
    state = await conflict_state(table)
    assert [(a.text, a.owner, a.free_invokes) for a in state.aspects] == [
        ("Ghoul lore", None, ["gm"])
    ]
    assert state.failed_advantage is None
    stale = await table.click(seen, "Don't create it", user=alice)
    assert stale.ephemeral and "out of date" in stale.text, stale.text
    again = await table.click(run.tracker, "Overcome", user=alice)
    assert again.modal is not None  # the action is spent: the form says so when sent
    passed = await table.slash("conflict next", user=alice, who="Ghoul")
    assert not passed.ephemeral, passed.text

    # The enemy side spends the free invoke: the ghoul's Fight 2 with 0 0 0 0 is Fair (+2),
    # +2 for the free invoke is Good (+4).
    dice.load(0, 0, 0, 0)
    await run.attack(gm, "Charles", "Fight")
    invoked = await run.invoke(gm, "Free invoke: Ghoul lore")
    assert "Ghoul invokes Ghoul lore for +2. The attack is now Great (+4)." in invoked.text, (
        invoked.text
    )
    state = await conflict_state(table)
    assert [(a.text, a.free_invokes) for a in state.aspects] == [("Ghoul lore", [])]


async def test_a_failed_advantage_left_waiting_is_not_created_on_either_step_path(
    table: Table,
) -> None:
    """Whatever is done before the choice leaves the failed aspect not created: `/conflict
    next` (the raw unit of work) and the tracker's pick of who is next (the ORM one) alike; and
    Don't create it says so at once. An NPC's failure offers its free invoke to a PC."""
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Charles"
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))

    await fail_new_advantage(table, run, dice, alice, "Lore", "Ghoul lore")
    passed = await table.slash("conflict next", user=alice, who="Ghoul")  # the raw path
    assert not passed.ephemeral, passed.text
    assert "Charles: Ghoul lore is not created." in run.text
    state = await conflict_state(table)
    assert state.aspects == [] and state.failed_advantage is None
    assert "Don't create it" not in started.labels(run.tracker)

    # Ghoul: Athletics +1 with - - 0 0 is Poor (-1) against Fair: the GM chooses, and the free
    # invoke would be the PC's.
    failed = await fail_new_advantage(table, run, dice, gm, "Athletics", "Rotten planks")
    assert "Ghoul fails to create Rotten planks." in failed.text, failed.text
    assert "the GM picks Don't create it, or Create it (Charles gets its free invoke)" in run.text
    refused = await table.click(run.tracker, "Don't create it", user=alice)
    assert refused.ephemeral and "Only the GM can choose what it does" in refused.text
    await run.next(gm, "Charles")  # the ORM path
    assert "Ghoul: Rotten planks is not created." in run.text
    state = await conflict_state(table)
    assert state.aspects == [] and state.failed_advantage is None

    await fail_new_advantage(table, run, dice, alice, "Lore", "Ghoul lore")
    done = await table.click(run.tracker, "Don't create it", user=alice)
    assert "Charles: Ghoul lore is not created." in done.text, done.text
    assert (await conflict_state(table)).aspects == []
    late = await table.click(run.tracker, "Create advantage", user=alice)
    picked = await choose(table, late, "Which aspect?", "A new aspect", user=alice)
    refused = await table.submit(
        picked, {"skill": "Lore", "difficulty": "Fair", "aspect": "Again"}, user=alice
    )
    assert refused.ephemeral and "already took your action" in refused.text


def modal_inputs(reply: Reply) -> list[str]:
    """The custom ids of a modal's text inputs."""
    assert reply.modal is not None, reply.text
    return [
        str(c.get("custom_id"))
        for c in iter_components(reply.modal.get("components") or [])
        if c.get("type") == 4
    ]


async def test_an_advantage_on_an_opponent_waits_for_their_defence(table: Table) -> None:
    """The seed: "If you're attaching it to an opponent, they can take the defend action to
    oppose you" - as an attack does. Charles's Athletics +3 with 0 0 0 0 (Good) against the
    ghoul's Athletics +1 with 0 0 0 0 (Average), invoked on both sides: 5 against 3, a success
    - Distracted on the ghoul with 1 free invoke. The ghoul's Fight +2 with - - - - (Terrible)
    against Charles's Athletics +3 with + + 0 0 (Superb): defended with style (a boost), and the
    failed aspect is created on Charles for Charles at the GM's choice."""
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice, bob = table.gm, table.player, table.player2
    started = await table.slash(
        "conflict start", user=gm, kind="physical", participants="Charles, Ghoul", first="Charles"
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    ghoul = str(people["ghoul"].id)

    opened = await table.click(run.tracker, "Create advantage", user=alice)
    form = await choose(table, opened, "Which aspect?", "A new aspect on Ghoul", user=alice)
    assert modal_inputs(form) == ["skill", "aspect"]  # no difficulty: the ghoul defends
    dice.load(0, 0, 0, 0)
    rolled = await table.submit(form, {"skill": "Athletics", "aspect": "Distracted"}, user=alice)
    assert "= Good (+3) - create an advantage on Ghoul: Distracted; Ghoul defends." in (
        rolled.text
    ), rolled.text
    assert " vs " not in rolled.text
    labels = started.labels(run.tracker)
    assert "Defend" in labels and "Resolve the roll" not in labels
    assert "Ghoul must defend against Charles's advantage of Good (+3)" in run.text
    refused = await table.click(run.tracker, "Defend", user=alice)
    assert refused.ephemeral and "Only the GM can defend" in refused.text
    early = await table.slash("conflict next", user=alice, who="Ghoul")  # the raw path
    assert early.ephemeral and "waits for Ghoul's defence: press Defend" in early.text, early.text
    assert "Pick who acts next" not in json.dumps(run.tracker)  # nor on the tracker

    dice.load(0, 0, 0, 0)
    defended = await run.defend(gm, "Athletics")
    assert "= Average (+1) - defends against Good (+3)." in defended.text, defended.text
    assert "Advantage Good (+3) against defence Average (+1)" in run.text
    invoked = await run.invoke(gm, "Fate point: Hungry ghoul")  # the GM invokes for the defender
    assert "Ghoul invokes a hidden aspect for +2. The defence is now Good (+3)." in (
        invoked.text
    ), invoked.text
    invoked = await run.invoke(alice, "Fate point: Knight of the Sword")
    assert "the roll is now Superb (+5)" in invoked.text, invoked.text
    wrong = await table.click(run.tracker, "Resolve the roll", user=bob)
    assert wrong.ephemeral and "Only the roller, the defender or the GM" in wrong.text
    done = await table.click(run.tracker, "Resolve the roll", user=alice)
    assert "Superb (+5) vs Good (+3)." in done.text, done.text
    assert "Charles: Distracted is created on Ghoul with 1 free invoke." in done.text
    assert "*Distracted* on Ghoul - free invokes: Charles" in run.text
    state = await conflict_state(table)
    charles = str(people["charles"].id)
    assert [(a.text, a.kind.value, a.owner, a.free_invokes) for a in state.aspects] == [
        ("Distracted", "situation", ghoul, [charles])
    ]
    assert state.action is None and state.defence_roll is None
    for message in table.channel_messages():
        assert "Hungry ghoul" not in message_text(message)
    await table.slash("conflict next", user=alice, who="Ghoul")

    # The ghoul aims at Charles and fails by seven: defended with style, and the GM's choice.
    opened = await table.click(run.tracker, "Create advantage", user=gm)
    labels = option_labels(step_message(opened), "Which aspect?")
    assert labels == ["A new aspect", "A new aspect on Charles", "Existing: Distracted"]
    form = await choose(table, opened, "Which aspect?", "A new aspect on Charles", user=gm)
    dice.load(-1, -1, -1, -1)
    await table.submit(form, {"skill": "Fight", "aspect": "Off balance"}, user=gm)
    dice.load(1, 1, 0, 0)
    await run.defend(alice, "Athletics")
    done = await table.click(run.tracker, "Resolve the roll", user=gm)
    assert "Terrible (-2) vs Superb (+5)." in done.text, done.text
    assert "Charles: Defended with style: a boost." in done.text
    assert "Ghoul fails to create Off balance." in done.text
    made = await table.click(run.tracker, CREATE_FOR_ENEMY, user=gm)
    assert "Off balance is created on Charles, but Charles holds its free invoke." in made.text
    state = await conflict_state(table)
    assert [(a.text, a.kind.value, a.owner, a.free_invokes) for a in state.aspects] == [
        ("Distracted", "situation", ghoul, [charles]),
        ("Sure footing for Charles", "boost", None, [charles]),
        ("Off balance", "situation", charles, [charles]),
    ]
    await table.slash("conflict next", user=gm, who="Charles")

    # An aspect already on the ghoul: the ghoul defends that too (a tie: one more invoke).
    opened = await table.click(run.tracker, "Create advantage", user=alice)
    form = await choose(table, opened, "Which aspect?", "Existing: Distracted", user=alice)
    assert modal_inputs(form) == ["skill"]
    dice.load(0, 0, 0, 0)
    rolled = await table.submit(form, {"skill": "Lore"}, user=alice)
    assert "create an advantage on Distracted; Ghoul defends." in rolled.text, rolled.text
    dice.load(0, 0, 0, 0)
    await run.defend(gm, "Athletics")
    done = await table.click(run.tracker, "Resolve the roll", user=gm)
    assert "Distracted gains 1 free invoke for Charles." in done.text, done.text
    state = await conflict_state(table)
    assert state.aspects[0].free_invokes == [charles, charles]


async def test_the_defender_of_an_advantage_cannot_concede_once_it_is_rolled(
    table: Table,
) -> None:
    """The seed: "You must concede before your opponent rolls the dice". The tracker hides
    Concede while an advantage waits for its defence; a click with the tracker's version (a
    forged select) is refused too (found by a review: the ghoul conceded on seeing an Epic)."""
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    started = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Charles, Molly, Ghoul, Ghoul Two",
        first="Charles",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    opened = await table.click(run.tracker, "Create advantage", user=table.player)
    form = await choose(table, opened, "Which aspect?", "A new aspect on Ghoul", user=table.player)
    dice.load(1, 1, 1, 1)
    await table.submit(form, {"skill": "Athletics", "aspect": "Pinned down"}, user=table.player)
    defend = next(
        str(c["custom_id"])
        for c in iter_components(run.tracker["components"])
        if c.get("label") == "Defend"
    )
    _, ident, version, _ = defend.split(":")
    state = await conflict_state(table)
    ghoul = next(k for k, m in state.members.items() if m.name == "Ghoul")
    refused = await table.forge(
        f"cfs:{ident}:{version}:con", user=table.gm, channel=table.channel, values=[ghoul]
    )
    assert refused.ephemeral and "concede before the dice are rolled" in refused.text
    state = await conflict_state(table)
    assert state.conflict.combatant(ghoul).status.value == "active"
