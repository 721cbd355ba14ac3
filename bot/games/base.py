"""The contract every table game engine keeps, so that one game-table cog can drive them all.

An engine is pure: state is a pydantic model that round-trips through JSON, randomness comes
from an injected ``random.Random``, and every change returns the new state plus events. The cog
stores the state in a database row, asks ``legal_actions`` for the buttons of a seat, and calls
``apply`` with the action the seat clicked (looked up again by its ``id``, never trusted from the
client). Seats are opaque strings chosen by the cog (e.g. Discord user ids).
"""

from __future__ import annotations

import importlib
import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import cache
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field, field_validator

from bot.errors import RuleError
from bot.games.display import DEFAULT_DISPLAY, GameDisplay

__all__ = [
    "Action",
    "ENGINES",
    "copy_with_values",
    "GameDisplay",
    "GameEngine",
    "GameEvent",
    "GameResult",
    "IllegalAction",
    "LastChoice",
    "Move",
    "find_action",
    "get_display",
    "get_engine",
    "registered_engines",
    "register_engine",
    "shallow_copy",
    "trusted",
    "trusted_values",
]

ACTION_ID_MAX = 40  # leaves room in a 100-char custom_id for a prefix and the game row id
LABEL_MAX = 80  # Discord button label limit


@cache
def _json_schema(model: type[BaseModel]) -> dict[str, Any]:
    # pydantic rebuilds a schema on every call; lobby menus and autocomplete ask for it often.
    return model.model_json_schema()


class IllegalAction(RuleError):
    """The action is not allowed for this seat right now."""


class Action(BaseModel):
    """One thing a seat may do now. ``id`` is short and stable for the same state."""

    id: str = Field(max_length=ACTION_ID_MAX)
    label: str = Field(max_length=LABEL_MAX)
    kind: str
    # True when the label names hidden information (a card in hand): show it only to the seat.
    private: bool = False
    # True for a decision the whole table takes (the cog may let the host confirm it).
    table: bool = False
    data: dict[str, Any] = Field(default_factory=dict)

    @field_validator("label", mode="before")
    @classmethod
    def _strip(cls, value: object) -> object:
        """Labels come from card names (user packs too): clip instead of failing the turn."""
        if not isinstance(value, str):
            return value
        return _clip_label(value)


def _clip_label(value: str) -> str:
    value = value.strip() or "?"
    return value if len(value) <= LABEL_MAX else value[: LABEL_MAX - 1].rstrip() + "…"


class GameEvent(BaseModel):
    """Something that happened. Private events name the only seats allowed to see them."""

    text: str
    kind: str = "info"
    public: bool = True
    audience: list[str] = Field(default_factory=list)  # seats that may see a private event
    data: dict[str, Any] = Field(default_factory=dict)

    def visible_to(self, seat: str | None) -> bool:
        """Whether ``seat`` may see this event (``None`` = the public table)."""
        return self.public or (seat is not None and seat in self.audience)


_M = TypeVar("_M", bound=BaseModel)


def trusted(model: type[_M], **values: Any) -> _M:
    """A model built from values the engine made itself, without validating them again: the
    hot path of a step (an event, a job) builds many. Every field must be given, as the model
    would hold it after validation (lists already copied)."""
    new = _new_object(model)
    _set_dict(new, values)
    _set_fields_set(new, set(values))
    _set_extra(new, None)
    _set_private(new, None)
    return new


def trusted_values(model: type[_M], values: dict[str, Any]) -> _M:
    """``trusted(model, **values)`` of a dict made for it: the model takes ``values`` itself
    as its ``__dict__`` (the caller keeps no other use of it)."""
    new = _new_object(model)
    _set_dict(new, values)
    _set_fields_set(new, set(values))
    _set_extra(new, None)
    _set_private(new, None)
    return new


def shallow_copy(model: _M) -> _M:
    """``model.model_copy()`` without its overhead: a new model sharing every value."""
    new = _new_object(type(model))
    _set_dict(new, model.__dict__.copy())
    _set_fields_set(new, set(model.__pydantic_fields_set__))
    _set_extra(new, None)
    _set_private(new, None)
    return new


def copy_with_values(model: _M, values: dict[str, Any]) -> _M:
    """A model of ``model``'s class and fields set, taking ``values`` (valid ones, every
    field given, kept by no one else) as its ``__dict__``: a copy whose containers the caller
    chose to copy or share."""
    new = _new_object(type(model))
    _set_dict(new, values)
    _set_fields_set(new, set(model.__pydantic_fields_set__))
    _set_extra(new, None)
    _set_private(new, None)
    return new


_new_object = object.__new__
# BaseModel's own slots, set through their descriptors: what object.__setattr__ does for them,
# without its lookup of the name (about half the cost of a trusted model).
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class LastChoice:
    """An engine's memory of the last Action it found legal (its AI's choice, or a clicked id
    looked up by ``legal_action``): ``apply`` of that very Action on that very state need not
    work out the legal moves a second time. Anything else (another state, another object, an
    id) is checked as usual."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[Any, str, Action] | None = None

    def remember(self, state: Any, seat: str, action: Action) -> Action:
        self._last = (state, seat, action)
        return action

    def was_chosen(self, state: Any, seat: str, action: Action | str) -> bool:
        """Whether ``action`` is what the AI just chose for ``seat`` in ``state`` (forgotten
        once asked)."""
        last, self._last = self._last, None
        return last is not None and last[0] is state and last[2] is action and last[1] == seat


def event(
    text: str,
    kind: str = "info",
    audience: list[str] | None = None,
    data: dict[str, Any] | None = None,
) -> GameEvent:
    """A GameEvent for the table (``audience``: a private one for those seats only), built as
    the validated constructor would build it."""
    return trusted(
        GameEvent,
        text=text,
        kind=kind,
        public=audience is None,
        audience=[] if audience is None else audience,
        data={} if data is None else data,
    )


class Move:
    """One legal action as plain data, for an engine's hot path (its AI and its check of a
    clicked id): ``action()`` makes the pydantic Action the table shows. The label may be
    given as a function that makes it: most moves are never shown (the AI weighs them all).
    ``info``: what the engine's own code may want to know of the move without working it out
    again (e.g. the card it plays); never shown, never part of the Action."""

    __slots__ = ("_label", "id", "info", "kind", "private", "table")

    def __init__(
        self,
        id: str,
        label: str | Callable[[], str],
        kind: str,
        private: bool = False,
        table: bool = False,
        info: Any = None,
    ) -> None:
        self.id = id
        self._label = label
        self.kind = kind
        self.private = private
        self.table = table
        self.info = info

    @property
    def label(self) -> str:
        label = self._label
        if not isinstance(label, str):
            label = self._label = label()
        return label

    def action(self) -> Action:
        """The Action, exactly as ``Action(...)`` would validate it (label stripped and
        clipped), built without pydantic's checks when it needs none."""
        label = self.label
        if len(self.id) > ACTION_ID_MAX:  # let pydantic say what is wrong
            return Action(
                id=self.id, label=label, kind=self.kind, private=self.private, table=self.table
            )
        label = _clip_label(label)
        return trusted(
            Action,
            id=self.id,
            label=label,
            kind=self.kind,
            private=self.private,
            table=self.table,
            data={},
        )

    def __repr__(self) -> str:
        return f"Move({self.id!r}, {self.label!r}, {self.kind!r})"


class GameResult(BaseModel):
    """End-of-game summary: who won and the score of each side."""

    winner: str  # a side name, e.g. "players" or "game", or a seat
    scores: dict[str, int]
    summary: str
    details: dict[str, Any] = Field(default_factory=dict)


StateT = TypeVar("StateT", bound=BaseModel)
OptionsT = TypeVar("OptionsT", bound=BaseModel)


class GameEngine(ABC, Generic[StateT, OptionsT]):
    """Abstract game engine. Subclasses set the class attributes and implement the methods."""

    key: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options_model: ClassVar[type[BaseModel]]
    state_model: ClassVar[type[BaseModel]]
    # Options listed first in the lobby (its first menus), in this order; the rest follow.
    lobby_first: ClassVar[tuple[str, ...]] = ()

    def default_options(self) -> OptionsT:
        return self.options_model()  # type: ignore[return-value]

    def parse_options(self, raw: dict[str, Any] | None) -> OptionsT:
        """Validate lobby options (raises pydantic.ValidationError on bad input)."""
        return self.options_model.model_validate(raw or {})  # type: ignore[return-value]

    def options_schema(self) -> dict[str, Any]:
        """JSON schema of the lobby options (titles, defaults, enums) for building a lobby UI.
        Built once per options model and shared by every caller: read it, never change it."""
        return _json_schema(self.options_model)

    def option_values(self) -> dict[str, list[str]]:
        """Lobby options whose values come from content rather than the schema's enums (e.g.
        the books of a card pack): option name -> allowed values."""
        return {}

    def option_value_labels(self) -> dict[str, dict[str, str]]:
        """Readable names where an option's value is a key: option name -> value -> name."""
        return {}

    def resolve_options(
        self, raw: dict[str, Any], past: list[tuple[dict[str, Any], dict[str, Any] | None]]
    ) -> tuple[dict[str, Any], str | None]:
        """At Start: turn lobby options into the game's actual options, given this channel's
        finished games of this engine (oldest first, as (options, result)); e.g. a campaign
        picks its next book. Returns the options to use and an optional public note."""
        return raw, None

    def load_state(self, raw_json: str) -> StateT:
        return self.state_model.model_validate_json(raw_json)  # type: ignore[return-value]

    @abstractmethod
    def new_game(self, options: OptionsT, seats: list[str], rng: random.Random) -> StateT:
        """Set up a game. Raises RuleError if the seat count does not fit."""

    def opening(self, state: StateT) -> list[str]:
        """Public lines telling how the game was set up, logged at Start (``new_game`` gives
        no events)."""
        return []

    @abstractmethod
    def legal_actions(self, state: StateT, seat: str) -> list[Action]:
        """What ``seat`` may do now: its turn's moves, or a table-wide move any seat may make."""

    def legal_action(self, state: StateT, seat: str, action_id: str) -> Action | None:
        """The legal action of ``seat`` with this id (a click's), or None when there is none.
        An engine that can check one id without building every Action may do so."""
        for action in self.legal_actions(state, seat):
            if action.id == action_id:
                return action
        return None

    @abstractmethod
    def apply(
        self, state: StateT, seat: str, action: Action | str, rng: random.Random
    ) -> tuple[StateT, list[GameEvent]]:
        """Apply an action (or its id); the input state is not mutated. Raises RuleError."""

    @abstractmethod
    def current_seats(self, state: StateT) -> list[str]:
        """Seats the game waits for (several for a table decision). Other seats may still have
        table-wide moves in ``legal_actions`` (e.g. a proposal any player may make)."""

    @abstractmethod
    def public_view(self, state: StateT) -> dict[str, Any]:
        """Everything the table may see: no hand contents, no deck order."""

    @abstractmethod
    def private_view(self, state: StateT, seat: str) -> dict[str, Any]:
        """The public view plus what only ``seat`` may see (its hand)."""

    def private_view_from(
        self, state: StateT, seat: str, public: dict[str, Any] | None
    ) -> dict[str, Any]:
        """``private_view`` for a caller that has ``public_view(state)`` already (``public``;
        None: it has not). An engine whose private view starts from its public one may start
        from a copy of ``public`` instead of working it out again; ``public`` is left as it
        is. The default ignores it."""
        return self.private_view(state, seat)

    def table_views(
        self, state: StateT, seat: str, with_actions: bool = True
    ) -> tuple[dict[str, Any], list[Action], dict[str, Any]]:
        """What the table shows ``seat`` of one state after a move: the public view, the seat's
        legal actions (none unless ``with_actions``: a game not running offers none) and its
        private view. An engine may answer all three from one reading of the state; the
        default asks `public_view`, `legal_actions` and `private_view_from`."""
        public = self.public_view(state)
        actions = self.legal_actions(state, seat) if with_actions else []
        return public, actions, self.private_view_from(state, seat, public)

    def seat_views(
        self, state: StateT, seat: str, with_actions: bool = True
    ) -> tuple[Callable[[], dict[str, Any]], list[Action], dict[str, Any]]:
        """`table_views` for a move's answer, where the board is drawn later (coalesced: one
        edit for a burst of moves) or not at all: the public view as a function the board
        calls when it draws, the seat's legal actions, and what the seat's hand shows (a part
        of its private view is enough when the hand's display shows no more; the hand fields
        are then the same as from the whole private view). The default is `table_views`."""
        public, actions, private = self.table_views(state, seat, with_actions)
        return (lambda: public), actions, private

    @abstractmethod
    def is_over(self, state: StateT) -> bool: ...

    @abstractmethod
    def result(self, state: StateT) -> GameResult | None:
        """The result once the game is over, else None."""

    @abstractmethod
    def choose_action(self, state: StateT, seat: str, rng: random.Random) -> Action:
        """AI policy hook: pick one of ``legal_actions(state, seat)``."""

    def simulate(self, options: OptionsT, players: int, games: int, seed: int) -> dict[str, Any]:
        """AI-only games for `python -m bot simulate`: one JSON-ready summary, the same for
        the same seed. The default counts winners, scores and game lengths."""
        from bot.games.simulate import simulate_games

        return simulate_games(self, options, players, games, seed)

    def validate_pack_text(self, text: str, filename: str) -> list[str] | None:
        """Errors (``file:line:col: message``) of a content pack of this game, [] when it is
        valid, or None when the game has no packs."""
        return None


def find_action(engine: GameEngine[Any, Any], state: Any, seat: str, action_id: str) -> Action:
    """Look up a clicked action id among the legal ones; stale or foreign ids raise."""
    action = engine.legal_action(state, seat, action_id)
    if action is not None:
        return action
    raise IllegalAction("That choice is no longer available; look at the table and choose again.")


ENGINES: dict[str, GameEngine[Any, Any]] = {}
DISPLAYS: dict[str, GameDisplay] = {}

# Engines shipped with the bot, imported on first lookup (keeps base.py free of import cycles).
BUILTIN_ENGINE_MODULES: dict[str, str] = {
    "dfccg": "bot.games.dfccg",
    "dreamwars": "bot.games.dreamwars",
    "vampire-empire": "bot.games.vampire_empire",
}


def register_engine(
    engine: GameEngine[Any, Any], display: GameDisplay | None = None
) -> GameEngine[Any, Any]:
    """Make a game playable at the table: the engine, and how it shows itself (optional)."""
    ENGINES[engine.key] = engine
    if display is not None:
        DISPLAYS[engine.key] = display
    else:
        DISPLAYS.pop(engine.key, None)
    return engine


def registered_engines() -> list[GameEngine[Any, Any]]:
    """Every engine, the builtin ones imported on demand, sorted by key."""
    for key in BUILTIN_ENGINE_MODULES:
        get_engine(key)
    return [ENGINES[key] for key in sorted(ENGINES)]


def get_display(key: str) -> GameDisplay:
    """The display registered beside the engine `key` (the plain one if it has none)."""
    get_engine(key)
    return DISPLAYS.get(key, DEFAULT_DISPLAY)


def get_engine(key: str) -> GameEngine[Any, Any]:
    """The engine registered under `key` (a built-in one is imported on first use)."""
    if key not in ENGINES and key in BUILTIN_ENGINE_MODULES:
        importlib.import_module(BUILTIN_ENGINE_MODULES[key])
    try:
        return ENGINES[key]
    except KeyError:
        known = ", ".join(sorted(set(ENGINES) | set(BUILTIN_ENGINE_MODULES))) or "none"
        raise RuleError(f"There is no game called {key!r}; choose one of: {known}.") from None


def validate_pack_file(path: str, game: str | None = None) -> tuple[str, list[str]]:
    """Check a content pack: (the game it was checked as, errors with ``file:line:col``).

    Without ``game``, the pack is checked against every game that has packs and the errors of
    the one it fits best (fewest errors) are returned."""
    from pathlib import Path

    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        return game or "?", [f"{path}:1:1: cannot read the file ({exc.strerror})"]
    engines = [get_engine(game)] if game else registered_engines()
    checked = [(e.key, e.validate_pack_text(text, path)) for e in engines]
    found = [(key, errors) for key, errors in checked if errors is not None]
    if not found:
        names = ", ".join(e.key for e in engines)
        raise RuleError(f"{names} has no content packs to check.")
    return min(found, key=lambda pair: len(pair[1]))
