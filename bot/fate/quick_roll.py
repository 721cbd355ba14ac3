"""A roll that needs no campaign: dice (4dF unless told otherwise) plus a modifier, against an
optional difficulty. It is what /roll does where the bot has no table (a DM, a server that did
not add it): everything it knows is in its arguments, and its result is the whole record.
"""

from __future__ import annotations

import random

from pydantic import BaseModel, ConfigDict

from bot.errors import RuleError
from bot.fate.dice_expr import (
    DiceExpressionResult,
    looks_like_dice_expression,
    parse_dice_expression,
    roll_expression,
)
from bot.fate.ladder import parse_rating
from bot.fate.outcomes import Outcome, outcome

FOUR_FATE_DICE = "4dF"
MAX_MODIFIER = 20  # the same bound as /roll's modifier option
NEEDS_A_TABLE = (
    "Skills belong to a character, and characters live on a server that added Fate Table. "
    "Here give a number like +2 or dice like 4dF+2."
)


class QuickRoll(BaseModel):
    model_config = ConfigDict(frozen=True)

    dice: DiceExpressionResult
    modifier: int = 0
    difficulty: int | None = None

    @property
    def fate_dice_only(self) -> bool:
        """4dF-style dice, where the total reads on the ladder and outcomes apply."""
        return self.dice.fate_dice_only

    @property
    def total(self) -> int:
        return self.dice.total + self.modifier

    def result(self) -> Outcome | None:
        return None if self.difficulty is None else outcome(self.total, self.difficulty)


def parse_bonus(text: str) -> int:
    """A bare modifier such as "+2", "-1" or "3"; anything else is a skill name, which needs
    a character (and so a server with the bot)."""
    cleaned = text.strip().replace(" ", "")
    try:
        value = int(cleaned)
    except ValueError:
        raise RuleError(NEEDS_A_TABLE) from None
    if abs(value) > MAX_MODIFIER:
        raise RuleError(f"Keep the modifier between -{MAX_MODIFIER} and +{MAX_MODIFIER}.")
    return value


def parse_difficulty(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return parse_rating(text)
    except ValueError as error:
        raise RuleError(str(error)) from None


def quick_roll(
    rng: random.Random,
    *,
    skill: str | None = None,
    expression: str | None = None,
    modifier: int = 0,
    difficulty: str | None = None,
) -> QuickRoll:
    """`skill` may be a bare modifier or a dice expression (what people type into /roll)."""
    if skill is not None and looks_like_dice_expression(skill):
        if expression is not None:
            raise RuleError("Give either dice in `skill` or an `expression`, not both.")
        expression, skill = skill, None
    bonus = parse_bonus(skill) if skill is not None else 0
    dice = roll_expression(parse_dice_expression(expression or FOUR_FATE_DICE), rng)
    return QuickRoll(dice=dice, modifier=bonus + modifier, difficulty=parse_difficulty(difficulty))
