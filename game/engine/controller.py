"""TEMPORARY (issue 9): the controller became :mod:`game.engine.game` (the questions, apply,
undo), :mod:`game.engine.flow` (the turn pointer) and :mod:`game.engine.rules` (one module
per phase). This name stays only until the branches written against it are merged."""

from game.engine.game import ActionResult, Game, LogEntry, Outcome  # noqa: F401
