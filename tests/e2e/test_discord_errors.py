"""Discord's real error answers: the bot survives each and tells the user what it can."""

from __future__ import annotations

import logging

import pytest

from bot.testing.harness import Table


async def test_unknown_interaction_10062_is_logged_and_the_bot_carries_on(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    # The 3-second window was missed: Discord no longer knows the interaction.
    table.fake.fail_next(
        "POST",
        r"/interactions/\d+/[^/]+/callback$",
        status=404,
        code=10062,
        message="Unknown interaction",
        times=2,
    )
    with caplog.at_level(logging.WARNING):
        lost = await table.slash("about", user=table.player)
    assert not lost.answered
    assert any("could not tell the user" in r.getMessage() for r in caplog.records)
    again = await table.slash("about", user=table.player)
    assert again.ephemeral and "Version" in again.text


async def test_already_acknowledged_40060_does_not_crash(table: Table) -> None:
    table.fake.fail_next(
        "POST",
        r"/interactions/\d+/[^/]+/callback$",
        status=400,
        code=40060,
        message="Interaction has already been acknowledged.",
    )
    first = await table.slash("help", user=table.player)
    # The error handler's own answer went through once the error was consumed.
    assert first.ephemeral and "incident `" in first.text
    assert (await table.slash("help", user=table.player)).ephemeral


async def test_invalid_form_body_50035_gives_an_incident_id(table: Table) -> None:
    table.fake.fail_next(
        "POST",
        r"/interactions/\d+/[^/]+/callback$",
        status=400,
        code=50035,
        message="Invalid Form Body",
    )
    reply = await table.slash("about", user=table.player)
    assert reply.ephemeral and "incident `" in reply.text
    assert "Invalid Form Body" not in reply.text


async def test_rate_limited_interaction_callback_is_retried(table: Table) -> None:
    table.fake.fail_next("POST", r"/interactions/\d+/[^/]+/callback$", status=429, retry_after=0.05)
    reply = await table.slash("about", user=table.player)
    assert reply.ephemeral and "Version" in reply.text
