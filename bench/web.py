"""The web view's update latency, as a ratio to the Discord message edit it follows.

One player walks back and forth between two zones of a scene (`/scene move`) while the GM's
page is open on an event stream. For every move we take, from the moment the interaction is
sent, (a) when the pinned scene board's edit reaches the fake Discord and (b) when the page's
new body, showing the player in the new zone, reaches the open stream. The line reports (b) as
a ratio to (a): under 1 means the page is up to date before the board in the channel is.
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

from bot.testing.harness import Table

LINK = re.compile(r"<(http://localhost:\d+/t/[^>\s]+)>")
WAIT = 5.0


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _pages(response: aiohttp.ClientResponse, into: asyncio.Queue[tuple[float, str]]) -> None:
    event = ""
    while True:
        line = (await response.content.readline()).decode()
        if not line:
            return
        if line.startswith("event: "):
            event = line[7:].strip()
        elif line.startswith("data: ") and event == "page":
            into.put_nowait((time.monotonic(), json.loads(line[6:])["html"]))


async def web_follow_line(n: int) -> dict[str, Any]:
    from bench.__main__ import bench_settings
    from bench.scenarios import _players_with_characters
    from bot.client import create_bot

    workdir = Path(tempfile.mkdtemp(prefix="fatetable-bench-"))
    settings = bench_settings(
        f"sqlite+aiosqlite:///{workdir / 'web.db'}", web_port=0, web_host="127.0.0.1"
    )

    async def factory() -> Any:
        return await create_bot(settings, guild_ready_timeout=0.05)

    table = await Table.open(factory)
    page_ms: list[float] = []
    edit_ms: list[float] = []
    failures = 0
    try:
        await table.slash("settings gm-role", user=table.admin, role=table.gm_role)
        [lane] = await _players_with_characters(table, 1, "walker", skills={"Notice": 2})
        await table.slash("scene start", user=table.gm, aspects="Fog", zones="Street, Roof")
        await table.slash("scene join", user=lane["player"], zone="Street")
        pinned = [m for m in table.channel_messages() if m.get("pinned")]
        board_path = f"/channels/{table.channel}/messages/{pinned[-1]['id']}"
        link = LINK.search((await table.slash("campaign web", user=table.gm)).text)
        assert link, "no web link"
        queue: asyncio.Queue[tuple[float, str]] = asyncio.Queue()
        async with aiohttp.ClientSession() as client:
            async with client.get(link.group(1) + "/events") as response:
                reader = asyncio.create_task(_pages(response, queue))
                await asyncio.wait_for(queue.get(), WAIT)  # the page as it is
                for i in range(n):
                    zone = "Roof" if i % 2 == 0 else "Street"
                    shown = f"<b>{zone}</b> ({lane['name']})"
                    sent = time.monotonic()
                    await table.fire(
                        "scene move", user=lane["player"], zone=zone, channel=table.channel
                    )
                    try:
                        page_at = await _page_showing(queue, shown)
                        edit_at = await _edit_after(table, board_path, sent)
                    except TimeoutError:
                        failures += 1
                        continue
                    page_ms.append((page_at - sent) * 1000)
                    edit_ms.append((edit_at - sent) * 1000)
                    await table.settle()
                reader.cancel()
    finally:
        await table.close()
    if not page_ms:
        raise RuntimeError("web-follow: no change reached the page")
    return {
        "scenario": "web-follow",
        "n": n,
        "p50_ratio": round(statistics.median(page_ms) / statistics.median(edit_ms), 2),
        "p99_ratio": round(_quantile(page_ms, 0.99) / _quantile(edit_ms, 0.99), 2),
        "failures": failures,
        "page_p50_ms": round(statistics.median(page_ms), 2),
        "page_p99_ms": round(_quantile(page_ms, 0.99), 2),
        "edit_p50_ms": round(statistics.median(edit_ms), 2),
        "edit_p99_ms": round(_quantile(edit_ms, 0.99), 2),
    }


async def _page_showing(queue: asyncio.Queue[tuple[float, str]], text: str) -> float:
    async with asyncio.timeout(WAIT):
        while True:
            at, html = await queue.get()
            if text in html:
                return at


async def _edit_after(table: Table, path: str, since: float) -> float:
    async with asyncio.timeout(WAIT):
        while True:
            edits = [
                r.at
                for r in table.fake.requests
                if r.at >= since and r.method == "PATCH" and r.path.endswith(path)
            ]
            if edits:
                return min(edits)
            await asyncio.sleep(0.002)
