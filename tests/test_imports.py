"""The modules of ``game`` import each other without a circle; the engine imports no pygame.

Every ``import`` counts, at module level or inside a function (a lazy import hides a circle,
it does not remove it). Inside the engine, imports under ``TYPE_CHECKING`` do not run and do
not count; across the whole of ``game`` they count too, because a type-only import still
ties two modules together for a reader and for a refactoring: the fix for such a circle is a
narrow protocol the importing module owns, not a hidden import."""

from __future__ import annotations

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAME = os.path.join(ROOT, "game")
ENGINE = os.path.join(GAME, "engine")


def _module(path: str) -> str:
    rel = os.path.relpath(path, ROOT)[:-3].replace(os.sep, ".")
    return rel[:-9] if rel.endswith(".__init__") else rel


def _imports(path: str, modules: set[str], type_only: bool = False) -> set[str]:
    """The modules of ``modules`` that the file at ``path`` imports; with ``type_only`` the
    imports under ``if TYPE_CHECKING:`` count as well."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    skip = set()
    for node in ast.walk(tree):
        if type_only:
            break
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
            # ``from pkg import mod`` imports the module; ``from pkg import name`` the package
            subs = [f"{node.module}.{a.name}" for a in node.names]
            names = [s if s in modules else node.module for s in subs]
        for name in names:
            if name in modules:
                out.add(name)
    return out


def graph(top: str = ENGINE, type_only: bool = False) -> dict[str, set[str]]:
    """Module name -> the modules under ``top`` that it imports."""
    files = [os.path.join(d, f) for d, _, fs in os.walk(top) for f in fs if f.endswith(".py")]
    modules = {_module(f) for f in files}
    return {_module(f): _imports(f, modules, type_only) - {_module(f)} for f in files}


def circles(g: dict[str, set[str]], strict: bool = False) -> list[list[str]]:
    """The import circles of ``g``, each as the modules along it (first == last).

    Without ``strict``, a module importing its own package's ``__init__`` is let pass;
    with it, every edge counts."""
    state: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(g[m]):
            # a module importing from its own package's __init__ (lenient mode only)
            if not strict and m.startswith(n + "."):
                continue
            if state.get(n) == 1:
                found.append(stack[stack.index(n) :] + [n])
            elif n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(g):
        if m not in state:
            visit(m)
    return found


def test_no_import_circle_inside_the_engine():
    assert circles(graph()) == []


def test_no_import_circle_anywhere_in_game_counting_type_only_imports():
    found = circles(graph(GAME, type_only=True), strict=True)
    assert found == [], "import circles:\n" + "\n".join(" -> ".join(c) for c in found)


def test_the_circle_finder_sees_a_type_only_circle(tmp_path):
    pkg = tmp_path / "game" / "p"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from game.p.b import B\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from game.p.a import A\n")
    files = [str(pkg / f) for f in ("a.py", "b.py", "__init__.py")]
    mods = {"game.p", "game.p.a", "game.p.b"}
    rel = {str(pkg / "a.py"): "game.p.a", str(pkg / "b.py"): "game.p.b", str(pkg / "__init__.py"): "game.p"}
    g_all = {rel[f]: _imports(f, mods, type_only=True) - {rel[f]} for f in files}
    g_run = {rel[f]: _imports(f, mods) - {rel[f]} for f in files}
    assert circles(g_all, strict=True) == [["game.p.a", "game.p.b", "game.p.a"]]
    assert circles(g_run, strict=True) == []


def test_the_engine_imports_no_pygame():
    for d, _, fs in os.walk(ENGINE):
        for f in fs:
            if f.endswith(".py"):
                text = open(os.path.join(d, f), encoding="utf-8").read()
                assert "import pygame" not in text and "from pygame" not in text, f
