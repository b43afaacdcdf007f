"""The same comparison under every bot pairing: is a finding a property of the rules, or
of the bots that played them?

A difference of the pooled comparison (every pairing's pairs together) is *robust* when
every pairing finds a clear difference of the same sign (FORMATS.md). With one pairing it
is robust when it is clear: there is nothing to contradict it, and the report says that
only one pairing played.
"""

from __future__ import annotations

from typing import Any


def get_path(d: dict, path: tuple) -> Any:
    """The value at ``path`` (keys, one per level) in nested dicts."""
    for k in path:
        d = d[k]
    return d


def mark_robust(summary: dict[str, Any], paths: list[tuple]) -> None:
    """Set ``robust`` (and ``clear_in``: the pairings where it is clear, with its sign) on
    every difference of ``summary["comparisons"]``."""
    by_bots = summary.get("by_bots") or []
    for comp in summary.get("comparisons", []):
        mine = [next((c for c in b["comparisons"] if c["variant"] == comp["variant"]), None) for b in by_bots]
        for path in paths:
            d = get_path(comp, path)
            sign = (d["mean"] > 0) - (d["mean"] < 0)
            found = []
            for b, c in zip(by_bots, mine):
                if c is None:
                    found.append(None)
                    continue
                e = get_path(c, path)
                found.append(((e["mean"] > 0) - (e["mean"] < 0)) if e["clear"] else 0)
            d["clear_in"] = [{"bots": b["bots"], "sign": f} for b, f in zip(by_bots, found)]
            d["robust"] = bool(d["clear"] and d["verdict"] != "untested" and found and all(f == sign for f in found))


def robustness_note(d: dict[str, Any], pairings: int) -> str:
    """A few words on whether a clear difference holds for every bot pairing."""
    if not d.get("clear") or d.get("verdict") == "untested":
        return ""
    if pairings <= 1:
        return "One bot pairing played: whether it holds for other bots is not tested."
    if d.get("robust"):
        return f"Holds for every one of the {pairings} bot pairings."
    where = [" vs ".join(x["bots"]) for x in d.get("clear_in", []) if x["sign"]]
    return "Depends on the bots: clear only under " + (", ".join(where) if where else "the pooled games") + "."
