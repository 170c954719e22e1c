"""``infonce-bounds check FILE [--json]``: check a user's own claims (a TOML file) with the ledger's checkers.

The file format is described in ``derivations/userclaims.py`` and in the README ("Checking your own
claims"). Exit status 0 when no claim is refuted, 1 when one is, 2 for a malformed file (one line
naming the claim and the field) or a claim that is ill-posed (undefined at a point of its stated domain).
"""

from __future__ import annotations

import json

from infonce_bounds.derivations.checks import DEFAULTS
from infonce_bounds.derivations.userclaims import check

from .verify import format_table

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


def as_verify_summary(out: dict) -> dict:
    """The claims as rows of ``verify``'s table: the file is the result, each claim a step."""
    rows = [{"result": out["file"], "step": c["name"], **c} for c in out["claims"]]
    return {
        "results": rows,
        "seconds": out["seconds"],
        "counts": out["counts"],
        "symbolic": sum(r["symbolic"] for r in rows),
        "certified": sum(r["certified"] for r in rows),
        "falsifier_only": sum(r["verdict"] == "verified numerically" and r["kind"] == "inequality" for r in rows),
    }


def format_report(out: dict) -> str:
    """``verify``'s table, then what each verdict covers of the stated domain."""
    table = format_table(as_verify_summary(out))
    head, _, last = table.rpartition("\n")
    lines = [head + "\n" + last.replace(" steps in ", " claims in ", 1), "", "covered:"]
    for c in out["claims"]:
        uses = f" (uses {', '.join(c['uses'])})" if c["uses"] else ""
        lines.append(f"  {c['name']}{uses}: {c['covered']}")
    return "\n".join(lines)


def run(args) -> int:
    if args.trials < 1:
        raise ValueError(f"--trials must be ≥ 1, got {args.trials}")
    from infonce_bounds.derivations.checks.budget import CHECK, default_budget_set

    with default_budget_set(CHECK):  # a user's claim: 10 s of wall time, symbolic calls under a deadline and a cap
        out = check(args.file, trials=args.trials, seed=args.seed)
    print(json.dumps(out, indent=1, ensure_ascii=False) if args.json else format_report(out))
    if out["counts"].get("ill-posed", 0):  # a claim that is not a statement on its domain: malformed input
        return 2
    return 1 if out["refuted"] else 0
