"""Fate dice: each die shows -1, 0 or +1 with equal chance."""

from __future__ import annotations

import random
from collections.abc import Iterable

FATE_FACES: tuple[int, int, int] = (-1, 0, 1)
_SYMBOLS = {-1: "[-]", 0: "[0]", 1: "[+]"}


def roll_fate_dice(rng: random.Random, count: int = 4) -> list[int]:
    """Roll `count` Fate dice with the injected generator (4dF by default)."""
    if count < 0:
        raise ValueError("count must not be negative")
    return [rng.choice(FATE_FACES) for _ in range(count)]


def fate_symbols(dice: Iterable[int]) -> str:
    """Dice drawn the way the rulebook writes them: [+][-][0][0]."""
    parts = []
    for die in dice:
        if die not in _SYMBOLS:
            raise ValueError(f"{die} is not a Fate die face")
        parts.append(_SYMBOLS[die])
    return "".join(parts)
