"""The rules' hot path as plain data: each physical card of a pack as a slotted object, with the
moves that name it, made once per pack; and the moves that name no card, made once.

The move lists (``VampireEmpireEngine.moves``) and the AI read these; ``legal_actions`` turns a
move into the pydantic Action the table shows. A move is shared by every state that offers it:
nothing changes one.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from bot.games.base import Action, Move
from bot.games.vampire_empire.cards import CHARACTERS, HAND_SIZE, NAMES, CardDef, load_packs

# A card counts in a fight when its bits meet the bits the fight asks for (``fight_bits``): the
# fighter's profession, and holy water or vampire when the rules let them count.
PROFESSION_BITS = {"noble": 1, "clergy": 2, "servant": 4}
HOLY_WATER_BIT = 8
VAMPIRE_BIT = 16
CHARACTER_BITS = tuple(PROFESSION_BITS[profession] for _, profession in CHARACTERS)


def the(character: int) -> str:
    """A character's name as a sentence uses it ("the Priest")."""
    return f"the {NAMES[character]}"


class SharedMove(Move):
    """A move made once (for a pack, or for every game) and offered by every state that offers
    it: its Action is made once too, and shared (nothing changes an Action once made)."""

    __slots__ = ("_action",)

    def __init__(
        self, id: str, label: str, kind: str, private: bool = False, info: object = None
    ) -> None:
        super().__init__(id, label, kind, private, info=info)
        self._action: Action | None = None

    def action(self) -> Action:
        made = self._action
        if made is None:
            made = self._action = super().action()
        return made


class Card:
    """One physical card (its number, 0-79, is what the state stores) as plain data."""

    __slots__ = (
        "bits",
        "cancel",
        "discard",
        "effect",
        "give_up",
        "holy_water",
        "id",
        "markers",
        "marker",
        "name",
        "number",
        "pile",
        "play",
        "professions",
        "take",
        "take_from",
        "timing",
        "vampire",
        "value",
    )

    def __init__(self, number: int, definition: CardDef) -> None:
        support = definition.support
        self.number = number
        self.id = definition.id  # copies of a card share it: they are the same choice
        self.name = name = definition.name
        self.value = definition.value
        self.professions = tuple(definition.professions)
        self.holy_water = definition.holy_water
        self.vampire = definition.vampire
        self.timing = definition.timing
        self.effect = support.effect if support is not None else None
        self.marker = support.marker if support is not None else None
        self.pile = support.pile if support is not None else None
        bits = 0
        if support is None:  # a support card never counts in a fight
            for profession in definition.professions:
                bits |= PROFESSION_BITS[profession]
            bits |= HOLY_WATER_BIT if definition.holy_water else 0
            bits |= VAMPIRE_BIT if definition.vampire else 0
        self.bits = bits
        self.discard: Move = SharedMove(
            f"x:{number}", f"Discard {name}", "discard", True, info=number
        )
        self.play: Move = SharedMove(
            f"p:{number}", f"Add {name} ({self.value})", "play", True, info=number
        )
        self.take: Move = SharedMove(f"k:{number}", f"Take {name}", "take", True, info=number)
        self.give_up: Move = SharedMove(
            f"d:{number}", f"No action possible: discard {name}", "pass", True, info=number
        )
        # the moves of a support card's effect, None (or none) for the other cards
        self.cancel: Move | None = None
        self.take_from: Move | None = None
        self.markers: tuple[Move, ...] = ()  # by character: info (card, character)
        if self.effect == "cancel":
            self.cancel = SharedMove(
                f"n:{number}", f"Play {name}: end this combat", "support", True, info=number
            )
        elif self.effect == "take":
            self.take_from = SharedMove(
                f"t:{number}",
                f"Play {name}: take a card from your {self.pile}",
                "support",
                True,
                info=number,
            )
        elif self.effect == "marker":
            self.markers = tuple(
                SharedMove(
                    f"m:{number}:{character}",
                    f"Play {name}: +1 {self.marker} on {the(character)}",
                    "support",
                    True,
                    info=(number, character),
                )
                for character in range(len(NAMES))
            )


Cards = tuple[Card, ...]


@cache
def plain_cards(pack_key: str) -> Cards:
    """Every physical card of a shipped pack, by number (the pack must exist)."""
    return tuple(
        Card(number, definition)
        for number, definition in enumerate(load_packs()[pack_key].instances())
    )


def distinct(numbers: list[int], cards: Sequence[Card]) -> list[int]:
    """One card per kind (copies of a card are the same choice), lowest number first. The
    copies of a card have numbers in a row (``Pack.instances``), so in order they come
    together."""
    found = []
    last = None
    for number in sorted(numbers):
        kind = cards[number].id
        if kind != last:
            found.append(number)
            last = kind
    return found


DRAW = SharedMove("draw", f"Draw up to {HAND_SIZE} and go on", "draw")
TAKE_NOTHING = SharedMove("k:none", "Take nothing", "take")
NO_ATTACK = SharedMove("a:none", "Do not attack", "pass")
BACK = SharedMove("back", "Back: choose another action", "pass", True)
PASS = SharedMove("pass", "No action possible: pass", "pass")
REVEAL = tuple(
    SharedMove(f"r:{c}", f"Reveal {the(c)} as a vampire", "reveal", True, info=c)
    for c in range(len(NAMES))
)
HIDE = tuple(
    SharedMove(f"h:{c}", f"Hide {the(c)} in the city (3 vampire cards)", "hide", info=c)
    for c in range(len(NAMES))
)
# by character and whether it is in the castle: info (character, in the castle)
HOLY_WATER = tuple(
    tuple(
        SharedMove(
            f"w:{c}",
            f"Holy water on {the(c)} ({'castle' if in_castle else 'city'})",
            "holy_water",
            info=(c, in_castle),
        )
        for in_castle in (False, True)
    )
    for c in range(len(NAMES))
)
# by attacker and target: info (attacker, target)
FIGHT: tuple[tuple[Move, ...], ...] = tuple(
    tuple(
        SharedMove(f"c:{a}:{t}", f"{the(a).capitalize()} attacks {the(t)}", "combat", info=(a, t))
        for t in range(len(NAMES))
    )
    for a in range(len(NAMES))
)
_DONE: dict[tuple[bool, int], Move] = {}


def done(attacking: bool, total: int) -> Move:
    """The move that ends a fighter's step, showing its total."""
    found = _DONE.get((attacking, total))
    if found is None:
        label = f"Done: attack {total}" if attacking else f"Done: defence {total}"
        found = _DONE[(attacking, total)] = SharedMove("done", label, "done")
    return found
