"""Safety tools: the X-card and Script Change signals, always anonymous.

Nothing about who sent a signal is stored or returned. The only state is an in-memory
throttle so that a double tap (or a burst from several people) posts one notice per channel
and signal every few seconds; losing it on restart loses nothing that matters.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

from bot.bounded import Bounded

THROTTLE_SECONDS = 5.0


class Signal(StrEnum):
    """A safety tool signal (X-card, pause, rewind, fast-forward)."""

    X_CARD = "x-card"
    PAUSE = "pause"
    REWIND = "rewind"
    FAST_FORWARD = "fast-forward"


NOTICES: dict[Signal, str] = {
    Signal.X_CARD: (
        "🟥 **X-card.** Someone at the table has tapped the X-card. Whatever was just "
        "introduced is edited out, no questions asked; the GM steers the story elsewhere."
    ),
    Signal.PAUSE: (
        "⏸️ **Pause.** Someone asks for a break. Stop the scene, check in, and resume "
        "when everyone is ready."
    ),
    Signal.REWIND: (
        "⏪ **Rewind.** Someone asks to go back a little and play that part differently. "
        "No explanation needed."
    ),
    Signal.FAST_FORWARD: (
        "⏩ **Fast-forward.** Someone asks to skip ahead past what is happening now; "
        "summarise it and move on."
    ),
}

ACKNOWLEDGEMENTS: dict[Signal, str] = {
    Signal.X_CARD: "Done. The table sees that the X-card was tapped, never by whom.",
    Signal.PAUSE: "Done. The table sees a pause request, never from whom.",
    Signal.REWIND: "Done. The table sees a rewind request, never from whom.",
    Signal.FAST_FORWARD: "Done. The table sees a fast-forward request, never from whom.",
}
ALREADY_SHOWN = "The table was just shown this signal; it stands. Nobody knows it was you."


@dataclass(frozen=True)
class SignalResult:
    """A signal as it is announced (anonymously) and acknowledged."""

    post: str | None  # the public notice to post, or None when one was just posted
    acknowledgement: str


@dataclass
class SafetyService:
    """Safety tools: the X-card and the script changes."""

    throttle: float = THROTTLE_SECONDS
    last: dict[tuple[int, Signal], float] = field(default_factory=Bounded)

    def signal(self, channel_id: int, signal: Signal) -> SignalResult:
        now = time.monotonic()
        key = (channel_id, signal)
        if now - self.last.get(key, -self.throttle - 1) < self.throttle:
            return SignalResult(None, ALREADY_SHOWN)
        self.last[key] = now
        return SignalResult(NOTICES[signal], ACKNOWLEDGEMENTS[signal])
