import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.fate.dice import fate_symbols, roll_fate_dice

# Ways to make each 4dF sum from -4 to +4, out of 3**4 = 81.
EXACT_4DF = {-4: 1, -3: 4, -2: 10, -1: 16, 0: 19, 1: 16, 2: 10, 3: 4, 4: 1}


def test_exact_table_sums_to_81() -> None:
    assert sum(EXACT_4DF.values()) == 81


def test_4df_sums_match_exact_distribution_chi_square() -> None:
    rng = random.Random(20240404)
    samples = 162_000
    counts = Counter(sum(roll_fate_dice(rng)) for _ in range(samples))
    assert set(counts) <= set(EXACT_4DF)
    chi_square = 0.0
    for total, ways in EXACT_4DF.items():
        expected = samples * ways / 81
        chi_square += (counts[total] - expected) ** 2 / expected
    # 8 degrees of freedom: the 99.9th percentile is 26.12.
    assert chi_square < 26.12
    # and each frequency is within half a percentage point of the exact one
    for total, ways in EXACT_4DF.items():
        assert abs(counts[total] / samples - ways / 81) < 0.005


def test_faces_are_fair_individually() -> None:
    rng = random.Random(7)
    faces = Counter(roll_fate_dice(rng, 30_000))
    assert set(faces) == {-1, 0, 1}
    for face in (-1, 0, 1):
        assert abs(faces[face] / 30_000 - 1 / 3) < 0.01


def test_same_seed_same_dice() -> None:
    assert roll_fate_dice(random.Random(5)) == roll_fate_dice(random.Random(5))


@given(st.integers(min_value=0, max_value=50), st.integers())
def test_count_and_faces(count: int, seed: int) -> None:
    dice = roll_fate_dice(random.Random(seed), count)
    assert len(dice) == count
    assert all(d in (-1, 0, 1) for d in dice)


def test_negative_count_refused() -> None:
    with pytest.raises(ValueError):
        roll_fate_dice(random.Random(1), -1)


def test_symbols_follow_rulebook_notation() -> None:
    # The seed writes Ruth's punch as [-][-][0][0]
    assert fate_symbols([-1, -1, 0, 0]) == "[-][-][0][0]"
    assert fate_symbols([1, 0, -1, 1]) == "[+][0][-][+]"
    assert fate_symbols([]) == ""


def test_symbols_reject_non_fate_faces() -> None:
    with pytest.raises(ValueError):
        fate_symbols([2])
