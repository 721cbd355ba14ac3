"""Core rules of the rulebook, one behaviour per test, with seeded or scripted dice."""

from __future__ import annotations

import random

import pytest

from bot.games.base import IllegalAction
from bot.games.dreamwars import ENGINE, DwState
from bot.games.dreamwars.actions import over_limit_decision
from bot.games.dreamwars.dice import malfunctions, passes, roll_off, roll_test
from bot.games.dreamwars.engine import summons_per_portal

from .helpers import Dice, ctx, give, place, table, texts


def ids(state: DwState, seat: str = "p0") -> list[str]:
    return [a.id for a in ENGINE.legal_actions(state, seat)]


# -- tests ------------------------------------------------------------------------------------
def test_natural_1_succeeds_natural_6_fails_and_0_always_fails() -> None:
    assert passes(1, 1) and not passes(6, 6)
    assert not passes(1, 0) and not passes(1, -2)
    assert passes(3, 3) and not passes(4, 3)


def test_a_reroll_happens_once_and_stands_and_opposite_rerolls_cancel() -> None:
    roll = roll_test(3, Dice(5, 6), reroll_failed=True)
    assert roll.first == 5 and roll.natural == 6 and not roll.success
    roll = roll_test(3, Dice(2, 5), reroll_success=True)
    assert roll.first == 2 and not roll.success
    roll = roll_test(3, Dice(5), reroll_failed=True, reroll_success=True)
    assert roll.first is None and not roll.success


def test_critical_malfunction_on_a_failed_natural_6_and_prototypes_on_4_to_6() -> None:
    six = roll_test(4, Dice(6))
    assert malfunctions(six, prototype=False, on_success=True)
    four = roll_test(5, Dice(4))
    assert four.success and not malfunctions(four, prototype=False, on_success=True)
    assert malfunctions(four, prototype=True, on_success=True)
    assert not malfunctions(four, prototype=True, on_success=False)


def test_roll_off_rerolls_ties_and_the_highest_is_the_target() -> None:
    assert roll_off(2, Dice(3, 3, 2, 5)) == 1


def test_modifiers_stack() -> None:
    state = table("melanie")
    lantern = give(state, 0, "lantern")  # +1 Skill while carried
    assert ctx(state).value(0, "skill") == 5
    wooden = next(u for u in state.decks["events"] if state.cards[u] == "wooden_hand")
    state.decks["events"].remove(wooden)
    state.in_play.append((wooden, state.turn))  # -1 Skill
    assert ctx(state).value(0, "skill") == 4
    assert lantern in state.heroes[0].items


# -- the Events phase ----------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "each"), [(1, 1), (3, 1), (4, 2), (6, 2), (7, 3), (8, 3)])
def test_summons_per_portal_follow_the_number_of_players(players: int, each: int) -> None:
    assert summons_per_portal(players) == each


def test_events_stay_three_turns_and_never_more_than_three() -> None:
    state = table("eogart")
    for turn in range(2, 8):
        state, _ = ENGINE.apply(state, "p0", "end", random.Random(turn))
        assert len(state.in_play) == min(turn - 1, 3)  # the helper starts with none in play
        assert all(drawn > state.turn - 3 for _uid, drawn in state.in_play)


def test_the_alternative_events_phase_keeps_one_event() -> None:
    state = table("eogart", simple_events=True)
    for turn in range(2, 5):
        state, _ = ENGINE.apply(state, "p0", "end", random.Random(turn))
        assert len(state.in_play) == 1 and not state.stars_now


def test_the_nemesis_limit_stops_summoning() -> None:
    state = table("eogart")
    c = ctx(state)
    limit = c.nemesis_limit()
    assert limit == 8  # the scenario's limit
    assert c.summon("swamp", limit + 3) == limit
    assert len(state.nemeses) == limit and c.limit_active()
    assert c.summon("swamp", 1) == 0


# -- movement -------------------------------------------------------------------------------------
def test_leaving_a_nemesis_space_takes_one_dodge_per_nemesis() -> None:
    state = table("eogart")  # Movement 4 = Dodge 4
    place(state, "soulless_servant", "h_square")
    place(state, "ekathon_knight", "h_square")
    moved, events = ENGINE.apply(state, "p0", "step:h_high_street", Dice(2, 3))
    assert texts(events).count("tests Dodge") == 2 and moved.heroes[0].node == "h_high_street"
    stuck, events = ENGINE.apply(state, "p0", "step:h_high_street", Dice(2, 5))
    assert stuck.heroes[0].node == "h_square" and stuck.heroes[0].no_move
    assert not any(a.startswith("step:") for a in ids(stuck))


def test_movement_is_at_most_the_movement_value() -> None:
    state = table("max")  # Movement 2
    state, _ = ENGINE.apply(state, "p0", "step:h_high_street", Dice())
    state, _ = ENGINE.apply(state, "p0", "step:h_north_gate", Dice())
    assert state.heroes[0].node == "h_north_gate"
    assert not any(a.startswith("step:") for a in ids(state))


def test_a_river_needs_fate_3_unless_safe_ford() -> None:
    state = table("eogart", at="terminal_market")
    fail, events = ENGINE.apply(state, "p0", "step:river_mid_n", Dice(4))
    assert fail.heroes[0].node == "terminal_market" and "Fate 3" in texts(events)
    assert not any(a.startswith("step:") for a in ids(fail))
    ok, _ = ENGINE.apply(state, "p0", "step:river_mid_n", Dice(3))
    assert ok.heroes[0].node == "river_mid_n"
    assert "step:river_n" not in ids(ok) and "step:ne_wood" in ids(ok)  # never along a river
    give(state, 0, "rope")
    ford, events = ENGINE.apply(state, "p0", "step:river_mid_n", Dice(6))
    assert ford.heroes[0].node == "river_mid_n" and "Fate 3" not in texts(events)


def test_a_vehicle_replaces_movement_and_blocks_extra_movement() -> None:
    state = table("melanie")  # Movement 3
    horse = give(state, 0, "horse")
    state, _ = ENGINE.apply(state, "p0", f"ride:{horse}", Dice())
    assert ctx(state).value(0, "movement") == 5 and ctx(state).value(0, "dodge") == 5


# -- combat -----------------------------------------------------------------------------------------
def test_ranged_attacks_reach_their_range_but_never_the_own_space() -> None:
    state = table("melanie")
    crossbow = give(state, 0, "crossbow")  # Range 2
    near = place(state, "soulless_servant", "h_high_street")  # 1 away
    far = place(state, "soulless_servant", "factory")  # 3 away
    same = place(state, "soulless_servant", "h_square")
    legal = ids(state)
    assert f"shoot:{near}:{crossbow}" in legal
    assert f"shoot:{far}:{crossbow}" not in legal
    assert f"shoot:{same}:{crossbow}" not in legal and f"hit:{same}:fist" in legal


def test_a_brutal_nemesis_takes_2_life_points() -> None:
    state = table("duncard")
    place(state, "flayer", "h_square")
    state, _ = ENGINE.apply(state, "p0", "end", Dice(6))
    assert state.heroes[0].wounds == 2


def test_tech_0_heroes_cannot_use_tech_items() -> None:
    state = table("eogart")  # Tech 0
    gun = give(state, 0, "steam_rifle")
    place(state, "soulless_servant", "h_high_street")
    assert not any(gun in a for a in ids(state))


def test_arcane_0_heroes_cannot_carry_cantici() -> None:
    state = table("max")  # Arcane 0
    c = ctx(state)
    uid = c.draw("cantici")
    assert uid is not None
    c.take_card(0, uid)
    assert not state.heroes[0].cantici and uid in state.discards["cantici"]


def test_intoning_a_cantico_tests_arcane_and_discards_it_either_way() -> None:
    state = table("ilarier")
    blade = give(state, 0, "wind_blade")
    target = place(state, "voidian", "h_high_street")
    hit, events = ENGINE.apply(state, "p0", f"sing:{blade}", Dice(4))
    assert "target 4, rolled 4: success" in texts(events)
    assert next(n for n in hit.nemeses if n.uid == target).wounds == 1
    assert blade in hit.discards["cantici"] and hit.heroes[0].deeds["cantici"] == 1
    miss, _ = ENGINE.apply(state, "p0", f"sing:{blade}", Dice(5))
    assert blade in miss.discards["cantici"] and not miss.heroes[0].deeds.get("cantici")


def test_a_killed_nemesis_goes_back_to_the_horde() -> None:
    state = table("eogart")
    servant = place(state, "soulless_servant", "h_square")
    horde = len(state.horde)
    state, _ = ENGINE.apply(state, "p0", f"hit:{servant}:fist", Dice(1))
    assert not state.nemeses and len(state.horde) == horde + 1
    assert state.heroes[0].deeds["kills"] == 1


# -- health -----------------------------------------------------------------------------------------
def test_at_deaths_door_lasts_max_life_turns_then_death() -> None:
    state = table("ilarier")  # 4 Life Points
    c = ctx(state)
    c.hurt(0, 4, "test")
    hero = state.heroes[0]
    assert hero.door == 4 and c.life(0) == 0
    state.heroes[0].actions = 0
    assert all(a.split(":")[0] in ("step", "end", "use") for a in ids(state))
    for _turn in range(4):
        assert not state.heroes[0].dead
        assert ENGINE.board.lib.heroes[state.heroes[0].key].life == 4
        state.nemeses = []
        state, _ = ENGINE.apply(state, "p0", "end", random.Random(3))
    assert state.deaths == 1  # then a hero not yet on the map takes the seat
    assert state.heroes[0].key != "ilarier" and not state.heroes[0].dead


def test_healing_leaves_deaths_door_and_a_door_hero_is_no_primary_target() -> None:
    state = table("eogart", "ilarier", seats=2)
    c = ctx(state)
    c.hurt(1, 4, "test")
    state.heroes[0].node = "h_foundry_row"
    place(state, "ekathon_knight", "h_high_street")
    state, _ = ENGINE.apply(state, "p0", "end", Dice(6, 6, 6))
    state, _ = ENGINE.apply(state, "p1", "end", Dice(6, 6, 6))
    knight = next(n for n in state.nemeses if n.key == "ekathon_knight")
    assert knight.node != "h_square"  # it went for Eogart
    c = ctx(state)
    c.heal(1, 1, "test")
    assert state.heroes[1].door is None and c.life(1) == 1


def test_losing_a_turn_skips_the_heroes_phase() -> None:
    state = table("eogart", "ilarier", seats=2)
    state.heroes[1].lose_turns = 1
    state, events = ENGINE.apply(state, "p0", "end", Dice())
    assert "Ilarier Sint loses this turn." in texts(events)
    # The next turn, the Crescent Moon has passed to the left: Ilarier acts first.
    assert state.turn == 2 and state.active == 1 and state.heroes[1].lose_turns == 0


# -- equipment ---------------------------------------------------------------------------------------
def test_encumbering_counts_twice_and_the_player_discards_over_the_load() -> None:
    state = table("ilarier")  # Max load 3
    c = ctx(state)
    give(state, 0, "war_hammer")
    give(state, 0, "lantern")
    assert c.load(0) == 3
    give(state, 0, "rope")
    assert over_limit_decision(c, 0)
    assert state.decision is not None and state.decision.kind == "discard"
    choice = next(k for k in state.decision.options if state.cards[k[5:]] == "war_hammer")
    state, _ = ENGINE.apply(state, "p0", choice, Dice())
    assert ctx(state).load(0) == 2 and state.decision is None


def test_armour_modifiers_do_not_stack_and_shields_add_to_armour() -> None:
    state = table("duncard")
    coat = give(state, 0, "leather_coat")
    plate = give(state, 0, "clockwork_plate")
    shield = give(state, 0, "bladebreaker")
    state.heroes[0].armour, state.heroes[0].shield = plate, shield
    assert ctx(state).defence_mod(0) == 3  # one armour (+2) and one shield (+1)
    assert coat in state.heroes[0].items


def test_add_ons_take_no_slot_and_mounting_costs_an_action() -> None:
    state = table("melanie")
    crossbow = give(state, 0, "crossbow")
    scope = give(state, 0, "scope")
    assert ctx(state).load(0) == 1
    state, _ = ENGINE.apply(state, "p0", f"mount:{scope}:{crossbow}", Dice())
    assert state.heroes[0].actions == 1
    assert ctx(state).value(0, "skill", crossbow) == 5 and ctx(state).value(0, "skill") == 4


def test_shards_are_free_unlimited_and_discarded_after_use() -> None:
    state = table("melanie")
    state.heroes[0].wounds = 2
    mending = give(state, 0, "shard_mending")
    state, _ = ENGINE.apply(state, "p0", f"use:{mending}", Dice())
    assert state.heroes[0].wounds == 0 and state.heroes[0].actions == 2
    assert mending in state.discards["shards"]


def test_giving_items_costs_one_action_and_cantici_cannot_be_given() -> None:
    state = table("eogart", "ilarier", seats=2)
    sword = give(state, 0, "short_sword")
    knife = give(state, 0, "knives")
    hymn = give(state, 1, "healing_hymn")
    legal = ids(state)
    assert f"give:{sword}:1" in legal and not any(hymn in a for a in legal)
    state, _ = ENGINE.apply(state, "p0", f"give:{sword}:1", Dice())
    state, _ = ENGINE.apply(state, "p0", f"give:{knife}:1", Dice())
    assert state.heroes[0].actions == 1 and {sword, knife} <= set(state.heroes[1].items)


def test_meditation_draws_a_cantico_once_per_turn() -> None:
    state = table("ilarier")
    state, _ = ENGINE.apply(state, "p0", "meditate", Dice())
    assert len(state.heroes[0].cantici) == 1 and "meditate" not in ids(state)


def test_meditating_at_an_arcane_location_draws_3_and_keeps_1_or_2() -> None:
    state = table("ilarier", at="library")
    discarded = len(state.discards["cantici"])
    one, _ = ENGINE.apply(state, "p0", "meditate3", Dice())
    assert one.decision is not None and len(one.decision.cards) == 3
    one, _ = ENGINE.apply(one, "p0", next(iter(one.decision.options)), Dice())
    assert len(one.heroes[0].cantici) == 1 and len(one.discards["cantici"]) == discarded + 2
    two, _ = ENGINE.apply(state, "p0", "meditate3x2", Dice())
    for _ in range(2):
        assert two.decision is not None
        two, _ = ENGINE.apply(two, "p0", next(iter(two.decision.options)), Dice())
    assert len(two.heroes[0].cantici) == 2 and two.heroes[0].actions == 0


def test_trading_costs_a_shard_and_keeps_1_of_3() -> None:
    state = table("melanie", at="marketplace")
    give(state, 0, "shard_haste")
    discarded = len(state.discards["common"])
    state, _ = ENGINE.apply(state, "p0", "end", Dice())
    assert state.decision is not None and "trade" in state.decision.options
    state, _ = ENGINE.apply(state, "p0", "trade", Dice())
    assert state.decision is not None and state.decision.kind == "keep"
    state, _ = ENGINE.apply(state, "p0", next(iter(state.decision.options)), Dice())
    assert not state.heroes[0].shards and len(state.heroes[0].items) == 1
    assert len(state.discards["common"]) == discarded + 2


def test_a_healing_location_heals_1_or_all_for_a_shard() -> None:
    state = table("duncard", at="altar_goddess")
    state.heroes[0].wounds = 4
    give(state, 0, "shard_haste")
    one, _ = ENGINE.apply(state, "p0", "end", Dice())
    one, _ = ENGINE.apply(one, "p0", "heal1", Dice(1, 1, 1))
    assert one.heroes[0].wounds <= 3
    full, _ = ENGINE.apply(state, "p0", "end", Dice())
    full, _ = ENGINE.apply(full, "p0", "healall", Dice(1, 1, 1))
    assert not full.heroes[0].shards


def test_prestige_unlocks_from_deeds() -> None:
    state = table("eogart")
    for _ in range(2):
        state.nemeses = []
        servant = place(state, "soulless_servant", "h_square")
        state, events = ENGINE.apply(state, "p0", f"hit:{servant}:fist", Dice(1))
    assert "pounce" in state.heroes[0].unlocked and "unlocks" in texts(events)
    state, _ = ENGINE.apply(state, "p0", "pres:pounce", Dice())
    assert state.heroes[0].extra == 1 and "pounce" in state.heroes[0].spent_prestige


# -- the contract ------------------------------------------------------------------------------------
def test_only_the_active_hero_acts_and_stale_ids_are_refused() -> None:
    state = table("eogart", "ilarier", seats=2)
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, "p1", "end", Dice())
    with pytest.raises(IllegalAction):
        ENGINE.apply(state, "p0", "hit:n999:fist", Dice())


def test_apply_does_not_change_its_input_and_state_round_trips_json() -> None:
    state = table("eogart")
    place(state, "soulless_servant", "h_square")
    before = state.model_dump_json()
    after, _ = ENGINE.apply(state, "p0", "end", random.Random(5))
    assert state.model_dump_json() == before
    assert DwState.model_validate_json(after.model_dump_json()) == after


def test_one_player_may_run_several_heroes() -> None:
    state = table("eogart", "ilarier", "max", seats=1)
    assert {h.seat for h in state.heroes} == {"p0"}
    state, _ = ENGINE.apply(state, "p0", "end", Dice())
    assert ENGINE.current_seats(state) == ["p0"] and state.active == 1
