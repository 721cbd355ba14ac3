"""Game table use cases: lobbies, seats, validated actions with optimistic concurrency, AI seats,
idle games and history. The only place that opens a transaction for table games.

Engines are looked up through ``bot.games.base.get_engine``; the service never knows a game's
rules. Seats given to an engine are opaque strings: a human seat is the user id as text, an AI
seat is ``ai:<n>``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.changes import touched
from bot.db.engine import Database
from bot.db.models.columns import as_utc, utcnow
from bot.db.models.games import GameActionLog, GameEventLog, GameRow
from bot.db.repos.games import LoggedAction, insert_logs_in, insert_logs_raw_in
from bot.db.repos.versioned import update_versioned_in, update_versioned_raw_in
from bot.errors import RuleError
from bot.fate.words import plural
from bot.games.base import (
    Action,
    GameEngine,
    GameEvent,
    find_action,
    get_engine,
)
from bot.services.game_info import (
    LIVE_CACHE_MAX,
    NO_GAME_TTL,
    RESET,
    ActOutcome,
    AlreadyDone,
    GameInfo,
    HandInfo,
    IdleNotice,
    LiveGame,
    NotSeated,
    Seat,
    acting_seat,
    finish_values,
    logged_action,
    multi_option_fields,
    option_fields,
    option_titles,
    row_rng,
    seats_of,
    validated_options,
)

AI_STEP_LIMIT = 400  # AI seats acting in a row after one human action
PUBLIC_LOG_KEEP = 12  # recent public events kept on the row for the board
HISTORY_LIMIT = 10
LOG_READ_LIMIT = 5000  # public events of one game read for its history
SEAT_NAME_MAX = 32
LIVE = ("lobby", "running", "paused")  # a game that holds its channel
WATCHED = ("lobby", "running")  # live games the idle check may warn and end (not paused ones)
AUTO = "auto"  # an action id meaning: let the AI pick my move
STATES_KEPT = 256  # parsed states kept for the next move (of the games that moved last)


IDLE_BATCH = 100
STALE_MOVE = "Already done: someone acted first. Press **My hand** to see the table now."


class GameService:
    """The game table: lobbies, seats, actions, AI turns, idle games."""

    def __init__(self, db: Database) -> None:
        self.db = db
        # channel id -> the live game's latest known version (refreshed on every read/write of
        # a row by this process), so autocomplete answers without a database read.
        self._live: dict[int, LiveGame] = {}
        # channel id -> when it was read as having no live game: autocomplete typed in such a
        # channel answers from memory for a few seconds instead of reading on every keystroke.
        # A game created by this process clears it at once; one created elsewhere within TTL.
        self._no_game: dict[int, float] = {}
        # game id -> its running row as this process last read or wrote it: a move starts from
        # it without reading the game again (its versioned write still checks that nobody,
        # in any process, moved in between; see `_act_cached`).
        self._rows: dict[int, GameRow] = {}
        # game id -> (row state JSON, the state a move made of it): the next move's start
        self._states: dict[int, tuple[str, Any]] = {}
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
        self._rows.pop(row.id, None)
        self._rows[row.id] = row
        while len(self._rows) > LIVE_CACHE_MAX:
            del self._rows[next(iter(self._rows))]
        self._live.pop(row.channel_id, None)
        self._live[row.channel_id] = LiveGame(
            row.id, row.version, row.status, row.engine, seats_of(row), row.state
        )
        while len(self._live) > LIVE_CACHE_MAX:
            del self._live[next(iter(self._live))]

    async def _checked_live(self, channel_id: int) -> LiveGame | None:
        """The remembered live game of the channel, forgotten when the stored row moved on."""
        live = self._live.get(channel_id)
        if live is None:
            return None
        async with self.db.read() as session:
            stored = (
                await session.exec(select(GameRow.version).where(col(GameRow.id) == live.game_id))
            ).first()
            if stored == live.version:
                return live
            self._live.pop(channel_id, None)  # read afresh below (or gone: finished, deleted)
            row = await self._live_in_channel_in(session, channel_id)
        if row is not None:
            self._remember(row)
        return self._live.get(channel_id)

    async def move_choices(self, channel_id: int, user_id: int) -> tuple[int, list[Action]] | None:
        """(version, legal actions) of the user's seat in the channel's running game, from
        memory once the stored version is checked (another process may have moved since); the
        whole row is read only when this process has not seen the game or its newest version."""
        live = await self._checked_live(channel_id)
        if live is None:
            seen_empty = self._no_game.get(channel_id)
            if seen_empty is not None and self.clock() - seen_empty < NO_GAME_TTL:
                return None
            async with self.db.session() as session:
                row = await self._live_in_channel_in(session, channel_id)
                if row is not None:
                    self._remember(row)
            if row is None:
                self._no_game.pop(channel_id, None)  # re-inserted last: oldest dropped first
                self._no_game[channel_id] = self.clock()
                while len(self._no_game) > LIVE_CACHE_MAX:
                    del self._no_game[next(iter(self._no_game))]
                return None
            live = self._live.get(channel_id)
        if live is None or live.status != "running" or live.state_json is None:
            return None
        seat = next((s for s in live.seats if s.user_id == user_id), None)
        if seat is None:
            return None
        actions = live.actions.get(user_id)
        if actions is None:
            engine = get_engine(live.engine)
            actions = engine.legal_actions(engine.load_state(live.state_json), seat.seat)
            live.actions[user_id] = actions
        return live.version, actions

    # ------------------------------------------------------------------ snapshots
    def _info(
        self,
        row: GameRow,
        *,
        with_view: bool = True,
        state: Any = None,
        view: dict[str, Any] | None = None,
    ) -> GameInfo:
        """What the ui sees of the row; ``state``: the row's state already parsed (a move's
        result), so that it is not parsed from its JSON again; ``view``: its public view, when
        the caller has it already."""
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
            public_log=json.loads(row.public_log),
            result=json.loads(row.result) if row.result else None,
            created_at=row.created_at,
            last_activity=row.last_activity,
            min_players=engine.min_players,
            max_players=engine.max_players,
        )
        if with_view and row.state:
            if state is None:
                state = engine.load_state(row.state)
            info.view = engine.public_view(state) if view is None else view
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
        for key, value in values.items():
            setattr(row, key, value)

    # ------------------------------------------------------------------ lobby
    async def create_lobby(
        self,
        *,
        guild_id: int,
        channel_id: int,
        host_id: int,
        host_name: str,
        engine_key: str,
        options: dict[str, Any],
    ) -> GameInfo:
        engine = get_engine(engine_key)
        clean = validated_options(engine, options)
        row = GameRow(
            engine=engine.key,
            guild_id=guild_id,
            channel_id=channel_id,
            active_channel_id=channel_id,
            host_id=host_id,
            seats=json.dumps([Seat(str(host_id), host_id, host_name[:SEAT_NAME_MAX]).as_json()]),
            options=json.dumps(clean),
            seed=self.new_seed(),
        )
        try:
            async with self.db.session() as session:
                busy = await self._live_in_channel_in(session, channel_id)
                if busy is not None:
                    raise RuleError(self._busy_text(busy))
                session.add(row)
                await session.flush()
                return self._info(row)
        except IntegrityError:
            raise RuleError(
                "This channel already has a game; see `/game status` or end it with `/game abandon`."
            ) from None

    @staticmethod
    def _busy_text(row: GameRow) -> str:
        return (
            f"This channel already has a game ({row.status}, #{row.id}); see `/game status`, "
            "or end it with `/game abandon` (host or GM)."
        )

    async def _live_in_channel_in(self, session: Any, channel_id: int) -> GameRow | None:
        result = await session.exec(
            select(GameRow).where(
                col(GameRow.channel_id) == channel_id, col(GameRow.status).in_(LIVE)
            )
        )
        return result.first()  # type: ignore[no-any-return]

    async def board_message_of(self, game_id: int) -> int | None:
        """The id of the game's public board message (None before it is posted)."""
        async with self.db.read() as session:
            found = await session.exec(
                select(GameRow.board_message_id).where(col(GameRow.id) == game_id)
            )
            return found.first()  # type: ignore[no-any-return]

    async def set_board_message(self, game_id: int, message_id: int) -> None:
        async with self.db.session() as session:
            await session.exec(
                update(GameRow)
                .where(col(GameRow.id) == game_id)
                .values(board_message_id=message_id)
            )
        cached = self._rows.get(game_id)
        if cached is not None:  # a write without a new version: the cached row follows it
            cached.board_message_id = message_id

    async def lobby_action(
        self, game_id: int, user_id: int, user_name: str, op: str, *, is_gm: bool = False
    ) -> GameInfo:
        """Join / leave / ai (add an AI seat) / unai (remove one) / start."""
        async with self.db.session() as session:
            row = await self._load_in(session, game_id)
            if row.status != "lobby":
                raise AlreadyDone(
                    "This game has already started (or ended); use the table's **My hand** button."
                )
            engine = get_engine(row.engine)
            seats = seats_of(row)
            mine = next((s for s in seats if s.user_id == user_id), None)
            host = user_id == row.host_id
            if op == "join":
                if mine is not None:
                    raise RuleError("You already have a seat; wait for the host to press Start.")
                if len(seats) >= engine.max_players:
                    raise RuleError(f"The table is full ({engine.max_players} seats).")
                seats.append(Seat(str(user_id), user_id, user_name[:SEAT_NAME_MAX]))
            elif op == "leave":
                if mine is None:
                    raise NotSeated("You have no seat at this table; press Join to take one.")
                if host:
                    raise RuleError(
                        "The host cannot leave the lobby; end it with `/game abandon` instead."
                    )
                seats.remove(mine)
            elif op in ("ai", "unai"):
                if not (host or is_gm):
                    raise RuleError("Only the host can change the AI seats.")
                ai_seats = [s for s in seats if s.ai]
                if op == "ai":
                    if len(seats) >= engine.max_players:
                        raise RuleError(f"The table is full ({engine.max_players} seats).")
                    number = max([int(s.seat[3:]) for s in ai_seats] or [0]) + 1
                    seats.append(Seat(f"ai:{number}", None, f"AI {number}", ai=True))
                else:
                    if not ai_seats:
                        raise RuleError("There is no AI seat to remove.")
                    seats.remove(ai_seats[-1])
            elif op == "start":
                if not (host or is_gm):
                    raise RuleError("Only the host can start the game.")
                return await self._start_in(session, row, engine, seats)
            else:
                raise RuleError("Unknown lobby button; open a new lobby with `/game new`.")
            await self._save_in(
                session, row, row.version, seats=json.dumps([s.as_json() for s in seats])
            )
            return self._info(row)

    async def set_option(
        self,
        game_id: int,
        user_id: int,
        name: str,
        value: str | list[str],
        *,
        is_gm: bool = False,
    ) -> GameInfo:
        """Set a lobby option. ``none`` (or an empty pick of a list option) resets it."""
        async with self.db.session() as session:
            row = await self._load_in(session, game_id)
            if row.status != "lobby":
                raise AlreadyDone("Options can only change in the lobby, before the game starts.")
            if user_id != row.host_id and not is_gm:
                raise RuleError("Only the host can change the game's options.")
            engine = get_engine(row.engine)
            allowed = option_fields(engine)
            if name not in allowed:
                raise RuleError("That option cannot be changed here; use the lobby's menus.")
            values = [value] if isinstance(value, str) else list(value)
            values = [v for v in dict.fromkeys(values) if v != RESET]
            wrong = [v for v in values if v not in allowed[name]]
            if wrong:
                raise RuleError(
                    f"{wrong[0][:40]!r} is not a choice for {option_titles(engine)[name]}; pick "
                    "one of the menu's values."
                )
            options = json.loads(row.options)
            if not values:
                options.pop(name, None)  # back to the default
            elif name in multi_option_fields(engine):
                options[name] = values
            else:
                options[name] = values[0]
            clean = validated_options(engine, options)
            await self._save_in(session, row, row.version, options=json.dumps(clean))
            return self._info(row)

    async def _start_in(
        self, session: Any, row: GameRow, engine: GameEngine[Any, Any], seats: list[Seat]
    ) -> GameInfo:
        if len(seats) < engine.min_players:
            raise RuleError(f"This game needs at least {plural(engine.min_players, 'seat')}.")
        raw, note = engine.resolve_options(
            json.loads(row.options), await self._past_games_in(session, row)
        )
        options = engine.parse_options(raw)
        state = engine.new_game(options, [s.seat for s in seats], row_rng(row, 0))
        log = [f"The game begins: {', '.join(s.name for s in seats)}."]
        if note:
            log.append(note)
        log += engine.opening(state)
        state, ai_events, ai_logs = self._run_ai(engine, row, state, seats, 1)
        log += [e.text for e in ai_events if e.public]
        expected = row.version
        await self._save_in(
            session,
            row,
            expected,
            status="finished" if engine.is_over(state) else "running",
            state=state.model_dump_json(),
            options=json.dumps(raw),
            public_log=json.dumps(log[-PUBLIC_LOG_KEEP:]),
            **finish_values(engine, state),
        )
        assert row.id is not None
        await insert_logs_in(session, row.id, row.version, ai_logs, log)
        return self._info(row)

    @staticmethod
    async def _past_games_in(
        session: Any, row: GameRow, limit: int = 500
    ) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        """This channel's finished games of the same engine, oldest first."""
        result = await session.exec(
            select(GameRow)
            .where(
                col(GameRow.channel_id) == row.channel_id,
                col(GameRow.engine) == row.engine,
                col(GameRow.status) == "finished",
                col(GameRow.id) != row.id,
            )
            .order_by(col(GameRow.id).desc())
            .limit(limit)
        )
        rows = list(result.all())[::-1]
        return [(json.loads(r.options), json.loads(r.result) if r.result else None) for r in rows]

    # ------------------------------------------------------------------ play
    def _run_ai(
        self,
        engine: GameEngine[Any, Any],
        row: GameRow,
        state: Any,
        seats: list[Seat],
        step: int,
    ) -> tuple[Any, list[GameEvent], list[LoggedAction]]:
        """Let AI seats act while only AI seats may act (bounded)."""
        ai = {s.seat for s in seats if s.ai}
        events: list[GameEvent] = []
        logs: list[LoggedAction] = []
        for n in range(AI_STEP_LIMIT):
            if engine.is_over(state):
                break
            current = engine.current_seats(state)
            if not current or any(s not in ai for s in current):
                break
            seat = current[0]
            rng = row_rng(row, step + n)
            action = engine.choose_action(state, seat, rng)
            state, new = engine.apply(state, seat, action, rng)
            events += new
            logs.append(logged_action(row, seat, None, action))
        return state, events, logs

    async def hand(self, game_id: int, user_id: int) -> HandInfo:
        async with self.db.read() as session:  # a read: never queued behind a writer
            row = await self._load_in(session, game_id)
            info = self._info(row)
        seat = info.seat_of(user_id)
        if seat is None:
            raise NotSeated(
                "You are not playing in this game: the board shows everything public. "
                "Start your own with `/game new` in another channel."
            )
        if row.state is None:
            raise RuleError("The game has not started yet; wait for the host to press Start.")
        engine = get_engine(row.engine)
        return self._hand_of(info, seat, engine, engine.load_state(row.state))

    async def card_texts(
        self, game_id: int, user_id: int, guild_id: int
    ) -> tuple[GameInfo, dict[str, Any]]:
        """The view behind **Card texts**: a player's private view while the game runs (their
        hand's texts too), the public view for anyone else on the game's server."""
        async with self.db.read() as session:
            row = await self._load_in(session, game_id)
        if row.guild_id != guild_id:
            raise RuleError("That game belongs to another server; open one here with `/game new`.")
        if row.state is None:
            raise RuleError("The game has not started yet; wait for the host to press Start.")
        info = self._info(row)
        seat = info.seat_of(user_id)
        if seat is None or info.status != "running":
            return info, info.view or {}
        engine = get_engine(row.engine)
        return info, engine.private_view_from(engine.load_state(row.state), seat.seat, info.view)

    @staticmethod
    def _hand_of(info: GameInfo, seat: Seat, engine: GameEngine[Any, Any], state: Any) -> HandInfo:
        actions = engine.legal_actions(state, seat.seat) if info.status == "running" else []
        # info.view is the public view of this very state (the move's result or the row's)
        view = engine.private_view_from(state, seat.seat, info.view)
        return HandInfo(info, seat, view, actions)

    async def act(
        self, game_id: int, user_id: int, version: int | None, action_id: str
    ) -> ActOutcome:
        """Apply the user's action at ``version`` (None: whatever is current). The action id
        ``auto`` lets the engine's AI choose the move for the user's seat."""
        outcome = await self._act_cached(game_id, user_id, version, action_id)
        if outcome is not None:
            return outcome
        async with self.db.read() as session:
            row = await self._load_in(session, game_id)
        return await self._act_on(row, user_id, version, action_id)

    async def act_in_channel(
        self, channel_id: int, user_id: int, version: int | None, action_id: str
    ) -> ActOutcome:
        """`act` on the channel's live game (for /game move), found in the same transaction."""
        live = self._live.get(channel_id)
        if live is not None:
            outcome = await self._act_cached(live.game_id, user_id, version, action_id)
            if outcome is not None:
                return outcome
        async with self.db.read() as session:
            row = await self._live_in_channel_in(session, channel_id)
        if row is None:
            raise RuleError("There is no game in this channel; start one with `/game new`.")
        self._remember(row)
        return await self._act_on(row, user_id, version, action_id)

    async def _act_cached(
        self, game_id: int, user_id: int, version: int | None, action_id: str
    ) -> ActOutcome | None:
        """The move made from the row this process last read or wrote, when that row is still
        running at the version the click saw; None when it is not, or when the versioned write
        found that the game moved meanwhile (another process, or a click that came first):
        the caller then reads the game and decides again, as if nothing had been cached."""
        row = self._rows.get(game_id)
        if row is None or row.status != "running" or version not in (None, row.version):
            return None
        try:
            return await self._act_on(row, user_id, version, action_id)
        except AlreadyDone:
            self._rows.pop(game_id, None)
            return None

    async def _act_on(
        self, row: GameRow, user_id: int, version: int | None, action_id: str
    ) -> ActOutcome:
        """The engine and the AI run outside any transaction, on the row as read; the result
        is one versioned write, so a move that landed in between wins and this one is refused."""
        seats, seat, version = acting_seat(row, user_id, version)
        engine = get_engine(row.engine)
        kept = self._states.pop(row.id or 0, None)
        state = kept[1] if kept and kept[0] is row.state else engine.load_state(row.state or "{}")
        current = engine.current_seats(state)
        # A seat not waited for may still have a table-wide move (e.g. proposing the Showdown).
        if seat.seat not in current and not engine.legal_actions(state, seat.seat):
            names = ", ".join(s.name for s in seats if s.seat in current) or "nobody"
            raise RuleError(f"It is not your turn: waiting for {names}.")
        if action_id == AUTO:
            action = engine.choose_action(state, seat.seat, row_rng(row, 0))
        else:
            action = find_action(engine, state, seat.seat, action_id)
        state, events = engine.apply(state, seat.seat, action, row_rng(row, 0))
        logs = [logged_action(row, seat.seat, user_id, action)]
        state, ai_events, ai_logs = self._run_ai(engine, row, state, seats, 1)
        events += ai_events
        logs += ai_logs
        public = [e.text for e in events if e.public]
        private = [e.text for e in events if not e.public and seat.seat in e.audience]
        log = (json.loads(row.public_log) + public)[-PUBLIC_LOG_KEEP:]
        await self._save_move(
            row,
            version,
            logs,
            public,
            state=state.model_dump_json(),
            status="finished" if engine.is_over(state) else "running",
            public_log=json.dumps(log),
            **finish_values(engine, state),
        )
        if row.status == "running" and row.state is not None:
            self._states[row.id or 0] = (row.state, state)
            while len(self._states) > STATES_KEPT:
                del self._states[next(iter(self._states))]
        view, actions, hand = engine.table_views(state, seat.seat, row.status == "running")
        info = self._info(row, state=state, view=view)
        return ActOutcome(info, public, private, HandInfo(info, seat, hand, actions))

    # ------------------------------------------------------------------ queries and endings
    async def status(self, channel_id: int) -> GameInfo | None:
        async with self.db.read() as session:  # reads: never queued behind a writer
            row = await self._live_in_channel_in(session, channel_id)
            return self._info(row) if row else None

    async def get(self, game_id: int) -> GameInfo:
        async with self.db.read() as session:
            return self._info(await self._load_in(session, game_id))

    async def abandon(self, channel_id: int, user_id: int, *, is_gm: bool) -> GameInfo:
        async with self.db.session() as session:
            row = await self._live_in_channel_in(session, channel_id)
            if row is None:
                raise RuleError("There is no game in this channel; start one with `/game new`.")
            if row.host_id != user_id and not is_gm:
                raise RuleError("Only the game's host or a GM can abandon it.")
            await self._end_in(session, row, "abandoned")
            return self._info(row)

    async def pause(self, channel_id: int, user_id: int, *, is_gm: bool) -> GameInfo:
        """Pause the channel's running game (a player of it or a GM): no move is taken and the
        idle check leaves it alone until `resume`, however long that takes."""
        return await self._set_paused(channel_id, user_id, is_gm=is_gm, pause=True)

    async def resume(self, channel_id: int, user_id: int, *, is_gm: bool) -> GameInfo:
        """Continue the channel's paused game where it stopped (a player of it or a GM)."""
        return await self._set_paused(channel_id, user_id, is_gm=is_gm, pause=False)

    async def _set_paused(
        self, channel_id: int, user_id: int, *, is_gm: bool, pause: bool
    ) -> GameInfo:
        async with self.db.session() as session:
            row = await self._live_in_channel_in(session, channel_id)
            if row is None:
                raise RuleError("There is no game in this channel; start one with `/game new`.")
            seated = any(s.user_id == user_id for s in seats_of(row))
            if not seated and not is_gm:
                raise NotSeated("Only the game's players or a GM can pause or resume it.")
            wanted, now = ("running", "paused") if pause else ("paused", "running")
            if row.status != wanted:
                raise RuleError(
                    "The game is still in its lobby: start it, or end it with `/game abandon`."
                    if row.status == "lobby"
                    else "The game is already paused; continue it with `/game resume`."
                    if pause
                    else "The game is not paused; `/game pause` keeps it for another day."
                )
            await self._save_in(session, row, row.version, status=now)
            return self._info(row)

    async def _end_in(self, session: Any, row: GameRow, status: str) -> None:
        await self._save_in(
            session, row, row.version, status=status, active_channel_id=None, ended_at=utcnow()
        )

    async def history(
        self, guild_id: int, limit: int = HISTORY_LIMIT
    ) -> tuple[list[GameInfo], int]:
        async with self.db.session() as session:
            result = await session.exec(
                select(GameRow)
                .where(col(GameRow.guild_id) == guild_id)
                .order_by(col(GameRow.id).desc())
                .limit(limit)
            )
            rows = list(result.all())
            total = (
                await session.exec(
                    select(func.count())
                    .select_from(GameRow)
                    .where(col(GameRow.guild_id) == guild_id)
                )
            ).one()
            return [self._info(r, with_view=False) for r in rows], int(total)

    async def event_log(self, game: int, guild_id: int) -> tuple[GameInfo, list[str]]:
        """A game's whole public history, oldest first (at most LOG_READ_LIMIT events);
        ``game`` is its number as the board shows it. Another server's game is refused like
        a missing one."""
        async with self.db.read() as session:
            row = await session.get(GameRow, game)
            if row is None or row.guild_id != guild_id:
                raise RuleError(
                    f"There is no game #{game} on this server; `/game history` lists them."
                )
            result = await session.exec(
                select(GameEventLog.text)
                .where(col(GameEventLog.game_id) == game)
                .order_by(col(GameEventLog.id))
                .limit(LOG_READ_LIMIT)
            )
            return self._info(row, with_view=False), list(result.all())

    async def action_log(self, game_id: int) -> list[GameActionLog]:
        async with self.db.session() as session:
            result = await session.exec(
                select(GameActionLog)
                .where(col(GameActionLog.game_id) == game_id)
                .order_by(col(GameActionLog.id))
            )
            return list(result.all())

    async def idle_check(
        self, now: datetime, warn_minutes: int, timeout_minutes: int
    ) -> list[IdleNotice]:
        """Warn games idle for ``warn_minutes`` (once) and abandon those idle for
        ``timeout_minutes``. Returns what happened, for the cog to announce."""
        notices: list[IdleNotice] = []
        warn_by = now - timedelta(minutes=warn_minutes)
        end_by = now - timedelta(minutes=timeout_minutes)
        # Only games past a deadline, through the index, without the writer; with none (the
        # usual case) no write transaction is opened at all.
        async with self.db.read() as session:
            due = (
                await session.exec(
                    select(GameRow).where(
                        col(GameRow.status).in_(WATCHED),
                        col(GameRow.last_activity) <= warn_by,
                        or_(col(GameRow.warned_at).is_(None), col(GameRow.last_activity) <= end_by),
                    )
                )
            ).all()
        for first in range(0, len(due), IDLE_BATCH):
            async with self.db.session() as session:
                for row in due[first : first + IDLE_BATCH]:
                    notice = await self._idle_step_in(
                        session, row, now, warn_minutes, timeout_minutes
                    )
                    if notice is not None:
                        notices.append(notice)
        return notices

    async def _idle_step_in(
        self,
        session: AsyncSession,
        row: GameRow,
        now: datetime,
        warn_minutes: int,
        timeout_minutes: int,
    ) -> IdleNotice | None:
        """Warn or abandon one idle game. Conditional writes: a move made meanwhile, or
        another process checking the same game, wins, and then this one announces nothing."""
        idle = as_utc(now) - as_utc(row.last_activity)
        minutes = int(idle.total_seconds() // 60)
        if idle >= timedelta(minutes=timeout_minutes):
            ended = await session.exec(
                update(GameRow)
                .where(col(GameRow.id) == row.id, col(GameRow.version) == row.version)
                .values(
                    status="abandoned",
                    active_channel_id=None,
                    ended_at=now,
                    version=row.version + 1,
                )
            )
            if ended.rowcount != 1:
                return None
            row.status = "abandoned"
            row.version += 1
            return IdleNotice(self._info(row, with_view=False), "abandon", minutes)
        if idle >= timedelta(minutes=warn_minutes) and row.warned_at is None:
            warned = await session.exec(
                update(GameRow)
                .where(
                    col(GameRow.id) == row.id,
                    col(GameRow.version) == row.version,
                    col(GameRow.warned_at).is_(None),
                )
                .values(warned_at=now)
            )
            if warned.rowcount == 1:
                return IdleNotice(self._info(row, with_view=False), "warn", minutes)
        return None
