"""Time ``infonce-bounds verify`` of the whole catalogue and ``report``: old vs new, cold and cached, in one run.

What is measured (one after the other, in this run, same options; wall and CPU seconds both, since the
machine is shared: CPU seconds include the worker processes):

* **old** — the pre-issue-11 execution model: one process, the falsifier's one-point-at-a-time loops
  (``vectorise=False``), no large-k attack, no cache. (The pre-change ``checks.py`` itself cannot be
  imported beside the new package; this is the same checkers run the old way. The Arb back end is
  used in both columns.)
* **new** — 2 worker processes, numpy-batched falsifier, large-k attack on, no cache (``--no-cache``).
* **step cache** — the whole CLI command ``infonce-bounds verify`` when every step is in the cache
  but the catalogue entry is not (what a run after editing a step costs, minus the re-checks).
* **baseline** (``--baseline REV``) — the whole CLI command ``infonce-bounds verify --no-cache`` of the
  code at git revision ``REV`` (checked out into a temporary worktree and imported from there with
  this environment's dependencies), then the same command of the current code, one after the other:
  the before/after table of the issue, per derivation, measured in one run.
* **cached** — the whole CLI command ``infonce-bounds verify`` again: unchanged catalogue (process
  start, imports and printing the table included).
* **report** — ``infonce-bounds report`` with its defaults, verify cache warm (its verify pass uses
  verify's budget), with the time of each section; ``--report-cold`` also times it with an empty cache.

Usage::

    python benchmarks/bench_verify.py [--trials 100000] [--skip-old] [--baseline REV] [--no-report] [--report-cold]

The cache of these runs lives in a temporary directory (the user's cache is not touched). It is a
benchmark, not a timed test: the machine is shared, so compare the columns of one run, and read the
load average it prints.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _load() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:  # pragma: no cover - not Linux
        return "?"


def _run(names, trials, workers, vectorise, use_cache):
    """In-process verify: (wall s, CPU s incl. workers, CPU s per derivation, stats)."""
    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.run import runner

    ders = [catalogue.get(n) for n in names] if names else catalogue.all_derivations()
    opts = {"trials": trials, "seed": 0}
    if not vectorise:
        opts.update(vectorise=False, large_k=False)
    t0, c0, k0 = time.perf_counter(), time.process_time(), _children_cpu()
    _, stats = runner.verify_derivations(ders, opts, workers=workers, use_cache=use_cache)
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0 + _children_cpu() - k0
    return wall, cpu, dict(stats["cpu"]), stats


def _cli(argv, env):
    """(wall s, CPU s) of one whole ``infonce-bounds`` command in a fresh process."""
    t0, k0 = time.perf_counter(), _children_cpu()
    proc = subprocess.run(
        [sys.executable, "-m", "infonce_bounds.numerics.cli", *argv], env=env, capture_output=True, text=True
    )
    wall, cpu = time.perf_counter() - t0, _children_cpu() - k0
    if proc.returncode not in (0, 1):  # 1: a step not as expected, still a timing
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
    return wall, cpu, proc.stdout


def _checkout(rev: str, tmp: str) -> str:
    """A directory to put on PYTHONPATH that imports ``infonce_bounds`` as it was at ``rev``.

    The package maps three folders into one namespace (pyproject's package-dir), so the revision's
    files are linked into that shape instead of installed.
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    wt = os.path.join(tmp, "baseline-src")
    subprocess.run(["git", "-C", root, "worktree", "add", "--detach", "-q", wt, rev], check=True)
    shim = os.path.join(tmp, "baseline-path", "infonce_bounds")
    os.makedirs(shim)
    top = os.path.join(wt, "src", "infonce_bounds")
    for name in os.listdir(top):
        os.symlink(os.path.join(top, name), os.path.join(shim, name))
    for sub in ("derivations", "numerics"):
        os.symlink(os.path.join(wt, sub), os.path.join(shim, sub))
    return os.path.dirname(shim)


def _cold_cli(argv, env, cache, save=None):
    """(wall s, CPU s, CPU s per derivation, summary) of a cold ``verify --no-cache --json`` in a fresh
    process; ``save``: a path for its JSON (the verdicts, to compare the two revisions step by step)."""
    import json

    wall, cpu, out = _cli([*argv, "--no-cache", "--json"], {**env, "XDG_CACHE_HOME": cache})
    if save:
        with open(save, "w") as fh:
            fh.write(out)
    summary = json.loads(out)
    return wall, cpu, summary["cache"]["cpu"], summary


#: the parent's serial work before any check can start, timed the same way for any revision
_SERIAL_PROBE = r"""
import json, time
c0 = time.process_time()
from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.run import runner
c1 = time.process_time()
ders = catalogue.all_derivations()
c2 = time.process_time()
runner._derivation_keys(ders, {"trials": 100000, "seed": 0})
c3 = time.process_time()
print(json.dumps({"import": c1 - c0, "build": c2 - c1, "keys": c3 - c2}))
"""


def _serial(env) -> dict:
    """CPU s of importing the engine, building the whole catalogue and computing every step key."""
    import json

    proc = subprocess.run([sys.executable, "-c", _SERIAL_PROBE], env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


def _idle(wall: float, cpu: float, cores: int = 2) -> float:
    """The fraction of ``cores`` × ``wall`` that no process of the run used."""
    return max(0.0, 1.0 - cpu / (cores * wall)) if wall > 0 else float("nan")


def _verdict_changes(base: dict, now: dict) -> list[str]:
    """Steps whose verdict or ``as_expected`` differ between two ``verify --json`` summaries."""
    old = {(r["result"], r["step"]): r for r in base["results"]}
    out = []
    for r in now["results"]:
        o = old.get((r["result"], r["step"]))
        if o is None or (o["verdict"], o["as_expected"]) != (r["verdict"], r["as_expected"]):
            out.append(f"{r['result']}: {r['step'][:60]} ({o and o['verdict']} -> {r['verdict']})")
    return out


def _sections(report_md: str) -> list[tuple[str, float]]:
    """(section title, seconds) from the report's own "_(section built in X s)_" lines."""
    return [
        (m.group(1), float(m.group(2)))
        for m in re.finditer(r"^## (.+?)\n.*?_\(section built in ([0-9.]+) s\)_", report_md, re.M | re.S)
    ]


def _print_baseline(args, base, now, serial_base, serial_now, loads) -> None:
    """The before/after table of a cold CLI verify: per derivation, totals, idle, serial work, verdicts."""
    load_base, load_now, load_after = loads
    print(f"\n{'derivation':28s} {args.baseline[:10]:>10s} {'now':>10s} {'ratio':>8s}   (CLI verify --no-cache, CPU s)")
    for name in sorted(now[2], key=lambda n: -base[2].get(n, 0.0)):
        b_, n_ = base[2].get(name, float("nan")), now[2][name]
        print(f"{name:28s} {b_:10.2f} {n_:10.2f} {b_ / n_ if n_ else float('nan'):8.2f}")
    print(
        f"{'total':28s} {sum(base[2].values()):10.2f} {sum(now[2].values()):10.2f} "
        f"{sum(base[2].values()) / sum(now[2].values()):8.2f}"
    )
    print(
        f"cold CLI verify (whole command): {args.baseline} {base[0]:.1f} s wall, {base[1]:.1f} s CPU; "
        f"now {now[0]:.1f} s wall, {now[1]:.1f} s CPU; ratio wall {base[0] / now[0]:.2f}, CPU {base[1] / now[1]:.2f}"
    )
    print(
        f"idle fraction of the 2 cores (1 − CPU / (2 × wall)): {args.baseline} {_idle(base[0], base[1]):.2f}, "
        f"now {_idle(now[0], now[1]):.2f}; load average before {args.baseline}: {load_base}, "
        f"before now: {load_now}, after: {load_after}"
    )
    for label, probe in ((args.baseline, serial_base), ("now", serial_now)):
        print(
            f"serial work of the parent, CPU s ({label}): import {probe['import']:.2f}, "
            f"catalogue build {probe['build']:.2f}, all step keys {probe['keys']:.2f}"
        )
    ov = now[3]["cache"].get("overhead") or {}
    if ov:  # this code builds the catalogue while the first worker checks: what is still serial
        print(
            f"now, in the run: first check started {ov['first_check_wall']:.2f} s after verify began "
            f"(the parent then built the catalogue in {ov['build_cpu']:.2f} s CPU and computed the keys in "
            f"{ov['keys_cpu']:.2f} s CPU beside the first worker)"
        )
    changes = _verdict_changes(base[3], now[3])
    print(f"verdict changes ({args.baseline} → now): {len(changes)}" + "".join(f"\n    {c}" for c in changes))
    print()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="*", help="derivation names (default: the whole catalogue)")
    ap.add_argument("--trials", type=int, default=100_000)
    ap.add_argument("--skip-old", action="store_true", help="do not time the old-style serial run (saves minutes)")
    ap.add_argument(
        "--baseline", metavar="REV", help="also time a cold CLI verify of git revision REV, then of this code"
    )
    ap.add_argument("--save-json", metavar="DIR", help="with --baseline: write both verify JSONs into DIR")
    ap.add_argument("--no-report", action="store_true", help="do not time `infonce-bounds report`")
    ap.add_argument(
        "--only-baseline", action="store_true", help="with --baseline: time only the two cold CLI runs (and the probes)"
    )
    ap.add_argument("--report-cold", action="store_true", help="also time `report` with an empty verify cache")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-verify-")
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    env = {**os.environ}
    print(f"load average at start: {_load()} ({os.cpu_count()} cores)", flush=True)

    from infonce_bounds.derivations import catalogue

    t0, c0 = time.perf_counter(), time.process_time()
    catalogue.all_derivations()
    build = (time.perf_counter() - t0, time.process_time() - c0)

    base = now = serial_base = serial_now = None
    if args.baseline:
        path = _checkout(args.baseline, tmp)
        argv_v = ["verify", *args.results, "--trials", str(args.trials)]
        load_base = _load()
        try:
            serial_base = _serial({**env, "PYTHONPATH": path, "XDG_CACHE_HOME": os.path.join(tmp, "cache-probe")})
            base = _cold_cli(
                argv_v,
                {**env, "PYTHONPATH": path},
                os.path.join(tmp, "cache-base"),
                args.save_json and os.path.join(args.save_json, "baseline.json"),
            )
        finally:
            root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            wt = os.path.join(tmp, "baseline-src")
            subprocess.run(["git", "-C", root, "worktree", "remove", "--force", wt], check=False)
        load_now = _load()
        serial_now = _serial({**env, "XDG_CACHE_HOME": os.path.join(tmp, "cache-probe")})
        now = _cold_cli(
            argv_v, env, os.path.join(tmp, "cache-now"), args.save_json and os.path.join(args.save_json, "now.json")
        )
        load_after = _load()
        loads = (load_base, load_now, load_after)
    if args.only_baseline and base is not None:
        _print_baseline(args, base, now, serial_base, serial_now, loads)
        print(f"load average at end: {_load()}")
        return 0
    old = None if args.skip_old else _run(args.results, args.trials, 1, False, False)
    new = _run(args.results, args.trials, 2, True, False)  # fills the step cache
    argv = ["verify", *args.results, "--trials", str(args.trials), "--json"]
    steps_cached = _cli(argv, env)  # every step cached, no catalogue entry yet: it builds the catalogue
    cached = _cli(argv, env)  # unchanged catalogue
    report = report_cold = None
    if not args.no_report:
        out = os.path.join(tmp, "report")
        report = _cli(["report", "--trials", str(args.trials), "--out", out], env)
        report_md = open(os.path.join(out, "REPORT.md")).read()
        if args.report_cold:
            cold_env = {**env, "XDG_CACHE_HOME": os.path.join(tmp, "cache-cold")}
            out_cold = os.path.join(tmp, "report-cold")
            report_cold = _cli(["report", "--trials", str(args.trials), "--out", out_cold], cold_env)
            report_cold_md = open(os.path.join(out_cold, "REPORT.md")).read()

    print(
        f"catalogue build (in process): {build[0]:.1f} s wall, {build[1]:.1f} s CPU; trials per inequality: {args.trials}"
    )
    print(f"{'derivation':28s} {'old CPU s':>10s} {'new CPU s':>10s} {'old/new':>8s}")
    names = list(new[2])
    for name in sorted(names, key=lambda n: -(old[2].get(n, 0.0) if old else new[2][n])):
        o = old[2].get(name, float("nan")) if old else float("nan")
        n_ = new[2][name]
        print(f"{name:28s} {o:10.2f} {n_:10.2f} {o / n_ if n_ else float('nan'):8.2f}")
    print("(per derivation: CPU seconds of its steps, each measured in the process that checked it)")
    if base is not None:
        _print_baseline(args, base, now, serial_base, serial_now, loads)
    if old:
        print(f"old (1 process, scalar falsifier, no cache): {old[0]:.1f} s wall, {old[1]:.1f} s CPU")
    print(f"new (2 workers, numpy falsifier, --no-cache): {new[0]:.1f} s wall, {new[1]:.1f} s CPU")
    if old:
        print(f"ratio old/new: wall {old[0] / new[0]:.2f}, CPU {old[1] / new[1]:.2f}")
    print(
        f"CLI verify, every step cached (catalogue rebuilt): {steps_cached[0]:.2f} s wall, {steps_cached[1]:.2f} s CPU"
    )
    print(f"CLI verify, unchanged catalogue (whole command): {cached[0]:.2f} s wall, {cached[1]:.2f} s CPU")
    if report is not None:
        print(f"report (defaults, verify cache warm): {report[0]:.1f} s wall, {report[1]:.1f} s CPU")
        for title, secs in _sections(report_md):
            print(f"    {title}: {secs:.1f} s wall")
    if report_cold is not None:
        print(f"report (defaults, verify cache empty): {report_cold[0]:.1f} s wall, {report_cold[1]:.1f} s CPU")
        for title, secs in _sections(report_cold_md):
            print(f"    {title}: {secs:.1f} s wall")
    print(f"load average at end: {_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
