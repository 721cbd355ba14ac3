"""Live messages (boards, trackers) are edited in place, and a burst of changes must become
one edit or two, not one per change: Discord rate-limits message edits per channel."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)
K = TypeVar("K", bound=Hashable)


class Coalescer(Generic[K]):
    """`poke(key)` asks for `work(key)` to run soon. Pokes that arrive while a run is waiting
    or in progress fold into (at most) one more run, so the newest state is always drawn.

    `delay` is read at every run so tests can shorten it. Tasks are named "fatetable-<name>-<key>"
    (the test harness waits for tasks with that prefix).
    """

    def __init__(
        self, name: str, work: Callable[[K], Awaitable[None]], delay: Callable[[], float]
    ) -> None:
        self.name = name
        self.work = work
        self.delay = delay
        self.tasks: dict[K, asyncio.Task[None]] = {}
        self._dirty: set[K] = set()

    def poke(self, key: K) -> None:
        self._dirty.add(key)
        task = self.tasks.get(key)
        if task is None or task.done():
            self.tasks[key] = asyncio.get_running_loop().create_task(
                self._run(key), name=f"fatetable-{self.name}-{key}"
            )

    async def _run(self, key: K) -> None:
        try:
            while key in self._dirty:
                await asyncio.sleep(self.delay())
                self._dirty.discard(key)
                try:
                    await self.work(key)
                except Exception:  # noqa: BLE001 - a failed edit must not stop later ones
                    log.exception("could not update %s %s", self.name, key)
        finally:
            if self.tasks.get(key) is asyncio.current_task():
                del self.tasks[key]

    def cancel(self) -> None:
        for task in self.tasks.values():
            task.cancel()
