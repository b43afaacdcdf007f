"""numpy's loops are the same on every machine (game/__init__.py): importing the package
asks numpy not to use its AVX-512 loops, whose sin, cos and arctan2 round some last bits
unlike its other loops and numba's kernels (tests/test_geom.py and tests/test_kernels.py
compare those bit for bit), unless the user has set ``NPY_DISABLE_CPU_FEATURES``."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys

import pytest

import game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE = (
    "import os, json, game, numpy\n"
    "try:\n"
    "    from numpy._core._multiarray_umath import __cpu_features__ as f\n"
    "except ImportError:\n"
    "    from numpy.core._multiarray_umath import __cpu_features__ as f\n"
    "print(json.dumps([os.environ.get('NPY_DISABLE_CPU_FEATURES'), f.get('AVX512_SKX', False)]))\n"
)
X86 = platform.machine().lower() in ("x86_64", "amd64")


def _probe(value: str | None) -> tuple[str | None, bool]:
    env = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
    if value is not None:
        env["NPY_DISABLE_CPU_FEATURES"] = value
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    seen, avx512 = json.loads(out.stdout.strip().splitlines()[-1])
    return seen, avx512


@pytest.mark.skipif(not X86, reason="the setting is for x86 machines")
def test_importing_the_package_turns_numpy_s_avx512_loops_off():
    seen, avx512 = _probe(None)
    assert seen == game.NUMPY_SAME_EVERYWHERE
    assert avx512 is False  # on a machine with AVX-512 too


def test_a_value_the_user_set_is_kept():
    seen, _avx512 = _probe("")
    assert seen == ""
