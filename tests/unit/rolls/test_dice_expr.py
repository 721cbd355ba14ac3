import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.fate.dice_expr import (
    MAX_EXPRESSION_LENGTH,
    MAX_SIDES,
    MAX_TERMS,
    MAX_TOTAL_DICE,
    DiceExpressionError,
    looks_like_dice_expression,
    parse_dice_expression,
    roll_dice_expression,
)


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("2d6+1", "2d6+1"),
        ("4dF-1", "4dF-1"),
        ("4df", "4dF"),
        ("1d20", "1d20"),
        ("d20", "1d20"),
        ("3d6+2d4-1", "3d6+2d4-1"),
        (" 3d6 + 2 ", "3d6+2"),
        ("-1+1d6", "-1+1d6"),
        ("2D10", "2d10"),
    ],
)
def test_parses(text: str, normal: str) -> None:
    assert parse_dice_expression(text).text() == normal


def test_roll_totals_terms() -> None:
    result = roll_dice_expression("3d6+2d4-1", random.Random(3))
    assert len(result.terms) == 3
    six, four, constant = result.terms
    assert len(six.dice) == 3 and all(1 <= d <= 6 for d in six.dice)
    assert len(four.dice) == 2 and all(1 <= d <= 4 for d in four.dice)
    assert constant.dice == [] and constant.subtotal == -1
    assert result.total == sum(six.dice) + sum(four.dice) - 1
    assert result.breakdown().endswith(f"= {result.total}")


def test_fate_dice_term_uses_fate_faces() -> None:
    result = roll_dice_expression("4dF-1", random.Random(9))
    dice = result.terms[0].dice
    assert all(d in (-1, 0, 1) for d in dice)
    assert result.total == sum(dice) - 1
    assert "[" in result.terms[0].render()


def test_negative_dice_term_subtracts() -> None:
    result = roll_dice_expression("10-1d4", random.Random(1))
    assert result.total == 10 - result.terms[1].dice[0]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("101d6", str(MAX_TOTAL_DICE)),
        ("60d6+41d6", str(MAX_TOTAL_DICE)),
        ("1d1", f"{MAX_SIDES}"),
        ("1d1001", f"{MAX_SIDES}"),
        ("+".join(["1d6"] * (MAX_TERMS + 1)), str(MAX_TERMS)),
        ("1d6+" * 30 + "1", str(MAX_EXPRESSION_LENGTH)),
        ("0d6", "at least one"),
        ("2d6+1001", "1000"),
        ("", "dice expression"),
        ("5", "no dice"),
        ("2d6*2", "Could not read"),
        ("2d6 1", "Could not read"),
        ("d", "Could not read"),
        ("3 d6", "Could not read"),
        ("2d6++1", "Could not read"),
    ],
)
def test_limits_and_bad_input(text: str, fragment: str) -> None:
    with pytest.raises(DiceExpressionError) as info:
        parse_dice_expression(text)
    assert fragment in str(info.value)


def test_looks_like() -> None:
    assert looks_like_dice_expression("2d6+1")
    assert looks_like_dice_expression("4dF")
    assert not looks_like_dice_expression("Fight")


terms = st.one_of(
    st.builds(
        lambda n, s: f"{n}d{s}", st.integers(1, 9), st.sampled_from(["4", "6", "20", "F", "f"])
    ),
    st.integers(0, 99).map(str),
)


@given(st.lists(terms, min_size=1, max_size=MAX_TERMS), st.lists(st.sampled_from("+-")), st.data())
def test_random_valid_expressions_roll_within_bounds(
    pieces: list[str], signs: list[str], data: st.DataObject
) -> None:
    text = pieces[0]
    for index, piece in enumerate(pieces[1:]):
        text += (signs[index] if index < len(signs) else "+") + piece
    if not looks_like_dice_expression(text):
        text += "+1d6"
    try:
        expression = parse_dice_expression(text)
    except DiceExpressionError:
        # only the term limit can trip after appending a die
        assert len(pieces) == MAX_TERMS
        return
    seed = data.draw(st.integers())
    result = roll_dice_expression(text, random.Random(seed))
    low = high = 0
    for term in expression.terms:
        if term.sides is None:
            low += term.sign * term.constant
            high += term.sign * term.constant
            continue
        per_low, per_high = (-1, 1) if term.sides == "F" else (1, int(term.sides))
        bounds = (term.count * per_low, term.count * per_high)
        low += min(term.sign * b for b in bounds)
        high += max(term.sign * b for b in bounds)
    assert low <= result.total <= high
    assert parse_dice_expression(expression.text()) == expression


@given(st.text(max_size=120))
def test_arbitrary_text_never_crashes(text: str) -> None:
    try:
        parse_dice_expression(text)
    except DiceExpressionError:
        pass


def test_dice_expressions_are_matched_whole_and_skill_names_win() -> None:
    assert not looks_like_dice_expression("Wildfire")  # it holds "dF", but is a word
    assert not looks_like_dice_expression("Ride 2d6")
    assert looks_like_dice_expression(" 2d6 + 1 ")
    assert looks_like_dice_expression("d8")
    assert not looks_like_dice_expression("d8", ["Lore", "D8"])  # a skill called D8
    assert not looks_like_dice_expression("+2")  # a plain bonus, no die
