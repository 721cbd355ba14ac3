"""/x-card and /script-change: anonymous safety signals.

The acknowledgement is ephemeral; the notice is an ordinary channel message (not an interaction
response, which Discord would show as "<user> used /x-card"), so it never says who.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.services.safety import SafetyService, Signal
from cogs.common.xcard import XCardButton

if TYPE_CHECKING:
    from bot.client import FateTableBot

ScriptChange = Literal["pause", "rewind", "fast-forward"]


class Safety(commands.Cog):
    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot
        self.service = SafetyService()

    async def signal(self, interaction: discord.Interaction, signal: Signal) -> None:
        """Acknowledge privately, then post the notice as a plain channel message."""
        assert interaction.channel_id is not None
        result = self.service.signal(interaction.channel_id, signal)
        await interaction.response.send_message(result.acknowledgement, ephemeral=True)
        if result.post is not None:
            channel = self.bot.get_partial_messageable(interaction.channel_id)
            await channel.send(result.post)

    @app_commands.command(
        name="x-card", description="Tap the X-card: anonymously edit out what just happened."
    )
    @app_commands.guild_only()
    async def x_card(self, interaction: discord.Interaction) -> None:
        await self.signal(interaction, Signal.X_CARD)

    @app_commands.command(
        name="script-change", description="Script Change: ask anonymously to pause, rewind or skip."
    )
    @app_commands.guild_only()
    @app_commands.describe(signal="pause (a break), rewind (redo a part) or fast-forward (skip).")
    async def script_change(self, interaction: discord.Interaction, signal: ScriptChange) -> None:
        await self.signal(interaction, Signal(signal))


async def setup(bot: FateTableBot) -> None:
    bot.add_dynamic_items(XCardButton)
    await bot.add_cog(Safety(bot))
