"""Starting the bot: a missing or rejected token is one clear line, never a traceback."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import serve
from bot.testing.fake_discord import FakeDiscord
from tests.conftest import make_settings, sqlite_url

ROOT = Path(__file__).resolve().parents[2]


def test_missing_token_exits_with_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    env["DISCORD_TOKEN"] = ""
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode != 0
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "DISCORD_TOKEN" in lines[0] and ".env" in lines[0]


def test_rejected_token_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    async def scenario() -> int:
        fake = FakeDiscord()
        await fake.start()
        fake.redirect_discord_py()
        fake.reject_token = True
        try:
            settings = make_settings(sqlite_url(tmp_path), discord_token="wrong")
            return await serve(settings)
        finally:
            await fake.stop()

    assert asyncio.run(scenario()) == 1
    err = capsys.readouterr().err
    assert "DISCORD_TOKEN" in err and "Traceback" not in err


async def test_dev_guild_sync(tmp_path: Path) -> None:
    """With DEV_GUILD_ID set, commands go to that server only (instant there)."""
    from bot.client import create_bot
    from bot.testing.harness import Table

    holder: dict[str, int] = {}

    async def factory():  # type: ignore[no-untyped-def]
        settings = make_settings(sqlite_url(tmp_path), dev_guild_id=holder["guild"])
        return await create_bot(settings, guild_ready_timeout=0.05)

    fake = FakeDiscord()
    await fake.start()
    fake.redirect_discord_py()
    holder["guild"] = fake.add_guild("Dev")
    table = Table(fake, factory)
    await table.start_bot()
    try:
        assert fake.sync_calls[-1][0] == holder["guild"]
        assert {"help", "about"} <= {c["name"] for c in fake.guild_commands[holder["guild"]]}
    finally:
        await table.close()


async def test_sigterm_stops_the_bot_cleanly(tmp_path: Path) -> None:
    """systemd and docker stop a service with SIGTERM: the bot closes as on Ctrl-C (held-back
    live edits drawn, connections closed) and exits 0, instead of Python's default of dying
    on the spot (exit -15)."""
    from bot.testing.process import BotProcess

    fake = FakeDiscord()
    await fake.start()
    try:
        bot = await BotProcess.start(fake.port, {"DATABASE_URL": sqlite_url(tmp_path)})
        await bot.stop()
        assert bot.process.returncode == 0
    finally:
        await fake.stop()
