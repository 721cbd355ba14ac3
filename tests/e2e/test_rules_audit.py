"""The issue-13 rules audit against the seed (Dresden Files Condensed v1.0), one test per defect,
through the fake Discord, with the seed's numbers."""

from __future__ import annotations

from typing import Any

from bot.fate.sheet import NpcKind, make_npc, new_character
from bot.services.campaigns import (
    find_character_in,
    insert_character_in,
    resolve_campaign_in,
    set_active_in,
)
from bot.services.scene_state import carry_gm_points_in
from bot.testing.harness import Table, message_text
from tests.e2e.test_characters import imported
from tests.e2e.test_conflicts import (
    ConflictDriver,
    ScriptedDice,
    choose,
    make_characters,
    option_labels,
    step_message,
    use_dice,
)


def board_text(table: Table) -> str:
    pinned = [m for m in table.channel_messages() if m.get("pinned")]
    return message_text(pinned[-1]) if pinned else ""


async def sheet_of(table: Table, name: str) -> Any:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        return (await find_character_in(s, campaign.id, name)).sheet


async def test_recovery_begun_at_a_major_milestone_runs_its_clock(table: Table) -> None:
    """The seed, major milestones: "If you have any moderate or severe consequences not yet in
    recovery, you can begin the recovery process and rename them"; and recovery: moderate ones
    take "a full session after treatment to clear", severe ones "only clear when you reach a
    major milestone after treatment"."""
    gm, ruth = table.gm, table.player
    await imported(table, ruth, "Ruth Kane")
    for slot, aspect in (("moderate", "Cracked Ribs"), ("severe", "Shattered Knee")):
        taken = await table.slash("character edit consequence", user=ruth, slot=slot, aspect=aspect)
        assert "consequence updated" in taken.text, taken.text
    await table.slash("session arc-end", user=gm)
    await table.slash("session award", user=gm, character="Ruth Kane", kind="major")
    for slot, healing in (("moderate", "Ribs in a Brace"), ("severe", "Knee in a Cast")):
        done = await table.slash(
            "character milestone major", user=ruth, recover_slot=slot, recover_as=healing
        )
        assert f"starts recovering as '{healing}'" in done.text, done.text
    sheet = await sheet_of(table, "Ruth Kane")
    assert sheet.track("moderate").healing and sheet.track("severe").healing

    # One full session later the moderate consequence is gone; the severe one waits.
    await table.slash("session start", user=gm)
    ended = await table.slash("session end", user=gm)
    assert "Ribs in a Brace has cleared" in ended.text, ended.text
    sheet = await sheet_of(table, "Ruth Kane")
    assert sheet.track("moderate").is_free and sheet.track("severe").aspect == "Knee in a Cast"

    # The next major milestone clears the severe one.
    arc = await table.slash("session arc-end", user=gm)
    assert "Knee in a Cast has cleared" in arc.text, arc.text
    assert (await sheet_of(table, "Ruth Kane")).track("severe").is_free


async def test_a_consequence_cleared_at_a_milestone_does_not_clear_again(table: Table) -> None:
    gm, ruth = table.gm, table.player
    await imported(table, ruth, "Ruth Kane")
    await table.slash("character edit consequence", user=ruth, slot="moderate", aspect="Cut Arm")
    await table.slash("session arc-end", user=gm)
    await table.slash(
        "character milestone major", user=ruth, recover_slot="moderate", recover_as="Stitched Arm"
    )
    await table.slash("session arc-end", user=gm)
    await table.slash("character edit consequence", user=ruth, slot="moderate", aspect="Bruised")
    await table.slash("session start", user=gm)
    ended = await table.slash("session end", user=gm)
    assert "cleared" not in ended.text, ended.text
    assert (await sheet_of(table, "Ruth Kane")).track("moderate").aspect == "Bruised"


async def make_cast(table: Table, pcs: list[str], npc: str) -> None:
    """PCs for table.player (the first is active), and a major NPC of the GM's."""
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        for index, name in enumerate(pcs):
            record = await insert_character_in(
                s, campaign, table.player, new_character(name, skills={"Fight": 4})
            )
            if index == 0:
                await set_active_in(s, table.guild_id, table.player, record.id, None)
        major = make_npc(new_character(npc, skills={"Athletics": 1}), NpcKind.MAJOR)
        await insert_character_in(s, campaign, table.gm, major)


async def test_a_conceding_major_npc_brings_its_points_to_a_scene_that_includes_it(
    table: Table,
) -> None:
    """The seed's GM fate points: Charles, Ruth, Cassandra and Ethan face Alice Westforth, who
    conceded an earlier conflict after taking a moderate consequence: "the GM gets four fate
    points for the PCs and two more that Alice is bringing along" - in a scene with Alice."""
    gm = table.gm
    heroes = ["Charles", "Ruth", "Cassandra", "Ethan"]
    await make_cast(table, heroes, "Alice Westforth")
    dice = ScriptedDice()
    use_dice(table, dice)
    fight = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Alice Westforth",
        first="Charles",
    )
    assert fight.message is not None
    run = ConflictDriver(table, int(fight.message["id"]))
    dice.load(0, 0, 0, 0)
    await run.attack(table.player, "Alice Westforth", "Fight")
    dice.load(-1, 0, 0, 0)  # Athletics +1, dice -1: a 4-shift hit
    await run.defend(gm, "Athletics")
    await run.resolve(table.player)
    opened = await table.click(run.tracker, "Take the hit", user=gm)
    form = await choose(table, opened, "How do you take it?", "Moderate", user=gm)
    await table.submit(form, {"c0": "Singed Veil"}, user=gm)
    await run.next(table.player, "Alice Westforth")
    opened = await table.click(run.tracker, "Concede", user=gm)
    await choose(table, opened, "Who concedes?", "Alice Westforth", user=gm)
    assert "over" in run.text

    # A scene without Alice: four points for the four PCs, nothing of hers.
    await table.slash("scene start", user=gm, characters=", ".join(heroes))
    assert "GM pool: **4**" in board_text(table)
    await table.slash("scene end", user=gm)
    # The final confrontation: Alice brings her two.
    await table.slash("scene start", user=gm, characters=", ".join([*heroes, "Alice Westforth"]))
    assert "GM pool: **6**" in board_text(table)
    await table.slash("scene end", user=gm)
    await table.slash("scene start", user=gm, characters=", ".join([*heroes, "Alice Westforth"]))
    assert "GM pool: **4**" in board_text(table)  # brought once


async def test_an_npc_joining_later_brings_its_points(table: Table) -> None:
    await make_cast(table, ["Charles"], "Alice Westforth")
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        alice = await find_character_in(s, campaign.id, "Alice Westforth")
        await carry_gm_points_in(s, campaign.id, 2, alice.id)
    await table.slash("scene start", user=table.gm, characters="Charles")
    assert "GM pool: **1**" in board_text(table)
    await table.slash("scene join", user=table.gm, character="Alice Westforth")
    assert "GM pool: **3**" in board_text(table)


async def test_every_campaign_skill_is_rollable_at_mediocre_from_the_menus(table: Table) -> None:
    """The seed: skills beyond the pyramid are "All other skills at Mediocre (+0)", and "Will can
    be used to defend against mental attacks". Charles rates only Fight; a mental attack is
    defended with his Mediocre Will, not his Fight +4."""
    gm = table.gm
    await make_cast(table, ["Charles"], "Alice Westforth")
    dice = ScriptedDice()
    use_dice(table, dice)
    fight = await table.slash(
        "conflict start",
        user=gm,
        kind="mental",
        participants="Charles, Alice Westforth",
        first="Alice Westforth",
    )
    assert fight.message is not None
    run = ConflictDriver(table, int(fight.message["id"]))
    dice.load(1, 1, 0, 0)
    await run.attack(gm, "Charles", "Provoke")  # Alice's unrated Provoke: +0, dice +2
    opened = await table.click(run.tracker, "Defend", user=table.player)
    labels = option_labels(step_message(opened), "Defend with")
    assert labels[0] == "Fight (+4)" and "Will (+0)" in labels and "Provoke (+0)" in labels
    assert len(labels) == 19  # Fate Condensed's nineteen skills
    dice.load(0, 0, 0, 0)
    defended = await choose(table, opened, "Defend with", "Will", user=table.player)
    assert "Mediocre (+0)" in defended.text, defended.text
    resolved = await run.resolve(table.player)
    assert "2-shift hit" in resolved.text


async def test_overcome_with_style_in_a_conflict_gives_a_boost(table: Table) -> None:
    """The seed, overcome: "If you succeed with style, it's a success and you also get a boost."
    Charles's Great (+4) Fight and [+][+][0][0] make Fantastic (+6) against Fair (+2): four
    shifts, success with style."""
    await make_cast(table, ["Charles"], "Alice Westforth")
    dice = ScriptedDice()
    use_dice(table, dice)
    fight = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Charles, Alice Westforth",
        first="Charles",
    )
    assert fight.message is not None
    run = ConflictDriver(table, int(fight.message["id"]))
    opened = await table.click(run.tracker, "Overcome", user=table.player)
    dice.load(1, 1, 0, 0)
    rolled = await table.submit(opened, {"skill": "Fight", "difficulty": "Fair"}, user=table.player)
    assert "Fantastic (+6) vs Fair (+2)" in rolled.text, rolled.text
    resolved = await table.click(run.tracker, "Resolve the roll", user=table.player)
    assert "success with style" in resolved.text.lower() and "boost" in resolved.text.lower()
    assert "Head start for Charles" in run.text

    # A plain success gives none.
    await run.next(table.player, "Alice Westforth")
    opened = await table.click(run.tracker, "Overcome", user=table.gm)
    dice.load(1, 0, 0, 0)  # Alice's unrated Fight: +1 against Mediocre (+0), one shift
    await table.submit(opened, {"skill": "Fight", "difficulty": "Mediocre"}, user=table.gm)
    plain = await table.click(run.tracker, "Resolve the roll", user=table.gm)
    assert "overcome: success." in plain.text.lower() and "Head start for Alice" not in run.text


async def test_a_rolled_move_with_style_gives_a_boost_too(table: Table) -> None:
    """An impeded move (or an epic one the GM sets a difficulty for) is an overcome (Fate
    Condensed, zones), so with style it is a success and a boost. Charles's Good (+3) Athletics and [+][+][0][0] make Superb (+5)
    against Fair (+2): three shifts, success with style. The Ghoul's Average (+1) Athletics and
    [+][0][0][0] make Fair (+2) against Mediocre (+0): two shifts, a plain success, no boost."""
    await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    fight = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Charles, Ghoul",
        first="Charles",
        zones="Street, Alley, Roof",
    )
    assert fight.message is not None
    run = ConflictDriver(table, int(fight.message["id"]))
    assert "Charles (PC) in Street" in run.text
    opened = await table.click(run.tracker, "Move", user=table.player)
    form = await choose(table, opened, "Move where?", "Roof - impeded", user=table.player)
    dice.load(1, 1, 0, 0)
    rolled = await table.submit(
        form, {"skill": "Athletics", "difficulty": "Fair"}, user=table.player
    )
    assert "Superb (+5) vs Fair (+2)" in rolled.text + run.text, rolled.text
    resolved = await table.click(run.tracker, "Resolve the roll", user=table.player)
    assert "Charles (PC) in Roof" in run.text
    assert "Overcome with style: a boost." in resolved.text + run.text
    assert "Head start for Charles" in run.text

    await run.next(table.player, "Ghoul")
    opened = await table.click(run.tracker, "Move", user=table.gm)
    form = await choose(table, opened, "Move where?", "Roof - impeded", user=table.gm)
    dice.load(1, 0, 0, 0)
    await table.submit(form, {"skill": "Athletics", "difficulty": "Mediocre"}, user=table.gm)
    await table.click(run.tracker, "Resolve the roll", user=table.gm)
    assert "Ghoul (NPC) in Roof" in run.text and "Head start for Ghoul" not in run.text


async def test_scene_end_clears_the_stress_of_everyone_who_fought_in_it(table: Table) -> None:
    """The seed: "At the end of each scene, every character clears their stress boxes." Ruth was
    never added to the scene, but she fought in its conflict: she joins the scene, and her two
    marked boxes clear when it ends. Charles, placed in the Alley on the scene, starts the
    conflict there."""
    gm = table.gm
    await make_cast(table, ["Charles", "Ruth"], "Alice Westforth")
    await table.slash("scene start", user=gm, zones="Street, Alley", characters="Charles")
    await table.slash("scene move", user=gm, zone="Alley", character="Charles")
    dice = ScriptedDice()
    use_dice(table, dice)
    fight = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Ruth, Alice Westforth",
        first="Alice Westforth",
    )
    assert fight.message is not None
    run = ConflictDriver(table, int(fight.message["id"]))
    assert "Charles (PC) in Alley" in run.text and "Ruth (PC) in Street" in run.text
    assert "Ruth" in board_text(table)  # she joined the scene
    dice.load(1, 1, 0, 0)  # Alice's Mediocre Fight +2 against Ruth's Mediocre Athletics +0
    await run.attack(gm, "Ruth", "Fight")
    dice.load(0, 0, 0, 0)
    await run.defend(table.player, "Athletics")
    await run.resolve(table.player)
    await run.take_hit(table.player, "Physical stress box 1, 2")
    assert [b.marked for b in (await sheet_of(table, "Ruth")).track("physical").boxes] == [
        True,
        True,
        False,
    ]
    await table.slash("conflict end", user=gm)
    ended = await table.slash("scene end", user=gm)
    assert "Ruth" in ended.text, ended.text
    assert not any(b.marked for b in (await sheet_of(table, "Ruth")).track("physical").boxes)


async def test_a_long_move_with_nothing_in_the_way_takes_the_action_and_no_roll(
    table: Table,
) -> None:
    """Fate Condensed, zones: "You can also use your action to move anywhere on the map";
    a roll only where the movement is impeded. Charles moves from Street to Roof (two zones
    off) with his action; the action is then spent."""
    await make_characters(table)
    fight = await table.slash(
        "conflict start",
        user=table.gm,
        kind="physical",
        participants="Charles, Ghoul",
        first="Charles",
        zones="Street, Alley, Roof",
    )
    assert fight.message is not None
    run = ConflictDriver(table, int(fight.message["id"]))
    opened = await table.click(run.tracker, "Move", user=table.player)
    labels = option_labels(step_message(opened), "Move where?")
    assert labels == ["Alley", "Alley - impeded", "Roof", "Roof - impeded"], labels
    moved = await choose(table, opened, "Move where?", "Roof", user=table.player)
    assert moved.modal is None
    assert "Charles moves to Roof, using the action." in run.text
    assert "Charles (PC) in Roof" in run.text
    again = await table.click(run.tracker, "Overcome", user=table.player)
    refused = await table.submit(
        again, {"skill": "Athletics", "difficulty": "2"}, user=table.player
    )
    assert refused.ephemeral and "already took your action" in refused.text, refused.text
