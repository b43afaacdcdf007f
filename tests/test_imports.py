"""The engine's modules import each other without a circle, and without pygame.

Every ``import`` of a ``game.engine`` module counts, at module level or inside a function
(a lazy import hides a circle, it does not remove it); imports under ``TYPE_CHECKING``
do not run and do not count."""

from __future__ import annotations

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.path.join(ROOT, "game", "engine")


def _module(path: str) -> str:
    rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    return rel[:-9] if rel.endswith(".__init__") else rel


def _imports(path: str, modules: set[str]) -> set[str]:
    tree = ast.parse(open(path, encoding="utf-8").read())
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            if name in modules:
                out.add(name)
    return out


def graph() -> dict[str, set[str]]:
    files = [os.path.join(d, f) for d, _, fs in os.walk(ENGINE) for f in fs if f.endswith(".py")]
    modules = {_module(f) for f in files}
    return {_module(f): _imports(f, modules) - {_module(f)} for f in files}


def test_no_import_circle_inside_the_engine():
    g = graph()
    state: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(g[m]):
            # a package's __init__ importing its own modules is not a circle back to it
            if m.startswith(n + "."):
                continue
            if state.get(n) == 1:
                circles.append(stack[stack.index(n):] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m)
    assert circles == []


def test_the_engine_imports_no_pygame():
    for d, _, fs in os.walk(ENGINE):
        for f in fs:
            if f.endswith(".py"):
                text = open(os.path.join(d, f), encoding="utf-8").read()
                assert "import pygame" not in text and "from pygame" not in text, f
