from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.errors import RuleError
from bot.fate.economy import (
    GM,
    Ledger,
    Reason,
    apply_entry,
    gm_compel_cost,
    gm_pool_at_scene_start,
    post,
    recent,
    refresh_delta,
    session_refresh,
    spend,
    undo_last,
)

NOW = datetime(2024, 5, 1, tzinfo=UTC)


def test_refresh_only_raises_to_refresh() -> None:
    assert refresh_delta(1, 3) == 2
    assert refresh_delta(3, 3) == 0
    assert refresh_delta(5, 3) == 0  # more than refresh is kept
    changes = session_refresh({"ruth": (0, 3), "ethan": (4, 3), "cass": (2, 3)})
    assert {(c.who, c.delta) for c in changes} == {("ruth", 3), ("cass", 1)}
    assert all(c.reason is Reason.REFRESH for c in changes)


def test_gm_pool_alice_westforth_example() -> None:
    # Four PCs, and Alice conceded earlier after a moderate consequence: 1 + 1 carried.
    assert gm_pool_at_scene_start(4, carried=2) == 6
    assert gm_compel_cost() == 0
    with pytest.raises(RuleError):
        gm_pool_at_scene_start(-1)


def test_spend_needs_a_point() -> None:
    assert spend(GM, 1, Reason.COMPEL_REFUSED).delta == -1
    with pytest.raises(RuleError, match="GM pool"):
        spend(GM, 0, Reason.INVOKE)
    with pytest.raises(RuleError, match="You are out"):
        spend("ruth", 0, Reason.INVOKE)


def test_post_and_undo() -> None:
    ledger, entry = post(
        Ledger(), who="ruth", delta=-1, reason=Reason.INVOKE, balance_before=3, at=NOW
    )
    assert entry.balance_after == 2
    with pytest.raises(RuleError):
        post(ledger, who="ruth", delta=-3, reason=Reason.INVOKE, balance_before=2, at=NOW)
    ledger, inverse = undo_last(ledger, {"ruth": 2}, NOW)
    assert inverse.delta == 1 and inverse.undoes == entry.seq and inverse.balance_after == 3
    with pytest.raises(RuleError, match="nothing|no fate point"):
        undo_last(ledger, {"ruth": 3}, NOW)
    assert recent(ledger, "ruth")[0].reason is Reason.UNDO


def test_undo_cannot_drive_negative() -> None:
    ledger, _ = post(Ledger(), who="ruth", delta=2, reason=Reason.GM_EDIT, balance_before=0, at=NOW)
    with pytest.raises(RuleError, match="negative"):
        undo_last(ledger, {"ruth": 1}, NOW)


@given(
    moves=st.lists(
        st.tuples(st.sampled_from(["a", "b", GM]), st.integers(min_value=-3, max_value=3)),
        max_size=25,
    ),
    undos=st.integers(min_value=0, max_value=30),
)
def test_undo_restores_balances(moves: list[tuple[str, int]], undos: int) -> None:
    ledger = Ledger()
    balances: dict[str, int] = {"a": 3, "b": 3, GM: 2}
    history = [dict(balances)]
    for who, delta in moves:
        if delta == 0 or balances[who] + delta < 0:
            continue
        ledger, entry = post(
            ledger,
            who=who,
            delta=delta,
            reason=Reason.GM_EDIT,
            balance_before=balances[who],
            at=NOW,
        )
        balances = apply_entry(balances, entry)
        history.append(dict(balances))
    for _ in range(min(undos, len(history) - 1)):
        ledger, inverse = undo_last(ledger, balances, NOW)
        balances = apply_entry(balances, inverse)
        history.pop()
        assert balances == history[-1]
    rt = Ledger.model_validate_json(ledger.model_dump_json())
    assert rt == ledger
