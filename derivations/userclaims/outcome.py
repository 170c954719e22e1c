"""One user claim checked and reported: ``check_claim`` (the ledger's checker, or the citation of the claims
it ``uses``), ``coverage`` (what the verdict establishes, in words) and the file's ``expect`` and exit status
(``meets``, ``exit_status``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import Step, StepResult, Verdict
from .build import UserClaim, catalogue_step


def _sampled_box(step: Step, opts: Mapping[str, Any], identity: bool) -> str:
    """The box the numeric attack actually drew from: unbounded ends capped, vector lengths capped."""
    cap = float(opts["real_cap"])
    k_cap = min(int(opts["k_cap"]), 6) if identity else int(opts["k_cap"])
    lengths = set()
    for node in sp.preorder_traversal(sp.Tuple(step.lhs, step.rhs)):
        if isinstance(node, (sp.Sum, sp.Product)):
            for lim in node.limits:
                for end in lim[1:]:
                    lengths |= {s_ for s_ in sp.sympify(end).free_symbols if isinstance(s_, sp.Symbol)}
    parts = []
    for sym, (lo, hi) in step.domain.ranges.items():
        lo_f = float(lo) if lo.is_finite else None
        hi_f = float(hi) if hi.is_finite else None
        if lo_f is None and hi_f is None:
            lo_f, hi_f = -cap, cap
        elif lo_f is None:
            lo_f = hi_f - cap
        elif hi_f is None:
            hi_f = max(lo_f * cap, lo_f + cap) if lo_f > 0 else lo_f + cap
        if sym in lengths:
            hi_f = min(hi_f, max(lo_f, k_cap))
        label = (
            f"{sym}_j" if any(a_.base.label == sym for a_ in sp.Tuple(step.lhs, step.rhs).atoms(sp.Indexed)) else sym
        )
        parts.append(f"{label} ∈ [{lo_f:.6g}, {hi_f:.6g}]{'∩ℤ' if sym.is_integer else ''}")
    return ", ".join(parts) if parts else "(no free symbols)"


def coverage(step: Step, res: StepResult, opts: Mapping[str, Any]) -> tuple[str, bool]:
    """What part of the stated domain the verdict covers, in words, and whether it is all of it."""
    stated = step.domain.describe()
    if res.verdict == Verdict.PROVED:
        if res.symbolic and step.kind in ("limit", "expansion"):
            how = f"symbolic in {step.var} → {step.point}, for every value of the other symbols"
        elif res.symbolic:
            how = "symbolic: the whole stated domain"
        elif (m := re.search(r"\b(\w+) route: ", res.method or "")) is not None:
            how = f"the {m.group(1)} route's reduction: the whole stated domain"
        else:
            how = "interval arithmetic: boxes covering the whole stated domain"
        if step.kind == "inequality" and res.trials:
            how += f"; falsifier attacked {_sampled_box(step, opts, False)}"
        return how, True
    if res.verdict == Verdict.UNDECIDED:
        return f"nothing established on {stated}", False
    if res.verdict == Verdict.REFUTED:
        found = (
            f" (after {res.trials} points of {_sampled_box(step, opts, step.kind != 'inequality')})"
            if res.trials
            else ""
        )
        return f"refuted: the counterexample lies in the stated domain {stated}{found}", False
    if step.kind == "identity":
        return f"{res.trials} random points of {_sampled_box(step, opts, True)} (50 digits)", False
    if step.kind == "inequality":
        return f"{res.trials} falsifier points of {_sampled_box(step, opts, False)}", False
    return f"the coefficients/limit value spot-checked on {_sampled_box(step, opts, True)}", False


def check_claim(
    claim: UserClaim, cited: Mapping[str, StepResult], step_of: Mapping[str, Step], opts: Mapping[str, Any]
) -> tuple[StepResult, dict[str, str]]:
    """``check_step`` of the claim, or for a claim with ``uses`` the citation route first
    (``checks.citation.check_citing``); with the verdict of each claim it uses (name → verdict string).

    ``cited``: the results of the file's earlier claims it uses (the runner's dependency waves; one that met an
    internal error is absent); a catalogue step it uses is checked here (its verify cache, else a check)."""
    from ..checks import DEFAULTS, check_step

    run_opts = {k_: v_ for k_, v_ in opts.items() if k_ != "cited"}
    if not claim.uses:
        return check_step(claim.step, **run_opts), {}
    from ..checks.chain import _cited_result
    from ..checks.citation import check_citing

    full = {**DEFAULTS, **run_opts}
    parts = []
    for u_ in claim.uses:
        if u_ in step_of:
            parts.append((u_, step_of[u_], cited.get(u_)))
        else:
            step = catalogue_step(u_)
            parts.append((u_, step, _cited_result(u_.partition(" / ")[0], step, full)))
    res = check_citing(claim.step, parts, full, lambda: check_step(claim.step, **run_opts), claim.substitution)
    return res, {u_: (str(r_.verdict) if r_ is not None else ERROR) for u_, _, r_ in parts}


ERROR = "error"


ILL_POSED = "ill-posed"  #: ledger.Verdict.ILL_POSED's string, compared as a string (another helper adds it)


def meets(verdict: str, expect: str | None) -> bool:
    """Whether a verdict meets a claim's ``expect``; with no ``expect``, anything but refuted, ill-posed, error.

    ``"holds"`` is met by proved or verified numerically; the others by the verdict of the same name.
    """
    if verdict == ERROR:
        return False
    if expect is None:
        return verdict not in (str(Verdict.REFUTED), ILL_POSED)
    if expect == "holds":
        return verdict in (str(Verdict.PROVED), str(Verdict.VERIFIED))
    return verdict == expect


def exit_status(rows: list[dict]) -> int:
    """3 if a claim met an internal error; else 2 if one is ill-posed unexpectedly; else 1 if one is refuted
    or misses its ``expect``; else 0 (a malformed file is 2 before any check)."""
    if any(r_["verdict"] == ERROR for r_ in rows):
        return 3
    if any(r_["verdict"] == ILL_POSED and not r_["as_expected"] for r_ in rows):
        return 2
    return 1 if any(not r_["as_expected"] for r_ in rows) else 0
