"""The Nemesis phase's special abilities, the Stars, and the scenarios' own rules and branches."""

from __future__ import annotations

import random

from bot.games.dreamwars import ENGINE
from bot.games.dreamwars.state import NemesisState

from .helpers import Dice, ctx, place, table, texts


def test_a_nemesis_walks_to_the_nearest_hero_and_stops_to_fight() -> None:
    state = table("eogart", at="h_foundry_row")
    knight = place(state, "ekathon_knight", "h_east_gate")  # Movement 3, 3 spaces away
    state, events = ENGINE.apply(state, "p0", "end", Dice(1))
    foe = next(n for n in state.nemeses if n.uid == knight)
    assert foe.node == "h_foundry_row" and "Defence 3 against the Ekathon Knight" in texts(events)


def test_only_flying_agile_behemoth_leader_pass_heroes_who_are_not_their_target() -> None:
    state = table("eogart", "ilarier", at="h_high_street", seats=2)
    state.heroes[1].node = "h_foundry_row"  # the farther hero
    state.heroes[0].hidden = True  # Eogart is no Primary Target: the Nemeses go for Ilarier
    gulls = place(state, "bell_gulls", "terminal_market")  # Flying, Movement 4
    servant = place(state, "soulless_servant", "terminal_market")  # Movement 2
    c = ctx(state, Dice(1, 1, 1, 1))
    ENGINE._nemesis_phase(c)
    nodes = {n.uid: n.node for n in state.nemeses}
    assert nodes[gulls] == "h_foundry_row"  # flew past Eogart to its target
    assert nodes[servant] == "h_high_street"  # stopped at the first hero it met


def test_a_ranged_nemesis_stops_in_range_and_shoots() -> None:
    state = table("melanie", at="h_square")
    hireling = place(state, "hireling", "north_road")  # Ranged 2
    c = ctx(state, Dice(6))
    ENGINE._nemesis_phase(c)
    foe = next(n for n in state.nemeses if n.uid == hireling)
    assert foe.node == "h_north_gate"  # two spaces from Melanie: in range, it stops
    assert "ranged attack" in texts(c.events) and state.heroes[0].wounds == 1


def test_a_walking_nemesis_stops_on_a_river_space() -> None:
    state = table("eogart", at="ne_wood")
    servant = place(state, "soulless_servant", "terminal_market")
    ENGINE._nemesis_phase(ctx(state, Dice(1)))
    assert next(n for n in state.nemeses if n.uid == servant).node == "river_mid_n"


def test_the_stars_are_right_when_the_events_show_their_symbols() -> None:
    state = table("eogart")
    lib = ENGINE.board.lib
    moons = [u for u in state.decks["events"] if lib.events[state.cards[u]].star == "moon"]
    for uid in moons[:2]:
        state.decks["events"].remove(uid)
    state.in_play = [(moons[0], 1)]
    state.decks["events"].insert(0, moons[1])
    nemeses = len(state.nemeses)
    state, events = ENGINE.apply(state, "p0", "end", random.Random(2))
    assert "The Stars are Right! Two Moons" in texts(events)
    assert state.stars_now == [0] and len(state.nemeses) > nemeses


def test_the_ordeal_goes_on_to_the_scenario_each_outcome_names() -> None:
    won = table("eogart", at="synod", single_scenario=False)
    won.heroes[0].dreamstone = True
    won, _ = ENGINE.apply(won, "p0", "end", random.Random(1))
    assert [o.scenario for o in won.outcomes] == ["whispers"] and won.outcomes[0].won
    assert won.scenario == "siege" and won.phase == "heroes" and len(won.towers) == 2
    lost = table("eogart", single_scenario=False)
    lost.turn = 12
    lost, _ = ENGINE.apply(lost, "p0", "end", random.Random(1))
    assert lost.outcomes[0].won is False and lost.scenario == "flight"
    assert lost.supply_tokens and lost.coaches


def test_a_siege_tower_in_the_square_loses_the_siege_and_the_ordeal() -> None:
    state = table("eogart", scenario="siege", single_scenario=False, at="factory")
    state.towers = [NemesisState(uid="t1", key="siege_tower", node="h_high_street")]
    state.nemeses = []
    state, _ = ENGINE.apply(state, "p0", "end", random.Random(1))
    if state.decision is not None:  # the Factory's Adventure card first
        state, _ = ENGINE.apply(state, "p0", next(iter(state.decision.options)), Dice(1))
    assert state.phase == "over" and state.result == "lost"
    assert state.outcomes[-1].scenario == "siege"


def test_cannons_coaches_and_the_train() -> None:
    state = table("brannoc", scenario="siege", at="h_north_gate")  # Tech 5
    state.nemeses = []
    tower = state.towers[0]
    tower.node = "north_road"
    state, events = ENGINE.apply(state, "p0", f"cannon:{tower.uid}", Dice(2))
    assert "fires the cannon" in texts(events)
    assert next(t for t in state.towers if t.uid == tower.uid).wounds == 2
    travel = table("melanie", scenario="flight", at="marketplace")
    travel, _ = ENGINE.apply(travel, "p0", "coach:sanctuary_bliss", Dice())
    assert travel.heroes[0].node == "sanctuary_bliss" and travel.heroes[0].actions == 1
    assert not any(a.id.startswith("coach:") for a in ENGINE.legal_actions(travel, "p0"))
    train = table("melanie", scenario="flight", at="terminal_market")
    train, _ = ENGINE.apply(train, "p0", "train:sulfur_mine", Dice())
    assert train.heroes[0].node == "sulfur_mine" and train.train == "sulfur_mine"


def test_supply_is_picked_up_and_delivered() -> None:
    state = table("melanie", scenario="flight", at="factory")
    state, _ = ENGINE.apply(state, "p0", "pickup", Dice())
    assert state.heroes[0].supply == 1 and "factory" not in state.supply_tokens
    state.heroes[0].node = "sanctuary_bliss"
    state, _ = ENGINE.apply(state, "p0", "end", Dice())
    assert state.delivered == 1


def test_the_dreamstone_is_found_under_an_unknown_token() -> None:
    state = table("sela", at="library")
    state.unknown = {"library": True}
    state, events = ENGINE.apply(state, "p0", "reveal", Dice())
    assert state.heroes[0].dreamstone and "it is the Dreamstone" in texts(events)
