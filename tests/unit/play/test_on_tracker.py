"""A tracker click stays quiet only when the service says its answer is on the tracker: the
lines a step logged (`EncounterState.logged`), not whatever text happens to match the embed."""

from __future__ import annotations

from bot.services.encounters import LOG_KEEP, EncounterState, on_tracker


def test_logged_lines_are_on_the_tracker_and_other_text_is_not() -> None:
    state = EncounterState()
    said = state.logged("Molly attacks the Ghoul.", "The attack does not land.")
    assert on_tracker(said) and said == "Molly attacks the Ghoul. The attack does not land."
    assert state.log[-2:] == ["Molly attacks the Ghoul.", "The attack does not land."]
    # a line that is on the log too, but said by a step that did not log it: said privately
    assert not on_tracker("The attack does not land.")
    # an answer built from logged lines plus more (a private roll line) is said privately
    assert not on_tracker("Molly rolls +3. " + said)


def test_the_log_keeps_the_newest_lines() -> None:
    state = EncounterState()
    for n in range(LOG_KEEP + 3):
        newest = state.logged(f"line {n}")
    assert on_tracker(newest) and state.log[-1] == f"line {LOG_KEEP + 2}"
    assert len(state.log) == LOG_KEEP
