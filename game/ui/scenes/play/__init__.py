"""The play window's scene and its parts (see :mod:`game.ui.scenes.play.scene`)."""

from game.ui.scenes.play.drag import Drag, Preview
from game.ui.scenes.play.ruler import Anchor, Ruler
from game.ui.scenes.play.scene import PlayScene

__all__ = ["Anchor", "Drag", "PlayScene", "Preview", "Ruler"]
