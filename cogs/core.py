"""/help, /about and /settings: the commands every server needs."""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.ui.common import COLOUR
from bot.ui.custom_ids import HELP_PAGE_TEMPLATE, help_page_id
from bot.ui.help import CommandEntry, CommandGroup, help_page, page_count
from cogs.common.errors import NotAllowed, guarded
from cogs.common.scope import UNSCOPED, ScopedItem

if TYPE_CHECKING:
    from bot.client import FateTableBot


def command_groups(tree: app_commands.CommandTree[Any]) -> list[CommandGroup]:
    """Every command of the tree, grouped by its top-level name, in alphabetical order."""
    groups: list[CommandGroup] = []
    loose: list[CommandEntry] = []
    for command in sorted(tree.get_commands(), key=lambda c: c.name):
        if isinstance(command, app_commands.Group):
            entries = tuple(
                CommandEntry(sub.qualified_name, sub.description)
                for sub in command.walk_commands()
                if isinstance(sub, app_commands.Command)
            )
            groups.append(CommandGroup(command.name, command.description, entries))
        elif isinstance(command, app_commands.Command):
            loose.append(CommandEntry(command.name, command.description))
    if loose:
        groups.insert(0, CommandGroup("general", "single commands", tuple(loose)))
    return groups


class HelpPageButton(
    ScopedItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=HELP_PAGE_TEMPLATE
):
    """Prev/Next on the /help message. The page lives in the custom_id, so it survives restarts."""

    scope_kind = UNSCOPED  # the command list belongs to no server

    def __init__(self, page: int, direction: str, *, disabled: bool = False) -> None:
        label = "◀ Previous" if direction == "p" else "Next ▶"
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=help_page_id(page, direction),
                disabled=disabled,
            )
        )
        self.page = page

    def scope_key(self) -> None:
        return None

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> HelpPageButton:
        return cls(int(match["page"]), match["dir"])

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        groups = command_groups(interaction.client.tree)  # type: ignore[attr-defined]
        await interaction.response.edit_message(
            embed=help_page(groups, self.page), view=help_view(groups, self.page)
        )


def help_view(groups: list[CommandGroup], page: int) -> discord.ui.View | None:
    pages = page_count(groups)
    if pages == 1:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(HelpPageButton(max(page - 1, 0), "p", disabled=page == 0))
    view.add_item(HelpPageButton(min(page + 1, pages - 1), "n", disabled=page >= pages - 1))
    return view


class Core(commands.Cog):
    def __init__(self, bot: FateTableBot) -> None:
        self.bot = bot

    @app_commands.command(name="help", description="Every command of Fate Table, grouped.")
    async def help(self, interaction: discord.Interaction) -> None:
        groups = command_groups(self.bot.tree)
        view = help_view(groups, 0)
        if view is None:
            await interaction.response.send_message(embed=help_page(groups, 0), ephemeral=True)
        else:
            await interaction.response.send_message(
                embed=help_page(groups, 0), view=view, ephemeral=True
            )

    @app_commands.command(name="about", description="Version, uptime, latency and database.")
    async def about(self, interaction: discord.Interaction) -> None:
        uptime = int(time.monotonic() - self.bot.started_at)
        hours, rest = divmod(uptime, 3600)
        minutes, seconds = divmod(rest, 60)
        latency = self.bot.latency
        latency_text = (
            "not measured yet"
            if latency != latency or latency == float("inf")
            else (f"{latency * 1000:.0f} ms")
        )
        embed = discord.Embed(title="Fate Table", colour=COLOUR)
        embed.add_field(name="Version", value=self.bot.version)
        embed.add_field(name="Uptime", value=f"{hours}h {minutes}m {seconds}s")
        embed.add_field(name="Gateway latency", value=latency_text)
        embed.add_field(name="Database", value=self.bot.db.kind)
        embed.add_field(name="Shards", value=str(self.bot.shard_count or 1))
        embed.add_field(name="Servers", value=str(len(self.bot.guilds)))
        await interaction.response.send_message(embed=embed, ephemeral=True)

    settings = app_commands.Group(
        name="settings",
        description="Server settings for Fate Table.",
        guild_only=True,
    )

    @settings.command(name="gm-role", description="Show or set which role counts as GM here.")
    @app_commands.describe(
        role="The role whose members are GMs (administrators always are).",
        reset="Go back to the default: roles named GM or Game Master.",
    )
    async def gm_role(
        self,
        interaction: discord.Interaction,
        role: discord.Role | None = None,
        reset: bool = False,
    ) -> None:
        assert interaction.guild is not None
        if role is None and not reset:
            config = await self.bot.guild_settings.get(interaction.guild.id)
            current = (
                f"<@&{config.gm_role_id}>"
                if config.gm_role_id
                else "the default: any role named **GM** or **Game Master**"
            )
            await interaction.response.send_message(
                f"GMs here: administrators and {current}. "
                "Change it with `/settings gm-role role:@Role` (needs Manage Server).",
                ephemeral=True,
            )
            return
        member = interaction.user
        if not isinstance(member, discord.Member) or not member.guild_permissions.manage_guild:
            raise NotAllowed("Only members with Manage Server can change the GM role.")
        if role is not None and role.is_default():
            raise NotAllowed("@everyone cannot be the GM role; pick or create a GM role.")
        await self.bot.guild_settings.set_gm_role(
            interaction.guild.id, None if reset else role.id if role else None
        )
        text = (
            "GM role reset: roles named **GM** or **Game Master** (and administrators) are GMs."
            if reset
            else f"GM role set: members with {role.mention if role else ''} (and administrators) are GMs."
        )
        await interaction.response.send_message(text, ephemeral=True)


async def setup(bot: FateTableBot) -> None:
    bot.add_dynamic_items(HelpPageButton)
    await bot.add_cog(Core(bot))
