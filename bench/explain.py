"""`python -m bench --explain`: where a scenario's cost goes, next to its ratios.

Two figures per scenario, for the misses of issue 15's targets:

- `floor_cpu_ratio`: the CPU of pong making as many Discord requests per answer as the
  scenario did (`requests_per_answer`: its answer, plus the edits of earlier messages, boards
  and pictures), against plain pong. No bot doing the scenario's work through Discord's API
  could cost less; what the bot costs above it is its own work.
- `cpu_split`: the bot's CPU in the measured stretch, profiled once more (cProfile, so the
  shares are indicative, not exact), by where its own time went: the fake Discord and the bench
  (its side of every request, and checking each reply: pong pays the same for a small
  message), discord.py and its HTTP client, the event loop, the database, the table games'
  code, serialisation, the board pictures (worker processes, measured without the profiler),
  the rest of the bot.
"""

from __future__ import annotations

import cProfile
import pstats

# A function's own time goes to the first bucket one of whose markers its file or name holds.
BUCKETS: list[tuple[str, tuple[str, ...]]] = [
    ("fake discord + bench", ("/bot/testing/", "/bench/", "aiohttp/web")),
    (
        "database",
        ("sqlite3", "/bot/db/", "sqlalchemy", "sqlmodel", "aiosqlite", "asyncpg", "greenlet"),
    ),
    ("table games", ("/bot/games/",)),
    ("serialisation", ("pydantic", "orjson", "/json/")),
    ("discord.py + http client", ("/discord/", "aiohttp", "yarl", "multidict", "_socket", "ssl")),
    ("event loop", ("asyncio", "selector")),
    ("bot", ("/bot/", "/cogs/")),
]
OTHER = "other (builtins, stdlib)"
IDLE = ("select.epoll", "select.poll", "select.select", "selectors")  # the loop waiting


def cpu_split(stats: pstats.Stats, picture_seconds: float) -> dict[str, float]:
    """The shares of a profiled stretch's own time (and of the pictures' worker CPU) by bucket."""
    seconds: dict[str, float] = {}
    for (file, _line, name), (_calls, _primitive, own, _cumulative, _callers) in (
        stats.stats.items()  # type: ignore[attr-defined]
    ):
        where = f"{file} {name}"
        if any(wait in where for wait in IDLE):
            continue  # the profiler's clock runs while the loop sleeps: that is no one's CPU
        bucket = next((b for b, marks in BUCKETS if any(m in where for m in marks)), OTHER)
        seconds[bucket] = seconds.get(bucket, 0.0) + own
    if picture_seconds > 0:
        seconds["pictures (workers)"] = picture_seconds
    total = sum(seconds.values()) or 1.0
    ranked = sorted(seconds.items(), key=lambda item: -item[1])
    return {bucket: round(s / total, 3) for bucket, s in ranked}


class Profiled:
    """cProfile around a measured stretch (see `bench.__main__._measure`)."""

    def __init__(self) -> None:
        self.profile = cProfile.Profile()

    def __enter__(self) -> Profiled:
        self.profile.enable()
        return self

    def __exit__(self, *exc: object) -> None:
        self.profile.disable()

    def split(self, picture_seconds: float) -> dict[str, float]:
        return cpu_split(pstats.Stats(self.profile), picture_seconds)


def extra_edits(requests_per_answer: float, i: int) -> int:
    """How many edits pong's i-th answer makes so that, on average, it makes
    `requests_per_answer` requests (its answer counted)."""
    beyond = max(0.0, requests_per_answer - 1.0)
    return int((i + 1) * beyond) - int(i * beyond)
