"""Benchmark scenarios. Each feature adds its own here.

A scenario prepares the table once (`setup`, not timed) and then says which interaction to
send for request number i (`request`). The runner fires them at the chosen concurrency.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.testing.harness import Table

Request = tuple[str, int, dict[str, Any]]  # (command, user id, options)


async def _no_setup(table: Table) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Scenario:
    name: str
    request: Callable[[Table, dict[str, Any], int], Request]
    setup: Callable[[Table], Awaitable[dict[str, Any]]] = field(default=_no_setup)


def _about(table: Table, state: dict[str, Any], i: int) -> Request:
    return ("about", table.player, {})


async def _roll_setup(table: Table) -> dict[str, Any]:
    """A character with skills and aspects for the rolling player."""
    from bot.fate.sheet import AspectKind, new_character
    from bot.services.campaigns import insert_character_in, resolve_campaign_in, set_active_in

    assert table.bot is not None
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(session, table.guild_id, table.channel)
        sheet = new_character("Bench Wizard", skills={"Lore": 4, "Will": 3}).set_aspect(
            AspectKind.HIGH_CONCEPT, "Wizard for Hire"
        )
        record = await insert_character_in(session, campaign, table.player, sheet)
        await set_active_in(session, table.guild_id, table.player, record.id, None)
    return {}


def _roll(table: Table, state: dict[str, Any], i: int) -> Request:
    return ("roll", table.player, {"skill": "Lore", "difficulty": "Fair"})


async def _card_table_setup(table: Table) -> dict[str, Any]:
    """Solo Dresden card games in several channels (one live game per channel)."""
    channels = []
    for n in range(16):
        channel = table.fake.add_channel(table.guild_id, f"cards-{n}")
        lobby = await table.slash(
            "game new", user=table.player, channel=channel, game="dfccg", difficulty="apprentice"
        )
        await table.click(lobby, "Start", user=table.player)
        channels.append(channel)
    return {"channels": channels}


def _card_play(table: Table, state: dict[str, Any], i: int) -> Request:
    channels = state["channels"]
    return ("game move", table.player, {"action": "auto", "channel": channels[i % len(channels)]})


async def _conflict_setup(table: Table) -> dict[str, Any]:
    """Conflicts (a PC against an NPC) in several channels; the GM passes the turn around."""
    from bot.fate.sheet import new_character, new_minor_npc
    from bot.services.campaigns import insert_character_in, resolve_campaign_in

    assert table.bot is not None
    channels = []
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(session, table.guild_id, table.channel)
        for n in range(8):
            pc = new_character(f"Bench Knight {n}", skills={"Fight": 3, "Athletics": 2})
            npc = new_minor_npc(f"Bench Ghoul {n}", ["Ghoul"], {"Fight": 2}, stress_boxes=2)
            await insert_character_in(session, campaign, table.player, pc)
            await insert_character_in(session, campaign, table.gm, npc)
    for n in range(8):
        channel = table.fake.add_channel(table.guild_id, f"conflict-{n}")
        await table.slash(
            "conflict start",
            user=table.gm,
            channel=channel,
            kind="physical",
            participants=f"Bench Knight {n}, Bench Ghoul {n}",
            first=f"Bench Ghoul {n}",
            zones="Street, Alley",
        )
        channels.append(channel)
    return {"channels": channels}


def _conflict_turn(table: Table, state: dict[str, Any], i: int) -> Request:
    channels = state["channels"]
    return ("conflict next", table.gm, {"channel": channels[i % len(channels)]})


async def _sheet_setup(table: Table) -> dict[str, Any]:
    """Eight players, each with a full sheet of their own (as a table of regulars has)."""
    from bot.fate.sheet import AspectKind, new_character
    from bot.services.campaigns import insert_character_in, resolve_campaign_in, set_active_in

    assert table.bot is not None
    players = [table.fake.add_member(table.guild_id, f"sheet-player-{n}") for n in range(8)]
    skills = {"Fight": 4, "Athletics": 3, "Physique": 3, "Will": 2, "Notice": 2, "Lore": 2}
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(session, table.guild_id, table.channel)
        for player in players:
            sheet = new_character(f"Sheet Bench {player}", skills=skills)
            sheet = sheet.set_aspect(AspectKind.HIGH_CONCEPT, "Ex-Marine Bodyguard")
            sheet = sheet.set_aspect(AspectKind.TROUBLE, "Never Backs Down")
            record = await insert_character_in(session, campaign, player, sheet)
            await set_active_in(session, table.guild_id, player, record.id, None)
    return {"players": players}


def _sheet_view(table: Table, state: dict[str, Any], i: int) -> Request:
    players = state["players"]
    return ("character sheet", players[i % len(players)], {"full": i % 2 == 0})


def _sheet_update(table: Table, state: dict[str, Any], i: int) -> Request:
    players = state["players"]
    return ("character edit fate-points", players[i % len(players)], {"value": i % 10})


async def _scene_setup(table: Table) -> dict[str, Any]:
    """Scenes in eight channels, each with two zones and one player's character in it."""
    from bot.fate.sheet import new_character
    from bot.services.campaigns import insert_character_in, resolve_campaign_in, set_active_in

    assert table.bot is not None
    players = [table.fake.add_member(table.guild_id, f"scene-player-{n}") for n in range(8)]
    channels = [table.fake.add_channel(table.guild_id, f"scene-{n}") for n in range(8)]
    async with table.bot.db.session() as session:  # type: ignore[attr-defined]
        campaign = await resolve_campaign_in(session, table.guild_id, table.channel)
        for player in players:
            sheet = new_character(f"Scene Bench {player}", skills={"Notice": 2})
            record = await insert_character_in(session, campaign, player, sheet)
            await set_active_in(session, table.guild_id, player, record.id, None)
    for player, channel in zip(players, channels, strict=True):
        await table.slash(
            "scene start", user=table.gm, channel=channel, aspects="Fog, Rain", zones="Street, Roof"
        )
        await table.slash("scene join", user=player, channel=channel, zone="Street")
    return {"players": players, "channels": channels}


def _scene_move(table: Table, state: dict[str, Any], i: int) -> Request:
    """A move edits the pinned board; bursts in one channel are coalesced into few edits."""
    n = i % len(state["channels"])
    zone = "Roof" if (i // len(state["channels"])) % 2 == 0 else "Street"
    return ("scene move", state["players"][n], {"zone": zone, "channel": state["channels"][n]})


SCENARIOS: dict[str, Scenario] = {
    "about": Scenario("about", _about),
    "sheet-view": Scenario("sheet-view", _sheet_view, _sheet_setup),
    "sheet-update": Scenario("sheet-update", _sheet_update, _sheet_setup),
    "roll": Scenario("roll", _roll, _roll_setup),
    "card-play": Scenario("card-play", _card_play, _card_table_setup),
    "conflict-turn": Scenario("conflict-turn", _conflict_turn, _conflict_setup),
    "scene-move": Scenario("scene-move", _scene_move, _scene_setup),
}
