"""The game table's moves: legal moves from memory, a player's hand and card texts, a move
(the engine and the AI outside any transaction, then one versioned write).
"""

from __future__ import annotations

import json
from typing import Any

from bot.db.models.games import GameRow
from bot.db.repos.games import LoggedAction
from bot.errors import RuleError
from bot.games.base import (
    Action,
    GameEngine,
    GameEvent,
    find_action,
    get_engine,
)
from bot.services.game_info import (
    NO_GAME_TTL,
    ActOutcome,
    AlreadyDone,
    GameInfo,
    HandInfo,
    NotSeated,
    Seat,
    acting_seat,
    finish_values,
    logged_action,
    row_rng,
)
from bot.services.games_core import (
    AI_STEP_LIMIT,
    AUTO,
    PUBLIC_LOG_KEEP,
    GameCore,
)


class GamePlay(GameCore):
    """Moves, hands and the AI seats."""

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
                self._no_game[channel_id] = self.clock()
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
        row = await self._current_row(game_id)
        engine = get_engine(row.engine)
        state = self._parsed_state(row, engine)
        info = self._info(row, state=state)
        seat = info.seat_of(user_id)
        if seat is None:
            raise NotSeated(
                "You are not playing in this game: the board shows everything public. "
                "Start your own with `/game new` in another channel."
            )
        if state is None:
            raise RuleError("The game has not started yet; wait for the host to press Start.")
        return self._hand_of(info, seat, engine, state)

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
        # What a move's answer shows (`seat_views`): the same hand from a read as after a move
        _public, actions, view = engine.seat_views(state, seat.seat, info.status == "running")
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
        state = self._parsed_state(row, engine)  # a running game's row has its state
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
        self._keep_state(row, state)
        view, actions, hand = engine.seat_views(state, seat.seat, row.status == "running")
        info = self._info(row, state=state, view=view, public_log=log)
        return ActOutcome(info, public, private, HandInfo(info, seat, hand, actions))
