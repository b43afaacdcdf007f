"""Scenes of the table window: play, hand-over, winner, help (one scene per screen)."""
