"""A plain install works (issue 14): build the wheel, install it into a fresh virtual
environment, and drive ``speedheim`` from a folder far from the repository.

Slow (a wheel build and a pip install, ~30 s with a warm pip cache), so it carries the
``install`` marker: ``pytest -m "not install"`` skips it in the inner loop; ``make test``
and CI run it. Dependencies come from the package registry or pip's cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile

import pytest

pytestmark = pytest.mark.install

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIP_TIMEOUT = 900


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 120), **kw)


def _bindir(venv: str) -> str:
    return os.path.join(venv, "Scripts" if os.name == "nt" else "bin")


def _repo_files(*parts: str) -> set[str]:
    """Files under game/<parts> in the source tree, as wheel names (``game/maps/x.yaml``)."""
    base = os.path.join(ROOT, "game", *parts)
    out = set()
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for f in filenames:
            if not f.endswith((".py", ".pyc")):
                out.add(os.path.relpath(os.path.join(dirpath, f), ROOT).replace(os.sep, "/"))
    return out


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(wheel path, environment for the fresh venv, folder to run from)."""
    tmp = tmp_path_factory.mktemp("install")
    # Build from a copy of what an sdist holds, so no stale build/ folder of the
    # checkout (setuptools keeps one) can leak into the wheel.
    src = tmp / "src"
    shutil.copytree(os.path.join(ROOT, "game"), src / "game", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), src / name)
    wheels = tmp / "wheels"
    out = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(wheels), str(src)], timeout=PIP_TIMEOUT
    )
    assert out.returncode == 0, out.stderr
    (wheel,) = wheels.glob("*.whl")

    venv = tmp / "venv"
    out = _run([sys.executable, "-m", "venv", str(venv)], timeout=PIP_TIMEOUT)
    assert out.returncode == 0, out.stderr
    py = os.path.join(_bindir(str(venv)), "python")
    out = _run(
        [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile", str(wheel)],
        timeout=PIP_TIMEOUT,
    )
    assert out.returncode == 0, out.stderr

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(
        SDL_VIDEODRIVER="dummy",
        SDL_AUDIODRIVER="dummy",
        PYGAME_HIDE_SUPPORT_PROMPT="1",
        SPEEDHEIM_DATA_DIR=str(tmp / "userdata"),
        PATH=_bindir(str(venv)) + os.pathsep + env.get("PATH", ""),
    )
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return wheel, env, str(elsewhere), str(venv)


def _speedheim(installed, *args, timeout=120) -> subprocess.CompletedProcess:
    _, env, cwd, venv = installed
    return _run([os.path.join(_bindir(venv), "speedheim"), *args], env=env, cwd=cwd, timeout=timeout)


def _installed_python(installed, code: str) -> str:
    _, env, cwd, venv = installed
    out = _run([os.path.join(_bindir(venv), "python"), "-c", code], env=env, cwd=cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_wheel_carries_every_bundled_file(installed):
    names = set(zipfile.ZipFile(installed[0]).namelist())
    bundled = _repo_files("maps") | _repo_files("rulesets") | _repo_files("assets")
    assert {
        "game/maps/default.yaml",
        "game/maps/rosters/iron-wardens.yaml",
        "game/rulesets/speedheim.yaml",
        "game/assets/fonts/DejaVuSans.ttf",
        "game/assets/rules.md",
    } <= bundled
    assert bundled - names == set()


def test_the_package_runs_from_the_venv_not_the_checkout(installed):
    _, _, _, venv = installed
    where = _installed_python(
        installed,
        "import game.bundled as b, game.ui.theme as t; "
        "print(b.default_scenario()); print(b.rosters_dir()); print(t.font_path(t.FONT_REGULAR))",
    )
    default, rosters, font = where.splitlines()
    for path in (default, rosters, font):
        assert os.path.realpath(path).startswith(os.path.realpath(venv) + os.sep), path
        assert os.path.exists(path)
    assert sorted(os.listdir(rosters)) == sorted(os.listdir(os.path.join(ROOT, "game", "maps", "rosters")))


def test_version_from_the_installed_metadata(installed):
    out = _speedheim(installed, "--version")
    assert out.returncode == 0, out.stderr
    meta = _installed_python(installed, "import importlib.metadata as m; print(m.version('speedheim-table'))")
    assert out.stdout.strip() == f"speedheim {meta}"


def test_check_and_render_the_bundled_default_map(installed):
    default = _installed_python(installed, "from game.bundled import default_scenario; print(default_scenario())")
    out = _speedheim(installed, "check", default)
    assert (out.returncode, out.stdout.strip(), out.stderr) == (0, f"{default}: ok (scenario)", "")
    png = os.path.join(installed[2], "default.png")
    out = _speedheim(installed, "render", default, "-o", png, "--width", "640")
    assert out.returncode == 0, out.stderr
    with open(png, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(head[16:20], "big") == 640  # IHDR width


def test_play_opens_the_default_table_and_keeps_running(installed):
    _, env, cwd, venv = installed
    proc = subprocess.Popen(
        [os.path.join(_bindir(venv), "speedheim"), "play"],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # The window must stay up 5 s; on a loaded machine its first autosave may come later,
    # so wait for it (up to 60 s) while the window is still running.
    data_dir = env["SPEEDHEIM_DATA_DIR"]
    try:
        time.sleep(5)
        deadline = time.monotonic() + 60
        while proc.poll() is None and not os.path.isdir(os.path.join(data_dir, "autosaves")):
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
        alive = proc.poll() is None
    finally:
        proc.terminate()
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
    assert alive, f"speedheim play exited with {proc.returncode}:\n{out}\n{err}"
    assert "Traceback" not in err and "no such file" not in err, err
    # The window really started a game: it autosaved the default table's opening.
    assert os.path.isdir(data_dir) and os.listdir(data_dir), "no autosave written"
