"""Counted nouns as people write them: "1 fate point", "2 fate points", "3 boxes"."""

from __future__ import annotations

_IRREGULAR = {"box": "boxes", "success": "successes", "stress box": "stress boxes"}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one (or minus one)."""
    if abs(count) == 1:
        return f"{count} {noun}"
    return f"{count} {many or _IRREGULAR.get(noun) or noun + 's'}"
