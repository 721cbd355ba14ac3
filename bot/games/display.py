"""How a game shows itself at the table, as plain data (no Discord types).

Each engine may register a ``GameDisplay`` beside it (``register_engine(ENGINE, DISPLAY)``).
The table's renderer (bot/ui/games.py) turns the panels into embeds and knows no game: every
game-specific line, field and picture comes from these hooks. The defaults make any engine
playable with no display of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

FIELD_LIMIT = 1024  # what one field holds at the table (Discord's embed field value)


@dataclass(frozen=True)
class PanelField:
    """One named block of text (an embed field at the table)."""

    name: str
    value: str
    inline: bool = False


def chunk_fields(name: str, entries: list[str], limit: int = FIELD_LIMIT) -> list[PanelField]:
    """Whole entries (one per line) packed into as few fields as fit ``limit`` each; the
    fields after the first are named "<name> (continued)". An entry longer than a field is
    cut with an ellipsis (a display offers the whole text elsewhere, e.g. Card texts)."""
    fields: list[PanelField] = []
    current: list[str] = []

    def close() -> None:
        title = name if not fields else f"{name} (continued)"
        fields.append(PanelField(title, "\n".join(current) or "none"))

    for entry in entries:
        entry = entry if len(entry) <= limit else entry[: limit - 1] + "…"
        if current and len("\n".join([*current, entry])) > limit:
            close()
            current = []
        current.append(entry)
    if current or not fields:
        close()
    return fields


def fields_size(fields: list[PanelField]) -> int:
    """Characters the fields add to an embed (Discord counts names and values)."""
    return sum(len(f.name) + len(f.value) for f in fields)


class GameDisplay:
    """Rendering hooks of one game; every hook reads only the view it is given."""

    # Action kinds shown as the highlighted (primary) buttons of a hand.
    primary_kinds: frozenset[str] = frozenset()

    def title_suffix(self, view: dict[str, Any]) -> str:
        """Added to the board's title, e.g. the book being played."""
        return ""

    def turn_lines(self, view: dict[str, Any], waiting: str) -> list[str]:
        """The board's first lines while the game runs; ``waiting`` names who must act."""
        return [f"**{waiting}** to act."]

    def board_fields(self, view: dict[str, Any], seat_names: dict[str, str]) -> list[PanelField]:
        """The public table as fields (``seat_names``: engine seat -> display name)."""
        return []

    def picture(self, view: dict[str, Any]) -> bytes | None:
        """A PNG of the public table, or None for a board without a picture."""
        return None

    def picture_key(self, view: dict[str, Any]) -> str | None:
        """A short key of what the picture shows: while it stays the same, the table keeps the
        picture it posted instead of drawing a new one (None: draw on every board edit)."""
        return None

    def hand_fields(self, private_view: dict[str, Any]) -> list[PanelField]:
        """What only the viewing seat may see (its cards, its secrets)."""
        return []

    def reference_fields(self, view: dict[str, Any]) -> list[PanelField]:
        """Every text a player may want to read whole (cards' effects ...), from the view given:
        the public view for anyone, a seat's private view for its player. The table shows them
        behind a "Card texts" button, paged; empty: the game has no such button."""
        return []

    def result_lines(self, result: dict[str, Any]) -> list[str]:
        """Lines under "Game over" besides the summary."""
        scores = result.get("scores") or {}
        return ["Score: " + ", ".join(f"{k} {v}" for k, v in scores.items())] if scores else []

    def history_note(self, result: dict[str, Any]) -> str:
        """A few words after the summary in /game history."""
        return ""

    def rules_lines(self) -> list[str]:
        """How to play at the table, for /game rules (options are listed by the table)."""
        return []


DEFAULT_DISPLAY = GameDisplay()
