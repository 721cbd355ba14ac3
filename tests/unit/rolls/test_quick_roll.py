"""The roll that needs no table: bare modifiers, dice expressions, ladder words, outcomes."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.errors import RuleError
from bot.fate.outcomes import OutcomeKind
from bot.fate.quick_roll import NEEDS_A_TABLE, parse_bonus, quick_roll
from bot.ui.rolls import quick_roll_embed


class Dice(random.Random):
    """Fate dice faces in order (-1, 0, +1), for exact worked examples."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def choice(self, seq):  # type: ignore[no-untyped-def, override]
        return self.faces.pop(0)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def test_four_fate_dice_plus_a_bare_modifier_against_a_ladder_word() -> None:
    # [+][+][0][-] = +1, +2 from the skill text, +1 modifier: +4 Great against Fair (+2).
    roll = quick_roll(Dice([1, 1, 0, -1]), skill="+2", modifier=1, difficulty="Fair")
    assert roll.dice.total == 1 and roll.total == 4
    result = roll.result()
    assert result is not None and result.shifts == 2 and result.kind is OutcomeKind.SUCCESS


def test_three_shifts_is_success_with_style_and_mediocre_counts() -> None:
    roll = quick_roll(Dice([1, 1, 1, 0]), skill="0", difficulty="Mediocre")
    result = roll.result()
    assert result is not None and result.kind is OutcomeKind.SUCCESS_WITH_STYLE


def test_dice_in_the_skill_box_and_non_fate_dice() -> None:
    fate = quick_roll(Dice([0, 0, -1, -1]), skill="4dF+2")
    assert fate.fate_dice_only and fate.total == 0 and fate.result() is None
    d6 = quick_roll(Dice([3, 5]), expression="2d6+1")
    assert not d6.fate_dice_only and d6.total == 9
    embed = quick_roll_embed("Ann", d6, "damage")
    assert embed.title == "Ann rolls 2d6+1"
    assert [f.value for f in embed.fields if f.name == "Total"] == ["**9**"]


def test_what_the_user_is_told() -> None:
    with pytest.raises(RuleError, match="characters live on a server"):
        parse_bonus("Athletics")
    assert NEEDS_A_TABLE.endswith("4dF+2.")
    with pytest.raises(RuleError, match="between -20 and \\+20"):
        parse_bonus("+21")
    with pytest.raises(RuleError, match="not both"):
        quick_roll(random.Random(1), skill="4dF", expression="2d6")
    with pytest.raises(RuleError):
        quick_roll(random.Random(1), difficulty="Huge")


@given(st.integers(-20, 20), st.integers(-8, 8), st.integers(0, 2**32))
def test_the_total_is_dice_plus_modifiers(bonus: int, difficulty: int, seed: int) -> None:
    roll = quick_roll(random.Random(seed), skill=f"{bonus:+d}", difficulty=str(difficulty))
    assert -4 <= roll.dice.total <= 4 and roll.total == roll.dice.total + bonus
    result = roll.result()
    assert result is not None and result.shifts == roll.total - difficulty
