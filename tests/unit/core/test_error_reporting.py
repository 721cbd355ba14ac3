"""Telling the user about an error never raises from the error handler itself."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import aiohttp
import pytest

from cogs.common.errors import send_ephemeral


class _Followup:
    def __init__(self, error: BaseException | None) -> None:
        self.error = error
        self.sent: list[str] = []

    async def send(self, text: str, *, ephemeral: bool) -> None:
        if self.error is not None:
            raise self.error
        self.sent.append(text)


def _interaction(*, closed: bool, error: BaseException | None = None) -> Any:
    return SimpleNamespace(
        id=7,
        client=SimpleNamespace(is_closed=lambda: closed),
        response=SimpleNamespace(is_done=lambda: True),
        followup=_Followup(error),
    )


async def test_the_sentence_reaches_the_user() -> None:
    interaction = _interaction(closed=False)
    await send_ephemeral(interaction, "Pick a skill from the list.")
    assert interaction.followup.sent == ["Pick a skill from the list."]


async def test_a_dropped_connection_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    interaction = _interaction(closed=False, error=aiohttp.ServerDisconnectedError())
    with caplog.at_level(logging.WARNING, logger="fatetable.errors"):
        await send_ephemeral(interaction, "text")
    assert "could not tell the user" in caplog.text


async def test_a_closing_bot_sends_nothing(caplog: pytest.LogCaptureFixture) -> None:
    interaction = _interaction(closed=True, error=RuntimeError("Session is closed"))
    with caplog.at_level(logging.WARNING, logger="fatetable.errors"):
        await send_ephemeral(interaction, "text")
    assert interaction.followup.sent == []
    assert "closing" in caplog.text
