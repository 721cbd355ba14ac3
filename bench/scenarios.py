"""Benchmark scenarios. Each feature adds its own here.

A scenario prepares the table once (`setup`, not timed) and then says which interaction to
send for request number i (`request`). The runner fires them at the chosen concurrency.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.testing.harness import Table

Request = tuple[str, int, dict[str, Any]]  # (command, user id, options)


async def _no_setup(table: Table) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Scenario:
    name: str
    request: Callable[[Table, dict[str, Any], int], Request]
    setup: Callable[[Table], Awaitable[dict[str, Any]]] = field(default=_no_setup)


def _about(table: Table, state: dict[str, Any], i: int) -> Request:
    return ("about", table.player, {})


SCENARIOS: dict[str, Scenario] = {
    "about": Scenario("about", _about),
}
