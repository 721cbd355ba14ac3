"""The rules closed last: alteration statuses (the scenarios of The Lodge's Ledger), the
Aquatic hero on the river, the second Ordeal's branches, and the player's choice of a weapon's
further targets. Rulebook numbers where it gives them (Fate 3 for a river, Melee 2 against
Heavy Armour); the statuses' numbers are the project's own, from data/dreamwars/ordeals.yaml."""

from __future__ import annotations

import random

import pytest

from bot.games.dreamwars import ENGINE, DwState
from bot.games.dreamwars.content import Effect
from bot.games.dreamwars.packs import load_library

from .helpers import Dice, ctx, give, nemesis, place, table, texts

LIB = load_library()


def ids(state: DwState, seat: str = "p0") -> list[str]:
    return [a.id for a in ENGINE.legal_actions(state, seat)]


def labels(state: DwState, seat: str = "p0") -> list[str]:
    return [a.label for a in ENGINE.legal_actions(state, seat)]


def lodge(*heroes: str, scenario: str, at: str = "h_square") -> DwState:
    state = table(*heroes, at=at, great_nemesis="provost", scenario=scenario)
    assert state.scenario == scenario and state.ordeal == "lodge_ledger"
    return state


# -- a weapon's further targets: the player chooses ---------------------------------------------------
def test_the_halberd_asks_which_second_nemesis_when_two_could_be_hit() -> None:
    """Duncard (Melee 2) on a space with a Servant, a Colossus and a Knight: he attacks the
    Servant and picks the Knight as the second target; a 2 hits both, the Colossus is untouched
    (with its Heavy Armour the 2 would have missed it anyway)."""
    state = table("duncard")
    servant = place(state, "soulless_servant", "h_square")
    colossus = place(state, "soulless_colossus", "h_square")
    knight = place(state, "ekathon_knight", "h_square")
    halberd = give(state, 0, "halberd")
    offered = [a for a in ids(state) if a.startswith(f"hit:{servant}:{halberd}")]
    assert sorted(offered) == sorted(
        [f"hit:{servant}:{halberd}:{colossus}", f"hit:{servant}:{halberd}:{knight}"]
    )
    assert "Halberd: Soulless Servant + Ekathon Knight" in labels(state)
    after, events = ENGINE.apply(state, "p0", f"hit:{servant}:{halberd}:{knight}", Dice(2))
    assert nemesis(after, servant) is None
    hit_knight = nemesis(after, knight)
    assert hit_knight is not None and hit_knight.wounds == 1
    untouched = nemesis(after, colossus)
    assert untouched is not None and untouched.wounds == 0
    assert "Soulless Colossus" not in texts(events)


def test_with_only_one_other_nemesis_there_is_nothing_to_choose() -> None:
    state = table("duncard")
    servant = place(state, "soulless_servant", "h_square")
    colossus = place(state, "soulless_colossus", "h_square")
    halberd = give(state, 0, "halberd")
    assert f"hit:{servant}:{halberd}" in ids(state)
    assert not any(a.startswith(f"hit:{servant}:{halberd}:") for a in ids(state))
    after, _ = ENGINE.apply(state, "p0", f"hit:{servant}:{halberd}", Dice(1))
    hit = nemesis(after, colossus)
    assert nemesis(after, servant) is None and hit is not None and hit.wounds == 1


def test_the_shock_gun_offers_targets_on_the_adjacent_space_by_name() -> None:
    """Shock Gun (Range 2): the second target may share the first's space or stand on an
    adjacent space within range; the button names where."""
    state = table("brannoc", at="h_square")
    first = place(state, "soulless_servant", "h_high_street")
    near = place(state, "hireling", "library")
    same = place(state, "soulless_servant", "h_high_street")
    gun = give(state, 0, "shock_gun")
    choices = [a for a in ids(state) if a.startswith(f"shoot:{first}:{gun}:")]
    assert sorted(choices) == sorted([f"shoot:{first}:{gun}:{near}", f"shoot:{first}:{gun}:{same}"])
    shown = "Shock Gun: Soulless Servant (High Street) + Hireling of the Lodge (Library)"
    assert shown in labels(state)


def test_the_ai_still_plays_multi_target_attacks() -> None:
    state = table("duncard")
    for key in ("soulless_servant", "soulless_servant", "ekathon_knight"):
        place(state, key, "h_square")
    give(state, 0, "halberd")
    action = ENGINE.choose_action(state, "p0", random.Random(0))
    after, _ = ENGINE.apply(state, "p0", action, Dice(1))
    assert after.heroes[0].actions <= state.heroes[0].actions


# -- the river, and the Aquatic hero ------------------------------------------------------------------
def test_aquatic_moves_along_the_river_without_the_fate_test() -> None:
    """Without Aquatic: Fate 3 to step on the river (a 4 fails) and never river to river. With
    Eogart's River Runner unlocked: no test at all, and along the river's spaces."""
    plain = table("eogart", at="terminal_market")
    stopped, events = ENGINE.apply(plain, "p0", "step:river_mid_n", Dice(4))
    assert stopped.heroes[0].node == "terminal_market" and "Fate 3" in texts(events)
    aquatic = table("eogart", at="terminal_market")
    aquatic.heroes[0].unlocked.append("canopy")
    dice = Dice(6, 6, 6)
    on_river, events = ENGINE.apply(aquatic, "p0", "step:river_mid_n", dice)
    assert on_river.heroes[0].node == "river_mid_n" and "Fate 3" not in texts(events)
    assert dice.faces == [6, 6, 6]  # no die was rolled
    assert "step:river_n" in ids(on_river)  # along the river
    along, _ = ENGINE.apply(on_river, "p0", "step:river_n", Dice(6))
    assert along.heroes[0].node == "river_n"


def test_river_runner_is_a_prestige_of_the_content() -> None:
    ability = next(a for a in LIB.heroes["eogart"].prestige if a.key == "canopy")
    assert [e.kind for e in ability.effects] == ["aquatic"]


# -- alteration statuses ----------------------------------------------------------------------------------
def test_a_wound_from_a_servant_brings_the_wooden_hand_and_healing_cures_it() -> None:
    state = lodge("duncard", scenario="fever")
    place(state, "soulless_servant", "h_square")
    before = ctx(state).value(0, "melee"), ctx(state).value(0, "skill")
    state, events = ENGINE.apply(state, "p0", "end", Dice(6))  # Defence 2: a 6 fails
    assert state.heroes[0].wounds == 1 and "wooden_hand" in state.heroes[0].statuses
    assert "struck by the Wooden Hand" in texts(events)
    assert (ctx(state).value(0, "melee"), ctx(state).value(0, "skill")) == (
        before[0] - 1,
        before[1] - 1,
    )
    view = ENGINE.public_view(state)
    assert view["heroes"][0]["statuses"] == ["the Wooden Hand"]
    healer = ctx(state, random.Random(0))
    healer.heal(0, 1, "a Healing Draught")
    assert not state.heroes[0].statuses and ctx(state).value(0, "melee") == before[0]


def test_a_passed_defence_brings_no_status() -> None:
    state = lodge("duncard", scenario="fever")
    place(state, "soulless_servant", "h_square")
    state, _ = ENGINE.apply(state, "p0", "end", Dice(2))  # Defence 2: a 2 passes
    assert state.heroes[0].wounds == 0 and not state.heroes[0].statuses


def test_a_status_caught_from_a_wound_counts_against_the_next_attack_of_the_phase(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Nemesis phase reads each defender's effects once for all its attacks, and again when
    a wound brings a status: were the Wooden Hand to lower Defence (no status of the packs
    does), the second Servant would meet the lowered Defence."""
    wooden_hand = ENGINE.board.content.scenarios["fever"].statuses[0]
    assert wooden_hand.key == "wooden_hand"
    lowered = Effect(kind="modify", stat="defence", amount=-9)
    monkeypatch.setattr(wooden_hand, "effects", [*wooden_hand.effects, lowered])
    state = lodge("duncard", scenario="fever")
    place(state, "soulless_servant", "h_square")
    place(state, "soulless_servant", "h_square")
    # The first Servant's 6 fails Defence 2 and brings the Wooden Hand; Defence 2 - 9 then
    # fails the second's 1, which would pass Defence 2.
    state, _ = ENGINE.apply(state, "p0", "end", Dice(6, 1))
    assert state.heroes[0].wounds == 2 and "wooden_hand" in state.heroes[0].statuses


def test_the_whisper_lasts_three_turns_and_healing_does_not_cure_it() -> None:
    state = lodge("ilarier", scenario="ledger")
    c = ctx(state, random.Random(0))
    clear = ctx(state).value(0, "arcane")
    c.afflict(0, "whisper", "a test")
    assert ctx(state).value(0, "arcane") == clear - 1
    state.heroes[0].wounds = 1
    c.heal(0, 1, "a Healing Draught")
    assert state.heroes[0].statuses == {"whisper": 3}
    turns = []
    for _ in range(3):
        state, _ = ENGINE.apply(state, "p0", "end", Dice())
        turns.append(dict(state.heroes[0].statuses))
    assert turns == [{"whisper": 2}, {"whisper": 1}, {}]


def test_lodge_poison_takes_a_life_point_each_turn_and_the_water_breeds_it() -> None:
    state = lodge("duncard", scenario="court", at="h_square")
    ctx(state, random.Random(0)).afflict(0, "lodge_poison", "a test")
    state, events = ENGINE.apply(state, "p0", "end", Dice())
    assert state.heroes[0].wounds == 1 and "Lodge poison" in texts(events)
    state, _ = ENGINE.apply(state, "p0", "end", Dice())
    assert state.heroes[0].wounds == 2
    wet = lodge("eogart", scenario="court", at="river_mid_n")
    wet, events = ENGINE.apply(wet, "p0", "end", Dice())
    assert "lodge_poison" in wet.heroes[0].statuses and wet.heroes[0].wounds == 0
    assert "the turn ends at" in texts(events)


def test_a_healing_location_cures_a_poisoned_hero_at_full_life() -> None:
    state = lodge("duncard", scenario="court", at="altar_goddess")
    ctx(state, random.Random(0)).afflict(0, "lodge_poison", "a test")
    state, _ = ENGINE.apply(state, "p0", "end", Dice())
    assert state.decision is not None and "heal1" in state.decision.options
    assert "cured" in state.decision.options["heal1"]
    state, events = ENGINE.apply(state, "p0", "heal1", Dice(1, 1, 1))
    assert not state.heroes[0].statuses and "cured of Lodge poison" in texts(events)


def test_statuses_belong_to_their_scenario() -> None:
    state = table("duncard")  # The Drowned Choir has no statuses
    ctx(state, random.Random(0)).afflict(0, "lodge_poison", "a test")
    assert not state.heroes[0].statuses


# -- the second Ordeal ----------------------------------------------------------------------------------
def test_the_lodge_ledger_is_three_linked_scenarios_with_both_branches() -> None:
    ordeal = LIB.ordeals["lodge_ledger"]
    assert LIB.great["provost"].ordeal == "lodge_ledger"
    keys = [s.key for s in ordeal.scenarios]
    assert ordeal.first == "fever" and keys == ["fever", "ledger", "court"]
    fever, ledger, court = ordeal.scenarios
    assert (fever.on_victory, fever.on_defeat) == ("ledger", "ledger")
    assert (ledger.on_victory, ledger.on_defeat) == ("court", "lost")
    assert (court.on_victory, court.on_defeat) == ("won", "lost")
    assert all(s.statuses for s in ordeal.scenarios)


def test_winning_the_fever_leads_to_the_ledger_and_killing_the_master_wins() -> None:
    state = lodge("duncard", "eogart", scenario="fever")
    state.options = state.options.model_copy(update={"single_scenario": False})
    state.kills = {"soulless_servant": 7}
    servant = place(state, "soulless_servant", "h_square")
    state, events = ENGINE.apply(state, "p0", f"hit:{servant}:fist", Dice(1))
    assert state.scenario == "ledger" and "The Wooden Hand: victory" in texts(events)
    assert state.supply_tokens == {n: 1 for n in LIB.scenarios["ledger"].supply}
    court = lodge("duncard", scenario="court", at="burgomaster")
    court.options = court.options.model_copy(update={"single_scenario": False})
    master = place(court, "lodge_master", "burgomaster")
    next(n for n in court.nemeses if n.uid == master).wounds = 6
    court, events = ENGINE.apply(court, "p0", f"hit:{master}:fist", Dice(1))
    assert court.phase == "over" and court.result == "won"
    assert "The Ordeal is won" in texts(events)


def test_a_cantico_for_two_nemeses_asks_which_two_when_three_are_in_reach() -> None:
    """Binding Chant (two Nemeses within 2 spaces): three in reach, so one button per pair;
    the pair chosen is stunned, the third is not."""
    state = table("ilarier")
    a = place(state, "soulless_servant", "h_square")
    b = place(state, "ekathon_knight", "h_high_street")
    c = place(state, "hireling", "library")
    chant = give(state, 0, "binding_chant")
    offered = [x for x in ids(state) if x.startswith(f"sing:{chant}")]
    pairs = {frozenset(x.split(":")[2].split("+")) for x in offered}
    assert pairs == {frozenset(p) for p in ((a, b), (a, c), (b, c))}, offered
    assert f"sing:{chant}" not in offered and len(offered) == 3
    pick = next(x for x in offered if set(x.split(":")[2].split("+")) == {a, c})
    after, _ = ENGINE.apply(state, "p0", pick, Dice(1))  # Arcane 4: a 1
    stunned = {n.uid for n in after.nemeses if n.stunned}
    assert stunned == {a, c}


def test_a_grenade_belt_with_only_two_in_reach_needs_no_choice() -> None:
    state = table("brannoc")
    a = place(state, "soulless_servant", "h_square")
    b = place(state, "soulless_servant", "h_high_street")
    belt = give(state, 0, "grenades")
    assert f"use:{belt}" in ids(state)
    assert not any(x.startswith(f"use:{belt}:") for x in ids(state))
    after, _ = ENGINE.apply(state, "p0", f"use:{belt}", Dice(1, 1))
    assert nemesis(after, a) is None and nemesis(after, b) is None
