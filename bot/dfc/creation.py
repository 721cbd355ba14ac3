"""Character creation in Dresden Files Condensed order (mantle, aspects, skills, name, refresh,
stunts, extra stunts, stress, relationship) as a resumable draft: pure, JSON-serialisable, one
validated step at a time.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from bot.errors import RuleError
from bot.fate.sheet import (
    ASPECT_MAX,
    DESCRIPTION_MAX,
    FREE_STUNTS,
    MANTLE_FREE_STUNTS,
    MAX_FREE_ASPECTS,
    MAX_SKILLS,
    MAX_STUNTS,
    MAX_TRACKS,
    MIN_PC_REFRESH,
    NAME_MAX,
    STARTING_REFRESH,
    Aspect,
    AspectKind,
    Character,
    SheetError,
    clean_block,
    clean_text,
    validation_to_rule_error,
)
from bot.fate.skills import SkillList, check_pyramid, default_skills
from bot.fate.stress import HARM_SKILL, MENTAL, PHYSICAL, StressStyle, recompute_tracks
from bot.fate.stunts import Stunt
from bot.fate.tracks import Track


class StepOrderError(SheetError):
    """A step answered before the draft reached it: typing it again would not help."""

    offers_retry = False


class CreationStep(StrEnum):
    MANTLE = "mantle"
    ASPECTS = "aspects"
    SKILLS = "skills"
    NAME = "name"
    REFRESH = "refresh"
    STUNTS = "stunts"
    EXTRA_STUNTS = "extra stunts"
    STRESS = "stress"
    RELATIONSHIP = "relationship"
    DONE = "done"


CREATION_ORDER: list[CreationStep] = list(CreationStep)
# Steps with nothing to choose: refresh starts at 3 (extra stunts lower it later) and the stress
# boxes follow from Physique and Will. The guided flow passes them (`past_confirmations`) and
# shows what they say on the next step.
ASKS_NOTHING = (CreationStep.REFRESH, CreationStep.STRESS)


class CreationDraft(BaseModel):
    """A character being built in the seed's DFC order; JSON-serialisable to resume later.

    Each step method validates, stores, and moves to the next step, returning a new draft.
    A step may be redone while the draft is past it (the flow is then resumed from there).
    """

    step: CreationStep = CreationStep.MANTLE
    stress_style: StressStyle = StressStyle.CONDENSED
    mantle: str | None = None
    mantle_stunts: list[Stunt] = Field(default_factory=list, max_length=MAX_STUNTS)
    mantle_conditions: list[Track] = Field(default_factory=list, max_length=MAX_TRACKS)
    high_concept: str | None = None
    trouble: str | None = None
    free_aspects: list[str] = Field(default_factory=list, max_length=MAX_FREE_ASPECTS)
    skills: dict[str, int] = Field(default_factory=dict, max_length=MAX_SKILLS)
    name: str | None = None
    description: str = ""
    refresh: int = STARTING_REFRESH
    free_stunts: list[Stunt] = Field(default_factory=list, max_length=FREE_STUNTS)
    extra_stunts: list[Stunt] = Field(default_factory=list, max_length=STARTING_REFRESH)
    relationship: str | None = None

    def _at_least(self, step: CreationStep) -> None:
        if CREATION_ORDER.index(self.step) < CREATION_ORDER.index(step):
            raise StepOrderError(f"Finish the {self.step.value} step first.")

    def _advance(self, done: CreationStep, **changes: Any) -> CreationDraft:
        next_step = CREATION_ORDER[CREATION_ORDER.index(done) + 1]
        current = CREATION_ORDER.index(self.step)
        step = next_step if CREATION_ORDER.index(next_step) > current else self.step
        return self.model_copy(update={**changes, "step": step}, deep=True)

    @property
    def free_stunt_count(self) -> int:
        """DFC: one free additional stunt beside the mantle's core stunts; plain Fate: three."""
        return MANTLE_FREE_STUNTS if self.mantle else FREE_STUNTS

    def choose_mantle(
        self,
        name: str | None,
        core_stunts: list[Stunt] | None = None,
        conditions: list[Track] | None = None,
    ) -> CreationDraft:
        mantle = clean_text(name, "mantle name", NAME_MAX) if name else None
        return self._advance(
            CreationStep.MANTLE,
            mantle=mantle,
            mantle_stunts=[
                s.model_copy(update={"core": True, "cost": 0}) for s in core_stunts or []
            ],
            mantle_conditions=list(conditions or []),
        )

    def set_aspects(
        self, high_concept: str, trouble: str, free_aspects: list[str] | None = None
    ) -> CreationDraft:
        self._at_least(CreationStep.ASPECTS)
        frees = [clean_text(t, "free aspect", ASPECT_MAX) for t in free_aspects or [] if t.strip()]
        if len(frees) > MAX_FREE_ASPECTS:
            raise SheetError("A character has two free aspects at most.")
        texts = [
            clean_text(high_concept, "high concept", ASPECT_MAX),
            clean_text(trouble, "trouble", ASPECT_MAX),
        ]
        all_texts = [t.casefold() for t in texts + frees]
        if len(set(all_texts)) != len(all_texts):
            raise SheetError("Two of the aspects are the same; make each one say something new.")
        return self._advance(
            CreationStep.ASPECTS, high_concept=texts[0], trouble=texts[1], free_aspects=frees
        )

    def set_skills(
        self, ratings: Mapping[str, int], skills: SkillList | None = None
    ) -> CreationDraft:
        self._at_least(CreationStep.SKILLS)
        skills = skills or default_skills()
        resolved = {skills.resolve(n): r for n, r in ratings.items() if r != 0}
        check_pyramid(resolved, skills)
        return self._advance(CreationStep.SKILLS, skills=resolved)

    def set_name(self, name: str, description: str = "") -> CreationDraft:
        self._at_least(CreationStep.NAME)
        return self._advance(
            CreationStep.NAME,
            name=clean_text(name, "name", NAME_MAX),
            description=clean_block(description, "description", DESCRIPTION_MAX),
        )

    def confirm_refresh(self) -> CreationDraft:
        self._at_least(CreationStep.REFRESH)
        return self._advance(CreationStep.REFRESH, refresh=STARTING_REFRESH)

    def choose_stunts(self, stunts: list[Stunt]) -> CreationDraft:
        """The free stunt(s): one beside a mantle's core stunts, three without a mantle."""
        self._at_least(CreationStep.STUNTS)
        if len(stunts) > self.free_stunt_count:
            raise SheetError(
                f"You get {self.free_stunt_count} free stunt"
                f"{'s' if self.free_stunt_count > 1 else ''} here; buy more in the next step."
            )
        self._check_unique(stunts, self.mantle_stunts)
        return self._advance(
            CreationStep.STUNTS,
            free_stunts=[s.model_copy(update={"cost": 0, "core": False}) for s in stunts],
            extra_stunts=[],
            refresh=STARTING_REFRESH,
        )

    def buy_stunts(self, stunts: list[Stunt]) -> CreationDraft:
        """Optional extra stunts at 1 refresh each; refresh never drops below 1."""
        self._at_least(CreationStep.EXTRA_STUNTS)
        if STARTING_REFRESH - len(stunts) < MIN_PC_REFRESH:
            raise SheetError(
                f"Each extra stunt costs 1 refresh and refresh can never drop below 1, "
                f"so you can buy at most {STARTING_REFRESH - MIN_PC_REFRESH}."
            )
        self._check_unique(stunts, self.mantle_stunts + self.free_stunts)
        return self._advance(
            CreationStep.EXTRA_STUNTS,
            extra_stunts=[s.model_copy(update={"cost": 1, "core": False}) for s in stunts],
            refresh=STARTING_REFRESH - len(stunts),
        )

    @staticmethod
    def _check_unique(new: list[Stunt], existing: list[Stunt]) -> None:
        names = [s.name.casefold() for s in existing + new]
        if len(names) != len(set(names)):
            raise SheetError("Two stunts share a name; give each stunt its own name.")

    def preview_tracks(self) -> list[Track]:
        """Stress, consequence slots and mantle conditions as they will be on the sheet."""
        physique = self.skills.get(HARM_SKILL[PHYSICAL], 0)
        will = self.skills.get(HARM_SKILL[MENTAL], 0)
        tracks = recompute_tracks([], physique, will, self.stress_style)
        return tracks + [t.model_copy(deep=True) for t in self.mantle_conditions]

    def confirm_stress(self) -> CreationDraft:
        self._at_least(CreationStep.STRESS)
        return self._advance(CreationStep.STRESS)

    def past_confirmations(self) -> CreationDraft:
        """The draft past the steps that ask nothing (`ASKS_NOTHING`), confirmed as they are."""
        draft = self
        while draft.step in ASKS_NOTHING:
            if draft.step is CreationStep.REFRESH:
                draft = draft.confirm_refresh()
            else:
                draft = draft.confirm_stress()
        return draft

    def set_relationship(
        self, relationship: str | None, more_free_aspects: list[str] | None = None
    ) -> CreationDraft:
        """The relationship aspect (may wait until later) and any free aspects left open."""
        self._at_least(CreationStep.RELATIONSHIP)
        text = clean_text(relationship, "relationship", ASPECT_MAX) if relationship else None
        frees = self.free_aspects + [
            clean_text(t, "free aspect", ASPECT_MAX) for t in more_free_aspects or [] if t.strip()
        ]
        if len(frees) > MAX_FREE_ASPECTS:
            raise SheetError("A character has two free aspects at most.")
        return self._advance(CreationStep.RELATIONSHIP, relationship=text, free_aspects=frees)

    def validate_step(self, step: CreationStep | None = None) -> list[str]:
        """Problems that keep `step` (default: every step before the current one) from being
        complete; an empty list means it is fine."""
        steps = [step] if step else CREATION_ORDER[: CREATION_ORDER.index(self.step)]
        problems: list[str] = []
        for current in steps:
            if current is CreationStep.ASPECTS and not (self.high_concept and self.trouble):
                problems.append("Write a high concept and a trouble.")
            elif current is CreationStep.SKILLS:
                try:
                    check_pyramid(self.skills)
                except RuleError as error:
                    problems.append(str(error))
            elif current is CreationStep.NAME and not self.name:
                problems.append("Give the character a name.")
            elif current is CreationStep.EXTRA_STUNTS and self.refresh < MIN_PC_REFRESH:
                problems.append("Refresh can never drop below 1.")
        return problems

    def finish(self, skills: SkillList | None = None) -> Character:
        """The finished Character. Every step must have been done."""
        if self.step is not CreationStep.DONE:
            raise SheetError(f"The character is not finished; the next step is {self.step.value}.")
        problems = self.validate_step(CreationStep.SKILLS) if skills is None else []
        if skills is not None:
            check_pyramid(self.skills, skills)
        problems += [p for s in CREATION_ORDER[:-1] for p in self.validate_step(s)]
        if problems:
            raise SheetError(problems[0])
        assert self.name and self.high_concept and self.trouble
        aspects = [
            Aspect(kind=AspectKind.HIGH_CONCEPT, text=self.high_concept),
            Aspect(kind=AspectKind.TROUBLE, text=self.trouble),
        ]
        if self.relationship:
            aspects.append(Aspect(kind=AspectKind.RELATIONSHIP, text=self.relationship))
        aspects += [Aspect(kind=AspectKind.FREE, text=t) for t in self.free_aspects]
        try:
            return Character(
                name=self.name,
                description=self.description,
                mantle=self.mantle,
                aspects=aspects,
                skills=dict(self.skills),
                stunts=self.mantle_stunts + self.free_stunts + self.extra_stunts,
                refresh=self.refresh,
                fate_points=self.refresh,
                free_stunts=self.free_stunt_count,
                stress_style=self.stress_style,
                tracks=self.preview_tracks(),
            )
        except ValidationError as error:
            raise validation_to_rule_error(error) from None
