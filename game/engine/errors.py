"""Errors a user sees: file problems with a line, illegal actions with a rule."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable


#: The line of a problem with the whole file (missing, a directory, unreadable): none.
NO_LINE = 0


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong in a file, reported as ``FILE:LINE: message``; a file that cannot be
    read at all has no line (:data:`NO_LINE`) and is reported as ``FILE: message``."""

    file: str
    line: int
    message: str
    #: Dotted path of the offending item (e.g. ``terrain.3``); used by the editor.
    where: str = ""

    def __str__(self) -> str:
        if self.line == NO_LINE:
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}: {self.message}"


class LoadError(Exception):
    """A file could not be loaded; ``problems`` lists every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems, key=lambda p: (p.file, p.line, p.message))
        super().__init__("\n".join(str(p) for p in self.problems))

    @staticmethod
    def gather(*loads):
        """Run every loader (a callable; None is skipped and gives None) even after one
        fails, so the user sees the problems of all the files at once: their results, or
        one LoadError with every problem."""
        problems: list[Problem] = []
        results = []
        for load in loads:
            result = None
            if load is not None:
                try:
                    result = load()
                except LoadError as exc:
                    problems += exc.problems
            results.append(result)
        if problems:
            raise LoadError(problems)
        return results

    def report(self) -> int:
        """Print one ``FILE:LINE: what is wrong`` line per problem to stderr; return exit code 2."""
        for p in self.problems:
            print(p, file=sys.stderr)
        return 2


class IllegalAction(ValueError):
    """An action refused by the rules: the rule id and a sentence a player understands."""

    def __init__(self, rule: str, reason: str):
        self.rule = rule
        self.reason = reason
        super().__init__(f"{rule}: {reason}")


def as_value(refusal: IllegalAction) -> IllegalAction:
    """A refusal caught to be returned or kept as an answer, without its traceback. The
    traceback holds the frames the refusal passed through, and the frame that caught it
    holds the refusal: a cycle that keeps every local of the check alive until the cycle
    collector finds it (a utility game made some hundred thousand such objects, and the
    collector's full passes over them paused the game for 60 ms each). An answer needs
    only its rule and reason."""
    refusal.__traceback__ = None
    return refusal


class UnmeasuredRefusal(IllegalAction):
    """An action refused by a question that wants only the verdict (the targets
    :meth:`Game.legal_actions` lists): it is illegal, and the refusal ``apply`` gives, with
    its measured distance, is worked out only when asked (:meth:`measure`)."""

    def __init__(self, rule: str, reason: str, measure: Callable[[], "IllegalAction | None"]):
        super().__init__(rule, reason)
        self._measure = measure

    def measure(self) -> "IllegalAction | None":
        """The refusal ``apply`` gives (None: ``apply`` would accept the action)."""
        return self._measure()
