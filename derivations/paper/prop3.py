"""Proposition 3 (§4.1): with probability ≥ 1 − δ, for all φ ∈ Φ ⊂ B(Z, S^{d−1}), n, k ≥ 1, τ > 0, δ ∈ (0, 1),

  R(φ; k, τ) ≤ R̂_n(φ; k, τ) + 2 E[sup_φ (1/n) Σ_i σ_i ℓ(φ, Z_i, k, τ) | Z_1, …, Z_n] + (12/τ) √(log(2/δ)/(2n)).

Printed proof (appendix B): apply [Mohri et al. 2018, Thm 3.3] — for a class G of functions into [0, 1],
E g ≤ (1/n) Σ g(Z_i) + 2 R̂_S(G) + 3 √(log(2/δ)/(2n)) — to g = (ℓ − a)/(b − a) with a = log(1/k + e^{−2/τ}),
b = log(1/k + e^{2/τ}) (34); the empirical Rademacher complexity is invariant to adding a constant and scales
with b − a; multiply by b − a, add a: the deviation term is 3(b − a)√(log(2/δ)/(2n)); then b − a ≤ 4/τ (Lemma 5).

Every step holds. Ours: keep 3(b − a) (Lemma 5's exact range) instead of 12/τ — the same theorem, a smaller
constant for every finite k (ratio → 1 only as k → ∞).
"""

from __future__ import annotations

import sympy as sp

from ..checks import conjunction as _conj
from ..ledger import Derivation, Domain, Step
from ..render import printed
from ..symbols import TAU_MAX, TAU_MIN, Rad_g, Rad_n, Rhat_n, Rk_risk, delta, dev, ell_hi, ell_lo, ghat, k, n, tau
from . import PaperConstant, _gen
from . import lemma5 as _lemma5

POSITION = (4, 1, 1)

_REF_MOHRI = "Mohri, Rostamizadeh & Talwalkar (2018), Foundations of Machine Learning, 2nd ed., Theorem 3.3"

_ENDS = Domain(
    {ell_lo: (-50, 0), ell_hi: (sp.Rational(1, 100), 50), Rhat_n: (-50, 50), Rad_n: (0, 50), Rad_g: (0, 50)},
    name="a ≤ 0 < b, R̂_n, Rad ≥ 0",
)


#: a value ℓ(φ, z_i, k, τ) of one function of the class at one point (the rescaling acts on it)
ELL_VALUE = sp.Symbol("ell_value", real=True)


def _rescale_domain() -> Domain:
    return Domain(
        {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), Rhat_n: (-50, 50), Rad_n: (0, 50), dev: (sp.Rational(1, 10**6), 10)},
        name="τ ∈ [1e-3, 1e2], k ≥ 1, R̂_n, Rad ≥ 0, dev > 0",
    )


def tight_step(c: sp.Expr) -> Step:
    """'(34) × (b − a) + a = R̂_n + 2 Rad + c·dev' at the true a, b: an identity exactly for c = 3(b − a)."""
    width = _gen.loss_range()
    lo = _gen.loss_lo()
    g_hat = (Rhat_n - lo) / width
    return Step(
        "ours: (34) × (b − a) + a at the exact range gives the deviation 3(b − a)·√(log(2/δ)/(2n))",
        width * (g_hat + 2 * (Rad_n / width) + 3 * dev) + lo,
        Rhat_n + 2 * Rad_n + c * dev,
        domain=_rescale_domain(),
        provenance="ours",
        reference="proof of Prop. 3",
        simplifier=lambda e: sp.simplify(sp.expand(e)),
    )


def deviation(delta_: sp.Expr = delta, n_: sp.Expr = n) -> sp.Expr:
    """dev = √(log(2/δ)/(2n)), δ ∈ (0, 1), n ≥ 1: the deviation term of Mohri Thm 3.3 as Prop. 3 prints it."""
    return sp.sqrt(sp.log(2 / delta_) / (2 * n_))


def derivations() -> list[Derivation]:
    width = ell_hi - ell_lo
    steps = [
        Step(
            "the deviation term: dev := √(log(2/δ)/(2n))",
            dev,
            deviation(),
            kind="definition",
            domain=Domain({dev: (0, sp.oo), delta: (sp.Rational(1, 10**6), sp.Rational(999, 1000)), n: (1, sp.oo)}),
            provenance="paper",
            reference="Prop. 3",
        ),
        Step(
            "(34): Mohri Thm 3.3 for g = (ℓ − a)/(b − a) ∈ [0, 1]: E g ≤ ĝ + 2 R̂(g) + 3 dev (w.p. ≥ 1 − δ)",
            (Rk_risk - ell_lo) / width,
            ghat + 2 * Rad_g + 3 * dev,
            kind="definition",
            domain=Domain({**_ENDS.ranges, Rk_risk: (-sp.oo, sp.oo), ghat: (0, 1), dev: (0, sp.oo)}),
            provenance="classical",
            reference=_REF_MOHRI + "; the paper's (34)",
            note="premise (a cited theorem, not re-proved here): the left side is at most the right side "
            "with probability ≥ 1 − δ, uniformly over the class; needs only i.i.d. tuples, assumption (A)",
        ),
        Step(
            "Rademacher complexity is invariant to adding a constant; factor out b − a: R̂(g) = R̂(ℓ)/(b − a)",
            Rad_g,
            Rad_n / width,
            domain=_ENDS,
            provenance="paper",
            reference="proof of Prop. 3, display after (34)",
            # the map ℓ ↦ (ℓ − a)/(b − a): E σ_i·(−a/(b − a)) = 0 and sup is homogeneous for 1/(b − a) > 0
            route=("rademacher affine", {"complexity": Rad_n, "value": ELL_VALUE, "map": (ELL_VALUE - ell_lo) / width}),
        ),
        Step(
            "E g × (b − a) + a = R(φ; k, τ) (by (2): R = E ℓ)",
            # E g = (R − a)/(b − a), multiplied back by b − a and a added, as in the proof
            printed(
                sp.Add(
                    sp.Mul(sp.UnevaluatedExpr((Rk_risk - ell_lo) / width), width, evaluate=False),
                    ell_lo,
                    evaluate=False,
                ),
                (Rk_risk - ell_lo) / width * width + ell_lo,
            ),
            Rk_risk,
            domain=Domain({**_ENDS.ranges, Rk_risk: (-50, 50)}),
            provenance="paper",
            reference="proof of Prop. 3, recalling (2)",
        ),
        Step(
            "multiply (34) by b − a and add a: R̂_n + 2 R̂(ℓ) + 3(b − a) dev",
            width * ((Rhat_n - ell_lo) / width + 2 * (Rad_n / width) + 3 * dev) + ell_lo,
            Rhat_n + 2 * Rad_n + 3 * width * dev,
            domain=Domain({**_ENDS.ranges, dev: (0, 10)}),
            provenance="paper",
            reference="proof of Prop. 3, last display",
            simplifier=lambda e: sp.simplify(sp.expand(e)),
        ),
        tight_step(3 * _gen.loss_range()),
        Step(
            "upper-bound b − a as in Lemma 5: 3(b − a) ≤ 12/τ (in ε = 1/k)",
            3 * _gen.loss_range_eps(),
            12 / tau,
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_EPS,
            provenance="paper",
            reference="proof of Prop. 3, last sentence (Lemma 5)",
            route=_conj.hint(
                [_lemma5.derivations()[0].step("ours: b − a ≤ 4/τ (in ε = 1/k; tight only as ε → 0)")],
                "3(b − a) ≤ 12/τ is 3 × Lemma 5's b − a ≤ 4/τ",
                multipliers=[3],
                implication="combination",
            ),
        ),
    ]
    return [
        Derivation(
            "prop3",
            "Prop. 3: R ≤ R̂_n + 2 R̂(ℓ∘Φ) + (12/τ)√(log(2/δ)/(2n)) w.p. ≥ 1 − δ (ours: 3(b − a) for 12/τ)",
            steps,
            result="upper-bound b − a as in Lemma 5: 3(b − a) ≤ 12/τ (in ε = 1/k)",
            source="paper",
            depends_on=("lemma5",),
            paper_claim="Prop. 3: w.p. ≥ 1 − δ, for all φ ∈ Φ, R(φ; k, τ) ≤ R̂_n(φ; k, τ) + 2 E[sup_φ (1/n) Σ σ_i ℓ | Z] "
            "+ (12/τ)√(log(2/δ)/(2n))",
            summary="Mohri Thm 3.3 rescaled by the loss range; every printed step holds. The deviation constant "
            "3(b − a) (exact range) is below the printed 12/τ for every finite k.",
        )
    ]


CONSTANTS = [
    PaperConstant(
        name="prop3_variability",
        label="Prop. 3: coefficient of √(log(2/δ)/(2n)), 12/τ",
        result="prop3",
        build=lambda: (12 / tau, 3 * _gen.loss_range()),
        proof_step="upper-bound b − a as in Lemma 5: 3(b − a) ≤ 12/τ (in ε = 1/k)",
        note="ours = 3(b − a): Mohri's 3 times the exact loss range (Lemma 5); the factor 3 of Mohri Thm 3.3 is "
        "kept as cited, so ours is no sharper as k → ∞ (ratio → 1)",
        params=("tau", "k"),
    )
]

TIGHT = {"prop3_variability": tight_step}
