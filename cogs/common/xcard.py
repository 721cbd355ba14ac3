"""The buttons of the pinned scene board: their shared base and the X-card.

It lives outside the extension modules on purpose: discord.py executes an extension afresh when
it loads it, so a class the scenes cog imported from `cogs.safety` would not be the class the
safety extension registered, and a board posted before a restart would reach a stale copy.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Self

import discord

from bot.services.safety import Signal
from bot.ui.components import Components
from bot.ui.custom_ids import ABSTRACT_TEMPLATE, XCARD_TEMPLATE, xcard_id
from cogs.common.errors import guarded
from cogs.common.scope import ScopedItem


class BoardButton(
    ScopedItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=ABSTRACT_TEMPLATE
):
    """A button of the pinned scene board: its custom id carries the board's channel. A
    subclass names its label (and emoji) and how its id is built from the channel."""

    label: ClassVar[str]
    emoji: ClassVar[str | None] = None

    def __init__(self, channel_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=self.label,
                emoji=self.emoji,
                style=discord.ButtonStyle.secondary,
                custom_id=self.id_for(channel_id),
            )
        )
        self.channel_id = channel_id

    @staticmethod
    def id_for(channel_id: int) -> str:
        raise NotImplementedError("a board button builds its own custom id")

    @classmethod
    def add_to(cls, items: Components, channel_id: int) -> None:
        """Put this button on a message's components (as the item above would be sent)."""
        items.button(cls.label, cls.id_for(channel_id), emoji=cls.emoji)

    def scope_key(self) -> int:
        return self.channel_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> Self:
        return cls(int(match["channel"]))


class XCardButton(BoardButton, template=XCARD_TEMPLATE):
    """One tap, an anonymous notice, a private thanks (the Safety cog does the signalling)."""

    scope_kind = "channel"  # the board's own channel, where the notice goes
    label, emoji = "X-card", "🟥"
    id_for = staticmethod(xcard_id)

    @guarded
    async def callback(self, interaction: discord.Interaction) -> None:
        cog: Any = interaction.client.get_cog("Safety")  # type: ignore[attr-defined]
        await cog.signal(interaction, Signal.X_CARD)
