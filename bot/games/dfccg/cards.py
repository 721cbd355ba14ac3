"""Card data for the Dresden Files Cooperative Card Game: values, selectors and effects.

Cards are data; the engine interprets a small effect vocabulary. Values use the rulebook's
notation: "2[1]" is 2 plus one Fate die, "inf" is unlimited Range.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

BookType = Literal["foe", "case", "obstacle", "advantage"]
ActionType = Literal["attack", "investigate", "overcome", "advantage"]
Token = Literal["hit", "clue"]
RollKind = Literal["discard", "cost", "range", "value", "showdown"]
CharacterScope = Literal["all", "harry", "not_harry"]
# A Book card's dice effect stays in force in the Showdown too, unless it names its rolls.
_ALL_ROLLS: tuple[RollKind, ...] = ("discard", "cost", "range", "value", "showdown")

# Which Book card type each action targets (a Take Advantage action is "advantage").
ACTION_TARGET: dict[str, BookType] = {
    "attack": "foe",
    "investigate": "case",
    "overcome": "obstacle",
    "advantage": "advantage",
}
TOKEN_OF: dict[str, Token] = {"foe": "hit", "case": "clue"}

# The rulebook's bounds: 13 Fate tokens, Ranges 1 to 6, 64 Hit and 64 Clue tokens.
FATE_TOKENS = 13
RANGES = 6
TOKENS = 64
TEXT_LIMIT = 300  # a card's text, so that every text fits the board and the hand
_META_FIELDS = ("authored", "authored_fields", "text")
_VALUE_RE = re.compile(r"^\s*(-?\d+)\s*(?:\[\s*(\d+)\s*\])?\s*$")


class Dice(BaseModel):
    """A value: ``base`` plus a roll of ``dice`` Fate dice."""

    model_config = ConfigDict(frozen=True)
    base: int = 0
    dice: int = Field(default=0, ge=0, le=8)

    @model_validator(mode="before")
    @classmethod
    def _parse(cls, raw: object) -> object:
        if isinstance(raw, bool):
            raise ValueError("expected a number like 3 or 2[1]")
        if isinstance(raw, int):
            return {"base": raw, "dice": 0}
        if isinstance(raw, str):
            match = _VALUE_RE.match(raw)
            if not match:
                raise ValueError(f"{raw!r} is not a value like 3 or 2[1]")
            return {"base": int(match.group(1)), "dice": int(match.group(2) or 0)}
        return raw

    @property
    def maximum(self) -> int:
        return self.base + self.dice

    def __str__(self) -> str:
        return f"{self.base}[{self.dice}]" if self.dice else str(self.base)


class Range(BaseModel):
    """A card's Range: a number, a number plus dice (variable), or unlimited."""

    model_config = ConfigDict(frozen=True)
    unlimited: bool = False
    value: Dice = Dice(base=1)

    @model_validator(mode="before")
    @classmethod
    def _parse(cls, raw: object) -> object:
        if isinstance(raw, str) and raw.strip().lower() in {"inf", "unlimited", "infinity", "∞"}:
            return {"unlimited": True, "value": {"base": 6}}
        if isinstance(raw, int | str) and not isinstance(raw, bool):
            return {"unlimited": False, "value": raw}
        return raw

    def __str__(self) -> str:
        return "unlimited" if self.unlimited else str(self.value)


class Selector(BaseModel):
    """Which Book card(s) an effect touches.

    pick: ``chosen`` one card the player picks; ``all`` every match; ``row`` every match in one
    row the player picks; ``shortest``/``longest`` the match at that Range (a position: if that
    card is restricted the effect cannot be used); ``same`` the previous effect's target(s);
    ``self`` the Book card carrying the effect.
    """

    model_config = ConfigDict(extra="forbid")
    types: list[BookType] = Field(default_factory=list)  # empty: any type
    pick: Literal["chosen", "all", "row", "shortest", "longest", "same", "self"] = "chosen"
    within_range: bool = True  # False: any Range (Talents, Stunts, Book effects)
    condition: Literal["any", "no_tokens", "has_tokens", "would_remove"] = "any"
    link: str | None = None  # only cards with this letter inbound
    name_contains: str | None = None


class AddTokens(BaseModel):
    """Put Hits on Foes / Clues on Cases. ``amount`` None = the card's (rolled) value."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["add_tokens"] = "add_tokens"
    target: Selector
    amount: Dice | None = None


class RemoveCard(BaseModel):
    """Remove Obstacles/Advantages (an Advantage's own effect is enacted)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["remove"] = "remove"
    target: Selector


class MoveCard(BaseModel):
    """Move a Book card in its row: to its longest/shortest Range, or one step either way."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["move"] = "move"
    target: Selector
    to: Literal["longest", "shortest", "step"]


class Draw(BaseModel):
    """A Draw effect: how many cards, from which deck, for whom."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["draw"] = "draw"
    count: int = Field(default=1, ge=1, le=5)


class GainFate(BaseModel):
    """Move Fate from Spent to Available (``per_tokened_card``: times Book cards with tokens)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["gain_fate"] = "gain_fate"
    amount: Dice = Dice(base=1)
    per_tokened_card: bool = False


class Restrict(BaseModel):
    """Passive (Book cards): while the source is in the rows, forbid something.

    ``receive_hits``/``receive_clues``: the targets cannot get those tokens in any manner.
    ``attack``/``investigate``/``overcome``/``advantage``: those cards cannot be played against
    the targets (with no target selector given, they cannot be played at all).
    """

    model_config = ConfigDict(extra="forbid")
    kind: Literal["restrict"] = "restrict"
    what: Literal["receive_hits", "receive_clues", "attack", "investigate", "overcome", "advantage"]
    target: Selector | None = None
    characters: CharacterScope = "all"


class DiceFace(BaseModel):
    """Passive: a Fate die face counts as another (blank -> minus) for the listed rolls."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["dice_face"] = "dice_face"
    from_face: Literal[-1, 0, 1] = 0
    to_face: Literal[-1, 0, 1] = -1
    rolls: list[RollKind] = Field(default_factory=lambda: list(_ALL_ROLLS))
    characters: CharacterScope = "all"


class CostModifier(BaseModel):
    """Passive: cards of these action types cost more (or less) Fate."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["cost_mod"] = "cost_mod"
    actions: list[ActionType]
    amount: int
    characters: CharacterScope = "all"


Effect = Annotated[
    AddTokens | RemoveCard | MoveCard | Draw | GainFate | Restrict | DiceFace | CostModifier,
    Field(discriminator="kind"),
]
PASSIVE_KINDS = {"restrict", "dice_face", "cost_mod"}


class _Meta(BaseModel):
    """Provenance and text of any card. ``authored``: the whole card is made up by the
    project; ``authored_fields``: the fields the project made up on a card that otherwise comes
    from a source. Provenance is for pack readers: players never see it in ``text``."""

    model_config = ConfigDict(extra="forbid")
    authored: bool = False
    authored_fields: list[str] = Field(default_factory=list)
    text: str = Field(default="", max_length=TEXT_LIMIT)  # the effect in the project's words

    @model_validator(mode="after")
    def _known_fields(self) -> _Meta:
        unknown = [f for f in self.authored_fields if f not in type(self).model_fields]
        if unknown:
            known = ", ".join(f for f in type(self).model_fields if f not in _META_FIELDS)
            raise ValueError(f"authored_fields names no field {unknown}; fields: {known}")
        return self


class ActionCard(_Meta):
    """A card a player plays: its cost, range and effects."""

    id: str
    name: str
    type: ActionType
    cost: Dice
    discard: Dice  # Fate gained when discarded
    range: Range
    value: Dice | None = None  # Hits/Clues; None for Overcome / Take Advantage
    effects: list[Effect] = Field(default_factory=list)  # replaces the default main action
    extra: list[Effect] = Field(default_factory=list)  # riders after the main action

    @model_validator(mode="after")
    def _check(self) -> ActionCard:
        if self.type in ("attack", "investigate") and self.value is None and not self.effects:
            raise ValueError(f"{self.type} card {self.id} needs a value")
        return self

    @field_validator("cost", "discard")
    @classmethod
    def _fate_bounds(cls, value: Dice) -> Dice:
        if not 0 <= value.base <= FATE_TOKENS:
            raise ValueError(
                f"{value} is outside 0 to {FATE_TOKENS} Fate (the game has {FATE_TOKENS} Fate)"
            )
        return value

    @field_validator("range")
    @classmethod
    def _range_bounds(cls, value: Range) -> Range:
        if not value.unlimited and not 1 <= value.value.base <= RANGES:
            raise ValueError(f"Range {value} is outside 1 to {RANGES} (or inf for a whole row)")
        return value

    @field_validator("value")
    @classmethod
    def _value_bounds(cls, value: Dice | None) -> Dice | None:
        if value is not None and not 1 <= value.base <= TOKENS:
            raise ValueError(f"a value of {value} is outside 1 to {TOKENS} Hits or Clues")
        return value


class Talent(_Meta):
    """A character's talent as the pack describes it."""

    name: str
    mode: Literal["on_discard", "ready"] = "on_discard"
    effects: list[Effect] = Field(default_factory=list)  # on_discard: applied when used
    range_bonus: int = 0  # ready: extra Range when unreadied during a play


class Stunt(_Meta):
    """A character's stunt as the pack describes it."""

    name: str
    effects: list[Effect]


class Character(_Meta):
    """A playable character: deck, talent, stunt and starting numbers."""

    key: str = Field(pattern=r"^[a-z0-9_-]{1,24}$")  # short: it is part of action ids
    name: str
    talent: Talent
    stunt: Stunt
    cards: list[ActionCard]


class BookCard(_Meta):
    """A case file card (foe, obstacle, advantage, case) of a Book."""

    id: str
    name: str
    type: BookType
    value: int | None = Field(default=None, ge=1, le=TOKENS)  # defeat / solve (Foes, Cases)
    links_in: list[str] = Field(default_factory=list)
    links_out: list[str] = Field(default_factory=list)
    passive: list[Effect] = Field(default_factory=list)  # while in the rows
    on_removed: list[Effect] = Field(default_factory=list)  # solved / taken / defeated

    @model_validator(mode="after")
    def _check(self) -> BookCard:
        if self.type in ("foe", "case") and self.value is None:
            raise ValueError(f"{self.type} {self.id} needs a value")
        for effect in self.passive:
            if effect.kind not in PASSIVE_KINDS:
                raise ValueError(f"passive effects must be one of {sorted(PASSIVE_KINDS)}")
        return self


class ShowdownTier(BaseModel):
    """One tier of a Showdown card: what rolling into it means."""

    model_config = ConfigDict(extra="forbid")
    fate: int = Field(ge=0, le=FATE_TOKENS)
    roll: Dice


class ShowdownCard(_Meta):
    """The Book's Showdown card."""

    id: str
    name: str
    foe: list[ShowdownTier]
    case: list[ShowdownTier]

    @field_validator("foe", "case")
    @classmethod
    def _sorted(cls, tiers: list[ShowdownTier]) -> list[ShowdownTier]:
        if not tiers:
            raise ValueError("a Showdown table needs at least one row")
        if [t.fate for t in tiers] != sorted({t.fate for t in tiers}):
            raise ValueError("Showdown rows must have distinct Fate costs in rising order")
        if tiers[0].fate != 0:
            raise ValueError("the first Showdown row must cost 0 Fate (a roll is always possible)")
        return tiers


class Book(_Meta):
    """One Book (scenario): its case file cards and Showdown."""

    key: str
    name: str
    number: int | None = None  # place in the campaign (1-5)
    showdown: ShowdownCard
    cards: list[BookCard]

    @field_validator("cards")
    @classmethod
    def _twelve(cls, cards: list[BookCard]) -> list[BookCard]:
        if len(cards) != 12:
            raise ValueError(f"a Book deck deals 12 cards into the rows, not {len(cards)}")
        return cards


class SideJobs(_Meta):
    """The Side Jobs generator table of a pack."""

    showdowns: list[ShowdownCard]
    cards: list[BookCard]


class PackInfo(BaseModel):
    """Who made a pack and where its content comes from."""

    model_config = ConfigDict(extra="forbid")
    key: str
    title: str
    authored: bool = False
    source: str = ""


class Pack(BaseModel):
    """A validated card pack: characters, Books and side jobs."""

    model_config = ConfigDict(extra="forbid")
    pack: PackInfo
    characters: list[Character] = Field(default_factory=list)
    books: list[Book] = Field(default_factory=list)
    side_jobs: SideJobs | None = None
