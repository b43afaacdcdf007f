"""Drawing the table: the board painter and the headless PNG render.

:class:`BoardPainter` draws a scenario and a game state onto any pygame surface through
a :class:`~game.ui.camera.Camera` (the only place that converts inches and pixels). It
caches the static layer (:mod:`game.ui.terrain_layer`: ground, terrain, grid, height
labels, ladders, deployment zones) per camera scale and redraws only tokens and units
(:mod:`game.ui.pieces`) every frame. Drawing never changes the game state.

Used by ``speedheim render`` (:func:`render_cli`), the play window and the map editor::

    camera = Camera(scale=40, offset=(30, 60))
    painter = BoardPainter(scenario, board)
    painter.draw(surface, camera, state, reveal=False, selected="red-captain")
    render_png(scenario, state, "out.png", reveal=False, width=1600)

Works without a display: surfaces and fonts need no window, and if there is no
``DISPLAY`` the SDL video driver is set to ``dummy`` before pygame is imported.
"""

from __future__ import annotations

import math
import os
import struct
import sys
import zlib
from typing import Iterable

if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

import numpy as np  # noqa: E402
import pygame  # noqa: E402

from game.engine.errors import LoadError  # noqa: E402
from game.engine.geometry import Board  # noqa: E402
from game.engine.files import atomic_write  # noqa: E402
from game.engine.model import GameState, Scenario  # noqa: E402
from game.ui import theme  # noqa: E402
from game.ui.camera import Camera  # noqa: E402,F401 - the painter's camera, imported from here by callers
from game.ui.draw import text_at  # noqa: E402
from game.ui.legend import Legend, scale_bar  # noqa: E402
from game.ui.pieces import PiecePainter  # noqa: E402
from game.ui.table_shapes import abbrev, ladder_lines, terrain_pieces, unit_labels  # noqa: E402
from game.ui.terrain_layer import TerrainLayer  # noqa: E402
from game.ui.theme import Colour  # noqa: E402

#: Largest static layer kept for the whole table (pixels); above it only the view is cached.
MAX_LAYER_PIXELS = 12_000_000
#: Default width of a PNG render, pixels.
DEFAULT_WIDTH = 1600
MIN_WIDTH, MAX_WIDTH = 400, 8000


class BoardPainter:
    """Draws one scenario's table through a :class:`Camera`; caches the static layer.

    ``BoardPainter(scenario, board)`` prepares label positions, ladder tops and unit
    labels once. :meth:`draw` paints the static layer (cached per camera scale) then
    tokens and units from ``state``. Call :meth:`invalidate` after changing the map
    (terrain, ladders, deployment, warbands), e.g. in the editor.

    Options (attributes, change them then call :meth:`invalidate`):
    ``show_grid``, ``show_deployment``, ``show_heights`` (height labels on terrain);
    ``token_labels`` (token ids, drawn after the units; no invalidate needed).

    The play window may call the layers one by one to put overlays between them:
    :meth:`draw_static`, then :meth:`draw_tokens`, then :meth:`draw_units`.
    """

    def __init__(
        self,
        scenario: Scenario,
        board: Board | None = None,
        *,
        show_grid: bool = True,
        show_deployment: bool = True,
        show_heights: bool = True,
    ):
        self.scenario = scenario
        self.board = board
        self.show_grid = show_grid
        self.show_deployment = show_deployment
        self.show_heights = show_heights
        self._layer: pygame.Surface | None = None
        self._layer_key: tuple | None = None
        self._layer_region: pygame.Rect | None = None
        self._prepared = False
        #: Draw token ids (after the units, so a unit in contact never hides them).
        self.token_labels = True
        self.invalidate()

    def invalidate(self) -> None:
        """Forget the cached layer and the precomputed shapes (call after the map changed)."""
        sc = self.scenario
        b = self.board
        # A board given to the constructor is used as it is; after that the map may have
        # changed in place (the editor), so invalidate() always re-indexes the terrain.
        if b is None or self._prepared or b.width != sc.width or b.height != sc.height or b.terrain != list(sc.terrain):
            self.board = Board(sc.width, sc.height, sc.terrain, use_height=b.use_height if b is not None else True)
        self._prepared = True
        self._layer = None
        self._layer_key = None
        #: Walls up to this height are crossed freely (M4): drawn low.
        self.free_height = float(sc.ruleset.free_height)
        pieces = terrain_pieces(sc, self.board)
        self.terrain = TerrainLayer(
            sc,
            pieces,
            ladder_lines(sc, pieces),
            self.free_height,
            self.warband_colour,
            grid=self.show_grid,
            deployment=self.show_deployment,
            heights=self.show_heights,
        )
        self.pieces = PiecePainter(self.board, self.warband_colour, self.unit_label)
        self.labels = unit_labels(sc)

    def warband_colour(self, warband_id: str) -> Colour:
        """The warband's colour (its ``colour`` field, else a default per player)."""
        try:
            w = self.scenario.warband(warband_id)
        except KeyError:
            return theme.PLAYER_COLOURS[0]
        c = theme.hex_colour(w.colour)
        if c is not None:
            return c
        if w.player in theme.PLAYER_COLOURS:
            return theme.PLAYER_COLOURS[w.player]
        return theme.EXTRA_COLOURS[w.player % len(theme.EXTRA_COLOURS)]

    def unit_label(self, uid: str) -> str:
        label = self.labels.get(uid)
        if label is None:
            self.labels = unit_labels(self.scenario)
            label = self.labels.get(uid, abbrev(uid))
        return label

    # --- drawing --------------------------------------------------------------------------
    def draw(
        self,
        surface: pygame.Surface,
        camera: Camera,
        state: GameState | None = None,
        reveal: bool = False,
        selected: str | Iterable[str] | None = None,
        hidden_events: bool = True,
    ) -> None:
        """Paint the table, tokens and units of ``state`` (default: the starting state).

        ``reveal`` shows what every token hides (designer view, ``--reveal``); tokens
        already revealed in play (``token.revealed``) always show. ``hidden_events=False``
        is the same as ``reveal=True``. ``selected`` is a unit id or ids to ring.
        Never changes ``state``.
        """
        state = state if state is not None else self.scenario.state
        self.draw_static(surface, camera)
        show_hidden = reveal or not hidden_events
        self.draw_tokens(surface, camera, state, show_hidden)
        self.draw_units(surface, camera, state, selected)

    def draw_static(self, surface: pygame.Surface, camera: Camera) -> None:
        """The cached static layer: ground, deployment, terrain, grid, heights, ladders.

        The layer is kept per scale (and sub-pixel offset), so panning by whole pixels
        only blits it. A table too big to cache whole at this zoom is cached around the
        view, with half a screen of margin on every side, and rebuilt when the view
        leaves that region.
        """
        sw, sh = surface.get_size()
        s = camera.scale
        ox, oy = camera.offset
        ix, iy = math.floor(ox), math.floor(oy)
        fx, fy = ox - ix, oy - iy
        # Rectangles below are in "table pixels": (0, 0) is the table's top-left corner.
        full = pygame.Rect(
            0, 0, math.ceil(self.scenario.width * s + fx) + 1, math.ceil(self.scenario.height * s + fy) + 1
        )
        if full.w * full.h <= MAX_LAYER_PIXELS:
            needed = full
        else:
            needed = pygame.Rect(-ix, -iy, sw, sh).clip(full)
            if needed.w <= 0 or needed.h <= 0:
                return
        key = (round(s, 6), round(fx, 3), round(fy, 3))
        region = self._layer_region if self._layer is not None else None
        if self._layer is None or self._layer_key != key or region is None or not region.contains(needed):
            region = full if needed is full else needed.inflate(sw, sh).clip(full)
            self._layer = self.terrain.build(region.size, Camera(s, (fx - region.x, fy - region.y)))
            self._layer_key = key
            self._layer_region = region
        surface.blit(self._layer, (ix + region.x, iy + region.y))

    def draw_edge_numbers(self, surface: pygame.Surface, camera: Camera, sides: str = "tlbr") -> None:
        """Inch numbers just outside the table edges (every 6", plus 1" ticks).

        ``sides`` picks the edges: t(op), l(eft), b(ottom), r(ight).
        """
        sc = self.scenario
        s = camera.scale
        size = max(9, min(16, round(s * 0.36)))
        x0, y0 = camera.to_px(0, 0)
        x1, y1 = camera.to_px(sc.width, sc.height)
        every = 1 if s >= 40 else (2 if s >= 22 else theme.GRID_EVERY)
        for i in range(int(math.floor(sc.width)) + 1):
            x = x0 + i * s
            major = i % theme.GRID_EVERY == 0
            tick = 7 if major else 3
            if "t" in sides:
                pygame.draw.line(surface, theme.INK, (x, y0 - 2), (x, y0 - 2 - tick), 2 if major else 1)
            if "b" in sides:
                pygame.draw.line(surface, theme.INK, (x, y1 + 2), (x, y1 + 2 + tick), 2 if major else 1)
            if i % every == 0:
                style = "bold" if major else "regular"
                if "t" in sides:
                    text_at(
                        surface,
                        str(i),
                        (x, y0 - 11),
                        size,
                        theme.INK if major else theme.INK_SOFT,
                        style,
                        anchor="midbottom",
                    )
                if "b" in sides:
                    text_at(
                        surface,
                        str(i),
                        (x, y1 + 11),
                        size,
                        theme.INK if major else theme.INK_SOFT,
                        style,
                        anchor="midtop",
                    )
        for j in range(int(math.floor(sc.height)) + 1):
            y = y0 + j * s
            major = j % theme.GRID_EVERY == 0
            tick = 7 if major else 3
            if "l" in sides:
                pygame.draw.line(surface, theme.INK, (x0 - 2, y), (x0 - 2 - tick, y), 2 if major else 1)
            if "r" in sides:
                pygame.draw.line(surface, theme.INK, (x1 + 2, y), (x1 + 2 + tick, y), 2 if major else 1)
            if j % every == 0:
                style = "bold" if major else "regular"
                if "l" in sides:
                    text_at(
                        surface,
                        str(j),
                        (x0 - 12, y),
                        size,
                        theme.INK if major else theme.INK_SOFT,
                        style,
                        anchor="midright",
                    )
                if "r" in sides:
                    text_at(
                        surface,
                        str(j),
                        (x1 + 12, y),
                        size,
                        theme.INK if major else theme.INK_SOFT,
                        style,
                        anchor="midleft",
                    )

    def draw_trails(self, surface: pygame.Surface, camera: Camera, state: GameState) -> None:
        """The paths units moved this turn (``unit.trail``), light lines in their colour."""
        for u in state.units.values():
            if not u.trail or not u.on_table:
                continue
            colour = theme.mix(self.warband_colour(u.warband), (255, 255, 255), 0.45)
            for path in u.trail:
                pts = camera.points_px(path)
                if len(pts) > 1:
                    pygame.draw.lines(surface, theme.mix(colour, (0, 0, 0), 0.5), False, pts, 5)
                    pygame.draw.lines(surface, colour, False, pts, 3)
                    pygame.draw.circle(surface, colour, pts[0], 4, 2)

    def draw_tokens(self, surface: pygame.Surface, camera: Camera, state: GameState, show_hidden: bool = False) -> None:
        """Treasure tokens on the ground (carried ones are drawn on their carrier)."""
        self.pieces.draw_tokens(surface, camera, state, show_hidden)

    def draw_units(
        self,
        surface: pygame.Surface,
        camera: Camera,
        state: GameState,
        selected: str | Iterable[str] | None = None,
        skip: Iterable[str] = (),
    ) -> None:
        """Units on the table (and then the token ids); ``skip``: units drawn elsewhere."""
        self.pieces.draw_units(surface, camera, state, selected, self.token_labels, skip)

    def draw_unit(
        self, surface: pygame.Surface, camera: Camera, unit, state: GameState, selected: bool = False
    ) -> None:
        """One unit where ``unit`` says (an animated copy)."""
        self.pieces.draw_unit(surface, camera, unit, state, selected)


# --- the PNG render ----------------------------------------------------------------------------------


def render_surface(
    scenario: Scenario,
    state: GameState | None = None,
    reveal: bool = False,
    width: int | None = None,
    board: Board | None = None,
    painter: BoardPainter | None = None,
    trails: bool = True,
    under_units=None,
    over_units=None,
) -> tuple[pygame.Surface, Camera]:
    """The whole picture (title, table with numbered edges, scale bar, legend and roster).

    ``trails`` draws the paths moved this turn (after ``--actions``). ``under_units`` and
    ``over_units``: extra layers, ``f(surface, camera)``, drawn before and after the units
    (the line of sight of ``--los``).

    Returns the surface and the camera used for the table (tests probe pixels with it).
    """
    state = state if state is not None else scenario.state
    width = int(width or DEFAULT_WIDTH)
    painter = painter or BoardPainter(scenario, board)
    panel_w = max(280, min(440, int(width * 0.25)))
    margin = 34 if width >= 900 else 26
    title_h = 62
    table_w_px = width - panel_w - 2 * margin - 10
    scale = table_w_px / scenario.width
    table_h_px = scenario.height * scale
    max_h = width * 1.6
    if table_h_px > max_h:  # a very long table: keep the picture reasonable
        scale = max_h / scenario.height
        table_h_px = max_h
    scalebar_h = 46
    body_h = margin + table_h_px + margin + scalebar_h
    legend = Legend(
        painter.terrain,
        painter.pieces,
        painter.warband_colour,
        painter.unit_label,
        scenario,
        state,
        reveal,
        panel_w - 20,
    )
    height = int(max(title_h + body_h, title_h + legend.height + 20))
    surface = pygame.Surface((width, height))
    surface.fill(theme.PAGE)
    camera = Camera(scale, (margin, title_h + margin))
    # Title and subtitle.
    text_at(surface, scenario.name, (margin - 8, 10), 26, theme.INK, "bold", anchor="topleft")
    parts = [
        f'{scenario.width:g}" x {scenario.height:g}" table',
        f"turn {state.turn}, player {state.player}, {state.phase}",
    ]
    if state.step:
        parts[-1] += f" ({state.step})"
    if state.winner:
        parts.append(f"winner: {state.winner}")
    parts.append("REVEALED: what tokens hide is shown" if reveal else "what tokens hide is not shown")
    if scenario.file:
        parts.append(os.path.basename(scenario.file))
    text_at(surface, "  |  ".join(parts), (margin - 8, 40), 14, theme.INK_SOFT, "regular", anchor="topleft")
    painter.draw_static(surface, camera)
    if trails:
        painter.draw_trails(surface, camera, state)
    painter.draw_tokens(surface, camera, state, reveal)
    if under_units:
        under_units(surface, camera)
    painter.draw_units(surface, camera, state)
    if over_units:
        over_units(surface, camera)
    painter.draw_edge_numbers(surface, camera)
    scale_bar(surface, camera, (margin, title_h + margin + table_h_px + margin + 6), scenario)
    legend.draw(surface, (width - panel_w, title_h))
    return surface, camera


def encode_png(surface: pygame.Surface, level: int = 3) -> bytes:
    """The surface as PNG bytes (RGB, 8 bits). Our own few lines: pygame's encoder uses
    the slowest zlib level, about 4x slower on a table picture for a 15% smaller file."""
    w, h = surface.get_size()
    raw = pygame.image.tobytes(surface, "RGB")
    rows = np.zeros((h, w * 3 + 1), dtype=np.uint8)  # each row: filter byte 0, then the pixels
    rows[:, 1:] = np.frombuffer(raw, dtype=np.uint8).reshape(h, w * 3)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows.tobytes(), level))
        + chunk(b"IEND", b"")
    )


def save_png(surface: pygame.Surface, out_path: str) -> None:
    """Write a PNG atomically (temporary file + rename), whatever the file's extension."""
    atomic_write(out_path, encode_png(surface))


def render_png(
    scenario: Scenario,
    state: GameState | None,
    out_path: str,
    reveal: bool = False,
    width: int | None = None,
    board: Board | None = None,
    los: str | None = None,
) -> tuple[int, int]:
    """Render the table to a PNG file; returns the image size (width, height). ``los``: a
    unit id whose line of sight is drawn (game.ui.sight_layer)."""
    layers = {}
    if los is not None:
        from game.ui.sight_layer import los_layers

        layers = los_layers(scenario, state if state is not None else scenario.state, los, board)
    surface, _ = render_surface(scenario, state, reveal=reveal, width=width, board=board, **layers)
    save_png(surface, out_path)
    return surface.get_size()


def _replay(scenario: Scenario, actions_path: str) -> GameState:
    """Apply an action script to the scenario, as ``speedheim replay`` does (the engine's
    one replay loop). Illegal actions are reported on stderr with their line and skipped,
    not fatal. Raises LoadError for a bad script."""
    from game.engine.actions import load_script
    from game.engine.game import Game
    from game.engine.replay import dice_for

    script = load_script(actions_path)
    game = Game(scenario, dice=dice_for(script), history=False)
    for i, result in game.replay(script.actions):
        if not result.ok:
            print(
                f"{actions_path}:{script.lines[i]}: action {i + 1} skipped, illegal {result.rule}: {result.reason}",
                file=sys.stderr,
            )
    return game.state


def render_cli(
    scenario_path: str,
    out_path: str,
    actions: str | None = None,
    reveal: bool = False,
    width: int | None = None,
    los: str | None = None,
) -> int:
    """``speedheim render SCENARIO -o OUT.png [--actions A] [--reveal] [--width N] [--los UNIT]``: 0, or 2."""
    if width is not None and not (MIN_WIDTH <= width <= MAX_WIDTH):
        print(
            f"speedheim render: --width must be between {MIN_WIDTH} and {MAX_WIDTH} pixels, not {width}",
            file=sys.stderr,
        )
        return 2
    try:
        from game.engine.scenario import load_scenario

        scenario = load_scenario(scenario_path)
    except LoadError as exc:
        return exc.report()
    state = scenario.state
    if actions:
        try:
            state = _replay(scenario, actions)
        except LoadError as exc:
            return exc.report()
        except Exception as exc:  # the engine's bug must not become a traceback either
            print(
                f"speedheim render: internal error while replaying {actions} ({type(exc).__name__}: {exc}); "
                "please report it",
                file=sys.stderr,
            )
            return 2
    if los is not None and not (los in state.units and state.units[los].on_table):
        print(
            f"speedheim render: --los {los!r} is not a unit on the table "
            f"(units: {', '.join(sorted(state.units)[:12])})",
            file=sys.stderr,
        )
        return 2
    directory = os.path.dirname(os.path.abspath(out_path))
    if not os.path.isdir(directory):
        print(f"speedheim render: cannot write {out_path}: folder {directory} does not exist", file=sys.stderr)
        return 2
    try:
        w, h = render_png(scenario, state, out_path, reveal=reveal, width=width, los=los)
    except (OSError, pygame.error) as exc:
        print(f"speedheim render: cannot write {out_path}: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug of ours must not become a traceback for the user
        print(
            f"speedheim render: internal error while drawing {scenario_path} ({type(exc).__name__}: {exc}); "
            "please report it",
            file=sys.stderr,
        )
        return 2
    print(f"{out_path}: {w}x{h} png")
    return 0
