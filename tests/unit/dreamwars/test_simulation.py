"""500 seeded AI-only games, with the invariants checked after every step."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest

from bot.games.base import GameEvent
from bot.games.dreamwars import ENGINE, DwOptions, DwState
from bot.games.dreamwars.simulate import play_one, simulate
from bot.games.dreamwars.state import all_card_uids
from bot.games.simulate import TIMING_KEYS

LIB = ENGINE.board.lib
ITEM_NAMES = {key: item.name for key, item in LIB.items.items()}


@cache
def horde_size(scenario_key: str, great: str) -> Counter[str]:
    """The markers the scenario's Horde holds in all (in the bag or on the map)."""
    scenario = LIB.scenarios[scenario_key]
    faction = LIB.great[great].faction
    sizes: Counter[str] = Counter()
    for marker in LIB.markers.values():
        special = {"leader", "behemoth"} & set(marker.abilities)
        if marker.faction == faction and (not special or marker.key in scenario.horde_extra):
            sizes[marker.key] = marker.copies
    return sizes


def hand_names(state: DwState) -> set[str]:
    return {
        ITEM_NAMES[state.cards[uid]]
        for hero in state.heroes
        for uid in (*hero.items, *hero.cantici, *hero.shards)
    }


def check(before: DwState, after: DwState, events: list[GameEvent]) -> None:
    ctx = ENGINE._ctx(after)
    # Heroes' Life Points stay within their sheet; At Death's Door means 0 LP; the dead hold
    # nothing.
    for i, hero in enumerate(after.heroes):
        life = LIB.heroes[hero.key].life
        assert 0 <= hero.wounds <= life
        assert (hero.door is not None) == (not hero.dead and hero.wounds == life)
        if hero.dead:
            assert not (hero.items or hero.cantici or hero.shards or hero.allies)
        assert ctx.load(i) <= LIB.heroes[hero.key].max_load or after.decision is not None
    # Every card is in exactly one place.
    uids = all_card_uids(after)
    assert len(uids) == len(after.cards) and set(uids) == after.cards.keys()
    # The Horde's markers are in the bag or on the map, never lost or doubled.
    if after.scenario == before.scenario:
        sizes = horde_size(after.scenario, after.great)
        on_map = Counter(n.key for n in after.nemeses)
        in_bag = Counter(after.horde)
        for key, size in sizes.items():
            assert on_map[key] + in_bag[key] == size, key
        # The Nemesis limit: no summon while it is reached.
        limit = max(ENGINE._ctx(before).nemesis_limit(), ctx.nemesis_limit())
        assert len(after.nemeses) <= max(limit, len(before.nemeses))
    # No card of a hand is ever named in public.
    secret = hand_names(before) & hand_names(after)
    public = [e.text for e in events if e.public]
    if len(after.chronicle) % 3 == 0 or ENGINE.is_over(after):  # the view: a third of steps
        public.append(str(ENGINE.public_view(after)))
    for text in public:
        for name in secret:
            assert name not in text, f"{name!r} leaked in {text[:120]!r}"
    # Nothing after the end.
    if ENGINE.is_over(after):
        assert ENGINE.current_seats(after) == []
        assert all(ENGINE.legal_actions(after, seat) == [] for seat in after.seats)


# 10 chunks x 50 games = 500 games: parties of 1 to 8, single scenarios and two chunks of
# whole Ordeals (sized so that each chunk takes a few seconds).
PARTIES = [1, 2, 3, 4, 1, 2, 5, 8, 1, 3]
CHUNKS = [(chunk, PARTIES[chunk], chunk not in (4, 9)) for chunk in range(10)]


@pytest.mark.parametrize(("chunk", "players", "single"), CHUNKS)
def test_500_games_keep_the_invariants_and_end(chunk: int, players: int, single: bool) -> None:
    options = DwOptions(single_scenario=single, simple_events=chunk % 4 == 1)
    for game in range(50):
        rng = random.Random(chunk * 1000 + game)
        state = play_one(ENGINE, options, players, rng, check)
        assert ENGINE.is_over(state) and state.result in ("won", "lost")
        result = ENGINE.result(state)
        assert result is not None and result.winner == (
            "players" if state.result == "won" else "game"
        )
        assert DwState.model_validate_json(state.model_dump_json()) == state


def test_simulate_is_reproducible() -> None:
    first = simulate(6, 2, seed=7)
    second = simulate(6, 2, seed=7)
    for key in TIMING_KEYS:
        first.pop(key)
        second.pop(key)
    assert first == second
    assert first["games"] == 6 and 0 <= first["win_rate"] <= 1
    assert sum(first["scenario_outcomes"].values()) >= 6
