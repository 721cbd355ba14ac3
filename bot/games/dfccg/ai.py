"""A simple heuristic AI seat for solo play and simulation."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from bot.games.base import Action
from bot.games.dfccg.cards import ActionCard

if TYPE_CHECKING:
    from bot.games.dfccg.engine import DfccgEngine
    from bot.games.dfccg.state import DfState


def _card_of(engine: DfccgEngine, state: DfState, uid: str) -> ActionCard:
    ctx = engine._ctx(state, random.Random(0))
    ref = next(r for t in state.tableaux for r in t.hand if r.uid == uid)
    card = ctx.cards[ref.card_id]
    assert isinstance(card, ActionCard)
    return card


def _target_score(engine: DfccgEngine, state: DfState, option_id: str) -> float:
    """Prefer targets close to removal, and more targets at once."""
    ctx = engine._ctx(state, random.Random(0))
    score = 0.0
    for uid in option_id.split("+"):
        found = ctx.find(uid)
        if found is None:
            continue
        slot = found[2]
        card = ctx.book(slot)
        if card.value:
            score += 1 + slot.tokens / card.value
        else:
            score += 1
    return score


def choose(engine: DfccgEngine, state: DfState, seat: str, rng: random.Random) -> Action:
    """The action an AI seat takes now, decided from what that seat may see."""
    actions = engine.legal_actions(state, seat)
    if not actions:
        raise ValueError("no legal action for this seat")
    decision = state.decision
    if decision is not None:
        if decision.kind == "showdown":
            # Spread the Fate over the remaining rolls: the best tier within a fair share.
            share = state.available / max(1, len(state.showdown_queue))
            ctx = engine._ctx(state, random.Random(0))
            slot = ctx.find(state.showdown_pick or state.showdown_queue[0])
            showdown = ctx.cards[state.showdown_id]
            tiers = showdown.foe if slot and ctx.book(slot[2]).type == "foe" else showdown.case
            rolls = [a for a in actions if a.id != "pick"]
            fitting = [a for a in rolls if tiers[int(a.id[2:])].fate <= max(share, 0)]
            return (fitting or rolls[:1])[-1]
        if decision.kind == "named_type":
            return next(a for a in actions if a.id == "none")
        if decision.kind == "redraw":
            return next(a for a in actions if a.id == "keep")
        if decision.kind == "talent":
            return next((a for a in actions if a.id != "skip"), actions[0])
        if decision.kind == "choose":
            return max(actions, key=lambda a: _target_score(engine, state, a.id))
        return actions[0]
    by_kind: dict[str, list[Action]] = {}
    for action in actions:
        by_kind.setdefault(action.kind, []).append(action)
    plays = by_kind.get("play", [])
    if plays:

        def worth(action: Action) -> float:
            card = _card_of(engine, state, action.id.split(":")[1])
            value = card.value.maximum if card.value else 2.5
            if card.range.unlimited:
                value *= 2
            penalty = 0.5 if action.id.count(":") == 2 else 0.0  # keep a readied Talent
            return value - 0.6 * card.cost.base - penalty

        best = max(plays, key=worth)
        if worth(best) > -1.5 or state.available >= 6:
            return best
    if "stunt" in by_kind:
        return by_kind["stunt"][0]
    discards = by_kind.get("discard", [])
    if discards:
        return max(
            discards,
            key=lambda a: (
                _card_of(engine, state, a.id[2:]).discard.maximum
                - (_card_of(engine, state, a.id[2:]).value or _zero()).maximum * 0.5
                + rng.random() * 0.1
            ),
        )
    if all(not t.hand for t in state.tableaux):
        return next(a for a in actions if a.kind == "showdown")
    if "pass" in by_kind:
        return by_kind["pass"][0]
    return next(a for a in actions if a.kind in ("end", "showdown"))


def _zero():  # type: ignore[no-untyped-def]
    from bot.games.dfccg.cards import Dice

    return Dice(base=0)
