"""The baseline: a bare discord.py bot that answers /ping with "pong" through the same fake."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands


class PongBot(commands.AutoShardedBot):
    def __init__(self, **options: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.none(),
            shard_count=1,
            **options,
        )

        @app_commands.command(name="ping", description="pong")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong", ephemeral=True)

        self.tree.add_command(ping)

    async def setup_hook(self) -> None:
        await self.tree.sync()
