"""What each seat of a Vampire Empire game may see: the public view and a seat's private one,
made entry by entry (``public_view`` and ``private_view``, the engine's), and a seat's private
view as plain data for its AI (``SeatView``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from bot.games.vampire_empire.cards import CHARACTERS, NAMES, CardDef
from bot.games.vampire_empire.state import HUMANS, SIDE_NAMES, VAMPIRES, Combat, VeState

GAME_KEY = "vampire-empire"  # the engine's key (the views name their game)
Cards = tuple[CardDef, ...]


class Rules(Protocol):
    """The rules' answers a view shows (the engine has them; this module does not import it)."""

    def acting_side(self, state: VeState) -> int | None: ...

    def totals(self, state: VeState, cards: Sequence[Any], combat: Combat) -> tuple[int, int]: ...


# One entry of a view, from (engine, state, cards, the seat's side or None for the public one).
Builder = Callable[[Rules, VeState, Cards, Any], Any]


def _combat(engine: Rules, state: VeState, cards: Cards, _side: Any) -> Any:
    combat = state.combat
    if combat is None:
        return None
    attack, defence = engine.totals(state, cards, combat)
    return {
        "attacker": NAMES[combat.attacker],
        "target": NAMES[combat.target],
        "side": SIDE_NAMES[combat.side],
        "round": combat.round,
        "step": combat.step,
        "attack": attack,
        "defence": defence,
        "attack_cards": [cards[c].name for c in combat.attack_cards],
        "defence_cards": [cards[c].name for c in combat.defence_cards],
    }


def _acting(engine: Rules, state: VeState, _cards: Cards, _side: Any) -> Any:
    acting = engine.acting_side(state)
    return SIDE_NAMES[acting] if acting is not None else None


def _castle(_engine: Rules, state: VeState, _cards: Cards, _side: Any) -> Any:
    return [
        {
            "name": NAMES[c],
            "profession": CHARACTERS[c][1],
            "revealed": c in state.revealed,
            "attack": state.attack_markers[c],
            "defence": state.defence_markers[c],
        }
        for c in state.castle
    ]


def _piles(_engine: Rules, state: VeState, _cards: Cards, _side: Any) -> Any:
    return {
        SIDE_NAMES[i]: {
            "hand": len(state.hands[i]),
            "deck": len(state.decks[i]),
            "cellar": len(state.cellars[i]),
            "moat": len(state.moats[i]),
        }
        for i in (VAMPIRES, HUMANS)
    }


# The public view, in its order.
PUBLIC: dict[str, Builder] = {
    "game": lambda e, s, c, _: GAME_KEY,
    "turn": lambda e, s, c, _: s.turn,
    # choosing how to pay is the acting step still: "pay" would tell what the hand allows
    "phase": lambda e, s, c, _: "act" if s.phase == "pay" else s.phase,
    "active": lambda e, s, c, _: SIDE_NAMES[s.active],
    "acting": _acting,
    "sides": lambda e, s, c, _: {SIDE_NAMES[i]: seat for i, seat in enumerate(s.seats)},
    "castle": _castle,
    "city_count": lambda e, s, c, _: len(s.city),
    # who is in the city, never its order
    "city": lambda e, s, c, _: sorted(NAMES[x] for x in s.city),
    "revealed_in_city": lambda e, s, c, _: sorted(NAMES[x] for x in s.city if x in s.revealed),
    "dead": lambda e, s, c, _: [{"name": NAMES[x], "vampire": x in s.vampires} for x in s.dead],
    "tested": lambda e, s, c, _: {NAMES[int(k)]: v for k, v in s.tested.items()},
    "attacks": lambda e, s, c, _: {NAMES[x]: n for x, n in enumerate(s.attacks) if n},
    "marker_supply": lambda e, s, c, _: s.marker_supply,
    "piles": _piles,
    "combat": _combat,
    "played": lambda e, s, c, _: [c[x].name for x in s.played],
    "winner": lambda e, s, c, _: s.winner,
    "scores": lambda e, s, c, _: dict(s.scores),
}


def _effect(card: CardDef) -> str | None:
    return card.support.effect if card.support is not None else None


def _card(cards: Cards, c: int) -> dict[str, Any]:
    return {
        "card": c,
        "name": cards[c].name,
        "value": cards[c].value,
        "professions": list(cards[c].professions),
        "holy_water": cards[c].holy_water,
        "vampire": cards[c].vampire,
        "support": _effect(cards[c]),
        "text": cards[c].text,
    }


def _hand(_engine: Rules, state: VeState, cards: Cards, side: Any) -> Any:
    return [_card(cards, c) for c in sorted(state.hands[side])]


def _choosing(_engine: Rules, state: VeState, cards: Cards, side: Any) -> Any:
    pile = {"deck": state.decks, "cellar": state.cellars, "moat": state.moats}
    return [
        {"card": c, "name": cards[c].name, "value": cards[c].value}
        for c in sorted(pile[state.choosing or "deck"][side])
    ]


_SIDE: Builder = lambda e, s, c, side: SIDE_NAMES[side]  # noqa: E731
_VAMPIRES: Builder = lambda e, s, c, side: [NAMES[x] for x in s.vampires]  # noqa: E731
_KNOWN: Builder = lambda e, s, c, side: [NAMES[x] for x in s.known_humans]  # noqa: E731
_PHASE: Builder = lambda e, s, c, side: s.phase  # noqa: E731
_PAYING: Builder = lambda e, s, c, side: (  # noqa: E731
    "hide" if (s.paying or "").startswith("h:") else "holy water"
)


def private_builders(state: VeState, side: int) -> dict[str, Builder]:
    """The entries a side's private view adds to the public one, in their order."""
    builders = {"side": _SIDE, "hand": _hand}
    if side == VAMPIRES:
        builders["vampires"] = _VAMPIRES
    else:
        builders["known_humans"] = _KNOWN
    if state.paying and side == state.active:  # the payer's ways are its own
        builders["paying"] = _PAYING
        builders["phase"] = _PHASE
    if state.choosing:
        builders["choosing"] = _choosing
    return builders


def build(
    engine: Rules,
    state: VeState,
    cards: Cards,
    side: int | None,
    public: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A whole view: the public one (``side`` None) or that side's private one (``public``:
    the public view of this state, when the caller has it; it is copied, not changed)."""
    if public is not None:
        view = dict(public)
    else:
        view = {key: make(engine, state, cards, side) for key, make in PUBLIC.items()}
    view.update(private_part(engine, state, cards, side))
    return view


def private_part(engine: Rules, state: VeState, cards: Cards, side: int | None) -> dict[str, Any]:
    """The entries a side's private view adds to the public one (none for a seat that plays
    no side): all that its hand shows."""
    if side is None:
        return {}
    return {
        key: make(engine, state, cards, side) for key, make in private_builders(state, side).items()
    }


class SeatView:
    """A side's private view as plain data, for its AI: the public table, its own hand and its
    own secret characters (the vampires, or the two known humans), nothing else. Its lists are
    the state's own, read as they are when read (before the move is applied), never changed.
    An AI-only game keeps one per seat on its working state, whose lists are changed in place
    and never replaced, and brings the rest up to date (``update``) before each of that seat's
    moves that its AI weighs by more than the hand."""

    __slots__ = (
        "attack",
        "attacks",
        "cards",
        "castle",
        "choosing",
        "combat",
        "dead",
        "dead_vampires",
        "defence",
        "hand",
        "mine",
        "phase",
        "revealed",
        "side",
        "tested",
        "_deaths_seen",
    )

    # the state's own lists, read only (the AI must not change the caller's state)
    hand: Sequence[int]
    mine: Sequence[int]
    castle: Sequence[int]
    revealed: Sequence[int]
    dead: Sequence[int]
    tested: Mapping[str, bool]  # public holy water answers, by str(character)
    attacks: Sequence[int]  # public: fights begun by each character
    choosing: list[int] | None  # the pile a take effect looks through, sorted

    def __init__(self, engine: Rules, state: VeState, cards: Sequence[Any], side: int) -> None:
        self.side = side
        self.cards = cards  # the pack's cards by number (public content)
        self.mine = state.vampires if side == VAMPIRES else state.known_humans
        self.hand = state.hands[side]
        self.castle = state.castle
        self.revealed = state.revealed
        self.tested = state.tested
        self.attacks = state.attacks
        self.dead = state.dead
        self.dead_vampires: list[int] = []
        self._deaths_seen = 0
        self.update(engine, state)

    def update(self, engine: Rules, state: VeState) -> None:
        """Read again what a move replaces (phase, fight, the pile looked through) and what
        follows from the lists a move changes (the dead vampires), for the next step."""
        phase = state.phase
        if phase == "pay" and state.active != self.side:
            phase = "act"  # as the public view says: the payer's ways are its own
        self.phase = phase
        dead = self.dead
        if len(dead) != self._deaths_seen:
            # each death is declared (vampire or human) to both players
            self.dead_vampires = [c for c in dead if c in state.vampires]
            self._deaths_seen = len(dead)
        combat = self.combat = state.combat
        if combat is None:
            self.attack = self.defence = 0
        else:
            self.attack, self.defence = engine.totals(state, self.cards, combat)
        if phase == "choose" and state.choosing is not None:
            piles = {"deck": state.decks, "cellar": state.cellars, "moat": state.moats}
            # the pile this side looks through, sorted: its order (top of the deck first) is
            # hidden
            self.choosing = sorted(piles[state.choosing][self.side])
        else:
            self.choosing = None
