"""The parsed-row cache (bot/db/cache.py) never serves a deleted row's object for the row that
takes its id, even when a unit that read the deleted row commits after the delete."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bot.db.cache import ParsedRows, forget, parsed, remember


def _unit(rows: ParsedRows) -> Any:
    """A unit of work as the cache sees it: a session's (or raw unit's) `info`, opened."""
    unit = SimpleNamespace(info={"parsed": rows})
    rows.opened(unit.info)
    return unit


def test_a_read_that_began_before_a_delete_does_not_bring_the_deleted_row_back() -> None:
    rows = ParsedRows()
    reader = _unit(rows)  # a read, which never waits for the writer, parses character 7
    remember(reader, "character", 7, 1, "Harry, deleted")
    deleter = _unit(rows)
    forget(deleter, "character", 7)
    rows.keep(deleter.info)  # the delete commits first
    rows.keep(reader.info)  # then the read
    assert rows.get("character", 7, 1) is None
    # the next character takes id 7 at version 1 again: its own object is kept and served
    creator = _unit(rows)
    remember(creator, "character", 7, 1, "Molly, new")
    rows.keep(creator.info)
    assert parsed(_unit(rows), "character", 7, 1) == "Molly, new"


def test_other_rows_of_that_read_are_kept() -> None:
    rows = ParsedRows()
    reader = _unit(rows)
    remember(reader, "character", 7, 1, "Harry")
    remember(reader, "character", 8, 3, "Thomas")
    deleter = _unit(rows)
    forget(deleter, "character", 7)
    rows.keep(deleter.info)
    rows.keep(reader.info)
    assert rows.get("character", 8, 3) == "Thomas"


def test_past_its_limit_of_forgotten_rows_the_cache_keeps_nothing_from_older_units() -> None:
    rows = ParsedRows(limit=2)
    reader = _unit(rows)
    remember(reader, "character", 9, 1, "Ebenezar")
    for key in (1, 2, 3):  # three deletes: more than it remembers
        deleter = _unit(rows)
        forget(deleter, "character", key)
        rows.keep(deleter.info)
    rows.keep(reader.info)  # it cannot tell any more what was deleted since it began
    assert rows.get("character", 9, 1) is None
    later = _unit(rows)
    remember(later, "character", 9, 1, "Ebenezar")
    rows.keep(later.info)
    assert rows.get("character", 9, 1) == "Ebenezar"
