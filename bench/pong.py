"""The baseline: a bare discord.py bot that answers /ping with "pong" through the same fake.

`/ping extra:N` first posts a message and edits it N - 1 times: a bot that makes as many
Discord requests as a command of the real bot and does nothing else (`--explain`'s floor)."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands
from discord.http import handle_message_parameters


class PongBot(commands.AutoShardedBot):
    def __init__(self, **options: Any) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.none(),
            shard_count=1,
            **options,
        )

        @app_commands.command(name="ping", description="pong")
        async def ping(interaction: discord.Interaction, extra: int = 0) -> None:
            if extra:  # made before the answer, so that a measured stretch holds them all
                assert interaction.channel_id is not None
                await self._requests(interaction.channel_id, extra)
            await interaction.response.send_message("pong", ephemeral=True)

        self.tree.add_command(ping)

    async def _requests(self, channel_id: int, count: int) -> None:
        """`count` requests as the bot makes them beside its answers: a message posted, then
        edited (by its ids, without the `Message` discord.py would build)."""
        with handle_message_parameters(content="pong") as params:
            posted = await self.http.send_message(channel_id, params=params)
        for n in range(count - 1):
            with handle_message_parameters(content=f"pong {n + 1}") as params:
                await self.http.edit_message(channel_id, int(posted["id"]), params=params)

    async def setup_hook(self) -> None:
        await self.tree.sync()
