"""Random draws for the engines' hot paths: the very draws ``random.Random`` makes, quicker.

``random.Random.shuffle``, ``choice`` and ``randint`` go through ``_randbelow`` (and
``randint`` through ``randrange`` too) once per element or die: Python function calls each, a good part of an AI-only game's set-up and dice. These helpers make the
same ``getrandbits`` calls in the same order (so a seed gives the same game) without that
layer, for a plain ``random.Random`` only: any subclass (scripted dice in tests, the read-only
dice that refuse to roll) gets its own methods, unchanged.
"""

from __future__ import annotations

import random
from typing import Any

from bot.fate.dice import FATE_FACES


def shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)``."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    bits = rng.getrandbits
    for i, n, k in _spans(len(items)):
        j = bits(k)
        while j >= n:
            j = bits(k)
        items[i], items[j] = items[j], items[i]


_SPANS: dict[int, list[tuple[int, int, int]]] = {}


def _spans(size: int) -> list[tuple[int, int, int]]:
    """What ``shuffle`` asks at each step of a list of ``size`` items, in its order: the place
    ``i`` to fill, the ``n = i + 1`` places it may take from, and ``n.bit_length()`` (worked out
    once per size)."""
    spans = _SPANS.get(size)
    if spans is None:
        spans = _SPANS[size] = [(i, i + 1, (i + 1).bit_length()) for i in range(size - 1, 0, -1)]
    return spans


def fate_dice(rng: random.Random, count: int) -> list[int]:
    """``[rng.choice((-1, 0, 1)) for _ in range(count)]``: ``count`` Fate dice."""
    if type(rng) is not random.Random:
        choice = rng.choice
        return [choice(FATE_FACES) for _ in range(count)]
    bits = rng.getrandbits
    faces = []
    for _ in range(count):
        face = bits(2)
        while face == 3:
            face = bits(2)
        faces.append(face - 1)
    return faces


def d6(rng: random.Random) -> int:
    """``rng.randint(1, 6)``: for a plain ``random.Random`` that takes 3 random bits until they
    are below 6 (CPython's ``randrange`` for a width of 6)."""
    if type(rng) is not random.Random:
        return rng.randint(1, 6)
    bits = rng.getrandbits
    r = bits(3)
    while r >= 6:
        r = bits(3)
    return r + 1
