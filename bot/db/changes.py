"""Change notifications: which servers' data a committed transaction touched.

Every unit of work that may write (`Database.session()`) reports, once it has committed, the
guild ids of the rows it read or wrote to the process's `ChangeHub`; the live web view waits
on it. This is the one place that publishes: no service or cog does it by hand.

The guilds come from the rows in the session (anything with a `guild_id`, or a `campaign_id`
whose guild the hub has already seen). A transaction that wrote but names no guild we know
(a bulk UPDATE of rows never loaded) is reported as "anything may have changed". Listeners only
recheck what they show, so reporting too much costs a read, never a wrong page.

On PostgreSQL the same news goes to the other processes of a deployment: a writing transaction
ends with `pg_notify` (delivered only if it commits) and each process that serves the web view
LISTENs (`ChangeListener`) and publishes what others wrote to its own hub. Should that connection
drop, the web view's periodic recheck (`WEB_RECHECK_SECONDS`) still catches every change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session

from bot.bounded import Bounded

log = logging.getLogger(__name__)

NOTIFY_CHANNEL = "fatetable_changes"
MAX_PAYLOAD = 7000  # PostgreSQL's limit is 8000 bytes; more guilds than fit: "anything"
_GUILDS = "fatetable_changed_guilds"
_WROTE = "fatetable_wrote"
WROTE = _WROTE  # the flag in a unit's `info` that says it wrote (raw units set it too)
CAMPAIGN_CACHE_MAX = 10_000


class Subscription:
    """One listener: woken when a change may concern its guild (or every guild)."""

    def __init__(self, hub: ChangeHub, guild_id: int) -> None:
        self.hub = hub
        self.guild_id = guild_id
        self._event = asyncio.Event()

    def notify(self) -> None:
        self._event.set()

    async def wait(self, timeout: float | None) -> bool:
        """True when woken by a change, False when `timeout` seconds passed first."""
        try:
            await asyncio.wait_for(self._event.wait(), timeout)
        except TimeoutError:
            return False
        self._event.clear()
        return True

    def drain(self) -> None:
        """Forget changes that arrived meanwhile (the caller is about to look anyway)."""
        self._event.clear()

    def close(self) -> None:
        self.hub._subscribers.discard(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class ChangeHub:
    """In-process fan-out of "guild G changed" to whoever listens."""

    def __init__(self) -> None:
        self._subscribers: set[Subscription] = set()
        self._campaign_guilds: dict[int, int] = {}
        self.published = 0  # how many notifications went out (for tests and the bench)
        # how often each guild (and "every guild") was published: a cache of what a guild's
        # rows said is good while its stamp (`stamp`) stays the same
        self._everything = 0
        self._per_guild: dict[int, int] = Bounded(CAMPAIGN_CACHE_MAX)

    def subscribe(self, guild_id: int) -> Subscription:
        subscription = Subscription(self, guild_id)
        self._subscribers.add(subscription)
        return subscription

    @property
    def listeners(self) -> int:
        return len(self._subscribers)

    def publish(self, guild_ids: set[int] | None) -> None:
        """Wake the listeners of these guilds (None: every listener)."""
        self.published += 1
        if guild_ids is None:
            self._everything += 1
        else:
            for guild_id in guild_ids:
                self._per_guild[guild_id] = self._per_guild.get(guild_id, 0) + 1
        for subscription in list(self._subscribers):
            if guild_ids is None or subscription.guild_id in guild_ids:
                subscription.notify()

    def stamp(self, guild_id: int) -> tuple[int, int]:
        """Changes when a change to this guild's rows is published (here, or heard from
        another process)."""
        return self._everything, self._per_guild.get(guild_id, 0)

    # ----- what a session touched
    def _guild_of(self, row: Any) -> int | None:
        guild = getattr(row, "guild_id", None)
        campaign = getattr(row, "campaign_id", None)
        if getattr(row, "__tablename__", None) == "campaign":
            campaign = getattr(row, "id", None)
        if isinstance(guild, int):
            if isinstance(campaign, int) and campaign not in self._campaign_guilds:
                if len(self._campaign_guilds) >= CAMPAIGN_CACHE_MAX:
                    self._campaign_guilds.clear()
                self._campaign_guilds[campaign] = guild
            return guild
        if isinstance(campaign, int):
            return self._campaign_guilds.get(campaign)
        return None

    def collect(self, session: Session, rows: Any) -> None:
        found: set[int] = session.info.setdefault(_GUILDS, set())
        for row in rows:
            guild = self._guild_of(row)
            if guild is not None:
                found.add(guild)

    def pending(self, session: Session) -> tuple[bool, set[int]]:
        """What a session about to commit has written so far: (wrote, guilds)."""
        self.collect(
            session,
            [*session.identity_map.values(), *session.new, *session.dirty, *session.deleted],
        )
        return bool(session.info.get(_WROTE)), set(session.info.get(_GUILDS, set()))

    def after_commit(self, session: Session) -> None:
        """Publish what a committed session touched (nothing when it only read)."""
        self.committed(session.info)

    def committed(self, info: dict[str, Any]) -> None:
        """Publish what a committed unit of work touched, from its `info` (a session's or a
        raw unit's; nothing when it only read)."""
        if not info.pop(_WROTE, False):
            info.pop(_GUILDS, None)
            return
        guilds: set[int] = info.pop(_GUILDS, set())
        self.publish(guilds or None)

    @staticmethod
    def named(info: dict[str, Any]) -> set[int]:
        """The guilds a unit of work has named so far (`touched`)."""
        return set(info.get(_GUILDS, set()))


def track_changes(session_class: type[Session], hub_of: Any) -> None:
    """Listen on `session_class` (the sync class behind the async sessions of one Database):
    `hub_of(session)` returns the hub to report to, or None."""

    def seen(session: Session) -> None:
        hub = hub_of(session)
        if hub is not None:
            hub.collect(
                session,
                [*session.identity_map.values(), *session.new, *session.dirty, *session.deleted],
            )

    @event.listens_for(session_class, "after_flush")
    def _flushed(session: Session, _context: Any) -> None:
        if session.new or session.dirty or session.deleted:
            session.info[_WROTE] = True
        seen(session)

    @event.listens_for(session_class, "before_commit")
    def _committing(session: Session) -> None:
        seen(session)

    @event.listens_for(session_class, "do_orm_execute")
    def _statement(state: ORMExecuteState) -> None:
        if state.is_update or state.is_delete or state.is_insert:
            state.session.info[_WROTE] = True


def touched(session: Any, guild_ids: set[int]) -> None:
    """Name the servers whose rows a statement wrote without loading them (a bulk UPDATE by
    id), so that the hub wakes their listeners only, not every listener."""
    session.info.setdefault(_GUILDS, set()).update(guild_ids)


def notify_payload(origin: str, guilds: set[int]) -> str:
    """`<origin>:<guild>,<guild>...`, or `<origin>:*` for "anything may have changed"."""
    listed = ",".join(str(g) for g in sorted(guilds))
    return f"{origin}:{listed if guilds and len(listed) < MAX_PAYLOAD else '*'}"


def parse_payload(payload: str) -> tuple[str, set[int] | None]:
    origin, _, listed = payload.partition(":")
    if listed == "*" or not listed:
        return origin, None
    try:
        return origin, {int(g) for g in listed.split(",")}
    except ValueError:
        return origin, None


class ChangeListener:
    """LISTEN on PostgreSQL for what the other processes committed; reconnects on its own."""

    def __init__(self, dsn: str, origin: str, hub: ChangeHub) -> None:
        self.dsn = dsn
        self.origin = origin
        self.hub = hub
        self.heard = 0
        self.connected = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._run(),
                name="web-change-listener",  # not "fatetable-": never "busy" for the harness
            )

    def _heard(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        origin, guilds = parse_payload(payload)
        if origin != self.origin:
            self.heard += 1
            self.hub.publish(guilds)

    async def _run(self) -> None:
        import asyncpg  # type: ignore[import-untyped]

        while True:
            connection = None
            try:
                connection = await asyncpg.connect(self.dsn, timeout=10)
                lost = asyncio.Event()
                connection.add_termination_listener(lambda _c, lost=lost: lost.set())
                await connection.add_listener(NOTIFY_CHANNEL, self._heard)
                self.connected.set()
                self.hub.publish(None)  # whatever happened while we were not listening
                await lost.wait()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - retry whatever went wrong
                log.warning("change listener: %s; retrying", type(error).__name__)
            finally:
                self.connected.clear()
                if connection is not None:
                    with contextlib.suppress(Exception):
                        await connection.close(timeout=2)
            await asyncio.sleep(1.0)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
