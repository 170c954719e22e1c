"""Throughput of ``infonce-bounds check`` on a generated file of simple one-variable claims (issue 28: 10 000 in 5 min).

The file (``--claims N``, default 1000) cycles through ten kinds of simple one-variable claims, six true and
four false (``claim_file``), with varied constants and ranges, as the public benchmark's simple ones are.
Measured, one after the other in this run, each a fresh CLI process (wall seconds, and CPU seconds of the
process and its workers):

* **baseline** (``--baseline REV``) — the code at git revision ``REV`` (a temporary worktree on ``PYTHONPATH``,
  as ``bench_verify.py`` does), ``check FILE --json`` with its defaults;
* **serial** — ``check --workers 1 --no-cache``;
* **workers** — ``check --workers W --no-cache`` (``--workers``, default 2);
* **cached** — ``check --workers W`` again: every claim answered from the cache (reading the file remains).

``--runs`` picks among the last three (the machine is shared: ``--runs workers`` is one check of the file).
It prints the verdict tally, the load average, claims/s, CPU ms per claim, and the 10 000-claim time
projected to idle cores (CPU seconds, divided by ``W`` for the runs with workers, by 1 for the serial ones);
and whether every run gave the same verdicts and counterexamples as the first (``same verdicts``), and the
same methods, worst ratios and evidence too (``all``: a revision that changes how a claim is attacked
changes the evidence, never the verdict). It is a benchmark, not a timed test: compare the columns of one
run, and read the load average it prints.

Usage::

    python benchmarks/bench_check_throughput.py [--claims 1000] [--workers 2] [--baseline REV] [--runs workers]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_verify import _checkout  # noqa: E402 - the same baseline import shim

KINDS = 10  # claim kinds in turn: six true, four false (the public benchmark's simple one-variable mix)


def claim_file(n: int, seed: int = 1) -> str:
    """``n`` simple one-variable claims, ``KINDS`` kinds in turn, constants and ranges drawn with ``seed``.

    True: ``x^{2} + c \\ge 0``, ``\\log(1 + x) \\le x``, ``a x + 1 \\le (a+1) x + 1``, ``e^{x} \\ge 1 + x``,
    ``\\tanh(x) \\le x`` on ``[0, b]`` and ``x^{3} - 3 x + 2 \\ge 0`` on ``[0, b]`` (zero at 1). False:
    ``x^{3} - 3 x + c \\ge 0`` with ``c < 2``, ``\\tanh(x) \\le x - x^{3}/d``, ``e^{x} \\ge 1 + x + x^{2}/2`` on
    ``[-c, c]`` and ``\\log(1 + x) \\ge x - x^{2}/d`` with ``d > 2``.
    """
    r = random.Random(seed)
    out = []
    for i in range(n):
        k = i % KINDS
        if k == 0:
            body, rng = f"x^{{2}} + {r.randint(0, 50)} \\ge 0", f"[-{r.randint(1, 9)}, {r.randint(1, 9)}]"
        elif k == 1:
            body, rng = "\\log(1 + x) \\le x", f"[0, {r.randint(1, 20)}]"
        elif k == 2:
            a = r.randint(1, 9)
            body, rng = f"{a} x + 1 \\le {a + 1} x + 1", f"[0, {r.randint(1, 9)}]"
        elif k == 3:
            c = r.randint(1, 9)
            body, rng = "e^{x} \\ge 1 + x", f"[-{c}, {c}]"
        elif k == 4:
            body, rng = "\\tanh(x) \\le x", f"[0, {r.randint(1, 20)}]"
        elif k == 5:
            body, rng = "x^{3} - 3 x + 2 \\ge 0", f"[0, {r.randint(2, 9)}]"
        elif k == 6:  # false: the minimum at x = 1 is c - 2 < 0
            body, rng = f"x^{{3}} - 3 x + {r.randint(10, 19) / 10} \\ge 0", f"[0, {r.randint(2, 9)}]"
        elif k == 7:  # false near x = 1 for d < 5
            body, rng = f"\\tanh(x) \\le x - \\frac{{x^{{3}}}}{{{r.randint(2, 4)}}}", "[0, 1]"
        elif k == 8:  # false for x < 0
            c = r.randint(1, 9)
            body, rng = "e^{x} \\ge 1 + x + \\frac{x^{2}}{2}", f"[-{c}, {c}]"
        else:  # false for small x > 0 when d > 2
            body, rng = f"\\log(1 + x) \\ge x - \\frac{{x^{{2}}}}{{{r.randint(3, 9)}}}", f"[0, {r.randint(1, 9)}]"
        out.append(f"[[claim]]\nname = 'c{i}'\nclaim = '{body}'\nwhere = {{ x = {rng} }}\n")
    return "\n".join(out)


def run(argv: list[str], env: dict) -> tuple[float, float, dict]:
    """(wall s, CPU s of the process and its children, the JSON output) of one CLI process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "infonce_bounds.numerics.cli", *argv, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1, 2, 3):
        raise RuntimeError(f"{argv}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
    return wall, cpu, json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--claims", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--baseline", default=None, help="a git revision to time beside this code")
    ap.add_argument(
        "--runs",
        default="serial,workers,cached",
        help="which runs, comma-separated, of serial, workers, cached (default all; the machine is shared: "
        "'--runs workers' alone is one check of the file)",
    )
    args = ap.parse_args()
    which = set(args.runs.split(","))
    with tempfile.TemporaryDirectory(prefix="bench-check-") as tmp:
        path = os.path.join(tmp, "claims.toml")
        with open(path, "w") as fh:
            fh.write(claim_file(args.claims))
        env = {**os.environ, "XDG_CACHE_HOME": os.path.join(tmp, "cache")}
        runs = []
        if args.baseline:
            base_env = {**env, "PYTHONPATH": _checkout(args.baseline, tmp), "XDG_CACHE_HOME": os.path.join(tmp, "c0")}
            runs.append((f"baseline {args.baseline}", *run(["check", path], base_env)))
        if "serial" in which:
            runs.append(("serial (--workers 1)", *run(["check", path, "--workers", "1", "--no-cache"], env)))
        w = ["--workers", str(args.workers)]
        if "workers" in which or "cached" in which:
            runs.append((f"--workers {args.workers}", *run(["check", path, *w, "--no-cache"], env)))
        if "cached" in which:
            runs.append((f"cached, --workers {args.workers}", *run(["check", path, *w], env)))
        keys = ("name", "verdict", "method", "worst_ratio", "counterexample", "evidence")
        first = [[c[k] for k in keys] for c in runs[0][3]["claims"]]
        verdicts = [[c[k] for k in ("name", "verdict", "counterexample")] for c in runs[0][3]["claims"]]
        tally = collections.Counter(c["verdict"] for c in runs[-1][3]["claims"])
        print(
            f"{args.claims} claims ({', '.join(f'{v} {k}' for k, v in sorted(tally.items()))}); load average "
            f"{', '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min) on {os.cpu_count()} CPUs"
        )
        print(
            f"{'run':<28} {'wall s':>8} {'CPU s':>8} {'claims/s':>9} {'CPU ms/claim':>13} {'10k, idle cores':>15}  same verdicts / all"
        )
        for label, wall, cpu, out in runs:
            same = [[c[k] for k in keys] for c in out["claims"]] == first
            same_v = [[c[k] for k in ("name", "verdict", "counterexample")] for c in out["claims"]] == verdicts
            cores = (
                1 if label.startswith("serial") else args.workers if "workers" in label else 2
            )  # baseline: its default
            ext = 10_000 * cpu / args.claims / cores
            print(
                f"{label:<28} {wall:8.1f} {cpu:8.1f} {args.claims / wall:9.1f} {1000 * cpu / args.claims:13.1f}"
                f" {ext:13.0f} s  {'yes' if same_v else 'NO'} / {'yes' if same else 'no'}"
            )
        if args.baseline:
            subprocess.run(["git", "worktree", "remove", "--force", os.path.join(tmp, "baseline-src")], check=False)


if __name__ == "__main__":
    main()
