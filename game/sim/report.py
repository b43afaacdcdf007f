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
import sys
import threading
from pathlib import Path

from game.engine.files import atomic_write
from game.engine.rule_ids import RuleId
from game.sim.headtohead import how_decided, paired_text, record
from game.sim.results import GamesFile
from game.sim.stats import summarize

#: Variant colours (colour-blind safe, Okabe-Ito) and the draw grey.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
GREY = "#b4b9c0"
#: The two warbands in the stacked outcome bars.
WARBAND_COLOURS = ("#33415c", "#c97b2a")


def read_games(games_path: str) -> tuple[list[dict], int]:
    """The records of ``games.jsonl`` and how many of its lines could not be read (a last
    line torn by a crash; a bad line before it is a LoadError with its line number)."""
    records = list(GamesFile(games_path).read())
    with open(games_path, "rb") as f:
        lines = sum(1 for raw in f if raw.strip())
    return records, lines - len(records)


def write_report(games_path: str, summary_path: str, html_path: str) -> str:
    records, skipped = read_games(games_path)
    summary = summarize(records, root=os.path.dirname(games_path) or ".", skipped=skipped)
    if skipped:
        print(
            f"{games_path}: {skipped} line(s) could not be read (a game cut off while being written): the report "
            f"is incomplete, it reads {summary['games']} game(s)",
            file=sys.stderr,
        )
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


def _mpl():
    """matplotlib configured for the report: the Agg renderer and the report's style. No
    pyplot: figures are made with :class:`matplotlib.figure.Figure` and freed with their last
    reference, which spares pyplot's import and its figure registry."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update(
        {
            "font.size": 10,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "axes.titleweight": "bold",
            "axes.titlesize": 11,
            "figure.dpi": 100,
            "axes.titley": 1.0,
        }
    )
    return matplotlib


def _figure_of(**kwargs):
    """A new figure (``kwargs`` as for :class:`matplotlib.figure.Figure`)."""
    _mpl()
    from matplotlib.figure import Figure

    return Figure(**kwargs)


def _subplots(nrows: int, ncols: int, figsize: tuple[float, float], **kwargs):
    """(figure, axes) as ``pyplot.subplots`` gives them."""
    fig = _figure_of(figsize=figsize)
    return fig, fig.subplots(nrows, ncols, **kwargs)


#: zlib level of the embedded PNGs: 1 encodes several times faster than the default 6, and
#: these flat-coloured plots come out only slightly larger.
PNG_COMPRESSION = 1


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight", pil_kwargs={"compress_level": PNG_COMPRESSION})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _load_plotting() -> None:
    """Import what the plots use and draw one small throwaway plot, which loads the font and
    the PNG encoder (together the slow part of a small run's report)."""
    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.patches  # noqa: F401

    fig, ax = _subplots(1, 1, figsize=(1, 1))
    ax.bar([0, 1], [1, 2], label="warm")
    ax.set_title("warm")
    _png(fig)


def prefetch_plotting() -> threading.Thread:
    """Load matplotlib in a background thread, while the games play in worker processes, so
    that the report written after them does not wait for it (most of the cost of a small
    run's report). matplotlib is not thread-safe: join the thread before plotting."""
    thread = threading.Thread(target=_load_plotting, name="report-prefetch", daemon=True)
    thread.start()
    return thread


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
    variants, warbands = summary["variants"], summary["warbands"]
    rows = len(variants)
    panels = [(f"{w} wins", lambda v, w=w: v["wins"][w]) for w in warbands]
    panels += [("draws", lambda v: v["draws"]), ("seat 1 wins", lambda v: v["first_seat"])]
    fig = _figure_of(figsize=(11, 1.2 + 0.5 * rows + 0.45 * rows + 1.4))
    grid = fig.add_gridspec(
        2, len(panels), height_ratios=[0.5 * rows + 0.3, 0.45 * rows + 0.8], hspace=0.65, wspace=0.12
    )
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
                ax.text(
                    x0 + w / 2, y, f"{w:.0f}%", ha="center", va="center", color="white", fontsize=9, fontweight="bold"
                )
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
    return _png(fig)


def _grouped_hist(
    ax,
    series: list[tuple[str, dict[str, int], int]],
    xlabel: str,
    extra: dict | None = None,
    keys: list[int] | None = None,
) -> None:
    """Bars of the share of games per value, one colour per variant (``keys``: the values on
    the axis, the same for panels that share it)."""
    keys = keys if keys is not None else sorted({int(k) for _, h, _ in series for k in h})
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
    variants = summary["variants"]
    fig, (a, b) = _subplots(1, 2, figsize=(11, 3.6), sharey=True)
    _grouped_hist(a, [(v["variant"], v["turns"]["histogram"], v["games"]) for v in variants], "game turns played")
    a.set_title("Game length")
    _grouped_hist(
        b,
        [(v["variant"], v["rout_turn"]["histogram"], v["games"]) for v in variants],
        "game turn of the first rout",
        extra=[{"no rout": v["rout_turn"]["no_rout"]} for v in variants],
    )
    b.set_title("Rout turn")
    _legend(fig, variants)
    return _png(fig)


def plot_treasure(summary: dict) -> str:
    variants, warbands = summary["variants"], summary["warbands"]
    fig, axes = _subplots(1, max(len(warbands), 1), figsize=(11, 3.4), sharey=True, sharex=True, squeeze=False)
    keys = sorted({int(k) for v in variants for w in warbands for k in v["treasure"][w]["histogram"]})
    for ax, w in zip(axes[0], warbands):
        _grouped_hist(
            ax,
            [(v["variant"], v["treasure"][w]["histogram"], v["games"]) for v in variants],
            f"tokens held by {w} at the end",
            keys=keys,
        )
        ax.set_title(f"Tokens held at the end: {w}")
    _legend(fig, variants)
    return _png(fig)


def plot_losses(summary: dict) -> str:
    variants, warbands = summary["variants"], summary["warbands"]

    def most_lost_first(w: str) -> list[str]:
        total: dict[str, float] = {}
        for v in variants:
            for t, n in v["lost_types"][w].items():
                total[t] = total.get(t, 0.0) + n["per_game"]
        return sorted(total, key=lambda t: (-total[t], t))

    types = {w: most_lost_first(w) for w in warbands}
    tallest = max([len(t) for t in types.values()] + [1])
    fig, axes = _subplots(
        1, max(len(warbands), 1), figsize=(11, 0.45 * tallest * max(len(variants), 1) + 1.4), squeeze=False, sharex=True
    )
    for ax, w in zip(axes[0], warbands):
        names = types[w]
        height = 0.8 / max(len(variants), 1)
        for j, v in enumerate(variants):
            ys = [i + (j - (len(variants) - 1) / 2) * height for i in range(len(names))]
            ax.barh(
                ys,
                [v["lost_types"][w].get(t, {}).get("per_game", 0) for t in names],
                height=height * 0.9,
                color=_colour(j),
                label=v["variant"],
            )
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_xlabel("units lost per game")
        ax.set_title(f"Losses by unit type: {w}")
        if not names:
            ax.text(0.5, 0.5, "no losses", transform=ax.transAxes, ha="center", va="center", color=GREY)
    _legend(fig, variants)
    return _png(fig)


def _diff_rows(summary: dict) -> list[tuple[str, str, dict, int]]:
    """(panel, row label, difference, comparison index) of the differences plotted."""
    rows = []
    warbands = summary["warbands"]
    for i, c in enumerate(summary["comparisons"]):
        for w in warbands:
            rows.append(("win", f"{c['variant']}: {w} wins", c["win_rate"][w], i))
        rows.append(("turns", c["variant"], c["turns"], i))
        for w in warbands:
            rows.append(("count", f"{c['variant']}: tokens held by {w}", c["treasure"][w], i))
            rows.append(("count", f"{c['variant']}: units lost by {w}", c["lost"][w], i))
    return rows


def plot_differences(summary: dict) -> str | None:
    """Each variant against the first: paired differences with 95% intervals. A difference
    that is the same in every pair is written out ("identical in all N pairs"), and an
    untested one says so, never drawn as a zero-width interval."""
    comps = summary["comparisons"]
    if not comps:
        return None
    rows = _diff_rows(summary)
    panels = [
        ("win", "Win rate", "percentage points", 100.0),
        ("turns", "Game length", "game turns", 1.0),
        ("count", "Tokens held and units lost at the end", "per game", 1.0),
    ]
    sizes = [sum(1 for r in rows if r[0] == key) for key, *_ in panels]
    fig, axes = _subplots(
        len(panels),
        1,
        figsize=(11, 0.36 * sum(sizes) + 1.2 * len(panels) + 0.6),
        gridspec_kw={"height_ratios": [max(n, 1) + 1.2 for n in sizes], "hspace": 0.75},
    )
    base = comps[0]["against"]
    for ax, (key, title, unit, scale) in zip(axes, panels):
        mine = [r for r in rows if r[0] == key]
        for y, (_, _, d, i) in enumerate(mine):
            colour = _colour(i + 1)
            if d.get("verdict") == "untested":
                ax.text(
                    0,
                    y,
                    "untested: no decision of the changed rule was decisive",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="#777",
                )
            elif d.get("identical"):
                ax.text(
                    0, y, f"identical in all {d['pairs']} pairs", ha="center", va="center", fontsize=8, color="#555"
                )
            else:
                _forest(
                    ax,
                    y,
                    scale * d["mean"],
                    scale * d["ci"][0],
                    scale * d["ci"][1],
                    d["clear"],
                    colour,
                    label=_shown(d),
                )
        ax.set_yticks(range(len(mine)), [r[1] for r in mine], fontsize=9)
        ax.axvline(0, color="#333", lw=0.9, zorder=0)
        ax.set_ylim(len(mine) - 0.4, -0.7)
        ax.tick_params(axis="y", length=0)
        lo, hi = ax.get_xlim()
        span = max(abs(lo), abs(hi), 1.0 if key != "win" else 10.0)
        ax.set_xlim(-span * 1.15, span * 1.15)
        ax.set_xlabel(f"{unit} (vs {base})")
        ax.set_title(f"{title}, paired difference", loc="left")
    return _png(fig)


def _shown(d: dict) -> str:
    """A difference's numbers exactly as its sentence writes them: mean [low, high]."""
    t = d.get("shown")
    if not t:
        return f"{d['mean']:+.2f}  [{d['ci'][0]:+.2f}, {d['ci'][1]:+.2f}]"
    if "inf" in t["ci"][0] or "inf" in t["ci"][1]:
        return f"{t['mean']}  (too few pairs)"
    return f"{t['mean']}  [{t['ci'][0]}, {t['ci'][1]}]"


def _forest(ax, y: float, mean: float, low: float, high: float, clear: bool, colour: str, label: str) -> None:
    """A dot at the mean (filled when the difference is clear), a line over the interval,
    and the numbers above it (``label``: as the sentence writes them)."""
    finite = math.isfinite(low) and math.isfinite(high)
    if finite:
        ax.plot([low, high], [y, y], color=colour, lw=2.6, solid_capstyle="butt")
    ax.plot([mean], [y], "o", color=colour if clear else "white", mec=colour, mew=2, ms=8, zorder=3)
    ax.annotate(
        label,
        (mean, y),
        xytext=(0, 7),
        textcoords="offset points",
        ha="center",
        va="bottom",
        fontsize=8,
        color="#333" if clear else "#777",
        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none"},
    )


# --- the page ----------------------------------------------------------------------------------------

CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Helvetica,Arial,sans-serif;color:#1d232b;
background:#f5f6f8;margin:0}
main{max-width:1120px;margin:0 auto;padding:28px 32px 48px;background:#fff;box-shadow:0 0 0 1px #e4e7ec}
h1{font-size:26px;margin:0 0 4px}\
h2{font-size:18px;margin:34px 0 10px;border-bottom:2px solid #e4e7ec;padding-bottom:6px}
.meta{color:#5b6573;margin:0 0 18px}
.findings{list-style:none;padding:0;margin:0}
.findings li{padding:9px 14px;margin:6px 0;border-left:4px solid #c5ccd6;background:#f7f8fa;border-radius:3px}
.findings li.clear{border-left-color:#0072B2;background:#eef5fb;font-weight:600}
table{border-collapse:collapse;width:100%;font-size:13px;margin:8px 0}
th,td{padding:6px 7px;text-align:right;border-bottom:1px solid #e9ecf0;white-space:nowrap}
th{white-space:normal}
th:first-child,td:first-child{text-align:left}th{background:#f2f4f7;font-weight:600}
td .ci{color:#6b7685;font-size:12px;white-space:normal}
.swatch{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:7px;vertical-align:-1px}
figure{margin:16px 0 8px}figure img{max-width:100%;display:block}
figcaption{color:#5b6573;font-size:13px;margin-top:4px}
.note{color:#5b6573;font-size:13px}
.findings li.untested{border-left-color:#D55E00;background:#fdf1ea;font-weight:600}
.findings li.depends{border-left-color:#E69F00}
.coverage{padding-left:18px}.coverage li{margin:6px 0}
.tag{display:inline-block;font-size:12px;font-weight:700;padding:1px 7px;border-radius:9px;margin-right:4px}
.tag.untested{background:#D55E00;color:#fff}.tag.tested{background:#009E73;color:#fff}
table.games td{white-space:normal;text-align:left}table.who td{white-space:normal}code{font-size:12px}
details summary{cursor:pointer;color:#33415c;margin:8px 0}
.warn{padding:8px 12px;border-left:4px solid #D55E00;background:#fdf1ea;margin:6px 0}
"""


def _pct(s: dict) -> str:
    """A rate and its 95% interval; where games repeated a line, the interval is over the
    distinct games and says so."""
    lo, hi = s["ci"]
    kd, nd = s.get("distinct") or (None, None)
    games = s.get("of")
    if nd is not None and games is not None and nd < games:
        return (
            f"{100 * s['rate']:.1f}% <span class=ci>[{100 * lo:.1f}–{100 * hi:.1f}] over {kd} of {nd} distinct "
            f"games</span>"
        )
    return f"{100 * s['rate']:.1f}% <span class=ci>[{100 * lo:.1f}–{100 * hi:.1f}]</span>"


def _swatch(j: int, text: str) -> str:
    return f"<span class=swatch style='background:{_colour(j)}'></span>{html.escape(text)}"


def _row(cells: list[str], head: bool = False) -> str:
    tag = "th" if head else "td"
    return "<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>"


def _table(summary: dict) -> str:
    warbands = summary["warbands"]
    head = (
        ["variant", "games"]
        + [f"{html.escape(w)} wins" for w in warbands]
        + [
            "draws",
            "seat 1 wins",
            "mean turns",
            "games with a rout",
            "games in which the rout rule (U2) fired",
            "illegal",
        ]
    )
    out = ["<table>", _row(head, True)]
    for j, v in enumerate(summary["variants"]):
        cells = [_swatch(j, v["variant"]), str(v["games"])]
        cells += [_pct(v["wins"][w]) for w in warbands] + [_pct(v["draws"]), _pct(v["first_seat"])]
        checks = (v.get("rout_checks") or {}).get("games")
        cells += [
            f"{v['turns']['mean']:.2f}",
            _pct(v["routs"]) if "routs" in v else "–",
            _pct(checks) if checks else "not recorded",
            str(v["illegal"]),
        ]
        out.append(_row(cells))
    out.append("</table>")
    return "\n".join(out)


ENDS = {
    "rout": "a warband routed",
    "turn_limit": "the turn limit",
    "eliminated": "a side eliminated",
    "capped": "stopped at the decision cap",
    "unfinished": "not finished",
}


def _who_wins(summary: dict) -> str:
    """The first screen's answer: per variant, each warband's wins and how they were
    decided, the draws, and each seat's wins, with their 95% intervals."""
    warbands = summary["warbands"]
    head = (
        ["variant", "games"]
        + [f"{html.escape(w)} wins (how decided)" for w in warbands]
        + ["draws", "seat 1 wins (player 1)", "seat 2 wins"]
    )
    out = ["<table class=who>", _row(head, True)]
    for j, v in enumerate(summary["variants"]):
        cells = [_swatch(j, v["variant"]), str(v["games"])]
        for w in warbands:
            how = (v.get("decided_by") or {}).get(w) or {}
            cells.append(
                f"{v['wins'][w]['n']}: {_pct(v['wins'][w])}<br><span class=ci>{how_decided(how) or 'none'}</span>"
            )
        cells += [
            f"{v['draws']['n']}: {_pct(v['draws'])}",
            f"{v['first_seat']['n']}: {_pct(v['first_seat'])}",
            f"{v['second_seat']['n']}: {_pct(v['second_seat'])}",
        ]
        out.append(_row(cells))
    out.append("</table>")
    return "\n".join(out)


def one_warband(found: list[dict], warbands: list[str]) -> list[str]:
    """A warning for each pairing of bots in which the first bot played one warband only
    (``--bots A,B --swap`` swaps the seats, each bot keeping its warband): its share then
    mixes the bot with that warband's edge on the table."""
    out = []
    for m in found:
        played = list(m.get("by_warband") or {})
        if len(warbands) == 2 and len(played) == 1:
            a, b = m["bots"]
            other = next(w for w in warbands if w != played[0])
            out.append(
                f"{a} played only the {played[0]} against {b} (with --swap a bot changes seat and keeps its "
                f"warband): its share mixes the bot with that warband's edge on this table. Add --bots {b},{a} "
                f"to play it as the {other} too."
            )
    return out


def _head_to_head(summary: dict) -> str:
    """Bot against bot (:mod:`game.sim.headtohead`): per variant and pair of different
    bots, the first bot's games over the distinct games, its share of the decided ones
    with the 95% interval, its record by seat and by warband, and how they were decided.
    Empty when every game is a bot against itself."""
    found = summary.get("head_to_head") or []
    if not found:
        return ""
    labels = [v["variant"] for v in summary["variants"]]
    head = ["variant", "bot", "against", "distinct games", "won-drawn-lost", "share of the decided"]
    sides = sorted({w for m in found for w in m.get("by_warband") or {}})
    head += ["from seat 1", "from seat 2"] + [f"as {html.escape(w)}" for w in sides] + ["how decided"]
    paired = [(m, p) for m in found for p in m.get("paired") or []]
    out = ["<h2>Bot against bot</h2>"]
    out += [f"<p class=warn>{html.escape(w)}</p>" for w in one_warband(found, summary.get("warbands") or [])]
    out += ["<table>", _row(head, True)]
    for m in found:
        j = labels.index(m["variant"]) if m["variant"] in labels else 0
        lo, hi = m["ci"]
        share = (
            f"{100 * m['share']:.0f}% <span class=ci>[{100 * lo:.0f}–{100 * hi:.0f}]</span>"
            if m["decided"]
            else "none decided"
        )
        games = str(m["distinct"]) + (
            f" <span class=ci>of {m['games']} played</span>" if m["games"] != m["distinct"] else ""
        )
        how = how_decided(m["decided_by"]) or "none"
        seats = [record(m["by_seat"][s]) for s in ("1", "2")]
        seats += [record(m["by_warband"][w]) if w in (m.get("by_warband") or {}) else "–" for w in sides]
        cells = [_swatch(j, m["variant"]), html.escape(m["bots"][0]), html.escape(m["bots"][1]), games, record(m)]
        out.append(_row(cells + [share] + seats + [html.escape(how)]))
    out.append("</table>")
    out.append(
        "<p class=note>The first bot's games against the second, counted once per distinct game (a game whose "
        "moves another repeats counts once): its share of the decided games with the 95% Wilson interval, and "
        "its record from each seat and with each warband (won-drawn-lost), which often say more than the share: "
        "the seat that moves first, or a warband the table favours, may decide the game whichever bot plays "
        "it.</p>"
    )
    if paired:
        out.append("<h3>Paired with the bots' own games</h3><ul>")
        out += [
            f"<li>{_swatch(labels.index(m['variant']) if m['variant'] in labels else 0, m['variant'])}: "
            f"{html.escape(paired_text(m, p))}</li>"
            for m, p in paired
        ]
        out.append("</ul>")
        out.append(
            "<p class=note>Where the study also played a bot against itself, each game is paired with that "
            "bot's own game on the same seed and seats: the side one bot played, taken by the other, against "
            "the same opponent. Better: that side did better with the first bot (won where the other drew or "
            "lost, drew where it lost). The table's edge is the same in both games of a pair, so these counts "
            "say what the bot changed; the exact sign test says whether more pairs moved up than down. Where "
            "the pairs are about both warbands, the counts follow for each: a bigger budget may gain with the "
            "warband the table favours only.</p>"
        )
    return "\n".join(out)


def _ends_table(summary: dict) -> str:
    """How games ended, and which warband routed, per variant."""
    warbands = summary["warbands"]
    kinds = []
    for v in summary["variants"]:
        for k in v.get("ends", {}):
            if k not in kinds:
                kinds.append(k)
    head = ["variant"] + [html.escape(ENDS.get(k, k)) for k in kinds] + [f"{html.escape(w)} routed" for w in warbands]
    head += ["rout rule (U2) decisions per game"]
    out = ["<table>", _row(head, True)]
    for j, v in enumerate(summary["variants"]):
        n = v["games"] or 1
        cells = [_swatch(j, v["variant"])]
        cells += [f"{v['ends'].get(k, 0)} <span class=ci>({100 * v['ends'].get(k, 0) / n:.0f}%)</span>" for k in kinds]
        cells += [_pct(v["routed"][w]) if "routed" in v else "–" for w in warbands]
        cells += [f"{(v.get('rout_checks') or {}).get('mean', 0):.2f}"]
        out.append(_row(cells))
    out.append("</table>")
    return "\n".join(out)


def _seat_table(summary: dict) -> str:
    """Warband by seat: each warband's win rate when it moves first and when second."""
    warbands = summary["warbands"]
    head = ["variant", "warband", "wins in seat 1 (player 1)", "wins in seat 2"]
    out = ["<table>", _row(head, True)]
    for j, v in enumerate(summary["variants"]):
        for w in warbands:
            seats = (v.get("by_seat") or {}).get(w)
            if not seats:
                continue
            cells = [_swatch(j, v["variant"]), html.escape(w)]
            cells += [f"{_pct(seats[s])} <span class=ci>of {seats[s]['games']}</span>" for s in ("1", "2")]
            out.append(_row(cells))
    out.append("</table>")
    return "\n".join(out)


def _coverage(summary: dict) -> str:
    """Per comparison: the rules it changes, how often they fired, how many pairs changed."""
    items = []
    for c in summary["comparisons"]:
        name, base, n = html.escape(c["variant"]), html.escape(c["against"]), c["pairs"]
        rules = c.get("rules_changed") or []
        if c.get("tested") is None:
            text = f"<b>{name}</b> vs {base}: which rules fired was not recorded in these games (an older run)."
            verdict = ""
        elif not rules:
            text = f"<b>{name}</b> changes no rule of {base}."
            verdict = "<span class='tag untested'>untested</span>"
        else:
            per = "; ".join(
                f"{html.escape(r)} fired in {f['pairs']} of the {n} paired games (in one game of the pair or "
                f"both; {f['base_per_game']:.2f} times per game under {base}, {f['variant_per_game']:.2f} "
                f"under {name})"
                for r, f in (c.get("fired_by_rule") or {}).items()
            )
            why = (
                "never came into play"
                if not c.get("fired_pairs")
                else "it fired, but no decision of it would have gone the other way"
            )
            verdict = (
                "<span class='tag tested'>tested</span>"
                if c["tested"]
                else f"<span class='tag untested'>untested: {why}</span>"
            )
            text = f"<b>{name}</b> changes {', '.join(map(html.escape, rules))} against {base}: {per}. {_decisive(c)}"
        changed = f" {c['changed_pairs']} of {n} paired games differ in winner, turns, losses or treasure."
        items.append(f"<li>{verdict} {text}{changed}</li>")
    return "<ul class=coverage>" + "".join(items) + "</ul>" if items else ""


def _decisive(c: dict) -> str:
    """Fired and decisive side by side: in how many pairs a decision of the changed rule
    would have gone the other way under the other ruleset, per parameter."""
    if "decisive_pairs" not in c:
        return ""
    n = c["pairs"]
    per = "; ".join(f"{html.escape(p)}: {k} of {n}" for p, k in (c.get("decisive_by_parameter") or {}).items())
    text = (
        f"Decisive in {c['decisive_pairs']} of the {n} paired games (fired in {c['fired_pairs']})"
        + (f" ({per})" if per else "")
        + "."
    )
    if c.get("fallback"):
        text += (
            f" For {', '.join(map(html.escape, c['fallback']))} no decision is recorded that could tell: "
            "a pair where it fired counts as decisive."
        )
    return text


def _findings(summary: dict) -> str:
    from game.sim.robust import robustness_note
    from game.sim.robust import get_path
    from game.sim.stats import difference_paths

    pairings = len(summary.get("bots") or []) or 1
    clear, unclear = [], []
    said: dict[str, str] = {}  # a finding with its variant's label taken out -> the variant that said it
    repeats: dict[str, tuple[str, int]] = {}
    for c in summary["comparisons"]:
        if c.get("tested") is False:
            clear.append(("untested", c["sentences"][0]))
            continue
        for path in difference_paths(summary["warbands"]):
            d = get_path(c, path)
            if d["clear"]:
                key = d["sentence"].replace(c["variant"], "\0", 1)
                if key in said and said[key] != c["variant"]:
                    first, n = repeats.get(c["variant"], (said[key], 0))
                    repeats[c["variant"]] = (first, n + 1)
                    continue
                said[key] = c["variant"]
                note = robustness_note(d, pairings) if pairings > 1 else ""
                clear.append(
                    (
                        "clear" if d.get("robust") or pairings == 1 else "clear depends",
                        d["sentence"] + (" " + note if note else ""),
                    )
                )
            else:
                unclear.append(d["sentence"])
    for label, (first, n) in repeats.items():
        clear.append(
            (
                "clear",
                f"{label}: {n} finding(s) word for word the same as {first}'s{_same_note(summary, first, label)}.",
            )
        )
    if not summary["comparisons"]:
        return "<p class=note>One variant only: nothing to compare. Give more with <code>--variant</code>.</p>"
    out = "<ul class=findings>" + "".join(f"<li class='{cls}'>{html.escape(s)}</li>" for cls, s in clear) + "</ul>"
    if pairings == 1 and any(cls.startswith("clear") for cls, _ in clear):
        out = (
            "<p class=note>One bot pairing played: whether these findings hold for other bots is not tested "
            "(give <code>--bots</code> more than once).</p>"
        ) + out
    if not clear:
        out = "<p class=note>No clear difference in any outcome, and no untested comparison.</p>"
    if unclear:
        out += (
            f"<details><summary>{len(unclear)} outcome(s) without a clear difference</summary><ul class=findings>"
            + "".join(f"<li>{html.escape(s)}</li>" for s in unclear)
            + "</ul></details>"
        )
    return out


def _same_note(summary: dict, a: str, b: str) -> str:
    """`` (the two played the same games in k of n paired games)``, when they did."""
    for x in summary.get("same_games") or []:
        if set(x["variants"]) == {a, b}:
            return f" (the two played move for move the same games in {x['same']} of {x['pairs']} paired games)"
    return ""


def _same_games(summary: dict) -> str:
    """Variants that played the same games, said once."""
    items = [
        f"<li><b>{html.escape(x['variants'][0])}</b> and <b>{html.escape(x['variants'][1])}</b> played move for "
        f"move the same games in {x['same']} of their {x['pairs']} paired games: in those games the change "
        "altered no move, only what the rules made of the same moves.</li>"
        for x in summary.get("same_games") or []
        if 2 * x["same"] >= x["pairs"]
    ]
    return "<ul class=coverage>" + "".join(items) + "</ul>" if items else ""


def _matrix(summary: dict) -> str:
    """Bots by variant: each pairing's win rate of the first warband under every variant
    (95% Wilson interval), and its paired difference with the first variant."""
    by_bots = summary.get("by_bots") or []
    if not by_bots or not summary["warbands"]:
        return ""
    w = summary["warbands"][0]
    labels = [v["variant"] for v in summary["variants"]]
    out = ["<table>", _row(["bots (seat 1 vs seat 2)"] + [_swatch(j, lab) for j, lab in enumerate(labels)], True)]
    for b in by_bots:
        cells = [html.escape(" vs ".join(b["bots"]))]
        for lab in labels:
            v = next((x for x in b["variants"] if x["variant"] == lab), None)
            c = next((x for x in b["comparisons"] if x["variant"] == lab), None)
            if v is None:
                cells.append("–")
                continue
            cell = f"{html.escape(w)} wins {_pct(v['wins'][w])}"
            if c is not None:
                d = c["win_rate"][w]
                if d["verdict"] == "untested":
                    cell += "<br><span class=ci>untested</span>"
                elif d["identical"]:
                    cell += f"<br><span class=ci>identical in all {d['pairs']} pairs</span>"
                else:
                    cell += (
                        f"<br><span class=ci>{html.escape(_shown(d))} pts, p = {d['p']:.2g}"
                        f"{' (clear)' if d['clear'] else ''}</span>"
                    )
            cells.append(cell)
        out.append(_row(cells))
    out.append("</table>")
    return "\n".join(out)


def _diff_cell(d: dict) -> str:
    if d["verdict"] == "untested":
        return "<span class=ci>untested</span>"
    if d["identical"]:
        return f"<span class=ci>identical in all {d['pairs']} pairs</span>"
    text = f"{html.escape(_shown(d))} {html.escape(d.get('shown', {}).get('unit', ''))}, p = {d['p']:.2g}"
    return f"<b>{text} (clear)</b>" if d["clear"] else f"<span class=ci>{text}</span>"


def _by_pairing(summary: dict) -> str:
    """Per bot pairing, every outcome: each variant's rates, then each paired difference
    with the first variant (interval, p, clear)."""
    from game.sim.robust import get_path
    from game.sim.stats import _quantities

    warbands = summary["warbands"]
    labels = [v["variant"] for v in summary["variants"]]
    parts = []
    for b in summary.get("by_bots") or []:
        rows = [_row(["outcome"] + [_swatch(j, lab) for j, lab in enumerate(labels)], True)]
        variants = {v["variant"]: v for v in b["variants"]}
        comps = {c["variant"]: c for c in b["comparisons"]}
        rates = [(f"{w} wins", lambda v, w=w: v["wins"][w]) for w in warbands]
        rates += [("draws", lambda v: v["draws"]), ("seat 1 wins", lambda v: v["first_seat"])]
        for name, get in rates:
            rows.append(
                _row([html.escape(name)] + [_pct(get(variants[lab])) if lab in variants else "–" for lab in labels])
            )
        for q in _quantities(warbands):
            cells = [f"difference: {html.escape(q[3])}"]
            for lab in labels:
                c = comps.get(lab)
                cells.append(_diff_cell(get_path(c, q[0])) if c else "–")
            rows.append(_row(cells))
        parts.append(
            f"<details><summary>{html.escape(' vs '.join(b['bots']))}: every outcome</summary>"
            f"<table class=who>{''.join(rows)}</table></details>"
        )
    return "".join(parts)


def _rules_table(summary: dict) -> str:
    """Share of games in which each rule fired, per variant."""
    variants = [v for v in summary["variants"] if v.get("rules_fired") is not None]
    if not variants:
        return "<p class=note>Which rules fired was not recorded in these games.</p>"
    rules = sorted({r for v in variants for r in v["rules_fired"]})
    out = ["<table>", _row(["rule"] + [_swatch(j, v["variant"]) for j, v in enumerate(variants)], True)]
    for r in rules:
        out.append(
            _row([html.escape(r)] + [_pct(v["rules_fired"][r]) if r in v["rules_fired"] else "0%" for v in variants])
        )
    out.append("</table>")
    return "\n".join(out)


def _gaps(summary: dict) -> str:
    g = summary.get("gaps") or {}
    if not g.get("recorded"):
        return "<p class=note>Stalls were not recorded in these games (an older run).</p>"
    parts = [
        f"<p><b>A stall</b> is a stretch of {g['stall_turns']} or more game turns in a row in which no token "
        f"changed hands, no unit was lost and no rout check was made: both sides moved, and nothing that decides "
        f"the game happened. {g['stalls']} of {summary['games']} game(s) had one. {g['rule_gaps']} game(s) met a "
        f"situation no rule covers (an action refused as an internal error, or a game stopped at the decision "
        f"cap). Each listed game comes with two commands: run them in order from the folder you ran simulate "
        f"in; the first plays that very game again into a folder of its own, the second replays its log.</p>"
    ]

    def listing(games: list, what) -> str:
        rows = []
        for x in games:
            cmds = "<br>".join(f"<code>{html.escape(c)}</code>" for c in x["commands"]) or "–"
            rows.append(
                _row(
                    [
                        html.escape(x["variant"]),
                        str(x["seed"]),
                        "yes" if x["swapped"] else "no",
                        html.escape(",".join(x["bots"] or [])),
                        what(x),
                        cmds,
                    ]
                )
            )
        return (
            "<table class=games>"
            + _row(["variant", "seed", "swapped", "bots", "what", "replay"], True)
            + "".join(rows)
            + "</table>"
        )

    if g.get("stall_games"):
        shown = len(g["stall_games"])
        parts.append(
            f"<details><summary>Stalls: the {shown} longest</summary>"
            + listing(
                g["stall_games"],
                lambda x: (
                    f"quiet for {x['quiet_turns']} turns from turn {x['from_turn']}"
                    + (f" of {x['turns']}" if x.get("turns") else "")
                ),
            )
            + "</details>"
        )
    if g.get("gap_games"):
        parts.append(
            "<h3>Rule gaps</h3>"
            + listing(
                g["gap_games"],
                lambda x: html.escape("; ".join(f"turn {p.get('turn')}: {p.get('reason')}" for p in x["problems"])),
            )
        )
    return "\n".join(parts)


def _played_under(summary: dict) -> str:
    """What the bots played under: the turn limit and its tie-break, combat, placeholders."""
    v0 = summary["variants"][0] if summary["variants"] else {}
    u = v0.get("under") or {}
    if not u:
        return "the scenario's rules (not recorded in these games)"
    bits = []
    if u.get("turn_limit"):
        tie = (
            "the side holding the most treasure wins, then the one that lost fewer units: a placeholder for bot "
            "games, not a rule of the bundled ruleset"
            if u.get("turn_limit_winner") == "treasure"
            else "a draw"
        )
        bits.append(f"a turn limit of {u['turn_limit']} game turns (T1; at the limit: {tie})")
    if u.get("combat") == "placeholder":
        bits.append("placeholder combat (S1, S2, F1: not the designers' rules yet)")
    if u.get("injury_table_placeholder"):
        bits.append("the placeholder Injury chart (M7)")
    fired = {r for v in summary["variants"] for r in (v.get("rules_fired") or {})}
    if u.get("event_table_placeholder") and RuleId.U7 in fired:
        bits.append("the placeholder Event table (U7)")
    if u.get("neutral_act") and RuleId.U7 in fired:
        bits.append(f"Neutrals acting by '{u['neutral_act']}' (U1)")
    if u.get("rout_variant"):
        rule = f"rout rule '{u['rout_variant']}'"
        if u.get("rout_variant") == "standard" and u.get("rout_threshold") is not None:
            rule += f" with rout_threshold {u['rout_threshold']} (U2: units lost + tokens the opponent holds)"
        bits.append(f"{rule} in {v0.get('variant')}")
    return "; ".join(bits)


def _warnings(summary: dict) -> str:
    """The header's warnings: variants that played few distinct games, pairings whose every
    game opened the same way, a run that could not be read whole, T1 as a placeholder."""
    from game.sim.lines import FEW_LINES

    out = []
    counts = " · ".join(
        f"{html.escape(v['variant'])} {v.get('distinct_lines', v['games'])} of {v['games']}"
        for v in summary["variants"]
    )
    head = f"<p class=meta>Distinct games (a game whose moves another repeats counts once): {counts}.</p>"
    skipped = summary.get("skipped_lines") or 0
    if skipped:
        out.append(
            f"<b>Incomplete:</b> {skipped} line(s) of games.jsonl could not be read; this report reads "
            f"{summary['games']} game(s)."
        )
    for v in summary["variants"]:
        n, d = v["games"], v.get("distinct_lines", v["games"])
        if n and d <= FEW_LINES * n:
            out.append(
                f"<b>{html.escape(v['variant'])} played {d} distinct game(s) in {n}:</b> games with the same "
                f"moves count once in every interval and test, so its findings rest on {d} observation(s)."
            )
    for b in summary.get("by_bots") or []:
        if b["variants"] and all(v.get("one_opening") for v in b["variants"]):
            out.append(
                f"<b>Every game of {html.escape(' vs '.join(b['bots']))} opened the same way</b> (the same "
                "first game turn, seat for seat): its findings describe one opening of these bots, not the "
                "rules in general."
            )
    at_limit = sum(
        v.get("decided_by", {}).get(w, {}).get("turn_limit", 0)
        for v in summary["variants"]
        for w in summary["warbands"]
    )
    if at_limit:
        games = summary["games"]
        out.append(
            f"<b>{at_limit} of {games} games were won at the turn limit, on T1's tie-break, a placeholder for "
            "bot games:</b> a game that reaches the turn limit goes to the side holding the most treasure (then "
            "the one that lost fewer units); the bundled rules do not say so. Those wins are counted apart "
            'under "Who wins" (decided by the turn limit); play them as draws with '
            "<code>--variant turn_limit_winner=draw</code>."
        )
    return head + "".join(f"<p class='warn'>{w}</p>" for w in out)


def _figure(png: str | None, caption: str) -> str:
    if png is None:
        return ""
    return (
        f"<figure><img alt='{html.escape(caption)}' src='data:image/png;base64,{png}'>"
        f"<figcaption>{caption}</figcaption></figure>"
    )


def render_html(summary: dict, title: str = "") -> str:
    pairings = summary.get("bots") or []
    if pairings and isinstance(pairings[0], str):
        pairings = [pairings]
    bots = "; ".join(f"{html.escape(p[0])} (seat 1) vs {html.escape(p[1])} (seat 2)" for p in pairings) or "?"
    meta = (
        f"{summary['games']} games · {len(summary['variants'])} variant(s) · "
        f"{len(pairings)} bot pairing(s): {bots} · warbands {', '.join(map(html.escape, summary['warbands']))}"
    )
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        f"<title>Speedheim simulation: {html.escape(title)}</title><style>{CSS}</style></head><body><main>",
        f"<h1>Simulation report{': ' + html.escape(title) if title else ''}</h1><p class=meta>{meta}</p>",
        f"<p class=meta>Played under: {html.escape(_played_under(summary))}. Every finding below is about the rules "
        "<i>as these bots play them</i>.</p>",
        _warnings(summary),
        "<h2>Who wins</h2>",
        _who_wins(summary),
        "<p class=note>Wins of each warband and of each seat, with their 95% Wilson interval; under each warband's "
        "wins, how they were decided: by a rout, by eliminating the other side, or at the turn limit (T1's "
        "tie-break).</p>",
        _head_to_head(summary),
        _same_games(summary),
        "<h2>Findings</h2>",
        _findings(summary),
        "<p class=note>Each variant is compared with the first on paired games (same bots, seed and seats); a pair "
        "whose two games another pair repeats move for move counts once. Win, draw and rout rates: McNemar's exact "
        "test on the pairs that flipped; counts: a t interval, and the exact sign test on the pairs that differ "
        "(Wilcoxon's signed-rank from 50 differing pairs). Highlighted: clear (p &lt; 0.05 and a 95% interval that "
        "leaves out 0). Untested: no decision of the rule the variant changes would have gone the other way, so its "
        "games say nothing about it.</p>",
        "<h2>Did the changed rules come into play?</h2>",
        _coverage(summary) or "<p class=note>One variant only.</p>",
    ]
    if pairings:
        parts += [
            "<h2>Bots by variant</h2>",
            _matrix(summary),
            _by_pairing(summary),
            "<p class=note>Each pairing plays every variant on the same seeds and seats. Under each rate: the "
            "paired difference with the first variant and its 95% interval; unfold a pairing for every "
            "outcome.</p>",
        ]
    parts += [
        "<h2>Per variant</h2>",
        _table(summary),
        "<p class=note>Rates with their 95% Wilson interval in brackets. Seat 1 is player 1, who moves first "
        "under the fixed turn order (O1); other orders choose the first player each game turn.</p>",
        "<h2>How games ended</h2>",
        _ends_table(summary),
        "<h2>Warband by seat</h2>",
        _seat_table(summary),
        "<h2>Rules that fired</h2>",
        _rules_table(summary),
        "<p class=note>Share of games in which each rule decided something: a check rolled, a result applied, an "
        "action it governs taken or refused. A rule a bot avoided by asking first (a Run it was denied) "
        "is not seen.</p>",
        "<h2>Outcomes</h2>",
        _figure(
            plot_outcomes(summary),
            "Win rate of each warband, draws, and the first seat's win rate "
            "(dots: the rate; lines: its 95% Wilson interval).",
        ),
    ]
    diff = plot_differences(summary)
    if diff:
        parts += [
            "<h2>Differences between variants</h2>",
            _figure(
                diff,
                "Paired difference with the first variant: dot = mean, line = 95% interval; "
                "a filled dot is a clear difference. A difference that is the same in every pair "
                "is written out.",
            ),
        ]
    parts += [
        "<h2>Game length and routs</h2>",
        _figure(plot_lengths(summary), "Share of games by game turns played, and by the turn of the first rout."),
        "<h2>Treasure</h2>",
        _figure(plot_treasure(summary), "Tokens each warband holds when the game ends."),
        "<h2>Losses</h2>",
        _figure(plot_losses(summary), "Units lost per game, by unit type (the unit's name without its number)."),
        "<h2>Stalls and rule gaps</h2>",
        _gaps(summary),
        "</main></body></html>",
    ]
    return "\n".join(parts)
