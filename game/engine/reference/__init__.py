"""Slow, plain references that the fast rule answers are held to (tests, ``make fuzz``,
``tools/legality_answers.py``); nothing in play calls them.

- :mod:`.crowded`: random crowded tables (30-40 units, difficult ground, walls, rocks),
  with many bases at the very edge of difficult ground, where shortcuts break.
- :mod:`.engage`: E1 by brute force: an exact shortest path in the plain free space
  (extremitypathfinder, an independent method) with and without difficult ground, to
  sampled spots of the target's contact ring; the path found is then given to the
  engine as an explicit path, whose own verdict decides. :func:`.engage.disagreements`
  holds ``legal_actions``, ``why_illegal`` without a path and the best explicit path
  to one answer.
"""
