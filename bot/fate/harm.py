"""Absorbing a hit with stress boxes, consequences and conditions.

The defender chooses what to mark; this module checks the choice against the rules and
returns the new tracks plus the new consequence aspects (each with one free invoke for the
attacker). A defender who cannot or will not absorb every shift is taken out.
"""

from __future__ import annotations

from enum import StrEnum
from itertools import combinations

from pydantic import BaseModel, Field

from bot.errors import RuleError
from bot.fate.aspects import MAX_ASPECT_TEXT, Aspect, AspectKind, Event, new_aspect
from bot.fate.tracks import Box, Track, TrackKind
from bot.fate.words import plural

MAX_SUGGESTIONS = 10


class HarmError(RuleError):
    """An absorb choice the rules do not allow."""


class HarmType(StrEnum):
    PHYSICAL = "physical"
    MENTAL = "mental"


class BoxRef(BaseModel):
    track: str
    box: int  # index into track.boxes


class SlotRef(BaseModel):
    """A consequence slot (or a condition that absorbs shifts) and the aspect written in it."""

    track: str
    aspect: str | None = None  # conditions already have their name; consequences need one


class AbsorbChoice(BaseModel):
    stress: list[BoxRef] = Field(default_factory=list)
    slots: list[SlotRef] = Field(default_factory=list)
    taken_out: bool = False  # "I will not absorb this": taken out

    @property
    def is_empty(self) -> bool:
        return not self.stress and not self.slots


class AbsorbResult(BaseModel):
    tracks: list[Track]
    shifts: int
    absorbed: int
    taken_out: bool
    new_aspects: list[Aspect] = Field(default_factory=list)
    events: list[Event] = Field(default_factory=list)


def applies(track: Track, harm: HarmType) -> bool:
    return track.harm is None or track.harm == harm.value


def is_slot(track: Track) -> bool:
    """Consequences, and conditions with an absorb value, soak a hit as a whole."""
    if track.kind is TrackKind.CONSEQUENCE:
        return True
    return track.kind is TrackKind.CONDITION and track.absorb > 0


def _find(tracks: list[Track], key: str) -> Track:
    for track in tracks:
        if track.key == key:
            return track
    raise HarmError(f"There is no track called '{key}' on this sheet.")


def max_absorb(tracks: list[Track], harm: HarmType) -> int:
    """The biggest hit these tracks could still absorb (escalating tracks: one box per hit)."""
    total = 0
    for track in tracks:
        if not applies(track, harm):
            continue
        if track.kind is TrackKind.STRESS:
            free = [b.value for b in track.boxes if not b.marked]
            if track.escalating:
                total += max(free, default=0)
            else:
                total += sum(free)
        elif is_slot(track) and track.is_free:
            total += track.absorb
    return total


def _pieces(tracks: list[Track], harm: HarmType, choice: AbsorbChoice) -> list[tuple[str, int]]:
    """Validate the choice and list (label, shifts absorbed at most) per marked piece."""
    pieces: list[tuple[str, int]] = []
    seen_boxes: set[tuple[str, int]] = set()
    escalating_used: set[str] = set()
    for ref in choice.stress:
        track = _find(tracks, ref.track)
        if track.kind is not TrackKind.STRESS:
            raise HarmError(f"{track.label} is not a stress track; pick it as a consequence.")
        if not applies(track, harm):
            raise HarmError(f"{track.label} cannot absorb {harm.value} harm.")
        if not 0 <= ref.box < len(track.boxes):
            raise HarmError(f"{track.label} has no box number {ref.box + 1}.")
        if track.boxes[ref.box].marked or (track.key, ref.box) in seen_boxes:
            raise HarmError(f"Box {ref.box + 1} of {track.label} is already marked.")
        if track.escalating:
            if track.key in escalating_used:
                raise HarmError(f"Only one box of {track.label} can be checked per hit.")
            escalating_used.add(track.key)
        seen_boxes.add((track.key, ref.box))
        pieces.append((f"{track.label} box {ref.box + 1}", track.boxes[ref.box].value))
    seen_slots: set[str] = set()
    for slot in choice.slots:
        track = _find(tracks, slot.track)
        if not is_slot(track):
            raise HarmError(f"{track.label} is not a consequence slot.")
        if not applies(track, harm):
            raise HarmError(f"{track.label} cannot absorb {harm.value} harm.")
        if not track.is_free or slot.track in seen_slots:
            raise HarmError(f"{track.label} is already taken; pick another slot.")
        if track.kind is TrackKind.CONSEQUENCE:
            text = (slot.aspect or "").strip()
            if not text:
                raise HarmError(f"Name the {track.label} consequence (what harm befalls you?).")
            if len(text) > MAX_ASPECT_TEXT:
                raise HarmError(f"Keep the consequence to {MAX_ASPECT_TEXT} characters or fewer.")
        seen_slots.add(slot.track)
        pieces.append((track.label, track.absorb))
    return pieces


def absorb_hit(
    tracks: list[Track],
    harm: HarmType,
    shifts: int,
    choice: AbsorbChoice,
    *,
    defender: str,
    attacker: str,
) -> AbsorbResult:
    """Apply the defender's choice to a hit of `shifts`."""
    if shifts <= 0:
        raise HarmError("There is no hit to absorb.")
    if choice.taken_out:
        if not choice.is_empty:
            raise HarmError("Either mark boxes and slots or choose to be taken out, not both.")
        return _taken_out(tracks, shifts, defender)
    pieces = _pieces(tracks, harm, choice)
    total = sum(value for _, value in pieces)
    if total < shifts:
        raise HarmError(
            f"That absorbs {total} of {shifts} shifts. Mark more, or choose to be taken out."
        )
    smallest_label, smallest = min(pieces, key=lambda p: p[1])
    if total - smallest >= shifts:
        raise HarmError(f"That absorbs more than the hit needs; leave {smallest_label} unmarked.")

    new_tracks = [t.model_copy(deep=True) for t in tracks]
    by_key = {t.key: t for t in new_tracks}
    events: list[Event] = []
    for ref in choice.stress:
        track = by_key[ref.track]
        track.boxes[ref.box] = Box(value=track.boxes[ref.box].value, marked=True)
    if choice.stress:
        events.append(
            Event(
                kind="stress_marked",
                text=f"{plural(len(choice.stress), 'stress box')} marked.",
                who=defender,
                data={"boxes": len(choice.stress)},
            )
        )
    new_aspects: list[Aspect] = []
    for slot in choice.slots:
        track = by_key[slot.track]
        track.boxes = [Box(value=b.value, marked=True) for b in track.boxes] or [
            Box(value=track.absorb, marked=True)
        ]
        text = (slot.aspect or "").strip() or track.aspect or track.label
        track.aspect = text
        track.healing = False
        kind = (
            AspectKind.CONSEQUENCE if track.kind is TrackKind.CONSEQUENCE else AspectKind.CONDITION
        )
        aspect = new_aspect(
            f"{defender}:{track.key}", text, kind, owner=defender, free_invokes=[attacker]
        )
        new_aspects.append(aspect)
        events.append(
            Event(
                kind="consequence_taken",
                text=f"{track.label}: {aspect.text} (the attacker has a free invoke on it).",
                who=defender,
                data={"track": track.key, "absorb": track.absorb, "aspect": aspect.id},
            )
        )
    return AbsorbResult(
        tracks=new_tracks,
        shifts=shifts,
        absorbed=min(total, shifts),
        taken_out=False,
        new_aspects=new_aspects,
        events=events,
    )


def _taken_out(tracks: list[Track], shifts: int, defender: str) -> AbsorbResult:
    return AbsorbResult(
        tracks=[t.model_copy(deep=True) for t in tracks],
        shifts=shifts,
        absorbed=0,
        taken_out=True,
        events=[
            Event(
                kind="taken_out",
                text="Taken out: the attacker decides how it plays out.",
                who=defender,
                data={"shifts": shifts},
            )
        ],
    )


def take_out_if_unabsorbable(
    tracks: list[Track], harm: HarmType, shifts: int, defender: str
) -> AbsorbResult | None:
    """When no choice can absorb the hit, the defender is taken out without asking."""
    if max_absorb(tracks, harm) >= shifts:
        return None
    return _taken_out(tracks, shifts, defender)


def suggest_absorb_options(
    tracks: list[Track], harm: HarmType, shifts: int, limit: int = MAX_SUGGESTIONS
) -> list[AbsorbChoice]:
    """Sensible ways to absorb a hit, for buttons: fewest consequences first, taken out last.

    Consequence slots carry no aspect text yet; the UI asks for it (a modal) before applying.
    """
    if shifts <= 0:
        return []
    slots = [t for t in tracks if applies(t, harm) and is_slot(t) and t.is_free]
    stress_tracks = [t for t in tracks if applies(t, harm) and t.kind is TrackKind.STRESS]
    options: list[tuple[tuple[int, int, int], AbsorbChoice]] = []
    for size in range(len(slots) + 1):
        for picked in combinations(slots, size):
            soaked = sum(t.absorb for t in picked)
            if picked and soaked - min(t.absorb for t in picked) >= shifts:
                continue  # a slot in this set would be wasted
            rest = shifts - soaked
            slot_refs = [SlotRef(track=t.key) for t in picked]
            for stress in _stress_ways(stress_tracks, rest):
                choice = AbsorbChoice(stress=stress, slots=slot_refs)
                options.append(((size, soaked, len(stress)), choice))
    options.sort(key=lambda pair: pair[0])
    result = [choice for _, choice in options][: max(0, limit - 1)]
    result.append(AbsorbChoice(taken_out=True))
    return result


def _stress_ways(stress_tracks: list[Track], rest: int) -> list[list[BoxRef]]:
    if rest <= 0:
        return [[]]
    ways: list[list[BoxRef]] = []
    # one-shift boxes: the first free ones, in order, until the rest is covered
    picked: list[BoxRef] = []
    covered = 0
    for track in stress_tracks:
        if track.escalating:
            continue
        for index, box in enumerate(track.boxes):
            if covered >= rest:
                break
            if not box.marked:
                picked.append(BoxRef(track=track.key, box=index))
                covered += box.value
    if covered >= rest:
        ways.append(picked)
    # escalating: the smallest single free box worth at least the rest
    for track in stress_tracks:
        if not track.escalating:
            continue
        fitting = [
            (b.value, i) for i, b in enumerate(track.boxes) if not b.marked and b.value >= rest
        ]
        if fitting:
            ways.append([BoxRef(track=track.key, box=min(fitting)[1])])
    return ways
