"""The bot object: start-up (migrate, load cogs, register persistent components, sync)."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot import __version__
from bot.config import Settings
from bot.db.engine import Database
from bot.pictures import PicturePool
from bot.services.campaigns import CampaignService
from bot.services.encounters import DiceSource
from bot.services.guild_settings import GuildSettingsService
from bot.services.scope import ScopeService
from cogs.common.installs import SERVER_CONTEXTS, SERVER_INSTALLS

if TYPE_CHECKING:
    from aiohttp import web

    from bot.services.web import WebService
    from bot.web.server import WebServer

log = logging.getLogger(__name__)

# Every cog the bot loads, in order. A cog module exposes `async def setup(bot)`.
EXTENSIONS: tuple[str, ...] = (
    "cogs.core",
    "cogs.games",
    "cogs.scenes",
    "cogs.economy",
    "cogs.safety",
    "cogs.campaigns",
    "cogs.characters",
    "cogs.stunt_writer",
    "cogs.mantles",
    "cogs.rolls",
    "cogs.conflicts",
    "cogs.contests",
    "cogs.challenges",
)


class FateTableBot(commands.AutoShardedBot):
    """One process of the bot. All state that matters lives in `self.db`."""

    def __init__(self, settings: Settings, db: Database, **options: Any) -> None:
        intents = discord.Intents.none()
        intents.guilds = True  # roles and channels, for permission checks
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            shard_count=settings.shard_count,
            shard_ids=settings.shard_ids,  # type: ignore[arg-type]  # None means all shards
            # Server-only unless a command opts in (cogs/common/installs.py: /roll, /rules).
            allowed_installs=SERVER_INSTALLS,
            allowed_contexts=SERVER_CONTEXTS,
            **options,
        )
        self.settings = settings
        self.db = db
        self.guild_settings = GuildSettingsService(db)
        self.campaigns = CampaignService(db)
        self.scope = ScopeService(db)  # every component's row is checked against its server
        self.dice = DiceSource()  # the encounters' dice (tests script them here)
        self.started_at = time.monotonic()
        self.version = __version__
        self.extensions_to_load: tuple[str, ...] = EXTENSIONS
        self._health: web.AppRunner | None = None
        # The live web view (bot/web), when WEB_PORT is set: links come from `self.web`.
        self.web: WebService | None = None
        self.web_server: WebServer | None = None
        # Board pictures are drawn in worker processes (bot/pictures.py), from the first one.
        self.pictures = PicturePool(settings.picture_workers)

    async def setup_hook(self) -> None:
        from cogs.common.clicks import install_click_dispatch
        from cogs.common.errors import install_error_handler
        from cogs.common.installs import install_server_only_answer
        from cogs.common.orphans import install_orphan_answers

        await self.db.migrate()
        install_error_handler(self)
        install_orphan_answers(self)
        install_click_dispatch(self)
        install_server_only_answer(self)
        for extension in self.extensions_to_load:
            await self.load_extension(extension)
        if self.settings.sync_commands:
            await self.sync_commands()
        if self.settings.health_port is not None:
            from bot.health import start_health_server

            self._health = await start_health_server(self, self.settings.health_port)
        if self.settings.web_port is not None:
            await self._start_web(self.settings.web_port)
        self.started_at = time.monotonic()

    async def _start_web(self, port: int) -> None:
        from bot.services.web import WebService
        from bot.web.server import WebServer, WebView

        def channel_name(channel_id: int) -> str | None:
            channel = self.get_channel(channel_id)
            return getattr(channel, "name", None)

        self.web = WebService(
            self.db, secret=self.settings.web_secret, link_days=self.settings.web_link_days
        )
        view = WebView(
            self.web,
            self.db.changes,
            recheck_seconds=self.settings.web_recheck_seconds,
            channel_name=channel_name,
            pictures=self.pictures,
        )
        self.web_server = WebServer(view)
        await self.web_server.start(port, self.settings.web_host)
        await self.db.listen_for_changes()  # PostgreSQL: what the other processes commit
        log.info("web view on port %s", self.web_server.port)

    def web_url(self, token: str) -> str:
        """The address of a page, as people open it (WEB_BASE_URL, else this machine)."""
        base = self.settings.web_base_url.rstrip("/")
        if not base:
            port = self.web_server.port if self.web_server else self.settings.web_port
            base = f"http://localhost:{port}"
        return f"{base}/t/{token}"

    async def sync_commands(self) -> None:
        guild_id = self.settings.dev_guild_id
        if guild_id:
            guild = discord.Object(id=guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))

    async def close(self) -> None:
        if self._health is not None:
            await self._health.cleanup()
        if self.web_server is not None:
            await self.web_server.stop()
            self.web_server = None
        await super().close()
        await self.pictures.close()
        await self.db.dispose()


async def create_bot(settings: Settings, **options: Any) -> FateTableBot:
    return FateTableBot(
        settings,
        Database(
            settings.database_url,
            unit_timeout=settings.db_unit_timeout_seconds,
            pool_size=settings.db_pool_size,
        ),
        **options,
    )


async def offline_command_tree(settings: Settings) -> list[Any]:
    """The top-level commands and groups, with every cog loaded but no connection to Discord."""
    bot = await create_bot(settings)
    async with bot:
        for extension in bot.extensions_to_load:
            await bot.load_extension(extension)
        return list(bot.tree.get_commands())
