"""Path previews off the frame: a worker thread plans the drag preview for the latest
cursor position, so a frame never waits for the path search.

The newest request replaces an older one that has not started; the scene shows the
newest finished preview. Every use of the movement engine (the worker's plans and
the scene's own calls, and ``game.apply``) holds the scene's engine lock, so the
engine's caches are never used by two threads at once.
"""

from __future__ import annotations

import threading
from typing import Any, Callable


class PlanWorker:
    def __init__(self, compute: Callable[[Any], Any], name: str = "speedheim-planner"):
        self.compute = compute
        self.name = name
        self.cv = threading.Condition()
        self.request: tuple[Any, Any] | None = None
        self.result: tuple[Any, Any] | None = None
        self.busy = False
        self.thread: threading.Thread | None = None
        self.stopped = False

    def submit(self, key: Any, job: Any) -> None:
        with self.cv:
            self.request = (key, job)
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, daemon=True, name=self.name)
                self.thread.start()
            self.cv.notify_all()

    def take(self) -> tuple[Any, Any] | None:
        """The newest finished (key, preview), once."""
        with self.cv:
            out, self.result = self.result, None
            return out

    def wait(self, timeout: float = 30.0) -> None:
        """Until nothing is queued or being planned (tests, the benchmark, a drop)."""
        with self.cv:
            self.cv.wait_for(lambda: self.request is None and not self.busy, timeout=timeout)

    def stop(self, timeout: float = 30.0) -> None:
        """End the thread (after the plan it is working on)."""
        with self.cv:
            self.stopped = True
            self.cv.notify_all()
        if self.thread is not None:
            self.thread.join(timeout)

    def _run(self) -> None:
        while True:
            with self.cv:
                self.cv.wait_for(lambda: self.request is not None or self.stopped)
                if self.stopped:
                    return
                key, job = self.request
                self.request = None
                self.busy = True
            try:
                preview = self.compute(job)
            except Exception as exc:  # noqa: BLE001 - shown as a failed preview
                preview = exc
            with self.cv:
                self.result = (key, preview)
                self.busy = False
                self.cv.notify_all()


class LatestAnswer:
    """A worker's answer to what the window wants now: :meth:`update` asks once for each
    new key (the newest request wins) and keeps the answer that comes back for the key
    still wanted; :meth:`current` is that answer while the key is still the same."""

    def __init__(self, compute: Callable[[Any], Any], name: str, what: str):
        self.worker = PlanWorker(compute, name=name)
        self.what = what  # for the error report: "planning the engage preview"
        self.value: Any = None
        self.key: Any = None
        self._asked: Any = None

    def update(self, app, key: Any, job: Callable[[], Any] | None = None) -> None:
        """Ask for ``key`` (the job is ``job()``, or the key itself) unless asked already;
        take a finished answer for it. ``key`` None: nothing is wanted now."""
        if key is not None and key != self._asked and key != self.key:
            self._asked = key
            self.worker.submit(key, job() if job is not None else key)
        got = self.worker.take()
        if got is not None:
            k, value = got
            if isinstance(value, Exception):
                app.report_error(value, self.what)
            elif k == key:
                self.value, self.key = value, k

    def flush(self, app, key: Any, job: Callable[[], Any] | None = None) -> None:
        """Wait for the worker and take its answer (tests, benchmarks)."""
        self.update(app, key, job)
        self.worker.wait()
        self.update(app, key, job)

    def current(self, key: Any) -> Any:
        return self.value if key is not None and key == self.key else None

    def set(self, key: Any, value: Any) -> None:
        """An answer worked out at once (on the window's thread)."""
        self.value, self.key = value, key

    def reset(self) -> None:
        self.value = self.key = self._asked = None

    def stop(self) -> None:
        self.worker.stop()
