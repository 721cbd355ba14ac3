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

from bot.db.models.campaigns import Campaign, CharacterRow
from bot.db.models.conflicts import EncounterRow
from bot.db.models.drafts import CharacterDraftRow
from bot.db.models.forms import FormAnswerRow
from bot.db.models.games import GameRow
from bot.db.models.rolls import RollRow
from bot.db.models.scenes import CompelOfferRow, SceneRow
from bot.db.raw import RawUnit, Sql
from bot.errors import RuleError


class NotHere(RuleError):
    """The row does not exist, or not in this server (or channel): one sentence for both."""

    offers_retry = False


@dataclass(frozen=True)
class Reach:
    """How one kind of row reaches its server and where its components may be clicked."""

    model: Any
    missing: str  # the sentence for a row that is not there (or not here)
    key: str = "id"
    via_campaign: bool = True  # server through `campaign_id` -> campaign.guild_id
    channels: tuple[str, ...] = ()  # columns one of which must be the clicked channel
    filters: dict[str, Any] = field(default_factory=dict)  # e.g. an encounter's kind


def _encounter(kind: str) -> Reach:
    return Reach(
        EncounterRow,
        f"That {kind} no longer exists.",
        channels=("channel_id",),
        filters={"kind": kind},
    )


REACH: dict[str, Reach] = {
    # a roll's buttons are on its message, the GM channel's copy, or its roller's pickers
    "roll": Reach(
        RollRow,
        "That roll no longer exists; make a new one with `/roll`.",
        channels=("channel_id", "gm_channel_id"),
    ),
    "conflict": _encounter("conflict"),
    "contest": _encounter("contest"),
    "challenge": _encounter("challenge"),
    "compel": Reach(CompelOfferRow, "That compel no longer exists.", channels=("channel_id",)),
    "scene": Reach(
        SceneRow,
        "That scene has ended. The GM starts a new one with `/scene start`.",
        key="channel_id",
        channels=("channel_id",),
    ),
    "game": Reach(
        GameRow,
        "That game no longer exists; start one with `/game new`.",
        via_campaign=False,
        channels=("channel_id",),
    ),
    # a game's history is shown wherever /game history is asked on its server
    "game_log": Reach(
        GameRow, "That game no longer exists; start one with `/game new`.", via_campaign=False
    ),
    "campaign": Reach(Campaign, "That campaign no longer exists.", via_campaign=False),
    "character": Reach(CharacterRow, "That character no longer exists."),
    "draft": Reach(
        CharacterDraftRow,
        "That character draft is finished or was started over; run `/character create` "
        "to see where you are.",
    ),
    # the answers a refused form kept for its writer ("Fix what I typed")
    "form_answer": Reach(
        FormAnswerRow,
        "Those answers are no longer kept (the form was saved since, or a day went by); "
        "open the form again.",
        via_campaign=False,
    ),
}
# the kind "channel" names no row: the custom id's channel must be the clicked one
OTHER_CHANNEL = "That button belongs to another channel; use the one in this channel."


@dataclass(frozen=True)
class Where:
    """Where an interaction happened: its server (None in a DM) and channel."""

    guild_id: int | None
    channel_id: int | None


def _scoped_sql(reach: Reach) -> Sql:
    """The statement that finds a row of this kind only in the asking server (and channel)."""
    table = reach.model.__tablename__
    conditions = [f"{table}.{reach.key} = :key"]
    conditions += [f"{table}.{name} = :{name}" for name in reach.filters]
    joined = ""
    if reach.via_campaign:
        campaign = Campaign.__tablename__
        joined = f" JOIN {campaign} ON {campaign}.id = {table}.campaign_id"
        conditions.append(f"{campaign}.guild_id = :guild")
    else:
        conditions.append(f"{table}.guild_id = :guild")
    if reach.channels:
        either = " OR ".join(f"{table}.{column} = :channel" for column in reach.channels)
        conditions.append(f"({either})")
    return Sql(f"SELECT {table}.{reach.key} FROM {table}{joined} WHERE {' AND '.join(conditions)}")


SCOPED = {kind: _scoped_sql(reach) for kind, reach in REACH.items()}  # written once


async def load_scoped_in(unit: RawUnit, kind: str, key: int, where: Where) -> Any:
    """The key of the row of `kind` whose key is `key`, if it belongs to `where`'s server (and
    channel when the kind lives in a channel); `NotHere` otherwise, the same for a missing row.
    (Only the key is read: a game's row carries its whole state, and the click's own service
    call reads the row it acts on anyway. Raw: the first click on every message asks.)"""
    reach = REACH[kind]
    if where.guild_id is None or (reach.channels and where.channel_id is None):
        raise NotHere(reach.missing)
    params = {"key": key, "guild": where.guild_id, "channel": where.channel_id, **reach.filters}
    row = await unit.row(SCOPED[kind], params)
    if row is None:
        raise NotHere(reach.missing)
    return row[0]
