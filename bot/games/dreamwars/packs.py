"""Loading and validating the Dreamwars content files, with ``file:line:col`` in every error.

A file is checked alone (its schema) and against the other files of its directory (a connection
to an unknown location, a scenario deploying an unknown marker, an Ordeal no sheet names).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from bot.games.dreamwars.content import (
    PACK_MODELS,
    AdventureCard,
    AdventurePack,
    EquipmentPack,
    EventCard,
    GreatNemesis,
    Hero,
    HeroPack,
    Item,
    MapPack,
    Marker,
    NemesisPack,
    Node,
    Ordeal,
    OrdealPack,
    Scenario,
)
from bot.games.packs import _node_at, _position, schema_errors, syntax_error

DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "dreamwars"


@dataclass
class Library:
    """All content by key, ready for the engine."""

    map_name: str = ""
    nodes: dict[str, Node] = field(default_factory=dict)
    adjacent: dict[str, tuple[str, ...]] = field(default_factory=dict)
    rail: list[str] = field(default_factory=list)
    heroes: dict[str, Hero] = field(default_factory=dict)
    great: dict[str, GreatNemesis] = field(default_factory=dict)
    markers: dict[str, Marker] = field(default_factory=dict)
    events: dict[str, EventCard] = field(default_factory=dict)
    items: dict[str, Item] = field(default_factory=dict)
    adventures: dict[str, AdventureCard] = field(default_factory=dict)
    ordeals: dict[str, Ordeal] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    statuses: set[str] = field(default_factory=set)  # every scenario's alteration statuses

    def add(self, pack: BaseModel) -> None:
        if isinstance(pack, MapPack):
            self.map_name = pack.name
            self.nodes.update({n.key: n for n in pack.nodes})
            links: dict[str, set[str]] = {}
            for path in pack.paths:
                for a, b in zip(path, path[1:], strict=False):
                    links.setdefault(a, set()).add(b)
                    links.setdefault(b, set()).add(a)
            self.adjacent = {k: tuple(sorted(v)) for k, v in links.items()}
            self.rail = list(pack.rail)
        elif isinstance(pack, HeroPack):
            self.heroes.update({h.key: h for h in pack.heroes})
        elif isinstance(pack, NemesisPack):
            self.great.update({g.key: g for g in pack.great})
            self.markers.update({m.key: m for m in pack.markers})
            self.events.update({e.key: e for e in pack.events})
        elif isinstance(pack, EquipmentPack):
            self.items.update({i.key: i for i in pack.items})
        elif isinstance(pack, AdventurePack):
            self.adventures.update({c.key: c for c in pack.cards})
        elif isinstance(pack, OrdealPack):
            for ordeal in pack.ordeals:
                self.ordeals[ordeal.key] = ordeal
                self.scenarios.update({s.key: s for s in ordeal.scenarios})
                self.statuses.update(st.key for s in ordeal.scenarios for st in s.statuses)


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _parse(text: str, filename: str) -> tuple[Any, list[str]]:
    try:
        return yaml.load(text, Loader=_Loader), []  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as exc:
        return None, [syntax_error(exc, filename)]


class _Positions:
    """Line and column of a place in the file, composed only when an error needs one."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._root: yaml.Node | None = None

    def at(self, loc: tuple[Any, ...]) -> str:
        if self._root is None:
            self._root = yaml.compose(self.text, Loader=_Loader)
        return _position(_node_at(self._root, loc))


def _schema(where: _Positions, raw: Any, filename: str) -> tuple[BaseModel | None, list[str]]:
    if not isinstance(raw, dict) or raw.get("game") != "dreamwars":
        return None, [f"{filename}:1:1: a Dreamwars file starts with 'game: dreamwars'"]
    kind = raw.get("kind")
    model = PACK_MODELS.get(str(kind))
    if model is None:
        known = ", ".join(PACK_MODELS)
        return None, [
            f"{filename}:{where.at(('kind',))}: kind must be one of: {known} (not {kind!r})"
        ]
    try:
        return model.model_validate(raw), []
    except ValidationError as exc:
        errors = schema_errors(
            exc, filename, where.at, keep_union_names=True, value_error_prefix=False
        )
        return None, errors


def _cross_check(pack: BaseModel, lib: Library) -> list[tuple[tuple[Any, ...], str]]:
    """References to things the library does not have, as (location in the file, message)."""
    problems: list[tuple[tuple[Any, ...], str]] = []

    def node(key: str | None, loc: tuple[Any, ...], what: str = "location") -> None:
        if key is not None and key not in lib.nodes:
            problems.append((loc, f"unknown {what} {key!r} (not on the map)"))

    def marker(key: str, loc: tuple[Any, ...]) -> None:
        if key not in lib.markers:
            problems.append((loc, f"unknown Nemesis marker {key!r}"))

    def effects(effects: list[Any], loc: tuple[Any, ...]) -> None:
        for i, effect in enumerate(effects):
            node(effect.location, (*loc, i, "location"))
            if effect.status is not None and lib.ordeals and effect.status not in lib.statuses:
                problems.append(
                    ((*loc, i, "status"), f"unknown status {effect.status!r} (no scenario has it)")
                )

    if isinstance(pack, MapPack):
        seen: set[str] = set()
        for i, n in enumerate(pack.nodes):
            if n.key in seen:
                problems.append((("nodes", i, "key"), f"the key {n.key!r} is used twice"))
            seen.add(n.key)
            if n.kind == "location" and not {"outland", "city"} & set(n.icons):
                problems.append(
                    (("nodes", i, "icons"), "a location needs the icon outland or city")
                )
        linked: set[str] = set()
        for i, path in enumerate(pack.paths):
            if len(path) < 2:
                problems.append((("paths", i), "a path joins at least two nodes"))
            for j, key in enumerate(path):
                node(key, ("paths", i, j))
                linked.add(key)
        for i, n in enumerate(pack.nodes):
            if n.key not in linked:
                problems.append((("nodes", i, "key"), f"{n.key!r} is on no path"))
        for i, key in enumerate(pack.rail):
            node(key, ("rail", i), "station")
    elif isinstance(pack, HeroPack):
        for i, hero in enumerate(pack.heroes):
            for j, ability in enumerate(hero.prestige):
                effects(ability.effects, ("heroes", i, "prestige", j, "effects"))
    elif isinstance(pack, NemesisPack):
        for i, event in enumerate(pack.events):
            for j, portal in enumerate(event.portals):
                node(portal, ("events", i, "portals", j))
                icon = f"portal_{event.faction}"
                if portal in lib.nodes and icon not in lib.nodes[portal].icons:
                    problems.append(
                        (
                            ("events", i, "portals", j),
                            f"{portal!r} is not an {event.faction} Portal",
                        )
                    )
        for i, great in enumerate(pack.great):
            if lib.ordeals and great.ordeal not in lib.ordeals:
                problems.append((("great", i, "ordeal"), f"unknown Ordeal {great.ordeal!r}"))
    elif isinstance(pack, EquipmentPack):
        for i, item in enumerate(pack.items):
            effects(item.effects, ("items", i, "effects"))
    elif isinstance(pack, AdventurePack):
        for i, card in enumerate(pack.cards):
            for j, approach in enumerate(card.approaches):
                effects(approach.success, ("cards", i, "approaches", j, "success"))
                effects(approach.failure, ("cards", i, "approaches", j, "failure"))
    elif isinstance(pack, OrdealPack):
        for i, ordeal in enumerate(pack.ordeals):
            keys = {s.key for s in ordeal.scenarios}
            if ordeal.first not in keys:
                problems.append((("ordeals", i, "first"), f"unknown scenario {ordeal.first!r}"))
            for j, sc in enumerate(ordeal.scenarios):
                at = ("ordeals", i, "scenarios", j)
                for field_name in ("start", "unknown", "supply", "coaches", "cannons", "siege"):
                    for k, key in enumerate(getattr(sc, field_name)):
                        node(key, (*at, field_name, k))
                for field_name in ("train", "siege_target", "nemesis_target"):
                    node(getattr(sc, field_name), (*at, field_name))
                for location, markers in sc.deploy.items():
                    node(location, (*at, "deploy", location))
                    for k, key in enumerate(markers):
                        marker(key, (*at, "deploy", location, k))
                for k, key in enumerate(sc.horde_extra):
                    marker(key, (*at, "horde_extra", k))
                for k, status in enumerate(sc.statuses):
                    for m, key in enumerate(status.caught_from):
                        marker(key, (*at, "statuses", k, "caught_from", m))
                for side in ("victory", "defeat"):
                    for k, goal in enumerate(getattr(sc, side)):
                        node(goal.location, (*at, side, k, "location"))
                        if goal.marker:
                            marker(goal.marker, (*at, side, k, "marker"))
                for side in ("on_victory", "on_defeat"):
                    nxt = getattr(sc, side)
                    if nxt not in keys | {"won", "lost"}:
                        problems.append(((*at, side), f"unknown next scenario {nxt!r}"))
    return problems


def _read_packs(directory: Path) -> list[tuple[Path, str, BaseModel | None, list[str]]]:
    found = []
    for path in sorted(directory.glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        raw, errors = _parse(text, str(path))
        pack = None
        if not errors:
            pack, errors = _schema(_Positions(text), raw, str(path))
        found.append((path, text, pack, errors))
    return found


def _library(packs: list[BaseModel | None]) -> Library:
    lib = Library()
    for pack in packs:
        if pack is not None:
            lib.add(pack)
    return lib


def validate_text(
    text: str, filename: str = "<pack>", siblings: Library | None = None
) -> list[str]:
    """Errors as ``file:line:col: message``; ``siblings`` resolves cross-file references."""
    raw, errors = _parse(text, filename)
    if errors:
        return errors
    where = _Positions(text)
    pack, errors = _schema(where, raw, filename)
    if pack is None:
        return errors
    merged = Library()
    for source in (siblings or Library(), _library([pack])):
        for key, value in vars(source).items():
            if isinstance(value, dict):
                getattr(merged, key).update(value)
            elif value:
                setattr(merged, key, value)
    return [f"{filename}:{where.at(loc)}: {message}" for loc, message in _cross_check(pack, merged)]


def is_dreamwars_file(text: str) -> bool:
    """Whether a pack file is a Dreamwars one (its header says so)."""
    return any(line.strip() == "game: dreamwars" for line in text.splitlines()[:20])


def validate_file(path: str | Path) -> list[str]:
    """One file, checked against the other files of its directory."""
    file_path = Path(path)
    try:
        text = file_path.read_text(encoding="utf-8")
    except OSError as exc:
        return [f"{file_path}:1:1: cannot read the file ({exc.strerror})"]
    return validate_text(text, str(file_path), sibling_library(file_path))


def sibling_library(path: Path) -> Library:
    """The content of the other files in ``path``'s directory (its cross references)."""
    if not path.parent.is_dir():
        return Library()
    others = [
        p for other, _t, p, _e in _read_packs(path.parent) if other.resolve() != path.resolve()
    ]
    return _library(others)


@lru_cache(maxsize=4)
def load_library(directory: str | None = None) -> Library:
    """Every file of ``data/dreamwars`` (or ``directory``); raises ValueError if one is bad."""
    packs = _read_packs(Path(directory) if directory else DATA_DIR)
    lib = _library([p for _path, _text, p, _e in packs])
    errors: list[str] = []
    for path, text, pack, pack_errors in packs:
        errors += pack_errors
        if pack is not None:
            where = _Positions(text)
            errors += [f"{path}:{where.at(loc)}: {m}" for loc, m in _cross_check(pack, lib)]
    if errors:
        raise ValueError("\n".join(errors))
    return lib
