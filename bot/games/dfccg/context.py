"""The working copy of a DFCCG state and the questions every part asks of it.

``Context`` wraps one state with the card definitions: the engine mutates it during an apply
call; the views and the AI only read it (``Context.reading``). It knows the rules' queries
(what a card costs now and why, what may be targeted, what restricts a card) but not the
turn structure, which is the engine's.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache, lru_cache
from typing import Any, Protocol, TypeGuard

from bot.games.base import GameEvent, event
from bot.games.dfccg.cards import (
    ACTION_TARGET,
    TOKEN_OF,
    ActionCard,
    AddTokens,
    BookCard,
    Character,
    Dice,
    Draw,
    Effect,
    GainFate,
    MoveCard,
    RemoveCard,
    Selector,
    ShowdownCard,
    ShowdownTier,
    Stunt,
    Talent,
)
from bot.games.dfccg.state import PlainJob, PlainSlot, PlainState, PlainTableau, new_job
from bot.games.draws import fate_dice, shuffle

TARGETED = (AddTokens, RemoveCard, MoveCard)  # the effects with a target selector
_TYPED = (ActionCard, BookCard)  # the cards with a type
_TARGETED_TYPES = frozenset(TARGETED)


def is_targeted(effect: Effect) -> TypeGuard[AddTokens | RemoveCard | MoveCard]:
    """``isinstance(effect, TARGETED)``: the effect classes have no subclasses, and a failing
    ``isinstance`` against a pydantic model class goes through ``ABCMeta`` (about 1 us, on
    every effect of every step)."""
    return type(effect) in _TARGETED_TYPES


_NONE: list[Any] = []  # no passive effect of a kind (shared: never changed)
# Where a card lies in the rows: (row, position, its slot, the card).
Placed = tuple[int, int, PlainSlot, BookCard]
FACE = {1: "+", 0: "blank", -1: "-"}
FACE_WORDS = {1: "plus", 0: "blank", -1: "minus"}  # for a die a card turned into another
TYPE_NAMES = {
    "attack": "Attack",
    "investigate": "Investigate",
    "overcome": "Overcome",
    "advantage": "Take Advantage",
}


_PROBES: dict[tuple[int, int, str], tuple[Talent | Stunt, PlainJob]] = {}


def probe_job(owner: Talent | Stunt, tableau: int, character: str) -> PlainJob:
    """A job of a Talent's or Stunt's effects for the rules' questions only (what it could do
    now: ``effect_possible``), as ``new_job`` makes it: one per owner, hand and character,
    shared, so never changed nor resolved (a use of the Talent or Stunt gets a job of its own)."""
    key = (id(owner), tableau, character)
    known = _PROBES.get(key)
    if known is not None and known[0] is owner:
        return known[1]
    job = new_job(source=owner.name, tableau=tableau, character=character, effects=owner.effects)
    _PROBES[key] = (owner, job)
    return job


@lru_cache(maxsize=256)
def _dice(base: int, dice: int) -> Dice:
    """A value (frozen, so one object serves every card that costs it)."""
    return Dice(base=base, dice=dice)


# What a targeted effect's selector asks, as plain values: (pick, within_range, condition,
# types, whether it picks by type only, whether by type and condition only), by id(effect);
# see _aim.
Aim = tuple[str, bool, str, list[str], bool, bool]
_AIMS: dict[int, tuple[Effect, Aim]] = {}


def _aim(effect: AddTokens | RemoveCard | MoveCard) -> Aim:
    """The selector of ``effect`` as plain values (read once per effect: a pydantic model's
    attributes are read through its ``__getattr__`` hook)."""
    known = _AIMS.get(id(effect))
    if known is not None and known[0] is effect:
        return known[1]
    selector = effect.target
    typed = not selector.link and not selector.name_contains
    types: list[str] = list(selector.types)
    only_types = typed and selector.condition == "any"
    aim = (selector.pick, selector.within_range, selector.condition, types, only_types, typed)
    _AIMS[id(effect)] = (effect, aim)
    return aim


# What an AddTokens effect puts on its targets: (its amount, None for the card's value; the
# most that amount may come to), by id(effect); see token_amount.
_AMOUNTS: dict[int, tuple[AddTokens, tuple[Dice | None, int]]] = {}


def token_amount(effect: AddTokens) -> tuple[Dice | None, int]:
    """The amount of ``effect`` and the most it may come to (0 when it is the card's value),
    read once per effect."""
    known = _AMOUNTS.get(id(effect))
    if known is not None and known[0] is effect:
        return known[1]
    amount = effect.amount
    found = (amount, amount.maximum if amount is not None else 0)
    _AMOUNTS[id(effect)] = (effect, found)
    return found


@cache
def default_main(action: str) -> AddTokens | RemoveCard:
    """The main effect of a card that names none: tokens on, or the removal of, a card of the
    type its action targets (one per action type, shared by every such card)."""
    target = Selector(types=[ACTION_TARGET[action]])
    if action in ("attack", "investigate"):
        return AddTokens(target=target)
    return RemoveCard(target=target)


class HandCard:
    """An action card as the rules and the AI read it in a hand: its values, plain, worked out
    once per card (a pydantic model's attributes are read through its ``__getattr__`` hook,
    several times slower than a slot). ``card`` is the pack's model."""

    __slots__ = (
        "card",
        "cost_base",
        "cost_dice",
        "cost_least",
        "cost_most",
        "default_main",
        "discard",
        "discard_base",
        "discard_dice",
        "main",
        "name",
        "owner",
        "reach_base",
        "reach_dice",
        "reach_most",
        "type",
        "unlimited",
        "value",
        "value_base",
        "value_dice",
    )

    def __init__(self, card: ActionCard) -> None:
        self.card = card
        self.name = card.name
        self.type = card.type
        self.owner = card.id.split(".")[0]
        self.cost_base, self.cost_dice = card.cost.base, card.cost.dice
        self.cost_least, self.cost_most = self.cost_base - self.cost_dice, card.cost.maximum
        self.discard = card.discard
        self.discard_base, self.discard_dice = card.discard.base, card.discard.dice
        reach = card.range.value
        self.reach_base, self.reach_dice = reach.base, reach.dice
        self.reach_most = reach.base + reach.dice
        self.unlimited = card.range.unlimited
        self.value = card.value
        self.value_base, self.value_dice = (
            (card.value.base, card.value.dice) if card.value else (0, 0)
        )
        # Its effects, its main action first (the effects are shared: nothing changes one).
        main = (
            [*card.effects, *card.extra] if card.effects else [default_main(card.type), *card.extra]
        )
        self.main: list[Effect] = main
        self.default_main = main[0] is default_main(card.type)


class Hero:
    """A character's Talent and Stunt as the rules and the AI read them, plain (see
    ``HandCard``); ``talent`` and ``stunt`` are the pack's models."""

    __slots__ = (
        "name",
        "range_bonus",
        "stunt",
        "stunt_effect",
        "stunt_effects",
        "stunt_name",
        "talent",
        "talent_effect",
        "talent_effects",
        "talent_label",
        "talent_mode",
        "talent_name",
        "talent_option",
    )

    def __init__(self, character: Character) -> None:
        self.name = character.name
        talent, stunt = character.talent, character.stunt
        self.talent = talent
        self.talent_name = talent.name
        self.talent_mode = talent.mode
        # The Talent's option after a discard (its id and label, made once)
        self.talent_option = "t:" + character.key
        verb = "Ready" if talent.mode == "ready" else "Use"
        self.talent_label = f"{verb} {talent.name}"
        self.talent_effects: list[Effect] = talent.effects
        # The first effect (None: none), the one that tells whether a use would do something.
        self.talent_effect = talent.effects[0] if talent.effects else None
        self.range_bonus = talent.range_bonus
        self.stunt = stunt
        self.stunt_name = stunt.name
        self.stunt_effects: list[Effect] = stunt.effects
        self.stunt_effect = stunt.effects[0] if stunt.effects else None


# A Book card's passive effects as (kind, effect, and for a Restrict: what it forbids, whether
# it looks at the tokens on a card, whether it applies to some hands only).
Passive = tuple[str, Any, str, bool, bool]
CardFacts = tuple[
    dict[str, str],
    dict[str, int | None],
    dict[str, HandCard],
    dict[str, Hero],
    dict[str, list[Passive]],
]


def _passive_facts(effect: Any) -> Passive:
    kind = effect.kind
    if kind != "restrict":
        return (kind, effect, "", False, False)
    target = effect.target
    tokens = target is not None and target.condition != "any"
    return (kind, effect, effect.what, tokens, effect.characters != "all")


_FACTS: dict[int, tuple[dict[str, Any], CardFacts]] = {}


def card_facts(cards: dict[str, Any]) -> CardFacts:
    """The type of every Book and action card of a card index, the value of every Book card
    and every action card as a ``HandCard``, by id (worked out once per index: the rules ask
    them at every turn, and a pydantic model's attribute is read through its ``__getattr__``
    hook, several times slower than a dict)."""
    known = _FACTS.get(id(cards))
    if known is not None and known[0] is cards:
        return known[1]
    kinds: dict[str, str] = {}
    values: dict[str, int | None] = {}
    hands: dict[str, HandCard] = {}
    heroes: dict[str, Hero] = {}
    passives: dict[str, list[Passive]] = {}
    for key, card in cards.items():
        if isinstance(card, _TYPED):
            kinds[key] = card.type
        if isinstance(card, BookCard):
            values[key] = card.value
            passives[key] = [_passive_facts(effect) for effect in card.passive]
        elif isinstance(card, ActionCard):
            hands[key] = HandCard(card)
        elif isinstance(card, Character):
            heroes[key.removeprefix("char:")] = Hero(card)
    facts = (kinds, values, hands, heroes, passives)
    _FACTS[id(cards)] = (cards, facts)
    return facts


# A selector as plain values: (types, link, name_contains lowered, condition), by id; see
# _selects.
_SELECTS: dict[int, tuple[Selector, tuple[list[str], str | None, str | None, str]]] = {}


def _selects(selector: Selector) -> tuple[list[str], str | None, str | None, str]:
    known = _SELECTS.get(id(selector))
    if known is not None and known[0] is selector:
        return known[1]
    name = selector.name_contains
    types: list[str] = list(selector.types)
    plain = (types, selector.link, name.lower() if name else None, selector.condition)
    _SELECTS[id(selector)] = (selector, plain)
    return plain


class Answers(Protocol):
    """An AI that answers an AI-only game's decisions where they arise (``Context.answers``):
    nobody waits for a click, so the rules need not stop for a decision and come back."""

    def target(self, ctx: Context, groups: list[list[str]]) -> list[str]:
        """The target group chosen among ``groups`` (a "choose" decision's options)."""
        ...

    def option(self, ctx: Context, kind: str, ids: list[str]) -> str:
        """The option id chosen for a decision of ``kind`` with these option ids."""
        ...

    def turn(self, table: Any, ctx: Context, rng: random.Random) -> str:
        """The active hand's move at its turn, by id (``table``: the engine, asked for the
        turn's moves; ``ctx`` reads the state, read only)."""
        ...


class Context:
    """Mutable working copy of a state during one apply call, with its events and dice."""

    # Slots: the rules read these at every step (and an instance dict of this many names would
    # lose the interpreter's quick attribute and method lookups).
    __slots__ = (
        "_blocked_at",
        "_by_action",
        "_cost_mods",
        "_costs",
        "_dice_faces",
        "_forbids",
        "_laid",
        "_layout",
        "_mods",
        "_names",
        "_passive",
        "_receives",
        "_restricts",
        "_scoped",
        "_tokens_matter",
        "_where",
        "answered",
        "answers",
        "auto_showdown",
        "cards",
        "events",
        "hands",
        "heroes",
        "kinds",
        "memo",
        "passive_of",
        "rng",
        "s",
        "triggered",
        "turn_limit",
        "untargeted_plays",
        "values",
    )

    # Whether anyone reads the events and the labels of decisions: the rules skip making the
    # texts of a Context that keeps none (``QuietContext``).
    loud = True

    def __init__(
        self,
        state: PlainState,
        rng: random.Random,
        cards: dict[str, Any],
        *,
        read_only: bool = False,
    ) -> None:
        """``read_only``: nothing will change ``state``, so answers may be remembered
        (``memo``)."""
        self.s = state
        self.rng = rng
        self.cards = cards
        # every card's type, every Book card's value, every action card as a HandCard, by id;
        # every character as a Hero, by key; every Book card's passive effects, by id
        self.kinds, self.values, self.hands, self.heroes, self.passive_of = card_facts(cards)
        # The options the rules ask at every turn, plain (the options never change in a game).
        options = state.options
        self.untargeted_plays = options.allow_play_without_target
        self.auto_showdown = options.auto_showdown_when_clear
        self.turn_limit = options.turn_limit
        self.events: list[GameEvent] = []
        # Effects of Book cards removed during this step (a taken Advantage, a solved Case):
        # they resolve at once, before the rest of the action that removed them.
        self.triggered: list[PlainJob] = []
        # What the rows hold, worked out once and kept until they change (``changed``): the
        # place of each card and the passive effects in force, by kind.
        # (row, position, slot, card) of each, by uid
        self._where: dict[str, Placed] | None = None
        # The cards in the rows in row order, as ``_where`` has them, by card type (None:
        # every card); made with ``_where``, kept as long as it.
        self._laid: dict[str | None, list[Placed]] = {}
        self._passive: dict[str, list[tuple[BookCard, Any]]] | None = None
        # Two kinds of ``_passive`` that nearly every query asks for (valid while it is set).
        self._restricts: list[tuple[BookCard, Any]] = _NONE
        self._cost_mods: list[tuple[BookCard, Any]] = _NONE
        self._dice_faces: list[tuple[BookCard, Any]] = _NONE
        # The restrictions in force by what they forbid (valid with _passive), in their order.
        self._forbids: dict[str, list[tuple[BookCard, Any]]] = {}
        # Whether a restriction in force looks at the tokens on a card (valid with _passive):
        # without one, who may be targeted depends only on which cards lie where.
        self._tokens_matter = False
        # Whether a restriction in force applies to some hands only (valid with _passive):
        # without one, who may be targeted is the same for every hand.
        self._scoped = False
        # What the passive effects make of an action type for a hand (its cost modifier,
        # whether it is forbidden), by (what, action type, tableau); kept as long as _passive.
        self._by_action: dict[tuple[str, str, int], Any] = {}
        self._costs: dict[tuple[str, int], Dice] = {}  # see cost; kept as long as _passive
        self._mods: dict[int, dict[str, int]] = {}  # see cost_modifiers; as long as _passive
        self._receives: dict[str, bool] = {}  # see can_receive, by card id; as long as _passive
        # see action_blocked, by (action, tableau, card id); as long as _passive
        self._blocked_at: dict[tuple[str, int, str], bool] = {}
        self._layout: dict[Any, Any] = {}  # see layout_memo_of
        self.memo: dict[Any, Any] | None = {} if read_only else None
        self._names: dict[tuple[str, ...], str] = {}  # see char_names (card data: kept)
        # Who answers a target choice, a Talent offer or the Showdown's choices the moment they
        # arise (an AI-only game's AI; None: they wait as the state's decision), and how many it
        # answered so: each is a step of the game all the same.
        self.answers: Answers | None = None
        self.answered = 0

    def changed(self, card_id: str | None = None) -> None:
        """The rows (or an action's lingering Obstacles) changed: forget what was worked out.
        ``card_id``: the one card that left or moved, when that is all; without a passive
        effect of its own, the effects in force stay the same (only where cards lie changed)."""
        self._where = None
        self._forget(card_id)

    def forget_answers(self) -> None:
        """``changed`` when no card moved: the passive effects in force changed (an Obstacle's
        effect, lasting to the end of the action that took it, ended) or the hands did (set-up),
        but where the cards lie is still known."""
        self._forget(None)

    def _forget(self, card_id: str | None) -> None:
        """``changed`` for what is worked out from where the cards lie (not the layout itself,
        which the caller has brought up to date)."""
        self._layout = {}
        if card_id is not None and not self.passive_of[card_id]:
            return
        self._passive = None
        self._by_action = {}
        self._costs = {}
        self._mods = {}
        self._receives = {}
        self._blocked_at = {}

    def answer_target(self, answers: Answers, groups: list[list[str]]) -> list[str]:
        """``answers``' choice of a target group, now (read only: no dice)."""
        self.answered += 1
        dice, self.rng = self.rng, READ_ONLY_DICE
        group = answers.target(self, groups)
        self.rng = dice
        return group

    def answer_option(self, answers: Answers, kind: str, ids: list[str]) -> str:
        """``answers``' choice among a decision's option ids, now (read only: no dice)."""
        self.answered += 1
        dice, self.rng = self.rng, READ_ONLY_DICE
        option = answers.option(self, kind, ids)
        self.rng = dice
        return option

    # -- helpers ---------------------------------------------------------------------------
    def say(self, text: str, kind: str = "info", **data: Any) -> None:
        self.events.append(event(text, kind, data=data))

    def whisper(self, seat: str, text: str, kind: str = "private") -> None:
        self.events.append(event(text, kind, audience=[seat]))

    def book(self, slot_or_id: PlainSlot | str) -> BookCard:
        if isinstance(slot_or_id, str):
            return self.cards[slot_or_id]  # type: ignore[no-any-return]
        return self.cards[slot_or_id.card_id]  # type: ignore[no-any-return]

    def slots(self) -> Iterator[tuple[int, int, PlainSlot]]:
        for row_index, row in enumerate(self.s.rows):
            for position, slot in enumerate(row):
                yield row_index, position, slot

    def where(self) -> dict[str, Placed]:
        """Where each card in the rows lies, by uid: ``find`` for several uids (read only)."""
        where = self._where
        if where is None:
            where = self._lay_out()
        return where

    def find(self, uid: str) -> Placed | None:
        """Where a card lies in the rows, (row, position, slot, card); None: not in them."""
        where = self._where
        if where is None:
            where = self._lay_out()
        return where.get(uid)

    def laid_out(self, card_type: str | None) -> list[Placed]:
        """The cards of a type in the rows (None: every card), in row order: (row, position,
        slot, card). Worked out once until the rows change; the caller only reads it."""
        if self._where is None:
            self._lay_out()
        return self._laid.get(card_type) or _NONE

    def laid_by_type(self) -> dict[str | None, list[Placed]]:
        """``laid_out`` of every type at once, by type (each of the four is there); the caller
        only reads it."""
        if self._where is None:
            self._lay_out()
        return self._laid

    def _lay_out(self) -> dict[str, Placed]:
        where: dict[str, Placed] = {}
        every: list[Placed] = []
        laid: dict[str | None, list[Placed]] = {
            None: every,
            "foe": [],
            "case": [],
            "obstacle": [],
            "advantage": [],
        }
        cards, kinds = self.cards, self.kinds
        for row_index, row in enumerate(self.s.rows):
            for position, slot in enumerate(row):
                card_id = slot.card_id
                placed = (row_index, position, slot, cards[card_id])
                every.append(placed)
                laid[kinds[card_id]].append(placed)
                where[slot.uid] = placed
        self._where, self._laid = where, laid
        return where

    def _lift(self, found: Placed) -> None:
        """Bring the layout up to date after the card at ``found`` left its row (the cards
        behind it moved one Range closer): cheaper than laying out every row again, as each
        card taken would have it."""
        row, position, slot, _card = found
        where, laid, kinds = self._where, self._laid, self.kinds
        assert where is not None
        del where[slot.uid]
        every = laid[None]
        every.remove(found)
        laid[kinds[slot.card_id]].remove(found)
        line = self.s.rows[row]
        for behind in range(position, len(line)):
            moved = line[behind]
            old = where[moved.uid]
            new = (row, behind, moved, old[3])
            where[moved.uid] = new
            every[every.index(old)] = new
            typed = laid[kinds[moved.card_id]]
            typed[typed.index(old)] = new

    def located(self, uid: str) -> Placed:
        found = self.find(uid)
        if found is None:
            raise KeyError(uid)
        return found

    def has_harry(self, tableau: int | None) -> bool:
        return tableau is not None and "harry" in self.s.tableaux[tableau].characters

    def scope_applies(self, scope: str, tableau: int | None) -> bool:
        """Whether an effect for "all" / "harry" / "not_harry" touches this tableau's action.
        The Showdown's rolls belong to the whole table (no tableau): only "all" effects apply."""
        if scope == "all":
            return True
        if tableau is None:
            return False
        harry = self.has_harry(tableau)
        return harry if scope == "harry" else not harry

    def passives(self, lingering: list[str] | None = None) -> Iterator[tuple[BookCard, Effect]]:
        """Passive effects of Book cards in the rows (plus Obstacles still lingering)."""
        ids = [slot.card_id for _, _, slot in self.slots()] + list(lingering or [])
        for job in self.s.jobs:
            ids += job.lingering
        for card_id in ids:
            card = self.book(card_id)
            for effect in card.passive:
                yield card, effect

    def passive(self, kind: str) -> list[tuple[BookCard, Any]]:
        """The passive effects of one kind in force (``passives`` in order), worked out once
        until the rows change: most Book cards have none, and every cost and target asks."""
        index = self._passive
        if index is None:
            index = self._passive = {}
            cards = self.cards
            ids = [slot.card_id for row in self.s.rows for slot in row]
            for job in self.s.jobs:
                ids += job.lingering
            passive_of = self.passive_of
            forbids: dict[str, list[tuple[BookCard, Any]]] = {}
            tokens_matter = scoped = False
            for card_id in ids:
                # what ``passives`` yields, in its order
                for effect_kind, effect, what, tokens, some_hands in passive_of[card_id]:
                    pair = (cards[card_id], effect)
                    index.setdefault(effect_kind, []).append(pair)
                    if effect_kind == "restrict":
                        forbids.setdefault(what, []).append(pair)
                        tokens_matter = tokens_matter or tokens
                        scoped = scoped or some_hands
            self._restricts = index.get("restrict") or _NONE
            self._cost_mods = index.get("cost_mod") or _NONE
            self._dice_faces = index.get("dice_face") or _NONE
            self._forbids = forbids
            self._tokens_matter = tokens_matter
            self._scoped = scoped
        return index.get(kind) or _NONE

    def layout_memo_of(self, tableau: int) -> tuple[dict[Any, Any], int]:
        """Where to keep answers about targets, and the hand key to keep them under. Answers
        that depend only on which cards lie where in the rows go in the layout memo (kept until
        the rows change, see ``changed``); when a restriction in force looks at the tokens on
        the cards too, in ``memo``. The key is ``tableau``, or -1 when no restriction in force
        tells one hand from another."""
        if self._passive is None:
            self.passive("restrict")
        store = self.memo if self._tokens_matter else self._layout
        assert store is not None
        return store, tableau if self._scoped else -1

    def foes_or_cases_left(self) -> bool:
        """Whether a Foe or a Case is in the rows (known until the rows change)."""
        layout = self._layout
        left = layout.get("left")
        if left is None:
            left = layout["left"] = bool(self.laid_out("foe") or self.laid_out("case"))
        return left  # type: ignore[no-any-return]

    def forbids(self) -> dict[str, list[tuple[BookCard, Any]]]:
        """The restrictions in force by what they forbid (the caller only reads it)."""
        if self._passive is None:
            self.passive("restrict")
        return self._forbids

    def restrictions(self) -> list[tuple[BookCard, Any]]:
        """``passive("restrict")``, the quickest way."""
        return self._restricts if self._passive is not None else self.passive("restrict")

    # -- dice --------------------------------------------------------------------------------
    def roll(self, value: Dice, roll_kind: str, tableau: int | None) -> tuple[int, str]:
        return self.roll_dice(value.base, value.dice, roll_kind, tableau)

    def roll_dice(
        self, base: int, dice: int, roll_kind: str, tableau: int | None
    ) -> tuple[int, str]:
        """``roll`` of a value given as its base and its number of dice."""
        if not dice:
            return base, ""
        faces = fate_dice(self.rng, dice)
        loud = self.loud
        rolled = " ".join(FACE[f] for f in faces) if loud else ""
        changes: list[str] = []
        faces_in_force = (
            self._dice_faces if self._passive is not None else self.passive("dice_face")
        )
        for card, effect in faces_in_force:
            if roll_kind in effect.rolls:
                from_face = effect.from_face
                if self.scope_applies(effect.characters, tableau) and from_face in faces:
                    count = faces.count(from_face)
                    to_face = effect.to_face
                    faces = [to_face if f == from_face else f for f in faces]
                    if loud:
                        noun = FACE_WORDS[from_face] + ("" if count == 1 else " x" + str(count))
                        changes.append(f"{noun} counted as {FACE_WORDS[to_face]} by {card.name}")
        if not loud:
            return base + sum(faces), ""
        note = f" (rolled {rolled}" + "".join(f"; {c}" for c in changes) + ")"
        return base + sum(faces), note

    # -- restrictions ------------------------------------------------------------------------
    def matches(
        self, selector: Selector, slot: PlainSlot, amount: int = 0, card: BookCard | None = None
    ) -> bool:
        """Whether the slot's card (``card``, when the caller has it) fits the selector."""
        known = _SELECTS.get(id(selector))  # ``_selects``, its quick way inline
        if known is not None and known[0] is selector:
            types, link, name, condition = known[1]
        else:
            types, link, name, condition = _selects(selector)
        if types and self.kinds[slot.card_id] not in types:
            return False
        if link or name:
            if card is None:
                card = self.cards[slot.card_id]
            if link and link not in card.links_in:
                return False
            if name and name not in card.name.lower():
                return False
        return condition == "any" or self.meets(condition, slot, amount)

    def meets(self, condition: str, slot: PlainSlot, amount: int = 0) -> bool:
        """Whether the slot's card fits a selector's ``condition`` (``amount``: the tokens the
        effect may add, for "would_remove")."""
        if condition == "any":
            return True
        if condition == "no_tokens" and slot.tokens:
            return False
        if condition == "has_tokens" and not slot.tokens:
            return False
        if condition == "would_remove":
            value = self.values[slot.card_id]
            return value is not None and value - slot.tokens <= amount
        return True

    def can_receive(self, slot: PlainSlot) -> bool:
        """Whether the slot's card may get its kind of tokens now. Without a restriction in
        force that looks at tokens, the answer is the card's own: kept by card id as long as
        the effects in force (``_receives``)."""
        card_id = slot.card_id
        known = self._receives.get(card_id)
        if known is not None:
            return known
        if self._passive is None:
            self.passive("restrict")
        found = self._receives_now(slot)
        if not self._tokens_matter:
            self._receives[card_id] = found
        return found

    def _receives_now(self, slot: PlainSlot) -> bool:
        token = TOKEN_OF.get(self.kinds[slot.card_id])
        if token is None:
            return False
        if not self._restricts:
            return True
        blocking = self._forbids.get("receive_hits" if token == "hit" else "receive_clues")
        if blocking is None:
            return True
        card = self.cards[slot.card_id]
        for _source, effect in blocking:
            if effect.target and self.matches(effect.target, slot, 0, card):
                return False
        return True

    def action_blocked(self, action: str, tableau: int, slot: PlainSlot | None) -> bool:
        if self._passive is None:
            self.passive("restrict")
        if action not in self._forbids:
            return False  # no restriction in force forbids this action
        if slot is None:
            key = ("blocked", action, tableau)
            found = self._by_action.get(key)
            if found is None:
                found = self._by_action[key] = self._blocked(action, tableau, None)
            return found  # type: ignore[no-any-return]
        # Against a card: its own answer, kept as long as the effects in force, unless a
        # restriction in force looks at tokens.
        at = (action, tableau, slot.card_id)
        known = self._blocked_at.get(at)
        if known is not None:
            return known
        known = self._blocked(action, tableau, slot)
        if not self._tokens_matter:
            self._blocked_at[at] = known
        return known

    def _blocked(self, action: str, tableau: int, slot: PlainSlot | None) -> bool:
        if self._passive is None:
            self.passive("restrict")
        for _source, effect in self._forbids.get(action, _NONE):
            if not self.scope_applies(effect.characters, tableau):
                continue
            if effect.target is None or (slot is not None and self.matches(effect.target, slot)):
                return True
        return False

    # -- targets -----------------------------------------------------------------------------
    def candidates(self, effect: Effect, job: PlainJob, amount: int = 0) -> list[list[str]]:
        """Possible target groups of an effect (each option is a list of card uids)."""
        return self._kept_candidates(effect, job, amount)[0]

    def _kept_candidates(
        self, effect: Effect, job: PlainJob, amount: int
    ) -> tuple[list[list[str]], tuple[Any, ...] | None]:
        """``candidates``, and the ``layout_memo_of`` key they are kept under (None: not kept)."""
        known_aim = _AIMS.get(id(effect))  # ``_aim``, its quick way inline
        if known_aim is not None and known_aim[0] is effect:
            aim = known_aim[1]
        elif type(effect) in _TARGETED_TYPES:  # ``is_targeted``, inline
            aim = _aim(effect)  # type: ignore[arg-type]
        else:
            return [], None
        targeted: AddTokens | RemoveCard | MoveCard = effect  # type: ignore[assignment]
        pick, within_range, condition, _types, _only_types, _typed = aim
        if pick == "same":
            return [[u for u in job.targets if self.find(u)]], None
        if pick == "self":
            if job.source_book and self.find(job.source_book):
                return [[job.source_book]], None
            return [], None
        limit = job.reach if within_range and not job.unlimited else None
        # ``layout_memo_of``, inline (asked for every effect of every step)
        if self._passive is None:
            self.passive("restrict")
        if condition != "any" or self._tokens_matter:
            return self._candidates(targeted, aim, job, amount, limit), None
        store = self._layout
        key = ("targets", id(effect), limit, job.action, job.tableau if self._scoped else -1)
        known = store.get(key)
        if known is None or known[0] is not effect:
            found = self._candidates(targeted, aim, job, amount, limit)
            known = store[key] = (effect, found)
        return known[1], key

    def _candidates(
        self,
        effect: AddTokens | RemoveCard | MoveCard,
        aim: Aim,
        job: PlainJob,
        amount: int,
        limit: int | None,
    ) -> list[list[str]]:
        """``candidates`` for a selector that picks by what it finds in the rows (``aim``: its
        ``_aim``)."""
        pick, _within_range, condition, types, only_types, typed = aim
        if limit is None:
            limit = 99  # no card lies that far
        adds = type(effect) is AddTokens
        if self._passive is None:
            self.passive("restrict")
        if pick == "chosen" and only_types and len(types) == 1:
            # The commonest selector (a card's default main effect): what the general way
            # below comes to, in one pass when no restriction in force forbids the action.
            if self._where is None:  # (``laid_out``, inline: the commonest target search)
                self._lay_out()
            laid = self._laid.get(types[0]) or _NONE
            forbids = self._forbids
            if not adds:
                if not (
                    self._restricts
                    and type(effect) is RemoveCard
                    and ("overcome" in forbids or "advantage" in forbids)
                ):
                    return [[p[2].uid] for p in laid if p[1] < limit]
            elif not self._restricts:
                return [[p[2].uid] for p in laid if p[1] < limit] if types[0] in TOKEN_OF else []
            elif job.action is None or job.action not in forbids:
                can_receive = self.can_receive
                return [[p[2].uid] for p in laid if p[1] < limit and can_receive(p[2])]
        # The cards the selector matches within reach, in row order (as ``laid_out`` has them).
        matching: list[Placed]
        if only_types and len(types) == 1:
            matching = [placed for placed in self.laid_out(types[0]) if placed[1] < limit]
        elif only_types:
            kinds = self.kinds
            matching = [
                placed
                for placed in self.laid_out(None)
                if placed[1] < limit and (not types or kinds[placed[2].card_id] in types)
            ]
        elif typed and len(types) == 1:  # ``matches`` of the cards of its one type
            meets = self.meets
            matching = [
                placed
                for placed in self.laid_out(types[0])
                if placed[1] < limit and meets(condition, placed[2], amount)
            ]
        else:
            matches, selector = self.matches, effect.target
            matching = [
                placed
                for placed in self.laid_out(None)
                if placed[1] < limit and matches(selector, placed[2], amount, placed[3])
            ]
        # The matches it may be used on (with no restriction in force: every one that may
        # hold its tokens, for an effect that adds tokens).
        usable: list[Placed]
        if self._restricts:
            # ``_usable`` of each match, with what it comes to when no restriction in force
            # forbids the action it asks about: whether the card may receive the tokens, or
            # every match
            forbids = self._forbids
            if adds and (job.action is None or job.action not in forbids):
                can_receive = self.can_receive
                usable = [p for p in matching if can_receive(p[2])]
            elif adds or (
                type(effect) is RemoveCard and ("overcome" in forbids or "advantage" in forbids)
            ):
                usable = [p for p in matching if self._usable(effect, adds, job, p[2])]
            else:
                usable = matching
        elif adds:
            kinds = self.kinds
            usable = [p for p in matching if kinds[p[2].card_id] in TOKEN_OF]
        else:
            usable = matching
        if pick == "shortest" or pick == "longest":
            # A position: if the card there is restricted, the effect cannot be used on it.
            if not matching:
                return []
            positions = [p for _, p, _, _ in matching]
            best = min(positions) if pick == "shortest" else max(positions)
            return [[s.uid] for _, p, s, _ in usable if p == best]
        if pick == "all":
            return [[s.uid for _, _, s, _ in usable]] if usable else []
        if pick == "row":
            groups = [[s.uid for r, _, s, _ in usable if r == row] for row in (0, 1)]
            return [g for g in groups if g]
        return [[s.uid] for _, _, s, _ in usable]

    def _usable(self, effect: Effect, adds: bool, job: PlainJob, slot: PlainSlot) -> bool:
        """Whether a restriction in force keeps ``effect`` of ``job`` from the slot's card."""
        if adds:
            if not self.can_receive(slot):
                return False
            # A "cannot Attack/Investigate" card skips its targets for the played card's
            # own action; Talents, Stunts and other effects may still add tokens.
            action = job.action
            return not (
                action is not None
                and ACTION_TARGET.get(action) == self.kinds[slot.card_id]
                and self.action_blocked(action, job.tableau, slot)
            )
        if type(effect) is RemoveCard:
            kind = self.kinds[slot.card_id]
            action = "overcome" if kind == "obstacle" else "advantage"
            return not self.action_blocked(action, job.tableau, slot)
        return True

    # -- token and removal bookkeeping -----------------------------------------------------
    def add_tokens(self, uid: str, amount: int, source: str) -> None:
        where = self._where  # (``find``, inline: every Hit and Clue)
        found = (self._lay_out() if where is None else where).get(uid)
        if found is None or amount <= 0:
            return
        slot = found[2]
        state = self.s
        foe = self.kinds[slot.card_id] == "foe"
        held = state.hit_supply if foe else state.clue_supply
        if amount > held:
            amount = held
        if amount <= 0:
            return
        if foe:
            state.hit_supply = held - amount
        else:
            state.clue_supply = held - amount
        slot.tokens += amount
        if self.loud:
            card = self.book(slot)
            noun = "Hit" if foe else "Clue"
            plural = "" if amount == 1 else "s"
            text = f"{source}: {amount} {noun}{plural} on {card.name} ({slot.tokens}/{card.value})."
            self.say(text)

    def remove(self, uid: str, tableau: int, reason: str) -> None:
        where = self._where  # (``find``, inline: every card taken)
        found = (self._lay_out() if where is None else where).get(uid)
        if found is None:
            return
        row, position, slot, card = found
        state, card_id = self.s, slot.card_id
        kind = self.kinds[card_id]
        del state.rows[row][position]  # the cards behind move one Range closer
        if kind == "foe":
            state.hit_supply += slot.tokens
        elif kind == "case":
            state.clue_supply += slot.tokens
        if kind == "case":
            state.solved.append(card_id)
            if self.loud:
                self.say(f"Case solved: {card.name}.", "removed")
        else:
            state.book_discard.append(card_id)
            if self.loud:
                self.say(f"{card.name} {reason}.", "removed")
        if kind == "obstacle" and state.jobs:
            state.jobs[0].lingering.append(card_id)  # its effect lasts to the end of the action
        self._lift(found)
        self._forget(card_id)
        if card.on_removed:
            self.triggered.append(
                new_job(source=card.name, tableau=tableau, effects=card.on_removed, source_book=uid)
            )

    def sweep(self, tableau: int, uids: list[str]) -> None:
        """Remove every Foe/Case among ``uids`` (the cards that just got tokens) whose value is
        reached, in row order. Only ``add_tokens`` puts tokens on a card and every call is
        followed by a sweep of its cards, so no other card can have reached its value."""
        values = self.values
        reached = []
        where = self._where
        if where is None:
            where = self._lay_out()
        for uid in uids:
            found = where.get(uid)
            if found is None:
                continue
            slot = found[2]
            value = values[slot.card_id]
            if slot.tokens and value is not None and slot.tokens >= value:
                reached.append(found)
        if len(reached) > 1:
            reached.sort(key=_place)
        for _row, _position, slot, _card in reached:
            self.remove(slot.uid, tableau, "is defeated")

    def gain_fate(self, amount: int, source: str) -> int:
        state = self.s
        moved = amount if amount < state.spent else state.spent
        if moved < 0:
            moved = 0
        state.spent -= moved
        state.available += moved
        if self.loud:
            self.say(f"{source}: +{moved} Fate (Available {state.available}).", "fate")
        return moved

    def draw(self, tableau_index: int, count: int) -> None:
        tableau = self.s.tableaux[tableau_index]
        drawn = 0
        for _ in range(count):
            if not tableau.deck and tableau.discard:
                tableau.deck = tableau.discard
                tableau.discard = []
                shuffle(self.rng, tableau.deck)
                self.say("A discard pile is shuffled into a new draw deck.")
            if not tableau.deck:
                break
            ref = tableau.deck.pop(0)
            tableau.hand.append(ref)
            drawn += 1
            if self.loud:
                self.whisper(tableau.seat, f"You draw {self.cards[ref.card_id].name}.")
        if self.loud:
            self.say(f"{self.char_names(tableau)} draws {drawn} card(s).")

    def char_names(self, tableau: PlainTableau) -> str:
        key = tuple(tableau.characters)
        names = self._names.get(key)
        if names is None:
            names = self._names[key] = " & ".join(self.heroes[k].name for k in key)
        return names

    def cards_char(self, key: str) -> Character:
        return self.cards["char:" + key]  # type: ignore[no-any-return]

    # -- costs, Fate and what an effect could do now ---------------------------------------
    def cost_changes(self, tableau: int, card: ActionCard) -> list[tuple[str, int]]:
        """Book cards in play that change this card's cost for this hand: (name, amount)."""
        return [
            (source.name, e.amount)
            for source, e in self.passive("cost_mod")
            if card.type in e.actions and self.scope_applies(e.characters, tableau)
        ]

    def cost_modifiers_or_none(self, tableau: int) -> dict[str, int] | None:
        """``cost_modifiers``, or None when no Book card in force changes a cost."""
        if self._passive is None:
            self.passive("cost_mod")
        if not self._cost_mods:
            return None
        return self._mods.get(tableau) or self.cost_modifiers(tableau)

    def cost_modifiers(self, tableau: int) -> dict[str, int]:
        """What the Book cards in force add to the printed cost of each action type for this
        hand (``cost`` is the printed cost plus this), worked out once until they change."""
        if self._passive is None:
            self.passive("cost_mod")
        mods = self._mods.get(tableau)
        if mods is None:
            mods = self._mods[tableau] = dict.fromkeys(ACTION_TARGET, 0)
            for _source, effect in self._cost_mods:
                if self.scope_applies(effect.characters, tableau):
                    actions, amount = effect.actions, effect.amount
                    for action in ACTION_TARGET:
                        if action in actions:
                            mods[action] += amount
        return mods

    def cost(self, tableau: int, card: ActionCard) -> Dice:
        """What the card costs this hand now (its printed cost plus Book card modifiers)."""
        if self._passive is not None and not self._cost_mods:
            return card.cost  # no cost modifier in force
        costs = self._costs
        found = costs.get((card.id, tableau))
        if found is not None:
            return found
        key = ("cost", card.type, tableau)
        modifier = self._by_action.get(key)
        if modifier is None:
            changes = self.cost_changes(tableau, card) if self.passive("cost_mod") else []
            modifier = self._by_action[key] = sum(amount for _name, amount in changes)
        found = card.cost if not modifier else _dice(card.cost.base + modifier, card.cost.dice)
        if self._passive is not None:  # kept as long as the modifiers in force
            costs[(card.id, tableau)] = found
        return found

    def fate_amount(self, effect: GainFate, job: PlainJob, roll: bool = True) -> int:
        base = self.roll(effect.amount, "value", job.tableau)[0] if roll else effect.amount.maximum
        if effect.per_tokened_card:
            base *= len([slot for row in self.s.rows for slot in row if slot.tokens])
        return base

    def effect_possible(self, job: PlainJob, effect: Effect) -> bool:
        """Whether the effect would do something now (a Stunt or Talent may only be used so)."""
        if type(effect) is GainFate:
            return self.s.spent > 0 and self.fate_amount(effect, job, roll=False) > 0
        if type(effect) is Draw:
            t = self.s.tableaux[job.tableau]
            return bool(t.deck or t.discard)
        # A targeted effect: kept, by effect and what of the job its targets depend on (as
        # ``_kept_candidates`` keys them), as long as the targets (until the rows change).
        store = self._layout
        possible_key = ("possible", id(effect), job.reach, job.unlimited, job.action, job.tableau)
        known = store.get(possible_key)
        if known is not None and known[0] is effect:
            return known[1]  # type: ignore[no-any-return]
        amount = token_amount(effect)[1] if type(effect) is AddTokens else 0
        groups, key = self._kept_candidates(effect, job, amount)
        if type(effect) is MoveCard and effect.to == "step":
            groups, key = self._kept_steps(effect, groups, key)
        possible = bool(groups)
        if key is not None:
            store[possible_key] = (effect, possible)
        return possible

    def target_groups(self, effect: Effect, job: PlainJob, amount: int = 0) -> list[list[str]]:
        """The options of an effect: target uids, plus a direction for a one-space move."""
        groups, key = self._kept_candidates(effect, job, amount)
        if type(effect) is MoveCard and effect.to == "step":
            return self._kept_steps(effect, groups, key)[0]
        return groups

    def _kept_steps(
        self, effect: MoveCard, groups: list[list[str]], key: tuple[Any, ...] | None
    ) -> tuple[list[list[str]], tuple[Any, ...] | None]:
        """The one-space moves of ``groups`` (the candidates of ``effect``, kept under ``key``),
        and the key they are kept under (None: not kept)."""
        if key is None:
            return self._steps(groups), None
        # kept as long as the groups they come from: until the rows change
        store = self._layout
        steps_key = ("steps", *key[1:])
        known = store.get(steps_key)
        if known is None or known[0] is not effect:
            known = store[steps_key] = (effect, self._steps(groups))
        return known[1], steps_key

    def _steps(self, groups: list[list[str]]) -> list[list[str]]:
        """Each group with each direction its first card may move one space in its row: one
        nearer ("-1") unless it lies at Range 1, one farther ("+1") unless it lies last."""
        where, rows = self.where(), self.s.rows
        steps = []
        for group in groups:
            found = where.get(group[0])
            if found is None:
                continue
            row, position = found[0], found[1]
            if position > 0:
                steps.append([*group, "-1"])
            if position + 1 < len(rows[row]):
                steps.append([*group, "+1"])
        return steps

    # -- the Showdown card -----------------------------------------------------------------
    def showdown(self) -> ShowdownCard:
        card = self.cards[self.s.showdown_id]
        assert isinstance(card, ShowdownCard)
        return card

    def tiers(self, slot: PlainSlot) -> list[ShowdownTier]:
        showdown = self.showdown()
        return showdown.foe if self.book(slot).type == "foe" else showdown.case

    def tier_values(self, slot: PlainSlot) -> list[tuple[int, int, int]]:
        """``tiers`` as (Fate, roll base, roll dice), read once per Showdown card."""
        showdown = self.cards[self.s.showdown_id]
        known = _TIERS.get(id(showdown))
        if known is None or known[0] is not showdown:
            known = _TIERS[id(showdown)] = (
                showdown,
                [(t.fate, t.roll.base, t.roll.dice) for t in showdown.foe],
                [(t.fate, t.roll.base, t.roll.dice) for t in showdown.case],
            )
        return known[1] if self.kinds[slot.card_id] == "foe" else known[2]

    def tokens_label(self, uid: str) -> str:
        slot = self.located(uid)[2]
        card = self.book(slot)
        noun = "Hits" if card.type == "foe" else "Clues"
        return f"{card.name} ({slot.tokens}/{card.value} {noun})"


# Each Showdown card's tiers as plain values, by id(card): (the card, Foes', Cases'); see
# Context.tier_values.
_TIERS: dict[int, tuple[ShowdownCard, list[tuple[int, int, int]], list[tuple[int, int, int]]]] = {}


def _place(found: Placed) -> tuple[int, int]:
    return found[0], found[1]


class QuietContext(Context):
    """A Context that keeps no events: an AI-only game's (nobody reads its log). The labels
    of its decisions are left empty (its AI reads option ids only)."""

    __slots__ = ()
    loud = False

    def say(self, text: str, kind: str = "info", **data: Any) -> None:
        return None

    def whisper(self, seat: str, text: str, kind: str = "private") -> None:
        return None


class _NoDice(random.Random):
    """The dice of a read-only Context: the rules' queries never roll, and one that did would
    make an answer depend on earlier calls, so rolling here is a bug that says so."""

    def random(self) -> float:
        raise AssertionError("a read-only rules query rolled dice")

    def getrandbits(self, k: int, /) -> int:
        raise AssertionError("a read-only rules query rolled dice")


READ_ONLY_DICE = _NoDice(0)
