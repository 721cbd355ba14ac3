"""docs/commands.md, rendered from the bot's command tree (`python -m bot command-reference`).

The reference is generated so that it can never drift from what Discord shows: every command,
its description and every option with its help text, type, range and choices, under the name
Discord displays. A test compares the file with a fresh rendering.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from discord import AppCommandOptionType, app_commands

HEADER = """# Command reference

Generated from the bot's command tree by `python -m bot command-reference`; do not edit by hand
(`tests/e2e/test_readme_commands.py` fails when this file is stale). How the commands fit
together in play: [play.md](play.md); the game table: [game-table.md](game-table.md).

Every reply that only concerns you is ephemeral, and nothing the bot posts can ping anyone.
Options in `[brackets]` are optional.
"""

TYPE_WORDS: dict[AppCommandOptionType, str] = {
    AppCommandOptionType.string: "text",
    AppCommandOptionType.integer: "whole number",
    AppCommandOptionType.number: "number",
    AppCommandOptionType.boolean: "true/false",
    AppCommandOptionType.user: "user",
    AppCommandOptionType.channel: "channel",
    AppCommandOptionType.role: "role",
    AppCommandOptionType.mentionable: "user or role",
    AppCommandOptionType.attachment: "file",
}

Node = app_commands.Command[Any, Any, Any] | app_commands.Group


def signature(command: app_commands.Command[Any, Any, Any]) -> str:
    parts = [f"/{command.qualified_name}"]
    for parameter in command.parameters:
        name = parameter.display_name
        parts.append(name if parameter.required else f"[{name}]")
    return " ".join(parts)


def option_line(parameter: app_commands.Parameter) -> str:
    facts = ["required" if parameter.required else "optional", TYPE_WORDS[parameter.type]]
    if parameter.min_value is not None or parameter.max_value is not None:
        low = "" if parameter.min_value is None else f"{parameter.min_value:g}"
        high = "" if parameter.max_value is None else f"{parameter.max_value:g}"
        unit = " characters" if parameter.type is AppCommandOptionType.string else ""
        facts.append(f"{low} to {high}".strip() + unit)
    if parameter.autocomplete:
        facts.append("suggested as you type")
    line = f"- `{parameter.display_name}` ({', '.join(facts)}): {parameter.description}"
    if parameter.choices:
        line += " Choices: " + ", ".join(f"`{c.name}`" for c in parameter.choices) + "."
    return line


def command_block(command: app_commands.Command[Any, Any, Any]) -> list[str]:
    lines = [f"### `{signature(command)}`", "", command.description]
    options = [option_line(p) for p in command.parameters]
    if options:
        lines += ["", *options]
    return [*lines, ""]


def leaves(node: Node) -> Iterable[app_commands.Command[Any, Any, Any]]:
    if isinstance(node, app_commands.Command):
        yield node
        return
    for child in sorted(node.commands, key=lambda c: c.name):
        yield from leaves(child)


def render_reference(top_level: Iterable[Node]) -> str:
    """The whole reference: one section per top-level command or group, alphabetically."""
    nodes = sorted(top_level, key=lambda n: n.name)
    lines = [HEADER, "Contents: " + ", ".join(f"[/{n.name}](#{n.name})" for n in nodes) + ".", ""]
    for node in nodes:
        lines += [f'<a id="{node.name}"></a>', f"## /{node.name}", ""]
        if isinstance(node, app_commands.Group):
            lines += [node.description, ""]
        for command in leaves(node):
            lines += command_block(command)
    return "\n".join(lines).rstrip() + "\n"
