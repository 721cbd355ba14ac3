"""What the active hero may do (``legal_actions``) and doing it (``perform``).

Action ids are short and stable for one state: ``step:bridge``, ``hit:n4:c12``, ``use:c40``.
Labels that name an Equipment card are marked private: only the hero's player sees them.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from operator import attrgetter
from typing import TYPE_CHECKING

from bot.games.base import LABEL_MAX, Action
from bot.games.dreamwars import dice
from bot.games.dreamwars.content import Effect, TestSpec
from bot.games.dreamwars.engine import (
    CANNON_DAMAGE,
    CANNON_RANGE,
    PASSIVE,
    DwRuleError,
    NemesisState,
    _Ctx,
)
from bot.games.dreamwars.state import fast_model

if TYPE_CHECKING:
    from bot.games.dreamwars.engine import DreamwarsEngine
    from bot.games.dreamwars.state import DwState

FIST = "fist"
_uid = attrgetter("uid")  # a marker's uid (for the ids naming further targets)
MAX_TARGET_CHOICES = 12  # choices of further targets offered for one Attack


class _Ids(list):  # type: ignore[type-arg]
    """Where ids alone are collected, no Action built: ``AiMoves``' makers (the AI-only
    games) and ``ai_ids`` (the tests' reference)."""


def _act(actions: list[Action], id_: str, label: str, kind: str, private: bool = False) -> None:
    if actions.__class__ is _Ids:
        actions.append(id_)  # type: ignore[arg-type]
        return
    # Built without validation (thousands per game): ids are short by construction and labels
    # are clipped here the way Action's validator would.
    if len(label) > LABEL_MAX:
        label = label[: LABEL_MAX - 1].rstrip() + "…"
    actions.append(
        fast_model(
            Action,
            {
                "id": id_,
                "label": label,
                "kind": kind,
                "private": private,
                "table": False,
                "data": {},
            },
        )
    )


def ai_ids(engine: DreamwarsEngine, ctx: _Ctx) -> list[str]:
    """The tests' reference, no longer called by the game: the ids of ``legal_actions`` the
    AI may choose (bot/games/dreamwars/ai.py), in the same order, with no Action built: all
    but giving and taking, wearing other armour or shields and (un)mounting add-ons, which
    the AI never does. tests/unit/dreamwars/test_fast_paths.py holds that ``ai.choose_id``
    picks the same from these as from every legal id, and that ``AiMoves`` hold them."""
    ids = _Ids()
    _legal(ctx, ids)
    return ids


class AiMoves:
    """The ids of ``ai_ids`` (the tests' reference) by kind, each kind worked out only when
    the AI first asks for it (most choices need a few kinds): what ``ai.choose_move`` reads
    in AI-only games."""

    __slots__ = (
        "ctx",
        "i",
        "hero",
        "decision",
        "moving",
        "free",
        "able",
        "_steps",
        "_attacks",
        "_location",
        "_offers",
        "_spells",
        "_items",
        "_uses",
        "_allies",
        "_prestige",
    )

    def __init__(self, ctx: _Ctx) -> None:
        self.ctx = ctx
        self.look_again()

    def look_again(self) -> None:
        """The moves of the context's state now (the context looked again at it since): the
        kinds worked out before are forgotten. An AI-only game keeps one AiMoves (and one
        context) for all its steps."""
        s = self.ctx.s
        self.i = i = s.active
        hero = s.heroes[i]
        self.hero = hero
        self.decision = s.decision
        self.moving, self.free, self.able = _open_moves(s)  # as ``_legal`` offers them
        self._steps: list[str] | None = None
        self._attacks: list[str] | None = None
        self._location: list[str] | None = None
        self._offers: list[str] | None = None
        self._spells: list[str] | None = None
        self._items: list[str] | None = None
        self._uses: list[str] | None = None
        self._allies: list[str] | None = None
        self._prestige: list[str] | None = None

    def _made(self, maker: Callable[[_Ctx, int, list[Action]], None]) -> list[str]:
        """The ids ``maker`` makes: none while the hero may not act. (The callers ask only
        when the hero has some of what the maker goes through, e.g. Cantici.)"""
        if not self.able:
            return []
        ids = _Ids()
        maker(self.ctx, self.i, ids)
        return ids

    def has(self, id_: str) -> bool:
        """Whether ``id_`` is one of them."""
        if self.decision is not None:
            return id_ in self.decision.options
        if id_ == "end":
            return self.free
        if id_ == "stop":
            return self.moving
        kind = _KIND_OF_VERB.get(id_.partition(":")[0])
        return kind is not None and id_ in kind(self)

    def offered(self, keys: tuple[str, ...]) -> str | None:
        """The first of ``keys`` that is one of them: ids the hero's space offers (meditating,
        the scenario's tokens), without a colon."""
        here = self._offers
        if here is None:  # (not the whole location(): most looks need no more)
            here = self._offers = _space_offers(self.ctx, self.i) if self.able else []
        for key in keys:
            if key in here:
                return key
        return None

    def choices(self) -> list[str]:
        """A decision's options."""
        assert self.decision is not None
        return list(self.decision.options)

    def steps(self) -> list[str]:
        found = self._steps
        if found is None:
            ctx, i = self.ctx, self.i
            if self.moving or (self.free and _may_start_move(ctx, i)):
                found = self._steps = list(_step_ids(ctx, i))
            else:
                found = self._steps = []
        return found

    def location(self) -> list[str]:
        """What the hero's space offers: meditating, the scenario's tokens, travels, cannon."""
        found = self._location
        if found is None:
            found = self._location = self._made(_location_actions)
        return found

    def attacks(self) -> list[str]:
        """Attacks with and without weapons, then the cannon's shots."""
        found = self._attacks
        if found is None:
            found = _Ids()  # (_made's, without its call: asked at most looks)
            if self.able:
                _attacks(self.ctx, self.i, found)
            if self.hero.node in self.ctx.s.cannons:  # (else the space offers no shot)
                cannon = [a for a in self.location() if a.startswith("cannon:")]
                found += cannon
            self._attacks = found
        return found

    def spells(self) -> list[str]:
        found = self._spells
        if found is None:
            found = self._spells = self._made(_spell_actions) if self.hero.cantici else []
        return found

    def _item_ids(self) -> list[str]:
        found = self._items
        if found is None:
            found = self._items = self._made(_item_actions) if self.hero.items else []
        return found

    def uses(self) -> list[str]:
        """The items' (Equipment actions), then the Dream Shards'."""
        found = self._uses
        if found is None:
            found = self._uses = _Ids()
            for a in self._item_ids():
                if a[0] == "u":
                    found.append(a)
            if self.free:
                ctx, i = self.ctx, self.i
                for uid in self.hero.shards:
                    _targeted(ctx, i, found, f"use:{uid}", "", "shard", uid)
        return found

    def _ally_ids(self) -> list[str]:
        found = self._allies
        if found is None:
            found = self._allies = self._made(_ally_actions) if self.hero.allies else []
        return found

    def _prestige_ids(self) -> list[str]:
        found = self._prestige
        if found is None:
            found = self._prestige = self._made(_prestige_actions) if self.hero.unlocked else []
        return found

    def boosts(self) -> list[str]:
        """The Allies' calls, then the Prestige abilities'."""
        found = list(self._ally_ids())
        for a in self._prestige_ids():  # (loops, not comprehensions: asked at most looks)
            if a[0] == "p":
                found.append(a)
        return found

    def reloads(self) -> list[str]:
        found = []
        for a in self._prestige_ids():
            if a[0] == "r":
                found.append(a)
        return found

    def travels(self) -> list[str]:
        s = self.ctx.s
        node = self.hero.node
        if node not in s.coaches and s.train != node:
            return []  # the space offers no travel
        return [a for a in self.location() if a.startswith(("coach:", "train:"))]

    def rides(self) -> list[str]:
        return [a for a in self._item_ids() if a[0] == "r"]


# The kind of AiMoves's ids that start with each verb (``end`` and ``stop`` apart).
_KIND_OF_VERB: dict[str, Callable[[AiMoves], list[str]]] = {
    "step": AiMoves.steps,
    "hit": AiMoves.attacks,
    "shoot": AiMoves.attacks,
    "cannon": AiMoves.location,
    "meditate": AiMoves.location,
    "meditate3": AiMoves.location,
    "meditate3x2": AiMoves.location,
    "reveal": AiMoves.location,
    "pickstone": AiMoves.location,
    "pickup": AiMoves.location,
    "coach": AiMoves.location,
    "train": AiMoves.location,
    "sing": AiMoves.spells,
    "use": AiMoves.uses,
    "ride": AiMoves.rides,
    "ally": AiMoves.boosts,
    "reload": AiMoves.reloads,
    "pres": AiMoves.boosts,
}


def legal_actions(engine: DreamwarsEngine, ctx: _Ctx) -> list[Action]:
    """The actions the seat may take now (the engine's buttons)."""
    actions: list[Action] = []
    _legal(ctx, actions)
    return actions


def _open_moves(s: DwState) -> tuple[bool, bool, bool]:
    """Which of the active hero's own moves are open now, for ``_legal`` and ``AiMoves``
    alike: (moving: only steps and stopping; free: ending the phase, starting a move, the
    Dream Shards; able: free and not At Death's Door, so also attacks, what the space offers,
    Equipment and Prestige). None while a decision is pending or the turn is ending."""
    if s.decision is not None or s.ending:
        return False, False, False
    hero = s.heroes[s.active]
    if hero.moving:
        return True, False, False
    return False, True, hero.door is None


def _legal(ctx: _Ctx, actions: list[Action]) -> None:
    s = ctx.s
    if s.decision is not None:
        for key, label in s.decision.options.items():
            _act(actions, key, label, s.decision.kind, s.decision.private)
        return
    moving, free, able = _open_moves(s)
    i = s.active
    hero = s.heroes[i]
    board = ctx.board
    if moving:
        for nxt in _steps(ctx, i):
            _act(actions, f"step:{nxt}", f"Move to {board.nodes[nxt].name}", "move")
        _act(actions, "stop", "Stop moving", "move")
        return
    if not free:
        return
    if _may_start_move(ctx, i):
        for nxt in _steps(ctx, i):
            _act(actions, f"step:{nxt}", f"Move to {board.nodes[nxt].name}", "move")
    if able:
        _attacks(ctx, i, actions)
        _location_actions(ctx, i, actions)
        _equipment_actions(ctx, i, actions)
    if actions.__class__ is not _Ids:
        _trade_actions(ctx, i, actions)
    for uid in hero.shards:
        _targeted(ctx, i, actions, f"use:{uid}", f"Use {ctx.item(uid).name}", "shard", uid)
    if able:
        _prestige_actions(ctx, i, actions)
    _act(actions, "end", "End your Heroes phase", "end")


def _may_start_move(ctx: _Ctx, i: int) -> bool:
    hero = ctx.s.heroes[i]
    if hero.no_move:
        return False
    if not hero.moved:
        return ctx.value(i, "movement") > 0
    return hero.extra > 0 and not hero.special_used and hero.vehicle is None


def _steps(ctx: _Ctx, i: int) -> tuple[str, ...]:
    """The spaces hero ``i`` may step to: never along a river, unless Aquatic."""
    here = ctx.s.heroes[i].node
    board = ctx.board
    if here in board.rivers and ctx.has(i, "aquatic"):
        return board.adjacent.get(here, ())
    return board.walk_adjacent.get(here, ())


def _step_ids(ctx: _Ctx, i: int) -> tuple[str, ...]:
    """``_steps``' ids (``step:<space>``), made once per board."""
    here = ctx.s.heroes[i].node
    board = ctx.board
    if here in board.rivers and ctx.has(i, "aquatic"):
        return board.step_ids.get(here, ())
    return board.walk_step_ids.get(here, ())


def _attack_stat(ctx: _Ctx, weapon: str | None) -> str:
    if weapon is None:
        return "melee"
    key = ctx.s.cards[weapon]
    if not ctx.board.weapon_ranged.get(key):
        return "melee"
    return "tech" if key in ctx.board.tech_items else "skill"


def _attacks(ctx: _Ctx, i: int, actions: list[Action]) -> None:
    hero = ctx.s.heroes[i]
    if hero.actions < 1:
        return
    labelled = actions.__class__ is not _Ids  # ai_ids needs no labels
    melee, ranged = ctx.weapons(i)
    for target in ctx.foes_at(hero.node):
        if labelled:
            name = ctx.marker(target).name
            _act(
                actions,
                f"hit:{target.uid}:{FIST}",
                f"Attack the {name} (Melee, bare hands)",
                "attack",
            )
        else:
            name = ""
            actions.append(f"hit:{target.uid}:{FIST}")  # type: ignore[arg-type]  # (_act's)
        for weapon in melee:
            label = f"Attack the {name}" if labelled else ""
            _weapon_attacks(ctx, i, actions, "hit", target, weapon, label)
    for weapon in ranged:
        card = ctx.item(weapon)
        for target in ctx.targets_in_reach(i, card.range):
            if target.node == hero.node:
                continue  # never a Ranged Attack on your own space
            label = ""
            if labelled:
                where = ctx.board.nodes[target.node].name
                label = f"Shoot the {ctx.marker(target).name} at {where}"
            _weapon_attacks(ctx, i, actions, "shoot", target, weapon, label)


def _weapon_attacks(
    ctx: _Ctx,
    i: int,
    actions: list[Action],
    verb: str,
    target: NemesisState,
    weapon: str,
    label: str,
) -> None:
    """One Attack with a weapon; a weapon that hits several Nemeses and has more eligible
    further targets than it needs gets one action per choice of them (the player chooses)."""
    card = ctx.lib.items[ctx.s.cards[weapon]]  # (ctx.item's)
    more = card.targets - 1
    eligible = _eligible_targets(ctx, i, target, card.range) if more > 0 else []
    labelled = actions.__class__ is not _Ids  # ai_ids needs no labels
    if len(eligible) <= more:
        if labelled:
            _act(
                actions,
                f"{verb}:{target.uid}:{weapon}",
                f"{label} with {card.name}",
                "attack",
                True,
            )
        else:
            actions.append(f"{verb}:{target.uid}:{weapon}")  # type: ignore[arg-type]  # (_act's)
        return
    here = ctx.s.heroes[i].node

    def named(n: NemesisState) -> str:
        where = "" if n.node == here else f" ({ctx.board.nodes[n.node].name})"
        return ctx.marker(n).name + where

    for chosen in list(combinations(eligible, more))[:MAX_TARGET_CHOICES]:
        label = (
            f"{card.name}: " + " + ".join(named(n) for n in (target, *chosen)) if labelled else ""
        )
        _act(
            actions,
            f"{verb}:{target.uid}:{weapon}:{'+'.join(map(_uid, chosen))}",
            label,
            "attack",
            True,
        )


_OFFER_LABELS = {  # the space's own offers (``_space_offers``), labelled
    "meditate3": ("Meditate here: draw 3 Cantici, keep 1", "meditate"),
    "meditate3x2": ("Meditate with both Actions: draw 3, keep 2", "meditate"),
    "meditate": ("Meditate: draw 1 Cantico", "meditate"),
    "reveal": ("Reveal the Unknown token at {where}", "scenario"),
    "pickstone": ("Pick up the Dreamstone", "scenario"),
    "pickup": ("Pick up a Supply token", "scenario"),
}


def _space_offers(ctx: _Ctx, i: int) -> list[str]:
    """The ids without a colon that hero ``i``'s space offers an able hero (meditating, the
    scenario's tokens), in ``_location_actions``' order: what the AI's ``offered`` reads
    without making the rest of them."""
    s = ctx.s
    hero = s.heroes[i]
    if hero.actions < 1:
        return []
    node = hero.node
    found = []
    if not hero.meditated:
        sheet = ctx.lib.heroes[hero.key]
        if sheet.arcane > 0 and sheet.max_cantici > 0:
            if "arcane" in ctx.board.nodes[node].icons:
                found.append("meditate3")
                if hero.actions >= 2:
                    found.append("meditate3x2")
            else:
                found.append("meditate")
    if node in s.unknown:
        found.append("reveal")
    if s.dropped_stone == node:
        found.append("pickstone")
    if s.supply_tokens.get(node, 0) > 0:
        found.append("pickup")
    return found


def _location_actions(ctx: _Ctx, i: int, actions: list[Action]) -> None:
    s = ctx.s
    hero = s.heroes[i]
    node = hero.node
    info = ctx.board.nodes[node]
    if hero.actions >= 1:
        for key in _space_offers(ctx, i):
            label, kind = _OFFER_LABELS[key]
            _act(actions, key, label.format(where=info.name), kind)
        special_ok = not hero.moving and not hero.special_used
        if special_ok and node in s.coaches:
            for dest in s.coaches:
                if dest != node:
                    _act(
                        actions,
                        f"coach:{dest}",
                        f"Take the coach to {ctx.board.nodes[dest].name}",
                        "travel",
                    )
        if special_ok and s.train == node:
            for dest in ctx.lib.rail:
                if dest != node:
                    _act(
                        actions,
                        f"train:{dest}",
                        f"Ride the train to {ctx.board.nodes[dest].name}",
                        "travel",
                    )
        if node in s.cannons:
            for target in ctx.targets_in_reach(i, CANNON_RANGE):
                _act(
                    actions,
                    f"cannon:{target.uid}",
                    f"Fire the cannon at the {ctx.marker(target).name} "
                    f"({ctx.board.nodes[target.node].name})",
                    "attack",
                )


def _equipment_actions(ctx: _Ctx, i: int, actions: list[Action]) -> None:
    _spell_actions(ctx, i, actions)
    _item_actions(ctx, i, actions)
    _ally_actions(ctx, i, actions)


def _spell_actions(ctx: _Ctx, i: int, actions: list[Action]) -> None:
    hero = ctx.s.heroes[i]
    if hero.actions >= 1 and ctx.lib.heroes[hero.key].arcane > 0:
        labelled = actions.__class__ is not _Ids  # ai_ids needs no labels
        for uid in hero.cantici:
            label = f"Intone {ctx.item(uid).name} (Arcane test)" if labelled else ""
            _targeted(ctx, i, actions, f"sing:{uid}", label, "cantico", uid)


def _item_actions(ctx: _Ctx, i: int, actions: list[Action]) -> None:
    hero = ctx.s.heroes[i]
    everything = actions.__class__ is not _Ids  # else what the AI may choose (ai_ids)
    items, cards = ctx.lib.items, ctx.s.cards
    tech = ctx.lib.heroes[hero.key].tech > 0  # a Tech Item is of use only to a Tech hero
    for uid in hero.items:
        card = items[cards[uid]]  # (ctx.item's)
        usable = tech or card.deck != "tech"
        if "consumable" in card.traits and usable:
            _targeted(ctx, i, actions, f"use:{uid}", f"Use {card.name}", "item", uid)
        if not everything:
            if card.type == "vehicle" and usable and not hero.moved and hero.vehicle is None:
                actions.append(f"ride:{uid}")  # type: ignore[arg-type]
            continue
        if not hero.acted and usable and card.type in ("armour", "shield"):
            worn = hero.armour if card.type == "armour" else hero.shield
            if worn != uid:
                _act(actions, f"wear:{uid}", f"Use {card.name} this turn", "item", private=True)
        if card.type == "vehicle" and usable and not hero.moved and hero.vehicle is None:
            _act(
                actions,
                f"ride:{uid}",
                f"Ride {card.name} this turn (Movement {card.movement})",
                "item",
                private=True,
            )
        if card.type == "addon":
            if uid in hero.mounted:
                _act(actions, f"unmount:{uid}", f"Unmount {card.name}", "item", private=True)
            elif hero.actions >= 1:
                for other in hero.items:
                    if _fits(ctx, uid, other) and other not in hero.mounted.values():
                        _act(
                            actions,
                            f"mount:{uid}:{other}",
                            f"Mount {card.name} on {ctx.item(other).name}",
                            "item",
                            private=True,
                        )


def _ally_actions(ctx: _Ctx, i: int, actions: list[Action]) -> None:
    hero = ctx.s.heroes[i]
    callable_allies = ctx.board.callable_allies
    for uid in hero.allies:
        if ctx.s.cards[uid] in callable_allies and f"ally:{uid}" not in hero.used_prestige:
            _act(actions, f"ally:{uid}", f"Call on {ctx.adventure(uid).name}", "ally")


def effect_targets(ctx: _Ctx, i: int, effect: Effect) -> list[NemesisState]:
    """Who an effect on Nemeses may reach: the most wounded first, then the nearest."""
    if effect.kind == "wound_nemesis":
        return ctx.targets_in_reach(i, effect.range)
    found = ctx.targets_in_reach(i, effect.range, towers=False)
    if effect.kind == "banish_nemesis":
        found = [n for n in found if "behemoth" not in ctx.marker(n).abilities]
    return found


def _targeted(
    ctx: _Ctx, i: int, actions: list[Action], id_: str, label: str, kind: str, uid: str
) -> None:
    """A card that acts on some of the Nemeses within reach: when more could be reached than
    it takes, one action per choice of them (the player chooses); else one action."""
    aimed = ctx.board.aimed[ctx.s.cards[uid]]
    eligible = effect_targets(ctx, i, aimed) if aimed is not None else []
    count = aimed.count if aimed is not None else 0
    labelled = actions.__class__ is not _Ids  # ai_ids needs no labels
    if len(eligible) <= count:
        if labelled:
            _act(actions, id_, label, kind, private=True)
        else:
            actions.append(id_)  # type: ignore[arg-type]  # (_act's, without its call)
        return
    for chosen in list(combinations(eligible, count))[:MAX_TARGET_CHOICES]:
        names = " + ".join(ctx.marker(n).name for n in chosen) if labelled else ""
        _act(actions, f"{id_}:{'+'.join(map(_uid, chosen))}", f"{label}: {names}", kind, True)


def _fits(ctx: _Ctx, addon: str, other: str) -> bool:
    a, b = ctx.item(addon), ctx.item(other)
    if addon == other or b.type == "addon":
        return False
    if a.attach == "any":
        return True
    if a.attach == "weapon":
        return b.type == "weapon" and a.deck == b.deck
    if a.attach == "armour":
        return b.type in ("armour", "shield")
    return a.deck == b.deck


def _trade_actions(ctx: _Ctx, i: int, actions: list[Action]) -> None:
    s = ctx.s
    hero = s.heroes[i]
    at_door = hero.door is not None
    for j in ctx.heroes_at(hero.node):
        if j == i:
            continue
        if j not in hero.traded_with and hero.actions < 1 and not at_door:
            continue
        other = s.heroes[j]
        who = ctx.name(j)
        for uid in [*hero.items, *hero.shards]:
            if ctx.item(uid).deck != "shards" and ctx.load(j, [uid]) > ctx.sheet(j).max_load:
                continue
            _act(
                actions,
                f"give:{uid}:{j}",
                f"Give {ctx.item(uid).name} to {who}",
                "trade",
                private=True,
            )
        # Another player's Equipment is theirs to show: take only from a hero of the same
        # seat (one player running several heroes); other players give on their own turn.
        mine = other.seat == hero.seat
        for uid in [*other.items, *other.shards] if mine else []:
            if ctx.item(uid).deck != "shards" and ctx.load(i, [uid]) > ctx.sheet(i).max_load:
                continue
            _act(
                actions,
                f"take:{uid}:{j}",
                f"Take {ctx.item(uid).name} from {who}",
                "trade",
                private=True,
            )
        for uid in other.allies:
            _act(
                actions,
                f"take:{uid}:{j}",
                f"Take the Ally {ctx.adventure(uid).name} from {who}",
                "trade",
            )
        for uid in hero.allies:
            _act(
                actions,
                f"give:{uid}:{j}",
                f"Give the Ally {ctx.adventure(uid).name} to {who}",
                "trade",
            )
        if hero.dreamstone:
            _act(actions, f"give:stone:{j}", f"Give the Dreamstone to {who}", "trade")
        if hero.supply:
            _act(actions, f"give:supply:{j}", f"Give a Supply token to {who}", "trade")


def _prestige_actions(ctx: _Ctx, i: int, actions: list[Action]) -> None:
    hero = ctx.s.heroes[i]
    for ability in ctx.board.active_prestige[hero.key]:
        if ability.key not in hero.unlocked:
            continue
        if ability.key in hero.spent_prestige:
            if hero.actions >= 1:
                _act(
                    actions,
                    f"reload:{ability.key}",
                    f"Reload {ability.name} (1 Action)",
                    "prestige",
                )
        elif ability.key not in hero.used_prestige:
            _act(actions, f"pres:{ability.key}", f"{ability.name}: {ability.text}", "prestige")


# -- doing it -----------------------------------------------------------------------------------
def perform(engine: DreamwarsEngine, ctx: _Ctx, action_id: str) -> None:
    """Carry out one legal action (by its id) on the state in `ctx`."""
    s = ctx.s
    if s.decision is not None:
        _answer(engine, ctx, action_id)
        return
    i = s.active
    hero = s.heroes[i]
    verb, _, rest = action_id.partition(":")
    if verb not in ("end", "stop", "use", "wear", "step", "give", "take", "pres", "unmount"):
        hero.acted = True
    if verb == "step":
        _step(ctx, i, rest)
    elif verb == "stop":
        hero.moving = False
        hero.steps = 0
    elif verb == "end":
        hero.moving = False
        _end_phase(ctx, i)
    elif verb in ("hit", "shoot"):
        target_uid, weapon, *chosen = rest.split(":")
        picked = [_foe(ctx, uid) for uid in chosen[0].split("+")] if chosen else None
        _attack(ctx, i, _foe(ctx, target_uid), None if weapon == FIST else weapon, picked)
    elif verb == "sing":
        uid, _, aim = rest.partition(":")
        _intone(ctx, i, uid, _aimed(ctx, aim))
    elif verb == "use":
        uid, _, aim = rest.partition(":")
        _use(ctx, i, uid, _aimed(ctx, aim))
    elif verb == "wear":
        card = ctx.item(rest)
        if card.type == "armour":
            hero.armour = rest
        else:
            hero.shield = rest
        _tech_use(ctx, i, rest)
        ctx.whisper(i, f"{ctx.name(i)} uses {card.name} this turn.")
    elif verb == "ride":
        hero.vehicle = rest
        _tech_use(ctx, i, rest)
        if ctx.telling:
            ctx.say(
                f"{ctx.name(i)} rides a vehicle this turn (Movement {ctx.item(rest).movement})."
            )
    elif verb == "mount":
        addon, _, other = rest.partition(":")
        hero.mounted[addon] = other
        hero.actions -= 1
        ctx.say(f"{ctx.name(i)} mounts an Add-on (1 Action).")
    elif verb == "unmount":
        hero.mounted.pop(rest, None)
    elif verb == "ally":
        _call_ally(ctx, i, rest)
    elif verb in ("give", "take"):
        _exchange(ctx, i, verb, rest)
    elif verb == "pres":
        _prestige(ctx, i, rest)
    elif verb == "reload":
        hero.spent_prestige.remove(rest)
        hero.actions -= 1
        if ctx.telling:
            ctx.say(f"{ctx.name(i)} reloads a Prestige ability (1 Action).")
    elif verb in ("meditate", "meditate3", "meditate3x2"):
        _meditate(ctx, i, verb)
    elif verb == "reveal":
        _reveal(ctx, i)
    elif verb == "pickstone":
        hero.actions -= 1
        hero.dreamstone = True
        s.dropped_stone = None
        ctx.say(f"{ctx.name(i)} picks up the Dreamstone.", "scenario", chronicle=True)
    elif verb == "pickup":
        hero.actions -= 1
        s.supply_tokens[hero.node] -= 1
        if not s.supply_tokens[hero.node]:
            del s.supply_tokens[hero.node]
        hero.supply += 1
        ctx.say(f"{ctx.name(i)} picks up a Supply token.", "scenario", chronicle=True)
        _deliver(ctx, i)
    elif verb in ("coach", "train"):
        hero.actions -= 1
        hero.special_used = True
        hero.node = rest
        if verb == "train":
            s.train = rest
        ctx.say(
            f"{ctx.name(i)} travels by {verb} to {ctx.board.nodes[rest].name} "
            "(1 Action, special movement).",
            "move",
        )
        _deliver(ctx, i)
    elif verb == "cannon":
        _cannon(ctx, i, _foe(ctx, rest))
    else:  # pragma: no cover - legal_actions only makes the verbs above
        raise DwRuleError(f"Unknown action {action_id!r}.")


def _foe(ctx: _Ctx, uid: str) -> NemesisState:
    for n in (*ctx.s.nemeses, *ctx.s.towers):
        if n.uid == uid:
            return n
    raise DwRuleError("That Nemesis is no longer on the map.")


def _step(ctx: _Ctx, i: int, nxt: str) -> None:
    s = ctx.s
    hero = s.heroes[i]
    board = ctx.board
    telling = ctx.telling
    name = ctx.name(i) if telling else ""
    # The hero's effects, read when first needed: they stay the same until the hero moves
    # (a vehicle's malfunction only marks it to break at the end of the turn).
    effects: list[Effect] | None = None
    if not hero.moving:
        if hero.moved:
            hero.extra -= 1
            hero.special_used = True
            hero.steps = ctx.sheet(i).movement  # an extra movement is at the basic Movement
        else:
            hero.moved = True
            effects = ctx.hero_effects(i)
            hero.steps = ctx.value(i, "movement", effects=effects)
        hero.moving = True
    # Leaving a Nemesis's space: one Dodge test for each Nemesis there (not a blocked one).
    for nemesis in ctx.foes_at(hero.node, towers=False):
        if nemesis.stunned:
            continue
        if effects is None:
            effects = ctx.hero_effects(i)
        value = ctx.value(i, "dodge", effects=effects)
        roll = ctx.roll(i, value, effects)
        if telling:
            what = ctx.marker(nemesis).name
            ctx.say(f"{name} tests Dodge to leave the {what} ({roll.shown()}).", "dodge")
        if hero.vehicle:
            _malfunction(ctx, i, hero.vehicle, roll)
        if not roll.success:
            hero.no_move = True
            hero.moving = False
            hero.steps = 0
            if telling:
                ctx.say(f"{name} cannot move any further this turn.")
            return
    fording = True  # no river to cross, or a safe way across
    if nxt in board.rivers:
        if effects is None:
            effects = ctx.hero_effects(i)
        fording = ctx.has(i, "safe_ford", effects) or ctx.has(i, "aquatic", effects)
    if not fording:
        roll = ctx.roll(i, 3, effects)
        if telling:
            ctx.say(f"{name} tests Fate 3 to cross the river ({roll.shown()}).", "fate")
        if not roll.success:
            hero.moving = False
            hero.steps = 0
            if telling:
                ctx.say(f"{name} finds no ford and stops; the rest of the movement is lost.")
            return
    hero.node = nxt
    hero.steps -= 1
    hero.moving = hero.steps > 0 and hero.door is None
    if telling:
        ctx.say(f"{name} moves to {board.nodes[nxt].name}.", "move")
    _crystal_bodies(ctx, i)
    if hero.supply:  # (_deliver's first test, without its call)
        _deliver(ctx, i)


def _crystal_bodies(ctx: _Ctx, i: int) -> None:
    node = ctx.s.heroes[i].node
    near = ctx.board.near[node][1]
    crystal = ctx.board.crystal
    for nemesis in ctx.s.nemeses:
        if nemesis.key in crystal and nemesis.node in near and not nemesis.stunned:
            marker = ctx.marker(nemesis)
            roll = ctx.roll(i, ctx.value(i, "dodge"))
            ctx.say(
                f"{ctx.name(i)} tests Dodge near the {marker.name}'s Crystal Body "
                f"({roll.shown()}).",
                "dodge",
            )
            if not roll.success:
                ctx.hurt(i, 1, "Crystal Body")


def _deliver(ctx: _Ctx, i: int) -> None:
    s = ctx.s
    hero = s.heroes[i]
    if not hero.supply:
        return  # (most heroes, most steps: nothing to deliver)
    for goal in ctx.scenario().victory:
        if goal.kind == "supply" and goal.location == hero.node:
            s.delivered += hero.supply
            ctx.say(
                f"{ctx.name(i)} delivers {hero.supply} Supply token(s) "
                f"({s.delivered}/{goal.amount}).",
                "scenario",
                chronicle=True,
            )
            hero.supply = 0


def _tech_use(ctx: _Ctx, i: int, uid: str) -> None:
    """Using a Tech Item (not a weapon): a Tech test, for the Critical Malfunction."""
    if ctx.item(uid).deck != "tech":
        return
    roll = ctx.roll(i, ctx.value(i, "tech"))
    if ctx.telling:
        ctx.say(f"{ctx.name(i)} tests Tech to use a Tech Item ({roll.shown()}).", "tech")
    _malfunction(ctx, i, uid, roll)


def _malfunction(ctx: _Ctx, i: int, uid: str, roll: dice.Roll) -> bool:
    card = ctx.item(uid)
    if card.deck != "tech":
        return False
    broken = dice.malfunctions(
        roll,
        prototype="prototype" in card.traits,
        on_success=ctx.s.options.prototype_malfunction_on_success,
    )
    if broken:
        ctx.s.heroes[i].buffs.append(f"broken:{uid}")
        if ctx.telling:
            ctx.say(
                f"Critical Malfunction on a natural {roll.natural}: {ctx.name(i)}'s Tech Item "
                "will be discarded after this use.",
                "malfunction",
            )
    return broken


def _attack(
    ctx: _Ctx,
    i: int,
    target: NemesisState,
    weapon: str | None,
    chosen: list[NemesisState] | None = None,
) -> None:
    """One Attack (an Action): ``chosen`` are the further targets the player picked for a
    weapon that hits several Nemeses (None: the only eligible ones)."""
    hero = ctx.s.heroes[i]
    hero.actions -= 1
    stat = _attack_stat(ctx, weapon)
    effects = ctx.hero_effects(i)  # the weapon's own effects count for its value, not rerolls
    # (hero_effects(i, weapon) from the effects at hand: a playing context keeps no weapon's)
    value = ctx.value(
        i, stat, weapon, effects + ctx.weapon_effects(i, weapon) if weapon else effects
    )
    card = ctx.item(weapon) if weapon else None
    targets = [target]
    if card is not None and card.targets > 1:
        if chosen is None:
            chosen = _eligible_targets(ctx, i, target, card.range)[: card.targets - 1]
        targets += chosen
    roll = ctx.roll(i, value - _armour(ctx, targets[0], stat), effects)
    damage = card.damage if card else 1
    for n, foe in enumerate(targets):
        marker = ctx.marker(foe)
        armour = 1 if stat == "melee" and "heavy_armour" in marker.abilities else 0  # _armour
        tested = value - armour
        hit = roll.success if n == 0 else dice.passes(roll.natural, tested)
        if ctx.telling:
            note = f" -{armour} Heavy Armour" if armour else ""
            ctx.say(
                f"{ctx.name(i)} attacks the {marker.name} ({stat.title()} {value}{note}; "
                f"rolled {roll.natural}): {'hit' if hit else 'miss'}.",
                "attack",
            )
        if hit:
            ctx.wound(foe, damage, i, f"{ctx.name(i)}'s attack")
    if weapon is not None:
        if ctx.telling:
            ctx.whisper(i, f"You attacked with {ctx.item(weapon).name}.")
        if _malfunction(ctx, i, weapon, roll):
            ctx.drop_item(i, weapon)
            hero.buffs.remove(f"broken:{weapon}")


def _armour(ctx: _Ctx, foe: NemesisState, stat: str) -> int:
    """Heavy Armour: -1 to every Melee Attack against the Nemesis."""
    return 1 if stat == "melee" and "heavy_armour" in ctx.marker(foe).abilities else 0


def _eligible_targets(ctx: _Ctx, i: int, first: NemesisState, reach: int) -> list[NemesisState]:
    """Who a weapon's further targets may be: on the first target's space (and, for a ranged
    weapon, on an adjacent space within range); the most wounded first."""
    hero_node = ctx.s.heroes[i].node
    board = ctx.board
    found = []
    for other in (*ctx.s.nemeses, *ctx.s.towers):
        if other is first:
            continue
        if other.node == first.node or (
            reach
            and board.distance(other.node, first.node) == 1
            and 0 < board.distance(hero_node, other.node) <= reach
        ):
            found.append(other)
    found.sort(key=lambda n: (ctx.marker(n).life - n.wounds, n.uid))
    return found


def _aimed(ctx: _Ctx, aim: str) -> list[NemesisState] | None:
    """The Nemeses a player chose for a card (None: the card chooses)."""
    return [_foe(ctx, uid) for uid in aim.split("+")] if aim else None


def _intone(ctx: _Ctx, i: int, uid: str, chosen: list[NemesisState] | None = None) -> None:
    hero = ctx.s.heroes[i]
    hero.actions -= 1
    card = ctx.item(uid)
    roll = ctx.roll(i, ctx.value(i, "arcane"))
    hero.cantici.remove(uid)
    ctx.discard(uid)
    if ctx.telling:
        ctx.say(f"{ctx.name(i)} intones a Cantico (Arcane; {roll.shown()}).", "cantico")
        ctx.whisper(i, f"You intoned {card.name}.")
    if roll.success:
        ctx.deed(i, "cantici")
        ctx.apply_effects(i, card.effects, "a Cantico", f"item:{card.key}", chosen)


def _use(ctx: _Ctx, i: int, uid: str, chosen: list[NemesisState] | None = None) -> None:
    card = ctx.item(uid)
    if card.deck == "tech":
        _tech_use(ctx, i, uid)
    ctx.drop_item(i, uid)
    kind = "a Dream Shard" if card.deck == "shards" else "an item"
    if ctx.telling:
        ctx.say(f"{ctx.name(i)} uses {kind}.", "use")
    if card.deck == "shards":
        ctx.deed(i, "shards")
    ctx.apply_effects(i, card.effects, kind, f"item:{card.key}", chosen)


def _call_ally(ctx: _Ctx, i: int, uid: str) -> None:
    hero = ctx.s.heroes[i]
    card = ctx.adventure(uid)
    hero.used_prestige.append(f"ally:{uid}")
    ctx.say(f"{ctx.name(i)} calls on {card.name}.", "ally")
    ctx.apply_effects(i, [e for e in card.abilities if e.kind not in PASSIVE], card.name, "")
    if card.uses:
        hero.ally_uses[uid] = hero.ally_uses.get(uid, card.uses) - 1
        if hero.ally_uses[uid] <= 0:
            hero.allies.remove(uid)
            del hero.ally_uses[uid]
            ctx.discard(uid)
            ctx.say(f"{card.name} has done all they can and leaves.", "ally")


def _exchange(ctx: _Ctx, i: int, verb: str, rest: str) -> None:
    s = ctx.s
    what, _, other = rest.partition(":")
    j = int(other)
    giver, taker = (i, j) if verb == "give" else (j, i)
    hero = s.heroes[i]
    if j not in hero.traded_with:
        hero.traded_with.append(j)
        if hero.door is None:
            hero.actions -= 1
    src, dst = s.heroes[giver], s.heroes[taker]
    if what == "stone":
        src.dreamstone, dst.dreamstone = False, True
        ctx.say(f"{ctx.name(giver)} hands the Dreamstone to {ctx.name(taker)}.", "trade")
        return
    if what == "supply":
        src.supply -= 1
        dst.supply += 1
        ctx.say(f"{ctx.name(giver)} hands a Supply token to {ctx.name(taker)}.", "trade")
        _deliver(ctx, taker)
        return
    if what in src.allies:
        src.allies.remove(what)
        dst.allies.append(what)
        if what in src.ally_uses:
            dst.ally_uses[what] = src.ally_uses.pop(what)
        ctx.say(
            f"{ctx.name(giver)} sends the Ally {ctx.adventure(what).name} with {ctx.name(taker)}.",
            "trade",
        )
        return
    card = ctx.item(what)
    pile = "shards" if card.deck == "shards" else "items"
    getattr(src, pile).remove(what)
    if src.armour == what:
        src.armour = None
    if src.shield == what:
        src.shield = None
    for addon in [a for a, t in src.mounted.items() if t == what or a == what]:
        del src.mounted[addon]
    getattr(dst, pile).append(what)
    kind = "a Dream Shard" if card.deck == "shards" else "an item"
    ctx.say(f"{ctx.name(giver)} gives {kind} to {ctx.name(taker)}.", "trade")
    ctx.whisper(i, f"{card.name} changes hands.")


def _prestige(ctx: _Ctx, i: int, key: str) -> None:
    hero = ctx.s.heroes[i]
    ability = next(a for a in ctx.sheet(i).prestige if a.key == key)
    hero.used_prestige.append(key)
    if ability.kind == "rechargeable":
        hero.spent_prestige.append(key)
    if ctx.telling:
        ctx.say(f"{ctx.name(i)} uses {ability.name}.", "prestige")
    ctx.apply_effects(i, ability.effects, ability.name, "")


def _meditate(ctx: _Ctx, i: int, verb: str) -> None:
    s = ctx.s
    hero = s.heroes[i]
    hero.meditated = True
    if verb == "meditate":
        hero.actions -= 1
        uid = ctx.draw("cantici")
        if ctx.telling:
            ctx.say(f"{ctx.name(i)} meditates (1 Action) and draws a Cantico.", "meditate")
        if uid is not None:
            ctx.take_card(i, uid)
        return
    keep = 2 if verb == "meditate3x2" else 1
    hero.actions -= keep
    drawn = [u for u in (ctx.draw("cantici") for _ in range(3)) if u is not None]
    if ctx.telling:
        ctx.say(
            f"{ctx.name(i)} meditates at an Arcane location: draws {len(drawn)} Cantici "
            f"to keep {keep}.",
            "meditate",
        )
    _keep_decision(ctx, drawn, keep, "cantici")


def _keep_decision(ctx: _Ctx, drawn: list[str], keep: int, deck: str) -> None:
    if not drawn:
        return
    ctx.s.decision = ctx.new_decision(
        kind="keep",
        prompt=f"Keep {min(keep, len(drawn))} of these cards (the rest are discarded).",
        options={f"keep:{u}": f"Keep {ctx.item(u).name}: {ctx.item(u).text}"[:80] for u in drawn},
        cards=list(drawn),
        keep=min(keep, len(drawn)),
        deck=deck,
        private=True,
    )


def _reveal(ctx: _Ctx, i: int) -> None:
    s = ctx.s
    hero = s.heroes[i]
    hero.actions -= 1
    stone = s.unknown.pop(hero.node)
    if stone:
        hero.dreamstone = True
        ctx.say(
            f"{ctx.name(i)} reveals the Unknown token: it is the Dreamstone!",
            "scenario",
            chronicle=True,
        )
    else:
        if ctx.telling:
            ctx.say(f"{ctx.name(i)} reveals the Unknown token: empty.", "scenario")


def _cannon(ctx: _Ctx, i: int, target: NemesisState) -> None:
    s = ctx.s
    hero = s.heroes[i]
    hero.actions -= 1
    roll = ctx.roll(i, ctx.value(i, "tech"))
    if ctx.telling:
        ctx.say(
            f"{ctx.name(i)} fires the cannon at the {ctx.marker(target).name} (Tech; {roll.shown()}).",
            "attack",
        )
    if roll.success:
        ctx.wound(target, CANNON_DAMAGE, i, "cannon fire")
    elif roll.natural == 6:
        s.cannons.remove(hero.node)
        ctx.say(
            "Critical Malfunction: the cannon bursts and is lost.", "malfunction", chronicle=True
        )


# -- the end of a hero's phase ---------------------------------------------------------------------
def _end_phase(ctx: _Ctx, i: int) -> None:
    """At the end of the Heroes phase a hero on a location draws an Adventure card, or trades
    or heals where the location allows it instead."""
    s = ctx.s
    hero = s.heroes[i]
    s.ending = True
    if hero.supply:  # (_deliver's first test, without its call)
        _deliver(ctx, i)
    info = ctx.board.nodes[hero.node]
    if info.kind != "location" or hero.dead:
        return
    options: dict[str, str] = {}
    hurt = hero.wounds > 0 or (
        bool(hero.statuses)  # (most have none: no generator to go through the scenario's)
        and any(st.key in hero.statuses and st.cure != "never" for st in ctx.statuses())
    )
    healing = "healing" in info.icons and hurt and not ctx.table_has("no_heal")
    if hero.door is None:
        options["adventure"] = "Draw an Adventure card"
        trade = "common_trade" in info.icons or "tech_trade" in info.icons
        if trade and hero.shards and not ctx.table_has("no_trade"):
            options["trade"] = "Trade: discard a Dream Shard, draw 3 Items, keep 1"
    if healing:
        cures = " (and be cured)" if hero.statuses else ""
        options["heal1"] = f"Heal: regain 1 Life Point{cures}"
        if hero.shards:
            options["healall"] = "Heal: discard a Dream Shard, regain all Life Points"
    if not options:
        return
    if list(options) == ["adventure"]:
        _draw_adventure(ctx, i)
        return
    if hero.door is not None:
        options["pass"] = "Do nothing"
    s.decision = ctx.new_decision(
        kind="location", prompt=f"At {info.name}: choose one.", options=options
    )


def _draw_adventure(ctx: _Ctx, i: int) -> None:
    s = ctx.s
    info = ctx.board.nodes[s.heroes[i].node]
    deck = "city" if "city" in info.icons else "outland"
    uid = ctx.draw(deck)
    if uid is None:
        ctx.say(f"The {deck} deck is empty; nothing happens.")
        return
    card = ctx.adventure(uid)
    s.adventure = uid
    hero = s.heroes[i]
    options = {}
    for n, approach in enumerate(card.approaches):
        if approach.cost > len(hero.shards):
            continue
        options[f"gem:{n}"] = approach.label
    if not options:
        options["gem:none"] = "You cannot pay; walk away"
    deck_name = "City Intrigue" if deck == "city" else "Outland Mystery"
    ctx.say(
        f"{ctx.name(i)} draws the {deck_name} {card.name} ({card.type}): {card.text}",
        "adventure",
        chronicle=True,
    )
    s.decision = ctx.new_decision(
        kind="adventure", prompt=f"{card.name}: {card.text}", options=options
    )


def _answer(engine: DreamwarsEngine, ctx: _Ctx, choice: str) -> None:
    s = ctx.s
    decision = s.decision
    assert decision is not None
    i = s.active
    hero = s.heroes[i]
    if decision.kind == "location":
        s.decision = None
        if choice == "adventure":
            _draw_adventure(ctx, i)
        elif choice == "trade":
            info = ctx.board.nodes[hero.node]
            ctx.drop_item(i, hero.shards[0])
            deck = "tech" if "tech_trade" in info.icons else "common"
            drawn = [u for u in (ctx.draw(deck) for _ in range(3)) if u is not None]
            ctx.say(f"{ctx.name(i)} trades a Dream Shard for 1 of 3 {deck} Items.", "trade")
            _keep_decision(ctx, drawn, 1, deck)
        elif choice == "heal1":
            ctx.heal(i, 1, "a Healing location", location=True)
        elif choice == "healall":
            ctx.drop_item(i, hero.shards[0])
            ctx.heal(i, 0, "a Healing location and a Dream Shard", location=True)
        return
    if decision.kind == "keep":
        uid = choice.removeprefix("keep:")
        decision.cards.remove(uid)
        decision.options.pop(choice)
        ctx.take_card(i, uid)
        decision.keep -= 1
        if decision.keep <= 0 or not decision.cards:
            for rest in decision.cards:
                ctx.discard(rest)
            s.decision = None
        return
    if decision.kind in ("discard", "cantici"):
        uid = choice.removeprefix("drop:")
        ctx.drop_item(i, uid)
        ctx.say(f"{ctx.name(i)} discards a card to respect the limit.", "discard")
        s.decision = None
        return
    if decision.kind == "adventure":
        s.decision = None
        card_uid = s.adventure
        assert card_uid is not None
        card = ctx.adventure(card_uid)
        s.adventure = None
        kept = False
        if choice != "gem:none":
            approach = card.approaches[int(choice.removeprefix("gem:"))]
            for _ in range(approach.cost):
                ctx.drop_item(i, hero.shards[0])
            success = True
            if approach.attack:
                success = _adventure_attack(ctx, i, approach.modifier)
            elif approach.test is not None:
                success = _adventure_test(ctx, i, approach.test)
            outcome = approach.success if success else approach.failure
            if any(e.kind == "ally" for e in outcome):
                hero.allies.append(card_uid)
                if card.uses:
                    hero.ally_uses[card_uid] = card.uses
                kept = True
                ctx.say(f"{card.name} joins {ctx.name(i)}.", "ally", chronicle=True)
            ctx.apply_effects(i, [e for e in outcome if e.kind != "ally"], card.name, "")
        if not kept:
            ctx.discard(card_uid)
        ctx.deed(i, "adventures")
        return


def _adventure_test(ctx: _Ctx, i: int, test: TestSpec) -> bool:
    """A characteristic test on an Adventure: weapons do not help (Fate: a threshold)."""
    if test.stat in ("fate", "defence"):
        value = (test.threshold or 0) + test.modifier
        if test.stat == "defence":
            value += ctx.defence_mod(i)
    else:
        value = ctx.value(i, test.stat) + test.modifier
    roll = ctx.roll(i, value)
    if ctx.telling:
        title = test.stat.title()
        label = title if test.threshold is None else f"{title} {test.threshold}"
        ctx.say(f"{ctx.name(i)} tests {label} ({roll.shown()}).", "test")
    return roll.success


def _adventure_attack(ctx: _Ctx, i: int, modifier: int) -> bool:
    """An Attack on an Adventure: the hero's best weapon counts."""
    best = ctx.value(i, "melee") + modifier
    best_weapon: str | None = None
    melee, ranged = ctx.weapons(i)
    for weapon in melee + ranged:
        value = ctx.value(i, _attack_stat(ctx, weapon), weapon) + modifier
        if value > best:
            best, best_weapon = value, weapon
    roll = ctx.roll(i, best)
    if ctx.telling:
        ctx.say(f"{ctx.name(i)} makes an Attack ({roll.shown()}).", "attack")
    if best_weapon is not None and _malfunction(ctx, i, best_weapon, roll):
        ctx.drop_item(i, best_weapon)
        ctx.s.heroes[i].buffs.remove(f"broken:{best_weapon}")
    return roll.success


def over_limit_decision(ctx: _Ctx, i: int) -> bool:
    """Over the Max. load or Max. Cantici: the player picks what to discard, now."""
    s = ctx.s
    hero = s.heroes[i]
    sheet = ctx.lib.heroes[hero.key]
    if hero.dead:
        return False
    # Few enough items cannot be over the load, however heavy.
    if ctx.board.heaviest * len(hero.items) > sheet.max_load and ctx.load(i) > sheet.max_load:
        s.decision = ctx.new_decision(
            kind="discard",
            prompt=f"Over your Max. load ({ctx.load(i)}/{sheet.max_load}): discard an Item.",
            options={f"drop:{u}": f"Discard {ctx.item(u).name}" for u in hero.items},
            private=True,
        )
        return True
    if len(hero.cantici) > sheet.max_cantici:
        s.decision = ctx.new_decision(
            kind="cantici",
            prompt=f"Over your Max. Cantici ({len(hero.cantici)}/{sheet.max_cantici}): "
            "discard one.",
            options={f"drop:{u}": f"Discard {ctx.item(u).name}" for u in hero.cantici},
            private=True,
        )
        return True
    return False


__all__ = ["Effect", "legal_actions", "over_limit_decision", "perform"]
