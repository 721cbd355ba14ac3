"""Stress, consequences and conditions as one concept: a track of boxes.

Every kind of harm bookkeeping in Fate Condensed and DFC is a configuration of `Track`:
- Condensed stress: N boxes worth 1 shift each (`kind=stress`).
- Fate Core escalating stress: boxes worth 1, 2, 3, ... where one box absorbs up to its value.
- Consequences: one box that absorbs 2 / 4 / 6 and carries an aspect once marked.
- DFA/DFC conditions: fleeting / sticky / lasting, with one or two boxes.
- Mantle tracks: any of the above with custom names.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class TrackKind(StrEnum):
    STRESS = "stress"
    CONSEQUENCE = "consequence"
    CONDITION = "condition"


class Recovery(StrEnum):
    """How a marked track clears (DFA condition kinds; consequences are 'lasting'-like)."""

    FLEETING = "fleeting"  # clears at the end of the scene
    STICKY = "sticky"  # clears when something in the story fixes it
    LASTING = "lasting"  # needs recovery over time


class Box(BaseModel):
    value: int = 1
    marked: bool = False


class Track(BaseModel):
    """A named row of boxes.

    `harm` says which hits it may absorb: "physical", "mental", or None for either.
    `absorb` is the shifts one use of the track soaks (consequences: 2/4/6); for stress
    tracks each box absorbs its own `value`.
    """

    key: str
    label: str
    kind: TrackKind
    harm: str | None = None
    boxes: list[Box] = Field(default_factory=list)
    absorb: int = 0
    recovery: Recovery | None = None
    aspect: str | None = None  # the consequence/condition aspect written when marked
    healing: bool = False  # recovery has started (renamed consequence / lasting box cleared)
    escalating: bool = False  # Fate Core style: one box of value >= hit absorbs it all

    @property
    def marked_count(self) -> int:
        return sum(1 for b in self.boxes if b.marked)

    @property
    def is_free(self) -> bool:
        return not any(b.marked for b in self.boxes)

    def render_boxes(self) -> str:
        """Boxes drawn like the paper sheet: [1][x][3] style."""
        parts = []
        for b in self.boxes:
            parts.append("[x]" if b.marked else f"[{b.value}]")
        return "".join(parts)

    # Pure helpers: each returns a new Track and leaves this one untouched.

    def first_free_index(self) -> int | None:
        return next((i for i, b in enumerate(self.boxes) if not b.marked), None)

    def with_box(self, index: int, marked: bool) -> Track:
        """A copy with box `index` (0-based) marked or cleared."""
        copy = self.model_copy(deep=True)
        copy.boxes[index].marked = marked
        return copy

    def cleared(self) -> Track:
        """A copy with every box empty, no harm aspect and no recovery in progress."""
        copy = self.model_copy(deep=True)
        for box in copy.boxes:
            box.marked = False
        copy.aspect = None
        copy.healing = False
        return copy
