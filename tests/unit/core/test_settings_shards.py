"""SHARD_IDS as a deployment writes it: one number, a comma list or JSON."""

from __future__ import annotations

import pytest

from bot.config import Settings


@pytest.mark.parametrize(
    ("raw", "ids"), [("0", [0]), ("1", [1]), ("0,1", [0, 1]), ("[2, 3]", [2, 3]), ("", None)]
)
def test_shard_ids_from_the_environment(
    raw: str, ids: list[int] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHARD_IDS", raw)
    assert Settings(_env_file=None).shard_ids == ids  # type: ignore[call-arg]
