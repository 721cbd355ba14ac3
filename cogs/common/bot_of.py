"""The bot behind an interaction, typed as the bot's class (discord.py types it as a Client)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

if TYPE_CHECKING:
    from bot.client import FateTableBot


def as_bot(client: discord.Client) -> FateTableBot:
    """The client discord.py hands a cog (always this bot's one instance)."""
    return cast("FateTableBot", client)


def bot_of(interaction: discord.Interaction) -> FateTableBot:
    return as_bot(interaction.client)
