"""tools/openings.py's count of openings that differ by more than a few inches (issue 47,
item 4): the same actions in the same order, each move's end within the bound."""

from __future__ import annotations

import json

from tools.openings import groups, same_within


def _opening(*ends, target="t-east") -> str:
    actions = [{"end_phase": {}}]
    for i, end in enumerate(ends):
        actions.append({"run": {"unit": f"u{i}", "path": [[0.0, 0.0], list(end)]}})
    actions.append({"engage": {"unit": "u9", "target": target}})
    return json.dumps(actions, sort_keys=True)


def test_moves_that_end_within_the_bound_are_one_opening():
    a = _opening((10.0, 10.0), (20.0, 5.0))
    assert same_within(a, _opening((10.75, 10.0), (20.0, 5.0)), 1.0)
    assert not same_within(a, _opening((11.5, 10.0), (20.0, 5.0)), 1.0)
    assert same_within(a, _opening((11.5, 10.0), (20.0, 5.0)), 2.0)


def test_another_unit_target_or_action_is_another_opening():
    a = _opening((10.0, 10.0))
    assert not same_within(a, _opening((10.0, 10.0), target="t-west"), 5.0)
    assert not same_within(a, _opening((10.0, 10.0), (3.0, 3.0)), 5.0)
    moved = json.loads(a)
    moved[1] = {"move": moved[1]["run"]}
    assert not same_within(a, json.dumps(moved), 5.0)


def test_groups_join_the_first_group_they_match_in_order():
    a, near_a, far = _opening((10.0, 10.0)), _opening((10.5, 10.0)), _opening((15.0, 10.0))
    assert groups([a, far, near_a, a], 1.0) == [[a, near_a, a], [far]]
    assert len(groups([a, near_a, far], 0.1)) == 3
