"""Benchmark of the InfoNCE kernels against the peers a user would pick, measured in one run on the
same inputs (not a test).

    PYTHONPATH=. python benchmarks/bench_kernels.py            # issue sizes: n=20000, k=256, d=64; B=4096, d=128
    PYTHONPATH=. python benchmarks/bench_kernels.py --quick    # small sizes, seconds

Prints, per layout, dtype (float64, float32) and τ (0.1, 0.01): the median time of our public, validated
call (``numerics.infonce_loss``, which checks the negatives inside its loss pass, and
``numerics.infonce_loss_in_batch``; the unchecked per-anchor kernel is shown beside it), of
numpy + ``scipy.special.logsumexp`` and of PyTorch CPU (``bmm`` + ``logsumexp``; in-batch
``mm`` + ``F.cross_entropy``) when torch is installed; speed ratios ``peer / ours``; and the fraction of
the machine's floor measured in the same run: memory read bandwidth for per-anchor (best time of four
probes that stream the same negatives once, two of them our own traversal without exp/log, one anchor
at a time and in groups of STREAMS anchors), GEMM time (best of the whole S and the API's blocks of rows
into a reused buffer) + B² exponentials in the input dtype (best of our vectorised exp and numpy's SIMD
exp on all threads) for in-batch. Every probe is timed round-robin with ours and the peers
(``interleaved``), so a change of machine load hits the floor and ours alike.
Then: the fit of time against n·k·d over a 16× range, the 1 → 2 thread speed-up, and the first-call
time of a kernel in a fresh process with a cold and then a warm numba cache.
"""

from __future__ import annotations

import os

# Same thread wake-up policy for every peer (numba's OpenMP layer, PyTorch's OpenMP, OpenBLAS): idle
# workers that busy-wait after one library's call steal the 2 cores from the next library's call.
# numerics._jit sets the same default for numba; set here before any of them is loaded.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
# OpenBLAS (numpy's BLAS: our in-batch blocks and the numpy peer) spins its workers ~0.1 s after every
# call by default; numerics._jit sets this same default, which only works before numpy is loaded.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import argparse  # noqa: E402
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy.special import logsumexp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numba  # noqa: E402

from infonce_bounds.numerics import api  # noqa: E402
from infonce_bounds.numerics.in_batch import row_kernel, row_kernel32  # noqa: E402
from infonce_bounds.numerics.logsumexp import dot, exp_terms, exp_terms32  # noqa: E402
from infonce_bounds.numerics.per_anchor import STREAMS, loss_kernel  # noqa: E402

try:  # optional peer
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None


def median_time(fn, repeats):
    fn()  # warm-up (compilation, page faults, BLAS threads)
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def interleaved(fns: dict, repeats: int) -> dict:
    """Median time of each callable, measured round-robin so that machine load hits all alike."""
    for fn in fns.values():
        fn()
    ts = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            ts[name].append(time.perf_counter() - t0)
    return {name: statistics.median(v) for name, v in ts.items()}


@numba.njit(parallel=True, cache=True, fastmath={"reassoc"})  # floor probe only: vectorised streaming read
def _stream_read(x):
    nch = 256
    step = (x.shape[0] + nch - 1) // nch
    part = np.zeros(nch)
    for c in numba.prange(nch):
        acc = 0.0
        for i in range(c * step, min(x.shape[0], (c + 1) * step)):
            acc += x[i]
        part[c] = acc
    return part.sum()


@numba.njit(parallel=True, cache=True)  # floor probe only: read every row once, minimal arithmetic
def _row_read(x, ones, out):
    for r in numba.prange(x.shape[0]):
        out[r] = dot(x[r], ones)


@numba.njit(parallel=True, cache=True)  # floor probe only: the per-anchor traversal with no exp/log at all
def _anchor_read(negs, ones, out):
    for i in numba.prange(negs.shape[0]):
        acc = 0.0
        for j in range(negs.shape[1]):
            acc += dot(negs[i, j], ones)
        out[i] = acc


@numba.njit(parallel=True, cache=True)  # floor probe only: the grouped traversal (STREAMS side-by-side streams)
def _anchor_read_grouped(negs, ones, out):
    n, k = negs.shape[0], negs.shape[1]
    for grp in numba.prange((n + STREAMS - 1) // STREAMS):
        i0 = grp * STREAMS
        cnt = min(STREAMS, n - i0)
        acc = np.zeros(cnt)
        for j in range(k):
            for g in range(cnt):
                acc[g] += dot(negs[i0 + g, j], ones)
        for g in range(cnt):
            out[i0 + g] = acc[g]


@numba.njit(parallel=True, cache=True)  # floor probe only: exponentials of a (B, B) array, our vectorised exp
def _exp_rows(z, out):
    for i in numba.prange(z.shape[0]):
        poly = np.empty(z.shape[1])
        bits = np.empty(z.shape[1], dtype=np.int64)
        exp_terms(z[i], 0.0, 1.0, poly, bits)
        out[i] = poly[0]


@numba.njit(parallel=True, cache=True)  # floor probe only: float32 exponentials, our vectorised float32 exp
def _exp_rows32(z, out):
    for i in numba.prange(z.shape[0]):
        poly = np.empty(z.shape[1], dtype=np.float32)
        bits = np.empty(z.shape[1], dtype=np.int32)
        exp_terms32(z[i], np.float32(0.0), np.float32(1.0), poly, bits)
        out[i] = poly[0]


def read_probes(negs):
    """Four ways to stream ``negs`` once (the floor is the best of them): a vectorised chunked sum, a
    row-dot pass, and the per-anchor traversal of our kernel, one anchor at a time and in groups of
    STREAMS anchors, with the exponentials and logarithms removed. Timed round-robin with ours."""
    flat = negs.reshape(-1)
    rows = negs.reshape(-1, negs.shape[-1])
    ones = np.ones(negs.shape[-1], dtype=negs.dtype)
    out = np.empty(rows.shape[0])
    per_anchor = np.empty(negs.shape[0])
    return {
        "floor: chunked sum": lambda: _stream_read(flat),
        "floor: row dots": lambda: _row_read(rows, ones, out),
        "floor: anchor traversal": lambda: _anchor_read(negs, ones, per_anchor),
        "floor: grouped traversal": lambda: _anchor_read_grouped(negs, ones, per_anchor),
    }


def exp_probes(B, dtype, rng, pool):
    """Two ways to compute B² exponentials in ``dtype`` (the floor takes the faster): our vectorised exp on
    all threads, and numpy's SIMD exp split over the threads of ``pool`` (numpy releases the GIL); each
    over one cache-resident block of rows (the API's block size) repeated to B² entries, so that memory
    is not counted. Timed round-robin with ours."""
    R = max(1, min(B, api.BLOCK_ENTRIES // B))
    z = -np.abs(rng.standard_normal((R, B))).astype(dtype)
    buf = np.empty_like(z)
    out = np.empty(R)
    reps = -(-B // R)
    parts = np.array_split(np.arange(R), numba.get_num_threads())
    exp_rows = _exp_rows32 if dtype == np.float32 else _exp_rows

    def numpy_exp():
        for _ in range(reps):
            list(pool.map(lambda ix: np.exp(z[ix[0] : ix[-1] + 1], out=buf[ix[0] : ix[-1] + 1]), parts))

    def ours():
        for _ in range(reps):
            exp_rows(z, out)

    return {"exp floor: numpy (threads)": numpy_exp, "exp floor: vectorised numba": ours}


def gemm_blocks(a, p, buf):
    """S = A Pᵀ block by block of rows into one reused buffer: the GEMM calls of the API, nothing else."""
    R, B = buf.shape
    for r0 in range(0, B, R):
        blk = buf[: min(B, r0 + R) - r0]
        np.dot(a[r0 : r0 + blk.shape[0]], p.T, out=blk)


def unit_rows(x):
    x /= np.linalg.norm(x, axis=-1, keepdims=True).astype(x.dtype)
    return x


def make_per_anchor(n, k, d, dtype, rng):
    a = unit_rows(rng.standard_normal((n, d), dtype=np.float32).astype(dtype))
    p = unit_rows(a + 0.5 * rng.standard_normal((n, d), dtype=np.float32).astype(dtype))
    negs = unit_rows(rng.standard_normal((n, k, d), dtype=np.float32).astype(dtype))
    return a, p, negs


def bench_per_anchor(n, k, d, repeats, rng, rows):
    for dtype in (np.float64, np.float32):  # one dtype's arrays at a time: float64 negatives are 2.6 GB
        _per_anchor_dtype(n, k, d, dtype, repeats, rng, rows)


def _per_anchor_dtype(n, k, d, dtype, repeats, rng, rows):
    a, p, negs = make_per_anchor(n, k, d, dtype, rng)
    out = np.empty(n)
    nbytes = negs.nbytes + a.nbytes + p.nbytes
    for tau in (0.1, 0.01):
        fns = {
            "ours kernel": lambda: loss_kernel(a, p, negs, tau, 0, out),
            "ours API": lambda: api.infonce_loss(a, p, negs, tau, "dcl"),
            "numpy+scipy": lambda: (
                logsumexp(np.matmul(negs, a[:, :, None])[:, :, 0] / tau, axis=1)
                - np.einsum("nd,nd->n", a, p) / tau
                - math.log(k)
            ),
        }
        if torch is not None:
            A, P, N = (torch.from_numpy(x) for x in (a, p, negs))
            fns["torch bmm+logsumexp"] = lambda: (
                torch.logsumexp(torch.bmm(N, A.unsqueeze(2)).squeeze(2) / tau, 1) - (A * P).sum(1) / tau - math.log(k)
            )
        fns.update(read_probes(negs))
        t = interleaved(fns, repeats)
        t_read = min(v for nm, v in t.items() if nm.startswith("floor"))
        floor = t_read * nbytes / negs.nbytes
        peers = {name: v for name, v in t.items() if not name.startswith(("ours", "floor"))}
        best_peer = min(peers, key=peers.get)
        rows.append(
            {
                "layout": "per-anchor",
                "size": f"n={n} k={k} d={d}",
                "dtype": np.dtype(dtype).name,
                "tau": tau,
                "ours_s": t["ours API"],
                "kernel_s": t["ours kernel"],
                **{f"{nm}_s": v for nm, v in peers.items()},
                "best_peer": best_peer,
                "speedup_vs_best_peer": peers[best_peer] / t["ours API"],
                "kernel_speedup_vs_best_peer": peers[best_peer] / t["ours kernel"],
                "floor_s": floor,
                "floor_fraction": floor / t["ours API"],
                "kernel_floor_fraction": floor / t["ours kernel"],
                "bandwidth_GBps": negs.nbytes / t_read / 1e9,
            }
        )
        print_row(rows[-1])


def bench_in_batch(B, d, repeats, rng, rows):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(numba.get_num_threads()) as pool:
        for dtype in (np.float64, np.float32):
            _in_batch_dtype(B, d, dtype, repeats, rng, rows, pool)


def _in_batch_dtype(B, d, dtype, repeats, rng, rows, pool):
    a = unit_rows(rng.standard_normal((B, d), dtype=np.float32).astype(dtype))
    p = unit_rows(a + 0.5 * rng.standard_normal((B, d), dtype=np.float32).astype(dtype))
    S = np.dot(a, p.T)
    lo, lg = np.empty(B), np.empty(B)
    fused = row_kernel32 if dtype == np.float32 else row_kernel  # the row pass the API runs, on the whole S
    buf = np.empty((max(1, min(B, api.BLOCK_ENTRIES // B)), B), dtype=dtype)
    for tau in (0.1, 0.01):
        fns = {
            "ours API": lambda: api.infonce_loss_in_batch(a, p, tau, "standard"),
            "ours fused pass": lambda: fused(S, 0, tau, 1, lo, lg),
            "GEMM floor": lambda: np.dot(a, p.T),
            "GEMM floor (blocks)": lambda: gemm_blocks(a, p, buf),
            "numpy+scipy": lambda: (lambda M: logsumexp(M, axis=1) - np.diagonal(M))(np.dot(a, p.T) / tau),
        }
        if torch is not None:
            A, P = torch.from_numpy(a), torch.from_numpy(p)
            tgt = torch.arange(B)
            fns["torch mm+cross_entropy"] = lambda: torch.nn.functional.cross_entropy(
                A @ P.T / tau, tgt, reduction="none"
            )
        fns.update(exp_probes(B, dtype, rng, pool))
        t = interleaved(fns, repeats)
        t_exp = min(v for nm, v in t.items() if nm.startswith("exp floor"))
        t_gemm = min(t["GEMM floor"], t["GEMM floor (blocks)"])
        floor = t_gemm + t_exp
        ours = t["ours API"]
        peers = {nm: v for nm, v in t.items() if not nm.startswith(("ours", "GEMM", "exp floor"))}
        best_peer = min(peers, key=peers.get)
        rows.append(
            {
                "layout": "in-batch",
                "size": f"B={B} d={d}",
                "dtype": np.dtype(dtype).name,
                "tau": tau,
                "ours_s": ours,
                "fused_pass_s": t["ours fused pass"],
                **{f"{nm}_s": v for nm, v in peers.items()},
                "best_peer": best_peer,
                "speedup_vs_best_peer": peers[best_peer] / ours,
                "speedup_vs_torch": (t["torch mm+cross_entropy"] / ours) if torch is not None else None,
                "floor_s": floor,
                "floor_fraction": floor / ours,
                "gemm_GFLOPs": 2 * B * B * d / t_gemm / 1e9,
                "exp_per_ns": B * B / t_exp / 1e9,
            }
        )
        print_row(rows[-1])


def bench_pooled(n, k, d, m, repeats, rng, rows):
    """Pooled layout (a pool (m, d) and an index (n, k)), τ = 0.1: our validated call against the peers'
    usual route, which gathers the (n, k, d) negatives first (``pool[index]``) and then multiplies.
    No floor is reported: random rows of a pool that fits in cache have no streaming floor."""
    tau = 0.1
    for dtype in (np.float64, np.float32):
        a = unit_rows(rng.standard_normal((n, d), dtype=np.float32).astype(dtype))
        p = unit_rows(a + 0.5 * rng.standard_normal((n, d), dtype=np.float32).astype(dtype))
        pool = unit_rows(rng.standard_normal((m, d), dtype=np.float32).astype(dtype))
        index = rng.integers(0, m, (n, k))
        fns = {
            "ours API": lambda: api.infonce_loss_pooled(a, p, pool, index, tau, "dcl"),
            "numpy+scipy gather": lambda: (
                logsumexp(np.einsum("nd,nkd->nk", a, pool[index]) / tau, axis=1)
                - np.einsum("nd,nd->n", a, p) / tau
                - math.log(k)
            ),
        }
        if torch is not None:
            A, P, PL, I = (torch.from_numpy(x) for x in (a, p, pool, index))
            fns["torch gather+bmm"] = lambda: (
                torch.logsumexp(torch.bmm(PL[I], A.unsqueeze(2)).squeeze(2) / tau, 1)
                - (A * P).sum(1) / tau
                - math.log(k)
            )
        t = interleaved(fns, repeats)
        peers = {nm: v for nm, v in t.items() if not nm.startswith("ours")}
        best_peer = min(peers, key=peers.get)
        rows.append(
            {
                "layout": "pooled",
                "size": f"n={n} k={k} d={d} m={m}",
                "dtype": np.dtype(dtype).name,
                "tau": tau,
                "ours_s": t["ours API"],
                **{f"{nm}_s": v for nm, v in peers.items()},
                "best_peer": best_peer,
                "speedup_vs_best_peer": peers[best_peer] / t["ours API"],
                "floor_s": None,
                "floor_fraction": None,
            }
        )
        print_row(rows[-1])


def print_row(r):
    peers = "  ".join(
        f"{k[:-2]} {v * 1e3:8.1f} ms"
        for k, v in r.items()
        if k.endswith("_s") and k not in ("ours_s", "kernel_s", "floor_s", "fused_pass_s")
    )
    extra = (
        f" (unchecked kernel {r['kernel_s'] * 1e3:6.1f} ms)"
        if "kernel_s" in r
        else f" (fused pass {r['fused_pass_s'] * 1e3:6.1f} ms)"
        if "fused_pass_s" in r
        else ""
    )
    floor = f"{r['floor_fraction']:.2f}" if r["floor_fraction"] is not None else "n/a"
    print(
        f"{r['layout']:10s} {r['size']:20s} {r['dtype']:7s} τ={r['tau']:<5}  "
        f"ours {r['ours_s'] * 1e3:8.1f} ms{extra}  "
        f"{peers}  → {r['speedup_vs_best_peer']:.2f}× vs {r['best_peer']}, floor fraction {floor}",
        flush=True,
    )


def bench_scaling(n, k, d, repeats, rng):
    """Time of the f64 kernel at n/16 … n (16× range of n·k·d): slope of log t against log(n k d)."""
    a, p, negs = make_per_anchor(n, k, d, np.float64, rng)
    out = np.empty(n)
    sizes, times = [], []
    for m in (n // 16, n // 8, n // 4, n // 2, n):
        am, pm, nm_, om = a[:m], p[:m], negs[:m], out[:m]
        times.append(median_time(lambda: loss_kernel(am, pm, nm_, 0.1, 0, om), repeats))
        sizes.append(m * k * d)
    x, y = np.log(sizes), np.log(times)
    slope, icpt = np.polyfit(x, y, 1)
    resid = y - (slope * x + icpt)
    r2 = 1 - resid.var() / y.var()
    print(
        f"scaling    n·k·d from {sizes[0]:.3g} to {sizes[-1]:.3g} (16×): times "
        + ", ".join(f"{t * 1e3:.1f}" for t in times)
        + f" ms; log-log slope {slope:.3f} (1 = linear), R² {r2:.4f}"
    )
    # threads: 1 vs all on the largest size, alternating (round-robin, like ``interleaved``) so that a
    # change of machine load hits both counts alike
    prev = numba.get_num_threads()
    ts = {1: [], prev: []}
    try:
        loss_kernel(a, p, negs, 0.1, 0, out)
        for _ in range(max(5, repeats)):
            for nt in (1, prev):
                numba.set_num_threads(nt)
                t0 = time.perf_counter()
                loss_kernel(a, p, negs, 0.1, 0, out)
                ts[nt].append(time.perf_counter() - t0)
    finally:
        numba.set_num_threads(prev)
    t1, t2 = statistics.median(ts[1]), statistics.median(ts[prev])
    print(f"threads    1 thread {t1 * 1e3:.1f} ms, {prev} threads {t2 * 1e3:.1f} ms: speed-up {t1 / t2:.2f}×")
    return {"sizes": sizes, "times": times, "slope": slope, "r2": r2, "t1": t1, "t2": t2, "threads": prev}


_FIRST_CALL = r"""
import time
t0 = time.perf_counter()
import numpy as np
from infonce_bounds import numerics
from infonce_bounds.numerics import api, logsumexp
t1 = time.perf_counter()
logsumexp.row_max(np.zeros(2))  # numba's one-time start-up (LLVM, runtime) + one cached helper
t2 = time.perf_counter()
rng = np.random.default_rng(0)
a = rng.standard_normal((64, 16)); a /= np.linalg.norm(a, axis=1, keepdims=True)
n = rng.standard_normal((64, 8, 16)); n /= np.linalg.norm(n, axis=2, keepdims=True)
t3 = time.perf_counter()
api.infonce_loss(a, a, n, 0.1)
t4 = time.perf_counter()
api.infonce_loss(a, a, n, 0.1)
t5 = time.perf_counter()
print(f"{t1 - t0:.4f} {t2 - t1:.4f} {t4 - t3:.4f} {t5 - t4:.6f}")
"""


def bench_first_call():
    """First call of infonce_loss in a fresh process: cold cache (empty NUMBA_CACHE_DIR), then warm.

    Split into: import; numba's one-time start-up (first call of any compiled function, measured on a
    one-line cached helper); the first ``infonce_loss`` call after that (its validation kernel and loss
    kernel loaded from the cache, or compiled when cold); a second call.
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root)
        res = []
        for label in ("cold", "warm"):
            out = subprocess.run(
                [sys.executable, "-c", _FIRST_CALL], env=env, capture_output=True, text=True, check=True, cwd=root
            ).stdout.split()
            imp, start, first, second = map(float, out)
            res.append(
                {
                    "cache": label,
                    "import_s": imp,
                    "numba_startup_s": start,
                    "first_call_s": first,
                    "second_call_s": second,
                }
            )
            print(
                f"first call ({label} cache, new process): import {imp * 1e3:.0f} ms, numba start-up "
                f"{start * 1e3:.0f} ms, first infonce_loss {first * 1e3:.1f} ms, second {second * 1e3:.2f} ms"
            )
    return res


def bench_tiny_standard_loss():
    """τ = 0.01, s⁺ = 1, s_j = 0.5: the standard loss is k e^{−50} ≈ 5e-21; naive routes return 0."""
    d, k = 4, 3
    a = np.zeros((1, d))
    a[0, 0] = 1.0
    negs = np.zeros((1, k, d))
    negs[0, :, 0] = 0.5
    negs[0, :, 1] = math.sqrt(0.75)
    tau = 0.01
    exact = math.log1p(k * math.exp(-50.0))  # s_j − s⁺ = −0.5 exactly
    ours = api.infonce_loss(a, a, negs, tau, "standard")[0]
    s = np.r_[1.0, np.full(k, 0.5)] / tau
    naive = logsumexp(s) - s[0]
    line = (
        f"tiny loss  exact {exact:.6e}; ours {ours:.6e} (rel. err {abs(ours / exact - 1):.1e}); numpy/scipy {naive:.1e}"
    )
    if torch is not None:
        ts = torch.tensor(s)
        line += f"; torch {float(torch.nn.functional.cross_entropy(ts[None], torch.tensor([0]))):.1e}"
    print(line)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (n=2000, k=64, d=32; B=512)")
    ap.add_argument("--repeats", type=int, default=None, help="timed repetitions per measurement (median)")
    ap.add_argument("--json", default=None, help="also write the measurements to this JSON file")
    args = ap.parse_args(argv)
    n, k, d, B, dB = (2000, 64, 32, 512, 64) if args.quick else (20000, 256, 64, 4096, 128)
    repeats = args.repeats or (5 if args.quick else 5)
    rng = np.random.default_rng(20261129)
    print(
        f"numba {numba.__version__}, numpy {np.__version__}, "
        f"torch {torch.__version__ if torch else 'not installed'}, "
        f"threads {numba.get_num_threads()}, repeats {repeats} (medians)"
    )
    bench_tiny_standard_loss()
    rows: list[dict] = []
    bench_per_anchor(n, k, d, repeats, rng, rows)
    bench_in_batch(B, dB, repeats, rng, rows)
    bench_pooled(n, k, d, 2048 if args.quick else 65536, repeats, rng, rows)
    scaling = bench_scaling(n, k, d, max(3, repeats // 2), rng)
    first = bench_first_call()
    print()
    print("| layout | dtype | τ | ours (ms) | best peer (ms) | ours vs best peer | vs PyTorch | fraction of floor |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        tt = [v for nm, v in r.items() if nm.startswith("torch") and nm.endswith("_s")]
        vs_torch = f"{tt[0] / r['ours_s']:.2f}×" if tt else "n/a"
        floor = f"{r['floor_fraction']:.2f}" if r["floor_fraction"] is not None else "n/a"
        print(
            f"| {r['layout']} {r['size']} | {r['dtype']} | {r['tau']} | {r['ours_s'] * 1e3:.0f} | "
            f"{r[r['best_peer'] + '_s'] * 1e3:.0f} ({r['best_peer']}) | {r['speedup_vs_best_peer']:.2f}× | "
            f"{vs_torch} | {floor} |"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "scaling": scaling, "first_call": first}, fh, indent=1, default=float)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
