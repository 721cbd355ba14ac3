"""`python -m bench [--quick] [-n N] [-c C] [scenario ...]`

Runs the baseline pong bot and the real bot through the same in-process fake Discord and prints
one JSON line per scenario. Latency is from the fake dispatching INTERACTION_CREATE to the bot's
answer reaching the fake; everything is also reported as a ratio to the baseline measured in the
same run, because absolute times on a shared machine are noise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.pong import PongBot
from bench.scenarios import SCENARIOS, Scenario
from bot.config import Settings
from bot.testing.fake_discord import FakeDiscord
from bot.testing.harness import Table


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _measure(table: Table, scenario: Scenario, n: int, concurrency: int) -> dict[str, float]:
    state = await scenario.setup(table)
    for i in range(min(5, n)):  # warm caches the way a running bot has them warm
        command, user, options = scenario.request(table, state, i)
        await table.slash(command, user=user, **options)
    latencies: list[float] = []
    queue = iter(range(n))
    failures = 0

    async def worker() -> None:
        nonlocal failures
        for i in queue:
            command, user, options = scenario.request(table, state, i)
            record = await table.fire(command, user=user, **options)
            try:
                await asyncio.wait_for(record.completed.wait(), 15)
            except TimeoutError:
                failures += 1
                continue
            assert record.completed_at is not None
            latencies.append(record.completed_at - record.sent_at)

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    await table.settle()
    if not latencies:
        raise RuntimeError(f"scenario {scenario.name}: no interaction was answered")
    return {
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": _quantile(latencies, 0.99) * 1000,
        "throughput_per_s": len(latencies) / elapsed,
        "failures": failures,
    }


async def _open(factory: Any) -> tuple[Table, float]:
    started = time.perf_counter()
    table = await Table.open(factory)
    return table, time.perf_counter() - started


async def run(names: list[str], n: int, concurrency: int) -> list[dict[str, Any]]:
    logging.disable(logging.WARNING)
    workdir = Path(tempfile.mkdtemp(prefix="fatetable-bench-"))

    async def pong_factory() -> Any:
        return PongBot(guild_ready_timeout=0.05)

    baseline_table, baseline_start = await _open(pong_factory)
    ping = Scenario("pong", lambda t, s, i: ("ping", t.player, {}))
    try:
        baseline = await _measure(baseline_table, ping, n, concurrency)
    finally:
        await baseline_table.close()

    from bot.client import create_bot

    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        discord_token=FakeDiscord.TOKEN,
        database_url=f"sqlite+aiosqlite:///{workdir / 'bench.db'}",
        log_level="ERROR",
    )

    async def bot_factory() -> Any:
        return await create_bot(settings, guild_ready_timeout=0.05)

    table, start_seconds = await _open(bot_factory)
    lines = []
    try:
        for name in names:
            result = await _measure(table, SCENARIOS[name], n, concurrency)
            lines.append(
                {
                    "scenario": name,
                    "n": n,
                    "concurrency": concurrency,
                    **{k: round(v, 3) for k, v in result.items()},
                    "p50_ratio": round(result["p50_ms"] / baseline["p50_ms"], 2),
                    "p99_ratio": round(result["p99_ms"] / baseline["p99_ms"], 2),
                    "throughput_ratio": round(
                        result["throughput_per_s"] / baseline["throughput_per_s"], 3
                    ),
                    "baseline_p50_ms": round(baseline["p50_ms"], 3),
                    "startup_s": round(start_seconds, 3),
                    "startup_ratio": round(start_seconds / baseline_start, 2),
                    "peak_rss_mb": round(
                        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
                    ),
                }
            )
    finally:
        await table.close()
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[2])
    parser.add_argument("scenarios", nargs="*", help=f"default: all of {sorted(SCENARIOS)}")
    parser.add_argument("-n", type=int, default=400, help="interactions per scenario")
    parser.add_argument("-c", "--concurrency", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="small n, finishes in under 30 s")
    args = parser.parse_args(argv)
    names = args.scenarios or sorted(SCENARIOS)
    unknown = [s for s in names if s not in SCENARIOS]
    if unknown:
        parser.error(f"unknown scenarios {unknown}; known: {sorted(SCENARIOS)}")
    n = min(args.n, 60) if args.quick else args.n
    for line in asyncio.run(run(names, n, args.concurrency)):
        print(json.dumps(line), flush=True)
    if "card-play" in names:  # the card game's AI-only simulation speed, next to its latency
        print(json.dumps(_simulation_line(20 if args.quick else 200)), flush=True)
    return 0


def _simulation_line(games: int) -> dict[str, Any]:
    from bot.games.dfccg.simulate import simulate

    result = simulate(games, 3, "wizard", "storm-front", seed=1)
    return {"scenario": "dfccg-simulation", **result}


if __name__ == "__main__":
    sys.exit(main())
