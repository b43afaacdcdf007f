import os
import sys

# Tests that open pygame run headless.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def pytest_collection_modifyitems(config, items):
    """The wheel-install tests (the slowest file) start first, so that under pytest-xdist
    (``make test`` runs ``-n auto --dist loadfile``: a file's tests stay on one worker and share
    its module fixtures) no worker is left with them at the end while the other sits idle."""
    items.sort(key=lambda item: 0 if item.get_closest_marker("install") else 1)
