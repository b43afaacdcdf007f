"""The map editor (issue 6): build, edit, validate and save scenario maps.

``document`` is pure Python (no pygame): the scenario being edited plus an undo/redo
stack. ``roster`` loads warband rosters. ``scene`` and ``app`` are the pygame window.
"""

import os as _os

# pygame prints a banner to stdout when it is first imported; the windows (play and the
# editor alike) keep stdout for what the commands print.
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
