"""Inequality checker: symbolic reduction where SymPy can (assumptions, or a supplied certificate
checked as an identity), else certified interval arithmetic over the box; and in every case the
falsifier, whose worst ratio is part of the record."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import Step, StepResult, Verdict, free_names
from .falsifier import falsify
from .identity import expand_then_simplify
from .interval import certify_nonnegative
from .prescreen import assumption_witness
from .sampling import _sides, symbolic_cover


def _obviously_nonnegative(e: sp.Expr) -> bool:
    """SymPy's assumptions, extended by: even powers of real bases (where defined), and sums and
    products of nonnegative terms. (x⁻² is nonnegative wherever it is defined.)"""
    if e.is_nonnegative:
        return True
    if isinstance(e, sp.Pow):
        ex = e.exp
        return bool(ex.is_integer and ex.is_even and e.base.is_real)
    if isinstance(e, (sp.Mul, sp.Add)):
        return all(_obviously_nonnegative(a) for a in e.args)
    return False


def _fmt(point: dict[str, str]) -> str:
    """A short form of a point (at most four coordinates, 12 characters each)."""
    items = [f"{k_} = {v_[:12]}" for k_, v_ in point.items()]
    return ", ".join(items[:4]) + (", …" if len(items) > 4 else "")


def check_inequality(step: Step, opts: Mapping[str, Any]) -> StepResult:
    small, big, strict = _sides(step)
    gap = big - small
    methods: list[str] = []
    symbolic = certified = False
    evidence: list[str] = []

    # (a) symbolic reduction
    if step.certificate is not None:
        cert = sp.sympify(step.certificate)
        same = expand_then_simplify(gap - cert) == 0
        sign_ok = cert.is_positive if strict else _obviously_nonnegative(cert)
        if same and sign_ok:
            symbolic = True
            methods.append("symbolic: gap = certificate, certificate ≥ 0 by SymPy assumptions")
        else:
            evidence.append("certificate rejected" + ("" if same else " (not equal to the gap)"))
    if not symbolic:
        try:
            # the assumptions may already settle the gap as written (a product of factors ≥ 0, as a
            # factored certificate is): then simplify (often the most expensive call here) is spared
            sign = gap.is_positive if strict else gap.is_nonnegative
            if not sign:
                # where the claim fails at a point the symbols' assumptions allow (outside the stated
                # domain), SymPy's sign deduction cannot succeed: simplify is spared (prescreen.py)
                witness = assumption_witness([small, big], "<" if strict else "<=", step.name, step.domain)
                if witness is None:
                    g = sp.simplify(gap)
                    sign = g.is_positive if strict else g.is_nonnegative
                else:
                    evidence.append(f"no symbolic sign: the claim fails at {_fmt(witness)}, allowed by the assumptions")
        except Exception:
            sign = None
        if sign:
            symbolic = True
            methods.append("symbolic: SymPy assumptions give gap ≥ 0")

    # (b) certified interval arithmetic over the box
    interval = None
    if not symbolic:
        interval = certify_nonnegative(
            gap, step.domain, strict=strict, budget=opts["box_budget"], max_dims=opts["max_dims"]
        )
        if interval.status == "proved":
            certified = True
            methods.append(f"interval arithmetic: certified on {interval.boxes} boxes")
        elif interval.status == "refuted":
            pass
        else:
            evidence.append(f"interval: {interval.reason}")

    # (c) falsifier, always (its worst ratio is part of the record)
    fz = falsify(step, opts)
    methods.append(f"falsifier: {fz.trials} trials")
    evidence.append(fz.evidence)

    if fz.counterexample is not None:
        return StepResult(
            step.name,
            step.kind,
            Verdict.REFUTED,
            "; ".join(methods),
            "; ".join(evidence),
            worst_ratio=fz.worst_ratio,
            trials=fz.trials,
            counterexample=fz.counterexample,
            attacked=fz.attacked,
        )
    if interval is not None and interval.status == "refuted":
        # branch and bound only proposes the point: the refutation gate decides there (exact point, Arb
        # enclosures of both sides at rising precision); unconfirmed, the step is not refuted
        from .refute import confirm as gate

        try:
            gx = gate(step.lhs, step.rhs, step.relation, interval.counterexample or {}, domain=step.domain)
        except ValueError:
            gx = None
        if gx is not None:
            return StepResult(
                step.name,
                step.kind,
                Verdict.REFUTED,
                "interval subdivision found a violating point (confirmed by the Arb gate)",
                interval.reason,
                worst_ratio=fz.worst_ratio,
                trials=fz.trials,
                counterexample=gx.as_dict(),
            )
        evidence.append(f"interval: a proposed violation at {interval.counterexample} not confirmed by the Arb gate")
    verdict = Verdict.PROVED if (symbolic or certified) else Verdict.VERIFIED
    covered = None
    if symbolic:  # every symbol of the claim, also one the gap cancels (it is then unconstrained)
        covered = symbolic_cover([small, big])
    elif certified:
        # a symbol of the claim that the gap does not contain cancelled out: the box holds for any value
        free = {str(x_) for x_ in free_names(small) | free_names(big)} - set(interval.covered or {})
        covered = {**{x_: ("-oo", "oo") for x_ in sorted(free)}, **(interval.covered or {})}
    if fz.trials == 0 and verdict is Verdict.VERIFIED:
        verdict = Verdict.UNDECIDED
    return StepResult(
        step.name,
        step.kind,
        verdict,
        "; ".join(methods),
        "; ".join(evidence),
        worst_ratio=fz.worst_ratio,
        trials=fz.trials,
        symbolic=symbolic,
        certified=certified,
        covered=covered,
        attacked=fz.attacked,
    )
