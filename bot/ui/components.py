"""`Components`: a message's buttons and selects as the JSON Discord is sent, and nothing else.

Every button and select of the bot is a `discord.ui.DynamicItem`: a click is dispatched by
matching its custom id against the client's registry of DynamicItem classes (each cog's
`bot.add_dynamic_items` at set-up), which builds the item from the custom id. Nothing is looked
up in discord.py's view store, so the object a message is sent with needs no items, no timeout,
no future and no random id: only `to_components()`. Building a `discord.ui.View` of DynamicItems
cost more than a whole pong per roll message (an Item, a wrapped Button, a component object and
a copy for each one, `os.urandom` per view); this costs a dict per component.

`Components` is a `discord.ui.View` for the type checker and for discord.py's own checks, and
answers every call discord.py 2.7 makes on a view it sends or edits with (`to_components`,
`has_components_v2`, `is_finished`, `is_dispatchable`, `timeout`): `is_finished()` is True, so
discord.py never stores it (it has nothing to dispatch: the DynamicItem registry does). It lays
components out exactly as `discord.ui.View.add_item` does (an explicit row, or the first row
with room; a button is 1 of a row's 5, a select 5), with the same errors past Discord's limits;
tests/unit/ui/test_components.py checks the JSON against discord.ui's for every renderer's shape.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import discord

ROWS = 5  # action rows per message
ROW_WIDTH = 5  # a button takes 1, a select the whole row
MAX_COMPONENTS = 25

JSON = dict[str, Any]


class Components(discord.ui.View):
    """A message's components as plain dicts; add them with `button` and `select`."""

    def __init__(self) -> None:  # deliberately not View.__init__: nothing of it is used
        self._rows: list[list[JSON]] = [[] for _ in range(ROWS)]
        self._widths = [0] * ROWS
        self._count = 0
        self._timeout: float | None = None

    # ------------------------------------------------------------------ building
    def button(
        self,
        label: str | None,
        custom_id: str,
        style: discord.ButtonStyle = discord.ButtonStyle.secondary,
        *,
        row: int | None = None,
        disabled: bool = False,
        emoji: str | None = None,
    ) -> Components:
        payload: JSON = {"type": 2, "style": style.value, "disabled": disabled}
        if label:
            payload["label"] = label
        payload["custom_id"] = custom_id
        if emoji:
            payload["emoji"] = discord.PartialEmoji.from_str(emoji).to_dict()
        return self._place(payload, 1, row)

    def select(
        self,
        custom_id: str,
        options: Sequence[discord.SelectOption],
        *,
        placeholder: str | None = None,
        row: int | None = None,
        min_values: int = 1,
        max_values: int = 1,
        disabled: bool = False,
    ) -> Components:
        """A string select; with no options it gets one "-" (as the cogs' selects always had:
        Discord refuses a select without options)."""
        shown = options or [discord.SelectOption(label="-", value="-")]
        if len(shown) > 25:
            raise ValueError("maximum number of options already provided")
        payload: JSON = {
            "type": 3,
            "custom_id": custom_id,
            "min_values": min_values,
            "max_values": max_values,
            "disabled": disabled,
            "required": True,
        }
        if placeholder:
            payload["placeholder"] = placeholder
        payload["options"] = [option.to_dict() for option in shown]
        return self._place(payload, ROW_WIDTH, row)

    def _place(self, payload: JSON, width: int, row: int | None) -> Components:
        if self._count >= MAX_COMPONENTS:
            raise ValueError("maximum number of children exceeded")
        if row is None:
            row = next((i for i, used in enumerate(self._widths) if used + width <= ROW_WIDTH), -1)
            if row < 0:
                raise ValueError("could not find open space for item")
        elif self._widths[row] + width > ROW_WIDTH:
            raise ValueError(
                f"item would not fit at row {row} ({self._widths[row] + width} > 5 width)"
            )
        self._widths[row] += width
        self._rows[row].append(payload)
        self._count += 1
        return self

    def add_item(self, item: discord.ui.Item[Any]) -> Components:
        raise TypeError("Components take button() and select(), not discord.ui items")

    @property
    def count(self) -> int:
        """How many buttons and selects there are."""
        return self._count

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for row in self._rows for c in row]

    # ------------------------------------------------------------------ what discord.py calls
    def to_components(self) -> list[JSON]:
        return [{"type": 1, "components": list(row)} for row in self._rows if row]

    def has_components_v2(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True  # never stored: clicks go through the DynamicItem registry

    def is_dispatchable(self) -> bool:
        return self._count > 0

    def is_persistent(self) -> bool:
        return True

    @property
    def timeout(self) -> float | None:
        return self._timeout

    @timeout.setter
    def timeout(self, value: float | None) -> None:
        self._timeout = value  # discord.py gives ephemeral views 15 minutes; nothing runs out

    @property
    def children(self) -> list[discord.ui.Item[Any]]:
        return []

    def walk_children(self) -> Generator[discord.ui.Item[Any], None, None]:
        yield from ()

    def __repr__(self) -> str:
        return f"<Components {self.custom_ids()!r}>"
