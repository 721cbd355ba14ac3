"""The issue-13 rules audit against the seed (Dresden Files Condensed v1.0), one test per defect,
through the fake Discord, with the seed's numbers."""

from __future__ import annotations

from typing import Any

from bot.services.campaigns import find_character_in, resolve_campaign_in
from bot.testing.harness import Table
from tests.e2e.test_characters import imported


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
