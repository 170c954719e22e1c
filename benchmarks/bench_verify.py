"""Time ``infonce-bounds verify`` of the whole catalogue: old-style vs new engine, cold and cached, in one run.

What the columns mean (all runs in this process's machine state, one after the other, same options):

* **old** — the engine with the pre-issue-11 execution model: one process, the falsifier's
  one-point-at-a-time loops (``vectorise=False``), no large-k attack, no cache. (The pre-change
  ``checks.py`` itself cannot be imported beside the new package; this is the same checkers run the
  old way. The Arb back end is used in both columns.)
* **new** — ``--no-cache`` with 2 worker processes, numpy-batched falsifier, large-k attack on.
* **cached** — the same command again with the cache warm (the catalogue unchanged).
* **report** — ``infonce-bounds report --quick`` wall time with the cache warm (optional, ``--report``).

Usage::

    python benchmarks/bench_verify.py [--trials 100000] [--skip-old] [--report]

The cache of these runs lives in a temporary directory (the user's cache is not touched). It is a
benchmark, not a timed test: the machine is shared, so compare the columns of one run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def _run(names, trials, workers, vectorise, use_cache):
    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.checks import runner

    ders = [catalogue.get(n) for n in names] if names else catalogue.all_derivations()
    opts = {"trials": trials, "seed": 0}
    if not vectorise:
        opts.update(vectorise=False, large_k=False)
    t0 = time.perf_counter()
    by_der, stats = runner.verify_derivations(ders, opts, workers=workers, use_cache=use_cache)
    wall = time.perf_counter() - t0
    per = {name: sum(r.seconds for r in rs) for name, rs in by_der.items()}
    return wall, per, stats


def _cli_seconds(argv, env):
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "infonce_bounds.numerics.cli", *argv], env=env, check=True, capture_output=True
    )
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="*", help="derivation names (default: the whole catalogue)")
    ap.add_argument("--trials", type=int, default=100_000)
    ap.add_argument("--skip-old", action="store_true", help="do not time the old-style serial run (saves minutes)")
    ap.add_argument("--report", action="store_true", help="also time `infonce-bounds report --quick`")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-verify-")
    os.environ["XDG_CACHE_HOME"] = tmp
    env = {**os.environ}

    from infonce_bounds.derivations import catalogue

    t0 = time.perf_counter()
    catalogue.all_derivations()
    build = time.perf_counter() - t0

    old = None if args.skip_old else _run(args.results, args.trials, 1, False, False)
    new = _run(args.results, args.trials, 2, True, False)
    argv = ["verify", *args.results, "--trials", str(args.trials), "--json"]
    _cli_seconds(argv, env)  # warm the catalogue-level cache entry through the CLI itself
    cached = _cli_seconds(argv, env)
    report = _cli_seconds(["report", "--quick", "--out", os.path.join(tmp, "report")], env) if args.report else None

    names = list(new[1])
    print(f"catalogue build (in process): {build:.1f} s; trials per inequality: {args.trials}")
    print(f"{'derivation':28s} {'old s':>9s} {'new s':>9s} {'ratio':>7s}")
    for name in sorted(names, key=lambda n: -(old[1][n] if old else new[1][n])):
        o = old[1][name] if old else float("nan")
        n_ = new[1][name]
        print(f"{name:28s} {o:9.2f} {n_:9.2f} {o / n_ if n_ else float('nan'):7.2f}")
    print("(per-derivation: summed check seconds of its steps; with 2 workers the wall total is below the sum)")
    if old:
        print(f"old wall (1 process, scalar falsifier, no cache): {old[0]:.1f} s")
    print(f"new wall (2 workers, numpy falsifier, --no-cache): {new[0]:.1f} s")
    if old:
        print(f"ratio old/new wall: {old[0] / new[0]:.2f}")
    print(f"cached re-run, CLI process wall (unchanged catalogue): {cached:.2f} s")
    if report is not None:
        print(f"report --quick, cache warm: {report:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
