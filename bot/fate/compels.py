"""Compel offers: who offers, on which aspect, the complication, and what fate points move.

GM compels are free. A player compelling someone else pays one point when offering (refunded
if the offer is withdrawn). Accepting gives the target one point; refusing costs the target one,
which is impossible with none. An NPC target's points are the GM pool ("gm").
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, field_validator

from bot.errors import RuleError
from bot.fate.aspects import GM, Event
from bot.fate.economy import FatePointChange, Reason

MAX_COMPLICATION = 300


class CompelError(RuleError):
    """A compel action the rules do not allow."""


class CompelState(StrEnum):
    OFFERED = "offered"
    ACCEPTED = "accepted"
    REFUSED = "refused"
    WITHDRAWN = "withdrawn"


class CompelOffer(BaseModel):
    id: str
    offered_by: str  # "gm" or a character id
    target: str  # character id
    target_wallet: str  # whose fate points move for the target: the character id, or "gm" for NPCs
    aspect_id: str
    aspect_text: str
    complication: str
    state: CompelState = CompelState.OFFERED

    @field_validator("complication")
    @classmethod
    def _complication_fits(cls, value: str) -> str:
        cleaned = value.strip()
        if not cleaned:
            raise ValueError("Describe the complication the compel brings.")
        if len(cleaned) > MAX_COMPLICATION:
            raise ValueError(f"Keep the complication to {MAX_COMPLICATION} characters.")
        return cleaned

    @property
    def is_open(self) -> bool:
        return self.state is CompelState.OFFERED


def offer_compel(
    offer_id: str,
    *,
    offered_by: str,
    target: str,
    aspect_id: str,
    aspect_text: str,
    complication: str,
    target_is_npc: bool = False,
    offerer_points: int = 0,
) -> tuple[CompelOffer, list[FatePointChange], list[Event]]:
    """Open a compel offer. A player pays one point now; the GM pays nothing."""
    try:
        offer = CompelOffer(
            id=offer_id,
            offered_by=offered_by,
            target=target,
            target_wallet=GM if target_is_npc else target,
            aspect_id=aspect_id,
            aspect_text=aspect_text,
            complication=complication,
        )
    except ValueError as exc:
        message = exc.errors()[0]["msg"] if hasattr(exc, "errors") else str(exc)
        raise CompelError(str(message).removeprefix("Value error, ")) from None
    changes: list[FatePointChange] = []
    # a self-compel is free: the player is asking for the point, not paying for someone's trouble
    if offered_by != GM and offered_by != target:
        if offerer_points < 1:
            raise CompelError("Compelling someone else costs a fate point, and you have none.")
        changes.append(
            FatePointChange(who=offered_by, delta=-1, reason=Reason.COMPEL_OFFERED, note=offer_id)
        )
    return (
        offer,
        changes,
        [Event(kind="compel_offered", text=f"Compel offered on {offer.aspect_text}.", who=target)],
    )


def _answerable(offer: CompelOffer) -> None:
    if not offer.is_open:
        raise CompelError(f"That compel was already {offer.state.value}.")


def accept(offer: CompelOffer) -> tuple[CompelOffer, list[FatePointChange], list[Event]]:
    _answerable(offer)
    change = FatePointChange(
        who=offer.target_wallet, delta=1, reason=Reason.COMPEL_ACCEPTED, note=offer.id
    )
    return (
        offer.model_copy(update={"state": CompelState.ACCEPTED}),
        [change],
        [Event(kind="compel_accepted", text="Compel accepted: +1 fate point.", who=offer.target)],
    )


def refuse(
    offer: CompelOffer, target_points: int
) -> tuple[CompelOffer, list[FatePointChange], list[Event]]:
    """Refusing costs one point; with none, the compel must be accepted."""
    _answerable(offer)
    if target_points < 1:
        raise CompelError(
            "Refusing a compel costs a fate point and there are none; accept it instead."
        )
    change = FatePointChange(
        who=offer.target_wallet, delta=-1, reason=Reason.COMPEL_REFUSED, note=offer.id
    )
    return (
        offer.model_copy(update={"state": CompelState.REFUSED}),
        [change],
        [Event(kind="compel_refused", text="Compel refused: -1 fate point.", who=offer.target)],
    )


def withdraw(offer: CompelOffer, by: str) -> tuple[CompelOffer, list[FatePointChange], list[Event]]:
    """The offerer (or the GM) takes the offer back; a player's point is refunded."""
    _answerable(offer)
    if by not in (offer.offered_by, GM):
        raise CompelError("Only whoever offered the compel, or the GM, can withdraw it.")
    changes = []
    if offer.offered_by not in (GM, offer.target):
        changes.append(
            FatePointChange(
                who=offer.offered_by, delta=1, reason=Reason.COMPEL_WITHDRAWN, note=offer.id
            )
        )
    return (
        offer.model_copy(update={"state": CompelState.WITHDRAWN}),
        changes,
        [Event(kind="compel_withdrawn", text="Compel withdrawn.", who=offer.target)],
    )


def can_answer(offer: CompelOffer, user_character: str | None, is_gm: bool) -> bool:
    """Who may press accept/refuse: the target's player, or the GM for NPC targets."""
    if offer.target_wallet == GM:
        return is_gm
    return user_character == offer.target
