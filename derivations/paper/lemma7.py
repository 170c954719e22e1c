"""Lemma 7 (appendix B.1): a softmax-weighted mean is at most e^{2/(βτ)} times the β-power mean.

Σ_j e^{x_j/τ} a_j / Σ_j e^{x_j/τ} ≤ e^{2/(βτ)} ((1/k) Σ_j a_j^β)^{1/β},
for k ≥ 1, τ > 0, β ≥ 1, x_1, …, x_k ∈ [−1, 1], a_1, …, a_k ≥ 0 (the paper's β).

Printed proof: Jensen (t ↦ t^β convex) and p_j = e^{x_j/τ}/Σ_i e^{x_i/τ} ≤ e^{2/τ}/k.
Ours: p_j ≤ e^{2/τ}/(e^{2/τ} + k − 1) = M_k/k (the largest weight has the k − 1 others at x = −1), so
Σ_j p_j a_j ≤ M_k^{1/β} ((1/k) Σ_j a_j^β)^{1/β},  M_k = k e^{2/τ}/(e^{2/τ} + k − 1) ≤ min(k, e^{2/τ}):
attained at β = 1 (a = e_1, x = (1, −1, …, −1)), and ≤ the paper's e^{2/(βτ)} for every k, β, τ.
M_k is ``continuity.weight_bound``: the same weight bound as our similarity-space family.
"""

from __future__ import annotations

import sympy as sp

from ..continuity import weight_bound
from ..ledger import Derivation, Domain, Step
from ..symbols import TAU_MAX, TAU_MIN, beta, dist, j, k, s, tau, x
from ..symbols import y as y_sym
from . import PaperConstant

POSITION = (4, 1, 3, 7)

E2 = sp.exp(2 / tau)


def softmax_mean(k_=k) -> sp.Expr:
    """Σ_j e^{x_j/τ} a_j / Σ_j e^{x_j/τ} (x_j = s_j, a_j = Δ_j)."""
    return sp.Sum(sp.exp(s[j] / tau) * dist[j], (j, 1, k_)) / sp.Sum(sp.exp(s[j] / tau), (j, 1, k_))


def power_mean_beta(k_=k, b=beta) -> sp.Expr:
    """((1/k) Σ_j a_j^β)^{1/β}."""
    return (sp.Sum(dist[j] ** b, (j, 1, k_)) / k_) ** (1 / b)


def paper_constant(b=beta) -> sp.Expr:
    """e^{2/(βτ)}, as printed."""
    return sp.exp(2 / (b * tau))


def our_constant(b=beta, k_=k) -> sp.Expr:
    """M_k^{1/β}, M_k = k e^{2/τ}/(e^{2/τ} + k − 1)."""
    return weight_bound(tau, k_) ** (1 / b)


def _domains() -> dict[str, Domain]:
    return {
        "vec": Domain(
            # τ ≥ 1/100 keeps e^{x/τ} in float range, so the falsifier's worst ratio is not poisoned by overflow;
            # the scalar weight bounds below are proved on the full τ ∈ [1e-3, 1e2]
            {tau: (sp.Rational(1, 100), TAU_MAX), k: (1, sp.oo), s: (-1, 1), dist: (0, 10), beta: (1, 50)},
            name="τ ∈ [1e-2, 1e2], k ≥ 1, x_j ∈ [−1, 1], a_j ∈ [0, 10], β ∈ [1, 50]",
        ),
        "weight": Domain(
            {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), x: (-1, 1), y_sym: (0, 2)},
            name="τ ∈ [1e-3, 1e2], k ≥ 1, x = x_j ∈ [−1, 1], y ∈ [0, 2] (the others' log-mean is x̄ = y − 1)",
        ),
        "tkb": Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), beta: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, β ≥ 1"),
        "tk": Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1"),
    }


RESULT = "Lemma 7: Σ_j e^{x_j/τ} a_j / Σ_j e^{x_j/τ} ≤ e^{2/(βτ)} ((1/k) Σ_j a_j^β)^{1/β}"
OURS = "ours, Lemma 7 sharpened: Σ_j p_j a_j ≤ M_k^{1/β} ((1/k) Σ_j a_j^β)^{1/β}, M_k = k e^{2/τ}/(e^{2/τ} + k − 1)"
OURS_LE_PAPER = "ours ≤ paper: M_k^{1/β} ≤ e^{2/(βτ)}"


def derivations() -> list[Derivation]:
    D = _domains()
    i_ = sp.Dummy("i", integer=True, positive=True)
    p_of = sp.exp(s[j] / tau) / sp.Sum(sp.exp(s[i_] / tau), (i_, 1, k))
    sum_pa = sp.Sum(p_of * dist[j], (j, 1, k))
    sum_pab = sp.Sum(p_of * dist[j] ** beta, (j, 1, k))
    # reduced scalar for one weight: p_j = e^{x/τ}/(e^{x/τ} + (k − 1) e^{x̄/τ}), x̄ = τ log mean_{i≠j} e^{x_i/τ}
    xbar = y_sym - 1
    p_red = sp.exp(x / tau) / (sp.exp(x / tau) + (k - 1) * sp.exp(xbar / tau))
    ex = sp.exp(x / tau)
    adv = [
        {
            k: 12,
            s[1]: 1,
            **{s[i]: -1 for i in range(2, 13)},
            dist[1]: 1,
            **{dist[i]: 0 for i in range(2, 13)},
            beta: 1,
            tau: sp.Rational(1, 5),
        },
        {
            k: 12,
            s[1]: 1,
            **{s[i]: -1 for i in range(2, 13)},
            dist[1]: 1,
            **{dist[i]: 0 for i in range(2, 13)},
            beta: 2,
            tau: 1,
        },
        {k: 2, s[1]: 1, s[2]: -1, dist[1]: 3, dist[2]: 0, beta: 1, tau: sp.Rational(1, 10)},
    ]
    steps = [
        Step(
            "Jensen (β ≥ 1): (Σ_j p_j a_j)^β ≤ Σ_j p_j a_j^β, p_j = e^{x_j/τ}/Σ_i e^{x_i/τ}",
            sum_pa**beta,
            sum_pab,
            kind="inequality",
            relation="<=",
            domain=D["vec"],
            provenance="paper",
            reference="proof of Lemma 7, first display",
            adversarial=adv,
            note="vector claim: the falsifier attacks it at k ≤ 12",
        ),
        Step(
            "p_j ≤ e^{2/τ}/k (reduced scalar: the other k − 1 weights enter through their log-mean x̄ ∈ [−1, 1])",
            p_red,
            E2 / k,
            kind="inequality",
            relation="<=",
            domain=D["weight"],
            provenance="paper",
            reference="proof of Lemma 7, 'the fact that p_j ≤ e^{2/τ}/k'",
            route=(
                "certificate",
                {
                    "certificate": (ex * (E2 - 1) + (k - 1) * ex * (sp.exp((2 + xbar - x) / tau) - 1))
                    / (k * (ex + (k - 1) * sp.exp(xbar / tau)))
                },
            ),
        ),
        Step(
            "proof of Lemma 7, last display: Σ_j p_j a_j ≤ (Σ_j p_j a_j^β)^{1/β} ≤ e^{2/(βτ)} ((1/k) Σ_j a_j^β)^{1/β}",
            sum_pab ** (1 / beta),
            paper_constant() * power_mean_beta(),
            kind="inequality",
            relation="<=",
            domain=D["vec"],
            provenance="paper",
            reference="proof of Lemma 7, second display (second inequality; the first is Jensen above)",
            adversarial=adv,
        ),
        Step(
            RESULT,
            softmax_mean(),
            paper_constant() * power_mean_beta(),
            kind="inequality",
            relation="<=",
            domain=D["vec"],
            provenance="paper",
            reference="Lemma 7",
            adversarial=adv,
            note="vector claim: the falsifier attacks it at k ≤ 12 (larger k in tests/test_paper_prop4.py)",
        ),
        Step(
            "ours: p_j ≤ M_k/k = e^{2/τ}/(e^{2/τ} + k − 1) (reduced scalar; x̄ ≥ −1)",
            k * p_red,
            weight_bound(tau, k),
            kind="inequality",
            relation="<=",
            domain=D["weight"],
            provenance="ours",
            route=(
                "certificate",
                {
                    "certificate": k
                    * (k - 1)
                    * sp.exp(-2 / tau)
                    * (sp.exp((2 + xbar - x) / tau) - 1)
                    / ((1 + (k - 1) * sp.exp((xbar - x) / tau)) * (1 + (k - 1) * sp.exp(-2 / tau)))
                },
            ),
            note="k p_j = k/(1 + (k − 1) e^{(x̄ − x)/τ}) increases in x and decreases in x̄: extreme at x = 1, x̄ = −1",
        ),
        Step(
            OURS,
            softmax_mean(),
            our_constant() * power_mean_beta(),
            kind="inequality",
            relation="<=",
            domain=D["vec"],
            provenance="ours",
            adversarial=adv,
            note="Jensen as printed, then Σ_j p_j a_j^β ≤ max_j p_j · Σ_j a_j^β ≤ (M_k/k) Σ_j a_j^β",
        ),
        Step(
            OURS_LE_PAPER,
            our_constant(),
            paper_constant(),
            kind="inequality",
            relation="<=",
            domain=D["tkb"],
            provenance="ours",
            route=(
                "certificate",
                {
                    "certificate": paper_constant() * (1 - (1 / (1 + (E2 - 1) / k)) ** (1 / beta)),
                    "reduction": "powsimp",
                },
            ),
            note="M_k = e^{2/τ}/(1 + (e^{2/τ} − 1)/k) ≤ e^{2/τ}; also M_k ≤ k, so ours ≤ k^{1/β} (the trivial max bound)",
        ),
        Step(
            "ours is attained at β = 1: a = e_1, x = (1, −1, …, −1) gives p_1 = M_k/k = M_k · (1/k) Σ_j a_j",
            sp.exp(1 / tau) / (sp.exp(1 / tau) + (k - 1) * sp.exp(-1 / tau)),
            weight_bound(tau, k) / k,
            domain=D["tk"],
            provenance="ours",
        ),
        Step(
            "paper's constant at β = 1 is approached as k → ∞: lim_{k→∞} M_k = e^{2/τ}",
            weight_bound(tau, k),
            E2,
            kind="limit",
            var=k,
            domain=D["tk"],
            provenance="ours",
        ),
    ]
    return [
        Derivation(
            "lemma7",
            "Lemma 7: softmax-weighted mean ≤ e^{2/(βτ)} × power mean",
            steps,
            result=RESULT,
            source="paper",
            paper_claim="Lemma 7: Σ_j e^{x_j/τ} a_j / Σ_j e^{x_j/τ} ≤ e^{2/(βτ)} ((1/k) Σ_j a_j^β)^{1/β}, β ≥ 1",
            summary="Holds as printed; ours replaces e^{2/(βτ)} by M_k^{1/β}, M_k = k e^{2/τ}/(e^{2/τ} + k − 1), "
            "attained at β = 1.",
            objects={"paper_constant": paper_constant, "our_constant": our_constant},
        )
    ]


CONSTANTS = [
    PaperConstant(
        name="lemma7_constant",
        label="Lemma 7 (and Lemma 8) constant e^{2/(βτ)}",
        result="lemma7",
        build=lambda: (paper_constant(), our_constant()),
        proof_step=OURS_LE_PAPER,
        attained="approached at β = 1 as k → ∞ (x = (1, −1, …, −1), a = e_1: the ratio is M_k/e^{2/τ} → 1); "
        "for β > 1 not attained (ours is smaller by (k/(e^{2/τ} + k − 1))^{1/β})",
        note="ours = M_k^{1/β}, M_k = k e^{2/τ}/(e^{2/τ} + k − 1) ≤ min(k, e^{2/τ}), attained at β = 1 for every k",
        params=("tau", "beta", "k"),
    ),
]
