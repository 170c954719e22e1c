"""Lemma 1 (§4.2): under (C), for n, k ≥ 1, τ > 0, z_1, …, z_n ∈ Z^{2+k} and θ, θ' ∈ Θ,

  ρ_n^info(φ_θ, φ_θ') ≤ (4e/τ) B_τ(z_1, …, z_n) C_Φ ‖θ − θ'‖₂,
  B_τ := ((1/n) Σ‖z_iᵃ‖²)^{1/2} + ((1/n) Σ‖z_i⁺‖²)^{1/2} + ((1/nk) Σ_ij ‖z_ij⁻‖^{2/(1∧τ)})^{(1∧τ)/2}.

Printed proof (B.2): Prop. 4 with weights 4, 1, 3 raised to 4, 4, 4; (C) (50); Minkowski in R^n (51); β = 1 ∨ 2/τ,
so βτ = τ ∨ 2 and e^{2/(βτ)} ≤ e; Jensen in the two cases τ < 1 and τ ≥ 1 (52); collect, and bound the factor
1 in front of the first two terms of B_τ by e. Every step of the proof holds; Prop. 4 is used as printed (a
premise here, the result of the derivation ``prop4``). The sentence before the lemma says the proof takes β = 2/τ: for τ > 2
that violates Prop. 4's hypothesis β ≥ 1, and Prop. 4's inequality then fails (an erratum; the proof's
β = 1 ∨ 2/τ is right).

Ours: keep Prop. 4's weights: ρ ≤ (1/τ)(4N_a + N_+ + 3e^{2/(τ∨2)} N_−) C_Φ‖θ − θ'‖ ≤ (max(4, 3e^{2/(τ∨2)})/τ) B_τ C_Φ‖θ − θ'‖:
3e/τ for τ ≤ 2 (ratio 4/3), → 4/τ as τ grows (ratio → e).
"""

from __future__ import annotations

import sympy as sp

from ..checks import conjunction as _conj
from ..ledger import Derivation, Domain, Step
from ..symbols import (
    TAU_MAX,
    TAU_MIN,
    C_Phi,
    D_anc,
    D_neg,
    D_pos,
    N_anc,
    N_neg,
    N_pos,
    beta,
    dell,
    dtheta,
    eps_k,
    i,
    j,
    k,
    m_neg,
    n,
    q_anc,
    q_neg,
    q_pos,
    tau,
)
from ..symbols import x_ratio as x_gen
from . import Erratum, PaperConstant, _gen

POSITION = (4, 2, 1)

E = sp.E
_TAU = (TAU_MIN, TAU_MAX)
_DIFFS = {D_anc: (0, 2), D_pos: (0, 2), D_neg: (0, 2)}
_NORMS = {N_anc: (0, 100), N_pos: (0, 100), N_neg: (0, 100)}
_BETA = (1, 100)


def _one_negative_change(beta_expr: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """Prop. 4 on the instance s⁺ = 1, s_j ≡ 1, one negative flipped (φ'(z_1⁻) = −φ(zᵃ)): (|Δℓ|, its bound).

    |Δℓ| = log((k + 1)/(k + e^{−2/τ})); anchor and positive unchanged, so the bound is
    (3/τ) e^{2/(βτ)} ((1/k) 2^β)^{1/β} = (6/τ) e^{2/(βτ)} k^{−1/β}.
    """
    lhs = sp.log((k + 1) / (k + sp.exp(-2 / tau)))
    rhs = 6 / tau * sp.exp(2 / (beta_expr * tau)) * k ** (-1 / beta_expr)
    return lhs, rhs


def _log_chain_subs(lhs: sp.Expr, dom: Domain) -> list[dict | None]:
    """The chain's generic ``log(1 + x) ≤ x`` is used at ``x = X`` (its other parts as stated)."""
    em = sp.exp(-2 / tau)
    return [None, {x_gen: eps_k * (1 - em) / (1 + eps_k * em)}, None, None, None]


def _log_chain(lhs: sp.Expr, dom: Domain, factor: sp.Expr | None = None) -> list[Step]:
    """log((1 + ε)/(1 + εe^{−2/τ})) = log(1 + X), X = ε(1 − e^{−2/τ})/(1 + εe^{−2/τ}) ≤ ε(1 − e^{−2/τ}) ≤ factor·ε.

    ``factor`` is 2/τ (the default, used for τ ≥ 2) or 1 (for τ ≤ 2, where 1 − e^{−2/τ} ≤ 1 is the sharper link).
    """
    factor = 2 / tau if factor is None else factor
    em = sp.exp(-2 / tau)
    X = eps_k * (1 - em) / (1 + eps_k * em)
    le = {"kind": "inequality", "provenance": "ours", "domain": dom}
    return [
        Step(
            "|Δℓ| = log(1 + X)",
            lhs,
            sp.log(1 + X),
            domain=dom,
            provenance="ours",
            simplifier=lambda e: sp.simplify(sp.expand_log(sp.together(e))),
        ),
        Step(
            "log(1 + x) ≤ x",
            sp.log(1 + x_gen),
            x_gen,
            relation="<=",
            kind="inequality",
            domain=Domain({x_gen: (0, sp.oo)}),
        ),
        Step("X's denominator: 1 + εe^{−2/τ} ≥ 1", 1 + eps_k * em, 1, relation=">=", **le),
        Step("X's numerator: ε(1 − e^{−2/τ}) ≥ 0", eps_k * (1 - em), 0, relation=">=", **le),
        Step(
            f"1 − e^{{−2/τ}} ≤ {'2/τ' if factor == 2 / tau else sp.sstr(factor)}", 1 - em, factor, relation="<=", **le
        ),
    ]


def _instance_parts() -> list[Step]:
    """The flipped-negative instance at β = 1 ∨ 2/τ, in ε = 1/k (tight as ε → 0), split at τ = 2."""
    lhs = sp.log((1 + eps_k) / (1 + eps_k * sp.exp(-2 / tau)))
    lo_dom = Domain({tau: (TAU_MIN, 2), eps_k: (0, 1)}, name="τ ∈ [1e-3, 2], ε ∈ (0, 1]")
    hi_dom = Domain({tau: (2, TAU_MAX), eps_k: (0, 1)}, name="τ ∈ [2, 1e2], ε ∈ (0, 1]")
    le = {"kind": "inequality", "relation": "<=", "provenance": "ours", "reference": "Prop. 4 instance"}
    return [
        Step(
            "τ ≤ 2: |Δℓ| = log((1 + ε)/(1 + ε e^{−2/τ})) ≤ ε",
            lhs,
            eps_k,
            domain=lo_dom,
            # tight as ε → 0, where branch and bound cannot separate the two sides: proved as a chain
            route=_conj.hint(
                _log_chain(lhs, lo_dom, sp.Integer(1)),
                "log(1 + X) ≤ X ≤ ε(1 − e^{−2/τ}) ≤ ε",
                subs=_log_chain_subs(lhs, lo_dom),
                simplify={"|Δℓ| = log(1 + X)": "expand_log_together"},
            ),
            **le,
        ),
        Step("τ ≤ 2: ε ≤ (6e/τ) ε^{τ/2} (β = 2/τ)", eps_k, 6 * E / tau * eps_k ** (tau / 2), domain=lo_dom, **le),
        Step(
            "τ ≥ 2: |Δℓ| ≤ 2ε/τ",
            lhs,
            2 * eps_k / tau,
            domain=hi_dom,
            route=_conj.hint(
                _log_chain(lhs, hi_dom),
                "log(1 + X) ≤ X ≤ ε(1 − e^{−2/τ}) ≤ 2ε/τ",
                subs=_log_chain_subs(lhs, hi_dom),
                simplify={"|Δℓ| = log(1 + X)": "expand_log_together"},
            ),
            **le,
        ),
        Step(
            "τ ≥ 2: 2ε/τ ≤ (6/τ) e^{2/τ} ε (β = 1)",
            2 * eps_k / tau,
            6 / tau * sp.exp(2 / tau) * eps_k,
            domain=hi_dom,
            **le,
        ),
    ]


def _instance_route() -> tuple:
    """The conjunction hint of the instance at β = 1 ∨ 2/τ: its parts per region of τ, in ε = 1/k."""
    return _conj.hint(
        _instance_parts(),
        "with ε = 1/k: |Δℓ| ≤ ε·min(1, 2/τ) ≤ the bound, "
        "β = 2/τ for τ ≤ 2 and 1 for τ ≥ 2 (transitivity of the two parts per region)",
        subs=[{eps_k: 1 / k}] * 4,
        implication="domains",
    )


def tight_step(c: sp.Expr) -> Step:
    """'(1/τ)(4N_a + N_+ + 3e^{2/(τ∨2)} N_−) ≤ c (N_a + N_+ + N_−)': c = max(4, 3e^{2/(τ∨2)})/τ is the least such c."""
    return Step(
        "ours: (1/τ)(4N_a + N_+ + 3e^{2/(τ∨2)} N_−) ≤ (max(4, 3e^{2/(τ∨2)})/τ) · B_τ",
        (4 * N_anc + N_pos + 3 * _gen.neg_factor() * N_neg) / tau,
        c * (N_anc + N_pos + N_neg),
        kind="inequality",
        relation="<=",
        domain=Domain({tau: _TAU, **_NORMS}, name="τ ∈ [1e-3, 1e2], N's ∈ [0, 100] (homogeneous)"),
        provenance="ours",
        reference="Lemma 1",
        note="equality at N_+ = N_− = 0 (τ large) or N_a = N_+ = 0 (τ ≤ 2/log(4/3)): no smaller constant",
        route=_conj.hint(
            [
                Step(
                    f"coefficient of {nm}: {w} ≤ c τ",
                    w,
                    c * tau,
                    kind="inequality",
                    relation="<=",
                    domain=_gen.TAU_ONLY,
                )
                for nm, w in (("N_a", sp.Integer(4)), ("N_+", sp.Integer(1)), ("N_−", 3 * _gen.neg_factor()))
            ],
            "a linear form in N ≥ 0 is dominated coefficientwise",
            multipliers=[N_anc / tau, N_pos / tau, N_neg / tau],
        ),
    )


def derivations() -> list[Derivation]:
    e_beta = sp.exp(2 / (beta * tau))
    pm = lambda vec, b_: (sp.Sum(vec[j] ** b_, (j, 1, k)) / k) ** (1 / b_)  # noqa: E731
    rms = lambda vec: sp.sqrt(sp.Sum(vec[i] ** 2, (i, 1, n)) / n)  # noqa: E731
    beta_l1 = sp.Max(1, 2 / tau)
    lhs_bad, rhs_bad = _one_negative_change(2 / tau)
    lhs_ok, _ = _one_negative_change(beta_l1)
    # the same bound at β = 1 ∨ 2/τ written with βτ = τ ∨ 2 and 1/β = 1 ∧ τ/2 (SymPy's LaTeX printer fails on
    # k**(1/Max(1, 2/τ)))
    rhs_ok = 6 / tau * _gen.neg_factor() * k ** (-sp.Min(1, tau / 2))
    inst_dom = Domain({tau: _TAU, k: (1, 10**4)}, name="τ ∈ [1e-3, 1e2], k ∈ [1, 1e4]")
    steps = [
        Step(
            "Prop. 4 (premise): |Δℓ| ≤ (4/τ)‖Δφ(zᵃ)‖ + (1/τ)‖Δφ(z⁺)‖ + (3/τ) e^{2/(βτ)} M_β(‖Δφ(z_j⁻)‖), β ≥ 1",
            dell,
            (4 * D_anc + D_pos + 3 * e_beta * D_neg) / tau,
            kind="definition",
            domain=Domain({dell: (0, sp.oo), tau: _TAU, beta: _BETA, **_DIFFS}),
            provenance="paper",
            reference="Prop. 4, the result step of derivation prop4 (appendix B.1), which checks it",
            note="premise: |Δℓ| is at most the right side; M_β is the power mean over the k negatives. "
            "prop4's sharper weights (2W_k, W_k, N_k^{1/β}) are verified there only on finite configurations, "
            "so Lemma 1's ours uses the printed weights",
        ),
        Step(
            "it follows from Prop. 4 that |Δℓ| ≤ (4/τ)(‖Δφ(zᵃ)‖ + ‖Δφ(z⁺)‖ + e^{2/(βτ)} M_β)",
            (4 * D_anc + D_pos + 3 * e_beta * D_neg) / tau,
            4 / tau * (D_anc + D_pos + e_beta * D_neg),
            kind="inequality",
            relation="<=",
            domain=Domain({tau: _TAU, beta: _BETA, **_DIFFS}),
            provenance="paper",
            reference="B.2, proof of Lemma 1, first display",
        ),
        Step(
            "(50): by (C), M_β(C_Φ‖z_j⁻‖‖Δθ‖) = C_Φ‖Δθ‖ M_β(‖z_j⁻‖) (power means are homogeneous)",
            (sp.Sum((C_Phi * dtheta * q_neg[j]) ** beta, (j, 1, k)) / k) ** (1 / beta),
            C_Phi * dtheta * pm(q_neg, beta),
            domain=Domain(
                {beta: _BETA, k: (1, sp.oo), q_neg: (0, 10), C_Phi: (0, 10), dtheta: (0, 10)},
                name="β ≥ 1, k ≥ 1, norms ≥ 0",
            ),
            provenance="paper",
            reference="(50)",
            simplifier=lambda e: sp.simplify(sp.powdenest(sp.expand_power_base(e.doit()))),
        ),
        Step(
            "(51): Minkowski in R^n: ((1/n)Σ(x_i + y_i + w_i)²)^{1/2} ≤ ((1/n)Σx_i²)^{1/2} + ((1/n)Σy_i²)^{1/2} + …",
            sp.sqrt(sp.Sum((q_anc[i] + q_pos[i] + q_neg[i]) ** 2, (i, 1, n)) / n),
            rms(q_anc) + rms(q_pos) + rms(q_neg),
            kind="inequality",
            relation="<=",
            domain=Domain({n: (1, sp.oo), q_anc: (0, 10), q_pos: (0, 10), q_neg: (0, 10)}, name="n ≥ 1, terms ≥ 0"),
            provenance="paper",
            reference="(51), the triangle inequality for ‖·‖₂ in R^n",
        ),
        Step(
            "β = 1 ∨ 2/τ meets Prop. 4's hypothesis β ≥ 1",
            beta_l1,
            1,
            kind="inequality",
            relation=">=",
            domain=_gen.TAU_ONLY,
            provenance="paper",
            reference="B.2, proof of Lemma 1: 'Now set β = 1 ∨ 2/τ'",
        ),
        Step(
            "βτ = τ ∨ 2, so e^{2/(βτ)} = e^{2/(τ∨2)}",
            beta_l1 * tau,
            sp.Max(tau, 2),
            domain=_gen.TAU_ONLY,
            provenance="paper",
            reference="B.2, proof of Lemma 1",
            # τ·Max(1, 2/τ) = Max(τ, 2) for τ > 0: both directions by the lattice route
            route=("lattice", {}),
        ),
        Step(
            "e^{2/(βτ)} = e^{2/(τ∨2)} ≤ e",
            _gen.neg_factor(),
            E,
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_ONLY,
            provenance="paper",
            reference="B.2, proof of Lemma 1, (52)",
            route=_conj.hint(
                [Step("τ ∨ 2 ≥ 2", sp.Max(tau, 2), 2, kind="inequality", relation=">=", domain=_gen.TAU_ONLY)],
                "e^{2/(τ∨2)} ≤ e ⟺ τ ∨ 2 ≥ 2 (exp increasing)",
                implication="monotone",
            ),
        ),
        Step(
            "(52), τ < 1 (2/β = τ): Jensen, ((1/n)Σ_i m_i^{τ})^{1/2} ≤ ((1/n)Σ_i m_i)^{τ/2}",
            sp.sqrt(sp.Sum(m_neg[i] ** tau, (i, 1, n)) / n),
            (sp.Sum(m_neg[i], (i, 1, n)) / n) ** (tau / 2),
            kind="inequality",
            relation="<=",
            domain=Domain({tau: (TAU_MIN, 1), n: (1, sp.oo), m_neg: (0, 100)}, name="τ ∈ [1e-3, 1], n ≥ 1, m_i ≥ 0"),
            provenance="paper",
            reference="(52), case τ < 1 (m_i = (1/k)Σ_j ‖z_ij⁻‖^β)",
        ),
        Step(
            "(52), τ ≥ 1 (β ∈ [1, 2]): power means, ((1/k)Σ_j y_j^β)^{2/β} ≤ (1/k)Σ_j y_j²",
            pm(q_neg, beta) ** 2,
            sp.Sum(q_neg[j] ** 2, (j, 1, k)) / k,
            kind="inequality",
            relation="<=",
            domain=Domain({beta: (1, 2), k: (1, sp.oo), q_neg: (0, 10)}, name="β ∈ [1, 2], k ≥ 1, y_j ≥ 0"),
            provenance="paper",
            reference="(52), case τ ≥ 1",
        ),
        Step(
            "Lemma 1: (4/τ)(N_a + N_+ + e N_−) ≤ (4e/τ) B_τ, B_τ = N_a + N_+ + N_−",
            4 / tau * (N_anc + N_pos + E * N_neg),
            4 * E / tau * (N_anc + N_pos + N_neg),
            kind="inequality",
            relation="<=",
            domain=Domain({tau: _TAU, **_NORMS}),
            provenance="paper",
            reference="B.2, proof of Lemma 1, last display (with (50)–(52); C_Φ‖θ − θ'‖ factored out)",
        ),
        Step(
            "§4.2 before Lemma 1: 'the proof of lemma 1 uses proposition 4 with β = 2/τ' — β = 2/τ ≥ 1",
            2 / tau,
            1,
            kind="inequality",
            relation=">=",
            domain=_gen.TAU_ONLY,
            provenance="paper",
            reference="§4.2, sentence before Lemma 1",
            expected="refuted",
            note="fails for τ > 2: Prop. 4 needs β ≥ 1",
        ),
        Step(
            "Prop. 4 at β = 2/τ, one negative flipped: log((k+1)/(k + e^{−2/τ})) ≤ (6/τ) e k^{−τ/2}",
            lhs_bad,
            rhs_bad,
            kind="inequality",
            relation="<=",
            domain=inst_dom,
            provenance="paper",
            reference="Prop. 4 with the β = 2/τ of §4.2",
            expected="refuted",
            note="s⁺ = 1, s_j ≡ 1; φ'(z_1⁻) = −φ(zᵃ), all else unchanged; the power mean is 2k^{−1/β}",
        ),
        Step(
            "ours: the same instance at the proof's β = 1 ∨ 2/τ holds",
            lhs_ok,
            rhs_ok,
            kind="inequality",
            relation="<=",
            domain=inst_dom,
            provenance="ours",
            reference="Prop. 4 with β = 1 ∨ 2/τ (B.2)",
            route=_instance_route(),
        ),
        tight_step(_gen.lemma1_ours()),
        Step(
            "ours ≤ paper: max(4, 3e^{2/(τ∨2)})/τ ≤ 4e/τ",
            _gen.lemma1_ours(),
            4 * E / tau,
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_ONLY,
            provenance="ours",
            reference="Lemma 1",
        ),
    ]
    return [
        Derivation(
            "lemma1",
            "Lemma 1: ρ_n^info(φ_θ, φ_θ') ≤ (4e/τ) B_τ C_Φ ‖θ − θ'‖ (ours: max(4, 3e^{2/(τ∨2)})/τ for 4e/τ)",
            steps,
            result="Lemma 1: (4/τ)(N_a + N_+ + e N_−) ≤ (4e/τ) B_τ, B_τ = N_a + N_+ + N_−",
            source="paper",
            depends_on=("prop4", "assumption_c"),
            paper_claim="Lemma 1: if (C) holds, ρ_n^info(φ_θ, φ_θ') ≤ (4e/τ) B_τ(z_1, …, z_n) C_Φ ‖θ − θ'‖₂",
            summary="Every step of the printed proof holds (with β = 1 ∨ 2/τ). The text's β = 2/τ breaks Prop. 4 "
            "for τ > 2. Keeping Prop. 4's weights gives max(4, 3e^{2/(τ∨2)})/τ ≤ 4e/τ.",
        )
    ]


ERRATA = [
    Erratum(
        location="§4.2, sentence before Lemma 1",
        as_printed="The proof of lemma 1 uses proposition 4 with a particular choice of inverse temperature "
        "parameter, β = 2/τ",
        kind="hypothesis not met",
        evidence="the step 'β = 2/τ ≥ 1' is refuted for τ > 2, and Prop. 4's inequality itself fails there on a "
        "one-negative instance; at β = 1 ∨ 2/τ (which meets β ≥ 1, a proved step) the same instance is proved",
        result="lemma1",
        printed_step="Prop. 4 at β = 2/τ, one negative flipped: log((k+1)/(k + e^{−2/τ})) ≤ (6/τ) e k^{−τ/2}",
        corrected_step="ours: the same instance at the proof's β = 1 ∨ 2/τ holds",
        correction="β = 1 ∨ 2/τ, as the proof in B.2 sets it (β = 2/τ only for τ ≤ 2)",
        consequence="none for Lemma 1: its proof already uses β = 1 ∨ 2/τ; the sentence is wrong for τ > 2",
    )
]

CONSTANTS = [
    PaperConstant(
        name="lemma1_constant",
        label="Lemma 1: ρ_n^info ≤ (4e/τ) B_τ C_Φ ‖θ − θ'‖",
        result="lemma1",
        build=lambda: (4 * E / tau, _gen.lemma1_ours()),
        proof_step="ours ≤ paper: max(4, 3e^{2/(τ∨2)})/τ ≤ 4e/τ",
        note="ours keeps Prop. 4's weights 4, 1, 3e^{2/(βτ)} instead of raising all three to 4e; ratio 4/3 for "
        "τ ≤ 2, → e for τ ≥ 2/log(4/3) ≈ 6.95",
        params=("tau",),
    )
]

TIGHT = {"lemma1_constant": tight_step}


def b_tau_power(tau_=tau) -> sp.Expr:
    """r = 1/(1 ∧ τ): B_τ's negatives' term is ((1/nk) Σ_ij (‖z_ij⁻‖²)^r)^{1/(2r)}, the exponent 2/(1∧τ) of Lemma 1."""
    return 1 / sp.Min(1, tau_)


def _kernel_formulas():
    from ..results import KernelFormula

    return [
        KernelFormula(
            "b_tau_power",
            ("tau",),
            b_tau_power,
            "derivations.paper.lemma1.b_tau_power",
            "lemma1 / B_τ",
            "r = 1/(1 ∧ τ): half the exponent 2/(1∧τ) of the negatives' power mean in B_τ (Lemma 1).",
        ),
    ]


#: B_τ's exponent for the data kernels of ``numerics.data_bounds``
KERNEL_FORMULAS = _kernel_formulas()
