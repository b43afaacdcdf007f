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
import math
import os
from pathlib import Path

from game.engine.files import atomic_write
from game.sim.results import GamesFile
from game.sim.stats import summarize

#: Variant colours (colour-blind safe, Okabe-Ito) and the draw grey.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
GREY = "#b4b9c0"
#: The two warbands in the stacked outcome bars.
WARBAND_COLOURS = ("#33415c", "#c97b2a")


def write_report(games_path: str, summary_path: str, html_path: str) -> str:
    summary = summarize(GamesFile(games_path).read())
    atomic_write(summary_path, json.dumps(summary, indent=2) + "\n")
    atomic_write(html_path, render_html(summary, title=_title(os.path.dirname(games_path))))
    return html_path


def latest_report(root: str = "sim-out") -> str | None:
    """The newest ``report.html`` under ``root`` (for "open the latest report"), or None."""
    found = []
    for folder, _dirs, files in os.walk(root):
        if "report.html" in files:
            path = os.path.join(folder, "report.html")
            found.append((os.path.getmtime(path), path))
    return max(found)[1] if found else None


def open_report(path: str) -> bool:
    """Open a report in the user's web browser; False when no browser could be started."""
    import webbrowser

    return webbrowser.open(Path(os.path.abspath(path)).as_uri())


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


def _legend(fig, variants: list[dict]) -> None:
    """One legend for the figure, above the plots, a swatch per variant."""
    from matplotlib.patches import Patch

    handles = [Patch(color=_colour(j), label=v["variant"]) for j, v in enumerate(variants)]
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(len(handles), 4), frameon=False)


def plot_outcomes(summary: dict) -> str:
    """Per variant: the share of wins and draws (stacked), then each rate with its 95%
    Wilson interval (small multiples, variants as rows)."""
    plt = _plt()
    variants, warbands = summary["variants"], summary["warbands"]
    rows = len(variants)
    panels = [(f"{w} wins", lambda v, w=w: v["wins"][w]) for w in warbands]
    panels += [("draws", lambda v: v["draws"]), ("seat 1 wins", lambda v: v["first_seat"])]
    fig = plt.figure(figsize=(11, 1.2 + 0.5 * rows + 0.45 * rows + 1.4))
    grid = fig.add_gridspec(2, len(panels), height_ratios=[0.5 * rows + 0.3, 0.45 * rows + 0.8], hspace=0.65, wspace=0.12)
    ax = fig.add_subplot(grid[0, :])
    shades = [WARBAND_COLOURS[0], GREY, WARBAND_COLOURS[1]] if len(warbands) == 2 else None
    parts = [(f"{warbands[0]} wins", lambda v: v["wins"][warbands[0]])] if warbands else []
    parts += [("draw", lambda v: v["draws"])] + [(f"{w} wins", lambda v, w=w: v["wins"][w]) for w in warbands[1:]]
    left = [0.0] * rows
    for k, (name, get) in enumerate(parts):
        widths = [100 * get(v)["rate"] for v in variants]
        colour = shades[k] if shades else _colour(k)
        ax.barh(range(rows), widths, left=left, color=colour, label=name, height=0.62, edgecolor="white")
        for y, (x0, w) in enumerate(zip(left, widths)):
            if w >= 7:
                ax.text(x0 + w / 2, y, f"{w:.0f}%", ha="center", va="center", color="white", fontsize=9, fontweight="bold")
        left = [a + b for a, b in zip(left, widths)]
    ax.set_yticks(range(rows), [v["variant"] for v in variants])
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of games")
    ax.set_title("Who wins", loc="left")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(parts), frameon=False, fontsize=9)
    ax.spines["left"].set_visible(False)
    ax.tick_params(axis="y", length=0)
    for k, (name, get) in enumerate(panels):
        a = fig.add_subplot(grid[1, k])
        for y, v in enumerate(variants):
            st = get(v)
            a.plot([100 * st["ci"][0], 100 * st["ci"][1]], [y, y], color=_colour(y), lw=2.4, solid_capstyle="butt")
            a.plot([100 * st["rate"]], [y], "o", color=_colour(y), ms=7)
        a.set_xlim(-3, 103)
        a.set_ylim(rows - 0.5, -0.5)
        a.axvline(50, color="#ccc", lw=0.8, ls="--", zorder=0)
        a.set_title(name, fontsize=10)
        a.set_xlabel("%")
        a.set_yticks(range(rows), [v["variant"] for v in variants] if k == 0 else [""] * rows)
        a.tick_params(axis="y", length=0)
    fig.text(0.5, -0.02, "dots: rate · lines: 95% Wilson interval", ha="center", color="#555", fontsize=9)
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
    _legend(fig, variants)
    return _png(fig)


def plot_treasure(summary: dict) -> str:
    plt = _plt()
    variants, warbands = summary["variants"], summary["warbands"]
    fig, axes = plt.subplots(1, max(len(warbands), 1), figsize=(11, 3.4), sharey=True, squeeze=False)
    for ax, w in zip(axes[0], warbands):
        _grouped_hist(ax, [(v["variant"], v["treasure"][w]["histogram"], v["games"]) for v in variants],
                      f"tokens {w} holds at the end")
        ax.set_title(f"Treasure captured: {w}")
    _legend(fig, variants)
    return _png(fig)


def plot_losses(summary: dict) -> str:
    plt = _plt()
    variants, warbands = summary["variants"], summary["warbands"]
    def most_lost_first(w: str) -> list[str]:
        total: dict[str, float] = {}
        for v in variants:
            for t, n in v["lost_types"][w].items():
                total[t] = total.get(t, 0.0) + n["per_game"]
        return sorted(total, key=lambda t: (-total[t], t))

    types = {w: most_lost_first(w) for w in warbands}
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
    _legend(fig, variants)
    return _png(fig)


def plot_differences(summary: dict) -> str | None:
    """Each variant against the first: paired differences with 95% intervals."""
    comps = summary["comparisons"]
    if not comps:
        return None
    plt = _plt()
    warbands = summary["warbands"]
    rows = [(c, w) for c in comps for w in warbands]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 0.42 * len(rows) + 1.6), gridspec_kw={"wspace": 0.45})
    for i, (c, w) in enumerate(rows):
        d = c["win_rate"][w]
        _forest(a, i, 100 * d["mean"], 100 * d["ci"][0], 100 * d["ci"][1], d["clear"], _colour(comps.index(c) + 1))
    a.set_yticks(range(len(rows)), [f"{c['variant']}: {w} wins" for c, w in rows], fontsize=9)
    a.set_xlabel(f"percentage points (vs {comps[0]['against']})")
    a.set_title("Win rate, paired difference")
    for i, c in enumerate(comps):
        d = c["turns"]
        _forest(b, i, d["mean"], d["ci"][0], d["ci"][1], d["clear"], _colour(i + 1))
    b.set_yticks(range(len(comps)), [c["variant"] for c in comps], fontsize=9)
    b.set_xlabel(f"game turns (vs {comps[0]['against']})")
    b.set_title("Game length, paired difference")
    for ax, n in ((a, len(rows)), (b, len(comps))):
        ax.axvline(0, color="#333", lw=0.9, zorder=0)
        ax.set_ylim(n - 0.4, -0.6)
        ax.tick_params(axis="y", length=0)
        lo, hi = ax.get_xlim()
        pad = max(hi - lo, 1e-6) * 0.08
        ax.set_xlim(min(lo, -pad) - pad, max(hi, pad) + pad)
    return _png(fig)


def _forest(ax, y: float, mean: float, low: float, high: float, clear: bool, colour: str) -> None:
    """A dot at the mean (filled when the difference is clear), a line over the interval,
    and the numbers above it."""
    finite = math.isfinite(low) and math.isfinite(high)
    if finite:
        ax.plot([low, high], [y, y], color=colour, lw=2.6, solid_capstyle="butt")
    ax.plot([mean], [y], "o", color=colour if clear else "white", mec=colour, mew=2, ms=8, zorder=3)
    label = f"{mean:+.1f}  [{low:+.1f}, {high:+.1f}]" if finite else f"{mean:+.1f}  (too few pairs)"
    ax.annotate(label, (mean, y), xytext=(0, 7), textcoords="offset points", ha="center", va="bottom", fontsize=8,
                color="#333" if clear else "#777", bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"})


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
