"""CPU time of every exact-finite-law step of the catalogue (``checks.laws.law_check``): the one-law loop vs
law batches, measured in one run, one process, same options (not a test).

    PYTHONPATH=. python benchmarks/bench_laws.py [--trials 100000] [NAME ...]

For each step whose checker is a law check (bias, prior-free §3 / appendix-A modules), the step is checked
twice: ``vectorise=False`` (the search scores one law at a time, in floats, redoing at 30 digits every law
whose double pass overflows) and the default (``checks.laws.batch_evaluator``: numpy batches, long double
for the overflowing laws). Printed per step: CPU seconds of each, their ratio, both verdicts and worst ratios;
then the totals and the load average (the machine is shared: read CPU, not wall, seconds). A verdict that
differs between the two columns is flagged with ``!!``.
"""

from __future__ import annotations

import argparse
import time


def _load() -> str:
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:  # pragma: no cover - not Linux
        return "?"


def main() -> None:
    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.checks import check_step

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="derivations (default: all)")
    ap.add_argument("--trials", type=int, default=100_000)
    args = ap.parse_args()
    names = args.names or catalogue.names()
    print(f"load average before: {_load()}")
    tot = {False: 0.0, True: 0.0}
    flagged = 0
    for name in names:
        for st in catalogue.get(name).steps:
            if st.check is None or not hasattr(st.check, "law_claim"):
                continue
            row = {}
            for vec in (False, True):
                c0 = time.process_time()
                res = check_step(st, trials=args.trials, seed=0, vectorise=vec)
                row[vec] = (time.process_time() - c0, res)
                tot[vec] += row[vec][0]
            (t0, r0), (t1, r1) = row[False], row[True]
            same = r0.verdict == r1.verdict
            flagged += not same
            print(
                f"{'  ' if same else '!!'} {t0:7.2f} {t1:6.2f} {t0 / max(t1, 1e-9):5.1f}x  {name}/{st.name[:48]:48s} "
                f"{r0.verdict.value} {r0.worst_ratio!r} | {r1.verdict.value} {r1.worst_ratio!r}",
                flush=True,
            )
    print(
        f"total CPU s: one law at a time {tot[False]:.1f}, batches {tot[True]:.1f}, ratio {tot[False] / tot[True]:.1f}x"
    )
    print(f"verdicts that differ: {flagged}; load average after: {_load()}")


if __name__ == "__main__":
    main()
