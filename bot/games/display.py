"""How a game shows itself at the table, as plain data (no Discord types).

Each engine may register a ``GameDisplay`` beside it (``register_engine(ENGINE, DISPLAY)``).
The table's renderer (bot/ui/games.py) turns the panels into embeds and knows no game: every
game-specific line, field and picture comes from these hooks. The defaults make any engine
playable with no display of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PanelField:
    """One named block of text (an embed field at the table)."""

    name: str
    value: str
    inline: bool = False


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

    def hand_fields(self, private_view: dict[str, Any]) -> list[PanelField]:
        """What only the viewing seat may see (its cards, its secrets)."""
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
