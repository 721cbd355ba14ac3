"""The rolled action a conflict waits on is a tagged union (issue 14, item 2): one model per
kind, told apart by `kind` in the stored JSON, and rows written before the split still load."""

from __future__ import annotations

import random

from pydantic import TypeAdapter

from bot.fate.rolls import Roller, make_roll
from bot.services.conflict_state import (
    PendingAction,
    PendingAdvantage,
    PendingMove,
    PendingOvercome,
)

PENDING: TypeAdapter[PendingAction] = TypeAdapter(PendingAction)


def _roll() -> dict[str, object]:
    roll, _ = make_roll(random.Random(3), Roller(name="Harry"), skill="Athletics", difficulty=2)
    return roll.model_dump(mode="json")


def test_each_kind_loads_as_its_own_model() -> None:
    for kind, model in (
        ("overcome", PendingOvercome),
        ("advantage", PendingAdvantage),
        ("move", PendingMove),
    ):
        loaded = PENDING.validate_python({"kind": kind, "actor": "1", "roll": _roll(), "zone": "Z"})
        assert type(loaded) is model and loaded.kind == kind


def test_a_row_written_with_the_old_flat_shape_still_loads() -> None:
    old = {
        "kind": "move",
        "actor": "7",
        "roll": _roll(),
        "aspect_text": "",
        "aspect_key": "",
        "aspect_name": "",
        "zone": "Rooftop",
    }
    loaded = PENDING.validate_python(old)
    assert isinstance(loaded, PendingMove) and loaded.zone == "Rooftop" and loaded.actor == "7"
    again = PENDING.validate_json(PENDING.dump_json(loaded))
    assert again == loaded
