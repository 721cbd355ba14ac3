"""Raw statements (bot/db/raw.py) of the scene's hot paths: a move and the pinned board's read.
Every one runs in the caller's raw unit of work."""

from __future__ import annotations

from bot.db.raw import Sql

CHARACTER_RAW_COLUMNS = (
    "character.id, character.campaign_id, character.guild_id, character.owner_id, "
    "character.sheet_json, character.version"
)
CAMPAIGN_RAW_COLUMNS = (
    "campaign.id, campaign.guild_id, campaign.name, campaign.is_default, "
    "campaign.settings_json, campaign.version"
)
# A move's one read: the channel's scene, the campaign `resolve_campaign_in` picks for the
# channel (bound, else the server's default) and the user's active character in it (the
# channel's choice, else the server-wide one: channel 0). NULLs for what is not there.
SCENE_MOVE_CONTEXT = Sql(
    f"""SELECT scene.campaign_id, scene.scene_json, scene.active, scene.version,
           {CAMPAIGN_RAW_COLUMNS}, {CHARACTER_RAW_COLUMNS}
    FROM scene
    LEFT OUTER JOIN campaign ON campaign.id = (
        SELECT bound.id FROM campaign AS bound
        LEFT OUTER JOIN channel_campaign AS binding
            ON binding.campaign_id = bound.id AND binding.channel_id = :channel
        WHERE bound.guild_id = :guild AND (binding.channel_id IS NOT NULL OR bound.is_default)
        ORDER BY binding.channel_id IS NULL LIMIT 1)
    LEFT OUTER JOIN character ON character.id = (
        SELECT active_character.character_id FROM active_character
        JOIN character AS chosen ON chosen.id = active_character.character_id
        WHERE active_character.guild_id = :guild AND active_character.user_id = :user
            AND active_character.channel_id IN (:channel, 0)
            AND chosen.campaign_id = campaign.id
        ORDER BY active_character.channel_id = 0 LIMIT 1)
    WHERE scene.channel_id = :channel"""
)
# The board's first read: the scene with its campaign's play state (NULLs before its first use).
BOARD_ROWS = Sql(
    """SELECT scene.scene_json, scene.version, scene.campaign_id, scene.board_message_id,
           scene.active, campaign_play.state_json, campaign_play.version
    FROM scene LEFT OUTER JOIN campaign_play ON campaign_play.campaign_id = scene.campaign_id
    WHERE scene.channel_id = :channel"""
)
