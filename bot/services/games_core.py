"""The game table's core (GameService is split along its sections: games_lobby.py,
games_play.py, games_queries.py; games.py puts them together): the per-process memory of
live games and their rows, what the ui sees of a row, and the versioned writes.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from datetime import datetime
from functools import partial
from typing import Any

from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import col, select

from bot.bounded import Bounded
from bot.db.changes import touched
from bot.db.engine import Database
from bot.db.models.columns import utcnow
from bot.db.models.games import LIVE_STATUSES, GameRow
from bot.db.repos.games import LoggedAction, game_version_raw_in, insert_logs_raw_in
from bot.db.repos.versioned import update_versioned_in, update_versioned_raw_in
from bot.errors import RuleError
from bot.games.base import GameEngine, get_engine
from bot.services.game_info import (
    LIVE_CACHE_MAX,
    AlreadyDone,
    GameInfo,
    LiveGame,
    seats_of,
)

AI_STEP_LIMIT = 400  # AI seats acting in a row after one human action
PUBLIC_LOG_KEEP = 12  # recent public events kept on the row for the board
HISTORY_LIMIT = 10
LOG_READ_LIMIT = 5000  # public events of one game read for its history
SEAT_NAME_MAX = 32
LIVE = LIVE_STATUSES  # a game that holds its channel
WATCHED = ("lobby", "running")  # live games the idle check may warn and end (not paused ones)
AUTO = "auto"  # an action id meaning: let the AI pick my move
STATES_KEPT = 256  # parsed states kept for the next move (of the games that moved last)
IDLE_BATCH = 100
STALE_MOVE = "Already done: someone acted first. Press **My hand** to see the table now."


class GameCore:
    """What every section of the game table shares: caches, snapshots, loads and saves."""

    def __init__(self, db: Database) -> None:
        self.db = db
        # channel id -> the live game's latest known version (refreshed on every read/write of
        # a row by this process), so autocomplete answers without a database read.
        self._live: dict[int, LiveGame] = Bounded(LIVE_CACHE_MAX)
        # channel id -> when it was read as having no live game: autocomplete typed in such a
        # channel answers from memory for a few seconds instead of reading on every keystroke.
        # A game created by this process clears it at once; one created elsewhere within TTL.
        self._no_game: dict[int, float] = Bounded(LIVE_CACHE_MAX)
        # game id -> its running row as this process last read or wrote it: a move starts from
        # it without reading the game again (its versioned write still checks that nobody,
        # in any process, moved in between; see `_act_cached`).
        self._rows: dict[int, GameRow] = Bounded(LIVE_CACHE_MAX)
        # game id -> (row state JSON, the state a move made of it): the next move's start
        self._states: dict[int, tuple[str, Any]] = Bounded(STATES_KEPT)
        self.clock: Callable[[], float] = time.monotonic
        # Where a new game's seed comes from; tests set a fixed one to replay the same game.
        self.new_seed: Callable[[], int] = lambda: random.SystemRandom().getrandbits(48)

    def _remember(self, row: GameRow) -> None:
        assert row.id is not None
        self._no_game.pop(row.channel_id, None)
        known = self._live.get(row.channel_id)
        if row.status not in LIVE:
            if known is not None and known.game_id == row.id:
                del self._live[row.channel_id]
            self._rows.pop(row.id, None)
            return
        if known is not None and known.game_id == row.id and known.version >= row.version:
            return  # already current (or a stale row read after a newer write)
        self._rows[row.id] = row
        self._live[row.channel_id] = LiveGame(
            row.id, row.version, row.status, row.engine, seats_of(row), row.state
        )

    async def _checked_live(self, channel_id: int) -> LiveGame | None:
        """The remembered live game of the channel, forgotten when the stored row moved on."""
        live = self._live.get(channel_id)
        if live is None:
            return None
        if await self._stored_version(live.game_id) == live.version:
            return live
        self._live.pop(channel_id, None)  # read afresh (or gone: finished, deleted)
        async with self.db.read() as session:
            row = await self._live_in_channel_in(session, channel_id)
        if row is not None:
            self._remember(row)
        return self._live.get(channel_id)

    async def _stored_version(self, game_id: int) -> int | None:
        """The game's version as stored now: whether a copy this process keeps is current."""
        async with self.db.raw_read() as unit:
            return await game_version_raw_in(unit, game_id)

    async def _current_row(self, game_id: int) -> GameRow:
        """The game's row: the one this process last read or wrote when the stored row is
        still at its version (a read of one number), else read whole. (Every write of a game
        makes a new version but the board message's, which this process's copy follows.)"""
        cached = self._rows.get(game_id)
        if cached is not None and await self._stored_version(game_id) == cached.version:
            return cached
        async with self.db.read() as session:  # a read: never queued behind a writer
            return await self._load_in(session, game_id)

    def _parsed_state(self, row: GameRow, engine: GameEngine[Any, Any]) -> Any:
        """The row's state parsed (None before the start): the one a move of this process
        made of it when there is one (states are never changed once made)."""
        if row.state is None:
            return None
        kept = self._states.get(row.id or 0)
        return (
            kept[1] if kept is not None and kept[0] is row.state else engine.load_state(row.state)
        )

    # ------------------------------------------------------------------ snapshots
    def _info(
        self,
        row: GameRow,
        *,
        with_view: bool = True,
        state: Any = None,
        view: Callable[[], dict[str, Any]] | None = None,
        public_log: list[str] | None = None,
    ) -> GameInfo:
        """What the ui sees of the row; ``state``: the row's state already parsed (a move's
        result), so that it is not parsed from its JSON again; ``view``: what builds its
        public view, when the caller has that already; ``public_log``: the row's public log,
        parsed (a move's, which it has just written). The public view is built the first time
        something reads it (the board's edit; a burst of moves shares one)."""
        assert row.id is not None
        self._remember(row)
        engine = get_engine(row.engine)
        seats = seats_of(row)
        info = GameInfo(
            id=row.id,
            engine=row.engine,
            engine_name=engine.name,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            host_id=row.host_id,
            seats=seats,
            options=json.loads(row.options),
            status=row.status,
            version=row.version,
            board_message_id=row.board_message_id,
            public_log=json.loads(row.public_log) if public_log is None else public_log,
            result=json.loads(row.result) if row.result else None,
            created_at=row.created_at,
            last_activity=row.last_activity,
            min_players=engine.min_players,
            max_players=engine.max_players,
        )
        if with_view and row.state:
            if state is None:
                state = engine.load_state(row.state)
            info.view_source = partial(engine.public_view, state) if view is None else view
            by_seat = {s.seat: s.name for s in seats}
            info.current_names = [by_seat.get(s, s) for s in engine.current_seats(state)]
        return info

    async def _load_in(self, session: Any, game_id: int) -> GameRow:
        row = await session.get(GameRow, game_id)
        if row is None:
            raise RuleError("That game no longer exists; start one with `/game new`.")
        self._remember(row)  # a fresh read also refreshes the in-memory autocomplete data
        return row  # type: ignore[no-any-return]

    async def _save_in(self, session: Any, row: GameRow, expected: int, **values: Any) -> None:
        """Conditional write: fails with AlreadyDone when someone else changed the row first."""
        values.setdefault("last_activity", utcnow())
        values.setdefault("warned_at", None)
        stale = AlreadyDone(STALE_MOVE)
        # Built once per set of columns (no ORM synchronisation: the row is expunged below).
        values["version"] = await update_versioned_in(
            session, GameRow, row.id, expected, values, stale, synchronize=False
        )
        touched(session, {row.guild_id})  # the row may never have been loaded in this unit
        if row in session:
            session.expunge(row)  # the conditional UPDATE above is the only write of the row
        for key, value in values.items():
            setattr(row, key, value)

    async def _save_move(
        self,
        row: GameRow,
        expected: int,
        logs: list[LoggedAction],
        public: list[str],
        **values: Any,
    ) -> None:
        """`_save_in` for a move, as one raw unit of work (bot/db/raw.py: no ORM): the
        versioned UPDATE of the row, then its action and event logs."""
        assert row.id is not None
        now = utcnow()
        values.setdefault("last_activity", now)
        values["warned_at"] = None
        async with self.db.raw() as unit:
            stored = {
                k: unit.timestamp(v) if isinstance(v, datetime) else v for k, v in values.items()
            }
            version = await update_versioned_raw_in(
                unit, GameRow.__tablename__, row.id, expected, stored, AlreadyDone(STALE_MOVE)
            )
            touched(unit, {row.guild_id})
            await insert_logs_raw_in(unit, row.id, version, logs, public, unit.timestamp(now))
        values["version"] = version
        # The row is detached and now holds what is stored: its values are set as committed
        # (no ORM change history, no pydantic __setattr__: ~30 us a column per move).
        for key, value in values.items():
            set_committed_value(row, key, value)

    def _keep_state(self, row: GameRow, state: Any) -> None:
        """Keep the parsed state of a running game's row as written, for its next move."""
        if row.status == "running" and row.state is not None:
            self._states[row.id or 0] = (row.state, state)

    @staticmethod
    def _busy_text(*, status: str, game_id: int) -> str:
        return (
            f"This channel already has a game ({status}, #{game_id}); see `/game status`, "
            "or end it with `/game abandon` (host or GM)."
        )

    async def _live_in_channel_in(self, session: Any, channel_id: int) -> GameRow | None:
        result = await session.exec(
            select(GameRow).where(
                col(GameRow.channel_id) == channel_id, col(GameRow.status).in_(LIVE)
            )
        )
        return result.first()  # type: ignore[no-any-return]
