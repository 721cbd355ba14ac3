"""Every custom id is declared in bot/ui/custom_ids.py, no two features share a prefix, no id is
read by another format's regex, and the widest id of every format fits Discord's 100 characters."""

from __future__ import annotations

import importlib
import pkgutil
import re
from typing import Any

import discord

import cogs
from bot.ui.custom_ids import ABSTRACT_TEMPLATE, CUSTOM_ID_LIMIT, FORMATS
from cogs.common.modals import PersistentModal


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub} | _subclasses(sub)
    return found


def _templated_components() -> dict[str, str]:
    """Every DynamicItem and PersistentModal of the cogs: class name -> its template."""
    for module in pkgutil.walk_packages(cogs.__path__, "cogs."):
        importlib.import_module(module.name)
    templates: dict[str, str] = {}
    for item in _subclasses(discord.ui.DynamicItem):
        pattern: Any = getattr(item, "__discord_ui_compiled_template__", None)
        if item.__module__.startswith("cogs.") and pattern is not None:
            templates[item.__qualname__] = pattern.pattern
    for modal in _subclasses(PersistentModal):
        if modal.__module__.startswith("cogs.") and modal.__template__ is not None:
            templates[modal.__qualname__] = modal.__template__.pattern
    return templates


def test_every_widest_id_is_read_back_by_its_own_regex_and_fits() -> None:
    for fmt in FORMATS:
        assert fmt.widest, fmt.template
        for custom_id in fmt.widest:
            assert re.fullmatch(fmt.template, custom_id), (custom_id, fmt.template)
            assert len(custom_id) <= CUSTOM_ID_LIMIT, (len(custom_id), custom_id)
            assert custom_id.split(":", 1)[0] in fmt.prefixes, (custom_id, fmt.prefixes)


def test_no_two_features_share_a_prefix() -> None:
    owner: dict[str, str] = {}
    for fmt in FORMATS:
        for prefix in fmt.prefixes:
            assert owner.setdefault(prefix, fmt.feature) == fmt.feature, (
                f"{prefix!r} is used by {owner[prefix]!r} and {fmt.feature!r}"
            )


def test_no_id_is_read_by_another_format() -> None:
    for fmt in FORMATS:
        for custom_id in fmt.widest:
            readers = [
                other.template for other in FORMATS if re.fullmatch(other.template, custom_id)
            ]
            assert readers == [fmt.template], (custom_id, readers)


def test_every_component_of_the_cogs_uses_a_declared_format() -> None:
    declared = {fmt.template for fmt in FORMATS} | {ABSTRACT_TEMPLATE}
    templates = _templated_components()
    assert len(templates) >= len(FORMATS)  # the walk found the cogs' components
    undeclared = {name: t for name, t in templates.items() if t not in declared}
    assert not undeclared, f"declare these in bot/ui/custom_ids.py: {undeclared}"


def test_the_regexes_reject_unbounded_ids() -> None:
    too_long = "9" * 21
    for fmt in FORMATS:
        for custom_id in fmt.widest:
            stretched = re.sub(r"\d{19}", too_long, custom_id, count=1)
            if stretched != custom_id:
                assert not re.fullmatch(fmt.template, stretched), stretched


def test_ids_past_their_column_are_refused_by_the_pattern() -> None:
    """A BIGINT row id ends at 2**63 - 1 and a version at 2**31 - 1: one more is refused
    before it reaches the database driver."""
    big, version = str(2**63 - 1), str(2**31 - 1)
    for fmt in FORMATS:
        for custom_id in fmt.widest:
            for widest, past in ((big, str(2**63)), (version, str(2**31))):
                if widest in custom_id.split(":"):
                    parts = custom_id.split(":")
                    stretched = ":".join(past if p == widest else p for p in parts)
                    assert not re.fullmatch(fmt.template, stretched), stretched


def test_every_component_that_names_a_row_checks_its_server() -> None:
    """Each DynamicItem and PersistentModal runs the scope check of cogs/common/scope.py."""
    from cogs.common.scope import ScopedItem

    _templated_components()
    classes = {
        cls
        for base in (discord.ui.DynamicItem, PersistentModal)
        for cls in _subclasses(base)
        if cls.__module__.startswith("cogs.")
    }
    unchecked = sorted(c.__qualname__ for c in classes if not issubclass(c, ScopedItem))
    assert not unchecked, f"mix ScopedItem into: {unchecked}"
