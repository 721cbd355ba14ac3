"""A table game as the ui and the web see it (GameInfo, seats, a hand, what an action did), the
lobby options an engine declares (menus, labels, typed option text), and the small helpers on a
game row (its seats, the seat acting, its dice, its log). GameService (games.py) runs the games."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from copy import copy
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache, wraps
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

from pydantic import ValidationError

from bot.db.models.columns import utcnow
from bot.db.models.games import GameRow
from bot.db.repos.games import LoggedAction
from bot.errors import RuleError
from bot.games.base import (
    Action,
    GameEngine,
    registered_engines,
)


class NotSeated(RuleError):
    """The user has no seat in this game."""


class AlreadyDone(RuleError):
    """The click was for an older version of the game (double click, or someone was faster)."""


@dataclass(frozen=True)
class Seat:
    """A seat at a game: the player (or an AI) and the name shown."""

    seat: str
    user_id: int | None
    name: str
    ai: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "user_id": self.user_id, "name": self.name, "ai": self.ai}


@dataclass
class GameInfo:
    """A snapshot of a game row, with the public view of its state (never a hand)."""

    id: int
    engine: str
    engine_name: str
    guild_id: int
    channel_id: int
    host_id: int
    seats: list[Seat]
    options: dict[str, Any]
    status: str
    version: int
    board_message_id: int | None
    public_log: list[str]
    result: dict[str, Any] | None
    created_at: datetime
    last_activity: datetime
    view: dict[str, Any] | None = None
    current_names: list[str] = field(default_factory=list)
    min_players: int = 1
    max_players: int = 1
    # A move's public view, built the first time `view` is read (by the board's next edit,
    # which a burst of moves shares) instead of on every move; None once built.
    view_source: Callable[[], dict[str, Any]] | None = field(
        default=None, repr=False, compare=False
    )

    def seat_of(self, user_id: int) -> Seat | None:
        return next((s for s in self.seats if s.user_id == user_id), None)


def _view_of(info: GameInfo) -> dict[str, Any] | None:
    known: dict[str, Any] | None = info.__dict__.get("_view")
    if known is None and info.view_source is not None:
        known = info.__dict__["_view"] = info.view_source()
        info.view_source = None
    return known


def _set_view(info: GameInfo, view: dict[str, Any] | None) -> None:
    info.__dict__["_view"] = view


# `view` reads through `view_source` while the view is not built (the dataclass's own
# __init__ stores the `view` given through the setter).
GameInfo.view = property(_view_of, _set_view)  # type: ignore[assignment]


@dataclass
class HandInfo:
    """A seat's private view (its hand) and where it is shown."""

    game: GameInfo
    seat: Seat
    private_view: dict[str, Any]
    actions: list[Action]
    private_log: list[str] = field(default_factory=list)


@dataclass
class ActOutcome:
    """What an action did to a game, for the board and the replies."""

    game: GameInfo
    public_events: list[str]
    private_events: list[str]  # for the acting user only
    hand: HandInfo  # the acting user's hand after the move (no second read to show it)


@dataclass
class IdleNotice:
    """A game that has waited too long, and what to say about it."""

    game: GameInfo
    kind: str  # "warn" or "abandon"
    idle_minutes: int


@dataclass
class LiveGame:
    """What /game move autocomplete needs, kept in memory per channel for one game version."""

    game_id: int
    version: int
    status: str
    engine: str
    seats: list[Seat]
    state_json: str | None
    actions: dict[int, list[Action]] = field(default_factory=dict)  # per user id, lazily


LIVE_CACHE_MAX = 2000  # channels remembered (oldest dropped first)
NO_GAME_TTL = 5.0  # seconds a channel read as having no live game is answered from memory


def engine_choices() -> list[tuple[str, str]]:
    """(key, name) of every registered engine, builtin ones imported on demand."""
    return [(engine.key, engine.name) for engine in registered_engines()]


RESET = "none"  # the lobby value that puts an option back to its default
BOOL_VALUES = {"true": "yes", "false": "no"}


def option_token(value: Any) -> str:
    """An option value as the lobby writes it (``true``/``false`` for a yes/no option)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


Table = TypeVar("Table", dict[str, Any], set[str])


def _per_engine(
    build: Callable[[GameEngine[Any, Any]], Table],
) -> Callable[[GameEngine[Any, Any]], Table]:
    """An option table worked out once per engine: it comes from the engine's options schema
    and content, fixed once loaded, and a lobby message asks for the tables a dozen times.
    Each caller gets a copy of its top level."""
    kept: WeakKeyDictionary[GameEngine[Any, Any], Table] = WeakKeyDictionary()

    @wraps(build)
    def table(engine: GameEngine[Any, Any]) -> Table:
        found = kept.get(engine)
        if found is None:
            found = kept[engine] = build(engine)
        return copy(found)

    return table


def _lobby_props(engine: GameEngine[Any, Any]) -> dict[str, dict[str, Any]]:
    props: dict[str, dict[str, Any]] = engine.options_schema().get("properties", {})
    return {name: spec for name, spec in props.items() if spec.get("lobby", True)}


@_per_engine
def option_fields(engine: GameEngine[Any, Any]) -> dict[str, list[str]]:
    """Lobby options that take one of a few values: name -> allowed values (for selects and
    autocomplete). Enums come from the options schema (in its order), yes/no
    options offer ``true``/``false``; an option whose default is empty also offers ``none``
    (back to the default). The engine adds values that live in its content (e.g. the card
    game's books and characters). An option marked ``lobby: False`` is left out."""
    schema = engine.options_schema()
    extra = engine.option_values()
    fields: dict[str, list[str]] = {}
    for name, spec in _lobby_props(engine).items():
        if name in extra:
            continue
        values = _enum_of(spec, schema)
        if not values and spec.get("type") == "boolean":
            values = list(BOOL_VALUES)
        if values:
            fields[name] = [*values, RESET] if spec.get("default", "") is None else values
    fields.update(extra)  # content values after the schema's own, in the engine's order
    first = [name for name in engine.lobby_first if name in fields]
    if first:  # the engine's main options get the lobby's own menus
        fields = {n: fields[n] for n in first} | {n: v for n, v in fields.items() if n not in first}
    return fields


@_per_engine
def multi_option_fields(engine: GameEngine[Any, Any]) -> set[str]:
    """Lobby options holding a list (several values may be picked; none = the default)."""
    multi = set()
    for name, spec in _lobby_props(engine).items():
        kinds = [spec.get("type")] + [alt.get("type") for alt in spec.get("anyOf", [])]
        if "array" in kinds:
            multi.add(name)
    return multi


@_per_engine
def option_labels(engine: GameEngine[Any, Any]) -> dict[str, dict[str, str]]:
    """Readable names of option values: the engine's (characters, books), yes/no for the
    yes/no options."""
    labels = engine.option_value_labels()
    fields = option_fields(engine)
    for name, values in fields.items():
        if values == list(BOOL_VALUES):
            labels.setdefault(name, BOOL_VALUES)
    return labels


@_per_engine
def option_titles(engine: GameEngine[Any, Any]) -> dict[str, str]:
    """Readable names of the options (the schema's titles): name -> title."""
    return {
        name: str(spec.get("title") or name.replace("_", " ").capitalize())
        for name, spec in engine.options_schema().get("properties", {}).items()
    }


@dataclass(frozen=True)
class OptionHelp:
    """One lobby option as /game rules explains it."""

    name: str
    title: str
    default: str
    meaning: str
    choices: list[str]


def options_help(engine: GameEngine[Any, Any]) -> list[OptionHelp]:
    """Every lobby option with its default and what it means, for /game rules."""
    titles = option_titles(engine)
    labels = option_labels(engine)
    fields = option_fields(engine)
    out = []
    for name, spec in _lobby_props(engine).items():
        default = spec.get("default")
        shown = (
            "none"
            if default is None or default == []
            else labels.get(name, {}).get(option_token(default), option_token(default))
        )
        choices = [labels.get(name, {}).get(v, v) for v in fields.get(name, []) if v != RESET]
        out.append(OptionHelp(name, titles[name], shown, str(spec.get("description", "")), choices))
    return out


OPTION_TEXT_MAX = 400


def _key(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def parse_option_text(engine: GameEngine[Any, Any], text: str) -> dict[str, Any]:
    """``name=value`` pairs typed in /game new (spaces or commas between pairs; a name may be
    the option's key or its title; a list option takes values joined by ``+``)."""
    text = text.strip()[:OPTION_TEXT_MAX]
    if not text:
        return {}
    fields = option_fields(engine)
    titles = option_titles(engine)
    by_key = {_key(name): name for name in fields} | {_key(titles[n]): n for n in fields}
    multi = multi_option_fields(engine)
    options: dict[str, Any] = {}
    for pair in text.replace(",", " ").split():
        typed, sep, value = pair.partition("=")
        name = by_key.get(_key(typed))
        if not sep or not value or name is None:
            known = ", ".join(f"{n}=…" for n in fields) or "none"
            raise RuleError(
                f"{pair[:40]!r} is not an option of {engine.name}; type name=value pairs, "
                f"e.g. {known}."
            )
        options[name] = value.split("+") if name in multi else value
    return options


def _enum_of(spec: dict[str, Any], schema: dict[str, Any]) -> list[str]:
    if "enum" in spec:
        return [str(v) for v in spec["enum"] if v is not None]
    if "$ref" in spec:
        ref = spec["$ref"].rsplit("/", 1)[-1]
        return _enum_of(schema.get("$defs", {}).get(ref, {}), schema)
    for alt in spec.get("anyOf", []):
        values = _enum_of(alt, schema)
        if values:
            return values
    return []


def validated_options(engine: GameEngine[Any, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The lobby options as the engine parses them (only those set), or a sentence naming the
    first option that cannot take its value."""
    allowed = option_fields(engine)
    titles = option_titles(engine)
    options = {k: v for k, v in options.items() if v != RESET}
    for key, value in options.items():
        for item in value if isinstance(value, list) else [value]:
            if key in allowed and option_token(item) not in allowed[key]:
                choices = ", ".join(v for v in allowed[key] if v != RESET)
                raise RuleError(
                    f"{titles.get(key, key)} (`{key}`) cannot be {str(item)[:40]!r}; "
                    "choose one of: "
                    f"{choices}."
                )
    try:
        parsed = engine.parse_options(options)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "options"
        raise RuleError(f"The option {where} is not valid: {first['msg']}.") from None
    return {k: v for k, v in parsed.model_dump(mode="json").items() if k in options}


def finish_values(engine: GameEngine[Any, Any], state: Any) -> dict[str, Any]:
    """The columns a game's row gets when its state is over (none while it runs)."""
    if not engine.is_over(state):
        return {}
    result = engine.result(state)
    return {
        "result": result.model_dump_json() if result else None,
        "active_channel_id": None,
        "ended_at": utcnow(),
    }


def logged_action(row: GameRow, seat: str, user_id: int | None, action: Action) -> LoggedAction:
    """The action log's row for one applied action (an AI's or a person's). A private action's
    label names hidden information (a card in hand), so only its kind is stored: no reader of
    the log, now or later, can show what it named."""
    return LoggedAction(
        version=row.version + 1,
        seat=seat,
        user_id=user_id,
        action_id=action.id[:64],
        label=(action.kind if action.private else action.label)[:100],
    )


def row_rng(row: GameRow, step: int) -> random.Random:
    """The dice of one step of a game's row (seeded: a replay rolls the same)."""
    return random.Random(f"{row.seed}:{row.version}:{step}")


def seats_of(row: GameRow) -> list[Seat]:
    """The seats stored on a game's row."""
    return list(_parsed_seats(row.seats))


@lru_cache(maxsize=LIVE_CACHE_MAX)
def _parsed_seats(text: str) -> tuple[Seat, ...]:
    # A move reads its row's seats three times (the acting seat, the snapshot, the live
    # memory); Seats are frozen, so one parse per stored text serves them all.
    return tuple(Seat(**s) for s in json.loads(text))


def acting_seat(row: GameRow, user_id: int, version: int | None) -> tuple[list[Seat], Seat, int]:
    """The seats and the clicking player's seat of a running game whose version the click
    saw (None: the current one); a sentence for anything else."""
    if row.status == "paused":
        raise RuleError(
            "This game is paused; any of its players can continue it with `/game resume`."
        )
    if row.status != "running":
        raise AlreadyDone(
            "Already done: this game is "
            + ("over" if row.status != "lobby" else "still in its lobby")
            + "."
        )
    seats = seats_of(row)
    seat = next((s for s in seats if s.user_id == user_id), None)
    if seat is None:
        raise NotSeated("You are not playing in this game; only its players can act.")
    if version is not None and row.version != version:
        raise AlreadyDone(
            "Already done: that choice was made or the table has moved on. "
            "Press **My hand** for what you can do now."
        )
    return seats, seat, row.version if version is None else version


# Idle games settled per write transaction: a backlog (after a long outage) never makes one
# unit of work miss its deadline.
