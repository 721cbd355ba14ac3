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

A deleted row is `forget`-ten when its unit commits: SQLite hands a deleted newest row's id to
the next row (no AUTOINCREMENT), which starts at version 1 again, so (id, version) alone would
serve the deleted row's object for its successor. One process per SQLite file makes the local
forget enough; PostgreSQL's sequences never hand an id out twice. A unit that was already open
when a row was forgotten (a read, which never waits for the writer) may have parsed the row
before it was deleted: what it parsed of that row is not kept (`opened` notes when it began).
"""

from __future__ import annotations

from typing import Any

_PENDING = "fatetable_parsed_pending"
_GONE = "fatetable_parsed_gone"
_OPENED = "fatetable_parsed_opened"  # how many rows had been forgotten when the unit began
LIMIT = 20_000  # entries; past it the cache starts again from empty


class ParsedRows:
    """(kind, id) -> (version, parsed object), for one process."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._rows: dict[tuple[str, int], tuple[int, Any]] = {}
        self.hits = 0
        self.misses = 0
        self._forgets = 0  # rows forgotten so far
        self._forgotten: dict[tuple[str, int], int] = {}  # row -> _forgets once it was
        self._floor = 0  # units opened before this many forgets keep nothing (see keep)

    def opened(self, info: dict[str, Any]) -> None:
        """A unit of work begins (its `info`): what it parses is no newer than this moment."""
        info[_OPENED] = self._forgets

    def get(self, kind: str, key: int, version: int) -> Any | None:
        found = self._rows.get((kind, key))
        if found is not None and found[0] == version:
            self.hits += 1
            return found[1]
        self.misses += 1
        return None

    def keep(self, info: dict[str, Any]) -> None:
        """Keep what a committed unit of work parsed (its session's `info`), and drop the
        rows it deleted."""
        opened = info.pop(_OPENED, self._floor - 1)  # a unit never opened keeps nothing
        for gone in info.pop(_GONE, ()):
            self._rows.pop(gone, None)
            self._forgets += 1
            self._forgotten[gone] = self._forgets
        if len(self._forgotten) > self.limit:  # forget what was forgotten, and who could care
            self._forgotten.clear()
            self._floor = self._forgets
        pending = info.pop(_PENDING, None)
        if not pending or opened < self._floor:
            return
        fresh = {
            key: value
            for key, value in pending.items()
            if self._forgotten.get(key, 0) <= opened  # not deleted since the unit began
        }
        if len(self._rows) + len(fresh) > self.limit:
            self._rows.clear()
        self._rows.update(fresh)

    @staticmethod
    def drop_pending(info: dict[str, Any]) -> None:
        info.pop(_PENDING, None)
        info.pop(_GONE, None)
        info.pop(_OPENED, None)


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


def forget(session: Any, kind: str, key: int) -> None:
    """Row `key` of `kind` is deleted in this unit: once it commits, nothing parsed from it is
    served again (its id may be handed to a new row)."""
    session.info.get(_PENDING, {}).pop((kind, key), None)
    session.info.setdefault(_GONE, set()).add((kind, key))
