"""A heuristic AI seat for solo play, AI seats and simulation.

It decides from what its seat may see (its own hand, the public table) through the rules'
queries (``Context``, read only, from ``reading``). The engine knows no AI: the package hands
it ``choose`` (bot/games/dfccg/__init__.py), so neither module imports the other.

What it weighs: a card's Hits or Clues against its cost now (never a variable cost it might not
be able to pay: that would start the Showdown), the Fate a discard really brings (no more than
the Spent pool holds) and which of its Talents does most, and in the Showdown how likely each
roll is to remove its card against what the Fate would do for the others.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

from bot.games.base import Move
from bot.games.dfccg.cards import ActionCard, AddTokens, GainFate, MoveCard
from bot.games.dfccg.context import Context, HandCard, probe_job
from bot.games.dfccg.state import CardRef, PlainDecision, PlainSlot, PlainState

FATE_WORTH = 0.6  # what one Fate is worth against one Hit or Clue, during play
PLAY_ANYWAY_FATE = 6  # with this much Fate available, the best play is made even if it is poor


class Table(Protocol):
    """What the AI asks of the engine."""

    def reading(self, state: PlainState) -> Context: ...

    def waits_for(self, state: PlainState, seat: str) -> bool: ...

    def moves(self, state: PlainState, seat: str, ctx: Context | None = None) -> list[Move]: ...

    # The parts of the active hand's turn, in the order ``moves`` lists them.
    def plays(
        self, state: PlainState, ctx: Context, fate: int
    ) -> list[tuple[CardRef, HandCard, str, int]]: ...

    def play_move(self, ctx: Context, play: tuple[CardRef, HandCard, str, int]) -> Move: ...

    def play_id(self, play: tuple[CardRef, HandCard, str, int]) -> str: ...

    def discard_id(self, ref: CardRef) -> str: ...

    def discard_move(self, state: PlainState, ref: CardRef, card: ActionCard) -> Move: ...

    def stunt_moves(self, state: PlainState, ctx: Context) -> list[Move]: ...


def choose(table: Table, state: PlainState, seat: str, rng: random.Random) -> Move:
    """The action an AI seat takes now, decided from what that seat may see."""
    ctx = table.reading(state)
    decision = state.decision
    if decision is None and state.phase == "play":
        tableau = state.tableaux[state.active]
        if seat == tableau.seat:
            move = _turn(table, ctx, state, rng, False)
            assert isinstance(move, Move)
            return move
    elif decision is not None and decision.options:
        # Weighed by option id, and only the chosen one made a Move (as ``moves`` would make
        # it: one per option).
        best = _option(table, ctx, state, seat, decision)
        return Move(best, decision.options[best][:80], decision.kind, False, decision.table)
    actions = table.moves(state, seat, ctx)
    if not actions:
        raise ValueError("no legal action for this seat")
    return next(a for a in actions if a.kind == "showdown")  # not its turn: only a proposal


def choose_id(table: Table, state: PlainState, seat: str, rng: random.Random) -> str:
    """``choose(...).id``, for an AI-only game: an answer to a decision is given by its id,
    without making its Move."""
    decision = state.decision
    if decision is not None and decision.options:  # (``_option``, inline: asked every step)
        ctx = table.reading(state)
        if not table.waits_for(state, seat):
            raise ValueError("no legal action for this seat")
        return _decide(ctx, state, decision.kind, list(decision.options))
    if decision is None and state.phase == "play" and seat == state.tableaux[state.active].seat:
        chosen = _turn(table, table.reading(state), state, rng, True)
        return chosen if isinstance(chosen, str) else chosen.id
    return choose(table, state, seat, rng).id


def _option(
    table: Table, ctx: Context, state: PlainState, seat: str, decision: PlainDecision
) -> str:
    """The option of ``decision`` the AI answers for ``seat`` (which must be waited for)."""
    if not table.waits_for(state, seat):
        raise ValueError("no legal action for this seat")
    return _decide(ctx, state, decision.kind, list(decision.options))


# -- decisions ---------------------------------------------------------------------------------
def _decide(ctx: Context, state: PlainState, kind: str, ids: list[str]) -> str:
    """The option a decision's AI takes, by id (the decision's options, in order)."""
    if kind == "choose":  # (the commonest kinds first)
        return ids[_best_target(ctx, [option.split("+") for option in ids])]
    if kind == "talent":
        best, top = ids[0], _talent_worth(ctx, state, ids[0])
        for option in ids[1:]:  # (``_best``, inline: a Talent is offered after most discards)
            worth = _talent_worth(ctx, state, option)
            if worth > top:
                best, top = option, worth
        return best
    if kind == "showdown":
        return _showdown_tier(ctx, state, ids)
    if kind == "showdown_pick":
        return _best(ids, [_removal_chance(ctx, i[3:], 0) for i in ids])
    if kind == "named_type":
        return "none" if "none" in ids else ids[0]
    if kind == "redraw":
        return "keep" if "keep" in ids else ids[0]
    if kind == "showdown_vote":
        return "yes" if "yes" in ids else ids[0]
    return ids[0]


def _best(ids: list[str], scores: list[float]) -> str:
    """The first id of the best score, as ``max(ids, key=...)`` gives it (without its call
    back into Python per item)."""
    best, top = ids[0], scores[0]
    for index in range(1, len(ids)):
        if scores[index] > top:
            best, top = ids[index], scores[index]
    return best


def _best_target(ctx: Context, groups: list[list[str]]) -> int:
    """The index of the first of the best target groups (a group: card uids, and a direction
    for a one-space move): prefer targets close to removal, and more targets at once. One
    loop, no call per option (a choice of targets follows nearly every play)."""
    where, values = ctx.where(), ctx.values
    best, top = 0, 0.0
    for index, group in enumerate(groups):
        score = 0.0
        for uid in group:
            found = where.get(uid)
            if found is None:
                continue
            slot = found[2]
            value = values[slot.card_id]
            score += 1 + (slot.tokens / value if value else 0)
        if index == 0 or score > top:
            best, top = index, score
    return best


class InPlaceAnswers:
    """The AI's answers to an AI-only game's target choices, Talent offers and Showdown choices,
    given where they arise (``Context.answers``): the same as ``choose_id`` gives to the
    decisions."""

    @staticmethod
    def target(ctx: Context, groups: list[list[str]]) -> list[str]:
        return groups[_best_target(ctx, groups)]

    @staticmethod
    def option(ctx: Context, kind: str, ids: list[str]) -> str:
        return _decide(ctx, ctx.s, kind, ids)

    @staticmethod
    def turn(table: Table, ctx: Context, rng: random.Random) -> str:
        chosen = _turn(table, ctx, ctx.s, rng, True)
        return chosen if isinstance(chosen, str) else chosen.id


ANSWERS = InPlaceAnswers()


def _talent_worth(ctx: Context, state: PlainState, option: str) -> float:
    """A Talent's use after a discard: a token or Fate now beats a move; skipping is last."""
    if option == "skip":
        return -1.0
    hero = ctx.heroes[option[2:]]
    if hero.talent_mode == "ready":
        return 0.7
    effect = hero.talent_effect
    if type(effect) is GainFate:
        job = probe_job(hero.talent, state.active, option[2:])
        return min(ctx.fate_amount(effect, job, roll=False), state.spent) * FATE_WORTH
    if type(effect) is AddTokens:
        return 1.0
    if type(effect) is MoveCard:
        return 0.6
    return 0.3


# -- a turn ------------------------------------------------------------------------------------
def _turn(
    table: Table, ctx: Context, state: PlainState, rng: random.Random, as_id: bool
) -> Move | str:
    """The active hand's move: the best play, else a Stunt, else the best discard, else the
    Showdown (every hand empty), a pass or the end. It asks for each kind of move only when
    the kinds before it gave none worth making. ``as_id``: a play or a discard is given by
    its id, without its Move."""
    # The plays whose highest cost is affordable (a roll above it would start the Showdown),
    # with their worth: Hits or Clues against the Fate they cost now; an unlimited Range
    # counts twice; a play that unreadies a Talent is worth a little less.
    best: tuple[CardRef, HandCard, str, int] | None = None
    top = 0.0  # the worth of ``best``
    active, available = state.active, state.available
    mods = ctx.cost_modifiers_or_none(active)
    last: HandCard | None = None
    worth = 0.0
    for play in table.plays(state, ctx, available):  # only those it can pay at their highest
        card = play[1]
        if card is not last:  # a card's plays come together (one per Range bonus)
            last = card
            value, cost, kind = _WORTHS.get(card) or _card_worth(card)
            if mods is not None:
                cost += mods[kind]
            worth = value - FATE_WORTH * cost
        # a play that unreadies a Talent is worth a little less (kept for later)
        weighed = worth - 0.5 if play[3] else worth
        if best is None or weighed > top:  # the first of the best, as max() gives it
            best, top = play, weighed
    if best is not None:
        rich = available >= PLAY_ANYWAY_FATE or state.spent == 0
        if top > -1.5 or rich:
            return table.play_id(best) if as_id else table.play_move(ctx, best)
    stunts = table.stunt_moves(state, ctx)
    if stunts:
        return stunts[0]
    hand = state.tableaux[active].hand
    if hand:  # the best discard: only its Move is made
        # (What the best Talent would bring after the discard is the same for every card, so
        # it is not weighed: the scores' order is the same without it.)
        spent, noise, hands = state.spent, rng.random, ctx.hands
        chosen: tuple[float, CardRef, HandCard] | None = None
        for ref in hand:  # the Fate it brings, less the card's worth, plus a little noise
            card = hands[ref.card_id]
            brings, lost = _DISCARDS.get(card) or _discard_terms(card)
            fate = brings if brings <= spent else spent  # min(), without its call
            score = fate - lost + noise() * 0.1
            if chosen is None or score > chosen[0]:  # the first of the best, as max() gives it
                chosen = (score, ref, card)
        assert chosen is not None
        if as_id:
            return table.discard_id(chosen[1])
        return table.discard_move(state, chosen[1], chosen[2].card)
    # No card in this hand and no Stunt: the moves left are a pass (with Fate), the end (with
    # none) and the proposal of the Showdown, taken when every hand is empty.
    rest = {a.kind: a for a in table.moves(state, state.tableaux[active].seat, ctx)}
    if all(not t.hand for t in state.tableaux):
        return rest["showdown"]
    return rest.get("pass") or rest.get("end") or rest["showdown"]


_WORTHS: dict[HandCard, tuple[float, int, str]] = {}  # see _card_worth


def _card_worth(card: HandCard) -> tuple[float, int, str]:
    """The Hits or Clues a card may bring at most (2.5 for a card with none), twice for an
    unlimited Range; its printed cost's base; its type (known once per card)."""
    known = _WORTHS.get(card)
    if known is not None:
        return known
    value = card.value_base + card.value_dice if card.value is not None else 2.5
    if card.unlimited:
        value *= 2
    worth = _WORTHS[card] = (value, card.cost_base, card.type)
    return worth


_DISCARDS: dict[HandCard, tuple[float, float]] = {}  # see _discard_terms


def _discard_terms(card: HandCard) -> tuple[float, float]:
    """The Fate a discard of ``card`` brings on average (before the Spent pool's limit) and
    half the most it could bring if played (known once per card)."""
    known = _DISCARDS.get(card)
    if known is not None:
        return known
    most = card.value_base + card.value_dice if card.value is not None else 0
    terms = _DISCARDS[card] = (card.discard_base + card.discard_dice / 2, most * 0.5)
    return terms


# -- the Showdown ------------------------------------------------------------------------------
@lru_cache(maxsize=64)
def _dice_at_least(dice: int, need: int) -> float:
    """The chance that ``dice`` Fate dice sum to at least ``need``."""
    counts = {0: 1}
    for _ in range(dice):
        nxt: dict[int, int] = {}
        for total, ways in counts.items():
            for face in (-1, 0, 1):
                nxt[total + face] = nxt.get(total + face, 0) + ways
        counts = nxt
    return sum(w for t, w in counts.items() if t >= need) / 3**dice


def _removal_chance(ctx: Context, uid: str, tier_index: int) -> float:
    found = ctx.find(uid)
    if found is None:
        return 0.0
    tiers = ctx.tier_values(found[2])
    return _chances_at(ctx, found[2], [tiers[min(tier_index, len(tiers) - 1)]])[0]


def _tier_chances(ctx: Context, slot: PlainSlot) -> list[float]:
    """``_removal_chance`` of the slot's card at each tier of the Showdown card."""
    return _chances_at(ctx, slot, ctx.tier_values(slot))


def _chances_at(
    ctx: Context, slot: PlainSlot, tiers: Sequence[tuple[int, int, int]]
) -> list[float]:
    """The chance of removing the slot's card with each (fate, base, dice) tier: the dice must
    make up what its value, less its tokens and the tier's base, still needs."""
    need = (ctx.values[slot.card_id] or 0) - slot.tokens
    return [_dice_at_least(dice, need - base) for _fate, base, dice in tiers]


def _fate_use_elsewhere(ctx: Context, state: PlainState, picked: str) -> float:
    """The best gain in removal chance per Fate on another card still owed a roll."""
    best = 0.0
    for uid in state.showdown_queue:
        found = None if uid == picked else ctx.find(uid)
        if found is None:
            continue
        chances = _tier_chances(ctx, found[2])
        base = chances[0]
        for index, (fate, _base, _dice) in enumerate(ctx.tier_values(found[2])):
            if 0 < fate <= state.available:
                best = max(best, (chances[index] - base) / fate)
    return best


def _showdown_tier(ctx: Context, state: PlainState, ids: list[str]) -> str:
    """The tier whose removal chance, less what its Fate would do elsewhere, is best."""
    picked = state.showdown_pick or state.showdown_queue[0]
    slot = ctx.located(picked)[2]
    tiers, chances = ctx.tier_values(slot), _tier_chances(ctx, slot)
    elsewhere = _fate_use_elsewhere(ctx, state, picked)
    options = [i for i in ids if i.startswith("sd")]

    def gain(option: str) -> float:
        index = int(option[2:])
        return chances[index] - elsewhere * tiers[index][0]

    return max(options, key=lambda o: (gain(o), -int(o[2:])))
