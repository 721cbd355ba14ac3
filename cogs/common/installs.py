"""Where commands work. A person can install Fate Table to their own account and use it in any
server or DM, even where the bot is not a member; there only the commands that need no table
(/roll with dice or a number, /rules) work. Everything else needs a server that added the bot.

The command tree's defaults make every command server-only; `anywhere` opts one in. Discord
hides server-only commands where the app is user-installed, but a stale client may still send
one: `install_server_only_answer` then says where the command works instead of failing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from cogs.common.errors import send_ephemeral

SERVER_INSTALLS = app_commands.AppInstallationType(guild=True, user=False)
SERVER_CONTEXTS = app_commands.AppCommandContext(guild=True)
T = TypeVar("T")


def anywhere(command: T) -> T:
    """Make a command usable from a user install, in any server, DM or group DM."""
    installs: Callable[[T], T] = app_commands.allowed_installs(guilds=True, users=True)
    contexts: Callable[[T], T] = app_commands.allowed_contexts(
        guilds=True, dms=True, private_channels=True
    )
    return installs(contexts(command))


def works_anywhere(command: app_commands.Command[Any, ..., Any] | app_commands.Group) -> bool:
    root = command.root_parent or command
    installs = root.allowed_installs
    return installs is not None and installs.user


def has_table(interaction: discord.Interaction) -> bool:
    """True in a server that added the bot (where campaigns, characters and rows live)."""
    return interaction.is_guild_integration()


def server_only_text(name: str) -> str:
    return (
        f"/{name} works in a server that added Fate Table (a server admin invites the bot). "
        "Here, with Fate Table on your account, use /roll with dice or a number, and /rules."
    )


def install_server_only_answer(bot: commands.bot.BotBase) -> None:
    tree: app_commands.CommandTree[Any] = bot.tree

    async def check(interaction: discord.Interaction) -> bool:
        command = interaction.command
        if not isinstance(command, app_commands.Command | app_commands.Group):
            return True  # buttons, selects and forms carry their own checks
        if has_table(interaction) or works_anywhere(command):
            return True
        if interaction.type is discord.InteractionType.application_command:
            await send_ephemeral(interaction, server_only_text(command.qualified_name))
        return False

    tree.interaction_check = check  # type: ignore[method-assign]
