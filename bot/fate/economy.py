"""The fate point ledger: every movement of fate points, so it can be shown and undone.

Balances live on the characters (and the GM pool on the scene). The ledger records each
movement with the balance it left; the service applies the same delta to the real balance.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from bot.errors import RuleError

GM = "gm"
MAX_LEDGER_ENTRIES = 500  # older entries are dropped; undo only ever needs the recent ones


class EconomyError(RuleError):
    """A fate point movement the rules do not allow."""


class Reason(StrEnum):
    INVOKE = "invoke"
    HOSTILE_INVOKE = "hostile_invoke"
    COMPEL_ACCEPTED = "compel_accepted"
    COMPEL_REFUSED = "compel_refused"
    COMPEL_OFFERED = "compel_offered"  # a player pays to compel someone else
    COMPEL_WITHDRAWN = "compel_withdrawn"  # refund of an offer taken back
    CONCESSION = "concession"
    REFRESH = "refresh"
    HOSTILE_INVOKE_PAYOUT = "hostile_invoke_payout"
    STUNT = "stunt"
    SCENE_POOL = "scene_pool"  # the GM pool set at scene start
    GM_EDIT = "gm_edit"
    UNDO = "undo"


class FatePointChange(BaseModel):
    """An instruction for the service: move `delta` points for `who` and log it."""

    who: str
    delta: int
    reason: Reason
    note: str = ""


class LedgerEntry(BaseModel):
    seq: int
    who: str  # character id or "gm"
    delta: int
    reason: Reason
    note: str = ""
    at: datetime
    balance_after: int
    undoes: int | None = None  # seq of the entry this one reverses
    undone: bool = False


class Ledger(BaseModel):
    """One ledger per campaign."""

    entries: list[LedgerEntry] = Field(default_factory=list)
    next_seq: int = 1


def post(
    ledger: Ledger,
    *,
    who: str,
    delta: int,
    reason: Reason,
    balance_before: int,
    at: datetime,
    note: str = "",
) -> tuple[Ledger, LedgerEntry]:
    """Record a movement. Nobody can go below zero fate points."""
    if delta == 0:
        raise EconomyError("Move at least one fate point.")
    after = balance_before + delta
    if after < 0:
        raise EconomyError(
            f"That needs {-delta} fate point(s) but only {balance_before} are there."
        )
    entry = LedgerEntry(
        seq=ledger.next_seq,
        who=who,
        delta=delta,
        reason=reason,
        note=note[:200],
        at=at,
        balance_after=after,
    )
    entries = [*ledger.entries, entry][-MAX_LEDGER_ENTRIES:]
    return Ledger(entries=entries, next_seq=ledger.next_seq + 1), entry


def last_undoable(ledger: Ledger) -> LedgerEntry | None:
    for entry in reversed(ledger.entries):
        if entry.reason is not Reason.UNDO and not entry.undone:
            return entry
    return None


def undo_last(
    ledger: Ledger, balances: Mapping[str, int], at: datetime
) -> tuple[Ledger, LedgerEntry]:
    """Reverse the most recent movement not yet undone; returns the inverse entry.

    The service applies the inverse entry's delta to the real balance of `entry.who`.
    """
    target = last_undoable(ledger)
    if target is None:
        raise EconomyError("There is no fate point movement left to undo.")
    current = balances.get(target.who, 0)
    if current - target.delta < 0:
        raise EconomyError(
            "Undoing that would leave a negative balance; those points were already spent."
        )
    entries = [
        e.model_copy(update={"undone": True}) if e.seq == target.seq else e for e in ledger.entries
    ]
    inverse = LedgerEntry(
        seq=ledger.next_seq,
        who=target.who,
        delta=-target.delta,
        reason=Reason.UNDO,
        note=f"undo #{target.seq} ({target.reason.value})",
        at=at,
        balance_after=current - target.delta,
        undoes=target.seq,
    )
    return Ledger(
        entries=[*entries, inverse][-MAX_LEDGER_ENTRIES:], next_seq=ledger.next_seq + 1
    ), inverse


def apply_entry(balances: Mapping[str, int], entry: LedgerEntry) -> dict[str, int]:
    updated = dict(balances)
    updated[entry.who] = updated.get(entry.who, 0) + entry.delta
    return updated


def recent(ledger: Ledger, who: str | None = None, limit: int = 20) -> list[LedgerEntry]:
    """The newest entries first, optionally for one holder (for `/fp log`)."""
    picked = [e for e in reversed(ledger.entries) if who is None or e.who == who]
    return picked[:limit]


# --- rules ------------------------------------------------------------------------------


def refresh_delta(current: int, refresh: int) -> int:
    """Session start: raise to refresh only when below it; more than refresh is kept."""
    return max(0, refresh - current)


def session_refresh(points_and_refresh: Mapping[str, tuple[int, int]]) -> list[FatePointChange]:
    """Refresh changes for every PC: id -> (current fate points, refresh)."""
    changes = []
    for who, (current, refresh) in points_and_refresh.items():
        delta = refresh_delta(current, refresh)
        if delta:
            changes.append(FatePointChange(who=who, delta=delta, reason=Reason.REFRESH))
    return changes


def gm_pool_at_scene_start(pc_count: int, carried: int = 0) -> int:
    """One point per PC in the scene, plus points carried in (conceded or hostile-invoked
    major NPCs, or a compel that ended the previous scene)."""
    if pc_count < 0 or carried < 0:
        raise EconomyError("Counts for the GM pool cannot be negative.")
    return pc_count + carried


def spend(who: str, balance: int, reason: Reason, note: str = "") -> FatePointChange:
    """Paying one point to invoke, refuse a compel, or fuel a stunt (players and the GM pool)."""
    if balance < 1:
        owner = "The GM pool is" if who == GM else "You are"
        raise EconomyError(f"{owner} out of fate points. Use a free invoke or accept the compel.")
    return FatePointChange(who=who, delta=-1, reason=reason, note=note)


def gm_compel_cost() -> int:
    """GM compels are free: the GM's supply for compels is unlimited."""
    return 0
