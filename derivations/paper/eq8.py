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
from ..symbols import TAU_RANGE, s, tau, u, x
from ._laws import W1, W_BOUNDS, Expect, Law, expectation_route, law_check, mu

POSITION = (3, 2)

QA = sp.Function("Q_tau")  #: Q^φ_τ(z, A) for one anchor's law and A = {first atom}
RHO = sp.exp(2 / tau)
_P = Domain({u: (sp.Rational(1, 10**6), 1)}, name="π(A) = p ∈ (0, 1]")

# Q(z, A) over every law of the draw (route "expectation"): a draw is s_1 ∈ [−1, 1] and ι_1 = 1_A(ξ_1), relaxed
# to ι_1 ∈ [0, 1] (a claim for every [0, 1]-valued ι holds for the indicator), with E ι_1 = π(A) = p:
# Q = E[ι W]/E W, W = e^{s/τ} ∈ [m, M]. Each bound: cross-multiplied by E W > 0 (rule "ratio"), then
# monotonicity of expectation with an integrand that is a sum of products of nonnegative factors.
IOTA = sp.IndexedBase("iota_A", real=True)
_I1 = IOTA[1]
_M, _MM = sp.exp(-1 / tau), sp.exp(1 / tau)
_DRAW_A = Domain({s: (-1, 1), IOTA: (0, 1)}, name="s_1 ∈ [−1, 1], ι_1 = 1_A(ξ_1) ∈ [0, 1]")


def _ratio_route(attack: Any, integrand: Any, remainder: Any = 0) -> tuple[str, dict]:
    return expectation_route(
        "ratio",
        attack,
        defs={QA(tau, u): Expect(_I1 * W1) / Expect(W1)},
        facts={Expect(_I1): u},
        bounds=W_BOUNDS,
        then={"rule": "pointwise", "integrand": integrand, "remainder": remainder, "facts": {Expect(_I1): u}},
    )


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
            domain=dom | _DRAW_A,
            route=_ratio_route(
                law_check(lambda L, lw: (_q_and_p(L, lw)[0], L.exp(2 / lw.tau) * _q_and_p(L, lw)[1]), "A = one atom"),
                _I1 * (_MM - W1),
                RHO * u * (Expect(W1) - _M),
            ),
        ),
        Step(
            "(8) lower",
            QA(tau, u),
            u / RHO,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="(8)",
            domain=dom | _DRAW_A,
            route=_ratio_route(
                law_check(lambda L, lw: (L.exp(-2 / lw.tau) * _q_and_p(L, lw)[1], _q_and_p(L, lw)[0]), "A = one atom"),
                _I1 * (W1 - _M),
                u * (_MM - Expect(W1)) / RHO,
            ),
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
            domain=dom | _DRAW_A,
            route=_ratio_route(
                law_check(_upper_sharp, "s = 1 on A, −1 off A is extremal"),
                (RHO * u * (1 - _I1) * (W1 - _M) + (1 - u) * _I1 * (_MM - W1)) / (RHO * u + 1 - u),
            ),
            note="attained by s(z, ·) = 1 on A and −1 off A",
        ),
        Step(
            "ours: sharp lower end",
            QA(tau, u),
            u / (u + (1 - u) * RHO),
            kind="inequality",
            relation=">=",
            domain=dom | _DRAW_A,
            route=_ratio_route(
                law_check(_lower_sharp, "s = −1 on A, 1 off A is extremal"),
                ((1 - u) * RHO * _I1 * (W1 - _M) + u * (1 - _I1) * (_MM - W1)) / (u + (1 - u) * RHO),
            ),
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
