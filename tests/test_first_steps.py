"""A newcomer's first steps work as written (issue 45): the make commands the README's tour
names exist, the set-up says what it does, the docs' links lead somewhere, the rosters name
the right key, and an editable install has no build warning of the project's making."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_n(*args: str) -> list[str]:
    """The game commands ``make -n ARGS`` would run (nothing is run), with .venv taken as set up."""
    return [line for line in make_n_all(*args) if "-m game" in line]


def make_n_all(*args: str) -> list[str]:
    """Every command ``make -n ARGS`` would run (nothing is run), with .venv taken as set up."""
    out = subprocess.run(
        [
            "make",
            "-n",
            "--no-print-directory",  # under `make test` (CI) a child make says where it is
            "-W",
            "pyproject.toml",
            "--assume-old=.venv/bin/python",
            "--assume-old=.venv/.installed",
            "--assume-old=.venv/.installed-dev",
            *args,
        ],
        cwd=HERE,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_make_edit_and_make_check_file_run_the_named_file():
    assert make_n("edit", "FILE=my-raid.yaml")[-1].endswith("-m game edit my-raid.yaml")
    assert make_n("edit")[-1].rstrip().endswith("-m game edit")
    assert make_n("check", "FILE=a.yaml b.yaml")[-1].endswith("-m game check a.yaml b.yaml")
    assert make_n("check")[-1].endswith("-m game check maps/*.yaml")


def test_make_test_runs_the_ruff_checks_before_pytest_and_make_lint_runs_them_alone():
    checks = [".venv/bin/ruff format --check game tests tools", ".venv/bin/ruff check game tests tools"]
    for target in ("test", "test-fast"):
        lines = make_n_all(target)
        pytest_at = next(i for i, line in enumerate(lines) if "-m pytest" in line)
        assert lines[:pytest_at] == checks, lines
    assert make_n_all("lint") == checks
    assert make_n_all("format") == [
        ".venv/bin/ruff format game tests tools",
        ".venv/bin/ruff check --fix game tests tools",
    ]


def test_every_make_command_the_readme_shows_is_a_target():
    readme = open(os.path.join(HERE, "README.md"), encoding="utf-8").read()
    targets = set(re.findall(r"^([a-z]+):", open(os.path.join(HERE, "Makefile"), encoding="utf-8").read(), re.M))
    named = set(re.findall(r"`?make ([a-z]+)", readme))
    assert {"edit", "check", "play"} <= named
    assert named <= targets, named - targets


def test_the_first_set_up_says_each_step_in_one_line():
    out = subprocess.run(["make", "-n", "-B", "play"], cwd=HERE, capture_output=True, text=True, timeout=60)
    said = [line for line in out.stdout.splitlines() if line.startswith("echo ")]
    assert any("setting up .venv" in line for line in said), out.stdout
    assert any("installing Speedheim Table" in line for line in said)
    for line in out.stdout.splitlines():
        if "pip install" in line:
            assert "--quiet" in line, line


def test_an_editable_install_takes_the_simple_layout():
    """setuptools prints its "Editable installation" BuildBackendWarning unless the package
    directory is given as the project's root (a plain .pth line)."""
    text = open(os.path.join(HERE, "pyproject.toml"), encoding="utf-8").read()
    assert re.search(r'^package-dir = \{"" = "\."\}', text, re.M)


@pytest.mark.install
def test_an_editable_install_prints_no_build_backend_warning(tmp_path):
    """What ``make play`` runs first, with the newest pip (which shows the build back
    end's warnings): ``pip install --quiet -e .`` says nothing of its own."""
    src = tmp_path / "src"
    shutil.copytree(os.path.join(HERE, "game"), src / "game", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(HERE, name), src / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    py = str(venv / "bin" / "python")
    up = subprocess.run(
        [py, "-m", "pip", "install", "--quiet", "--upgrade", "pip"], capture_output=True, text=True, timeout=600
    )
    assert up.returncode == 0, up.stderr
    out = subprocess.run(
        [py, "-m", "pip", "install", "--quiet", "--no-deps", "-e", str(src)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=str(tmp_path),
    )
    assert out.returncode == 0, out.stderr
    assert "BuildBackendWarning" not in out.stderr + out.stdout, out.stderr
    assert "Editable installation" not in out.stderr + out.stdout


def test_every_link_in_the_docs_leads_to_a_file():
    docs = os.path.join(HERE, "docs")
    for name in sorted(os.listdir(docs)):
        if not name.endswith(".md"):
            continue
        text = open(os.path.join(docs, name), encoding="utf-8").read()
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert os.path.exists(os.path.join(docs, target)), f"docs/{name}: {target}"
    editor = open(os.path.join(docs, "editor.md"), encoding="utf-8").read()
    assert "(format: `FORMATS.md`)" not in editor and "(formats.md)" in editor


def test_the_rosters_name_the_key_that_loads_them():
    folder = os.path.join(HERE, "game", "maps", "rosters")
    for name in os.listdir(folder):
        text = open(os.path.join(folder, name), encoding="utf-8").read()
        assert "editor (R)" not in text, name
        if "Load it in the editor" in text:
            assert "(Ctrl+O)" in text, name
