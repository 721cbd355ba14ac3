"""Raw statements (bot/db/raw.py) of the scene's hot paths: a move and the pinned board's read.
Every one runs in the caller's raw unit of work."""

from __future__ import annotations

from bot.db.raw import Sql
from bot.db.repos.characters import (
    CHARACTER_SELECT,
    active_character_id,
    bound_campaign_id,
    campaign_columns,
)

# A move's one read: the channel's scene, the campaign `resolve_campaign_in` picks for the
# channel (bound, else the server's default) and the user's active character in it (the
# channel's choice, else the server-wide one: channel 0). NULLs for what is not there.
SCENE_MOVE_CONTEXT = Sql(
    f"""SELECT scene.campaign_id, scene.scene_json, scene.active, scene.version,
           {campaign_columns("campaign")}, {CHARACTER_SELECT}
    FROM scene
    LEFT OUTER JOIN campaign ON campaign.id = {bound_campaign_id(":guild", ":channel")}
    LEFT OUTER JOIN character ON character.id = {active_character_id("campaign.id")}
    WHERE scene.channel_id = :channel"""
)
# The board's first read: the scene with its campaign's play state (NULLs before its first use).
BOARD_ROWS = Sql(
    """SELECT scene.scene_json, scene.version, scene.campaign_id, scene.board_message_id,
           scene.active, campaign_play.state_json, campaign_play.version
    FROM scene LEFT OUTER JOIN campaign_play ON campaign_play.campaign_id = scene.campaign_id
    WHERE scene.channel_id = :channel"""
)
