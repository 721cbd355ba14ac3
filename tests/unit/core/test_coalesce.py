"""The live-message throttle: the first change after a quiet spell is drawn at once, a burst
within the interval becomes one more edit showing the newest state, and keys do not wait for
one another."""

from __future__ import annotations

import asyncio

import pytest

import cogs.common.coalesce as coalesce
from cogs.common.coalesce import Coalescer

INTERVAL = 0.2


@pytest.fixture
def throttled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(coalesce, "LIVE_EDIT_INTERVAL", INTERVAL)


class Recorder:
    def __init__(self) -> None:
        self.state: dict[str, int] = {}
        self.drawn: list[tuple[str, int, float]] = []  # key, state drawn, loop time

    async def work(self, key: str) -> None:
        self.drawn.append((key, self.state[key], asyncio.get_running_loop().time()))


async def settle(coalescer: Coalescer[str]) -> None:
    while coalescer.tasks:
        await asyncio.gather(*coalescer.tasks.values())


@pytest.mark.usefixtures("throttled")
async def test_a_quiet_message_is_edited_at_once_and_a_burst_folds_into_one_more_edit() -> None:
    recorder = Recorder()
    coalescer: Coalescer[str] = Coalescer("test", recorder.work, lambda: 0.0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for n in range(1, 6):  # five changes, 10 ms apart: well inside one interval
        recorder.state["board"] = n
        coalescer.poke("board")
        await asyncio.sleep(0.01)
    await settle(coalescer)
    assert [state for _, state, _ in recorder.drawn] == [1, 5]  # the first, then the newest
    first, second = (at for _, _, at in recorder.drawn)
    assert first - started < INTERVAL / 2  # not held back
    assert second - first >= INTERVAL * 0.99  # never two edits within the interval


@pytest.mark.usefixtures("throttled")
async def test_a_change_after_a_quiet_interval_is_drawn_at_once_again() -> None:
    recorder = Recorder()
    coalescer: Coalescer[str] = Coalescer("test", recorder.work, lambda: 0.0)
    loop = asyncio.get_running_loop()
    recorder.state["board"] = 1
    coalescer.poke("board")
    await settle(coalescer)
    await asyncio.sleep(INTERVAL * 1.2)
    recorder.state["board"] = 2
    asked = loop.time()
    coalescer.poke("board")
    await settle(coalescer)
    assert [state for _, state, _ in recorder.drawn] == [1, 2]
    assert recorder.drawn[1][2] - asked < INTERVAL / 2


@pytest.mark.usefixtures("throttled")
async def test_each_message_has_its_own_interval() -> None:
    recorder = Recorder()
    coalescer: Coalescer[str] = Coalescer("test", recorder.work, lambda: 0.0)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for key in ("a", "b", "c"):
        recorder.state[key] = 1
        coalescer.poke(key)
    await settle(coalescer)
    assert sorted(key for key, _, _ in recorder.drawn) == ["a", "b", "c"]
    assert all(at - started < INTERVAL / 2 for _, _, at in recorder.drawn)


@pytest.mark.usefixtures("throttled")
async def test_the_burst_delay_still_applies_and_a_failed_edit_does_not_stop_the_next() -> None:
    drawn: list[int] = []
    state = {"n": 0}

    async def flaky(key: str) -> None:
        drawn.append(state["n"])
        if len(drawn) == 1:
            raise RuntimeError("the edit failed")

    coalescer: Coalescer[str] = Coalescer("test", flaky, lambda: 0.05)
    for n in (1, 2):
        state["n"] = n
        coalescer.poke("board")
    await asyncio.sleep(0.07)  # past the delay: the first run has drawn the newest state
    state["n"] = 3
    coalescer.poke("board")
    await settle(coalescer)
    assert drawn == [2, 3]


@pytest.mark.usefixtures("throttled")
async def test_a_flush_draws_the_waiting_edit_at_once_instead_of_dropping_it() -> None:
    recorder = Recorder()
    coalescer: Coalescer[str] = Coalescer("test", recorder.work, lambda: 0.0)
    loop = asyncio.get_running_loop()
    recorder.state["board"] = 1
    coalescer.poke("board")  # drawn at once
    await asyncio.sleep(0.01)
    recorder.state["board"] = 2
    coalescer.poke("board")  # held back for the interval
    asked = loop.time()
    await coalescer.flush()
    assert [state for _, state, _ in recorder.drawn] == [1, 2]
    assert recorder.drawn[1][2] - asked < INTERVAL / 2  # not after the interval
    assert not coalescer.tasks


class Queue:
    """Work that takes its input off a queue before it edits, as the tracker's does: cancelling
    it mid-edit would lose that input."""

    def __init__(self) -> None:
        self.pending: dict[str, int] = {}
        self.shown: dict[str, int] = {}
        self.editing = asyncio.Event()

    async def work(self, key: str) -> None:
        state = self.pending.pop(key, None)
        if state is None:
            return
        self.editing.set()
        await asyncio.sleep(0.05)  # the HTTP call
        self.shown[key] = state


@pytest.mark.usefixtures("throttled")
async def test_a_flush_lets_an_edit_in_flight_finish_and_draws_what_is_poked_meanwhile() -> None:
    queue = Queue()
    coalescer: Coalescer[str] = Coalescer("test", queue.work, lambda: 0.0)
    queue.pending["board"] = 1
    coalescer.poke("board")
    await queue.editing.wait()  # the edit is in flight when the stop comes
    flushing = asyncio.ensure_future(coalescer.flush())
    await asyncio.sleep(0.01)
    queue.pending["late"] = 7
    coalescer.poke("late")  # a click still being handled while the bot stops
    await flushing
    assert queue.shown == {"board": 1, "late": 7}
    assert not coalescer.tasks


async def test_a_flush_gives_up_after_its_timeout() -> None:
    async def hangs(key: str) -> None:
        await asyncio.sleep(10)

    coalescer: Coalescer[str] = Coalescer("test", hangs, lambda: 0.0)
    coalescer.poke("board")
    await asyncio.sleep(0.01)
    loop = asyncio.get_running_loop()
    asked = loop.time()
    await coalescer.flush(timeout=0.1)
    assert loop.time() - asked < 1.0
    await asyncio.sleep(0)  # the cancelled edit unwinds
    assert not coalescer.tasks


async def test_a_flush_with_nothing_waiting_draws_nothing() -> None:
    recorder = Recorder()
    coalescer: Coalescer[str] = Coalescer("test", recorder.work, lambda: 0.0)
    recorder.state["board"] = 1
    coalescer.poke("board")
    await settle(coalescer)
    await coalescer.flush()
    assert [state for _, state, _ in recorder.drawn] == [1]
