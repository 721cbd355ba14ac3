"""Dreamwars as a pure engine (see bot/games/base.py): set-up, the three phases of a turn and
the Ordeal's scenarios, with every number read from the content files.

One ``apply`` works on a cheap copy of the state (``DwState.clone``) through a ``_Ctx`` that
collects the events. The Events phase and the Nemesis phase run by themselves when the last
hero ends their Heroes phase, so the game only ever waits for the active hero.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from bot.errors import RuleError
from bot.fate.words import plural
from bot.games import draws
from bot.games.base import Action, GameEngine, GameEvent, GameResult, IllegalAction
from bot.games.base import event as game_event
from bot.games.dreamwars import dice
from bot.games.dreamwars.board import PASSIVE, Board, default_board, plain_content
from bot.games.dreamwars.content import (
    AdventureCard,
    Effect,
    EventCard,
    Hero,
    Item,
    Marker,
    Status,
)
from bot.games.dreamwars.state import (
    HISTORY_MAX,
    Decision,
    DwOptions,
    DwState,
    HeroState,
    NemesisState,
    Outcome,
    model_state,
    new_plain_decision,
    new_plain_hero,
    new_plain_nemesis,
    new_plain_state,
)
from bot.games.simulate import MAX_STEPS

TOWER = Marker(
    key="siege_tower", name="Siege Tower", faction="ekathon", defence=1, life=4, movement=1
)
PLAIN_TOWER: Marker = plain_content(TOWER)  # what contexts read, like the rest of the content
CANNON_RANGE = 3
CANNON_DAMAGE = 2
UNKNOWN_TOKENS = 10  # 9 empty and 1 Dreamstone
EQUIPMENT_DECKS = ("common", "tech", "cantici", "shards")


class DwRuleError(RuleError):
    """A move the Dreamwars rules do not allow."""


def remove(pile: list[NemesisState], marker: NemesisState) -> None:
    """Remove by identity (pydantic's field-by-field equality is slow and may match twins)."""
    for n, other in enumerate(pile):
        if other is marker:
            del pile[n]
            return


def summons_per_portal(party: int) -> int:
    """Up to 3 players: 1 Nemesis on each Portal; 4 to 6: 2; 7 or 8: 3."""
    return 1 if party <= 3 else 2 if party <= 6 else 3


READ_ONLY_DICE = random.Random(0)  # for contexts that only look (legal actions, views)


# What a hero's effects come from, the effects, their modifiers by stat, and whether they
# re-roll failed and successful tests (see _Ctx._kept_effects).
_KeptEffects = tuple[tuple[object, ...], list[Effect], dict[str | None, int], tuple[bool, bool]]


class _Kept:
    """The table's effects and the Nemesis limit as a context keeps them, each under a key of
    what it depends on (see table_effects and nemesis_limit)."""

    __slots__ = (
        "table",
        "table_key",
        "table_of_here",
        "table_here",
        "limit_key",
        "limit",
        "weapons",
        "heroes",
    )

    def __init__(self) -> None:
        self.table: list[Effect] | None = None
        self.table_key: tuple[object, ...] = ()
        self.table_of_here: list[Effect] | None = None  # the table of table_here
        self.table_here: dict[str, list[Effect]] = {}  # _table_at's, by space
        self.limit_key: tuple[object, ...] = ()
        self.limit = 0
        # hero index -> (the hero's key, the items carried, its melee and its ranged weapons)
        self.weapons: dict[int, tuple[str, tuple[str, ...], list[str], list[str]]] = {}
        # hero index -> its _KeptEffects
        self.heroes: dict[int, _KeptEffects] = {}


class _Ctx:
    """One step's working copy of a state, with its dice and events."""

    telling: ClassVar[bool] = True  # its events are kept (else only the chronicle is written)
    # What the heroes and Nemeses it adds are made of (the state's own kind).
    new_hero: ClassVar[Callable[..., HeroState]] = HeroState
    new_nemesis: ClassVar[Callable[..., NemesisState]] = NemesisState
    new_decision: ClassVar[Callable[..., Decision]] = Decision

    def __init__(
        self,
        state: DwState,
        rng: random.Random,
        board: Board,
        read_only: bool = False,
        kept: _Kept | None = None,
    ) -> None:
        self.s = state
        self.rng = rng
        self.board = board
        self.lib = board.content  # plain objects, quick to read
        self.events: list[GameEvent] = []
        # What is kept under keys of what it depends on (``kept``: shared with another context
        # of the same game, which keeps it for both: see DreamwarsEngine._game_kept).
        self._kept = _Kept() if kept is None else kept
        # A context that only looks may remember the effects in force; one that plays may not.
        # The table's effects a context that only looks has read since it last looked again
        # (its own: the kept ones may be another state's by then).
        self._table_seen: list[Effect] | None = None
        self._reach: dict[tuple[int, int, bool], list[NemesisState]] | None = (
            {} if read_only else None
        )
        self._heroes: dict[tuple[int, str | None], list[Effect]] | None = {} if read_only else None
        # (hero, weapon) -> the modifiers on each stat (value's, by a context that only looks)
        self._values: dict[tuple[int, str | None], dict[str | None, int]] | None = (
            {} if read_only else None
        )

    def look_again(self) -> None:
        """A context that only looks, at its state changed since: what it remembered is
        forgotten (the table's effects are checked against what they depend on)."""
        assert self._heroes is not None and self._reach is not None and self._values is not None
        self._heroes.clear()
        self._reach.clear()
        self._values.clear()
        self._table_seen = None

    # -- telling -----------------------------------------------------------------------------
    def say(self, text: str, kind: str = "info", chronicle: bool = False) -> None:
        self.events.append(game_event(text, kind))  # (built as GameEvent(...) would be, unchecked)
        if chronicle:
            self.s.chronicle.append(f"T{self.s.total_turns}: {text}")
            if len(self.s.chronicle) > HISTORY_MAX:
                del self.s.chronicle[: len(self.s.chronicle) - HISTORY_MAX]

    def whisper(self, hero: int, text: str) -> None:
        seat = self.s.heroes[hero].seat
        self.events.append(game_event(text, "private", audience=[seat]))

    # -- lookups -----------------------------------------------------------------------------
    def sheet(self, i: int) -> Hero:
        return self.lib.heroes[self.s.heroes[i].key]

    def name(self, i: int) -> str:
        return self.sheet(i).name

    def item(self, uid: str) -> Item:
        return self.lib.items[self.s.cards[uid]]

    def adventure(self, uid: str) -> AdventureCard:
        return self.lib.adventures[self.s.cards[uid]]

    def event(self, uid: str) -> EventCard:
        return self.lib.events[self.s.cards[uid]]

    def marker(self, n: NemesisState) -> Marker:
        key = n.key
        return PLAIN_TOWER if key == "siege_tower" else self.lib.markers[key]

    def scenario(self) -> Any:
        return self.lib.scenarios[self.s.scenario]

    def statuses(self) -> list[Status]:
        """The alteration statuses of the scenario being played (its own list: only read)."""
        return self.lib.scenarios[self.s.scenario].statuses

    def afflict(self, i: int, key: str, why: str) -> None:
        """Hero ``i`` catches the scenario's status ``key`` (once; a second time renews it)."""
        hero = self.s.heroes[i]
        status = next((st for st in self.statuses() if st.key == key), None)
        if status is None or hero.dead:
            return
        fresh = key not in hero.statuses
        hero.statuses[key] = status.lasts or 0
        if fresh:
            self.say(
                f"{self.name(i)} is struck by {status.name} ({why}): {status.text}",
                "status",
                chronicle=True,
            )

    def cure(self, i: int, how: str) -> None:
        """End the statuses that ``how`` ("heal" or "healing_location") cures."""
        hero = self.s.heroes[i]
        if not hero.statuses:
            return
        cures = {"heal"} if how == "heal" else {"heal", "healing_location"}
        for status in self.statuses():
            if status.key in hero.statuses and status.cure in cures:
                del hero.statuses[status.key]
                self.say(f"{self.name(i)} is cured of {status.name}.", "status", chronicle=True)

    def life(self, i: int) -> int:
        hero = self.s.heroes[i]
        return self.lib.heroes[hero.key].life - hero.wounds

    def alive(self, i: int) -> bool:
        return not self.s.heroes[i].dead

    def standing(self, i: int) -> bool:
        """Alive and not At Death's Door."""
        hero = self.s.heroes[i]
        return not hero.dead and hero.door is None

    def heroes_at(self, node: str) -> list[int]:
        found = []
        i = 0
        for h in self.s.heroes:
            if h.node == node and not h.dead:
                found.append(i)
            i += 1
        return found

    def weapons(self, i: int) -> tuple[list[str], list[str]]:
        """Hero ``i``'s usable melee and ranged weapons, one of each kind, in carrying order
        (only read), kept while the hero carries the same items."""
        hero = self.s.heroes[i]
        items = tuple(hero.items)
        kept = self._kept.weapons.get(i)
        if kept is None or kept[0] != hero.key or kept[1] != items:
            melee: list[str] = []
            ranged: list[str] = []
            cards = self.s.cards
            weapon_ranged = self.board.weapon_ranged
            tech_items = () if self.lib.heroes[hero.key].tech > 0 else self.board.tech_items
            seen: set[str] = set()
            for uid in items:
                key = cards[uid]
                kind = weapon_ranged.get(key)
                if kind is None or key in tech_items or key in seen:
                    continue  # not a weapon, one the hero may not use, or one more of a kind
                seen.add(key)
                (ranged if kind else melee).append(uid)
            kept = self._kept.weapons[i] = (hero.key, items, melee, ranged)
        return kept[2], kept[3]

    def foes_at(self, node: str, towers: bool = True) -> list[NemesisState]:
        found = []
        for n in self.s.nemeses:  # (a loop: cheaper than a comprehension's frame, asked often)
            if n.node == node:
                found.append(n)
        if towers and self.s.towers:
            found += [t for t in self.s.towers if t.node == node]
        return found

    # -- effects in force --------------------------------------------------------------------
    def table_effects(self) -> list[Effect]:
        seen = self._table_seen
        if seen is not None:  # a look: the table does not change
            return seen
        # They are kept while nothing they depend on has changed: the turn, the scenario, the
        # Events in play, the Stars this turn and the Nemesis limit's state (all of them: the
        # kept ones may come from another state of the game, see DreamwarsEngine._game_kept).
        s = self.s
        in_play = s.in_play
        key = (
            s.total_turns,
            s.turn,
            s.scenario,
            s.limit_turn,
            len(s.nemeses),
            tuple(in_play) if in_play else (),
            tuple(s.stars_now) if s.stars_now else (),
        )
        kept = self._kept
        table = kept.table
        if kept.table_key != key or table is None:
            table = kept.table = self._table_effects()
            kept.table_key = key
        if self._heroes is not None:
            self._table_seen = table
        return table

    def _table_effects(self) -> list[Effect]:
        s = self.s
        great = self.lib.great[s.great]
        found = list(great.effects)
        for uid, drawn in s.in_play:
            card = self.event(uid)
            if (card.one_turn or s.options.simple_events) and drawn != s.turn:
                continue
            found += card.effects
        if self.limit_active():
            found += great.at_limit
        for index in s.stars_now:
            found += [e for e in great.stars[index].effects if e.kind in PASSIVE]
        return found

    def table_has(self, kind: str) -> bool:
        for e in self.table_effects():
            if e.kind == kind:
                return True
        return False

    def nemesis_limit(self) -> int:
        # It depends on the scenario and the Events in force this turn (see table_effects).
        s = self.s
        in_play = s.in_play
        key = (s.total_turns, s.turn, s.scenario, tuple(in_play) if in_play else ())
        kept = self._kept
        if key != kept.limit_key:
            kept.limit = self._nemesis_limit()
            kept.limit_key = key
        return kept.limit

    def _nemesis_limit(self) -> int:
        s = self.s
        board = self.board
        extra = board.great_limit[s.great]
        if s.in_play:
            cards = s.cards
            events = self.lib.events
            simple = s.options.simple_events
            for uid, drawn in s.in_play:
                key = cards[uid]
                if (simple or events[key].one_turn) and drawn != s.turn:
                    continue
                extra += board.event_limit[key]
        return max(0, self.lib.scenarios[s.scenario].nemesis_limit + extra)

    def limit_active(self) -> bool:
        s = self.s
        return s.limit_turn == s.turn or len(s.nemeses) >= self.nemesis_limit()

    def _where(self, effect: Effect, node: str) -> bool:
        return self.at(effect.where, node)

    def at(self, where: str, node: str) -> bool:
        """Whether ``node`` is of the kind ``where`` (any, city, outland, water, location or a
        space type)."""
        if where == "any":
            return True
        info = self.board.nodes[node]
        if where == "city":
            return info.region != "outland"
        if where == "outland":
            return info.region == "outland"
        if where == "water":
            return self.board.watery(node)
        if where == "location":
            return info.kind == "location"
        return info.type == where

    def hero_effects(self, i: int, weapon: str | None = None) -> list[Effect]:
        """Passive effects on a hero now: carried tools, worn armour and shield, Allies,
        unlocked Prestige, this turn's Cantici and Shards, the table's effects; with the
        weapon of an Attack, ``hero_effects(i) + weapon_effects(i, weapon)``."""
        cache = self._heroes
        if cache is not None:
            known = cache.get((i, weapon))
            if known is not None:
                return known
        if weapon is None:
            found = self._kept_effects(i)[1]
        else:
            found = self.hero_effects(i) + self.weapon_effects(i, weapon)
        if cache is not None:
            cache[(i, weapon)] = found
        return found

    def weapon_effects(self, i: int, weapon: str) -> list[Effect]:
        """The effects of a carried weapon and its add-ons (none for one not carried)."""
        hero = self.s.heroes[i]
        found: list[Effect] = []
        if weapon in hero.items:
            items = self.lib.items
            cards = self.s.cards
            found += items[cards[weapon]].effects
            for addon, target in hero.mounted.items():
                if target == weapon:
                    found += items[cards[addon]].effects
        return found

    def _kept_effects(self, i: int) -> _KeptEffects:
        """Hero ``i``'s effects (only read), what their modifiers add to each stat and the
        re-rolls they give, kept while what they come from is the same (for both contexts of
        an AI-only game): a step seldom changes them, and only the active hero's."""
        s = self.s
        hero = s.heroes[i]
        # (an empty list as () without a call: most heroes have no Allies, Prestige, buffs
        # or statuses)
        source = (
            hero.key,  # (a dead hero's successor is another one)
            tuple(hero.items),
            hero.armour,
            hero.shield,
            tuple(hero.allies) if hero.allies else (),
            tuple(hero.unlocked) if hero.unlocked else (),
            tuple(hero.buffs) if hero.buffs else (),
            tuple(hero.statuses) if hero.statuses else (),
            s.scenario,  # the statuses' effects
            hero.node,
            table := self.table_effects(),
        )
        kept = self._kept.heroes.get(i)
        if kept is None or kept[0] != source:
            effects = self._effects_now(i, table)
            mods: dict[str | None, int] = {}
            failed = success = False
            for e in effects:
                kind = e.kind
                if kind == "modify":
                    mods[e.stat] = mods.get(e.stat, 0) + e.amount
                elif kind == "reroll_failed":
                    failed = True
                elif kind == "reroll_success":
                    success = True
            kept = self._kept.heroes[i] = (source, effects, mods, (failed, success))
        return kept

    def _effects_now(self, i: int, table: list[Effect] | None = None) -> list[Effect]:
        """Hero ``i``'s effects worked out anew (``table``: the table's effects, when the
        caller has just read them)."""
        s = self.s
        hero = s.heroes[i]
        board = self.board
        cards = s.cards
        found: list[Effect] = []
        carried = board.carried
        for uid in hero.items:
            found += carried[cards[uid]]
        items = self.lib.items
        if hero.armour is not None:
            found += items[cards[hero.armour]].effects
        if hero.shield is not None:
            found += items[cards[hero.shield]].effects
        if hero.allies:
            ally_passive = board.ally_passive
            for uid in hero.allies:
                found += ally_passive[cards[uid]]
        if hero.unlocked:
            for key, effects in board.static_prestige[hero.key]:
                if key in hero.unlocked:
                    found += effects
        if hero.buffs:
            buff_passive = board.buff_passive
            for buff in hero.buffs:
                passive = buff_passive.get(buff)
                if passive:
                    found += passive
        if hero.statuses:
            for status in self.statuses():
                if status.key in hero.statuses:
                    found += status.effects
        found += self._table_at(self.table_effects() if table is None else table, hero.node)
        return found

    def _table_at(self, table: list[Effect], node: str) -> list[Effect]:
        """The effects of ``table`` (the table's effects now) in force on ``node`` (only
        read), kept for each space while the table's effects are the same."""
        kept = self._kept
        if table is not kept.table_of_here:
            kept.table_of_here = table
            kept.table_here = {}
        found = kept.table_here.get(node)
        if found is None:
            at = self.at
            found = kept.table_here[node] = [
                e for e in table if e.where == "any" or at(e.where, node)
            ]
        return found

    def has(self, i: int, kind: str, effects: list[Effect] | None = None) -> bool:
        for e in self.hero_effects(i) if effects is None else effects:
            if e.kind == kind:
                return True
        return False

    def value(
        self, i: int, stat: str, weapon: str | None = None, effects: list[Effect] | None = None
    ) -> int:
        """A characteristic with every modifier that stacks on it now (``effects``:
        hero_effects(i, weapon) when the caller has them)."""
        if effects is None and self._values is not None:  # a look: every stat's at once
            mods = self._values.get((i, weapon))
            if mods is None:  # (the hero's own: the kept ones, without a call more)
                mods = self._values[(i, weapon)] = (
                    self._kept_effects(i)[2] if weapon is None else self._modifiers(i, weapon)
                )
            return self._stat(i, stat, mods.get(stat, 0))
        if effects is None and weapon is None:
            return self._stat(i, stat, self._kept_effects(i)[2].get(stat, 0))
        kept = self._kept.heroes.get(i)
        if kept is not None and kept[1] is effects:  # the kept ones: their modifiers are kept
            return self._stat(i, stat, kept[2].get(stat, 0))
        mods_now = 0
        for e in self.hero_effects(i, weapon) if effects is None else effects:
            if e.stat == stat and e.kind == "modify":
                mods_now += e.amount
        return self._stat(i, stat, mods_now)

    def _modifiers(self, i: int, weapon: str | None) -> dict[str | None, int]:
        """What the modifiers of hero_effects(i, weapon) add to each stat (a look's): the
        hero's, plus the weapon's."""
        assert self._values is not None
        if weapon is None:
            return self._kept_effects(i)[2]  # only read: a weapon's are added to a copy
        base = self._values.get((i, None))
        if base is None:
            base = self._values[(i, None)] = self._modifiers(i, None)
        mods = dict(base)
        for e in self.weapon_effects(i, weapon):
            if e.kind == "modify":
                mods[e.stat] = mods.get(e.stat, 0) + e.amount
        return mods

    def _stat(self, i: int, stat: str, mods: int) -> int:
        """A characteristic of hero ``i`` with these modifiers on it."""
        hero = self.s.heroes[i]
        sheet = self.lib.heroes[hero.key]
        if stat == "dodge":  # Dodge = basic Movement (or the vehicle's); no Movement modifier
            base = self.item(hero.vehicle).movement if hero.vehicle else sheet.movement
            return base + mods
        if stat == "movement":
            if hero.door is not None:
                return 1
            if hero.vehicle:
                return self.item(hero.vehicle).movement
            return max(0, sheet.movement + mods)
        return getattr(sheet, stat) + mods

    def defence_mod(self, i: int, effects: list[Effect] | None = None) -> int:
        if effects is None:
            return self._kept_effects(i)[2].get("defence", 0)
        kept = self._kept.heroes.get(i)
        if kept is not None and kept[1] is effects:  # the kept ones: their modifiers are kept
            return kept[2].get("defence", 0)
        mods = 0
        for e in effects:
            if e.stat == "defence" and e.kind == "modify":
                mods += e.amount
        return mods

    def roll(self, i: int | None, value: int, effects: list[Effect] | None = None) -> dice.Roll:
        """A test of hero ``i`` (None: no hero) with the re-rolls of its effects now
        (``effects``: hero_effects(i) when the caller has them)."""
        if i is None:
            return dice.roll_test(value, self.rng)
        if effects is None:
            effects = self.hero_effects(i)
        kept = self._kept.heroes.get(i)
        if kept is not None and kept[1] is effects:  # the kept ones: their re-rolls are kept
            failed, success = kept[3]
        else:
            failed = success = False
            for e in effects:
                kind = e.kind
                if kind == "reroll_failed":
                    failed = True
                elif kind == "reroll_success":
                    success = True
        return dice.roll_test(value, self.rng, reroll_failed=failed, reroll_success=success)

    # -- cards -------------------------------------------------------------------------------
    def deck_of(self, uid: str) -> str:
        key = self.s.cards[uid]
        if key in self.lib.items:
            return self.lib.items[key].deck
        if key in self.lib.adventures:
            return self.lib.adventures[key].deck
        return "events"

    def draw(self, deck: str) -> str | None:
        pile = self.s.decks[deck]
        if not pile:
            discards = self.s.discards[deck]
            if not discards:
                return None
            pile.extend(discards)
            discards.clear()
            draws.shuffle(self.rng, pile)
            self.say(f"The {deck} deck is reshuffled from its discard pile.")
        return pile.pop(0)

    def discard(self, uid: str) -> None:
        self.s.discards[self.deck_of(uid)].append(uid)

    def take_card(self, i: int, uid: str) -> None:
        """Put a drawn Equipment card with a hero (a Cantico a hero cannot carry is lost)."""
        hero = self.s.heroes[i]
        card = self.item(uid)
        if card.deck == "shards":
            hero.shards.append(uid)
        elif card.deck == "cantici":
            if self.sheet(i).arcane == 0 or self.sheet(i).max_cantici == 0:
                self.discard(uid)
                self.say(f"{self.name(i)} cannot carry a Cantico; it is discarded.")
                return
            hero.cantici.append(uid)
        else:
            hero.items.append(uid)
        if self.telling:
            self.whisper(i, f"{self.name(i)} gains {card.name}: {card.text}")

    def load(self, i: int, extra: Iterable[str] = ()) -> int:
        load_of = self.board.load_of
        cards = self.s.cards
        total = 0
        for uid in self.s.heroes[i].items:
            total += load_of[cards[uid]]
        for uid in extra:
            total += load_of[cards[uid]]
        return total

    def drop_item(self, i: int, uid: str) -> None:
        hero = self.s.heroes[i]
        for pile in (hero.items, hero.cantici, hero.shards):
            if uid in pile:
                pile.remove(uid)
        if hero.armour == uid:
            hero.armour = None
        if hero.shield == uid:
            hero.shield = None
        if hero.vehicle == uid:
            hero.vehicle = None
        hero.mounted.pop(uid, None)
        for addon in [a for a, target in hero.mounted.items() if target == uid]:
            del hero.mounted[addon]  # the add-on stays in the Equipment, unmounted
        self.discard(uid)

    # -- Life Points -------------------------------------------------------------------------
    def hurt(self, i: int, amount: int, why: str) -> None:
        hero = self.s.heroes[i]
        if hero.dead or hero.door is not None or amount <= 0:
            return
        hero.wounds = min(self.sheet(i).life, hero.wounds + amount)
        if self.telling:
            self.say(
                f"{self.name(i)} loses {amount} Life Point(s) ({why}): "
                f"{self.life(i)}/{self.sheet(i).life} left.",
                "damage",
            )
        if self.life(i) == 0:
            hero.door = self.sheet(i).life
            hero.moving = False
            hero.steps = 0
            self.say(
                f"{self.name(i)} is At Death's Door for {hero.door} turn(s).",
                "door",
                chronicle=True,
            )

    def heal(self, i: int, amount: int, why: str, location: bool = False) -> None:
        """Regain Life Points (``amount`` 0: all); any healing cures the statuses healing
        ends, healing at a Healing location (``location``) also those only it ends."""
        hero = self.s.heroes[i]
        if hero.dead:
            return
        self.cure(i, "healing_location" if location else "heal")
        if hero.wounds == 0:
            return
        healed = hero.wounds if amount <= 0 else min(amount, hero.wounds)
        hero.wounds -= healed
        hero.deeds["heals"] = hero.deeds.get("heals", 0) + 1
        if self.telling:
            self.say(
                f"{self.name(i)} regains {healed} Life Point(s) ({why}): "
                f"{self.life(i)}/{self.sheet(i).life}.",
                "heal",
            )
        if hero.door is not None:
            hero.door = None
            self.say(f"{self.name(i)} is no longer At Death's Door.", "door", chronicle=True)

    def die(self, i: int) -> None:
        hero = self.s.heroes[i]
        for uid in [*hero.items, *hero.cantici, *hero.shards]:
            self.drop_item(i, uid)
        for uid in hero.allies:
            self.discard(uid)
        hero.allies.clear()
        hero.dead = True
        hero.door = None
        self.s.deaths += 1
        if hero.dreamstone:
            hero.dreamstone = False
            self.s.dropped_stone = hero.node
        if hero.supply:
            self.s.supply_tokens[hero.node] = self.s.supply_tokens.get(hero.node, 0) + hero.supply
            hero.supply = 0
        self.say(f"{self.name(i)} dies. A Death token marks the place.", "death", chronicle=True)

    # -- Nemeses -----------------------------------------------------------------------------
    def summon(self, node: str, count: int) -> int:
        s = self.s
        placed = 0
        limit = self.nemesis_limit()  # the Events in play and the turn do not change here
        for _ in range(count):
            if len(s.nemeses) >= limit:
                s.limit_turn = s.turn
                break
            if not s.horde:
                break
            key = s.horde.pop(self.rng.randrange(len(s.horde)))
            s.next_uid += 1
            s.nemeses.append(self.new_nemesis(uid=f"n{s.next_uid}", key=key, node=node))
            placed += 1
            if self.telling:
                name = self.lib.markers[key].name
                self.say(f"A {name} is summoned at {self.board.nodes[node].name}.", "summon")
        if len(s.nemeses) >= limit:
            s.limit_turn = s.turn
        return placed

    def to_horde(self, key: str) -> None:
        """Back into the bag, unless the marker was never part of this scenario's Horde (a
        Behemoth or Leader the scenario deployed)."""
        marker = self.lib.markers[key]
        special = {"leader", "behemoth"} & set(marker.abilities)
        if not special or key in self.scenario().horde_extra:
            self.s.horde.append(key)

    def active_portals(self) -> list[str]:
        return self.board.portals.get(self.lib.great[self.s.great].faction, [])

    def wound(self, target: NemesisState, amount: int, by: int | None, why: str) -> None:
        marker = self.marker(target)
        target.wounds += amount
        left = marker.life - target.wounds
        if left > 0:
            if self.telling:
                self.say(
                    f"The {marker.name} loses {amount} Life Point(s) ({why}): {left} left.", "hit"
                )
            return
        self.say(f"The {marker.name} is killed ({why}).", "kill", chronicle=True)
        if target.key == TOWER.key:
            remove(self.s.towers, target)
            return
        remove(self.s.nemeses, target)
        self.to_horde(target.key)
        self.s.kills[target.key] = self.s.kills.get(target.key, 0) + 1
        if by is not None:
            self.deed(by, "kills")

    def deed(self, i: int, kind: str, amount: int = 1) -> None:
        hero = self.s.heroes[i]
        hero.deeds[kind] = hero.deeds.get(kind, 0) + amount
        for ability in self.sheet(i).prestige:
            if ability.key not in hero.unlocked and hero.deeds.get(ability.requires, 0) >= (
                ability.needs
            ):
                hero.unlocked.append(ability.key)
                self.say(
                    f"{self.name(i)} unlocks the Prestige ability {ability.name}: {ability.text}",
                    "prestige",
                    chronicle=True,
                )

    def targets_in_reach(self, i: int, reach: int, towers: bool = True) -> list[NemesisState]:
        if self._reach is None:
            return self._targets_in_reach(i, reach, towers)
        key = (i, reach, towers)
        found = self._reach.get(key)
        if found is None:
            found = self._reach[key] = self._targets_in_reach(i, reach, towers)
        return list(found)

    def _targets_in_reach(self, i: int, reach: int, towers: bool) -> list[NemesisState]:
        node = self.s.heroes[i].node
        kept = self.board.near[node]  # worked out once for the reaches the packs allow
        near = kept[reach] if reach in kept else frozenset(self.board.within(node, reach))
        found = []
        for n in self.s.nemeses:  # (a loop: cheaper than a comprehension's frame)
            if n.node in near:
                found.append(n)
        if towers and self.s.towers:
            found += [t for t in self.s.towers if t.node in near]
        if len(found) < 2:
            return found
        # the most wounded first (the least Life left), then the nearest
        far = self.board.dist[node]
        markers = self.lib.markers
        return sorted(
            found,
            key=lambda n: (
                (PLAIN_TOWER if n.key == "siege_tower" else markers[n.key]).life - n.wounds,
                far.get(n.node, 99),
            ),
        )

    # -- effects -----------------------------------------------------------------------------
    def apply_effects(
        self,
        i: int,
        effects: Iterable[Effect],
        source: str,
        buff: str,
        chosen: list[NemesisState] | None = None,
    ) -> None:
        """Resolve effects for hero ``i``; passive ones last this turn (``buff``). ``chosen``:
        the Nemeses the player picked for the effect on Nemeses (None: most wounded first)."""
        hero = self.s.heroes[i]

        def aimed(found: list[NemesisState], count: int) -> list[NemesisState]:
            if chosen is None:
                return found[:count]
            return [n for n in chosen if any(n is f for f in found)][:count]

        for effect in effects:
            kind = effect.kind
            if kind in PASSIVE:
                if buff and buff not in hero.buffs:
                    hero.buffs.append(buff)
            elif kind == "heal":
                for j in self._effect_heroes(i, effect):
                    self.heal(j, effect.amount, source)
            elif kind == "damage":
                for j in self._effect_heroes(i, effect):
                    self.hurt(j, effect.amount, source)
            elif kind == "draw":
                for _ in range(max(1, effect.amount)):
                    uid = self.draw(effect.deck or "common")
                    if uid is not None:
                        self.take_card(i, uid)
                if self.telling:
                    self.say(
                        f"{self.name(i)} draws {plural(max(1, effect.amount), f'{effect.deck} card')}."
                    )
            elif kind == "lose_turn":
                hero.lose_turns += 1
                self.say(f"{self.name(i)} will lose their next turn.", chronicle=True)
            elif kind == "move_to" and effect.location:
                hero.node = effect.location
                self.say(f"{self.name(i)} is taken to {self.board.nodes[hero.node].name}.")
            elif kind == "extra_move":
                hero.extra += 1
                self.say(f"{self.name(i)} may make one extra movement this turn.")
            elif kind == "summon":
                if effect.amount == 0:
                    for portal in self.active_portals():
                        self.summon(portal, 1)
                else:
                    self.summon(hero.node, effect.amount)
            elif kind == "wound_nemesis":
                for target in aimed(self.targets_in_reach(i, effect.range), effect.count):
                    self.wound(target, effect.amount, i, source)
            elif kind == "stun_nemesis":
                stunnable = self.targets_in_reach(i, effect.range, towers=False)
                for target in aimed(stunnable, effect.count):
                    target.stunned = True
                    self.say(
                        f"The {self.marker(target).name} can neither move nor attack this turn."
                    )
            elif kind == "banish_nemesis":
                found = [
                    n
                    for n in self.targets_in_reach(i, effect.range, towers=False)
                    if "behemoth" not in self.marker(n).abilities
                ]
                for target in aimed(found, effect.count):
                    remove(self.s.nemeses, target)
                    self.to_horde(target.key)
                    self.say(f"The {self.marker(target).name} is banished to the Horde.")
            elif kind == "hide":
                hero.hidden = True
                self.say(f"{self.name(i)} is no Primary Target this turn.")
            elif kind == "prestige":
                self.deed(i, "titles", max(1, effect.amount))
                if self.telling:
                    self.say(
                        f"{self.name(i)} earns {max(1, effect.amount)} Prestige Title token(s)."
                    )
            elif kind == "watch" and self.s.watch is not None:
                self.s.watch = max(1, self.s.watch + effect.amount)
            elif kind == "supply":
                hero.supply += max(1, effect.amount)
            elif kind == "afflict" and effect.status:
                for j in self._effect_heroes(i, effect):
                    self.afflict(j, effect.status, source)

    def _effect_heroes(self, i: int, effect: Effect) -> list[int]:
        if effect.target == "self":
            return [i]
        if effect.target == "here":
            return self.heroes_at(self.s.heroes[i].node)
        return [
            j
            for j in range(len(self.s.heroes))
            if self.alive(j) and self._where(effect, self.s.heroes[j].node)
        ]


class _Goal:
    """An Objective as _check reads it, after every step (slots: quicker to read than a
    NamedTuple's fields)."""

    __slots__ = ("kind", "amount", "marker", "location")

    def __init__(self, kind: str, amount: int, marker: str | None, location: str | None) -> None:
        self.kind = kind
        self.amount = amount
        self.marker = marker
        self.location = location


def _holds(s: DwState, goal: _Goal, end_turn: bool) -> bool:
    """Whether a scenario's goal holds now (``end_turn``: at the end of a turn)."""
    kind = goal.kind
    if kind == "deliver":
        location = goal.location
        for h in s.heroes:
            if h.dreamstone and h.node == location and not h.dead:
                return True
        return False
    if kind == "supply":
        return s.delivered >= goal.amount
    if kind == "kill":
        if goal.marker:
            return s.kills.get(goal.marker, 0) >= goal.amount
        return sum(s.kills.values()) >= goal.amount
    if kind == "survive" or kind == "watch":
        return end_turn and s.turn >= goal.amount
    if kind == "all_dead":
        for h in s.heroes:
            if not h.dead:
                return False
        return True
    if kind == "reached":
        return s.reached >= goal.amount
    return False


@dataclass
class Parts:
    """The modules that make up the engine besides this one (moves, AI, views, simulation),
    given by the package (bot/games/dreamwars/__init__.py) so that this module imports none
    of them: they import the engine, never the other way round."""

    legal_actions: Callable[[Any, _Ctx], list[Action]]
    # the legal ids the AI may choose, by kind (ai.Moves), looked at again at each step
    ai_moves: Callable[[_Ctx], Any]
    perform: Callable[[Any, _Ctx, str], None]
    over_limit_decision: Callable[[_Ctx, int], bool]
    choose: Callable[[Any, DwState, str, random.Random], Action]
    choose_move: Callable[[_Ctx, Any], str]  # choose's, from the ai_moves
    public_view: Callable[[Any, DwState], dict[str, Any]]
    private_view: Callable[[Any, DwState, str, dict[str, Any] | None], dict[str, Any]]
    hand_view: Callable[[_Ctx, str], dict[str, Any]]  # the hand's part of private_view
    simulate: Callable[..., dict[str, Any]]


class _QuietCtx(_Ctx):
    """A _Ctx that keeps no events: an AI-only game's (nobody reads its log), on the state's
    plain working form (``plain_state``). What a step writes into the state (its chronicle) is
    written as ever."""

    telling = False  # what says no more than an event is not even written out
    new_hero = new_plain_hero
    new_nemesis = staticmethod(new_plain_nemesis)
    new_decision = staticmethod(new_plain_decision)

    def say(self, text: str, kind: str = "info", chronicle: bool = False) -> None:
        if chronicle:
            self.s.chronicle.append(f"T{self.s.total_turns}: {text}")
            if len(self.s.chronicle) > HISTORY_MAX:
                del self.s.chronicle[: len(self.s.chronicle) - HISTORY_MAX]

    def whisper(self, hero: int, text: str) -> None:
        return None


class DreamwarsEngine(GameEngine[DwState, DwOptions]):
    """Dreamwars as a pure GameEngine."""

    parts: ClassVar[Parts]  # set once by the package

    key = "dreamwars"
    name = "Dreamwars"
    min_players = 1
    max_players = 8
    options_model = DwOptions
    state_model = DwState
    lobby_first = ("party", "great_nemesis", "single_scenario")

    def __init__(self, board: Board | None = None) -> None:
        self._board = board
        self._last_legal: tuple[DwState, str, list[Action]] | None = None
        self._kept_of_game: tuple[dict[str, str], _Kept] | None = None  # _game_kept's
        # moment -> scenario -> the goals _check reads then (worked out once)
        self._goals: dict[str, dict[str, tuple[tuple[_Goal, ...] | None, tuple[_Goal, ...]]]] = {
            "step": {},
            "end_turn": {},
        }
        self._cards: dict[str, tuple[dict[str, str], dict[str, list[str]]]] = {}  # _cards_of's

    @property
    def board(self) -> Board:
        if self._board is None:
            self._board = default_board()
        return self._board

    def _ctx(
        self, state: DwState, rng: random.Random | None = None, kept: _Kept | None = None
    ) -> _Ctx:
        """A context to play a step (with dice), or only to look (``rng`` None); ``kept``:
        what another context of the same state keeps, to share."""
        if kept is None:
            kept = self._game_kept(state)
        if rng is None:
            return _Ctx(state, READ_ONLY_DICE, self.board, read_only=True, kept=kept)
        return _Ctx(state, rng, self.board, kept=kept)

    def _game_kept(self, state: DwState) -> _Kept:
        """What the contexts of one game keep for each other, from one move to the next (the
        table's effects, the heroes'): the last game's, known by its ``cards`` (never changed,
        shared by every copy of its state; a new or loaded game has its own)."""
        last = self._kept_of_game
        if last is None or last[0] is not state.cards:
            last = self._kept_of_game = (state.cards, _Kept())
        return last[1]

    # -- lobby -------------------------------------------------------------------------------
    def option_values(self) -> dict[str, list[str]]:
        lib = self.board.lib
        return {
            "party": [str(n) for n in range(1, 9)],
            "great_nemesis": list(lib.great),
            "heroes": list(lib.heroes),
            "scenario": list(lib.scenarios),
        }

    def simulate(self, options: DwOptions, players: int, games: int, seed: int) -> dict[str, Any]:
        return self.parts.simulate(games, players, seed, options.model_dump(exclude_defaults=True))

    def validate_pack_text(self, text: str, filename: str) -> list[str] | None:
        from pathlib import Path

        from bot.games.dreamwars.packs import is_dreamwars_file, sibling_library, validate_text

        if not is_dreamwars_file(text):
            return None
        return validate_text(text, filename, sibling_library(Path(filename)))

    def option_value_labels(self) -> dict[str, dict[str, str]]:
        lib = self.board.lib
        return {
            "party": {str(n): f"{n} hero{'es' if n > 1 else ''}" for n in range(1, 9)},
            "great_nemesis": {k: f"{g.name}, {g.title}" for k, g in lib.great.items()},
            "heroes": {k: f"{h.name}, {h.title}" for k, h in lib.heroes.items()},
            "scenario": {k: s.name for k, s in lib.scenarios.items()},
        }

    def opening(self, state: DwState) -> list[str]:
        """The set-up as the chronicle tells it: the Great Nemesis, the Ordeal, the scenario and
        the first Event."""
        return list(state.chronicle)

    # -- set-up (the rulebook's order) -------------------------------------------------------
    def new_game(self, options: DwOptions, seats: list[str], rng: random.Random) -> DwState:
        return self._new_game(options, seats, rng, plain=False)

    def _new_game(
        self, options: DwOptions, seats: list[str], rng: random.Random, plain: bool
    ) -> DwState:
        """``new_game``; ``plain``: the same game in its plain working form, set up by a
        context that keeps no events (an AI-only game's)."""
        lib = self.board.content
        if not 1 <= len(seats) <= 8:
            raise DwRuleError("Dreamwars is played by 1 to 8 players.")
        party = options.party or len(seats)
        if party < len(seats):
            raise DwRuleError("Every player needs a hero: the party must be at least the seats.")
        # 2. the first player (Crescent Moon) at random; 4. heroes at random or as chosen.
        first = rng.randrange(party)
        if options.heroes:
            unknown = [k for k in options.heroes if k not in lib.heroes]
            if unknown:
                raise DwRuleError(
                    f"Unknown hero {unknown[0]!r}; choose from: " + ", ".join(lib.heroes)
                )
            if len(set(options.heroes)) != len(options.heroes):
                raise DwRuleError("Each hero can be played once.")
            keys = list(options.heroes[:party])
            rest = [k for k in lib.heroes if k not in keys]
            rng.shuffle(rest)
            keys += rest[: party - len(keys)]
        else:
            keys = list(lib.heroes)
            rng.shuffle(keys)
            keys = keys[:party]
        # 5. the Great Nemesis: its faction picks the Events deck, the Horde and the Ordeal.
        if options.great_nemesis:
            if options.great_nemesis not in lib.great:
                raise DwRuleError(
                    f"Unknown Great Nemesis {options.great_nemesis!r}; choose "
                    "from: " + ", ".join(lib.great)
                )
            great = lib.great[options.great_nemesis]
        else:
            great = lib.great[rng.choice(sorted(lib.great))]
        ordeal = lib.ordeals[great.ordeal]
        scenario = options.scenario or ordeal.first
        if scenario not in {s.key for s in ordeal.scenarios}:
            raise DwRuleError(f"{scenario!r} is not a scenario of {ordeal.name}.")
        # (``plain``: the working form made at once, not a model validated then converted)
        new_state = new_plain_state if plain else DwState
        new_hero = new_plain_hero if plain else HeroState
        state = new_state(
            options=options,
            seats=list(seats),
            heroes=[
                new_hero(key=k, seat=seats[n % len(seats)], node="") for n, k in enumerate(keys)
            ],
            party=party,
            great=great.key,
            ordeal=ordeal.key,
            scenario=scenario,
            first=first,
        )
        # 6.-7. the decks: Events of the faction, the four Equipment and two Adventure decks.
        cards, unshuffled = self._cards_of(great.faction)
        decks = {deck: list(pile) for deck, pile in unshuffled.items()}
        for pile in decks.values():
            draws.shuffle(rng, pile)
        state.cards = dict(cards)
        state.decks = decks
        state.discards = {d: [] for d in decks}
        if plain:
            ctx: _Ctx = _QuietCtx(state, rng, self.board)
        else:
            ctx = self._ctx(state, rng)
        ctx.say(
            f"The Great Nemesis is {great.name}, {great.title}. The Ordeal: {ordeal.name}.",
            "setup",
            chronicle=True,
        )
        # Initial belongings, drawn at random; blood tokens equal to the Life Points.
        for i, hero in enumerate(state.heroes):
            belongings = ctx.sheet(i).belongings
            for deck in EQUIPMENT_DECKS:
                for _ in range(getattr(belongings, deck)):
                    uid = ctx.draw(deck)
                    if uid is not None:
                        ctx.take_card(i, uid)
            while ctx.load(i) > ctx.sheet(i).max_load:
                ctx.drop_item(i, hero.items[-1])
            if ctx.telling:
                ctx.say(
                    f"{ctx.name(i)} ({ctx.sheet(i).title}) joins, played by seat {hero.seat}.",
                    "setup",
                )
        self._setup_scenario(ctx, scenario)
        return state

    def _cards_of(self, faction: str) -> tuple[dict[str, str], dict[str, list[str]]]:
        """The cards of a game against this faction (uid -> content key) and the decks they
        make before shuffling, worked out once (only read: a game takes copies)."""
        known = self._cards.get(faction)
        if known is None:
            lib = self.board.content
            decks: dict[str, list[str]] = {
                d: [] for d in (*EQUIPMENT_DECKS, "outland", "city", "events")
            }
            cards: dict[str, str] = {}

            def add(deck: str, key: str, copies: int) -> None:
                for _ in range(copies):
                    uid = f"c{len(cards)}"
                    cards[uid] = key
                    decks[deck].append(uid)

            for item in lib.items.values():
                add(item.deck, item.key, item.copies)
            for card in lib.adventures.values():
                add(card.deck, card.key, card.copies)
            for event in lib.events.values():
                if event.faction == faction:
                    add("events", event.key, event.copies)
            known = self._cards[faction] = (cards, decks)
        return known

    def _setup_scenario(self, ctx: _Ctx, key: str) -> None:
        s = ctx.s
        lib = ctx.lib
        scenario = lib.scenarios[key]
        s.scenario = key
        faction = lib.great[s.great].faction
        # The Horde: the faction's markers, Leaders and Behemoths only if the scenario says so.
        s.horde = []
        for marker in lib.markers.values():
            if marker.faction != faction:
                continue
            special = {"leader", "behemoth"} & set(marker.abilities)
            if special and marker.key not in scenario.horde_extra:
                continue
            s.horde += [marker.key] * marker.copies
        s.nemeses = []
        for node, markers in scenario.deploy.items():
            for marker_key in markers:
                if marker_key in s.horde:
                    s.horde.remove(marker_key)
                s.next_uid += 1
                s.nemeses.append(ctx.new_nemesis(uid=f"n{s.next_uid}", key=marker_key, node=node))
        s.towers = []
        for node in scenario.siege:
            s.next_uid += 1
            s.towers.append(ctx.new_nemesis(uid=f"t{s.next_uid}", key=TOWER.key, node=node))
        for uid, _turn in s.in_play:
            ctx.discard(uid)
        s.in_play = []
        s.stars_now = []
        tokens = [False] * (UNKNOWN_TOKENS - 1) + [True]
        ctx.rng.shuffle(tokens)
        places = list(scenario.unknown)
        if places and True not in tokens[: len(places)]:
            tokens[ctx.rng.randrange(len(places))] = True
        s.unknown = dict(zip(places, tokens, strict=False))
        s.dropped_stone = None
        s.supply_tokens = {node: 1 for node in scenario.supply}
        s.delivered = 0
        s.coaches = list(scenario.coaches)
        s.train = scenario.train
        s.cannons = list(scenario.cannons)
        s.kills = {}
        s.reached = 0
        s.limit_turn = 0
        s.turn = 1
        s.watch = 0 if scenario.watch else None
        s.decision = None
        s.adventure = None
        s.ending = False
        for n, hero in enumerate(s.heroes):
            if hero.dead:
                continue
            hero.node = scenario.start[n % len(scenario.start)]
            hero.wounds = 0
            hero.door = None
            hero.lose_turns = 0
            hero.supply = 0
            hero.dreamstone = False
        ctx.say(f"Scenario: {scenario.name}. {scenario.text}", "scenario", chronicle=True)
        self._start_turn(ctx)

    # -- the turn ------------------------------------------------------------------------------
    def _start_turn(self, ctx: _Ctx) -> None:
        """Phase 1, Events; then the first hero's Heroes phase begins."""
        s = ctx.s
        s.done = []
        if s.watch is not None:
            s.watch += 1
        lib = ctx.lib
        great = lib.great[s.great]
        keep = 0 if s.options.simple_events else 2
        for uid, drawn in list(s.in_play):
            if drawn < s.turn - keep:
                s.in_play.remove((uid, drawn))
                ctx.discard(uid)
        s.stars_now = []
        if ctx.telling:
            watch = f" (Watch {s.watch})." if s.watch else "."
            ctx.say(f"Turn {s.turn} begins{watch}", "turn")
        event_uid = ctx.draw("events")
        if event_uid is not None:
            card = ctx.event(event_uid)
            s.in_play.append((event_uid, s.turn))
            ctx.say(f"Event: {card.name}. {card.text}", "event", chronicle=True)
            for effect in card.immediate:
                self._table_effect(ctx, effect, card.name)
            for portal in card.portals:
                ctx.summon(portal, summons_per_portal(s.party))
        if not s.options.simple_events:
            symbols: dict[str, int] = {}
            event_star = ctx.board.event_star
            cards = s.cards
            for u, _ in s.in_play:
                star = event_star[cards[u]]
                symbols[star] = symbols.get(star, 0) + 1
            for index, rule in enumerate(great.stars):
                for star, count in rule.needs.items():
                    if symbols.get(star, 0) < count:
                        break
                else:
                    s.stars_now.append(index)
                    ctx.say(f"The Stars are Right! {rule.text}", "stars", chronicle=True)
                    for effect in rule.effects:
                        if effect.kind not in PASSIVE:
                            self._table_effect(ctx, effect, "the Stars")
        limit = ctx.nemesis_limit()
        if len(s.nemeses) >= limit:
            s.limit_turn = s.turn
            if ctx.telling:
                ctx.say(f"The Nemesis limit ({limit}) is reached.", "limit")
        self._check(ctx, "step")
        if s.phase == "over":
            return
        s.active = s.first
        self._begin_hero(ctx)

    def _table_effect(self, ctx: _Ctx, effect: Effect, source: str) -> None:
        """An Event's or the Stars' immediate effect on the whole table."""
        if effect.kind == "summon":
            for portal in ctx.active_portals():
                ctx.summon(portal, max(1, effect.amount))
            return
        for j, hero in enumerate(ctx.s.heroes):
            if hero.dead or not ctx._where(effect, hero.node):
                continue
            if effect.kind == "damage":
                ctx.hurt(j, effect.amount, source)
            elif effect.kind == "heal":
                ctx.heal(j, effect.amount, source)

    def _begin_hero(self, ctx: _Ctx) -> None:
        s = ctx.s
        i = s.active
        hero = s.heroes[i]
        hero.actions = 0 if hero.door is not None else 2
        hero.steps = 0
        hero.moving = hero.moved = hero.no_move = hero.special_used = False
        hero.meditated = hero.acted = False
        hero.extra = 0
        hero.traded_with = []
        hero.used_prestige = []
        hero.vehicle = None
        s.ending = False
        if hero.dead:
            s.ending = True
            return
        if hero.lose_turns > 0:
            hero.lose_turns -= 1
            ctx.say(f"{ctx.name(i)} loses this turn.", "lost_turn")
            s.ending = True
            return
        self._wear_best(ctx, i)
        if ctx.telling:
            ctx.say(f"{ctx.name(i)}'s Heroes phase.", "hero_turn")

    def _wear_best(self, ctx: _Ctx, i: int) -> None:
        """Put on the best Armour and Shield carried (the player may change before acting):
        the first of the most Defence among those usable (Tech 0: a Tech Item may be carried
        but never used)."""
        hero = ctx.s.heroes[i]
        board = ctx.board
        item_type = board.item_type
        tech_items = board.tech_items
        defence_of = board.defence_of
        cards = ctx.s.cards
        tech_ok = ctx.lib.heroes[hero.key].tech > 0
        armour = shield = None
        armour_defence = shield_defence = 0
        for uid in hero.items:
            key = cards[uid]
            kind = item_type[key]
            if kind != "armour" and kind != "shield":
                continue
            if not tech_ok and key in tech_items:
                continue
            defence = defence_of[key]
            if kind == "armour":
                if armour is None or defence > armour_defence:
                    armour, armour_defence = uid, defence
            elif shield is None or defence > shield_defence:
                shield, shield_defence = uid, defence
        hero.armour = armour
        hero.shield = shield

    def _next_hero(self, ctx: _Ctx) -> None:
        s = ctx.s
        s.ending = False
        s.done.append(s.active)
        party = len(s.heroes)
        for k in range(party):
            j = (s.first + k) % party
            if j not in s.done and not s.heroes[j].dead:
                s.active = j
                self._begin_hero(ctx)
                return
        self._nemesis_phase(ctx)
        self._end_turn(ctx)

    def _nemesis_phase(self, ctx: _Ctx) -> None:
        s = ctx.s
        board = ctx.board
        markers = ctx.lib.markers
        scenario = ctx.scenario()
        bonus = 0
        for e in ctx.table_effects():
            if e.kind == "nemesis_move":
                bonus += e.amount
        ctx.say("Nemesis phase.", "phase")

        # Who a Nemesis may take as its Primary Target: (index, space) of the eligible heroes;
        # and the standing heroes on each space, who may stop it (nobody moves or falls while
        # the Nemeses move).
        eligible: list[tuple[int, str]] = []
        standing: dict[str, list[int]] = {}
        for j, h in enumerate(s.heroes):
            if not h.dead and h.door is None:
                standing.setdefault(h.node, []).append(j)
                if not h.hidden:
                    eligible.append((j, h.node))
        # Only the Nemesis that moves leaves the pile (reaching its target): each one met in
        # the loop is still there.
        for nemesis in list(s.nemeses):
            if nemesis.stunned:
                continue
            key = nemesis.key  # (ctx.marker's, without its call)
            marker = PLAIN_TOWER if key == "siege_tower" else markers[key]
            free = marker.key in board.free_movers
            table = board.dist if free else board.walk
            goal: str | None = scenario.nemesis_target
            target_hero: int | None = None
            if goal is None:
                # the nearest reachable, the first of them (eligible is in the heroes' order)
                near = table[nemesis.node]
                nearest = 99
                for j, node in eligible:
                    d = near.get(node, 99)
                    if d < nearest:
                        nearest, target_hero = d, j
                if target_hero is None:
                    continue
                goal = s.heroes[target_hero].node
            moved = 0
            for _ in range(marker.movement + bonus):
                here = nemesis.node
                if here == goal:
                    break
                if (
                    marker.ranged
                    and target_hero is not None
                    and board.distance(here, goal) <= (marker.ranged)
                ):
                    break
                engaged = standing.get(here)
                if engaged and not self._passes_by(ctx, marker, here, engaged, target_hero):
                    break
                nxt = board.next_step(here, goal, free)
                if nxt is None:
                    break
                nemesis.node = nxt
                moved += 1
                if nxt in board.rivers and not free and s.options.nemesis_river_stop:
                    break
            if moved and ctx.telling:
                ctx.say(f"The {marker.name} moves to {board.nodes[nemesis.node].name}.", "move")
            if scenario.nemesis_target and nemesis.node == scenario.nemesis_target:
                s.reached += 1
                remove(s.nemeses, nemesis)
                ctx.to_horde(nemesis.key)
                ctx.say(f"The {marker.name} reaches its target.", "reached", chronicle=True)
        if scenario.siege_target:
            for tower in list(s.towers):
                if tower.stunned:
                    continue
                nxt = board.next_step(tower.node, scenario.siege_target, False)
                if nxt is not None:
                    tower.node = nxt
                    if ctx.telling:
                        ctx.say(f"A Siege Tower rolls to {board.nodes[nxt].name}.", "move")
                if tower.node == scenario.siege_target:
                    s.reached += 1
                    remove(s.towers, tower)
                    ctx.say("A Siege Tower reaches its target!", "reached", chronicle=True)
        self._nemesis_attacks(ctx)

    def _passes_by(
        self, ctx: _Ctx, marker: Marker, node: str, heroes: list[int], target: int | None
    ) -> bool:
        """Whether a Nemesis may go on past heroes who are not its Primary Target."""
        if target is not None and target in heroes:
            return False
        board = ctx.board
        if marker.key in board.bypassers:
            return True
        return marker.key in board.aquatic_markers and board.watery(node)

    def _nemesis_attacks(self, ctx: _Ctx) -> None:
        """End of the Nemesis phase: a Defence test for each attacking Nemesis."""
        s = ctx.s
        board = ctx.board
        markers = ctx.lib.markers
        heroes = s.heroes
        effects: dict[int, list[Effect]] = {}  # each defender's (see _defend)
        # The spaces of the standing heroes: nobody moves or stands up again while the
        # Nemeses attack (a wound may only take a hero off), and no Nemesis leaves.
        occupied = {h.node for h in heroes if not h.dead and h.door is None}
        for nemesis in s.nemeses:
            if nemesis.stunned:
                continue
            key = nemesis.key  # (ctx.marker's, without its call)
            marker = PLAIN_TOWER if key == "siege_tower" else markers[key]
            node = nemesis.node
            if node in occupied:
                here = []  # the standing heroes on its space
                for j, h in enumerate(heroes):
                    if h.node == node and not h.dead and h.door is None:
                        here.append(j)
                if here:
                    for j in here:
                        self._defend(ctx, j, marker, "melee", effects)
                    continue
            if not marker.ranged:
                continue
            in_range = [
                (board.distance(nemesis.node, s.heroes[j].node), j)
                for j in range(len(s.heroes))
                if ctx.standing(j)
            ]
            in_range = [(d, j) for d, j in in_range if 0 < d <= marker.ranged]
            if not in_range:
                continue
            nearest = min(d for d, _ in in_range)
            nodes = sorted({s.heroes[j].node for d, j in in_range if d == nearest})
            node = nodes[dice.roll_off(len(nodes), ctx.rng)] if len(nodes) > 1 else nodes[0]
            for j in [j for d, j in in_range if d == nearest and s.heroes[j].node == node]:
                self._defend(ctx, j, marker, "ranged", effects)

    def _defend(
        self, ctx: _Ctx, j: int, marker: Marker, how: str, kept: dict[int, list[Effect]]
    ) -> None:
        """Hero ``j`` tests Defence against a Nemesis's attack. ``kept``: the defenders'
        effects, read once for all the attacks of a Nemesis phase (only a new status, caught
        from a wound, changes them then)."""
        effects = kept.get(j)
        if effects is None:
            effects = kept[j] = ctx.hero_effects(j)
        threshold = marker.defence + ctx.defence_mod(j, effects)
        roll = ctx.roll(j, threshold, effects)
        if ctx.telling:
            ctx.say(
                f"{ctx.name(j)} tests Defence {marker.defence} against the {marker.name}'s "
                f"{how} attack ({roll.shown()}).",
                "defence",
            )
        if not roll.success:
            ctx.hurt(j, 2 if "brutal" in marker.abilities else 1, f"the {marker.name}")
            for status in ctx.statuses():
                if marker.key in status.caught_from:
                    ctx.afflict(j, status.key, f"wounded by the {marker.name}")
                    kept.pop(j, None)

    def _alterations(self, ctx: _Ctx) -> None:
        """End of turn: each status's damage and its turns run down; then heroes on the
        spaces where a status is caught catch it."""
        s = ctx.s
        statuses = ctx.statuses()
        if not statuses:
            return
        for j, hero in enumerate(s.heroes):
            if hero.dead:
                continue
            for status in statuses:
                left = hero.statuses.get(status.key)
                if left is None:
                    continue
                if status.damage:
                    ctx.hurt(j, status.damage, status.name)
                if left == 1:
                    del hero.statuses[status.key]
                    ctx.say(f"{ctx.name(j)} is free of {status.name}.", "status", chronicle=True)
                elif left > 1:
                    hero.statuses[status.key] = left - 1
            for status in statuses:
                if status.caught_in and ctx.at(status.caught_in, hero.node):
                    ctx.afflict(
                        j, status.key, f"the turn ends at {ctx.board.nodes[hero.node].name}"
                    )

    def _end_turn(self, ctx: _Ctx) -> None:
        s = ctx.s
        self._alterations(ctx)
        for j, hero in enumerate(s.heroes):
            if hero.dead:
                continue
            if hero.door is not None:
                hero.door -= 1
                if hero.door <= 0:
                    ctx.die(j)
                    continue
            for buff in hero.buffs:
                kind, _, uid = buff.partition(":")
                if kind == "broken" and uid in (*hero.items,):
                    ctx.say(f"{ctx.name(j)}'s Tech Item breaks down (Critical Malfunction).")
                    ctx.drop_item(j, uid)
            hero.buffs = []
            hero.hidden = False
            hero.armour = hero.shield = hero.vehicle = None
        for nemesis in (*s.nemeses, *s.towers):
            nemesis.stunned = False
        self._replace_dead(ctx)
        self._check(ctx, "end_turn")
        if s.phase == "over":
            return
        if s.total_turns >= s.options.turn_limit:
            ctx.say("The safety limit of turns is reached; the Ordeal is lost.", chronicle=True)
            self._finish(ctx, False, final=True)
            return
        s.turn += 1
        s.total_turns += 1
        living = [j for j in range(len(s.heroes)) if not s.heroes[j].dead]
        if living:
            later = [j for j in living if j > s.first]
            s.first = later[0] if later else living[0]
        self._start_turn(ctx)

    def _replace_dead(self, ctx: _Ctx) -> None:
        s = ctx.s
        if not s.options.replace_dead:
            return
        for hero in s.heroes:
            if hero.dead:
                break
        else:
            return  # nobody to replace
        used = {h.key for h in s.heroes}
        free = [k for k in ctx.lib.heroes if k not in used]
        start = ctx.scenario().start
        for j, hero in enumerate(s.heroes):
            if not hero.dead or not free:
                continue
            key = free.pop(ctx.rng.randrange(len(free)))
            fresh = ctx.new_hero(key=key, seat=hero.seat, node=start[j % len(start)])
            s.heroes[j] = fresh
            belongings = ctx.sheet(j).belongings
            for deck in EQUIPMENT_DECKS:
                for _ in range(getattr(belongings, deck)):
                    uid = ctx.draw(deck)
                    if uid is not None:
                        ctx.take_card(j, uid)
            while ctx.load(j) > ctx.sheet(j).max_load:
                ctx.drop_item(j, fresh.items[-1])
            ctx.say(f"{ctx.name(j)} takes up the fight for seat {hero.seat}.", chronicle=True)

    # -- objectives ----------------------------------------------------------------------------
    def _check(self, ctx: _Ctx, moment: str) -> None:
        s = ctx.s
        if s.phase == "over":
            return
        for h in s.heroes:
            if not h.dead:
                break
        else:
            self._finish(ctx, False)
            return
        known = self._goals[moment].get(s.scenario)
        victory, defeat = known if known is not None else self._goals_to_check(s.scenario, moment)
        end_turn = moment == "end_turn"
        if victory is not None:
            for goal in victory:
                if not _holds(s, goal, end_turn):
                    break
            else:
                self._finish(ctx, True)
                return
        for goal in defeat:
            if _holds(s, goal, end_turn):
                self._finish(ctx, False)
                return

    def _goals_to_check(
        self, scenario_key: str, moment: str
    ) -> tuple[tuple[_Goal, ...] | None, tuple[_Goal, ...]]:
        """The scenario's victory goals (None: they cannot all hold at this moment) and the
        defeat goals that may hold now, a hero being alive (kept for each scenario)."""
        by_scenario = self._goals[moment]
        known = by_scenario.get(scenario_key)
        if known is None:
            scenario = self.board.content.scenarios[scenario_key]
            never = {"all_dead"} if moment == "end_turn" else {"all_dead", "survive", "watch"}
            victory = (
                None
                if any(g.kind in never for g in scenario.victory)
                else tuple(_Goal(g.kind, g.amount, g.marker, g.location) for g in scenario.victory)
            )
            defeat = tuple(
                _Goal(g.kind, g.amount, g.marker, g.location)
                for g in scenario.defeat
                if g.kind != "survive" and g.kind not in never
            )
            known = by_scenario[scenario_key] = (victory, defeat)
        return known

    def _finish(self, ctx: _Ctx, won: bool, final: bool = False) -> None:
        s = ctx.s
        scenario = ctx.scenario()
        s.outcomes.append(Outcome(scenario=scenario.key, won=won, turns=s.turn))
        text = scenario.victory_text if won else scenario.defeat_text
        ctx.say(
            f"{scenario.name}: {'victory' if won else 'defeat'}. {text}", "outcome", chronicle=True
        )
        nxt = scenario.on_victory if won else scenario.on_defeat
        if final or s.options.single_scenario or nxt in ("won", "lost"):
            s.result = (
                "won" if (won if s.options.single_scenario or final else nxt == "won") else "lost"
            )
            s.phase = "over"
            s.decision = None
            s.ending = False
            if s.adventure is not None:
                ctx.discard(s.adventure)
                s.adventure = None
            ctx.say(
                "The Ordeal is won!" if s.result == "won" else "The Ordeal is lost.",
                "over",
                chronicle=True,
            )
            return
        if s.decision is not None:
            for uid in s.decision.cards:
                ctx.discard(uid)
            s.decision = None
        if s.adventure is not None:
            ctx.discard(s.adventure)
            s.adventure = None
        for hero in s.heroes:
            hero.buffs = []
            hero.hidden = False
        s.total_turns += 1
        self._setup_scenario(ctx, nxt)

    # -- the contract ----------------------------------------------------------------------------
    def current_seats(self, state: DwState) -> list[str]:
        if state.phase == "over":
            return []
        return [state.heroes[state.active].seat]

    def is_over(self, state: DwState) -> bool:
        return state.phase == "over"

    def result(self, state: DwState) -> GameResult | None:
        if state.phase != "over":
            return None
        won = state.result == "won"
        ordeal = self.board.lib.ordeals[state.ordeal]
        lines = [
            f"{'won' if o.won else 'lost'} {self.board.lib.scenarios[o.scenario].name} "
            f"in {o.turns} turns"
            for o in state.outcomes
        ]
        return GameResult(
            winner="players" if won else "game",
            scores={
                "players": sum(o.won for o in state.outcomes),
                "game": sum(not o.won for o in state.outcomes),
            },
            summary=f"{ordeal.name}: "
            + ("the heroes win" if won else "the heroes fall")
            + (" (" + "; ".join(lines) + ")" if lines else ""),
            details={
                "turns": state.total_turns,
                "deaths": state.deaths,
                "scenarios": [o.model_dump() for o in state.outcomes],
            },
        )

    def choose_action(self, state: DwState, seat: str, rng: random.Random) -> Action:
        return self.parts.choose(self, state, seat, rng)

    def public_view(self, state: DwState) -> dict[str, Any]:
        return self.parts.public_view(self, state)

    def private_view(self, state: DwState, seat: str) -> dict[str, Any]:
        return self.parts.private_view(self, state, seat, None)

    def private_view_from(
        self, state: DwState, seat: str, public: dict[str, Any] | None
    ) -> dict[str, Any]:
        return self.parts.private_view(self, state, seat, public)

    def seat_views(
        self, state: DwState, seat: str, with_actions: bool = True
    ) -> tuple[Callable[[], dict[str, Any]], list[Action], dict[str, Any]]:
        # The hand shows the seat's heroes and its decision: the public view is built only
        # when the board is drawn (coalesced), not at every move. One look serves the actions
        # and the hand: the hero effects the actions work out are kept for the hand's stats.
        look = self._ctx(state)
        actions = self.legal_actions_in(look, seat) if with_actions else []
        return partial(self.public_view, state), actions, self.parts.hand_view(look, seat)

    def legal_actions(self, state: DwState, seat: str) -> list[Action]:
        if state.phase == "over" or seat not in self.current_seats(state):
            return []
        last = self._last_legal
        if last is not None and last[0] is state and last[1] == seat:
            return list(last[2])
        return self.legal_actions_in(self._ctx(state), seat)

    def legal_action(self, state: DwState, seat: str, action_id: str) -> Action | None:
        for action in self._legal_now(state, seat):
            if action.id == action_id:
                return action
        return None

    def _legal_now(self, state: DwState, seat: str) -> list[Action]:
        """``legal_actions`` for the engine's own reading: the list it keeps, not a copy."""
        last = self._last_legal
        if last is not None and last[0] is state and last[1] == seat:
            return last[2]  # (kept only for a state with a seat to act: see legal_actions_in)
        return self.legal_actions(state, seat)

    def legal_actions_in(self, ctx: _Ctx, seat: str) -> list[Action]:
        """``legal_actions`` of the state of a context that only looks (the AI's, which goes
        on reading the effects it keeps)."""
        state = ctx.s
        if state.phase == "over" or seat not in self.current_seats(state):
            return []
        last = self._last_legal
        if last is not None and last[0] is state and last[1] == seat:
            return list(last[2])
        actions = self.parts.legal_actions(self, ctx)
        # The AI asks, then apply asks again for the same state: remember the last answer
        # (holding the state itself, so its identity cannot be reused).
        self._last_legal = (state, seat, actions)
        return list(actions)

    def apply(
        self, state: DwState, seat: str, action: Action | str, rng: random.Random
    ) -> tuple[DwState, list[GameEvent]]:
        action_id = action.id if isinstance(action, Action) else action
        if state.phase == "over":
            raise DwRuleError("This game is over; start a new one with /game new.")
        if seat not in self.current_seats(state):
            raise IllegalAction("It is not your hero's turn; wait for the active hero.")
        if self.legal_action(state, seat, action_id) is None:
            raise IllegalAction(
                "That choice is no longer available; look at the board and choose again."
            )
        ctx = self._ctx(state.clone(), rng)
        self.parts.perform(self, ctx, action_id)
        self._settle(ctx)
        return ctx.s, ctx.events

    def play_ai_game(
        self, options: DwOptions, players: int, rng: random.Random
    ) -> tuple[DwState, int]:
        """One AI-only game as ``bot.games.simulate.play_one`` plays it through
        ``choose_action`` and ``apply`` (the same RNG calls, so the same game), on one state
        changed in place: nobody keeps the states in between, so no step clones one, and no
        event is kept. Returns (final state, actions)."""
        state = self._new_game(options, [f"ai{i}" for i in range(players)], rng, plain=True)
        ctx = _QuietCtx(state, rng, self.board)
        # the AI's reading of the same state, looked at again each step (the effects and limit
        # one context works out under their keys serve the other)
        look = self._ctx(state, kept=ctx._kept)
        parts = self.parts
        moves = parts.ai_moves(look)  # the legal ids it may choose, by kind (ai.Moves)
        for step in range(MAX_STEPS):
            if state.phase == "over":
                return model_state(state), step
            # choose_action's choice, from the legal ids it may choose (no Action is built; the
            # AI works out only the kinds of moves it looks at)
            look.look_again()
            moves.look_again()
            action_id = parts.choose_move(look, moves)
            if not moves.has(action_id):  # perform trusts it: the AI's fall-backs must be legal
                raise RuntimeError(f"the {self.name} AI chose {action_id!r}, which is not legal")
            parts.perform(self, ctx, action_id)
            self._settle(ctx)
        raise RuntimeError(f"a simulated {self.name} game did not end in {MAX_STEPS} actions")

    def _settle(self, ctx: _Ctx) -> None:
        """After a step: check objectives, ask for discards over the limits, and move on to
        the next hero (and through the Nemesis and Events phases) when this one is done."""
        s = ctx.s
        for _ in range(64):
            self._check(ctx, "step")
            if s.phase == "over" or s.decision is not None:
                return
            if self.parts.over_limit_decision(ctx, s.active):
                return
            if not s.ending:
                return
            self._next_hero(ctx)
        raise RuntimeError("a Dreamwars step did not settle")


ENGINE = DreamwarsEngine()
