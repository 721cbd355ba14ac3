"""Dreamwars tests: one d6 rolled equal to or under a value.

A natural 1 always succeeds and a natural 6 always fails, but a value of 0 or less fails
whatever the die says. A test may be re-rolled once; a rule that allows re-rolling failures
and one that forces re-rolling successes cancel out.
"""

from __future__ import annotations

import random

from bot.games.draws import d6

NATURAL_SUCCESS = 1
NATURAL_FAILURE = 6
MALFUNCTION = frozenset({6})
PROTOTYPE_MALFUNCTION = frozenset({4, 5, 6})


def passes(natural: int, value: int) -> bool:
    """Whether a die showing ``natural`` passes a test against ``value``."""
    if value <= 0:
        return False
    if natural == NATURAL_SUCCESS:
        return True
    if natural == NATURAL_FAILURE:
        return False
    return natural <= value


class Roll:
    """One resolved test: the value tested, the die (and the first die if re-rolled).
    (Slots, not a NamedTuple: made and read at every test, and a slot is quicker to read.)"""

    __slots__ = ("value", "natural", "success", "first")

    def __init__(self, value: int, natural: int, success: bool, first: int | None = None) -> None:
        self.value = value
        self.natural = natural
        self.success = success
        self.first = first  # the die before a re-roll

    def shown(self) -> str:
        dice = f"{self.first}, re-rolled {self.natural}" if self.first else str(self.natural)
        verdict = "success" if self.success else "failure"
        return f"target {max(self.value, 0)}, rolled {dice}: {verdict}"


def roll_test(
    value: int,
    rng: random.Random,
    *,
    reroll_failed: bool = False,
    reroll_success: bool = False,
) -> Roll:
    """Roll one test. The re-roll's result stands even if it is worse."""
    if reroll_failed and reroll_success:
        reroll_failed = reroll_success = False
    natural = d6(rng)
    # passes(natural, value), inline: a test is rolled at most steps
    success = (
        value > 0
        and natural != NATURAL_FAILURE
        and (natural == NATURAL_SUCCESS or natural <= value)
    )
    if (success and reroll_success) or (not success and reroll_failed and value > 0):
        again = d6(rng)
        return Roll(value, again, passes(again, value), first=natural)
    return Roll(value, natural, success)


def malfunctions(roll: Roll, *, prototype: bool, on_success: bool) -> bool:
    """Critical Malfunction: a failed natural 6 (a Prototype: a natural 4, 5 or 6, also on a
    success when ``on_success``) discards the Tech Item after its use."""
    faces = PROTOTYPE_MALFUNCTION if prototype else MALFUNCTION
    if roll.natural not in faces:
        return False
    return not roll.success or (prototype and on_success)


def roll_off(count: int, rng: random.Random) -> int:
    """Index of the one who rolls highest among ``count``; ties roll again."""
    contenders = list(range(count))
    while len(contenders) > 1:
        rolls = [(d6(rng), i) for i in contenders]
        top = max(r for r, _ in rolls)
        contenders = [i for r, i in rolls if r == top]
    return contenders[0]
