"""Vampire Empire's characters and card packs (YAML, validated with line:col errors)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, model_validator

from bot.games.packs import validate_yaml

PACK_DIR = Path(__file__).resolve().parents[3] / "data" / "packs" / "vampire-empire"
DECK_SIZE = 40
HAND_SIZE = 8

Profession = Literal["noble", "clergy", "servant"]
PROFESSIONS: tuple[Profession, ...] = ("noble", "clergy", "servant")
# The nine characters, three per profession, by index (the state stores indexes).
CHARACTERS: tuple[tuple[str, Profession], ...] = (
    ("Lady", "noble"),
    ("Lord", "noble"),
    ("Officer", "noble"),
    ("Monk", "clergy"),
    ("Nun", "clergy"),
    ("Bishop", "clergy"),
    ("Maid", "servant"),
    ("Cook", "servant"),
    ("Butler", "servant"),
)
NAMES = tuple(name for name, _ in CHARACTERS)


class Support(BaseModel):
    """A support card's effect, from the small vocabulary the rules confirm."""

    model_config = ConfigDict(extra="forbid")
    effect: Literal["marker", "take", "cancel"]
    marker: Literal["attack", "defence"] | None = None  # for effect: marker
    pile: Literal["deck", "cellar", "moat"] | None = None  # for effect: take

    @model_validator(mode="after")
    def _fields_fit(self) -> Support:
        if (self.effect == "marker") != (self.marker is not None):
            raise ValueError("a marker effect names its marker (attack or defence), others none")
        if (self.effect == "take") != (self.pile is not None):
            raise ValueError("a take effect names its pile (deck, cellar or moat), others none")
        return self


class CardDef(BaseModel):
    """One card of a deck list (``count`` copies of it)."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=40)
    name: str = Field(min_length=1, max_length=60)
    professions: list[Profession] = Field(default_factory=list, max_length=2)
    holy_water: bool = False
    vampire: bool = False
    value: int = Field(default=0, ge=0, le=9)
    support: Support | None = None
    # When a support card may be played: turn (before your action, free), action (it is your
    # action), combat (during a combat you fight in), reaction (when a character you defend is
    # attacked). None: the card gives no timing, and then playing it is your action.
    timing: Literal["turn", "action", "combat", "reaction"] | None = None
    text: str = Field(default="", max_length=300)
    count: int = Field(default=1, ge=1, le=40)
    authored: bool = False

    @model_validator(mode="after")
    def _kind_fits(self) -> CardDef:
        if self.support is not None:
            if self.professions or self.holy_water or self.vampire or self.value:
                raise ValueError("a support card has no profession, holy water, vampire or value")
            if self.support.effect == "cancel" and self.timing not in ("reaction", None):
                raise ValueError("a cancel card is played as a reaction")
            return self
        if self.timing is not None:
            raise ValueError("only support cards have a timing")
        if self.value < 1:
            raise ValueError("a combat card has a value of at least 1")
        kinds = len(self.professions) + self.holy_water + self.vampire
        if not kinds:
            raise ValueError("a combat card has a profession, holy water or vampire")
        if self.holy_water and self.vampire:
            raise ValueError("a card is holy water or vampire, not both")
        if kinds > 2 or len(set(self.professions)) != len(self.professions):
            raise ValueError("a dual card has exactly two different kinds")
        return self

    @property
    def is_support(self) -> bool:
        return self.support is not None


class PackMeta(BaseModel):
    """A deck pack's header: its key, name, game and whether we authored it."""

    model_config = ConfigDict(extra="forbid")
    key: str = Field(min_length=1, max_length=32, pattern=r"^[a-z0-9-]+$")
    name: str = Field(min_length=1, max_length=80)
    game: Literal["vampire-empire"]
    authored: bool = False


class Pack(BaseModel):
    """Both decks: 40 cards each; holy water only for the humans, vampire cards only for the
    vampires."""

    model_config = ConfigDict(extra="forbid")
    pack: PackMeta
    humans: list[CardDef]
    vampires: list[CardDef]

    @model_validator(mode="after")
    def _decks_fit(self) -> Pack:
        ids = [c.id for c in self.humans + self.vampires]
        if len(ids) != len(set(ids)):
            raise ValueError("card ids must be unique across both decks")
        for side, deck in (("humans", self.humans), ("vampires", self.vampires)):
            total = sum(c.count for c in deck)
            if total != DECK_SIZE:
                raise ValueError(f"the {side} deck has {total} cards; it must have {DECK_SIZE}")
        if any(c.vampire for c in self.humans):
            raise ValueError("vampire cards belong to the vampires' deck only")
        if any(c.holy_water for c in self.vampires):
            raise ValueError("holy water belongs to the humans' deck only")
        return self

    def instances(self) -> tuple[CardDef, ...]:
        """Every physical card: 0-39 the vampires' deck, 40-79 the humans' (the state stores
        these numbers)."""
        out: list[CardDef] = []
        for deck in (self.vampires, self.humans):
            for card in deck:
                out.extend([card] * card.count)
        return tuple(out)


def validate_pack_text(text: str, filename: str = "<pack>") -> list[str]:
    """Every problem in a pack file's text, each with its line and column."""
    return validate_yaml(text, Pack, filename)


@cache
def load_packs() -> dict[str, Pack]:
    """The packs shipped in data/packs/vampire-empire, by key."""
    packs = {}
    for path in sorted(PACK_DIR.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        errors = validate_pack_text(text, str(path))
        if errors:
            raise ValueError("\n".join(errors))
        pack = Pack.model_validate(yaml.safe_load(text))
        packs[pack.pack.key] = pack
    return packs
