"""Peak memory and time of the public per-anchor, pooled and in-batch losses on inputs of mixed dtype and
non-contiguous layout (issue 15's last row: "float32 negatives with float64 anchors; Fortran-ordered input:
silent full copy"). Not a test: run one case per process under ``/usr/bin/time -v`` and read its max RSS.

    /usr/bin/time -v python benchmarks/bench_input_layout.py CASE MiB

CASE: ``c64`` (C-contiguous float64 negatives: the baseline), ``mixed`` (float32 negatives, float64 anchors and
positives), ``fortran`` (Fortran-ordered float64 negatives), ``strided`` (float64 negatives as a view with
stride 2 in d), ``pool-fortran`` (pooled layout, Fortran-ordered float64 pool of MiB), ``batch-mixed``
(in-batch, B = 4096, d = 128, float32 anchors and float64 positives). MiB is the size of the big array. Prints the
input size, the CPU and wall seconds of a second call (the first compiles what it needs), the peak RSS of the
process before and after the calls as seen from inside (``resource``), and the warnings raised.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402

from infonce_bounds.numerics import api  # noqa: E402

K, D = 256, 64


def unit(rng, shape, dtype=np.float64, order="C"):
    """Random unit rows, generated a slab of the first axis at a time into the result (so that generating the
    input does not raise the process's peak memory above the input itself)."""
    x = np.empty(shape, dtype=dtype, order=order)
    step = max(1, (1 << 22) // int(np.prod(shape[1:])))
    for i in range(0, shape[0], step):
        y = rng.standard_normal((min(step, shape[0] - i), *shape[1:]))
        x[i : i + step] = y / np.linalg.norm(y, axis=-1, keepdims=True)
    return x


def inputs(case: str, mib: float, rng):
    """(function, args) for the case; the big array takes ``mib`` MiB."""
    big = int(mib * 2**20)
    if case in ("c64", "fortran", "strided"):
        n = big // (K * D * 8)
        a, p = unit(rng, (n, D)), unit(rng, (n, D))
        if case == "c64":
            ng = unit(rng, (n, K, D))
        elif case == "fortran":
            ng = unit(rng, (n, K, D), order="F")
        else:  # a (n, k, 2d) buffer of 2·MiB whose every other column is the negatives
            buf = np.empty((n, K, 2 * D))
            ng = buf[..., ::2]
            for i in range(0, n, 256):  # slab by slab: no (n, k, d) temporary raises the peak
                ng[i : i + 256] = unit(rng, (min(256, n - i), K, D))
        return api.infonce_loss, (a, p, ng, 0.1)
    if case == "mixed":
        n = big // (K * D * 4)
        return api.infonce_loss, (unit(rng, (n, D)), unit(rng, (n, D)), unit(rng, (n, K, D), np.float32), 0.1)
    if case == "pool-fortran":
        m = big // (D * 8)
        n = m // K
        pool = unit(rng, (m, D), order="F")
        idx = rng.integers(0, m, size=(n, K))
        return api.infonce_loss_pooled, (unit(rng, (n, D)), unit(rng, (n, D)), pool, idx, 0.1)
    if case == "batch-mixed":  # B fixed at 4096 (S is B × B): MiB is ignored
        return api.infonce_loss_in_batch, (unit(rng, (4096, 128), np.float32), unit(rng, (4096, 128)), 0.1)
    raise SystemExit(f"unknown case {case!r}")


def main() -> None:
    case, mib = sys.argv[1], float(sys.argv[2])
    rng = np.random.default_rng(0)
    fn, args = inputs(case, mib, rng)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        fn(*args)  # compiles every specialisation the call needs (the peak of a call is the same each time)
        rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn(*args)  # timed: the second call
        c1, w1 = time.process_time(), time.perf_counter()
    size = sum(x.nbytes for x in args if isinstance(x, np.ndarray)) / 2**20
    print(
        f"{case}: inputs {size:.0f} MiB, call {c1 - c0:.2f} s CPU / {w1 - w0:.2f} s wall, "
        f"peak RSS {rss0:.0f} MiB before the call, {rss1:.0f} MiB after; mean loss {float(np.mean(out)):.6f}"
    )
    for w in {(w.category.__name__, str(w.message)) for w in rec}:
        print(f"  {w[0]}: {w[1]}")


if __name__ == "__main__":
    main()
