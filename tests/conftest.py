import atexit
import os
import shutil
import sys
import tempfile

# Tests that open pygame run headless.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# No test reads or writes the user's own data directory (autosave, settings such as the
# first game's turn card, the crash log): a test that needs one sets its own.
# The folder is removed when the process ends (each xdist worker makes its own).
if "SPEEDHEIM_DATA_DIR" not in os.environ:
    os.environ["SPEEDHEIM_DATA_DIR"] = tempfile.mkdtemp(prefix="speedheim-test-data-")
    atexit.register(shutil.rmtree, os.environ["SPEEDHEIM_DATA_DIR"], ignore_errors=True)
# Nor does a test keep the movement engine's caches on disk for the next process
# (game/engine/movement/kept.py): tests/test_nav_kept.py sets a folder of its own.
os.environ.setdefault("SPEEDHEIM_NAV_CACHE", "0")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

# numpy's loops the same on every machine (game/__init__.py says why): before any test
# imports numpy, which reads the setting once.
import game  # noqa: E402,F401

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

#: The property tests draw the same examples on every run (``make test``, CI): a red run
#: is the change's, never a newly drawn example's. ``make fuzz`` draws new ones (profile
#: ``explore``); a failure it finds is printed with its example, to be kept as an
#: ``@example`` or a plain test.
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


#: The files that take longest, longest first (measured with ``--durations``). They start
#: first, so that under pytest-xdist (``make test`` runs ``-n <cores + 1> --dist loadfile``: a file's
#: tests stay on one worker and share its module fixtures) the many short files fill in at the
#: end and no worker is left with a long file while the other sits idle. Only the order of
#: the run depends on this list, never a result.
LONGEST_FIRST = (
    "test_install.py",
    "test_sim_run.py",
    "test_editor_keeps.py",
    "test_sim_stats.py",
    "test_nav_exact.py",
    "test_bots.py",
    "test_sim_dask.py",
    "test_legality.py",
    "test_bots_legal.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture()
def datadir(tmp_path, monkeypatch):
    """A scratch user data directory of the test's own (settings, autosaves, the crash
    log); its path. Files that open the window use it for every test (``pytestmark``)."""
    d = tmp_path / "data"
    monkeypatch.setenv("SPEEDHEIM_DATA_DIR", str(d))
    return d
