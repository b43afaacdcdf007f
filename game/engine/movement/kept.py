"""What a map's band spaces work out as queries come, kept on disk for the next process.

The per-map structures (:class:`.nav.NavCache`) fill, as a game asks, caches that depend on
the terrain only: the chains of tangents between circles, the tangents from each source to
the fixed targets, where rows leave a circle, the segments' and rings' answers, the rays'
grazes, the bases' free arcs (:data:`ATTRS`, each described where its :class:`.space.BandSpace`
makes it). A process gives them to the next games on the same map (``nav._MAPS``); this
module gives them to the next *process*: a process that built a map's structures loads
what an earlier one left (:func:`load`), and when it ends leaves what it has (:func:`save`,
at exit). The answers are the same either way: each kept value is the one a fresh process
works out for the same key (the games of one process share them already).

The file is named by everything the values depend on: the map's key (terrain, ladders,
rules, cell, radii: ``nav._map_key``), the source of the rules engine (``game/engine``), and the numpy,
shapely and GEOS versions. It lives in ``$SPEEDHEIM_NAV_CACHE`` (a folder), else in
``nav-cache`` of ``$SPEEDHEIM_DATA_DIR`` when that is set, else in the
user's cache folder (platformdirs: ``~/.cache/speedheim-table/nav`` on Linux);
``SPEEDHEIM_NAV_CACHE=0`` keeps nothing. A file that cannot be read is ignored (and written afresh).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import pickle
import sys
import tempfile
import threading

import numpy as np

#: The BandSpace caches kept (each depends on the band space's terrain and on the source
#: and target of each entry only).
ATTRS = (
    "_chains",
    "tangents",
    "tangents_at",
    "located",
    "ray_cache",
    "_seg_memo",
    "_ring_memo",
    "_ends_memo",
    "free_arcs",
    "base_lines",
)
#: A file larger than this is not written (bytes).
MAX_BYTES = 64 * 1024 * 1024
#: New entries a process must have made before it writes the file again.
MIN_NEW = 64
#: Files kept in the folder (the most recently written; a map not played for a while goes),
#: and their total size at most (bytes; the newest file is always kept).
MAX_FILES = 32
MAX_FOLDER_BYTES = 256 * 1024 * 1024

_ENV = "SPEEDHEIM_NAV_CACHE"
_lock = threading.Lock()
_pending: list = []  # (path, layers, radii, entries when loaded): written at exit
_stamp: str | None = None


def folder() -> str | None:
    """Where the files are kept, or None (``SPEEDHEIM_NAV_CACHE=0``: nowhere)."""
    env = os.environ.get(_ENV, "")
    if env == "0":
        return None
    if env:
        return env
    data = os.environ.get("SPEEDHEIM_DATA_DIR")  # the table's own files, where one is set
    if data:
        return os.path.join(data, "nav-cache")
    import platformdirs

    return os.path.join(platformdirs.user_cache_dir("speedheim-table", appauthor=False), "nav")


def _code_stamp() -> str:
    """The rules engine's source and the libraries whose answers the values are."""
    global _stamp
    if _stamp is None:
        import numpy
        import shapely

        # every module of the rules engine: the movement engine and what it imports from it
        # (geometry, footprints, the model, the tolerances, the kernels ...); a change to any
        # of them writes a new file rather than risk reading a value it would not give
        engine = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        files = sorted(
            os.path.join(top, f) for top, _dirs, names in os.walk(engine) for f in names if f.endswith(".py")
        )
        h = hashlib.sha256()
        for f in files:
            with open(f, "rb") as fh:
                h.update(fh.read())
        h.update(f"{numpy.__version__}|{shapely.__version__}|{shapely.geos_version_string}|{sys.version}".encode())
        _stamp = h.hexdigest()
    return _stamp


def path_for(map_key: tuple) -> str | None:
    """The file for a map's structures (``nav._map_key``), or None when nothing is kept."""
    where = folder()
    if where is None:
        return None
    digest = hashlib.sha256((_code_stamp() + repr(map_key)).encode()).hexdigest()[:32]
    return os.path.join(where, f"{digest}.pickle")


def _spaces(layers) -> dict:
    """(radius, avoid) -> Space of built layers."""
    out = {}
    for r, lay in layers.items():
        out[(r, False)] = lay.space
        if lay._avoid is not None:
            out[(r, True)] = lay._avoid
    return out


def _kept_entries(spaces: dict) -> int:
    """The entries of a file's ``spaces`` ((radius, avoid) -> a dict of :data:`ATTRS` a band)."""
    return sum(len(kept[a]) for bands in spaces.values() if bands for kept in bands for a in ATTRS if a in kept)


def _to_write(layers) -> dict:
    """What :func:`save` writes of ``layers``: every space built, and, for a layer whose
    space keeping off difficult ground this process never built, what the file kept of
    it (unchanged: the process learnt nothing of it, and must not drop it)."""
    out = {k: [{a: getattr(bs, a) for a in ATTRS} for bs in sp.bands] for k, sp in _spaces(layers).items()}
    for r, lay in layers.items():
        if lay._avoid is None and lay._kept_avoid is not None:
            out[(r, True)] = lay._kept_avoid
    return out


def fill(space, bands: list) -> None:
    """Give each band space of ``space`` the caches kept for it (those it has not begun)."""
    if bands is None or len(bands) != len(space.bands):
        return
    for bs, kept in zip(space.bands, bands):
        for a in ATTRS:
            if a in kept and not getattr(bs, a):
                setattr(bs, a, kept[a])


def load(map_key: tuple, layers) -> None:
    """Fill the layers just built for ``map_key`` from its file (if any), and have what
    they hold at the end of the process written to it."""
    path = path_for(map_key)
    if path is None:
        return
    data = None
    try:
        with open(path, "rb") as fh:
            data = pickle.load(fh)
    except FileNotFoundError:
        pass
    except Exception:  # a damaged or foreign file: written afresh at exit
        data = None
    on_file = 0
    if isinstance(data, dict) and data.get("key") == repr(map_key):
        for (r, avoid), space in _spaces(layers).items():
            fill(space, data["spaces"].get((r, avoid)))
        for lay in layers.values():
            # a space keeping off difficult ground is built when first needed (Layer.avoid)
            lay._kept_avoid = data["spaces"].get((lay.r, True))
        on_file = _kept_entries(data["spaces"])
    with _lock:
        if not _pending:
            atexit.register(save)
        _pending.append((path, map_key, layers, on_file))


def save() -> None:
    """Write the structures of every map loaded (or built) in this process that hold
    :data:`MIN_NEW` entries or more beyond what its file held (atomically: a process
    reading it meanwhile sees the old file or the new). A process that learnt nothing new
    leaves the file as it is (writing tens of megabytes takes a second or more)."""
    with _lock:
        todo = list(_pending)
        _pending.clear()
    for path, map_key, layers, on_file in todo:
        try:
            spaces = _to_write(layers)
            if _kept_entries(spaces) < on_file + MIN_NEW:
                continue
            for sp in _spaces(layers).values():
                for bs in sp.bands:
                    for table in list(bs.tangents.values()) + list(bs.tangents_at.values()):
                        _compact(table)
            blob = pickle.dumps({"key": repr(map_key), "spaces": spaces}, protocol=pickle.HIGHEST_PROTOCOL)
            if len(blob) > MAX_BYTES:
                continue
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(blob)
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        except Exception:  # a cache: never the reason a process fails
            continue
    if todo:
        _prune(os.path.dirname(todo[0][0]))


def _compact(table) -> None:
    """A :class:`.links.Tangents` as one part, its columns (the same rows in the same
    order: what it gives is the same; it is written once, not twice, and loads faster)."""
    if not table.parts:
        return
    if table.cols is None:
        table.cols = tuple(np.concatenate([p[k] for p in table.parts]) for k in range(7))
    table.parts = [table.cols]


def _prune(where: str) -> None:
    """Delete all but the :data:`MAX_FILES` most recently written files, and the older
    ones past :data:`MAX_FOLDER_BYTES` in all (a cache never fills the user's disk)."""
    try:
        files = [os.path.join(where, f) for f in os.listdir(where) if f.endswith(".pickle")]
        files.sort(key=os.path.getmtime, reverse=True)
        total = 0
        for k, f in enumerate(files):
            total += os.path.getsize(f)
            if k >= MAX_FILES or (k > 0 and total > MAX_FOLDER_BYTES):
                os.unlink(f)
    except OSError:
        pass
