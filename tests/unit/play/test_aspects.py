from __future__ import annotations

import pytest

from bot.errors import RuleError
from bot.fate.aspects import (
    GM,
    MAX_ASPECT_TEXT,
    Aspect,
    AspectKind,
    FailChoice,
    OutcomeKind,
    check_compellable,
    check_paid_invoke,
    classify,
    create_advantage_existing,
    create_advantage_new,
    discover,
    make_boost,
    new_aspect,
    pass_free_invoke,
    reveal,
    spend_free_invoke,
)


def test_classify_matches_the_four_outcomes() -> None:
    assert classify(1, 2) is OutcomeKind.FAIL
    assert classify(2, 2) is OutcomeKind.TIE
    assert classify(4, 2) is OutcomeKind.SUCCESS
    assert classify(5, 2) is OutcomeKind.SUCCESS_WITH_STYLE


def test_molotov_example_success_gives_one_free_invoke() -> None:
    # Ethan: Average (+1) Crafts, [0][+][+][+] = Great (+4) against Good (+3).
    outcome = classify(1 + 3, 3)
    aspect, events = create_advantage_new(outcome, aspect_id="a1", text="On Fire", actor="ethan")
    assert aspect is not None
    assert aspect.free_invokes == ["ethan"]
    assert aspect.kind is AspectKind.SITUATION
    assert events[0].kind == "aspect_created"


def test_new_aspect_outcomes() -> None:
    def run(kind: OutcomeKind, choice: FailChoice = FailChoice.NOT_CREATED) -> Aspect | None:
        return create_advantage_new(
            kind, aspect_id="x", text="Pinned", actor="ruth", enemy=GM, fail_choice=choice
        )[0]

    assert run(OutcomeKind.FAIL) is None
    at_cost = run(OutcomeKind.FAIL, FailChoice.ENEMY_INVOKE)
    assert at_cost is not None and at_cost.free_invokes == [GM]
    tie = run(OutcomeKind.TIE)
    assert tie is not None and tie.kind is AspectKind.BOOST and tie.free_invokes == ["ruth"]
    success = run(OutcomeKind.SUCCESS)
    assert success is not None and success.free_invokes == ["ruth"]
    style = run(OutcomeKind.SUCCESS_WITH_STYLE)
    assert style is not None and style.free_invokes == ["ruth", "ruth"]


def test_existing_aspect_outcomes() -> None:
    base = new_aspect("a", "Deep Shadows", free_invokes=["ruth"])
    failed, _ = create_advantage_existing(base, OutcomeKind.FAIL, actor="ruth", enemy=GM)
    assert failed.free_invokes == ["ruth", GM]
    tied, _ = create_advantage_existing(base, OutcomeKind.TIE, actor="cass")
    assert tied.free_invokes == ["ruth", "cass"]
    succeeded, _ = create_advantage_existing(base, OutcomeKind.SUCCESS, actor="cass")
    assert succeeded.free_invokes == ["ruth", "cass"]
    styled, _ = create_advantage_existing(base, OutcomeKind.SUCCESS_WITH_STYLE, actor="cass")
    assert styled.free_invokes == ["ruth", "cass", "cass"]


def test_style_invokes_spent_on_one_roll_then_none_left() -> None:
    aspect, _ = create_advantage_new(
        OutcomeKind.SUCCESS_WITH_STYLE, aspect_id="a", text="Distracted", actor="cass"
    )
    assert aspect is not None
    once, _ = spend_free_invoke(aspect, "cass")
    assert once is not None
    twice, _ = spend_free_invoke(once, "cass")
    assert twice is not None and twice.free_invokes == []
    with pytest.raises(RuleError):
        spend_free_invoke(twice, "cass")


def test_boost_vanishes_when_used_and_cannot_be_paid_or_compelled() -> None:
    boost = make_boost("b", "Unstable Footing", "ruth")
    with pytest.raises(RuleError):
        check_paid_invoke(boost)
    with pytest.raises(RuleError):
        check_compellable(boost)
    gone, events = spend_free_invoke(boost, "ruth")
    assert gone is None
    assert [e.kind for e in events] == ["free_invoke_used", "boost_gone"]


def test_pass_free_invoke_to_ally() -> None:
    aspect = new_aspect("a", "Distracted", free_invokes=["cass"])
    passed, events = pass_free_invoke(aspect, "cass", "ruth")
    assert passed.free_invokes == ["ruth"]
    assert events[0].who == "ruth"
    with pytest.raises(RuleError):
        pass_free_invoke(passed, "cass", "ruth")
    with pytest.raises(RuleError):
        pass_free_invoke(passed, "ruth", "ruth")


def test_text_limits_and_hidden() -> None:
    with pytest.raises(RuleError):
        new_aspect("a", " ")
    with pytest.raises(RuleError):
        new_aspect("a", "x" * (MAX_ASPECT_TEXT + 1))
    hidden = new_aspect("a", "  Secret   Door ", hidden=True)
    assert hidden.text == "Secret Door"
    shown, _ = reveal(hidden)
    assert not shown.hidden
    with pytest.raises(RuleError):
        reveal(shown)


def test_round_trip() -> None:
    aspect = new_aspect("a", "On Fire", AspectKind.ZONE, owner="kitchen", free_invokes=["gm", "x"])
    assert Aspect.model_validate_json(aspect.model_dump_json()) == aspect


def test_a_new_aspect_the_gm_had_hidden_is_discovered_with_its_invokes() -> None:
    hidden = new_aspect("s1", "Trap Door", AspectKind.SITUATION, hidden=True, free_invokes=[GM])
    made, _ = create_advantage_new(
        OutcomeKind.SUCCESS_WITH_STYLE, aspect_id="s2", text="trap door", actor="char:1"
    )
    assert made is not None
    found, events = discover(hidden, made)
    assert not found.hidden and found.id == "s1" and found.text == "Trap Door"
    assert found.free_invokes == [GM, "char:1", "char:1"]  # the GM's kept, two more
    assert [e.text for e in events] == [
        "Trap Door was already there, hidden: it is revealed with 2 free invokes."
    ]
