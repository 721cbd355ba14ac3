from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.fate.ladder import adjective, describe, parse_rating
from bot.permissions import is_gm


@pytest.mark.parametrize(
    ("rating", "word"),
    [
        (8, "Legendary"),
        (6, "Fantastic"),
        (4, "Great"),
        (2, "Fair"),
        (1, "Average"),
        (0, "Mediocre"),
        (-1, "Poor"),
        (-2, "Terrible"),
        (-4, "Horrifying"),
        (10, "Legendary+2"),
        (-6, "Horrifying-2"),
    ],
)
def test_adjectives(rating: int, word: str) -> None:
    assert adjective(rating) == word


@given(st.integers(min_value=-50, max_value=50))
def test_every_rating_round_trips_through_its_word(rating: int) -> None:
    assert parse_rating(adjective(rating)) == rating
    assert parse_rating(f"{rating:+d}") == rating


def test_describe_and_bad_input() -> None:
    assert describe(3) == "Good (+3)"
    assert parse_rating("Good (+3)") == 3
    with pytest.raises(ValueError, match="ladder word"):
        parse_rating("splendid")


def test_gm_rules() -> None:
    assert is_gm(is_admin=True, role_ids=[], role_names=[], configured_role_id=5)
    assert is_gm(is_admin=False, role_ids=[1], role_names=["Game Master"], configured_role_id=None)
    assert is_gm(is_admin=False, role_ids=[1], role_names=["gm"], configured_role_id=None)
    assert not is_gm(is_admin=False, role_ids=[1], role_names=["GM"], configured_role_id=5)
    assert is_gm(is_admin=False, role_ids=[5], role_names=["Storyteller"], configured_role_id=5)
    assert not is_gm(is_admin=False, role_ids=[], role_names=["Players"], configured_role_id=None)
