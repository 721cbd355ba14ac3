"""The content of a Dreamwars pack: map, heroes, Nemeses, decks and Ordeals, as validated data.

The rulebook gives none of the game's data, so every file in ``data/dreamwars`` is authored by
the project (``authored: true``). Card effects are data: a small vocabulary of effect kinds that
the engine interprets (``EFFECT_KINDS``), so a new card never needs new Python.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Stat = Literal["melee", "skill", "tech", "arcane", "dodge", "fate", "defence", "movement"]
Deck = Literal["common", "tech", "cantici", "shards"]
AdventureDeck = Literal["outland", "city"]
Faction = Literal["ekathon", "nightwitch", "jormung"]
Star = Literal["star", "moon", "sun", "eclipse"]
SpaceType = Literal["city", "wall", "water", "river", "forest", "bridge", "road", "plain"]
Icon = Literal[
    "common_trade",
    "tech_trade",
    "arcane",
    "healing",
    "outland",
    "city",
    "portal_ekathon",
    "portal_nightwitch",
    "portal_jormung",
    "coach",
    "station",
    "cannon",
]
Ability = Literal[
    "agile",
    "aquatic",
    "behemoth",
    "brutal",
    "crystal_body",
    "fast",
    "flying",
    "leader",
    "heavy_armour",
]

# Every effect keyword the engine knows, with the fields each one needs.
EFFECT_KINDS: dict[str, tuple[str, ...]] = {
    "modify": ("stat", "amount"),  # passive: +amount to a stat while the source is active
    "heal": ("amount",),  # 0 = all lost Life Points
    "damage": ("amount",),  # Life Points lost by the target hero(es)
    "draw": ("deck", "amount"),  # equipment cards from a deck
    "lose_turn": (),
    "move_to": ("location",),
    "extra_move": (),
    "reroll_failed": (),  # passive: failed tests may be re-rolled (once each)
    "reroll_success": (),  # passive: successful tests must be re-rolled (events)
    "summon": ("amount",),  # Nemeses from the Horde at the hero's node (0 = at every portal)
    "nemesis_limit": ("amount",),  # passive
    "nemesis_move": ("amount",),  # passive: every Nemesis moves this many more spaces
    "wound_nemesis": ("amount",),  # LPs to Nemeses within ``range`` (``count`` of them)
    "stun_nemesis": (),  # Nemeses within ``range`` can neither move nor attack this turn
    "banish_nemesis": (),  # back to the Horde (not a Behemoth)
    "hide": (),  # the hero is no Primary Target this turn
    "prestige": ("amount",),  # Prestige Title tokens toward the hero's abilities
    "no_trade": (),  # passive: Trading locations do not trade
    "no_heal": (),  # passive: Healing locations do not heal
    "safe_ford": (),  # passive: rivers are crossed without the Fate test
    "aquatic": (),  # passive: the hero moves on and along river spaces with no Fate test
    "afflict": ("status",),  # the scenario's alteration status ``status`` on the target hero(es)
    "watch": ("amount",),  # move the Watch marker (negative: back)
    "supply": ("amount",),  # Supply tokens for the hero (scenario objectives)
    "ally": (),  # take the card as an Ally/Mercenary
    "pay": ("amount",),  # discard this many Dream Shards (a Mercenary's price)
}
EffectTarget = Literal["self", "here", "all"]
Where = Literal["any", "city", "outland", "forest", "water", "road", "location"]


class Strict(BaseModel):
    """A pack model that refuses unknown fields and never changes once loaded."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Effect(Strict):
    """One effect of a card or rule, in the engine's effect vocabulary."""

    kind: str
    stat: Stat | None = None
    amount: int = 0
    deck: Deck | None = None
    location: str | None = None
    status: str | None = None  # an alteration status of the scenario (``afflict``)
    range: int = Field(default=0, ge=0, le=6)
    count: int = Field(default=1, ge=1, le=6)
    target: EffectTarget = "self"
    where: Where = "any"
    # For passive effects: only while the hero attacks / is attacked / moves etc. (None = always)
    when: Literal["attack", "melee_attack", "ranged_attack", "always"] = "always"

    @model_validator(mode="after")
    def _known(self) -> Effect:
        needed = EFFECT_KINDS.get(self.kind)
        if needed is None:
            known = ", ".join(sorted(EFFECT_KINDS))
            raise ValueError(f"unknown effect kind {self.kind!r}; use one of: {known}")
        for name in needed:
            if name == "amount":
                continue
            if getattr(self, name) is None:
                raise ValueError(f"effect {self.kind!r} needs the field {name!r}")
        return self


class TestSpec(Strict):
    """A test such as "Test your Skill (-1)" or "Test your Fate 3": a characteristic and a
    modifier, or a threshold for the special tests (Fate, Defence)."""

    stat: Stat
    modifier: int = 0
    threshold: int | None = Field(default=None, ge=0, le=6)

    @model_validator(mode="after")
    def _threshold(self) -> TestSpec:
        if self.stat in ("fate", "defence") and self.threshold is None:
            raise ValueError(f"a {self.stat} test needs a threshold (e.g. threshold: 3)")
        return self


# -- map --------------------------------------------------------------------------------------
class Node(Strict):
    """A location of the map."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str = Field(min_length=1, max_length=40)
    kind: Literal["space", "location"]
    type: SpaceType = "plain"
    icons: list[Icon] = Field(default_factory=list)
    x: int = Field(ge=0, le=1000)
    y: int = Field(ge=0, le=1000)
    region: Literal["halfen", "folkenburg", "outland"] = "outland"


class MapPack(Strict):
    """A pack file with the map."""

    game: Literal["dreamwars"]
    kind: Literal["map"]
    authored: Literal[True]
    name: str
    nodes: list[Node]
    # Each path is a chain of node keys; consecutive keys are connected both ways.
    paths: list[list[str]]
    rail: list[str] = Field(default_factory=list)  # the train's stations in order


# -- heroes -----------------------------------------------------------------------------------
class Prestige(Strict):
    """A hero's prestige ability."""

    key: str
    name: str
    # Requirement: a counter of the hero's deeds reaching ``needs``.
    requires: Literal["kills", "adventures", "cantici", "shards", "heals", "titles"]
    needs: int = Field(ge=1, le=12)
    kind: Literal["static", "rechargeable"]
    effects: list[Effect]
    text: str


class Belongings(Strict):
    """How many cards of each equipment deck a hero starts with."""

    common: int = Field(default=0, ge=0, le=4)
    tech: int = Field(default=0, ge=0, le=4)
    cantici: int = Field(default=0, ge=0, le=4)
    shards: int = Field(default=0, ge=0, le=4)


class Hero(Strict):
    """A playable hero: characteristics, belongings and abilities."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,16}$")
    name: str
    title: str
    traits: list[str]
    melee: int = Field(ge=0, le=6)
    skill: int = Field(ge=0, le=6)
    tech: int = Field(ge=0, le=6)
    arcane: int = Field(ge=0, le=6)
    movement: int = Field(ge=1, le=6)
    life: int = Field(ge=1, le=8)
    max_load: int = Field(ge=1, le=8)
    max_cantici: int = Field(ge=0, le=6)
    prestige: list[Prestige] = Field(min_length=3, max_length=3)
    belongings: Belongings
    flavour: str = ""


class HeroPack(Strict):
    """A pack file with heroes."""

    game: Literal["dreamwars"]
    kind: Literal["heroes"]
    authored: Literal[True]
    heroes: list[Hero]


# -- Nemeses --------------------------------------------------------------------------------
class Marker(Strict):
    """A Nemesis marker: its strength and what it does."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str
    faction: Faction
    defence: int = Field(ge=1, le=6)
    life: int = Field(ge=1, le=12)
    movement: int = Field(ge=0, le=8)
    abilities: list[Ability] = Field(default_factory=list)
    ranged: int = Field(default=0, ge=0, le=4)  # range of its Ranged Attack, 0 = none
    copies: int = Field(default=1, ge=1, le=12)
    background: str = ""


class StarsRule(Strict):
    """What happens when the Events in play show enough star symbols."""

    needs: dict[Star, int]  # at least this many of each symbol among the Events in play
    effects: list[Effect]
    text: str


class GreatNemesis(Strict):
    """A Great Nemesis and its rules."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str
    title: str
    faction: Faction
    ordeal: str
    effects: list[Effect] = Field(default_factory=list)  # all game long
    at_limit: list[Effect]  # while the Nemesis limit is reached
    stars: list[StarsRule] = Field(default_factory=list)
    text: str


class EventCard(Strict):
    """An Event card: its stars and effects."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str
    faction: Faction
    portals: list[str] = Field(min_length=1, max_length=3)
    star: Star
    effects: list[Effect] = Field(default_factory=list)  # while in play (or 1 turn)
    immediate: list[Effect] = Field(default_factory=list)  # once, when drawn
    one_turn: bool = False
    copies: int = Field(default=1, ge=1, le=6)
    text: str


class NemesisPack(Strict):
    """A pack file with Nemesis markers, Great Nemeses and Events."""

    game: Literal["dreamwars"]
    kind: Literal["nemeses"]
    authored: Literal[True]
    great: list[GreatNemesis]
    markers: list[Marker]
    events: list[EventCard]


# -- equipment --------------------------------------------------------------------------------
class Item(Strict):
    """An equipment card."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str
    deck: Deck
    type: Literal["weapon", "armour", "shield", "vehicle", "addon", "tool", "cantico", "shard"]
    traits: list[Literal["ranged", "encumbering", "prototype", "consumable"]] = Field(
        default_factory=list
    )
    range: int = Field(default=0, ge=0, le=4)  # ranged weapons and Cantici that reach
    damage: int = Field(default=1, ge=0, le=4)
    targets: int = Field(default=1, ge=1, le=3)  # Nemeses one attack may wound
    movement: int = Field(default=0, ge=0, le=8)  # vehicles
    attach: Literal["same", "any", "weapon", "armour"] = "same"  # add-ons
    effects: list[Effect] = Field(default_factory=list)
    copies: int = Field(default=1, ge=1, le=10)
    text: str

    @model_validator(mode="after")
    def _consistent(self) -> Item:
        if self.deck == "cantici" and self.type != "cantico":
            raise ValueError("a card of the cantici deck has type: cantico")
        if self.deck == "shards" and self.type != "shard":
            raise ValueError("a card of the shards deck has type: shard")
        if "ranged" in self.traits and self.range < 1:
            raise ValueError("a ranged weapon needs range: 1 or more")
        if self.type == "vehicle" and self.movement < 1:
            raise ValueError("a vehicle needs movement: 1 or more")
        return self


class EquipmentPack(Strict):
    """A pack file with equipment decks."""

    game: Literal["dreamwars"]
    kind: Literal["equipment"]
    authored: Literal[True]
    items: list[Item]


# -- adventures --------------------------------------------------------------------------------
class Approach(Strict):
    """A gem on an Adventure card: one way to deal with it, with the swords (outcomes)."""

    label: str = Field(min_length=1, max_length=60)
    test: TestSpec | None = None
    attack: bool = False  # an Attack: the hero's best weapon counts (a plain test ignores it)
    modifier: int = Field(default=0, ge=-3, le=3)  # to the Attack
    cost: int = Field(default=0, ge=0, le=3)  # Dream Shards paid (a Mercenary's price)
    success: list[Effect] = Field(default_factory=list)
    failure: list[Effect] = Field(default_factory=list)


class AdventureCard(Strict):
    """An Adventure card."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str
    deck: AdventureDeck
    type: Literal["encounter", "treasure", "ally", "mercenary"]
    text: str
    approaches: list[Approach] = Field(min_length=1, max_length=4)
    abilities: list[Effect] = Field(default_factory=list)  # an Ally's while it stays
    uses: int = Field(default=0, ge=0, le=6)  # 0 = for the whole game
    copies: int = Field(default=1, ge=1, le=6)


class AdventurePack(Strict):
    """A pack file with Adventure cards."""

    game: Literal["dreamwars"]
    kind: Literal["adventures"]
    authored: Literal[True]
    cards: list[AdventureCard]


# -- Ordeals ------------------------------------------------------------------------------------
class Objective(Strict):
    """What an Ordeal's scenario asks the heroes to do."""

    kind: Literal[
        "deliver",  # bring the found Dreamstone (or ``amount`` Supply) to ``location``
        "supply",  # gather ``amount`` Supply tokens at ``location``
        "kill",  # kill ``amount`` Nemeses (of ``marker`` if given)
        "survive",  # reach the end of turn ``amount``
        "watch",  # the Watch passes turn ``amount``
        "all_dead",  # every hero is dead
        "reached",  # ``amount`` Nemeses or siege towers reach ``location``
    ]
    amount: int = Field(default=1, ge=1, le=40)
    marker: str | None = None
    location: str | None = None


class Status(Strict):
    """An alteration status a scenario's rules bring (poison, disease, madness ...)."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str
    text: str
    effects: list[Effect] = Field(default_factory=list)  # passive while afflicted
    damage: int = Field(default=0, ge=0, le=3)  # Life Points lost at the end of every turn
    lasts: int | None = Field(default=None, ge=1, le=20)  # turns; None: until cured
    cure: Literal["heal", "healing_location", "never"] = "heal"  # what ends it early
    caught_from: list[str] = Field(default_factory=list)  # a failed Defence test against these
    caught_in: Where | None = None  # ending a turn on such a space

    @model_validator(mode="after")
    def _passive(self) -> Status:
        for effect in self.effects:
            if effect.kind not in ("modify", "reroll_success", "no_heal"):
                raise ValueError(
                    f"a status's effects last while it does: use modify, reroll_success or "
                    f"no_heal, not {effect.kind!r}"
                )
        return self


class Scenario(Strict):
    """One scenario of an Ordeal: its set-up and objective."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str
    text: str
    start: list[str] = Field(min_length=1)  # where heroes are deployed
    nemesis_limit: int = Field(ge=2, le=40)
    watch: bool = True
    deploy: dict[str, list[str]] = Field(default_factory=dict)  # location -> marker keys
    horde_extra: list[str] = Field(default_factory=list)  # Leaders/Behemoths let in
    unknown: list[str] = Field(default_factory=list)  # locations of the Unknown tokens
    supply: list[str] = Field(default_factory=list)  # locations of Supply tokens
    coaches: list[str] = Field(default_factory=list)  # coach stations
    train: str | None = None  # the train's starting station
    cannons: list[str] = Field(default_factory=list)  # wall spaces with a cannon
    siege: list[str] = Field(default_factory=list)  # siege towers' starting nodes
    siege_target: str | None = None  # where siege towers march
    nemesis_target: str | None = None  # Primary Target of the Nemeses (None = the heroes)
    statuses: list[Status] = Field(default_factory=list)  # the scenario's alteration statuses
    victory: list[Objective]  # all must hold
    defeat: list[Objective]  # any one ends the scenario in defeat
    on_victory: str  # the next scenario's key, or "won"
    on_defeat: str  # the next scenario's key, or "lost"
    victory_text: str
    defeat_text: str


class Ordeal(Strict):
    """An Ordeal: scenarios played in order."""

    key: str = Field(pattern=r"^[a-z0-9_]{1,24}$")
    name: str
    first: str
    scenarios: list[Scenario] = Field(min_length=1)


class OrdealPack(Strict):
    """A pack file with Ordeals."""

    game: Literal["dreamwars"]
    kind: Literal["ordeals"]
    authored: Literal[True]
    ordeals: list[Ordeal]


PACK_MODELS: dict[str, type[BaseModel]] = {
    "map": MapPack,
    "heroes": HeroPack,
    "nemeses": NemesisPack,
    "equipment": EquipmentPack,
    "adventures": AdventurePack,
    "ordeals": OrdealPack,
}


def effect_locations(effects: list[Effect]) -> list[str]:
    """The locations the effects name."""
    return [e.location for e in effects if e.location]


def iter_effects(obj: Any) -> list[Effect]:
    """Every Effect nested in a content object (for cross-reference checks)."""
    found: list[Effect] = []
    if isinstance(obj, Effect):
        return [obj]
    if isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            found += iter_effects(getattr(obj, name))
    elif isinstance(obj, list | tuple):
        for item in obj:
            found += iter_effects(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            found += iter_effects(item)
    return found
