"""Property tests of the action-script loader: mutated scripts never crash it (issue 4)."""

import random

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.engine.actions import load_script
from game.engine.errors import LoadError
from tests.factories import GOOD_SCRIPT, tree_delete, tree_paths, tree_set, yaml_values

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load_or_error(text):
    try:
        return load_script("script.yaml", text)
    except LoadError as exc:
        assert exc.problems
        for p in exc.problems:
            assert p.file == "script.yaml" and p.line >= 1 and p.message
            assert "internal error" not in p.message, p.message
        return None


@SETTINGS
@given(st.text(max_size=300))
def test_random_text_never_escapes(text):
    load_or_error(text)


@pytest.mark.slow
@SETTINGS
@given(st.randoms(use_true_random=False), yaml_values, st.sampled_from(["set", "delete"]))
def test_mutated_script_never_escapes(rnd: random.Random, replacement, how):
    data = yaml.safe_load(GOOD_SCRIPT)
    path = rnd.choice([p for p in tree_paths(data) if p])
    if how == "set":
        tree_set(data, path, replacement)
    else:
        tree_delete(data, path)
    load_or_error(yaml.safe_dump(data, sort_keys=False))


@SETTINGS
@given(st.integers(0, len(GOOD_SCRIPT) - 1), st.text(max_size=6))
def test_textual_mutations_never_escape(pos, junk):
    load_or_error(GOOD_SCRIPT[:pos] + junk + GOOD_SCRIPT[pos + 1 :])
