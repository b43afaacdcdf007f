"""Bundled data and the version (issue 14): one copy of every map, found through the package.

The slow end-to-end check (build the wheel, install it, play) is tests/test_install.py.
"""

from __future__ import annotations

import importlib.metadata
import os
import tomllib

import pytest

import game
from game import bundled
from game.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.dirname(os.path.abspath(game.__file__))


def test_bundled_data_is_found_inside_the_package():
    assert bundled.default_scenario() == os.path.join(PACKAGE, "maps", "default.yaml")
    assert bundled.rosters_dir() == os.path.join(PACKAGE, "maps", "rosters")
    assert bundled.rulesets_dir() == os.path.join(PACKAGE, "rulesets")
    for path in (
        bundled.default_scenario(),
        bundled.bundled_map("stress.yaml"),
        os.path.join(bundled.rosters_dir(), "iron-wardens.yaml"),
        os.path.join(bundled.rulesets_dir(), "speedheim.yaml"),
        os.path.join(bundled.fonts_dir(), "DejaVuSans.ttf"),
    ):
        assert os.path.isfile(path), path


def test_repository_maps_folder_is_the_package_maps_not_a_copy():
    """`speedheim play maps/default.yaml` keeps working in the checkout, on the same files."""
    top = os.path.join(ROOT, "maps")
    assert os.path.islink(top)
    assert os.path.samefile(top, bundled.maps_dir())
    assert sorted(os.listdir(top)) == sorted(os.listdir(bundled.maps_dir()))
    assert main(["check", os.path.join(top, "default.yaml")]) == 0


def test_version_prints_the_package_metadata(capsys):
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        declared = tomllib.load(fh)["project"]["version"]
    assert importlib.metadata.version(bundled.DISTRIBUTION) == declared == bundled.version()
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"speedheim {declared}\n"


def test_version_when_the_source_tree_was_never_installed(monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert bundled.version() == "unknown (not installed)"
