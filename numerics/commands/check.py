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
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="check the claims on the Dask cluster at ADDRESS ([tcp://]HOST:PORT) instead of --workers local "
        "processes; the same verdicts (needs the [distributed] extra)",
    )


def _evidence(c: dict) -> str:
    if c["counterexample"]:
        # an ill-posed claim's point is where a side is undefined, not where the claim fails
        label = "UNDEFINED AT " if c["verdict"] == "ill-posed" else "COUNTEREXAMPLE "
        return label + ", ".join(f"{k}={v}" for k, v in c["counterexample"].items())
    return f"{c['worst_ratio']:.6g}" if c["worst_ratio"] is not None else c["evidence"]


#: one line per column of ``format_report``'s table, printed after the report (as ``verify``'s footer)
CHECK_COLUMNS = (
    ("claim", "the claim's name in the file"),
    ("read as", "the claim as read (SymPy); the LaTeX re-rendered from it is listed below the table"),
    ("kind", "inequality, identity or expansion/limit, from the relation written"),
    (
        "verdict",
        "proved (symbolic reduction, certified interval arithmetic or a proof route, over the whole stated "
        "domain), verified numerically (no proof; no violation found), refuted (an exact counterexample the Arb "
        "gate confirmed), ill-posed (a side undefined or infinite at a point of the domain, named), undecided, "
        "error (an internal error: its message in method)",
    ),
    ("method", "how the verdict was reached, with the number of trials or boxes used"),
    (
        "worst ratio / evidence",
        "the worst ratio (below), or the evidence for a claim without one; COUNTEREXAMPLE and its point for a "
        "refuted claim, UNDEFINED AT and its point for an ill-posed one",
    ),
    ("s", "seconds the check took (cached: answered from the cache)"),
)


def footer(width: int = 110) -> str:
    """The meaning of every column of the table and the sign convention of the worst ratio (``verify``'s)."""
    import textwrap

    from .verify import WORST_RATIO_MEANING

    name_w = max(len(c) for c, _ in CHECK_COLUMNS)
    out = ["Columns:"]
    for c, text in CHECK_COLUMNS:
        out += textwrap.wrap(text, width, initial_indent=f"  {c.ljust(name_w)}  ", subsequent_indent=" " * (name_w + 4))
    return "\n".join([*out, "", *textwrap.wrap(WORST_RATIO_MEANING, width)])


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
        if c.get("read_as_written"):  # SymPy's evaluation cancelled part of it: what was written, beside
            lines.append(f"    as written (SymPy evaluates it to the line above): {c['read_as_written']}")
    lines += ["", "covered:"]
    for c in out["claims"]:
        uses = f" (uses {', '.join(c['uses'])})" if c["uses"] else ""
        why = f"; not proved: {c['unproved']}" if c.get("unproved") else ""
        lines.append(f"  {c['name']}{uses}: {c['covered']}{why}")
    return "\n".join([*lines, "", footer()])


def run(args) -> int:
    if args.trials < 1:
        raise ValueError(f"--trials must be ≥ 1, got {args.trials}")
    if args.workers < 1:
        raise ValueError(f"--workers must be ≥ 1, got {args.workers}")
    if args.scheduler is not None:  # a bad address, no dask or no answer: one line, exit 2, before any work
        from infonce_bounds.derivations.run.dask_backend import connect

        connect(args.scheduler).close()
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
        scheduler=args.scheduler,
    )
    if bar is not None:
        bar.close()
    if args.json:
        from ..jsonout import check_json

        print(json.dumps(check_json(out), indent=1, ensure_ascii=False))
    else:
        print(format_report(out))
    return out["exit_status"]
