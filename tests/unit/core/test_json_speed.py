"""discord.py's JSON goes through orjson (a dependency since issue 15): every request the bot
sends and every gateway event it reads is encoded or decoded there, ~7 % of a /roll's CPU."""

from __future__ import annotations

import discord.utils


def test_discord_py_uses_orjson() -> None:
    assert discord.utils.HAS_ORJSON
