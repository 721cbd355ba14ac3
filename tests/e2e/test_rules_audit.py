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
from bot.services.scenes import carry_gm_points_in
from bot.testing.harness import Table, message_text
from tests.e2e.test_characters import imported
from tests.e2e.test_conflicts import ConflictDriver, ScriptedDice, choose, use_dice


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
