"""`collector_as_deployed`: the bot's collector settings for a measured stretch, then the
caller's own again."""

import gc

from bot.__main__ import GC_THRESHOLDS, collector_as_deployed


def test_the_stretch_runs_with_the_bots_settings_and_gives_the_callers_back() -> None:
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0  # pytest's process: nothing frozen
    with collector_as_deployed():
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_heap_frozen_before_stays_frozen() -> None:
    gc.freeze()
    try:
        kept = gc.get_freeze_count()
        with collector_as_deployed():
            pass
        assert gc.get_freeze_count() >= kept > 0
    finally:
        gc.unfreeze()
