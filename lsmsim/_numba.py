"""numba, as lsmsim's kernels import it: without the half second numba spends importing scipy.linalg.

On its first compile or cache load, numba's CPU target imports `numba/np/arraymath.py`, whose module-level
`_HAVE_BLAS = _check_blas()` imports `scipy.linalg.cython_blas`: all of scipy.linalg and, through scipy's array-API
shim, numpy.f2py. That was 0.4-0.5 s of a 2 s `lsmsim run` on the AMD EPYC host (benchmarks/startup.py, issue 38),
paid by every command, sweep worker and test subprocess, for a flag that only chooses BLAS or a plain loop for the
inner product of `np.correlate` and `np.convolve`. No lsmsim kernel calls those or any BLAS routine, so arraymath is
imported here once with that import refused: `_HAVE_BLAS` is False in this process (numba's `np.correlate` and
`np.convolve` take the plain loop), while `np.dot` and `np.linalg` in anyone's numba code still work, as they import
scipy.linalg themselves when compiled (`numba.np.linalg.ensure_blas`). Where scipy.linalg is already loaded the
check costs nothing and nothing is changed.

Every kernel module imports numba through here (`from lsmsim._numba import njit, numba`).
"""

from __future__ import annotations

import sys

import numba
from numba import njit, prange

__all__ = ["njit", "numba", "prange"]

_BLAS = "scipy.linalg.cython_blas"


def _load_arraymath_without_scipy() -> None:
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules or _BLAS in sys.modules:
        return
    sys.modules[_BLAS] = None  # type: ignore[assignment]  # `import` of a None entry raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules[_BLAS]


_load_arraymath_without_scipy()
