"""Clicks on the bot's buttons and selects reach their handlers without discord.py rebuilding
the clicked message (cogs/common/clicks.py), and behave as before."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.testing.harness import Table, message_text
from cogs.common.clicks import install_click_dispatch
from tests.e2e.test_rolls import harry
from tests.e2e.test_rolls import (
    test_invoke_with_a_fate_point_then_second_paid_refused as invoke_then_a_second_paid_refused,
)


@pytest.fixture
def no_message_rebuilding(monkeypatch: pytest.MonkeyPatch) -> None:
    """discord.py's way (the whole message made into a View) fails the test if used."""

    def rebuilt(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a click rebuilt the whole message into a View")

    monkeypatch.setattr(discord.ui.View, "from_message", rebuilt)


@pytest.mark.usefixtures("no_message_rebuilding")
async def test_a_button_and_a_select_are_answered_without_rebuilding_the_message(
    table: Table,
) -> None:
    # the Invoke button opens the aspect picker, whose select's values reach the handler
    await invoke_then_a_second_paid_refused(table)


@pytest.mark.usefixtures("no_message_rebuilding")
async def test_a_card_game_hand_is_played_by_clicks(table: Table) -> None:
    lobby = await table.slash(
        "game new", user=table.player, game="dfccg", options="difficulty=apprentice"
    )
    board = await table.click(lobby, "Start", user=table.player)
    hand = await table.click(board, "My hand", user=table.player)
    assert hand.ephemeral and "Your hand" in hand.text
    first = await table.click(hand, hand.labels()[0], user=table.player)  # who goes first
    assert first.callback_type == 7 and "Your move" in first.text  # the hand, edited
    play = next(label for label in first.labels() if label.startswith("Play "))
    played = await table.click(first, play, user=table.player)
    assert played.callback_type == 7 and "Your hand" in played.text
    assert play not in played.labels()


async def test_a_custom_id_that_is_not_on_the_clicked_message_is_ignored(table: Table) -> None:
    """As discord.py does: a click names a component of its own message, or nothing happens."""
    await harry(table)
    roll = await table.slash("roll", user=table.player, skill="Lore", difficulty="Fair")
    assert roll.message is not None
    real = next(c["custom_id"] for c in _components(roll.message) if c.get("type") == 2)
    elsewhere = dict(roll.message, components=[])  # the same message without its buttons
    record = await table.fire_custom_id(elsewhere, real, user=table.player)
    await table.settle()
    assert not record.completed.is_set()  # no answer: the click was dropped


def test_installing_on_a_client_without_a_view_store_keeps_discord_py_s_way() -> None:
    class Bare:
        pass

    install_click_dispatch(Bare())  # type: ignore[arg-type]  # only logs


def _components(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for row in message.get("components") or [] for c in row.get("components") or []]


@pytest.mark.usefixtures("no_message_rebuilding")
async def test_a_lobby_option_is_set_through_more_options_and_its_private_menu(
    table: Table,
) -> None:
    """The lobby's menus (sent as plain components) and the private menu that "More options"
    opens both reach their handlers, and the lobby shows the choice."""
    lobby = await table.slash("game new", user=table.player, game="dreamwars")
    assert lobby.message is not None
    menu = await table.select(lobby, "More options…", ["simple_events"], user=table.player)
    assert (
        menu.ephemeral and "**Simple Events phase**" in menu.text and "now **default**" in menu.text
    )
    picked = await table.select(menu, "Choose: Simple Events phase", ["true"], user=table.player)
    assert "now **yes**" in picked.text
    await table.settle()
    assert "Simple Events phase: **yes**" in message_text(table.message(lobby.message["id"]))
