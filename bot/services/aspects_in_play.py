"""Aspects that can be invoked right now, gathered from every feature that keeps some.

Rolls ask this module for "what can I invoke here?" and "spend a free invoke on that", without
knowing where an aspect lives: character sheets (aspects, consequences, conditions), scenes
(situation and zone aspects, boosts), conflicts... Each feature registers one source, keyed by
the prefix of the aspect keys it hands out ("char", "scene", ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from sqlmodel.ext.asyncio.session import AsyncSession

from bot.errors import RuleError
from bot.services.campaigns import CampaignInfo


@dataclass(frozen=True)
class AspectInPlay:
    """An aspect some feature has in play, as an invoke menu shows it."""

    key: str  # "<source>:<id...>", unique and at most 60 characters (it goes into custom ids)
    name: str
    owner: str  # who or what it belongs to, for display ("Harry Dresden", "scene")
    is_boost: bool = False
    hidden: bool = False  # GM-only until revealed
    # Free invokes by holder: "char:<id>" or "gm" -> how many.
    free_invokes: dict[str, int] = field(default_factory=dict)


class AspectSource(Protocol):
    """A feature that holds aspects others may invoke (scenes, sheets, conflicts)."""

    prefix: str

    async def aspects_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int
    ) -> list[AspectInPlay]: ...

    async def spend_free_invoke_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        """Use one free invoke of `holder` on `key` (a used boost disappears), or raise RuleError."""
        ...

    async def return_free_invoke_in(
        self, session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
    ) -> None:
        """Give `holder` back one free invoke on `key` (a voided roll's), or raise RuleError."""
        ...


SOURCES: dict[str, AspectSource] = {}


def register_source(source: AspectSource) -> None:
    """Add a feature's aspects to every invoke menu."""
    SOURCES[source.prefix] = source


async def aspects_in_play_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int, *, include_hidden: bool
) -> list[AspectInPlay]:
    """Every registered source's aspects in this channel, in the caller's transaction."""
    found: list[AspectInPlay] = []
    for source in SOURCES.values():
        found.extend(await source.aspects_in(session, campaign, channel_id))
    return [a for a in found if include_hidden or not a.hidden]


async def find_aspect_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str
) -> AspectInPlay:
    """The aspect in play with this key; a sentence when it has left play."""
    for aspect in await aspects_in_play_in(session, campaign, channel_id, include_hidden=True):
        if aspect.key == key:
            return aspect
    raise RuleError("That aspect is no longer in play; pick another one.")


async def spend_free_invoke_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
) -> None:
    """Spend `holder`'s free invoke on the aspect with this key, wherever it lives."""
    await _source_of(
        key, "That aspect is no longer in play; pick another one."
    ).spend_free_invoke_in(session, campaign, channel_id, key, holder)


async def return_free_invoke_in(
    session: AsyncSession, campaign: CampaignInfo, channel_id: int, key: str, holder: str
) -> None:
    """Give `holder` back a free invoke on the aspect with this key, or raise RuleError."""
    await _source_of(key, "That aspect is no longer in play.").return_free_invoke_in(
        session, campaign, channel_id, key, holder
    )


def _source_of(key: str, gone: str) -> AspectSource:
    """The source that handed out `key`; the sentence `gone` when none does any more."""
    source = SOURCES.get(key.split(":", 1)[0])
    if source is None:
        raise RuleError(gone)
    return source
