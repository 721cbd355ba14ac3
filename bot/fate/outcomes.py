"""The four outcomes of a roll, measured in shifts against a difficulty or opposition."""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict


class OutcomeKind(Enum):
    FAIL = "fail"
    TIE = "tie"
    SUCCESS = "success"
    SUCCESS_WITH_STYLE = "success_with_style"

    @property
    def label(self) -> str:
        return _LABELS[self]


_LABELS = {
    OutcomeKind.FAIL: "Fail",
    OutcomeKind.TIE: "Tie",
    OutcomeKind.SUCCESS: "Success",
    OutcomeKind.SUCCESS_WITH_STYLE: "Success with style",
}

STYLE_SHIFTS = 3  # three or more shifts over the target is a success with style


class Outcome(BaseModel):
    model_config = ConfigDict(frozen=True)

    effort: int
    opposition: int
    shifts: int
    kind: OutcomeKind

    @property
    def succeeded(self) -> bool:
        return self.kind in (OutcomeKind.SUCCESS, OutcomeKind.SUCCESS_WITH_STYLE)


def kind_for_shifts(shifts: int) -> OutcomeKind:
    if shifts < 0:
        return OutcomeKind.FAIL
    if shifts == 0:
        return OutcomeKind.TIE
    if shifts < STYLE_SHIFTS:
        return OutcomeKind.SUCCESS
    return OutcomeKind.SUCCESS_WITH_STYLE


def outcome(effort: int, opposition: int) -> Outcome:
    """Compare an effort with a difficulty (or an opposing effort)."""
    shifts = effort - opposition
    return Outcome(
        effort=effort, opposition=opposition, shifts=shifts, kind=kind_for_shifts(shifts)
    )
