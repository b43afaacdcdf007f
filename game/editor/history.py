"""Undo and redo for the editor (python-chess style): before a command runs, the editable
parts of the scenario are copied; ``undo`` puts the copy back. Nested commands and a
transaction (a drag) make one step. Pure Python, no pygame."""

from __future__ import annotations

import copy
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Protocol

from game.engine.model import Scenario


class Edited(Protocol):
    """What the undo stack needs of the document it guards (a
    :class:`~game.editor.document.Document` is one): the scenario and the loaded rosters
    it copies, and a call to say they changed."""

    sc: Scenario
    rosters: dict[str, Any]

    def changed(self) -> None: ...


@dataclass
class Snapshot:
    """The editable parts of a scenario (and the loaded rosters) at one moment."""

    name: str
    width: float
    height: float
    terrain: list
    ladders: list
    deployment: dict
    warbands: list
    units: dict
    treasure: dict
    unit_order: list
    rosters: dict


@dataclass
class UndoStep:
    """One undo step: its label, the document before it and (once undone) after it."""

    label: str
    before: Snapshot
    after: Snapshot | None = None


class UndoStack:
    def __init__(self, doc: Edited):
        self.doc = doc
        self.done: list[UndoStep] = []
        self.undone: list[UndoStep] = []
        self._open: UndoStep | None = None
        self._depth = 0

    def snapshot(self) -> Snapshot:
        doc = self.doc
        sc = doc.sc
        return Snapshot(
            sc.name,
            sc.width,
            sc.height,
            copy.deepcopy(sc.terrain),
            copy.deepcopy(sc.ladders),
            copy.deepcopy(sc.deployment),
            copy.deepcopy(sc.warbands),
            copy.deepcopy(sc.state.units),
            copy.deepcopy(sc.state.treasure),
            list(sc.unit_order),
            dict(doc.rosters),
        )

    def restore(self, s: Snapshot) -> None:
        doc = self.doc
        sc = doc.sc
        sc.name, sc.width, sc.height = s.name, s.width, s.height
        sc.terrain = copy.deepcopy(s.terrain)
        sc.ladders = copy.deepcopy(s.ladders)
        sc.deployment = copy.deepcopy(s.deployment)
        sc.warbands = copy.deepcopy(s.warbands)
        sc.state.units = copy.deepcopy(s.units)
        sc.state.treasure = copy.deepcopy(s.treasure)
        sc.unit_order = list(s.unit_order)
        sc.state.lost = {w.id: sc.state.lost.get(w.id, 0) for w in sc.warbands}
        doc.rosters = dict(s.rosters)
        doc.changed()

    @contextmanager
    def edit(self, label: str) -> Iterator[None]:
        """Run a command: on EditError (or any error) the document is left untouched.

        Nested commands (duplicate calls add_terrain) make one undo step; inside a
        transaction (a drag) the whole transaction is one step.
        """
        if self._depth or self._open is not None:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            self.doc.changed()
            return
        before = self.snapshot()
        self._depth += 1
        try:
            yield
        except BaseException:
            self._depth -= 1
            self.restore(before)
            raise
        self._depth -= 1
        self.done.append(UndoStep(label, before))
        self.undone.clear()
        self.doc.changed()

    def begin(self, label: str) -> None:
        """Start a transaction (a drag): many changes, one undo step, ended by commit()."""
        if self._open is None:
            self._open = UndoStep(label, self.snapshot())

    def commit(self) -> None:
        h, self._open = self._open, None
        if h is not None and self.snapshot() != h.before:
            self.done.append(h)
            self.undone.clear()
            self.doc.changed()

    def cancel(self) -> None:
        h, self._open = self._open, None
        if h is not None:
            self.restore(h.before)

    @property
    def in_transaction(self) -> bool:
        return self._open is not None

    @property
    def can_undo(self) -> bool:
        return bool(self.done) and self._open is None

    @property
    def can_redo(self) -> bool:
        return bool(self.undone) and self._open is None

    def undo(self) -> str | None:
        if not self.can_undo:
            return None
        h = self.done.pop()
        h.after = self.snapshot()
        self.restore(h.before)
        self.undone.append(h)
        return h.label

    def redo(self) -> str | None:
        if not self.can_redo:
            return None
        h = self.undone.pop()
        assert h.after is not None
        self.restore(h.after)
        self.done.append(h)
        return h.label
