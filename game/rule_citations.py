"""Where the program cites each rule id, found by reading its source (``ast``), not from a
hand-kept list: ``speedheim rules M9`` prints these places, and the tests check that every
id the program can show a player has an entry in the rules reference.

A citation is a line of a module under ``game/`` that names a rule:

* ``refuses``: the rule of a refusal, ``IllegalAction(RuleId.M5, ...)`` (or a string id);
* ``records``: the rule of a roll, note or automatic step (``rule=RuleId.M7``,
  ``ctx.auto(RuleId.TURN, ...)``, a ``rule or "E1"`` fallback, a ``RULE_*`` constant);
* ``names``: any other ``RuleId.X`` (a table of kinds to rules, a parameter's rule);
* ``mentions``: a rule id inside a string the program shows (a message, a menu item);
* ``implements``: an engine function or class whose docstring opens with the id
  ("M9: a jump down whose foot is taken ..."), the code that carries the rule out.
  Only under ``game/engine``: elsewhere an opening id is the caller's point of view
  (a bot's reading of U2, the ``F1`` help key).

Docstrings count for nothing else (they name ids in passing), and ``game/engine/rule_ids.py``,
which defines the ids, cites none. No pygame here.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from functools import lru_cache

import game
from game.engine.rule_ids import RuleId

#: The folder of the ``game`` package, and the folder paths are given relative to.
PACKAGE = os.path.dirname(os.path.abspath(game.__file__))
ROOT = os.path.dirname(PACKAGE)
#: A rule id of the rules (RULES.md): G1-G4, O1-O3, M1-M12, U1-U8, L1, L2, S1, S2, F1, E1, E2, T1.
RULE_ID = re.compile(r"(?<![A-Za-z0-9_])([GMULSFETO]\d{1,2})(?![A-Za-z0-9_])")
#: A docstring that opens with rule ids: "M9: ...", "L1/L2 from ...", "E1's cheap bound".
_LEAD = re.compile(r"\s*((?:[GMULSFETO]\d{1,2})(?:/[GMULSFETO]\d{1,2})*)(?![A-Za-z0-9_])")
#: The calls whose first argument is the rule of a refusal (``auto``: of an automatic step).
_REFUSALS = frozenset({"IllegalAction", "UnmeasuredRefusal"})
#: Which kind wins when one line cites a rule more than one way.
KINDS = ("refuses", "records", "names", "implements", "mentions")
#: The module that defines the ids (it cites none).
_DEFINITIONS = os.path.join(PACKAGE, "engine", "rule_ids.py")


@dataclass(frozen=True, order=True)
class Citation:
    """One place that cites ``rule``: ``path:line`` (relative to the repository), in
    ``where`` (``Class.method``, or ``""`` at module level), as ``kind`` (see :data:`KINDS`)."""

    path: str
    line: int
    rule: str
    kind: str
    where: str = ""

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


def _const(node: ast.AST) -> str | None:
    """The rule id ``node`` is: a string constant, or a member ``RuleId.X``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return _member(node)


def _member(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "RuleId":
        member = RuleId.__members__.get(node.attr)
        return member.value if member is not None else None
    return None


def _called(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


class _Scan(ast.NodeVisitor):
    """The citations of one module, each with the function or class around it."""

    def __init__(self, path: str, engine: bool):
        self.path, self.engine = path, engine
        self.scope: list[str] = []
        self.docs: set[int] = set()
        self.found: list[Citation] = []

    def add(self, rule: str | None, node: ast.AST, kind: str) -> None:
        if rule:
            self.found.append(Citation(self.path, node.lineno, rule, kind, ".".join(self.scope)))

    def _scoped(self, node) -> None:
        self.scope.append(node.name)
        self._docstring(node)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Module(self, node: ast.Module) -> None:
        self._docstring(node)
        self.generic_visit(node)

    def _docstring(self, node) -> None:
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            self.docs.add(id(first.value))
            m = _LEAD.match(first.value.value)
            if m and self.engine and not isinstance(node, ast.Module):
                for rule in m.group(1).split("/"):
                    self.add(rule, first.value, "implements")

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self.docs:
            for m in RULE_ID.finditer(node.value):
                self.add(m.group(1), node, "mentions")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.add(_member(node), node, "names")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        called = _called(node)
        if node.args and called in _REFUSALS:
            self.add(_const(node.args[0]), node.args[0], "refuses")
        elif node.args and called == "auto":
            self.add(_const(node.args[0]), node.args[0], "records")
        for k in node.keywords:
            if k.arg == "rule":
                self.add(_const(k.value), k.value, "records")
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        if isinstance(node.op, ast.Or) and _const(node.values[-1]):
            if any(re.search(r"\brule\b", ast.unparse(v)) for v in node.values[:-1]):
                self.add(_const(node.values[-1]), node.values[-1], "records")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id.startswith("RULE_"):
            self.add(_const(node.value), node.value, "records")
        self.generic_visit(node)


def _modules() -> list[str]:
    out = []
    for folder, dirs, files in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        out += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")]
    return [p for p in out if p != _DEFINITIONS]


def scan_file(path: str) -> list[Citation]:
    """The citations of one module, one per line and rule (the strongest kind of the line)."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    engine = os.path.commonpath([path, os.path.join(PACKAGE, "engine")]) == os.path.join(PACKAGE, "engine")
    scan = _Scan(os.path.relpath(path, ROOT), engine)
    scan.visit(tree)
    best: dict[tuple[int, str], Citation] = {}
    for c in scan.found:
        old = best.get((c.line, c.rule))
        if old is None or KINDS.index(c.kind) < KINDS.index(old.kind):
            best[(c.line, c.rule)] = c
    return sorted(best.values())


@lru_cache(maxsize=1)
def citations() -> tuple[Citation, ...]:
    """Every citation in ``game/``, by path and line."""
    return tuple(sorted(c for path in _modules() for c in scan_file(path)))


def citations_of(rule: str) -> list[Citation]:
    """The places that cite ``rule``, by path and line. Only the modules whose text names
    the id (or its member) are parsed: a line that cites it spells it out."""
    member = RuleId.__members__.get(rule.upper())
    words = {rule} | ({f"RuleId.{member.name}"} if member is not None and member.value == rule else set())
    out = []
    for path in _modules():
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        if any(w in text for w in words):
            out += [c for c in scan_file(path) if c.rule == rule]
    return sorted(out)


def cited_ids() -> dict[str, str]:
    """Every rule id the program can show a player (all but ``implements``), with the first
    place that cites it (``path:line``)."""
    found: dict[str, str] = {}
    for c in citations():
        if c.kind != "implements":
            found.setdefault(c.rule, str(c))
    return found
