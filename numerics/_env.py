"""Process settings that make the kernels fast on a small shared machine, applied by the CLI only.

The library sets nothing on import; a library user exports these before starting Python (README,
"Environment"). Why each helps:

* ``OMP_WAIT_POLICY=passive``: libgomp's spin-then-sleep workers busy-wait on the cores; on 2 shared
  cores every parallel launch then waits for a time slice (measured 12 ms per launch, 0.01 ms with
  "passive"), with no change in the throughput of the large kernels.
* ``OPENBLAS_THREAD_TIMEOUT=4``: OpenBLAS workers spin ~0.1 s after every call and take the cores from
  the numba row pass that follows (measured 35 ms of CPU per in-batch ``np.dot``, the loss 1.3× slower).
  OpenBLAS reads it once, when numpy loads, so it must be set before numpy is imported.
* ``NUMBA_CACHE_DIR``: numba keys a cached kernel on its own file's time stamp only, so a kernel that
  inlines a helper from another file would keep stale machine code after that file changed (an
  editable install being edited). The CLI gives the cache a directory named after a fingerprint of
  every kernel source, under the user's cache directory, so a changed source means a fresh cache.
"""

from __future__ import annotations

import hashlib
import os
import pathlib

_ROOT = pathlib.Path(__file__).resolve().parent
#: every file whose code ends up inlined in a cached kernel
KERNEL_SOURCES = (
    "_jit.py",
    "logsumexp.py",
    "validate.py",
    "per_anchor.py",
    "pooled.py",
    "in_batch.py",
    "data_bounds.py",
    "_generated/constants.py",
)


def kernel_fingerprint() -> str:
    """SHA-256 (first 16 hex digits) of the kernel sources, in ``KERNEL_SOURCES`` order."""
    h = hashlib.sha256()
    for f in KERNEL_SOURCES:
        h.update((_ROOT / f).read_bytes())
    return h.hexdigest()[:16]


def cache_dir() -> pathlib.Path:
    """``$XDG_CACHE_HOME/infonce-bounds/numba-<fingerprint>`` (``~/.cache`` when XDG_CACHE_HOME is unset)."""
    base = pathlib.Path(os.environ.get("XDG_CACHE_HOME") or pathlib.Path.home() / ".cache")
    return base / "infonce-bounds" / f"numba-{kernel_fingerprint()}"


def apply_cli_defaults() -> None:
    """Set the three variables above where the user has not; call before numpy or numba is imported."""
    if "OMP_WAIT_POLICY" not in os.environ and "NUMBA_THREADING_LAYER" not in os.environ:
        os.environ["OMP_WAIT_POLICY"] = "passive"
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    if not os.environ.get("NUMBA_CACHE_DIR"):
        try:
            d = cache_dir()
            d.mkdir(parents=True, exist_ok=True)
        except OSError:  # no writable cache home: numba's own locator decides
            return
        os.environ["NUMBA_CACHE_DIR"] = str(d)
