"""Measurement G1-G4: exact circle arithmetic, heights, boundaries (issue 2, item 4)."""

import math
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.cli import main
from game.engine.geometry import Board, Disc, disc_distance
from game.engine.model import Terrain
from game.engine.ruleset import load_ruleset
from game.engine.scenario import load_scenario
from game.engine.tolerance import within

R25 = 25 / 25.4 / 2  # radius of a 25 mm base, inches


def unit_text(uid, x, y, base=25):
    return (
        f"      - {{id: {uid}, at: [{x!r}, {y!r}], base_mm: {base}, "
        "stats: {move: 6, agility: 12, morale: 14, defence: 10}}\n"
    )


def scenario(red, blue, terrain="", treasure="", extra=""):
    text = (
        textwrap.dedent(
            """\
        name: Measure
        table: {width: 36, height: 36}
        """
        )
        + extra
        + "terrain:\n"
        + (terrain or "  []\n")
        + "treasure:\n"
        + (treasure or "  []\n")
        + "warbands:\n  - id: red\n    player: 1\n    units:\n"
    )
    text += (
        "".join(unit_text(*u) for u in red)
        + "  - id: blue\n    player: 2\n    units:\n"
        + "".join(unit_text(*u) for u in blue)
    )
    return text


@pytest.mark.parametrize("limit", [2, 5, 8])
@pytest.mark.parametrize("delta,inside", [(-0.01, True), (0.0, True), (0.01, False)])
def test_boundaries_are_inclusive(limit, delta, inside):
    """Two 25 mm bases whose edges are exactly limit + delta apart."""
    gap = limit + delta
    sc = load_scenario("m.yaml", text=scenario([("a", 5.0, 10.0)], [("b", 5.0 + 2 * R25 + gap, 10.0)]))
    board = Board(sc.width, sc.height, sc.terrain)
    a, b = sc.state.units["a"], sc.state.units["b"]
    assert board.distance(a, b) == pytest.approx(gap, abs=1e-9)
    assert within(board.distance(a, b), limit) is inside


def test_edge_to_edge_mixed_bases():
    # 25 mm and 40 mm bases, centres 10" apart.
    sc = load_scenario("m.yaml", text=scenario([("a", 5.0, 5.0, 25)], [("b", 15.0, 5.0, 40)]))
    board = Board(sc.width, sc.height, sc.terrain)
    expected = 10 - 12.5 / 25.4 - 20 / 25.4
    assert board.distance(sc.state.units["a"], sc.state.units["b"]) == pytest.approx(expected)


TOWER = "  - {id: tower, kind: block, height: 3, polygon: [[10, 10], [16, 10], [16, 16], [10, 16]]}\n"


def test_height_counts_in_3d_and_can_be_ignored():
    # a on the 3" roof at (13, 13); b on the ground at (13, 20): centres 7" apart.
    sc = load_scenario("m.yaml", text=scenario([("a", 13.0, 13.0)], [("b", 13.0, 20.0)], terrain=TOWER))
    flat = 7 - 2 * R25
    board = Board(sc.width, sc.height, sc.terrain)
    a, b = sc.state.units["a"], sc.state.units["b"]
    assert board.height_at(13, 13) == 3 and board.height_at(13, 20) == 0
    assert board.distance(a, b) == pytest.approx(math.sqrt(flat**2 + 9))
    ignore = Board(sc.width, sc.height, sc.terrain, use_height=False)
    assert ignore.distance(a, b) == pytest.approx(flat)


def test_overlapping_footprints_at_different_heights_measure_the_drop():
    # Directly above one another: horizontal gap 0, so the distance is the height.
    assert disc_distance(Disc(5, 5, R25, 6.0), Disc(5.5, 5, R25, 0.0)) == pytest.approx(6.0)


def test_surface_height_takes_the_highest_piece():
    terrain = [
        Terrain("house", "block", [(0, 0), (10, 0), (10, 10), (0, 10)], 3.0),
        Terrain("attic", "block", [(2, 2), (5, 2), (5, 5), (2, 5)], 6.0),
        Terrain("rubble", "difficult", [(20, 20), (25, 20), (25, 25), (20, 25)], 0.0),
    ]
    board = Board(36, 36, terrain)
    assert board.height_at(1, 1) == 3
    assert board.height_at(3, 3) == 6
    assert board.height_at(22, 22) == 0
    assert board.height_at(30, 30) == 0
    assert board.height_at(10, 5) == 3  # on the edge counts as on top
    assert board.heights_under_disc(10, 5, 0.5) == [0.0, 3.0]
    assert board.heights_under_disc(3.5, 3.5, 0.5) == [6.0]
    assert board.heights_under_disc(5, 3.5, 0.5) == [3.0, 6.0]
    xs, ys = [1, 3, 22, 30, 10, 2, 5.0001], [1, 3, 22, 30, 5, 2, 5.0001]
    assert board.heights_at(xs, ys).tolist() == [3, 6, 0, 0, 3, 6, 3]


@pytest.mark.parametrize("name", ["default.yaml", "stress.yaml", "teach-climb.yaml"])
def test_heights_at_agrees_with_height_at_point_by_point(name):
    """The vectorised surface heights are the point-by-point ones, on edges and corners too."""
    import numpy as np

    from game.engine.geometry import board_for
    from game.bundled import bundled_map

    board = board_for(load_scenario(bundled_map(name)))
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, board.width + 1, 3000)
    Y = rng.uniform(-1, board.height + 1, 3000)
    corners = np.array([xy for t in board.terrain for xy in t.polygon], dtype=float)
    X, Y = np.concatenate([X, corners[:, 0]]), np.concatenate([Y, corners[:, 1]])
    assert board.heights_at(X, Y).tolist() == [board.height_at(x, y) for x, y in zip(X, Y)]


@settings(max_examples=200, deadline=None)
@given(
    st.floats(0, 36),
    st.floats(0, 36),
    st.floats(0.1, 2),
    st.floats(0, 8),
    st.floats(0, 36),
    st.floats(0, 36),
    st.floats(0.1, 2),
    st.floats(0, 8),
)
def test_distance_properties(ax, ay, ar, az, bx, by, br, bz):
    a, b = Disc(ax, ay, ar, az), Disc(bx, by, br, bz)
    d = disc_distance(a, b)
    assert d == pytest.approx(disc_distance(b, a))
    assert d >= disc_distance(a, b, use_height=False) - 1e-12 >= -1e-12
    assert d >= abs(az - bz) - 1e-9
    # Never more than the distance between the centres in 3-D.
    assert d <= math.dist((ax, ay, az), (bx, by, bz)) + 1e-9


def test_distance_table_matches_pairwise():
    sc = load_scenario(
        "m.yaml", text=scenario([("a", 13.0, 13.0), ("c", 2.0, 2.0, 40)], [("b", 13.0, 20.0, 32)], terrain=TOWER)
    )
    board = Board(sc.width, sc.height, sc.terrain)
    units = list(sc.state.units.values())
    table = board.distance_table(units)
    for i, u in enumerate(units):
        for j, v in enumerate(units):
            assert table[i, j] == pytest.approx(board.distance(u, v) if i != j else 0.0)


def test_contact_tolerance():
    rs = load_ruleset()
    board = Board(36, 36, [])
    a = Disc(5, 5, R25)
    touching = Disc(5 + 2 * R25 + rs.contact_tolerance, 5, R25)
    apart = Disc(5 + 2 * R25 + rs.contact_tolerance + 0.01, 5, R25)
    assert board.in_contact(a, touching, rs.contact_tolerance)
    assert not board.in_contact(a, apart, rs.contact_tolerance)


def test_measure_command_hand_worked(tmp_path, capsys):
    path = tmp_path / "m.yaml"
    path.write_text(
        scenario([("a", 13.0, 13.0)], [("b", 13.0, 20.0)], terrain=TOWER, treasure="  - {id: t1, at: [20, 13]}\n")
    )
    flat = 7 - 2 * R25
    assert main(["measure", str(path), "a", "b"]) == 0
    assert capsys.readouterr().out.strip() == f"{math.sqrt(flat**2 + 9):.2f}"  # 6.72
    assert main(["measure", str(path), "a", "b", "--ignore-height"]) == 0
    assert capsys.readouterr().out.strip() == f"{flat:.2f}"
    # unit to token: centres 7" apart across, token 25 mm, 3" drop
    assert main(["measure", str(path), "a", "t1"]) == 0
    assert capsys.readouterr().out.strip() == f"{math.sqrt((7 - 2 * R25) ** 2 + 9):.2f}"
    # point to point, one on the roof: sqrt(5^2 + 3^2)
    assert main(["measure", str(path), "12,12", "12,17"]) == 0
    assert capsys.readouterr().out.strip() == "5.83"


def test_measure_hand_value_6_72(tmp_path, capsys):
    path = tmp_path / "m.yaml"
    path.write_text(scenario([("a", 13.0, 13.0)], [("b", 13.0, 20.0)], terrain=TOWER))
    main(["measure", str(path), "a", "b"])
    assert capsys.readouterr().out.strip() == "6.72"  # sqrt(6.016^2 + 3^2) by hand


def test_measure_bad_input(tmp_path, capsys):
    path = tmp_path / "m.yaml"
    path.write_text(scenario([("a", 5.0, 5.0)], []))
    assert main(["measure", str(path), "a", "nobody"]) == 2
    assert "not a unit id" in capsys.readouterr().err
    assert main(["measure", str(path), "a", "99,99"]) == 2
    assert "off the" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [")
    assert main(["measure", str(bad), "a", "b"]) == 2
    assert f"{bad}:1:" in capsys.readouterr().err


def test_ruleset_height_mode_ignore(tmp_path, capsys):
    path = tmp_path / "m.yaml"
    path.write_text(
        scenario([("a", 13.0, 13.0)], [("b", 13.0, 20.0)], terrain=TOWER, extra="rules: {height_mode: ignore}\n")
    )
    assert main(["measure", str(path), "a", "b"]) == 0
    assert capsys.readouterr().out.strip() == f"{7 - 2 * R25:.2f}"


@pytest.mark.parametrize("name", ["default.yaml", "stress.yaml"])
def test_heights_at_arrays_and_index_agree(name, monkeypatch):
    """``Board.heights_at`` tests many points as arrays (the raised boxes by their bounds)
    and a few by one query of the index: both give the same heights, on edges and corners."""
    import numpy as np

    from game.bundled import bundled_map
    from game.engine import geometry
    from game.engine.geometry import board_for

    board = board_for(load_scenario(bundled_map(name)))
    rng = np.random.default_rng(11)
    corners = np.array([xy for t in board.terrain for xy in t.polygon], dtype=float)
    mids = (corners[1:] + corners[:-1]) / 2
    X = np.concatenate([rng.uniform(-1, board.width + 1, 2000), corners[:, 0], mids[:, 0]])
    Y = np.concatenate([rng.uniform(-1, board.height + 1, 2000), corners[:, 1], mids[:, 1]])
    monkeypatch.setattr(geometry, "_FEW_POINTS", 0)
    arrays = board.heights_at(X, Y)
    monkeypatch.setattr(geometry, "_FEW_POINTS", 10**9)
    index = board.heights_at(X, Y)
    assert arrays.tolist() == index.tolist()
    assert arrays.max() > 0  # some points stand on raised pieces


def test_heights_under_disc_kept_answer_is_the_callers_own():
    """The heights under a disc are kept per disc (the board never changes): asked again,
    the same levels, in a list the caller may change without changing the next answer."""
    from game.bundled import bundled_map
    from game.engine.geometry import board_for

    board = board_for(load_scenario(bundled_map("default.yaml")))
    t = next(t for t in board.terrain if t.solid and t.height > 0)
    x, y = t.polygon[0]
    first = board.heights_under_disc(x, y, 0.5)
    assert len(first) >= 2  # on a corner: the top and the ground
    first.append(99.0)
    assert board.heights_under_disc(x, y, 0.5) == first[:-1]
    assert board.heights_under_disc(x, y, 0.5) == board._heights_under_disc(x, y, 0.5)
