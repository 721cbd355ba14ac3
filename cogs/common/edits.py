"""Editing a message the bot posted earlier (a roll it closes, a tracker or board it redraws),
known only by its channel and message ids."""

from __future__ import annotations

from collections.abc import Sequence

import discord
from discord.http import handle_message_parameters
from discord.utils import MISSING


async def edit_message(
    bot: discord.Client,
    channel_id: int,
    message_id: int,
    *,
    embed: discord.Embed,
    view: discord.ui.View | None,
    attachments: Sequence[discord.File] = MISSING,
) -> None:
    """What `PartialMessage.edit(embed=..., view=..., attachments=...)` sends (with the
    client's allowed mentions), without the `Message` discord.py builds from Discord's answer:
    none of these callers reads it, and parsing it was about a tenth of the edit. `attachments`
    (new files) replace the message's attachments; left out, they stay. Raises
    `discord.HTTPException` (`discord.NotFound` for a deleted message) as `edit` does."""
    with handle_message_parameters(
        embed=embed,
        view=view,
        attachments=attachments,
        previous_allowed_mentions=bot.allowed_mentions,
    ) as params:  # closes the files once sent, as `edit` does
        await bot.http.edit_message(channel_id, message_id, params=params)
