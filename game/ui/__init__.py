"""The pygame-ce user interface: a client of the engine (the engine never imports this)."""

import os as _os

# pygame prints a banner to stdout when it is first imported; the windows (play and the
# editor alike) keep stdout for what the commands print.
_os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
