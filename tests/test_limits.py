"""Issue 48 (5, 6): sizes and numbers beyond the program's limits (game.engine.limits) are
one `FILE:LINE: what is wrong` line, or a one-line usage error, before any work: a huge
table, stat, turn or los_samples, a number that does not fit a float, a 400-digit integer,
a device given as a file, a huge --games or --workers. Reproducers: tests/data/limits/."""

from __future__ import annotations

import os
import time

import pytest

from game.cli import main
from game.engine.errors import LoadError
from game.engine.scenario import load_scenario
from game.engine.yamlsrc import load_yaml, read_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "tests", "data", "limits")
DUEL = os.path.join(ROOT, "tests", "scripts", "duel.yaml")

CASES = {
    "huge-table.yaml": (3, "table width is too big (10000): at most 600"),
    "e300-table.yaml": (3, "table width is too big (1e+300)"),
    "huge-move.yaml": (12, "unit red-captain move is too big (1e+08): at most 1000"),
    "turn-too-late.yaml": (20, "state turn is too big (100000): at most 10000"),
    "turn-400-digits.yaml": (20, "is too big (about 401 digits)"),
    "int-400-digits.yaml": (5, "is too big (about 401 digits)"),
    "float-overflow.yaml": (5, "the number 1.0e+400 is too big: it does not fit a float"),
    "los-samples.yaml": (20, "los_samples is too big (100000): at most 360"),
    "ruleset-dev-zero.yaml": (3, "/dev/zero: not a regular file"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_refuses_what_is_too_big_with_its_line_at_once(name, capsys):
    line, said = CASES[name]
    t0 = time.perf_counter()
    assert main(["check", os.path.join(DATA, name)]) == 2
    assert time.perf_counter() - t0 < 10
    err = capsys.readouterr().err
    assert f"{name}:{line}: " in err and said in err, err
    assert "internal error" not in err and "Traceback" not in err


def test_the_limits_leave_every_bundled_and_test_map_alone():
    for folder in ("maps", os.path.join("tests", "scripts")):
        for f in sorted(os.listdir(os.path.join(ROOT, folder))):
            if f.endswith(".yaml") and "warbands" in open(os.path.join(ROOT, folder, f)).read():
                try:
                    load_scenario(os.path.join(ROOT, folder, f))
                except LoadError as exc:
                    assert not any("too big" in p.message for p in exc.problems), (f, exc.problems)


def test_a_device_or_a_huge_file_is_not_read(tmp_path, monkeypatch):
    with pytest.raises(LoadError) as err:
        read_text("/dev/zero")
    assert "not a regular file" in str(err.value.problems[0])
    from game.engine import yamlsrc

    monkeypatch.setattr(yamlsrc, "MAX_FILE_BYTES", 100)
    big = tmp_path / "big.yaml"
    big.write_text("a: 1\n" * 100)
    with pytest.raises(LoadError) as err:
        read_text(str(big))
    assert "files over" in str(err.value.problems[0])


def test_a_400_digit_integer_anywhere_is_its_own_line():
    text = "a: 1\nb: [2, " + "9" * 400 + "]\n"
    with pytest.raises(LoadError) as err:
        load_yaml(text, "x.yaml")
    assert [p.line for p in err.value.problems] == [2]


@pytest.mark.parametrize(
    "args,said",
    [
        (["--games", "9" * 30], "--games: must be at most 1000000"),
        (["--games", "2", "--workers", "500"], "--workers: must be at most"),
        (["--games", "2", "--turn-limit", "100000"], "--turn-limit: must be at most 10000"),
    ],
)
def test_simulate_counts_beyond_the_limits_are_one_usage_line(tmp_path, capsys, args, said):
    out = tmp_path / "run"
    t0 = time.perf_counter()
    assert main(["simulate", DUEL, *args, "--out", str(out)]) == 2
    assert time.perf_counter() - t0 < 10
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(said)
    assert not out.exists()


def test_a_nul_in_a_name_is_its_line_in_check_and_render(tmp_path, capsys):
    path = os.path.join(DATA, "nul-in-name.yaml")
    assert main(["check", path]) == 2
    assert main(["render", path, "-o", str(tmp_path / "out.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{path}:12: the text 'Cap\\0tain' holds a NUL character, which no name or text may hold"] * 2
