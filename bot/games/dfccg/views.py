"""The public and private views of a DFCCG state: plain dicts for displays and the AI.

Besides the numbers, a view explains what the table shows: every card's text, why a card is
blocked, which card a link letter points to, why a cost differs from the printed one, when a
discard would give no Fate and whether a Talent would work on the next discard.
"""

from __future__ import annotations

from typing import Any

from bot.fate.words import plural
from bot.games.dfccg.cards import ActionCard, BookCard, Dice, Effect, Restrict
from bot.games.dfccg.context import TYPE_NAMES, Context, probe_job
from bot.games.dfccg.state import PlainSlot, PlainTableau
from bot.games.dfccg.texts import REMOVED_AS, action_text, book_text

_TARGETED = {"attack": "Attacked", "investigate": "Investigated"}


Passives = list[tuple[BookCard, Effect]]


def restrictions(ctx: Context, slot: PlainSlot, passives: Passives | None = None) -> list[str]:
    """Why players cannot add tokens to (or act on) this card now, one reason per source
    (``passives``: the Book cards' lasting effects, when the caller has them already)."""
    reasons = []
    for source, effect in ctx.passives() if passives is None else passives:
        if not isinstance(effect, Restrict) or effect.target is None:
            continue
        if not ctx.matches(effect.target, slot):
            continue
        until = f"until {source.name} is {REMOVED_AS[source.type]}"
        if source.id == slot.card_id:
            until = "while its own condition holds"
        if effect.what in ("receive_hits", "receive_clues"):
            noun = "Hits" if effect.what == "receive_hits" else "Clues"
            reasons.append(f"cannot receive {noun} {until}")
        else:
            who = {"all": "", "harry": " by Harry", "not_harry": " except by Harry"}
            verb = _TARGETED.get(effect.what, f"targeted by {TYPE_NAMES[effect.what]}")
            reasons.append(f"cannot be {verb}{who[effect.characters]} {until}")
    return reasons


def _where(ctx: Context, card_id: str) -> str:
    for row, position, slot in ctx.slots():
        if slot.card_id == card_id:
            return f"row {row + 1}, Range {position + 1}"
    return "solved" if card_id in ctx.s.solved else "out of play"


def _game_cards(ctx: Context) -> list[BookCard]:
    ids = [s.card_id for _, _, s in ctx.slots()] + ctx.s.solved + ctx.s.book_discard
    return [ctx.book(i) for i in dict.fromkeys(ids)]


def links(
    ctx: Context, card: BookCard, cards: list[BookCard] | None = None
) -> list[dict[str, Any]]:
    """Each link letter of the card with its partner cards and where they are (``cards``:
    this game's Book cards, when the caller has them already)."""
    found = []
    cards = _game_cards(ctx) if cards is None else cards
    for direction, letters in (("in", card.links_in), ("out", card.links_out)):
        for letter in letters:
            partners = [
                f"{c.name} ({_where(ctx, c.id)})"
                for c in cards
                if c.id != card.id and letter in (c.links_out if direction == "in" else c.links_in)
            ]
            found.append({"letter": letter, "dir": direction, "partners": partners})
    return found


def book_card_view(
    ctx: Context, slot: PlainSlot, position: int, shared: tuple[list[BookCard], Passives]
) -> dict[str, Any]:
    """One Book card in the rows as players see it (``shared``: the game's Book cards and
    their lasting effects, read once per view)."""
    card = ctx.book(slot)
    return {
        "uid": slot.uid,
        "range": position + 1,
        "name": card.name,
        "type": card.type,
        "value": card.value,
        "tokens": slot.tokens,
        "links_in": card.links_in,
        "links_out": card.links_out,
        "links": links(ctx, card, shared[0]),
        "text": book_text(card),
        "can_receive": ctx.can_receive(slot) if card.value else None,
        "blocked": restrictions(ctx, slot, shared[1]),
    }


def talent_note(ctx: Context, index: int, key: str) -> str:
    """Whether the Talent works now: readied, or would it do anything on a discard."""
    hero = ctx.heroes[key]
    if hero.talent_mode == "ready":
        if key in ctx.s.tableaux[index].talents_ready:
            return f"ready: unready it while playing a card for +{hero.range_bonus} Range"
        return "not ready: discard a card for Fate to ready it"
    effect = hero.talent_effect
    if effect is None:
        return ""
    # (the question a discard's Talent offer asks: see the engine's ``_offer_talents``)
    if ctx.effect_possible(probe_job(hero.talent, index, key), effect):
        return "works on a discard now"
    return "would do nothing on a discard now (no card it may target)"


# character key -> (the Character, its name, its Talent's and Stunt's name, character and
# text): what a tableau's view shows of it that never changes (read once per Character).
_CHARACTER_FACES: dict[str, tuple[Any, str, dict[str, str], dict[str, str]]] = {}


def _character_face(ctx: Context, key: str) -> tuple[Any, str, dict[str, str], dict[str, str]]:
    character = ctx.cards_char(key)
    known = _CHARACTER_FACES.get(key)
    if known is not None and known[0] is character:
        return known
    talent, stunt, name = character.talent, character.stunt, character.name
    known = _CHARACTER_FACES[key] = (
        character,
        name,
        {"name": talent.name, "character": name, "text": talent.text},
        {"name": stunt.name, "character": name, "text": stunt.text},
    )
    return known


def _tableau_view(ctx: Context, index: int, tableau: PlainTableau) -> dict[str, Any]:
    faces = [(key, _character_face(ctx, key)) for key in tableau.characters]
    hands = ctx.hands
    return {
        "seat": tableau.seat,
        "characters": [face[1] for _key, face in faces],
        "talents": [
            {
                **face[2],
                "ready": key in tableau.talents_ready,
                "note": talent_note(ctx, index, key),
            }
            for key, face in faces
        ],
        "stunts": [{**face[3], "used": key in tableau.stunts_used} for key, face in faces],
        "hand_count": len(tableau.hand),
        "deck_count": len(tableau.deck),
        "discard": [hands[r.card_id].name for r in tableau.discard],
    }


# What a seat decides about its own starting hand (variant start): which type it names, and
# whether a hand without it is drawn again. The prompt says what the hand lacks, so the table
# sees one and the same line for both (the seat's own hand shows the question).
OWN_HAND_CHOICES = frozenset({"named_type", "redraw"})


def _decision(ctx: Context) -> dict[str, Any] | None:
    decision = ctx.s.decision
    if decision is None:
        return None
    if decision.kind in OWN_HAND_CHOICES:
        who = ctx.char_names(ctx.s.tableaux[ctx.s.active])
        return {
            "kind": "starting_hand",
            "prompt": f"{who}: choosing a starting hand.",
            "table": False,
        }
    shown: dict[str, Any] = {
        "kind": decision.kind,
        "prompt": decision.prompt,
        "table": decision.table or decision.seats is not None,
    }
    if decision.kind != "talent":
        shown["options"] = list(decision.options.values())
    return shown


def _showdown(ctx: Context) -> dict[str, Any]:
    showdown = ctx.showdown()
    return {
        "name": showdown.name,
        "text": showdown.text,
        "foe": [t.model_dump(mode="json") for t in showdown.foe],
        "case": [t.model_dump(mode="json") for t in showdown.case],
        "queue": [ctx.book(ctx.located(u)[2]).name for u in ctx.s.showdown_queue if ctx.find(u)],
    }


def public_view(
    ctx: Context, game: str, result: str | None, players: dict[int, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Everything every player may see (no hand card), with its explanations (``players``:
    the views of some tableaux by index, when the caller has them already)."""
    state = ctx.s
    known = players or {}
    active = state.tableaux[state.active]
    solo = len(state.seats) == 1
    shared = (_game_cards(ctx), list(ctx.passives()))
    return {
        "game": game,
        "book": state.book_name,
        "phase": state.phase,
        "turn": state.turn,
        "active_seat": active.seat,
        "active_characters": [ctx.cards_char(k).name for k in active.characters],
        "solo": solo,
        "active_hand": state.active + 1 if solo else None,
        "fate": {"available": state.available, "spent": state.spent},
        "supply": {"hits": state.hit_supply, "clues": state.clue_supply},
        "rows": [
            [book_card_view(ctx, slot, position, shared) for position, slot in enumerate(row)]
            for row in state.rows
        ],
        "solved": [ctx.book(c).name for c in state.solved],
        "book_discard": [ctx.book(c).name for c in state.book_discard],
        "showdown": _showdown(ctx),
        "players": [
            known[i] if i in known else _tableau_view(ctx, i, t)
            for i, t in enumerate(state.tableaux)
        ],
        "decision": _decision(ctx),
        "result": result,
    }


def cost_note(ctx: Context, index: int, card: ActionCard) -> str:
    """Why the cost to pay differs from the printed one ("" when it does not)."""
    changes = ctx.cost_changes(index, card)
    return ", ".join(f"{'+' if n > 0 else ''}{n} from {name}" for name, n in changes)


def discard_note(ctx: Context, discard: Dice) -> str:
    """A discard moves Fate from Spent: say when the Spent pool holds less than it gives."""
    spent = ctx.s.spent
    if spent == 0:
        return "gives no Fate now: the Spent pool is empty"
    if spent < discard.maximum:
        return f"gives at most {spent} Fate now: only {spent} in the Spent pool"
    return ""


def owner_name(ctx: Context, index: int, card: ActionCard) -> str:
    """The character whose deck the card comes from."""
    for key in ctx.s.tableaux[index].characters:
        character = ctx.cards_char(key)
        if any(c.id == card.id for c in character.cards):
            return character.name
    return ""


# (id of the card, the tableau's characters) -> (the card, what of its view never changes):
# the card is kept with it so that its id cannot be reused while the entry lives.
_CARD_FACES: dict[tuple[int, tuple[str, ...]], tuple[ActionCard, dict[str, Any]]] = {}
CARD_FACES_KEPT = 4096


def _card_face(ctx: Context, index: int, card: ActionCard) -> dict[str, Any]:
    """The parts of a hand card's view that follow from the card and its deck alone."""
    key = (id(card), tuple(ctx.s.tableaux[index].characters))
    known = _CARD_FACES.get(key)
    if known is not None and known[0] is card:
        return known[1]
    face = {
        "name": card.name,
        "type": card.type,
        "type_name": TYPE_NAMES[card.type],
        "owner": owner_name(ctx, index, card),
        "printed_cost": str(card.cost),
        "discard": str(card.discard),
        "range": str(card.range),
        "value": str(card.value) if card.value else None,
        "value_noun": plural(str(card.value), "Hit" if card.type == "attack" else "Clue")
        if card.value and card.type in ("attack", "investigate")
        else None,
        "text": action_text(card),
    }
    if len(_CARD_FACES) >= CARD_FACES_KEPT:
        _CARD_FACES.clear()
    _CARD_FACES[key] = (card, face)
    return face


def hand_card_view(ctx: Context, index: int, uid: str, card: ActionCard) -> dict[str, Any]:
    """One card of a hand, with what it costs now and why."""
    face = _card_face(ctx, index, card)
    if ctx.cost_modifiers_or_none(index) is None:  # the printed cost, as nearly always
        cost, note = face["printed_cost"], ""
    else:
        cost, note = str(ctx.cost(index, card)), cost_note(ctx, index, card)
    return {
        "uid": uid,
        **face,
        "cost": cost,
        "cost_note": note,
        "discard_note": discard_note(ctx, card.discard),
    }


def own_question(ctx: Context, seat: str) -> str | None:
    """The question about its own starting hand this seat answers now (the table sees only
    that it is choosing)."""
    decision = ctx.s.decision
    if decision is None or decision.kind not in OWN_HAND_CHOICES:
        return None
    return decision.prompt if ctx.s.tableaux[ctx.s.active].seat == seat else None


def hands_of(ctx: Context, seat: str) -> list[dict[str, Any]]:
    """The hands this seat holds (two decks in a 2-player game, three hands solo)."""
    hands = []
    for index, tableau in enumerate(ctx.s.tableaux):
        if tableau.seat != seat:
            continue
        cards = []
        for ref in tableau.hand:
            card = ctx.cards[ref.card_id]
            assert isinstance(card, ActionCard)
            cards.append(hand_card_view(ctx, index, ref.uid, card))
        hands.append(
            {
                "characters": [ctx.cards_char(k).name for k in tableau.characters],
                "keys": list(tableau.characters),  # a copy: the state read may be a stored one
                "index": index,
                "active": index == ctx.s.active,
                "hand": cards,
            }
        )
    return hands


def seat_tableaux(ctx: Context, seat: str) -> dict[int, dict[str, Any]]:
    """The views of the tableaux this seat plays, by index (public: the board shows them too)."""
    return {i: _tableau_view(ctx, i, t) for i, t in enumerate(ctx.s.tableaux) if t.seat == seat}


def hand_view(
    ctx: Context, seat: str, players: dict[int, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """What a seat's hand shows of its private view: its hands, its own Talents and Stunts and
    the Fate pools (the rest is on the board, whose public view is built only when the board
    is drawn). The display's hand fields are the same from this as from the whole view
    (``players``: `seat_tableaux`, when the caller has it already)."""
    state = ctx.s
    mine = seat_tableaux(ctx, seat) if players is None else players
    return {
        "phase": state.phase,
        "turn": state.turn,
        "solo": len(state.seats) == 1,
        "fate": {"available": state.available, "spent": state.spent},
        "players": list(mine.values()),
        "hands": hands_of(ctx, seat),
        "question": own_question(ctx, seat),
    }
