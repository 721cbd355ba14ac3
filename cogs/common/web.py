"""What the commands that hand out web view links share: is the view on, and how to say it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bot.errors import RuleError


def web_service(bot: Any) -> Any:
    """The bot's WebService; a sentence when the host did not turn the web view on."""
    service = getattr(bot, "web", None)
    if service is None:
        raise RuleError(
            "The web view is off on this bot: whoever runs it can turn it on with the "
            "`WEB_PORT` setting (see docs/web.md)."
        )
    return service


def link_text(bot: Any, link: Any, what: str) -> str:
    """One ephemeral answer: the link, what it shows, until when, and how to end it."""
    until = datetime.fromtimestamp(link.expires_at, UTC).strftime("%Y-%m-%d")
    return f"{what}\n<{bot.web_url(link.token)}>\nIt works until {until}."
