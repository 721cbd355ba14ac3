"""Live messages (boards, trackers) are edited in place, and a burst of changes must become
one edit or two, not one per change: Discord rate-limits message edits per channel (about five
in five seconds, undocumented), so a live message is edited at most once per
`LIVE_EDIT_INTERVAL`. The first change after a quiet spell is drawn at once; the changes that
follow within the interval fold into one edit at its end, which shows the newest state."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)
K = TypeVar("K", bound=Hashable)

LIVE_EDIT_INTERVAL = 1.0  # seconds between two edits of one live message (the tests set 0)
# How long a stop waits for one coalescer's edits: five of them stop one after another (three
# trackers, scene boards, game boards), within docker's default 10 s before it kills.
FLUSH_SECONDS = 1.5


class Coalescer(Generic[K]):
    """`poke(key)` asks for `work(key)` to run soon. Pokes that arrive while a run is waiting
    or in progress fold into (at most) one more run, so the newest state is always drawn.

    A run waits `delay` (a burst's first changes pile up), and never starts sooner than
    LIVE_EDIT_INTERVAL after the key's previous run started. Both are read at every run so
    tests can shorten them. Tasks are named "fatetable-<name>-<key>" (the test harness waits
    for tasks with that prefix).
    """

    def __init__(
        self, name: str, work: Callable[[K], Awaitable[None]], delay: Callable[[], float]
    ) -> None:
        self.name = name
        self.work = work
        self.delay = delay
        self.tasks: dict[K, asyncio.Task[None]] = {}
        self._dirty: set[K] = set()
        self._last_run: dict[K, float] = {}  # loop time each key's latest run started
        self._stopping = asyncio.Event()  # set by flush: no more waiting out intervals

    def poke(self, key: K) -> None:
        self._dirty.add(key)
        task = self.tasks.get(key)
        if task is None or task.done():
            self.tasks[key] = asyncio.get_running_loop().create_task(
                self._run(key), name=f"fatetable-{self.name}-{key}"
            )

    async def _run(self, key: K) -> None:
        loop = asyncio.get_running_loop()
        try:
            while key in self._dirty:
                next_allowed = self._last_run.get(key, -math.inf) + LIVE_EDIT_INTERVAL
                wait = max(self.delay(), next_allowed - loop.time())
                if wait <= 0 or self._stopping.is_set():
                    await asyncio.sleep(0)  # pokes made in this loop turn fold in
                else:  # a stop ends the wait at once
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._stopping.wait(), wait)
                self._dirty.discard(key)
                self._last_run[key] = loop.time()
                try:
                    await self.work(key)
                except Exception:  # noqa: BLE001 - a failed edit must not stop later ones
                    log.exception("could not update %s %s", self.name, key)
        finally:
            if self.tasks.get(key) is asyncio.current_task():
                del self.tasks[key]
            self._forget_quiet(loop.time())

    def _forget_quiet(self, now: float) -> None:
        """Keys whose interval is over need no memory: keeps `_last_run` as small as the
        number of messages edited in the last interval."""
        if len(self._last_run) > 256:
            for key, started in list(self._last_run.items()):
                if now - started >= LIVE_EDIT_INTERVAL and key not in self.tasks:
                    del self._last_run[key]

    def cancel(self) -> None:
        for task in self.tasks.values():
            task.cancel()

    async def flush(self, timeout: float = FLUSH_SECONDS) -> None:
        """On a graceful stop: what waits out its interval is drawn now, and an edit in flight
        is left to finish (cancelling it could lose it: the work may have taken its input),
        as is what is poked meanwhile. After `timeout` seconds the rest is cancelled."""
        self._stopping.set()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while running := [task for task in self.tasks.values() if not task.done()]:
            left = deadline - loop.time()
            if left <= 0:
                log.warning("stopped before %d %s edits were drawn", len(running), self.name)
                self.cancel()
                break
            await asyncio.wait(running, timeout=left)
