"""Options and state of a DFCCG game (pydantic, JSON round-trip). Cards are referenced by id."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from bot.games.base import trusted_values
from bot.games.dfccg.cards import Effect

Difficulty = Literal["apprentice", "wizard", "merlin"]
StartRule = Literal["random", "choose", "random-variant", "choose-variant"]
START_LABELS: dict[str, str] = {
    "random": "Decks dealt at random",
    "choose": "Each player chooses a deck",
    "random-variant": "Random decks, variant start",
    "choose-variant": "Players choose, variant start",
}
# Fate on Available at the start; the rest of the 13 starts on Spent.
STARTING_FATE: dict[str, int] = {"apprentice": 13, "wizard": 8, "merlin": 4}
FATE_SUPPLY = 13
TOKEN_SUPPLY = 24 + 8 * 5  # 24 one-counters and 8 five-counters, for Hits and for Clues alike
HAND_SIZE: dict[int, int] = {5: 4, 4: 5, 3: 7, 2: 9, 1: 6}  # 2p: 9 from two decks; 1p: 6 each


class DfOptions(BaseModel):
    """Lobby options. Rules the rulebook leaves open are named options with documented defaults."""

    difficulty: Difficulty = Field(
        default="wizard",
        title="Difficulty",
        description="Fate on Available at the start: apprentice 13, wizard 8, merlin 4.",
    )
    book: str = Field(
        default="storm-front",
        title="Book",
        description="A Book key, 'side-jobs', or 'campaign' (the channel's next campaign book).",
    )
    campaign: bool = Field(
        default=False,
        description="Set at Start when the book was chosen by the campaign.",
        json_schema_extra={"lobby": False},
    )
    characters: list[str] | None = Field(
        default=None,
        title="Characters",
        description="Character keys to use (Harry is added if missing); None deals them at random.",
    )
    start: StartRule = Field(
        default="random",
        title="Set-up",
        description="Set-up: decks dealt at random, or each player chooses (then the seating is "
        "random); '-variant': each player names a card type and may redraw a hand without it.",
    )
    harry_chooses_first: bool = Field(
        default=True,
        title="Harry chooses who starts",
        json_schema_extra={"lobby": False},  # the four set-up menus fill the lobby
        description="Harry's player (the solo player too) picks who starts; False: the first "
        "seat starts.",
    )
    showdown_consent: Literal["everyone", "host"] = Field(
        default="everyone",
        title="Who confirms the Showdown",
        description="Who confirms a proposed Showdown: every seat, or the host (the first seat) "
        "for the table.",
    )
    allow_play_without_target: bool = Field(
        default=False,
        title="Play cards with no target",
        json_schema_extra={"lobby": False},  # the four set-up menus fill the lobby
        description="Unwritten rule: may a card with no dice be played with no legal target?",
    )
    auto_showdown_when_clear: bool = Field(
        default=True,
        title="Showdown once the rows are clear",
        json_schema_extra={"lobby": False},  # the four set-up menus fill the lobby
        description="Unwritten rule: start the Showdown once no Foe or Case is left in the rows.",
    )
    turn_limit: int = Field(
        default=300,
        title="Turn limit",
        ge=10,
        description="Safety net: the Showdown starts after this many turns.",
    )


@dataclass(frozen=True, slots=True)
class CardRef:
    """A card in play, named by its pack key. A frozen slotted dataclass, not a model: the
    rules read a ref at every step (a pydantic model's attribute is read through its
    ``__getattr__`` hook), and pydantic validates and writes it in a state as it did a model."""

    uid: str  # unique in this game, short (used in button ids)
    card_id: str


class BookSlot(BaseModel):
    """One position of the case file row and the tokens on its card."""

    uid: str
    card_id: str
    tokens: int = 0  # Hits on a Foe, Clues on a Case


class Tableau(BaseModel):
    """One hand with its characters: a player (2 characters in a 2-player game) or, in a
    1-player game, one of the three characters the solo player runs."""

    seat: str
    characters: list[str]
    hand: list[CardRef] = Field(default_factory=list)
    deck: list[CardRef] = Field(default_factory=list)
    discard: list[CardRef] = Field(default_factory=list)
    stunts_used: list[str] = Field(default_factory=list)
    talents_ready: list[str] = Field(default_factory=list)
    # Variant start: the card type this hand's player named ("none": no type), and whether the
    # hand is kept. Unused (None / True) without the variant.
    named_type: str | None = None
    hand_kept: bool = True


class Job(BaseModel):
    """Effects still to resolve (a played card, a Talent, a Stunt, an Advantage taken ...)."""

    source: str  # display name
    tableau: int
    character: str | None = None
    effects: list[Effect]
    value: int | None = None  # the card's rolled value
    reach: int = 6
    unlimited: bool = False
    targets: list[str] = Field(default_factory=list)  # last effect's targets, for pick "same"
    source_book: str | None = None
    lingering: list[str] = Field(default_factory=list)  # removed Obstacles still in effect
    action: str | None = None  # the played card's action type ("cannot Attack" checks)
    # The played card: it reaches its owner's discard pile when the action finishes, so a draw
    # during the action never reshuffles it back into the deck.
    played: CardRef | None = None


DecisionKind = Literal[
    "deck",
    "named_type",
    "redraw",
    "first_player",
    "talent",
    "choose",
    "showdown_pick",
    "showdown",
    "showdown_vote",
]


class Decision(BaseModel):
    """What the game waits for: an option id -> label map."""

    kind: DecisionKind
    prompt: str
    options: dict[str, str]
    table: bool = False  # any seat may answer (a group decision)
    seats: list[str] | None = None  # only these seats answer (None: the active one, or all)


class DfState(BaseModel):
    """The whole state of one game, stored as JSON in its row."""

    options: DfOptions
    seats: list[str]
    tableaux: list[Tableau]
    rows: list[list[BookSlot]]
    book_name: str
    showdown_id: str
    available: int
    spent: int
    hit_supply: int = TOKEN_SUPPLY
    clue_supply: int = TOKEN_SUPPLY
    solved: list[str] = Field(default_factory=list)  # card ids
    book_discard: list[str] = Field(default_factory=list)
    active: int = 0
    turn: int = 0
    phase: Literal["setup", "play", "showdown", "over"] = "setup"
    turn_open: bool = False
    jobs: list[Job] = Field(default_factory=list)
    decision: Decision | None = None
    showdown_queue: list[str] = Field(default_factory=list)  # cards still owed a roll
    showdown_rolls: list[str] = Field(default_factory=list)  # cards that had their roll
    showdown_pick: str | None = None  # the card the table chose to roll for next
    showdown_votes: list[str] = Field(default_factory=list)  # seats agreeing to a proposal
    showdown_reason: str = ""
    next_uid: int = 0
    seated: bool = True  # False while players still choose their decks
    setup_notes: list[str] = Field(default_factory=list)  # public set-up facts (Side Jobs roll)


# -- the engine's working copy ---------------------------------------------------------------
# The rules work on plain slotted objects with the same fields as the models above: pydantic's
# attribute writes, copies and checks cost more than the rules themselves. A state becomes plain
# when the engine takes it (``plain``) and a model again when it gives it back (``model``); an
# AI-only game stays plain from its set-up to its end. Card refs (frozen), effects and the
# options are shared: the engine never changes one in place (it replaces them).


class PlainSlot:
    """A ``BookSlot``, plain."""

    __slots__ = ("card_id", "tokens", "uid")

    def __init__(self, uid: str, card_id: str, tokens: int = 0) -> None:
        self.uid = uid
        self.card_id = card_id
        self.tokens = tokens


class PlainTableau:
    """A ``Tableau``, plain."""

    __slots__ = (
        "characters",
        "deck",
        "discard",
        "hand",
        "hand_kept",
        "named_type",
        "seat",
        "stunts_used",
        "talents_ready",
    )
    seat: str
    characters: list[str]
    hand: list[CardRef]
    deck: list[CardRef]
    discard: list[CardRef]
    stunts_used: list[str]
    talents_ready: list[str]
    named_type: str | None
    hand_kept: bool


class PlainJob:
    """A ``Job``, plain."""

    __slots__ = (
        "action",
        "character",
        "effects",
        "lingering",
        "played",
        "reach",
        "source",
        "source_book",
        "tableau",
        "targets",
        "unlimited",
        "value",
    )
    source: str
    tableau: int
    character: str | None
    effects: list[Effect]
    value: int | None
    reach: int
    unlimited: bool
    targets: list[str]
    source_book: str | None
    lingering: list[str]
    action: str | None
    played: CardRef | None


class PlainDecision:
    """A ``Decision``, plain (the rules make one at most steps and read it at every one)."""

    __slots__ = ("kind", "options", "prompt", "seats", "table")

    def __init__(
        self,
        kind: DecisionKind,
        prompt: str,
        options: dict[str, str],
        table: bool = False,
        seats: list[str] | None = None,
    ) -> None:
        self.kind = kind
        self.prompt = prompt
        self.options = options
        self.table = table
        self.seats = seats


class PlainState:
    """A ``DfState``, plain: what the rules change."""

    __slots__ = (
        "active",
        "available",
        "book_discard",
        "book_name",
        "clue_supply",
        "decision",
        "hit_supply",
        "jobs",
        "next_uid",
        "options",
        "phase",
        "rows",
        "seated",
        "seats",
        "setup_notes",
        "showdown_id",
        "showdown_pick",
        "showdown_queue",
        "showdown_reason",
        "showdown_rolls",
        "showdown_votes",
        "solved",
        "spent",
        "tableaux",
        "turn",
        "turn_open",
    )
    options: DfOptions
    seats: list[str]
    tableaux: list[PlainTableau]
    rows: list[list[PlainSlot]]
    book_name: str
    showdown_id: str
    available: int
    spent: int
    hit_supply: int
    clue_supply: int
    solved: list[str]
    book_discard: list[str]
    active: int
    turn: int
    phase: Literal["setup", "play", "showdown", "over"]
    turn_open: bool
    jobs: list[PlainJob]
    decision: PlainDecision | None
    showdown_queue: list[str]
    showdown_rolls: list[str]
    showdown_pick: str | None
    showdown_votes: list[str]
    showdown_reason: str
    next_uid: int
    seated: bool
    setup_notes: list[str]


AnyState = DfState | PlainState  # what the read-only queries accept

# ``plain`` and ``model`` copy field by field, by name: they run at every move of the table, and
# a loop of ``setattr``/``getattr`` over the field names costs twice as much
# (tests/unit/dfccg/test_plain_state.py checks that every field makes the round trip). The lists
# the rules change in place are copied into plain form; ``model`` takes over the plain lists.


def plain(state: DfState) -> PlainState:
    """A plain copy of ``state`` for the rules to change (``state`` itself stays as it is)."""
    values = state.__dict__
    new = _new_plain(PlainState)
    new.options = values["options"]
    new.seats = list(values["seats"])
    new.tableaux = [_plain_tableau(tableau.__dict__) for tableau in values["tableaux"]]
    new.rows = [[_plain_slot(slot.__dict__) for slot in row] for row in values["rows"]]
    new.book_name = values["book_name"]
    new.showdown_id = values["showdown_id"]
    new.available = values["available"]
    new.spent = values["spent"]
    new.hit_supply = values["hit_supply"]
    new.clue_supply = values["clue_supply"]
    new.solved = list(values["solved"])
    new.book_discard = list(values["book_discard"])
    new.active = values["active"]
    new.turn = values["turn"]
    new.phase = values["phase"]
    new.turn_open = values["turn_open"]
    new.jobs = [_plain_job(job.__dict__) for job in values["jobs"]]
    decision = values["decision"]
    new.decision = (
        None
        if decision is None
        else new_decision(
            decision.kind, decision.prompt, decision.options, decision.table, decision.seats
        )
    )
    new.showdown_queue = list(values["showdown_queue"])
    new.showdown_rolls = list(values["showdown_rolls"])
    new.showdown_pick = values["showdown_pick"]
    new.showdown_votes = list(values["showdown_votes"])
    new.showdown_reason = values["showdown_reason"]
    new.next_uid = values["next_uid"]
    new.seated = values["seated"]
    new.setup_notes = list(values["setup_notes"])
    return new


def _plain_tableau(values: dict[str, Any]) -> PlainTableau:
    new = _new_plain(PlainTableau)
    new.seat = values["seat"]
    new.characters = list(values["characters"])
    new.hand = list(values["hand"])
    new.deck = list(values["deck"])
    new.discard = list(values["discard"])
    new.stunts_used = list(values["stunts_used"])
    new.talents_ready = list(values["talents_ready"])
    new.named_type = values["named_type"]
    new.hand_kept = values["hand_kept"]
    return new


def _plain_slot(values: dict[str, Any]) -> PlainSlot:
    new = _new_plain(PlainSlot)
    new.uid = values["uid"]
    new.card_id = values["card_id"]
    new.tokens = values["tokens"]
    return new


def _plain_job(values: dict[str, Any]) -> PlainJob:
    new = _new_plain(PlainJob)
    new.source = values["source"]
    new.tableau = values["tableau"]
    new.character = values["character"]
    new.effects = list(values["effects"])
    new.value = values["value"]
    new.reach = values["reach"]
    new.unlimited = values["unlimited"]
    new.targets = list(values["targets"])
    new.source_book = values["source_book"]
    new.lingering = list(values["lingering"])
    new.action = values["action"]
    new.played = values["played"]
    return new


def model(state: PlainState) -> DfState:
    """The model of a plain state (it takes over the plain state's lists: the plain one is
    not to be used afterwards)."""
    decision = state.decision
    values = {
        "options": state.options,
        "seats": state.seats,
        "tableaux": [_tableau_model(tableau) for tableau in state.tableaux],
        "rows": [[_slot_model(slot) for slot in row] for row in state.rows],
        "book_name": state.book_name,
        "showdown_id": state.showdown_id,
        "available": state.available,
        "spent": state.spent,
        "hit_supply": state.hit_supply,
        "clue_supply": state.clue_supply,
        "solved": state.solved,
        "book_discard": state.book_discard,
        "active": state.active,
        "turn": state.turn,
        "phase": state.phase,
        "turn_open": state.turn_open,
        "jobs": [_job_model(job) for job in state.jobs],
        "decision": None if decision is None else _decision_model(decision),
        "showdown_queue": state.showdown_queue,
        "showdown_rolls": state.showdown_rolls,
        "showdown_pick": state.showdown_pick,
        "showdown_votes": state.showdown_votes,
        "showdown_reason": state.showdown_reason,
        "next_uid": state.next_uid,
        "seated": state.seated,
        "setup_notes": state.setup_notes,
    }
    return trusted_values(DfState, values)


def _tableau_model(tableau: PlainTableau) -> Tableau:
    values = {
        "seat": tableau.seat,
        "characters": tableau.characters,
        "hand": tableau.hand,
        "deck": tableau.deck,
        "discard": tableau.discard,
        "stunts_used": tableau.stunts_used,
        "talents_ready": tableau.talents_ready,
        "named_type": tableau.named_type,
        "hand_kept": tableau.hand_kept,
    }
    return trusted_values(Tableau, values)


def _slot_model(slot: PlainSlot) -> BookSlot:
    values = {"uid": slot.uid, "card_id": slot.card_id, "tokens": slot.tokens}
    return trusted_values(BookSlot, values)


def _job_model(job: PlainJob) -> Job:
    values = {
        "source": job.source,
        "tableau": job.tableau,
        "character": job.character,
        "effects": job.effects,
        "value": job.value,
        "reach": job.reach,
        "unlimited": job.unlimited,
        "targets": job.targets,
        "source_book": job.source_book,
        "lingering": job.lingering,
        "action": job.action,
        "played": job.played,
    }
    return trusted_values(Job, values)


def _decision_model(decision: PlainDecision) -> Decision:
    values = {
        "kind": decision.kind,
        "prompt": decision.prompt,
        "options": decision.options,
        "table": decision.table,
        "seats": decision.seats,
    }
    return trusted_values(Decision, values)


def new_tableau(seat: str, characters: list[str]) -> PlainTableau:
    """A new hand, plain, as ``Tableau(seat=..., characters=...)`` would start it."""
    tableau = PlainTableau.__new__(PlainTableau)
    tableau.seat = seat
    tableau.characters = characters
    tableau.hand = []
    tableau.deck = []
    tableau.discard = []
    tableau.stunts_used = []
    tableau.talents_ready = []
    tableau.named_type = None
    tableau.hand_kept = True
    return tableau


def new_state(
    options: DfOptions,
    seats: list[str],
    tableaux: list[PlainTableau],
    rows: list[list[PlainSlot]],
    book_name: str,
    showdown_id: str,
    available: int,
    spent: int,
    seated: bool,
    setup_notes: list[str],
) -> PlainState:
    """A new game's state, plain, as ``DfState(...)`` would start it with these values."""
    state = PlainState.__new__(PlainState)
    state.options = options
    state.seats = seats
    state.tableaux = tableaux
    state.rows = rows
    state.book_name = book_name
    state.showdown_id = showdown_id
    state.available = available
    state.spent = spent
    state.hit_supply = TOKEN_SUPPLY
    state.clue_supply = TOKEN_SUPPLY
    state.solved = []
    state.book_discard = []
    state.active = 0
    state.turn = 0
    state.phase = "setup"
    state.turn_open = False
    state.jobs = []
    state.decision = None
    state.showdown_queue = []
    state.showdown_rolls = []
    state.showdown_pick = None
    state.showdown_votes = []
    state.showdown_reason = ""
    state.next_uid = 0
    state.seated = seated
    state.setup_notes = setup_notes
    return state


def new_job(
    source: str,
    tableau: int,
    effects: list[Effect],
    character: str | None = None,
    value: int | None = None,
    reach: int = 6,
    unlimited: bool = False,
    source_book: str | None = None,
    action: str | None = None,
    played: CardRef | None = None,
) -> PlainJob:
    """A Job, plain, as ``Job(...)`` would build it (the rules build one for every card they
    weigh)."""
    job = PlainJob.__new__(PlainJob)
    job.source = source
    job.tableau = tableau
    job.character = character
    job.effects = list(effects)
    job.value = value
    job.reach = reach
    job.unlimited = unlimited
    job.targets = []
    job.source_book = source_book
    job.lingering = []
    job.action = action
    job.played = played
    return job


def new_decision(
    kind: DecisionKind,
    prompt: str,
    options: dict[str, str],
    table: bool = False,
    seats: list[str] | None = None,
) -> PlainDecision:
    """A Decision, plain, as ``Decision(...)`` would build it from the engine's own values (one
    is made at most steps: filled in here, as ``new_job`` does, since calling a class with an
    ``__init__`` costs several times more)."""
    decision = _new_plain(PlainDecision)
    decision.kind = kind
    decision.prompt = prompt
    decision.options = options
    decision.table = table
    decision.seats = seats
    return decision


def new_slot(uid: str, card_id: str) -> PlainSlot:
    """A new Book slot, plain, with no tokens (see ``new_decision``)."""
    slot = _new_plain(PlainSlot)
    slot.uid = uid
    slot.card_id = card_id
    slot.tokens = 0
    return slot


_new_plain = object.__new__
