"""Property tests of the loader: random and mutated files never crash it (issue 2)."""

import random
import textwrap

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.engine.errors import LoadError
from game.engine.scenario import load_scenario, scenario_to_dict
from game.engine.yamlsrc import dump_yaml

from tests.test_scenario_errors import GOOD

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def load_or_error(text):
    """Loading gives a Scenario or a LoadError; anything else is a bug."""
    try:
        return load_scenario("prop.yaml", text=text)
    except LoadError as exc:
        assert exc.problems, "a LoadError must list its problems"
        for p in exc.problems:
            assert p.file == "prop.yaml" and p.line >= 1 and p.message
            assert "internal error" not in p.message, p.message  # a bug of ours, not the file's
        return None


@SETTINGS
@given(st.text(max_size=400))
def test_random_text_never_escapes(text):
    load_or_error(text)


#: Sizes and numbers at the edges of game.engine.limits (issue 48): a table side, a stat, a
#: turn just over and under its limit, integers beyond 2^63, a 400-digit one, floats near the top.
EDGE_NUMBERS = st.sampled_from([600, 600.5, 1000, 1000.01, 10_000, 10_001, 1e6, 1e6 + 1, 1e8, 1.0e+300, -1.0e+300,
                                2**63, 2**63 + 1, -(2**63) - 1, 10**400, 1.7976931348623157e308, 360, 361])
yaml_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
    EDGE_NUMBERS,
)
yaml_values = st.recursive(yaml_scalars, lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=8), inner, max_size=5)), max_leaves=25)


@SETTINGS
@given(yaml_values)
def test_random_yaml_structures_never_escape(value):
    load_or_error(yaml.safe_dump(value))


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, path + (i,))


def _set(node, path, value):
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _delete(node, path):
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]


def mutate(text: str, rnd: random.Random, replacement, how: str) -> str:
    """``text`` (a map) with one value, chosen by ``rnd``, set to ``replacement``, deleted or
    (in a list) duplicated: the loader's own bad inputs."""
    data = yaml.safe_load(text)
    path = rnd.choice([p for p in _paths(data) if p])
    if how == "set":
        _set(data, path, replacement)
    elif how == "delete":
        _delete(data, path)
    else:
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if isinstance(parent, list):
            parent.append(parent[path[-1]])
    return yaml.safe_dump(data, sort_keys=False)


@SETTINGS
@given(st.randoms(use_true_random=False), yaml_values, st.sampled_from(["set", "delete", "duplicate"]))
def test_mutated_good_file_never_escapes(rnd: random.Random, replacement, how):
    load_or_error(mutate(GOOD, rnd, replacement, how))


@SETTINGS
@given(st.integers(0, len(GOOD) - 1), st.text(max_size=6))
def test_textual_mutations_never_escape(pos, junk):
    load_or_error(GOOD[:pos] + junk + GOOD[pos + 1 :])


@SETTINGS
@given(
    st.floats(1.0, 22.0), st.floats(1.0, 22.0),
    st.sampled_from([25, 32, 40, 50, 60]),
    st.floats(0.1, 8.0),
)
def test_round_trip_load_save_load(x, y, base, wall_height):
    text = textwrap.dedent(
        f"""\
        name: Round trip
        table: {{width: 24, height: 24}}
        terrain:
          - {{id: w, kind: wall, height: {wall_height!r}, polygon: [[23, 0], [24, 0], [24, 1]]}}
        warbands:
          - id: red
            player: 1
            units:
              - {{id: a, at: [{x!r}, {y!r}], base_mm: {base}, stats: {{move: 6, agility: 12, morale: 14, defence: 10}}}}
        """
    )
    first = load_or_error(text)
    if first is None:
        return
    saved = dump_yaml(scenario_to_dict(first))
    second = load_scenario("prop.yaml", text=saved)
    assert second == first
    assert dump_yaml(scenario_to_dict(second)) == saved
