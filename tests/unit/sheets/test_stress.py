import pytest

from bot.fate.sheet import new_character
from bot.fate.stress import (
    StressStyle,
    has_extra_mild,
    recompute_tracks,
    stress_box_values,
    stress_track,
)


# Every row of the seed's Physique/Will table (plus Poor, below it, and Legendary, above).
@pytest.mark.parametrize(
    ("rating", "boxes", "extra_mild"),
    [
        (-1, 3, False),
        (0, 3, False),
        (1, 4, False),
        (2, 4, False),
        (3, 6, False),
        (4, 6, False),
        (5, 6, True),
        (6, 6, True),
        (8, 6, True),
    ],
)
def test_condensed_table(rating, boxes, extra_mild):
    assert stress_box_values(rating) == [1] * boxes
    assert has_extra_mild(rating) is extra_mild


@pytest.mark.parametrize("skill", ["Physique", "Will"])
@pytest.mark.parametrize(("rating", "boxes"), [(0, 3), (1, 4), (2, 4), (3, 6), (4, 6), (5, 6)])
def test_table_applies_on_the_sheet(skill, rating, boxes):
    harm = "physical" if skill == "Physique" else "mental"
    sheet = new_character("Test", skills={skill: rating})
    assert len(sheet.track(harm).boxes) == boxes
    extra = f"mild_{harm}"
    assert any(t.key == extra for t in sheet.tracks) is (rating >= 5)
    assert {t.key: t.absorb for t in sheet.tracks if t.kind == "consequence"}.items() >= {
        "mild": 2,
        "moderate": 4,
        "severe": 6,
    }.items()


@pytest.mark.parametrize(
    ("rating", "values"),
    [
        (0, [1, 2]),
        (1, [1, 2, 3]),
        (2, [1, 2, 3]),
        (3, [1, 2, 3, 4]),
        (4, [1, 2, 3, 4]),
        (5, [1, 2, 3, 4]),
    ],
)
def test_escalating_boxes(rating, values):
    assert stress_box_values(rating, StressStyle.ESCALATING) == values
    track = stress_track("physical", rating, StressStyle.ESCALATING)
    assert track.escalating and [b.value for b in track.boxes] == values


def test_growing_track_keeps_marks():
    old = stress_track("physical", 0).with_box(0, True).with_box(1, True)
    new = stress_track("physical", 3, previous=old)
    assert [b.marked for b in new.boxes] == [True, True, False, False, False, False]


def test_shrinking_track_keeps_harm_count():
    old = stress_track("physical", 3)
    for i in (0, 4, 5):
        old = old.with_box(i, True)
    new = stress_track("physical", 0, previous=old)
    assert new.marked_count == 3


def test_marked_extra_mild_survives_until_cleared():
    sheet = new_character("Hulk", skills={"Physique": 5})
    hurt = sheet.take_consequence("mild_physical", "Sprained Wrist")
    weaker = hurt.set_skill("Physique", 4)
    assert weaker.track("mild_physical").aspect == "Sprained Wrist"
    healed = weaker.clear_consequence("mild_physical")
    assert all(t.key != "mild_physical" for t in healed.tracks)


def test_recompute_passes_other_tracks_through():
    from bot.fate.sheet import condition_track
    from bot.fate.tracks import Recovery

    wounded = condition_track("wounded", "Wounded", Recovery.LASTING, value=4)
    tracks = recompute_tracks([wounded], 0, 0)
    assert tracks[-1] == wounded


def test_charles_two_shift_hit_marks_two_of_three_boxes():
    charles = new_character("Charles", skills={"Athletics": 3})
    hit = charles.mark_box("physical", 1).mark_box("physical", 2)
    assert hit.track("physical").render_boxes() == "[x][x][1]"
