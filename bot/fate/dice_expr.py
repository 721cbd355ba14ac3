"""General dice expressions such as "2d6+1", "4dF-1", "1d20" or "3d6+2d4-1".

Grammar (case-insensitive, spaces allowed around + and -):
    expression := ["+" | "-"] term (("+" | "-") term)*
    term       := [count] "d" (sides | "F") | number
The limits keep one roll cheap and its message short; each error names the limit it hit.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from bot.errors import RuleError
from bot.fate.dice import fate_symbols, roll_fate_dice

MAX_EXPRESSION_LENGTH = 100
MAX_TERMS = 10
MAX_TOTAL_DICE = 100
MIN_SIDES = 2
MAX_SIDES = 1000
MAX_CONSTANT = 1000
FATE_SIDES = "F"

_TERM = re.compile(r"([+-])?(?:(\d*)[dD](\d+|[fF])|(\d+))")


class DiceExpressionError(RuleError):
    """The dice expression cannot be parsed or breaks a limit."""


class DiceTerm(BaseModel):
    """One signed piece of an expression: some dice, or a constant when `sides` is None."""

    model_config = ConfigDict(frozen=True)

    sign: int = 1
    count: int = 0
    sides: int | str | None = None  # an int, "F" for Fate dice, None for a constant
    constant: int = 0

    @property
    def is_dice(self) -> bool:
        return self.sides is not None

    def text(self) -> str:
        body = f"{self.count}d{self.sides}" if self.is_dice else str(self.constant)
        return ("-" if self.sign < 0 else "+") + body


class DiceExpression(BaseModel):
    model_config = ConfigDict(frozen=True)

    terms: tuple[DiceTerm, ...]

    @property
    def total_dice(self) -> int:
        return sum(t.count for t in self.terms if t.is_dice)

    def text(self) -> str:
        joined = "".join(t.text() for t in self.terms)
        return joined[1:] if joined.startswith("+") else joined


class RolledTerm(BaseModel):
    term: DiceTerm
    dice: list[int]
    subtotal: int  # with the term's sign applied

    def render(self) -> str:
        if not self.term.is_dice:
            return self.term.text()
        sign = "-" if self.term.sign < 0 else "+"
        if self.term.sides == FATE_SIDES:
            faces = fate_symbols(self.dice)
        else:
            faces = "[" + ", ".join(str(d) for d in self.dice) + "]"
        return f"{sign}{self.term.count}d{self.term.sides} {faces}"


class DiceExpressionResult(BaseModel):
    expression: DiceExpression
    terms: list[RolledTerm]
    total: int

    @property
    def fate_dice_only(self) -> bool:
        """Only Fate dice (and constants), where the total reads on the ladder."""
        return all(t.sides in (None, FATE_SIDES) for t in self.expression.terms)

    def breakdown(self) -> str:
        """ "2d6 [3, 5] +1 = 9" style, plain text."""
        text = " ".join(t.render() for t in self.terms).lstrip("+")
        return f"{text} = {self.total}"


_ANY_TERM = r"(?:\d*[dD](?:\d+|[fF])|\d+)"
_WHOLE = re.compile(rf"[+-]?{_ANY_TERM}(?:[+-]{_ANY_TERM})*")


def looks_like_dice_expression(text: str, skill_names: Iterable[str] = ()) -> bool:
    """True when the whole text reads as dice terms with at least one die ("2d6+1", "4dF"),
    so /roll routes it here; "Wildfire" (which holds "dF") does not. A name in `skill_names`
    (the roller's skills) is a skill whatever it looks like: skill names win."""
    compact = re.sub(r"\s*([+-])\s*", r"\1", text.strip())
    if _WHOLE.fullmatch(compact) is None or not re.search(r"[dD]", compact):
        return False
    wanted = " ".join(text.split()).casefold()
    return all(" ".join(name.split()).casefold() != wanted for name in skill_names)


def parse_dice_expression(text: str) -> DiceExpression:
    """Parse and check limits; raises DiceExpressionError with a sentence for the user."""
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise DiceExpressionError(
            f"That dice expression is {len(text)} characters long; "
            f"keep it to at most {MAX_EXPRESSION_LENGTH}."
        )
    # Spaces may sit around + and -, never inside a term ("2d6 1" is not "2d61").
    compact = re.sub(r"\s*([+-])\s*", r"\1", text.strip())
    if not compact:
        raise DiceExpressionError("Give a dice expression such as 2d6+1, 4dF-1 or 1d20.")
    terms: list[DiceTerm] = []
    position = 0
    while position < len(compact):
        match = _TERM.match(compact, position)
        if match is None or (terms and match.group(1) is None):
            shown = compact[position : position + 10]
            raise DiceExpressionError(
                f"Could not read the dice expression at '{shown}'. "
                "Write terms like 2d6, 4dF or 3 joined by + or -, e.g. 3d6+2d4-1."
            )
        terms.append(_term_from_match(match))
        position = match.end()
        if len(terms) > MAX_TERMS:
            raise DiceExpressionError(
                f"That expression has more than {MAX_TERMS} terms; use at most {MAX_TERMS}."
            )
    expression = DiceExpression(terms=tuple(terms))
    if not any(t.is_dice for t in expression.terms):
        raise DiceExpressionError("The expression rolls no dice; add a term like 1d20 or 4dF.")
    if expression.total_dice > MAX_TOTAL_DICE:
        raise DiceExpressionError(
            f"That is {expression.total_dice} dice; roll at most {MAX_TOTAL_DICE} dice at once."
        )
    return expression


def _term_from_match(match: re.Match[str]) -> DiceTerm:
    sign = -1 if match.group(1) == "-" else 1
    count_text, sides_text, constant_text = match.group(2), match.group(3), match.group(4)
    if constant_text is not None:
        constant = int(constant_text)
        if constant > MAX_CONSTANT:
            raise DiceExpressionError(
                f"The number {constant} is too big; modifiers go up to {MAX_CONSTANT}."
            )
        return DiceTerm(sign=sign, constant=constant)
    count = int(count_text) if count_text else 1
    if count < 1:
        raise DiceExpressionError("Roll at least one die per term (for example 1d6, not 0d6).")
    if count > MAX_TOTAL_DICE:
        raise DiceExpressionError(
            f"That is {count} dice; roll at most {MAX_TOTAL_DICE} dice at once."
        )
    if sides_text.upper() == FATE_SIDES:
        return DiceTerm(sign=sign, count=count, sides=FATE_SIDES)
    sides = int(sides_text)
    if not MIN_SIDES <= sides <= MAX_SIDES:
        raise DiceExpressionError(
            f"A d{sides} is not allowed; dice have {MIN_SIDES} to {MAX_SIDES} sides (or use dF)."
        )
    return DiceTerm(sign=sign, count=count, sides=sides)


def roll_expression(expression: DiceExpression, rng: random.Random) -> DiceExpressionResult:
    rolled: list[RolledTerm] = []
    for term in expression.terms:
        if term.sides is None:
            dice: list[int] = []
            value = term.constant
        elif term.sides == FATE_SIDES:
            dice = roll_fate_dice(rng, term.count)
            value = sum(dice)
        else:
            dice = [rng.randint(1, int(term.sides)) for _ in range(term.count)]
            value = sum(dice)
        rolled.append(RolledTerm(term=term, dice=dice, subtotal=term.sign * value))
    return DiceExpressionResult(
        expression=expression, terms=rolled, total=sum(t.subtotal for t in rolled)
    )


def roll_dice_expression(text: str, rng: random.Random) -> DiceExpressionResult:
    """Parse and roll in one step."""
    return roll_expression(parse_dice_expression(text), rng)
