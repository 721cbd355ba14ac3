"""The character sheet: a pydantic model plus pure operations that return a new sheet.

Every operation validates its input and raises a RuleError subclass with a sentence the user can
act on; the original Character is never changed. Stress, consequences and conditions all live in
`tracks` (see bot/fate/tracks.py and bot/fate/stress.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from bot.errors import RuleError
from bot.fate.ladder import describe
from bot.fate.skills import (
    SKILL_NAME_MAX,
    SkillList,
    default_skills,
)
from bot.fate.stress import (
    HARM_SKILL,
    MENTAL,
    MILD,
    MODERATE,
    PHYSICAL,
    SEVERE,
    StressStyle,
    recompute_tracks,
)
from bot.fate.stunts import Stunt
from bot.fate.tracks import Box, Recovery, Track, TrackKind

NAME_MAX = 80
ASPECT_MAX = 100
DESCRIPTION_MAX = 1000
NOTES_MAX = 2000
TRACK_LABEL_MAX = 80
MAX_ASPECTS = 5
MAX_MONSTER_ASPECTS = 10
MAX_FREE_ASPECTS = 2
MAX_SKILLS = 50
MAX_STUNTS = 30
MAX_TRACKS = 30
MAX_BOXES = 20
MAX_FREE_INVOKES = 20
MAX_FATE_POINTS = 99
MAX_REFRESH = 20
MIN_PC_REFRESH = 1
STARTING_REFRESH = 3
FREE_STUNTS = 3
MANTLE_FREE_STUNTS = 1  # DFC: beside a mantle's core stunts
SKILL_RATING_RANGE = (-4, 12)


class SheetError(RuleError):
    """An edit the sheet rules do not allow."""


class AspectKind(StrEnum):
    HIGH_CONCEPT = "high concept"
    TROUBLE = "trouble"
    RELATIONSHIP = "relationship"
    FREE = "free"


UNIQUE_ASPECT_KINDS = (AspectKind.HIGH_CONCEPT, AspectKind.TROUBLE, AspectKind.RELATIONSHIP)


class NpcKind(StrEnum):
    MINOR = "minor"
    MAJOR = "major"
    MONSTER = "monster"


class Aspect(BaseModel):
    kind: AspectKind = AspectKind.FREE
    text: str = Field(min_length=1, max_length=ASPECT_MAX)
    free_invokes: int = Field(default=0, ge=0, le=MAX_FREE_INVOKES)


def clean_text(value: str, what: str, limit: int, *, required: bool = True) -> str:
    """Collapse whitespace and enforce a length limit with a user-facing sentence."""
    cleaned = " ".join(value.split())
    if required and not cleaned:
        raise SheetError(f"The {what} cannot be empty.")
    if len(cleaned) > limit:
        raise SheetError(
            f"The {what} is {len(cleaned)} characters long; keep it to {limit} or fewer."
        )
    return cleaned


def clean_block(value: str, what: str, limit: int) -> str:
    """Like clean_text but keeps line breaks (descriptions, notes); may be empty."""
    cleaned = value.strip()
    if len(cleaned) > limit:
        raise SheetError(
            f"The {what} is {len(cleaned)} characters long; keep it to {limit} or fewer."
        )
    return cleaned


def validation_to_rule_error(error: ValidationError) -> SheetError:
    first = error.errors()[0]
    message = str(first.get("msg", "invalid value"))
    message = message.removeprefix("Value error, ")
    location = ".".join(str(p) for p in first.get("loc", ()))
    if location and not message.endswith("."):
        return SheetError(f"{location}: {message}.")
    return SheetError(message if not location else f"{location}: {message}")


class Character(BaseModel):
    """A PC or NPC sheet. Use the methods to change it; each returns a new Character."""

    id: int | None = None
    name: str = Field(min_length=1, max_length=NAME_MAX)
    description: str = Field(default="", max_length=DESCRIPTION_MAX)
    mantle: str | None = Field(default=None, max_length=NAME_MAX)
    aspects: list[Aspect] = Field(default_factory=list, max_length=MAX_MONSTER_ASPECTS)
    skills: dict[str, int] = Field(default_factory=dict, max_length=MAX_SKILLS)
    stunts: list[Stunt] = Field(default_factory=list, max_length=MAX_STUNTS)
    refresh: int = Field(default=STARTING_REFRESH, ge=0, le=MAX_REFRESH)
    fate_points: int = Field(default=STARTING_REFRESH, ge=0, le=MAX_FATE_POINTS)
    free_stunts: int = Field(default=FREE_STUNTS, ge=0, le=10)
    skill_points: int = Field(default=0, ge=0, le=10)  # banked skill steps from milestones
    stress_style: StressStyle = StressStyle.CONDENSED
    tracks: list[Track] = Field(default_factory=list, max_length=MAX_TRACKS)
    notes: str = Field(default="", max_length=NOTES_MAX)
    npc_kind: NpcKind | None = None

    @field_validator("skills")
    @classmethod
    def _skill_entries(cls, skills: dict[str, int]) -> dict[str, int]:
        low, high = SKILL_RATING_RANGE
        seen: set[str] = set()
        for name, rating in skills.items():
            if not name.strip() or len(name) > SKILL_NAME_MAX:
                raise ValueError(f"Skill names need 1 to {SKILL_NAME_MAX} characters.")
            if name.casefold() in seen:
                raise ValueError(f"The skill {name} is listed twice.")
            seen.add(name.casefold())
            if not low <= rating <= high:
                raise ValueError(f"Skill ratings run from {low:+d} to {high:+d}.")
        return skills

    @field_validator("tracks")
    @classmethod
    def _track_entries(cls, tracks: list[Track]) -> list[Track]:
        keys: set[str] = set()
        for track in tracks:
            if not track.key or len(track.key) > TRACK_LABEL_MAX:
                raise ValueError("Track keys need 1 to 80 characters.")
            if track.key in keys:
                raise ValueError(f"There are two tracks called '{track.key}'.")
            keys.add(track.key)
            if len(track.label) > TRACK_LABEL_MAX:
                raise ValueError(f"Track names are limited to {TRACK_LABEL_MAX} characters.")
            if track.aspect is not None and len(track.aspect) > ASPECT_MAX:
                raise ValueError(f"Consequence aspects are limited to {ASPECT_MAX} characters.")
            if len(track.boxes) > MAX_BOXES:
                raise ValueError(f"A track may have at most {MAX_BOXES} boxes.")
        return tracks

    @model_validator(mode="after")
    def _sheet_rules(self) -> Character:
        limit = MAX_MONSTER_ASPECTS if self.npc_kind is NpcKind.MONSTER else MAX_ASPECTS
        if len(self.aspects) > limit:
            raise ValueError(f"A character has at most {limit} aspects; rewrite one instead.")
        if self.npc_kind is None:
            for kind in UNIQUE_ASPECT_KINDS:
                if sum(1 for a in self.aspects if a.kind is kind) > 1:
                    raise ValueError(f"A character has only one {kind.value} aspect.")
            if self.refresh < MIN_PC_REFRESH:
                raise ValueError("Refresh can never drop below 1.")
        names = [s.name.casefold() for s in self.stunts]
        if len(names) != len(set(names)):
            raise ValueError("Two stunts share a name; give each stunt its own name.")
        return self

    # ----- reading helpers (also what renderers need) -----

    @property
    def is_npc(self) -> bool:
        return self.npc_kind is not None

    def rating(self, skill: str) -> int:
        # Spaced as typed: names are stored with single spaces ("Biting  People" is found).
        wanted = " ".join(skill.split()).casefold()
        return next((v for k, v in self.skills.items() if k.casefold() == wanted), 0)

    def skill_columns(self) -> list[tuple[int, list[str]]]:
        """(rating, skill names) from highest rating down; names sorted; Mediocre omitted."""
        by_rating: dict[int, list[str]] = {}
        for name, rating in self.skills.items():
            if rating != 0:
                by_rating.setdefault(rating, []).append(name)
        return [(r, sorted(by_rating[r])) for r in sorted(by_rating, reverse=True)]

    def mediocre_skills(self, skills: SkillList | None = None) -> list[str]:
        """Skills of the list the sheet leaves at Mediocre (+0)."""
        skills = skills or default_skills()
        return [n for n in skills.names if self.rating(n) == 0]

    def aspect(self, kind: AspectKind) -> Aspect | None:
        return next((a for a in self.aspects if a.kind is kind), None)

    def aspect_texts(self) -> list[str]:
        """Every aspect on the sheet, including consequences and marked conditions."""
        texts = [a.text for a in self.aspects]
        for track in self.tracks:
            if track.kind is TrackKind.CONSEQUENCE and track.aspect:
                texts.append(track.aspect)
            elif track.kind is TrackKind.CONDITION and not track.is_free:
                texts.append(track.aspect or track.label)
        return texts

    def find_aspect(self, text: str) -> Aspect:
        wanted = " ".join(text.split()).casefold()
        for item in self.aspects:
            if item.text.casefold() == wanted:
                return item
        raise SheetError(f"{self.name} has no aspect called '{text.strip()[:ASPECT_MAX]}'.")

    def stunt(self, name: str) -> Stunt:
        wanted = " ".join(name.split()).casefold()
        for item in self.stunts:
            if item.name.casefold() == wanted:
                return item
        raise SheetError(f"{self.name} has no stunt called '{name.strip()[:80]}'.")

    def track(self, key: str) -> Track:
        wanted = key.strip().casefold()
        for item in self.tracks:
            if item.key.casefold() == wanted or item.label.casefold() == wanted:
                return item
        known = ", ".join(t.key for t in self.tracks) or "none"
        raise SheetError(f"{self.name} has no track '{key.strip()[:80]}'. Tracks: {known}.")

    def tracks_of(self, kind: TrackKind) -> list[Track]:
        return [t for t in self.tracks if t.kind is kind]

    def free_stunt_slots_left(self) -> int:
        used = sum(1 for s in self.stunts if not s.core and s.cost == 0)
        return max(0, self.free_stunts - used)

    # ----- internal -----

    def _evolve(self, mutate: Callable[[Character], None]) -> Character:
        """Apply `mutate` to a deep copy and re-validate the result. The copy is made by
        pydantic (dump and validate, in Rust): a quarter of `copy.deepcopy`'s cost, which was
        most of a fate-point edit's CPU; a valid sheet validates again unchanged."""
        draft = Character.model_validate(self.model_dump())
        mutate(draft)
        try:
            return Character.model_validate(draft.model_dump())
        except ValidationError as error:
            raise validation_to_rule_error(error) from None

    def _resolve_skill(self, name: str, skills: SkillList | None) -> str:
        skills = skills or default_skills()
        found = skills.find(name)
        if found is not None:
            return found
        if self.npc_kind in (NpcKind.MINOR, NpcKind.MONSTER):
            # Minor NPCs and threats may be "Great (+4) at Biting People".
            return clean_text(name, "skill name", SKILL_NAME_MAX)
        return skills.resolve(name)

    # ----- identity -----

    def rename(self, name: str) -> Character:
        new_name = clean_text(name, "name", NAME_MAX)
        return self._evolve(lambda c: setattr(c, "name", new_name))

    def set_description(self, text: str) -> Character:
        value = clean_block(text, "description", DESCRIPTION_MAX)
        return self._evolve(lambda c: setattr(c, "description", value))

    def set_notes(self, text: str) -> Character:
        value = clean_block(text, "notes", NOTES_MAX)
        return self._evolve(lambda c: setattr(c, "notes", value))

    # ----- aspects -----

    def set_aspect(self, kind: AspectKind, text: str, slot: int | None = None) -> Character:
        """Write an aspect. High concept, trouble and relationship replace their single slot;
        free aspects replace free slot `slot` (1-based) or are added when `slot` is None."""
        value = clean_text(text, f"{kind.value} aspect", ASPECT_MAX)
        others = [
            a for a in self.aspects if a.text.casefold() == value.casefold() and a.kind is not kind
        ]
        if others:
            raise SheetError(f"'{value}' is already one of {self.name}'s aspects.")

        def mutate(c: Character) -> None:
            if kind is not AspectKind.FREE or (self.npc_kind is not None and slot is None):
                existing = c.aspect(kind) if kind is not AspectKind.FREE else None
                if existing is not None:
                    existing.text = value
                    return
                c.aspects.append(Aspect(kind=kind, text=value))
                return
            frees = [a for a in c.aspects if a.kind is AspectKind.FREE]
            if slot is not None:
                if not 1 <= slot <= len(frees):
                    raise SheetError(
                        f"There is no free aspect number {slot}; {self.name} has {len(frees)}."
                    )
                frees[slot - 1].text = value
                return
            if len(frees) >= MAX_FREE_ASPECTS:
                raise SheetError(
                    f"{self.name} already has {MAX_FREE_ASPECTS} free aspects; "
                    "rewrite one of them instead."
                )
            c.aspects.append(Aspect(kind=kind, text=value))

        result = self._evolve(mutate)
        limit = MAX_MONSTER_ASPECTS if self.npc_kind is NpcKind.MONSTER else MAX_ASPECTS
        if len(result.aspects) > limit:  # pragma: no cover - the validator catches it first
            raise SheetError(f"A character has at most {limit} aspects; rewrite one instead.")
        return result

    def rewrite_aspect(self, old_text: str, new_text: str) -> Character:
        target = self.find_aspect(old_text)
        value = clean_text(new_text, "aspect", ASPECT_MAX)

        def mutate(c: Character) -> None:
            c.find_aspect(target.text).text = value

        return self._evolve(mutate)

    def remove_aspect(self, text: str) -> Character:
        target = self.find_aspect(text)
        return self._evolve(
            lambda c: setattr(c, "aspects", [a for a in c.aspects if a.text != target.text])
        )

    def set_free_invokes(self, text: str, count: int) -> Character:
        target = self.find_aspect(text)
        if not 0 <= count <= MAX_FREE_INVOKES:
            raise SheetError(f"Free invokes run from 0 to {MAX_FREE_INVOKES}.")

        def mutate(c: Character) -> None:
            c.find_aspect(target.text).free_invokes = count

        return self._evolve(mutate)

    # ----- skills -----

    def set_skill(self, name: str, rating: int, skills: SkillList | None = None) -> Character:
        """Set one rating (0 removes it: Mediocre is the default). Re-derives stress."""
        canonical = self._resolve_skill(name, skills)
        low, high = SKILL_RATING_RANGE
        if not low <= rating <= high:
            raise SheetError(f"Skill ratings run from {describe(low)} to {describe(high)}.")
        return self.set_skills({canonical: rating}, skills, replace=False)

    def set_skills(
        self, ratings: Mapping[str, int], skills: SkillList | None = None, *, replace: bool = True
    ) -> Character:
        """Set many ratings at once (replace=True drops ratings not given)."""
        resolved = {self._resolve_skill(n, skills): r for n, r in ratings.items()}

        def mutate(c: Character) -> None:
            merged = {} if replace else dict(c.skills)
            lowered = {k.casefold(): k for k in merged}
            for name, rating in resolved.items():
                merged.pop(lowered.get(name.casefold(), name), None)
                if rating != 0:
                    merged[name] = rating
            c.skills = merged
            c.tracks = c._derived_tracks()

        return self._evolve(mutate)

    def _derived_tracks(self) -> list[Track]:
        if self.npc_kind is NpcKind.MINOR or self.npc_kind is NpcKind.MONSTER:
            return self.tracks  # hand-built; no derived stress
        return recompute_tracks(
            self.tracks,
            self.rating(HARM_SKILL[PHYSICAL]),
            self.rating(HARM_SKILL[MENTAL]),
            self.stress_style,
        )

    def recompute_stress(self, style: StressStyle | None = None) -> Character:
        """Re-derive stress tracks (after a campaign switches stress style, say)."""

        def mutate(c: Character) -> None:
            if style is not None:
                c.stress_style = style
            c.tracks = c._derived_tracks()

        return self._evolve(mutate)

    # ----- stunts, refresh, fate points -----

    def add_stunt(self, stunt: Stunt) -> Character:
        """Add a stunt: free while free slots remain, then 1 refresh each (never below 1)."""
        if any(s.name.casefold() == stunt.name.casefold() for s in self.stunts):
            raise SheetError(f"{self.name} already has a stunt called '{stunt.name}'.")
        cost = 0
        if self.npc_kind is None and not stunt.core and self.free_stunt_slots_left() == 0:
            cost = 1
            if self.refresh - cost < MIN_PC_REFRESH:
                raise SheetError(
                    f"{self.name} has used the free stunt slots and another stunt would cost "
                    f"1 refresh, but refresh is {self.refresh} and can never drop below 1. "
                    "Remove or rewrite a stunt instead."
                )
        paid = stunt.model_copy(update={"cost": cost})

        def mutate(c: Character) -> None:
            c.stunts.append(paid)
            c.refresh -= cost

        return self._evolve(mutate)

    def remove_stunt(self, name: str) -> Character:
        """Remove a stunt and give back the refresh it cost."""
        target = self.stunt(name)

        def mutate(c: Character) -> None:
            c.stunts = [s for s in c.stunts if s.name != target.name]
            c.refresh += target.cost

        return self._evolve(mutate)

    def replace_stunt(self, name: str, new: Stunt) -> Character:
        """Rewrite a stunt in place; it keeps its cost and core flag."""
        target = self.stunt(name)
        if new.name.casefold() != target.name.casefold() and any(
            s.name.casefold() == new.name.casefold() for s in self.stunts
        ):
            raise SheetError(f"{self.name} already has a stunt called '{new.name}'.")
        rewritten = new.model_copy(update={"cost": target.cost, "core": target.core})

        def mutate(c: Character) -> None:
            c.stunts = [rewritten if s.name == target.name else s for s in c.stunts]

        return self._evolve(mutate)

    def save_stunt(self, stunt: Stunt) -> Character:
        """Rewrite the stunt of that name (ignoring case) if there is one, else add it."""
        if any(s.name.casefold() == stunt.name.casefold() for s in self.stunts):
            return self.replace_stunt(stunt.name, stunt)
        return self.add_stunt(stunt)

    def set_refresh(self, refresh: int) -> Character:
        low = MIN_PC_REFRESH if self.npc_kind is None else 0
        if not low <= refresh <= MAX_REFRESH:
            raise SheetError(
                f"Refresh must be between {low} and {MAX_REFRESH}; it can never drop below 1 "
                "for a player character."
            )
        return self._evolve(lambda c: setattr(c, "refresh", refresh))

    def set_fate_points(self, points: int) -> Character:
        if not 0 <= points <= MAX_FATE_POINTS:
            raise SheetError(f"Fate points run from 0 to {MAX_FATE_POINTS}.")
        # The most frequent change of all (every invoke, compel and refresh), and only a
        # range-checked number that no sheet rule reads: a copy sharing the other parts is a
        # valid sheet (nothing changes a sheet's parts in place; `_evolve` copies them first).
        return self.model_copy(update={"fate_points": points})

    def adjust_fate_points(self, delta: int) -> Character:
        if self.fate_points + delta < 0:
            raise SheetError(
                f"{self.name} has only {self.fate_points} fate point"
                f"{'s' if self.fate_points != 1 else ''}."
            )
        return self.set_fate_points(self.fate_points + delta)

    # ----- tracks: stress -----

    def _box_index(self, track: Track, box_number: int) -> int:
        if not 1 <= box_number <= len(track.boxes):
            raise SheetError(
                f"{track.label} has boxes 1 to {len(track.boxes)}; there is no box {box_number}."
            )
        return box_number - 1

    def _replace_track(self, new: Track) -> Character:
        def mutate(c: Character) -> None:
            c.tracks = [new if t.key == new.key else t for t in c.tracks]

        return self._evolve(mutate)

    def mark_box(self, key: str, box_number: int) -> Character:
        track = self.track(key)
        index = self._box_index(track, box_number)
        if track.boxes[index].marked:
            raise SheetError(f"Box {box_number} of {track.label} is already marked.")
        return self._replace_track(track.with_box(index, True))

    def clear_box(self, key: str, box_number: int) -> Character:
        track = self.track(key)
        index = self._box_index(track, box_number)
        return self._replace_track(track.with_box(index, False))

    def clear_stress(self) -> Character:
        """End of scene: every stress track and fleeting condition clears."""

        def mutate(c: Character) -> None:
            c.tracks = [
                t.cleared()
                if t.kind is TrackKind.STRESS
                or (t.kind is TrackKind.CONDITION and t.recovery is Recovery.FLEETING)
                else t
                for t in c.tracks
            ]

        return self._evolve(mutate)

    # ----- tracks: consequences -----

    def _consequence(self, key: str) -> Track:
        track = self.track(key)
        if track.kind is not TrackKind.CONSEQUENCE:
            raise SheetError(f"{track.label} is not a consequence slot.")
        return track

    def take_consequence(self, key: str, aspect: str) -> Character:
        """Write a consequence aspect into an empty slot (mild 2, moderate 4, severe 6)."""
        track = self._consequence(key)
        if not track.is_free:
            raise SheetError(
                f"The {track.label.lower()} slot already holds '{track.aspect}'. "
                "Use another slot or clear it first."
            )
        text = clean_text(aspect, "consequence aspect", ASPECT_MAX)
        new = track.model_copy(deep=True)
        for box in new.boxes:
            box.marked = True
        new.aspect = text
        new.healing = False
        return self._replace_track(new)

    def rename_consequence(self, key: str, aspect: str) -> Character:
        """Recovery started: rewrite the consequence to show it is healing."""
        track = self._consequence(key)
        if track.is_free:
            raise SheetError(f"The {track.label.lower()} slot is empty; nothing to rename.")
        text = clean_text(aspect, "consequence aspect", ASPECT_MAX)
        return self._replace_track(track.model_copy(update={"aspect": text, "healing": True}))

    def clear_consequence(self, key: str) -> Character:
        track = self._consequence(key)
        result = self._replace_track(track.cleared())
        # An extra mild slot no longer earned disappears once it is empty.
        return result._evolve(lambda c: setattr(c, "tracks", c._derived_tracks()))

    # ----- tracks: conditions -----

    def _condition(self, key: str) -> Track:
        track = self.track(key)
        if track.kind is not TrackKind.CONDITION:
            raise SheetError(f"{track.label} is not a condition.")
        return track

    def take_condition(self, key: str, note: str | None = None) -> Character:
        """Mark a condition. Lasting ones need both boxes empty and mark both at once;
        others mark their next empty box."""
        track = self._condition(key)
        new = track.model_copy(deep=True)
        if track.recovery is Recovery.LASTING:
            if not track.is_free:
                raise SheetError(
                    f"{track.label} is lasting and can only be taken when all its boxes are "
                    "empty; it has not recovered yet."
                )
            for box in new.boxes:
                box.marked = True
            new.healing = False
        else:
            index = track.first_free_index()
            if index is None:
                raise SheetError(f"Every box of {track.label} is already marked.")
            new.boxes[index].marked = True
        if note is not None:
            new.aspect = clean_text(note, "condition note", ASPECT_MAX)
        return self._replace_track(new)

    def begin_condition_recovery(self, key: str) -> Character:
        """A lasting condition starts to recover: erase one of its marked boxes."""
        track = self._condition(key)
        if track.recovery is not Recovery.LASTING:
            raise SheetError(f"{track.label} is not lasting; clear it instead.")
        if track.healing:
            raise SheetError(f"{track.label} is already recovering.")
        marked = [i for i, b in enumerate(track.boxes) if b.marked]
        if not marked:
            raise SheetError(f"{track.label} is not marked.")
        new = track.with_box(marked[-1], False)
        new.healing = True
        return self._replace_track(new)

    def clear_condition(self, key: str) -> Character:
        return self._replace_track(self._condition(key).cleared())

    # ----- tracks: adding custom ones -----

    def add_track(self, track: Track) -> Character:
        if any(t.key.casefold() == track.key.casefold() for t in self.tracks):
            raise SheetError(f"{self.name} already has a track called '{track.key}'.")
        return self._evolve(lambda c: c.tracks.append(track.model_copy(deep=True)))


# ----- conditions and NPC helpers -----


def condition_track(
    key: str, label: str, recovery: Recovery, value: int = 1, boxes: int | None = None
) -> Track:
    """A condition: lasting ones have two boxes unless told otherwise, the rest one."""
    count = boxes if boxes is not None else (2 if recovery is Recovery.LASTING else 1)
    if not 1 <= count <= MAX_BOXES:
        raise SheetError(f"A condition has 1 to {MAX_BOXES} boxes.")
    return Track(
        key=clean_text(key, "condition key", TRACK_LABEL_MAX),
        label=clean_text(label, "condition name", TRACK_LABEL_MAX),
        kind=TrackKind.CONDITION,
        boxes=[Box(value=value) for _ in range(count)],
        absorb=value,
        recovery=recovery,
    )


def npc_stress_track(boxes: int) -> Track:
    return Track(
        key="stress",
        label="Stress",
        kind=TrackKind.STRESS,
        boxes=[Box(value=1) for _ in range(boxes)],
        recovery=Recovery.FLEETING,
    )


def new_character(
    name: str,
    *,
    skills: Mapping[str, int] | None = None,
    skill_list: SkillList | None = None,
    stress_style: StressStyle = StressStyle.CONDENSED,
    npc_kind: NpcKind | None = None,
) -> Character:
    """A blank PC (or major NPC) with stress and consequence slots derived from its skills."""
    base = Character(
        name=clean_text(name, "name", NAME_MAX), stress_style=stress_style, npc_kind=npc_kind
    )
    return base.set_skills(dict(skills or {}), skill_list)


def new_minor_npc(
    name: str,
    aspects: list[str],
    skills: Mapping[str, int],
    stress_boxes: int = 0,
    stunt: Stunt | None = None,
    skill_list: SkillList | None = None,
) -> Character:
    """A minor NPC: one or two aspects, one or two skills, 0-3 stress boxes, no consequences."""
    npc = Character(name=clean_text(name, "name", NAME_MAX), npc_kind=NpcKind.MINOR, refresh=0)
    npc = npc.model_copy(update={"fate_points": 0})
    for text in aspects:
        npc = npc.set_aspect(AspectKind.FREE, text)
    npc = npc.set_skills(dict(skills), skill_list)
    if not 0 <= stress_boxes <= 3:
        raise SheetError("A minor NPC has zero to three stress boxes.")
    if stress_boxes:
        npc = npc.add_track(npc_stress_track(stress_boxes))
    if stunt is not None:
        npc = npc.add_stunt(stunt)
    check_npc(npc)
    return npc


def check_npc(character: Character) -> None:
    """NPC limits: minor NPCs are small; major NPCs and monsters have no starting limits."""
    if character.npc_kind is not NpcKind.MINOR:
        return
    if not 1 <= len(character.aspects) <= 2:
        raise SheetError("A minor NPC has one or two aspects - usually just what they are.")
    rated = [k for k, v in character.skills.items() if v != 0]
    if not 1 <= len(rated) <= 2:
        raise SheetError("A minor NPC has one or two skills that say what they are good at.")
    boxes = sum(len(t.boxes) for t in character.tracks_of(TrackKind.STRESS))
    if boxes > 3:
        raise SheetError("A minor NPC has at most three stress boxes.")
    if character.tracks_of(TrackKind.CONSEQUENCE):
        raise SheetError("Minor NPCs take no consequences; a big hit simply takes them out.")
    if len(character.stunts) > 1:
        raise SheetError("A minor NPC has at most one stunt.")


def make_npc(character: Character, kind: NpcKind) -> Character:
    """Turn a sheet into an NPC of `kind` (minor NPCs lose consequence slots)."""

    def mutate(c: Character) -> None:
        c.npc_kind = kind
        if kind is NpcKind.MINOR:
            c.tracks = [t for t in c.tracks if t.kind is not TrackKind.CONSEQUENCE]

    result = character._evolve(mutate)
    check_npc(result)
    return result


# ----- mantles -----


def apply_mantle(
    character: Character,
    core_stunts: list[Stunt],
    conditions: list[Track],
    mantle_name: str | None = None,
) -> Character:
    """Add a mantle's core stunts (free, marked core) and its conditions to a sheet. DFC:
    beside the core stunts one stunt is free, more cost refresh; the free stunts a sheet
    already holds stay free (nothing is charged after the fact)."""
    result = character
    if mantle_name is not None:
        name = clean_text(mantle_name, "mantle name", NAME_MAX)
        result = result._evolve(lambda c: setattr(c, "mantle", name))
    if result.npc_kind is None:
        held = sum(1 for s in result.stunts if not s.core and s.cost == 0)
        free = min(result.free_stunts, max(MANTLE_FREE_STUNTS, held))
        result = result._evolve(lambda c: setattr(c, "free_stunts", free))
    for stunt in core_stunts:
        result = result.add_stunt(stunt.model_copy(update={"core": True, "cost": 0}))
    for track in conditions:
        result = result.add_track(track)
    return result


# ----- DFC creation order as a resumable draft -----


__all__ = [
    "MILD",
    "MODERATE",
    "SEVERE",
    "Aspect",
    "AspectKind",
    "Character",
    "NpcKind",
    "SheetError",
    "apply_mantle",
    "check_npc",
    "condition_track",
    "make_npc",
    "new_character",
    "new_minor_npc",
    "npc_stress_track",
]
