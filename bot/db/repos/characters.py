"""Raw statements (bot/db/raw.py) of the sheet commands: which character a command is about,
its versioned save and its fate point ledger entry. Every function runs in the caller's unit.

The campaign and character columns come back in the order of `CAMPAIGN_COLUMNS` and
`CHARACTER_COLUMNS` (bot/services/campaigns.py), which parse them once per version.
"""

from __future__ import annotations

from typing import Any

from bot.db.models.columns import utcnow
from bot.db.raw import RawUnit, Row, Sql

CHARACTER_SELECT = (
    "character.id, character.campaign_id, character.guild_id, character.owner_id, "
    "character.sheet_json, character.version"
)


def campaign_columns(table: str) -> str:
    """A campaign's columns in the order `CAMPAIGN_COLUMNS` parses them, from `table`."""
    return ", ".join(
        f"{table}.{column}"
        for column in ("id", "guild_id", "name", "is_default", "settings_json", "version")
    )


# A server's default campaign, made by its first command; a concurrent first command's insert
# does nothing (the unique guild and name), and both then read the one campaign.
NEW_DEFAULT_CAMPAIGN = Sql(
    "INSERT INTO campaign (guild_id, name, is_default, settings_json, created_at, version) "
    "VALUES (:guild, :name, :flag, '{}', :now, 1) ON CONFLICT (guild_id, name) DO NOTHING"
)


def bound_campaign_id(guild: str, channel: str) -> str:
    """The id of the campaign `resolve_campaign_in` picks for a channel (the one bound to it,
    else the server's default), as a scalar subquery on the SQL expressions given: the one
    place the raw statements say that rule."""
    return f"""(SELECT bound.id FROM campaign AS bound
        LEFT OUTER JOIN channel_campaign AS binding
            ON binding.campaign_id = bound.id AND binding.channel_id = {channel}
        WHERE bound.guild_id = {guild} AND (binding.channel_id IS NOT NULL OR bound.is_default)
        ORDER BY binding.channel_id IS NULL LIMIT 1)"""


def active_character_id(campaign: str) -> str:
    """The id of the user's active character of the campaign `campaign` (the channel's choice,
    else the server-wide one: channel 0), parameters guild, user, channel."""
    return f"""(SELECT active_character.character_id FROM active_character
        JOIN character AS chosen ON chosen.id = active_character.character_id
        WHERE active_character.guild_id = :guild AND active_character.user_id = :user
          AND active_character.channel_id IN (:channel, 0) AND chosen.campaign_id = {campaign}
        ORDER BY active_character.channel_id = 0 LIMIT 1)"""


# The channel's campaign as a table `bound` (no row when there is none), parameters guild,
# channel.
BOUND = f"""
    (SELECT {campaign_columns("campaign")} FROM campaign
     WHERE campaign.id = {bound_campaign_id(":guild", ":channel")}) AS bound
"""
CAMPAIGN_SELECT = campaign_columns("bound")
# The user's active character of the `bound` campaign, parameters guild, user, channel; a
# roll's context reads it too.
ACTIVE_JOIN = f"LEFT OUTER JOIN character ON character.id = {active_character_id('bound.id')}"
# The campaign and the user's active character of it.
ACTIVE_TARGET = Sql(f"SELECT {CAMPAIGN_SELECT}, {CHARACTER_SELECT} FROM {BOUND} {ACTIVE_JOIN}")
# The campaign and its character named `name` (lower case), or with id `ref` ("#id" from
# autocomplete; -1 when none), the id first.
NAMED_TARGET = Sql(
    f"""
    SELECT {CAMPAIGN_SELECT}, {CHARACTER_SELECT} FROM {BOUND}
    LEFT OUTER JOIN character ON character.campaign_id = bound.id
      AND (character.id = :ref OR lower(character.name) = :name)
    ORDER BY character.id = :ref DESC LIMIT 1
    """
)
NEW_LEDGER_ENTRY = Sql(
    """
    INSERT INTO fate_point_entry (campaign_id, channel_id, character_id, who, delta,
                                  balance_after, reason, note, actor_id, undone, created_at)
    VALUES (:campaign, :channel, :character, :who, :delta, :balance, :reason, :note, :actor,
            :undone, :now)
    RETURNING id
    """
)


async def target_raw_in(
    unit: RawUnit,
    guild_id: int,
    channel_id: int,
    *,
    user_id: int,
    name: str | None,
    ref: int | None,
) -> Row | None:
    """(campaign columns..., character columns...) for a sheet command: the named character
    (`name` lower-cased, or `ref`) or else the user's active one; the character's columns are
    None when there is none. None when the server has no campaign yet."""
    params: dict[str, Any] = {"guild": guild_id, "channel": channel_id}
    if name is None:
        return await unit.row(ACTIVE_TARGET, {**params, "user": user_id})
    return await unit.row(NAMED_TARGET, {**params, "name": name, "ref": -1 if ref is None else ref})


async def new_ledger_entry_raw_in(unit: RawUnit, values: dict[str, Any]) -> int:
    """Insert a fate point ledger entry (NEW_LEDGER_ENTRY's parameters but `now`); its id."""
    found = await unit.row(NEW_LEDGER_ENTRY, {**values, "now": unit.timestamp(utcnow())})
    assert found is not None
    return int(found[0])
