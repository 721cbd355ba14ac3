"""Stress tracks and consequence slots derived from Physique and Will.

Condensed (default): one-shift boxes -
  Mediocre (+0) or lower: 3 boxes; Average/Fair: 4; Good/Great: 6;
  Superb (+5) and up: 6 plus a second mild consequence slot for that kind of harm.
Escalating (Fate Core, the seed's "Options Related to Stress"): everyone has a 1 and a 2 box;
  Average/Fair add a 3 box; Good and up add 3 and 4 boxes; Superb and up also add the extra mild
  consequence. One box per hit, and a box absorbs hits up to its value.
"""

from __future__ import annotations

from enum import StrEnum

from bot.fate.tracks import Box, Recovery, Track, TrackKind

PHYSICAL = "physical"
MENTAL = "mental"
PHYSICAL_SKILL = "Physique"
MENTAL_SKILL = "Will"
HARM_SKILL = {PHYSICAL: PHYSICAL_SKILL, MENTAL: MENTAL_SKILL}

MILD = "mild"
MODERATE = "moderate"
SEVERE = "severe"
EXTRA_MILD = {PHYSICAL: "mild_physical", MENTAL: "mild_mental"}
CONSEQUENCE_ABSORB = {MILD: 2, MODERATE: 4, SEVERE: 6}
SUPERB = 5


class StressStyle(StrEnum):
    CONDENSED = "condensed"  # one-shift boxes (Fate Condensed)
    ESCALATING = "escalating"  # 1, 2, 3, 4 boxes (Fate Core)


def stress_box_values(rating: int, style: StressStyle = StressStyle.CONDENSED) -> list[int]:
    """Box values for a Physique (physical) or Will (mental) rating."""
    if style is StressStyle.ESCALATING:
        if rating >= 3:
            return [1, 2, 3, 4]
        if rating >= 1:
            return [1, 2, 3]
        return [1, 2]
    if rating >= 3:
        return [1] * 6
    if rating >= 1:
        return [1] * 4
    return [1] * 3


def has_extra_mild(rating: int) -> bool:
    """Superb (+5) and up in Physique/Will grants a second mild slot for that harm."""
    return rating >= SUPERB


def stress_track(
    harm: str,
    rating: int,
    style: StressStyle = StressStyle.CONDENSED,
    previous: Track | None = None,
) -> Track:
    """The stress track for `harm`, keeping marks of `previous` box by box where they fit.

    Marks on boxes that no longer exist are moved to the highest remaining free boxes, so a
    shrinking track never silently heals harm.
    """
    values = stress_box_values(rating, style)
    boxes = [Box(value=v) for v in values]
    if previous is not None:
        old_marks = [b.marked for b in previous.boxes]
        overflow = 0
        for index, marked in enumerate(old_marks):
            if not marked:
                continue
            if index < len(boxes):
                boxes[index].marked = True
            else:
                overflow += 1
        for box in reversed(boxes):
            if overflow == 0:
                break
            if not box.marked:
                box.marked = True
                overflow -= 1
    return Track(
        key=harm,
        label=f"{harm.capitalize()} stress",
        kind=TrackKind.STRESS,
        harm=harm,
        boxes=boxes,
        recovery=Recovery.FLEETING,
        escalating=style is StressStyle.ESCALATING,
    )


def consequence_slot(key: str, severity: str, harm: str | None = None) -> Track:
    label = f"{severity.capitalize()} consequence"
    if harm is not None:
        label = f"{severity.capitalize()} consequence ({harm} only)"
    return Track(
        key=key,
        label=label,
        kind=TrackKind.CONSEQUENCE,
        harm=harm,
        boxes=[Box(value=CONSEQUENCE_ABSORB[severity])],
        absorb=CONSEQUENCE_ABSORB[severity],
        recovery=Recovery.LASTING,
    )


def recompute_tracks(
    tracks: list[Track], physique: int, will: int, style: StressStyle = StressStyle.CONDENSED
) -> list[Track]:
    """Re-derive stress and extra mild slots after Physique/Will changed.

    Marks are preserved where possible. An extra mild slot that is no longer earned is kept
    while it still holds a consequence (it goes away once cleared); other tracks pass through.
    """
    by_key = {t.key: t for t in tracks}
    ratings = {PHYSICAL: physique, MENTAL: will}
    result: list[Track] = []
    for harm in (PHYSICAL, MENTAL):
        result.append(stress_track(harm, ratings[harm], style, by_key.get(harm)))
    for severity in (MILD, MODERATE, SEVERE):
        result.append(by_key.get(severity) or consequence_slot(severity, severity))
    for harm in (PHYSICAL, MENTAL):
        key = EXTRA_MILD[harm]
        existing = by_key.get(key)
        if has_extra_mild(ratings[harm]):
            result.append(existing or consequence_slot(key, MILD, harm))
        elif existing is not None and not existing.is_free:
            result.append(existing)
    derived = {PHYSICAL, MENTAL, MILD, MODERATE, SEVERE, *EXTRA_MILD.values()}
    result.extend(t for t in tracks if t.key not in derived)
    return result
