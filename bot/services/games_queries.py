"""The game table's queries and endings: status, history and logs, abandon, pause and
resume, and the idle check.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, or_, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.db.models.columns import as_utc, utcnow
from bot.db.models.games import GameActionLog, GameEventLog, GameRow
from bot.errors import RuleError
from bot.services.game_info import (
    GameInfo,
    IdleNotice,
    NotSeated,
    seats_of,
)
from bot.services.games_core import (
    HISTORY_LIMIT,
    IDLE_BATCH,
    LOG_READ_LIMIT,
    WATCHED,
    GameCore,
)


def no_such_game(game: int) -> RuleError:
    """The one answer for a game that is not there for the asker (another server's, or one
    played in a channel they may not view)."""
    return RuleError(f"There is no game #{game} on this server; `/game history` lists them.")


class GameQueries(GameCore):
    """Status, history, logs, endings and the idle check."""

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
        self, guild_id: int, limit: int = HISTORY_LIMIT, *, unseen: Collection[int] = ()
    ) -> tuple[list[GameInfo], int]:
        """The server's latest games, leaving out those played in the `unseen` channels (the
        ones the asker may not view: their games are theirs who may)."""
        where = [col(GameRow.guild_id) == guild_id]
        if unseen:
            where.append(col(GameRow.channel_id).not_in(list(unseen)))
        async with self.db.session() as session:
            result = await session.exec(
                select(GameRow).where(*where).order_by(col(GameRow.id).desc()).limit(limit)
            )
            rows = list(result.all())
            total = (
                await session.exec(select(func.count()).select_from(GameRow).where(*where))
            ).one()
            return [self._info(r, with_view=False) for r in rows], int(total)

    async def channels_played_in(self, guild_id: int) -> list[int]:
        """Every channel of the server a game was played in."""
        async with self.db.read() as session:
            found = await session.exec(
                select(GameRow.channel_id).where(col(GameRow.guild_id) == guild_id).distinct()
            )
            return list(found.all())

    async def event_log(self, game: int, guild_id: int) -> tuple[GameInfo, list[str]]:
        """A game's whole public history, oldest first (at most LOG_READ_LIMIT events);
        ``game`` is its number as the board shows it. Another server's game is refused like
        a missing one."""
        async with self.db.read() as session:
            row = await session.get(GameRow, game)
            if row is None or row.guild_id != guild_id:
                raise no_such_game(game)
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
