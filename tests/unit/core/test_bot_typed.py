"""Cogs type the bot as the bot's class (`FateTableBot`), not `Any` (issue 14, item 4), so mypy
checks what a cog asks of it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
UNTYPED = re.compile(r"\bbot: Any\b")
# Cogs still waiting for the change; the list may only shrink.
KNOWN: set[str] = {"cogs/rolls.py", "cogs/scenes.py"}


def test_cogs_type_the_bot_as_its_class() -> None:
    untyped = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "cogs").rglob("*.py")
        if UNTYPED.search(path.read_text())
    }
    assert untyped - KNOWN == set(), sorted(untyped - KNOWN)
    assert KNOWN - untyped == set(), "typed already: take these off KNOWN"
