"""`python -m bot` keeps what start-up made out of later collections and collects less often."""

from __future__ import annotations

import gc

from bot.__main__ import GC_THRESHOLDS, settle_garbage_collector


def test_the_bot_process_freezes_start_up_objects_and_raises_the_thresholds() -> None:
    before = gc.get_threshold()
    try:
        settle_garbage_collector()
        assert gc.get_threshold() == GC_THRESHOLDS
        assert gc.get_freeze_count() > 0  # start-up's objects: never scanned again
        assert GC_THRESHOLDS[0] > before[0]
    finally:  # this test process goes on with Python's own settings
        gc.unfreeze()
        gc.set_threshold(*before)
