"""/help shows every command of the tree (no group cut off) and begins with a first evening."""

from __future__ import annotations

from discord import app_commands

from bot.testing.harness import Table, message_text


async def test_help_pages_show_every_command_and_a_first_evening(table: Table) -> None:
    reply = await table.slash("help", user=table.player)
    assert reply.ephemeral
    first = message_text(reply.message)
    assert "A first evening, for the GM" in first and "A first evening, for players" in first
    assert "`/character create`" in first and "`/scene start" in first
    pages = [first]
    message = reply.message
    while "Next ▶" in reply.labels(message) and len(pages) < 20:
        buttons = [c for c in (message or {}).get("components", [])[0]["components"]]
        if any(b.get("label") == "Next ▶" and b.get("disabled") for b in buttons):
            break
        reply = await table.click(message, "Next ▶", user=table.player)
        message = reply.message
        pages.append(message_text(message))
    text = "\n".join(pages)
    assert table.bot is not None
    for command in table.bot.tree.walk_commands():  # type: ignore[attr-defined]
        if isinstance(command, app_commands.Command):
            assert f"`/{command.qualified_name}`" in text, command.qualified_name
    assert "Page 1 of" in first and f"Page {len(pages)} of {len(pages)}" in pages[-1]
