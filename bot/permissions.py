"""Who counts as GM in a server. Pure: callers pass what they know about the member."""

from __future__ import annotations

from collections.abc import Iterable

DEFAULT_GM_ROLE_NAMES = frozenset({"gm", "game master"})


def is_gm(
    *,
    is_admin: bool,
    role_ids: Iterable[int],
    role_names: Iterable[str],
    configured_role_id: int | None,
) -> bool:
    """Administrators always; then the server's configured GM role, or by default any role
    named "GM" or "Game Master"."""
    if is_admin:
        return True
    if configured_role_id is not None:
        return configured_role_id in set(role_ids)
    return any(name.strip().lower() in DEFAULT_GM_ROLE_NAMES for name in role_names)
