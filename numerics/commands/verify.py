"""``infonce-bounds verify [RESULT…] [--json]``: check every step of the registered derivations."""

from __future__ import annotations

import json
import sys
import time

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks import DEFAULTS
from infonce_bounds.derivations.ledger import Verdict

from ..progress import Progress
from ..report import _clip, _pad, _width  # column widths that ignore combining marks (ℓ̃, R̃)

HELP = "check every step of the registered derivations and say how each was checked"


def add_arguments(p) -> None:
    p.add_argument("results", nargs="*", metavar="RESULT", help="result names (default: all); see `show`")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument(
        "--trials",
        type=int,
        default=DEFAULTS["trials"],
        help=f"falsifier trials per inequality (default {DEFAULTS['trials']})",
    )
    p.add_argument("--seed", type=int, default=DEFAULTS["seed"], help="falsifier seed (default 0)")


def verify_all(names: list[str], trials: int, seed: int, progress: bool = True) -> dict:
    """Run the checks; returns {"results": [...], "seconds": …, "counts": {...}}."""
    ders = [catalogue.get(n) for n in names] if names else catalogue.all_derivations()
    n_steps = sum(len(d.steps) for d in ders)
    rows = []
    t0 = time.perf_counter()
    bar = Progress(n_steps, "verify", enabled=progress)
    for der in ders:
        for res in der.verify(trials=trials, seed=seed):
            rows.append({"result": der.name, "source": der.source, **res.as_dict()})
            bar.update(1, f"{der.name}: {res.step}")
    bar.close()
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return {
        "results": rows,
        "seconds": time.perf_counter() - t0,
        "counts": counts,
        "symbolic": sum(r["symbolic"] for r in rows),
        "certified": sum(r["certified"] for r in rows),
        "falsifier_only": sum(r["verdict"] == str(Verdict.VERIFIED) and r["kind"] == "inequality" for r in rows),
    }


def format_table(summary: dict) -> str:
    head = ("result", "step", "kind", "verdict", "method", "worst ratio / evidence", "s")
    rows = []
    for r in summary["results"]:
        ev = f"{r['worst_ratio']:.6g}" if r["worst_ratio"] is not None else r["evidence"]
        if r["counterexample"]:
            ev = "COUNTEREXAMPLE " + ", ".join(f"{k}={v}" for k, v in r["counterexample"].items())
        rows.append((r["result"], r["step"], r["kind"], r["verdict"], r["method"], ev, f"{r['seconds']:.2f}"))
    caps = (22, 44, 10, 20, 60, 60, 6)
    widths = [min(max(_width(str(x[i])) for x in [head, *rows]), cap) for i, cap in enumerate(caps)]

    def fmt(row):
        return "  ".join(_pad(_clip(str(c), w), w) for c, w in zip(row, widths)).rstrip()

    lines = [fmt(head), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]
    c = summary["counts"]
    lines.append("")
    lines.append(
        f"{len(rows)} steps in {summary['seconds']:.1f} s: "
        + ", ".join(f"{v} {k}" for k, v in c.items())
        + f" ({summary['symbolic']} symbolic, {summary['certified']} interval-certified, "
        f"{summary['falsifier_only']} inequalities falsifier-only)"
    )
    return "\n".join(lines)


def run(args) -> int:
    for name in args.results:
        catalogue.get(name)  # unknown names: one-line error before any work
    if args.trials < 1:
        raise ValueError(f"--trials must be ≥ 1, got {args.trials}")
    summary = verify_all(args.results, args.trials, args.seed, progress=not args.json)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(format_table(summary))
    unexpected = [r for r in summary["results"] if not r["as_expected"]]
    errata = sum(r["expected"] == "refuted" and r["as_expected"] for r in summary["results"])
    if errata:
        print(
            f"{errata} printed step(s) refuted as expected (errata of the paper; see `infonce-bounds errata`)",
            file=sys.stderr,
        )
    if unexpected:
        print(
            f"{len(unexpected)} step(s) not as expected: "
            + "; ".join(f"{r['result']}: {r['step']} ({r['verdict']})" for r in unexpected[:5]),
            file=sys.stderr,
        )
    return 1 if unexpected else 0
