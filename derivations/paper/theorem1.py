"""Theorem 1 (§5): under (A), (B), (C), with probability ≥ 1 − δ, for all φ ∈ Φ,

  ∫ E CrossEnt[M̂_k(z, ·) ‖ Q̂^φ_{τ,k}(z, ·)] π(dz) ≤ R̂_n(φ; k, τ) + (const./τ)√(d_Θ/n) min{A√(log 3 + 1), √(log(1 + 2A) + 1)}
      + (const./τ)√(log(2/δ)/(2n)) + (4/(τk)) E[|dM(Z, ·)/dπ(Z')|²] + log(1 + e^{2/τ}/k),   A := eRB_τ(Z_1, …, Z_n)C_Φ.

The two "const." are not stated (an erratum of kind "unstated constant"). From Props. 2, 3 and 5 as printed:
Prop. 2 bounds the left side by R + bias; Prop. 3 bounds R by R̂_n + 2 Rad + (12/τ)√(log(2/δ)/(2n)); Prop. 5
bounds Rad (at the realised tuples) by (96/τ)√(d_Θ/n) min{…}. So the complexity const. is 2 · 96 = 192 and the
sample-variability const. is 12. Ours: 192 max(κ, δ') (Prop. 5 with our Lemma 1 and Lemma 5) and 3τ(b − a)
(Prop. 3 with the exact range).
"""

from __future__ import annotations

import sympy as sp

from ..ledger import Derivation, Domain, Step
from ..render import printed
from ..symbols import (
    CE_risk,
    Rad_n,
    Rhat_n,
    Rk_risk,
    bias_s,
    cplx_s,
    d_Theta,
    dev,
    min_term,
    n,
    slack1,
    slack2,
    slack3,
    tau,
    var_s,
)
from . import Erratum, PaperConstant, _gen
from . import lemma5 as _lemma5
from . import prop5 as _prop5

POSITION = (5, 1)

_M = min_term


def tight_complexity(c: sp.Expr) -> Step:
    """'2 × (Prop. 5's constant, ours) = c': the complexity constant of Theorem 1 is twice Prop. 5's."""
    return Step(
        "ours: complexity const. = 2 × 96 max(κ, δ') (Prop. 3's factor 2 times our Prop. 5)",
        printed(sp.Mul(2, 96, _gen.mu(), evaluate=False), 2 * 96 * _gen.mu()),
        c,
        domain=_gen.TAU_K,
        provenance="ours",
        reference="Theorem 1 from Props. 3 and 5",
    )


def tight_variability(c: sp.Expr) -> Step:
    """'τ × 3(b − a) = c': the variability constant (per 1/τ) from Prop. 3 with the exact range."""
    return Step(
        "ours: sample-variability const. = τ · 3(b − a) (Prop. 3 with the exact range)",
        printed(sp.Mul(3, sp.UnevaluatedExpr(_gen.loss_range()), tau, evaluate=False), tau * 3 * _gen.loss_range()),
        c,
        domain=_gen.TAU_K,
        provenance="ours",
        reference="Theorem 1 from Prop. 3",
        simplifier=lambda e: sp.simplify(sp.expand(e)),
    )


def derivations() -> list[Derivation]:
    any_real = (-sp.oo, sp.oo)
    risks = {CE_risk: any_real, Rk_risk: any_real, Rhat_n: any_real, bias_s: (0, sp.oo), Rad_n: (0, sp.oo)}
    sqrt_dn = sp.sqrt(d_Theta / n)
    cdom = Domain(
        {tau: _gen.TAU_ONLY.ranges[tau], d_Theta: (1, 10**6), n: (1, 10**9), _M: (0, 100), dev: (0, 10)},
        name="τ ∈ [1e-3, 1e2], d_Θ, n ≥ 1, min-term, dev ≥ 0",
    )
    mu_le_1 = _prop5.derivations()[0].step("ours ≤ paper: 96 max(κ, δ') ≤ 96")
    range_le = _lemma5.derivations()[0].step("ours: b − a ≤ 4/τ (in ε = 1/k; tight only as ε → 0)")
    steps = [
        Step(
            "Prop. 2 (premise): ∫ E CrossEnt[M̂_k ‖ Q̂^φ_{τ,k}] dπ ≤ R(φ; k, τ) + finite-k bias",
            CE_risk,
            Rk_risk + bias_s,
            kind="definition",
            domain=Domain(risks),
            provenance="paper",
            reference="Prop. 2 (under (A), (B); derivations of §3)",
            note="premise: the left side is at most the right side, for every φ",
        ),
        Step(
            "Prop. 3 (premise): R ≤ R̂_n + 2 Rad + (12/τ)√(log(2/δ)/(2n)) w.p. ≥ 1 − δ",
            Rk_risk,
            Rhat_n + 2 * Rad_n + 12 / tau * dev,
            kind="definition",
            domain=Domain({**risks, tau: _gen.TAU_ONLY.ranges[tau], dev: (0, sp.oo)}),
            provenance="paper",
            reference="Prop. 3 (checked by prop3)",
        ),
        Step(
            "Prop. 5 (premise, at the realised Z_1, …, Z_n): Rad ≤ (96/τ)√(d_Θ/n) min{…}",
            Rad_n,
            96 / tau * sqrt_dn * _M,
            kind="definition",
            domain=Domain({Rad_n: (0, sp.oo), **cdom.ranges}),
            provenance="paper",
            reference="Prop. 5 (checked by prop5)",
        ),
        Step(
            "combine: with slacks s₁, s₂, s₃ ≥ 0 in Props. 2, 3, 5: CE ≤ R̂_n + 2·(Prop. 5) + (Prop. 3 deviation) + bias",
            (Rhat_n + 2 * (cplx_s - slack3) + var_s - slack2) + bias_s - slack1,
            Rhat_n + 2 * cplx_s + var_s + bias_s,
            kind="inequality",
            relation="<=",
            domain=Domain(
                {
                    Rhat_n: (-50, 50),
                    cplx_s: (0, 50),
                    var_s: (0, 50),
                    bias_s: (0, 50),
                    slack1: (0, 50),
                    slack2: (0, 50),
                    slack3: (0, 50),
                }
            ),
            provenance="paper",
            reference="Theorem 1 ('combine propositions 2, 3 and 5')",
            note="CE = R + bias − s₁, R = R̂_n + 2 Rad + dev-term − s₂, Rad = Prop. 5 bound − s₃",
        ),
        Step(
            "Theorem 1's const.: 2·(96/τ)√(d_Θ/n)·min + (12/τ)·dev = (192/τ)√(d_Θ/n)·min + (12/τ)·dev",
            # Prop. 3's factor 2 times Prop. 5's (96/τ)√(d_Θ/n) min{…}, plus Prop. 3's (12/τ) dev
            printed(
                sp.Add(
                    sp.Mul(2, sp.UnevaluatedExpr(96 / tau * sqrt_dn * _M), evaluate=False),
                    12 / tau * dev,
                    evaluate=False,
                ),
                2 * (96 / tau * sqrt_dn * _M) + 12 / tau * dev,
            ),
            192 / tau * sqrt_dn * _M + 12 / tau * dev,
            domain=cdom,
            provenance="ours",
            reference="Theorem 1 (the complexity const. is 192, the sample-variability const. is 12)",
        ),
        tight_complexity(192 * _gen.mu()),
        tight_variability(3 * tau * _gen.loss_range()),
        Step(
            "ours ≤ paper (complexity): 192 max(κ, δ') ≤ 192",
            192 * _gen.mu(),
            192,
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_K,
            provenance="ours",
            check=_gen.all_of([mu_le_1], "twice Prop. 5's 96 max(κ, δ') ≤ 96"),
        ),
        Step(
            "ours ≤ paper (variability): 3τ(b − a) ≤ 12 (in ε = 1/k)",
            3 * tau * _gen.loss_range_eps(),
            12,
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_EPS,
            provenance="ours",
            check=_gen.all_of([range_le], "3τ × (b − a ≤ 4/τ)"),
        ),
    ]
    return [
        Derivation(
            "theorem1",
            "Theorem 1: similarity-search cross-entropy ≤ R̂_n + (192/τ)√(d_Θ/n) min{…} + (12/τ)√(log(2/δ)/(2n)) + bias",
            steps,
            result="Theorem 1's const.: 2·(96/τ)√(d_Θ/n)·min + (12/τ)·dev = (192/τ)√(d_Θ/n)·min + (12/τ)·dev",
            source="paper",
            depends_on=("prop3", "prop5"),
            paper_claim="Theorem 1: … ≤ R̂_n + (const./τ)√(d_Θ/n) min{A√(log(3)+1), √(log(1+2A)+1)} "
            "+ (const./τ)√(log(2/δ)/(2n)) + 4/(τk) E[|dM/dπ|²] + log(1 + e^{2/τ}/k)",
            summary="The unstated constants are 192 (complexity, 2 × 96) and 12 (sample variability); ours "
            "192 max(κ, δ') and 3τ(b − a).",
        )
    ]


ERRATA = [
    Erratum(
        location="Theorem 1 (§5), complexity penalty and sample variability",
        as_printed="(const./τ)√(d_Θ/n) min{A√(log(3)+1), √(log(1+2A)+1)} + (const./τ)√(log(2/δ)/(2n))",
        kind="unstated constant",
        result="theorem1",
        corrected_step="Theorem 1's const.: 2·(96/τ)√(d_Θ/n)·min + (12/τ)·dev = (192/τ)√(d_Θ/n)·min + (12/τ)·dev",
        correction="complexity const. = 192 (Prop. 3's factor 2 times Prop. 5's 96); sample-variability const. = 12 "
        "(Prop. 3); ours: 192 max(κ, δ') and 3τ(b − a)",
        consequence="Theorem 1 holds with these constants (from Props. 2, 3, 5 as printed)",
        evidence="the combination step and the constant identity are checked; the premises are Props. 2, 3, 5",
    )
]

CONSTANTS = [
    PaperConstant(
        name="theorem1_complexity_constant",
        label="Theorem 1: complexity const. (192 from Props. 3, 5)",
        result="theorem1",
        build=lambda: (sp.Integer(192), 192 * _gen.mu()),
        proof_step="ours ≤ paper (complexity): 192 max(κ, δ') ≤ 192",
        note="the paper prints 'const.'; 192 = 2 × 96 is derived here from its Props. 3 and 5; ours = 192 max(κ, δ'); "
        "no gain as k → ∞",
        params=("tau", "k"),
    ),
    PaperConstant(
        name="theorem1_variability_constant",
        label="Theorem 1: sample-variability const. (12 from Prop. 3)",
        result="theorem1",
        build=lambda: (sp.Integer(12), 3 * tau * _gen.loss_range()),
        proof_step="ours ≤ paper (variability): 3τ(b − a) ≤ 12 (in ε = 1/k)",
        note="the paper prints 'const.'; 12 is derived from its Prop. 3; ours = 3τ(b − a); ratio → 1 as k → ∞",
        params=("tau", "k"),
    ),
]

TIGHT = {"theorem1_complexity_constant": tight_complexity, "theorem1_variability_constant": tight_variability}
