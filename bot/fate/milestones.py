"""Milestones: minor (one sideways change) and major (growth), validated and recorded.

Minor: swap two skills' ratings or replace an Average skill with one not on the sheet, rewrite a
stunt, buy a stunt for 1 refresh, or rewrite any aspect except the high concept.
Major: one minor change, plus: rewrite the high concept, start recovery on moderate/severe
consequences (renaming them) or clear those already recovering, and raise one skill one step
under the column rule. When the GM grants it: +1 refresh and/or a second skill step.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from bot.fate.ladder import describe
from bot.fate.sheet import ASPECT_MAX, AspectKind, Character, SheetError, clean_text
from bot.fate.skills import SkillList, column_violation, default_skills
from bot.fate.stress import MODERATE, SEVERE
from bot.fate.stunts import Stunt
from bot.fate.tracks import TrackKind


class MilestoneError(SheetError):
    """A milestone change the advancement rules do not allow."""


class MilestoneKind(StrEnum):
    MINOR = "minor"
    MAJOR = "major"


class SwapSkills(BaseModel):
    type: Literal["swap_skills"] = "swap_skills"
    first: str
    second: str


class ReplaceAverageSkill(BaseModel):
    type: Literal["replace_average_skill"] = "replace_average_skill"
    old: str
    new: str


class RewriteStunt(BaseModel):
    type: Literal["rewrite_stunt"] = "rewrite_stunt"
    name: str
    stunt: Stunt


class BuyStunt(BaseModel):
    type: Literal["buy_stunt"] = "buy_stunt"
    stunt: Stunt


class RewriteAspect(BaseModel):
    type: Literal["rewrite_aspect"] = "rewrite_aspect"
    old: str
    new: str


MinorChange = Annotated[
    SwapSkills | ReplaceAverageSkill | RewriteStunt | BuyStunt | RewriteAspect,
    Field(discriminator="type"),
]


class MilestoneRecord(BaseModel):
    """What a milestone changed, for the character's history (one line per change)."""

    kind: MilestoneKind
    character_name: str
    changes: list[str] = Field(default_factory=list)


def _apply_minor(
    character: Character, change: MinorChange, skills: SkillList
) -> tuple[Character, str]:
    if isinstance(change, SwapSkills):
        first, second = skills.resolve(change.first), skills.resolve(change.second)
        if first == second:
            raise MilestoneError("Pick two different skills to swap.")
        a, b = character.rating(first), character.rating(second)
        if a == b:
            raise MilestoneError(f"{first} and {second} are both {describe(a)}; nothing changes.")
        updated = character.set_skills({first: b, second: a}, skills, replace=False)
        return updated, f"Swapped {first} ({describe(a)}) and {second} ({describe(b)})."
    if isinstance(change, ReplaceAverageSkill):
        old, new = skills.resolve(change.old), skills.resolve(change.new)
        if character.rating(old) != 1:
            raise MilestoneError(
                f"Only an Average (+1) skill can be replaced; {old} is "
                f"{describe(character.rating(old))}."
            )
        if character.rating(new) != 0:
            raise MilestoneError(f"{new} is already on the sheet; swap the two instead.")
        updated = character.set_skills({old: 0, new: 1}, skills, replace=False)
        return updated, f"Replaced Average (+1) {old} with {new}."
    if isinstance(change, RewriteStunt):
        target = character.stunt(change.name)
        return (
            character.replace_stunt(target.name, change.stunt),
            f"Rewrote the stunt {target.name} as {change.stunt.name}.",
        )
    if isinstance(change, BuyStunt):
        if character.free_stunt_slots_left() > 0:
            updated = character.add_stunt(change.stunt)
            return updated, f"Added the stunt {change.stunt.name} in a free slot."
        updated = character.add_stunt(change.stunt)
        return updated, f"Bought the stunt {change.stunt.name} for 1 refresh."
    target_aspect = character.find_aspect(change.old)
    if target_aspect.kind is AspectKind.HIGH_CONCEPT:
        raise MilestoneError(
            "A minor milestone can rewrite any aspect except the high concept; "
            "that waits for a major milestone."
        )
    updated = character.rewrite_aspect(target_aspect.text, change.new)
    return updated, f"Rewrote the aspect '{target_aspect.text}' as '{change.new.strip()}'."


def minor_milestone(
    character: Character, change: MinorChange, skills: SkillList | None = None
) -> tuple[Character, MilestoneRecord]:
    """Apply one minor-milestone change."""
    skills = skills or default_skills()
    updated, line = _apply_minor(character, change, skills)
    problem = column_violation(updated.skills)
    if problem and isinstance(change, (SwapSkills, ReplaceAverageSkill)):
        # Swaps keep counts per rank, so this only fires if the sheet was already off.
        raise MilestoneError(problem)
    return updated, MilestoneRecord(
        kind=MilestoneKind.MINOR, character_name=character.name, changes=[line]
    )


class RecoveryStart(BaseModel):
    """Start recovery on a consequence slot, renaming it (major milestone)."""

    slot: str
    new_aspect: str


class MajorMilestone(BaseModel):
    """Everything a player picks at a major milestone; all parts are optional."""

    minor: MinorChange | None = None
    new_high_concept: str | None = None
    start_recovery: list[RecoveryStart] = Field(default_factory=list, max_length=10)
    finish_recovery: list[str] = Field(default_factory=list, max_length=10)
    raise_skills: list[str] = Field(default_factory=list, max_length=5)
    bank_unused_skill_point: bool = False
    gm_grants_refresh: bool = False
    gm_grants_second_skill: bool = False


def major_milestone(
    character: Character, choice: MajorMilestone, skills: SkillList | None = None
) -> tuple[Character, MilestoneRecord]:
    """Apply a major milestone. Skill steps are applied together, then the column rule is
    checked, so two steps may fix a shape one step alone would break (Ruth's example)."""
    skills = skills or default_skills()
    lines: list[str] = []
    current = character
    if choice.minor is not None:
        current, line = _apply_minor(current, choice.minor, skills)
        lines.append(line)
    if choice.new_high_concept:
        text = clean_text(choice.new_high_concept, "high concept", ASPECT_MAX)
        current = current.set_aspect(AspectKind.HIGH_CONCEPT, text)
        lines.append(f"New high concept: '{text}'.")
    for key in choice.finish_recovery:
        slot = current.track(key)
        if slot.kind is not TrackKind.CONSEQUENCE or slot.is_free or not slot.healing:
            raise MilestoneError(f"{slot.label} is not recovering yet; start its recovery first.")
        current = current.clear_consequence(slot.key)
        lines.append(f"Cleared the {slot.label.lower()} '{slot.aspect}'.")
    for recovery in choice.start_recovery:
        slot = current.track(recovery.slot)
        if slot.kind is not TrackKind.CONSEQUENCE or slot.key not in (MODERATE, SEVERE):
            raise MilestoneError("A major milestone starts recovery on moderate or severe slots.")
        if slot.is_free or slot.healing:
            raise MilestoneError(f"{slot.label} holds nothing waiting to start recovery.")
        current = current.rename_consequence(slot.key, recovery.new_aspect)
        lines.append(f"{slot.label} starts recovering as '{recovery.new_aspect.strip()}'.")
    if choice.gm_grants_refresh:
        current = current.set_refresh(current.refresh + 1)
        lines.append(f"Refresh rises to {current.refresh}.")
    fresh_steps = 1 + int(choice.gm_grants_second_skill)
    available = fresh_steps + character.skill_points
    if len(choice.raise_skills) > available:
        raise MilestoneError(
            f"This milestone gives {available} skill step{'s' if available != 1 else ''}; "
            f"you asked for {len(choice.raise_skills)}."
        )
    raised: dict[str, int] = {}
    for name in choice.raise_skills:
        canonical = skills.resolve(name)
        raised[canonical] = raised.get(canonical, current.rating(canonical)) + 1
    if raised:
        proposed = dict(current.skills)
        lowered = {k.casefold(): k for k in proposed}
        for name, rating in raised.items():
            proposed.pop(lowered.get(name.casefold(), name), None)
            proposed[name] = rating
        problem = column_violation(proposed)
        if problem:
            raise MilestoneError(problem)
        current = current.set_skills(raised, skills, replace=False)
        for name, rating in raised.items():
            lines.append(f"Raised {name} to {describe(rating)}.")
    unused = available - len(choice.raise_skills)
    # Saved steps are spent after this milestone's own; unsaved fresh steps are lost.
    saved_left = min(character.skill_points, unused)
    banked = min(unused, 10) if choice.bank_unused_skill_point else saved_left
    current = current._evolve(lambda c: setattr(c, "skill_points", banked))
    if banked > saved_left:
        lines.append(f"Saved {banked} skill step{'s' if banked != 1 else ''} for later.")
    if not lines:
        raise MilestoneError(
            "This major milestone changes nothing: raise a skill, rewrite the high concept, "
            "start or finish a recovery, make a minor change, or save the skill step for later."
        )
    return current, MilestoneRecord(
        kind=MilestoneKind.MAJOR, character_name=character.name, changes=lines
    )
