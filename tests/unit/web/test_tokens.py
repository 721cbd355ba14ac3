"""Web view links: signed, expiring, and refused when anything in them was changed."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.services.web_tokens import (
    MAX_TOKEN_LENGTH,
    BadToken,
    LinkClaims,
    LinkKind,
    sign,
    verify,
)

SECRET = b"0123456789abcdef0123456789abcdef"
NOW = 1_800_000_000
CLAIMS = LinkClaims(LinkKind.GM, 1_234_567_890_123_456_789, 42, (3,), NOW + 3600)


def _payload(token: str) -> dict:
    part = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def _with_payload(token: str, body: dict) -> str:
    part = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=").decode()
    return f"{part}.{token.split('.')[1]}"


def test_a_token_round_trips_and_fits_in_a_link() -> None:
    token = sign(SECRET, CLAIMS)
    assert verify(SECRET, token, NOW) == CLAIMS
    assert len(token) < 200 and token.replace(".", "").replace("-", "").replace("_", "").isalnum()


def test_expired_tokens_are_refused() -> None:
    token = sign(SECRET, CLAIMS)
    assert verify(SECRET, token, CLAIMS.expires_at - 1) == CLAIMS
    with pytest.raises(BadToken, match="expired"):
        verify(SECRET, token, CLAIMS.expires_at)


def test_another_secret_refuses_the_token() -> None:
    with pytest.raises(BadToken, match="signature"):
        verify(b"another secret entirely, 32 byte", sign(SECRET, CLAIMS), NOW)


@pytest.mark.parametrize(
    "change",
    [
        {"i": 43},  # another campaign
        {"g": 1},  # another server
        {"k": "pc"},  # a player's link made from a GM's
        {"n": [4]},  # a later generation (after a revoke)
        {"x": NOW + 10**9},  # a longer life
    ],
)
def test_changing_any_claim_breaks_the_signature(change: dict) -> None:
    token = sign(SECRET, CLAIMS)
    forged = _with_payload(token, _payload(token) | change)
    with pytest.raises(BadToken, match="signature"):
        verify(SECRET, forged, NOW)


@pytest.mark.parametrize(
    "token",
    ["", ".", "abc", "a.b.c", "é.x", "x" * (MAX_TOKEN_LENGTH + 1), "!!!.???"],
)
def test_malformed_tokens_are_refused(token: str) -> None:
    with pytest.raises(BadToken):
        verify(SECRET, token, NOW)


def test_a_well_signed_but_odd_payload_is_refused() -> None:
    # Only the holder of the secret can sign; still, a payload of the wrong shape is refused.
    import hashlib
    import hmac

    for body in (
        {"k": "gm"},
        {"k": "xx", "g": 1, "i": 1, "n": [], "x": NOW + 5},
        {"k": "gm", "g": -1, "i": 1, "n": [], "x": NOW + 5},
        {"k": "gm", "g": True, "i": 1, "n": [], "x": NOW + 5},
    ):
        part = base64.urlsafe_b64encode(json.dumps(body).encode()).rstrip(b"=").decode()
        mac = hmac.new(SECRET, b"fatetable-web-link/1." + part.encode(), hashlib.sha256)
        sig = base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()
        with pytest.raises(BadToken, match="payload"):
            verify(SECRET, f"{part}.{sig}", NOW)


@given(st.text(max_size=300))
def test_no_text_is_ever_accepted_without_the_secret(text: str) -> None:
    with pytest.raises(BadToken):
        verify(SECRET, text, NOW)


@given(st.integers(0, len(sign(SECRET, CLAIMS)) - 1), st.characters(codec="ascii"))
def test_any_one_character_changed_is_refused(index: int, char: str) -> None:
    token = sign(SECRET, CLAIMS)
    changed = token[:index] + char + token[index + 1 :]
    if changed == token:
        return
    try:
        claims = verify(SECRET, changed, NOW)
    except BadToken:
        return
    # base64 may map two spellings of the last character to the same bytes: same claims then
    assert claims == CLAIMS
