"""The bot starts, syncs, answers /help and /about, and handles errors through the fake Discord."""

from __future__ import annotations

from bot.testing.harness import Table, message_text


async def test_login_and_sync(table: Table) -> None:
    assert table.bot is not None and table.bot.is_ready()
    names = {c["name"] for c in table.fake.global_commands}
    assert {"help", "about", "settings"} <= names
    assert table.fake.sync_calls and table.fake.sync_calls[-1][0] is None
    assert table.fake.connected == 1


async def test_help_is_ephemeral_overview(table: Table) -> None:
    reply = await table.slash("help", user=table.player)
    assert reply.ephemeral
    assert "Page 1 of" in reply.text
    text = reply.text
    while "/settings" not in text and "Next ▶" in reply.labels():
        reply = await table.click(reply, "Next ▶", user=table.player)  # more commands, more pages
        text = reply.text
    assert "/settings" in text and "gm-role" in text


async def test_about(table: Table) -> None:
    reply = await table.slash("about", user=table.player)
    assert reply.ephemeral
    for label in ("Version", "Uptime", "Gateway latency", "Database", "sqlite"):
        assert label in reply.text


async def test_gm_role_setting(table: Table) -> None:
    shown = await table.slash("settings gm-role", user=table.player)
    assert shown.ephemeral and "Game Master" in shown.text

    refused = await table.slash("settings gm-role", user=table.player, role=table.gm_role)
    assert refused.ephemeral and "Manage Server" in refused.text

    storytellers = table.fake.add_role(table.guild_id, "Storyteller")
    done = await table.slash("settings gm-role", user=table.admin, role=storytellers)
    assert done.ephemeral and "GM role set" in done.text
    shown = await table.slash("settings gm-role", user=table.player)
    assert f"<@&{storytellers}>" in shown.text

    reset = await table.slash("settings gm-role", user=table.admin, reset=True)
    assert "reset" in reset.text


async def test_everything_sent_has_mentions_disabled(table: Table) -> None:
    await table.slash("help", user=table.player)
    await table.slash("about", user=table.player)
    sent = [
        r for r in table.fake.requests if r.method in ("POST", "PATCH") and isinstance(r.body, dict)
    ]
    bodies = [
        r.body.get("data", r.body) for r in sent if "/callback" in r.path or "messages" in r.path
    ]
    assert bodies
    for body in bodies:
        if body.get("content") or body.get("embeds"):
            assert body.get("allowed_mentions") == {"parse": []}, body


async def test_unexpected_error_gives_incident_id(table: Table) -> None:
    from discord import app_commands

    assert table.bot is not None

    @app_commands.command(name="explode", description="fails on purpose")
    async def explode(interaction) -> None:  # type: ignore[no-untyped-def]
        raise RuntimeError("boom")

    table.bot.tree.add_command(explode)  # type: ignore[attr-defined]
    await table.bot.tree.sync()  # type: ignore[attr-defined]
    reply = await table.slash("explode", user=table.player)
    assert reply.ephemeral
    assert "incident `" in reply.text
    assert "boom" not in reply.text and "Traceback" not in reply.text
    assert all("boom" not in message_text(m) for m in table.fake.public_messages())


async def test_rate_limited_send_is_retried(table: Table) -> None:
    assert table.bot is not None
    channel = table.bot.get_channel(table.channel)
    table.fake.fail_next(
        "POST", rf"/channels/{table.channel}/messages$", status=429, retry_after=0.05
    )
    message = await channel.send("after the 429")  # type: ignore[union-attr]
    posts = [
        r
        for r in table.fake.requests
        if r.method == "POST" and r.path.endswith(f"{table.channel}/messages")
    ]
    assert len(posts) == 2
    assert table.fake.messages[message.id]["content"] == "after the 429"


async def test_restart_keeps_settings_and_old_buttons(table: Table) -> None:
    from discord import app_commands

    storytellers = table.fake.add_role(table.guild_id, "Storyteller")
    await table.slash("settings gm-role", user=table.admin, role=storytellers)
    # Enough command groups for /help to need a second page.
    assert table.bot is not None
    for index in range(8):
        table.bot.tree.add_command(  # type: ignore[attr-defined]
            app_commands.Group(name=f"extra{index}", description="filler group")
        )
    reply = await table.slash("help", user=table.player)
    assert "Next ▶" in reply.labels()

    await table.restart()
    shown = await table.slash("settings gm-role", user=table.player)
    assert f"<@&{storytellers}>" in shown.text
    clicked = await table.click(reply, "Next ▶", user=table.player)
    assert clicked.callback_type == 7  # the old message was edited in place
    assert "Page" in message_text(clicked.message)
