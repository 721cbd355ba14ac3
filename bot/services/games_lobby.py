"""The game table's lobby: a new lobby, seats, options, the board message and the start."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.orm.attributes import set_committed_value

from bot.db.changes import touched
from bot.db.models.games import GameRow
from bot.db.raw import is_integrity_error
from bot.db.repos.games import (
    board_message_raw_in,
    insert_game_raw_in,
    live_game_in_channel_raw_in,
    past_games_raw_in,
    set_board_message_raw_in,
)
from bot.errors import RuleError
from bot.fate.words import plural
from bot.games.base import (
    GameEngine,
    get_engine,
)
from bot.services.game_info import (
    RESET,
    AlreadyDone,
    GameInfo,
    NotSeated,
    Seat,
    finish_values,
    multi_option_fields,
    option_fields,
    option_titles,
    row_rng,
    seats_of,
    validated_options,
)
from bot.services.games_core import (
    PUBLIC_LOG_KEEP,
    SEAT_NAME_MAX,
)
from bot.services.games_play import GamePlay

LOBBY_TRIES = 3  # a lobby click decided again after another click changed the lobby first


class GameLobby(GamePlay):
    """Lobbies: seats, options and the start (the AI seats' first moves run in it)."""

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
            async with self.db.raw() as unit:
                busy = await live_game_in_channel_raw_in(unit, channel_id)
                if busy is not None:
                    raise RuleError(self._busy_text(game_id=busy[0], status=busy[1]))
                game_id = await insert_game_raw_in(unit, row)
                touched(unit, {guild_id})
        except Exception as error:
            if not is_integrity_error(error):
                raise
            raise RuleError(  # another /game new in this channel made its lobby first
                "This channel already has a game; see `/game status` or end it with `/game abandon`."
            ) from None
        set_committed_value(row, "id", game_id)
        return self._info(row)

    async def board_message_of(self, game_id: int) -> int | None:
        """The id of the game's public board message (None before it is posted)."""
        async with self.db.raw_read() as unit:  # every click on a board asks
            return await board_message_raw_in(unit, game_id)

    async def set_board_message(self, game_id: int, message_id: int) -> None:
        async with self.db.raw() as unit:
            guild_id = await set_board_message_raw_in(unit, game_id, message_id)
            if guild_id is not None:  # the web view's listeners of that server only
                touched(unit, {guild_id})
        cached = self._rows.get(game_id)
        if cached is not None:  # a write without a new version: the cached row follows it
            cached.board_message_id = message_id

    async def lobby_action(
        self, game_id: int, user_id: int, user_name: str, op: str, *, is_gm: bool = False
    ) -> GameInfo:
        """Join / leave / ai (add an AI seat) / unai (remove one) / start."""
        return await self._in_lobby(
            game_id, lambda row: self._lobby_action_on(row, user_id, user_name, op, is_gm)
        )

    async def _in_lobby(
        self, game_id: int, decide: Callable[[GameRow], Awaitable[GameInfo]]
    ) -> GameInfo:
        """A lobby click decided on the row as this process last read or wrote it (a lobby it
        made, usually) and stored with one versioned write, as a move is; when another click
        (in any process) changed the lobby first, it is read again and the click decided
        anew. ``decide`` takes the lobby's version before its first await."""
        row = self._rows.get(game_id)
        for attempt in range(LOBBY_TRIES):
            if row is None or row.status != "lobby" or attempt:
                async with self.db.read() as session:
                    row = await self._load_in(session, game_id)
            try:
                return await decide(row)
            except AlreadyDone:
                if row.status != "lobby" or attempt == LOBBY_TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    async def _lobby_action_on(
        self, row: GameRow, user_id: int, user_name: str, op: str, is_gm: bool
    ) -> GameInfo:
        if row.status != "lobby":
            raise AlreadyDone(
                "This game has already started (or ended); use the table's **My hand** button."
            )
        # The version decided on, taken now: a click decided meanwhile on the same row object
        # (a double click) changes it, and this click's write must then be refused.
        expected = row.version
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
            return await self._start(row, expected, engine, seats)
        else:
            raise RuleError("Unknown lobby button; open a new lobby with `/game new`.")
        seats_json = json.dumps([s.as_json() for s in seats])
        await self._save_move(row, expected, [], [], seats=seats_json)
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
        return await self._in_lobby(
            game_id, lambda row: self._set_option_on(row, user_id, name, value, is_gm)
        )

    async def _set_option_on(
        self, row: GameRow, user_id: int, name: str, value: str | list[str], is_gm: bool
    ) -> GameInfo:
        if row.status != "lobby":
            raise AlreadyDone("Options can only change in the lobby, before the game starts.")
        expected = row.version  # see _lobby_action_on
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
        await self._save_move(row, expected, [], [], options=json.dumps(clean))
        return self._info(row)

    async def _start(
        self, row: GameRow, expected: int, engine: GameEngine[Any, Any], seats: list[Seat]
    ) -> GameInfo:
        """The game set up and the AI seats' first moves made outside any transaction, then
        stored with the lobby's versioned write (a click that changed the lobby meanwhile
        wins, and this one is decided again on what it did)."""
        if len(seats) < engine.min_players:
            raise RuleError(f"This game needs at least {plural(engine.min_players, 'seat')}.")
        raw, note = engine.resolve_options(json.loads(row.options), await self._past_games(row))
        options = engine.parse_options(raw)
        state = engine.new_game(options, [s.seat for s in seats], row_rng(row, 0))
        log = [f"The game begins: {', '.join(s.name for s in seats)}."]
        if note:
            log.append(note)
        log += engine.opening(state)
        state, ai_events, ai_logs = self._run_ai(engine, row, state, seats, 1)
        log += [e.text for e in ai_events if e.public]
        await self._save_move(
            row,
            expected,
            ai_logs,
            log,
            status="finished" if engine.is_over(state) else "running",
            state=state.model_dump_json(),
            options=json.dumps(raw),
            public_log=json.dumps(log[-PUBLIC_LOG_KEEP:]),
            **finish_values(engine, state),
        )
        self._keep_state(row, state)
        return self._info(row, state=state)

    async def _past_games(self, row: GameRow) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        """This channel's finished games of the same engine, oldest first (their options and
        results only: a whole row carries the game's final state). None of them changes while
        this lobby holds the channel."""
        async with self.db.raw_read() as unit:
            rows = await past_games_raw_in(unit, row.channel_id, row.engine, row.id)
        return [(json.loads(options), json.loads(done) if done else None) for options, done in rows]
