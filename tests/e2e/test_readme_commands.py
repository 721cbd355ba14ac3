"""Every slash command the bot registers is documented in the README, with help on every option."""

from __future__ import annotations

from pathlib import Path

from discord import app_commands

from bot.testing.harness import Table

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


async def test_every_command_is_in_the_readme_and_has_help(table: Table) -> None:
    assert table.bot is not None
    commands = [
        c
        for c in table.bot.tree.walk_commands()  # type: ignore[attr-defined]
        if isinstance(c, app_commands.Command)
    ]
    assert len(commands) > 40
    undocumented = [c.qualified_name for c in commands if f"/{c.qualified_name}" not in README]
    assert not undocumented, f"document these in README.md: {undocumented}"
    for command in commands:
        assert command.description and command.description != "…", command.qualified_name
        for parameter in command.parameters:
            assert parameter.description and parameter.description != "…", (
                f"/{command.qualified_name} {parameter.name} needs help text"
            )
