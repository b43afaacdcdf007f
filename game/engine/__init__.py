"""The pure rules engine: models, loaders, geometry, movement and phases.

Nothing in this package imports pygame (tests/test_layout.py checks it).
"""
