"""``infonce-bounds verify [RESULT…] [--json]``: check every step of the registered derivations."""

from __future__ import annotations

import json
import re
import sys
import time

# Only the cache's file-and-hash module at import time: an unchanged catalogue is answered from one
# cache entry without importing SymPy, numpy, python-flint or numba (the whole command then takes
# about a second); the catalogue and the checkers are imported on a miss.
from infonce_bounds.derivations import _checkcache

from ..progress import Progress
from ..report import _clip, _pad, _width  # column widths that ignore combining marks (ℓ̃, R̃)

HELP = "check every step of the registered derivations and say how each was checked"


def add_arguments(p) -> None:
    p.add_argument("results", nargs="*", metavar="RESULT", help="result names (default: all); see `show`")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    # the defaults are the engine's (checks.DEFAULTS), read only when a check runs: None here
    p.add_argument(
        "--trials", type=int, default=None, help="falsifier trials per inequality (default: the engine's, 100000)"
    )
    p.add_argument("--seed", type=int, default=None, help="falsifier seed (default: the engine's, 0)")
    p.add_argument(
        "--workers", type=int, default=2, help="worker processes checking steps in parallel (default 2; 1 = serial)"
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="check every step again instead of reusing results from the cache ($XDG_CACHE_HOME/infonce-bounds/verify)",
    )


def verify_all(
    names: list[str],
    trials: int | None = None,
    seed: int | None = None,
    progress: bool = True,
    workers: int = 2,
    use_cache: bool = True,
) -> dict:
    """Run the checks; returns {"results": [...], "seconds": …, "counts": {...}, "cache": {...}}.

    ``trials``/``seed`` ``None`` mean the engine's defaults (``checks.DEFAULTS``). Steps are checked
    by ``workers`` processes; results come from the content-hashed cache
    (``derivations.checks.runner``) unless ``use_cache`` is false. An unchanged catalogue is answered
    from one catalogue-level entry without building the derivations.
    """
    t0 = time.perf_counter()
    # the catalogue entry is keyed on the options as given: a default (None) stands for DEFAULTS,
    # whose source file is part of the engine version, so a changed default is a miss
    given = {"trials": trials, "seed": seed}
    whole = None
    if use_cache and not names:
        whole = _checkcache.catalogue_key(given)
        hit = _checkcache.load(whole)
        if isinstance(hit, dict) and isinstance(hit.get("results"), list):
            hit["seconds"] = time.perf_counter() - t0
            hit["cache"] = {**hit.get("cache", {}), "catalogue_hit": True, "cached": len(hit["results"]), "checked": 0}
            return hit
    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.checks import DEFAULTS, runner
    from infonce_bounds.derivations.ledger import Verdict

    options = {
        "trials": DEFAULTS["trials"] if trials is None else trials,
        "seed": DEFAULTS["seed"] if seed is None else seed,
    }
    wholes = []  # catalogue keys, taken before any source is read to build the catalogue
    if whole is not None:
        # stored under every way of asking for these options: each one given, or left to its default
        forms: list[dict] = [{}]
        for name, value in options.items():
            alts = [value, None] if value == DEFAULTS[name] else [value]
            forms = [{**f, name: a} for f in forms for a in alts]
        wholes = [_checkcache.catalogue_key(form) for form in forms]
    bar = Progress(1, "verify", enabled=progress)
    seen: list = []

    def counted(it):  # the whole catalogue is built lazily, while the first workers check: count as it comes
        for der in it:
            seen.append(der)
            bar.total = sum(len(d.steps) for d in seen)
            yield der

    ders = counted([catalogue.get(n) for n in names] if names else catalogue.iter_derivations())

    def tick(name, res, _cached):
        bar.update(1, f"{name}: {res.step}")

    by_der, stats = runner.verify_derivations(ders, options, workers=workers, use_cache=use_cache, on_result=tick)
    bar.close()
    rows = []
    for der in seen:
        for res in by_der[der.name]:
            rows.append({"result": der.name, "source": der.source, **res.as_dict()})
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    summary = {
        "results": rows,
        "options": options,
        "seconds": time.perf_counter() - t0,
        "counts": counts,
        "symbolic": sum(r["symbolic"] for r in rows),
        "certified": sum(r["certified"] for r in rows),
        "falsifier_only": sum(r["verdict"] == str(Verdict.VERIFIED) and r["kind"] == "inequality" for r in rows),
        "cache": {**stats, "catalogue_hit": False},
    }
    for key in wholes:
        _checkcache.store(key, summary)
    return summary


#: what the worst ratio means, in the footer of every table that prints it (``verify``, the report)
WORST_RATIO_MEANING = (
    "worst ratio: for an inequality small ≤ big (a ≥ claim is read with its sides swapped), the largest "
    "small/big the falsifier met over the points where big > 0, re-evaluated in high precision. "
    "≤ 1: no violation found, and 1 means the bound is attained (tight); > 1: the claim fails at that point "
    "(the row is refuted, with a counterexample replayed exactly). Negative: wherever big > 0 the small side "
    "was negative, so the claim held with the two sides of opposite sign, farther from failing than any ratio "
    "in [0, 1]. For an identity checked on exact finite laws, 1 means both sides agreed. — (or no number): "
    "no ratio defined (no inequality, or no point with big > 0)."
)

#: one line per column of ``format_table``, printed under it
VERIFY_COLUMNS = (
    ("result", "the derivation (`infonce-bounds show RESULT` prints it)"),
    ("step", "the step's name, as in the derivation"),
    ("kind", "definition, identity, inequality, chain (of cited links), expansion in 1/k, or limit"),
    (
        "verdict",
        "proved (symbolic reduction, or certified interval arithmetic over the whole stated domain), "
        "verified numerically (no proof; the falsifier found no violation), refuted (an exact counterexample), "
        "defined (a definition: nothing to check), undecided (none of these)",
    ),
    ("method", "how the verdict was reached, with the number of trials, boxes or laws used"),
    (
        "worst ratio / evidence",
        "the worst ratio (below), or the evidence for a step without one (e.g. the largest relative "
        "difference of an identity's sides); COUNTEREXAMPLE and its point for a refuted step",
    ),
    ("s", "seconds the check took (when it ran; a cached row keeps the time of the run that checked it)"),
)


def footer(width: int = 110) -> str:
    """The meaning of every column of ``format_table``, including the sign convention of the worst ratio
    (wrapped to ``width`` characters)."""
    import textwrap

    name_w = max(len(c) for c, _ in VERIFY_COLUMNS)
    out = ["Columns:"]
    for c, text in VERIFY_COLUMNS:
        out += textwrap.wrap(text, width, initial_indent=f"  {c.ljust(name_w)}  ", subsequent_indent=" " * (name_w + 4))
    return "\n".join([*out, "", *textwrap.wrap(WORST_RATIO_MEANING, width)])


_COUNT_NOUN = re.compile(r"(?<![\d.,])\b1 (box|law|trial|point|evaluation|step|claim)(?:es|s)\b")


def singular_counts(text: str) -> str:
    """``"certified on 1 boxes"`` → ``"certified on 1 box"``: the checkers' messages put "1" before a plural
    noun; a table a reader sees says it in English (the stored results keep the checkers' text)."""
    return _COUNT_NOUN.sub(r"1 \1", text)


def format_table(summary: dict) -> str:
    head = ("result", "step", "kind", "verdict", "method", "worst ratio / evidence", "s")
    rows = []
    for r in summary["results"]:
        ev = f"{r['worst_ratio']:.6g}" if r["worst_ratio"] is not None else r["evidence"]
        if r["counterexample"]:
            ev = "COUNTEREXAMPLE " + ", ".join(f"{k}={v}" for k, v in r["counterexample"].items())
        rows.append(
            (
                r["result"],
                r["step"],
                r["kind"],
                r["verdict"],
                singular_counts(r["method"]),
                singular_counts(ev),
                f"{r['seconds']:.2f}",
            )
        )
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
    cache = summary.get("cache") or {}
    if cache:
        lines.append(
            f"cache: {cache.get('cached', 0)} step(s) reused, {cache.get('checked', 0)} checked"
            + (" (catalogue unchanged)" if cache.get("catalogue_hit") else "")
            + f"; {_checkcache.cache_dir()}"
        )
    lines += ["", footer()]
    return "\n".join(lines)


def run(args) -> int:
    if args.results:
        from infonce_bounds.derivations import catalogue

        for name in args.results:
            catalogue.get(name)  # unknown names: one-line error before any work
    if args.trials is not None and args.trials < 1:
        raise ValueError(f"--trials must be ≥ 1, got {args.trials}")
    if args.workers < 1:
        raise ValueError(f"--workers must be ≥ 1, got {args.workers}")
    summary = verify_all(
        args.results, args.trials, args.seed, progress=not args.json, workers=args.workers, use_cache=not args.no_cache
    )
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
