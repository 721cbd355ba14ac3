"""The benchmark harness itself runs (tiny n): a broken bench should fail CI, not a later run."""

from __future__ import annotations

from bench.__main__ import run


async def test_bench_runs_every_scenario_briefly() -> None:
    from bench.scenarios import SCENARIOS

    lines = await run(sorted(SCENARIOS), n=6, concurrency=2)
    assert [line["scenario"] for line in lines] == sorted(SCENARIOS)
    for line in lines:
        assert line["failures"] == 0
        assert line["p50_ratio"] > 0 and line["throughput_ratio"] > 0
