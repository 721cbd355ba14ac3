"""Board pictures drawn in worker processes, away from the event loop's process.

Drawing a board is tens of milliseconds of Pillow. In a thread of the bot's process it holds
the GIL, and every call on the event loop that lets the GIL go (an SQLite statement, a socket
send) then waits for it: about 5 ms each (the interpreter's switch interval). In a process of
its own it costs the loop nothing but the pickling of a small public view and of the PNG.

One `PicturePool` per bot, started when the first game's lobby opens or at its first picture
(starting it with the bot made the start-up and the first command slower: the fork server's
imports compete for the same cores) and shut down when the bot closes. Its workers are forked
from one fork server per bot process, which imports the games once, so a pool (the tests start
many) costs a fork, not a fresh interpreter. Only a game's *public* view ever goes in (what the
board embed shows too), so a picture can never show a hand. Games registered at run time (not
importable by a worker) and every picture while the pool starts, or after a worker died, are
drawn in a thread as before: the pool is an optimisation, never a condition for a board.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bot.games.base import BUILTIN_ENGINE_MODULES, get_display

log = logging.getLogger(__name__)

# What the fork server imports once, so that every worker forked from it starts warm.
PRELOAD = ["bot.pictures", *BUILTIN_ENGINE_MODULES.values()]


def draw_in_worker(engine: str, view: dict[str, Any]) -> tuple[bytes | None, float]:
    """The picture of a public view and the CPU seconds it took (run in a worker)."""
    started = time.process_time()
    picture = get_display(engine).picture(view)
    return picture, time.process_time() - started


def _warm() -> float:
    """Import every builtin game's display in the worker (the fork server did most of it)."""
    started = time.process_time()
    for key in BUILTIN_ENGINE_MODULES:
        get_display(key)
    return time.process_time() - started


def _drawn_by_builtin(engine: str) -> bool:
    """Whether a worker draws this game as the bot would: a builtin game whose display is the
    one its package registers (a test may replace it, a plugin may add one at run time)."""
    package = BUILTIN_ENGINE_MODULES.get(engine)
    return package is not None and type(get_display(engine)).__module__.startswith(package)


class PicturePool:
    """Draws board pictures in `workers` processes (0: in a thread of this process)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self._submitter = ThreadPoolExecutor(1, thread_name_prefix="picture-submit")
        self._ready = False
        self._starting: asyncio.Task[None] | None = None
        self._started = False  # start() ran (once, or once more after a worker died)
        # CPU seconds the workers spent drawing, and pictures drawn each way (for the bench).
        self.worker_cpu_seconds = 0.0
        self.drawn_in_workers = 0
        self.drawn_in_threads = 0

    async def start(self) -> None:
        """Start the workers in the background: the first process start waits for the fork
        server's imports (a second or two), which must not hold up the event loop."""
        if self.workers <= 0 or self._started:
            return
        self._started = True
        try:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(PRELOAD)
            self._executor = ProcessPoolExecutor(self.workers, mp_context=context)
        except (OSError, ImportError, ValueError):  # e.g. no working sem_open in a sandbox
            log.warning("no picture workers on this system; drawing in threads", exc_info=True)
            return
        self._starting = asyncio.create_task(self._warm_up(self._executor), name="pictures-start")

    async def _warm_up(self, executor: ProcessPoolExecutor) -> None:
        def submit_all() -> list[Future[float]]:
            # Each submit while no worker is idle starts one (the first also the fork server).
            return [executor.submit(_warm) for _ in range(self.workers)]

        try:
            warmed = await asyncio.to_thread(submit_all)  # a process start blocks: off the loop
            await asyncio.gather(*(asyncio.wrap_future(f) for f in warmed))
        except Exception:  # noqa: BLE001 - without workers, pictures are drawn in threads
            log.warning("the picture workers did not start; drawing in threads", exc_info=True)
            return
        self._ready = True

    @property
    def ready(self) -> bool:
        """Whether pictures now go to the workers."""
        return self._ready

    async def wait_ready(self) -> None:
        """Until the workers took their first picture request (or failed to start)."""
        if self._starting is not None:
            await asyncio.shield(self._starting)

    async def draw(self, engine: str, view: dict[str, Any]) -> bytes | None:
        """The PNG of a game's public view (None: the game draws no picture)."""
        if not self._started:
            await self.start()  # this picture in a thread, the next ones in the workers
        executor = self._executor
        if self._ready and executor is not None and _drawn_by_builtin(engine):
            try:
                # submitted from a thread of its own: the submit wakes the pool's manager thread
                # through a pipe, and the event loop waited there for the GIL (1.7 ms a
                # picture at load)
                submitted = await asyncio.get_running_loop().run_in_executor(
                    self._submitter, executor.submit, draw_in_worker, engine, view
                )
                picture, cpu = await asyncio.wrap_future(submitted)
            except BrokenProcessPool:
                if executor is self._executor:  # the first to notice starts new workers
                    log.warning("a picture worker died; starting new ones")
                    await self._restart()
            except RuntimeError:  # shut down meanwhile: the bot is closing (after the above,
                pass  # whose error is a RuntimeError too)
            else:
                self.worker_cpu_seconds += cpu
                self.drawn_in_workers += 1
                return picture
        self.drawn_in_threads += 1
        return await asyncio.to_thread(get_display(engine).picture, view)

    async def _restart(self) -> None:
        broken, self._executor = self._executor, None
        self._ready = False
        self._starting = None
        self._started = False
        if broken is not None:
            broken.shutdown(wait=False, cancel_futures=True)
        await self.start()

    async def close(self) -> None:
        """Stop the workers (a picture being drawn is finished first); idempotent."""
        executor, self._executor = self._executor, None
        self._ready = False
        if self._starting is not None:
            self._starting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._starting
            self._starting = None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
        self._submitter.shutdown(wait=False)
