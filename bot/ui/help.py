"""The /help overview: every command group, paged so that each page fits one embed."""

from __future__ import annotations

from dataclasses import dataclass

import discord

from bot.ui.common import COLOUR, FIELD_VALUE_LIMIT, clip, safe_embed

GROUPS_PER_PAGE = 6


@dataclass(frozen=True)
class CommandEntry:
    name: str  # "settings gm-role"
    description: str


@dataclass(frozen=True)
class CommandGroup:
    name: str
    description: str
    commands: tuple[CommandEntry, ...]


def page_count(groups: list[CommandGroup]) -> int:
    return max(1, -(-len(groups) // GROUPS_PER_PAGE))


def help_page(groups: list[CommandGroup], page: int) -> discord.Embed:
    pages = page_count(groups)
    page = min(max(page, 0), pages - 1)
    embed = discord.Embed(
        title="Fate Table: commands",
        description=(
            "A GM companion for Fate Condensed and Dresden Files Condensed, and a game table "
            "(`/game rules` explains how each table game is played here). Type `/` and a "
            "command name to see its options; every option has help text."
        ),
        colour=COLOUR,
    )
    for group in groups[page * GROUPS_PER_PAGE : (page + 1) * GROUPS_PER_PAGE]:
        lines = [f"`/{c.name}`: {c.description}" for c in group.commands]
        embed.add_field(
            name=f"/{group.name}: {group.description}",
            value=clip("\n".join(lines) or group.description, FIELD_VALUE_LIMIT),
            inline=False,
        )
    embed.set_footer(text=f"Page {page + 1} of {pages}")
    return safe_embed(embed)
