"""What the commands that hand out web view links share: is the view on, and how to say it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import discord

from bot.errors import RuleError
from bot.services.web import WebLink, WebService
from cogs.common.bot_of import as_bot

if TYPE_CHECKING:
    from bot.client import FateTableBot


def web_service(bot: FateTableBot) -> WebService:
    """The bot's WebService; a sentence when the host did not turn the web view on."""
    service = bot.web
    if service is None:
        raise RuleError(
            "The web view is off on this bot: whoever runs it can turn it on with the "
            "`WEB_PORT` setting (see docs/web.md)."
        )
    return service


def link_text(bot: discord.Client, link: WebLink, what: str) -> str:
    """The link, what it shows and until when."""
    until = datetime.fromtimestamp(link.expires_at, UTC).strftime("%Y-%m-%d")
    return f"{what}\n{link_address(bot, link)}\nIt works until {until}."


def link_address(bot: discord.Client, link: WebLink) -> str:
    """The link's address as a message shows it (in <>, so Discord draws no preview)."""
    return f"<{as_bot(bot).web_url(link.token)}>"


async def answer_with_link(
    interaction: discord.Interaction, link: WebLink, *, revoked: str | None, what: str, command: str
) -> None:
    """The private answer of `/campaign web` and `/character web`: what was revoked (if
    anything), what the page shows, the link, until when, and how to end the links."""
    ended = f"{revoked} " if revoked else ""
    text = link_text(interaction.client, link, ended + what)
    await interaction.response.send_message(
        f"{text} `{command} revoke:True` ends the links made so far.", ephemeral=True
    )
