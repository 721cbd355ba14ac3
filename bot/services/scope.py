"""The check every button, select and form passes first: is its row part of this server?

A component's custom id names a row (a roll, an encounter, a game, ...). `ScopeService.require`
loads that row scoped to the server and channel of the click (bot/db/repos/scope.py) and raises
`NotHere` when it belongs elsewhere or does not exist. The component then runs its own service
call as usual; a row never changes server, so the check holds for it.
"""

from __future__ import annotations

from bot.db.engine import Database
from bot.db.repos.scope import OTHER_CHANNEL, REACH, NotHere, Where, load_scoped_in

__all__ = ["NotHere", "ScopeService", "Where"]


class ScopeService:
    """Checks a custom id's row against the server (and channel) of the interaction."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def require(self, kind: str, key: int, where: Where) -> None:
        """Raise `NotHere` unless the row of `kind` keyed `key` belongs to `where`.

        The kind "channel" names no row: the key must be the clicked channel itself."""
        if kind == "channel":
            if where.guild_id is None or key != where.channel_id:
                raise NotHere(OTHER_CHANNEL)
            return
        if kind not in REACH:
            raise KeyError(f"no scope rule for {kind!r}")
        async with self.db.read() as session:
            await load_scoped_in(session, kind, key, where)
