"""The roll message stays inside Discord's limits whatever the table throws at it."""

from __future__ import annotations

import random

from bot.fate.rolls import InvokeMode, Payment, Roller, apply_invoke, make_roll
from bot.services.aspects_in_play import AspectInPlay
from bot.services.roll_base import PaymentOption, RollView, StuntOption
from bot.ui.common import EMBED_TOTAL_LIMIT
from bot.ui.custom_ids import PAYMENT_SELECT_TEMPLATE
from bot.ui.rolls import (
    aspect_picker,
    log_embed,
    payment_picker,
    roll_buttons,
    roll_embed,
    stunt_select,
)


def _view(roll, closed: bool = False) -> RollView:  # type: ignore[no-untyped-def]
    return RollView(
        id=123456789,
        channel_id=1,
        user_id=2,
        character_id=3,
        message_id=4,
        gm_channel_id=None,
        gm_message_id=None,
        opposes_id=None,
        hidden=False,
        closed=closed,
        version=7,
        roll=roll,
        stunts=tuple(StuntOption(i, "S" * 80, 2) for i in range(30)),
    )


def test_huge_roll_fits_and_buttons_go_when_closed() -> None:
    rng = random.Random(3)
    roll, _ = make_roll(
        rng,
        Roller(character_id=3, user_id=2, name="N" * 80),
        skill="Lore",
        skill_rating=4,
        difficulty=2,
        description="D" * 200,
    )
    for index in range(60):
        roll, _ = apply_invoke(
            roll,
            rng,
            invoker_id=2,
            invoker_name="I" * 80,
            aspect_key=f"k{index}",
            aspect_name="A" * 100,
            mode=InvokeMode.REROLL if index % 2 else InvokeMode.BONUS,
            payment=Payment.FREE_INVOKE,
        )
    embed = roll_embed(_view(roll))
    assert len(embed) <= EMBED_TOTAL_LIMIT
    assert all(len(f.value or "") <= 1024 for f in embed.fields)
    invokes = next(f.value or "" for f in embed.fields if f.name == "Invokes")
    assert invokes.startswith("… 45 earlier")
    assert (
        len(roll_buttons(_view(roll))) == 7
    )  # five on the first row; void and the GM's one button on the second
    assert roll_buttons(_view(roll, closed=True)) == []
    select = stunt_select(_view(roll))
    assert select is not None and len(select.options) == 25
    assert len(log_embed([_view(roll)] * 10)) <= EMBED_TOTAL_LIMIT


def test_pickers_respect_option_limits_and_custom_id_length() -> None:
    roll, _ = make_roll(random.Random(1), Roller(name="x"))
    aspects = [
        AspectInPlay(key=f"scene:{'9' * 50}:{i}", name="Z" * 200, owner="O" * 200)
        for i in range(25)
    ]
    _, spec = aspect_picker(_view(roll), aspects, InvokeMode.BONUS, False)
    assert len(spec.options) == 25
    assert all(len(o.label) <= 100 and len(o.description or "") <= 100 for o in spec.options)
    key = "k" * 60
    _, pay = payment_picker(
        _view(roll),
        AspectInPlay(key=key, name="n", owner="o"),
        [PaymentOption("fp:gm", "L" * 300)],
        InvokeMode.REROLL,
        True,
    )
    assert len(pay.custom_id) <= 100 and len(pay.options[0].label) <= 100
    import re

    match = re.fullmatch(PAYMENT_SELECT_TEMPLATE, pay.custom_id)
    assert match is not None and match["key"] == key and match["mode"] == "r"
