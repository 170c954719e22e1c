"""Route "monotone": ``small ≤ big`` from ``gap(end) = 0`` and the sign of ``gap' = derivative`` on one side.

Claim shape: an inequality ``small ≤ big`` (or ``big ≥ small``; never strict: the gap vanishes at ``end``),
``gap = big − small``, on a domain where the scalar ``var`` ranges over ``[end, hi]`` (``side="left"``: the
domain starts at ``end`` and ``gap' ≥ 0`` to its right) or ``[lo, end]`` (``side="right"``: it ends at ``end``
and ``gap' ≤ 0`` to its left); the other symbols range over any box (no constraint may involve ``var``).
Then gap(x) = ∫_end^x gap' ≥ 0 for every x of the range (fundamental theorem of calculus).

Hint: ``Step(..., route=("monotone", {"end": e, "derivative": d, "var": x, "side": "left"}))`` (``side``
optional, ``"left"`` by default). The route proves, and proves only when all hold:

1. ``gap(end) = 0`` and ``d/dvar gap = derivative``: SymPy reduces each difference to 0 (a symbolic identity,
   for every value of the other symbols);
2. ``gap`` is continuously differentiable on the range: it is built from analytic heads only (``+``, ``·``,
   powers, exp, log, the trigonometric and hyperbolic functions and their inverses, erf; no Abs, max, min,
   floor or piecewise), and ``gap`` and ``derivative`` are *defined* on the whole domain
   (``wellposed.check_wellposed``: every log argument > 0, every divisor ≠ 0, … established symbolically
   or by Arb over the box; a pole inside the range is caught here, not by the falsifier);
3. the sign of ``derivative`` on the side of ``end``: SymPy's structural deduction after ``var = end ± v``,
   ``v > 0`` (``signs.certain_nonnegative``, constants signed by Arb), or else certified interval
   arithmetic on the domain box (``interval.certify_nonnegative``, Arb; never floats).

Cover: the domain's range of ``var`` (the half-line from ``end`` when the sign is symbolic and the gap is
defined there too; and, when the sign comes from Arb, the certified box), the other
symbols over their assumption ranges (``custom.proof_cover``); a proof whose cover does not contain the
stated domain is not claimed. The box falsifier runs for the record: a counterexample it confirms through
the refutation gate refutes the claim; without a proof the verdict is at most "verified numerically".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Domain, Step, StepResult, covers, free_names
from .budget import run_symbolic
from .custom import proof_cover, proof_result, with_range
from .falsifier import falsify
from .interval import certify_nonnegative
from .sampling import _sides
from .signs import certain_nonnegative
from .wellposed import check_wellposed

#: the heads a gap may be built from: analytic wherever defined, so "defined on the range" means C¹ there
SMOOTH_HEADS = (
    sp.Add,
    sp.Mul,
    sp.Pow,
    sp.exp,
    sp.log,
    sp.sin,
    sp.cos,
    sp.tan,
    sp.sinh,
    sp.cosh,
    sp.tanh,
    sp.atan,
    sp.asinh,
    sp.erf,
)


def smooth(expr: sp.Expr) -> str | None:
    """None when ``expr`` is built from ``SMOOTH_HEADS``, symbols and numbers only; else the first other head."""
    for node in sp.preorder_traversal(sp.sympify(expr)):
        if node.is_Atom or isinstance(node, (sp.Indexed, sp.IndexedBase)) or node.is_number:
            continue
        if not isinstance(node, SMOOTH_HEADS):
            return type(node).__name__
    return None


def _params(step: Step, params: Mapping[str, Any]) -> tuple[sp.Expr, sp.Expr, sp.Symbol, str]:
    end, derivative, var = (sp.sympify(params[p]) for p in ("end", "derivative", "var"))
    side = params.get("side", "left")
    if side not in ("left", "right"):
        raise DerivationError(
            f"step {step.name!r}: route 'monotone' parameter side must be 'left' or 'right', got {side!r}"
        )
    if not isinstance(var, sp.Symbol):
        raise DerivationError(f"step {step.name!r}: route 'monotone' parameter var must be a SymPy symbol, got {var!r}")
    if var not in step.domain.ranges:
        raise DerivationError(f"step {step.name!r}: route 'monotone' parameter var {var} has no range in the domain")
    if not (end.is_number and end.is_finite):
        raise DerivationError(f"step {step.name!r}: route 'monotone' parameter end must be a finite number, got {end}")
    return end, derivative, var, side


def _shape(step: Step, end: sp.Expr, var: sp.Symbol, side: str) -> str | None:
    """Why the claim is not of the route's shape (None: it is)."""
    if step.kind != "inequality" or step.relation not in ("<=", ">="):
        return "not a non-strict inequality (the gap vanishes at the end)"
    lo, hi = step.domain.ranges[var]
    if side == "left" and sp.simplify(lo - end) != 0:
        return f"{var}'s range starts at {lo}, not at the end {end}"
    if side == "right" and sp.simplify(hi - end) != 0:
        return f"{var}'s range ends at {hi}, not at the end {end}"
    if any(var in free_names(c) for c in step.domain.constraints):
        return f"a constraint of the domain involves {var}: the segment from the end may leave it"
    return None


def prove_monotone(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (module docstring)."""
    end, derivative, var, side = _params(step, params)
    small, big, _ = _sides(step)
    gap = sp.sympify(big) - sp.sympify(small)
    parts: list[str] = []
    why_not = _shape(step, end, var, side)
    base_ok = same = sign_ok = defined = False
    outcome = None
    if why_not is None:
        deadline = 5.0 if opts.get("clock") is None else opts["clock"].deadline(0.25)
        base_ok = run_symbolic(sp.simplify, gap.subs(var, end), deadline=deadline, stage="monotone: gap(end)") == 0
        diff = sp.diff(gap, var) - derivative
        same = run_symbolic(sp.simplify, diff, deadline=deadline, stage="monotone: gap' = derivative") == 0
        parts += [f"gap({end}) = 0: {base_ok}", f"gap' = {derivative}: {same}"]
        head = smooth(gap)
        if head is not None:
            why_not = f"the gap contains {head}, which need not be differentiable"
    if why_not is None and base_ok and same:
        wp = check_wellposed([gap, derivative], step.domain, f"monotone:{step.name}", opts.get("clock"))
        defined = wp.status == "defined"
        parts.append(f"gap and gap' defined on the domain: {defined}" + ("" if defined else f" ({wp.reason})"))
    if defined:
        signed = derivative if side == "left" else -derivative
        dmy = sp.Dummy("v", positive=True)
        shifted = signed.subs(var, end + dmy if side == "left" else end - dmy)
        sign_ok = certain_nonnegative(sp.simplify(shifted))  # constants signed by Arb (checks/signs.py)
        if not sign_ok:  # SymPy's assumptions do not see it: certified interval arithmetic over the domain
            outcome = certify_nonnegative(signed, step.domain, budget=opts["box_budget"])
            sign_ok = outcome.status == "proved"
        parts.append(f"sign of gap' certain: {sign_ok}")
    if why_not is not None:
        parts.append(f"not of the route's shape: {why_not}")
    fz = falsify(step, opts)
    proved = base_ok and same and defined and sign_ok
    cover = None
    if proved:
        lo, hi = step.domain.ranges[var]
        if outcome is None:  # the sign holds on the whole half-line: so does the proof, where the gap is defined
            ray = (end, sp.oo) if side == "left" else (-sp.oo, end)
            wide = Domain({**step.domain.ranges, var: ray}, step.domain.constraints)
            if check_wellposed([gap, derivative], wide, f"monotone:{step.name}", opts.get("clock")).status == "defined":
                lo, hi = ray
        cover = proof_cover(step, outcome, None if outcome else with_range(var, lo, hi))
        if not covers(cover, step.domain):
            parts.append("the cover does not contain the stated domain")
            proved, cover = False, None
    method = f"route monotone from the {side} end ({'; '.join(parts)})"
    return proof_result(step, fz, proved, method, covered=cover, symbolic=True, certified=outcome is not None)
