"""Rows loaded only where they belong: the server (and channel) of the interaction asking.

A custom id is user input: anybody can craft a click that names any row id. So a row a button,
select or form acts on is loaded with `load_scoped_in`, which adds the interaction's server (and,
for rows that live in a channel, its channel) to the query. A row of another server and a row that
does not exist give the same `NotHere` sentence, so ids cannot be probed.

Rows reach their server through their campaign (`campaign.guild_id`), whatever copy of the
server id they carry themselves; a game has no campaign and carries its own. `REACH` says, once
per kind of row, how it joins to its server and which of its channels may show its components.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import or_
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.campaigns import Campaign, CharacterRow
from bot.db.models.conflicts import EncounterRow
from bot.db.models.drafts import CharacterDraftRow
from bot.db.models.games import GameRow
from bot.db.models.rolls import RollRow
from bot.db.models.scenes import CompelOfferRow, SceneRow
from bot.errors import RuleError


class NotHere(RuleError):
    """The row does not exist, or not in this server (or channel): one sentence for both."""


@dataclass(frozen=True)
class Reach:
    """How one kind of row reaches its server and where its components may be clicked."""

    model: Any
    what: str  # the word in the sentence: "That <what> is not here ..."
    key: str = "id"
    via_campaign: bool = True  # server through `campaign_id` -> campaign.guild_id
    channels: tuple[str, ...] = ()  # columns one of which must be the clicked channel
    filters: dict[str, Any] = field(default_factory=dict)  # e.g. an encounter's kind


REACH: dict[str, Reach] = {
    # a roll's buttons are on its message, the GM channel's copy, or its roller's pickers
    "roll": Reach(RollRow, "roll", channels=("channel_id", "gm_channel_id")),
    "conflict": Reach(
        EncounterRow, "conflict", channels=("channel_id",), filters={"kind": "conflict"}
    ),
    "contest": Reach(
        EncounterRow, "contest", channels=("channel_id",), filters={"kind": "contest"}
    ),
    "challenge": Reach(
        EncounterRow, "challenge", channels=("channel_id",), filters={"kind": "challenge"}
    ),
    "compel": Reach(CompelOfferRow, "compel", channels=("channel_id",)),
    "scene": Reach(SceneRow, "scene", key="channel_id", channels=("channel_id",)),
    "game": Reach(GameRow, "game", via_campaign=False, channels=("channel_id",)),
    "campaign": Reach(Campaign, "campaign", via_campaign=False),
    "character": Reach(CharacterRow, "character"),
    "draft": Reach(CharacterDraftRow, "character draft"),
}


def not_here(what: str) -> NotHere:
    return NotHere(
        f"That {what} is not here: it is gone, or it belongs to another server or channel. "
        "Use the newest message, or the command again."
    )


@dataclass(frozen=True)
class Where:
    """Where an interaction happened: its server (None in a DM) and channel."""

    guild_id: int | None
    channel_id: int | None


async def load_scoped_in(session: AsyncSession, kind: str, key: int, where: Where) -> Any:
    """The row of `kind` whose key is `key`, if it belongs to `where`'s server (and channel
    when the kind lives in a channel); `NotHere` otherwise, the same for a missing row."""
    reach = REACH[kind]
    if where.guild_id is None:
        raise not_here(reach.what)
    model = reach.model
    query = select(model).where(getattr(model, reach.key) == key)
    for name, value in reach.filters.items():
        query = query.where(getattr(model, name) == value)
    if reach.via_campaign:
        query = query.join(Campaign, col(Campaign.id) == model.campaign_id).where(
            Campaign.guild_id == where.guild_id
        )
    else:
        query = query.where(model.guild_id == where.guild_id)
    if reach.channels:
        if where.channel_id is None:
            raise not_here(reach.what)
        query = query.where(or_(*(getattr(model, c) == where.channel_id for c in reach.channels)))
    row = (await session.exec(query)).first()
    if row is None:
        raise not_here(reach.what)
    return row
