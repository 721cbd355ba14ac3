"""The Dresden Files Cooperative Card Game as a pure engine (see bot/games/base.py)."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bot.errors import RuleError
from bot.games import draws
from bot.games.base import (
    Action,
    GameEngine,
    GameEvent,
    GameResult,
    IllegalAction,
    LastChoice,
    Move,
)
from bot.games.dfccg import packs, views
from bot.games.dfccg.campaign import CAMPAIGN, campaign_from_history
from bot.games.dfccg.cards import (
    ACTION_TARGET,
    ActionCard,
    AddTokens,
    Book,
    BookCard,
    Draw,
    Effect,
    GainFate,
    MoveCard,
    RemoveCard,
    ShowdownCard,
)
from bot.games.dfccg.context import (
    FACE,
    READ_ONLY_DICE,
    TYPE_NAMES,
    Answers,
    Context,
    HandCard,
    QuietContext,
    card_facts,
    probe_job,
    token_amount,
)
from bot.games.dfccg.packs import Library, card_index, load_library
from bot.games.dfccg.simulate import simulate_options
from bot.games.dfccg.state import (
    FATE_SUPPLY,
    HAND_SIZE,
    START_LABELS,
    STARTING_FATE,
    AnyState,
    CardRef,
    DfOptions,
    DfState,
    PlainDecision,
    PlainJob,
    PlainState,
    PlainTableau,
    model,
    new_decision,
    new_job,
    new_slot,
    new_state,
    new_tableau,
    plain,
)
from bot.games.simulate import MAX_STEPS

SIDE_JOBS = "side-jobs"
# Two Fate dice (sorted high to low) -> Cases, Foes, Obstacles, Advantages.
SIDE_JOBS_TABLE: dict[tuple[int, int], tuple[int, int, int, int]] = {
    (1, 1): (2, 6, 0, 4),
    (1, 0): (3, 5, 1, 3),
    (1, -1): (4, 4, 2, 2),
    (0, 0): (5, 3, 3, 1),
    (0, -1): (5, 5, 1, 1),
    (-1, -1): (3, 3, 3, 3),
}


def side_jobs_counts(first: int, second: int) -> tuple[int, int, int, int]:
    """Cases, Foes, Obstacles, Advantages for two Fate dice faces (any order)."""
    high, low = max(first, second), min(first, second)
    return SIDE_JOBS_TABLE[(high, low)]


# The moves that are always the same (shared: nothing changes a Move).
PROPOSE = Move("sd", "Propose the Showdown (the table confirms)", "showdown", table=True)
PASS = Move("pass", "Pass (pay 1 Fate)", "pass")
END = Move("end", "Out of cards and Fate: start the Showdown", "end")

# A play of a hand card: (its ref, the card, the readied Talent giving a Range bonus or "", the
# bonus).
Play = tuple[CardRef, HandCard, str, int]

APPLIED_KEPT = 64  # states apply made whose reading _read may give (see __init__)
_FORBIDDEN = object()  # see DfccgEngine._action_gates
_NO_BONUS: list[tuple[str, int]] = [("", 0)]  # a hand with no Talent readied (never changed)
# The action types whose default main effect adds tokens (see context.default_main).
_ADDS = frozenset(("attack", "investigate"))

AiPolicy = Callable[["DfccgEngine", PlainState, str, random.Random], Move]
AiIdPolicy = Callable[["DfccgEngine", PlainState, str, random.Random], str]


class DfRuleError(RuleError):
    """A move the Dresden Files card game rules do not allow."""


class DfccgEngine(GameEngine[DfState, DfOptions]):
    """The Dresden Files Cooperative Card Game as a pure GameEngine."""

    key = "dfccg"
    name = "The Dresden Files Cooperative Card Game"
    min_players = 1
    max_players = 5
    options_model = DfOptions
    state_model = DfState

    def __init__(
        self,
        library: Library | None = None,
        ai: AiPolicy | None = None,
        ai_id: AiIdPolicy | None = None,
        answers: Answers | None = None,
    ) -> None:
        self._library = library
        self.use_ai(ai, ai_id, answers)
        self._chosen = LastChoice()
        self._refs: dict[tuple[int, str], CardRef] = {}  # see _card_ref
        self._book_card_ids: dict[str, tuple[Book, list[str]]] = {}  # see _book_ids
        # A character's deck dealt from a uid on (its refs, in order): see _build_decks.
        self._decks: dict[tuple[int, str], list[CardRef]] = {}
        self._index: dict[str, Any] | None = None  # every card by id, characters "char:key"
        # The Context the AI reads while it chooses: an AI-only game's (``play_ai_game``), or
        # the reading of the state ``choose_action`` was given.
        self._game_ctx: Context | None = None
        # id -> the latest states ``apply`` returned, with their readings: read-only Contexts
        # of the plain states they were made of (see _read; several: the table's moves of
        # many games interleave).
        self._applied: dict[int, tuple[DfState, Context]] = {}

    def use_ai(
        self,
        ai: AiPolicy | None,
        ai_id: AiIdPolicy | None = None,
        answers: Answers | None = None,
    ) -> None:
        """The AI of the AI seats (the package gives it, bot/games/dfccg/__init__.py: the engine
        knows no AI): ``ai`` gives a Move; ``ai_id`` the same choice as its action id only, for
        AI-only games (None: the id of ``ai``'s Move); ``answers`` the same answers to target
        choices, Talent offers and the Showdown's choices, given where they arise in AI-only
        games (None: they wait as decisions, answered through ``ai_id``)."""
        self.ai = ai
        self.ai_id = ai_id
        self.answers = answers

    @property
    def library(self) -> Library:
        if self._library is None:
            self._library = load_library()
        return self._library

    def _cards(self) -> dict[str, Any]:
        index = card_index(self.library)
        for key, character in self.library.characters.items():
            index["char:" + key] = character
        return index

    def _card_index(self) -> dict[str, Any]:
        if self._index is None:
            self._index = self._cards()
        return self._index

    def _ctx(self, state: PlainState, rng: random.Random) -> Context:
        return Context(state, rng, self._card_index())

    def _read(self, state: AnyState) -> Context:
        """A Context that only reads ``state`` (it may remember its answers). A state ``apply``
        made (the table's views of a move, the next move's check, the AI's next choice) has
        one reading for all of them, kept with it: what one works out, the others need not."""
        game = self._game_ctx
        if game is not None and game.s is state:
            return game
        if isinstance(state, DfState):
            applied = self._applied.get(id(state))
            if applied is not None and applied[0] is state:
                return applied[1]
            state = plain(state)
        return Context(state, READ_ONLY_DICE, self._card_index(), read_only=True)

    def _keep_reading(self, made: DfState, ctx: Context, warm: bool) -> None:
        """Keep the reading of ``made``, the model of ``ctx``'s state after an apply (the two
        share their lists, and neither changes again). ``warm``: ``ctx`` itself becomes the
        reading, with what it has worked out of the rows (kept up to date as they changed, as
        in an AI-only game's one Context); not after a set-up step, where the hands'
        characters and seating may change under answers kept by hand."""
        if warm:
            ctx.rng = READ_ONLY_DICE
            ctx.memo = {}
            ctx.events = []  # (the apply's events are the caller's)
            reading = ctx
        else:
            reading = Context(ctx.s, READ_ONLY_DICE, self._card_index(), read_only=True)
        applied = self._applied
        applied[id(made)] = (made, reading)
        while len(applied) > APPLIED_KEPT:
            del applied[next(iter(applied))]

    # -- setup -----------------------------------------------------------------------------
    def option_values(self) -> dict[str, list[str]]:
        return {
            "book": [*self.library.books, SIDE_JOBS, CAMPAIGN],
        }

    def option_value_labels(self) -> dict[str, dict[str, str]]:
        books = {k: b.name for k, b in self.library.books.items()}
        books[SIDE_JOBS] = "Side Jobs (random)"
        books[CAMPAIGN] = "Campaign (this channel's next book)"
        return {
            "characters": {k: c.name for k, c in self.library.characters.items()},
            "book": books,
            "start": START_LABELS,
            "showdown_consent": {
                "everyone": "Every seat confirms a Showdown",
                "host": "The host confirms a Showdown",
            },
        }

    def resolve_options(
        self, raw: dict[str, Any], past: list[tuple[dict[str, Any], dict[str, Any] | None]]
    ) -> tuple[dict[str, Any], str | None]:
        """``book: campaign`` becomes the channel's next campaign book (see campaign.py)."""
        if raw.get("book") != CAMPAIGN:
            return raw, None
        campaign = campaign_from_history(past, self.library)
        book = campaign.current_book
        if book is None:
            raise DfRuleError("No campaign books are loaded; choose a book instead.")
        tries = 1 + sum(1 for a in campaign.attempts if a["book"] == book)
        name = self.library.books[book].name
        note = f"Campaign: book {campaign.index + 1} of {len(campaign.books)}, {name}" + (
            f" (attempt {tries})." if tries > 1 else "."
        )
        return {**raw, "book": book, "campaign": True}, note

    def new_game(self, options: DfOptions, seats: list[str], rng: random.Random) -> DfState:
        return model(self._new_game(options, seats, rng))

    def _new_game(self, options: DfOptions, seats: list[str], rng: random.Random) -> PlainState:
        if not self.min_players <= len(seats) <= self.max_players:
            raise DfRuleError("This game needs 1 to 5 players; change the seats and start again.")
        library = self.library
        if options.book == SIDE_JOBS:
            book_cards, showdown, book_name, roll = self._side_jobs(rng)
            card_ids = [c.id for c in book_cards]
        else:
            book = library.books.get(options.book)
            if book is None:
                known = ", ".join([*library.books, SIDE_JOBS])
                raise DfRuleError(f"Unknown book {options.book!r}; choose one of: {known}.")
            card_ids, showdown, book_name, roll = self._book_ids(book), book.showdown, book.name, ""
        draws.shuffle(rng, card_ids)  # (the same draws as a shuffle of the cards)
        slots = [new_slot(f"b{i}", card_id) for i, card_id in enumerate(card_ids)]
        rows = [slots[:6], slots[6:]]
        kinds = card_facts(self._card_index())[0]
        for row in rows:  # Range-6 swap: no Obstacle/Advantage may sit at the far end
            if kinds[row[-1].card_id] in ("obstacle", "advantage"):
                for position in range(len(row) - 2, -1, -1):
                    if kinds[row[position].card_id] in ("foe", "case"):
                        row[position], row[-1] = row[-1], row[position]
                        break
        # A 1-player game runs three hands, a 2-player game one hand of two decks per player.
        hands = [seats[0]] * 3 if len(seats) == 1 else list(seats)
        choosing = options.start.startswith("choose")
        if choosing:
            tableaux = [new_tableau(str(seat), []) for seat in hands]
        else:
            keys = self._pick_characters(options, len(seats), rng)
            per = len(keys) // len(hands)
            tableaux = [
                new_tableau(str(seat), keys[per * i : per * (i + 1)])
                for i, seat in enumerate(hands)
            ]
        start = STARTING_FATE[options.difficulty]
        state = new_state(
            options=options,
            seats=list(seats),
            tableaux=tableaux,
            rows=rows,
            book_name=book_name,
            showdown_id=showdown.id,
            available=start,
            spent=FATE_SUPPLY - start,
            seated=not choosing,
            setup_notes=[roll] if roll else [],
        )
        # Nobody reads a set-up's events (``new_game`` gives the state only): a quiet Context.
        ctx = QuietContext(state, rng, self._card_index())
        if not choosing:
            self._build_decks(ctx)
        self._continue_setup(ctx)
        return ctx.s

    def _book_ids(self, book: Book) -> list[str]:
        """A new list of the ids of a Book's cards, in its order (read once per Book)."""
        ids = self._book_card_ids.get(book.key)
        if ids is None or ids[0] is not book:
            ids = self._book_card_ids[book.key] = (book, [c.id for c in book.cards])
        return list(ids[1])

    def _card_ref(self, number: int, card_id: str) -> CardRef:
        """The ref of the ``number``th card dealt, as ``CardRef(uid=f"c{number}", ...)``: one
        object per ref for every game of this process (a ref is never changed in place)."""
        key = (number, card_id)
        ref = self._refs.get(key)
        if ref is None:
            ref = self._refs[key] = CardRef(uid=f"c{number}", card_id=card_id)
        return ref

    @staticmethod
    def _decks_per_hand(state: AnyState) -> int:
        return 2 if len(state.seats) == 2 else 1

    def _build_decks(self, ctx: Context) -> None:
        s = ctx.s
        uid = s.next_uid
        for tableau in s.tableaux:
            for key in tableau.characters:
                refs = self._decks.get((uid, key))
                if refs is None:
                    refs = self._decks[(uid, key)] = [
                        self._card_ref(uid + n, card.id)
                        for n, card in enumerate(self.library.characters[key].cards)
                    ]
                tableau.deck += refs
                uid += len(refs)
        s.next_uid = uid

    def _continue_setup(self, ctx: Context) -> None:
        """Set-up as the rulebook runs it: chosen decks (then a random seating), each hand
        drawn (the variant start: a named type, and a redraw if the player wants one), then
        Harry's player chooses who goes first."""
        s = ctx.s
        per = self._decks_per_hand(s)
        for index, tableau in enumerate(s.tableaux):
            if len(tableau.characters) < per:
                s.active = index
                s.decision = self._deck_decision(ctx, index)
                return
        if not s.seated:
            # the seating order is random after a choice of decks
            draws.shuffle(ctx.rng, s.tableaux)
            self._build_decks(ctx)
            s.seated = True
            order = ", ".join(ctx.char_names(t) for t in s.tableaux)
            ctx.say(f"Decks chosen; the seating order is drawn at random: {order}.")
        variant = s.options.start.endswith("variant")
        for index, tableau in enumerate(s.tableaux):
            if tableau.hand:
                continue
            s.active = index
            who = ctx.char_names(tableau)
            if variant and tableau.named_type is None:
                s.decision = new_decision(
                    kind="named_type",
                    prompt=f"{who}: name a card type before drawing (variant start).",
                    options={**{k: f"Name {v}" for k, v in TYPE_NAMES.items()}, "none": "No type"},
                    seats=[tableau.seat],
                )
                return
            self._draw_hand(ctx, tableau, HAND_SIZE[len(s.seats)])
            wanted = tableau.named_type
            if variant and wanted and self._redraw_may_help(ctx, tableau, wanted):
                s.decision = new_decision(
                    kind="redraw",
                    prompt=f"{who}: the hand holds no {TYPE_NAMES[wanted]} card. Reshuffle and "
                    "draw again?",
                    options={"redraw": "Reshuffle and draw again", "keep": "Keep this hand"},
                    seats=[tableau.seat],
                )
                return
        harry = next(i for i, t in enumerate(s.tableaux) if "harry" in t.characters)
        if s.options.harry_chooses_first:
            s.active = harry
            s.decision = new_decision(
                kind="first_player",
                prompt="Harry's player chooses who goes first.",
                options={
                    f"f{i}": f"{ctx.char_names(t)} goes first" for i, t in enumerate(s.tableaux)
                },
            )
        else:
            s.phase = "play"
            s.active = 0

    def _deck_decision(self, ctx: Context, index: int) -> PlainDecision:
        s = ctx.s
        tableau = s.tableaux[index]
        taken = {k for t in s.tableaux for k in t.characters}
        free = [k for k in self.library.characters if k not in taken]
        picks_left = sum(self._decks_per_hand(s) - len(t.characters) for t in s.tableaux)
        if "harry" not in taken and picks_left == 1:
            free = ["harry"]  # Harry Dresden always plays
        hands_of_seat = [i for i, t in enumerate(s.tableaux) if t.seat == tableau.seat]
        if len(hands_of_seat) > 1:
            what = f"character {hands_of_seat.index(index) + 1} of {len(hands_of_seat)}"
        elif self._decks_per_hand(s) > 1:
            what = f"deck {len(tableau.characters) + 1} of {self._decks_per_hand(s)}"
        else:
            what = "a deck"
        return new_decision(
            kind="deck",
            prompt=f"Player {s.seats.index(tableau.seat) + 1}: choose {what}.",
            options={f"k:{key}": ctx.cards_char(key).name for key in free},
            seats=[tableau.seat],
        )

    @staticmethod
    def _redraw_may_help(ctx: Context, tableau: PlainTableau, wanted: str) -> bool:
        """The hand lacks the named type and the rest of the deck holds one."""

        def holds(refs: list[CardRef]) -> bool:
            return any(ctx.cards[r.card_id].type == wanted for r in refs)

        return wanted != "none" and not holds(tableau.hand) and holds(tableau.deck)

    def _pick_characters(self, options: DfOptions, players: int, rng: random.Random) -> list[str]:
        """The character decks in play, in seat order (Harry always among them).

        Chosen decks play (Harry is added when missing); free places are dealt at random. The
        seating is then randomized, as the rulebook asks after a choice of characters.
        """
        needed = {1: 3, 2: 4}.get(players, players)
        available = list(self.library.characters)
        chosen = list(dict.fromkeys(options.characters or []))
        unknown = [k for k in chosen if k not in available]
        if unknown:
            raise DfRuleError(
                f"Unknown character(s) {', '.join(unknown)}; choose from {', '.join(available)}."
            )
        if "harry" not in chosen:
            chosen.insert(0, "harry")
        if len(chosen) > needed:
            raise DfRuleError(
                f"{players} player(s) use {needed} character deck(s) and Harry always plays, but "
                f"{len(chosen)} are chosen; pick fewer characters in the lobby."
            )
        rest = [k for k in available if k not in chosen]
        draws.shuffle(rng, rest)
        chosen = (chosen + rest)[:needed]
        if len(chosen) < needed:
            raise DfRuleError(f"This many players needs {needed} character decks in the packs.")
        draws.shuffle(rng, chosen)
        return chosen

    def _side_jobs(self, rng: random.Random) -> tuple[list[BookCard], ShowdownCard, str, str]:
        """The 12 cards, the Showdown, the name and the announced set-up roll."""
        library = self.library
        high, low = sorted((rng.choice((-1, 0, 1)) for _ in range(2)), reverse=True)
        counts = side_jobs_counts(high, low)
        roll = (
            f"Side Jobs set-up roll: {FACE[high]} {FACE[low]}: {counts[0]} Cases, {counts[1]} "
            f"Foes, {counts[2]} Obstacles, {counts[3]} Advantages."
        )
        deck: list[BookCard] = []
        for kind, count in zip(("case", "foe", "obstacle", "advantage"), counts, strict=True):
            pool = [c for c in library.side_job_cards if c.type == kind]
            if len(pool) < count:
                raise DfRuleError(f"The Side Jobs pool needs {count} {kind} cards; add a pack.")
            deck += rng.sample(pool, count)
        return deck, rng.choice(library.side_job_showdowns), "Side Jobs", roll

    def _draw_hand(self, ctx: Context, tableau: PlainTableau, size: int) -> None:
        tableau.deck += tableau.hand
        draws.shuffle(ctx.rng, tableau.deck)
        tableau.hand, tableau.deck = tableau.deck[:size], tableau.deck[size:]
        if ctx.loud:
            ctx.whisper(
                tableau.seat,
                f"{ctx.char_names(tableau)} hand: "
                + ", ".join(ctx.cards[r.card_id].name for r in tableau.hand),
            )

    # -- queries ----------------------------------------------------------------------------
    def current_seats(self, state: AnyState) -> list[str]:
        """Who the game waits for. Between turns any seat may also propose the Showdown (see
        ``legal_actions``) without being waited for."""
        if state.phase == "over":
            return []
        decision = state.decision
        if decision is not None and decision.seats is not None:
            return list(decision.seats)
        if decision is not None and decision.table:
            return list(dict.fromkeys(state.seats))
        return [state.tableaux[state.active].seat]

    def waits_for(self, state: AnyState, seat: str) -> bool:
        """``seat in current_seats(state)``, without making the list (the AI asks it at every
        decision, the check of a clicked id at every click)."""
        if state.phase == "over":
            return False
        decision = state.decision
        if decision is not None and decision.seats is not None:
            return seat in decision.seats
        if decision is not None and decision.table:
            return seat in state.seats
        return seat == state.tableaux[state.active].seat

    def is_over(self, state: AnyState) -> bool:
        return state.phase == "over"

    def result(self, state: AnyState) -> GameResult | None:
        if state.phase != "over":
            return None
        kinds = card_facts(self._card_index())[0]
        solved = len(state.solved)
        foes_left = sum(1 for row in state.rows for slot in row if kinds[slot.card_id] == "foe")
        won = solved > foes_left  # ties go to the game
        summary = (
            f"{'The players win' if won else 'The game wins'}: {solved} Case(s) solved "
            f"against {foes_left} Foe(s) left."
        )
        return GameResult(
            winner="players" if won else "game",
            scores={"players": solved, "game": foes_left},
            summary=summary,
            details={"book": state.book_name, "turns": state.turn},
        )

    # -- legal actions --------------------------------------------------------------------
    def legal_actions(self, state: DfState, seat: str) -> list[Action]:
        return [move.action() for move in self.moves(state, seat)]

    def legal_action(self, state: DfState, seat: str, action_id: str) -> Action | None:
        # Only the clicked move becomes an Action, and apply of it on this state need not
        # work out the legal moves again.
        for move in self.moves(state, seat):
            if move.id == action_id:
                return self._chosen.remember(state, seat, move.action())
        return None

    def moves(self, state: AnyState, seat: str, ctx: Context | None = None) -> list[Move]:
        """``legal_actions`` as plain data (the AI and the check of a clicked id use these);
        ``ctx``: a read-only Context of ``state`` the caller has already."""
        decision = state.decision
        if decision is not None:
            if not self.waits_for(state, seat):
                return []
            kind, table = decision.kind, decision.table
            return [Move(k, v[:80], kind, False, table) for k, v in decision.options.items()]
        if state.phase != "play" or seat not in state.seats:
            return []
        tableau = state.tableaux[state.active]
        if seat != tableau.seat:
            return [PROPOSE]  # the end of any player's turn: anyone may propose the Showdown
        if ctx is None:
            ctx = self._read(state)
        # A turn's moves are remembered in a reading (the hand's buttons after a move, then
        # the check of the click among them).
        memo = ctx.memo
        if memo is not None:
            known = memo.get(("moves", seat))
            if known is not None:
                return known  # type: ignore[no-any-return]
        actions: list[Move] = []
        bonuses = self._range_bonuses(ctx, state.active)
        for ref in tableau.hand:
            card = ctx.cards[ref.card_id]
            assert isinstance(card, ActionCard)
            actions.append(self.discard_move(state, ref, card))
            actions += [self.play_move(ctx, p) for p in self._card_plays(ctx, ref, card, bonuses)]
        actions += self.stunt_moves(state, ctx)
        if state.available >= 1:
            actions.append(PASS)
        elif not tableau.hand and not any(a.kind == "stunt" for a in actions):
            actions.append(END)
        actions.append(PROPOSE)
        if memo is not None:
            memo["moves", seat] = actions
        return actions

    # The parts of a turn's moves, for the AI to ask only what it weighs (the active hand's,
    # in the order ``moves`` lists them).
    def plays(self, state: AnyState, ctx: Context, fate: int) -> list[Play]:
        """The active hand's plays, as (card ref, card, Range bonus Talent, bonus); the move of
        one is ``play_move``. What ``_card_plays`` gives card by card, with what depends only
        on a card's action type (whether it is forbidden, its nearest target) asked once.
        ``fate``: only the plays whose highest cost is at most this much (the AI's Fate)."""
        active = state.active
        tableau = state.tableaux[active]
        bonuses = self._range_bonuses(ctx, active) if tableau.talents_ready else _NO_BONUS
        hands = ctx.hands
        available = state.available
        allow = ctx.untargeted_plays
        memo = ctx.memo
        mods = ctx.cost_modifiers_or_none(active)
        gates: dict[str, Any] | None = None  # see _action_gates; asked once a card is affordable
        plays: list[Play] = []
        for ref in tableau.hand:
            hand = hands[ref.card_id]
            kind = hand.type
            if mods is None:
                if hand.cost_least > available or hand.cost_most > fate:
                    continue
            else:
                mod = mods[kind]
                if hand.cost_least + mod > available or hand.cost_most + mod > fate:
                    continue
            if gates is None:
                gates = (
                    self._action_gates(ctx, active)
                    if not allow and memo is not None
                    else {  # (the nearest targets are not worked out)
                        action: _FORBIDDEN if ctx.action_blocked(action, active, None) else None
                        for action in ACTION_TARGET
                    }
                )
            gate = gates[kind]
            if gate is _FORBIDDEN:
                continue
            if allow:
                reach: int | bool = True
            elif memo is None or not hand.default_main:
                reach = False
            elif gate is None:
                continue
            elif hand.unlimited:
                reach = True
            else:
                reach = gate
            if reach is True:
                for key, bonus in bonuses:
                    plays.append((ref, hand, key, bonus))
            elif reach is False:
                for key, bonus in bonuses:
                    if self._reach_bonus(ctx, active, hand.card, False, bonus):
                        plays.append((ref, hand, key, bonus))
            elif bonuses is _NO_BONUS:  # (the loop below, for the one bonus of 0)
                if reach < hand.reach_most:
                    plays.append((ref, hand, "", 0))
            else:
                top = hand.reach_most
                for key, bonus in bonuses:
                    if reach < top + bonus:
                        plays.append((ref, hand, key, bonus))
        return plays

    def _nearest(self, ctx: Context, tableau: int, action: str) -> int | None:
        """The nearest Range (0-based position) of a card the default main effect of
        ``action`` may target (None: no such card in the rows, or the action is forbidden), as
        ``candidates`` would offer it with no Range limit."""
        gate = self._action_gates(ctx, tableau)[action]
        return None if gate is _FORBIDDEN else gate  # type: ignore[no-any-return]

    @staticmethod
    def _action_gates(ctx: Context, tableau: int) -> dict[str, Any]:
        """What each action type comes to for this hand now: ``_FORBIDDEN`` (a restriction in
        force forbids it), else the nearest position of a card of the type it targets that may
        receive its tokens (Attack, Investigate) and that it is not forbidden against (None:
        none). Remembered for every action type at once, until the rows change when no
        restriction in force looks at tokens, else for this reading."""
        store, hand = ctx.layout_memo_of(tableau)
        key = ("gates", hand)
        gates = store.get(key)
        if gates is not None:
            return gates  # type: ignore[no-any-return]
        gates = store[key] = {}
        forbids = ctx.forbids()
        restricted = bool(ctx.restrictions())
        laid = ctx.laid_by_type()  # (one look for the four types)
        for action, target in ACTION_TARGET.items():
            blockable = action in forbids  # (else ``action_blocked`` is False for every card)
            if blockable and ctx.action_blocked(action, tableau, None):
                gates[action] = _FORBIDDEN
                continue
            # with no restriction in force, every Foe and Case may receive its tokens
            receives = restricted and action in _ADDS
            best = None
            for _row, position, slot, _card in laid[target]:  # in row order
                if best is not None and position >= best:
                    continue
                if receives and not ctx.can_receive(slot):
                    continue
                if blockable and ctx.action_blocked(action, tableau, slot):
                    continue
                best = position
            gates[action] = best
        return gates

    @staticmethod
    def play_id(play: Play) -> str:
        """The id of a play's move."""
        ref, _hand, bonus_key, bonus = play
        return "p:" + ref.uid + (":" + bonus_key if bonus else "")

    @staticmethod
    def discard_id(ref: CardRef) -> str:
        """The id of a hand card's discard."""
        return "d:" + ref.uid

    def play_move(self, ctx: Context, play: Play) -> Move:
        ref, hand, bonus_key, bonus = play
        return Move(
            self.play_id(play),
            partial(self._play_label, ctx, ctx.s.active, hand.card, bonus_key, bonus),
            "play",
            True,  # private
            False,
            hand.card,
        )

    def stunt_moves(self, state: AnyState, ctx: Context) -> list[Move]:
        """The active hand's Stunts that would do something now."""
        tableau = state.tableaux[state.active]
        return [
            Move(f"s:{key}", f"Use Stunt: {ctx.heroes[key].stunt_name}", "stunt")
            for key in tableau.characters
            if key not in tableau.stunts_used and self._stunt_usable(ctx, state.active, key)
        ]

    def discard_move(self, state: AnyState, ref: CardRef, card: ActionCard) -> Move:
        return Move(
            self.discard_id(ref),
            partial(self._discard_label, state, card),
            "discard",
            True,
            False,
            card,
        )

    def _card_plays(
        self, ctx: Context, ref: CardRef, card: ActionCard, bonuses: list[tuple[str, int]]
    ) -> list[Play]:
        """The plays of this card of the active hand (one per Range bonus it may use)."""
        active = ctx.s.active
        reach = self._reach(ctx, active, card)
        if reach is None:
            return []
        hand = ctx.hands[ref.card_id]
        return [
            (ref, hand, bonus_key, bonus)
            for bonus_key, bonus in bonuses
            if reach is True or self._reach_bonus(ctx, active, card, reach, bonus)
        ]

    @staticmethod
    def _discard_label(state: AnyState, card: ActionCard) -> str:
        if state.spent == 0:
            return f"Discard {card.name} (no Fate: the Spent pool is empty)"[:80]
        return f"Discard {card.name} for {card.discard} Fate"[:80]

    def _play_label(
        self, ctx: Context, tableau: int, card: ActionCard, bonus_key: str, bonus: int
    ) -> str:
        extra = f" (+{bonus} Range, {bonus_key})" if bonus else ""
        return f"Play {card.name} for {self._cost_text(ctx, tableau, card)} Fate{extra}"[:80]

    def _range_bonuses(self, ctx: Context, tableau: int) -> list[tuple[str, int]]:
        bonuses: list[tuple[str, int]] = [("", 0)]
        for key in ctx.s.tableaux[tableau].talents_ready:
            bonuses.append((key, ctx.heroes[key].range_bonus))
        return bonuses

    def _cost_text(self, ctx: Context, tableau: int, card: ActionCard) -> str:
        return str(ctx.cost(tableau, card))

    def _reach(self, ctx: Context, tableau: int, card: ActionCard) -> int | bool | None:
        """What decides whether ``card`` may be played with each Range bonus: None (never:
        it costs too much or its action is forbidden), True (always), or what
        ``_reach_bonus`` weighs per bonus: the nearest Range (0-based) of a target of a default
        main effect, or False when the main effect's targets must be looked up per bonus."""
        cost = ctx.cost(tableau, card)
        if max(0, cost.base - cost.dice) > ctx.s.available:
            return None
        if ctx.action_blocked(card.type, tableau, None):
            return None
        if ctx.untargeted_plays:
            return True
        if ctx.memo is None or not ctx.hands[card.id].default_main:
            return False
        # The default main effect may target a card of its type when one it may use is in
        # Range: the nearest such card, worked out once per action type, tells for every card.
        nearest = self._nearest(ctx, tableau, card.type)
        if nearest is None:
            return None
        if card.range.unlimited:
            return True
        return nearest

    def _reach_bonus(
        self, ctx: Context, tableau: int, card: ActionCard, reach: int | bool, bonus: int
    ) -> bool:
        """Whether ``card`` has a target with this Range bonus (``reach`` from ``_reach``)."""
        if reach is False:
            return self._has_target(ctx, tableau, card, ctx.hands[card.id].main[0], bonus)
        return reach < card.range.value.maximum + bonus

    @staticmethod
    def _has_target(ctx: Context, tableau: int, card: ActionCard, main: Effect, bonus: int) -> bool:
        job = new_job(
            source=card.name,
            tableau=tableau,
            effects=[main],
            action=card.type,
            value=(card.value.maximum if card.value else 0),
            reach=card.range.value.maximum + bonus,
            unlimited=card.range.unlimited,
        )
        options = ctx.candidates(main, job)
        if (type(main) is AddTokens or type(main) is RemoveCard) and main.target.types:
            target_type = ACTION_TARGET[card.type]
            options = [
                group
                for group in options
                if not all(
                    ctx.action_blocked(card.type, tableau, ctx.located(u)[2])
                    for u in group
                    if ctx.book(ctx.located(u)[2]).type == target_type
                )
            ]
        return bool(options)

    def _stunt_usable(self, ctx: Context, tableau: int, key: str) -> bool:
        hero = ctx.heroes[key]
        effect = hero.stunt_effect
        return effect is not None and ctx.effect_possible(
            probe_job(hero.stunt, tableau, key), effect
        )

    # -- apply ------------------------------------------------------------------------------
    def apply(
        self, state: DfState, seat: str, action: Action | str, rng: random.Random
    ) -> tuple[DfState, list[GameEvent]]:
        action_id = action.id if isinstance(action, Action) else action
        if state.phase == "over":
            raise DfRuleError("This game is over; start a new one.")
        if not self._chosen.was_chosen(state, seat, action):
            self._check_legal(state, seat, action_id)
        ctx = self._ctx(plain(state), rng)
        self._act(ctx, seat, action_id)
        made, events = model(ctx.s), ctx.events
        self._keep_reading(made, ctx, state.phase != "setup")
        return made, events

    def _act(self, ctx: Context, seat: str, action_id: str) -> None:
        """A legal action and everything it sets off, on ``ctx``'s state."""
        if ctx.s.decision is not None:
            self._answer(ctx, seat, action_id)
        elif action_id == "sd":
            self._propose_showdown(ctx, seat)
        else:
            self._turn_action(ctx, action_id)
        self._advance(ctx)

    def play_ai_game(
        self, options: DfOptions, players: int, rng: random.Random
    ) -> tuple[DfState, int]:
        """One AI-only game as ``bot.games.simulate.play_one`` plays it through
        ``choose_action`` and ``apply`` (the same RNG calls, so the same game), but on one
        plain state changed in place from the set-up to the end: nobody keeps the states in
        between, so no step copies one, and the AI's moves are applied without making pydantic
        Actions. Returns (final state, actions)."""
        state, steps = self.play_ai_summary(options, players, rng)
        return model(state), steps

    def play_ai_summary(
        self, options: DfOptions, players: int, rng: random.Random
    ) -> tuple[PlainState, int]:
        """``play_ai_game`` with the final state left plain (for ``simulate``, which reads it
        through ``result`` and its turn count only)."""
        if self.ai is None:
            raise DfRuleError("This table has no AI player; every seat needs a person.")
        state = self._new_game(options, [f"ai{i}" for i in range(players)], rng)
        ai, ai_id = self.ai, self.ai_id
        if ai_id is None:
            ai_id = partial(_move_id, ai)
        # One Context for the whole game, read by the AI and changed by its moves: what it
        # works out of the rows stays known until they change (``Context.changed``).
        ctx = QuietContext(state, rng, self._card_index())
        answers = ctx.answers = self.answers  # (each answer given in place counts as a step)
        tableaux = state.tableaux
        memo: dict[Any, Any] = {}  # the AI's reading's memo: emptied before every step
        try:
            for step in range(MAX_STEPS):
                phase = state.phase
                if phase == "over":
                    return state, step + ctx.answered
                # ``current_seats(state)[0]``, the quickest way
                decision = state.decision
                if decision is None:
                    seat = tableaux[state.active].seat
                elif decision.seats is not None:
                    seat = decision.seats[0]
                elif decision.table:
                    seat = state.seats[0]
                else:
                    seat = tableaux[state.active].seat
                # The AI reads the Context (read only: its answers remembered for this step, no
                # dice), then the move changes it (the game's dice). During set-up the hands'
                # characters and seating may change: nothing worked out is kept.
                if memo:
                    memo.clear()
                ctx.rng = READ_ONLY_DICE
                ctx.memo = memo
                if phase == "setup":
                    ctx.forget_answers()
                self._game_ctx = ctx  # what ``reading`` gives the AI for this state
                if decision is None and phase == "play" and answers is not None:
                    action_id = answers.turn(self, ctx, rng)  # (``ai_id`` at a turn)
                else:
                    action_id = ai_id(self, state, seat, rng)
                self._game_ctx = None
                ctx.rng = rng
                ctx.memo = None
                if phase == "setup":  # (the AI changes nothing: the phase is the same)
                    ctx.forget_answers()
                self._act(ctx, seat, action_id)
        finally:
            self._game_ctx = None
        raise RuntimeError(f"a simulated {self.name} game did not end in {MAX_STEPS} actions")

    def _check_legal(self, state: AnyState, seat: str, action_id: str) -> None:
        legal = {move.id for move in self.moves(state, seat)}
        if not legal:
            raise IllegalAction("It is not your turn; wait for the active player.")
        if action_id not in legal:
            if action_id.startswith("s:"):
                raise DfRuleError(
                    "That Stunt would have no effect now; a Stunt can only be used when it does "
                    "something."
                )
            raise IllegalAction("That move is not allowed now; choose one of the offered actions.")

    def _seat_label(self, ctx: Context, seat: str) -> str:
        tableaux = [t for t in ctx.s.tableaux if t.seat == seat]
        if len(tableaux) != 1:
            return "The player"
        return f"{ctx.char_names(tableaux[0])}'s player"

    def _propose_showdown(self, ctx: Context, seat: str) -> None:
        """A group decision: every seat confirms, or the host (first seat) for the table. The
        proposer's own vote counts unless it is the only one asked: then it confirms once more,
        so that no single click ends the game."""
        s = ctx.s
        voters = [s.seats[0]] if s.options.showdown_consent == "host" else s.seats
        voters = list(dict.fromkeys(voters))
        s.showdown_votes = [seat] if seat in voters and len(voters) > 1 else []
        waiting = [v for v in voters if v not in s.showdown_votes]
        who = self._seat_label(ctx, seat)
        ctx.say(f"{who} proposes the Showdown.", "showdown")
        s.decision = new_decision(
            kind="showdown_vote",
            prompt=f"{who} proposes the Showdown: start it now?",
            options={"yes": "Agree: start the Showdown", "no": "Not yet: keep playing"},
            table=True,
            seats=waiting,
        )

    def _turn_action(self, ctx: Context, action_id: str) -> None:
        s = ctx.s
        tableau = s.tableaux[s.active]
        who = ctx.char_names(tableau) if ctx.loud else ""
        s.turn_open = True
        kind, _, rest = action_id.partition(":")
        if kind == "d":
            ref = self._take_from_hand(tableau, rest)
            hand = ctx.hands[ref.card_id]
            tableau.discard.append(ref)
            amount, rolled = (
                ctx.roll_dice(hand.discard_base, hand.discard_dice, "discard", s.active)
                if hand.discard_dice
                else (hand.discard_base, "")
            )
            if ctx.loud:
                ctx.say(f"{who} discards {hand.name} for {hand.discard} Fate{rolled}.", "discard")
            ctx.gain_fate(amount, hand.name)
            self._offer_talents(ctx)
        elif kind == "p":
            uid, _, bonus_key = rest.partition(":")
            ref = self._take_from_hand(tableau, uid)
            hand = ctx.hands[ref.card_id]
            card = hand.card
            bonus = 0
            if bonus_key:
                tableau.talents_ready.remove(bonus_key)
                hero = ctx.heroes[bonus_key]
                bonus = hero.range_bonus
                if ctx.loud:
                    ctx.say(f"{hero.talent_name} is unreadied for +{bonus} Range.")
            # ``ctx.cost``: the printed cost plus what the Book cards in force add
            mods = ctx.cost_modifiers_or_none(s.active)
            cost, dice = hand.cost_base, hand.cost_dice
            if mods is not None:
                cost += mods[hand.type]
            cost, rolled = ctx.roll_dice(cost, dice, "cost", s.active) if dice else (cost, "")
            if cost < 0:
                cost = 0
            if cost > s.available:
                ctx.say(
                    f"{who} plays {card.name}: its cost comes up {cost}{rolled}, more than the "
                    f"{s.available} Fate available. The Showdown begins!",
                    "showdown",
                )
                s.turn_open = False
                tableau.discard.append(ref)
                self._start_showdown(ctx, "a variable cost rolled above the Available Fate")
                return
            s.available -= cost
            s.spent += cost
            reach, range_rolled = (
                ctx.roll_dice(hand.reach_base, hand.reach_dice, "range", s.active)
                if hand.reach_dice
                else (hand.reach_base, "")
            )
            value, value_rolled = (
                (0, "")
                if hand.value is None
                else ctx.roll_dice(hand.value_base, hand.value_dice, "value", s.active)
                if hand.value_dice
                else (hand.value_base, "")
            )
            if ctx.loud:
                ranged = "unlimited" if hand.unlimited else f"{reach + bonus}{range_rolled}"
                ctx.say(
                    f"{who} plays {hand.name} ({hand.type}) for {cost} Fate{rolled}; Range "
                    f"{ranged}" + (f", value {value}{value_rolled}" if hand.value else "") + ".",
                    "play",
                )
            s.jobs.append(
                new_job(
                    source=hand.name,
                    tableau=s.active,
                    character=hand.owner,
                    effects=hand.main,
                    action=hand.type,
                    value=value,
                    reach=reach + bonus,
                    unlimited=hand.unlimited,
                    played=ref,
                )
            )
        elif kind == "s":
            hero = ctx.heroes[rest]
            tableau.stunts_used.append(rest)
            if ctx.loud:
                ctx.say(f"{who} uses the Stunt {hero.stunt_name}.", "stunt")
            s.jobs.append(
                new_job(
                    source=hero.stunt_name,
                    tableau=s.active,
                    character=rest,
                    effects=hero.stunt_effects,
                )
            )
        elif kind == "pass":
            s.available -= 1
            s.spent += 1
            if ctx.loud:
                ctx.say(f"{who} passes and pays 1 Fate (Available {s.available}).", "pass")
        elif kind == "end":
            s.turn_open = False
            ctx.say(f"{who} is out of cards and Fate.", "showdown")
            self._start_showdown(ctx, "a player was out of cards and Fate")

    @staticmethod
    def _take_from_hand(tableau: PlainTableau, uid: str) -> CardRef:
        hand = tableau.hand
        for index, ref in enumerate(hand):
            if ref.uid == uid:
                del hand[index]  # uids are unique: this is the card ``remove`` would take
                return ref
        raise StopIteration(uid)

    def _offer_talents(self, ctx: Context) -> None:
        s = ctx.s
        tableau = s.tableaux[s.active]
        options: dict[str, str] = {}
        for key in tableau.characters:
            hero = ctx.heroes[key]
            if hero.talent_mode == "ready":
                if key not in tableau.talents_ready:
                    options[hero.talent_option] = hero.talent_label
            elif hero.talent_effect is not None:
                job = probe_job(hero.talent, s.active, key)
                if ctx.effect_possible(job, hero.talent_effect):
                    options[hero.talent_option] = hero.talent_label
        if options:
            options["skip"] = "Do not use a Talent"
            answers = ctx.answers
            if answers is None:
                s.decision = new_decision(kind="talent", prompt="Use a Talent?", options=options)
            else:
                self._use_talent(ctx, ctx.answer_option(answers, "talent", list(options)))

    def _answer(self, ctx: Context, seat: str, option: str) -> None:
        s = ctx.s
        decision = s.decision
        assert decision is not None
        s.decision = None
        kind = decision.kind
        if kind == "showdown_vote":
            self._vote(ctx, seat, decision, option == "yes")
        if kind in ("deck", "named_type", "redraw"):
            tableau = s.tableaux[s.active]
            if kind == "deck":
                tableau.characters.append(option[2:])
            elif kind == "named_type":
                tableau.named_type = option
            elif option == "redraw":
                tableau.deck += tableau.hand
                tableau.hand = []
                ctx.say(f"{ctx.char_names(tableau)} reshuffles and draws again.")
            self._continue_setup(ctx)
        elif kind == "first_player":
            s.active = int(option[1:])
            s.phase = "play"
            if ctx.loud:
                ctx.say(f"{ctx.char_names(s.tableaux[s.active])} goes first.")
        elif kind == "talent":
            self._use_talent(ctx, option)
        elif kind == "choose":
            job = s.jobs[0]
            effect = job.effects.pop(0)
            self._apply_effect(ctx, job, effect, option.split("+"))
        elif kind == "showdown_pick" or kind == "showdown":
            self._showdown_answer(ctx, option)

    @staticmethod
    def _use_talent(ctx: Context, option: str) -> None:
        """The answer to a Talent offer: "skip", or "t:<character>" (ready it, or use it now)."""
        if option == "skip":
            return
        s = ctx.s
        key = option[2:]
        hero = ctx.heroes[key]
        tableau = s.tableaux[s.active]
        if hero.talent_mode == "ready":
            tableau.talents_ready.append(key)
            if ctx.loud:
                ctx.say(f"{hero.talent_name} is readied.", "talent")
        else:
            if ctx.loud:
                who = ctx.char_names(tableau)
                ctx.say(f"{who} uses the Talent {hero.talent_name}.", "talent")
            s.jobs.insert(
                0,
                new_job(
                    source=hero.talent_name,
                    tableau=s.active,
                    character=key,
                    effects=hero.talent_effects,
                ),
            )

    def _vote(self, ctx: Context, seat: str, decision: PlainDecision, agree: bool) -> None:
        s = ctx.s
        who = self._seat_label(ctx, seat) if ctx.loud else ""
        if not agree:
            s.showdown_votes = []
            ctx.say(f"{who} would rather keep playing: no Showdown yet.", "showdown")
            return
        s.showdown_votes.append(seat)
        waiting = [v for v in decision.seats or [] if v != seat]
        if waiting:
            s.decision = new_decision(
                decision.kind, decision.prompt, decision.options, decision.table, waiting
            )
            ctx.say(f"{who} agrees to the Showdown.", "showdown")
            return
        s.showdown_votes = []
        ctx.say("The table agrees: the Showdown begins.", "showdown")
        self._start_showdown(ctx, "the table agreed to it")

    # -- effect resolution ---------------------------------------------------------------------
    def _advance(self, ctx: Context) -> None:
        s = ctx.s
        while s.decision is None and s.phase != "over":
            if ctx.triggered:
                s.jobs[0:0] = ctx.triggered
                ctx.triggered = []
            if s.jobs:
                job = s.jobs[0]
                if not job.effects:
                    s.jobs.pop(0)
                    if job.lingering:
                        ctx.forget_answers()
                    if job.played is not None:
                        s.tableaux[job.tableau].discard.append(job.played)
                    continue
                self._step_job(ctx, job)
                continue
            if s.phase == "showdown":
                self._next_showdown(ctx)
                continue
            if s.phase == "play" and s.turn_open:
                self._end_turn(ctx)
                if s.phase == "showdown":
                    continue
            break

    def _step_job(self, ctx: Context, job: PlainJob) -> None:
        effect = job.effects[0]
        # (``is_targeted``, inline: asked at every step of every job)
        if type(effect) is AddTokens or type(effect) is RemoveCard or type(effect) is MoveCard:
            if type(effect) is AddTokens:  # the most it may add, for the target search
                amount_of, most = token_amount(effect)
                amount = (job.value or 0) if amount_of is None else most
            else:
                amount = 0
            groups = ctx.target_groups(effect, job, amount)
            group = groups[0] if groups else None
            if len(groups) > 1:
                answers = ctx.answers
                if answers is None:
                    ctx.s.decision = new_decision(
                        kind="choose",
                        prompt=f"{job.source}: choose a target." if ctx.loud else "",
                        options={
                            "+".join(g): self._group_label(ctx, g) if ctx.loud else ""
                            for g in groups
                        },
                        table=ctx.s.phase == "showdown",
                    )
                    return
                group = ctx.answer_target(answers, groups)  # (as ``_answer`` would take it)
            job.effects.pop(0)
            if group is None:
                if ctx.loud:
                    self._say_missed(ctx, job, effect)
                return
            self._apply_effect(ctx, job, effect, group)
            return
        job.effects.pop(0)
        self._apply_effect(ctx, job, effect, [])

    @staticmethod
    def _say_missed(ctx: Context, job: PlainJob, effect: AddTokens | RemoveCard | MoveCard) -> None:
        """A played card, Talent or Stunt whose main effect finds no target says so; riders
        after a hit, "that card" effects and Book card triggers stay quiet (nothing to tell)."""
        if job.source_book is not None or job.targets or effect.target.pick == "same":
            return
        where = "" if job.unlimited or not effect.target.within_range else f" in Range {job.reach}"
        ctx.say(f"{job.source}: no card it may target{where}; it has no effect.")

    @staticmethod
    def _group_label(ctx: Context, group: list[str]) -> str:
        names = []
        for uid in group:
            if uid in ("-1", "+1"):
                names.append("one space nearer" if uid == "-1" else "one space farther")
                continue
            found = ctx.find(uid)
            if found:
                row, position, slot, _card = found
                names.append(f"{ctx.book(slot).name} (row {row + 1}, Range {position + 1})")
        return (
            ", ".join(names)
            if len(group) < 3
            else f"Row {ctx.located(group[0])[0] + 1}: "
            + ", ".join(n.split(" (")[0] for n in names)
        )[:80]

    def _amount(self, ctx: Context, job: PlainJob, effect: Effect) -> int:
        """The tokens an effect adds now, rolled (target search reads the most it may add,
        unrolled, in ``_step_job``)."""
        if type(effect) is AddTokens:
            amount, _most = token_amount(effect)
            if amount is None:
                return job.value or 0
            return ctx.roll(amount, "value", job.tableau)[0]
        return 0

    def _apply_effect(self, ctx: Context, job: PlainJob, effect: Effect, group: list[str]) -> None:
        s = ctx.s
        if type(effect) is AddTokens:
            amount = self._amount(ctx, job, effect)
            for uid in group:
                ctx.add_tokens(uid, amount, job.source)
            job.targets = group
            ctx.sweep(job.tableau, group)
        elif type(effect) is RemoveCard:
            for uid in group:
                ctx.remove(
                    uid,
                    job.tableau,
                    "is overcome"
                    if ctx.book(ctx.located(uid)[2]).type == "obstacle"
                    else "is taken",
                )
            job.targets = group
        elif type(effect) is MoveCard:
            for uid in [u for u in group if u not in ("-1", "+1")]:
                found = ctx.find(uid)
                if found is None:
                    continue
                row, position, slot, _card = found
                line = s.rows[row]
                line.pop(position)
                if effect.to == "longest":
                    line.append(slot)
                elif effect.to == "shortest":
                    line.insert(0, slot)
                else:
                    line.insert(position + int(group[-1]), slot)
                ctx.changed(slot.card_id)
                if ctx.loud:
                    where = line.index(slot) + 1
                    ctx.say(f"{job.source}: {ctx.book(slot).name} moves to Range {where}.")
            job.targets = [u for u in group if u not in ("-1", "+1")]
        elif type(effect) is GainFate:
            ctx.gain_fate(ctx.fate_amount(effect, job), job.source)
        elif type(effect) is Draw:
            ctx.draw(job.tableau, effect.count)

    def _end_turn(self, ctx: Context) -> None:
        s = ctx.s
        s.turn_open = False
        s.turn += 1
        left = ctx.foes_or_cases_left()
        if ctx.auto_showdown and not left:
            ctx.say("No Foe or Case is left in the rows.", "showdown")
            self._start_showdown(ctx, "the rows hold no Foe or Case")
            return
        if s.turn >= ctx.turn_limit:
            self._start_showdown(ctx, "the turn limit was reached")
            return
        s.active = (s.active + 1) % len(s.tableaux)

    # -- Showdown ------------------------------------------------------------------------------
    def _start_showdown(self, ctx: Context, reason: str) -> None:
        s = ctx.s
        s.phase = "showdown"
        s.showdown_reason = reason
        s.showdown_queue = self._owed_rolls(ctx)
        if ctx.loud:
            ctx.say(
                f"Showdown ({reason}): {len(s.showdown_queue)} card(s) get a final roll.",
                "showdown",
            )

    @staticmethod
    def _owed_rolls(ctx: Context) -> list[str]:
        """Foes with Hits and Cases with Clues that have not rolled yet. Asked again after every
        roll: a Case solved mid-Showdown may put Hits on a Foe, or lift a restriction."""
        return [
            slot.uid
            for row in ctx.s.rows
            for slot in row
            if ctx.kinds[slot.card_id] in ("foe", "case")
            and slot.tokens
            and slot.uid not in ctx.s.showdown_rolls
            and ctx.can_receive(slot)
        ]

    def _next_showdown(self, ctx: Context) -> None:
        """The table chooses which card rolls next, then how much Fate to spend on it."""
        s = ctx.s
        s.showdown_queue = self._owed_rolls(ctx)
        if s.showdown_pick not in s.showdown_queue:
            s.showdown_pick = None
        if not s.showdown_queue:
            s.phase = "over"
            if ctx.loud:  # (a quiet Context keeps no events)
                result = self.result(s)
                ctx.say(result.summary if result else "The game is over.", "over")
            return
        if s.showdown_pick is None and len(s.showdown_queue) == 1:
            s.showdown_pick = s.showdown_queue[0]
        answers = ctx.answers  # (an AI-only game's AI answers here: see _answer)
        if s.showdown_pick is None:
            if answers is not None:
                ids = [f"sp:{uid}" for uid in s.showdown_queue]
                self._showdown_answer(ctx, ctx.answer_option(answers, "showdown_pick", ids))
                return
            s.decision = new_decision(
                kind="showdown_pick",
                prompt=f"Showdown: {len(s.showdown_queue)} card(s) are owed a roll. Which rolls "
                "next?",
                options={
                    f"sp:{uid}": f"Roll next for {ctx.tokens_label(uid)}" if ctx.loud else ""
                    for uid in s.showdown_queue
                },
                table=True,
            )
            return
        slot = ctx.located(s.showdown_pick)[2]
        loud = ctx.loud  # (a quiet Context's decisions have no labels: its AI reads ids)
        tiers = ctx.tiers(slot) if loud else None
        options = {
            f"sd{i}": f"Spend {fate} Fate: roll {tiers[i].roll}" if tiers else ""
            for i, (fate, _base, _dice) in enumerate(ctx.tier_values(slot))
            if fate <= s.available
        }
        if len(s.showdown_queue) > 1:
            options["pick"] = "Roll for another card first"
        if answers is not None:
            self._showdown_answer(ctx, ctx.answer_option(answers, "showdown", list(options)))
            return
        s.decision = new_decision(
            kind="showdown",
            prompt=f"Showdown roll for {ctx.tokens_label(slot.uid)}: spend how much Fate?"
            if loud
            else "",
            options=options,
            table=True,
        )

    def _showdown_answer(self, ctx: Context, option: str) -> None:
        """The table's answer to which card rolls next ("sp:<uid>") or to how much Fate to
        spend on its roll ("sd<tier>", or "pick": another card first)."""
        s = ctx.s
        if option.startswith("sp:"):
            s.showdown_pick = option[3:]
        elif option == "pick":
            s.showdown_pick = None
        else:
            self._showdown_roll(ctx, int(option[2:]))

    def _showdown_roll(self, ctx: Context, tier_index: int) -> None:
        s = ctx.s
        uid = s.showdown_pick
        assert uid is not None
        s.showdown_pick = None
        slot = ctx.located(uid)[2]
        card = ctx.book(slot)
        tier = ctx.tiers(slot)[tier_index]
        s.available -= tier.fate
        s.spent += tier.fate
        total, rolled = ctx.roll(tier.roll, "showdown", None)
        if ctx.loud:
            ctx.say(
                f"Showdown on {card.name}: {tier.fate} Fate, roll {tier.roll}{rolled} = {total}."
            )
        s.showdown_rolls.append(uid)
        if total > 0:
            ctx.add_tokens(uid, total, "Showdown")
            ctx.sweep(s.active, [uid])

    # -- views --------------------------------------------------------------------------------
    def public_view(self, state: AnyState) -> dict[str, Any]:
        return self._public_view(state, self._read(state))

    def _public_view(
        self, state: AnyState, ctx: Context, players: dict[int, dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        result = self.result(state)
        return views.public_view(ctx, self.key, result.summary if result else None, players)

    def private_view(self, state: AnyState, seat: str) -> dict[str, Any]:
        return self.private_view_from(state, seat, None)

    def private_view_from(
        self, state: AnyState, seat: str, public: dict[str, Any] | None
    ) -> dict[str, Any]:
        ctx = self._read(state)  # one reading for all three parts: it keeps its answers
        view = dict(public) if public is not None else self._public_view(state, ctx)
        view["hands"] = views.hands_of(ctx, seat)
        view["question"] = views.own_question(ctx, seat)
        view["actions"] = [move.action().model_dump() for move in self.moves(state, seat, ctx)]
        return view

    def table_views(
        self, state: AnyState, seat: str, with_actions: bool = True
    ) -> tuple[dict[str, Any], list[Action], dict[str, Any]]:
        # One read-only Context for the three, as private_view_from has for its parts: the
        # public view and the legal actions no longer read the state on their own.
        ctx = self._read(state)
        public = self._public_view(state, ctx)
        actions = [move.action() for move in self.moves(state, seat, ctx)]
        private = dict(public)
        private["hands"] = views.hands_of(ctx, seat)
        private["question"] = views.own_question(ctx, seat)
        private["actions"] = [action.model_dump() for action in actions]
        return public, actions if with_actions else [], private

    def seat_views(
        self, state: AnyState, seat: str, with_actions: bool = True
    ) -> tuple[Callable[[], dict[str, Any]], list[Action], dict[str, Any]]:
        # The hand shows its hands, the seat's Talents and Stunts and the Fate pools: the rows'
        # views (links, restrictions) are built only when the board asks for the public view,
        # from the same reading (read-only) and with the seat's tableaux the hand has made.
        ctx = self._read(state)
        actions = [move.action() for move in self.moves(state, seat, ctx)] if with_actions else []
        mine = views.seat_tableaux(ctx, seat)
        hand = views.hand_view(ctx, seat, mine)
        return partial(self._public_view, state, ctx, mine), actions, hand

    # -- AI and tools -------------------------------------------------------------------------
    def reading(self, state: AnyState) -> Context:
        """The rules' questions about ``state`` (costs, targets, restrictions) for the views and
        the AI; the caller only reads it."""
        game = self._game_ctx  # (``_read``'s first question, asked here: the AI asks every step)
        if game is not None and game.s is state:
            return game
        return self._read(state)

    def choose_action(self, state: DfState, seat: str, rng: random.Random) -> Action:
        if self.ai is None:
            raise DfRuleError("This table has no AI player; every seat needs a person.")
        # The AI only reads the state: through its reading, the one the views have.
        ctx = self._read(state)
        self._game_ctx = ctx
        try:
            move = self.ai(self, ctx.s, seat, rng)
        finally:
            self._game_ctx = None
        return self._chosen.remember(state, seat, move.action())

    def simulate(self, options: DfOptions, players: int, games: int, seed: int) -> dict[str, Any]:
        return simulate_options(self, options, players, games, seed)

    def validate_pack_text(self, text: str, filename: str) -> list[str] | None:
        """The pack's own errors, and the ids it shares with an installed pack."""
        others = packs.installed_names(packs.PACK_DIR, leave_out=Path(filename))
        return packs.validate_pack_text(text, filename, others)


def _move_id(
    ai: AiPolicy, engine: DfccgEngine, state: PlainState, seat: str, rng: random.Random
) -> str:
    """An ``AiIdPolicy`` made of an ``AiPolicy``."""
    return ai(engine, state, seat, rng).id


ENGINE = DfccgEngine()
