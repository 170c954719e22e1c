"""Expansion and limit checkers: SymPy series about ``var = ∞`` compared term by term with the claim;
SymPy limits compared with the claim, with a numeric cross-check.

The numeric cross-checks (a coefficient or a limit value SymPy does not reduce to the claimed one) are the
identity spot-check's: a mismatch refutes only where the refutation gate shows the two values' Arb
enclosures disjoint at an exact point (``refute.confirm``). A limit SymPy returns as ``AccumBounds`` is
undecided, with the bounds in the evidence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import Step, StepResult
from .identity import _spot_check, expand_then_simplify
from .sampling import symbolic_cover
from .verdicts import proved, refuted, undecided, verified


def _series_coeffs(expr: sp.Expr, var: sp.Symbol, order: int) -> list[sp.Expr]:
    eps = sp.Dummy("eps", positive=True)
    e = sp.sympify(expr).subs(var, 1 / eps)
    ser = sp.series(e, eps, 0, order + 1).removeO()
    ser = sp.expand(ser)
    return [sp.simplify(ser.coeff(eps, n)) for n in range(order + 1)]


def check_expansion(step: Step, opts: Mapping[str, Any]) -> StepResult:
    if step.point not in (sp.oo, float("inf")):
        raise ValueError("only expansions about ∞ are supported")
    try:
        got = _series_coeffs(step.lhs, step.var, step.order)
        want = _series_coeffs(step.rhs, step.var, step.order)
    except Exception as exc:
        return undecided(step, method="SymPy series failed", evidence=str(exc))
    mismatches = []
    unsure = []
    for n_, (g, w_) in enumerate(zip(got, want)):
        d_ = expand_then_simplify(g - w_)
        if d_ == 0:
            continue
        # SymPy could not reduce: a numeric check at domain points decides between refuted and unsure
        probe = Step(f"{step.name}: coefficient of {step.var}^-{n_}", g, w_, kind="identity", domain=step.domain)
        spot = _spot_check(probe, [g, w_], opts)
        if spot["counterexample"] is not None:
            mismatches.append((n_, g, w_, spot["counterexample"]))
        else:
            unsure.append(n_)
    if mismatches:
        n_, g, w_, cx = mismatches[0]
        return refuted(
            step,
            method=f"SymPy series in 1/{step.var} to order {step.order}",
            evidence=f"coefficient of {step.var}^-{n_}: derived {g}, claimed {w_}",
            counterexample={"term": f"{step.var}^-{n_}", "derived": str(g), "claimed": str(w_), **cx},
        )
    if unsure:
        return verified(
            step,
            method=f"SymPy series in 1/{step.var} to order {step.order}",
            evidence=f"coefficients {unsure} agree numerically only",
            attacked=spot["attacked"],
        )
    return proved(
        step,
        method=f"SymPy series in 1/{step.var} to order {step.order}",
        evidence=f"{step.order + 1} coefficients equal",
        symbolic=True,
        cover=symbolic_cover([step.lhs, step.rhs], {step.var}),
    )


def check_limit(step: Step, opts: Mapping[str, Any]) -> StepResult:
    try:
        got = sp.limit(step.lhs, step.var, step.point)
    except Exception as exc:
        return undecided(step, method="SymPy limit failed", evidence=str(exc))
    if isinstance(got, sp.Limit) or got.has(sp.Limit):
        return undecided(step, method="SymPy returned an unevaluated limit")
    if isinstance(got, sp.AccumBounds) or got.has(sp.AccumBounds):
        # a range of accumulation points (lim sin x = ⟨−1, 1⟩): SymPy says the limit may not exist, and its
        # ranges are not always tight; no comparison with one claimed value is decided from it
        return undecided(
            step,
            method=f"SymPy limit {step.var} → {step.point} returned accumulation bounds, not a value",
            evidence=f"limit ∈ {got}, claimed {step.rhs}",
        )
    same = got == step.rhs or (got.is_infinite is not True and expand_then_simplify(got - step.rhs) == 0)
    if same:  # ∞ = ∞ compared structurally: ∞ − ∞ is undefined, not 0
        return proved(
            step,
            method=f"SymPy limit {step.var} → {step.point}",
            evidence=f"limit = {got}",
            symbolic=True,
            cover=symbolic_cover([step.lhs, step.rhs], {step.var}),
        )
    if got.is_infinite or sp.sympify(step.rhs).is_infinite:  # one side infinite, not the same infinity
        return refuted(
            step,
            method=f"SymPy limit {step.var} → {step.point}",
            evidence=f"limit is {got}, claimed {step.rhs}",
            counterexample={"limit": str(got), "claimed": str(step.rhs)},
        )
    probe = Step(f"{step.name}: limit value", got, step.rhs, kind="identity", domain=step.domain)
    spot = _spot_check(probe, [got, step.rhs], opts)
    if spot["counterexample"] is not None:
        return refuted(
            step,
            method=f"SymPy limit {step.var} → {step.point}",
            evidence=f"limit is {got}, claimed {step.rhs}",
            counterexample=spot["counterexample"],
        )
    return verified(
        step,
        method=f"SymPy limit {step.var} → {step.point}",
        evidence=f"limit {got} agrees numerically with the claim",
        attacked=spot["attacked"],
    )
