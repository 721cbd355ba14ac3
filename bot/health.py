"""Liveness and readiness over HTTP, for an orchestrator (compose, systemd, Kubernetes).

`GET /healthz` answers 200 while the event loop runs. `GET /readyz` answers 200 once every shard
of this process is connected and the database answers a query within a second, else 503 with
the reason. Off unless `HEALTH_PORT` is set.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web
from sqlalchemy import text


def _reply(code: int, **body: Any) -> web.Response:
    return web.Response(status=code, text=json.dumps(body), content_type="application/json")


async def readiness(bot: Any) -> tuple[bool, str]:
    if bot.is_closed() or not bot.is_ready():
        return False, "connecting to Discord"
    if getattr(bot, "db", None) is None:  # a bot without a database (the bench's pong)
        return True, "ready"
    try:
        async with bot.db.read(timeout=1.0) as session:
            await session.exec(text("SELECT 1"))
    except Exception as error:  # noqa: BLE001 - any failure means not ready
        return False, f"database: {type(error).__name__}"
    return True, "ready"


async def start_health_server(bot: Any, port: int, host: str = "0.0.0.0") -> web.AppRunner:
    async def healthz(_request: web.Request) -> web.Response:
        return _reply(200, status="alive")

    async def readyz(_request: web.Request) -> web.Response:
        ready, reason = await readiness(bot)
        shards = sorted(bot.shards) if getattr(bot, "shards", None) else []
        return _reply(200 if ready else 503, status=reason, shards=shards)

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/readyz", readyz)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, host, port).start()
    return runner


async def wait_ready(port: int, timeout: float, host: str = "127.0.0.1") -> None:
    """Poll /readyz until it answers 200 (for tests and scripts)."""
    import aiohttp

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    async with aiohttp.ClientSession() as client:
        while True:
            try:
                async with client.get(f"http://{host}:{port}/readyz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            if loop.time() > deadline:
                raise TimeoutError(f"the bot on health port {port} did not get ready")
            await asyncio.sleep(0.1)
