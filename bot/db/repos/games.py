"""A game's row as the hot paths read and write it with raw statements (a new lobby, its
board message, its version, the channel's past games), and what a move appends beside it: the
action log and the public event log, written with one multi-row INSERT each (no ORM unit of
work for rows nobody reads back in the unit). Every function runs in the caller's unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from bot.db.models.games import EVENT_TEXT_LIMIT, FINISHED_GAME, LIVE_STATUSES, GameRow
from bot.db.raw import RawUnit, Sql

_QUOTED_LIVE = ", ".join(f"'{status}'" for status in LIVE_STATUSES)
_LIVE_IN_CHANNEL = Sql(
    f"SELECT id, status FROM games WHERE channel_id = :channel AND status IN ({_QUOTED_LIVE})"
)
_NEW_GAME = Sql(
    """
    INSERT INTO games (engine, guild_id, channel_id, active_channel_id, host_id, seats, options,
                       public_log, status, seed, version, created_at, last_activity)
    VALUES (:engine, :guild_id, :channel_id, :active_channel_id, :host_id, :seats, :options,
            :public_log, :status, :seed, :version, :created_at, :last_activity)
    RETURNING id
    """
)
_VERSION = Sql("SELECT version FROM games WHERE id = :game")
_BOARD_MESSAGE = Sql("SELECT board_message_id FROM games WHERE id = :game")
_SET_BOARD_MESSAGE = Sql(
    "UPDATE games SET board_message_id = :message WHERE id = :game RETURNING guild_id"
)
PAST_GAMES_READ = 500  # the newest of a channel's finished games a start looks at
_PAST_GAMES = Sql(
    "SELECT options, result FROM games WHERE channel_id = :channel AND engine = :engine "
    f"AND {FINISHED_GAME} AND id <> :game ORDER BY id DESC LIMIT {PAST_GAMES_READ}"
)


async def live_game_in_channel_raw_in(unit: RawUnit, channel_id: int) -> tuple[int, str] | None:
    """The id and status of the channel's live game, if it has one."""
    found = await unit.row(_LIVE_IN_CHANNEL, {"channel": channel_id})
    return None if found is None else (int(found[0]), str(found[1]))


async def insert_game_raw_in(unit: RawUnit, row: GameRow) -> int:
    """Store a new game's row (its columns as the model made them); its id."""
    values = {column: getattr(row, column) for column in _NEW_GAME.names}
    values["created_at"] = unit.timestamp(row.created_at)
    values["last_activity"] = unit.timestamp(row.last_activity)
    found = await unit.row(_NEW_GAME, values)
    assert found is not None
    return int(found[0])


async def game_version_raw_in(unit: RawUnit, game_id: int) -> int | None:
    """The stored version of the game (None: no such game)."""
    found = await unit.row(_VERSION, {"game": game_id})
    return None if found is None else int(found[0])


async def board_message_raw_in(unit: RawUnit, game_id: int) -> int | None:
    """The id of the game's public board message (None before it is posted)."""
    found = await unit.row(_BOARD_MESSAGE, {"game": game_id})
    return None if found is None or found[0] is None else int(found[0])


async def set_board_message_raw_in(unit: RawUnit, game_id: int, message_id: int) -> int | None:
    """Store the game's board message id; the game's server (None: no such game)."""
    found = await unit.row(_SET_BOARD_MESSAGE, {"game": game_id, "message": message_id})
    return None if found is None else int(found[0])


async def past_games_raw_in(
    unit: RawUnit, channel_id: int, engine: str, game_id: int | None
) -> list[tuple[str, str | None]]:
    """The options and results (JSON) of the channel's finished games of this engine but
    `game_id`, the newest PAST_GAMES_READ of them, oldest first."""
    params = {"channel": channel_id, "engine": engine, "game": game_id}
    rows = await unit.rows(_PAST_GAMES, params)
    return [(options, result) for options, result in rows[::-1]]


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
