"""Stunts and the stunt writer (the seed's two templates).

Bonus-granting: "Because I <gift>, I get +2 when I use <skill> to <action> when <circumstance>."
Rule-changing: "Because I <gift>, I can <feat>, but only <limitation>."
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from bot.errors import RuleError
from bot.fate.skills import SKILL_NAME_MAX, SkillList, default_skills

STUNT_NAME_MAX = 80
STUNT_TEXT_MAX = 400
STUNT_PART_MAX = 150
STANDARD_BONUS = 2


class Action(StrEnum):
    OVERCOME = "overcome"
    CREATE_ADVANTAGE = "create an advantage"
    ATTACK = "attack"
    DEFEND = "defend"


_ACTION_WORDS = {
    "overcome": Action.OVERCOME,
    "create an advantage": Action.CREATE_ADVANTAGE,
    "create advantage": Action.CREATE_ADVANTAGE,
    "create_advantage": Action.CREATE_ADVANTAGE,
    "caa": Action.CREATE_ADVANTAGE,
    "advantage": Action.CREATE_ADVANTAGE,
    "attack": Action.ATTACK,
    "defend": Action.DEFEND,
}


def parse_action(text: str) -> Action:
    """One of the four actions from loose input ("CaA", "create advantage", "Attack")."""
    key = " ".join(text.strip().lower().split())
    if key in _ACTION_WORDS:
        return _ACTION_WORDS[key]
    raise RuleError(
        f"'{text.strip()[:40]}' is not an action. Use overcome, create an advantage, "
        "attack or defend."
    )


class Stunt(BaseModel):
    """A stunt on a sheet.

    `skill`/`actions`/`bonus` are filled for bonus-granting stunts so that a roll can apply
    them (no actions: any action); rule-changing stunts leave them empty. `cost` is the refresh
    paid for it (0 when it used a free slot), `core` marks a mantle's core stunt (never uses a
    free slot).
    """

    name: str = Field(min_length=1, max_length=STUNT_NAME_MAX)
    text: str = Field(default="", max_length=STUNT_TEXT_MAX)
    skill: str | None = Field(default=None, max_length=SKILL_NAME_MAX)
    actions: tuple[Action, ...] = Field(default=(), max_length=4)
    bonus: int = Field(default=0, ge=-10, le=10)
    cost: int = Field(default=0, ge=0, le=10)
    core: bool = False

    @model_validator(mode="before")
    @classmethod
    def _single_action(cls, data: Any) -> Any:
        """Sheets saved before stunts could name two actions stored one `action`."""
        if isinstance(data, dict) and "action" in data:
            data = dict(data)
            action = data.pop("action")
            if action is not None and not data.get("actions"):
                data["actions"] = (action,)
        return data

    @field_validator("name", "text")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @property
    def grants_bonus(self) -> bool:
        return self.skill is not None and self.bonus != 0

    def applies_to(self, skill: str, action: StrEnum | None) -> bool:
        """A bonus for this skill and, when the roll names its action, one of the stunt's
        (`action` is this module's Action or the roll's, matched by name)."""
        if not self.grants_bonus or (self.skill or "").casefold() != skill.casefold():
            return False
        return action is None or not self.actions or action.name in {a.name for a in self.actions}


def _clause(value: str, label: str, *, drop_prefixes: tuple[str, ...] = ()) -> str:
    """A template blank, trimmed of words the template already supplies."""
    cleaned = " ".join(value.strip().split()).rstrip(".,;")
    lowered = cleaned.lower()
    for prefix in drop_prefixes:
        if lowered.startswith(prefix):
            cleaned = cleaned[len(prefix) :].lstrip()
            lowered = cleaned.lower()
    if not cleaned:
        raise RuleError(f"Fill in {label}.")
    if len(cleaned) > STUNT_PART_MAX:
        raise RuleError(f"Keep {label} under {STUNT_PART_MAX} characters.")
    return cleaned


def _name(name: str) -> str:
    cleaned = " ".join(name.strip().split())
    if not cleaned:
        raise RuleError("Give the stunt a name.")
    if len(cleaned) > STUNT_NAME_MAX:
        raise RuleError(f"Stunt names are limited to {STUNT_NAME_MAX} characters.")
    return cleaned


def write_bonus_stunt(
    name: str,
    because: str,
    skill: str,
    action: str | Action,
    circumstance: str,
    skills: SkillList | None = None,
) -> Stunt:
    """The bonus-granting template: +2 to one skill and action in a circumstance."""
    skills = skills or default_skills()
    canonical = skills.resolve(skill)
    chosen = action if isinstance(action, Action) else parse_action(action)
    gift = _clause(because, "what makes you amazing", drop_prefixes=("because i ", "because "))
    when = _clause(circumstance, "the circumstance", drop_prefixes=("when ",))
    text = (
        f"Because I {gift}, I get +{STANDARD_BONUS} when I use {canonical} to "
        f"{chosen.value} when {when}."
    )
    return Stunt(
        name=_name(name), text=text, skill=canonical, actions=(chosen,), bonus=STANDARD_BONUS
    )


def write_rule_stunt(name: str, because: str, feat: str, limitation: str) -> Stunt:
    """The rule-changing template: a feat the rules normally forbid, with a limit."""
    gift = _clause(because, "what makes you amazing", drop_prefixes=("because i ", "because "))
    can = _clause(feat, "what you can do", drop_prefixes=("i can ",))
    only = _clause(limitation, "the limitation", drop_prefixes=("but only ", "only "))
    text = f"Because I {gift}, I can {can}, but only {only}."
    return Stunt(name=_name(name), text=text)
