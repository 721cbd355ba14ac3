"""Per-process memory keyed by what users keep making stays bounded over a long run (a
memory audit drove the bot through thousands of rolls, characters, conflicts and games and
found these maps growing by one entry per character, channel or encounter, forever)."""

from __future__ import annotations

import pytest

from bot.bounded import Bounded
from bot.services.character_base import _Cache
from bot.services.compels import CompelService
from bot.services.guild_settings import GUILDS_KEPT, GuildSettingsService
from bot.services.safety import SafetyService, Signal


def test_the_oldest_entries_go_first_past_the_limit() -> None:
    kept: Bounded[int, str] = Bounded(3)
    for n in range(5):
        kept[n] = str(n)
    assert list(kept.items()) == [(2, "2"), (3, "3"), (4, "4")]


def test_setting_a_key_again_makes_it_the_newest() -> None:
    kept: Bounded[str, int] = Bounded(2)
    kept["a"], kept["b"] = 1, 2
    kept["a"] = 3  # "b" is now the oldest
    kept["c"] = 4
    assert kept == {"a": 3, "c": 4}
    assert kept.setdefault("d", 5) == 5 and "a" not in kept
    assert kept.setdefault("d", 6) == 5  # an existing key keeps its value


@pytest.mark.parametrize(
    "memory",
    [
        pytest.param(lambda: _Cache().sheets, id="character sheets"),
        pytest.param(lambda: _Cache().active, id="active characters"),
        pytest.param(lambda: _Cache().campaigns, id="channel campaigns"),
        pytest.param(lambda: CompelService(None)._choices, id="compel aspect choices"),  # type: ignore[arg-type]
        pytest.param(lambda: SafetyService().last, id="safety throttle"),
    ],
)
def test_the_services_memories_are_bounded(memory) -> None:  # type: ignore[no-untyped-def]
    kept = memory()
    for n in range(kept.limit + 10):
        kept[(n, Signal.X_CARD)] = n
    assert len(kept) == kept.limit


def test_a_bot_in_many_servers_remembers_more_of_their_settings() -> None:
    assert GuildSettingsService(None)._cache.limit == GUILDS_KEPT  # type: ignore[arg-type,attr-defined]
