"""The rules engine imports no pygame; the UI imports the engine, never the reverse."""

import ast
import pathlib
import subprocess
import sys

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


def test_engine_sources_never_import_pygame_or_ui():
    files = sorted(ENGINE.glob("*.py"))
    assert files, "the engine package is missing"
    for path in files:
        for name in imported_modules(path):
            assert not name.startswith(("pygame", "pygame_gui", "game.ui", "game.editor")), f"{path.name} imports {name}"


def test_importing_the_whole_engine_loads_no_pygame():
    modules = [f"game.engine.{p.stem}" for p in sorted(ENGINE.glob("*.py")) if p.stem != "__init__"]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


SIM = ENGINE.parent / "sim"


def test_simulation_package_loads_no_pygame():
    """game/sim runs on Dask workers without a display: pure Python, like the engine."""
    files = sorted(SIM.glob("*.py"))
    assert files, "the sim package is missing"
    for path in files:
        for name in imported_modules(path):
            assert not name.startswith(("pygame", "pygame_gui", "game.ui", "game.editor")), f"{path.name} imports {name}"
    modules = [f"game.sim.{p.stem}" for p in files if p.stem != "__init__"]
    code = "import sys\n" + "".join(f"import {m}\n" for m in modules) + "print('pygame' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
