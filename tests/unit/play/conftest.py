from __future__ import annotations

import pytest

from bot.fate.tracks import Box, Track, TrackKind


def condensed_tracks(physical_boxes: int = 3, mental_boxes: int = 3) -> list[Track]:
    """A Condensed PC: one-shift boxes and mild/moderate/severe consequence slots."""
    return [
        Track(
            key="physical",
            label="Physical stress",
            kind=TrackKind.STRESS,
            harm="physical",
            boxes=[Box() for _ in range(physical_boxes)],
        ),
        Track(
            key="mental",
            label="Mental stress",
            kind=TrackKind.STRESS,
            harm="mental",
            boxes=[Box() for _ in range(mental_boxes)],
        ),
        Track(key="mild", label="Mild", kind=TrackKind.CONSEQUENCE, boxes=[Box(value=2)], absorb=2),
        Track(
            key="moderate",
            label="Moderate",
            kind=TrackKind.CONSEQUENCE,
            boxes=[Box(value=4)],
            absorb=4,
        ),
        Track(
            key="severe", label="Severe", kind=TrackKind.CONSEQUENCE, boxes=[Box(value=6)], absorb=6
        ),
    ]


@pytest.fixture
def charles() -> list[Track]:
    """Charles from the seed's ghoul fight: three physical stress boxes."""
    return condensed_tracks(physical_boxes=3)
