"""No module of bot/services is longer than a newcomer reads at once (issue 14: ~800 lines); a
service that grows past it is split along its sections (see CONTRIBUTING.md's map)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LIMIT = 800


def test_no_service_module_is_over_the_limit() -> None:
    long = {
        path.relative_to(ROOT).as_posix(): lines
        for path in (ROOT / "bot/services").rglob("*.py")
        if (lines := len(path.read_text().splitlines())) > LIMIT
    }
    assert long == {}, long
