"""``infonce-bounds errata [--json]``: every erratum of the paper, re-found by checking.

For each ``Erratum`` of ``derivations.paper.errata()`` the printed step and the corrected step are run
through the ledger now; the evidence printed (counterexample, verdicts, methods) comes from that run,
never from stored text. Exit status 1 when an erratum's printed step is no longer refuted or its
correction is not proved (the erratum list then no longer matches the checks).
"""

from __future__ import annotations

import sys
import time

from infonce_bounds.derivations import catalogue, paper
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import Verdict

HELP = "every erratum of the paper: the printed step refuted and the correction proved, checked now"

#: falsifier trials per step: refutations of these printed steps are found in tens of trials
DEFAULT_TRIALS = 5000


def add_arguments(p) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="print one JSON object instead of the text report")
    g.add_argument("--latex", action="store_true", help="LaTeX (a fragment needing amsmath only)")
    p.add_argument("--standalone", action="store_true", help="with --latex: a complete document for pdflatex")
    p.add_argument(
        "--trials", type=int, default=DEFAULT_TRIALS, help=f"falsifier trials per step (default {DEFAULT_TRIALS})"
    )
    p.add_argument("--seed", type=int, default=0, help="falsifier seed (default 0)")


def _run_step(result: str, name: str, trials: int, seed: int) -> dict:
    if not name:
        return {}
    try:
        step = catalogue.get(result).step(name)
    except KeyError as exc:
        return {"name": name, "verdict": "missing", "method": "", "evidence": str(exc), "counterexample": None}
    t0 = time.perf_counter()
    res = check_step(step, trials=trials, seed=seed)
    return {
        "name": name,
        "statement": step.statement,
        "provenance": step.provenance,
        "reference": step.reference,
        "verdict": str(res.verdict),
        "method": res.method,
        "evidence": res.evidence,
        "counterexample": res.counterexample,
        "worst_ratio": res.worst_ratio,
        "seconds": round(time.perf_counter() - t0, 3),
    }


def check_erratum(e: paper.Erratum, trials: int, seed: int) -> dict:
    """Run one erratum's two steps; ``ok`` is false when the printed step is not refuted or the correction
    is not proved. A textual misprint with no step (allowed for kinds other than "false as printed") is
    reported with its evidence and counts as ok: there is nothing to run."""
    printed = _run_step(e.result, e.printed_step, trials, seed)
    corrected = _run_step(e.result, e.corrected_step, trials, seed)
    problems = []
    if printed and printed["verdict"] != str(Verdict.REFUTED):
        problems.append(f"printed step is {printed['verdict']}, not refuted")
    if corrected and corrected["verdict"] != str(Verdict.PROVED):
        problems.append(f"corrected step is {corrected['verdict']}, not proved")
    return {
        "location": e.location,
        "as_printed": e.as_printed,
        "kind": e.kind,
        "result": e.result,
        "printed_step": printed or None,
        "corrected_step": corrected or None,
        "evidence": e.evidence,
        "correction": e.correction,
        "consequence": e.consequence,
        "checked_by_steps": bool(printed or corrected),
        "ok": not problems,
        "problems": problems,
    }


def collect(trials: int = DEFAULT_TRIALS, seed: int = 0) -> dict:
    rows = [check_erratum(e, trials, seed) for e in paper.errata()]
    return {"errata": rows, "count": len(rows), "ok": all(r["ok"] for r in rows), "trials": trials, "seed": seed}


def _cx(cx: dict | None) -> str:
    return ", ".join(f"{k_} = {v_}" for k_, v_ in cx.items()) if cx else ""


def format_text(data: dict) -> str:
    out = []
    for n_, r in enumerate(data["errata"], 1):
        out.append(f"{n_}. {r['location']}  [{r['kind']}]  ({r['result']})")
        out.append(f"   as printed:  {r['as_printed']}")
        p_, c_ = r["printed_step"], r["corrected_step"]
        if p_:
            line = f"   printed step: {p_['name']}\n     → {p_['verdict']} ({p_['method']})"
            if p_.get("counterexample"):
                line += f"\n     counterexample: {_cx(p_['counterexample'])}"
            out.append(line)
        if r["evidence"]:
            out.append(f"   evidence:    {r['evidence']}")
        if c_:
            out.append(f"   corrected step: {c_['name']}\n     → {c_['verdict']} ({c_['method']})")
        if not r["checked_by_steps"]:
            out.append("   checked:     no ledger step (a textual slip; the evidence line says what was compared)")
        out.append(f"   correction:  {r['correction']}")
        out.append(f"   consequence: {r['consequence']}")
        if r["problems"]:
            out.append(f"   PROBLEM: {'; '.join(r['problems'])}")
        out.append("")
    bad = sum(not r["ok"] for r in data["errata"])
    out.append(
        f"{data['count']} errata; "
        + ("every printed step refuted and every correction proved now" if not bad else f"{bad} no longer hold")
        + f" (falsifier trials {data['trials']}, seed {data['seed']})"
    )
    return "\n".join(out)


def run(args) -> int:
    from .. import params

    params.read("trials", args.trials, "--trials")
    params.read("seed", args.seed, "--seed")
    if getattr(args, "standalone", False) and not getattr(args, "latex", False):
        raise ValueError("--standalone needs --latex")
    data = collect(args.trials, args.seed)
    if getattr(args, "latex", False):
        from infonce_bounds.derivations.render import errata_document, errata_latex

        print(errata_document(data) if args.standalone else errata_latex(data), end="\n")
    elif args.json:
        from ..jsonout import verdict_json
        from ..report import render_json

        steps = ("printed_step", "corrected_step")  # counterexamples as numbers, their exact texts beside
        rows = [
            {**r, **{s_: verdict_json(r[s_]) for s_ in steps if isinstance(r.get(s_), dict)}} for r in data["errata"]
        ]
        print(render_json({**data, "errata": rows}))
    else:
        print(format_text(data))
    if not data["ok"]:
        print("errata: an erratum no longer matches its checks (see PROBLEM lines)", file=sys.stderr)
        return 1
    return 0
