"""A dict for per-process memory keyed by something users keep making (characters, channels,
encounters): past `limit` entries it forgets the oldest, so a bot that runs for months holds
no more than that. Entries kept for a few seconds are otherwise only dropped when read again,
and most are never read again."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

KEPT = 2000  # entries of one kind a process remembers unless told otherwise


class Bounded(dict[K, V]):
    """Insertion-ordered; setting a key again makes it the newest."""

    def __init__(self, limit: int = KEPT) -> None:
        super().__init__()
        self.limit = limit

    def __setitem__(self, key: K, value: V) -> None:
        self.pop(key, None)
        super().__setitem__(key, value)
        if len(self) > self.limit:
            del self[next(iter(self))]

    def setdefault(self, key: K, default: V) -> V:  # type: ignore[override]
        if key not in self:
            self[key] = default
        return self[key]
