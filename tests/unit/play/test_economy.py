from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.errors import RuleError
from bot.fate.economy import check_undo, gm_pool_at_scene_start, refresh_delta


def test_refresh_only_raises_to_refresh() -> None:
    assert refresh_delta(1, 3) == 2
    assert refresh_delta(3, 3) == 0
    assert refresh_delta(5, 3) == 0  # more than refresh is kept


def test_gm_pool_alice_westforth_example() -> None:
    # Four PCs, and Alice conceded earlier after a moderate consequence: 1 + 1 carried.
    assert gm_pool_at_scene_start(4, carried=2) == 6
    with pytest.raises(RuleError):
        gm_pool_at_scene_start(-1)


@given(st.integers(0, 20), st.integers(-10, 10))
def test_undo_never_leaves_a_negative_balance(balance: int, delta: int) -> None:
    if balance - delta < 0:
        with pytest.raises(RuleError, match="below zero"):
            check_undo(balance, delta, "#3 would leave Harry")
    else:
        check_undo(balance, delta, "#3 would leave Harry")
