"""``infonce-bounds check FILE [--json]``: check a user's own claims (a TOML file) with the ledger's checkers.

The file format is described in ``derivations/userclaims.py`` and in the README ("Checking your own
claims"). Every claim is shown *as read* (the table's "read as" column, then its LaTeX re-rendering and
what the second reader said). Exit status: 0 every claim as expected (no ``expect``: not refuted), 1 a
claim refuted or an ``expect`` unmet, 2 a malformed or ambiguous file (one line naming the claim and the
field) or an unexpected ill-posed claim, 3 an internal error in a checker or a worker process that died
checking a claim (that claim's verdict is "error"; the others are still checked and printed). Claims are
checked by ``--workers`` processes through ``verify``'s runner (``derivations.run``); an unchanged claim is
answered from the run cache (its "s" column says "cached") unless ``--no-cache``.
"""

from __future__ import annotations

import json

from infonce_bounds.derivations.checks import DEFAULTS
from infonce_bounds.derivations.userclaims import check

from ..report import _clip, _pad, _width  # column widths that ignore combining marks

HELP = "check your own claims (a TOML file of LaTeX or SymPy statements with ranges) and say how each was checked"


def add_arguments(p) -> None:
    p.add_argument("file", metavar="FILE", help="a TOML claim file ([[claim]] tables: name, claim or sympy, where, …)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument(
        "--trials",
        type=int,
        default=DEFAULTS["trials"],
        help=f"falsifier trials per inequality (default {DEFAULTS['trials']})",
    )
    p.add_argument("--seed", type=int, default=DEFAULTS["seed"], help="falsifier seed (default 0)")
    p.add_argument(
        "--workers", type=int, default=2, help="worker processes checking claims in parallel (default 2; 1 = serial)"
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="check every claim again instead of reusing results from the cache ($XDG_CACHE_HOME/infonce-bounds/verify)",
    )


def _evidence(c: dict) -> str:
    if c["counterexample"]:
        return "COUNTEREXAMPLE " + ", ".join(f"{k}={v}" for k, v in c["counterexample"].items())
    return f"{c['worst_ratio']:.6g}" if c["worst_ratio"] is not None else c["evidence"]


def format_report(out: dict) -> str:
    """One row per claim (with the claim as read), the counts, then each claim's LaTeX as read and coverage."""
    head = ("claim", "read as", "kind", "verdict", "method", "worst ratio / evidence", "s")
    rows = [
        (
            c["name"],
            c["read_as_sympy"],
            c["kind"],
            c["verdict"] + ("" if c["as_expected"] or c["expect"] is None else f" (expected {c['expect']})"),
            c["method"],
            _evidence(c),
            "cached" if c.get("cached") else f"{c['seconds']:.2f}",
        )
        for c in out["claims"]
    ]
    caps = (34, 60, 10, 44, 50, 56, 7)
    widths = [min(max(_width(str(x[i])) for x in [head, *rows]), cap) for i, cap in enumerate(caps)]

    def fmt(row):
        return "  ".join(_pad(_clip(str(v), w), w) for v, w in zip(row, widths)).rstrip()

    lines = [fmt(head), "  ".join("-" * w for w in widths)] + [fmt(r) for r in rows]
    n_sym = sum(c["symbolic"] for c in out["claims"])
    n_cert = sum(c["certified"] for c in out["claims"])
    lines += [
        "",
        f"{len(rows)} claims in {out['seconds']:.1f} s: "
        + ", ".join(f"{v} {k}" for k, v in out["counts"].items())
        + f" ({n_sym} symbolic, {n_cert} interval-certified)",
    ]
    cache = out.get("cache") or {}
    if cache:
        lines.append(
            f"cache: {cache['cached']} claim(s) answered from the cache (s column: cached), {cache['checked']} checked"
            + f" by {cache['workers']} worker process(es)"
        )
    if any(c["expect"] is not None for c in out["claims"]):
        lines.append(
            f"{len(rows) - len(out['unexpected'])} as expected"
            + (f"; not as expected: {', '.join(out['unexpected'])}" if out["unexpected"] else "")
        )
    lines += ["", "read as (LaTeX, re-rendered from what was read; second reader):"]
    for c in out["claims"]:
        lines.append(f"  {c['name']}: {c['read_as_latex']}   [second reader: {c['second_reader']}]")
    lines += ["", "covered:"]
    for c in out["claims"]:
        uses = f" (uses {', '.join(c['uses'])})" if c["uses"] else ""
        why = f"; not proved: {c['unproved']}" if c.get("unproved") else ""
        lines.append(f"  {c['name']}{uses}: {c['covered']}{why}")
    return "\n".join(lines)


def run(args) -> int:
    if args.trials < 1:
        raise ValueError(f"--trials must be ≥ 1, got {args.trials}")
    if args.workers < 1:
        raise ValueError(f"--workers must be ≥ 1, got {args.workers}")
    from ..progress import Progress

    bar = None
    reading = None

    def read(done: int, total: int) -> None:
        nonlocal reading
        if reading is None:  # a long file takes a while to read (~25 ms a claim): a bar of its own
            reading = Progress(total, "read", enabled=total > 50)
        reading.update(done - reading.n)
        if done == total:
            reading.close()

    def tick(done: int, total: int, name: str, verdict: str) -> None:
        nonlocal bar
        if bar is None:  # a bar (on a terminal) for files of more than a few claims
            bar = Progress(total, "check", enabled=total > 3)
        bar.update(done - bar.n, f"{name}: {verdict}")

    out = check(  # under the check budget, through verify's runner (workers, cache)
        args.file,
        trials=args.trials,
        seed=args.seed,
        on_result=tick,
        workers=args.workers,
        use_cache=not args.no_cache,
        on_read=read,
    )
    if bar is not None:
        bar.close()
    print(json.dumps(out, indent=1, ensure_ascii=False) if args.json else format_report(out))
    return out["exit_status"]
