"""Counted nouns as people write them: "1 fate point", "2 fate points", "3 boxes"."""

from __future__ import annotations

from collections.abc import Callable, Mapping

_IRREGULAR = {"box": "boxes", "success": "successes", "stress box": "stress boxes"}


def plural(count: int | str, noun: str, many: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one (or minus one).
    A count may be written out (a card's "2[1]"): it is one only when it reads "1"."""
    if (abs(count) == 1) if isinstance(count, int) else count == "1":
        return f"{count} {noun}"
    return f"{count} {many or _IRREGULAR.get(noun) or noun + 's'}"


def tally(counts: Mapping[str, int], shown: Callable[[str], str]) -> str:
    """``Harry ×2, Molly``: each name once as `shown` writes it, with how many when more."""
    return ", ".join(shown(name) + (f" ×{n}" if n > 1 else "") for name, n in counts.items())
