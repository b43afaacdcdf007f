"""The play window's access to the engine across threads.

One lock: every use of the movement engine (the preview worker's plans, the card's
allowances, the reach layer and ``game.apply``) holds it, so the engine's caches are
never used by two threads at once. Preparing the movement engine and the map's path
structures takes a while on big maps, so a thread starts that after the first frame;
asking before it is done waits.
Unit information and the reachable area are cached per state version.
"""

from __future__ import annotations

import threading
from typing import Any

from game.engine.errors import IllegalAction
from game.ui.scenes import ask


class EngineView:
    def __init__(self):
        self.lock = threading.RLock()
        self.game: Any = None
        self._thread: threading.Thread | None = None
        self._info: dict[tuple, dict] = {}
        self._reach: tuple | None = None

    def use(self, game) -> None:
        """A new game (start, load, new game): its movement engine is prepared later."""
        self.game = game
        self._thread = None
        self.forget()

    def forget(self) -> None:
        """The state changed: cached answers are stale."""
        self._info.clear()
        self._reach = None

    @property
    def prepared(self) -> bool:
        return self._thread is not None

    def prepare(self) -> None:
        """Build the movement engine and the map's path structures in a thread (called
        after the first frame)."""
        if self._thread is None:
            game = self.game
            self._thread = threading.Thread(
                target=ask.prepare_movement, args=(game,), daemon=True, name="speedheim-mover"
            )
            self._thread.start()

    def ready(self) -> None:
        """Wait for the movement engine (never let the game build a second one meanwhile)."""
        t = self._thread
        if t is not None and t.is_alive():
            t.join()

    def unit_info(self, uid: str, version: int) -> dict:
        """Walk and run allowance of a unit, or why it may not (cached per state version)."""
        self.ready()
        with self.lock:
            key = (uid, version)
            got = self._info.get(key)
            if got is not None:
                return got
            game = self.game
            # *_difficult: the allowance of a path across difficult ground (M12)
            info: dict[str, Any] = {
                "walk": 0.0,
                "run": None,
                "walk_error": None,
                "run_denied": None,
                "walk_difficult": 0.0,
                "run_difficult": None,
            }
            try:
                info["walk"] = ask.allowance(game, uid, run=False)
                info["walk_difficult"] = ask.allowance_across_difficult(game, uid, run=False)
            except IllegalAction as exc:
                info["walk_error"] = exc
            info["run_denied"] = ask.run_denial(game, uid)
            if info["run_denied"] is None and info["walk_error"] is None:
                try:
                    info["run"] = ask.allowance(game, uid, run=True)
                    info["run_difficult"] = ask.allowance_across_difficult(game, uid, run=True)
                except IllegalAction as exc:
                    info["run_denied"] = exc
            self._info[key] = info
            return info

    def legal(self, uid: str, version: int):
        """What a unit may do now (``ask.legal``), cached per state version."""
        self.ready()
        with self.lock:
            key = ("legal", uid, version)
            got = self._info.get(key)
            if got is None:
                got = self._info[key] = ask.legal(self.game, uid)
            return got

    def reach(self, uid: str, version: int):
        """The ground a unit reaches (None when it may not move), cached per state version."""
        if self._reach and self._reach[0] == (uid, version):
            return self._reach[1]
        result = None
        if self.game.state.units[uid].active:
            self.ready()
            try:
                with self.lock:
                    result = ask.reachable(self.game, uid)
            except IllegalAction:
                result = None
        self._reach = ((uid, version), result)
        return result
