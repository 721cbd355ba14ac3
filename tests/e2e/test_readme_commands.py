"""The command reference is generated from the command tree and never stale; the pages name only
real commands and options, under the names Discord shows."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from discord import app_commands

from bot.client import offline_command_tree
from bot.ui.command_reference import leaves, render_reference
from tests.conftest import make_settings

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.fixture(scope="module")
def top_level() -> list[Any]:
    import asyncio

    settings = make_settings("sqlite+aiosqlite:///:memory:")
    return asyncio.run(offline_command_tree(settings))


def commands_of(top_level: list[Any]) -> dict[str, app_commands.Command[Any, Any, Any]]:
    return {c.qualified_name: c for node in top_level for c in leaves(node)}


def test_the_reference_is_up_to_date(top_level: list[Any]) -> None:
    current = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert current == render_reference(top_level), (
        "docs/commands.md is stale: run `python -m bot command-reference`"
    )


def test_every_command_and_option_has_help(top_level: list[Any]) -> None:
    commands = commands_of(top_level)
    assert len(commands) > 40
    for name, command in commands.items():
        assert command.description and command.description != "…", name
        for parameter in command.parameters:
            assert parameter.description and parameter.description != "…", (
                f"/{name} {parameter.display_name} needs help text"
            )


def mentions(text: str) -> list[str]:
    """Every inline code span that starts like a slash command: `/scene start aspects:...`
    (not a path such as `/api/v10`)."""
    return re.findall(r"`(/[a-z][^`/]*)`", text)


def test_pages_name_real_commands_and_options(top_level: list[Any]) -> None:
    commands = commands_of(top_level)
    wrong: list[str] = []
    for page in PAGES:
        if page.name == "commands.md":
            continue
        for span in mentions(page.read_text(encoding="utf-8")):
            words = span[1:].split()
            prefixes = (" ".join(words[:n]) for n in range(len(words), 0, -1))
            name = next((p for p in prefixes if p in commands), None)
            if name is None:
                if not any(c.startswith(words[0]) for c in commands):
                    wrong.append(f"{page.name}: {span}")
                continue
            shown = {p.display_name for p in commands[name].parameters}
            for option in re.findall(r"(?:^|\s)([a-z][a-z_-]*):", span[len(name) + 1 :]):
                if option not in shown:
                    wrong.append(f"{page.name}: {span} (no option {option!r})")
    assert not wrong, wrong


def test_the_readme_is_a_short_page() -> None:
    assert len((ROOT / "README.md").read_bytes()) < 10_000
