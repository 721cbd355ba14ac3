"""A form or a picker from before a restart gets an honest answer, not "interaction failed"."""

from __future__ import annotations

from bot.testing.harness import Table
from cogs.common.orphans import EXPIRED_CONTROL, EXPIRED_FORM
from tests.e2e.test_characters import imported


async def test_form_opened_before_restart(table: Table) -> None:
    """A plain (not persistent) form submitted after a restart is answered, not dropped."""
    import discord
    from discord import app_commands

    from cogs.common.errors import SafeModal

    class Plain(SafeModal, title="A plain form"):
        note: discord.ui.TextInput[SafeModal] = discord.ui.TextInput(label="Note", custom_id="note")

        async def on_submit(self, interaction: discord.Interaction) -> None:
            await interaction.response.send_message("read it", ephemeral=True)

    @app_commands.command(name="plainform", description="opens a plain form")
    async def plainform(interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(Plain(custom_id="plainform:1"))

    assert table.bot is not None
    table.bot.tree.add_command(plainform)  # type: ignore[attr-defined]
    await table.bot.tree.sync()  # type: ignore[attr-defined]
    opened = await table.slash("plainform", user=table.player)
    assert opened.modal is not None
    await table.restart()
    answer = await table.submit(opened, {"note": "hello"}, user=table.player)
    assert answer.ephemeral and answer.text == EXPIRED_FORM


async def test_stunt_writer_form_survives_a_restart(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    opened = await table.slash("stunt write", user=table.player, template="bonus")
    assert opened.modal is not None
    await table.restart()
    answer = await table.submit(
        opened,
        {
            "name": "Eagle Eye",
            "because": "never miss a detail",
            "skill": "Notice",
            "action": "overcome",
            "circumstance": "searching a room",
        },
        user=table.player,
    )
    assert answer.ephemeral and "Added to **Ruth Kane**: **Eagle Eye**" in answer.text
    sheet = await table.slash("character sheet", user=table.player, full=True)
    assert "Eagle Eye" in sheet.text


async def test_unknown_button_after_restart(table: Table) -> None:
    await table.slash("help", user=table.player)
    # A message with a button whose view only lived in the old process.
    assert table.bot is not None
    channel = table.bot.get_channel(table.channel)
    import discord

    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Short-lived", custom_id="short-lived:1"))
    message = await channel.send("picker", view=view)  # type: ignore[union-attr]
    await table.restart()
    answer = await table.click(table.message(message.id), "Short-lived", user=table.player)
    assert answer.ephemeral and answer.text == EXPIRED_CONTROL


async def test_live_modal_is_not_answered_twice(table: Table) -> None:
    await imported(table, table.player, "Ruth Kane")
    opened = await table.slash("stunt write", user=table.player, template="bonus")
    done = await table.submit(
        opened,
        {
            "name": "Eagle Eye",
            "because": "never miss a detail",
            "skill": "Notice",
            "action": "overcome",
            "circumstance": "searching a room",
        },
        user=table.player,
    )
    assert EXPIRED_FORM not in done.text and "Eagle Eye" in done.text
    assert len(done.record.callbacks) == 1
