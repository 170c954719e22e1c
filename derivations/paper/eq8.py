"""Display (8) (§3.2): for φ ∈ B(Z, S^{d−1}), τ > 0, every z ∈ Z and A ∈ F_Z,

    e^{−2/τ} π_data(A) ≤ Q^φ_τ(z, A) ≤ e^{2/τ} π_data(A),

"from the definition (5)": the numerator ∫_A e^{s/τ} dπ lies in [e^{−1/τ}, e^{1/τ}]·π(A) and the
denominator in [e^{−1/τ}, e^{1/τ}]. Both halves hold.

Ours (sharp): with p = π(A) and ρ = e^{2/τ},

    p/(p + (1 − p)ρ) ≤ Q^φ_τ(z, A) ≤ pρ/(pρ + 1 − p),

attained by s(z, ·) = ±1 on A and ∓1 off A; the upper end is ≤ min(1, ρp) ≤ ρp (the printed bound).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..ledger import Derivation, Domain, Step
from ..symbols import TAU_RANGE, tau, u, x
from ._laws import Law, law_check, mu

POSITION = (3, 2)

QA = sp.Function("Q_tau")  #: Q^φ_τ(z, A) for one anchor's law and A = {first atom}
RHO = sp.exp(2 / tau)
_P = Domain({u: (sp.Rational(1, 10**6), 1)}, name="π(A) = p ∈ (0, 1]")


def _q_and_p(L: Any, lw: Law) -> tuple[Any, Any]:
    """Q(z, A) and π(A) for A = the first atom of the law."""
    num = lw.probs[0] * L.exp(lw.sims[0] / lw.tau)
    return num / mu(L, lw), lw.probs[0]


def _upper_sharp(L: Any, lw: Law) -> tuple[Any, Any]:
    q, p_ = _q_and_p(L, lw)
    return q, 1 / (1 + (1 - p_) * L.exp(-2 / lw.tau) / p_)


def _lower_sharp(L: Any, lw: Law) -> tuple[Any, Any]:
    q, p_ = _q_and_p(L, lw)
    return p_ / (p_ + (1 - p_) * L.exp(2 / lw.tau)), q


def _eq8() -> Derivation:
    dom = TAU_RANGE | _P
    steps = [
        Step(
            "(8) upper",
            QA(tau, u),
            RHO * u,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="(8)",
            domain=dom,
            check=law_check(lambda L, lw: (_q_and_p(L, lw)[0], L.exp(2 / lw.tau) * _q_and_p(L, lw)[1]), "A = one atom"),
            unproved="a claim over every law of the draws, attacked on exact finite laws; the expectation route does not prove it: a ratio of expectations E[1_A W]/E W: its bound needs the joint range of the moments, which independent moment ranges lose",
        ),
        Step(
            "(8) lower",
            QA(tau, u),
            u / RHO,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="(8)",
            domain=dom,
            check=law_check(
                lambda L, lw: (L.exp(-2 / lw.tau) * _q_and_p(L, lw)[1], _q_and_p(L, lw)[0]), "A = one atom"
            ),
            unproved="a claim over every law of the draws, attacked on exact finite laws; the expectation route does not prove it: a ratio of expectations E[1_A W]/E W: its bound needs the joint range of the moments, which independent moment ranges lose",
        ),
        Step(
            "numerator ≤ e^{1/τ} π(A), denominator ≥ e^{−1/τ}",
            sp.exp(x / tau) / sp.exp(-1 / tau),
            RHO,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="(8) 'follow from the definition of Q in (5)', ‖φ(z)‖ = 1",
            domain=TAU_RANGE | Domain({x: (-1, 1)}),
            note="x = s(z, z') ≤ 1 for z' ∈ A; the same step at −x gives the lower half",
        ),
        Step(
            "ours: sharp upper end",
            QA(tau, u),
            RHO * u / (RHO * u + 1 - u),
            kind="inequality",
            relation="<=",
            domain=dom,
            check=law_check(_upper_sharp, "s = 1 on A, −1 off A is extremal"),
            unproved="a claim over every law of the draws, attacked on exact finite laws; the expectation route does not prove it: a ratio of expectations E[1_A W]/E W: its bound needs the joint range of the moments, which independent moment ranges lose",
            note="attained by s(z, ·) = 1 on A and −1 off A",
        ),
        Step(
            "ours: sharp lower end",
            QA(tau, u),
            u / (u + (1 - u) * RHO),
            kind="inequality",
            relation=">=",
            domain=dom,
            check=law_check(_lower_sharp, "s = −1 on A, 1 off A is extremal"),
            unproved="a claim over every law of the draws, attacked on exact finite laws; the expectation route does not prove it: a ratio of expectations E[1_A W]/E W: its bound needs the joint range of the moments, which independent moment ranges lose",
        ),
    ]
    return Derivation(
        "eq8",
        "Display (8): Q^φ_τ(z, ·) within a factor e^{±2/τ} of π_data",
        steps,
        result="(8) upper",
        source="paper",
        paper_claim="e^{−2/τ} π_data(A) ≤ Q^φ_τ(z, A) ≤ e^{2/τ} π_data(A)",
        summary="Holds; ours: the sharp ends pρ/(pρ + 1 − p) and p/(p + (1 − p)ρ), attained.",
    )


def derivations() -> list[Derivation]:
    return [_eq8()]
