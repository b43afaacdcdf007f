"""The ruleset as the engine reads it: every number of the rules, read-only, as attributes.

Loading, ``extends`` and checking a ruleset file are in :mod:`game.engine.ruleset`; this
module is the value type alone, so that the model and the dice can name it without
importing the loader.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping


class Ruleset(Mapping[str, Any]):
    """Read-only parameters; ``rs.name`` and ``rs["name"]`` both work."""

    __slots__ = ("_params", "source")

    def __init__(self, params: dict[str, Any], source: str = ""):
        object.__setattr__(self, "_params", dict(params))
        object.__setattr__(self, "source", source)

    def __getattr__(self, key: str) -> Any:
        try:
            return self._params[key]
        except KeyError:
            raise AttributeError(f"ruleset has no parameter {key!r}") from None

    def __setattr__(self, key, value):
        raise AttributeError("rulesets are read-only; use with_overrides()")

    def __getitem__(self, key: str) -> Any:
        return self._params[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._params)

    def __len__(self) -> int:
        return len(self._params)

    def __repr__(self) -> str:
        return f"Ruleset({self._params.get('name')!r})"

    @property
    def phase_names(self) -> list[str]:
        return [p["name"] for p in self.phases]

    def is_manual(self, phase: str) -> bool:
        return any(p["name"] == phase and p.get("manual") for p in self.phases)

    def with_overrides(self, overrides: Mapping[str, Any]) -> "Ruleset":
        params = dict(self._params)
        params.update(overrides)
        return Ruleset(params, self.source)

    def to_dict(self) -> dict[str, Any]:
        return dict(self._params)

    # --- derived values used all over the engine --------------------------------
    def radius(self, size_mm: float) -> float:
        """Radius in inches of a round base or token of ``size_mm`` diameter (G1)."""
        return size_mm / self.mm_per_inch / 2.0

    def injury_result(self, roll: int) -> str:
        for low, high, result in self.injury_table:
            if (low is None or roll >= low) and (high is None or roll <= high):
                return result
        return "none"
