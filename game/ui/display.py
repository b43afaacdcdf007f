"""Is there a display to open a window on? (``play`` and ``edit``; no pygame here.)

Without one SDL falls back to its offscreen driver: the window runs, uses the CPU and
nobody sees it. So ``speedheim play`` and ``edit`` ask first - an X display (``DISPLAY``)
or a Wayland one (``WAYLAND_DISPLAY``) on Linux and the other Unixes; Windows and macOS
always have one - and, once SDL has started, check that it did not fall back to a
driver that shows nothing. Either way the command exits 2 with :data:`NO_DISPLAY`. A
video driver chosen on purpose (``SDL_VIDEODRIVER``, as the tests set ``dummy``) is used
as it is.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from typing import Iterator, Mapping

NO_DISPLAY = "no display: set DISPLAY, or run under Xvfb; for a picture without a window use `speedheim render`"
#: SDL's drivers that show nothing: used only when asked for by name.
HEADLESS_DRIVERS = ("offscreen", "dummy", "evdev")


class NoDisplay(Exception):
    """The window could not be shown anywhere (the message is :data:`NO_DISPLAY`)."""

    def __init__(self) -> None:
        super().__init__(NO_DISPLAY)


def display_problem(environ: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    """:data:`NO_DISPLAY` when a window would have nowhere to go, else None."""
    env = os.environ if environ is None else environ
    plat = sys.platform if platform is None else platform
    if env.get("SDL_VIDEODRIVER"):
        return None  # chosen on purpose: SDL uses it (or fails to, and says so)
    if plat.startswith(("win", "darwin", "cygwin", "msys")):
        return None
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return None
    return NO_DISPLAY


def fell_back(driver: str, environ: Mapping[str, str] | None = None) -> bool:
    """SDL started on a driver that shows nothing although none was asked for."""
    env = os.environ if environ is None else environ
    return not env.get("SDL_VIDEODRIVER") and driver.lower() in HEADLESS_DRIVERS


@contextlib.contextmanager
def held_stderr(hold: bool) -> Iterator[list[str]]:
    """Hold what C code (SDL) writes to stderr meanwhile; the caller gets it in the
    list and writes it out if it is wanted (SDL's warnings while it looks for a display,
    e.g. about XDG_RUNTIME_DIR, are not when there is none)."""
    out: list[str] = []
    if not hold:
        yield out
        return
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        yield out
        return
    sys.stderr.flush()
    saved = os.dup(fd)
    with tempfile.TemporaryFile() as tmp:
        os.dup2(tmp.fileno(), fd)
        try:
            yield out
        finally:
            sys.stderr.flush()
            os.dup2(saved, fd)
            os.close(saved)
            tmp.seek(0)
            out.append(tmp.read().decode("utf-8", "replace"))
