"""Map editor speed (issue 6) on maps/stress.yaml.

* frame rate while dragging a terrain piece in the editor window (1280x800, dummy video
  driver): mouse-motion frames, each a full frame (events, update, draw, UI), target 60 fps;
* validation rerun after an edit (the live problems panel, the same checks as
  ``speedheim check``): move a piece or a unit, then ``Document.validate()``, target
  50 ms or less (median and worst of the runs).

``run()`` returns the rows for ``tools/bench.py``; ``python tools/bench_editor.py`` prints them.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from game.bundled import bundled_map  # noqa: E402

STRESS = bundled_map("stress.yaml")
FPS_TARGET = 60.0
VALIDATE_TARGET_MS = 50.0
DRAG_FRAMES = 120


def _drag_fps() -> float:
    import pygame

    from game.editor.app import open_editor
    from game.editor.document import Document
    from game.editor.driver import Driver
    from game.ui.app import App

    doc = Document.open(STRESS)
    app = App((1280, 800))
    open_editor(app, doc)
    d = Driver(app)
    piece = max(doc.sc.terrain, key=lambda t: len(t.polygon))
    from shapely.geometry import Polygon

    c = Polygon(piece.polygon).representative_point()
    start = d.px(c.x, c.y)
    d.key(pygame.K_v)
    d.frame(pygame.event.Event(pygame.MOUSEMOTION, pos=start, rel=(0, 0), buttons=(0, 0, 0)))
    d.frame(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=start, button=1))
    assert d.scene.selection and d.scene.tools.drag is not None, "the drag started on a piece"
    for i in range(5):  # warm up (ghost layer, fonts)
        d.frame(pygame.event.Event(pygame.MOUSEMOTION, pos=(start[0] + i, start[1]), rel=(1, 0), buttons=(1, 0, 0)))
    t0 = time.perf_counter()
    for i in range(DRAG_FRAMES):
        pos = (start[0] + 5 + i % 60, start[1] + (i // 60) * 3)
        d.frame(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(1, 0), buttons=(1, 0, 0)))
    elapsed = time.perf_counter() - t0
    d.frame(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))
    pygame.quit()
    return DRAG_FRAMES / elapsed


def _validation_ms() -> tuple[float, float]:
    from game.editor.document import Document

    import gc

    doc = Document.open(STRESS)
    doc.validate()  # the first full read of the map (when the editor opens)
    gc.collect()
    gc.freeze()  # as the editor window does once the map is open
    times = []
    units = list(doc.sc.state.units)
    for i in range(20):
        if i % 2 == 0:
            t = doc.sc.terrain[i % len(doc.sc.terrain)]
            doc.move([("terrain", t.id)], 0.25 if i % 4 == 0 else -0.25, 0)
        else:
            doc.move([("unit", units[i % len(units)])], 0, 0.1 if i % 4 == 1 else -0.1)
        t0 = time.perf_counter()
        doc.validate()
        times.append((time.perf_counter() - t0) * 1000.0)
    return statistics.median(times), max(times)


def run() -> list[dict]:
    fps = _drag_fps()
    med, worst = _validation_ms()
    return [
        {
            "name": "editor: drag a piece on stress.yaml",
            "value": round(fps, 1),
            "unit": "fps",
            "target": f">= {FPS_TARGET:g} fps",
            "ok": fps >= FPS_TARGET,
        },
        {
            "name": "editor: validation after an edit (median)",
            "value": round(med, 2),
            "unit": "ms",
            "target": f"<= {VALIDATE_TARGET_MS:g} ms",
            "ok": med <= VALIDATE_TARGET_MS,
        },
        {
            "name": "editor: validation after an edit (worst of 20)",
            "value": round(worst, 2),
            "unit": "ms",
            "target": f"<= {VALIDATE_TARGET_MS:g} ms",
            "ok": worst <= VALIDATE_TARGET_MS,
        },
    ]


if __name__ == "__main__":
    for row in run():
        print(
            f"{row['name']:<50} {row['value']:>9} {row['unit']:<4} "
            f"target {row['target']:<12} {'ok' if row['ok'] else 'SLOW'}"
        )
