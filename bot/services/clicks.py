"""What a click on a live message (a tracker, a game board) tells the service it calls."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClickContext:
    """Who clicked what: the row the message was drawn for, the row's version it showed (None:
    act on whatever the row is now, as a slash command does), the user and whether they are a
    GM here.

    Services take one of these instead of the four values; the cogs' `Click` is one."""

    ident: int
    version: int | None
    user_id: int
    is_gm: bool
