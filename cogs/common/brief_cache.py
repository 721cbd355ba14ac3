"""Autocomplete answers kept for a few seconds per person: the keystrokes of one option typed
in a burst cost one database read, not one each (the choices are filtered in memory)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

BRIEF_SECONDS = 5.0
BRIEF_LIMIT = 5000  # keys; past it the cache starts again from empty


class BriefCache(Generic[V]):
    """key -> (when loaded, value), each value served for `seconds`."""

    def __init__(self, seconds: float = BRIEF_SECONDS, limit: int = BRIEF_LIMIT) -> None:
        self.seconds = seconds
        self.limit = limit
        self._values: dict[Hashable, tuple[float, V]] = {}

    async def get(self, key: Hashable, load: Callable[[], Awaitable[V]]) -> V:
        now = time.monotonic()
        found = self._values.get(key)
        if found is not None and now - found[0] < self.seconds:
            return found[1]
        value = await load()
        if len(self._values) >= self.limit:
            self._values.clear()
        self._values[key] = (now, value)
        return value
