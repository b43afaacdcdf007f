"""The band spaces' caches kept on disk for the next process (game/engine/movement/kept.py):
a game played with them loaded is the game played without; a file that cannot be read
is ignored; ``SPEEDHEIM_NAV_CACHE=0`` keeps nothing."""

from __future__ import annotations

import os

import pytest

from game.bots import UtilityBot
from game.bots.driver import bot_scenario, play_game
from game.engine.movement import kept, nav
from game.engine.scenario import load_scenario

MAP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "maps", "default.yaml")


def _game(turns: int = 2) -> tuple[list[str], object]:
    """A short utility game on default.yaml (its log), and its movement engine."""
    out = play_game(load_scenario(MAP), {1: UtilityBot(), 2: UtilityBot()}, seed=1, turn_limit=turns)
    return out.game.json_lines(), out.game.mover


def _entries(mover) -> int:
    """The entries ``kept.save`` would count of ``mover``'s structures."""
    return kept._kept_entries(kept._to_write(mover.nav.layers))


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """No map's structures kept in this process; the disk cache in ``tmp_path``."""
    monkeypatch.setenv("SPEEDHEIM_NAV_CACHE", str(tmp_path))
    monkeypatch.setattr(nav, "_MAPS", {})
    monkeypatch.setattr(kept, "_pending", [])
    return tmp_path


def test_a_game_with_the_kept_caches_is_the_same_game(fresh, monkeypatch):
    first, mover = _game()
    assert _entries(mover) > kept.MIN_NEW
    kept.save()
    files = list(fresh.iterdir())
    assert len(files) == 1 and files[0].suffix == ".pickle"
    # the next process: nothing kept in memory, the file on disk
    monkeypatch.setattr(nav, "_MAPS", {})
    from game.engine.dice import Dice
    from game.engine.game import Game

    loaded = Game(bot_scenario(load_scenario(MAP), turn_limit=2), dice=Dice(seed=1)).mover
    assert _entries(loaded) > kept.MIN_NEW  # filled before any query was asked
    monkeypatch.setattr(nav, "_MAPS", {})
    again, _mover = _game()
    assert again == first


def _next_process(monkeypatch) -> None:
    """Forget the maps' structures and what is pending, as a new process would start."""
    monkeypatch.setattr(nav, "_MAPS", {})
    monkeypatch.setattr(kept, "_pending", [])


def test_a_process_that_learnt_nothing_new_leaves_the_file_alone(fresh, monkeypatch):
    """The file is written again only with MIN_NEW entries beyond what it held. (The
    count at load left out the spaces keeping off difficult ground, built later from the
    file: every process wrote the whole file again at exit, a second or more on the
    bundled maps.)"""
    _game()
    kept.save()
    (path,) = fresh.iterdir()
    written = []
    real = kept.os.replace
    monkeypatch.setattr(kept.os, "replace", lambda a, b: (written.append(b), real(a, b)))
    _next_process(monkeypatch)
    _game()  # the same game: every answer is in the file
    kept.save()
    assert written == []
    _next_process(monkeypatch)
    play_game(load_scenario(MAP), {1: UtilityBot(), 2: UtilityBot()}, seed=3, turn_limit=2)  # another game
    kept.save()
    assert written == [str(path)]


def test_a_space_this_process_never_built_is_written_back_as_it_was(fresh, monkeypatch):
    """A process that never keeps off difficult ground writes back what the file kept of
    those spaces rather than dropping it."""
    import pickle

    from game.engine.dice import Dice
    from game.engine.game import Game

    _game()
    kept.save()
    (path,) = fresh.iterdir()
    with open(path, "rb") as fh:
        before = pickle.load(fh)["spaces"]
    avoid = {k: v for k, v in before.items() if k[1]}
    assert avoid and kept._kept_entries(avoid) > 0
    _next_process(monkeypatch)
    monkeypatch.setattr(kept, "MIN_NEW", 0)  # write even though nothing is new
    mover = Game(bot_scenario(load_scenario(MAP), turn_limit=2), dice=Dice(seed=1)).mover
    assert all(lay._avoid is None for lay in mover.nav.layers.values())
    kept.save()
    with open(path, "rb") as fh:
        after = pickle.load(fh)["spaces"]
    count = kept._kept_entries
    assert {k: count({k: v}) for k, v in after.items()} == {k: count({k: v}) for k, v in before.items()}


def test_an_unreadable_file_is_ignored(fresh):
    from game.engine.dice import Dice
    from game.engine.game import Game

    game = Game(bot_scenario(load_scenario(MAP), turn_limit=2), dice=Dice(seed=1))
    built = game.mover.nav
    key = nav._map_key(built.mover, built.cell, tuple(sorted(built.layers, reverse=True)))
    path = kept.path_for(key)
    assert path is not None and path.startswith(str(fresh))
    nav._MAPS.clear()
    with open(path, "wb") as fh:
        fh.write(b"not a pickle")
    mover = Game(bot_scenario(load_scenario(MAP), turn_limit=2), dice=Dice(seed=1)).mover
    assert _entries(mover) == 0  # nothing loaded, and no error


def test_nothing_is_kept_when_switched_off(monkeypatch):
    monkeypatch.setenv("SPEEDHEIM_NAV_CACHE", "0")
    assert kept.folder() is None
    assert kept.path_for(("any", "map")) is None


def test_the_folder_keeps_the_most_recent_files(tmp_path):
    for k in range(kept.MAX_FILES + 5):
        f = tmp_path / f"{k:02d}.pickle"
        f.write_bytes(b"x")
        os.utime(f, (1000 + k, 1000 + k))
    kept._prune(str(tmp_path))
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [f"{k:02d}.pickle" for k in range(5, kept.MAX_FILES + 5)]


def test_the_folder_stays_under_its_size_newest_first(tmp_path, monkeypatch):
    monkeypatch.setattr(kept, "MAX_FOLDER_BYTES", 25)
    for k, size in enumerate((30, 10, 10, 10)):  # oldest first; the newest alone is past the cap
        f = tmp_path / f"{k}.pickle"
        f.write_bytes(b"x" * size)
        os.utime(f, (1000 + k, 1000 + k))
    kept._prune(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2.pickle", "3.pickle"]
    (tmp_path / "3.pickle").write_bytes(b"x" * 40)
    kept._prune(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["3.pickle"]  # the newest is kept whatever its size


def test_a_compacted_tangents_table_gives_the_same_rows():
    """Before it is written, a table's parts become one (its columns): the same rows after."""
    import numpy as np

    from game.engine.movement.links import Tangents

    def work(m):  # rows as _lines gives them: (ok, T1, T2, a1, a2, iv2, off2)
        m = np.asarray(m, dtype=float)
        return (m % 3 != 0, np.column_stack([m, m]), np.column_stack([-m, m]), m / 7, m / 9, m.astype(np.int64), m / 11)

    def same(a, b):
        assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))

    t, u = Tangents(40), Tangents(40)
    for want in (np.arange(0, 10), np.arange(5, 20), np.array([30, 2, 31])):
        t.get(want, work), u.get(want, work)
    assert len(t.parts) == 3
    kept._compact(t)
    assert len(t.parts) == 1
    for want in (np.arange(0, 20), np.array([31, 30, 3]), np.arange(15, 40)):
        same(t.get(want, work), u.get(want, work))


def test_a_new_map_s_structures_are_frozen_out_of_the_collector_s_way_a_few_times(fresh, monkeypatch):
    """A full collection of the cycle collector walked the map's structures in the middle of
    an Engage question (80-100 ms on stress.yaml). A new map's structures are frozen out of
    its way (gc.freeze), at most ``_FREEZES`` times a process: what is frozen is never
    collected as a cycle again."""
    import gc

    from game.engine.dice import Dice
    from game.engine.game import Game

    def build_new_map() -> None:
        monkeypatch.setattr(nav, "_MAPS", {})
        Game(bot_scenario(load_scenario(MAP), turn_limit=2), dice=Dice(seed=1)).mover.nav.prepare([0.5])

    monkeypatch.setattr(nav, "_FREEZES", [1])
    before = gc.get_freeze_count()
    build_new_map()
    frozen = gc.get_freeze_count()
    assert frozen > before
    build_new_map()  # none left: nothing more is frozen
    assert gc.get_freeze_count() == frozen
