"""The pygame-ce user interface: a client of the engine (the engine never imports this)."""
