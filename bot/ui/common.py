"""Shared rendering helpers that respect Discord's limits."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import discord

T = TypeVar("T")

CONTENT_LIMIT = 2000
EMBED_TOTAL_LIMIT = 6000
EMBED_DESCRIPTION_LIMIT = 4096
FIELD_VALUE_LIMIT = 1024
FIELD_NAME_LIMIT = 256
TITLE_LIMIT = 256
MAX_FIELDS = 25
BUTTON_LABEL_LIMIT = 80
SELECT_OPTION_LIMIT = 100
SELECT_PLACEHOLDER_LIMIT = 150
MAX_SELECT_OPTIONS = 25

COLOUR = discord.Colour.from_rgb(88, 101, 242)


def clip(text: str, limit: int) -> str:
    """Shorten to `limit` characters, marking the cut."""
    text = text or ""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def newest_lines(lines: Sequence[str], limit: int) -> str:
    """The newest of `lines` (last first to go in) that fit in `limit` characters, one per
    line: a log cut to fit loses its oldest lines, never the newest one."""
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        size = len(line) + (1 if kept else 0)  # with the line break before the newer one
        if used + size > limit:
            break
        kept.append(line)
        used += size
    if not kept and lines:
        return clip(lines[-1], limit)
    return "\n".join(reversed(kept))


def greedy_pages(
    items: Iterable[T],
    size: Callable[[T], int],
    budget: int,
    *,
    most: int | None = None,
    first_used: int = 0,
    page_used: int = 0,
) -> list[list[T]]:
    """Items in order, in pages of whole items: the next item starts a new page when it would
    take the page past `budget` characters (`size` of each) or past `most` items. The first
    page starts with `first_used` characters already used, the others with `page_used` (a
    title, a description). No page is empty unless there are no items."""
    pages: list[list[T]] = [[]]
    used = first_used
    for item in items:
        length = size(item)
        full = most is not None and len(pages[-1]) >= most
        if pages[-1] and (used + length > budget or full):
            pages.append([])
            used = page_used
        pages[-1].append(item)
        used += length
    return pages


def embed_size(embed: discord.Embed) -> int:
    return len(embed)


def _within_limits(embed: discord.Embed) -> bool:
    """Whether `safe_embed` would leave the embed as it is (most embeds: nothing to trim)."""
    if len(embed.title or "") > TITLE_LIMIT or len(embed.description or "") > (
        EMBED_DESCRIPTION_LIMIT
    ):
        return False
    fields = embed.fields
    if len(fields) > MAX_FIELDS:
        return False
    for f in fields:
        name, value = f.name, f.value
        if not name or not value or type(f.inline) is not bool:
            return False
        if len(name) > FIELD_NAME_LIMIT or len(value) > FIELD_VALUE_LIMIT:
            return False
    return len(embed) <= EMBED_TOTAL_LIMIT


def safe_embed(embed: discord.Embed) -> discord.Embed:
    """Trim an embed so that it never exceeds Discord's per-part or total limits."""
    if not _within_limits(embed):
        return trim_embed(embed)
    if not embed.fields:
        embed.clear_fields()  # as trimming does: the JSON says "fields": [] (the same to see)
    return embed


def trim_embed(embed: discord.Embed) -> discord.Embed:
    """`safe_embed`'s work on an embed past a limit: every part clipped, fields dropped from
    the end while the whole is too long."""
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
