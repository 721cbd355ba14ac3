"""One place that turns exceptions into what the user sees.

Errors a user can cause (RuleError, failed checks, bad option values) become one ephemeral
sentence. Anything else is logged with an incident id, and the user sees only that id.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, TypeVar

import aiohttp
import discord
from discord import app_commands

from bot.errors import RuleError

log = logging.getLogger("fatetable.errors")
F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


class NotAllowed(app_commands.CheckFailure):
    """A permission check failed; the message says who may do it."""


def _root(error: BaseException) -> BaseException:
    """Unwrap discord.py's wrappers down to what was raised."""
    while True:
        if isinstance(error, app_commands.CommandInvokeError):
            error = error.original
        elif isinstance(error, app_commands.TransformerError) and isinstance(
            error.__cause__, RuleError
        ):
            error = error.__cause__
        else:
            return error


def user_message(error: BaseException) -> str | None:
    """The sentence for an error the user caused, or None for a bug."""
    error = _root(error)
    if isinstance(error, RuleError | NotAllowed):
        return str(error)
    if isinstance(error, app_commands.TransformerError):
        return f"'{str(error.value)[:50]}' is not a valid value there. Pick one of the suggestions."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.MissingPermissions | app_commands.BotMissingPermissions):
        return str(error)
    if isinstance(error, app_commands.NoPrivateMessage):
        return "This command only works in a server channel."
    if isinstance(error, app_commands.CheckFailure):
        return "You are not allowed to do that here."
    return None


async def send_ephemeral(interaction: discord.Interaction, text: str) -> None:
    # A bot shutting down (its HTTP session closed) or a connection dropped on the way tells
    # nobody: the error is logged, and nothing escapes the error handler itself.
    if interaction.client.is_closed():
        log.warning(
            "closing: did not tell the user about an error (interaction %s)", interaction.id
        )
        return
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except (discord.HTTPException, aiohttp.ClientError):
        log.warning("could not tell the user about an error (interaction %s)", interaction.id)


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    message = user_message(error)
    if message is None:
        incident = uuid.uuid4().hex[:8]
        log.error(
            "incident %s in %s by user %s",
            incident,
            interaction.command.qualified_name if interaction.command else interaction.data,
            interaction.user.id,
            exc_info=error,
        )
        message = (
            f"Something went wrong on our side (incident `{incident}`). Nothing was changed "
            "unless the table shows it; quote the incident id to your server admin."
        )
    await send_ephemeral(interaction, message)


def install_error_handler(bot: discord.Client) -> None:
    tree: app_commands.CommandTree[Any] = bot.tree  # type: ignore[attr-defined]

    async def on_app_command_error(
        interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)

    tree.on_error = on_app_command_error  # type: ignore[method-assign]


def guarded(callback: F) -> F:
    """Wrap a component/modal callback so its errors reach the user like a command's do.

    discord.py only logs exceptions of DynamicItem callbacks; this makes them visible.
    """

    @wraps(callback)
    async def wrapper(self: Any, interaction: discord.Interaction, *args: Any) -> Any:
        try:
            return await callback(self, interaction, *args)
        except Exception as error:  # noqa: BLE001 - every error must reach the user
            await report_error(interaction, error)
            return None

    return wrapper  # type: ignore[return-value]


class SafeView(discord.ui.View):
    async def on_error(
        self, interaction: discord.Interaction, error: Exception, item: discord.ui.Item[Any]
    ) -> None:
        await report_error(interaction, error)


class SafeModal(discord.ui.Modal):
    async def on_error(  # type: ignore[override]
        self, interaction: discord.Interaction, error: Exception
    ) -> None:
        await report_error(interaction, error)
