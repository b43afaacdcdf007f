"""The ``speedheim`` commands that print what the engine answers (legal, replay, measure):
argument handling and output here, the answers in :mod:`game.engine`."""
