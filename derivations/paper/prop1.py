"""Proposition 1 (§3.2): for φ ∈ B(Z, S^{d−1}), k ≥ 1 and τ > 0,

    −log(1 + e^{2/τ}/k) ≤ ∫ CrossEnt[M(z, ·) ‖ Q^φ_τ(z, ·)] π_data(dz) − R(φ; k, τ) ≤ (e^{2/τ} − 1)²/(8k).

R is the InfoNCE risk (2) (= E ℓ of (14)). Per anchor–positive pair (z^a, z^+) the difference is
Lemma 2's middle term with b = e^{−s⁺/τ}, c = 1/τ and X_j = s_j/τ; the statement is its expectation.
The law checks therefore run over one anchor's finite law of s_j and s⁺ ∈ [−1, 1]: a bound holding
for every such law holds for its π_data ⊗ M average.

Erratum (misprint): the proof applies Lemma 2 with "X_j = e^{⟨φ(z^a), φ(Z_j^−)⟩/τ}"; with that X_j the
hypothesis X_j ∈ [−c, c] = [−1/τ, 1/τ] fails (e^{1/τ} > 1/τ); the intended X_j = s_j/τ meets it.
The display of the proof also prints only the lower half of Lemma 2's two-sided bound.

Ours: CE − R ≤ CE − R̃ ≤ C(τ)/k with C(τ) = (e^{2/τ} − 1)·min(0.2163, (1 + 1/(3τ))/(4τ))
(derivation ``bias_bound``), and C(τ) ≤ (e^{2/τ} − 1)²/8 on τ ∈ [1e-3, 1e2] (certified).
"""

from __future__ import annotations

import math
import random
from typing import Any

import sympy as sp

from ..bias import bias_bound_sharp, bias_constant
from ..bias_forms import BiasGap
from ..ledger import Derivation, Domain, Link, Step
from ..render import printed
from ..symbols import TAU_RANGE, c_X, k, tau, u, x
from . import Erratum, PaperConstant
from ._laws import (
    DRAWS,
    GAP,
    MU,
    MU_HAT,
    W_BOUNDS,
    Expect,
    Law,
    bias_gap,
    expect,
    expectation_route,
    fmax,
    fmin,
    law_check,
    mu,
    mu_hat,
)
from .lemma2 import PAPER_UPPER

POSITION = (3, 1)

PAPER_LOWER = -sp.log(1 + sp.exp(2 / tau) / k)
PAPER_CONST = PAPER_UPPER.subs(c_X, 1 / tau)  #: (e^{2/τ} − 1)²/8
_K = Domain({k: (1, sp.oo)}, name="k ≥ 1")
_LAW = TAU_RANGE | _K

Gap = sp.Function("CE_minus_R")  #: ∫ CrossEnt[M ‖ Q] dπ − R(φ; k, τ), for one anchor's law
GapTilde = sp.Function("CE_minus_R_tilde")  #: ∫ CrossEnt[M ‖ Q] dπ − R̃(φ; k, τ)

#: s⁺ = ⟨φ(z^a), φ(z^+)⟩ of the pair, fixed (the claims are per (z^a, z^+)); b = e^{−s⁺/τ}
S_PLUS = sp.Symbol("s_plus", real=True)
_B_PLUS = sp.exp(-S_PLUS / tau)
#: the two gaps as expectations over the negatives' draws (route "expectation"): CE − R per pair is
#: log(bμ) − E log(1/k + bμ̂), CE − R̃ = log μ − E log μ̂ ((31))
#: bias_bound's CE − R̃ (its placeholder, log E W − E log Z_k over the same draws) read as this module's GapTilde
_AS_BIAS_GAP = {BiasGap(tau, k): GapTilde(tau, k)}

DEFS = {
    Gap(tau, k): sp.log(_B_PLUS * MU) - Expect(sp.log(1 / k + _B_PLUS * MU_HAT)),
    GapTilde(tau, k): GAP,
}
_V = sp.Symbol("v", positive=True)
_PAIR = DRAWS | Domain({S_PLUS: (-1, 1)}, name="s⁺ ∈ [−1, 1]")


def _extra_splus(rng: random.Random, tv: float) -> dict:
    """s⁺ = ⟨φ(z^a), φ(z^+)⟩, snapped to ±1 half of the time."""
    return {"s_plus": rng.choice((-1.0, 1.0)) if rng.random() < 0.5 else rng.uniform(-1, 1)}


def _splus(lw: Law) -> Any:
    sp_ = lw.extra["s_plus"]
    return fmax(-1 + 0 * sp_, fmin(1 + 0 * sp_, sp_))  # the local search may step outside [−1, 1]


def gap_standard(L: Any, lw: Law) -> Any:
    """−s⁺/τ + log μ − E log(1/k + e^{−s⁺/τ} μ̂): one pair's CE − R."""
    b_ = L.exp(-_splus(lw) / lw.tau)
    kk = lw.k + 0 * lw.tau
    return L.log(b_ * mu(L, lw)) - expect(L, lw, lambda cnt: L.log(1 / kk + b_ * mu_hat(L, lw, cnt)))


def _lower_num(L: Any, lw: Law) -> Any:
    return -L.log(1 + L.exp(2 / lw.tau) / lw.k)


def paper_upper_num(L: Any, lw: Law) -> Any:
    return (L.exp(2 / lw.tau) - 1) ** 2 / (8 * lw.k)


def ours_constant_num(L: Any, tv: Any) -> Any:
    """C(τ) of ``derivations.bias.bias_constant`` in floats or mpmath."""
    ca = 0.2163 if L is math else L.mpf(2163) / 10000
    return (L.exp(2 / tv) - 1) * fmin(ca, (1 + 1 / (3 * tv)) / (4 * tv))


#: near-extremal laws for the O(1/k) constant: two-point ±1 laws at large τ (where C(τ)/k is sharp)
SEEDS = tuple(Law(tv, 12, [1.0, -1.0], [0.5, 0.5], None, {"s_plus": -1.0}) for tv in (100.0, 30.0, 10.0, 3.0, 1.0, 0.3))


def _law(claim, reason: str) -> Any:
    return law_check(claim, reason, extra=_extra_splus, seeds=SEEDS)


def _prop1() -> Derivation:
    steps = [
        Step(
            "statement, lower bound",
            Gap(tau, k),
            PAPER_LOWER,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="Proposition 1",
            domain=_LAW | _PAIR,
            # Lemma 2's lower half at b = e^{−s⁺/τ}: Jensen for f = log(1/k + b·) and (21) in μ
            route=expectation_route(
                "jensen",
                _law(lambda L, lw: (_lower_num(L, lw), gap_standard(L, lw)), "as printed, per (z^a, z^+)"),
                defs=DEFS,
                phi=sp.Lambda(_V, sp.log(1 / k + _B_PLUS * _V)),
                inner=MU_HAT,
                bounds=W_BOUNDS,
                # log(bμ) − log(1/k + bμ) + log(1 + e^{2/τ}/k) = log(1 + (e^{2/τ}bμ − 1)/(kbμ + 1)), e^{2/τ}bμ ≥ 1:
                # e^{2/τ}bμ − 1 = e^{1/τ}b(μ − e^{−1/τ}) + (e^{1/τ}b − 1)·1, each term ≥ 0 (b ≥ e^{−1/τ})
                remainder=sp.log(
                    1
                    + (sp.exp((2 - S_PLUS) / tau) * (MU - sp.exp(-1 / tau)) + sp.exp((1 - S_PLUS) / tau) - 1)
                    / (k * _B_PLUS * MU + 1)
                ),
            ),
        ),
        Step(
            "statement, upper bound",
            Gap(tau, k),
            PAPER_CONST / k,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="Proposition 1",
            domain=_LAW,
            check=_law(lambda L, lw: (gap_standard(L, lw), paper_upper_num(L, lw)), "as printed, per (z^a, z^+)"),
            unproved="a claim over every law of the draws, attacked on exact finite laws; the expectation route does not prove it: Lemma 2's upper half (lemma2's 'statement, upper bound', proved for a constant b) at the random b = e^{−s⁺/τ}: the statement integrates over z^+, so b is a draw of its own beside the negatives' sample mean, which the pointwise rule does not combine (it takes moments of one draw, not a draw beside a sample statistic); no route conditions on s⁺ and cites Lemma 2 inside the expectation",
        ),
        Step(
            "Lemma 2 hypothesis with X_j as printed",
            sp.exp(x / tau),
            1 / tau,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Proposition 1: 'X_j = e^{⟨φ(z^a), φ(Z_j^−)⟩/τ}', c = 1/τ, X_j ∈ [−c, c]",
            domain=TAU_RANGE | Domain({x: (-1, 1)}),
            expected="refuted",
            note="x = ⟨φ(z^a), φ(Z_j^−)⟩; e^{1/τ} > 1/τ for every τ > 0",
        ),
        Step(
            "Lemma 2 hypothesis with X_j = s_j/τ",
            x / tau,
            1 / tau,
            kind="inequality",
            relation="<=",
            domain=TAU_RANGE | Domain({x: (-1, 1)}),
            note="the intended X_j = ⟨φ(z^a), φ(Z_j^−)⟩/τ (then e^{X_j} is the printed exponential); "
            "X_j ≥ −c by the same step at −x",
        ),
        Step(
            "b ≥ e^{−1/τ}",
            sp.exp(-x / tau),
            sp.exp(-1 / tau),
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="proof of Proposition 1: b = e^{−⟨φ(z^a), φ(z^+)⟩/τ}",
            domain=TAU_RANGE | Domain({x: (-1, 1)}),
        ),
        Step(
            "Lemma 2 lower bound at c = 1/τ, b ≥ e^{−1/τ}",
            -sp.log(1 + sp.exp(1 / tau) / (k * sp.exp(-x / tau))),
            PAPER_LOWER,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="proof of Proposition 1, the display",
            domain=TAU_RANGE | _K | Domain({x: (-1, 1)}),
        ),
        Step(
            "Lemma 2 upper bound at c = 1/τ",
            # Lemma 2's (1/8k)(e^{2c} − 1)² printed at c = 1/τ, as the proof of Prop. 1 applies it
            printed(sp.Subs(PAPER_UPPER / k, c_X, 1 / tau), PAPER_UPPER.subs(c_X, 1 / tau) / k),
            (sp.exp(2 / tau) - 1) ** 2 / (8 * k),
            kind="identity",
            provenance="paper",
            reference="proof of Proposition 1 (the display prints only the lower half)",
            domain=TAU_RANGE | _K,
        ),
        Step(
            "log(1 + x) ≤ x: rate O(1/k)",
            sp.log(1 + u),
            u,
            kind="inequality",
            relation="<=",
            provenance="classical",
            reference="concavity of log; §3.2 after Proposition 1",
            domain=Domain({u: (sp.Rational(1, 10**6), 10**6)}),
        ),
        # --- ours
        Step(
            "ours: R ≥ R̃",
            Gap(tau, k),
            GapTilde(tau, k),
            kind="inequality",
            relation="<=",
            domain=_LAW | _PAIR,
            route=expectation_route(
                "pointwise",
                _law(lambda L, lw: (gap_standard(L, lw), bias_gap(L, lw)), "log(1/k + y) ≥ log y"),
                defs=DEFS,
                integrand=sp.log(1 / k + _B_PLUS * MU_HAT) - sp.log(_B_PLUS * MU_HAT),
                bounds=W_BOUNDS,
            ),
        ),
        Step(
            "ours: CE − R ≤ C(τ)/k",
            Gap(tau, k),
            bias_constant() / k,
            kind="chain",
            relation="<=",
            domain=_LAW,
            # CE_minus_R_tilde here and bias_bound's CE_minus_R are the same expectation, log E W − E log Z_k
            links=[
                Link(Gap(tau, k), GapTilde(tau, k), cite="prop1 / ours: R ≥ R̃"),
                Link(GapTilde(tau, k), bias_constant() / k, cite="bias_bound / C(τ)/k bound", subs=_AS_BIAS_GAP),
            ],
        ),
        Step(
            "ours: CE − R ≤ min(C(τ)/k, D(τ))",
            Gap(tau, k),
            bias_bound_sharp(),
            kind="chain",
            relation="<=",
            domain=_LAW,
            links=[
                Link(Gap(tau, k), GapTilde(tau, k), cite="prop1 / ours: R ≥ R̃"),
                Link(GapTilde(tau, k), bias_bound_sharp(), cite="bias_bound / finite-k bias bound", subs=_AS_BIAS_GAP),
            ],
            note="at τ = 0.1, k = 256 this is D(0.1) ≈ 16.0 against the paper's ≈ 1.1·10¹⁴",
        ),
        Step(
            "ours ≤ paper: C(τ) ≤ (e^{2/τ} − 1)²/8",
            bias_constant(),
            PAPER_CONST,
            kind="inequality",
            relation="<=",
            domain=TAU_RANGE,
            note="ratio → 1 + O(1/τ) as τ → ∞ (both ~ 1/(2τ²)); → ∞ like e^{2/τ}/1.73 as τ → 0",
        ),
    ]
    return Derivation(
        "prop1",
        "Proposition 1: InfoNCE risk vs integrated cross-entropy, O(1/k)",
        steps,
        result="statement, upper bound",
        source="paper",
        depends_on=("bias_bound",),  # its proof uses lemma2, registered later (appendix A)
        paper_claim="−log(1 + e^{2/τ}/k) ≤ ∫CrossEnt[M‖Q^φ_τ]dπ − R(φ; k, τ) ≤ (e^{2/τ} − 1)²/(8k)",
        summary="Holds; one misprint in the proof (X_j). Ours: upper constant C(τ) ≤ (e^{2/τ} − 1)²/8.",
    )


def derivations() -> list[Derivation]:
    return [_prop1()]


ERRATA = [
    Erratum(
        location="Appendix A, proof of Proposition 1, the application of Lemma 2",
        as_printed=r"X_j = e^{\langle \phi(z^a), \phi(Z_j^-) \rangle/\tau}, c = 1/\tau",
        kind="misprint or undefined symbol",
        result="prop1",
        printed_step="Lemma 2 hypothesis with X_j as printed",
        corrected_step="Lemma 2 hypothesis with X_j = s_j/τ",
        correction=r"X_j = \langle \phi(z^a), \phi(Z_j^-) \rangle/\tau \in [-1/\tau, 1/\tau]",
        consequence="Proposition 1 stands as printed (the intended application meets Lemma 2's hypothesis)",
        evidence="the proof's display also states only the lower half; the upper half is Lemma 2 at c = 1/τ",
    ),
]

CONSTANTS = [
    PaperConstant(
        name="prop1_upper",
        label="Prop. 1 upper bound (e^{2/τ} − 1)²/(8k) [also (11)]",
        result="prop1",
        build=lambda: (PAPER_CONST, bias_constant()),
        proof_step="ours ≤ paper: C(τ) ≤ (e^{2/τ} − 1)²/8",
        attained="not attained: the paper's route bounds 1/ξ² by e^{2/τ} and Var by Popoviciu at once",
        note="ours C(τ) = (e^{2/τ} − 1)·min(0.2163, (1 + 1/(3τ))/(4τ)) (bias_bound); min(C(τ)/k, D(τ)) is also proved",
        params=("tau",),
    ),
]
