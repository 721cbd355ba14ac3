"""The /help overview: a first evening for GMs and for players, then every command grouped by
its top-level name, packed into pages that each fit one embed (a long group continues in the
next field rather than being cut)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import discord

from bot.games.base import registered_engines
from bot.ui.common import COLOUR, FIELD_VALUE_LIMIT, clip, safe_embed

PAGE_TEXT_BUDGET = 5000  # of Discord's 6,000 characters per embed, leaving room for the rest
PAGE_FIELDS = 12

FIRST_EVENING_GM = (
    "1. `/settings gm-role` names the GM role (administrators are always GMs).",
    "2. `/character npc` makes opposition; `/session start` refreshes fate points.",
    "3. `/scene start aspects: zones: characters:` pins the scene board.",
    "4. `/compel offer` and the GM pool on the board run the fate point economy.",
    "5. `/conflict start participants:` pins a tracker whose buttons run each exchange.",
    "6. `/scene end`, `/session end` (milestones), `/fp log` and `/fp undo` to wrap up.",
)
FIRST_EVENING_PLAYER = (
    "1. `/character create` walks through the steps and saves each one.",
    "2. `/character sheet` shows your sheet; `/character edit skill:` (and the rest) change it.",
    "3. `/roll skill: difficulty:` rolls 4dF; the roll's buttons invoke aspects.",
    "4. `/advantage skill: aspect:` creates an aspect with a free invoke.",
    "5. In a conflict, act from the pinned tracker's buttons when it names you.",
    "6. `/rules topic:` answers rules questions; `/game new` starts a table game.",
)


@dataclass(frozen=True)
class CommandEntry:
    name: str  # "settings gm-role"
    description: str


@dataclass(frozen=True)
class CommandGroup:
    name: str
    description: str
    commands: tuple[CommandEntry, ...]


@dataclass(frozen=True)
class HelpField:
    name: str
    value: str


def _games() -> str:
    return ", ".join(e.name for e in registered_engines())


def _group_fields(group: CommandGroup) -> list[HelpField]:
    """A group's lines in fields of at most FIELD_VALUE_LIMIT characters, never a line cut."""
    lines = [clip(f"`/{c.name}`: {c.description}", FIELD_VALUE_LIMIT) for c in group.commands]
    chunks: list[list[str]] = [[]]
    for line in lines or [group.description]:
        if chunks[-1] and len("\n".join([*chunks[-1], line])) > FIELD_VALUE_LIMIT:
            chunks.append([])
        chunks[-1].append(line)
    title = clip(f"/{group.name}: {group.description}", 256)
    return [
        HelpField(title if i == 0 else clip(f"/{group.name} (continued)", 256), "\n".join(c))
        for i, c in enumerate(chunks)
    ]


def _first_evening() -> list[HelpField]:
    return [
        HelpField("A first evening, for the GM", "\n".join(FIRST_EVENING_GM)),
        HelpField("A first evening, for players", "\n".join(FIRST_EVENING_PLAYER)),
    ]


@lru_cache(maxsize=8)
def _pages(groups: tuple[CommandGroup, ...]) -> tuple[tuple[HelpField, ...], ...]:
    pages: list[list[HelpField]] = [_first_evening()]
    size = sum(len(f.name) + len(f.value) for f in pages[0])
    for group in groups:
        for item in _group_fields(group):
            cost = len(item.name) + len(item.value)
            if size + cost > PAGE_TEXT_BUDGET or len(pages[-1]) >= PAGE_FIELDS:
                pages.append([])
                size = 0
            pages[-1].append(item)
            size += cost
    return tuple(tuple(page) for page in pages)


def page_count(groups: list[CommandGroup]) -> int:
    return len(_pages(tuple(groups)))


def help_page(groups: list[CommandGroup], page: int) -> discord.Embed:
    pages = _pages(tuple(groups))
    page = min(max(page, 0), len(pages) - 1)
    embed = discord.Embed(
        title="Fate Table: commands",
        description=(
            "A GM companion for Fate Condensed and Dresden Files Condensed, and a game table "
            f"({_games()}: `/game new` opens one, `/game rules` explains how each is played "
            "here). Type `/` and a command name to see its options; every option has help "
            "text."
        ),
        colour=COLOUR,
    )
    for item in pages[page]:
        embed.add_field(name=item.name, value=item.value, inline=False)
    embed.set_footer(text=f"Page {page + 1} of {len(pages)}")
    return safe_embed(embed)
