"""Running jobs: a local process pool (the default) or a Dask cluster.

Both keep a bounded window of jobs in flight (memory stays flat however many games a run
has) and hand every finished game to ``sink`` at once, in the order they finish.

* Local: a ``ProcessPoolExecutor`` over ``workers`` processes (all cores by default). When a
  worker dies (killed, out of memory) the pool breaks: it is rebuilt and the games that were
  in flight are played again, each at most :data:`MAX_ATTEMPTS` times.
* Dask (``--cluster tcp://HOST:8786``): the games go to a running scheduler with
  ``retries=``; a worker that dies has its games rescheduled by Dask itself. The workers
  need this package installed (``pip install -e .[cluster]``), nothing else: a job carries
  its scenario as text.

A game that raises (a bug) is not retried: it is reported and the run goes on.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import uuid
from collections import deque
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from game.sim.match import Job, play

#: How often one game is started before a run gives up on it (killed workers).
MAX_ATTEMPTS = 3
#: How long to try to reach a Dask scheduler.
CONNECT_TIMEOUT = "15s"
#: Jobs in flight per worker process or Dask thread.
WINDOW_PER_WORKER = 3

Sink = Callable[[Job, dict, "str | None"], None]


class ClusterError(Exception):
    """The Dask scheduler cannot be used (not installed, not reachable)."""


@dataclass
class RunResult:
    done: int = 0
    failed: list[tuple[Job, str]] = field(default_factory=list)
    retried: int = 0
    interrupted: bool = False
    seconds: float = 0.0


def run_jobs(
    jobs: Iterable[Job],
    total: int,
    sink: Sink,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    keep_logs: bool = False,
    progress: bool | None = None,
    fn: Callable = play,
) -> RunResult:
    """Play ``jobs`` (``total`` of them, for the progress bar) and pass each finished game
    to ``sink(job, record, log_text)``. Ctrl+C stops the run with what is done kept.
    ``fn(job, keep_log) -> (record, log_text)`` plays one game (:func:`game.sim.match.play`;
    it must be importable by name in a worker process)."""
    result = RunResult()
    t0 = time.perf_counter()
    with _Progress(total, progress) as bar:

        def finished(job: Job, record: dict, log: str | None) -> None:
            sink(job, record, log)
            result.done += 1
            bar.advance()

        try:
            if cluster:
                _run_dask(iter(jobs), finished, result, cluster, keep_logs, fn)
            else:
                _run_local(iter(jobs), finished, result, workers or os.cpu_count() or 1, keep_logs, fn)
        except KeyboardInterrupt:
            result.interrupted = True
    result.seconds = time.perf_counter() - t0
    return result


def _describe(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)).strip()


# --- local processes --------------------------------------------------------------------------


def _worker_init(parent: int) -> None:
    """Workers leave Ctrl+C to the main process, which stops the run, and end when the
    main process is gone (killed), instead of waiting for work forever."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)


def _ready() -> bool:
    time.sleep(0.1)  # busy a moment, so that no worker is idle while the others are asked for
    return True


def _pool(workers: int) -> ProcessPoolExecutor:
    """A pool whose every worker is already running and ignores Ctrl+C.

    A terminal's Ctrl+C reaches the whole process group. A worker still starting (spawned,
    not yet in its initializer) would die of it with a traceback, so the workers are all
    started here, while the main process ignores SIGINT (an ignored signal stays ignored
    in a spawned child from its first instruction); Ctrl+C counts again once they run."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pool = ProcessPoolExecutor(
            workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init, initargs=(os.getpid(),)
        )
        for fut in [pool.submit(_ready) for _ in range(workers)]:  # one worker started per submit
            fut.result()
    finally:
        signal.signal(signal.SIGINT, previous)
    return pool


def _run_local(jobs: Iterator[Job], finished, result: RunResult, workers: int, keep_logs: bool, fn: Callable) -> None:
    window = workers * WINDOW_PER_WORKER
    attempts: dict[tuple, int] = {}
    retry: deque[Job] = deque()
    inflight: dict = {}
    pool = _pool(workers)

    def submit(job: Job) -> None:
        attempts[job.key] = attempts.get(job.key, 0) + 1
        inflight[pool.submit(fn, job, keep_logs)] = job

    def fill() -> None:
        while len(inflight) < window:
            job = retry.popleft() if retry else next(jobs, None)
            if job is None:
                return
            submit(job)

    try:
        fill()
        while inflight:
            done, _ = wait(inflight, return_when=FIRST_COMPLETED)
            broken = False
            for fut in done:
                job = inflight.pop(fut)
                try:
                    record, log = fut.result()
                except BrokenProcessPool:
                    broken = True
                    retry.append(job)
                    continue
                except Exception as exc:  # a bug in a game: report it, go on
                    result.failed.append((job, _describe(exc)))
                    continue
                attempts.pop(job.key, None)
                finished(job, record, log)
            if broken:  # every game in flight was lost with the pool: start them again
                retry.extend(inflight.values())
                inflight.clear()
                pool.shutdown(wait=False, cancel_futures=True)
                pool = _pool(workers)
                for job in list(retry):
                    if attempts.get(job.key, 0) >= MAX_ATTEMPTS:
                        retry.remove(job)
                        result.failed.append((job, f"a worker process died {MAX_ATTEMPTS} times while playing it"))
                result.retried += len(retry)
            fill()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


# --- Dask ---------------------------------------------------------------------------------------


def _client(address: str):
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install -e '.[cluster]' (here and on every worker)") from None
    try:
        return Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {address} ({exc})") from None


def _run_dask(jobs: Iterator[Job], finished, result: RunResult, address: str, keep_logs: bool, fn: Callable) -> None:
    from distributed import as_completed

    client = _client(address)
    inflight: dict = {}
    run_id = uuid.uuid4().hex[:8]
    try:
        threads = sum(client.nthreads().values()) or 1
        window = max(threads * WINDOW_PER_WORKER, 8)

        def fill() -> list:
            new = []
            while len(inflight) < window:
                job = next(jobs, None)
                if job is None:
                    break
                key = f"speedheim-{run_id}-{job.pairing_index}-{job.variant_index}-{job.seed}-{int(job.swapped)}"
                fut = client.submit(fn, job, keep_logs, key=key, pure=False, retries=MAX_ATTEMPTS - 1)
                inflight[fut.key] = job
                new.append(fut)
            return new

        pending = as_completed(fill(), loop=client.loop)
        for fut in pending:
            job = inflight.pop(fut.key)
            try:
                record, log = fut.result()
            except Exception as exc:  # a bug, or a game whose workers kept dying (KilledWorker)
                result.failed.append((job, _describe(exc)))
            else:
                finished(job, record, log)
            fut.release()
            for more in fill():
                pending.add(more)
    finally:
        if inflight:
            try:
                client.cancel(list(inflight))
            except Exception:
                pass
        client.close()


# --- progress -----------------------------------------------------------------------------------


class _Progress:
    """A rich progress bar (games done, games/s, ETA) on a terminal; nothing otherwise."""

    def __init__(self, total: int, show: bool | None):
        self.total = total
        self.show = (sys.stderr.isatty() and sys.stdout.isatty()) if show is None else show
        self._bar = None
        self._task = None
        self._t0 = time.perf_counter()
        self._n = 0

    def __enter__(self) -> "_Progress":
        if self.show:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("games"),
                TextColumn("{task.fields[rate]}"),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task("games", total=self.total, rate="")
        return self

    def advance(self) -> None:
        self._n += 1
        if self._bar is not None:
            rate = self._n / max(time.perf_counter() - self._t0, 1e-9)
            self._bar.update(self._task, advance=1, rate=f"{rate:.2f} games/s")

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
