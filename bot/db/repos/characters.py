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
# The channel's campaign (bound first, else the server's default one), parameters guild, channel.
BOUND = """
    (SELECT campaign.id, campaign.guild_id, campaign.name, campaign.is_default,
            campaign.settings_json, campaign.version
     FROM campaign LEFT OUTER JOIN channel_campaign
       ON channel_campaign.campaign_id = campaign.id AND channel_campaign.channel_id = :channel
     WHERE campaign.guild_id = :guild
       AND (channel_campaign.channel_id IS NOT NULL OR campaign.is_default)
     ORDER BY channel_campaign.channel_id IS NULL LIMIT 1) AS bound
"""
CAMPAIGN_SELECT = (
    "bound.id, bound.guild_id, bound.name, bound.is_default, bound.settings_json, bound.version"
)
# The user's active character of the `bound` campaign (the channel's choice, else
# server-wide), parameters guild, user, channel; a roll's context reads it too.
ACTIVE_JOIN = """
    LEFT OUTER JOIN character ON character.id = (
        SELECT active_character.character_id FROM active_character
        JOIN character AS chosen ON chosen.id = active_character.character_id
        WHERE active_character.guild_id = :guild AND active_character.user_id = :user
          AND active_character.channel_id IN (:channel, 0) AND chosen.campaign_id = bound.id
        ORDER BY active_character.channel_id = 0 LIMIT 1)
"""
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
