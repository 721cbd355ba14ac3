"""/roll and the invokes on the roll message, through the fake Discord."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

from bot.fate.sheet import AspectKind, new_character
from bot.fate.stunts import Stunt
from bot.services.aspects_in_play import aspects_in_play_in
from bot.services.campaigns import (
    CampaignService,
    get_character_in,
    insert_character_in,
    resolve_campaign_in,
    set_active_in,
)
from bot.testing.harness import Reply, Table, iter_components, message_text
from bot.ui.rolls import NO_SKILL

JSON = dict  # a message as the fake Discord stores it


async def make_character(
    table: Table,
    user: int,
    name: str,
    skills: dict[str, int],
    *,
    aspects: tuple[str, ...] = (),
    free_invokes: int = 0,
    stunts: tuple[Stunt, ...] = (),
) -> int:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        sheet = new_character(name, skills=skills)
        kinds = (AspectKind.HIGH_CONCEPT, AspectKind.TROUBLE, AspectKind.FREE)
        for kind, text in zip(kinds, aspects, strict=False):
            sheet = sheet.set_aspect(kind, text)
        if aspects and free_invokes:
            sheet = sheet.set_free_invokes(aspects[0], free_invokes)
        for stunt in stunts:
            sheet = sheet.add_stunt(stunt)
        record = await insert_character_in(s, campaign, user, sheet)
        await set_active_in(s, table.guild_id, user, record.id, None)
        return record.id


async def character(table: Table, character_id: int):  # type: ignore[no-untyped-def]
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        return await get_character_in(s, character_id)


def option_value(message: JSON, label_part: str) -> str:
    for component in iter_components(message.get("components") or []):
        for option in component.get("options") or []:
            if label_part in option["label"] or label_part == option["value"]:
                return str(option["value"])
    raise AssertionError(f"no option {label_part!r} in {message.get('components')}")


async def harry(table: Table, free_invokes: int = 0) -> int:
    return await make_character(
        table,
        table.player,
        "Harry",
        {"Lore": 4, "Will": 3},
        aspects=("Wizard Private Eye", "Trouble Magnet"),
        free_invokes=free_invokes,
    )


GM_TOOLS = ("Hostile invoke", "Scale")


async def gm_tool(table: Table, roll: Reply | JSON, tool: str, *, user: int) -> Reply:
    """Open the roll's GM panel (the one "GM" button) and click one of its tools."""
    panel = await table.click(roll, "GM", user=user)
    assert panel.ephemeral and tool in panel.labels(), panel.text
    return await table.click(panel, tool, user=user)


async def invoke(
    table: Table,
    roll: Reply | JSON,
    aspect: str,
    payment: str,
    *,
    user: int,
    button: str = "Invoke +2",
) -> Reply:
    if button in GM_TOOLS:
        picker = await gm_tool(table, roll, button, user=user)
    else:
        picker = await table.click(roll, button, user=user)
    if "which aspect do you invoke" in picker.text:
        assert private(picker), picker.text
        chosen = await table.select(
            picker, "Pick an aspect", [option_value(picker.message or {}, aspect)], user=user
        )
    else:  # the one aspect in play: no menu of one, straight to paying (or done)
        chosen = picker
        assert aspect in picker.text, picker.text
        if picker.callback_type == 7 and not private(picker):  # done, on the roll itself
            return picker
    if "how do you pay" not in chosen.text:  # a single way to pay is used without a menu
        assert "Invoked" in chosen.text, chosen.text
        return chosen
    return await table.select(
        chosen, "How do you pay?", [option_value(chosen.message or {}, payment)], user=user
    )


def private(reply: Reply) -> bool:
    """The message a reply created or updated is ephemeral (also for in-place updates)."""
    return bool(reply.message and (reply.message.get("flags") or 0) & 64)


def roll_message(table: Table, reply: Reply) -> JSON:
    assert reply.message is not None
    return table.message(reply.message["id"])


async def test_roll_a_skill(table: Table) -> None:
    await harry(table)
    choices = await table.autocomplete("roll", "skill", user=table.player, skill="lo")
    assert choices[0]["value"] == "Lore" and "+4" in choices[0]["name"]
    ladder = await table.autocomplete("roll", "difficulty", user=table.player, difficulty="medi")
    assert [c["value"] for c in ladder] == ["Mediocre"]
    reply = await table.slash(
        "roll", user=table.player, skill="Lore", difficulty="Mediocre", description="Find the lair"
    )
    assert not reply.ephemeral
    text = reply.text
    assert "Harry rolls Lore (+4)" in text and "Find the lair" in text
    assert "Mediocre (+0)" in text and "Outcome" in text and "shift" in text
    assert any(symbol in text for symbol in ("[+]", "[-]", "[0]"))
    assert {"Invoke +2", "Invoke reroll", "Teamwork +1", "Defend", "Close"} <= set(reply.labels())
    # the GM's tools wait behind one button, opened for the GM alone
    assert "GM" in reply.labels() and "Hostile invoke (GM)" not in reply.labels()
    refused = await table.click(reply, "GM", user=table.player)
    assert refused.ephemeral and "Only the GM has these tools" in refused.text
    assert "Invoke +2" in refused.text  # and says what the player can use instead
    panel = await table.click(reply, "GM", user=table.gm)
    assert panel.ephemeral and panel.labels() == ["Hostile invoke", "Scale"]
    assert "GM tools for roll #" in panel.text and "Scale" in panel.text


async def test_plain_roll_without_character_and_errors(table: Table) -> None:
    reply = await table.slash("roll", user=table.player3, modifier=2, difficulty="good")
    assert not reply.ephemeral and "carol rolls 4dF" in reply.text and "Good (+3)" in reply.text
    bad = await table.slash("roll", user=table.player3, skill="Lore")
    assert bad.ephemeral and "no active character" in bad.text
    worse = await table.slash("roll", user=table.player3, difficulty="impossible")
    assert worse.ephemeral and "not a rating" in worse.text


async def test_invoke_with_a_fate_point_then_second_paid_refused(table: Table) -> None:
    harry_id = await harry(table)
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    before = (await character(table, harry_id)).sheet.fate_points
    done = await invoke(table, reply, "Wizard Private Eye", "fate point", user=table.player)
    assert private(done) and "Invoked" in done.text
    assert (await character(table, harry_id)).sheet.fate_points == before - 1
    shown = message_text(roll_message(table, reply))
    assert "Harry: +2 with *Wizard Private Eye* (fate point)" in shown

    picker = await table.click(reply, "Invoke +2", user=table.player)
    again = await table.select(
        picker, "Pick an aspect", [option_value(picker.message or {}, "Wizard")], user=table.player
    )  # only a fate point can pay, so there is no payment menu
    assert again.ephemeral and "already spent" in again.text
    assert (await character(table, harry_id)).sheet.fate_points == before - 1


async def test_one_aspect_and_one_way_to_pay_need_no_menu_and_no_private_echo(
    table: Table,
) -> None:
    harry_id = await make_character(
        table, table.player, "Harry", {"Lore": 4}, aspects=("Wizard Private Eye",)
    )
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    before = table.tally()
    done = await table.click(reply, "Invoke +2", user=table.player)
    assert done.callback_type == 7 and not done.followups  # the roll message itself changed
    assert (table.tally() - before).ephemeral == 0
    shown = message_text(roll_message(table, reply))
    assert "Harry: +2 with *Wizard Private Eye* (fate point)" in shown
    assert (await character(table, harry_id)).sheet.fate_points == 2
    assert "Invoke +2" in reply.labels(roll_message(table, reply))  # the roll is still open


async def test_an_invoke_menu_parses_a_long_campaign_s_cast_once(
    table: Table, monkeypatch: Any
) -> None:
    """The invoke menu lists the aspects of the campaign's whole cast and its game aspects:
    each sheet and the campaign's play state are parsed once per version for the process,
    not again on every menu (a campaign of 200 characters made every menu 3.4x slower than a
    new one)."""
    from bot.fate import sheet as sheets
    from bot.services.campaign_play import CampaignPlay

    await harry(table)
    for n in range(12):
        await make_character(table, table.gm, f"Ghoul {n}", {"Fight": 2}, aspects=(f"Hungry {n}",))
    started = await table.slash("session start", user=table.gm)  # the campaign's play state
    assert "Session 1" in started.text, started.text
    parsed: list[str] = []

    def counted(model: Any) -> None:
        parse = model.model_validate_json

        def parse_counted(data: Any, **options: Any) -> Any:
            parsed.append(model.__name__)
            return parse(data, **options)

        monkeypatch.setattr(model, "model_validate_json", parse_counted)

    counted(sheets.Character)
    counted(CampaignPlay)
    for menu in range(2):
        parsed.clear()
        reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
        picker = await table.click(reply, "Invoke +2", user=table.player)
        assert "Hungry 11" in str(picker.message), picker.text
        if menu == 1:
            assert parsed == [], f"parsed again: {parsed}"
        assert parsed.count("Character") <= 13  # the first menu parses each sheet at most once


async def test_a_deleted_character_s_aspects_leave_the_menu_when_its_id_is_reused(
    table: Table,
) -> None:
    """SQLite hands a deleted newest row's id to the next character, which starts at version
    1 again: the invoke menu must show the new character's aspects, not the ones kept for the
    deleted character's (id, version)."""
    await harry(table)
    ghoul = await make_character(table, table.gm, "Ghoul", {"Fight": 2}, aspects=("Hungry",))
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    assert "Hungry" in str((await table.click(reply, "Invoke +2", user=table.player)).message)
    gone = await table.slash("character delete", user=table.gm, character="Ghoul")
    assert "Ghoul" in gone.text, gone.text
    troll = await make_character(table, table.gm, "Troll", {"Fight": 3}, aspects=("Bridge Toll",))
    assert troll == ghoul  # the same id, at version 1 again
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    menu = str((await table.click(reply, "Invoke +2", user=table.player)).message)
    assert "Bridge Toll" in menu and "Hungry" not in menu, menu


async def test_a_deleted_character_leaves_no_milestone_to_the_next_one_with_its_id(
    table: Table,
) -> None:
    """The campaign's play state forgets a deleted character: its waiting milestones are not
    handed to the next character that gets its id (SQLite reuses a deleted newest row's)."""
    from bot.services.campaign_play import read_play_in

    await harry(table)
    ghoul = await make_character(table, table.gm, "Ghoul", {"Fight": 2})
    await table.slash("session start", user=table.gm)
    ended = await table.slash("session end", user=table.gm)
    assert "milestone" in ended.text, ended.text
    await table.slash("character delete", user=table.gm, character="Ghoul")
    assert await make_character(table, table.gm, "Troll", {"Fight": 3}) == ghoul
    assert table.bot is not None
    async with table.bot.db.read() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        play = await read_play_in(s, campaign.id)
    waiting = {g.character_id for g in play.milestones.grants}
    assert str(ghoul) not in waiting and waiting, waiting  # Harry's is still there


async def test_invoke_with_a_free_invoke(table: Table) -> None:
    harry_id = await harry(table, free_invokes=2)
    reply = await table.slash("roll", user=table.player, skill="Will")
    await invoke(table, reply, "Wizard Private Eye", "Free invoke", user=table.player)
    await invoke(table, reply, "Wizard Private Eye", "Free invoke", user=table.player)
    sheet = (await character(table, harry_id)).sheet
    assert sheet.find_aspect("Wizard Private Eye").free_invokes == 0
    assert sheet.fate_points == 3
    assert message_text(roll_message(table, reply)).count("(free invoke)") == 2


async def test_reroll(table: Table) -> None:
    await harry(table)
    reply = await table.slash("roll", user=table.player, skill="Lore")
    await invoke(
        table, reply, "Trouble Magnet", "fate point", user=table.player, button="Invoke reroll"
    )
    assert "reroll with *Trouble Magnet*" in message_text(roll_message(table, reply))


async def test_teamwork_and_stranger_refused(table: Table) -> None:
    await harry(table)
    await make_character(table, table.player2, "Molly", {"Lore": 2})
    reply = await table.slash("roll", user=table.player, skill="Lore")
    helped = await table.click(reply, "Teamwork +1", user=table.player2)
    assert helped.callback_type == 7 and not helped.followups  # the roll shows it: no echo
    text = message_text(roll_message(table, reply))
    assert "Molly (+2): +1" in text and "teamwork +1" in text
    own = await table.click(reply, "Teamwork +1", user=table.player)
    assert own.ephemeral and "teamwork comes from the others" in own.text

    stranger = await table.click(reply, "Invoke +2", user=table.player3)
    assert stranger.ephemeral and "Only the roller" in stranger.text
    closing = await table.click(reply, "Close", user=table.player3)
    assert closing.ephemeral and "Only the roller" in closing.text
    hostile = await table.click(reply, "GM", user=table.player2)
    assert hostile.ephemeral and "Only the GM" in hostile.text
    assert "open for invokes" in message_text(roll_message(table, reply))


async def test_restart_then_invoke_on_an_old_roll(table: Table) -> None:
    harry_id = await harry(table)
    reply = await table.slash("roll", user=table.player, skill="Lore")
    await table.restart()
    await invoke(table, reply, "Wizard Private Eye", "fate point", user=table.player)
    assert (await character(table, harry_id)).sheet.fate_points == 2
    assert "(fate point)" in message_text(roll_message(table, reply))


async def test_two_concurrent_clicks_spend_one_fate_point(table: Table) -> None:
    harry_id = await harry(table)
    reply = await table.slash("roll", user=table.player, skill="Lore")
    picker = await table.click(reply, "Invoke +2", user=table.player)
    value = option_value(picker.message or {}, "Wizard")
    snapshot = dict(picker.message or {})  # only a fate point pays: the pick invokes at once
    first, second = await asyncio.gather(
        table.select(snapshot, "Pick an aspect", [value], user=table.player),
        table.select(snapshot, "Pick an aspect", [value], user=table.player),
    )
    assert (await character(table, harry_id)).sheet.fate_points == 2
    texts = [first.text, second.text]
    assert sum("Invoked" in t for t in texts) == 1
    assert any("changed" in t or "already spent" in t for t in texts), texts
    assert message_text(roll_message(table, reply)).count("(fate point)") == 1


async def test_new_roll_closes_the_old_one(table: Table) -> None:
    await harry(table)
    first = await table.slash("roll", user=table.player, skill="Lore")
    await table.slash("roll", user=table.player, skill="Will")
    old = roll_message(table, first)
    assert "closed" in message_text(old) and not old.get("components")


async def test_hidden_roll_never_public(table: Table) -> None:
    assert table.bot is not None
    service: CampaignService = table.bot.campaigns  # type: ignore[attr-defined]
    campaign = await service.current(table.guild_id, table.channel)
    await service.update_settings(
        campaign.id, campaign.settings.model_copy(update={"gm_channel_id": table.other_channel})
    )
    before = len(table.channel_messages())
    reply = await table.slash(
        "roll", user=table.gm, modifier=3, hidden=True, description="The secret ambush"
    )
    assert reply.ephemeral and "The secret ambush" in reply.text
    assert len(table.channel_messages()) == before
    assert all("secret ambush" not in message_text(m) for m in table.channel_messages())
    copies = [
        m for m in table.channel_messages(table.other_channel) if "secret ambush" in message_text(m)
    ]
    assert len(copies) == 1
    log = await table.slash("roll-log", user=table.player)
    assert log.ephemeral and "secret" not in log.text and "hidden" not in log.text
    gm_log = await table.slash("roll-log", user=table.gm)
    assert "(hidden)" in gm_log.text
    pending = await table.autocomplete("roll", "against", user=table.player)
    assert pending == []
    hidden_expr = await table.slash("roll", user=table.gm, expression="1d20", hidden=True)
    assert hidden_expr.ephemeral
    assert len(table.channel_messages()) == before


async def test_dice_expression_and_limits(table: Table) -> None:
    reply = await table.slash("roll", user=table.player, expression="2d6+1")
    assert not reply.ephemeral and "2d6+1" in reply.text and "=" in reply.text
    via_skill = await table.slash("roll", user=table.player, skill="4dF-1")
    assert not via_skill.ephemeral and "4dF-1" in via_skill.text
    assert "**alice** rolls" in reply.text  # no character yet: the player's name
    assert "2d6+1" in reply.text and "(+" not in reply.text  # 2d6 totals are not on the ladder

    await harry(table)
    table.bot.get_cog("Rolls").rng = FixedDice([1, 0, -1, 1])  # type: ignore[union-attr]
    fate = await table.slash("roll", user=table.player, skill="4dF+2", description="Dodge")
    assert not fate.ephemeral
    # the active character rolled, and the total reads on the ladder
    assert fate.text.startswith("**Harry** rolls `4dF+2` — Dodge"), fate.text
    assert "= 3 · **Good (+3)**" in fate.text
    too_many = await table.slash("roll", user=table.player, expression="500d6")
    assert too_many.ephemeral and "at most 100 dice" in too_many.text
    odd = await table.slash("roll", user=table.player, expression="1d1")
    assert odd.ephemeral and "2 to 1000 sides" in odd.text
    junk = await table.slash("roll", user=table.player, expression="2d6+fish")
    assert junk.ephemeral and "Could not read" in junk.text


async def test_rules_share(table: Table) -> None:
    choices = await table.autocomplete("rules", "topic", user=table.player, topic="lad")
    assert choices and choices[0]["value"] == "ladder"
    reply = await table.slash("rules", user=table.player, topic="ladder")
    assert reply.ephemeral and "Legendary" in reply.text
    before = len(table.channel_messages())
    shared = await table.click(reply, "Share", user=table.player)
    assert not shared.ephemeral
    assert len(table.channel_messages()) == before + 1
    assert "Legendary" in message_text(table.channel_messages()[-1])
    unknown = await table.slash("rules", user=table.player, topic="ladderz")
    assert unknown.ephemeral and "Did you mean" in unknown.text


async def test_defend_opposes_and_stunt_select(table: Table) -> None:
    stunt = Stunt(name="Occult Scholar", text="+2 Lore", skill="Lore", bonus=2)
    await make_character(
        table, table.player, "Harry", {"Lore": 4}, aspects=("Wizard",), stunts=(stunt,)
    )
    await make_character(table, table.player2, "Molly", {"Will": 2, "Lore": 1})
    reply = await table.slash("roll", user=table.player, skill="Lore")
    assert any(
        "Occult Scholar" in o["label"]
        for c in iter_components((reply.message or {}).get("components") or [])
        for o in c.get("options") or []
    )  # type: ignore[index]
    added = await table.select(reply, "Add a stunt bonus", ["0"], user=table.player)
    assert added.callback_type == 7 and "Occult Scholar +2" in message_text(
        roll_message(table, reply)
    )
    picker = await table.click(reply, "Defend", user=table.player2)
    assert picker.ephemeral
    defended = await table.select(
        picker, "Pick a skill to defend with", ["Will"], user=table.player2
    )
    assert "You defend" in defended.text
    last = table.channel_messages()[-1]
    assert "Molly rolls Will (+2)" in message_text(last) and "Outcome" in message_text(last)
    acting = message_text(roll_message(table, reply))
    assert "Outcome" in acting and "roll #" in acting


def stunt_labels(message: JSON) -> list[str]:
    return [
        o["label"]
        for c in iter_components(message.get("components") or [])
        if c.get("placeholder") == "Add a stunt bonus"
        for o in c.get("options") or []
    ]


async def test_a_stunt_for_two_actions_is_offered_only_on_those_actions(table: Table) -> None:
    """All Fae's Superior Speed is +2 to Athletics to defend or create an advantage (the seed)."""
    from bot.dfc.mantles import get_mantle, pick_additional_stunts

    (speed,) = pick_additional_stunts(get_mantle("All Fae"), ["Superior Speed"])
    await make_character(table, table.player, "Puck", {"Athletics": 3}, stunts=(speed,))
    attack = await table.slash("roll", user=table.player, skill="Athletics", action="attack")
    assert stunt_labels(attack.message or {}) == []
    defend = await table.slash("roll", user=table.player, skill="Athletics", action="defend")
    assert stunt_labels(defend.message or {}) == ["Superior Speed (+2)"]
    await table.slash("scene start", user=table.gm, characters="Puck")
    advantage = await table.slash(
        "roll", user=table.player, skill="Athletics", action="create_advantage", aspect="Blur"
    )
    assert stunt_labels(advantage.message or {}) == ["Superior Speed (+2)"], advantage.text


async def test_gm_scale(table: Table) -> None:
    await harry(table)
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    refused = await table.click(reply, "GM", user=table.player)
    assert refused.ephemeral and "Only the GM" in refused.text
    roll_id = re.search(r"Roll #(\d+)", reply.text)
    assert roll_id is not None
    forged = await table.forge(f"roll:{roll_id[1]}:scale", user=table.player, channel=table.channel)
    assert forged.ephemeral and "Only the GM" in forged.text  # the tool itself checks too
    step = await gm_tool(table, reply, "Scale", user=table.gm)
    assert step.callback_type == 7  # the panel becomes the first step
    step = await table.select(step, "Roller's scale", ["2"], user=table.gm)
    step = await table.select(step, "Opposition's scale", ["0"], user=table.gm)
    step = await table.select(step, "Scale benefit", ["before_roll"], user=table.gm)
    assert "Scale set" in step.text
    assert "+2 before the roll" in message_text(roll_message(table, reply))


async def test_scene_boost_and_gm_hostile_invoke(table: Table) -> None:
    await harry(table)
    started = await table.slash("scene start", user=table.gm, aspects="On Fire", characters="Harry")
    assert not started.ephemeral, started.text
    boost = await table.slash(
        "aspect add", user=table.gm, text="Slippery Floor", kind="boost", boost_for="Harry"
    )
    assert not boost.ephemeral, boost.text
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")

    picker = await table.click(reply, "Invoke +2", user=table.player)
    chosen = await table.select(
        picker,
        "Pick an aspect",
        [option_value(picker.message or {}, "Slippery")],
        user=table.player,
    )
    # a boost is paid only with its free invoke: the one way to pay is used without a menu
    assert "Invoked *Slippery Floor*" in chosen.text and "How do you pay" not in chosen.text
    assert "(boost)" in message_text(roll_message(table, reply))

    await invoke(table, reply, "On Fire", "GM pool", user=table.gm, button="Hostile invoke")
    shown = message_text(roll_message(table, reply))
    assert "hostile +2 to the opposition with *On Fire*" in shown
    assert "Great (+4)" in shown  # Fair +2 raised by the hostile invoke


async def test_hidden_roll_takes_invokes_privately(table: Table) -> None:
    assert table.bot is not None
    service: CampaignService = table.bot.campaigns  # type: ignore[attr-defined]
    campaign = await service.current(table.guild_id, table.channel)
    await service.update_settings(
        campaign.id, campaign.settings.model_copy(update={"gm_channel_id": table.other_channel})
    )
    harry_id = await harry(table)
    before = len(table.channel_messages())
    reply = await table.slash("roll", user=table.player, skill="Lore", hidden=True)
    assert reply.ephemeral and "Invoke +2" in reply.labels()
    done = await invoke(table, reply, "Wizard Private Eye", "fate point", user=table.player)
    assert private(done) and "(fate point)" in done.text and "hidden roll" in done.text
    assert (await character(table, harry_id)).sheet.fate_points == 2
    copy = next(
        m for m in table.channel_messages(table.other_channel) if "Harry rolls" in message_text(m)
    )
    assert "(fate point)" in message_text(copy)  # the GM's copy follows
    assert len(table.channel_messages()) == before
    helpers = await table.autocomplete("roll", "against", user=table.player2)
    assert helpers == []


async def test_roll_against_a_pending_roll(table: Table) -> None:
    await harry(table)
    await make_character(table, table.player2, "Molly", {"Will": 2})
    acting = await table.slash("roll", user=table.player, skill="Lore", action="attack")
    roll_id = int(acting.text.split("Roll #")[1].split(" ")[0])
    choices = await table.autocomplete("roll", "against", user=table.player2)
    assert [c["value"] for c in choices] == [roll_id] and "Harry" in choices[0]["name"]
    opposing = await table.slash("roll", user=table.player2, skill="Will", against=roll_id)
    assert not opposing.ephemeral and f"roll #{roll_id}" in opposing.text
    assert "Outcome" in opposing.text
    updated = message_text(roll_message(table, acting))
    assert "Against" in updated and "Outcome" in updated
    own = await table.slash("roll", user=table.player, skill="Will", against=roll_id)
    assert own.ephemeral and "cannot oppose their own roll" in own.text
    assert "open for invokes" in message_text(roll_message(table, acting))  # nothing changed


# ---------------------------------------------------------------------------- create an advantage
class FixedDice(random.Random):
    """Every Fate die shows the faces given, then blanks."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def choice(self, seq: Any) -> Any:
        return self.faces.pop(0) if self.faces else 0


def set_dice(table: Table, faces: list[int]) -> None:
    assert table.bot is not None
    cog: Any = table.bot.get_cog("Rolls")  # type: ignore[attr-defined]
    cog.service.rng = FixedDice(faces)


async def scene_aspects(table: Table) -> dict[str, Any]:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        found = await aspects_in_play_in(s, campaign, table.channel, include_hidden=True)
    return {a.name: a for a in found}


async def test_create_advantage_roll_takes_invokes_then_creates_the_aspect(table: Table) -> None:
    harry_id = await harry(table)
    await make_character(table, table.player2, "Molly", {"Lore": 2})
    started = await table.slash("scene start", user=table.gm, characters="Harry")
    assert not started.ephemeral, started.text
    set_dice(table, [0, 0, 0, 0])  # Lore +4 against Fair (+2): a success
    reply = await table.slash(
        "roll",
        user=table.player,
        skill="Lore",
        difficulty="Fair",
        action="create_advantage",
        aspect="Arcane Sight",
    )
    assert not reply.ephemeral, reply.text
    assert {"Invoke +2", "Teamwork +1", "GM", "Create aspect"} <= set(reply.labels())
    assert "A new aspect: *Arcane Sight*" in reply.text
    await invoke(table, reply, "Wizard Private Eye", "fate point", user=table.player)
    assert "Success with style" in message_text(roll_message(table, reply))

    snapshot = dict(roll_message(table, reply))
    stranger = await table.click(snapshot, "Create aspect", user=table.player3)
    assert stranger.ephemeral and "Only the roller" in stranger.text
    ally = await table.click(snapshot, "Create aspect", user=table.player2)
    assert ally.ephemeral and "Only the roller or the GM" in ally.text
    done = await table.click(snapshot, "Create aspect", user=table.player)
    assert done.callback_type == 7, done.text
    shown = message_text(roll_message(table, reply))
    assert "Resolved" in shown and "2 free invoke" in shown
    assert not roll_message(table, reply).get("components")
    assert (await scene_aspects(table))["Arcane Sight"].free_invokes == {f"char:{harry_id}": 2}
    again = await table.click(snapshot, "Create aspect", user=table.player)
    assert again.ephemeral and "already resolved" in again.text
    assert (await scene_aspects(table))["Arcane Sight"].free_invokes == {f"char:{harry_id}": 2}

    wrong = await table.slash(
        "roll", user=table.player, skill="Lore", action="attack", aspect="Arcane Sight"
    )
    assert wrong.ephemeral and "create-an-advantage" in wrong.text


async def test_advantage_shortcut_existing_aspect_scale_and_restart(table: Table) -> None:
    harry_id = await harry(table)
    await table.slash("scene start", user=table.gm, aspects="Thick Fog", characters="Harry")
    fog = (await scene_aspects(table))["Thick Fog"]
    set_dice(table, [0, 0, 0, 0])  # Lore +4 against Fair (+2): success
    reply = await table.slash(
        "advantage", user=table.player, skill="Lore", aspect=fog.key, difficulty=2
    )
    assert not reply.ephemeral, reply.text
    assert "More free invokes on *Thick Fog*" in reply.text
    assert {"Invoke +2", "Resolve advantage"} <= set(reply.labels())
    step = await gm_tool(table, reply, "Scale", user=table.gm)
    step = await table.select(step, "Roller's scale", ["1"], user=table.gm)
    step = await table.select(step, "Opposition's scale", ["0"], user=table.gm)
    step = await table.select(step, "Scale benefit", ["extra_free_invokes"], user=table.gm)
    await table.restart()
    done = await table.click(reply, "Resolve advantage", user=table.player)
    assert done.callback_type == 7, done.text
    assert "Scale added 1" in message_text(roll_message(table, reply))
    assert (await scene_aspects(table))["Thick Fog"].free_invokes == {f"char:{harry_id}": 2}


async def test_a_failed_new_advantage_is_its_rollers_choice(table: Table) -> None:
    """The seed: on a failure "you either don't create the aspect, or you create it but
    someone else gets the free invoke": the roller's choice (or the GM's), nobody else's."""
    await harry(table)
    await make_character(table, table.player2, "Molly", {"Lore": 2})
    await table.slash("scene start", user=table.gm, characters="Harry")
    set_dice(table, [-1, -1, -1, -1])  # Lore +4 - 4 = 0 against Fair (+2): a failure
    reply = await table.slash("advantage", user=table.player, skill="Lore", aspect="Cornered")
    assert "the roller chooses **Don't create it**" in reply.text, reply.text
    assert {"Don't create it", "Create it — the enemy gets the free invoke"} <= set(reply.labels())
    other = await table.click(
        reply, "Create it — the enemy gets the free invoke", user=table.player2
    )
    assert other.ephemeral and "Only the roller or the GM" in other.text
    # the roller's next roll closes this one, but the advantage can still be resolved
    await table.slash("roll", user=table.player, skill="Will")
    left = roll_message(table, reply)
    labels = [c.get("label") for c in iter_components(left.get("components") or [])]
    assert "Don't create it" in labels and "GM" not in labels  # closed: no GM tools left
    done = await table.click(left, "Create it — the enemy gets the free invoke", user=table.player)
    assert done.callback_type == 7, done.text  # the roll redrawn in place
    assert "**Resolved:** Cornered is created, but the enemy holds its free invoke." in done.text
    assert "Don't create it" not in done.labels()
    assert (await scene_aspects(table))["Cornered"].free_invokes == {"gm": 1}

    set_dice(table, [-1, -1, -1, -1])
    again = await table.slash("advantage", user=table.player, skill="Lore", aspect="Pinned")
    await table.click(again, "Don't create it", user=table.player)
    assert "The aspect is not created." in message_text(roll_message(table, again))
    assert "Pinned" not in await scene_aspects(table)

    set_dice(table, [-1, -1, -1, -1])  # chosen beforehand: one button, and it does that
    chosen = await table.slash(
        "advantage",
        user=table.player,
        skill="Lore",
        aspect="Surrounded",
        on_fail="created, enemy holds the invoke",
    )
    assert "On a failure it is created, and the enemy gets its free invoke." in chosen.text
    assert "Don't create it" not in chosen.labels()
    await table.click(chosen, "Create aspect", user=table.player)
    assert (await scene_aspects(table))["Surrounded"].free_invokes == {"gm": 1}


async def test_advantage_needs_something_to_beat_and_hides_hidden_aspects(table: Table) -> None:
    await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    reply = await table.slash(
        "roll", user=table.player, skill="Lore", action="create_advantage", aspect="Shadows"
    )
    assert "Nothing to beat yet" in reply.text
    early = await table.click(reply, "Create aspect", user=table.player)
    assert early.ephemeral and "nothing to beat" in early.text
    assert "Shadows" not in await scene_aspects(table)
    bare = await table.slash(
        "roll", user=table.player, skill="Lore", difficulty="Fair", action="create_advantage"
    )
    assert "No aspect named" in bare.text and "Create aspect" not in bare.labels()

    secret = await table.slash("aspect add", user=table.gm, text="Trap Door", hidden=True)
    assert secret.ephemeral or "Trap Door" not in secret.text
    key = (await scene_aspects(table))["Trap Door"].key
    player = await table.slash("advantage", user=table.player, skill="Lore", aspect=key)
    assert player.ephemeral and "no longer in play" in player.text  # as a key that is gone
    assert "Trap Door" not in player.text
    public_before = len(table.channel_messages())
    gm = await table.slash("advantage", user=table.gm, character="Harry", skill="Lore", aspect=key)
    assert gm.ephemeral and "Trap Door" in gm.text
    assert len(table.channel_messages()) == public_before
    assert all("Trap Door" not in message_text(m) for m in table.channel_messages())


async def _advantage_on(table: Table, text: str, dice: list[int]) -> Reply:
    """Harry's create-an-advantage on `text` (Lore +4 against Fair) with these dice, resolved."""
    set_dice(table, dice)
    reply = await table.slash(
        "advantage", user=table.player, skill="Lore", difficulty="Fair", aspect=text
    )
    assert not reply.ephemeral and f"A new aspect: *{text}*" in reply.text, reply.text
    failed = "Don't create it" in reply.labels()  # a failure: the roller's choice
    await table.click(reply, "Don't create it" if failed else "Create aspect", user=table.player)
    return reply


async def test_an_advantage_on_the_text_of_a_hidden_aspect_discovers_it(table: Table) -> None:
    """A player who creates an advantage with the very words of an aspect the GM hid finds
    it: the roll runs as on any new aspect (the table cannot tell), and what it would create
    is the hidden aspect, revealed with the free invokes a new one would get."""
    harry_id = await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    await table.slash("aspect add", user=table.gm, text="Trap Door", hidden=True)
    failed = await _advantage_on(table, "trap door", [-1, -1, -1, -1])  # 0 against +2
    assert "The aspect is not created." in message_text(roll_message(table, failed))
    tied = await _advantage_on(table, "trap door", [-1, -1, 0, 0])  # +2 against +2
    assert "is a boost" in message_text(roll_message(table, tied))
    aspects = await scene_aspects(table)
    assert aspects["Trap Door"].hidden and not aspects["Trap Door"].free_invokes
    assert aspects["trap door"].is_boost  # the tie's boost is its own
    found = await _advantage_on(table, "trap door", [0, 0, 0, 0])  # +4 against +2
    shown = message_text(roll_message(table, found))
    assert "Trap Door was already there, hidden: it is revealed with 1 free invoke." in shown
    door = (await scene_aspects(table))["Trap Door"]
    assert not door.hidden and door.free_invokes == {f"char:{harry_id}": 1}
    doors = [a for a in (await scene_aspects(table)).values() if a.name.casefold() == "trap door"]
    assert len([a for a in doors if not a.is_boost]) == 1  # found, not made again beside it

    # an id is not the aspect's words: a player counting s1, s2... makes a new aspect
    await table.slash("aspect add", user=table.gm, text="Secret Passage", hidden=True)
    passage = (await scene_aspects(table))["Secret Passage"].key.rsplit(":", 1)[1]
    guessed = await _advantage_on(table, passage, [0, 0, 0, 0])
    assert "revealed" not in message_text(roll_message(table, guessed))
    assert (await scene_aspects(table))["Secret Passage"].hidden
    assert not (await scene_aspects(table))["Secret Passage"].free_invokes

    # a failure its roller makes "created, with the enemy's invoke": the hidden one, revealed
    await table.slash("aspect add", user=table.gm, text="Loose Floorboard", hidden=True)
    set_dice(table, [-1, -1, -1, -1])
    reply = await table.slash(
        "advantage", user=table.player, skill="Lore", difficulty="Fair", aspect="Loose Floorboard"
    )
    await table.click(reply, "Create it — the enemy gets the free invoke", user=table.player)
    assert "revealed with 1 free invoke for the enemy" in message_text(roll_message(table, reply))
    board = (await scene_aspects(table))["Loose Floorboard"]
    assert not board.hidden and board.free_invokes == {"gm": 1}


async def test_an_advantage_that_outlives_its_scene_discovers_nothing_in_the_next(
    table: Table,
) -> None:
    """A new scene numbers its aspects anew: a roll aimed at the last scene's hidden s1,
    resolved after the next scene hid another s1, must not reveal that one."""
    await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    await table.slash("aspect add", user=table.gm, text="Trap Door", hidden=True)
    set_dice(table, [0, 0, 0, 0])
    reply = await table.slash(
        "advantage", user=table.player, skill="Lore", difficulty="Fair", aspect="Trap Door"
    )
    await table.slash("scene end", user=table.gm)
    await table.slash("scene start", user=table.gm, characters="Harry")
    await table.slash("aspect add", user=table.gm, text="The Butler Did It", hidden=True)
    await table.click(reply, "Create aspect", user=table.player)
    shown = message_text(roll_message(table, reply))
    assert "Butler" not in shown, shown
    assert (await scene_aspects(table))["The Butler Did It"].hidden


async def test_hostile_invokes_paid_with_a_gm_point_are_paid_out_at_scene_end(
    table: Table,
) -> None:
    harry_id = await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    await invoke(table, reply, "Trouble Magnet", "GM pool", user=table.gm, button="Hostile invoke")
    assert "hostile +2" in message_text(roll_message(table, reply))
    before = (await character(table, harry_id)).sheet.fate_points
    ended = await table.slash("scene end", user=table.gm)
    assert not ended.ephemeral, ended.text
    assert "Paid for hostile invokes: Harry +1" in ended.text
    assert (await character(table, harry_id)).sheet.fate_points == before + 1
    ledger = await table.slash("fp log", user=table.player)
    assert "hostile invoke payout" in ledger.text

    # the next scene in the channel owes nothing for the earlier one
    await table.slash("scene start", user=table.gm, characters="Harry")
    again = await table.slash("scene end", user=table.gm)
    assert not again.ephemeral and "Paid for hostile invokes" not in again.text
    assert (await character(table, harry_id)).sheet.fate_points == before + 1


async def test_teamwork_helpers_share_the_cost_of_a_failure_or_tie(table: Table) -> None:
    await harry(table)
    await make_character(table, table.player2, "Molly", {"Lore": 2})
    set_dice(table, [-1, -1, -1, -1])  # Lore +4 - 4 + teamwork 1 = 1 against Great (+4)
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Great")
    await table.click(reply, "Teamwork +1", user=table.player2)
    shown = message_text(roll_message(table, reply))
    assert "Shared cost** (failure): Molly share it with Harry" in shown
    assert "nothing is applied automatically" in shown

    set_dice(table, [1, 1, 0, 0])  # Lore +4 + 2 + 1 = 7 against Great: a success, no cost
    won = await table.slash("roll", user=table.player, skill="Lore", difficulty="Great")
    await table.click(won, "Teamwork +1", user=table.player2)
    shown = message_text(roll_message(table, won))
    assert "Shared cost" not in shown and "Helpers share any cost" in shown
    rules = await table.slash("rules", user=table.player, topic="teamwork")
    assert "names the helpers who share the cost" in rules.text


async def test_the_gm_rolls_for_a_players_character_and_the_player_may_invoke(
    table: Table,
) -> None:
    harry_id = await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    reply = await table.slash(
        "advantage", user=table.gm, character="Harry", skill="Lore", aspect="Ward Circle"
    )
    assert not reply.ephemeral and "Harry rolls Lore" in reply.text
    await invoke(table, reply, "Wizard Private Eye", "fate point", user=table.player)
    assert (await character(table, harry_id)).sheet.fate_points == 2
    stranger = await table.slash(
        "advantage", user=table.player2, character="Harry", skill="Lore", aspect="x"
    )
    assert stranger.ephemeral and "not yours" in stranger.text


async def test_invoking_an_npcs_hidden_aspect_never_names_it_publicly(table: Table) -> None:
    from bot.fate.sheet import NpcKind, make_npc

    await harry(table)
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        sheet = new_character("Ghoul", skills={"Fight": 2})
        sheet = make_npc(
            sheet.set_aspect(AspectKind.HIGH_CONCEPT, "Hungry For Flesh"), NpcKind.MAJOR
        )
        await insert_character_in(s, campaign, table.gm, sheet)
    await table.slash("scene start", user=table.gm, characters="Harry")
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    await invoke(table, reply, "Hungry", "GM pool", user=table.gm, button="Hostile invoke")
    shown = message_text(roll_message(table, reply))
    assert "hostile +2 to the opposition with *a hidden aspect*" in shown
    assert all("Hungry" not in message_text(m) for m in table.channel_messages())
    log = await table.slash("roll-log", user=table.player)
    assert "Hungry" not in log.text


async def test_an_npcs_consequence_is_invokable_only_where_the_npc_is(table: Table) -> None:
    """A wounded NPC's consequence is public where the NPC is (the channel's scene or live
    conflict): players there may invoke it. In every other channel of the campaign it is the
    GM's alone, so a player's menu never names an NPC who is not in their scene."""
    from bot.fate.sheet import NpcKind, make_npc

    await harry(table)
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        sheet = make_npc(new_character("Ghoul", skills={"Fight": 2}), NpcKind.MAJOR)
        await insert_character_in(s, campaign, table.gm, sheet.take_consequence("mild", "Torn Ear"))

    async def menu(user: int, channel: int) -> str:
        """The invoke menu `user` gets on Harry's next roll in `channel`."""
        reply = await table.slash(
            "roll", user=table.player, channel=channel, skill="Lore", difficulty="Fair"
        )
        if user == table.gm:
            return str((await gm_tool(table, reply, "Hostile invoke", user=user)).message)
        return str((await table.click(reply, "Invoke +2", user=user)).message)

    side = table.other_channel
    assert "Torn Ear" not in await menu(table.player, table.channel)  # no scene, no conflict
    assert "Torn Ear" in await menu(table.gm, table.channel)  # the GM's, hidden from players
    started = await table.slash("scene start", user=table.gm, characters="Harry, Ghoul")
    assert not started.ephemeral, started.text
    assert "Torn Ear" in await menu(table.player, table.channel)
    assert "Torn Ear" not in await menu(table.player, side)  # the ghoul is not at the side table
    fight = await table.slash(
        "conflict start",
        user=table.gm,
        channel=side,
        kind="physical",
        participants="Harry, Ghoul",
        first="Harry",
    )
    assert not fight.ephemeral, fight.text
    assert "Torn Ear" in await menu(table.player, side)
    assert "Torn Ear" in await menu(table.player, table.channel)


async def test_defending_against_a_hidden_roll_stays_hidden(table: Table) -> None:
    assert table.bot is not None
    service: CampaignService = table.bot.campaigns  # type: ignore[attr-defined]
    campaign = await service.current(table.guild_id, table.channel)
    await service.update_settings(
        campaign.id, campaign.settings.model_copy(update={"gm_channel_id": table.other_channel})
    )
    await harry(table)
    before = len(table.channel_messages())
    reply = await table.slash(
        "roll", user=table.player, skill="Will", hidden=True, description="Sneak past"
    )
    assert reply.ephemeral
    copy = next(
        m for m in table.channel_messages(table.other_channel) if "Sneak past" in message_text(m)
    )
    picker = await table.click(copy, "Defend", user=table.gm)
    assert picker.ephemeral, picker.text
    done = await table.select(picker, "Pick a skill to defend with", [NO_SKILL], user=table.gm)
    assert private(done) and "in secret" in done.text, done.text
    assert len(table.channel_messages()) == before
    gm_side = [message_text(m) for m in table.channel_messages(table.other_channel)]
    assert sum("rolls 4dF" in text for text in gm_side) == 1  # the defence's GM copy
    assert "roll #" in message_text(table.message(copy["id"]))  # the first roll is now opposed


async def test_a_roll_that_cannot_get_the_table_in_time_says_busy_and_stores_nothing(
    table: Table,
) -> None:
    """The writer is held past the deadline: the roll is refused with a sentence, not lost
    half-way, and the next roll works."""
    assert table.bot is not None
    db = table.bot.db  # type: ignore[attr-defined]
    if db.kind != "sqlite":
        return
    patient, db.unit_timeout = db.unit_timeout, 0.1
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold_the_writer() -> None:
        async with db.session(timeout=None):
            holding.set()
            await release.wait()

    holder = asyncio.create_task(hold_the_writer())
    await holding.wait()
    busy = await table.slash("roll", user=table.player, skill="+1")
    release.set()
    await holder
    assert busy.ephemeral and "busy" in busy.text and "try again" in busy.text
    db.unit_timeout = patient
    rolled = await table.slash("roll", user=table.player, skill="+1")
    assert "Roll #1" in rolled.text  # the refused roll never got a row


async def test_void_a_roll_gives_back_what_was_spent_exactly_once(table: Table) -> None:
    harry_id = await harry(table, free_invokes=1)
    await make_character(table, table.player2, "Molly", {"Lore": 2})
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    await invoke(table, reply, "Trouble Magnet", "fate point", user=table.player)
    await invoke(table, reply, "Wizard Private Eye", "Free invoke", user=table.player)
    spent = (await character(table, harry_id)).sheet
    assert spent.fate_points == 2 and spent.find_aspect("Wizard Private Eye").free_invokes == 0

    ally = await table.click(reply, "Void roll", user=table.player2)
    assert ally.ephemeral and "Only the GM can void" in ally.text
    snapshot = dict(roll_message(table, reply))
    first, second = await asyncio.gather(
        table.click(snapshot, "Void roll", user=table.player),
        table.click(snapshot, "Void roll", user=table.player),
    )
    back = (await character(table, harry_id)).sheet
    assert back.fate_points == 3 and back.find_aspect("Wizard Private Eye").free_invokes == 1
    assert sum(r.ephemeral for r in (first, second)) == 1  # the other click gets a sentence
    refused = first if first.ephemeral else second
    assert "already void" in refused.text or "changed" in refused.text, refused.text
    shown = roll_message(table, reply)
    assert "VOID" in message_text(shown) and "1 fate point back to Harry" in message_text(shown)
    assert "free invoke on *Wizard Private Eye* back" in message_text(shown)
    assert not shown.get("components")  # its buttons stop

    log = await table.slash("roll-log", user=table.player)
    assert "void" in log.text
    ledger = await table.slash("fp log", user=table.player)
    assert "roll voided" in ledger.text and "void roll #" in ledger.text
    undo = await table.slash("fp undo", user=table.gm)
    assert "roll voided" not in undo.text  # the refund is not taken back by undo
    assert (await character(table, harry_id)).sheet.fate_points >= 2


async def test_void_gives_back_the_points_paid_on_that_roll_and_no_other(table: Table) -> None:
    """Every point paid for an invoke carries its roll's id in the ledger: voiding a roll gives
    back its own points (the player's and the GM pool's), never one paid on another roll."""
    from sqlmodel import select

    from bot.db.models.campaigns import FatePointEntry

    harry_id = await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    first = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    await invoke(table, first, "Wizard Private Eye", "fate point", user=table.player)
    await invoke(table, first, "Trouble Magnet", "GM pool", user=table.gm, button="Hostile invoke")
    first_id = int(message_text(roll_message(table, first)).split("Roll #")[1].split(" ")[0])
    second = await table.slash("roll", user=table.player, skill="Will")  # closes the first
    await invoke(table, second, "Wizard Private Eye", "fate point", user=table.player)
    second_id = int(message_text(roll_message(table, second)).split("Roll #")[1].split(" ")[0])
    assert (await character(table, harry_id)).sheet.fate_points == 1

    done = await table.slash("roll-void", user=table.gm, roll=first_id)
    assert not done.ephemeral and f"Roll #{first_id} is void" in done.text, done.text
    assert done.text.count("1 fate point back to") == 2, done.text
    assert "back to Harry" in done.text and "back to the GM pool" in done.text, done.text
    assert (await character(table, harry_id)).sheet.fate_points == 2
    assert table.bot is not None
    async with table.bot.db.read() as s:  # type: ignore[attr-defined]
        paid = (await s.exec(select(FatePointEntry).where(FatePointEntry.reason == "invoke"))).all()
    assert sorted((e.roll_id, e.who, e.undone) for e in paid) == [
        (first_id, "GM", True),
        (first_id, "Harry", True),
        (second_id, "Harry", False),
    ]
    assert all(e.note.endswith(f" on roll #{e.roll_id}") for e in paid)  # as /fp log shows it


async def test_the_gm_voids_a_closed_roll_and_the_roller_cannot(table: Table) -> None:
    harry_id = await harry(table)
    first = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    await invoke(table, first, "Trouble Magnet", "fate point", user=table.player)
    await table.slash("roll", user=table.player, skill="Will")  # closes the first
    roll_id = int(message_text(roll_message(table, first)).split("Roll #")[1].split(" ")[0])
    late = await table.slash("roll-void", user=table.player, roll=roll_id)
    assert late.ephemeral and "until it is closed" in late.text
    choices = await table.autocomplete("roll-void", "roll", user=table.gm, roll="")
    assert roll_id in [c["value"] for c in choices]
    done = await table.slash("roll-void", user=table.gm, roll=roll_id)
    assert not done.ephemeral and f"Roll #{roll_id} is void" in done.text
    assert "1 fate point back to Harry" in done.text
    assert (await character(table, harry_id)).sheet.fate_points == 3
    assert "VOID" in message_text(roll_message(table, first))
    again = await table.slash("roll-void", user=table.gm, roll=roll_id)
    assert again.ephemeral and "already void" in again.text
    elsewhere = await table.slash("roll-void", user=table.gm, roll=roll_id + 999)
    assert elsewhere.ephemeral and "roll" in elsewhere.text


async def test_voiding_a_roll_says_why_a_point_stays_spent_and_writes_it_once(
    table: Table,
) -> None:
    """The point of a character deleted since stays spent, and the void note says that (not
    that a scene ended); the voided roll is written once."""
    from sqlalchemy import event

    await harry(table)
    reply = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    await invoke(table, reply, "Trouble Magnet", "fate point", user=table.player)
    roll_id = int(message_text(roll_message(table, reply)).split("Roll #")[1].split(" ")[0])
    gone = await table.slash("character delete", user=table.player, character="Harry")
    assert "Deleted **Harry**" in gone.text
    assert table.bot is not None
    db = table.bot.db  # type: ignore[attr-defined]
    writes: list[str] = []

    def seen(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        if sql.split()[:2] == ["UPDATE", "roll"]:
            writes.append(sql)

    event.listen(db.engine.sync_engine, "before_cursor_execute", seen)
    try:
        done = await table.slash("roll-void", user=table.gm, roll=roll_id)
    finally:
        event.remove(db.engine.sync_engine, "before_cursor_execute", seen)
    assert not done.ephemeral and f"Roll #{roll_id} is void" in done.text, done.text
    assert "the point of Harry stays spent (its character was deleted)" in done.text, done.text
    assert "scene" not in done.text and "GM pool" not in done.text
    assert len(writes) == 1, writes


async def test_a_roll_is_one_transaction_of_a_handful_of_statements(
    table: Table, monkeypatch: Any
) -> None:
    """A roll reads its campaign, character and the channel's conflict in one statement, and the
    previous roll's message id rides along in the same transaction; the sheet is parsed once
    per version for the whole process. It is a raw unit of work (bot/db/raw.py): no ORM."""
    from sqlalchemy import event

    from bot.db.models.rolls import RollRow
    from bot.services import roll_base as roll_service

    monkeypatch.setattr(roll_service, "MESSAGE_IDS_SECONDS", 30.0)  # only the next roll writes it
    await make_character(table, table.player, "Harry", {"Lore": 4})
    first = await table.slash("roll", user=table.player, skill="Lore")
    assert "Harry" in first.text
    assert table.bot is not None
    db = table.bot.db  # type: ignore[attr-defined]
    statements: list[str] = []
    commits: list[int] = []

    def seen(_conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        statements.append(sql.split()[0].upper())

    engines = {db.engine.sync_engine, db._read_engine.sync_engine}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", seen)
        event.listen(engine, "commit", lambda _conn: commits.append(1))
    raw: list[str] = []
    db.raw_trace = lambda sql: raw.append(sql.split()[0].upper())
    hits = db.parsed.hits
    record = await table.fire("roll", user=table.player, skill="Lore")
    await asyncio.wait_for(record.completed.wait(), 10)
    for engine in engines:
        event.remove(engine, "before_cursor_execute", seen)
    db.raw_trace = None
    assert statements == [] and commits == [], statements  # nothing through the ORM
    # the waiting message id, the context, the previous roll and its closing, the new roll
    assert raw == ["UPDATE", "SELECT", "SELECT", "UPDATE", "INSERT", "COMMIT"], raw
    assert db.parsed.hits >= hits + 2  # the campaign and the sheet, not parsed again
    async with db.read() as session:
        row = await session.get(RollRow, int(first.text.split("#")[1].split()[0]))
        assert row is not None and row.message_id == int(first.message["id"])
        assert row.closed
