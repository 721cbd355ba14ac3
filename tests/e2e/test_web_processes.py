"""The web view across processes: two bot processes (shards 0 and 1 of 2) on one PostgreSQL
database, each serving the web view. A page opened on one process follows a change made through
the other within a second (LISTEN/NOTIFY; the timed recheck is set far too slow to do it).
Runs when FATETABLE_TEST_DATABASE_URL points at PostgreSQL."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from bot.db.engine import Database
from bot.testing.fake_discord import FakeDiscord
from bot.testing.harness import Table
from bot.testing.process import BotProcess, free_port
from tests.conftest import (
    PG_URL,
    TEST_UNIT_TIMEOUT,
    _reset_postgres,
    ensure_pg_database,
    worker_pg_url,
)
from tests.e2e.test_web import LINK, next_page

pytestmark = pytest.mark.skipif(
    not (PG_URL or "").startswith("postgresql"), reason="needs FATETABLE_TEST_DATABASE_URL"
)


async def _never():  # type: ignore[no-untyped-def]
    raise AssertionError("the bots run in their own processes")


@pytest.fixture
async def web_cluster() -> AsyncIterator[tuple[list[Table], list[int]]]:
    assert PG_URL
    url = worker_pg_url(PG_URL)
    await ensure_pg_database(url)
    db = Database(url, unit_timeout=TEST_UNIT_TIMEOUT)
    await _reset_postgres(db)
    await db.dispose()
    fake = FakeDiscord()
    await fake.start()
    tables = [Table(fake, _never, shard=(0, 2)), Table(fake, _never, shard=(1, 2))]
    ports = [free_port(), free_port()]
    bots: list[BotProcess] = []
    try:
        for shard in (0, 1):  # one after the other: the first migrates and syncs the commands
            env = {
                "DATABASE_URL": url,
                "SHARD_COUNT": "2",
                "SHARD_IDS": str(shard),
                "SYNC_COMMANDS": "true" if shard == 0 else "false",
                "DB_UNIT_TIMEOUT_SECONDS": str(TEST_UNIT_TIMEOUT),
                "WEB_PORT": str(ports[shard]),
                "WEB_HOST": "127.0.0.1",
                "WEB_RECHECK_SECONDS": "60",
            }
            bots.append(await BotProcess.start(fake.port, env))
        yield tables, ports
    finally:
        for bot in bots:
            await bot.stop()
        await fake.stop()


async def test_a_page_on_one_process_follows_a_change_made_through_the_other(
    web_cluster: Any,
) -> None:
    (_, second), ports = web_cluster
    table = second  # its server is served by process 1
    await table.ask("settings gm-role", user=table.admin, role=table.gm_role)
    started = await table.ask("scene start", user=table.gm, aspects="Pouring Rain")
    assert "Pouring Rain" in started.text and not started.ephemeral, started.text  # the board
    reply = await table.ask("campaign web", user=table.gm)
    found = LINK.search(reply.text)
    assert found, reply.text
    token = found.group(1).split("/t/")[1]
    # The page is opened on process 0, which does not even serve that Discord server.
    url = f"http://localhost:{ports[0]}/t/{token}/events"
    async with aiohttp.ClientSession() as client, client.get(url) as response:
        assert response.status == 200
        first = await next_page(response, 10)
        assert "Pouring Rain" in first["html"]
        sent = time.monotonic()
        added = await table.ask("aspect add", user=table.gm, text="Sirens in the Distance")
        assert "Sirens" in added.text, added.text
        while True:
            page = await next_page(response, 5)
            if "Sirens in the Distance" in page["html"]:
                break
        assert time.monotonic() - sent < 2.0  # the command itself included; recheck: 60 s
