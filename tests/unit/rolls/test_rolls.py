import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.fate.rolls import (
    Action,
    DiceRerolled,
    FatePointOwed,
    FatePointToSpend,
    FreeInvokeToSpend,
    InvokeMode,
    Modifier,
    Payment,
    Roll,
    RollClosedError,
    Roller,
    RollError,
    ScaleLevel,
    ScaleMode,
    add_modifier,
    add_teamwork,
    apply_invoke,
    apply_scale,
    close_roll,
    compare_rolls,
    make_roll,
    oppose,
    scale_bonus_after_roll,
    scale_bonus_before_roll,
    scale_difference,
    scale_extra_free_invokes,
    teamwork,
)

RUTH = Roller(character_id=1, user_id=100, name="Ruth")


def fixed_roll(dice: list[int], rating: int = 2, **extra: object) -> Roll:
    return Roll(roller=RUTH, skill="Fight", skill_rating=rating, dice=dice, **extra)  # type: ignore[arg-type]


def invoke(roll: Roll, rng: random.Random | None = None, **kwargs: object) -> tuple[Roll, list]:
    defaults: dict[str, object] = {
        "invoker_id": 100,
        "invoker_name": "Ruth",
        "aspect_key": "a1",
        "aspect_name": "Former Boxer",
        "mode": InvokeMode.BONUS,
        "payment": Payment.FATE_POINT,
    }
    defaults.update(kwargs)
    return apply_invoke(roll, rng or random.Random(0), **defaults)  # type: ignore[arg-type]


def test_make_roll_effort_is_rating_dice_and_modifiers() -> None:
    roll, events = make_roll(
        random.Random(42),
        RUTH,
        skill="Fight",
        skill_rating=4,
        modifiers=[Modifier(label="Stunt", value=2)],
        difficulty=3,
    )
    assert len(roll.dice) == 4
    assert roll.effort() == 4 + sum(roll.dice) + 2
    assert events[0].effort == roll.effort()  # type: ignore[union-attr]
    result = roll.result()
    assert result is not None and result.shifts == roll.effort() - 3


def test_seed_example_ruths_punch() -> None:
    # Great (+4) Fight with [-][-][0][0] is a Fair (+2) effort.
    roll = fixed_roll([-1, -1, 0, 0], rating=4)
    assert roll.effort() == 2
    assert roll.result() is None  # no difficulty: just an effort


def test_seed_example_ghoul_invokes_hungry_for_flesh() -> None:
    # [0][0][+][+] + Fair (+2) Fight + an invoke = Fantastic (+6) against Charles's Average (+1)
    ghoul = Roll(roller=Roller(name="Ghoul"), skill="Fight", skill_rating=2, dice=[0, 0, 1, 1])
    ghoul, _ = apply_invoke(
        ghoul,
        random.Random(0),
        invoker_id=1,
        invoker_name="GM",
        aspect_key="hungry",
        aspect_name="Hungry for Flesh",
        mode=InvokeMode.BONUS,
        payment=Payment.FATE_POINT,
    )
    charles = Roll(
        roller=Roller(name="Charles"), skill="Athletics", skill_rating=3, dice=[-1, -1, 0, 0]
    )
    assert ghoul.effort() == 6
    assert compare_rolls(ghoul, charles).shifts == 5
    opposed = oppose(ghoul, charles).result()
    assert opposed is not None and opposed.shifts == 5


def test_paid_invoke_emits_fate_point_event_and_adds_two() -> None:
    roll = fixed_roll([0, 0, 0, 0], difficulty=3)
    new_roll, events = invoke(roll)
    assert new_roll.effort() == 4
    assert roll.effort() == 2  # the old state is untouched
    assert FatePointToSpend(payer_id=100, aspect_key="a1", reason="invoke") in events
    assert not any(isinstance(e, FreeInvokeToSpend) for e in events)


def test_second_paid_invoke_of_same_aspect_refused() -> None:
    roll, _ = invoke(fixed_roll([0, 0, 0, 0]))
    with pytest.raises(RollError, match="already spent"):
        invoke(roll, aspect_key="A1 ")  # same aspect, differently typed key
    with pytest.raises(RollError):
        invoke(roll, invoker_id=200, invoker_name="Ally")  # also for another payer


def test_free_invokes_stack_on_one_aspect_even_after_paying() -> None:
    roll = fixed_roll([0, 0, 0, 0])
    roll, _ = invoke(roll)
    for _ in range(3):
        roll, events = invoke(roll, payment=Payment.FREE_INVOKE, payer_id=300)
        assert FreeInvokeToSpend(holder_id=300, aspect_key="a1", is_boost=False) in events
    assert roll.effort() == 2 + 4 * 2
    assert len(roll.invokes) == 4


def test_different_aspects_can_each_be_paid() -> None:
    roll, _ = invoke(fixed_roll([0, 0, 0, 0]))
    roll, _ = invoke(roll, aspect_key="a2", aspect_name="Stubborn")
    assert roll.effort() == 6


def test_boost_only_as_free_invoke() -> None:
    roll = fixed_roll([0, 0, 0, 0])
    with pytest.raises(RollError, match="boost"):
        invoke(roll, is_boost=True, aspect_key="b", aspect_name="Distracted")
    roll, events = invoke(
        roll, is_boost=True, aspect_key="b", aspect_name="Distracted", payment=Payment.FREE_INVOKE
    )
    assert events[0] == FreeInvokeToSpend(holder_id=100, aspect_key="b", is_boost=True)
    assert roll.effort() == 4


def test_reroll_replaces_all_four_dice_deterministically() -> None:
    roll = fixed_roll([-1, -1, -1, -1])
    reference = random.Random(11)
    expected = [reference.choice((-1, 0, 1)) for _ in range(4)]
    first, events = invoke(roll, random.Random(11), mode=InvokeMode.REROLL)
    second, _ = invoke(roll, random.Random(11), mode=InvokeMode.REROLL)
    assert first.dice == second.dice == expected
    assert first.effort() == 2 + sum(expected)  # no +2 for a reroll
    assert DiceRerolled(before=(-1, -1, -1, -1), after=tuple(expected)) in events
    assert first.invokes[0].dice_before == [-1, -1, -1, -1]
    assert first.invokes[0].dice_after == expected


def test_reroll_with_seed_changes_dice() -> None:
    roll = fixed_roll([-1, -1, -1, -1])
    rerolled, _ = invoke(roll, random.Random(1), mode=InvokeMode.REROLL)
    assert rerolled.dice != roll.dice


def test_closed_roll_refuses_everything() -> None:
    roll, events = close_roll(fixed_roll([0, 0, 0, 0], difficulty=1))
    assert roll.closed and events
    assert close_roll(roll) == (roll, [])
    with pytest.raises(RollClosedError):
        invoke(roll)
    with pytest.raises(RollClosedError):
        add_teamwork(roll, helper_id=2, helper_name="Ethan", helper_rating=1)
    with pytest.raises(RollClosedError):
        add_modifier(roll, "Stunt", 2)
    with pytest.raises(RollClosedError):
        apply_scale(
            roll,
            roller_level=ScaleLevel.SUPERNATURAL,
            opposition_level=ScaleLevel.MUNDANE,
            mode=ScaleMode.BEFORE_ROLL,
        )


def test_hostile_invoke_raises_opposition_and_owes_owner() -> None:
    roll = fixed_roll([0, 0, 0, 0], difficulty=2)
    roll, events = invoke(
        roll,
        invoker_id=999,
        invoker_name="GM",
        hostile=True,
        aspect_owner_id=1,
        aspect_key="trouble",
        aspect_name="Reckless",
    )
    assert roll.opposition() == 4
    assert roll.effort() == 2
    assert FatePointOwed(owner_id=1, aspect_key="trouble") in events
    with pytest.raises(RollError, match="reroll"):
        invoke(roll, hostile=True, mode=InvokeMode.REROLL, aspect_key="x")
    with pytest.raises(RollError, match="difficulty"):
        invoke(fixed_roll([0, 0, 0, 0]), hostile=True)


def test_add_modifier() -> None:
    roll, events = add_modifier(fixed_roll([0, 0, 0, 0]), "Military sniper", 2)
    assert roll.effort() == 4 and events
    with pytest.raises(RollError):
        add_modifier(roll, "  ", 1)


# --- teamwork ---


def test_teamwork_highest_rolls_and_others_add_one() -> None:
    # Good (+3) rolls; Average (+1) and Fair (+2) helpers add +1 each; Mediocre adds nothing.
    team = teamwork([1, 3, 0, 2])
    assert team.leader_index == 1
    assert team.leader_rating == 3
    assert team.contributors == (0, 3)
    assert team.bonus == 2


def test_teamwork_bonus_capped_at_highest_rating() -> None:
    # Four Average (+1) characters: the roller is Average, so the team adds at most +1.
    assert teamwork([1, 1, 1, 1]).bonus == 1
    assert teamwork([2, 1, 1, 1, 1]).bonus == 2
    assert teamwork([0, 0]).bonus == 0


@given(st.lists(st.integers(-4, 8), min_size=1, max_size=12))
def test_teamwork_invariants(ratings: list[int]) -> None:
    team = teamwork(ratings)
    assert team.leader_rating == max(ratings)
    assert 0 <= team.bonus <= max(max(ratings), 0)
    assert all(ratings[i] >= 1 for i in team.contributors)
    assert team.leader_index not in team.contributors


def test_add_teamwork_to_roll() -> None:
    roll = fixed_roll([0, 0, 0, 0], rating=2)
    roll, _ = add_teamwork(roll, helper_id=2, helper_name="Ethan", helper_rating=1)
    roll, _ = add_teamwork(roll, helper_id=3, helper_name="Cassandra", helper_rating=2)
    roll, events = add_teamwork(roll, helper_id=4, helper_name="Charles", helper_rating=1)
    assert roll.teamwork_bonus == 2  # capped at the roller's Fair (+2)
    assert events[0].capped  # type: ignore[union-attr]
    assert roll.effort() == 4
    with pytest.raises(RollError, match="already"):
        add_teamwork(roll, helper_id=2, helper_name="Ethan", helper_rating=1)
    with pytest.raises(RollError, match="Average"):
        add_teamwork(roll, helper_id=5, helper_name="Bob", helper_rating=0)
    with pytest.raises(RollError, match="higher"):
        add_teamwork(roll, helper_id=6, helper_name="Ace", helper_rating=4)
    with pytest.raises(RollError, match="You are making"):
        add_teamwork(roll, helper_id=1, helper_name="Ruth", helper_rating=1)


# --- scale ---


def test_scale_pure_functions() -> None:
    assert scale_difference(ScaleLevel.LEGENDARY, ScaleLevel.SUPERNATURAL) == 2
    assert scale_difference(ScaleLevel.MUNDANE, ScaleLevel.GODLIKE) == 0
    assert scale_bonus_before_roll(2) == 2
    assert scale_bonus_after_roll(2, succeeded=True) == 4
    assert scale_bonus_after_roll(2, succeeded=False) == 0
    assert scale_extra_free_invokes(3, Action.CREATE_ADVANTAGE, succeeded=True) == 3
    assert scale_extra_free_invokes(3, Action.ATTACK, succeeded=True) == 0
    assert scale_extra_free_invokes(3, Action.CREATE_ADVANTAGE, succeeded=False) == 0
    assert [level.label for level in ScaleLevel] == [
        "Mundane",
        "Supernatural",
        "Otherworldly",
        "Legendary",
        "Godlike",
    ]


def test_scale_before_roll_adds_one_per_level() -> None:
    roll = fixed_roll([0, 0, 0, 0], difficulty=2)
    roll, _ = apply_scale(
        roll,
        roller_level=ScaleLevel.OTHERWORLDLY,
        opposition_level=ScaleLevel.MUNDANE,
        mode=ScaleMode.BEFORE_ROLL,
    )
    assert roll.effort() == 4


def test_scale_after_roll_only_on_success() -> None:
    winning = fixed_roll([1, 0, 0, 0], difficulty=2)  # effort 3: success by 1
    winning, _ = apply_scale(
        winning,
        roller_level=ScaleLevel.SUPERNATURAL,
        opposition_level=ScaleLevel.MUNDANE,
        mode=ScaleMode.AFTER_SUCCESS,
    )
    assert winning.effort() == 5
    result = winning.result()
    assert result is not None and result.kind.value == "success_with_style"

    tied = fixed_roll([0, 0, 0, 0], difficulty=2)  # a tie is not a success
    tied, _ = apply_scale(
        tied,
        roller_level=ScaleLevel.SUPERNATURAL,
        opposition_level=ScaleLevel.MUNDANE,
        mode=ScaleMode.AFTER_SUCCESS,
    )
    assert tied.effort() == 2


def test_scale_extra_free_invokes_on_create_advantage() -> None:
    roll = fixed_roll([1, 0, 0, 0], difficulty=2, action=Action.CREATE_ADVANTAGE)
    roll, _ = apply_scale(
        roll,
        roller_level=ScaleLevel.LEGENDARY,
        opposition_level=ScaleLevel.SUPERNATURAL,
        mode=ScaleMode.EXTRA_FREE_INVOKES,
    )
    assert roll.extra_free_invokes() == 2
    assert roll.effort() == 3
    with pytest.raises(RollError, match="create an advantage"):
        apply_scale(
            fixed_roll([0, 0, 0, 0], difficulty=1, action=Action.ATTACK),
            roller_level=ScaleLevel.LEGENDARY,
            opposition_level=ScaleLevel.MUNDANE,
            mode=ScaleMode.EXTRA_FREE_INVOKES,
        )


def test_scale_for_higher_opposition_raises_the_target() -> None:
    roll = fixed_roll([0, 0, 0, 0], difficulty=2)
    roll, _ = apply_scale(
        roll,
        roller_level=ScaleLevel.MUNDANE,
        opposition_level=ScaleLevel.GODLIKE,
        mode=ScaleMode.BEFORE_ROLL,
    )
    assert roll.opposition() == 6
    with pytest.raises(RollError):
        apply_scale(
            roll,
            roller_level=ScaleLevel.MUNDANE,
            opposition_level=ScaleLevel.GODLIKE,
            mode=ScaleMode.AFTER_SUCCESS,
        )
    same, _ = apply_scale(
        roll,
        roller_level=ScaleLevel.MUNDANE,
        opposition_level=ScaleLevel.MUNDANE,
        mode=ScaleMode.BEFORE_ROLL,
    )
    assert same.scale == []


# --- state ---


def test_roll_round_trips_json() -> None:
    roll, _ = make_roll(random.Random(4), RUTH, skill="Fight", skill_rating=3, difficulty=2)
    roll, _ = invoke(roll, mode=InvokeMode.REROLL)
    roll, _ = add_teamwork(roll, helper_id=7, helper_name="Ethan", helper_rating=1)
    assert Roll.model_validate_json(roll.model_dump_json()) == roll


def test_make_roll_refuses_both_kinds_of_opposition() -> None:
    with pytest.raises(RollError):
        make_roll(random.Random(1), RUTH, difficulty=1, opposition_effort=2)


@given(
    st.lists(st.sampled_from(["a", "b", "c"]), max_size=8),
    st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_paid_invokes_never_repeat_an_aspect(keys: list[str], paid: list[bool]) -> None:
    roll = fixed_roll([0, 0, 0, 0])
    for key, pays in zip(keys, paid, strict=False):
        payment = Payment.FATE_POINT if pays else Payment.FREE_INVOKE
        try:
            roll, _ = invoke(roll, aspect_key=key, payment=payment)
        except RollError:
            assert pays and key in roll.paid_aspect_keys()
    paid_keys = [i.aspect_key for i in roll.invokes if i.payment is Payment.FATE_POINT]
    assert len(paid_keys) == len(set(paid_keys))
    assert roll.effort() == 2 + 2 * len(roll.invokes)


def test_seed_example_ghoul_attack_against_charles_defence() -> None:
    # Ghoul: Fair (+2) Fight, [0][0][+][+] -> Great (+4). Charles: Good (+3) Athletics,
    # [0][0][0][-] -> Fair (+2). Charles must absorb two shifts.
    ghoul = Roll(roller=Roller(name="Ghoul"), skill="Fight", skill_rating=2, dice=[0, 0, 1, 1])
    charles = Roll(
        roller=Roller(name="Charles"), skill="Athletics", skill_rating=3, dice=[0, 0, 0, -1]
    )
    assert (ghoul.effort(), charles.effort()) == (4, 2)
    result = compare_rolls(ghoul, charles)
    assert result.shifts == 2 and result.kind.value == "success"
    # an invoke on the defending roll changes the comparison: each side has its own invokes
    charles, _ = apply_invoke(
        charles,
        random.Random(0),
        invoker_id=5,
        invoker_name="Charles",
        aspect_key="quick",
        aspect_name="Quick on My Feet",
        mode=InvokeMode.BONUS,
        payment=Payment.FREE_INVOKE,
    )
    assert compare_rolls(ghoul, charles).kind.value == "tie"


def test_seed_example_ethans_molotov() -> None:
    # Average (+1) Crafts, [0][+][+][+] -> Great (+4) against Good (+3): success.
    ethan = Roll(
        roller=Roller(name="Ethan"),
        skill="Crafts",
        skill_rating=1,
        dice=[0, 1, 1, 1],
        difficulty=3,
        action=Action.CREATE_ADVANTAGE,
    )
    result = ethan.result()
    assert result is not None and result.kind.value == "success" and result.shifts == 1
    assert ethan.extra_free_invokes() == 0  # no scale in play


def test_void_returns_free_invokes_once_and_refuses_a_resolved_advantage() -> None:
    from bot.fate.rolls import AdvantageTarget, FreeInvokeToReturn, void_roll

    roll, _ = invoke(fixed_roll([1, 1, 0, 0]))
    roll, _ = invoke(roll, aspect_key="a2", aspect_name="Quick", payment=Payment.FREE_INVOKE)
    voided, events = void_roll(roll)
    assert voided.voided and voided.closed
    returns = [e for e in events if isinstance(e, FreeInvokeToReturn)]
    assert [(e.aspect_key, e.holder_id) for e in returns] == [("a2", 100)]  # fate points: ledger
    with pytest.raises(RollError, match="already void"):
        void_roll(voided)
    applied = AdvantageTarget(text="Cornered", resolved=True)
    with pytest.raises(RollError, match="already on the scene"):
        void_roll(fixed_roll([0, 0, 0, 0], advantage=applied))
