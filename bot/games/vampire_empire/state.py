"""Options and state of a Vampire Empire game: plain lists of small numbers (characters 0-8,
cards 0-79, see cards.py), so that a move copies a few short lists and nothing deep."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, cast

from pydantic import BaseModel, Field

from bot.games.base import shallow_copy, trusted

VAMPIRES, HUMANS = 0, 1  # the two sides; the vampire player takes the first turn
SIDE_NAMES = ("vampires", "humans")
MARKER_SUPPLY = 12
Phase = Literal["discard", "act", "pay", "choose", "holy_attack", "combat", "over"]


class VeOptions(BaseModel):
    """Lobby options. Every rule the rulebook's public pages leave open is one of these, with
    the reference's recommended default (its tags: [I] inferred, [?] unknown)."""

    host_side: Literal["random", "vampires", "humans"] = Field(
        default="random",
        title="The host plays",
        description="Which side the first seat takes; the other seat takes the other side.",
    )
    played_cards_to: Literal["moat", "cellar"] = Field(
        default="moat",
        title="Played cards go to",
        description="[I] Cards played in combat, for holy water, for hiding and support cards go "
        "to this pile (the moat never comes back except through a support card).",
    )
    discards_to: Literal["cellar", "moat"] = Field(
        default="cellar",
        title="Discarded cards go to",
        description="[I] Cards discarded at the start of a turn go to this pile.",
    )
    reshuffle_cellar: bool = Field(
        default=True,
        title="Reshuffle the cellar",
        description="[I] When you must draw from an empty deck, your cellar is shuffled into a "
        "new deck (as often as it happens). No: the cellar stays where it is.",
    )
    reveals_per_turn: Literal["one", "any"] = Field(
        default="one",
        title="Reveals per turn",
        description="[?] How many vampires the vampire player may reveal in one turn, before "
        "the action.",
    )
    reveal_in_city: bool = Field(
        default=False,
        title="Reveal a vampire in the city",
        description="[?] Whether a vampire in the city may be revealed by choice (holy water "
        "can always find one there). No: only vampires in the castle.",
    )
    holy_water_in_defence: bool = Field(
        default=True,
        title="Holy water in defence",
        description="[I] Whether the human player may play holy water while defending against "
        "an attacking revealed vampire (it is always allowed when attacking one).",
    )
    vampire_attacks_vampire: bool = Field(
        default=False,
        title="A vampire may attack a vampire",
        description="[?] Whether a revealed vampire may attack another revealed vampire.",
    )
    hide_with_empty_city: Literal["forbid", "allow"] = Field(
        default="forbid",
        title="Hiding with an empty city",
        description="[?] forbid: no hiding while the city is empty; allow: the character goes "
        "to the city and comes straight back, losing its markers.",
    )
    no_legal_action: Literal["pass", "discard"] = Field(
        default="pass",
        title="With no legal action",
        description="[?] pass: a player who can take no action passes; discard: they must "
        "discard a card (to their discard pile) to end the turn.",
    )
    markers_stack: bool = Field(
        default=True,
        title="Markers stack",
        description="[?] Whether a character may hold several attack (or defence) markers; "
        "each marker is +1.",
    )
    out_of_cards: Literal["hand_and_deck", "deck"] = Field(
        default="hand_and_deck",
        title="Out of cards means",
        description="[?] hand_and_deck: no card in hand and none left to draw (the cellar "
        "counts when it is reshuffled); deck: nothing left to draw, even with cards in hand.",
    )
    cancel_timing: Literal["first_defence", "any_defence"] = Field(
        default="first_defence",
        title="When a cancel card is played",
        description="[?] first_defence: the defender may end a combat with a cancel card before "
        "playing any defence card in round 1; any_defence: at any of the defender's steps, in "
        "either round.",
    )
    deck_pack: str = Field(
        default="authored",
        title="Deck lists",
        description="Which pack of two decks to play (the shipped one is authored by Fate Table).",
    )
    turn_limit: int = Field(
        default=400,
        ge=20,
        le=2000,
        title="Turn limit",
        description="Safety net: after this many turns the game is scored as if both players "
        "were out of cards.",
        json_schema_extra={"lobby": False},
    )


class Combat(BaseModel):
    """A fight under way: who attacks whom, from which side, and its round."""

    attacker: int
    target: int
    side: int  # the attacking side
    start_defence: int  # the target's defence markers when the fight began
    round: int = 1
    step: Literal["attack", "defend"] = "attack"
    attack_cards: list[int] = Field(default_factory=list)
    defence_cards: list[int] = Field(default_factory=list)
    holy_water: bool = False  # begun right after holy water revealed the target


class VeState(BaseModel):
    """The whole state of one game, secrets included (views filter it per seat)."""

    options: VeOptions
    seats: list[str]  # by side: [the vampire player's seat, the human player's seat]
    vampires: list[int]  # secret: the vampire player's three tokens
    known_humans: list[int]  # secret: the human player's two tokens
    city: list[int]  # top first; the order is secret, its members are not
    castle: list[int]
    revealed: list[int] = Field(default_factory=list)
    dead: list[int] = Field(default_factory=list)
    attack_markers: list[int] = Field(default_factory=lambda: [0] * 9)
    defence_markers: list[int] = Field(default_factory=lambda: [0] * 9)
    marker_supply: int = MARKER_SUPPLY
    decks: list[list[int]]  # by side, top first
    hands: list[list[int]]
    cellars: list[list[int]]
    moats: list[list[int]]
    active: int = VAMPIRES
    turn: int = 1
    phase: Phase = "discard"
    reveals: int = 0  # vampires revealed this turn
    combat: Combat | None = None
    holy_pair: list[int] = Field(default_factory=list)  # holy water just played, to attack with
    holy_target: int | None = None
    choosing: Literal["deck", "cellar", "moat"] | None = None  # a take effect is resolving
    paying: str | None = None  # "h:<character>" or "w:<character>": cards to pay are chosen
    tested: dict[str, bool] = Field(default_factory=dict)  # public holy water answers
    attacks: list[int] = Field(default_factory=lambda: [0] * 9)  # public: fights begun by each
    played: list[int] = Field(default_factory=list)  # public: the cards of the last action
    winner: str | None = None  # "vampires", "humans" or "tie"
    ending: str | None = None
    scores: dict[str, int] = Field(default_factory=dict)


_NESTED = ("decks", "hands", "cellars", "moats")
_LISTS = (
    "seats",
    "vampires",
    "known_humans",
    "city",
    "castle",
    "revealed",
    "dead",
    "attack_markers",
    "defence_markers",
    "holy_pair",
    "attacks",
    "played",
)


def fork(state: VeState) -> VeState:
    """A copy to change: a shallow copy whose short lists are copied, nothing validated again
    (the hot path of simulations; a deep copy would cost most of a move)."""
    new = shallow_copy(state)
    values = new.__dict__
    for name in _NESTED:
        values[name] = [list(pile) for pile in values[name]]
    for name in _LISTS:
        values[name] = list(values[name])
    values["tested"] = dict(values["tested"])
    values["scores"] = dict(values["scores"])
    combat = values["combat"]
    if combat is not None:
        values["combat"] = combat = shallow_copy(combat)
        fields = combat.__dict__
        fields["attack_cards"] = list(fields["attack_cards"])
        fields["defence_cards"] = list(fields["defence_cards"])
    return new


# -- an AI-only game's working state ---------------------------------------------------------
# The rules read and write these as they do the models above (the same fields, the same
# types), without pydantic's attribute writes and checks: an AI-only game is played on one of
# them from its set-up to its end, and only its final state becomes a model again.

_STATE_FIELDS = tuple(VeState.model_fields)
_COMBAT_FIELDS = tuple(Combat.model_fields)


class PlainCombat:
    """A ``Combat``, plain."""

    __slots__ = _COMBAT_FIELDS

    def __init__(
        self,
        attacker: int,
        target: int,
        side: int,
        start_defence: int,
        attack_cards: list[int],
        holy_water: bool,
    ) -> None:
        self.attacker = attacker
        self.target = target
        self.side = side
        self.start_defence = start_defence
        self.round = 1
        self.step = "attack"
        self.attack_cards = attack_cards
        self.defence_cards: list[int] = []
        self.holy_water = holy_water


class PlainState:
    """A ``VeState``, plain."""

    __slots__ = _STATE_FIELDS


# what a new state holds besides its set-up: the model's defaults, a new list or dict from a
# factory for each state (asked of pydantic once: its ``get_default`` is slow)
_DEFAULTS: tuple[tuple[str, Callable[[], Any] | None, Any], ...] = tuple(
    (name, cast(Callable[[], Any] | None, field.default_factory), field.default)
    for name, field in VeState.model_fields.items()
    if not field.is_required()
)


def new_plain(values: dict[str, Any]) -> PlainState:
    """The working state ``VeState(**values)`` would start as (``values``: the fields that have
    no default, made by the caller for this state alone: they are not copied)."""
    new = PlainState()
    for name, factory, default in _DEFAULTS:
        setattr(new, name, default if factory is None else factory())
    for name, value in values.items():
        setattr(new, name, value)
    return new


def model(state: PlainState) -> VeState:
    """The model of a working state (sharing its lists)."""
    values = {name: getattr(state, name) for name in _STATE_FIELDS}
    combat = values["combat"]
    if combat is not None:
        values["combat"] = trusted(
            Combat, **{name: getattr(combat, name) for name in _COMBAT_FIELDS}
        )
    return trusted(VeState, **values)
