"""Speedheim Table: a desktop digital tabletop for the skirmish wargame Speedheim.

``game.engine`` is the pure rules engine (no pygame). ``game.ui`` draws it.
``game.bundled`` finds the data shipped inside the package (maps, rulesets, fonts).
"""

import os as _os
import platform as _platform

#: numpy's AVX-512 loops for sin, cos, arctan2 and the like (SVML, on machines that have
#: AVX-512) round the last bit of some results unlike its other loops, and unlike numba's
#: compiled kernels: a tangent, so a path, an Engage answer or a bot's game, could then
#: depend on the machine. The package asks numpy for the same loops on every x86 machine.
#: numpy reads this once, when it is first imported (after that it changes nothing); a
#: value the user has set is kept.
NUMPY_SAME_EVERYWHERE = "AVX512F AVX512CD AVX512_KNL AVX512_KNM AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR"
if _platform.machine().lower() in ("x86_64", "amd64"):
    _os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", NUMPY_SAME_EVERYWHERE)
