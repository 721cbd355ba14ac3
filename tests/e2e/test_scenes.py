"""Playing a scene through the fake Discord: the board, aspects, advantages, boosts, compels,
sessions, recovery, the fate point ledger and the safety tools."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from bot.errors import RuleError
from bot.fate.sheet import Character, new_character
from bot.services.aspects_in_play import aspects_in_play_in, spend_free_invoke_in
from bot.services.campaigns import (
    get_character_in,
    insert_character_in,
    resolve_campaign_in,
    save_character_in,
    set_active_in,
)
from bot.testing.harness import Table, iter_components, message_text


class FixedDice(random.Random):
    """Every Fate die shows the faces given, then blanks."""

    def __init__(self, faces: list[int] | None = None) -> None:
        super().__init__(0)
        self.faces = list(faces or [])

    def choice(self, seq: Any) -> Any:
        return self.faces.pop(0) if self.faces else 0


def _disabled(message: dict[str, Any] | None, label: str) -> bool:
    """Whether the message's button with this label is greyed out."""
    buttons = iter_components((message or {}).get("components") or [])
    return bool(next(b for b in buttons if b.get("label") == label).get("disabled"))


async def make_character(
    table: Table,
    user: int,
    name: str,
    *,
    skills: dict[str, int] | None = None,
    npc: bool = False,
    fate_points: int | None = None,
) -> int:
    """A character made with the service helpers and set active for its owner."""
    assert table.bot is not None
    sheet: Character = new_character(name, skills=skills or {"Notice": 2, "Lore": 1, "Will": 1})
    if npc:
        from bot.fate.sheet import NpcKind, make_npc

        sheet = make_npc(sheet, NpcKind.MAJOR)
    if fate_points is not None:
        sheet = sheet.set_fate_points(fate_points)
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        record = await insert_character_in(s, campaign, user, sheet)
        if not npc:
            await set_active_in(s, table.guild_id, user, record.id, None)
    return record.id


async def sheet_of(table: Table, character_id: int) -> Character:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        return (await get_character_in(s, character_id)).sheet


def set_dice(table: Table, faces: list[int]) -> None:
    """The next roll's dice, for the scene service and the roll service alike."""
    assert table.bot is not None
    dice = FixedDice(faces)
    for name in ("Scenes", "Rolls"):
        cog: Any = table.bot.get_cog(name)  # type: ignore[attr-defined]
        cog.service.rng = dice


async def advantage(table: Table, *, user: int, **options: Any) -> tuple[Any, str]:
    """/advantage, then its roll message's resolve button: (the roll reply, the message after)."""
    reply = await table.slash("advantage", user=user, **options)
    assert reply.message is not None, reply.text
    resolving = ("Create aspect", "Resolve advantage", "Don't create it")  # the last: a failure
    label = next(lab for lab in reply.labels() if lab in resolving)
    done = await table.click(reply, label, user=user)
    assert not done.ephemeral, done.text
    return reply, message_text(table.message(reply.message["id"]))


def board(table: Table) -> dict[str, Any]:
    pinned = table.fake.pins.get(table.channel, [])
    assert len(pinned) == 1, pinned
    return table.message(pinned[0])


async def in_play(table: Table, *, hidden: bool = True) -> dict[str, Any]:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        found = await aspects_in_play_in(s, campaign, table.channel, include_hidden=hidden)
    return {a.name: a for a in found}


async def spend(table: Table, key: str, holder: str) -> None:
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(s, table.guild_id, table.channel)
        await spend_free_invoke_in(s, campaign, table.channel, key, holder)


async def start_scene(table: Table, **options: Any) -> Any:
    reply = await table.slash("scene start", user=table.gm, **options)
    assert not reply.ephemeral, reply.text
    return reply


# ---------------------------------------------------------------------------- scenes and board
async def test_scene_start_pins_one_board_edited_in_place(table: Table) -> None:
    await make_character(table, table.player, "Harry")
    await make_character(table, table.player2, "Molly")
    refused = await table.slash("scene start", user=table.player, aspects="Rain")
    assert refused.ephemeral and "Only the GM" in refused.text

    reply = await start_scene(
        table,
        title="The alley",
        aspects="Pouring Rain, Dark Alley",
        zones="Street, Rooftop",
        characters="Harry",
    )
    first = board(table)
    assert reply.message is not None and reply.message["id"] == first["id"]  # the answer is it
    assert "Scene: The alley" in reply.text and len(table.channel_messages()) == 1
    text = message_text(first)
    assert "Pouring Rain" in text and "Dark Alley" in text and "Street" in text
    assert "GM pool: **1**" in text and "Harry: **3**" in text

    joined = await table.slash("scene join", user=table.player2, zone="Rooftop")
    assert "Molly joins the scene in Rooftop" in joined.text
    moved = await table.slash("scene move", user=table.player, zone="street")
    assert "Harry moves to Street" in moved.text
    again = board(table)
    assert again["id"] == first["id"]  # the same pinned message, edited
    assert "**Rooftop**: Molly" in message_text(again)
    assert "**Street**: Harry" in message_text(again)

    twice = await table.slash("scene start", user=table.gm)
    assert twice.ephemeral and "already running" in twice.text
    nobody = await table.slash("scene move", user=table.player3, zone="Street")
    assert nobody.ephemeral and "no active character" in nobody.text
    bad_zone = await table.slash("scene move", user=table.player, zone="Moon")
    assert bad_zone.ephemeral and "Zones: Street, Rooftop" in bad_zone.text


async def test_hidden_aspects_only_for_the_gm_and_board_survives_restart(table: Table) -> None:
    await make_character(table, table.player, "Harry")
    await start_scene(table, aspects="Fog", characters="Harry")
    pinned = board(table)["id"]

    await table.restart()
    hidden = await table.slash("aspect add", user=table.gm, text="Sniper On The Roof", hidden=True)
    assert hidden.ephemeral
    added = await table.slash("aspect add", user=table.gm, text="Broken Glass")
    assert not added.ephemeral
    assert board(table)["id"] == pinned  # edited after the restart, not re-posted
    public = message_text(board(table))
    assert "Broken Glass" in public and "Sniper" not in public
    assert all("Sniper" not in message_text(m) for m in table.fake.public_messages())

    player_view = await table.click(board(table), "Show my view", user=table.player)
    assert player_view.ephemeral and "Sniper" not in player_view.text
    gm_view = await table.click(board(table), "Show my view", user=table.gm)
    assert gm_view.ephemeral and "Sniper On The Roof" in gm_view.text

    choices = await table.autocomplete("aspect remove", "aspect", user=table.player)
    assert all("Sniper" not in c["name"] for c in choices)
    gm_choices = await table.autocomplete("aspect reveal", "aspect", user=table.gm)
    key = next(c["value"] for c in gm_choices if "Sniper" in c["name"])
    shown = await table.slash("aspect reveal", user=table.gm, aspect=key)
    assert "Revealed: **Sniper On The Roof**" in shown.text
    assert "Sniper On The Roof" in message_text(board(table))


# ---------------------------------------------------------------------------- advantages, boosts
async def test_advantage_with_style_gives_two_free_invokes_spent_on_one_roll(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    await start_scene(table, aspects="Dark Alley", characters="Harry")
    skills = await table.autocomplete("advantage", "skill", user=table.player, skill="")
    assert skills[0] == {"name": "Notice (+2)", "value": "Notice"}
    assert any(
        c["value"] == "Deceive"
        for c in await table.autocomplete("recovery treat", "skill", user=table.player, skill="dec")
    )
    set_dice(table, [1, 1, 1, 1])  # +4 on the dice, Notice +2 = 6 against Fair (+2)
    reply, shown = await advantage(
        table, user=table.player, skill="notice", aspect="Weak Spot Spotted"
    )
    assert not reply.ephemeral
    assert "Success with style" in shown and "2 free invoke" in shown
    assert "Harry ×2" in message_text(board(table))

    aspect = (await in_play(table))["Weak Spot Spotted"]
    assert aspect.free_invokes == {f"char:{harry}": 2}
    await spend(table, aspect.key, f"char:{harry}")
    await spend(table, aspect.key, f"char:{harry}")
    with pytest.raises(RuleError, match="no free invoke"):
        await spend(table, aspect.key, f"char:{harry}")
    await table.settle()
    assert (await in_play(table))["Weak Spot Spotted"].free_invokes == {}
    assert "Harry ×2" not in message_text(board(table))

    # existing aspect: a plain success adds one more invoke
    set_dice(table, [1, 0, 0, 0])
    _, more = await advantage(table, user=table.player, skill="Notice", aspect=aspect.key)
    assert "Success" in more and "gains 1 free invoke" in more
    assert (await in_play(table))["Weak Spot Spotted"].free_invokes == {f"char:{harry}": 1}


async def test_tie_gives_a_boost_that_vanishes_after_use(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    await start_scene(table, characters="Harry")
    set_dice(table, [0, 0, 0, 0])  # Notice +2 against Fair (+2): a tie
    _, shown = await advantage(table, user=table.player, skill="Notice", aspect="Off Balance")
    assert "Tie" in shown and "boost" in shown
    boost = (await in_play(table))["Off Balance"]
    assert boost.is_boost and boost.free_invokes == {f"char:{harry}": 1}
    assert "*Off Balance* (boost, Harry)" in message_text(board(table))
    await spend(table, boost.key, f"char:{harry}")
    await table.settle()
    assert "Off Balance" not in await in_play(table)
    assert "Off Balance" not in message_text(board(table))


async def test_failed_advantage_and_gm_choice(table: Table) -> None:
    await make_character(table, table.player, "Harry")
    await start_scene(table, characters="Harry")
    set_dice(table, [-1, -1, -1, -1])
    _, failed = await advantage(table, user=table.player, skill="Notice", aspect="Cornered")
    assert "Fail" in failed and "not created" in failed
    assert "Cornered" not in await in_play(table)
    set_dice(table, [-1, -1, -1, -1])  # the roller's own choice, made beforehand
    _, chosen = await advantage(
        table,
        user=table.player,
        skill="Notice",
        aspect="Boxed In",
        on_fail="created, enemy holds the invoke",
    )
    assert "enemy holds its free invoke" in chosen
    assert (await in_play(table))["Boxed In"].free_invokes == {"gm": 1}
    added = await table.slash("aspect add", user=table.gm, text="Cornered", gm_invokes=1)
    assert not added.ephemeral
    assert (await in_play(table))["Cornered"].free_invokes == {"gm": 1}

    set_dice(table, [-1, -1, -1, -1])  # the GM rolls for Harry and picks success at a cost
    _, costly = await advantage(
        table,
        user=table.gm,
        character="Harry",
        skill="Notice",
        aspect="Pinned Down",
        on_fail="created, enemy holds the invoke",
    )
    assert "Fail" in costly and "enemy holds its free invoke" in costly
    assert (await in_play(table))["Pinned Down"].free_invokes == {"gm": 1}


async def test_pass_a_free_invoke_to_an_ally(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    molly = await make_character(table, table.player2, "Molly")
    await start_scene(table, characters="Harry, Molly")
    set_dice(table, [1, 1, 0, 0])
    await advantage(table, user=table.player, skill="Notice", aspect="Distracted Guard")
    passed = await table.slash(
        "aspect pass", user=table.player, aspect="Distracted Guard", to="Molly"
    )
    assert "passes to Molly" in passed.text
    assert (await in_play(table))["Distracted Guard"].free_invokes == {f"char:{molly}": 1}
    again = await table.slash(
        "aspect pass", user=table.player, aspect="Distracted Guard", to="Molly"
    )
    assert again.ephemeral and "no free invoke" in again.text
    assert harry != molly


async def test_scene_end_clears_stress_and_boosts_and_keeps_game_aspects(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    sheet = await sheet_of(table, harry)
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        record = await get_character_in(s, harry)
        await save_character_in(s, record, sheet.mark_box("physical", 1))
    await start_scene(table, aspects="Burning Warehouse, Smoke", characters="Harry")
    await table.slash(
        "aspect add", user=table.gm, text="Lucky Break", kind="boost", boost_for="Harry"
    )
    assert "Lucky Break" in await in_play(table)
    ended = await table.slash("scene end", user=table.gm, keep="Burning Warehouse")
    assert "Stress cleared for: Harry" in ended.text
    assert "Kept as game aspects: Burning Warehouse" in ended.text
    assert (await sheet_of(table, harry)).track("physical").is_free
    left = await in_play(table)
    assert set(left) == {"Burning Warehouse"}  # now a game aspect, the boost and Smoke are gone
    assert table.fake.pins.get(table.channel) == []  # the ended board is unpinned
    show = await table.slash("scene show", user=table.player)
    assert show.ephemeral and "No scene is running" in show.text


# ---------------------------------------------------------------------------- compels
def offer_message(table: Table) -> dict[str, Any]:
    return [m for m in table.channel_messages() if "**Compel #" in (m.get("content") or "")][-1]


async def test_compels_accepted_and_refused_move_fate_points_both_ways(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    await start_scene(table, aspects="Pouring Rain", characters="Harry")

    offered = await table.slash(
        "compel offer",
        user=table.gm,
        target="Harry",
        aspect="Pouring Rain",
        complication="Your staff slips on the wet stones.",
    )
    assert not offered.ephemeral and "Compel #" in offered.text
    assert {"Accept (+1 FP)", "Refuse (-1 FP)", "Withdraw"} <= set(offered.labels())
    listed = await table.slash("compel list", user=table.player2)
    assert listed.ephemeral and "on **Harry**" in listed.text

    stranger = await table.click(offered, "Accept", user=table.player2)
    assert stranger.ephemeral and "Only Harry's player" in stranger.text
    await table.restart()  # the offer's buttons survive a restart
    stale = copy.deepcopy(offered.message)  # a second client still showing the buttons
    assert stale is not None
    accepted = await table.click(offered, "Accept", user=table.player)
    assert "Accepted" in message_text(accepted.message) and accepted.buttons() == []
    assert (await sheet_of(table, harry)).fate_points == 4
    twice = await table.click(stale, "Accept", user=table.player)
    assert twice.ephemeral and "already accepted" in twice.text
    assert (await sheet_of(table, harry)).fate_points == 4
    assert "Harry: **4**" in message_text(board(table))

    second = await table.slash(
        "compel offer", user=table.gm, target="Harry", aspect="Pouring Rain", complication="Cold."
    )
    refused = await table.click(second, "Refuse", user=table.player)
    assert "Refused" in message_text(refused.message)
    assert (await sheet_of(table, harry)).fate_points == 3

    await table.slash("fp take", user=table.gm, character="Harry", amount=3)
    assert (await sheet_of(table, harry)).fate_points == 0
    third = await table.slash(
        "compel offer", user=table.gm, target="Harry", aspect="Pouring Rain", complication="Soaked."
    )
    broke = await table.click(third, "Refuse", user=table.player)
    assert broke.ephemeral and "accept it instead" in broke.text
    assert (await sheet_of(table, harry)).fate_points == 0
    await table.click(third, "Accept", user=table.player)
    assert (await sheet_of(table, harry)).fate_points == 1
    empty = await table.slash("compel list", user=table.gm)
    assert "No compel is waiting" in empty.text


async def test_a_player_pays_to_compel_and_gets_it_back_on_withdraw(table: Table) -> None:
    await make_character(table, table.player, "Harry")
    molly = await make_character(table, table.player2, "Molly")
    await start_scene(table, aspects="Crowded Market", characters="Harry, Molly")
    offered = await table.slash(
        "compel offer",
        user=table.player2,
        target="Harry",
        aspect="Crowded Market",
        complication="You lose sight of the thief.",
    )
    assert "by Molly" in offered.text
    assert (await sheet_of(table, molly)).fate_points == 2
    not_gm = await table.click(offered, "Withdraw", user=table.player)
    assert not_gm.ephemeral and "Only whoever offered" in not_gm.text
    withdrawn = await table.click(offered, "Withdraw", user=table.player2)
    assert "Withdrawn" in message_text(withdrawn.message)
    assert (await sheet_of(table, molly)).fate_points == 3
    hidden = await table.slash("aspect add", user=table.gm, text="Secret Cult", hidden=True)
    assert hidden.ephemeral
    sneaky = await table.slash(
        "compel offer", user=table.gm, target="Harry", aspect="Secret Cult", complication="x"
    )
    assert sneaky.ephemeral and "reveal it" in sneaky.text


# ---------------------------------------------------------------------------- sessions, ledger
async def test_session_start_refreshes_only_those_below_refresh(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry", fate_points=1)
    molly = await make_character(table, table.player2, "Molly", fate_points=5)
    await make_character(table, table.gm, "Marcone", npc=True, fate_points=0)
    refused = await table.slash("session start", user=table.player)
    assert refused.ephemeral and "Only the GM" in refused.text
    started = await table.slash("session start", user=table.gm)
    assert "Session 1 starts" in started.text
    assert "Harry: +2 → 3" in started.text and "kept): Molly" in started.text
    assert "Marcone" not in started.text
    assert (await sheet_of(table, harry)).fate_points == 3
    assert (await sheet_of(table, molly)).fate_points == 5

    ended = await table.slash("session end", user=table.gm)
    assert "Session 1 ends" in ended.text and "Harry (minor)" in ended.text
    used = await table.slash("session use-milestone", user=table.player)
    assert "Harry has used a minor milestone" in used.text
    again = await table.slash("session use-milestone", user=table.player)
    assert again.ephemeral and "no unused minor milestone" in again.text
    arc = await table.slash("session arc-end", user=table.gm)
    assert "Arc 1 ends" in arc.text and "Harry (major)" in arc.text
    assert "Molly (minor)" in arc.text
    not_twice = await table.slash("session end", user=table.gm)
    assert not_twice.ephemeral and "No session is running" in not_twice.text


async def test_gm_undoes_a_fate_point_movement_and_the_log_pages(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    nothing = await table.slash("fp undo", user=table.gm)
    assert nothing.ephemeral and "no fate point movement left" in nothing.text
    given = await table.slash("fp give", user=table.gm, character="Harry", amount=2, note="nice")
    assert "Harry gains 2 fate points: now 5" in given.text
    not_gm = await table.slash("fp undo", user=table.player)
    assert not_gm.ephemeral and "Only the GM" in not_gm.text
    preview = await table.slash("fp undo", user=table.gm)
    assert preview.ephemeral and "Undo `#" in preview.text and "5 → 3" in preview.text
    assert (await sheet_of(table, harry)).fate_points == 5  # nothing changes before Confirm
    snapshot = dict(preview.message or {})
    undone = await table.click(preview, "Confirm undo", user=table.gm)
    assert "Undone" in undone.text and "now has 3" in undone.text
    assert (await sheet_of(table, harry)).fate_points == 3
    twice = await table.click(snapshot, "Confirm undo", user=table.gm)  # a double click
    assert twice.ephemeral and "already undone" in twice.text
    log = await table.slash("fp log", user=table.player)
    assert log.ephemeral and "~~" in log.text and "undo" in log.text
    assert "no fate point movement left" in (await table.slash("fp undo", user=table.gm)).text

    for _ in range(11):
        await table.slash("fp give", user=table.gm, character="Harry", amount=1)
    paged = await table.slash("fp log", user=table.player, character="Harry")
    assert "Page 1 of 2 ·" in paged.text
    older = await table.click(paged, "Older ▶", user=table.player)
    assert "Page 2 of 2" in message_text(older.message)
    assert _disabled(older.message, "Older ▶") and not _disabled(older.message, "◀ Newer")
    too_many = await table.slash("fp take", user=table.gm, character="Harry", amount=10)
    assert (await sheet_of(table, harry)).fate_points == 4
    assert not too_many.ephemeral

    no_scene_pool = await table.slash("fp give", user=table.gm, character="GM")
    assert no_scene_pool.ephemeral and "No scene is running" in no_scene_pool.text
    await start_scene(table, characters="Harry")
    pool = await table.slash("fp give", user=table.gm, character="GM", amount=2)
    assert "GM pool gains 2" in pool.text and "now 3" in pool.text
    await table.click(await table.slash("fp undo", user=table.gm), "Confirm undo", user=table.gm)
    assert "GM pool: **1**" in message_text(board(table))
    await table.slash("fp give", user=table.gm, character="GM", note="for the Hidden Sniper")
    assert "Hidden Sniper" not in (await table.slash("fp log", user=table.player)).text
    assert "Hidden Sniper" in (await table.slash("fp log", user=table.gm)).text


async def test_an_undo_preview_confirmed_after_its_channel_changed_campaign_is_refused(
    table: Table,
) -> None:
    """Confirm undo carries the campaign it was previewed in; if the channel plays another
    campaign by then, the click is refused with what to type, and nothing moves."""
    harry = await make_character(table, table.player, "Harry")
    await table.slash("fp give", user=table.gm, character="Harry", amount=2)
    preview = await table.slash("fp undo", user=table.gm)
    assert preview.ephemeral and "5 → 3" in preview.text
    snapshot = dict(preview.message or {})
    await table.slash("campaign create", user=table.gm, name="Second Table", bind=False)
    moved = await table.slash("campaign bind", user=table.gm, name="Second Table")
    assert "now plays **Second Table**" in moved.text
    refused = await table.click(snapshot, "Confirm undo", user=table.gm)
    assert refused.ephemeral and "preview was made for another campaign" in refused.text
    assert "**Second Table**" in refused.text and "`/fp undo`" in refused.text, refused.text
    assert (await sheet_of(table, harry)).fate_points == 5
    # the other channel still plays the first campaign: its ledger is still whole there
    there = await table.slash("fp undo", user=table.gm, channel=table.other_channel)
    assert there.ephemeral and "5 → 3" in there.text, there.text
    await table.slash("campaign bind", user=table.gm, name="Main campaign")
    undone = await table.click(snapshot, "Confirm undo", user=table.gm)
    assert "Undone" in undone.text and (await sheet_of(table, harry)).fate_points == 3


async def _reversal_of(table: Table, entry_id: int) -> int:
    """The ledger entry that undid ``entry_id`` (PostgreSQL's sequences may skip numbers)."""
    from sqlmodel import select

    from bot.db.models.campaigns import FatePointEntry

    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        found = await s.exec(select(FatePointEntry).where(FatePointEntry.undoes_id == entry_id))
        entry = found.one()
    assert entry.id is not None
    return entry.id


async def test_fp_undo_names_the_entry_previews_and_never_skips_one(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    await start_scene(table, characters="Harry")
    await table.slash("fp give", user=table.gm, character="GM", amount=2)
    await table.slash("scene end", user=table.gm)
    # the newest movement moved a GM pool whose scene is over: said so, not skipped silently
    stuck = await table.slash("fp undo", user=table.gm)
    assert stuck.ephemeral and "cannot be undone: the scene whose GM pool it moved has ended" in (
        stuck.text
    )
    assert "Entry #" in stuck.text and "entry:" in stuck.text
    await table.slash("fp give", user=table.gm, character="Harry", amount=1, note="good idea")
    choices = await table.autocomplete("fp undo", "entry", user=table.gm, entry="")
    labels = [c["name"] for c in choices]
    assert labels[0].startswith("#") and "Harry +1 (GM edit) — good idea" in labels[0]
    assert not await table.autocomplete("fp undo", "entry", user=table.player, entry="")
    gm_entry = next(c["value"] for c in choices if "GM +2" in c["name"])
    refused = await table.slash("fp undo", user=table.gm, entry=gm_entry)
    assert refused.ephemeral and f"Entry #{gm_entry}" in refused.text and "ended" in refused.text

    older = choices[-1]["value"]  # an older entry by number, not the newest
    harry_entry = next(c["value"] for c in choices if "Harry +1" in c["name"])
    preview = await table.slash("fp undo", user=table.gm, entry=harry_entry)
    assert f"Undo `#{harry_entry}`" in preview.text and "4 → 3" in preview.text
    assert (await sheet_of(table, harry)).fate_points == 4
    done = await table.click(preview, "Confirm undo", user=table.gm)
    assert not done.followups[-1].get("flags") and "now has 3" in done.text
    assert (await sheet_of(table, harry)).fate_points == 3
    reversal_id = await _reversal_of(table, harry_entry)  # its number is not assumed
    reversal = await table.slash("fp undo", user=table.gm, entry=reversal_id)
    assert reversal.ephemeral and "itself a reversal" in reversal.text
    missing = await table.slash("fp undo", user=table.gm, entry=999999)
    assert missing.ephemeral and "no entry #999999" in missing.text
    assert older in [c["value"] for c in choices]


# ---------------------------------------------------------------------------- recovery, safety
async def test_treated_mild_consequence_clears_after_one_full_scene(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    await make_character(table, table.player2, "Molly", skills={"Lore": 2, "Will": 1, "Notice": 1})
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        record = await get_character_in(s, harry)
        await save_character_in(s, record, record.sheet.take_consequence("mild", "Bruised Ribs"))
    await start_scene(table, characters="Harry, Molly")
    economy: Any = table.bot.get_cog("Economy")  # type: ignore[attr-defined]
    economy.economy.rng = FixedDice([1, 0, 0, 0])  # +1 + Lore +2 = 3 against Fair (+2)
    treated = await table.slash(
        "recovery treat",
        user=table.player2,
        patient="Harry",
        consequence="mild",
        skill="Lore",
        healing_name="Taped Ribs",
    )
    assert "Success" in treated.text and "Taped Ribs" in treated.text
    assert (await sheet_of(table, harry)).track("mild").aspect == "Taped Ribs"
    await table.slash("scene end", user=table.gm)  # the scene of the treatment does not count
    assert (await sheet_of(table, harry)).track("mild").aspect == "Taped Ribs"
    await start_scene(table, characters="Harry")
    ended = await table.slash("scene end", user=table.gm)
    assert "Taped Ribs has cleared" in ended.text
    assert (await sheet_of(table, harry)).track("mild").is_free

    economy.economy.rng = FixedDice([0, 0, 0, 0])
    empty = await table.slash(
        "recovery treat", user=table.player, consequence="mild", skill="Lore", healing_name="x"
    )
    assert empty.ephemeral and "holds no consequence" in empty.text


@pytest.mark.parametrize(
    ("command", "options", "word"),
    [
        ("x-card", {}, "X-card"),
        ("script-change", {"signal": "pause"}, "Pause"),
        ("script-change", {"signal": "rewind"}, "Rewind"),
        ("script-change", {"signal": "fast-forward"}, "Fast-forward"),
    ],
)
async def test_safety_signals_never_say_who(
    table: Table, command: str, options: dict[str, Any], word: str
) -> None:
    reply = await table.slash(command, user=table.player3, **options)
    assert reply.ephemeral and "never" in reply.text
    notices = [m for m in table.channel_messages() if word in (m.get("content") or "")]
    assert len(notices) == 1
    notice = notices[0]
    assert "interaction" not in notice and "interaction_user_id" not in notice
    assert "carol" not in notice["content"] and str(table.player3) not in json_dump(notice)
    again = await table.slash(command, user=table.player, **options)
    assert again.ephemeral
    assert len([m for m in table.channel_messages() if word in (m.get("content") or "")]) == 1


def json_dump(value: Any) -> str:
    import json

    return json.dumps(value)


async def test_both_free_invokes_from_a_stylish_advantage_go_on_one_roll(table: Table) -> None:
    from tests.e2e.test_rolls import invoke, roll_message

    harry = await make_character(table, table.player, "Harry")
    await start_scene(table, characters="Harry")
    set_dice(table, [1, 1, 1, 1])
    await advantage(table, user=table.player, skill="Notice", aspect="Weak Spot Spotted")
    assert (await in_play(table))["Weak Spot Spotted"].free_invokes == {f"char:{harry}": 2}

    roll = await table.slash("roll", user=table.player, skill="Notice", difficulty="Fair")
    assert not roll.ephemeral, roll.text
    await invoke(table, roll, "Weak Spot", "Free", user=table.player)
    await invoke(table, roll, "Weak Spot", "Free", user=table.player)
    shown = message_text(roll_message(table, roll))
    assert shown.count("Weak Spot Spotted") >= 2
    assert (await in_play(table))["Weak Spot Spotted"].free_invokes == {}
    assert (await sheet_of(table, harry)).fate_points == 3  # both invokes were free
    assert "Harry ×" not in message_text(board(table))


async def test_a_burst_of_changes_is_coalesced_into_few_board_edits(table: Table) -> None:
    names = ["Harry", "Molly", "Mouse", "Thomas", "Karrin", "Waldo"]
    users = [table.fake.add_member(table.guild_id, f"burst-{n}") for n in range(len(names))]
    for user, name in zip(users, names, strict=True):
        await make_character(table, user, name)
    await start_scene(table, zones="Street, Roof", characters=", ".join(names))
    pinned = board(table)["id"]
    before = len(table.fake.requests)
    records = [await table.fire("scene move", user=user, zone="Roof") for user in users]
    for record in records:
        await record.answered.wait()
    await table.settle()
    for record in records:  # simultaneous moves all succeed (stale saves are retried)
        reply = message_text(table.fake.messages.get(record.original_id or 0))
        assert "moves to Roof" in reply, reply
    edits = [
        r
        for r in table.fake.requests[before:]
        if r.method == "PATCH" and r.path.endswith(f"/messages/{pinned}")
    ]
    assert 1 <= len(edits) < len(records)
    final = message_text(board(table))
    assert "**Roof**: " + ", ".join(names) in final  # the last edit shows the end state


def test_board_stays_within_discord_limits_when_full() -> None:
    from bot.fate.aspects import new_aspect
    from bot.fate.scene import Scene, SceneParticipant, Zone
    from bot.services.scenes import BoardData
    from bot.ui.common import EMBED_TOTAL_LIMIT, FIELD_VALUE_LIMIT
    from bot.ui.scenes import board_embed

    people = [
        SceneParticipant(id=f"char:{n}", name=f"{'Very Long Name ' * 5}{n}"[:80], zone=f"z{n % 10}")
        for n in range(25)
    ]
    holders = [p.id for p in people[:10]]
    aspects = [
        new_aspect(f"s{n}", f"{'An Extremely Wordy Situation ' * 3}{n}"[:80], free_invokes=holders)
        for n in range(20)
    ]
    zones = [Zone(key=f"z{n}", name=f"{'Zone ' * 12}{n}"[:60]) for n in range(10)]
    scene = Scene(channel_id=1, title="T" * 60, aspects=aspects, zones=zones, participants=people)
    data = BoardData(
        channel_id=1,
        scene=scene,
        game_aspects=[
            new_aspect(f"g{n}", f"{'Campaign Wide Trouble ' * 4}{n}"[:80]) for n in range(20)
        ],
        names={p.id: p.name for p in people},
        fate_points={p.id: 99 for p in people},
        message_id=None,
        active=True,
    )
    for for_gm in (False, True):
        embed = board_embed(data, for_gm=for_gm)
        assert len(embed) <= EMBED_TOTAL_LIMIT
        assert all(len(f.value or "") <= FIELD_VALUE_LIMIT for f in embed.fields)
        assert embed.description and "GM pool" in "".join(f.value or "" for f in embed.fields)


async def test_compel_on_the_targets_own_aspect_with_autocomplete(table: Table) -> None:
    from bot.fate.sheet import AspectKind

    harry = await make_character(table, table.player, "Harry")
    await make_character(table, table.player2, "Molly")
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        record = await get_character_in(s, harry)
        sheet = record.sheet.set_aspect(AspectKind.TROUBLE, "The Building Was On Fire")
        await save_character_in(s, record, sheet)
    await start_scene(table, aspects="Crowded Market", characters="Harry, Molly")
    choices = await table.autocomplete(
        "compel offer", "aspect", user=table.gm, target="Harry", aspect="fire"
    )
    assert choices and choices[0]["name"].startswith("The Building Was On Fire (Harry)")
    offered = await table.slash(
        "compel offer",
        user=table.gm,
        target="Harry",
        aspect=choices[0]["value"],
        complication="The wards flare and the lights go out.",
    )
    assert "*The Building Was On Fire*" in offered.text
    by_text = await table.slash(
        "compel offer", user=table.gm, target="Harry", aspect="crowded market", complication="x"
    )
    assert "*Crowded Market*" in by_text.text
    unknown = await table.slash(
        "compel offer", user=table.gm, target="Harry", aspect="Sunny Day", complication="x"
    )
    assert unknown.ephemeral and "pick one from the suggestions" in unknown.text


async def test_compelling_an_npc_moves_the_gm_pool(table: Table) -> None:
    molly = await make_character(table, table.player2, "Molly")
    await make_character(table, table.gm, "Marcone", npc=True)
    await start_scene(table, aspects="Rival Gangs", characters="Molly, Marcone", carried=1)
    assert "GM pool: **2**" in message_text(board(table))  # one PC plus one carried point
    offered = await table.slash(
        "compel offer",
        user=table.player2,
        target="Marcone",
        aspect="Rival Gangs",
        complication="His men start a fight he did not order.",
    )
    assert (await sheet_of(table, molly)).fate_points == 2  # a player pays to compel
    not_gm = await table.click(offered, "Refuse", user=table.player2)
    assert not_gm.ephemeral and "Only the GM" in not_gm.text
    refused = await table.click(offered, "Refuse", user=table.gm)
    assert "Refused" in message_text(refused.message)
    assert "GM pool now holds 1" in message_text(refused.message)
    await table.slash("fp take", user=table.gm, character="GM", amount=1)
    again = await table.slash(
        "compel offer",
        user=table.gm,
        target="Marcone",
        aspect="Rival Gangs",
        complication="The truce breaks.",
    )
    broke = await table.click(again, "Refuse", user=table.gm)
    assert broke.ephemeral and "accept it instead" in broke.text
    accepted = await table.click(again, "Accept", user=table.gm)
    assert "GM pool now holds 1" in message_text(accepted.message)
    assert "GM pool: **1**" in message_text(board(table))


async def test_x_card_on_the_board_is_anonymous_after_a_restart(table: Table) -> None:
    await start_scene(table, aspects="Fog")
    await table.restart()
    tapped = await table.click(board(table), "X-card", user=table.player2)
    assert tapped.ephemeral and "never by whom" in tapped.text
    notices = [m for m in table.channel_messages() if "X-card" in (m.get("content") or "")]
    assert len(notices) == 1
    assert "interaction" not in notices[0] and "interaction_user_id" not in notices[0]
    assert "bob" not in json_dump(notices[0]) and str(table.player2) not in json_dump(notices[0])


async def test_x_card_on_a_fresh_board_works_without_a_restart(table: Table) -> None:
    await start_scene(table, aspects="Fog")
    tapped = await table.click(board(table), "X-card", user=table.player2)
    assert tapped.ephemeral and "never by whom" in tapped.text, tapped.text
    assert "incident" not in tapped.text
    notices = [m for m in table.channel_messages() if "X-card" in (m.get("content") or "")]
    assert len(notices) == 1


async def test_compel_list_says_how_many_more_past_the_first_25(table: Table) -> None:
    await make_character(table, table.player, "Harry")
    await start_scene(table, aspects="Pouring Rain", characters="Harry")
    for number in range(28):
        offered = await table.slash(
            "compel offer",
            user=table.gm,
            target="Harry",
            aspect="Pouring Rain",
            complication=f"Trouble number {number}.",
        )
        assert not offered.ephemeral, offered.text
    listed = await table.slash("compel list", user=table.player)
    assert listed.ephemeral
    assert listed.text.count("• #") == 25 and "… and 3 more." in listed.text
    assert len(listed.text) <= 2000


async def test_open_compels_are_capped(table: Table, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.services import compels

    monkeypatch.setattr(compels, "MAX_OPEN_OFFERS", 2)
    await make_character(table, table.player, "Harry")
    await start_scene(table, aspects="Pouring Rain", characters="Harry")
    for number in range(3):
        offered = await table.slash(
            "compel offer",
            user=table.gm,
            target="Harry",
            aspect="Pouring Rain",
            complication=f"Trouble number {number}.",
        )
        assert offered.ephemeral is (number == 2), offered.text
    assert "already waiting" in offered.text


async def test_scene_end_keeps_a_hidden_aspect_without_naming_it(table: Table) -> None:
    await start_scene(table, aspects="Rain")
    await table.slash("aspect add", user=table.gm, text="Secret Cult", hidden=True)
    ended = await table.slash("scene end", user=table.gm, keep="Rain, Secret Cult")
    assert not ended.ephemeral, ended.text
    assert "Kept as game aspects: Rain, 1 hidden one" in ended.text
    assert all("Secret Cult" not in message_text(m) for m in table.channel_messages())
    kept = await in_play(table)
    assert kept["Secret Cult"].hidden and "Rain" in kept


async def test_character_autocomplete_keeps_the_gms_npcs_from_players(table: Table) -> None:
    await make_character(table, table.player, "Harry")
    await make_character(table, table.gm, "Marcone", npc=True)
    for command, option in (("aspect pass", "to"), ("compel offer", "target")):
        player_sees = [
            c["name"] for c in await table.autocomplete(command, option, user=table.player)
        ]
        gm_sees = [c["name"] for c in await table.autocomplete(command, option, user=table.gm)]
        assert "Harry" in player_sees and "Marcone" not in player_sees
        assert "Harry" in gm_sees and "Marcone" in gm_sees
    fp_choices = await table.autocomplete("fp log", "character", user=table.player)
    assert [c["name"] for c in fp_choices] == ["GM", "Harry"]


async def test_session_end_and_arc_end_clear_treated_consequences(table: Table) -> None:
    harry = await make_character(table, table.player, "Harry")
    await make_character(table, table.player2, "Molly", skills={"Lore": 5, "Will": 1})
    assert table.bot is not None
    async with table.bot.db.session() as s:  # type: ignore[attr-defined]
        record = await get_character_in(s, harry)
        sheet = record.sheet.take_consequence("moderate", "Cracked Arm")
        await save_character_in(s, record, sheet.take_consequence("severe", "Shattered Knee"))
    economy: Any = table.bot.get_cog("Economy")  # type: ignore[attr-defined]
    for consequence, healing in (("moderate", "Arm In A Sling"), ("severe", "Knee In A Cast")):
        economy.economy.rng = FixedDice([1, 1, 1, 1])
        treated = await table.slash(
            "recovery treat",
            user=table.player2,
            patient="Harry",
            consequence=consequence,
            skill="Lore",
            healing_name=healing,
        )
        assert healing in treated.text
    await table.slash("session start", user=table.gm)
    ended = await table.slash("session end", user=table.gm)
    assert "Arm In A Sling has cleared" in ended.text and "Knee In A Cast" not in ended.text
    sheet = await sheet_of(table, harry)
    assert sheet.track("moderate").is_free and sheet.track("severe").aspect == "Knee In A Cast"
    arc = await table.slash("session arc-end", user=table.gm)
    assert "Knee In A Cast has cleared" in arc.text
    assert (await sheet_of(table, harry)).track("severe").is_free


async def test_a_player_naming_the_gms_npc_hears_the_unknown_name_answer(table: Table) -> None:
    await make_character(table, table.player, "Harry")
    await make_character(table, table.player2, "Molly")
    await make_character(table, table.gm, "Marcone", npc=True)
    await start_scene(table, zones="Street")
    npc = await table.slash("scene join", user=table.player, character="Marcone")
    unknown = await table.slash("scene join", user=table.player, character="Nobody")
    assert npc.ephemeral and unknown.ephemeral
    assert npc.text == unknown.text.replace("Nobody", "Marcone")
    npc_advantage = await table.slash(
        "advantage", user=table.player, skill="Notice", aspect="Distracted", character="Marcone"
    )
    assert npc_advantage.ephemeral and "No character called 'Marcone'" in npc_advantage.text
    other_pc = await table.slash("scene join", user=table.player, character="Molly")
    assert other_pc.ephemeral and "Molly is not yours" in other_pc.text
    gm = await table.slash("scene join", user=table.gm, character="Marcone", zone="Street")
    assert not gm.ephemeral and "Marcone joins the scene in Street" in gm.text


async def test_undoing_an_npcs_fate_point_tells_only_the_gm(table: Table) -> None:
    made = await table.slash(
        "character npc",
        user=table.gm,
        kind="major",
        name="Lord Raith",
        aspects="White Court Vampire | Hungry | Proud",
        skills="Deceive +4",
    )
    assert made.ephemeral, made.text
    given = await table.slash("fp give", user=table.gm, character="Lord Raith")
    assert given.ephemeral and "Lord Raith gains 1 fate point" in given.text
    preview = await table.slash("fp undo", user=table.gm)
    undone = await table.click(preview, "Confirm undo", user=table.gm)
    assert undone.followups and all(m.get("flags", 0) & 64 for m in undone.followups)
    await table.settle()
    public = "\n".join(message_text(m) for m in table.channel_messages())
    assert "Lord Raith" not in public
