"""Issue 22 (3): ``play`` and ``edit`` with no usable display exit 2 with one line, instead
of an invisible window (SDL's offscreen driver) that runs until killed. A video driver
set on purpose (the tests' SDL_VIDEODRIVER=dummy) is used as it is."""

import os
import subprocess
import sys

import pytest

from game.ui.display import NO_DISPLAY, display_problem

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(args, **env_changes):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env.update(PYTHONPATH=ROOT, **env_changes)
    try:
        return subprocess.run(
            [sys.executable, "-m", "game", *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired as exc:  # the window ran on with nothing to show it
        pytest.fail(f"speedheim {' '.join(args)} still running after 60 s: {exc}")


@pytest.mark.parametrize("args", [["play"], ["edit"], ["edit", "maps/default.yaml"]])
def test_play_and_edit_without_a_display_exit_2_with_one_line(args):
    p = run(args)
    assert p.returncode == 2
    assert p.stderr.splitlines() == [NO_DISPLAY] and p.stdout == ""


@pytest.mark.parametrize("args", [["play"], ["edit"]])
def test_a_display_that_cannot_be_opened_is_no_display_either(args):
    """DISPLAY names no X server: SDL falls back to its offscreen driver (after a warning
    of its own); the table notices, says the one line and exits 2."""
    p = run(args, DISPLAY=":1093", XDG_RUNTIME_DIR="")
    assert p.returncode == 2
    assert p.stderr.splitlines() == [NO_DISPLAY] and p.stdout == ""


def test_which_environments_have_a_display():
    assert display_problem({}, "linux") == NO_DISPLAY
    assert display_problem({"DISPLAY": ":0"}, "linux") is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert display_problem({"SDL_VIDEODRIVER": "dummy"}, "linux") is None  # on purpose: as it is
    assert display_problem({"DISPLAY": ""}, "linux") == NO_DISPLAY
    assert display_problem({}, "win32") is None and display_problem({}, "darwin") is None
    assert "speedheim render" in NO_DISPLAY and "\n" not in NO_DISPLAY
