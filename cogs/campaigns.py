"""/campaign: several campaigns per server, channel bindings and campaign settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.fate.stress import StressStyle
from bot.services.campaigns import CampaignSettings
from bot.services.character_base import Actor, settings_with
from bot.services.characters import get_service
from bot.ui.sheet import campaign_list_embed, overview_embeds, settings_embed
from cogs.common.permissions import require_gm
from cogs.common.web import answer_with_link, web_service

if TYPE_CHECKING:
    from bot.client import FateTableBot

Choice = app_commands.Choice
STYLES = [
    Choice(name="condensed (one-point boxes)", value=StressStyle.CONDENSED.value),
    Choice(name="escalating (Fate Core 1-2-3-4 boxes)", value=StressStyle.ESCALATING.value),
]


async def campaign_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[Choice[str]]:
    if interaction.guild_id is None:
        return []
    names = await get_service(interaction.client).campaign_names_cached(interaction.guild_id)
    needle = current.strip().casefold()
    return [Choice(name=n, value=n) for n in names if needle in n.casefold()][:25]


class Campaigns(commands.Cog):
    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot

    campaign = app_commands.Group(
        name="campaign", description="Campaigns on this server.", guild_only=True
    )

    @campaign.command(name="create", description="GM: start a new campaign on this server.")
    @app_commands.describe(
        name="The campaign's name.",
        stress="Stress boxes: condensed one-point boxes, or escalating Fate Core boxes.",
        skills="A custom skill list, comma-separated (default: Fate Condensed's 19).",
        bind="Bind this channel to the new campaign.",
    )
    @app_commands.choices(stress=STYLES)
    async def create(
        self,
        interaction: discord.Interaction,
        name: app_commands.Range[str, 1, 80],
        stress: str | None = None,
        skills: app_commands.Range[str, 1, 2000] | None = None,
        bind: bool = True,
    ) -> None:
        await require_gm(self.bot, interaction, "create campaigns")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        settings = settings_with(CampaignSettings(), stress=stress, skills=skills)
        info = await get_service(self.bot).create_campaign(
            interaction.guild_id, name, settings, interaction.channel_id if bind else None
        )
        where = " and bound this channel to it" if bind else ""
        await interaction.response.send_message(
            f"Created the campaign **{info.name}**{where}.", ephemeral=True
        )

    @campaign.command(name="bind", description="GM: play a campaign in this channel.")
    @app_commands.describe(name="The campaign this channel plays.")
    @app_commands.autocomplete(name=campaign_autocomplete)
    async def bind(self, interaction: discord.Interaction, name: str) -> None:
        await require_gm(self.bot, interaction, "bind channels to campaigns")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        info = await get_service(self.bot).bind_channel(
            interaction.guild_id, interaction.channel_id, name
        )
        await interaction.response.send_message(
            f"This channel now plays **{info.name}**.", ephemeral=True
        )

    @campaign.command(name="list", description="The campaigns on this server and their channels.")
    async def list_(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        campaigns, channels = await self.bot.campaigns.overview(interaction.guild_id)
        here = await self.bot.campaigns.current(interaction.guild_id, interaction.channel_id)
        entries = [
            (
                c.name,
                c.is_default,
                c.settings.stress_style.value,
                channels.get(c.id, []),
                c.id == here.id,
            )
            for c in campaigns
        ]
        await interaction.response.send_message(embed=campaign_list_embed(entries), ephemeral=True)

    @campaign.command(
        name="overview",
        description="GM: every player character at once (aspects, stress, consequences, FP).",
    )
    async def overview(self, interaction: discord.Interaction) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        await require_gm(self.bot, interaction, "see every sheet at once")
        actor = Actor(interaction.guild_id, interaction.channel_id, interaction.user.id, True)
        campaign, records, pool = await get_service(self.bot).overview(actor)
        guild = interaction.guild
        pcs = []
        for record in records:
            member = guild.get_member(record.owner_id) if guild is not None else None
            pcs.append((record.sheet, member.display_name if member else None))
        first, *rest = overview_embeds(campaign.name, pcs, pool)
        await interaction.response.send_message(embed=first, ephemeral=True)
        for embed in rest:
            await interaction.followup.send(embed=embed, ephemeral=True)

    @campaign.command(
        name="settings", description="Show or (GM) change this channel's campaign settings."
    )
    @app_commands.describe(
        stress="Stress boxes: condensed one-point boxes, or escalating Fate Core boxes.",
        skills="A custom skill list, comma-separated.",
        default_skills="Go back to Fate Condensed's 19 skills.",
        gm_channel="Where hidden information for the GM goes.",
        no_gm_channel="Stop using a GM channel.",
        turn_ping="Whether the line naming who acts next in a conflict, contest or challenge pings that player.",
    )
    @app_commands.choices(stress=STYLES)
    async def settings(
        self,
        interaction: discord.Interaction,
        stress: str | None = None,
        skills: app_commands.Range[str, 1, 2000] | None = None,
        default_skills: bool = False,
        gm_channel: discord.TextChannel | None = None,
        no_gm_channel: bool = False,
        turn_ping: bool | None = None,
    ) -> None:
        assert interaction.guild_id is not None and interaction.channel_id is not None
        info = await self.bot.campaigns.current(interaction.guild_id, interaction.channel_id)
        changing = (
            stress or skills or default_skills or gm_channel or no_gm_channel
        ) or turn_ping is not None
        note = ""
        if changing:
            await require_gm(self.bot, interaction, "change campaign settings")
            new = settings_with(
                info.settings,
                stress=stress,
                skills=skills,
                default_skills=default_skills,
                gm_channel=gm_channel.id if gm_channel else None,
                no_gm_channel=no_gm_channel,
                turn_ping=turn_ping,
            )
            info, updated = await get_service(self.bot).change_settings(info, new)
            if updated:
                sheets = "1 sheet now uses" if updated == 1 else f"{updated} sheets now use"
                note = f" {sheets} the new stress boxes."
        s = info.settings
        embed = settings_embed(
            info.name,
            s.stress_style.value,
            s.skill_list().names,
            bool(s.skills),
            s.gm_channel_id,
            s.turn_ping,
        )
        await interaction.response.send_message(
            f"Settings saved.{note}" if changing else None, embed=embed, ephemeral=True
        )

    @campaign.command(
        name="web", description="GM: a private link to a live web page of this campaign's table."
    )
    @app_commands.describe(
        revoke="First end every web link made for this campaign so far (yours and the players')."
    )
    async def web(self, interaction: discord.Interaction, revoke: bool = False) -> None:
        await require_gm(self.bot, interaction, "open the GM's web page")
        assert interaction.guild_id is not None and interaction.channel_id is not None
        link = await web_service(self.bot).campaign_link(
            interaction.guild_id, interaction.channel_id, revoke=revoke
        )
        await answer_with_link(
            interaction,
            link,
            revoked="Every earlier link to this campaign (yours and the players') stopped working."
            if revoke
            else None,
            what=f"The GM's live page of **{link.title}**: every sheet, the scenes and what is "
            "hidden from the players. Keep it to yourself; anyone with the link sees it.",
            command="/campaign web",
        )


async def setup(bot: FateTableBot) -> None:
    await bot.add_cog(Campaigns(bot))
