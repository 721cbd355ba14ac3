"""The live web view's HTTP server, inside the bot's process (aiohttp, which discord.py brings).

    GET /t/<token>            the page a link opens (GM, player or game), or the refusal page
    GET /t/<token>/events     server-sent events: the page's new body whenever it changes
    GET /t/<token>/board.png  a game's public board picture
    GET /static/web.css|js    the page's style and its few lines of script

An event stream listens on the process's change hub (`Database.changes`, which also hears other
processes on PostgreSQL) for its server and re-renders its page after each committed change
there (and every `recheck` seconds, as a safety net); it sends the body only when it differs from the last one sent. Every
render opens the token again, so a revoked link stops within one change or recheck, and its
page turns into the refusal page.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from typing import Any

from aiohttp import web

from bot.db.changes import ChangeHub
from bot.pictures import PicturePool
from bot.services.web import LinkRefused, LinkScope, WebService
from bot.services.web_tokens import MAX_TOKEN_LENGTH, LinkKind
from bot.web import pages

log = logging.getLogger(__name__)

COALESCE_SECONDS = 0.03  # a burst of commits becomes one render
KEEPALIVE_SECONDS = 20.0
PICTURE_CACHE = 64
RENDER_CACHE = 1000  # links whose latest render is kept for the other pages open on them
SHARED_RENDER_SECONDS = 1.0
MAX_STREAMS = 500  # open event streams per process
MAX_STREAMS_PER_SERVER = 60  # ... and per Discord server, so one server cannot take them all
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self'; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}
STATIC = {"web.css": "text/css", "web.js": "text/javascript"}


@dataclass(frozen=True)
class Rendered:
    """A page as it is now."""

    title: str
    body: str
    kind: str
    scope: LinkScope

    @cached_property
    def version(self) -> str:
        """A hash of the body, taken once (every listener of a shared render compares it)."""
        return pages.version_of(self.body)


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(
        text=text, status=status, content_type="text/html", charset="utf-8", headers=HEADERS
    )


class WebView:
    """The pages and streams of one bot process."""

    def __init__(
        self,
        service: WebService,
        hub: ChangeHub,
        *,
        recheck_seconds: float = 5.0,
        channel_name: Callable[[int], str | None] = lambda _id: None,
        pictures: PicturePool | None = None,
    ) -> None:
        self.service = service
        self.pictures = pictures or PicturePool(0)  # 0: drawn in a thread
        self.hub = hub
        self.recheck_seconds = recheck_seconds
        self.channel_name = channel_name
        self._pictures: OrderedDict[tuple[int, int], bytes | None] = OrderedDict()
        self._rendered: OrderedDict[str, tuple[int, float, asyncio.Task[Rendered]]] = OrderedDict()
        self._streams: set[asyncio.Task[Any]] = set()
        self._per_guild: dict[int, int] = {}
        self._static = {
            name: resources.files("bot.web").joinpath("static", name).read_bytes()
            for name in STATIC
        }
        # Called with each rendered page an event stream sends (the bench times them).
        self.sent_listeners: list[Callable[[Rendered], None]] = []

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name}", self._static_file)
        app.router.add_get("/t/{token}", self._page)
        app.router.add_get("/t/{token}/events", self._events)
        app.router.add_get("/t/{token}/board.png", self._board)
        return app

    # ------------------------------------------------------------------ rendering
    async def render(self, token: str) -> Rendered:
        """The page behind a token now; `LinkRefused` when the token opens nothing.

        Pages open on the same link (a game's spectators) share one render per change: a
        render is reused while no change was published since it began, for at most a second.
        """
        if len(token) > MAX_TOKEN_LENGTH:
            raise LinkRefused("too long")
        seen = self.hub.published
        now = time.monotonic()
        cached = self._rendered.get(token)
        if cached is None or cached[0] != seen or now - cached[1] >= SHARED_RENDER_SECONDS:
            task = asyncio.get_running_loop().create_task(self._render(token))
            cached = (seen, now, task)
            self._rendered[token] = cached
            self._rendered.move_to_end(token)
            while len(self._rendered) > RENDER_CACHE:
                self._rendered.popitem(last=False)
        # shielded: a reader who leaves must not cancel the render the others wait for
        return await asyncio.shield(cached[2])

    async def _render(self, token: str) -> Rendered:
        scope = await self.service.open(token)
        if scope.kind is LinkKind.GAME:
            info = await self.service.game_view(scope)
            picture = None
            if info.view and await self._picture(info.id, info.version, info) is not None:
                picture = f"{token}/board.png?v={info.version}"
            title = f"{info.engine_name}, game #{info.id}"
            return Rendered(title, pages.game_body(info, picture), "game", scope)
        view = await self.service.table_view(scope)
        if view.for_gm:
            title = f"{view.campaign}: the GM's table"
        else:
            name = view.characters[0].name if view.characters else "your character"
            title = f"{name} in {view.campaign}"
        body = pages.table_body(view, self.channel_name)
        return Rendered(title, body, "gm" if view.for_gm else "player", scope)

    async def _picture(self, game_id: int, version: int, info: Any) -> bytes | None:
        key = (game_id, version)
        if key not in self._pictures:
            picture = await self.pictures.draw(info.engine, info.view)
            self._pictures[key] = picture
            while len(self._pictures) > PICTURE_CACHE:
                self._pictures.popitem(last=False)
        return self._pictures[key]

    # ------------------------------------------------------------------ handlers
    async def _index(self, _request: web.Request) -> web.Response:
        return _html(pages.INDEX)

    async def _static_file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        headers = {**HEADERS, "Cache-Control": "public, max-age=3600"}
        return web.Response(body=self._static[name], content_type=STATIC[name], headers=headers)

    async def _page(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        try:
            page = await self.render(token)
        except LinkRefused as refused:
            log.info("web link refused: %s", refused)
            return _html(pages.refusal(), 403)
        events = f"{token}/events"
        return _html(pages.document(page.title, page.body, events=events, kind=page.kind))

    async def _board(self, request: web.Request) -> web.Response:
        token = request.match_info["token"]
        try:
            scope = await self.service.open(token)
            if scope.kind is not LinkKind.GAME:
                raise LinkRefused("not a game link")
            info = await self.service.game_view(scope)
        except LinkRefused:
            return _html(pages.refusal(), 403)
        picture = await self._picture(info.id, info.version, info) if info.view else None
        if picture is None:
            raise web.HTTPNotFound()
        headers = {**HEADERS, "Cache-Control": "private, max-age=60"}
        return web.Response(body=picture, content_type="image/png", headers=headers)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        token = request.match_info["token"]
        try:
            page = await self.render(token)
        except LinkRefused:
            return _html(pages.refusal(), 403)
        guild = page.scope.guild_id
        busy = self._per_guild.get(guild, 0) >= MAX_STREAMS_PER_SERVER
        if busy or len(self._streams) >= MAX_STREAMS:
            return web.Response(
                status=503, text="too many open pages", headers={"Retry-After": "5"}
            )
        response = web.StreamResponse(
            headers={
                **HEADERS,
                "Content-Type": "text/event-stream",
                "X-Accel-Buffering": "no",  # nginx: pass events through at once
            }
        )
        await response.prepare(request)
        task = asyncio.current_task()
        assert task is not None
        self._streams.add(task)
        self._per_guild[guild] = self._per_guild.get(guild, 0) + 1
        try:
            await self._stream(request, response, token, page)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self._streams.discard(task)
            self._per_guild[guild] -= 1
            if not self._per_guild[guild]:
                del self._per_guild[guild]
        return response

    @property
    def open_streams(self) -> int:
        return len(self._streams)

    def close_streams(self) -> None:
        """End every open event stream (the pages show "connection lost" and retry)."""
        for task in list(self._streams):
            task.cancel()

    async def _stream(
        self, request: web.Request, response: web.StreamResponse, token: str, page: Rendered
    ) -> None:
        async def send(event: str, data: dict[str, Any], event_id: str | None = None) -> None:
            head = f"id: {event_id}\n" if event_id else ""
            payload = json.dumps(data, separators=(",", ":"))
            await response.write(f"{head}event: {event}\ndata: {payload}\n\n".encode())

        await response.write(b"retry: 1000\n\n")  # reconnect within a second
        last = request.headers.get("Last-Event-ID")
        quiet = 0.0
        with self.hub.subscribe(page.scope.guild_id) as changes:
            while True:
                if page.version != last:
                    await send("page", {"version": page.version, "html": page.body}, page.version)
                    last = page.version
                    for listener in list(self.sent_listeners):
                        listener(page)
                woke = await changes.wait(self.recheck_seconds)
                if woke:
                    await asyncio.sleep(COALESCE_SECONDS)
                    changes.drain()
                else:
                    quiet += self.recheck_seconds
                    if quiet >= KEEPALIVE_SECONDS:
                        await response.write(b": keepalive\n\n")
                        quiet = 0.0
                try:
                    page = await self.render(token)
                except LinkRefused:
                    await send("refused", {"html": pages.REFUSAL_BODY})
                    return
                except Exception:  # noqa: BLE001 - a failed render must not kill the stream
                    log.exception("web page render failed")


class WebServer:
    """The listening socket of a `WebView`."""

    def __init__(self, view: WebView) -> None:
        self.view = view
        self.runner: web.AppRunner | None = None
        self.port: int | None = None

    async def start(self, port: int, host: str = "0.0.0.0") -> None:
        # handler_cancellation: a page closed by its reader ends its event stream at once
        self.runner = web.AppRunner(
            self.view.app(), access_log=None, shutdown_timeout=1.0, handler_cancellation=True
        )
        await self.runner.setup()
        site = web.TCPSite(self.runner, host, port)
        await site.start()
        server = getattr(site, "_server", None)
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else port

    async def stop(self) -> None:
        self.view.close_streams()
        if self.runner is not None:
            with contextlib.suppress(Exception):
                await self.runner.cleanup()
            self.runner = None
