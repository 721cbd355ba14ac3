"""AI seats for either side. ``choose`` sees only the seat's private view (``SeatView``: what
that player may know: the public table, its own hand and its own secrets) and the legal moves in
it (``VampireEmpireEngine.moves``, which follow from that view alone); before drawing it reads
only its hand."""

from __future__ import annotations

import random

from bot.games.base import Move
from bot.games.vampire_empire.plain import DRAW, distinct
from bot.games.vampire_empire.state import VAMPIRES
from bot.games.vampire_empire.views import SeatView

CHARACTERS = range(9)


def suspicion(view: SeatView) -> dict[int, float]:
    """The human player's estimate that each living character is a vampire, from public facts
    and the two known humans: revealed or dead vampires are certain, tested and known humans
    are cleared, the rest share the vampires not yet found; a character that keeps starting
    fights for the vampire player's turns draws a little more suspicion."""
    dead, found = view.dead, view.dead_vampires
    revealed = [c for c in view.revealed if c not in dead]  # in the castle or the city
    cleared = set(view.mine)
    for tested, vampire in view.tested.items():
        if not vampire:
            cleared.add(int(tested))
    cleared.update(c for c in dead if c not in found)
    scores: dict[int, float] = {}
    unknown = []
    for c in CHARACTERS:
        if c in dead:
            continue
        if c in revealed:
            scores[c] = 1.0
        elif c in cleared:
            scores[c] = 0.0
        else:
            unknown.append(c)
    missing = max(0, 3 - len(found) - len(revealed))  # (the revealed are alive: not found)
    base = missing / len(unknown) if unknown else 0.0
    attacks = view.attacks
    for c in unknown:
        scores[c] = min(0.95, base + 0.05 * attacks[c])
    return scores


def choose(view: SeatView, moves: list[Move], rng: random.Random) -> Move:
    """One of ``moves`` for the seat whose private ``view`` this is."""
    if not moves:
        raise ValueError("no legal action for this seat")
    phase = view.phase
    if phase == "combat":
        return _combat(view, moves)
    if phase == "discard":
        return discard(view, rng)
    if phase == "choose":
        values = view.cards
        best = max(view.choosing or [], key=lambda c: values[c].value, default=None)
        return next((m for m in moves if m.info == best), moves[-1])  # (none: take nothing)
    if phase in ("pay", "holy_attack"):
        # the cheapest way to pay comes first; the first attacker that can win beats not
        # attacking
        return moves[0]
    return _turn(view, moves, rng)


def discard(view: SeatView, rng: random.Random) -> Move:
    """``choose`` before drawing: the moves then are drawing and discarding any card of the
    hand (one per kind, ``distinct``), so this reads the hand alone (and an AI-only game
    makes no moves for it)."""
    cards = view.cards
    ones = distinct([c for c in view.hand if cards[c].value == 1], cards)
    if len(ones) >= 2 and rng.random() < 0.3:
        return cards[ones[0]].discard
    return DRAW


def _turn(view: SeatView, moves: list[Move], rng: random.Random) -> Move:
    by_kind: dict[str, list[Move]] = {}
    for move in moves:
        group = by_kind.get(move.kind)
        if group is None:
            by_kind[move.kind] = [move]
        else:
            group.append(move)
    return turn_choice(view, by_kind, rng)


def turn_choice(view: SeatView, by_kind: dict[str, list[Move]], rng: random.Random) -> Move:
    """``choose`` in a turn, from its moves by kind (each kind in the order shown, the kinds
    in the order shown)."""
    if view.side == VAMPIRES:
        return _vampire_turn(view, by_kind, rng)
    return _human_turn(view, by_kind, rng)


def _first(by_kind: dict[str, list[Move]]) -> Move:
    """The first move shown."""
    return next(iter(by_kind.values()))[0]


def _vampire_turn(view: SeatView, by_kind: dict[str, list[Move]], rng: random.Random) -> Move:
    mine = view.mine
    castle, revealed, cards = view.castle, view.revealed, view.cards
    reveals = by_kind.get("reveal")
    if reveals:
        shown = sum(1 for c in castle if c in revealed)
        vampire_cards = sum(cards[c].value for c in view.hand if cards[c].vampire)
        for move in reveals:
            if move.info in castle and (
                shown + 1 >= 3 or (vampire_cards >= 5 and rng.random() < 0.3)
            ):
                return move
    for move in by_kind.get("support", []):
        if "defence" in move.label and rng.random() < 0.5:
            if move.info[1] in mine:
                return move
    fights = by_kind.get("combat", [])
    humans = [m for m in fights if m.info[1] not in mine]  # info: (attacker, target)
    hides = by_kind.get("hide", [])
    exposed = [m for m in hides if m.info in revealed]
    if exposed and (not humans or rng.random() < 0.4):
        return exposed[0]  # take a revealed vampire out of the holy water's reach
    if humans:
        # Bluff: attack with a hidden vampire or with a human alike, so fights tell little.
        return rng.choice(humans)
    if hides:
        # Hide a human to draw a new character (perhaps a vampire) into the castle.
        keep = [m for m in hides if m.info not in mine]
        return rng.choice(keep or hides)
    for kind in ("support", "combat", "pass"):
        if by_kind.get(kind):
            return by_kind[kind][0]
    return _first(by_kind)


def _human_turn(view: SeatView, by_kind: dict[str, list[Move]], rng: random.Random) -> Move:
    scores = suspicion(view)
    for move in by_kind.get("support", []):
        if "defence" in move.label and rng.random() < 0.5:
            if scores.get(move.info[1], 1.0) == 0.0:
                return move
    fights = by_kind.get("combat", [])
    revealed = [m for m in fights if m.info[1] in view.revealed]
    if revealed:
        return revealed[0]
    waters = by_kind.get("holy_water", [])  # info: (character, in the castle)
    if waters:
        best = max(waters, key=lambda m: (scores.get(m.info[0], 0), m.info[1]))
        if scores.get(best.info[0], 0) >= 0.25:
            return best
    if fights:
        best = max(fights, key=lambda m: scores.get(m.info[1], 0) + rng.random() / 10)
        if scores.get(best.info[1], 0) > 0 or not waters:
            return best
    if waters:
        return waters[0]
    for kind in ("support", "pass"):
        if by_kind.get(kind):
            return by_kind[kind][0]
    return _first(by_kind)


def done_at_once(view: SeatView) -> bool:
    """In a fight, whether the seat ends its step whatever its hand holds: its attack already
    beats what it wants, or its defence is not worth making or already holds. ``done`` is then
    always offered (an attack above the defence is above the starting one; a defender may
    always stop), so an AI-only game asks this before it makes the moves."""
    combat = view.combat
    assert combat is not None
    if combat.side == view.side:  # attacking
        return view.attack > view.defence + (2 if combat.round == 1 else 0)
    return not _worth_defending(view, combat.target) or view.defence >= view.attack


def _worth_defending(view: SeatView, target: int) -> bool:
    if view.side == VAMPIRES:
        return target in view.mine
    return target not in view.revealed or target in view.mine


def _combat(view: SeatView, moves: list[Move]) -> Move:
    if done_at_once(view):
        return moves[-1]  # done (offered last)
    return weigh_fight(view, moves)


# What a fighter's moves offer the AI: the first of its strongest cards, what all its cards
# would add, its first marker and its first cancel.
Offer = tuple[Move | None, int, Move | None, Move | None]


def weigh_fight(view: SeatView, moves: list[Move]) -> Move:
    """``choose`` in a fight where ``done_at_once`` is false."""
    chosen = fight_choice(view, read_offer(view, moves))
    return moves[-1] if chosen is None else chosen  # (done is offered last)


def read_offer(view: SeatView, moves: list[Move]) -> Offer:
    """What ``moves`` (a fighter's) offer, in one pass."""
    cards = view.cards
    marker = cancel = strongest = None
    strongest_value = -1
    adds = 0
    for move in moves:
        kind = move.kind
        if kind == "play":
            value = cards[move.info].value
            adds += value
            if value > strongest_value:  # the first of the strongest
                strongest, strongest_value = move, value
        elif kind == "support":
            if marker is None and move.id[0] == "m":
                marker = move
            elif cancel is None and move.id[0] == "n":
                cancel = move
    return strongest, adds, marker, cancel


def fight_choice(view: SeatView, offer: Offer) -> Move | None:
    """The AI's move in a fight where ``done_at_once`` is false, from what its moves offer;
    None: done (then always offered: an attack with nothing to add is above the starting
    defence, and a defender may always stop)."""
    combat = view.combat
    assert combat is not None
    strongest, adds, marker, cancel = offer
    if combat.side == view.side:  # attacking, and not enough yet
        return marker or strongest
    # a defence worth making, below the attack
    attack, defence = view.attack, view.defence
    if defence + adds < attack and cancel is not None:
        return cancel
    if marker is not None:
        return marker
    if strongest is not None and defence + adds >= attack:
        return strongest
    return None
