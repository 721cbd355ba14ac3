from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import RuleError
from bot.fate.aspects import OutcomeKind
from bot.fate.conflict import (
    Combatant,
    Conflict,
    ConflictKind,
    Phase,
    Status,
    absorb,
    attack,
    concede,
    create_advantage,
    defend,
    eligible_next,
    end_turn,
    gm_pick_next,
    hostile_invoke,
    invoke_on_attack,
    move,
    overcome,
    payouts_due,
    scale_bonus,
    start_conflict,
    support,
    trade_shift_for_boost,
)
from bot.fate.harm import AbsorbChoice, BoxRef, SlotRef
from bot.fate.tracks import Track


def ghoul_fight() -> Conflict:
    state, _ = start_conflict(
        "k1",
        ConflictKind.PHYSICAL,
        [
            Combatant(id="charles", name="Charles", side="pcs", zone="basement"),
            Combatant(id="ghoul", name="Ghoul", side="monsters", is_npc=True, zone="basement"),
        ],
        first_actor="ghoul",
        adjacency={"basement": ["stairs"], "stairs": ["basement"]},
    )
    return state


def test_ghoul_fight_through_the_conflict(charles: list[Track]) -> None:
    state = ghoul_fight()
    state, _ = attack(state, "ghoul", "charles", 2 + 2)  # Fair Fight, [0][0][+][+]
    state, events = defend(state, "charles", 3 - 1)  # Good Athletics, [0][0][0][-]
    assert (
        state.phase is Phase.ABSORBING and state.pending is not None and state.pending.shifts == 2
    )
    boxes = AbsorbChoice(stress=[BoxRef(track="physical", box=0), BoxRef(track="physical", box=1)])
    state, events, result = absorb(state, charles, boxes)
    tracks = result.tracks
    state, _ = end_turn(state, "ghoul", "charles")
    state, _ = overcome(state, "charles", 1, 2)
    state, events = end_turn(state, "charles", "ghoul")
    assert state.exchange == 2 and events[0].kind == "new_exchange"
    # Fantastic (+6) with an invoke against Average (+1): moderate consequence + last box
    state, _ = attack(state, "ghoul", "charles", 4)
    state, _ = defend(state, "charles", 1)
    state, _ = invoke_on_attack(state, "ghoul", 2)  # Hungry for Flesh
    assert state.pending is not None and state.pending.shifts == 5
    choice = AbsorbChoice(
        stress=[BoxRef(track="physical", box=2)],
        slots=[SlotRef(track="moderate", aspect="Gaping Chest Wound")],
    )
    state, _, result = absorb(state, tracks, choice)
    tracks = result.tracks
    assert state.combatant("charles").consequences_taken == 1
    assert result.new_aspects[0].free_invokes == ["ghoul"]
    state, _ = end_turn(state, "ghoul", "charles")
    state, _ = end_turn(state, "charles", "ghoul")
    # Legendary (+8) against Poor (-1): nine shifts, only mild + severe left: taken out
    state, _ = attack(state, "ghoul", "charles", 8)
    state, _ = defend(state, "charles", -1)
    assert state.pending is not None and state.pending.shifts == 9
    with pytest.raises(RuleError):
        absorb(
            state,
            tracks,
            AbsorbChoice(
                slots=[SlotRef(track="mild", aspect="a"), SlotRef(track="severe", aspect="b")]
            ),
        )
    state, events, _ = absorb(state, tracks, AbsorbChoice(taken_out=True))
    assert state.combatant("charles").status is Status.TAKEN_OUT
    assert state.phase is Phase.ENDED and state.winner_side == "monsters"
    assert Conflict.model_validate_json(state.model_dump_json()) == state


def test_tie_and_style_boosts() -> None:
    state = ghoul_fight()
    state, _ = attack(state, "ghoul", "charles", 3)
    state, events = defend(state, "charles", 3)
    # each boost event names its aspect (the service does not read the event's text)
    assert [(e.data["boost_for"], e.data["boost_name"]) for e in events if e.kind == "boost"] == [
        ("ghoul", "Opening")
    ]
    assert state.phase is Phase.ACTING
    state, _ = end_turn(state, "ghoul", "charles")
    state, _ = attack(state, "charles", "ghoul", 0)
    state, events = defend(state, "ghoul", 3)
    assert [(e.data["boost_for"], e.data["boost_name"]) for e in events if e.kind == "boost"] == [
        ("ghoul", "Sure footing")
    ]
    state, _ = end_turn(state, "charles", "ghoul")
    state, _ = attack(state, "ghoul", "charles", 5)
    state, _ = defend(state, "charles", 1)
    state, events = trade_shift_for_boost(state, "ghoul")
    assert [e.data["boost_name"] for e in events if e.kind == "boost"] == ["Momentum"]
    assert state.pending is not None and state.pending.shifts == 3
    with pytest.raises(RuleError):
        trade_shift_for_boost(state, "ghoul")


def test_no_boost_trade_without_style() -> None:
    state = ghoul_fight()
    state, _ = attack(state, "ghoul", "charles", 3)
    state, _ = defend(state, "charles", 1)
    with pytest.raises(RuleError, match="with style"):
        trade_shift_for_boost(state, "ghoul")


def test_turn_validation() -> None:
    state = ghoul_fight()
    with pytest.raises(RuleError, match="not your turn"):
        attack(state, "charles", "ghoul", 3)
    state, _ = create_advantage(state, "ghoul", OutcomeKind.SUCCESS)
    with pytest.raises(RuleError, match="already took"):
        overcome(state, "ghoul", 1, 1)
    with pytest.raises(RuleError):
        defend(state, "charles", 2)
    with pytest.raises(RuleError, match="yourself"):
        attack(ghoul_fight(), "ghoul", "ghoul", 3)


def test_moves() -> None:
    state = ghoul_fight()
    state, _ = move(state, "ghoul", "stairs")
    assert state.combatant("ghoul").zone == "stairs"
    with pytest.raises(RuleError, match="already moved"):
        move(state, "ghoul", "basement")
    with pytest.raises(RuleError, match="overcome"):
        move(state, "ghoul", "basement", impeded=True)
    state, events = move(state, "ghoul", "basement", impeded=True, overcome_effort=1, difficulty=2)
    assert events[0].kind == "move_failed" and state.action_used
    with pytest.raises(RuleError, match="already used"):
        move(state, "ghoul", "basement", impeded=True, overcome_effort=5, difficulty=2)
    with pytest.raises(RuleError, match="no zone"):
        move(ghoul_fight(), "ghoul", "attic")


def cultist_ritual() -> Conflict:
    state, _ = start_conflict(
        "k2",
        ConflictKind.PHYSICAL,
        [
            Combatant(id="cass", name="Cassandra", side="pcs"),
            Combatant(id="ruth", name="Ruth", side="pcs"),
            Combatant(id="acolyte", name="Masked Acolyte", side="cult", is_npc=True),
            Combatant(id="c1", name="Cultist 1", side="cult", is_npc=True),
            Combatant(id="c2", name="Cultist 2", side="cult", is_npc=True),
        ],
        first_actor="cass",
    )
    return state


def test_elective_order_cultist_example() -> None:
    state = cultist_ritual()
    state, _ = create_advantage(state, "cass", OutcomeKind.SUCCESS)  # Distracted
    state, _ = end_turn(state, "cass", "ruth")
    state, _ = end_turn(state, "ruth", "acolyte")  # only cultists are left to pick
    with pytest.raises(RuleError, match="already acted"):
        end_turn(state, "acolyte", "cass")
    state, _ = end_turn(state, "acolyte", "c1")
    state, _ = end_turn(state, "c1", "c2")
    assert {c.id for c in eligible_next(state)} == {"cass", "ruth", "acolyte", "c1", "c2"}
    state, events = end_turn(state, "c2", "acolyte")  # the cult opens the next exchange
    assert state.exchange == 2 and state.current == "acolyte"


def test_concession_payout_and_timing(charles: list[Track]) -> None:
    state = cultist_ritual()
    state, _ = attack(state, "cass", "acolyte", 5)
    with pytest.raises(RuleError, match="already rolled"):
        concede(state, "acolyte")
    state, _ = defend(state, "acolyte", 1)
    state, _, _ = absorb(
        state, charles, AbsorbChoice(slots=[SlotRef(track="moderate", aspect="Cracked Mask")])
    )
    state, _ = hostile_invoke(state, "cass", "ruth")
    state, _ = end_turn(state, "cass", "acolyte")
    state, events = concede(state, "acolyte")
    assert events[0].data["points"] == 2  # one plus one for the moderate consequence
    assert state.phase is Phase.CHOOSING_NEXT
    state, _ = gm_pick_next(state, "c1")
    assert payouts_due(state) == []
    state, _ = concede(state, "c1")
    state, _ = gm_pick_next(state, "c2")
    state, events = concede(state, "c2")
    assert state.phase is Phase.ENDED and state.winner_side == "pcs"
    due = payouts_due(state)
    assert [(p.change.who, p.change.delta, p.is_npc) for p in due] == [
        ("ruth", 1, False),
        ("acolyte", 2, True),
        ("c1", 1, True),
        ("c2", 1, True),
    ]


def test_scale_bonus() -> None:
    assert scale_bonus(2) == {"before_roll": 2, "after_success": 4, "extra_invokes": 2}
    assert scale_bonus(-1)["before_roll"] == 0


@settings(max_examples=60)
@given(
    size=st.integers(min_value=2, max_value=8),
    seed=st.integers(min_value=0, max_value=10_000),
    turns=st.integers(1, 40),
)
def test_every_active_participant_acts_once_per_exchange(size: int, seed: int, turns: int) -> None:
    rng = random.Random(seed)
    people = [
        Combatant(id=f"p{i}", name=f"P{i}", side="a" if i % 2 else "b", is_npc=i % 2 == 0)
        for i in range(size)
    ]
    state, _ = start_conflict("k", ConflictKind.MENTAL, people, first_actor=rng.choice(people).id)
    acted_this_exchange: list[str] = []
    exchange = state.exchange
    for _ in range(turns):
        actor = state.current
        assert actor is not None
        if rng.random() < 0.1 and len(state.active()) > 2:
            leaver = rng.choice([c for c in state.active() if c.id != actor]).id
            state, _ = concede(state, leaver)
            if state.phase is Phase.ENDED:
                break
        acted_this_exchange.append(actor)
        choice = rng.choice(eligible_next(state)).id
        state, _ = end_turn(state, actor, choice)
        if state.exchange != exchange:
            active_ids = {c.id for c in state.active()}
            assert active_ids <= set(acted_this_exchange)
            assert len(acted_this_exchange) == len(set(acted_this_exchange))
            acted_this_exchange, exchange = [], state.exchange
        else:
            assert len(acted_this_exchange) == len(set(acted_this_exchange))


def test_teamwork_support_uses_the_helpers_action() -> None:
    state, _ = start_conflict(
        "k2",
        ConflictKind.PHYSICAL,
        [
            Combatant(id="charles", name="Charles", side="pcs"),
            Combatant(id="molly", name="Molly", side="pcs"),
            Combatant(id="ghoul", name="Ghoul", side="npcs", is_npc=True),
        ],
        first_actor="charles",
    )
    with pytest.raises(RuleError, match="making this roll"):
        support(state, "charles", "charles")
    with pytest.raises(RuleError, match="not on Charles's side"):
        support(state, "ghoul", "charles")
    helped, events = support(state, "molly", "charles")
    assert helped.acted == ["molly"] and events[0].kind == "support"
    with pytest.raises(RuleError, match="already used their action"):
        support(helped, "molly", "charles")
    # Molly helped, so only the ghoul may go next; the ghoul then opens exchange 2.
    assert [c.id for c in eligible_next(helped)] == ["ghoul"]
    with pytest.raises(RuleError, match="already acted"):
        end_turn(helped, "charles", "molly")
    after, _ = end_turn(helped, "charles", "ghoul")
    after, _ = end_turn(after, "ghoul", "molly")
    assert after.exchange == 2 and after.current == "molly"


def test_a_boost_aspect_takes_the_name_the_rules_give_not_the_event_text() -> None:
    from bot.fate.aspects import Event
    from bot.services.conflict_base import ConflictBase
    from bot.services.conflict_state import ConflictState

    state = ConflictState(conflict=ghoul_fight(), members={})
    events = [
        Event(kind="boost", text="Reworded.", who="ghoul", data={"boost_for": "ghoul"}),
        Event(
            kind="boost",
            text="Overcome, reworded.",
            who="charles",
            data={"boost_for": "charles", "boost_name": "Opening"},
        ),
    ]
    ConflictBase._after_resolution(ConflictBase.__new__(ConflictBase), state, events)
    assert [a.text for a in state.aspects] == ["Momentum for ghoul", "Opening for charles"]
