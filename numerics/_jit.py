"""The one compile policy of the numeric kernels: ``kernel``, ``helper`` and ``dot_helper``.

Every compiled function of ``numerics`` is made by one of the three decorators below, so the
policy is stated once:

* ``cache=True`` everywhere: the kernels live in real source files (the scalar closing formulas
  are *generated into committed files*, ``numerics/_generated/``), so numba's on-disk cache works
  and a second process does not recompile. The cache goes where numba puts it (or
  ``NUMBA_CACHE_DIR``); nothing here writes or deletes files, and nothing sets the environment
  (``numerics._env`` holds the settings the CLI applies).
* Consistent dispatch instead of eager signatures: the Python boundary (``numerics.validate``)
  hands every kernel C-contiguous ``float64`` or ``float32`` small (n, d) arrays of one dtype, the big
  array of the call (negatives, pool) in its own dtype and strides (no copy), integer index arrays
  and Python ``float`` scalars, so a kernel is compiled once per combination actually used (C float64
  and float32 inputs as before; float32 or non-C negatives beside them add one each; exponentials,
  sums and logarithms are always float64). Lazy dispatch keeps ``import numerics`` cheap for the CLI;
  ``SIGNATURES`` documents what is compiled.
* ``parallel=True`` only on the entry kernels, with ``prange`` over anchors (rows) writing private
  outputs; any reduction over anchors is done afterwards, serially, in a fixed order.
* ``error_model="numpy"``: division by zero gives inf/NaN instead of a Python exception (no
  inputs reach a kernel that could do it: the boundary validates them).
* ``fastmath`` is **off** (``nnan``/``ninf`` would let LLVM drop the ``-inf``/overflow handling
  of the max-shifted log-sum-exp). The two exceptions are ``dot_helper`` (``reassoc`` + ``contract``)
  and ``poly_helper`` (``contract`` only); see their comments.
"""

from __future__ import annotations

import numba

from ._env import KERNEL_SOURCES  # noqa: F401  (re-exported: the files a cached kernel inlines)

#: what the boundary guarantees; one compiled specialisation per input dtype
SIGNATURES = (
    "float64 arrays (C-contiguous), float scalars",
    "float32 arrays (C-contiguous), float scalars",
    "C-contiguous small arrays with the big array (negatives, pool) float32 or float64, any strides",
)

#: the only fast-math flags used anywhere: ``dot_helper`` and ``poly_helper``
DOT_FASTMATH = frozenset({"reassoc", "contract"})
POLY_FASTMATH = frozenset({"contract"})


def kernel(fn=None, *, parallel: bool = True):
    """Entry kernel: ``njit(cache=True, parallel=parallel, error_model="numpy")``, fastmath off."""

    def wrap(f):
        return numba.njit(cache=True, parallel=parallel, error_model="numpy", nogil=True)(f)

    return wrap(fn) if fn is not None else wrap


def helper(fn):
    """Scalar / row helper called from kernels: ``njit(cache=True, error_model="numpy")``, fastmath off."""
    return numba.njit(cache=True, error_model="numpy", nogil=True)(fn)


def dot_helper(fn):
    """Dot-product helper: the only place fast-math flags are allowed, and only ``reassoc`` + ``contract``.

    Why: a strict (IEEE-ordered) sum is one serial dependency chain, so LLVM cannot vectorise it
    and the per-anchor kernel becomes compute-bound instead of memory-bound. ``reassoc`` lets it
    split the sum into vector lanes and ``contract`` lets it fuse multiply-add; both only change
    rounding (a float64 dot of length d keeps an error ≤ d·2⁻⁵³·Σ|a_t b_t|, the same bound as
    the serial order), never the handling of inf/NaN (``nnan``/``ninf``/``nsz``/``arcp``/``afn``
    stay off). tests/test_kernels.py compares the result with an mpmath reference.
    """
    return numba.njit(cache=True, error_model="numpy", nogil=True, fastmath=set(DOT_FASTMATH))(fn)


def poly_helper(fn):
    """Polynomial helper (the vectorised exponential): ``contract`` only, so ``p·r + c`` becomes one fused
    multiply-add.

    Why: the degree-13 Horner scheme of ``logsumexp.exp_terms`` is 13 dependent multiply-adds per
    entry; fused, it is half the instructions (measured 2.5× faster per entry) and each step rounds
    once instead of twice, so the result is at least as accurate (tests/test_kernels.py compares it
    with mpmath). No reassociation (the evaluation order of the reduction x = n ln 2 + r is exact by
    construction and must stay as written) and no ``nnan``/``ninf``.
    """
    return numba.njit(cache=True, error_model="numpy", nogil=True, fastmath=set(POLY_FASTMATH))(fn)


def set_threads(n: int) -> int:
    """Set numba's thread count (1 ≤ n ≤ numba.config.NUMBA_NUM_THREADS); returns the previous count."""
    prev = numba.get_num_threads()
    numba.set_num_threads(int(n))
    return prev
