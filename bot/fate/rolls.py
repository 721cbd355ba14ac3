"""A skill roll as pure state: 4dF + skill + modifiers, then invokes, teamwork and scale.

A `Roll` stays open after the dice hit the table so that aspects can be invoked on it (the
roll message's buttons). Every operation returns a new `Roll` plus events; the events tell the
service what to pay (fate points, free invokes) so it can debit the ledger in the same
transaction. This module never moves a fate point itself.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from pydantic import BaseModel, Field

from bot.errors import RuleError
from bot.fate.dice import roll_fate_dice
from bot.fate.outcomes import Outcome, OutcomeKind, outcome

INVOKE_BONUS = 2
FATE_DICE_PER_ROLL = 4
MAX_MODIFIERS = 10
MAX_LABEL_LENGTH = 100


class RollError(RuleError):
    """A roll operation the rules do not allow."""


class RollClosedError(RollError):
    """The roll no longer takes invokes."""


class Action(StrEnum):
    OVERCOME = "overcome"
    CREATE_ADVANTAGE = "create_advantage"
    ATTACK = "attack"
    DEFEND = "defend"


class InvokeMode(StrEnum):
    BONUS = "+2"
    REROLL = "reroll"


class Payment(StrEnum):
    FATE_POINT = "fate_point"
    FREE_INVOKE = "free_invoke"


class Side(StrEnum):
    """Which side of a roll an adjustment helps."""

    ROLLER = "roller"
    OPPOSITION = "opposition"


class ScaleLevel(IntEnum):
    MUNDANE = 0
    SUPERNATURAL = 1
    OTHERWORLDLY = 2
    LEGENDARY = 3
    GODLIKE = 4

    @property
    def label(self) -> str:
        return self.name.capitalize()


class ScaleMode(StrEnum):
    BEFORE_ROLL = "before_roll"  # +1 per level
    AFTER_SUCCESS = "after_success"  # +2 per level, only if the roll succeeds
    EXTRA_FREE_INVOKES = "extra_free_invokes"  # +1 free invoke per level on a won advantage


class Roller(BaseModel):
    character_id: int | None = None  # None for a plain roll without a character
    user_id: int | None = None
    name: str


class Modifier(BaseModel):
    label: str
    value: int


class Invoke(BaseModel):
    invoker_id: int  # the user who clicked
    invoker_name: str
    aspect_key: str
    aspect_name: str
    mode: InvokeMode
    payment: Payment
    hostile: bool = False
    is_boost: bool = False
    # Who pays: the invoker's character for a fate point, or the holder of the free invoke
    # (the invoker or an ally passing theirs).
    payer_id: int
    # whose aspect it was invoked against (a hostile invoke): its fate point is owed to them
    aspect_owner_id: int | None = None
    # where `aspect_name` stands in for a GM-hidden aspect: its real name, for the GM's copy
    gm_aspect_name: str | None = None
    dice_before: list[int] | None = None
    dice_after: list[int] | None = None

    @property
    def bonus(self) -> int:
        return INVOKE_BONUS if self.mode is InvokeMode.BONUS else 0


class TeamworkHelp(BaseModel):
    helper_id: int
    helper_name: str
    helper_rating: int
    bonus: int  # 0 when the cap is already reached


class ScaleAdjustment(BaseModel):
    levels: int = Field(ge=1, le=ScaleLevel.GODLIKE - ScaleLevel.MUNDANE)
    mode: ScaleMode
    side: Side = Side.ROLLER


class AdvantageTarget(BaseModel):
    """What a create-an-advantage roll aims at; the scene applies it when the roll resolves."""

    text: str  # the new aspect's text, or the existing aspect's name
    key: str | None = None  # an existing aspect's key (scene:<channel>:<id>); None for a new one
    # A new aspect whose text a GM-hidden aspect already has: made, it discovers that one
    # (its key, never shown: to the table the roll is on a new aspect like any other).
    discovers: str | None = None
    zone: str | None = None  # a new aspect's zone key
    hidden: bool = False  # a GM-hidden aspect: the roll is hidden too
    # What a failure on a new aspect does, chosen when the roll was made (`/advantage on_fail`);
    # neither: its roller chooses once it fails (`failure_is_rollers_choice`).
    enemy_on_fail: bool = False  # created, with its free invoke for the enemy
    not_created_on_fail: bool = False
    resolved: bool = False
    result: str = ""  # what happened, once resolved


class Roll(BaseModel):
    roller: Roller
    skill: str | None = None
    skill_rating: int = 0
    action: Action | None = None
    description: str = ""
    modifiers: list[Modifier] = Field(default_factory=list)
    dice: list[int]
    difficulty: int | None = None
    opposition_effort: int | None = None  # an opposing roll's effort (active opposition)
    invokes: list[Invoke] = Field(default_factory=list)
    teamwork: list[TeamworkHelp] = Field(default_factory=list)
    scale: list[ScaleAdjustment] = Field(default_factory=list)
    hidden: bool = False
    closed: bool = False
    advantage: AdvantageTarget | None = None  # a create-an-advantage roll's target
    voided: bool = False  # taken back as a mistake: it counts for nothing
    void_note: str = ""  # what voiding it gave back
    owed_paid: bool = False  # its scene's end paid what its invokes owed their aspects' owners

    # --- derived numbers -------------------------------------------------------------------
    @property
    def dice_total(self) -> int:
        return sum(self.dice)

    @property
    def teamwork_bonus(self) -> int:
        return sum(h.bonus for h in self.teamwork)

    def _scale_total(self, side: Side, mode: ScaleMode) -> int:
        if not self.scale:  # the usual roll: no generator to run
            return 0
        return sum(s.levels for s in self.scale if s.side is side and s.mode is mode)

    def effort_before_scale_success(self) -> int:
        """Effort without the +2-per-level scale bonus that only counts after a success."""
        return (
            self.skill_rating
            + self.dice_total
            + sum(m.value for m in self.modifiers)
            + sum(i.bonus for i in self.invokes if not i.hostile)
            + self.teamwork_bonus
            + self._scale_total(Side.ROLLER, ScaleMode.BEFORE_ROLL)
        )

    def opposition(self) -> int | None:
        """The number to beat: difficulty or opposing effort, plus hostile invokes and scale."""
        base = self.opposition_effort if self.opposition_effort is not None else self.difficulty
        if base is None:
            return None
        hostile = sum(i.bonus for i in self.invokes if i.hostile)
        return base + hostile + self._scale_total(Side.OPPOSITION, ScaleMode.BEFORE_ROLL)

    def effort(self) -> int:
        return self._effort_against(self.opposition())

    def _effort_against(self, target: int | None) -> int:
        """The effort, given the roll's `opposition()` (computed once by the caller)."""
        effort = self.effort_before_scale_success()
        levels = self._scale_total(Side.ROLLER, ScaleMode.AFTER_SUCCESS)
        if levels and target is not None:
            effort += scale_bonus_after_roll(levels, effort - target > 0)
        return effort

    def result(self) -> Outcome | None:
        """The outcome against the difficulty or opposition, or None when there is neither."""
        target = self.opposition()
        return None if target is None else outcome(self._effort_against(target), target)

    def failure_is_rollers_choice(self) -> bool:
        """A create-an-advantage roll on a new aspect, failing now, whose failure nobody chose
        beforehand: its roller chooses (the seed: "you either don't create the aspect, or
        you create it but someone else gets the free invoke")."""
        aim = self.advantage
        if aim is None or aim.key is not None or aim.enemy_on_fail or aim.not_created_on_fail:
            return False
        result = self.result()
        return result is not None and result.kind is OutcomeKind.FAIL

    def extra_free_invokes(self) -> int:
        """Free invokes scale adds to a successful create-an-advantage."""
        levels = self._scale_total(Side.ROLLER, ScaleMode.EXTRA_FREE_INVOKES)
        result = self.result()
        return scale_extra_free_invokes(
            levels, self.action, result is not None and result.succeeded
        )

    def paid_aspect_keys(self) -> set[str]:
        return {_aspect_id(i.aspect_key) for i in self.invokes if i.payment is Payment.FATE_POINT}


def _aspect_id(key: str) -> str:
    return key.strip().casefold()


# --- events ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rolled:
    dice: tuple[int, ...]
    effort: int


@dataclass(frozen=True)
class FatePointToSpend:
    """The service must take one fate point from `payer_id` (in the same transaction)."""

    payer_id: int
    aspect_key: str
    reason: str


@dataclass(frozen=True)
class FreeInvokeToSpend:
    """The service must remove one free invoke on `aspect_key` held by `holder_id`."""

    holder_id: int
    aspect_key: str
    is_boost: bool  # a used boost vanishes


@dataclass(frozen=True)
class FatePointOwed:
    """A hostile invoke's fate point goes to the aspect's owner when the scene/conflict ends."""

    owner_id: int
    aspect_key: str


@dataclass(frozen=True)
class DiceRerolled:
    before: tuple[int, ...]
    after: tuple[int, ...]


@dataclass(frozen=True)
class InvokeApplied:
    invoke_index: int
    effort: int


@dataclass(frozen=True)
class TeamworkAdded:
    helper_id: int
    bonus: int
    capped: bool  # the helper joined but the team bonus was already at its cap


@dataclass(frozen=True)
class ScaleApplied:
    levels: int
    mode: ScaleMode
    side: Side


@dataclass(frozen=True)
class ModifierAdded:
    label: str
    value: int


@dataclass(frozen=True)
class RollClosed:
    pass


@dataclass(frozen=True)
class FreeInvokeToReturn:
    """The service must give `holder_id` back the free invoke a voided roll used on `aspect_key`."""

    holder_id: int
    aspect_key: str
    aspect_name: str
    is_boost: bool  # a used boost is gone: it cannot come back


@dataclass(frozen=True)
class RollVoided:
    pass


RollEvent = (
    Rolled
    | FatePointToSpend
    | FreeInvokeToSpend
    | FatePointOwed
    | DiceRerolled
    | InvokeApplied
    | TeamworkAdded
    | ScaleApplied
    | ModifierAdded
    | RollClosed
    | FreeInvokeToReturn
    | RollVoided
)


# --- operations ----------------------------------------------------------------------------


def make_roll(
    rng: random.Random,
    roller: Roller,
    *,
    skill: str | None = None,
    skill_rating: int = 0,
    modifiers: Sequence[Modifier] = (),
    difficulty: int | None = None,
    opposition_effort: int | None = None,
    action: Action | None = None,
    description: str = "",
    hidden: bool = False,
) -> tuple[Roll, list[RollEvent]]:
    """Roll 4dF for a skill (or a plain modifier when `skill` is None)."""
    if difficulty is not None and opposition_effort is not None:
        raise RollError("Give either a difficulty or an opposing roll, not both.")
    if len(modifiers) > MAX_MODIFIERS:
        raise RollError(f"Use at most {MAX_MODIFIERS} extra modifiers on one roll.")
    roll = Roll(
        roller=roller,
        skill=skill,
        skill_rating=skill_rating,
        modifiers=list(modifiers),
        dice=roll_fate_dice(rng, FATE_DICE_PER_ROLL),
        difficulty=difficulty,
        opposition_effort=opposition_effort,
        action=action,
        description=description,
        hidden=hidden,
    )
    return roll, [Rolled(dice=tuple(roll.dice), effort=roll.effort())]


def _require_open(roll: Roll) -> None:
    if roll.closed:
        raise RollClosedError(
            "This roll is closed and takes no more invokes; make a new roll instead."
        )


def apply_invoke(
    roll: Roll,
    rng: random.Random,
    *,
    invoker_id: int,
    invoker_name: str,
    aspect_key: str,
    aspect_name: str,
    mode: InvokeMode,
    payment: Payment,
    payer_id: int | None = None,
    hostile: bool = False,
    is_boost: bool = False,
    aspect_owner_id: int | None = None,
    gm_aspect_name: str | None = None,
) -> tuple[Roll, list[RollEvent]]:
    """Invoke an aspect on the roll for +2 or a reroll of all four dice.

    Rules: one aspect may be paid for with a fate point only once per roll; free invokes on
    it stack; a boost is only ever a free invoke; a hostile invoke adds +2 to the opposition.
    """
    _require_open(roll)
    if is_boost and payment is Payment.FATE_POINT:
        raise RollError(
            f"'{aspect_name}' is a boost: use it as a free invoke; boosts cannot take a fate point."
        )
    if payment is Payment.FATE_POINT and _aspect_id(aspect_key) in roll.paid_aspect_keys():
        raise RollError(
            f"A fate point was already spent on '{aspect_name}' for this roll; "
            "invoke a different aspect or use a free invoke on it."
        )
    if hostile and mode is InvokeMode.REROLL:
        raise RollError("A hostile invoke adds +2 to the opposition; it cannot reroll the dice.")
    if hostile and roll.opposition() is None:
        raise RollError(
            "A hostile invoke needs a difficulty or an opposing roll to add to; set one first."
        )
    payer = invoker_id if payer_id is None else payer_id
    events: list[RollEvent] = []
    dice_before = dice_after = None
    new_dice = list(roll.dice)
    if mode is InvokeMode.REROLL:
        dice_before = list(roll.dice)
        new_dice = roll_fate_dice(rng, FATE_DICE_PER_ROLL)
        dice_after = list(new_dice)
    invoke = Invoke(
        invoker_id=invoker_id,
        invoker_name=invoker_name,
        aspect_key=aspect_key,
        aspect_name=aspect_name,
        mode=mode,
        payment=payment,
        hostile=hostile,
        is_boost=is_boost,
        payer_id=payer,
        aspect_owner_id=aspect_owner_id,
        gm_aspect_name=gm_aspect_name,
        dice_before=dice_before,
        dice_after=dice_after,
    )
    if payment is Payment.FATE_POINT:
        events.append(FatePointToSpend(payer_id=payer, aspect_key=aspect_key, reason="invoke"))
        if aspect_owner_id is not None:
            events.append(FatePointOwed(owner_id=aspect_owner_id, aspect_key=aspect_key))
    else:
        events.append(FreeInvokeToSpend(holder_id=payer, aspect_key=aspect_key, is_boost=is_boost))
    if dice_before is not None and dice_after is not None:
        events.append(DiceRerolled(before=tuple(dice_before), after=tuple(dice_after)))
    new_roll = roll.model_copy(update={"dice": new_dice, "invokes": [*roll.invokes, invoke]})
    events.append(InvokeApplied(invoke_index=len(new_roll.invokes) - 1, effort=new_roll.effort()))
    return new_roll, events


def add_modifier(roll: Roll, label: str, value: int) -> tuple[Roll, list[RollEvent]]:
    """Add a stunt bonus or another situational modifier after the roll."""
    _require_open(roll)
    label = label.strip()
    if not label or len(label) > MAX_LABEL_LENGTH:
        raise RollError(f"Give the modifier a name of 1 to {MAX_LABEL_LENGTH} characters.")
    if len(roll.modifiers) >= MAX_MODIFIERS:
        raise RollError(f"This roll already has {MAX_MODIFIERS} modifiers; that is the limit.")
    new_roll = roll.model_copy(
        update={"modifiers": [*roll.modifiers, Modifier(label=label, value=value)]}
    )
    return new_roll, [ModifierAdded(label=label, value=value)]


def set_opposition(
    roll: Roll, *, difficulty: int | None = None, opposition_effort: int | None = None
) -> Roll:
    """Set (or replace) the difficulty or the opposing effort of an open roll."""
    _require_open(roll)
    if difficulty is not None and opposition_effort is not None:
        raise RollError("Give either a difficulty or an opposing roll, not both.")
    return roll.model_copy(
        update={"difficulty": difficulty, "opposition_effort": opposition_effort}
    )


def close_roll(roll: Roll) -> tuple[Roll, list[RollEvent]]:
    """Stop taking invokes (the roller closed it, or the character rolled again)."""
    if roll.closed:
        return roll, []
    return roll.model_copy(update={"closed": True}), [RollClosed()]


def void_roll(roll: Roll) -> tuple[Roll, list[RollEvent]]:
    """Take a mistaken roll back: it closes, counts for nothing, and every free invoke spent on
    it is owed back to its holder (the fate points come back through the ledger)."""
    if roll.voided:
        raise RollError("This roll is already void; nothing more comes back.")
    if roll.advantage is not None and roll.advantage.resolved:
        raise RollError(
            "This roll's advantage is already on the scene, so it cannot be voided; remove the "
            "aspect with `/aspect remove` if it was a mistake."
        )
    if roll.owed_paid:
        raise RollError(
            "The end of its scene already paid the fate points this roll's invokes owed to "
            "whose aspects were invoked against them, so it cannot be voided; set fate points "
            "right with `/fp give` or `/fp take` if it was a mistake."
        )
    events: list[RollEvent] = [
        FreeInvokeToReturn(
            holder_id=i.payer_id,
            aspect_key=i.aspect_key,
            aspect_name=i.aspect_name,
            is_boost=i.is_boost,
        )
        for i in roll.invokes
        if i.payment is Payment.FREE_INVOKE
    ]
    events.append(RollVoided())
    return roll.model_copy(update={"voided": True, "closed": True}), events


# --- active opposition -------------------------------------------------------------------


def compare_rolls(acting: Roll, opposing: Roll) -> Outcome:
    """Active opposition: the acting roll's effort against the opposing roll's effort."""
    return outcome(acting.effort(), opposing.effort())


def oppose(acting: Roll, opposing: Roll) -> Roll:
    """The acting roll with the opposing roll's current effort as its opposition."""
    return set_opposition(acting, opposition_effort=opposing.effort())


# --- teamwork ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Teamwork:
    """Who rolls and what the others add, for a combined-skill roll."""

    leader_index: int  # index into the participants: the highest skill rolls
    leader_rating: int
    contributors: tuple[int, ...]  # indexes of helpers who add +1
    bonus: int


TEAMWORK_MIN_RATING = 1  # helpers need at least Average (+1) to add anything


def teamwork(ratings: Sequence[int]) -> Teamwork:
    """Combine one skill across participants (the seed's Teamwork rule).

    The highest rating rolls; each other participant with at least Average (+1) adds +1; the
    total bonus never exceeds the roller's rating. Ties for highest: the first one rolls.
    """
    if not ratings:
        raise RollError("Teamwork needs at least one participant.")
    leader = max(range(len(ratings)), key=lambda i: (ratings[i], -i))
    leader_rating = ratings[leader]
    helpers = tuple(i for i, r in enumerate(ratings) if i != leader and r >= TEAMWORK_MIN_RATING)
    cap = max(leader_rating, 0)
    contributors = helpers[:cap]
    return Teamwork(
        leader_index=leader,
        leader_rating=leader_rating,
        contributors=contributors,
        bonus=len(contributors),
    )


def add_teamwork(
    roll: Roll, *, helper_id: int, helper_name: str, helper_rating: int
) -> tuple[Roll, list[RollEvent]]:
    """An ally adds +1 with the same skill (the "Teamwork +1" button).

    The roller must be the highest rated; helpers below Average add nothing, and the team's
    bonus stops at the roller's rating. Helpers share the roller's costs (a service concern).
    """
    _require_open(roll)
    if roll.roller.character_id is not None and helper_id == roll.roller.character_id:
        raise RollError("You are making this roll; teamwork comes from other characters.")
    if any(h.helper_id == helper_id for h in roll.teamwork):
        raise RollError(f"{helper_name} is already helping on this roll.")
    if helper_rating < TEAMWORK_MIN_RATING:
        raise RollError(
            f"{helper_name} needs at least Average (+1) in the skill to help; "
            "create an advantage instead to pass a free invoke."
        )
    if helper_rating > roll.skill_rating:
        raise RollError(
            f"{helper_name} has a higher rating than the roller; with teamwork the highest "
            "rated character makes the roll."
        )
    bonus = 1 if roll.teamwork_bonus < max(roll.skill_rating, 0) else 0
    help_ = TeamworkHelp(
        helper_id=helper_id, helper_name=helper_name, helper_rating=helper_rating, bonus=bonus
    )
    new_roll = roll.model_copy(update={"teamwork": [*roll.teamwork, help_]})
    return new_roll, [TeamworkAdded(helper_id=helper_id, bonus=bonus, capped=bonus == 0)]


# --- scale ---------------------------------------------------------------------------------


def scale_difference(higher_or_lower: ScaleLevel, other: ScaleLevel) -> int:
    """How many levels the first side is above the second (0 if not above)."""
    return max(int(higher_or_lower) - int(other), 0)


def scale_bonus_before_roll(levels: int) -> int:
    """+1 per level of difference, added to the action before the roll."""
    return max(levels, 0)


def scale_bonus_after_roll(levels: int, succeeded: bool) -> int:
    """+2 per level of difference, only when the roll succeeds."""
    return 2 * max(levels, 0) if succeeded else 0


def scale_extra_free_invokes(levels: int, action: Action | None, succeeded: bool) -> int:
    """One extra free invoke per level on a successful create-an-advantage."""
    if action is not Action.CREATE_ADVANTAGE or not succeeded:
        return 0
    return max(levels, 0)


def apply_scale(
    roll: Roll,
    *,
    roller_level: ScaleLevel,
    opposition_level: ScaleLevel,
    mode: ScaleMode,
) -> tuple[Roll, list[RollEvent]]:
    """The GM sets each side's scale level and picks the benefit for the higher side.

    The after-roll and extra-free-invoke benefits belong to the side that rolled, so they
    need the roller to be the higher side; the opposition's edge is always +1 per level.
    Setting scale again replaces the earlier setting.
    """
    _require_open(roll)
    if roller_level == opposition_level:
        new_roll = roll.model_copy(update={"scale": []})
        return new_roll, []
    if roller_level > opposition_level:
        side, levels = Side.ROLLER, scale_difference(roller_level, opposition_level)
    else:
        side, levels = Side.OPPOSITION, scale_difference(opposition_level, roller_level)
        if mode is not ScaleMode.BEFORE_ROLL:
            raise RollError(
                "The opposition is the higher scale here; its edge is +1 per level "
                "(pick 'before the roll'), or give the bonus on its own roll."
            )
    if mode is ScaleMode.EXTRA_FREE_INVOKES and roll.action is not Action.CREATE_ADVANTAGE:
        raise RollError("Extra free invokes from scale only apply to create an advantage.")
    if side is Side.OPPOSITION and roll.opposition() is None:
        raise RollError("Set a difficulty or an opposing roll before giving the opposition scale.")
    adjustment = ScaleAdjustment(levels=levels, mode=mode, side=side)
    new_roll = roll.model_copy(update={"scale": [adjustment]})
    return new_roll, [ScaleApplied(levels=levels, mode=mode, side=side)]
