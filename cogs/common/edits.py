"""Editing a message the bot posted earlier (a roll it closes, a tracker or board it redraws),
known only by its channel and message ids."""

from __future__ import annotations

import discord
from discord.http import handle_message_parameters


async def edit_message(
    bot: discord.Client,
    channel_id: int,
    message_id: int,
    *,
    embed: discord.Embed,
    view: discord.ui.View | None,
) -> None:
    """What `PartialMessage.edit(embed=..., view=...)` sends (with the client's allowed
    mentions), without the `Message` discord.py builds from Discord's answer: none of these
    callers reads it, and parsing it was about a tenth of the edit. Raises `discord.HTTPException`
    (`discord.NotFound` for a deleted message) as `edit` does."""
    params = handle_message_parameters(
        embed=embed, view=view, previous_allowed_mentions=bot.allowed_mentions
    )
    await bot.http.edit_message(channel_id, message_id, params=params)
