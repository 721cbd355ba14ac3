"""Signed, expiring links to the live web view (pure: no database, no I/O).

A token is `<payload>.<signature>`, both base64url without padding. The payload is compact JSON:
what the link shows (`k`: "gm" a campaign's GM page, "pc" a character's player page, "game" a
game's spectator page), the server it belongs to (`g`), the id of the campaign, character or game
(`i`), the revocation generations it was made at (`n`) and when it expires (`x`, Unix seconds).
The signature is HMAC-SHA256 over a fixed prefix and the payload, with the deployment's secret.
Revocation is checked by the caller against the database (`bot.services.web`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from dataclasses import dataclass
from enum import StrEnum

MAX_TOKEN_LENGTH = 400  # anything longer is refused before it is decoded
_CONTEXT = b"fatetable-web-link/1."


class LinkKind(StrEnum):
    """What a link opens."""

    GM = "gm"
    PLAYER = "pc"
    GAME = "game"


class BadToken(Exception):
    """A link that was tampered with, malformed, signed with another key or expired."""


@dataclass(frozen=True)
class LinkClaims:
    """What a valid token says about itself (its generations still need checking)."""

    kind: LinkKind
    guild_id: int
    target_id: int
    generations: tuple[int, ...]
    expires_at: int


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError) as error:
        raise BadToken("not base64") from error


def _signature(secret: bytes, payload: str) -> bytes:
    return hmac.new(secret, _CONTEXT + payload.encode("ascii"), hashlib.sha256).digest()


def sign(secret: bytes, claims: LinkClaims) -> str:
    """The token for these claims."""
    body = {
        "k": claims.kind.value,
        "g": claims.guild_id,
        "i": claims.target_id,
        "n": list(claims.generations),
        "x": claims.expires_at,
    }
    payload = _b64(json.dumps(body, separators=(",", ":")).encode("ascii"))
    return f"{payload}.{_b64(_signature(secret, payload))}"


def verify(secret: bytes, token: str, now: float) -> LinkClaims:
    """The claims of a token signed with `secret` that has not expired at `now`; `BadToken`
    for anything else (the reason is for logs, never for the page)."""
    if not token or len(token) > MAX_TOKEN_LENGTH or token.count(".") != 1:
        raise BadToken("malformed")
    payload, signature = token.split(".")
    if not payload.isascii() or not signature.isascii():
        raise BadToken("malformed")
    if not hmac.compare_digest(_unb64(signature), _signature(secret, payload)):
        raise BadToken("bad signature")
    try:
        body = json.loads(_unb64(payload))
        claims = LinkClaims(
            kind=LinkKind(body["k"]),
            guild_id=_int(body["g"]),
            target_id=_int(body["i"]),
            generations=tuple(_int(n) for n in body["n"]),
            expires_at=_int(body["x"]),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise BadToken("bad payload") from error
    if claims.expires_at <= now:
        raise BadToken("expired")
    return claims


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise ValueError("not an id")
    return value
