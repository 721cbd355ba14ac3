"""Options and state of a DFCCG game (pydantic, JSON round-trip). Cards are referenced by id."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from bot.games.base import shallow_copy, trusted
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


class CardRef(BaseModel):
    """A card in play, named by its pack key."""

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


_STATE_LISTS = (
    "solved",
    "book_discard",
    "showdown_queue",
    "showdown_rolls",
    "showdown_votes",
    "setup_notes",
)


def copy_slot(slot: BookSlot) -> BookSlot:
    """A copy of a Book slot to change (the one of a forked state is shared)."""
    return shallow_copy(slot)


def _fork_tableau(tableau: Tableau) -> Tableau:
    new = shallow_copy(tableau)
    values = new.__dict__
    values["characters"] = list(values["characters"])  # every list a Tableau has
    values["hand"] = list(values["hand"])
    values["deck"] = list(values["deck"])
    values["discard"] = list(values["discard"])
    values["stunts_used"] = list(values["stunts_used"])
    values["talents_ready"] = list(values["talents_ready"])
    return new


def _fork_job(job: Job) -> Job:
    new = shallow_copy(job)
    values = new.__dict__
    values["effects"] = list(job.effects)
    values["targets"] = list(job.targets)
    values["lingering"] = list(job.lingering)
    return new


def fork(state: DfState) -> DfState:
    """A copy for an apply call to change, sharing only what the engine never changes in
    place: card refs, effects, the options and a decision (the engine replaces those), and the
    Book slots, which the engine copies (``copy_slot``) before it changes one. A deep copy cost
    half of every step of a simulated game."""
    new = shallow_copy(state)
    values = new.__dict__
    values["seats"] = list(state.seats)
    values["tableaux"] = [_fork_tableau(t) for t in state.tableaux]
    values["rows"] = [list(row) for row in state.rows]  # slots: see copy_slot
    values["jobs"] = [_fork_job(job) for job in state.jobs]
    for name in _STATE_LISTS:
        values[name] = list(values[name])
    return new


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
) -> Job:
    """A Job as ``Job(...)`` would build it from the engine's own values, without validating
    them again (the rules build one for every card they weigh)."""
    return trusted(
        Job,
        source=source,
        tableau=tableau,
        character=character,
        effects=list(effects),
        value=value,
        reach=reach,
        unlimited=unlimited,
        targets=[],
        source_book=source_book,
        lingering=[],
        action=action,
        played=played,
    )


def new_decision(
    kind: DecisionKind,
    prompt: str,
    options: dict[str, str],
    table: bool = False,
    seats: list[str] | None = None,
) -> Decision:
    """A Decision as ``Decision(...)`` would build it from the engine's own values, without
    validating them again (one is made at most steps)."""
    return trusted(Decision, kind=kind, prompt=prompt, options=options, table=table, seats=seats)
