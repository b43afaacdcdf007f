"""Files shipped inside the package: maps, rosters, rulesets, fonts, the rules reference; and the version.

The data lives in the package (``game/maps``, ``game/rulesets``, ``game/assets``) so a
plain ``pip install`` carries it; it is found with :mod:`importlib.resources`, never
beside the source tree. In the repository, the top-level ``maps`` is a symbolic link to
``game/maps``, so ``speedheim play maps/default.yaml`` keeps working there.

Every place that looks for a bundled file asks this module. No pygame here.
"""

from __future__ import annotations

import os
from importlib import metadata, resources

#: The distribution name in pyproject.toml.
DISTRIBUTION = "speedheim-table"


def data_path(*parts: str) -> str:
    """A file system path to a bundled file or folder, e.g. ``data_path("maps", "default.yaml")``.

    Installed packages (wheels, editable installs) are plain folders, so the resource is
    a real path that every file-reading function (and a user reading an error) can use.
    """
    return os.fspath(resources.files("game").joinpath(*parts))


def maps_dir() -> str:
    """The bundled maps: default table, teaching maps, stress.yaml."""
    return data_path("maps")


def bundled_map(name: str) -> str:
    """A bundled map by file name, e.g. ``bundled_map("teach-climb.yaml")``."""
    return data_path("maps", name)


def default_scenario() -> str:
    """The table ``speedheim play`` opens without an argument."""
    return bundled_map("default.yaml")


def rosters_dir() -> str:
    """The bundled warband rosters the editor offers."""
    return data_path("maps", "rosters")


def rulesets_dir() -> str:
    """The bundled rulesets (``speedheim.yaml`` and its variants)."""
    return data_path("rulesets")


def personalities_dir() -> str:
    """The bundled bot personalities (the utility bot's weights, game/bots)."""
    return data_path("bots", "personalities")


def rules_doc() -> str:
    """The players' rules reference, ``assets/rules.md`` (``docs/rules.md`` links to it)."""
    return data_path("assets", "rules.md")


def fonts_dir() -> str:
    """The bundled DejaVu fonts."""
    return data_path("assets", "fonts")


def version() -> str:
    """The installed version, from the package metadata (pyproject.toml's ``version``)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"
