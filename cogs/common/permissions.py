"""The one shared GM check every cog uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.permissions import is_gm
from cogs.common.errors import NotAllowed

if TYPE_CHECKING:
    from bot.client import FateTableBot


async def member_is_gm(bot: FateTableBot, interaction: discord.Interaction) -> bool:
    member = interaction.user
    if interaction.guild is None or not isinstance(member, discord.Member):
        return False
    config = await bot.guild_settings.get(interaction.guild.id)
    return is_gm(
        is_admin=member.guild_permissions.administrator,
        role_ids=[role.id for role in member.roles],
        role_names=[role.name for role in member.roles],
        configured_role_id=config.gm_role_id,
    )


async def require_gm(bot: FateTableBot, interaction: discord.Interaction, doing: str) -> None:
    if not await member_is_gm(bot, interaction):
        raise NotAllowed(
            f"Only the GM can {doing}. Ask a server admin to give you the GM role "
            "(see `/settings gm-role`)."
        )
