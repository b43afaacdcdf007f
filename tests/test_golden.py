"""Every bundled action script replays to exactly the stored `replay --json` lines.

The golden files (tests/golden/) were written by tools/make_golden.py. A refactoring must
not change a single line; a rule change that does regenerates them and the diff is read.
"""

import os

import pytest

from tools.make_golden import GOLDEN, manifest, replay_lines

ITEMS = manifest()


@pytest.mark.parametrize("item", ITEMS, ids=[i["golden"] for i in ITEMS])
def test_script_replays_to_the_golden_lines(item):
    with open(os.path.join(GOLDEN, item["golden"]), encoding="utf-8") as fh:
        want = fh.read().splitlines()
    got = replay_lines(item["scenario"], item["script"]).splitlines()
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"{item['script']} line {i + 1} differs"
