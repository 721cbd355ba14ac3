from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.errors import RuleError
from bot.fate.aspects import classify
from bot.fate.harm import (
    AbsorbChoice,
    BoxRef,
    HarmType,
    SlotRef,
    absorb_hit,
    max_absorb,
    suggest_absorb_options,
    take_out_if_unabsorbable,
)
from bot.fate.tracks import Box, Track, TrackKind

from .conftest import condensed_tracks

PHYS = HarmType.PHYSICAL


def dice(faces: str) -> int:
    return sum({"+": 1, "-": -1, "0": 0}[f] for f in faces)


def test_ghoul_first_claw_two_shifts_two_boxes(charles: list[Track]) -> None:
    attack = 2 + dice("00++")  # Fair Fight -> Great (+4)
    defence = 3 + dice("000-")  # Good Athletics -> Fair (+2)
    assert (attack, defence) == (4, 2)
    shifts = attack - defence
    assert shifts == 2
    choice = AbsorbChoice(stress=[BoxRef(track="physical", box=0), BoxRef(track="physical", box=1)])
    result = absorb_hit(charles, PHYS, shifts, choice, defender="charles", attacker="ghoul")
    physical = next(t for t in result.tracks if t.key == "physical")
    assert [b.marked for b in physical.boxes] == [True, True, False]
    assert not result.taken_out and result.new_aspects == []


def test_ghoul_fantastic_blow_moderate_plus_last_box(charles: list[Track]) -> None:
    after_first = absorb_hit(
        charles,
        PHYS,
        2,
        AbsorbChoice(stress=[BoxRef(track="physical", box=0), BoxRef(track="physical", box=1)]),
        defender="charles",
        attacker="ghoul",
    ).tracks
    attack = 2 + dice("00++") + 2  # invokes Hungry for Flesh: Fantastic (+6)
    defence = 3 + dice("--00")  # Average (+1)
    assert (attack, defence) == (6, 1)
    shifts = attack - defence
    assert shifts == 5
    suggestions = suggest_absorb_options(after_first, PHYS, shifts)
    wanted = AbsorbChoice(
        stress=[BoxRef(track="physical", box=2)], slots=[SlotRef(track="moderate")]
    )
    assert wanted in suggestions
    choice = AbsorbChoice(
        stress=[BoxRef(track="physical", box=2)],
        slots=[SlotRef(track="moderate", aspect="Gaping Chest Wound")],
    )
    result = absorb_hit(after_first, PHYS, shifts, choice, defender="charles", attacker="ghoul")
    moderate = next(t for t in result.tracks if t.key == "moderate")
    assert moderate.aspect == "Gaping Chest Wound" and not moderate.is_free
    assert result.absorbed == 5
    (wound,) = result.new_aspects
    assert wound.free_invokes == ["ghoul"] and wound.owner == "charles"


def test_legendary_attack_takes_charles_out(charles: list[Track]) -> None:
    worn = [t.model_copy(deep=True) for t in charles]
    for track in worn:
        if track.key in ("physical", "moderate"):
            track.boxes = [Box(value=b.value, marked=True) for b in track.boxes]
    shifts = 8 - (-1)
    assert shifts == 9
    assert max_absorb(worn, PHYS) == 8  # mild 2 + severe 6 is not enough
    with pytest.raises(RuleError, match="8 of 9"):
        absorb_hit(
            worn,
            PHYS,
            shifts,
            AbsorbChoice(
                slots=[SlotRef(track="mild", aspect="a"), SlotRef(track="severe", aspect="b")]
            ),
            defender="charles",
            attacker="ghoul",
        )
    forced = take_out_if_unabsorbable(worn, PHYS, shifts, "charles")
    assert forced is not None and forced.taken_out
    assert suggest_absorb_options(worn, PHYS, shifts) == [AbsorbChoice(taken_out=True)]


def test_ruth_punches_corpse_two_shifts() -> None:
    ruth = 4 + dice("--00")  # Great Fight -> Fair (+2)
    corpse = 0 + dice("-00+")  # Mediocre Athletics
    assert ruth - corpse == 2
    assert classify(ruth, corpse).value == "success"


def test_wasteful_and_invalid_choices(charles: list[Track]) -> None:
    three_boxes = AbsorbChoice(stress=[BoxRef(track="physical", box=i) for i in range(3)])
    with pytest.raises(RuleError, match="more than the hit needs"):
        absorb_hit(charles, PHYS, 2, three_boxes, defender="c", attacker="g")
    with pytest.raises(RuleError, match="cannot absorb physical"):
        absorb_hit(
            charles,
            PHYS,
            1,
            AbsorbChoice(stress=[BoxRef(track="mental", box=0)]),
            defender="c",
            attacker="g",
        )
    with pytest.raises(RuleError, match="Name the"):
        absorb_hit(
            charles,
            PHYS,
            2,
            AbsorbChoice(slots=[SlotRef(track="mild")]),
            defender="c",
            attacker="g",
        )
    with pytest.raises(RuleError, match="no box number"):
        absorb_hit(
            charles,
            PHYS,
            1,
            AbsorbChoice(stress=[BoxRef(track="physical", box=9)]),
            defender="c",
            attacker="g",
        )
    with pytest.raises(RuleError, match="already marked"):
        dup = AbsorbChoice(
            stress=[BoxRef(track="physical", box=0), BoxRef(track="physical", box=0)]
        )
        absorb_hit(charles, PHYS, 2, dup, defender="c", attacker="g")
    with pytest.raises(RuleError, match="no hit"):
        absorb_hit(charles, PHYS, 0, three_boxes, defender="c", attacker="g")


def test_choosing_taken_out_marks_nothing(charles: list[Track]) -> None:
    result = absorb_hit(charles, PHYS, 1, AbsorbChoice(taken_out=True), defender="c", attacker="g")
    assert result.taken_out and result.tracks == charles


def escalating_tracks() -> list[Track]:
    return [
        Track(
            key="physical",
            label="Physical",
            kind=TrackKind.STRESS,
            harm="physical",
            escalating=True,
            boxes=[Box(value=1), Box(value=2), Box(value=3)],
        ),
        Track(key="mild", label="Mild", kind=TrackKind.CONSEQUENCE, boxes=[Box(value=2)], absorb=2),
    ]


def test_escalating_one_box_per_hit() -> None:
    tracks = escalating_tracks()
    result = absorb_hit(
        tracks,
        PHYS,
        2,
        AbsorbChoice(stress=[BoxRef(track="physical", box=2)]),
        defender="c",
        attacker="g",
    )
    assert [b.marked for b in result.tracks[0].boxes] == [False, False, True]
    with pytest.raises(RuleError, match="Only one box"):
        two = AbsorbChoice(
            stress=[BoxRef(track="physical", box=0), BoxRef(track="physical", box=1)]
        )
        absorb_hit(tracks, PHYS, 3, two, defender="c", attacker="g")
    options = suggest_absorb_options(tracks, PHYS, 2)
    assert options[0] == AbsorbChoice(stress=[BoxRef(track="physical", box=1)])


def test_extra_mild_for_physical_only() -> None:
    tracks = condensed_tracks()
    tracks.append(
        Track(
            key="mild2",
            label="Extra mild",
            kind=TrackKind.CONSEQUENCE,
            harm="physical",
            absorb=2,
            boxes=[Box(value=2)],
        )
    )
    assert max_absorb(tracks, PHYS) == 3 + 2 + 4 + 6 + 2
    assert max_absorb(tracks, HarmType.MENTAL) == 3 + 2 + 4 + 6


def test_condition_absorbs_and_marks_all_boxes() -> None:
    wounded = Track(
        key="wounded",
        label="Wounded",
        kind=TrackKind.CONDITION,
        absorb=4,
        boxes=[Box(value=4), Box(value=4)],
    )
    result = absorb_hit(
        [wounded],
        PHYS,
        4,
        AbsorbChoice(slots=[SlotRef(track="wounded")]),
        defender="c",
        attacker="g",
    )
    assert all(b.marked for b in result.tracks[0].boxes)
    assert result.new_aspects[0].text == "Wounded"


@given(
    boxes=st.lists(st.booleans(), min_size=0, max_size=6),
    used=st.sets(st.sampled_from(["mild", "moderate", "severe"])),
    shifts=st.integers(min_value=1, max_value=16),
)
def test_suggestions_are_valid_and_never_wasteful(
    boxes: list[bool], used: set[str], shifts: int
) -> None:
    tracks = condensed_tracks(physical_boxes=len(boxes))
    for track in tracks:
        if track.key == "physical":
            track.boxes = [Box(marked=m) for m in boxes]
        if track.key in used:
            track.boxes = [Box(value=track.absorb, marked=True)]
    options = suggest_absorb_options(tracks, PHYS, shifts)
    assert options[-1].taken_out
    for option in options[:-1]:
        named = AbsorbChoice(
            stress=option.stress,
            slots=[SlotRef(track=s.track, aspect="Hurt") for s in option.slots],
        )
        result = absorb_hit(tracks, PHYS, shifts, named, defender="d", attacker="a")
        marked_before = sum(t.marked_count for t in tracks)
        marked_after = sum(t.marked_count for t in result.tracks)
        values = [1] * len(option.stress) + [
            next(t.absorb for t in tracks if t.key == s.track) for s in option.slots
        ]
        # never more than the hit needs beyond one piece
        assert sum(values) - min(values) < shifts <= sum(values)
        assert marked_after - marked_before == len(values)
    assert (len(options) > 1) == (max_absorb(tracks, PHYS) >= shifts)
