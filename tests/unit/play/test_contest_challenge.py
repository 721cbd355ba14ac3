from __future__ import annotations

import pytest

from bot.errors import RuleError
from bot.fate.aspects import OutcomeKind
from bot.fate.challenge import (
    Challenge,
    assign,
    claim,
    record_roll,
    set_cost,
    start_challenge,
    summary,
)
from bot.fate.contest import (
    Contest,
    ContestSide,
    FailedAdvantage,
    add_teamwork,
    resolve_exchange,
    roll,
    settle_failed_advantage,
    start_contest,
    teamwork_bonus,
    try_advantage,
)


def chase(needed: int = 3, harmful: bool = False) -> Contest:
    state, _ = start_contest(
        "c1",
        [
            ContestSide(key="pcs", name="The heroes", intent="escape", members=["ruth", "ethan"]),
            ContestSide(
                key="cult",
                name="The cult",
                intent="catch them",
                members=["acolyte"],
                harms_others=harmful,
            ),
        ],
        needed,
    )
    return state


def test_contest_to_three_with_twist_and_style() -> None:
    state = chase()
    state, _ = roll(state, "pcs", "ruth", 5)
    state, _ = roll(state, "cult", "acolyte", 2)
    state, events = resolve_exchange(state)
    assert state.side("pcs").victories == 2  # beat the best other effort by 3: with style
    state, _ = roll(state, "pcs", "ruth", 3)
    state, _ = roll(state, "cult", "acolyte", 3)
    with pytest.raises(RuleError, match="twist"):
        resolve_exchange(state)
    state, events = resolve_exchange(state, twist_aspect="Road Blocked by a Truck")
    assert events[0].kind == "twist" and state.twists == ["Road Blocked by a Truck"]
    assert [s.victories for s in state.sides] == [2, 0]
    state, _ = roll(state, "pcs", "ethan", 4)
    state, _ = roll(state, "cult", "acolyte", 3)
    state, events = resolve_exchange(state)
    assert state.winner == "pcs" and events[-1].kind == "contest_won"
    with pytest.raises(RuleError, match="over"):
        roll(state, "pcs", "ruth", 1)
    assert Contest.model_validate_json(state.model_dump_json()) == state


def test_passive_difficulties_two_styles_give_one_each() -> None:
    state = chase()
    state, _ = roll(state, "pcs", "ruth", 6, difficulty=2)
    state, _ = roll(state, "cult", "acolyte", 5, difficulty=2)
    state, _ = resolve_exchange(state)
    assert state.side("pcs").victories == 1  # someone else also succeeded with style


def test_failed_advantage_choices_and_teamwork() -> None:
    state = chase()
    state, events = try_advantage(
        state, "pcs", "ethan", OutcomeKind.FAIL, FailedAdvantage.GIVE_FREE_INVOKE
    )
    assert events[0].data["for_sides"] == "cult"
    state, events = try_advantage(
        state, "pcs", "ruth", OutcomeKind.FAIL, FailedAdvantage.FORFEIT_ROLL
    )
    with pytest.raises(RuleError, match="forfeited"):
        roll(state, "pcs", "ruth", 3)
    with pytest.raises(RuleError, match="Waiting"):
        resolve_exchange(state)
    state, _ = roll(state, "cult", "acolyte", -1)
    state, _ = resolve_exchange(state)
    assert state.side("cult").victories == 1  # the only effort on the table
    state, _ = add_teamwork(state, "pcs", "ethan")
    with pytest.raises(RuleError, match="teamwork"):
        roll(state, "pcs", "ethan", 3)
    with pytest.raises(RuleError, match="not on"):
        roll(state, "pcs", "acolyte", 3)
    state, _ = roll(state, "pcs", "ruth", 3)
    with pytest.raises(RuleError, match="already rolled"):
        roll(state, "pcs", "ruth", 3)
    assert teamwork_bonus(3, 2) == 2 and teamwork_bonus(1, 4) == 1


def test_harmful_side_hits_the_losers() -> None:
    state = chase(harmful=True)
    state, _ = roll(state, "pcs", "ruth", 1)
    state, _ = roll(state, "cult", "acolyte", 4)
    state, events = resolve_exchange(state)
    hit = next(e for e in events if e.kind == "contest_hit")
    assert hit.who == "ruth" and hit.data["shifts"] == 3


def test_one_advantage_try_per_participant_per_exchange() -> None:
    # "Each participant may attempt to create an advantage in addition to rolling or providing
    # a teamwork bonus": once each, whatever the outcome, and again next exchange.
    state = chase()
    state, events = try_advantage(state, "pcs", "ruth", OutcomeKind.SUCCESS)
    assert events[0].kind == "advantage" and state.exchange.advantage_tries == ["ruth"]
    with pytest.raises(RuleError, match="once per exchange"):
        try_advantage(state, "pcs", "ruth", OutcomeKind.SUCCESS_WITH_STYLE)
    # a failure counts too; its cost is chosen later
    state, events = try_advantage(state, "pcs", "ethan", OutcomeKind.FAIL, on_fail=None)
    assert events[0].kind == "advantage_failed" and "pcs" not in state.exchange.forfeited
    with pytest.raises(RuleError, match="once per exchange"):
        try_advantage(state, "pcs", "ethan", OutcomeKind.TIE)
    state, events = settle_failed_advantage(state, "pcs", "ethan", FailedAdvantage.GIVE_FREE_INVOKE)
    assert events[0].kind == "free_invoke_for_opponents"
    # trying takes no action: Ethan still helps and Ruth still rolls
    state, _ = add_teamwork(state, "pcs", "ethan")
    state, _ = roll(state, "pcs", "ruth", 3)
    state, _ = roll(state, "cult", "acolyte", 1)
    state, _ = resolve_exchange(state)
    assert state.exchange.advantage_tries == []
    state, _ = try_advantage(state, "pcs", "ruth", OutcomeKind.SUCCESS)  # a new exchange
    assert state.exchange.advantage_tries == ["ruth"]


def test_teamwork_helpers_share_the_hit() -> None:
    # "Supporters face the same costs and consequences as the person making the roll."
    state = chase(harmful=True)
    state, _ = add_teamwork(state, "pcs", "ethan")
    state, _ = roll(state, "pcs", "ruth", 1)
    state, _ = roll(state, "cult", "acolyte", 6)
    state, events = resolve_exchange(state)
    hits = [e for e in events if e.kind == "contest_hit"]
    assert [(e.who, e.data["shifts"], e.data["helper"]) for e in hits] == [
        ("ruth", 5, False),
        ("ethan", 5, True),
    ]
    assert {e.data["attacker"] for e in hits} == {"acolyte"}
    # no hit when the helped roll wins
    state, _ = add_teamwork(state, "pcs", "ethan")
    state, _ = roll(state, "pcs", "ruth", 4)
    state, _ = roll(state, "cult", "acolyte", 2)
    _, events = resolve_exchange(state)
    assert not [e for e in events if e.kind == "contest_hit"]


def test_victory_limits() -> None:
    with pytest.raises(RuleError):
        chase(needed=6)
    state = chase(needed=1)
    state, _ = roll(state, "pcs", "ruth", 1)
    state, _ = roll(state, "cult", "acolyte", 0)
    state, _ = resolve_exchange(state)
    assert state.winner == "pcs"


def test_challenge_of_three_tasks() -> None:
    state, _ = start_challenge(
        "ch",
        [
            ("Investigate", 2, "search the library"),
            ("Rapport", 3, "distract the librarian"),
            ("Physique", 4, "hold the door"),
        ],
    )
    state, _ = assign(state, "t3", "ethan")
    with pytest.raises(RuleError, match="Someone else"):
        claim(state, "t3", "ruth")
    state, _ = claim(state, "t1", "ruth")
    state, _ = record_roll(state, "t1", "ruth", 5)
    state, _ = record_roll(state, "t2", "cass", 3, cost="The librarian grows suspicious")
    state, _ = record_roll(state, "t3", "ethan", 2)
    state = set_cost(state, "t3", "The door gives way")
    with pytest.raises(RuleError, match="already rolled"):
        record_roll(state, "t1", "ruth", 5)
    result = summary(state)
    assert (result.successes, result.with_style, result.ties, result.failures, result.open) == (
        1,
        1,
        1,
        1,
        0,
    )
    assert result.complete
    assert Challenge.model_validate_json(state.model_dump_json()) == state
    with pytest.raises(RuleError):
        start_challenge("x", [])
