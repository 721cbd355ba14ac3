"""`python -m bot` starts the bot; `python -m bot COMMAND` runs a tool (see `--help`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import signal
import sys
from collections.abc import Callable, Iterator
from typing import Any

import discord

from bot.config import Settings, get_settings
from bot.logging_setup import setup_logging

log = logging.getLogger(__name__)


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
        return asyncio.run(serve(settings, settle_gc=True))
    except KeyboardInterrupt:
        return 0


async def serve(settings: Settings, *, settle_gc: bool = False, **options: Any) -> int:
    """Run until the bot stops; a token problem is one line on stderr and exit code 1.
    ``settle_gc``: this process is the bot's own (`python -m bot`), so tune its collector."""
    from bot.client import create_bot

    bot = await create_bot(settings, **options)
    if settle_gc:
        settle_garbage_collector()
    with stopped_by_sigterm() as terminated:
        try:
            async with bot:
                await bot.start(settings.discord_token)
        except asyncio.CancelledError:
            # SIGTERM (systemd, docker stop): `async with` has closed the bot as on Ctrl-C, so the
            # live edits the throttle held back are drawn and the connections closed.
            if not terminated.is_set():
                raise
            log.info("stopped on SIGTERM")
            return 0
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


@contextlib.contextmanager
def stopped_by_sigterm() -> Iterator[asyncio.Event]:
    """While in it, SIGTERM cancels the running task (the bot's), as asyncio.run does on Ctrl-C,
    instead of Python's default of ending the process on the spot without closing anything.
    The event says whether it came."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    terminated = asyncio.Event()

    def terminate() -> None:
        terminated.set()
        task.cancel()

    try:
        loop.add_signal_handler(signal.SIGTERM, terminate)
        installed = True
    except (NotImplementedError, RuntimeError):  # no signals here (Windows, another thread)
        installed = False
    try:
        yield terminated
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGTERM)


# Measured on the bench's paths: the collector took 15-25 % of a command's CPU with Python's
# default first threshold (700 new objects), because every interaction makes thousands of short
# lived objects (payloads, embeds, pydantic models) that reference counting frees anyway.
GC_THRESHOLDS = (50_000, 20, 100)


@contextlib.contextmanager
def collector_as_deployed() -> Iterator[None]:
    """The collector as `settle_garbage_collector` leaves it, for a measured stretch (the
    bench, `simulate`), restored afterwards: what was made before is frozen out of its reach,
    so a full collection walks only what the stretch itself keeps, and collections run as
    rarely as in the bot (AI-only games: 3-5 % fewer instructions). A caller that had frozen
    its heap already (the bot, after start-up) keeps it frozen."""
    before = gc.get_threshold()
    was_frozen = gc.get_freeze_count() > 0
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        if not was_frozen:
            gc.unfreeze()


def settle_garbage_collector() -> None:
    """Once everything is imported and loaded: what start-up made is kept out of every later
    collection (gc.freeze), and collections run less often (a roll 2.64 -> 2.28 ms of CPU,
    a conflict turn 2.52 -> 1.87 ms, in-process)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def run_migrate(_args: argparse.Namespace) -> int:
    from bot.db.engine import Database

    async def main() -> None:
        db = Database(get_settings().database_url)
        await db.migrate()
        await db.dispose()

    asyncio.run(main())
    print("database is up to date")
    return 0


def _configure_validate_pack(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the pack file (YAML) to check")
    parser.add_argument("--game", help="which game the pack is for (default: the one it fits best)")


def run_validate_pack(args: argparse.Namespace) -> int:
    from bot.errors import RuleError
    from bot.games.base import validate_pack_file

    try:
        game, errors = validate_pack_file(args.file, args.game)
    except RuleError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    for error in errors:
        print(error)
    if errors:
        print(f"{len(errors)} error(s) in {args.file} (checked as a {game} pack)", file=sys.stderr)
        return 1
    print(f"{args.file}: the pack is valid ({game})")
    return 0


def _configure_simulate(parser: argparse.ArgumentParser) -> None:
    """One sub-command per registered game, its flags built from the game's options."""
    from bot.games.base import registered_engines
    from bot.services.game_info import option_fields, option_titles

    games = parser.add_subparsers(dest="game", required=True, metavar="GAME")
    for engine in registered_engines():
        sub = games.add_parser(engine.key, help=engine.name)
        sub.add_argument("--games", type=int, default=100, help="how many games (default 100)")
        default_players = max(engine.min_players, min(3, engine.max_players))
        sub.add_argument(
            "--players",
            type=int,
            default=default_players,
            help=f"players per game, {engine.min_players} to {engine.max_players} "
            f"(default {default_players})",
        )
        sub.add_argument("--seed", type=int, default=0, help="the same seed gives the same results")
        schema = engine.options_schema().get("properties", {})
        content = engine.option_values()
        titles = option_titles(engine)
        for name, values in option_fields(engine).items():
            if name in content or values[-1:] == ["none"]:
                # content values (a pack's books) are checked by the game, with its sentence
                sub.add_argument(
                    f"--{name.replace('_', '-')}", dest=f"opt_{name}", help=titles[name]
                )
            else:
                sub.add_argument(
                    f"--{name.replace('_', '-')}",
                    dest=f"opt_{name}",
                    choices=values,
                    help=f"{titles[name]} (default {schema[name].get('default')})",
                )


def run_simulate(args: argparse.Namespace) -> int:
    import json

    from pydantic import ValidationError

    from bot.errors import RuleError
    from bot.games.base import get_engine

    engine = get_engine(args.game)
    if args.games < 1 or not engine.min_players <= args.players <= engine.max_players:
        print(
            f"--games must be at least 1 and --players between {engine.min_players} and "
            f"{engine.max_players}",
            file=sys.stderr,
        )
        return 2
    raw = {
        key[4:]: value
        for key, value in vars(args).items()
        if key.startswith("opt_") and value is not None
    }
    try:
        options = engine.parse_options(raw)
        with collector_as_deployed():
            line = engine.simulate(options, args.players, args.games, args.seed)
    except (RuleError, ValueError, ValidationError) as exc:
        print(str(exc).splitlines()[0][:300], file=sys.stderr)
        return 2
    print(json.dumps(line, sort_keys=True))
    return 0


def _convert_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a Fate Table or Fari character .json file")


def run_convert_character(args: argparse.Namespace) -> int:
    """Print the sheet in Fate Table's JSON format, then what could not be mapped (stderr)."""
    from bot.errors import RuleError
    from bot.fate.sheet_io import convert_file

    try:
        text, unmapped = convert_file(args.file)
    except RuleError as error:
        print(f"cannot convert {args.file}: {error}", file=sys.stderr)
        return 1
    print(text)
    if unmapped:
        print(f"could not be mapped ({len(unmapped)}):", file=sys.stderr)
        for item in unmapped:
            print(f"  - {item}", file=sys.stderr)
    else:
        print("everything was mapped", file=sys.stderr)
    return 0


REFERENCE_PATH = "docs/commands.md"


def _reference_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", default=REFERENCE_PATH, help=f"default {REFERENCE_PATH}")
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when the file differs instead of writing it"
    )


def run_command_reference(args: argparse.Namespace) -> int:
    """Write (or check) the command reference rendered from the command tree."""
    from pathlib import Path

    from bot.client import offline_command_tree
    from bot.ui.command_reference import render_reference

    settings = Settings(discord_token="", database_url="sqlite+aiosqlite:///:memory:")
    text = render_reference(asyncio.run(offline_command_tree(settings)))
    path = Path(args.output)
    current = path.read_text(encoding="utf-8") if path.exists() else None
    if args.check:
        if current != text:
            print(f"{path} is stale: run python -m bot command-reference", file=sys.stderr)
            return 1
        print(f"{path} is up to date")
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


TOOLS: dict[
    str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]
] = {
    "migrate": ("create or upgrade the database", lambda p: None, run_migrate),
    "convert-character": (
        "print a Fate Table or Fari character file as Fate Table JSON, and what was not mapped",
        _convert_args,
        run_convert_character,
    ),
    "validate-pack": (
        "check a card pack file; errors with line:column",
        _configure_validate_pack,
        run_validate_pack,
    ),
    "simulate": (
        "play AI-only games of a game and print one JSON line",
        _configure_simulate,
        run_simulate,
    ),
    "command-reference": (
        "write docs/commands.md from the command tree (--check: fail when it is stale)",
        _reference_args,
        run_command_reference,
    ),
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
