"""Per-server settings, cached in memory for a short time (several processes may write)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from bot.bounded import Bounded
from bot.db.engine import Database
from bot.db.models.columns import utcnow
from bot.db.models.guild import GuildSettings
from bot.db.raw import Sql

CACHE_SECONDS = 30.0
GUILDS_KEPT = 10_000  # servers whose settings a process remembers
GM_ROLE = Sql("SELECT gm_role_id FROM guild_settings WHERE guild_id = :guild")


@dataclass(frozen=True)
class GuildConfig:
    """A server's settings (the GM role, ...)."""

    guild_id: int
    gm_role_id: int | None


class GuildSettingsService:
    """Read and change a server's settings."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._cache: dict[int, tuple[float, GuildConfig]] = Bounded(GUILDS_KEPT)

    async def get(self, guild_id: int) -> GuildConfig:
        cached = self._cache.get(guild_id)
        if cached and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        # Every GM check reads it: a raw read (no ORM statement to compile on a process's first
        # command in each server), never queued behind a writer.
        async with self.db.raw_read() as unit:
            row = await unit.row(GM_ROLE, {"guild": guild_id})
        config = GuildConfig(guild_id, row[0] if row else None)
        self._cache[guild_id] = (time.monotonic(), config)
        return config

    async def set_gm_role(self, guild_id: int, role_id: int | None) -> GuildConfig:
        async with self.db.session() as session:
            row = await session.get(GuildSettings, guild_id)
            if row is None:
                row = GuildSettings(guild_id=guild_id, gm_role_id=role_id)
            else:
                row.gm_role_id = role_id
                row.version += 1
                row.updated_at = utcnow()
            session.add(row)
        config = GuildConfig(guild_id, role_id)
        self._cache[guild_id] = (time.monotonic(), config)
        return config
