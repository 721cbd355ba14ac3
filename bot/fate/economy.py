"""Fate point rules: why points move, refresh, the GM pool, undo.

The ledger itself is the `fate_point_entry` table (bot/db/models/campaigns.py): every movement
with the balance it left, written by the service in the same transaction as the movement.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel

from bot.errors import RuleError


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
    VOID = "void"  # a roll taken back: what was paid on it returns


class FatePointChange(BaseModel):
    """An instruction for the service: move `delta` points for `who` and log it."""

    who: str
    delta: int
    reason: Reason
    note: str = ""


# --- rules ------------------------------------------------------------------------------


def refresh_delta(current: int, refresh: int) -> int:
    """Session start: raise to refresh only when below it; more than refresh is kept."""
    return max(0, refresh - current)


def gm_pool_at_scene_start(pc_count: int, carried: int = 0) -> int:
    """One point per PC in the scene, plus points carried in (conceded or hostile-invoked
    major NPCs, or a compel that ended the previous scene)."""
    if pc_count < 0 or carried < 0:
        raise EconomyError("Counts for the GM pool cannot be negative.")
    return pc_count + carried


def check_undo(balance: int, delta: int, what: str) -> None:
    """Undoing a movement applies its inverse, which may not leave a negative balance.

    `what` completes the sentence "Undoing <what> ...", e.g. "#12, which would leave Harry".
    """
    if balance - delta < 0:
        raise EconomyError(f"Undoing {what} below zero; those points were already spent.")
