"""What a game's move appends beside its row: the action log and the public event log, written
with one multi-row INSERT each (no ORM unit of work for rows nobody reads back in the unit).
Every function runs in the caller's transaction.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert

from bot.db.models.columns import utcnow
from bot.db.models.games import EVENT_TEXT_LIMIT, GameActionLog, GameEventLog

_ACTIONS = insert(GameActionLog.__table__)  # type: ignore[attr-defined]
_EVENTS = insert(GameEventLog.__table__)  # type: ignore[attr-defined]


async def insert_logs_in(
    session: Any, game_id: int, version: int, actions: list[GameActionLog], events: list[str]
) -> None:
    """The actions applied by the write that made `version` of the game, and its public
    events in order (a text longer than the column is cut with an ellipsis)."""
    now = utcnow()
    if actions:
        await session.exec(
            _ACTIONS,
            params=[
                {
                    "game_id": game_id,
                    "version": entry.version,
                    "seat": entry.seat,
                    "user_id": entry.user_id,
                    "action_id": entry.action_id,
                    "label": entry.label,
                    "created_at": now,
                }
                for entry in actions
            ],
        )
    if events:
        await session.exec(
            _EVENTS,
            params=[
                {
                    "game_id": game_id,
                    "version": version,
                    "text": text
                    if len(text) <= EVENT_TEXT_LIMIT
                    else text[: EVENT_TEXT_LIMIT - 1] + "…",
                    "created_at": now,
                }
                for text in events
            ],
        )
