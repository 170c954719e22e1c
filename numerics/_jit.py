"""The one compile policy of the numeric kernels: ``kernel``, ``helper`` and ``dot_helper``.

Every compiled function of ``numerics`` is made by one of the three decorators below, so the
policy is stated once:

* ``cache=True`` everywhere: the kernels live in real source files (the scalar closing formulas
  are *generated into committed files*, ``numerics/_generated/``), so numba's on-disk cache works
  and a second process does not recompile.
* Consistent dispatch instead of eager signatures: the Python boundary (``numerics.validate``)
  hands every kernel C-contiguous ``float64`` or ``float32`` arrays, ``int64`` index arrays and
  Python ``float`` scalars, so each kernel is compiled exactly once per input dtype (two
  signatures: float64 and float32 inputs; accumulation is always float64). Lazy dispatch keeps
  ``import numerics`` cheap for the CLI; ``SIGNATURES`` documents what is compiled.
* ``parallel=True`` only on the entry kernels, with ``prange`` over anchors (rows) writing private
  outputs; any reduction over anchors is done afterwards, serially, in a fixed order.
* ``error_model="numpy"``: division by zero gives inf/NaN instead of a Python exception (no
  inputs reach a kernel that could do it: the boundary validates them).
* ``fastmath`` is **off** (``nnan``/``ninf`` would let LLVM drop the ``-inf``/overflow handling
  of the max-shifted log-sum-exp). The single exception is ``dot_helper``; see its comment.
"""

from __future__ import annotations

import os

# Thread wake-up policy, set before numba's OpenMP threading layer is first loaded (it reads the
# variable once). Why: libgomp's default spin-then-sleep workers busy-wait on the cores; on a shared
# or oversubscribed machine (2 cores, several processes) every parallel launch then waits for a
# scheduler time slice: measured 12 ms per launch with the default against 0.01 ms with "passive",
# and no change in the throughput of the large kernels. A user's own setting always wins.
if "OMP_WAIT_POLICY" not in os.environ and "NUMBA_THREADING_LAYER" not in os.environ:
    os.environ["OMP_WAIT_POLICY"] = "passive"

import hashlib  # noqa: E402
import pathlib  # noqa: E402

import numba  # noqa: E402

_ROOT = pathlib.Path(__file__).resolve().parent
#: every file whose code ends up inlined in a cached kernel
KERNEL_SOURCES = ("_jit.py", "logsumexp.py", "validate.py", "per_anchor.py", "pooled.py", "in_batch.py",
                  "_generated/constants.py")


def _guard_cache() -> None:
    """Drop numba's on-disk cache of the kernels when any kernel source file changed.

    Why: numba keys a cached function on the modification time of *its own* file only, so a kernel
    that inlines a helper (or a generated closing formula) from another file would keep stale machine
    code after that file is edited. One fingerprint of all kernel sources closes the gap. (With
    ``NUMBA_CACHE_DIR`` set, the cache lives elsewhere and is not touched.)
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    try:
        digest = hashlib.sha256(b"".join((_ROOT / f).read_bytes() for f in KERNEL_SOURCES)).hexdigest()
        stamp = _ROOT / "__pycache__" / "kernel-sources.sha256"
        if stamp.exists() and stamp.read_text() == digest:
            return
        for d in (_ROOT / "__pycache__", _ROOT / "_generated" / "__pycache__"):
            for f in list(d.glob("*.nbi")) + list(d.glob("*.nbc")):
                f.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # read-only install: numba then falls back to its own cache locator
        pass


_guard_cache()

#: what the boundary guarantees; one compiled specialisation per input dtype
SIGNATURES = ("float64 arrays (C-contiguous), float scalars", "float32 arrays (C-contiguous), float scalars")

#: the only fast-math flags used anywhere, and only in ``dot_helper``
DOT_FASTMATH = frozenset({"reassoc", "contract"})


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


def set_threads(n: int) -> int:
    """Set numba's thread count (1 ≤ n ≤ numba.config.NUMBA_NUM_THREADS); returns the previous count."""
    prev = numba.get_num_threads()
    numba.set_num_threads(int(n))
    return prev
