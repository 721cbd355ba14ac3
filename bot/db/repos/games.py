"""What a game's move appends beside its row: the action log and the public event log, written
with one multi-row INSERT each (no ORM unit of work for rows nobody reads back in the unit).
Every function runs in the caller's transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from bot.db.models.games import EVENT_TEXT_LIMIT
from bot.db.raw import RawUnit, Sql

_RAW_ACTIONS = Sql(
    "INSERT INTO game_actions (game_id, version, seat, user_id, action_id, label, created_at) "
    "VALUES (:game_id, :version, :seat, :user_id, :action_id, :label, :created_at)"
)
_RAW_EVENTS = Sql(
    "INSERT INTO game_events (game_id, version, text, created_at) "
    "VALUES (:game_id, :version, :text, :created_at)"
)


class LoggedAction(NamedTuple):
    """One applied action as the action log stores it (the columns of `GameActionLog` a move
    writes; a plain tuple: a move logs one per AI step, and a validated SQLModel object
    costs about a hundred times as much)."""

    version: int
    seat: str
    user_id: int | None
    action_id: str
    label: str


def _clipped(text: str) -> str:
    return text if len(text) <= EVENT_TEXT_LIMIT else text[: EVENT_TEXT_LIMIT - 1] + "…"


def _action_rows(game_id: int, actions: Sequence[LoggedAction], at: Any) -> list[dict[str, Any]]:
    return [
        {
            "game_id": game_id,
            "version": entry.version,
            "seat": entry.seat,
            "user_id": entry.user_id,
            "action_id": entry.action_id,
            "label": entry.label,
            "created_at": at,
        }
        for entry in actions
    ]


def _event_rows(game_id: int, version: int, events: list[str], at: Any) -> list[dict[str, Any]]:
    """The public events in order (a text longer than the column is cut with an ellipsis)."""
    return [
        {"game_id": game_id, "version": version, "text": _clipped(text), "created_at": at}
        for text in events
    ]


async def insert_logs_raw_in(
    unit: RawUnit,
    game_id: int,
    version: int,
    actions: Sequence[LoggedAction],
    events: list[str],
    created_at: Any,
) -> None:
    """The actions applied by the write that made `version` of the game, and its public
    events in order (`created_at` as `unit.timestamp` gives it)."""
    if actions:
        await unit.run_many(_RAW_ACTIONS, _action_rows(game_id, actions, created_at))
    if events:
        await unit.run_many(_RAW_EVENTS, _event_rows(game_id, version, events, created_at))
