"""The bot (or the pong baseline) in a process of its own, against a fake Discord elsewhere.

    bot = await BotProcess.start(fake.port, {"DATABASE_URL": url, "SHARD_IDS": "0", ...})
    ...
    await bot.stop()

The child is `python -m bot.testing.process`: it points discord.py at the fake's port, then
runs the bot as `python -m bot` does (`serve`: its settings from the environment, SHARD_IDS,
SHARD_COUNT, SYNC_COMMANDS, DATABASE_URL ..., /readyz on HEALTH_PORT, the collector tuned, and
a clean stop on SIGTERM). Its memory is
its own: `peak_rss_mb` reads the child's high-water mark, the fake's is not in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from bot.testing.fake_discord import FakeDiscord, redirect_discord_py_to

FAKE_PORT_VARIABLE = "FATETABLE_FAKE_PORT"
PONG_VARIABLE = "FATETABLE_PONG"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class BotProcess:
    def __init__(self, process: asyncio.subprocess.Process, health_port: int) -> None:
        self.process = process
        self.health_port = health_port

    @classmethod
    async def start(
        cls, fake_port: int, env: dict[str, str], *, pong: bool = False, timeout: float = 90.0
    ) -> BotProcess:
        from bot.health import wait_ready

        health_port = free_port()
        child_env = {
            **os.environ,
            "DISCORD_TOKEN": FakeDiscord.TOKEN,
            "LOG_LEVEL": "WARNING",
            **env,
            FAKE_PORT_VARIABLE: str(fake_port),
            "HEALTH_PORT": str(health_port),
        }
        if pong:
            child_env[PONG_VARIABLE] = "1"
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot.testing.process", env=child_env, cwd=Path.cwd()
        )
        bot = cls(process, health_port)
        try:
            waiting = asyncio.ensure_future(wait_ready(health_port, timeout))
            exited = asyncio.ensure_future(process.wait())
            done, _ = await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
            if exited in done:
                waiting.cancel()
                raise RuntimeError(f"the bot process exited with {process.returncode} at start")
            exited.cancel()
            waiting.result()
        except BaseException:
            await bot.stop()
            raise
        return bot

    def peak_rss_mb(self) -> float:
        """The child's resident memory high-water mark (Linux)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
        return int(line.split()[1]) / 1024

    async def stop(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), 20)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()


async def _child() -> int:
    """The process's exit code."""
    redirect_discord_py_to(int(os.environ[FAKE_PORT_VARIABLE]))
    if not os.environ.get(PONG_VARIABLE):  # the bot runs (and stops on SIGTERM) as deployed
        from bot.__main__ import serve
        from bot.config import Settings

        settings = Settings(_env_file=None)  # type: ignore[call-arg]
        return await serve(settings, settle_gc=True, guild_ready_timeout=0.05)
    from bench.pong import PongBot
    from bot.health import start_health_server

    bot: Any = PongBot(guild_ready_timeout=0.05)
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stopping.set)
    await bot.login(FakeDiscord.TOKEN)
    health = await start_health_server(bot, int(os.environ["HEALTH_PORT"]), "127.0.0.1")
    connection = asyncio.create_task(bot.connect(reconnect=False))
    await asyncio.wait(
        {connection, asyncio.ensure_future(stopping.wait())}, return_when=asyncio.FIRST_COMPLETED
    )
    await bot.close()
    await health.cleanup()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(connection, 10)
    return 0


if __name__ == "__main__":
    import logging

    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "WARNING"))
    sys.exit(asyncio.run(_child()))
