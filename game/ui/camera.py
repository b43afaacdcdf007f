"""The camera: inches <-> pixels, the only such conversion in the program.

The model works in inches (origin top-left, x right, y down). A :class:`Camera` maps
them onto a surface: ``px = offset + inches * scale``.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import pygame


class Camera:
    """Inches <-> pixels: ``px = offset + inches * scale``. The only such conversion.

    ``scale`` is pixels per inch; ``offset`` is the pixel position of the table's
    top-left corner (inch 0, 0) on the target surface.
    """

    MIN_SCALE = 2.0
    MAX_SCALE = 400.0

    def __init__(self, scale: float = 20.0, offset: tuple[float, float] = (0.0, 0.0)):
        self.scale = float(scale)
        self.offset = (float(offset[0]), float(offset[1]))

    def __repr__(self) -> str:
        return f"Camera(scale={self.scale:.3f}, offset=({self.offset[0]:.1f}, {self.offset[1]:.1f}))"

    def to_px(self, x: float, y: float) -> tuple[float, float]:
        """Pixel position of the inch point (x, y) (floats; round for pixel-exact work)."""
        return (self.offset[0] + x * self.scale, self.offset[1] + y * self.scale)

    def to_in(self, px: float, py: float) -> tuple[float, float]:
        """Inch point under the pixel (px, py)."""
        return ((px - self.offset[0]) / self.scale, (py - self.offset[1]) / self.scale)

    def length(self, inches: float) -> float:
        """A length in inches as pixels."""
        return inches * self.scale

    def inches(self, px: float) -> float:
        """A length in pixels as inches (a click tolerance, for instance)."""
        return px / self.scale

    def points_px(self, points: Iterable[Sequence[float]]) -> list[tuple[float, float]]:
        """Many inch points to pixels (polygons, paths)."""
        s, (ox, oy) = self.scale, self.offset
        return [(ox + p[0] * s, oy + p[1] * s) for p in points]

    def pan(self, dx_px: float, dy_px: float) -> "Camera":
        """Move the view by a pixel delta (drag with the mouse)."""
        self.offset = (self.offset[0] + dx_px, self.offset[1] + dy_px)
        return self

    def zoom_about(self, px: float, py: float, factor: float) -> "Camera":
        """Zoom by ``factor`` keeping the inch point under the pixel (px, py) fixed."""
        x, y = self.to_in(px, py)
        self.scale = min(self.MAX_SCALE, max(self.MIN_SCALE, self.scale * factor))
        self.offset = (px - x * self.scale, py - y * self.scale)
        return self

    def fit(self, table_w: float, table_h: float, view_rect, margin: float = 0.0) -> "Camera":
        """Scale and centre so a table_w x table_h table fills ``view_rect`` (x, y, w, h).

        ``margin`` pixels are kept free on every side. Returns self.
        """
        rx, ry, rw, rh = pygame.Rect(view_rect)
        aw, ah = max(1.0, rw - 2 * margin), max(1.0, rh - 2 * margin)
        self.scale = max(self.MIN_SCALE, min(aw / table_w, ah / table_h))
        self.offset = (rx + (rw - table_w * self.scale) / 2.0, ry + (rh - table_h * self.scale) / 2.0)
        return self

    def copy(self) -> "Camera":
        return Camera(self.scale, self.offset)
