"""Rows parsed once per process, kept with the version they were parsed at.

Parsing a character's sheet or a campaign's settings (JSON into pydantic models) costs more
than reading the row. A unit of work that has read a row's id and `version` in its own
transaction asks `parsed(session, kind, id, version)` for the object parsed from exactly that
version; there is no other way in, so a row changed anywhere (another process included) is
simply parsed again, and nothing older than what the transaction sees is ever used. Every write
of such a row bumps its version (the versioned UPDATE), which is what makes this sound.

New entries are kept only once their unit of work has committed (`Database` calls
`ParsedRows.keep`): a row read after a write of the same transaction is never shared unless
that write was committed. The objects are shared by every request of the process: treat them
as immutable (the sheet's and the settings' own API already returns new objects).
"""

from __future__ import annotations

from typing import Any

_PENDING = "fatetable_parsed_pending"
LIMIT = 20_000  # entries; past it the cache starts again from empty


class ParsedRows:
    """(kind, id) -> (version, parsed object), for one process."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._rows: dict[tuple[str, int], tuple[int, Any]] = {}
        self.hits = 0
        self.misses = 0

    def get(self, kind: str, key: int, version: int) -> Any | None:
        found = self._rows.get((kind, key))
        if found is not None and found[0] == version:
            self.hits += 1
            return found[1]
        self.misses += 1
        return None

    def keep(self, info: dict[str, Any]) -> None:
        """Keep what a committed unit of work parsed (its session's `info`)."""
        pending = info.pop(_PENDING, None)
        if not pending:
            return
        if len(self._rows) + len(pending) > self.limit:
            self._rows.clear()
        self._rows.update(pending)

    @staticmethod
    def drop_pending(info: dict[str, Any]) -> None:
        info.pop(_PENDING, None)


def parsed(session: Any, kind: str, key: int, version: int) -> Any | None:
    """The object parsed from row `key` of `kind` at `version`, if this process has it."""
    cache = session.info.get("parsed")
    if cache is None:
        return None
    found = cache.get(kind, key, version)
    if found is None:
        found = session.info.get(_PENDING, {}).get((kind, key), (None, None))
        return found[1] if found[0] == version else None
    return found


def remember(session: Any, kind: str, key: int, version: int, value: Any) -> None:
    """Offer an object parsed from row `key` at `version`; kept if the unit commits."""
    if session.info.get("parsed") is not None:
        session.info.setdefault(_PENDING, {})[(kind, key)] = (version, value)
