"""Vampire Empire rules, one test per rule of the reference ([V] checked against the rulebook),
with the rulebook's numbers."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bot.errors import RuleError
from bot.games.base import get_engine
from bot.games.vampire_empire.cards import NAMES, load_packs
from bot.games.vampire_empire.engine import VampireEmpireEngine
from bot.games.vampire_empire.state import HUMANS, VAMPIRES, VeState

ENGINE: VampireEmpireEngine = get_engine("vampire-empire")  # type: ignore[assignment]
CARDS = load_packs()["authored"].instances()
V, H = "v", "h"
C = {name: i for i, name in enumerate(NAMES)}


def card(card_id: str, skip: int = 0) -> int:
    """The number of a copy of ``card_id`` (``skip`` earlier copies)."""
    found = [i for i, c in enumerate(CARDS) if c.id == card_id]
    return found[skip]


def state(**changes: Any) -> VeState:
    """A running game in the action phase: Lady, Monk, Maid in the castle; Lord, Nun and Cook
    are vampires; the human player knows the Maid and the Butler."""
    options = changes.pop("options", {})
    base = ENGINE.new_game(
        ENGINE.parse_options({"host_side": "vampires", **options}), [V, H], random.Random(1)
    )
    values: dict[str, Any] = {
        "castle": [C["Lady"], C["Monk"], C["Maid"]],
        "city": [C["Lord"], C["Officer"], C["Nun"], C["Bishop"], C["Cook"], C["Butler"]],
        "vampires": [C["Lord"], C["Nun"], C["Cook"]],
        "known_humans": [C["Maid"], C["Butler"]],
        "phase": "act",
        "hands": [[], []],
        "decks": [[card("v-noble-1", 2)], [card("h-noble-1", 2)]],
    }
    values.update(changes)
    return base.model_copy(update=values)


def ids(s: VeState, seat: str) -> list[str]:
    return [a.id for a in ENGINE.legal_actions(s, seat)]


def play(s: VeState, seat: str, *actions: str) -> tuple[VeState, list[str]]:
    texts: list[str] = []
    for action in actions:
        s, events = ENGINE.apply(s, seat, action, random.Random(0))
        texts += [e.text for e in events if e.public]
    return s, texts


def test_setup_deals_the_rulebook_pieces() -> None:
    s = ENGINE.new_game(ENGINE.parse_options({}), ["a", "b"], random.Random(5))
    assert len(s.castle) == 3 and len(s.city) == 6 and sorted(s.castle + s.city) == list(range(9))
    assert len(s.vampires) == 3 and len(s.known_humans) == 2
    assert not set(s.vampires) & set(s.known_humans)  # two of the six humans
    assert [len(h) for h in s.hands] == [8, 8] and [len(d) for d in s.decks] == [32, 32]
    assert s.active == VAMPIRES and s.phase == "discard"  # the vampire player starts
    assert {CARDS[c].name for c in s.hands[VAMPIRES]} <= {c.name for c in CARDS[:40]}
    with pytest.raises(RuleError, match="two players"):
        ENGINE.new_game(ENGINE.parse_options({}), ["a"], random.Random(5))


def test_the_page_8_example_three_vampires_against_six_humans_is_a_tie() -> None:
    s = state(hands=[[], []], decks=[[], []], phase="act")
    s, texts = play(s, V, "pass")  # both out of cards: score
    assert s.phase == "over" and s.winner == "tie"
    assert s.scores == {"humans": 6, "vampires": 6}
    assert "humans 6 points, vampires 6 points, a tie" in ENGINE.result(s).summary  # type: ignore[union-attr]


def test_scores_count_the_city_too_and_the_higher_score_wins() -> None:
    dead = [C["Lady"], C["Monk"]]  # two humans dead: 4 humans against 3 vampires (6 points)
    s = state(
        decks=[[], []],
        castle=[C["Maid"], C["Lord"]],
        dead=dead,
        city=[C["Officer"], C["Nun"], C["Bishop"], C["Cook"], C["Butler"]],
    )
    s, _ = play(s, V, "pass")
    assert s.scores == {"humans": 4, "vampires": 6} and s.winner == "vampires"


def test_a_fight_needs_more_attack_than_the_starting_defence() -> None:
    # +1 defence on the Monk: at least 2 points of attack (the rulebook's example).
    one = card("h-noble-1")  # Family Crest, noble 1
    s = state(active=HUMANS, hands=[[], [one]], defence_markers=[0, 0, 0, 1, 0, 0, 0, 0, 0])
    assert "c:0:3" not in ids(s, H)  # the Lady cannot start a fight on the Monk with 1 point
    assert "c:0:6" in ids(s, H)  # but may on the Maid (no marker)
    two = card("h-noble-2")
    s = s.model_copy(update={"hands": [[], [one, two]]})
    assert "c:0:3" in ids(s, H)
    s, _ = play(s, H, "c:0:3", f"p:{one}")
    assert "done" not in ids(s, H)  # 1 does not beat the starting defence 1
    s, _ = play(s, H, f"p:{two}")
    assert "done" in ids(s, H)


def test_ties_go_to_the_defender_and_a_fight_lasts_two_rounds() -> None:
    h2, v2 = card("h-noble-2"), card("v-clergy-2")
    h1, v1 = card("h-noble-1"), card("v-clergy-1")
    s = state(active=HUMANS, hands=[[v2, v1], [h2, h1]])
    s, _ = play(s, H, "c:0:3", f"p:{h2}", "done")  # the Lady attacks the Monk with 2
    s, _ = play(s, V, f"p:{v2}", "done")  # clergy cards defend the Monk: 2, a tie, round 2
    assert s.combat is not None and s.combat.round == 2 and s.combat.attack_cards == [h2]
    s, texts = play(s, H, f"p:{h1}", "done")  # cards of round 1 still count: attack 3
    s, texts = play(s, V, f"p:{v1}", "done")  # defence 3: tie again, both live
    assert s.combat is None and C["Monk"] in s.castle
    assert any("both live" in t for t in texts)


def test_a_target_dies_when_attack_beats_defence_and_the_castle_is_refilled() -> None:
    h3 = card("h-noble-3")
    s = state(active=HUMANS, hands=[[], [h3]])
    s, texts = play(s, H, "c:0:3", f"p:{h3}", "done")
    s, texts = play(s, V, "done")
    assert C["Monk"] in s.dead and s.castle == [C["Lady"], C["Maid"], C["Lord"]]
    assert s.city[0] == C["Officer"]
    assert any("The vampire player declares: a human" in t for t in texts)


def test_cards_valid_by_profession_and_dual_cards() -> None:
    s = state(
        active=HUMANS, hands=[[], [card("h-clergy-3"), card("h-dual-nc"), card("h-servant-3")]]
    )
    s, _ = play(s, H, "c:0:6")  # the Lady (noble) attacks the Maid
    offered = ids(s, H)
    assert f"p:{card('h-dual-nc')}" in offered  # noble/clergy dual counts for a noble
    assert f"p:{card('h-clergy-3')}" not in offered and f"p:{card('h-servant-3')}" not in offered


def test_holy_water_counts_only_against_a_revealed_vampire() -> None:
    water = card("h-water-3")
    s = state(
        active=HUMANS,
        hands=[[], [water, card("h-noble-1")]],
        castle=[C["Lady"], C["Lord"], C["Maid"]],
        city=[C["Officer"], C["Monk"], C["Nun"], C["Bishop"], C["Cook"], C["Butler"]],
    )
    s1, _ = play(s, H, "c:0:1")  # the Lord is a hidden vampire: holy water does not count
    assert f"p:{water}" not in ids(s1, H)
    s2 = s.model_copy(update={"revealed": [C["Lord"]]})
    s2, _ = play(s2, H, "c:0:1")
    assert f"p:{water}" in ids(s2, H)


def test_holy_water_in_defence_is_an_option() -> None:
    water = card("h-water-3")
    s = state(
        castle=[C["Lady"], C["Lord"], C["Maid"]],
        revealed=[C["Lord"]],
        hands=[[card("v-fang-3")], [water]],
        city=[C["Officer"], C["Monk"], C["Nun"], C["Bishop"], C["Cook"], C["Butler"]],
    )
    s, _ = play(s, V, "c:1:0", f"p:{card('v-fang-3')}", "done")
    assert f"p:{water}" in ids(s, H)
    off = s.model_copy(
        update={"options": s.options.model_copy(update={"holy_water_in_defence": False})}
    )
    assert f"p:{water}" not in ids(off, H)


def test_vampire_cards_only_for_a_revealed_vampire() -> None:
    fang = card("v-fang-3")
    s = state(
        castle=[C["Lady"], C["Lord"], C["Maid"]],
        hands=[[fang, card("v-noble-1")], []],
        city=[C["Officer"], C["Monk"], C["Nun"], C["Bishop"], C["Cook"], C["Butler"]],
    )
    s1, _ = play(s, V, "c:1:0")  # the Lord, a hidden vampire, attacks: only noble cards help
    assert f"p:{fang}" not in ids(s1, V)
    s2 = s.model_copy(update={"revealed": [C["Lord"]]})
    s2, _ = play(s2, V, "c:1:0")
    assert f"p:{fang}" in ids(s2, V)


def test_who_may_attack() -> None:
    cards = [card("h-noble-3"), card("h-clergy-3"), card("h-servant-3")]
    s = state(
        active=HUMANS,
        castle=[C["Lady"], C["Lord"], C["Maid"]],
        revealed=[C["Lord"]],
        hands=[[card("v-noble-3"), card("v-fang-3")], cards],
        city=[C["Officer"], C["Monk"], C["Nun"], C["Bishop"], C["Cook"], C["Butler"]],
    )
    human = {a for a in ids(s, H) if a.startswith("c:")}
    assert human and all(
        not a.startswith(f"c:{C['Lord']}:") for a in human
    )  # never a revealed vampire
    s = s.model_copy(update={"active": VAMPIRES})
    vampire = {a for a in ids(s, V) if a.startswith("c:")}
    assert vampire and all(a.startswith(f"c:{C['Lord']}:") for a in vampire)  # must be one
    s = s.model_copy(update={"revealed": []})
    vampire = {a for a in ids(s, V) if a.startswith("c:")}
    # any unrevealed character that its cards can help: the Lady (a human) and the Lord
    assert {a.split(":")[1] for a in vampire} == {"0", "1"}


def test_a_revealed_vampire_attacking_another_is_an_option() -> None:
    s = state(
        castle=[C["Lord"], C["Nun"], C["Maid"]],
        revealed=[C["Lord"], C["Nun"]],
        hands=[[card("v-fang-3")], []],
        city=[C["Lady"], C["Officer"], C["Monk"], C["Bishop"], C["Cook"], C["Butler"]],
    )
    assert "c:1:4" not in ids(s, V) and "c:1:6" in ids(s, V)
    on = s.model_copy(
        update={"options": s.options.model_copy(update={"vampire_attacks_vampire": True})}
    )
    assert "c:1:4" in ids(on, V)


def test_markers_attack_only_when_attacking_defence_only_when_defending() -> None:
    s = state(
        active=HUMANS,
        hands=[[], [card("h-noble-1")]],
        attack_markers=[0, 0, 0, 0, 0, 0, 2, 0, 0],  # on the Maid
        defence_markers=[1, 0, 0, 0, 0, 0, 0, 0, 0],
    )  # on the Lady
    s, _ = play(s, H, "c:0:6", f"p:{card('h-noble-1')}")
    assert s.combat is not None
    assert ENGINE.totals(s, CARDS, s.combat) == (1, 0)  # the Lady's defence marker does not attack


def test_markers_stay_on_a_revealed_vampire_and_leave_with_it() -> None:
    s = state(
        castle=[C["Lady"], C["Lord"], C["Maid"]],
        defence_markers=[0, 1, 0, 0, 0, 0, 0, 0, 0],
        marker_supply=11,
        city=[C["Officer"], C["Monk"], C["Nun"], C["Bishop"], C["Cook"], C["Butler"]],
        hands=[[card("v-fang-1"), card("v-fang-1", 1), card("v-fang-1", 2)], []],
    )
    s, _ = play(s, V, f"r:{C['Lord']}")
    assert C["Lord"] in s.revealed and s.defence_markers[C["Lord"]] == 1
    s, texts = play(s, V, f"h:{C['Lord']}")  # hiding: to the bottom of the city, markers go
    assert s.city[-1] == C["Lord"] and s.defence_markers[C["Lord"]] == 0
    assert s.castle == [C["Lady"], C["Maid"], C["Officer"]] and s.marker_supply == 12
    assert C["Lord"] in s.revealed  # a hidden vampire stays revealed


def test_hiding_costs_three_vampire_cards_and_an_empty_city_is_an_option() -> None:
    fangs = [card("v-fang-1"), card("v-fang-1", 1)]
    s = state(hands=[fangs, []])
    assert not [a for a in ids(s, V) if a.startswith("h:")]  # two are not enough
    s = state(hands=[[*fangs, card("v-fang-2")], []], city=[])
    assert not [a for a in ids(s, V) if a.startswith("h:")]
    allow = s.model_copy(
        update={"options": s.options.model_copy(update={"hide_with_empty_city": "allow"})}
    )
    after, _ = play(allow, V, f"h:{C['Lady']}")
    assert sorted(after.castle) == sorted(s.castle) and after.hands[VAMPIRES] == []


def test_holy_water_answer_and_the_immediate_attack_with_the_lower_card() -> None:
    low, high = card("h-water-1"), card("h-water-3")
    s = state(
        active=HUMANS,
        castle=[C["Lady"], C["Nun"], C["Maid"]],
        city=[C["Lord"], C["Officer"], C["Monk"], C["Bishop"], C["Cook"], C["Butler"]],
        hands=[[], [low, high, card("h-noble-1")]],
    )
    s, texts = play(s, H, f"w:{C['Nun']}")
    assert "it is a vampire" in texts[0] and C["Nun"] in s.revealed and s.phase == "holy_attack"
    s, _ = play(s, H, f"a:{C['Lady']}")
    assert s.combat is not None and s.combat.attack_cards == [low]  # the lower value counts
    assert high in s.moats[HUMANS]


def test_equal_holy_water_gives_one_card_and_the_city_can_be_tested() -> None:
    a, b = card("h-water-2"), card("h-water-2", 1)
    s = state(active=HUMANS, hands=[[], [a, b]])
    s2, texts = play(s, H, f"w:{C['Cook']}")  # in the city: revealed, no attack possible
    assert C["Cook"] in s2.revealed and s2.phase == "discard" and s2.active == VAMPIRES
    s3, texts = play(s, H, f"w:{C['Monk']}")
    assert "it is not a vampire" in texts[0] and s3.tested == {str(C["Monk"]): False}
    cast = state(
        active=HUMANS,
        hands=[[], [a, b]],
        castle=[C["Lady"], C["Nun"], C["Maid"]],
        city=[C["Lord"], C["Officer"], C["Monk"], C["Bishop"], C["Cook"], C["Butler"]],
    )
    cast, _ = play(cast, H, f"w:{C['Nun']}", f"a:{C['Lady']}")
    assert cast.combat is not None and len(cast.combat.attack_cards) == 1


def test_three_revealed_vampires_in_the_castle_win() -> None:
    s = state(
        castle=[C["Lord"], C["Nun"], C["Cook"]],
        revealed=[C["Lord"], C["Nun"]],
        city=[C["Lady"], C["Officer"], C["Monk"], C["Bishop"], C["Maid"], C["Butler"]],
    )
    s, _ = play(s, V, f"r:{C['Cook']}")
    assert s.phase == "over" and s.winner == "vampires" and s.ending == "castle_taken"
    with pytest.raises(RuleError):
        play(s, V, "pass")  # nothing after the end


def test_all_vampires_or_all_humans_dead_end_the_game() -> None:
    h3 = card("h-noble-3")
    s = state(
        active=HUMANS,
        castle=[C["Lady"], C["Lord"], C["Maid"]],
        dead=[C["Nun"], C["Cook"]],
        city=[C["Officer"], C["Monk"], C["Bishop"], C["Butler"]],
        hands=[[], [h3]],
    )
    s, texts = play(s, H, f"c:{C['Lady']}:{C['Lord']}", f"p:{h3}", "done")
    s, texts = play(s, V, "done")
    assert s.winner == "humans" and s.ending == "all_vampires_dead"
    assert any("declares: a vampire" in t for t in texts)


def test_a_player_out_of_cards_takes_no_turns() -> None:
    s = state(hands=[[card("v-crypt")], []], decks=[[card("v-noble-2")], []], cellars=[[], []])
    s, _ = play(s, V, "pass")
    assert s.active == VAMPIRES and s.phase == "discard"  # the human player is out: skipped


def test_choosing_a_card_from_a_pile_shuffles_the_rest() -> None:
    ledger = card("h-ledger")
    moat = [card("h-noble-1"), card("h-noble-3"), card("h-clergy-2")]
    s = state(active=HUMANS, hands=[[], [ledger]], moats=[[], list(moat)])
    s, _ = play(s, H, f"t:{ledger}")
    assert s.phase == "choose"
    s, _ = play(s, H, f"k:{card('h-noble-3')}")
    assert card("h-noble-3") in s.hands[HUMANS] and sorted(s.moats[HUMANS]) == sorted(
        [moat[0], moat[2], ledger]
    )


def test_markers_stack_is_an_option_and_the_supply_is_twelve() -> None:
    mist = card("v-mist")
    s = state(hands=[[mist, card("v-mist", 1)], []])
    s, _ = play(s, V, f"m:{mist}:{C['Lady']}")
    assert s.defence_markers[C["Lady"]] == 1 and s.marker_supply == 11 and s.phase == "act"
    assert f"m:{card('v-mist', 1)}:{C['Lady']}" in ids(s, V)
    no = s.model_copy(update={"options": s.options.model_copy(update={"markers_stack": False})})
    assert f"m:{card('v-mist', 1)}:{C['Lady']}" not in ids(no, V)


def test_no_legal_action_pass_or_discard() -> None:
    s = state(
        hands=[[card("v-clergy-1")], []],
        castle=[C["Lady"], C["Lord"], C["Maid"]],
        city=[C["Officer"], C["Monk"], C["Nun"], C["Bishop"], C["Cook"], C["Butler"]],
    )
    assert [a for a in ids(s, V) if not a.startswith("r:")] == ["pass"]
    d = s.model_copy(
        update={"options": s.options.model_copy(update={"no_legal_action": "discard"})}
    )
    assert [a for a in ids(d, V) if not a.startswith("r:")] == [f"d:{card('v-clergy-1')}"]


def test_a_cancel_card_ends_the_combat() -> None:
    bats = card("v-bats")
    s = state(active=HUMANS, hands=[[bats], [card("h-noble-3")]])
    s, _ = play(s, H, "c:0:6", f"p:{card('h-noble-3')}", "done")
    s, texts = play(s, V, f"n:{bats}")
    assert s.combat is None and C["Maid"] in s.castle and "the combat ends" in texts[0]


def test_cellar_reshuffle_and_out_of_cards_options() -> None:
    s = state(phase="discard", hands=[[], []], decks=[[], []], cellars=[[card("v-noble-1")], []])
    drawn, _ = play(s, V, "draw")
    assert drawn.hands[VAMPIRES] == [card("v-noble-1")] and drawn.cellars[VAMPIRES] == []
    assert not ENGINE.is_out(s, VAMPIRES)
    off = s.model_copy(update={"options": s.options.model_copy(update={"reshuffle_cellar": False})})
    assert ENGINE.is_out(off, VAMPIRES)
    deck = state(hands=[[card("v-noble-1")], []], decks=[[], []], options={"out_of_cards": "deck"})
    assert ENGINE.is_out(deck, VAMPIRES)


def test_the_player_chooses_which_cards_pay_for_hiding() -> None:
    fang, thirst, countess = card("v-fang-1"), card("v-fang-2"), card("v-fang-noble")
    fangs = [card("v-fang-1"), card("v-fang-1", 1), card("v-fang-1", 2)]
    one_way = state(hands=[fangs, []])
    after, _ = play(one_way, V, f"h:{C['Lady']}")  # a single way to pay: no extra step
    assert after.phase == "discard" and after.hands[VAMPIRES] == [] and C["Lady"] in after.city
    s = state(hands=[[fang, card("v-fang-1", 1), thirst, countess], []])
    s, texts = play(s, V, f"h:{C['Lady']}")
    assert s.phase == "pay" and C["Lady"] in s.castle and not texts  # nothing public yet
    ways = ids(s, V)
    # two Bared Fangs are one card twice: four cards give three different payments, cheapest first
    assert ways == [
        f"y:{fang}.{card('v-fang-1', 1)}.{thirst}",
        f"y:{fang}.{card('v-fang-1', 1)}.{countess}",
        f"y:{fang}.{thirst}.{countess}",
        "back",
    ]
    assert ENGINE.private_view(s, V)["paying"] == "hide"
    back, _ = play(s, V, "back")
    assert back.phase == "act" and back.paying is None and len(back.hands[VAMPIRES]) == 4
    kept, texts = play(s, V, f"y:{fang}.{thirst}.{countess}")  # keeps a Bared Fangs
    assert kept.hands[VAMPIRES] == [card("v-fang-1", 1)] and C["Lady"] in kept.city
    assert "pays Bared Fangs, Blood Thirst, Pale Countess" in texts[0]
    with pytest.raises(RuleError):
        play(s, V, f"y:{fang}.{thirst}.{card('v-noble-1')}")  # not a way offered


def test_paying_holy_water_with_the_higher_pair_lets_the_attack_use_more() -> None:
    """The immediate attack may use the lower of the two holy water cards paid: paying 2 and 3
    instead of 1 and 2 brings 2 into the fight instead of 1."""
    low, mid, high = card("h-water-1"), card("h-water-2"), card("h-water-3")
    s = state(
        active=HUMANS,
        castle=[C["Lady"], C["Nun"], C["Maid"]],
        city=[C["Lord"], C["Officer"], C["Monk"], C["Bishop"], C["Cook"], C["Butler"]],
        hands=[[], [low, mid, high]],
    )
    s, _ = play(s, H, f"w:{C['Nun']}")
    assert s.phase == "pay" and ENGINE.private_view(s, H)["paying"] == "holy water"
    assert ids(s, H)[0] == f"y:{low}.{mid}"  # the cheapest first (the AI's choice)
    s, texts = play(s, H, f"y:{mid}.{high}", f"a:{C['Lady']}")
    assert "it is a vampire" in texts[0] and s.hands[HUMANS] == [low]
    assert s.combat is not None and s.combat.attack_cards == [mid]


def test_cancel_timing_is_an_option() -> None:
    bats, noble = card("v-bats"), card("v-servant-1")
    begun = state(active=HUMANS, hands=[[bats, noble], [card("h-noble-3")]])
    begun, _ = play(begun, H, "c:0:6", f"p:{card('h-noble-3')}", "done")
    defended, _ = play(begun, V, f"p:{noble}")
    assert f"n:{bats}" not in ids(defended, V)  # the default: only before any defence card
    anytime = defended.model_copy(
        update={"options": defended.options.model_copy(update={"cancel_timing": "any_defence"})}
    )
    ended, texts = play(anytime, V, f"n:{bats}")
    assert ended.combat is None and "the combat ends" in texts[0]
