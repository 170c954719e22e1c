"""Time and peak memory of ``infonce-bounds check`` per claim, this code beside a baseline revision, in one run.

Each claim of each file is written alone to a temporary claim file (the benchmark files' own ``expect`` field
stripped, so an older reader accepts it) and checked by a fresh ``python -m infonce_bounds.numerics.cli check
FILE --json`` process: first with the code at ``--baseline REV`` (a temporary worktree, imported through
``PYTHONPATH`` as ``bench_verify.py`` does), then with the current code. Per claim it prints the verdict, the
wall seconds and the peak resident memory of each (``os.wait4``'s ``ru_maxrss`` of that process alone), and
whether the verdict meets the file's ``expect``. A process is stopped at ``--timeout`` seconds and capped at
``--memory`` GB of address space (the baseline's ``x^{1000000000} ≤ 1`` otherwise grows to any limit).

Usage::

    python benchmarks/bench_check.py [--baseline REV] [--timeout 120] [--memory 8] [FILE ...]

Default files: ``../shared/claims-bench/soundness.toml``, ``public.toml`` and
``tests/data/soundness_adversarial.toml``. It is a benchmark, not a timed test: the machine is shared, so
compare the columns of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the same parser, as a package (the [check] extra)
    import tomli as tomllib


ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_verify import _checkout  # noqa: E402 - the same baseline import shim as bench_verify

DEFAULT_FILES = [
    ROOT.parent / "shared" / "claims-bench" / "soundness.toml",
    ROOT.parent / "shared" / "claims-bench" / "public.toml",
    ROOT / "tests" / "data" / "soundness_adversarial.toml",
]
EXTRA = ("expect", "witness", "why", "truth")


def claims(path: pathlib.Path) -> list[tuple[str, str, str]]:
    """``(name, claim block without the suite's own fields, expect)`` per claim, decimals as written."""
    out = []
    for block in re.split(r"(?m)^\[\[claim\]\]\s*$", path.read_text(encoding="utf-8"))[1:]:
        meta = tomllib.loads(block)
        body = "\n".join(ln for ln in block.splitlines() if not re.match(rf"^\s*({'|'.join(EXTRA)})\s*=", ln))
        out.append((meta["name"], "[[claim]]\n" + body, meta.get("expect", "")))
    return out


def run_one(text: str, env: dict, timeout: float, memory_gb: float) -> tuple[str, float, float]:
    """(verdict, wall s, peak RSS MB) of one ``check`` process on one claim."""
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as fh:
        fh.write(text)
        path = fh.name
    cap = int(memory_gb * 2**30)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "infonce_bounds.numerics.cli", "check", path, "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=limit,
        text=True,
    )
    verdict = None
    timer = threading.Timer(timeout, proc.kill)  # reaped below by wait4, which gives this process's own rusage
    timer.start()
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode == -9:
        verdict = f"killed at {timeout:g} s"
    wall = time.perf_counter() - t0
    rss = ru.ru_maxrss / 1024
    os.unlink(path)
    if verdict is None:
        try:
            verdict = json.loads(out)["claims"][0]["verdict"]
        except (json.JSONDecodeError, KeyError, IndexError):
            verdict = f"exit {proc.returncode}"
    return verdict, wall, rss


def meets(verdict: str, expect: str) -> bool:
    return {
        "proved": verdict == "proved",
        "holds": verdict in ("proved", "verified numerically"),
        "refuted": verdict == "refuted",
        "ill-posed": verdict == "ill-posed",
        "refuted-or-undecided": verdict in ("refuted", "undecided"),
    }.get(expect, False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=pathlib.Path)
    ap.add_argument("--baseline", default=None, help="git revision to compare with (e.g. 836a883)")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--memory", type=float, default=8.0, help="address-space cap per process, GB")
    args = ap.parse_args()
    files = args.files or [f for f in DEFAULT_FILES if f.exists()]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory() as tmp:
        envs = {}
        if args.baseline:
            envs["baseline"] = {**env, "PYTHONPATH": _checkout(args.baseline, tmp)}
        envs["now"] = env
        try:
            rows = []
            for f in files:
                for name, text, expect in claims(f):
                    row = {"file": f.stem, "name": name, "expect": expect}
                    for label, e in envs.items():
                        row[label] = run_one(
                            text, {**e, "XDG_CACHE_HOME": os.path.join(tmp, label)}, args.timeout, args.memory
                        )
                    rows.append(row)
                    cells = "  ".join(
                        f"{lab}: {v[0][:20]:20s} {v[1]:6.1f} s {v[2]:6.0f} MB {'ok ' if meets(v[0], expect) else 'BAD'}"
                        for lab, v in ((lab, row[lab]) for lab in envs)
                    )
                    print(f"{f.stem[:12]:12s} {name[:44]:44s} {expect[:9]:9s} {cells}", flush=True)
        finally:
            if args.baseline:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", os.path.join(tmp, "baseline-src")],
                    check=False,
                )
    print()
    for label in envs:
        walls = [r[label][1] for r in rows]
        rss = [r[label][2] for r in rows if r[label][2] == r[label][2]]
        ok = sum(meets(r[label][0], r["expect"]) for r in rows)
        print(
            f"{label:8s}: {ok}/{len(rows)} as expected; wall median {statistics.median(walls):.1f} s, max {max(walls):.1f} s, "
            f"total {sum(walls):.0f} s; peak RSS median {statistics.median(rss):.0f} MB, max {max(rss):.0f} MB"
        )


if __name__ == "__main__":
    main()
