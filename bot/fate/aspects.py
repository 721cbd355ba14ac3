"""Aspects, free invokes, boosts and the create-an-advantage outcomes.

Free invokes are a list of holders (a character id or "gm"), one entry per invoke, so that a
holder can pass one to an ally and the board can show who holds what.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, field_validator

from bot.errors import RuleError
from bot.fate.outcomes import OutcomeKind as OutcomeKind  # re-exported for the play modules
from bot.fate.outcomes import outcome as compare
from bot.fate.words import plural

GM = "gm"
CHARACTER_HOLDER = "char"
MAX_ASPECT_TEXT = 80
MAX_FREE_INVOKES = 10


def character_holder(character_id: int) -> str:
    """How a character is named as a holder of free invokes ("char:<id>"; the GM side is GM)."""
    return f"{CHARACTER_HOLDER}:{character_id}"


def holder_character_id(holder: str) -> int | None:
    """The character id of a "char:<id>" holder, else None (the GM side, or anything else)."""
    head, _, tail = holder.partition(":")
    return int(tail) if head == CHARACTER_HOLDER and tail.isdigit() else None


class AspectError(RuleError):
    """An aspect action the rules do not allow."""


class Event(BaseModel):
    """Something that happened, for the renderer and the log. Never Discord-formatted."""

    kind: str
    text: str
    who: str | None = None
    data: dict[str, int | str | bool | None] = Field(default_factory=dict)


def classify(effort: int, opposition: int) -> OutcomeKind:
    """The outcome kind of an effort against a difficulty or an opposing effort."""
    return compare(effort, opposition).kind


class AspectKind(StrEnum):
    GAME = "game"  # campaign-long
    SITUATION = "situation"  # lasts while the scene's situation does
    ZONE = "zone"  # a situation aspect tied to one zone
    CHARACTER = "character"
    CONSEQUENCE = "consequence"
    CONDITION = "condition"
    BOOST = "boost"  # one free invoke, then gone; never outlives the scene


class Aspect(BaseModel):
    id: str
    text: str
    kind: AspectKind = AspectKind.SITUATION
    owner: str | None = None  # character id, zone key, or None for the scene
    hidden: bool = False  # only the GM sees it until revealed
    free_invokes: list[str] = Field(default_factory=list)

    @field_validator("text")
    @classmethod
    def _text_fits(cls, value: str) -> str:
        cleaned = " ".join(value.split())
        if not cleaned:
            raise ValueError("An aspect needs some text.")
        if len(cleaned) > MAX_ASPECT_TEXT:
            raise ValueError(f"Keep aspects to {MAX_ASPECT_TEXT} characters or fewer.")
        return cleaned

    @field_validator("free_invokes")
    @classmethod
    def _not_too_many(cls, value: list[str]) -> list[str]:
        if len(value) > MAX_FREE_INVOKES:
            raise ValueError(f"An aspect can hold at most {MAX_FREE_INVOKES} free invokes.")
        return value

    def invokes_held_by(self, holder: str) -> int:
        return self.free_invokes.count(holder)


def new_aspect(
    aspect_id: str,
    text: str,
    kind: AspectKind = AspectKind.SITUATION,
    *,
    owner: str | None = None,
    hidden: bool = False,
    free_invokes: list[str] | None = None,
) -> Aspect:
    """Build an aspect, turning validation problems into a RuleError the user can read."""
    try:
        return Aspect(
            id=aspect_id,
            text=text,
            kind=kind,
            owner=owner,
            hidden=hidden,
            free_invokes=list(free_invokes or []),
        )
    except ValueError as exc:
        first = exc.errors()[0]["msg"] if hasattr(exc, "errors") else str(exc)
        raise AspectError(str(first).removeprefix("Value error, ")) from None


def make_boost(aspect_id: str, text: str, holder: str) -> Aspect:
    return new_aspect(aspect_id, text, AspectKind.BOOST, free_invokes=[holder])


class FailChoice(StrEnum):
    """The GM's pick when creating a new aspect fails."""

    NOT_CREATED = "not_created"
    ENEMY_INVOKE = "enemy_invoke"  # success at a cost: the aspect exists, the enemy holds it


def create_advantage_new(
    outcome: OutcomeKind,
    *,
    aspect_id: str,
    text: str,
    actor: str,
    enemy: str = GM,
    kind: AspectKind = AspectKind.SITUATION,
    owner: str | None = None,
    hidden: bool = False,
    fail_choice: FailChoice = FailChoice.NOT_CREATED,
    extra_invokes: int = 0,
) -> tuple[Aspect | None, list[Event]]:
    """Create-an-advantage on a new aspect.

    fail: nothing, or the aspect with its free invoke for the enemy (its roller's choice);
    tie: only a boost for the actor; success: one free invoke; with style: two.
    `extra_invokes` is for stunts and scale that add invokes to a success.
    """
    if outcome is OutcomeKind.FAIL:
        if fail_choice is FailChoice.NOT_CREATED:
            return None, [
                Event(kind="advantage_failed", text="The aspect is not created.", who=actor)
            ]
        aspect = new_aspect(aspect_id, text, kind, owner=owner, hidden=hidden, free_invokes=[enemy])
        return aspect, [
            Event(
                kind="aspect_created",
                text=f"{aspect.text} is created, but the enemy holds its free invoke.",
                who=enemy,
                data={"aspect": aspect.id, "invokes": 1},
            )
        ]
    if outcome is OutcomeKind.TIE:
        boost = make_boost(aspect_id, text, actor)
        return boost, [
            Event(
                kind="boost",
                text=f"A tie: {boost.text} is a boost.",
                who=actor,
                data={"aspect": boost.id},
            )
        ]
    count = (2 if outcome is OutcomeKind.SUCCESS_WITH_STYLE else 1) + max(0, extra_invokes)
    aspect = new_aspect(
        aspect_id, text, kind, owner=owner, hidden=hidden, free_invokes=[actor] * count
    )
    return aspect, [
        Event(
            kind="aspect_created",
            text=f"{aspect.text} is created with {plural(count, 'free invoke')}.",
            who=actor,
            data={"aspect": aspect.id, "invokes": count},
        )
    ]


def create_advantage_existing(
    aspect: Aspect,
    outcome: OutcomeKind,
    *,
    actor: str,
    enemy: str = GM,
    extra_invokes: int = 0,
) -> tuple[Aspect, list[Event]]:
    """Create-an-advantage on an aspect already in play.

    fail: the enemy gains a free invoke; tie or success: one more; with style: two more.
    """
    if aspect.kind is AspectKind.BOOST:
        raise AspectError("A boost cannot gain invokes. Create a new aspect instead.")
    if outcome is OutcomeKind.FAIL:
        holders, count, who = [enemy], 1, enemy
    else:
        count = (2 if outcome is OutcomeKind.SUCCESS_WITH_STYLE else 1) + max(0, extra_invokes)
        holders, who = [actor] * count, actor
    updated = _with_invokes(aspect, aspect.free_invokes + holders)
    return updated, [
        Event(
            kind="invokes_added",
            text=f"{aspect.text} gains {plural(count, 'free invoke')}.",
            who=who,
            data={"aspect": aspect.id, "invokes": count},
        )
    ]


def discover(hidden: Aspect, made: Aspect) -> tuple[Aspect, list[Event]]:
    """A create-an-advantage made an aspect the GM already had hidden under that name: it was
    there all along, so it is revealed with the free invokes the new one would have had, and
    no copy is made beside it."""
    room = max(0, MAX_FREE_INVOKES - len(hidden.free_invokes))  # the GM's may fill it
    added = made.free_invokes[:room]
    count = len(added)
    found = _with_invokes(hidden, hidden.free_invokes + added)
    for_enemy = " for the enemy" if made.free_invokes and made.free_invokes[0] == GM else ""
    return found.model_copy(update={"hidden": False}), [
        Event(
            kind="aspect_revealed",
            text=f"{hidden.text} was already there, hidden: it is revealed with "
            f"{plural(count, 'free invoke')}{for_enemy}.",
            who=made.free_invokes[0] if made.free_invokes else None,
            data={"aspect": hidden.id, "invokes": count},
        )
    ]


def _with_invokes(aspect: Aspect, holders: list[str]) -> Aspect:
    if len(holders) > MAX_FREE_INVOKES:
        raise AspectError(f"An aspect can hold at most {MAX_FREE_INVOKES} free invokes.")
    return aspect.model_copy(update={"free_invokes": holders})


def pass_free_invoke(aspect: Aspect, giver: str, receiver: str) -> tuple[Aspect, list[Event]]:
    """Hand one free invoke to an ally (boosts too, when the fiction allows)."""
    if giver == receiver:
        raise AspectError("Pick someone else to pass the free invoke to.")
    if giver not in aspect.free_invokes:
        raise AspectError(f"You hold no free invoke on {aspect.text}.")
    holders = list(aspect.free_invokes)
    holders[holders.index(giver)] = receiver
    return aspect.model_copy(update={"free_invokes": holders}), [
        Event(
            kind="invoke_passed",
            text=f"A free invoke on {aspect.text} passes to an ally.",
            who=receiver,
            data={"aspect": aspect.id, "from": giver},
        )
    ]


def spend_free_invoke(aspect: Aspect, holder: str) -> tuple[Aspect | None, list[Event]]:
    """Use one free invoke. A boost vanishes once used (returns None)."""
    if holder not in aspect.free_invokes:
        raise AspectError(
            f"You hold no free invoke on {aspect.text}. Spend a fate point to invoke it instead."
        )
    holders = list(aspect.free_invokes)
    holders.remove(holder)
    events = [
        Event(
            kind="free_invoke_used",
            text=f"Free invoke on {aspect.text} used.",
            who=holder,
            data={"aspect": aspect.id},
        )
    ]
    if aspect.kind is AspectKind.BOOST:
        events.append(
            Event(kind="boost_gone", text=f"The boost {aspect.text} is gone.", who=holder)
        )
        return None, events
    return aspect.model_copy(update={"free_invokes": holders}), events


def return_free_invoke(aspect: Aspect, holder: str) -> Aspect:
    """Give back a free invoke that was spent on a roll taken back as a mistake."""
    if aspect.kind is AspectKind.BOOST:
        raise AspectError(f"The boost {aspect.text} is gone once used; it cannot come back.")
    return _with_invokes(aspect, [*aspect.free_invokes, holder])


def check_paid_invoke(aspect: Aspect) -> None:
    """Boosts can only be invoked with their free invoke, never with a fate point."""
    if aspect.kind is AspectKind.BOOST:
        raise AspectError("A boost can only be invoked for free, by whoever holds it.")


def check_compellable(aspect: Aspect) -> None:
    if aspect.kind is AspectKind.BOOST:
        raise AspectError("Boosts cannot be compelled. Pick a real aspect.")


def reveal(aspect: Aspect) -> tuple[Aspect, list[Event]]:
    if not aspect.hidden:
        raise AspectError(f"{aspect.text} is already visible to everyone.")
    return aspect.model_copy(update={"hidden": False}), [
        Event(
            kind="aspect_revealed", text=f"{aspect.text} is revealed.", data={"aspect": aspect.id}
        )
    ]
