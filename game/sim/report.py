"""``summary.json`` and ``report.html``: one self-contained page, readable offline.

The page is built from the summary alone (so ``speedheim simulate --report DIR`` rebuilds
it from ``games.jsonl``): the plain sentences first, then a table per variant, then the
plots, drawn by matplotlib with the Agg backend and embedded as base64 PNGs.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
from typing import Any

from game.engine.files import atomic_write
from game.sim.results import GamesFile
from game.sim.stats import summarize

#: Variant colours (colour-blind safe, Okabe-Ito) and the draw grey.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
GREY = "#9a9a9a"


def write_report(games_path: str, summary_path: str, html_path: str) -> str:
    summary = summarize(GamesFile(games_path).read())
    atomic_write(summary_path, json.dumps(summary, indent=2) + "\n")
    atomic_write(html_path, render_html(summary, title=_title(os.path.dirname(games_path))))
    return html_path


def _title(folder: str) -> str:
    try:
        with open(os.path.join(folder, "run.json"), encoding="utf-8") as f:
            run = json.load(f)
        return os.path.basename(run["scenario"])
    except (OSError, ValueError, KeyError, TypeError):
        return os.path.basename(os.path.abspath(folder))


# --- plots --------------------------------------------------------------------------------------

def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 10, "axes.spines.top": False, "axes.spines.right": False,
                         "axes.titleweight": "bold", "axes.titlesize": 11, "figure.dpi": 100})
    return plt


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _plt().close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def plot_outcomes(summary: dict) -> str:
    """Win rate of each warband, draws and seat 1, per variant, with 95% Wilson intervals."""
    plt = _plt()
    variants, warbands = summary["variants"], summary["warbands"]
    rows = [f"{w} wins" for w in warbands] + ["draws", "seat 1 wins"]
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(rows) * max(len(variants), 1) + 1.2))
    height = 0.8 / max(len(variants), 1)
    for j, v in enumerate(variants):
        stats = [v["wins"][w] for w in warbands] + [v["draws"], v["first_seat"]]
        ys = [i + (j - (len(variants) - 1) / 2) * height for i in range(len(rows))]
        xs = [100 * s["rate"] for s in stats]
        err = [[max(0.0, 100 * (s["rate"] - s["ci"][0])) for s in stats],
               [max(0.0, 100 * (s["ci"][1] - s["rate"])) for s in stats]]
        ax.barh(ys, xs, height=height * 0.9, color=_colour(j), label=v["variant"], xerr=err,
                error_kw={"ecolor": "#333", "capsize": 2, "lw": 0.8})
    ax.set_yticks(range(len(rows)), rows)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of games (bars: 95% Wilson interval)")
    ax.axvline(50, color="#bbb", lw=0.8, ls="--")
    ax.set_title("Outcomes per variant")
    ax.legend(loc="lower right", frameon=False)
    return _png(fig)


def _grouped_hist(ax, series: list[tuple[str, dict[str, int], int]], xlabel: str, extra: dict | None = None) -> None:
    """Bars of the share of games per value, one colour per variant."""
    keys = sorted({int(k) for _, h, _ in series for k in h})
    labels = [str(k) for k in keys] + (list(extra[0].keys()) if extra else [])
    width = 0.8 / max(len(series), 1)
    for j, (name, hist, n) in enumerate(series):
        values = [hist.get(str(k), 0) for k in keys] + ([extra[j][lab] for lab in extra[j]] if extra else [])
        xs = [i + (j - (len(series) - 1) / 2) * width for i in range(len(labels))]
        ax.bar(xs, [100 * v / n if n else 0 for v in values], width=width * 0.92, color=_colour(j), label=name)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("% of games")


def plot_lengths(summary: dict) -> str:
    """Game length and the turn of the first rout."""
    plt = _plt()
    variants = summary["variants"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.6))
    _grouped_hist(a, [(v["variant"], v["turns"]["histogram"], v["games"]) for v in variants], "game turns played")
    a.set_title("Game length")
    _grouped_hist(b, [(v["variant"], v["rout_turn"]["histogram"], v["games"]) for v in variants], "game turn of the first rout",
                  extra=[{"no rout": v["rout_turn"]["no_rout"]} for v in variants])
    b.set_title("Rout turn")
    a.legend(frameon=False)
    return _png(fig)


def plot_treasure(summary: dict) -> str:
    plt = _plt()
    variants, warbands = summary["variants"], summary["warbands"]
    fig, axes = plt.subplots(1, max(len(warbands), 1), figsize=(11, 3.4), sharey=True, squeeze=False)
    for ax, w in zip(axes[0], warbands):
        _grouped_hist(ax, [(v["variant"], v["treasure"][w]["histogram"], v["games"]) for v in variants],
                      f"tokens {w} holds at the end")
        ax.set_title(f"Treasure captured: {w}")
    axes[0][0].legend(frameon=False)
    return _png(fig)


def plot_losses(summary: dict) -> str:
    plt = _plt()
    variants, warbands = summary["variants"], summary["warbands"]
    types = {w: sorted({t for v in variants for t in v["lost_types"][w]}) for w in warbands}
    tallest = max([len(t) for t in types.values()] + [1])
    fig, axes = plt.subplots(1, max(len(warbands), 1), figsize=(11, 0.45 * tallest * max(len(variants), 1) + 1.4),
                             squeeze=False)
    for ax, w in zip(axes[0], warbands):
        names = types[w]
        height = 0.8 / max(len(variants), 1)
        for j, v in enumerate(variants):
            ys = [i + (j - (len(variants) - 1) / 2) * height for i in range(len(names))]
            ax.barh(ys, [v["lost_types"][w].get(t, {}).get("per_game", 0) for t in names], height=height * 0.9,
                    color=_colour(j), label=v["variant"])
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_xlabel("units lost per game")
        ax.set_title(f"Losses by unit type: {w}")
        if not names:
            ax.text(0.5, 0.5, "no losses", transform=ax.transAxes, ha="center", va="center", color=GREY)
    axes[0][0].legend(frameon=False, loc="lower right")
    return _png(fig)


def plot_differences(summary: dict) -> str | None:
    """Each variant against the first: paired differences with 95% intervals."""
    comps = summary["comparisons"]
    if not comps:
        return None
    plt = _plt()
    warbands = summary["warbands"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 0.5 * len(comps) * max(len(warbands), 1) + 1.6))
    rows = [(c, w) for c in comps for w in warbands]
    for i, (c, w) in enumerate(rows):
        d = c["win_rate"][w]
        _forest(a, i, 100 * d["mean"], 100 * d["ci"][0], 100 * d["ci"][1], d["clear"], _colour(comps.index(c) + 1))
    a.set_yticks(range(len(rows)), [f"{c['variant']}\n{w} wins" for c, w in rows], fontsize=9)
    a.set_xlabel(f"win rate difference, points (vs {comps[0]['against']})")
    a.set_title("Win rate, paired difference")
    for i, c in enumerate(comps):
        d = c["turns"]
        _forest(b, i, d["mean"], d["ci"][0], d["ci"][1], d["clear"], _colour(i + 1))
    b.set_yticks(range(len(comps)), [c["variant"] for c in comps], fontsize=9)
    b.set_xlabel(f"game length difference, turns (vs {comps[0]['against']})")
    b.set_title("Game length, paired difference")
    for ax in (a, b):
        ax.axvline(0, color="#333", lw=0.9)
        ax.invert_yaxis()
        ax.margins(y=0.3)
    return _png(fig)


def _forest(ax, y: float, mean: float, low: float, high: float, clear: bool, colour: str) -> None:
    finite = all(map(lambda x: abs(x) != float("inf"), (low, high)))
    if finite:
        ax.plot([low, high], [y, y], color=colour, lw=2.2, solid_capstyle="butt")
    ax.plot([mean], [y], "o", color=colour if clear else "white", mec=colour, mew=2, ms=8)


# --- the page ----------------------------------------------------------------------------------------

CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Helvetica,Arial,sans-serif;color:#1d232b;
background:#f5f6f8;margin:0}
main{max-width:1120px;margin:0 auto;padding:28px 32px 48px;background:#fff;box-shadow:0 0 0 1px #e4e7ec}
h1{font-size:26px;margin:0 0 4px}h2{font-size:18px;margin:34px 0 10px;border-bottom:2px solid #e4e7ec;padding-bottom:6px}
.meta{color:#5b6573;margin:0 0 18px}
.findings{list-style:none;padding:0;margin:0}
.findings li{padding:9px 14px;margin:6px 0;border-left:4px solid #c5ccd6;background:#f7f8fa;border-radius:3px}
.findings li.clear{border-left-color:#0072B2;background:#eef5fb;font-weight:600}
table{border-collapse:collapse;width:100%;font-size:14px;margin:8px 0}
th,td{padding:6px 10px;text-align:right;border-bottom:1px solid #e9ecf0;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f2f4f7;font-weight:600}
td .ci{color:#6b7685;font-size:12px}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:7px;vertical-align:-1px}
figure{margin:16px 0 8px}figure img{max-width:100%;display:block}
figcaption{color:#5b6573;font-size:13px;margin-top:4px}
.note{color:#5b6573;font-size:13px}
"""


def _pct(s: dict) -> str:
    lo, hi = s["ci"]
    return f"{100 * s['rate']:.1f}% <span class=ci>[{100 * lo:.1f}–{100 * hi:.1f}]</span>"


def _table(summary: dict) -> str:
    warbands = summary["warbands"]
    head = ["variant", "games"] + [f"{html.escape(w)} wins" for w in warbands] + ["draws", "seat 1 wins", "mean turns",
                                                                                 "games with a rout", "illegal"]
    out = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for j, v in enumerate(summary["variants"]):
        cells = [f"<span class=swatch style='background:{_colour(j)}'></span>{html.escape(v['variant'])}", str(v["games"])]
        cells += [_pct(v["wins"][w]) for w in warbands] + [_pct(v["draws"]), _pct(v["first_seat"])]
        n = v["games"] or 1
        cells += [f"{v['turns']['mean']:.2f}", f"{100 * v['rout_turn']['games_with_rout'] / n:.1f}%", str(v["illegal"])]
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _findings(summary: dict) -> str:
    items = []
    for c in summary["comparisons"]:
        for w in summary["warbands"]:
            d = c["win_rate"][w]
            items.append((d["clear"], d["sentence"]))
        items.append((c["turns"]["clear"], c["turns"]["sentence"]))
    if not items:
        return "<p class=note>One variant only: nothing to compare. Give more with <code>--variant</code>.</p>"
    return "<ul class=findings>" + "".join(f"<li class='{'clear' if clear else ''}'>{html.escape(s)}</li>"
                                          for clear, s in items) + "</ul>"


def _figure(png: str | None, caption: str) -> str:
    if png is None:
        return ""
    return f"<figure><img alt='{html.escape(caption)}' src='data:image/png;base64,{png}'><figcaption>{caption}</figcaption></figure>"


def render_html(summary: dict, title: str = "") -> str:
    bots = summary.get("bots") or ["?", "?"]
    meta = (f"{summary['games']} games · {len(summary['variants'])} variant(s) · bots {html.escape(bots[0])} "
            f"(seat 1) vs {html.escape(bots[1])} (seat 2) · warbands {', '.join(map(html.escape, summary['warbands']))}")
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>Speedheim simulation: {html.escape(title)}</title><style>{CSS}</style></head><body><main>",
        f"<h1>Simulation report{': ' + html.escape(title) if title else ''}</h1><p class=meta>{meta}</p>",
        "<h2>Findings</h2>", _findings(summary),
        "<p class=note>Each variant is compared with the first on paired games (same seed, same seats); "
        "95% intervals. Highlighted: the interval leaves out 0.</p>",
        "<h2>Per variant</h2>", _table(summary),
        "<p class=note>Rates with their 95% Wilson interval in brackets. Seat 1 moves first.</p>",
        "<h2>Outcomes</h2>", _figure(plot_outcomes(summary), "Win rate of each warband, draws, and the first seat's win rate."),
    ]
    diff = plot_differences(summary)
    if diff:
        parts += ["<h2>Differences between variants</h2>",
                  _figure(diff, "Paired difference with the first variant: dot = mean, line = 95% interval; "
                                "a filled dot is a clear difference.")]
    parts += [
        "<h2>Game length and routs</h2>", _figure(plot_lengths(summary), "Share of games by game turns played, and by the turn of the first rout."),
        "<h2>Treasure</h2>", _figure(plot_treasure(summary), "Tokens each warband holds when the game ends."),
        "<h2>Losses</h2>", _figure(plot_losses(summary), "Units lost per game, by unit type (the unit's name without its number)."),
        "</main></body></html>",
    ]
    return "\n".join(parts)
