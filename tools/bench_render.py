"""Render speed (issue 2): a full render of maps/stress.yaml in 300 ms or less.

``run()`` returns the rows for ``tools/bench.py``; ``python tools/bench_render.py`` prints them.
"Full render" = a fresh painter (no caches), the whole picture (title, table, legend,
roster, scale bar) at the default 1600 px width, and the PNG encoded to a file, i.e. what
``speedheim render maps/stress.yaml -o OUT.png`` does after loading the scenario.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from game.bundled import bundled_map  # noqa: E402

STRESS = bundled_map("stress.yaml")
TARGET_MS = 300.0
FRAME_TARGET_MS = 1000.0 / 60.0


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times)


def run() -> list[dict]:
    import pygame

    from game.engine.scenario import load_scenario
    from game.ui.render import BoardPainter, Camera, render_png, render_surface

    sc = load_scenario(STRESS)
    out = os.path.join(tempfile.mkdtemp(prefix="bench-render-"), "stress.png")
    render_png(sc, sc.state, out)  # warm up fonts
    full = _median_ms(lambda: render_png(sc, sc.state, out, reveal=True), 7)
    surface_only = _median_ms(lambda: render_surface(sc, sc.state, reveal=True), 7)
    painter = BoardPainter(sc)
    screen = pygame.Surface((1600, 1000))
    cam = Camera().fit(sc.width, sc.height, (0, 0, 1600, 1000), margin=20)
    painter.draw(screen, cam, sc.state)
    frame = _median_ms(lambda: painter.draw(screen, cam, sc.state, selected="north-01"), 30)
    os.unlink(out)
    return [
        {
            "name": "render: full PNG of stress.yaml (1600 px)",
            "value": round(full, 1),
            "unit": "ms",
            "target": f"<= {TARGET_MS:g} ms",
            "ok": full <= TARGET_MS,
        },
        {
            "name": "render: picture of stress.yaml, no PNG encode",
            "value": round(surface_only, 1),
            "unit": "ms",
            "target": f"<= {TARGET_MS:g} ms",
            "ok": surface_only <= TARGET_MS,
        },
        {
            "name": "render: one play-window frame of stress.yaml (cached terrain)",
            "value": round(frame, 2),
            "unit": "ms",
            "target": f"<= {FRAME_TARGET_MS:.1f} ms (60 fps)",
            "ok": frame <= FRAME_TARGET_MS,
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['name']:<64} {row['value']:>9.2f} {row['unit']:<4} "
            f"target {row['target']:<22} {'ok' if row['ok'] else 'SLOW'}"
        )
