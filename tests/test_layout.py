"""The rules engine imports no pygame; the UI imports the engine, never the reverse."""

import ast
import pathlib
import subprocess
import sys

import pytest

ENGINE = pathlib.Path(__file__).resolve().parent.parent / "game" / "engine"


def imported_modules(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


#: Pure-Python packages: the engine, and the simulation (it runs on Dask workers without a display).
PURE = {"engine": ENGINE, "sim": ENGINE.parent / "sim"}


@pytest.mark.parametrize("package", sorted(PURE))
def test_pure_sources_never_import_pygame_or_ui(package):
    files = sorted(PURE[package].glob("*.py"))
    assert files, f"the {package} package is missing"
    for path in files:
        for name in imported_modules(path):
            assert not name.startswith(("pygame", "pygame_gui", "game.ui", "game.editor")), (
                f"{path.name} imports {name}"
            )


@pytest.mark.parametrize("package", sorted(PURE))
def test_importing_a_whole_pure_package_loads_no_pygame(package):
    modules = [f"game.{package}.{p.stem}" for p in sorted(PURE[package].glob("*.py")) if p.stem != "__init__"]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


GAME = ENGINE.parent
MAX_FUNCTION_LINES = 120


def test_no_function_is_over_120_lines():
    """A function that long does several things (issue 44): split it by what it does."""
    big = {}
    for path in sorted(GAME.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    big[f"{path.relative_to(GAME.parent)}:{node.lineno} {node.name}"] = n
    assert not big, f"functions over {MAX_FUNCTION_LINES} lines: {big}"


def _is_game(node) -> bool:
    return (isinstance(node, ast.Name) and node.id == "game") or (
        isinstance(node, ast.Attribute) and node.attr == "game"
    )


def test_the_play_window_asks_rule_questions_in_one_place():
    """Only game/ui/scenes/ask.py asks the engine what is legal, what is pending, who is in
    contact or how far a unit moves; the rest of the UI asks ask.py (so a change of the
    engine's question API is a change of one module)."""
    anywhere = {
        "legal_action_kinds",
        "legal_actions",
        "why_illegal",
        "in_contact",
        "is_manual",
        "run_denial",
        "reachable",
        "allowance",
    }
    of_a_game = {"pending", "mover", "sight", "odds"}
    for path in sorted((GAME / "ui").rglob("*.py")):
        if path.name == "ask.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Attribute) or (isinstance(node.value, ast.Name) and node.value.id == "ask"):
                continue
            if node.attr in anywhere or (node.attr in of_a_game and _is_game(node.value)):
                where = f"{path.relative_to(GAME.parent)}:{node.lineno}"
                raise AssertionError(f"{where} asks .{node.attr} itself: ask it through game/ui/scenes/ask.py")
