"""Options and state of a Dreamwars game: plain data that round-trips through JSON.

Cards are referenced by uid (``c17``); ``cards`` maps each uid to its content key and never
changes, so copies of a state share it. Rules the rulebook leaves open are named options.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, Field
from pydantic_core import PydanticUndefined

from bot.games.base import copy_with_values, trusted_values

DECKS = ("common", "tech", "cantici", "shards", "outland", "city", "events")
HISTORY_MAX = 300  # chronicle lines kept for /game history


class DwOptions(BaseModel):
    """The options a lobby sets for a game."""

    party: int | None = Field(
        default=None,
        ge=1,
        le=8,
        title="Heroes in all",
        description="How many heroes play (1-8), shared round-robin by the seats, so one player "
        "may run several; default one per seat. Add AI seats in the lobby for AI heroes; alone "
        "with no AI seat you run them all (solo play).",
    )
    great_nemesis: str | None = Field(
        default=None, title="Great Nemesis", description="Drawn at random when not chosen."
    )
    single_scenario: bool = Field(
        default=False,
        title="One scenario only",
        description="Play one scenario as a stand-alone game, not the whole Ordeal.",
    )
    heroes: list[str] | None = Field(
        default=None, title="Heroes", description="In seat order; dealt at random when not set."
    )
    scenario: str | None = Field(
        default=None, title="Start at scenario", description="Instead of the Ordeal's first."
    )
    simple_events: bool = Field(
        default=False,
        title="Simple Events phase",
        description="The alternative Events phase: an Event lasts one turn, no Stellar Symbols.",
    )
    replace_dead: bool = Field(
        default=True,
        title="Replace dead heroes",
        description="A dead hero's player takes a hero not yet on the map at a set-up space.",
    )
    prototype_malfunction_on_success: bool = Field(
        default=True,
        title="Prototypes break on a passed 4-6",
        description="Unwritten rule: does a Prototype malfunction on a natural 4-6 that passed?",
    )
    nemesis_river_stop: bool = Field(
        default=True,
        title="Nemeses stop on rivers",
        description="Unwritten rule: a Nemesis neither Aquatic nor Flying stops on a river space.",
    )
    turn_limit: int = Field(
        default=60,
        ge=5,
        le=200,
        title="Turn limit",
        description="Safety net: the game ends lost after this many turns.",
        json_schema_extra={"lobby": False},
    )


class HeroState(BaseModel):
    """A hero in play: where, what it carries, its wounds."""

    key: str
    seat: str
    node: str
    wounds: int = 0
    items: list[str] = Field(default_factory=list)  # Common and Tech Items (uids)
    cantici: list[str] = Field(default_factory=list)
    shards: list[str] = Field(default_factory=list)
    allies: list[str] = Field(default_factory=list)  # Adventure cards kept as Allies/Mercenaries
    ally_uses: dict[str, int] = Field(default_factory=dict)
    mounted: dict[str, str] = Field(default_factory=dict)  # add-on uid -> item uid
    armour: str | None = None  # worn this turn
    shield: str | None = None
    vehicle: str | None = None
    buffs: list[str] = Field(default_factory=list)  # "card:key" whose effects last this turn
    actions: int = 2
    steps: int = 0  # spaces left in the movement under way
    moving: bool = False
    moved: bool = False  # the ordinary movement is done (or started)
    extra: int = 0  # extra movements granted this turn
    special_used: bool = False  # the one extra/special movement of the turn is taken
    no_move: bool = False  # failed a Dodge test this turn
    meditated: bool = False
    acted: bool = False  # armour and shields are chosen before anything else
    traded_with: list[int] = Field(default_factory=list)
    used_prestige: list[str] = Field(default_factory=list)  # this turn
    spent_prestige: list[str] = Field(default_factory=list)  # rechargeable, not reloaded
    unlocked: list[str] = Field(default_factory=list)
    deeds: dict[str, int] = Field(default_factory=dict)
    lose_turns: int = 0
    door: int | None = None  # turns left At Death's Door
    dead: bool = False
    hidden: bool = False
    statuses: dict[str, int] = Field(
        default_factory=dict
    )  # alteration -> turns left (0: until cured)
    supply: int = 0
    dreamstone: bool = False


class NemesisState(BaseModel):
    """A Nemesis marker on the board."""

    uid: str
    key: str  # a marker key, or "siege_tower"
    node: str
    wounds: int = 0
    stunned: bool = False


class Decision(BaseModel):
    """What the game waits for from the active hero: option id -> label."""

    kind: Literal["adventure", "keep", "discard", "location", "cantici"]
    prompt: str
    options: dict[str, str]
    cards: list[str] = Field(default_factory=list)  # drawn cards waiting on the choice
    keep: int = 1
    deck: str = ""
    private: bool = False  # the labels name cards in a hand


class Outcome(BaseModel):
    """How a scenario ended."""

    scenario: str
    won: bool
    turns: int


class DwState(BaseModel):
    """The whole state of one game, stored as JSON in its row."""

    options: DwOptions
    seats: list[str]
    heroes: list[HeroState]
    party: int
    great: str
    ordeal: str
    scenario: str
    phase: Literal["heroes", "over"] = "heroes"
    turn: int = 1
    total_turns: int = 1
    watch: int | None = None
    first: int = 0  # the Crescent Moon: the hero who acts first this turn
    active: int = 0
    done: list[int] = Field(default_factory=list)  # heroes whose phase is over this turn
    nemeses: list[NemesisState] = Field(default_factory=list)
    towers: list[NemesisState] = Field(default_factory=list)  # siege towers
    horde: list[str] = Field(default_factory=list)  # marker keys in the bag
    decks: dict[str, list[str]] = Field(default_factory=dict)  # top of the deck first
    discards: dict[str, list[str]] = Field(default_factory=dict)
    cards: dict[str, str] = Field(default_factory=dict)  # uid -> content key (never changes)
    in_play: list[tuple[str, int]] = Field(default_factory=list)  # Event uid, turn drawn
    stars_now: list[int] = Field(default_factory=list)  # Stars-are-Right rules met this turn
    decision: Decision | None = None
    ending: bool = False  # the active hero's phase is over once pending choices are made
    adventure: str | None = None  # the Adventure card being resolved
    unknown: dict[str, bool] = Field(default_factory=dict)  # node -> is the Dreamstone
    dropped_stone: str | None = None  # where a dead carrier dropped the Dreamstone
    supply_tokens: dict[str, int] = Field(default_factory=dict)
    delivered: int = 0
    coaches: list[str] = Field(default_factory=list)
    train: str | None = None
    cannons: list[str] = Field(default_factory=list)
    kills: dict[str, int] = Field(default_factory=dict)  # this scenario, by marker
    reached: int = 0  # Nemeses or towers that reached the scenario's target
    limit_turn: int = 0  # last turn the Nemesis limit was reached
    deaths: int = 0
    outcomes: list[Outcome] = Field(default_factory=list)
    result: Literal["won", "lost"] | None = None
    chronicle: list[str] = Field(default_factory=list)
    next_uid: int = 0

    def clone(self) -> DwState:
        """A working copy for one step: containers are copied one level down, nothing deeper
        than a hero or a Nemesis (strings are shared; ``cards`` never changes). Much cheaper
        than a deep copy, and the input state stays untouched."""
        fields = dict(self.__dict__)
        fields["heroes"] = [_copy_hero(h) for h in self.heroes]
        fields["nemeses"] = [_shallow(n) for n in self.nemeses]
        fields["towers"] = [_shallow(n) for n in self.towers]
        fields["decks"] = {k: list(v) for k, v in self.decks.items()}
        fields["discards"] = {k: list(v) for k, v in self.discards.items()}
        for name in _STATE_LISTS:
            fields[name] = list(fields[name])
        for name in _STATE_DICTS:
            fields[name] = dict(fields[name])
        if self.decision is not None:
            decision = _shallow(self.decision)
            decision.__dict__["cards"] = list(self.decision.cards)
            decision.__dict__["options"] = dict(self.decision.options)
            fields["decision"] = decision
        return _rebuild(self, fields)


_STATE_LISTS = (
    "horde",
    "in_play",
    "stars_now",
    "done",
    "coaches",
    "cannons",
    "outcomes",
    "chronicle",
)
_STATE_DICTS = ("unknown", "supply_tokens", "kills")
_HERO_LISTS = (
    "items",
    "cantici",
    "shards",
    "allies",
    "buffs",
    "traded_with",
    "used_prestige",
    "spent_prestige",
    "unlocked",
)
_HERO_DICTS = ("ally_uses", "mounted", "deeds", "statuses")

ModelT = TypeVar("ModelT", bound=BaseModel)


def _rebuild(model: ModelT, fields: dict[str, object]) -> ModelT:
    """A model with these field values, bypassing validation (the values are already valid)."""
    return copy_with_values(model, fields)


def fast_model(cls: type[ModelT], fields: dict[str, object]) -> ModelT:
    """A model from values known to be valid, every field given (much faster than
    ``model_construct`` for the thousands of small objects a simulation makes)."""
    return trusted_values(cls, fields)


def _shallow(model: ModelT) -> ModelT:
    return _rebuild(model, dict(model.__dict__))


def _copy_hero(hero: HeroState) -> HeroState:
    fields = dict(hero.__dict__)
    for name in _HERO_LISTS:
        fields[name] = list(fields[name])
    for name in _HERO_DICTS:
        fields[name] = dict(fields[name])
    return _rebuild(hero, fields)


def all_card_uids(state: DwState) -> list[str]:
    """Every card where it is now (for the conservation invariant)."""
    found: list[str] = []
    for pile in state.decks.values():
        found += pile
    for pile in state.discards.values():
        found += pile
    for hero in state.heroes:
        found += hero.items + hero.cantici + hero.shards + hero.allies
    found += [uid for uid, _turn in state.in_play]
    if state.decision is not None:
        found += state.decision.cards
    if state.adventure is not None:
        found.append(state.adventure)
    return found


# -- the plain working form of an AI-only game ----------------------------------------------------
# An AI-only game changes one state in place thousands of times and nobody reads it on the way:
# it runs on slotted objects with the models' field names (pydantic's checked assignment costs
# more than the change), made from the models and back at the ends of the game.


class _Plain:
    __slots__ = ()
    model: type[BaseModel]
    fields: tuple[str, ...]
    defaults: tuple[tuple[str, Any, Any], ...]  # (name, default, factory) of optional fields
    required: frozenset[str]  # the other fields

    def __init__(self, **given: Any) -> None:
        """Like the model's constructor (its defaults), without validation."""
        for name, default, factory in self.defaults:
            setattr(self, name, default if factory is None else factory())
        for name, value in given.items():
            setattr(self, name, value)
        if not given.keys() >= self.required:
            missing = sorted(self.required - given.keys())
            raise TypeError(f"{self.model.__name__} needs {', '.join(missing)}")


def _plain_class(model: type[BaseModel]) -> type[_Plain]:
    names = tuple(model.model_fields)
    defaults = tuple(
        (name, info.default, info.default_factory)
        for name, info in model.model_fields.items()
        if info.default is not PydanticUndefined or info.default_factory is not None
    )
    required = frozenset(names) - {name for name, _default, _factory in defaults}
    return type(
        f"Plain{model.__name__}",
        (_Plain,),
        {
            "__slots__": names,
            "model": model,
            "fields": names,
            "defaults": defaults,
            "required": required,
        },
    )


PlainHero = _plain_class(HeroState)
PlainNemesis = _plain_class(NemesisState)
PlainState = _plain_class(DwState)
# Their constructors, typed as the models they stand in for.
new_plain_hero = cast("Callable[..., HeroState]", PlainHero)
new_plain_state = cast("Callable[..., DwState]", PlainState)


def new_plain_nemesis(uid: str, key: str, node: str) -> NemesisState:
    """``PlainNemesis(uid=..., key=..., node=...)`` for the many a game summons: the other
    fields at NemesisState's defaults (a test holds they are)."""
    nemesis: Any = PlainNemesis.__new__(PlainNemesis)
    nemesis.uid = uid
    nemesis.key = key
    nemesis.node = node
    nemesis.wounds = 0
    nemesis.stunned = False
    return nemesis  # type: ignore[no-any-return]


PlainDecision = _plain_class(Decision)


def new_plain_decision(
    kind: str,
    prompt: str,
    options: dict[str, str],
    cards: list[str] | None = None,
    keep: int = 1,
    deck: str = "",
    private: bool = False,
) -> Decision:
    """``PlainDecision(...)`` for the one a game makes every few steps, with Decision's
    defaults (a test holds they are) set directly, not field by field through setattr."""
    decision: Any = PlainDecision.__new__(PlainDecision)
    decision.kind = kind
    decision.prompt = prompt
    decision.options = options
    decision.cards = [] if cards is None else cards
    decision.keep = keep
    decision.deck = deck
    decision.private = private
    return decision  # type: ignore[no-any-return]


def _to_plain(cls: type[_Plain], model: BaseModel) -> Any:
    plain = cls.__new__(cls)
    values = model.__dict__
    for name in cls.fields:
        setattr(plain, name, values[name])
    return plain


def _to_model(plain: Any) -> Any:
    cls = plain.__class__
    return fast_model(cls.model, {name: getattr(plain, name) for name in cls.fields})


def plain_state(state: DwState) -> DwState:
    """The working form of a state nobody else holds (its containers are taken, not copied);
    typed as the model, whose fields it has."""
    plain = _to_plain(PlainState, state)
    plain.heroes = [_to_plain(PlainHero, h) for h in state.heroes]
    plain.nemeses = [_to_plain(PlainNemesis, n) for n in state.nemeses]
    plain.towers = [_to_plain(PlainNemesis, n) for n in state.towers]
    if state.decision is not None:
        plain.decision = _to_plain(PlainDecision, state.decision)
    return plain  # type: ignore[no-any-return]


def model_state(plain: DwState) -> DwState:
    """The model of a working form (``plain_state``'s), its containers taken."""
    plain.heroes = [_to_model(h) for h in plain.heroes]
    plain.nemeses = [_to_model(n) for n in plain.nemeses]
    plain.towers = [_to_model(n) for n in plain.towers]
    if plain.decision is not None:
        plain.decision = _to_model(plain.decision)
    return _to_model(plain)  # type: ignore[no-any-return]
