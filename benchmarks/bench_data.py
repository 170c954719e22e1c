"""Benchmark of the data kernels of §4.2 (``numerics.b_tau``, ``numerics.prop4_bound``) against a plain numpy
implementation and the memory-read floor, measured in one run on the same inputs (not a test).

    PYTHONPATH=. python benchmarks/bench_data.py            # issue 13 sizes: n=20000, k=256, d_in=64
    PYTHONPATH=. python benchmarks/bench_data.py --quick    # small sizes, seconds

Per dtype (float64, float32) and τ (0.5, 0.05): the median wall time of our public, validated call, of the
numpy route (the same formulas with ``np.linalg.norm``/``einsum``/``scipy.special.logsumexp``, in chunks
of 1000 anchors so that its temporaries stay in memory: faster than one (n, k, d) pass, and the only way
the float64 Prop. 4 peer fits beside its 5 GB of inputs), and of the read floor: the best of the probes of
``bench_kernels.read_probes`` that stream the negatives once (for Prop. 4: both (n, k, d) arrays, probed
one after the other), scaled to every byte the call reads. Everything is timed round-robin
(``bench_kernels.interleaved``) so that machine load hits ours, the peer and the floor alike; CPU seconds
of the process are printed beside the wall times, and the load average before and after.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import argparse  # noqa: E402
import json
import math
import sys
import time

import numpy as np
from scipy.special import logsumexp

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _bench_kernels():
    """``benchmarks/bench_kernels.py`` loaded by path (a sibling script, not a package): its floor probes."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_kernels.py")
    spec = importlib.util.spec_from_file_location("_bench_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


read_probes = _bench_kernels().read_probes

from infonce_bounds.numerics import api  # noqa: E402

CHUNK = 1000


def interleaved(fns: dict, repeats: int) -> tuple[dict, dict]:
    """Median wall and median process-CPU time of each callable, measured round-robin (as
    ``bench_kernels.interleaved``, plus CPU seconds: on a loaded machine the wall clock measures the other
    users too, the CPU time only us; both threads' CPU is summed alike for ours, the peer and the floor)."""
    import statistics

    for fn in fns.values():
        fn()
    wall = {name: [] for name in fns}
    cpu = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[name].append(time.perf_counter() - t0)
            cpu[name].append(time.process_time() - c0)
    med = lambda d: {nm: statistics.median(v) for nm, v in d.items()}  # noqa: E731
    return med(wall), med(cpu)


def numpy_b_tau(a, p, ng, tau):
    """B_τ with numpy: norms, then the power mean in logs (max-shifted), in chunks of anchors."""
    r = 1.0 / min(1.0, tau)
    logs = []
    for i0 in range(0, ng.shape[0], CHUNK):
        sq = np.einsum("ikd,ikd->ik", ng[i0 : i0 + CHUNK], ng[i0 : i0 + CHUNK], dtype=np.float64)
        with np.errstate(divide="ignore"):
            logs.append(np.log(sq).ravel())
    L = np.concatenate(logs)
    neg = math.exp((logsumexp(r * L) - math.log(L.size)) / (2 * r))
    sa = np.einsum("id,id->i", a, a, dtype=np.float64)
    sp_ = np.einsum("id,id->i", p, p, dtype=np.float64)
    return math.sqrt(sa.mean()) + math.sqrt(sp_.mean()) + neg


def numpy_prop4(phi, psi, tau, beta):
    """Prop. 4 (paper, ours), (18) and |Δℓ| per tuple with numpy, in chunks of anchors."""
    (a, p, ng), (a2, p2, ng2) = phi, psi
    n, k = ng.shape[:2]
    e2m = math.exp(-2 / tau)
    wk, nk = k / (k + e2m), k / (1 + k * e2m)
    out = {key: np.empty(n) for key in ("actual", "paper", "ours", "linf")}
    for i0 in range(0, n, CHUNK):
        s = slice(i0, i0 + CHUNK)
        da = np.linalg.norm(a[s] - a2[s], axis=1)
        dp = np.linalg.norm(p[s] - p2[s], axis=1)
        dn = np.linalg.norm(ng[s] - ng2[s], axis=2)
        mx = dn.max(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            pm = mx * np.exp((logsumexp(beta * np.log(dn / mx[:, None]), axis=1) - math.log(k)) / beta)
        pm = np.where(mx > 0, pm, 0.0)

        def ell(x, y, z):
            zz = (np.einsum("ikd,id->ik", z, x) - np.einsum("id,id->i", x, y)[:, None]) / tau
            c = logsumexp(zz, axis=1)
            return np.logaddexp(0.0, c) - math.log(k)

        out["actual"][s] = np.abs(ell(a[s], p[s], ng[s]) - ell(a2[s], p2[s], ng2[s]))
        out["paper"][s] = (4 * da + dp + 3 * math.exp(2 / (beta * tau)) * pm) / tau
        out["ours"][s] = (2 * wk * da + wk * dp + nk ** (1 / beta) * pm) / tau
        out["linf"][s] = math.sqrt(6) / tau * np.sqrt(da**2 + dp**2 + mx**2)
    return out


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def run(n, k, d, repeats, rng, rows, taus=(0.5, 0.05)):
    for dtype in (np.float64, np.float32):
        # B_τ: raw inputs (any norms)
        a = rng.normal(size=(n, d)).astype(dtype)
        p = rng.normal(size=(n, d)).astype(dtype)
        ng = rng.normal(size=(n, k, d)).astype(dtype)
        for tau in taus:
            ref = numpy_b_tau(a, p, ng, tau)
            got = api.b_tau(a, p, ng, tau).value
            assert abs(got - ref) <= 1e-10 * ref, (got, ref)
            fns = {
                "ours b_tau": lambda: api.b_tau(a, p, ng, tau),
                "numpy b_tau": lambda: numpy_b_tau(a, p, ng, tau),
                **read_probes(ng),
            }
            _record(rows, "b_tau", n, k, d, dtype, tau, fns, repeats, (ng.nbytes + a.nbytes + p.nbytes) / ng.nbytes)
        # Prop. 4: unit embeddings and a perturbed copy
        a, p = unit(a), unit(p)
        ng = unit(ng)
        move = lambda x: unit(x + 0.05 * rng.normal(size=x.shape).astype(dtype)).astype(dtype)  # noqa: E731
        phi = (a, p, ng)
        psi = (move(a), move(p), move(ng))
        for tau in taus:
            beta = max(1.0, 2.0 / tau)
            ref = numpy_prop4(phi, psi, tau, beta)
            got = api.prop4_bound(phi, psi, tau, beta)
            for key in ("paper", "ours", "linf"):
                np.testing.assert_allclose(getattr(got, key), ref[key], rtol=1e-4 if dtype == np.float32 else 1e-10)
            np.testing.assert_allclose(got.actual, ref["actual"], atol=1e-4 if dtype == np.float32 else 1e-10)
            probes = {**read_probes(phi[2])}
            probes2 = {nm + " (φ')": fn for nm, fn in read_probes(psi[2]).items()}
            fns = {
                "ours prop4": lambda: api.prop4_bound(phi, psi, tau, beta),
                "numpy prop4": lambda: numpy_prop4(phi, psi, tau, beta),
                **probes,
                **probes2,
            }
            small = sum(x.nbytes for x in (*phi[:2], *psi[:2]))
            _record(rows, "prop4", n, k, d, dtype, tau, fns, repeats, None, small=small, big=phi[2].nbytes)


def _record(rows, what, n, k, d, dtype, tau, fns, repeats, scale, small=0, big=0):
    c0 = time.process_time()
    w0 = time.perf_counter()
    tw, tc = interleaved(fns, repeats)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    row = {
        "what": what,
        "size": f"n={n} k={k} d_in={d}",
        "dtype": np.dtype(dtype).name,
        "tau": tau,
        "round_robin_cpu_s": cpu,
        "round_robin_wall_s": wall,
        "load_average": os.getloadavg(),
    }
    text = []
    for clock, t in (("wall", tw), ("cpu", tc)):
        if what == "b_tau":
            floor = min(v for nm, v in t.items() if nm.startswith("floor")) * scale
        else:  # two (n, k, d) arrays: the best read of each, plus the small arrays at the same bandwidth
            f1 = min(v for nm, v in t.items() if nm.startswith("floor") and "φ'" not in nm)
            f2 = min(v for nm, v in t.items() if nm.startswith("floor") and "φ'" in nm)
            floor = (f1 + f2) * (1 + small / (2 * big))
        ours, peer = t[f"ours {what}"], t[f"numpy {what}"]
        row.update(
            {
                f"ours_{clock}_s": ours,
                f"numpy_{clock}_s": peer,
                f"floor_{clock}_s": floor,
                f"speedup_vs_numpy_{clock}": peer / ours,
                f"floor_fraction_{clock}": floor / ours,
            }
        )
        text.append(
            f"{clock}: ours {ours * 1e3:7.1f} ms, numpy {peer * 1e3:7.1f} ms → {peer / ours:5.2f}× numpy, "
            f"floor {floor * 1e3:7.1f} ms → fraction {floor / ours:.2f}"
        )
    rows.append(row)
    print(
        f"{what:6s} {row['size']} {row['dtype']:8s} τ={tau:<5g} "
        + " | ".join(text)
        + f"  (load {row['load_average'][0]:.1f})",
        flush=True,
    )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--json", default=None, help="write the rows here")
    ap.add_argument("--taus", default="0.5,0.05", help="temperatures (default 0.5,0.05)")
    args = ap.parse_args(argv)
    n, k, d = (2000, 64, 64) if args.quick else (20000, 256, 64)
    repeats = args.repeats or (5 if args.quick else 5)
    print(f"load average before: {os.getloadavg()}; cores {os.cpu_count()}", flush=True)
    rows: list[dict] = []
    run(n, k, d, repeats, np.random.default_rng(0), rows, tuple(float(t) for t in args.taus.split(",")))
    print(f"load average after: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
