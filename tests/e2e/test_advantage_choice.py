"""A failed create-an-advantage on a new aspect is its roller's choice: what a copy of the
roll from before it changed, a void roll, an NPC's roll and a choice made beforehand do."""

from __future__ import annotations

import asyncio

from bot.fate.sheet import NpcKind, make_npc, new_character
from bot.services.campaigns import CampaignService, insert_character_in, resolve_campaign_in
from bot.testing.harness import Reply, Table, iter_components, message_text
from tests.e2e.test_rolls import gm_tool, harry, invoke, roll_message, scene_aspects, set_dice

ENEMY = "Create it — the enemy gets the free invoke"
DECLINE = "Don't create it"


def labels(message: dict) -> list[str]:  # type: ignore[type-arg]
    return [c.get("label") for c in iter_components(message.get("components") or [])]


async def _gm_channel(table: Table) -> None:
    """Hidden rolls get a copy in the GM channel (the roller keeps a private one)."""
    assert table.bot is not None
    service: CampaignService = table.bot.campaigns  # type: ignore[attr-defined]
    campaign = await service.current(table.guild_id, table.channel)
    await service.update_settings(
        campaign.id, campaign.settings.model_copy(update={"gm_channel_id": table.other_channel})
    )


def _gm_copy(table: Table) -> dict:  # type: ignore[type-arg]
    return next(
        m for m in table.channel_messages(table.other_channel) if "Harry rolls" in message_text(m)
    )


async def test_not_created_chosen_beforehand_leaves_one_button(table: Table) -> None:
    await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    set_dice(table, [-1, -1, -1, -1])  # Lore +4 - 4 = 0 against Fair: a failure
    reply = await table.slash(
        "advantage", user=table.player, skill="Lore", aspect="Cornered", on_fail="not created"
    )
    assert "On a failure it is not created." in reply.text, reply.text
    assert ENEMY not in reply.labels() and DECLINE not in reply.labels()
    await table.click(reply, "Create aspect", user=table.player)
    assert "The aspect is not created." in message_text(roll_message(table, reply))
    assert "Cornered" not in await scene_aspects(table)


async def test_a_stale_copy_asks_again_after_the_roll_changed(table: Table) -> None:
    """A hidden roll's private copy is not redrawn when the GM acts on the GM channel's copy:
    a choice clicked there after the roll changed is refused, and the copy redrawn."""
    await _gm_channel(table)
    await harry(table)
    await table.slash("scene start", user=table.gm, aspects="On Fire", characters="Harry")
    set_dice(table, [-1, -1, -1, -1])  # a failure, then scale makes it a success
    failed = await table.slash(
        "roll", user=table.player, skill="Lore", difficulty="Fair", aspect="Cornered", hidden=True
    )
    assert failed.ephemeral and DECLINE in failed.labels(), failed.text
    step = await gm_tool(table, _gm_copy(table), "Scale", user=table.gm)
    step = await table.select(step, "Roller's scale", ["3"], user=table.gm)
    step = await table.select(step, "Opposition's scale", ["0"], user=table.gm)
    await table.select(step, "Scale benefit", ["before_roll"], user=table.gm)
    refused = await table.click(failed, DECLINE, user=table.player)
    assert "does not fail (any more)" in refused.text, refused.text
    assert "Create aspect" in labels(table.message(failed.message["id"]))  # redrawn
    assert "Cornered" not in await scene_aspects(table)
    await table.click(failed, "Create aspect", user=table.player)
    assert "Cornered" in await scene_aspects(table)

    # the reverse: a success the GM's hostile invoke turns into a failure
    set_dice(table, [0, 0, 0, 0])  # +4 against Good (+3): a success, then +2 against it
    success = await table.slash(
        "roll", user=table.player, skill="Lore", difficulty="Good", aspect="Pinned", hidden=True
    )
    copy = [
        m for m in table.channel_messages(table.other_channel) if "Harry rolls" in message_text(m)
    ][-1]
    await invoke(table, copy, "On Fire", "GM pool", user=table.gm, button="Hostile invoke")
    refused = await table.click(success, "Create aspect", user=table.player)
    assert "fails now, so its roller chooses" in refused.text, refused.text
    assert DECLINE in labels(table.message(success.message["id"]))
    assert "Pinned" not in await scene_aspects(table)


async def test_a_void_roll_resolves_nothing(table: Table) -> None:
    await _gm_channel(table)
    await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    set_dice(table, [-1, -1, -1, -1])
    reply = await table.slash(
        "roll", user=table.player, skill="Lore", difficulty="Fair", aspect="Cornered", hidden=True
    )
    await table.click(_gm_copy(table), "Void roll", user=table.gm)
    refused = await table.click(reply, ENEMY, user=table.player)  # the roller's stale copy
    assert refused.ephemeral and "This roll is void" in refused.text, refused.text
    assert "Cornered" not in await scene_aspects(table)


async def test_an_npcs_failure_gives_the_free_invoke_to_a_pc(table: Table) -> None:
    """The enemy of an NPC's roll is a PC (the tracker's rule too): the one who opposed it,
    else the scene's first PC; with no PC in the scene the choice says what to do."""
    harry_id = await harry(table)
    assert table.bot is not None
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(session, table.guild_id, table.channel)
        ghoul = make_npc(new_character("Ghoul", skills={"Fight": 2}), NpcKind.MAJOR)
        await insert_character_in(session, campaign, table.gm, ghoul)
    await table.slash("scene start", user=table.gm, characters="Ghoul")
    set_dice(table, [-1, -1, -1, -1])
    alone = await table.slash(
        "advantage", user=table.gm, character="Ghoul", skill="Fight", aspect="Pinned Down"
    )
    refused = await table.click(alone, ENEMY, user=table.gm)
    assert "No PC is in this scene" in refused.text, refused.text
    await table.slash("scene end", user=table.gm)
    await table.slash("scene start", user=table.gm, characters="Harry, Ghoul")
    set_dice(table, [-1, -1, -1, -1])
    reply = await table.slash(
        "advantage", user=table.gm, character="Ghoul", skill="Fight", aspect="Pinned Down"
    )
    await table.click(reply, ENEMY, user=table.gm)
    held = (await scene_aspects(table))["Pinned Down"].free_invokes
    assert held == {f"char:{harry_id}": 1}, held


async def test_two_choices_at_once_apply_one(table: Table) -> None:
    await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    set_dice(table, [-1, -1, -1, -1])
    reply = await table.slash("advantage", user=table.player, skill="Lore", aspect="Cornered")
    clicks = [
        await table.fire_click(reply.message, ENEMY, user=table.player),
        await table.fire_click(reply.message, DECLINE, user=table.gm),
        await table.fire_click(reply.message, ENEMY, user=table.gm),
    ]
    await asyncio.gather(*(c.completed.wait() for c in clicks))
    await table.settle()
    texts = [Reply(table.fake, c).text for c in clicks]
    assert len([t for t in texts if "already resolved" not in t]) == 1, texts
