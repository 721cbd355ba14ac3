"""Dresden Files Condensed mantles: the seed's conversion notes for DFA mantles, as data.

data/mantles.yaml holds every mantle the seed's "Converting DFA Mantles" section names, with
only what the seed gives: names, the Fate Condensed skill each stunt or condition now rolls,
changed bonuses, or "as-is". DFA's own text is not reproduced; the GM completes the rest in
the campaign's custom stunt/condition editor.
"""

from __future__ import annotations

import difflib
import math
from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from bot.dfc.creation import CreationDraft
from bot.errors import RuleError
from bot.fate.sheet import condition_track
from bot.fate.skills import default_skills
from bot.fate.stunts import Stunt, parse_action
from bot.fate.tracks import Recovery, Track

DATA_FILE = Path(__file__).resolve().parents[2] / "data" / "mantles.yaml"
NAME_MAX = 60
NOTE_MAX = 400  # fits a stunt's text on the sheet (bot.fate.stunts.STUNT_TEXT_MAX)

ActionName = Literal["overcome", "create_advantage", "attack", "defend"]


class MantleDataError(ValueError):
    """data/mantles.yaml (or a pack) does not match the schema; the message has the path."""


class MantleNotFoundError(RuleError):
    """No mantle by that name."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _check_skills(skills: tuple[str, ...]) -> tuple[str, ...]:
    known = default_skills()
    for skill in skills:
        if skill not in known.names:
            raise ValueError(f"'{skill}' is not one of Fate Condensed's skills")
    return skills


class SkillSwap(_Strict):
    """Swap the ratings of `swaps` skills from column A with as many from column B."""

    swaps: int = Field(ge=1, le=5)
    column_a: tuple[str, ...] = Field(min_length=1)
    column_b: tuple[str, ...] = Field(min_length=1)

    @field_validator("column_a", "column_b")
    @classmethod
    def _known_skills(cls, skills: tuple[str, ...]) -> tuple[str, ...]:
        return _check_skills(skills)


class MantleStunt(_Strict):
    name: str = Field(min_length=1, max_length=NAME_MAX)
    renamed_to: str | None = Field(default=None, min_length=1, max_length=NAME_MAX)
    skills: tuple[str, ...] = ()  # the Fate Condensed skills it rolls after conversion
    actions: tuple[ActionName, ...] = ()
    bonus: int | None = Field(default=None, ge=-8, le=8)
    stress: int | None = Field(default=None, ge=1, le=20)  # when the stunt grants stress
    costs_fate_point: bool = False
    conversion: str = Field(min_length=1, max_length=NOTE_MAX)

    @field_validator("skills")
    @classmethod
    def _known_skills(cls, skills: tuple[str, ...]) -> tuple[str, ...]:
        return _check_skills(skills)

    @property
    def display_name(self) -> str:
        return self.renamed_to or self.name


class MantleCondition(_Strict):
    """A mantle's unique condition. Kind, boxes and stress are None where the seed is silent."""

    name: str = Field(min_length=1, max_length=NAME_MAX)
    kind: Recovery | None = None
    boxes: int | None = Field(default=None, ge=1, le=10)
    stress: int | None = Field(default=None, ge=1, le=20)  # shifts it absorbs when marked
    bonus: int | None = Field(default=None, ge=-8, le=8)
    skills: tuple[str, ...] = ()
    skill_swap: SkillSwap | None = None
    conversion: str = Field(min_length=1, max_length=NOTE_MAX)

    @field_validator("skills")
    @classmethod
    def _known_skills(cls, skills: tuple[str, ...]) -> tuple[str, ...]:
        return _check_skills(skills)

    @property
    def complete(self) -> bool:
        """True when the data says enough to put it on a sheet as a track."""
        return self.kind is not None

    @model_validator(mode="after")
    def _lasting_has_two_boxes(self) -> MantleCondition:
        if self.kind is Recovery.LASTING and self.boxes not in (None, 2):
            raise ValueError("a lasting condition has two boxes")
        return self


class MantleGroup(_Strict):
    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    name: str = Field(min_length=1, max_length=NAME_MAX)


class Mantle(_Strict):
    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=NAME_MAX)
    name: str = Field(min_length=1, max_length=NAME_MAX)
    group: str
    as_is: bool = False  # the seed says it needs no conversion
    custom: bool = False  # built from stunts the player writes
    notes: str = Field(default="", max_length=NOTE_MAX)
    conditions: tuple[MantleCondition, ...] = ()
    core_stunts: tuple[MantleStunt, ...] = ()
    additional_stunts: tuple[MantleStunt, ...] = ()

    @model_validator(mode="after")
    def _says_something(self) -> Mantle:
        has_entries = self.conditions or self.core_stunts or self.additional_stunts
        if not (has_entries or self.as_is or self.custom):
            raise ValueError("a mantle needs conditions or stunts, or as_is/custom set")
        if (self.as_is or self.custom) and not self.notes:
            raise ValueError("an as-is or custom mantle needs notes")
        names = [s.name.casefold() for s in (*self.core_stunts, *self.additional_stunts)]
        if len(names) != len(set(names)):
            raise ValueError("a stunt is listed twice")
        return self


class MantleData(_Strict):
    version: int = Field(ge=1)
    source: str = Field(min_length=1)
    groups: tuple[MantleGroup, ...] = Field(min_length=1)
    mantles: tuple[Mantle, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> MantleData:
        group_keys = {g.key for g in self.groups}
        keys: set[str] = set()
        names: set[str] = set()
        for index, mantle in enumerate(self.mantles):
            if mantle.group not in group_keys:
                raise ValueError(
                    f"mantles[{index}] ({mantle.name}): unknown group '{mantle.group}'"
                )
            if mantle.key in keys or _normal(mantle.name) in names:
                raise ValueError(f"mantles[{index}] ({mantle.name}): listed twice")
            keys.add(mantle.key)
            names.add(_normal(mantle.name))
        return self

    def group_name(self, key: str) -> str:
        return next(g.name for g in self.groups if g.key == key)


# --- loading -------------------------------------------------------------------------------


def _yaml_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(top level)"


def parse_mantle_data(raw: Any, source: str = "mantles.yaml") -> MantleData:
    """Validate already-parsed YAML; errors name the YAML path (mantles[3].core_stunts[0])."""
    try:
        return MantleData.model_validate(raw)
    except ValidationError as error:
        lines = []
        for issue in error.errors()[:10]:
            path = _yaml_path(tuple(issue["loc"]))
            lines.append(f"{source}: {path}: {issue['msg']}")
        raise MantleDataError("\n".join(lines)) from None


def load_mantle_file(path: Path) -> MantleData:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise MantleDataError(f"{path.name}: not valid YAML: {error}") from None
    return parse_mantle_data(raw, path.name)


@cache
def mantle_data() -> MantleData:
    """The packaged mantle data, validated once."""
    return load_mantle_file(DATA_FILE)


def list_mantles() -> list[Mantle]:
    """All mantles, in the seed's order (grouped)."""
    return list(mantle_data().mantles)


def mantles_by_group() -> dict[str, list[Mantle]]:
    """Group display name -> mantles, in order."""
    data = mantle_data()
    grouped: dict[str, list[Mantle]] = {g.name: [] for g in data.groups}
    for mantle in data.mantles:
        grouped[data.group_name(mantle.group)].append(mantle)
    return grouped


def get_mantle(name: str) -> Mantle:
    """A mantle by name or key, ignoring case, apostrophes and spacing; suggests on a miss."""
    wanted = _normal(name)
    mantles = list_mantles()
    for mantle in mantles:
        if wanted in (_normal(mantle.name), _normal(mantle.key)):
            return mantle
    by_normal = {_normal(m.name): m.name for m in mantles}
    close = difflib.get_close_matches(wanted, list(by_normal), n=1, cutoff=0.6)
    shown = name.strip()[:NAME_MAX] or "(empty)"
    if close:
        raise MantleNotFoundError(
            f"There is no mantle called '{shown}'. Did you mean {by_normal[close[0]]}?"
        )
    raise MantleNotFoundError(
        f"There is no mantle called '{shown}'. Use /mantle list to see them all."
    )


def search_mantles(prefix: str, limit: int = 25) -> list[Mantle]:
    """Autocomplete: prefix matches first, then substring matches."""
    needle = _normal(prefix)
    mantles = list_mantles()
    starts = [m for m in mantles if _normal(m.name).startswith(needle)]
    inside = [m for m in mantles if needle in _normal(m.name) and m not in starts]
    return (starts + inside)[:limit]


def _normal(text: str) -> str:
    kept = "".join(ch for ch in text.casefold() if ch.isalnum() or ch.isspace() or ch == "_")
    return " ".join(kept.replace("_", " ").split())


# --- stress under one-point boxes ----------------------------------------------------------


def halved_stress(value: int) -> int:
    """The seed's advice for one-point stress boxes: halve a condition's or stunt's stress.

    Rounds up, so that nothing drops to zero: 4 -> 2 (the seed's Wounded example), 3 -> 2, 1 -> 1.
    """
    if value < 0:
        raise ValueError("stress values are not negative")
    return math.ceil(value / 2)


def stress_for_style(value: int, *, one_point_boxes: bool) -> int:
    return halved_stress(value) if one_point_boxes else value


def condition_tracks(mantle: Mantle, *, one_point_boxes: bool) -> list[Track]:
    """Tracks for the mantle's conditions whose kind is known (see `incomplete_conditions`)."""
    tracks = []
    for condition in mantle.conditions:
        if condition.kind is None:
            continue
        value = stress_for_style(condition.stress or 1, one_point_boxes=one_point_boxes)
        tracks.append(
            condition_track(
                key=f"{mantle.key}:{_normal(condition.name).replace(' ', '_')}",
                label=condition.name,
                recovery=condition.kind,
                value=value,
                boxes=condition.boxes,
            )
        )
    return tracks


def incomplete_conditions(mantle: Mantle) -> list[MantleCondition]:
    """Conditions the seed only names: the GM completes them from DFA in the editor."""
    return [c for c in mantle.conditions if not c.complete]


def core_stunts(mantle: Mantle) -> list[Stunt]:
    """The mantle's core stunts as sheet stunts (core, free), with their conversion as text."""
    return [to_sheet_stunt(s, core=True) for s in mantle.core_stunts]


def to_sheet_stunt(stunt: MantleStunt, *, core: bool = False) -> Stunt:
    """A sheet stunt; a bonus only when the conversion pins a single skill, for the actions it
    names (Superior Speed: Athletics to defend or create an advantage, not to attack)."""
    single_skill = stunt.skills[0] if len(stunt.skills) == 1 else None
    bonus = stunt.bonus if (stunt.bonus is not None and single_skill is not None) else 0
    return Stunt(
        name=stunt.display_name,
        text=stunt.conversion,
        skill=single_skill if bonus else None,
        actions=tuple(parse_action(a) for a in stunt.actions) if bonus else (),
        bonus=bonus,
        core=core,
    )


def additional_stunts(mantle: Mantle) -> list[Stunt]:
    """The mantle's additional stunts as sheet stunts (not core: they take a stunt slot)."""
    return [to_sheet_stunt(s) for s in mantle.additional_stunts]


def pick_additional_stunts(mantle: Mantle, names: list[str]) -> list[Stunt]:
    """The additional stunts called `names` (as listed, ignoring case), in that order."""
    by_name = {s.display_name.casefold(): s for s in mantle.additional_stunts}
    picked: list[Stunt] = []
    for name in names:
        found = by_name.get(name.strip().casefold())
        if found is None:
            raise RuleError(
                f"The {mantle.name} mantle has no additional stunt called '{name.strip()[:60]}'; "
                "pick one from the list or write your own."
            )
        if any(s.name == found.display_name for s in picked):
            raise RuleError(f"{found.display_name} is picked twice; pick each stunt once.")
        picked.append(to_sheet_stunt(found))
    return picked


def open_additional_stunts(draft: CreationDraft) -> list[Stunt]:
    """The additional stunts of the draft's mantle that are not on the draft yet."""
    if not draft.mantle:
        return []
    try:
        stunts = additional_stunts(get_mantle(draft.mantle))
    except RuleError:  # a mantle since renamed in the data: writing stunts still works
        return []
    taken = {s.name.casefold() for s in draft.mantle_stunts + draft.free_stunts}
    return [s for s in stunts if s.name.casefold() not in taken]


def take_additional_stunts(draft: CreationDraft, names: list[str], *, buy: bool) -> CreationDraft:
    """The draft with its mantle's additional stunts `names` as its free stunt, or bought."""
    if not draft.mantle:
        raise RuleError("This character has no mantle; write your stunts instead.")
    picked = pick_additional_stunts(get_mantle(draft.mantle), names)
    return draft.buy_stunts(picked) if buy else draft.choose_stunts(picked)
