"""Skill lists, skill lookup, and the two shape rules for ratings (pyramid and columns).

The default list is Fate Condensed's 19 skills from data/skills.yaml; a campaign may pass its own
`SkillList`. Lookups are case-insensitive and suggest the closest name when nothing matches.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

import yaml
from pydantic import BaseModel, Field, field_validator

from bot.errors import RuleError
from bot.fate.ladder import describe

DATA_FILE = Path(__file__).resolve().parents[2] / "data" / "skills.yaml"
SKILL_NAME_MAX = 40
SKILL_LIST_MAX = 50
# Creation pyramid: rating -> how many skills sit at it (everything else Mediocre).
CREATION_PYRAMID: dict[int, int] = {4: 1, 3: 2, 2: 3, 1: 4}


class UnknownSkillError(RuleError):
    """A skill name that is not on the campaign's list."""


class PyramidError(RuleError):
    """Skill ratings that break the creation pyramid or the column rule."""


class SkillInfo(BaseModel):
    name: str = Field(min_length=1, max_length=SKILL_NAME_MAX)
    description: str = Field(default="", max_length=200)


class SkillList(BaseModel):
    """An ordered list of skills; the campaign's vocabulary for ratings and stunts."""

    skills: list[SkillInfo] = Field(min_length=1, max_length=SKILL_LIST_MAX)

    @field_validator("skills")
    @classmethod
    def _unique_names(cls, skills: list[SkillInfo]) -> list[SkillInfo]:
        seen: set[str] = set()
        for skill in skills:
            key = skill.name.strip().casefold()
            if key in seen:
                raise ValueError(f"The skill '{skill.name}' is listed twice.")
            seen.add(key)
        return skills

    @classmethod
    def from_names(cls, names: Iterable[str]) -> SkillList:
        """A custom list from bare names (a campaign setting). Raises RuleError if unusable."""
        cleaned = [n.strip() for n in names if n.strip()]
        if not cleaned:
            raise RuleError("A skill list needs at least one skill name.")
        if len(cleaned) > SKILL_LIST_MAX:
            raise RuleError(f"A skill list may hold at most {SKILL_LIST_MAX} skills.")
        too_long = [n for n in cleaned if len(n) > SKILL_NAME_MAX]
        if too_long:
            raise RuleError(
                f"Skill names are limited to {SKILL_NAME_MAX} characters; "
                f"shorten '{too_long[0][:50]}'."
            )
        lowered = Counter(n.casefold() for n in cleaned)
        dupes = [n for n in cleaned if lowered[n.casefold()] > 1]
        if dupes:
            raise RuleError(f"The skill '{dupes[0]}' is listed twice; keep one.")
        return cls(skills=[SkillInfo(name=n) for n in cleaned])

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.skills]

    def __len__(self) -> int:
        return len(self.skills)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def find(self, name: str) -> str | None:
        """The canonical spelling of `name`, or None."""
        wanted = name.strip().casefold()
        for skill in self.skills:
            if skill.name.casefold() == wanted:
                return skill.name
        return None

    def resolve(self, name: str) -> str:
        """The canonical spelling of `name`; raises UnknownSkillError with a suggestion."""
        found = self.find(name)
        if found is not None:
            return found
        shown = name.strip()[:SKILL_NAME_MAX] or "(empty)"
        by_lower = {s.name.casefold(): s.name for s in self.skills}
        close = difflib.get_close_matches(name.strip().casefold(), list(by_lower), n=1, cutoff=0.6)
        if close:
            raise UnknownSkillError(
                f"There is no skill called '{shown}'. Did you mean {by_lower[close[0]]}?"
            )
        raise UnknownSkillError(
            f"There is no skill called '{shown}'. Pick one of: {', '.join(self.names)}."
        )

    def suggestions(self, prefix: str, limit: int = 25) -> list[str]:
        """Names for autocomplete: prefix matches first, then substring matches."""
        needle = prefix.strip().casefold()
        starts = [n for n in self.names if n.casefold().startswith(needle)]
        inside = [n for n in self.names if needle in n.casefold() and n not in starts]
        return (starts + inside)[:limit]


@lru_cache(maxsize=1)
def default_skills() -> SkillList:
    """Fate Condensed's 19 skills, loaded once from data/skills.yaml."""
    raw = yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))
    return SkillList.model_validate(raw)


def rank_counts(ratings: Mapping[str, int]) -> Counter[int]:
    """How many skills sit at each rating (Mediocre ones only if listed explicitly)."""
    return Counter(ratings.values())


def check_pyramid(ratings: Mapping[str, int], skill_list: SkillList | None = None) -> None:
    """Creation shape: one Great, two Good, three Fair, four Average, the rest Mediocre.

    Raises PyramidError naming the first rank that is off.
    """
    skill_list = skill_list or default_skills()
    for name in ratings:
        skill_list.resolve(name)
    counts = rank_counts({k: v for k, v in ratings.items() if v != 0})
    for rating in sorted(counts, reverse=True):
        if rating not in CREATION_PYRAMID:
            rank = describe(rating)
            raise PyramidError(
                f"At creation no skill may be {rank}; ratings run from Average (+1) "
                "to Great (+4), with the rest Mediocre (+0)."
            )
    for rating, wanted in sorted(CREATION_PYRAMID.items(), reverse=True):
        have = counts.get(rating, 0)
        if have != wanted:
            raise PyramidError(
                f"The starting pyramid needs {_count_word(wanted)} {describe(rating)} "
                f"skill{'s' if wanted > 1 else ''}; you have {have}. "
                "Use one Great, two Good, three Fair and four Average."
            )
    needed = sum(CREATION_PYRAMID.values())
    if len(skill_list) < needed:
        raise PyramidError(
            f"The skill list has only {len(skill_list)} skills; the pyramid needs {needed}."
        )


def column_violation(ratings: Mapping[str, int], list_size: int | None = None) -> str | None:
    """The column rule: no rank holds more skills than the rank just below it.

    Returns a sentence naming the offending rank, or None when the shape is fine. When
    `list_size` is given, Mediocre (+0) counts every skill not rated above it.
    """
    positive = {k: v for k, v in ratings.items() if v > 0}
    counts = rank_counts(positive)
    if not counts:
        return None
    for rating in range(max(counts), 0, -1):
        above = counts.get(rating, 0)
        if rating == 1:
            if list_size is None:
                continue
            below = list_size - len(positive)
        else:
            below = counts.get(rating - 1, 0)
        if above > below:
            fix = (
                f"Raise a skill to {describe(rating - 1)} first."
                if rating > 1
                else "Lower one of them, or add skills to the list."
            )
            return (
                f"{describe(rating)} holds {above} skill{'s' if above != 1 else ''} but "
                f"{describe(rating - 1)} below it holds only {below}; no rank may hold more "
                f"skills than the rank below it. {fix}"
            )
    return None


def check_columns(ratings: Mapping[str, int], list_size: int | None = None) -> None:
    problem = column_violation(ratings, list_size)
    if problem:
        raise PyramidError(problem)


def _count_word(n: int) -> str:
    words = {1: "one", 2: "two", 3: "three", 4: "four"}
    return words.get(n, str(n))
