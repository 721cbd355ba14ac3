"""Change notifications: which servers' data a committed transaction touched.

Every unit of work that may write (`Database.session()`) reports, once it has committed, the
guild ids of the rows it read or wrote to the process's `ChangeHub`; the live web view waits
on it. This is the one place that publishes: no service or cog does it by hand.

The guilds come from the rows in the session (anything with a `guild_id`, or a `campaign_id`
whose guild the hub has already seen). A transaction that wrote but names no guild we know
(a bulk UPDATE of rows never loaded) is reported as "anything may have changed". Listeners only
recheck what they show, so reporting too much costs a read, never a wrong page.

Other processes (several shards on PostgreSQL) do not reach this hub; the web view rechecks on
a timer for them (`WEB_RECHECK_SECONDS`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import event
from sqlalchemy.orm import ORMExecuteState, Session

_GUILDS = "fatetable_changed_guilds"
_WROTE = "fatetable_wrote"
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
        for subscription in list(self._subscribers):
            if guild_ids is None or subscription.guild_id in guild_ids:
                subscription.notify()

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

    def after_commit(self, session: Session) -> None:
        """Publish what a committed session touched (nothing when it only read)."""
        if not session.info.pop(_WROTE, False):
            session.info.pop(_GUILDS, None)
            return
        guilds: set[int] = session.info.pop(_GUILDS, set())
        self.publish(guilds or None)


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
