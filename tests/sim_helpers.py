"""Stand-ins for game.sim.match.play used by the simulation tests. They live in a module of
their own so that spawned worker processes can import them by name."""

from __future__ import annotations

import os
import signal

from game.sim.match import play

#: A file whose absence makes ``die_once`` kill its worker (set by the test).
MARKER = "SPEEDHEIM_TEST_DIE_MARKER"


def die_once(job, keep_log=False):
    """Kill the worker process the first time seed 2 is played (the marker file records it)."""
    marker = os.environ[MARKER]
    if job.seed == 2 and not os.path.exists(marker):
        with open(marker, "w") as f:
            f.write("killed\n")
        os.kill(os.getpid(), signal.SIGKILL)
    return play(job, keep_log)


def fail_seed_1(job, keep_log=False):
    """A game with a bug: seed 1 raises."""
    if job.seed == 1:
        raise ValueError("a bug in seed 1")
    return play(job, keep_log)


def fail_all(job, keep_log=False):
    """A bug in every game."""
    raise ValueError(f"a bug in seed {job.seed}")
