"""Saves replay exactly: every move carries its resolved path and the whole ruleset is
embedded, so neither a change to the path search nor an edit of a ruleset file changes
what an old save means. Older saves (a ruleset name, ``to:`` moves) still load."""

from __future__ import annotations

import os

import pytest
import yaml

from game.engine.actions import load_script
from game.engine.movement import mover as mover_mod
from game.engine.replay import replay
from game.engine.saves import load_game, save_game
from game.engine.scenario import load_scenario
from tools.make_golden import ROOT, manifest

ITEMS = manifest()


@pytest.fixture
def other_grid(monkeypatch):
    """Every Mover built from now on searches on a 0.45" grid instead of the default."""
    original = mover_mod.Mover.__init__

    def init(self, scenario, board, cell=None):
        original(self, scenario, board, cell=0.45)

    monkeypatch.setattr(mover_mod.Mover, "__init__", init)


@pytest.mark.parametrize("item", ITEMS, ids=[i["golden"] for i in ITEMS])
def test_a_save_replays_to_the_same_state_with_another_grid_step(item, tmp_path, monkeypatch):
    game = replay(
        load_scenario(os.path.join(ROOT, item["scenario"])),
        load_script(os.path.join(ROOT, item["script"])),
        history=True,
    )
    out = tmp_path / "save.yaml"
    save_game(str(out), game)
    original = mover_mod.Mover.__init__
    monkeypatch.setattr(
        mover_mod.Mover, "__init__", lambda self, sc, board, cell=None: original(self, sc, board, cell=0.45)
    )
    back = load_game(str(out))
    assert back.mover.nav.cell == 0.45
    assert back.state.hash() == game.state.hash()
    assert [e.to_json_line(i)["rolls"] for i, e in enumerate(back.log)] == [
        e.to_json_line(i)["rolls"] for i, e in enumerate(e for e in game.log if e.ok)
    ]


def test_every_move_in_a_save_carries_its_path_and_the_ruleset_is_embedded(tmp_path):
    game = replay(
        load_scenario(os.path.join(ROOT, "tests/scripts/skirmish.yaml")),
        load_script(os.path.join(ROOT, "tests/scripts/skirmish-game.yaml")),
        history=True,
    )
    out = tmp_path / "save.yaml"
    save_game(str(out), game)
    data = yaml.safe_load(out.read_text())
    moves = [a for a in data["actions"] if next(iter(a)) in ("move", "run")]
    assert len(moves) == 6 and all("path" in body and "to" not in body for a in moves for body in a.values())
    ruleset = data["scenario"]["ruleset"]
    assert isinstance(ruleset, dict) and "rules" not in data["scenario"]
    assert ruleset["rout_threshold"] == 2  # the scenario's override, baked in
    assert ruleset["run_denial_range"] == 8 and ruleset["phases"][0]["name"] == "upkeep"


def test_an_edited_ruleset_file_does_not_change_an_old_save(tmp_path):
    rules = tmp_path / "house.yaml"
    rules.write_text("name: house\nextends: speedheim\nrun_denial_range: 8\n")
    scen = tmp_path / "scen.yaml"
    text = open(os.path.join(ROOT, "tests/scripts/duel.yaml")).read()
    scen.write_text(text.replace("name: Duel", "name: Duel\nruleset: house.yaml"))
    game = replay(
        load_scenario(str(scen)), load_script(os.path.join(ROOT, "tests/scripts/random-duel.yaml")), history=True
    )
    save_game(str(tmp_path / "save.yaml"), game)
    rules.write_text("name: house\nextends: speedheim\nrun_denial_range: 30\n")  # the designers change it
    back = load_game(str(tmp_path / "save.yaml"))
    assert back.rs.run_denial_range == 8 and back.rs.name == "house"
    assert back.state.hash() == game.state.hash()


def test_an_old_save_with_to_moves_and_a_ruleset_name_still_loads(tmp_path):
    scen = yaml.safe_load(open(os.path.join(ROOT, "tests/scripts/skirmish.yaml")).read())
    scen["ruleset"] = "speedheim"
    old = {
        "speedheim_save": 1,
        "scenario": scen,
        "seed": 3,
        "dice": [7, 20],
        "actions": [
            {"end_phase": {}},
            {"run": {"unit": "red-captain", "to": [9.01, 10]}},
            {"move": {"unit": "red-mage", "to": [8, 8]}},
        ],
    }
    path = tmp_path / "old.yaml"
    path.write_text(yaml.safe_dump(old, sort_keys=False))
    game = load_game(str(path))
    st = game.state
    assert (round(st.units["red-mage"].x, 2), round(st.units["red-mage"].y, 2)) == (8.0, 8.0)
    assert game.log[1].pinned["run"]["path"][0] == [4.0, 4.0]  # resolved again, and pinned from now on


def test_an_embedded_ruleset_with_a_bad_value_is_reported_with_its_line(tmp_path):
    game = replay(
        load_scenario(os.path.join(ROOT, "tests/scripts/duel.yaml")),
        load_script(os.path.join(ROOT, "tests/scripts/skirmish-game.yaml")),
    )
    out = tmp_path / "save.yaml"
    save_game(str(out), game)
    text = out.read_text()
    assert "run_denial_range: 8" in text
    out.write_text(text.replace("run_denial_range: 8", "run_denial_range: -3"))
    from game.engine.errors import LoadError

    with pytest.raises(LoadError) as exc:
        load_game(str(out))
    (p,) = exc.value.problems
    assert "run_denial_range" in p.message and "run_denial_range: -3" in out.read_text().splitlines()[p.line - 1]
