"""The map as a graph with distances computed once: plain distance (ranges), and the distance
for walkers, who cannot go from one river space straight to another."""

from __future__ import annotations

import dataclasses
from collections import deque
from functools import cache
from typing import Any, cast

from pydantic import BaseModel

from bot.games.dreamwars.packs import Library, load_library

WATERY = frozenset({"water", "river", "bridge"})
BYPASS = frozenset({"agile", "behemoth", "leader", "flying"})  # abilities to pass heroes by
PASSIVE = frozenset(
    {
        "modify",
        "reroll_failed",
        "reroll_success",
        "safe_ford",
        "aquatic",
        "no_trade",
        "no_heal",
        "nemesis_limit",
        "nemesis_move",
    }
)  # effects that last while their source does (the engine's; it imports them from here)
TARGETING = ("wound_nemesis", "stun_nemesis", "banish_nemesis")  # effects aimed at Nemeses
ACTIVE = frozenset(  # effects that make a Prestige ability or an Ally something to use
    {"heal", "draw", "wound_nemesis", "extra_move", "hide", "stun_nemesis", "banish_nemesis"}
)


def _bfs(adjacent: dict[str, tuple[str, ...]], start: str) -> dict[str, int]:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in adjacent.get(node, ()):
            if nxt not in seen:
                seen[nxt] = seen[node] + 1
                queue.append(nxt)
    return seen


def _aimed(effects: list[Any]) -> Any:
    """The one effect on Nemeses among ``effects`` that a player aims (None: none, or more)."""
    targeting = [e for e in effects if e.kind in TARGETING]
    return targeting[0] if len(targeting) == 1 else None


_PLAIN_CLASSES: dict[type[BaseModel], type] = {}


def _content_class(model: type[BaseModel]) -> type:
    known = _PLAIN_CLASSES.get(model)
    if known is None:
        names = tuple(model.model_fields)

        def __repr__(self: Any) -> str:
            fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in names)
            return f"{model.__name__}({fields})"

        known = _PLAIN_CLASSES[model] = type(
            f"Plain{model.__name__}", (), {"__slots__": names, "__repr__": __repr__}
        )
    return known


def plain_content(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """The same content with each pydantic model as a plain slotted object of the same field
    names (lists, dicts and tuples copied likewise; one object for one shared). The engine
    reads content at every step: an attribute of a pydantic model, whose class has a
    ``__getattr__``, costs about four times a slot's. The copies compare by identity, not by
    value as the models do (nothing compares content)."""
    if memo is None:
        memo = {}
    known = memo.get(id(value))
    if known is not None:
        return known
    if isinstance(value, BaseModel):
        plain: Any = object.__new__(_content_class(type(value)))
        memo[id(value)] = plain
        for name in type(value).model_fields:
            setattr(plain, name, plain_content(getattr(value, name), memo))
        return plain
    if isinstance(value, list):
        found: Any = [plain_content(v, memo) for v in value]
    elif isinstance(value, tuple):
        found = tuple(plain_content(v, memo) for v in value)
    elif isinstance(value, dict):
        found = {k: plain_content(v, memo) for k, v in value.items()}
    else:
        return value
    memo[id(value)] = found
    return found


def plain_library(lib: Library) -> Library:
    """``plain_content`` of a whole library (typed as the library it reads like)."""
    memo: dict[int, Any] = {}
    fields = {f.name: plain_content(getattr(lib, f.name), memo) for f in dataclasses.fields(lib)}
    return cast("Library", dataclasses.replace(lib, **fields))


class Board:
    """The map of a pack: its locations and the paths between them."""

    def __init__(self, lib: Library) -> None:
        self.lib = lib
        # What the rules read: the same content as plain objects (see plain_content), copied
        # once here; ``lib`` (the models) serves labels, results and tests. A library is never
        # changed after it is loaded: one that were would not reach the rules.
        self.content = lib = plain_library(lib)
        self.nodes = lib.nodes
        self.adjacent = lib.adjacent
        rivers = {k for k, n in lib.nodes.items() if n.type == "river"}
        self.walk_adjacent = {
            k: tuple(n for n in v if not (k in rivers and n in rivers))
            for k, v in lib.adjacent.items()
        }
        self.rivers = frozenset(rivers)
        # The ids of the steps from each space (actions.py's): anywhere, and for a walker
        self.step_ids = {k: tuple(f"step:{n}" for n in v) for k, v in lib.adjacent.items()}
        self.walk_step_ids = {
            k: tuple(f"step:{n}" for n in v) for k, v in self.walk_adjacent.items()
        }
        self.dist = {k: _bfs(self.adjacent, k) for k in lib.nodes}
        self.walk = {k: _bfs(self.walk_adjacent, k) for k in lib.nodes}
        # The spaces within 0-6 of each space (6: the longest range a pack may give an effect;
        # a reach made longer by bonuses is worked out when asked).
        self.near = {k: {r: frozenset(self.within(k, r)) for r in range(7)} for k in lib.nodes}
        # Content tables the engine reads at every step, by content key (built once).
        passive = PASSIVE
        self.carried = {  # a carried tool's passive effects (nothing for other items)
            k: tuple(i.effects) if i.type == "tool" and "consumable" not in i.traits else ()
            for k, i in lib.items.items()
        }
        self.aimed = {k: _aimed(i.effects) for k, i in lib.items.items()}
        self.item_passive = {
            k: tuple(e for e in i.effects if e.kind in passive) for k, i in lib.items.items()
        }
        # a buff of this turn ("item:<key>", from a used item or Cantico) -> its passive effects
        self.buff_passive = {f"item:{k}": effects for k, effects in self.item_passive.items()}
        self.ally_passive = {
            k: tuple(e for e in a.abilities if e.kind in passive) for k, a in lib.adventures.items()
        }
        self.active_prestige = {  # hero -> its Prestige abilities with an effect to use
            k: tuple(a for a in h.prestige if any(e.kind in ACTIVE for e in a.effects))
            for k, h in lib.heroes.items()
        }
        self.callable_allies = frozenset(  # Adventure cards an Ally can be called on for
            k for k, a in lib.adventures.items() if any(e.kind in ACTIVE for e in a.abilities)
        )
        self.static_prestige = {  # hero -> (ability key, its passive effects) of static ones
            k: tuple(
                (a.key, tuple(e for e in a.effects if e.kind in passive))
                for a in h.prestige
                if a.kind == "static"
            )
            for k, h in lib.heroes.items()
        }
        self.event_limit = {
            k: sum(e.amount for e in ev.effects if e.kind == "nemesis_limit")
            for k, ev in lib.events.items()
        }
        self.great_limit = {
            k: sum(e.amount for e in g.effects if e.kind == "nemesis_limit")
            for k, g in lib.great.items()
        }
        self.free_movers = frozenset(  # Nemeses that ignore rivers
            k for k, m in lib.markers.items() if {"flying", "aquatic"} & set(m.abilities)
        )
        self.bypassers = frozenset(  # Nemeses that go on past heroes not their target
            k for k, m in lib.markers.items() if BYPASS & set(m.abilities)
        )
        self.aquatic_markers = frozenset(
            k for k, m in lib.markers.items() if "aquatic" in m.abilities
        )
        self.crystal = frozenset(  # markers with a Crystal Body
            k for k, m in lib.markers.items() if "crystal_body" in m.abilities
        )
        self.healing = [k for k, n in lib.nodes.items() if "healing" in n.icons]
        self.load_of = {
            k: 0 if i.type == "addon" else 2 if "encumbering" in i.traits else 1
            for k, i in lib.items.items()
        }
        self.heaviest = max(self.load_of.values(), default=0)  # the most an item weighs
        self.item_type = {k: i.type for k, i in lib.items.items()}
        self.tech_items = frozenset(k for k, i in lib.items.items() if i.deck == "tech")
        self.defence_of = {  # what an armour or shield adds to Defence when worn
            k: sum(e.amount for e in i.effects if e.stat == "defence") for k, i in lib.items.items()
        }
        # weapon -> whether it is ranged (other items are not there)
        self.weapon_ranged = {
            k: "ranged" in i.traits for k, i in lib.items.items() if i.type == "weapon"
        }
        self.event_star = {k: ev.star for k, ev in lib.events.items()}
        self._hops: dict[bool, dict[tuple[str, str], str | None]] = {True: {}, False: {}}
        # (space, goal, the step ids offered) -> the AI's step toward the goal (ai.best_step's)
        self.toward: dict[tuple[str, str, tuple[str, ...]], str | None] = {}
        self.portals: dict[str, list[str]] = {}
        for key, node in lib.nodes.items():
            for icon in node.icons:
                if icon.startswith("portal_"):
                    self.portals.setdefault(icon.removeprefix("portal_"), []).append(key)

    def distance(self, a: str, b: str) -> int:
        return self.dist[a].get(b, 99)

    def within(self, a: str, reach: int) -> list[str]:
        return [n for n, d in self.dist[a].items() if d <= reach]

    def watery(self, node: str) -> bool:
        return self.nodes[node].type in WATERY

    def next_step(self, start: str, goal: str, free: bool) -> str | None:
        """The neighbour one step closer to ``goal`` (``free``: rivers do not matter); worked
        out once for each start, goal and kind of mover."""
        hops = self._hops[free]
        key = (start, goal)
        if key not in hops:
            hops[key] = self._next_step(start, goal, free)
        return hops[key]

    def _next_step(self, start: str, goal: str, free: bool) -> str | None:
        table = self.dist if free else self.walk
        links = self.adjacent if free else self.walk_adjacent
        here = table[start].get(goal)
        if not here:
            return None
        for nxt in links.get(start, ()):
            if table[nxt].get(goal, 99) == here - 1:
                return nxt
        return None


@cache
def default_board() -> Board:
    """The board of the packs shipped with the bot (built once)."""
    return Board(load_library())
