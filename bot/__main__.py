"""`python -m bot` starts the bot; `python -m bot COMMAND` runs a tool (see `--help`)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable
from typing import Any

import discord

from bot.config import Settings, get_settings
from bot.logging_setup import setup_logging


def run_bot() -> int:
    settings = get_settings()
    setup_logging(settings.log_level)
    if not settings.discord_token.strip():
        print(
            "DISCORD_TOKEN is not set: put DISCORD_TOKEN=<your bot token> in a .env file next to "
            "pyproject.toml (copy .env.example) or in the environment.",
            file=sys.stderr,
        )
        return 2

    try:
        return asyncio.run(serve(settings))
    except KeyboardInterrupt:
        return 0


async def serve(settings: Settings, **options: Any) -> int:
    """Run until the bot stops; a token problem is one line on stderr and exit code 1."""
    from bot.client import create_bot

    bot = await create_bot(settings, **options)
    try:
        async with bot:
            await bot.start(settings.discord_token)
    except discord.LoginFailure:
        print(
            "Discord rejected DISCORD_TOKEN: copy a fresh token from the Developer Portal "
            "(your application > Bot > Reset Token) into .env.",
            file=sys.stderr,
        )
        return 1
    except discord.PrivilegedIntentsRequired:
        print("Discord refused the requested gateway intents for this bot.", file=sys.stderr)
        return 1
    return 0


def run_migrate(_args: argparse.Namespace) -> int:
    from bot.db.engine import Database

    async def main() -> None:
        db = Database(get_settings().database_url)
        await db.migrate()
        await db.dispose()

    asyncio.run(main())
    print("database is up to date")
    return 0


TOOLS: dict[
    str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]
] = {
    "migrate": ("create or upgrade the database", lambda p: None, run_migrate),
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        return run_bot()
    parser = argparse.ArgumentParser(prog="python -m bot", description="Fate Table tools.")
    subparsers = parser.add_subparsers(dest="tool", required=True)
    subparsers.add_parser("run", help="start the bot (the default)")
    for name, (help_text, configure, _) in TOOLS.items():
        configure(subparsers.add_parser(name, help=help_text))
    args = parser.parse_args(argv)
    if args.tool == "run":
        return run_bot()
    return TOOLS[args.tool][2](args)


if __name__ == "__main__":
    logging.captureWarnings(True)
    raise SystemExit(main())
