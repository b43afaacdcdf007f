"""The right panel's hand-drawn part: the title, the warbands with what is left to
place, and the live problems (exactly ``speedheim check``); clicking a problem selects
and highlights the item it names."""

from __future__ import annotations

import os

import pygame

from game.editor.document import Finding
from game.editor.host import EditorHost
from game.ui import theme
from game.ui.draw import get_font


PROBLEM_TEXT = (140, 20, 20)
PROBLEM_ROW = (255, 220, 220)


def wrap(text: str, font: pygame.font.Font, width: int) -> list[str]:
    words = text.split()
    lines, cur = [], ""
    for word in words:
        test = f"{cur} {word}".strip()
        if font.size(test)[0] <= width or not cur:
            cur = test
        else:
            lines.append(cur)
            cur = word
    if cur:
        lines.append(cur)
    return lines or [""]


class ProblemsPanel:
    def __init__(self, scene: EditorHost):
        self.scene = scene
        #: Where each problem was drawn, for clicks.
        self.rects: list[tuple[pygame.Rect, Finding]] = []

    def finding_at(self, pos) -> Finding | None:
        for r, finding in self.rects:
            if r.collidepoint(pos):
                return finding
        return None

    def focus(self, finding: Finding) -> None:
        scene = self.scene
        if finding.ref is not None and scene.doc.exists(finding.ref):
            scene.select([finding.ref])
            scene.highlight = finding.ref
            scene.say(f"line {finding.problem.line}: {finding.message}", bad=True)
        elif finding.unread:
            scene.say(f"line {finding.problem.line}: not read, kept as written: {finding.message}", bad=True)
        else:
            scene.say(f"line {finding.problem.line}: {finding.message} (the whole map)", bad=True)

    def _text(self, surface, text: str, pos, size: int = 13, colour=theme.INK, bold: bool = False) -> int:
        img = get_font(size, "bold" if bold else "regular").render(text, True, colour)
        surface.blit(img, pos)
        return img.get_height()

    def draw(self, surface: pygame.Surface, top: int) -> None:
        """Title, warbands and problems; the properties fields sit above ``top``."""
        scene = self.scene
        p, d = scene.panel, scene.doc
        surface.fill(theme.PANEL_BG, p)
        pygame.draw.line(surface, theme.INK, p.topleft, p.bottomleft, 2)
        x = p.x + 10
        sel = scene.selection
        title = "Map" if not sel else (f"{sel[0][0]} {sel[0][1]}" if len(sel) == 1 else f"{len(sel)} items")
        self._text(surface, title, (x, 8), 15, bold=True)
        y = max(top, 40) + 6
        if scene.tool in ("unit", "zone") or not sel:
            y = self.draw_warbands(surface, x, y)
        findings = d.validate()
        top = max(y, p.h // 2 - 40)
        pygame.draw.line(surface, theme.INK_SOFT, (x, top - 4), (p.right - 10, top - 4), 1)
        if findings:
            self._text(surface, f"{len(findings)} problem(s) (click one):", (x, top), 14, theme.PROBLEM, bold=True)
        else:
            self._text(surface, "No problems: speedheim check passes", (x, top), 14, theme.GOOD, bold=True)
        self._text(surface, f"checked in {d.last_validation_ms:.0f} ms", (x, top + 18), 11, theme.INK_SOFT)
        y = top + 36
        f = get_font(12, "regular")
        unread = sum(1 for fd in findings if fd.unread)
        if unread:
            note = (
                f"{unread} of them in items the editor could not read (marked 'not read'): saving keeps "
                "them as written; fix them by hand in the file"
            )
            for ln in wrap(note, f, p.w - 24):
                surface.blit(f.render(ln, True, theme.INK_SOFT), (x, y))
                y += 16
            y += 4
        self.rects = []
        name = os.path.basename(d.path or "untitled.yaml")
        for i, fd in enumerate(findings):
            if y > p.bottom - 36:
                self._text(
                    surface,
                    f"... and {len(findings) - i} more (speedheim check {name} lists all)",
                    (x, y),
                    12,
                    PROBLEM_TEXT,
                    bold=True,
                )
                break
            mark = "not read: " if fd.unread else ""
            lines = wrap(f"{name}:{fd.problem.line}: {mark}{fd.message}", f, p.w - 24)
            r = pygame.Rect(x - 4, y - 1, p.w - 12, 16 * len(lines) + 2)
            if fd.ref is not None and fd.ref == scene.highlight:
                surface.fill(PROBLEM_ROW, r)
            for ln in lines:
                surface.blit(f.render(ln, True, PROBLEM_TEXT), (x, y))
                y += 16
            self.rects.append((r, fd))
            y += 4

    def draw_warbands(self, surface: pygame.Surface, x: int, y: int) -> int:
        """Each warband (the active one marked) and, with the unit tool, what is left to place."""
        scene = self.scene
        d = scene.doc
        for w in d.sc.warbands:
            n = len(d.sc.state.units_of(w.id))
            zone = "zone" if w.id in d.sc.deployment else "no zone"
            mark = ">" if w.id == scene.warband else " "
            y += (
                self._text(
                    surface,
                    f"{mark} {w.id} (player {w.player}): {n} units, {zone}",
                    (x, y),
                    13,
                    scene.painter.warband_colour(w.id),
                    bold=w.id == scene.warband,
                )
                + 2
            )
        if scene.warband and scene.tool == "unit":
            for i, (e, left) in enumerate(d.to_place(scene.warband)):
                mark = ">" if i == scene.entry else " "
                y += (
                    self._text(
                        surface,
                        f"   {mark} {e.name} {e.base_mm:g}mm  {left} left",
                        (x, y),
                        12,
                        theme.INK if left else theme.INK_SOFT,
                        bold=i == scene.entry,
                    )
                    + 1
                )
        return y + 6
