import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.fate.outcomes import OutcomeKind, outcome


@pytest.mark.parametrize(
    ("effort", "opposition", "shifts", "kind"),
    [
        (1, 2, -1, "fail"),
        (-3, 4, -7, "fail"),
        (2, 2, 0, "tie"),
        (0, 0, 0, "tie"),  # Mediocre (+0) is a valid difficulty
        (3, 2, 1, "success"),
        (4, 2, 2, "success"),
        (5, 2, 3, "success_with_style"),
        (10, 2, 8, "success_with_style"),
        (-1, -4, 3, "success_with_style"),
    ],
)
def test_every_boundary(effort: int, opposition: int, shifts: int, kind: str) -> None:
    result = outcome(effort, opposition)
    assert result.shifts == shifts
    assert result.kind.value == kind


def test_seed_examples() -> None:
    # Charles: [0][0][+][+] + Average (+1) Investigate = Good (+3) against Fair (+2): success
    assert outcome(2 + 1, 2).kind is OutcomeKind.SUCCESS
    # Ethan: [0][+][+][+] + Average (+1) Crafts = Great (+4) against Good (+3): success
    assert outcome(3 + 1, 3).kind is OutcomeKind.SUCCESS
    # Ruth's Fair (+2) punch against the corpse's [-][0][0][+] + Mediocre Athletics: 2 shifts
    assert outcome(2, 0).shifts == 2
    # The ghoul's Fantastic (+6) claw against Charles's Average (+1) defence: five shifts
    assert outcome(6, 1).shifts == 5


@given(st.integers(-50, 50), st.integers(-50, 50))
def test_kind_follows_shifts(effort: int, opposition: int) -> None:
    result = outcome(effort, opposition)
    assert result.shifts == effort - opposition
    assert result.succeeded == (result.shifts >= 1)
    assert (result.kind is OutcomeKind.SUCCESS_WITH_STYLE) == (result.shifts >= 3)


def test_round_trips_json() -> None:
    result = outcome(4, 1)
    assert type(result).model_validate_json(result.model_dump_json()) == result
    assert result.kind.label == "Success with style"
