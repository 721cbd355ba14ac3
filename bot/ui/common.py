"""Shared rendering helpers that respect Discord's limits."""

from __future__ import annotations

import discord

CONTENT_LIMIT = 2000
EMBED_TOTAL_LIMIT = 6000
EMBED_DESCRIPTION_LIMIT = 4096
FIELD_VALUE_LIMIT = 1024
FIELD_NAME_LIMIT = 256
TITLE_LIMIT = 256
MAX_FIELDS = 25
BUTTON_LABEL_LIMIT = 80
SELECT_OPTION_LIMIT = 100
MAX_SELECT_OPTIONS = 25

COLOUR = discord.Colour.from_rgb(88, 101, 242)


def clip(text: str, limit: int) -> str:
    """Shorten to `limit` characters, marking the cut."""
    text = text or ""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def embed_size(embed: discord.Embed) -> int:
    return len(embed)


def safe_embed(embed: discord.Embed) -> discord.Embed:
    """Trim an embed so that it never exceeds Discord's per-part or total limits."""
    if embed.title:
        embed.title = clip(embed.title, TITLE_LIMIT)
    if embed.description:
        embed.description = clip(embed.description, EMBED_DESCRIPTION_LIMIT)
    fields = embed.fields[:MAX_FIELDS]
    embed.clear_fields()
    for f in fields:
        embed.add_field(
            name=clip(f.name or "\u200b", FIELD_NAME_LIMIT),
            value=clip(f.value or "\u200b", FIELD_VALUE_LIMIT),
            inline=bool(f.inline),
        )
    while len(embed) > EMBED_TOTAL_LIMIT and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    if len(embed) > EMBED_TOTAL_LIMIT and embed.description:
        overflow = len(embed) - EMBED_TOTAL_LIMIT
        embed.description = clip(embed.description, max(1, len(embed.description) - overflow - 1))
    return embed
