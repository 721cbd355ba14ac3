"""The check every button, select and form passes first: is its row part of this server?

A component's custom id names a row (a roll, an encounter, a game, ...). `ScopeService.require`
loads that row scoped to the server and channel of the click (bot/db/repos/scope.py) and raises
`NotHere` when it belongs elsewhere or does not exist. The component then runs its own service
call as usual; a row never changes server, so the check holds for it.
"""

from __future__ import annotations

from bot.bounded import Bounded
from bot.db.engine import Database
from bot.db.repos.scope import OTHER_CHANNEL, REACH, NotHere, Where, load_scoped_in

__all__ = ["NotHere", "ScopeService", "Where"]


# Kinds whose rows are never deleted: a row found once in a server (and channel) is there for
# good, since rows never move either, so that answer is kept and the next click on the same
# message needs no read. (Characters, drafts and kept form answers are deleted: always read.)
KEPT_KINDS = frozenset(REACH) - {"character", "draft", "form_answer"}
KEPT_MAX = 4096  # answers kept, the oldest dropped first


class ScopeService:
    """Checks a custom id's row against the server (and channel) of the interaction."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._found: dict[tuple[str, int, Where], None] = Bounded(KEPT_MAX)  # positive answers

    async def require(self, kind: str, key: int, where: Where) -> None:
        """Raise `NotHere` unless the row of `kind` keyed `key` belongs to `where`.

        The kind "channel" names no row: the key must be the clicked channel itself."""
        if kind == "channel":
            if where.guild_id is None or key != where.channel_id:
                raise NotHere(OTHER_CHANNEL)
            return
        if kind not in REACH:
            raise KeyError(f"no scope rule for {kind!r}")
        answer = (kind, key, where)
        if answer in self._found:
            return
        async with self.db.raw_read() as unit:
            await load_scoped_in(unit, kind, key, where)
        if kind in KEPT_KINDS:
            self._found[answer] = None
