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
