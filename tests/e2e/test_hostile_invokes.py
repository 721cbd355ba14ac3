"""Found by the second rules audit, each through the fake Discord: whose fate point a paid
invoke owes (the seed: invoking someone else's aspect against them is a hostile invoke, its
fate point goes to them; "the GM also pays out fate points owed to players for hostile
invokes"), which NPCs bring points to the GM's pool ("a major NPC or monster that conceded a
previous conflict, or received hostile invokes in a previous scene"), and a tied treatment."""

from __future__ import annotations

from typing import Any

from bot.fate.sheet import AspectKind, NpcKind, make_npc, new_character
from bot.services.campaigns import insert_character_in, resolve_campaign_in
from bot.testing.harness import Table, iter_components, message_text
from tests.e2e.test_conflicts import (
    ConflictDriver,
    ScriptedDice,
    choose,
    make_characters,
    sheet,
    use_dice,
)
from tests.e2e.test_rolls import (
    FixedDice,
    character,
    harry,
    invoke,
    make_character,
    option_value,
    set_dice,
)
from tests.e2e.test_rules_audit import board_text


async def npc(table: Table, name: str, aspect: str, kind: NpcKind = NpcKind.MAJOR) -> int:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        sheet = new_character(name, skills={"Fight": 2})
        sheet = make_npc(sheet.set_aspect(AspectKind.HIGH_CONCEPT, aspect), kind)
        record = await insert_character_in(s, campaign, table.gm, sheet)
        assert record.id is not None
        return record.id


def roll_id(reply_text: str) -> int:
    return int(reply_text.split("Roll #")[1].split(" ")[0])


async def fate_points(table: Table, character_id: int) -> int:
    return int((await character(table, character_id)).sheet.fate_points)


async def test_an_aspect_invoked_against_its_character_pays_them_at_the_scene_end(
    table: Table,
) -> None:
    """Molly defends against Harry and invokes his Trouble Magnet with a fate point: Harry is
    owed it (with the plain Invoke +2 button, not only the GM's Hostile invoke). The GM's own
    roll invoking Trouble Magnet from the pool owes him one more. Harry invoking his ally's
    aspect owes nobody anything."""
    harry_id = await harry(table)
    molly_id = await make_character(
        table, table.player2, "Molly", {"Will": 2}, aspects=("Apprentice Of Harry",)
    )
    await table.slash("scene start", user=table.gm, characters="Harry, Molly")
    set_dice(table, [0] * 12)
    attack = await table.slash("roll", user=table.player, skill="Lore", action="attack")
    defence = await table.slash(
        "roll", user=table.player2, skill="Will", against=roll_id(attack.text)
    )
    await invoke(table, defence, "Trouble Magnet", "fate point", user=table.player2)
    claws = await table.slash(
        "roll", user=table.gm, skill="+2", action="attack", description="A ghoul claws Harry"
    )
    await invoke(table, claws, "Trouble Magnet", "GM pool", user=table.gm)
    own = await table.slash("roll", user=table.player, skill="Will", difficulty="Fair")
    await invoke(table, own, "Apprentice Of Harry", "fate point", user=table.player)
    assert await fate_points(table, harry_id) == 2  # 3, less his invoke of Molly's aspect
    assert await fate_points(table, molly_id) == 2

    ended = await table.slash("scene end", user=table.gm)
    assert "Harry +2" in ended.text, ended.text
    assert "Molly +" not in ended.text
    assert await fate_points(table, harry_id) == 4
    assert await fate_points(table, molly_id) == 2


async def test_the_gms_hostile_invoke_of_an_npcs_own_aspect_brings_the_gm_nothing(
    table: Table,
) -> None:
    """The GM's Hostile invoke of the Ghoul's own aspect on Harry's roll helps the Ghoul's side:
    nobody is owed a point and the next scene with the Ghoul starts with the GM's usual pool.
    Harry's paid invoke of the Ghoul's consequence is against the Ghoul: that one it brings."""
    await harry(table)
    await npc(table, "Ghoul", "Hungry For Flesh")
    await table.slash("scene start", user=table.gm, characters="Harry, Ghoul")
    assert "GM pool: **1**" in board_text(table)
    set_dice(table, [0] * 8)
    roll = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    await invoke(table, roll, "Hungry", "GM pool", user=table.gm, button="Hostile invoke")
    ended = await table.slash("scene end", user=table.gm)
    assert "carries" not in ended.text, ended.text
    await table.slash("scene start", user=table.gm, characters="Harry, Ghoul")
    assert "GM pool: **1**" in board_text(table)

    await table.slash(
        "character edit consequence",
        user=table.gm,
        character="Ghoul",
        slot="mild",
        aspect="Torn Ear",
    )
    again = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    await invoke(table, again, "Torn Ear", "fate point", user=table.player)
    ended = await table.slash("scene end", user=table.gm)
    assert "the GM carries 1 into the NPC's next scene" in ended.text, ended.text
    await table.slash("scene start", user=table.gm, characters="Harry, Ghoul")
    assert "GM pool: **2**" in board_text(table)


async def test_a_conceding_minor_npc_brings_the_gm_nothing(table: Table) -> None:
    """Only a major NPC or a monster brings its concession's points to the GM's next scene."""
    await make_characters(table)
    gm = table.gm
    started = await table.slash(
        "conflict start",
        user=gm,
        kind="physical",
        participants="Charles, Ghoul Two",
        first="Ghoul Two",
    )
    assert started.message is not None
    run = ConflictDriver(table, int(started.message["id"]))
    opened = await table.click(run.tracker, "Concede", user=gm)
    conceded = await choose(table, opened, "Who concedes?", "Ghoul Two", user=gm)
    assert "Ghoul Two concedes." in conceded.text, conceded.text
    assert "fate point" not in run.text.split("Ghoul Two concedes")[1]
    await table.slash("scene start", user=gm, characters="Charles, Ghoul Two")
    assert "GM pool: **1**" in board_text(table)


async def test_a_tied_treatment_starts_recovery_at_a_minor_cost(table: Table) -> None:
    """An overcome's tie is "success at a minor cost": Molly's Academics +2 and [0][0][0][0]
    tie Fair (+2) on Harry's mild consequence; Taped Ribs starts healing."""
    harry_id = await harry(table)
    await make_character(table, table.player2, "Molly", {"Academics": 2})
    await table.slash(
        "character edit consequence",
        user=table.player,
        character="Harry",
        slot="mild",
        aspect="Bruised Ribs",
    )
    await table.slash("scene start", user=table.gm, characters="Harry, Molly")
    assert table.bot is not None
    economy: Any = table.bot.get_cog("Economy")  # type: ignore[attr-defined]
    economy.economy.rng = FixedDice([0, 0, 0, 0])
    treated = await table.slash(
        "recovery treat",
        user=table.player2,
        patient="Harry",
        consequence="mild",
        skill="Academics",
        healing_name="Taped Ribs",
    )
    assert "treated at a minor cost" in treated.text, treated.text
    mild = (await character(table, harry_id)).sheet.track("mild")
    assert mild.aspect == "Taped Ribs" and mild.healing


async def test_a_player_cannot_forge_the_gm_s_hostile_invoke(table: Table) -> None:
    """The hostile flag rides in the pickers' custom ids: a player who turns it on (a modified
    client) in the aspect menu or the payment menu is refused, the GM pool keeps its point and
    nobody is owed one at the scene's end (found by a review: Harry spent the pool on his own
    aspect and collected the point)."""
    harry_id = await harry(table)
    await table.slash("scene start", user=table.gm, characters="Harry")
    assert "GM pool: **1**" in board_text(table)
    set_dice(table, [0] * 8)
    roll = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    picker = await table.click(roll, "Invoke +2", user=table.player)
    assert picker.message is not None
    select = next(
        c
        for c in iter_components(picker.message["components"])
        if str(c.get("custom_id", "")).startswith("rpa:")
    )
    key = option_value(picker.message, "Trouble Magnet")
    hostile_menu = select["custom_id"][:-1] + "1"
    forged = await table.forge(
        hostile_menu, user=table.player, channel=table.channel, values=[key], ephemeral=True
    )
    assert forged.ephemeral and "Only the GM can make a hostile invoke" in forged.text
    version = select["custom_id"].split(":")[2]
    payment_menu = f"rpp:{roll_id(roll.text)}:{version}:b:1:{key}"
    forged = await table.forge(
        payment_menu, user=table.player, channel=table.channel, values=["fp:gm"], ephemeral=True
    )
    assert forged.ephemeral and "Only the GM can make a hostile invoke" in forged.text
    assert "GM pool: **1**" in board_text(table)
    ended = await table.slash("scene end", user=table.gm)
    assert "hostile" not in ended.text
    assert await fate_points(table, harry_id) == 3


async def test_a_roll_whose_owed_points_were_paid_cannot_be_voided(table: Table) -> None:
    """Voiding gives the invoker the point back; once the scene's end has paid the owner for
    that invoke, a void would make a fate point out of nothing (found by a review: Harry 4 +
    Molly 3 where 6 were). It is refused then, saying what to do instead; before the scene
    ends a void still works and the end then owes nothing for it."""
    harry_id = await harry(table)
    molly_id = await make_character(
        table, table.player2, "Molly", {"Will": 2}, aspects=("Apprentice Of Harry",)
    )
    await table.slash("scene start", user=table.gm, characters="Harry, Molly")
    set_dice(table, [0] * 24)
    attack = await table.slash("roll", user=table.player, skill="Lore", action="attack")
    defence = await table.slash(
        "roll", user=table.player2, skill="Will", against=roll_id(attack.text)
    )
    await invoke(table, defence, "Trouble Magnet", "fate point", user=table.player2)
    ended = await table.slash("scene end", user=table.gm)
    assert "Harry +1" in ended.text
    voided = await table.slash("roll-void", user=table.gm, roll=roll_id(defence.text))
    assert voided.ephemeral and "cannot be voided" in voided.text and "/fp give" in voided.text
    assert (await fate_points(table, harry_id), await fate_points(table, molly_id)) == (4, 2)

    # In the next scene a void comes before the end: the point goes back, nobody is owed it.
    await table.slash("scene start", user=table.gm, characters="Harry, Molly")
    attack = await table.slash("roll", user=table.player, skill="Lore", action="attack")
    defence = await table.slash(
        "roll", user=table.player2, skill="Will", against=roll_id(attack.text)
    )
    await invoke(table, defence, "Trouble Magnet", "fate point", user=table.player2)
    voided = await table.slash("roll-void", user=table.gm, roll=roll_id(defence.text))
    assert "1 fate point back to Molly" in voided.text
    ended = await table.slash("scene end", user=table.gm)
    assert "Harry +" not in ended.text
    assert (await fate_points(table, harry_id), await fate_points(table, molly_id)) == (4, 2)


async def test_a_roll_whose_owed_point_went_to_nobody_can_still_be_voided(table: Table) -> None:
    """The scene's end marks paid only the rolls it paid someone for: an owner deleted before
    the end gets nothing, so voiding the roll afterwards still gives the invoker the point
    back (found by a review)."""
    await harry(table)
    molly_id = await make_character(
        table, table.player2, "Molly", {"Will": 2}, aspects=("Apprentice Of Harry",)
    )
    await table.slash("scene start", user=table.gm, characters="Harry, Molly")
    set_dice(table, [0] * 12)
    attack = await table.slash("roll", user=table.player, skill="Lore", action="attack")
    defence = await table.slash(
        "roll", user=table.player2, skill="Will", against=roll_id(attack.text)
    )
    await invoke(table, defence, "Trouble Magnet", "fate point", user=table.player2)
    gone = await table.slash("character delete", user=table.player, character="Harry")
    assert "Deleted **Harry" in gone.text, gone.text
    ended = await table.slash("scene end", user=table.gm)
    assert "Harry +" not in ended.text
    voided = await table.slash("roll-void", user=table.gm, roll=roll_id(defence.text))
    assert "1 fate point back to Molly" in voided.text, voided.text
    assert await fate_points(table, molly_id) == 3


async def test_contests_and_challenges_pay_hostile_invokes_when_they_close(
    table: Table,
) -> None:
    """A fate point spent on the other side's aspect in a contest owes its character that
    point, paid when the contest closes (found by a review: only /roll and the conflict paid);
    in a challenge, where everyone is on one side, an ally's aspect owes nothing."""
    people = await make_characters(table)
    dice = ScriptedDice()
    use_dice(table, dice)
    gm, alice = table.gm, table.player
    started = await table.slash("contest start", user=gm, side_a="Charles", side_b="Molly")
    assert started.message is not None
    tracker_id = int(started.message["id"])
    dice.load(0, 0, 0, 0)
    opened = await table.click(table.message(tracker_id), "Roll for my side", user=alice)
    await choose(table, opened, "Roll which skill?", "Athletics", user=alice)
    opened = await table.click(table.message(tracker_id), "Invoke +2", user=alice)
    await choose(table, opened, "Pick an aspect", "Fate point: Wizard's apprentice", user=alice)
    assert "Molly is owed a fate point when it ends." in message_text(table.message(tracker_id))
    ended = await table.slash("contest end", user=gm)
    assert "Paid for hostile invokes: Molly +1." in ended.text + message_text(
        table.message(tracker_id)
    )
    charles, molly = [await sheet(table, people[k]) for k in ("charles", "molly")]
    assert (charles.fate_points, molly.fate_points) == (2, 4)

    challenge = await table.slash(
        "challenge start", user=gm, tasks="Athletics:Fair", title="Over the wall"
    )
    assert challenge.message is not None
    tracker_id = int(challenge.message["id"])
    await table.click(table.message(tracker_id), "Claim a task", user=alice)
    dice.load(-1, -1, -1, -1)
    await table.click(table.message(tracker_id), "Roll a task", user=alice)
    opened = await table.click(table.message(tracker_id), "Invoke +2", user=alice)
    await choose(table, opened, "Pick an aspect", "Fate point: Wizard's apprentice", user=alice)
    await table.click(table.message(tracker_id), "Keep the roll", user=alice)
    shown = message_text(table.message(tracker_id))
    assert "owed" not in shown and "Paid for hostile invokes" not in shown
    molly = await sheet(table, people["molly"])
    assert molly.fate_points == 4
