"""Game table: one row per table game (JSON engine state + version) and a log of its actions."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Column, DateTime, ForeignKey, Index, Integer, String, Text
from sqlmodel import Field, SQLModel

from bot.db.models.columns import BIG_ID, id_field, only_where, snowflake, timestamp

GAME_STATUSES = ("lobby", "running", "finished", "abandoned")
LIVE_STATUSES = ("lobby", "running", "paused")  # a game that holds its channel
# A game played to its end, said the way its partial index says it (`only_where`).
FINISHED_GAME = "games.status = 'finished'"
EVENT_TEXT_LIMIT = 400  # one logged public event (longer ones are cut with an ellipsis)


class GameRow(SQLModel, table=True):
    """A table game in a channel. ``active_channel_id`` equals ``channel_id`` while the game is
    in the lobby or running and is NULL afterwards: its unique index allows one live game per
    channel, enforced by the database itself."""

    __tablename__ = "games"
    # The idle check reads only live games past a deadline (migration 0008_perf_idle_index);
    # a Start reads the channel's finished games (its record), not every server's.
    __table_args__ = (
        Index("ix_games_status_last_activity", "status", "last_activity"),
        Index("ix_games_finished_channel", "channel_id", **only_where(FINISHED_GAME)),
    )

    id: int | None = id_field()
    engine: str = Field(sa_column=Column(String(32), nullable=False))
    guild_id: int = snowflake(index=True)
    channel_id: int = snowflake()
    active_channel_id: int | None = Field(
        default=None, sa_column=Column(BigInteger, nullable=True, unique=True)
    )
    host_id: int = snowflake()
    # JSON list of {"seat": str, "user_id": int | null, "name": str, "ai": bool}
    seats: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    options: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    state: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    public_log: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    result: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    status: str = Field(default="lobby", sa_column=Column(String(16), nullable=False))
    seed: int = Field(default=0, sa_column=Column(BigInteger, nullable=False))
    version: int = Field(default=1, sa_column=Column(Integer, nullable=False))
    board_message_id: int | None = snowflake(nullable=True)
    created_at: datetime = timestamp()
    last_activity: datetime = timestamp()
    warned_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    ended_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


class GameActionLog(SQLModel, table=True):
    """One applied action: which seat did what, at which version of the game."""

    __tablename__ = "game_actions"

    id: int | None = id_field()
    game_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    version: int = Field(sa_column=Column(Integer, nullable=False))
    seat: str = Field(sa_column=Column(String(64), nullable=False))
    user_id: int | None = snowflake(nullable=True)
    # the engine's id of the move: like the stored state it may name a hidden card; never shown
    action_id: str = Field(sa_column=Column(String(64), nullable=False))
    # what anyone may read: a private move (a card in hand) is stored as its kind only
    label: str = Field(sa_column=Column(String(100), nullable=False))
    created_at: datetime = timestamp()


class GameEventLog(SQLModel, table=True):
    """One public event of a game (what the board's "Latest" showed), in order: the whole
    history behind **Game log** and `/game history game:<number>`. Private events never go
    here."""

    __tablename__ = "game_events"

    id: int | None = id_field()
    game_id: int = Field(
        sa_column=Column(
            BIG_ID, ForeignKey("games.id", ondelete="CASCADE"), nullable=False, index=True
        )
    )
    version: int = Field(sa_column=Column(Integer, nullable=False))
    text: str = Field(sa_column=Column(String(EVENT_TEXT_LIMIT), nullable=False))
    created_at: datetime = timestamp()
