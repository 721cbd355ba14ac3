"""Short rules reference topics for /rules, loaded from data/rules.yaml.

The texts are the project's own summaries. The loader validates once (cached) and the
search answers autocomplete from memory.
"""

from __future__ import annotations

import difflib
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from bot.errors import RuleError

DATA_FILE = Path(__file__).resolve().parents[2] / "data" / "rules.yaml"
TOPIC_TEXT_MAX = 1500
TOPIC_TITLE_MAX = 60
AUTOCOMPLETE_LIMIT = 25  # Discord's cap on autocomplete choices


class RulesDataError(ValueError):
    """data/rules.yaml does not match the schema; the message names the path."""


class UnknownTopicError(RuleError):
    """No rules topic by that name."""


class RulesTopic(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=40)
    title: str = Field(min_length=1, max_length=TOPIC_TITLE_MAX)
    aliases: tuple[str, ...] = ()
    text: str = Field(min_length=1, max_length=TOPIC_TEXT_MAX)

    def names(self) -> tuple[str, ...]:
        return (self.key.replace("_", " "), self.title, *self.aliases)


class RulesReference(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(ge=1)
    topics: tuple[RulesTopic, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> RulesReference:
        keys = [t.key for t in self.topics]
        titles = [t.title.casefold() for t in self.topics]
        for index, topic in enumerate(self.topics):
            if keys.index(topic.key) != index or titles.index(topic.title.casefold()) != index:
                raise ValueError(f"topic '{topic.title}' is listed twice")
        return self


def parse_rules(raw: Any, source: str = "rules.yaml") -> RulesReference:
    try:
        return RulesReference.model_validate(raw)
    except ValidationError as error:
        lines = []
        for issue in error.errors()[:10]:
            path = ""
            for part in issue["loc"]:
                path += (
                    f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
                )
            lines.append(f"{source}: {path or '(top level)'}: {issue['msg']}")
        raise RulesDataError("\n".join(lines)) from None


@cache
def rules_reference() -> RulesReference:
    """The packaged topics, validated once."""
    raw = yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))
    return parse_rules(raw, DATA_FILE.name)


def list_topics() -> list[RulesTopic]:
    return list(rules_reference().topics)


def _normal(text: str) -> str:
    return " ".join(text.casefold().replace("_", " ").replace("-", " ").split())


def get_topic(name: str) -> RulesTopic:
    """A topic by key, title or alias (any case); suggests the nearest on a miss."""
    wanted = _normal(name)
    topics = list_topics()
    for topic in topics:
        if wanted in (_normal(n) for n in topic.names()):
            return topic
    choices = {_normal(t.title): t.title for t in topics}
    close = difflib.get_close_matches(wanted, list(choices), n=1, cutoff=0.5)
    shown = name.strip()[:TOPIC_TITLE_MAX] or "(empty)"
    hint = f"Did you mean {choices[close[0]]}?" if close else "Pick one from the list."
    raise UnknownTopicError(f"There is no rules topic called '{shown}'. {hint}")


def search_topics(query: str, limit: int = AUTOCOMPLETE_LIMIT) -> list[RulesTopic]:
    """Autocomplete: topics whose title/alias starts with the query, then those containing it."""
    needle = _normal(query)
    topics = list_topics()
    if not needle:
        return topics[:limit]
    starts = [t for t in topics if any(_normal(n).startswith(needle) for n in t.names())]
    inside = [t for t in topics if t not in starts and any(needle in _normal(n) for n in t.names())]
    return (starts + inside)[:limit]
