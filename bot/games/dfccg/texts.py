"""What a card does, in words a player reads (pure: card data in, sentences out).

A card's own ``text`` wins; a card without one (most plain Attack or Investigate cards) gets a
sentence made from its data, so that every card a player holds or faces says what it does.
"""

from __future__ import annotations

from bot.fate.words import plural
from bot.games.dfccg.cards import (
    ActionCard,
    AddTokens,
    BookCard,
    CostModifier,
    DiceFace,
    Draw,
    Effect,
    GainFate,
    MoveCard,
    Range,
    RemoveCard,
    Restrict,
    Selector,
)

NOUNS = {"foe": "Foe", "case": "Case", "obstacle": "Obstacle", "advantage": "Advantage"}
TOKEN_NOUNS = {"foe": "Hit", "case": "Clue"}
# What removes a Book card from the rows, as a participle ("until X is solved").
REMOVED_AS = {"foe": "defeated", "case": "solved", "obstacle": "overcome", "advantage": "taken"}
ACTION_VERBS = {
    "attack": "Attack",
    "investigate": "Investigate",
    "overcome": "Overcome",
    "advantage": "Take Advantage of",
}
_FACES = {1: "a plus", 0: "a blank", -1: "a minus"}
_SCOPES = {"all": "", "harry": "Harry's ", "not_harry": "everyone but Harry's "}


def reach_text(card_range: Range) -> str:
    """Where an action card reaches: "at Range 1", "up to Range 3", "at any Range"."""
    if card_range.unlimited:
        return "at any Range"
    if card_range.value.dice:
        return f"up to Range {card_range.value} (rolled)"
    return "at Range 1" if card_range.value.base == 1 else f"up to Range {card_range.value}"


def _types(selector: Selector) -> str:
    names = [NOUNS[t] for t in selector.types] or ["Book card"]
    return " or ".join(names)


def _token_noun(selector: Selector) -> str:
    kinds = {t for t in selector.types if t in TOKEN_NOUNS}
    return TOKEN_NOUNS[kinds.pop()] if len(kinds) == 1 else "token"


def selector_text(selector: Selector, reach: str = "") -> str:
    """The cards an effect touches, e.g. "the Case at the shortest Range (any Range)"."""
    what = _types(selector)
    pick = selector.pick
    if pick == "same":
        return "that card"
    if pick == "self":
        return "this card"
    phrase = {
        "chosen": f"one {what}",
        "all": f"every {what}",
        "row": f"every {what} in one row",
        "shortest": f"the {what} at the shortest Range",
        "longest": f"the {what} at the longest Range",
    }[pick]
    noun = _token_noun(selector)
    phrase += {
        "any": "",
        "no_tokens": f" with no {noun}s",
        "has_tokens": f" that has {noun}s",
        "would_remove": " that those tokens remove",
    }[selector.condition]
    if selector.link:
        phrase += f" linked by {selector.link}"
    if selector.name_contains:
        phrase += f" named with “{selector.name_contains}”"
    if not selector.within_range:
        return phrase + " (any Range)"
    return f"{phrase} {reach}".rstrip()


def effect_text(effect: Effect, value: str = "", reach: str = "") -> str:
    """One effect as a sentence; ``value`` is the card's Hits/Clues when the effect uses it."""
    if isinstance(effect, AddTokens):
        amount = str(effect.amount) if effect.amount is not None else value
        noun = _token_noun(effect.target)
        return f"Put {plural(amount, noun)} on {selector_text(effect.target, reach)}."
    if isinstance(effect, RemoveCard):
        return f"Remove {selector_text(effect.target, reach)}."
    if isinstance(effect, MoveCard):
        where = {
            "longest": "to the longest Range of its row",
            "shortest": "to the shortest Range of its row",
            "step": "one space nearer or farther",
        }[effect.to]
        return f"Move {selector_text(effect.target, reach)} {where}."
    if isinstance(effect, Draw):
        return f"Draw {plural(effect.count, 'card')}."
    if isinstance(effect, GainFate):
        each = (
            " for each Book card in the rows that carries tokens" if effect.per_tokened_card else ""
        )
        return f"Gain {effect.amount} Fate{each}."
    return passive_text(effect)


def passive_text(effect: Effect) -> str:
    """A Book card's lasting effect while it is in the rows."""
    if isinstance(effect, Restrict):
        who = _SCOPES[effect.characters]
        if effect.what in ("receive_hits", "receive_clues"):
            noun = "Hits" if effect.what == "receive_hits" else "Clues"
            target = selector_text(effect.target) if effect.target else "no card"
            return f"{target[0].upper()}{target[1:]} cannot receive {noun}."
        cards = f"{who}{ACTION_VERBS[effect.what].split(' ')[0]} cards"
        if effect.target is None:
            return f"{cards[0].upper()}{cards[1:]} cannot be played."
        return f"{cards[0].upper()}{cards[1:]} cannot target {selector_text(effect.target)}."
    if isinstance(effect, DiceFace):
        rolls = "" if len(effect.rolls) >= 5 else " rolled for " + " or ".join(effect.rolls)
        return f"{_FACES[effect.from_face].capitalize()} on a Fate die{rolls} counts as {_FACES[effect.to_face]}."
    if isinstance(effect, CostModifier):
        kinds = " and ".join(ACTION_VERBS[a].split(" ")[0] for a in effect.actions)
        change = f"{abs(effect.amount)} Fate {'more' if effect.amount > 0 else 'less'}"
        return f"{_SCOPES[effect.characters]}{kinds} cards cost {change}.".capitalize()
    return ""


def action_text(card: ActionCard) -> str:
    """What playing the card does (its own text, or one made from its data)."""
    if card.text:
        return card.text
    value = str(card.value) if card.value else ""
    reach = reach_text(card.range)
    if card.effects:
        parts = [effect_text(e, value, reach) for e in card.effects]
    elif card.type in ("attack", "investigate"):
        noun = "Hit" if card.type == "attack" else "Clue"
        kind = "Foe" if card.type == "attack" else "Case"
        parts = [f"Put {plural(value, noun)} on one {kind} {reach}."]
    elif card.type == "overcome":
        parts = [f"Overcome one Obstacle {reach}: it leaves the rows."]
    else:
        parts = [f"Take one Advantage {reach}: its effect happens at once."]
    parts += [effect_text(e, value, reach) for e in card.extra]
    return " ".join(parts)


def book_text(card: BookCard) -> str:
    """A Book card's text (its own, or one made from its effects; empty for a plain card)."""
    if card.text:
        return card.text
    parts = [passive_text(e) for e in card.passive]
    taken = [effect_text(e) for e in card.on_removed]
    if taken:
        parts.append(f"When {REMOVED_AS[card.type]}: " + " ".join(taken))
    return " ".join(p for p in parts if p)
