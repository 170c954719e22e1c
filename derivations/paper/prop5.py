"""Proposition 5 (§4.2): under (C), for n, k ≥ 1, τ > 0 and any z_1, …, z_n ∈ Z^{2+k},

  E[sup_{φ∈Φ} (1/n) Σ_i σ_i ℓ(φ, z_i, k, τ)] ≤ (96/τ) √(d_Θ/n) min{a√(log 3 + 1), √(log(1 + 2a) + 1)},  a := e R B_τ C_Φ.

Printed proof (B.2): L := (4e/τ) B_τ C_Φ from Lemma 1 (53); an ε/L-cover of Θ is an ε-cover of Φ; Dudley's
integral with constant 24 [Wainwright 2019, eq. 5.48] up to U = 4/τ ∧ LR (54); the volumetric cover
N(ε, Θ) ≤ (1 + 2R/ε)^{d_Θ} [Wainwright, eq. 5.9]; Cauchy–Schwarz, the antiderivative
ε log(1 + 2RL/ε) + 2RL log(1 + ε/(2RL)) and log(1 + x) ≤ x give ∫_0^U ≤ U √d_Θ √(log(1 + 2RL/U) + 1); the cases
a ≥ 1 (U = 4/τ) and a < 1 (U = RL) and a ≤ 1 ⟺ a√(log 3 + 1) ≤ √(log(1 + 2a) + 1) give the min.

Erratum: the upper limit LR is justified by "ρ(φ_θ, φ_θ') ≤ LR" from (53) and Θ — false: Θ has diameter 2R. The
limit LR survives for another reason: θ₀ covers Θ at radius R, so N(ε/L, Θ) = 1 and the integrand vanishes
for ε ≥ LR. Misprints: "B_τ as in assumption (C)" (it is defined in Lemma 1) and "a := eRb_τ C_Φ" (b_τ undefined).

Ours: h(U, c) := U √(log(1 + 2c/U) + 1) is increasing in U and c and h(μU, μc) = μ h(U, c). With our Lipschitz
constant L' = κL (Lemma 1, κ = max(4, 3e^{2/(τ∨2)})/(4e)) and our diameter b − a = δ'·4/τ (Lemma 5), the bound
24√(d_Θ/n) h(min(b − a, RL'), RL') is at most μ = max(κ, δ') times the paper's: the constant 96 becomes 96μ.
"""

from __future__ import annotations

import sympy as sp

from ..checks import conjunction as _conj
from ..ledger import Derivation, Domain, Step
from ..render import printed
from ..symbols import (
    TAU_MAX,
    TAU_MIN,
    C_Phi,
    L_rho,
    N_anc,
    N_neg,
    N_pos,
    R,
    Rad_n,
    U_dud,
    X_s,
    a_cov,
    c_dud,
    d_Theta,
    del_s,
    eps_cov,
    eps_k,
    k,
    kap_s,
    mu_s,
    n,
    t_line,
    t_line2,
    tau,
    x_ratio,
)
from . import Erratum, PaperConstant, _gen
from . import lemma5 as _lemma5

POSITION = (4, 2, 2)

E = sp.E
_REF_DUDLEY = (
    "Dudley's entropy integral, Wainwright (2019), High-Dimensional Statistics, eq. (5.48), as the paper cites"
)
_REF_VOL = "volumetric covering of a Euclidean ball, Wainwright (2019), eq. (5.9)"
_LOG3 = sp.sqrt(sp.log(3) + 1)


#: the proof's antiderivative of log(1 + 2c/ε) in ε (the route proves it by differentiation)
DUDLEY_ANTIDERIVATIVE = eps_cov * sp.log(1 + 2 * c_dud / eps_cov) + 2 * c_dud * sp.log(1 + eps_cov / (2 * c_dud))


#: Cauchy–Schwarz, the printed antiderivative of log(1 + 2c/ε) (proved by differentiation, its limit 0 at ε = 0)
#: and log(1 + x) ≤ x at x = U/(2c), as the proof argues (route "integral bound")
DUDLEY_ROUTE = (
    "integral bound",
    {
        "rule": "cauchy-schwarz",
        "antiderivative": DUDLEY_ANTIDERIVATIVE,
        "uses": (("log(1 + x) ≤ x", sp.log(1 + x_ratio), x_ratio, {x_ratio: (0, sp.oo)}),),
        "with": {"log(1 + x) ≤ x": {"x_ratio": U_dud / (2 * c_dud)}},
    },
)


def h(U: sp.Expr, c: sp.Expr) -> sp.Expr:
    """h(U, c) = U √(log(1 + 2c/U) + 1): Dudley's integral over [0, U] after Cauchy–Schwarz, per 24√(d_Θ/n)."""
    return U * sp.sqrt(sp.log(1 + 2 * c / U) + 1)


def _paper_units(X: sp.Expr) -> sp.Expr:
    """The paper's bound per 24√(d_Θ/n)·(4/τ) at a = X: h(min(1, X), X) = min{X√(log 3 + 1), √(log(1 + 2X) + 1)}."""
    return h(sp.Min(1, X), X)


def _ours_units(X: sp.Expr) -> sp.Expr:
    """Our bound per 24√(d_Θ/n)·(4/τ): h(min(δ', κX), κX) — diameter δ'·4/τ, Lipschitz constant κL."""
    kap, dlt = _gen.kappa(), _gen.delta_ratio()
    return h(sp.Min(dlt, kap * X), kap * X)


#: why no route proves the tight step (the argument is the proof's, by the proved steps above)
UNPROVED_TIGHT = (
    "the sides are equal on a whole region (X ≤ min(1, δ'/κ) when κ ≥ δ') and meet only as X → ∞ when δ' > κ, so "
    "no interval, touching or tail route certifies it; the proof composes monotonicity of h in U and in c "
    "('ours: h increases in U', proved), min(δ', κX) ≤ μ·min(1, X) and κX ≤ μX (the lattice step, proved) and "
    "homogeneity (proved): a monotone-composition route would need the arguments bounded away from 0 on the box, "
    "and Arb does not enclose δ'(τ, k) = τ(b − a)/4 over τ ∈ [1e-3, 1e2], k ≤ 1e6 tightly enough (not built)"
)


def tight_step(c: sp.Expr) -> Step:
    """'our Dudley bound ≤ (c/96) × the paper's' over a: holds for c = 96μ, fails for any lower c (a → 0 or ∞)."""
    return Step(
        "ours: 24√(d/n) h(min(b − a, RL'), RL') ≤ (96μ/τ)√(d/n) min{a√(log 3 + 1), √(log(1 + 2a) + 1)}",
        _ours_units(X_s),
        c / 96 * _paper_units(X_s),
        kind="inequality",
        relation="<=",
        domain=Domain(
            {tau: (TAU_MIN, TAU_MAX), k: (1, 10**6), X_s: (sp.Rational(1, 10**6), 10**6)},
            name="τ ∈ [1e-3, 1e2], k ∈ [1, 1e6], a ∈ [1e-6, 1e6]",
        ),
        provenance="ours",
        reference="Prop. 5",
        route=(
            "attack only",
            {"reason": "tight as a → 0 (ratio κ/μ) or a → ∞ (ratio δ'/μ); proved by the steps above"},
        ),
        unproved=UNPROVED_TIGHT,
        note="units: both sides divided by 24√(d_Θ/n)·4/τ; X = a",
    )


def a_of(B: sp.Expr, R_: sp.Expr = R, C_: sp.Expr = C_Phi) -> sp.Expr:
    """a := e R B_τ C_Φ (Prop. 5; A in Theorem 1), B_τ ≥ 0 of Lemma 1, R > 0 the radius of Θ, C_Φ of (C)."""
    return E * R_ * B * C_


def _mu_route(kappa_le_1: Step, delta_le_1: Step) -> tuple:
    """96 max(κ, δ') ≤ 96 as a conjunction: each entry of the max ≤ 1, δ' ≤ 1 from Lemma 5's b − a ≤ 4/τ at ε = 1/k."""
    return _conj.hint(
        [kappa_le_1, delta_le_1],
        "max(κ, δ') ≤ 1 ⟸ κ ≤ 1 and δ' = τ(b − a)/4 ≤ 1",
        subs=[None, {eps_k: 1 / k}],
        implication="pieces",
    )


def derivations() -> list[Derivation]:
    B = N_anc + N_pos + N_neg
    a_def = a_of(B)
    L_def = 4 * E * B * C_Phi / tau
    norms = {N_anc: (0, 100), N_pos: (0, 100), N_neg: (sp.Rational(1, 100), 100)}
    big = {R: (sp.Rational(1, 1000), 1000), C_Phi: (sp.Rational(1, 1000), 1000), tau: (TAU_MIN, TAU_MAX)}
    line = Domain(
        {L_rho: (sp.Rational(1, 1000), 1000), R: (sp.Rational(1, 1000), 1000), t_line: (-1, 1), t_line2: (-1, 1)},
        name="L, R > 0, θ = θ₀ + Rtu, θ' = θ₀ + Rt'u, t, t' ∈ [−1, 1]",
    )
    uc = Domain(
        {U_dud: (sp.Rational(1, 10**4), 10**4), c_dud: (sp.Rational(1, 10**4), 10**4)}, name="U, c ∈ [1e-4, 1e4]"
    )
    a_lo = Domain({a_cov: (0, 1)}, name="a ∈ (0, 1]")
    a_hi = Domain({a_cov: (1, sp.oo)}, name="a ≥ 1")
    a_all = Domain({a_cov: (0, sp.oo)}, name="a > 0")
    branch_lo = Step(
        "a ≤ 1 ⟹ a√(log 3 + 1) ≤ √(log(1 + 2a) + 1)",
        a_cov * _LOG3,
        sp.sqrt(sp.log(1 + 2 * a_cov) + 1),
        kind="inequality",
        relation="<=",
        domain=a_lo,
        provenance="paper",
        reference="§4.2, remark after Prop. 5",
    )
    branch_hi = Step(
        "a ≥ 1 ⟹ √(log(1 + 2a) + 1) ≤ a√(log 3 + 1)",
        sp.sqrt(sp.log(1 + 2 * a_cov) + 1),
        a_cov * _LOG3,
        kind="inequality",
        relation="<=",
        domain=a_hi,
        provenance="paper",
        reference="§4.2, remark after Prop. 5",
    )
    kappa_le_1 = Step(
        "κ = max(4, 3e^{2/(τ∨2)})/(4e) ≤ 1",
        _gen.kappa(),
        1,
        kind="inequality",
        relation="<=",
        domain=_gen.TAU_ONLY,
        provenance="ours",
        reference="Lemma 1",
    )
    delta_le_1 = _lemma5.derivations()[0].step("ours: b − a ≤ 4/τ (in ε = 1/k; tight only as ε → 0)")
    steps = [
        Step(
            "(53): L := (4e/τ) B_τ C_Φ (Lemma 1), so ρ^info(φ_θ, φ_θ') ≤ L‖θ − θ'‖ and N(ε, Φ, ρ) ≤ N(ε/L, Θ)",
            L_rho,
            L_def,
            kind="definition",
            domain=Domain({L_rho: (0, sp.oo), **big, **norms}),
            provenance="paper",
            reference="(53)",
        ),
        Step(
            "(54): Dudley: E sup (1/n) Σ σ_i ℓ ≤ (24/√n) ∫_0^U √(log N(ε, Φ, ρ)) dε",
            Rad_n,
            24 / sp.sqrt(n) * sp.Integral(sp.sqrt(d_Theta * sp.log(1 + 2 * c_dud / eps_cov)), (eps_cov, 0, U_dud)),
            kind="definition",
            domain=Domain(
                {Rad_n: (0, sp.oo), n: (1, sp.oo), d_Theta: (1, sp.oo), c_dud: (0, sp.oo), U_dud: (0, sp.oo)}
            ),
            provenance="classical",
            reference=_REF_DUDLEY + "; with " + _REF_VOL + ", c = RL",
            note="premise (cited, not re-proved): Rad_n is at most the right side; the constant 24 is Wainwright's",
        ),
        Step(
            "upper limit 4/τ: ρ^info ≤ 4/τ by Lemma 5 (here in ε = 1/k)",
            _gen.loss_range_eps(),
            4 / tau,
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_EPS,
            provenance="paper",
            reference="proof of Prop. 5, after (54)",
            route=_conj.hint([delta_le_1], "ρ^info ≤ max_i |Δℓ_i| ≤ b − a ≤ 4/τ"),
        ),
        Step(
            "upper limit LR: 'combining (53) with the definition of Θ, ρ^info(φ_θ, φ_θ') ≤ LR': L‖θ − θ'‖ ≤ LR on Θ",
            L_rho * R * (t_line - t_line2),
            L_rho * R,
            kind="inequality",
            relation="<=",
            domain=line,
            provenance="paper",
            reference="proof of Prop. 5, after (54)",
            expected="refuted",
            note="θ = θ₀ + Ru, θ' = θ₀ − Ru are both in Θ and ‖θ − θ'‖ = 2R",
        ),
        Step(
            "ours: θ₀ covers Θ at radius R (‖θ − θ₀‖ = Rt ≤ R), so N(ε/L, Θ) = 1 and the integrand vanishes for ε ≥ LR",
            L_rho * R * t_line,
            L_rho * R,
            kind="inequality",
            relation="<=",
            domain=line,
            provenance="ours",
            reference="proof of Prop. 5; (19)",
            note="so the upper limit LR stands; only its justification is wrong (the diameter bound is 2LR)",
        ),
        Step(
            "Cauchy–Schwarz + antiderivative + log(1 + x) ≤ x: ∫_0^U √(log(1 + 2c/ε)) dε ≤ U√(log(1 + 2c/U) + 1)",
            sp.Integral(sp.sqrt(sp.log(1 + 2 * c_dud / eps_cov)), (eps_cov, 0, U_dud)),
            h(U_dud, c_dud),
            kind="inequality",
            relation="<=",
            domain=uc,
            provenance="paper",
            reference="proof of Prop. 5, display after the volumetric estimate",
            route=DUDLEY_ROUTE,
        ),
        Step(
            "the antiderivative: d/dε [ε log(1 + 2c/ε) + 2c log(1 + ε/(2c))] = log(1 + 2c/ε)",
            sp.diff(DUDLEY_ANTIDERIVATIVE, eps_cov),
            sp.log(1 + 2 * c_dud / eps_cov),
            domain=Domain({eps_cov: (sp.Rational(1, 10**4), 10**4), c_dud: (sp.Rational(1, 10**4), 10**4)}),
            provenance="paper",
            reference="proof of Prop. 5 ('the anti-derivative in question')",
        ),
        Step(
            "the antiderivative vanishes at ε = 0: lim ε log(1 + 2c/ε) = 0",
            eps_cov * sp.log(1 + 2 * c_dud / eps_cov),
            0,
            kind="limit",
            var=eps_cov,
            point=0,
            domain=Domain({c_dud: (sp.Rational(1, 10**4), 10**4)}),
            provenance="ours",
        ),
        Step(
            "log(1 + x) ≤ x, so 2c log(1 + U/(2c)) ≤ U (x = U/(2c))",
            sp.log(1 + x_ratio),
            x_ratio,
            kind="inequality",
            relation="<=",
            domain=Domain({x_ratio: (0, sp.oo)}, name="x ≥ 0"),
            provenance="paper",
            reference="proof of Prop. 5 ('log(1 + x) ≤ x')",
        ),
        Step(
            "case 4/τ ≤ RL: 2RL/(4/τ) = 2a with L = 4eB_τC_Φ/τ, a = eRB_τC_Φ",
            # the proof's 2RL/(4/τ) and 2a, with L of (53) and a := eRB_τC_Φ substituted
            printed(
                sp.Subs(sp.Mul(2, R, L_rho, sp.Pow(4 / tau, -1, evaluate=False), evaluate=False), L_rho, L_def),
                2 * R * L_def / (4 / tau),
            ),
            printed(sp.Subs(2 * a_cov, a_cov, a_def), 2 * a_def),
            domain=Domain({**big, **norms}),
            provenance="paper",
            reference="proof of Prop. 5, case 4/τ ≤ RL",
        ),
        Step(
            "case 4/τ > RL: RL = (4/τ) a (so 4/τ > RL ⟺ 1 > a)",
            printed(sp.Subs(R * L_rho, L_rho, L_def), R * L_def),
            printed(sp.Subs(4 / tau * a_cov, a_cov, a_def), 4 / tau * a_def),
            domain=Domain({**big, **norms}),
            provenance="paper",
            reference="proof of Prop. 5, case 4/τ > RL",
        ),
        branch_lo,
        branch_hi,
        Step(
            "Prop. 5: (96/τ)√(d/n) h(1 ∧ a, a) ≤ (96/τ)√(d/n) min{a√(log 3 + 1), √(log(1 + 2a) + 1)}",
            _paper_units(a_cov),
            sp.Min(a_cov * _LOG3, sp.sqrt(sp.log(1 + 2 * a_cov) + 1)),
            kind="inequality",
            relation="<=",
            domain=a_all,
            provenance="paper",
            reference="proof of Prop. 5, last display (common factor (96/τ)√(d_Θ/n) divided out)",
            route=_conj.hint([branch_lo, branch_hi], "h(1 ∧ a, a) is the first entry for a ≤ 1, the second for a ≥ 1"),
        ),
        # --- ours
        Step(
            "ours: h is homogeneous: h(μU, μc) = μ h(U, c)",
            printed(
                sp.Subs(h(U_dud, c_dud), (U_dud, c_dud), (mu_s * U_dud, mu_s * c_dud)), h(mu_s * U_dud, mu_s * c_dud)
            ),
            mu_s * h(U_dud, c_dud),
            domain=Domain({**uc.ranges, mu_s: (sp.Rational(1, 100), 100)}),
            provenance="ours",
        ),
        Step(
            "ours: h increases in U: U ∂h/∂U ∝ log(1 + 2x) + 1 − x/(1 + 2x) ≥ 0, x = c/U",
            sp.log(1 + 2 * x_ratio) + 1 - x_ratio / (1 + 2 * x_ratio),
            0,
            kind="inequality",
            relation=">=",
            domain=Domain({x_ratio: (0, sp.oo)}),
            provenance="ours",
        ),
        Step(
            "ours: min(δ', κX) ≤ max(δ', κ)·min(1, X) for δ', κ ∈ [0, 1], X ≥ 0",
            sp.Min(del_s, kap_s * X_s),
            sp.Max(del_s, kap_s) * sp.Min(1, X_s),
            kind="inequality",
            relation="<=",
            domain=Domain({del_s: (0, 1), kap_s: (0, 1), X_s: (0, 10**6)}),
            provenance="ours",
            # min/max case analysis, δ' ≤ μ·1 and κX ≤ μX: the lattice route's lattice normal forms
        ),
        kappa_le_1,
        tight_step(96 * _gen.mu()),
        Step(
            "ours ≤ paper: 96 max(κ, δ') ≤ 96",
            96 * _gen.mu(),
            96,
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_K,
            provenance="ours",
            reference="Prop. 5",
            route=_mu_route(kappa_le_1, delta_le_1),
        ),
    ]
    return [
        Derivation(
            "prop5",
            "Prop. 5: Dudley bound (96/τ)√(d_Θ/n) min{a√(log 3 + 1), √(log(1 + 2a) + 1)} (ours: 96 max(κ, δ'))",
            steps,
            result="Prop. 5: (96/τ)√(d/n) h(1 ∧ a, a) ≤ (96/τ)√(d/n) min{a√(log 3 + 1), √(log(1 + 2a) + 1)}",
            source="paper",
            depends_on=("lemma5", "lemma1", "assumption_c"),
            paper_claim="Prop. 5: E[sup_φ (1/n) Σ σ_i ℓ(φ, z_i, k, τ)] ≤ (96/τ)√(d_Θ/n) min{a√(log(3) + 1), "
            "√(log(1 + 2a) + 1)}, a := eRB_τC_Φ",
            summary="The bound holds; the upper limit LR of Dudley's integral is justified by a false diameter "
            "bound (Θ has diameter 2R) but stands because N(ε/L, Θ) = 1 for ε ≥ LR. Ours: 96 max(κ, δ').",
        )
    ]


ERRATA = [
    Erratum(
        location="Appendix B.2, proof of Prop. 5, after (54)",
        as_printed="the integral upper-limit LR appears since by combining (53) with the definition of Θ we have "
        "ρ^info(φ_θ, φ_θ') ≤ LR",
        kind="false as printed",
        result="prop5",
        printed_step="upper limit LR: 'combining (53) with the definition of Θ, ρ^info(φ_θ, φ_θ') ≤ LR': "
        "L‖θ − θ'‖ ≤ LR on Θ",
        corrected_step="ours: θ₀ covers Θ at radius R (‖θ − θ₀‖ = Rt ≤ R), so N(ε/L, Θ) = 1 and the integrand "
        "vanishes for ε ≥ LR",
        correction="(53) and (19) give ρ^info ≤ L‖θ − θ'‖ ≤ 2LR (Θ has diameter 2R); the limit LR is right because "
        "the single centre θ₀ is an R-cover of Θ, so log N(ε/L, Θ) = 0 for ε ≥ LR",
        consequence="none: Prop. 5 holds with its printed constants",
    ),
    Erratum(
        location="Prop. 5 statement, its proof, and Theorem 1",
        as_printed="let B_τ(z_1, …, z_n) be as in assumption (C) … a := eRb_τ(z_1, …, z_n)C_Φ",
        kind="misprint or undefined symbol",
        result="prop5",
        corrected_step="case 4/τ > RL: RL = (4/τ) a (so 4/τ > RL ⟺ 1 > a)",
        correction="B_τ is defined in Lemma 1, not in (C); read a := eRB_τ(z_1, …, z_n)C_Φ (as the proof's own "
        "'1 > eRB_τC_Φ ⟺ 1 > a' does); likewise A := eRB_τ(Z_1, …, Z_n)C_Φ in Theorem 1",
        consequence="none (b_τ may be a conversion slip of the copy read here)",
        evidence="b_τ is defined nowhere in the text; the proof's equivalence 4/τ > RL ⟺ 1 > eRB_τC_Φ ⟺ 1 > a uses B_τ",
    ),
]

CONSTANTS = [
    PaperConstant(
        name="prop5_constant",
        label="Prop. 5: the 96 of (96/τ)√(d_Θ/n) min{…}",
        result="prop5",
        build=lambda: (sp.Integer(96), 96 * _gen.mu()),
        proof_step="ours ≤ paper: 96 max(κ, δ') ≤ 96",
        note="ours = 96 max(κ, δ'), κ = max(4, 3e^{2/(τ∨2)})/(4e) (Lemma 1), δ' = τ(b − a)/4 (Lemma 5), with a "
        "defined as in the paper; Dudley's 24 is kept as cited; no gain as k → ∞ (δ' → 1)",
        params=("tau", "k"),
    )
]

TIGHT = {"prop5_constant": tight_step}
