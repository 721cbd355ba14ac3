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


SCENARIOS: dict[str, Scenario] = {
    "about": Scenario("about", _about),
    "roll": Scenario("roll", _roll, _roll_setup),
    "card-play": Scenario("card-play", _card_play, _card_table_setup),
}
