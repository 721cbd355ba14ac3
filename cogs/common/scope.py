"""Every component that names a row in its custom id is checked against the server first.

`ScopedItem` is mixed into each `DynamicItem` (and `PersistentModal`) whose custom id carries a
row id: its `interaction_check`, which discord.py runs before the callback, asks
`ScopeService.require` whether the row belongs to the clicked server (and channel). A row of
another server, or one that does not exist, gets the same ephemeral sentence and nothing runs.
A component that names no row (help pages, sharing a rules topic) says so with `UNSCOPED`.
tests/e2e/test_trust_boundaries.py forges a click for every custom id prefix from a second server.
"""

from __future__ import annotations

from typing import Any, ClassVar

import discord

from bot.services.scope import Where
from cogs.common.bot_of import bot_of
from cogs.common.errors import report_error

UNSCOPED = "unscoped"  # a component whose custom id names no row


def where_of(interaction: discord.Interaction) -> Where:
    return Where(interaction.guild_id, interaction.channel_id)


async def in_scope(interaction: discord.Interaction, kind: str, key: int | None) -> bool:
    """True when the row is part of the interaction's server; otherwise the user is told why."""
    if kind == UNSCOPED or key is None:
        return True
    try:
        await bot_of(interaction).scope.require(kind, key, where_of(interaction))
    except Exception as error:  # noqa: BLE001 - a refusal (or a fault) reaches the user
        await report_error(interaction, error)
        return False
    return True


class ScopedItem:
    """Mixin: `scope()` names the row (kind, key) the custom id carries; key None: none."""

    scope_kind: ClassVar[str]

    def scope_key(self) -> int | None:
        raise NotImplementedError(f"{type(self).__name__} must name the row of its custom id")

    def scope(self) -> tuple[str, int | None]:
        return self.scope_kind, self.scope_key()

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        kind, key = self.scope()
        return await in_scope(interaction, kind, key)
