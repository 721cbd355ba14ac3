"""The bot behind an interaction, typed as the bot's class (discord.py types it as a Client)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import discord

if TYPE_CHECKING:
    from bot.client import FateTableBot


def bot_of(interaction: discord.Interaction) -> FateTableBot:
    return cast("FateTableBot", interaction.client)
