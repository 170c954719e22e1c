"""Theorem 1's statement (our version): its three terms as SymPy expressions with provenance and rate, for each
loss in ``LOSSES`` (``theorem_terms``, ``theorem_expr``), the component bounds they are built from
(``loss_range``, ``sample_variability``, the complexity and bias terms), the data-free caps (``trivial_ce``,
``trivial_bound``) and the table of closed forms the CLI prints (``CLOSED_FORMS``, ``RATES``).

The theorem, its domain and its proof: ``derivations.theorem``, whose derivation checks these terms and which
re-exports every name here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from .loss import canonical_loss
from .results import ClosedForm
from .symbols import (
    L,
    R,
    delta,
    gamma,
    k,
    n,
    p,
    tau,
)

#: the losses the Theorem-1 terms are stated for: the DCL loss ℓ̃ (R̂_n its empirical risk), the paper's
#: InfoNCE ℓ (14) (R̂_n the paper's (1)) and the standard loss ℓ_std = ℓ + log k (read R̂_n − log k)
LOSSES = ("dcl", "infonce", "standard")

#: what the paper says about each component (§5, after Theorem 1; quoted, not our claim)
PAPER_CLAIMS = {
    "sample_variability": "sample variability, O(n^{-1/2}), independent of k",
    "complexity": "complexity penalty, O(n^{-1/2}), which stabilises as k → ∞ thanks to the averaging",
    "finite_k_bias": "finite-k bias, O(1/k)",
    "bound": "expected cross-entropy of the similarity search on unseen data minus the empirical risk is bounded "
    "by three parts (Theorem 1)",
}


@dataclass
class Term:
    """One named component of the combined bound: expression, provenance, rate, where to ``show`` it."""

    name: str
    expr: sp.Expr
    provenance: str
    rate: str
    paper_claim: str
    show: str
    meta: dict = field(default_factory=dict)


def loss_range(loss: str = "dcl", tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """Width b − a of the loss range: 4/τ (DCL ℓ̃); 2/τ + log(k + e^{−2/τ}) − log(1 + k e^{−2/τ}) (the
    paper's ℓ (14), and ℓ_std = ℓ + log k, a shift of it).

    That width equals log((1 + k e^{2/τ})/(1 + k e^{−2/τ})), written in a form whose float evaluation
    does not overflow at τ = 1e-3 (identity step "InfoNCE range, stable form"). "averaged" is the
    deprecated name of "dcl".
    """
    loss = canonical_loss(loss)
    if loss == "dcl":
        return 4 / tau_
    return 2 / tau_ + sp.log(k_ + sp.exp(-2 / tau_)) - sp.log(1 + k_ * sp.exp(-2 / tau_))


def sample_variability(loss: str = "dcl", tau_: Any = tau, k_: Any = k, n_: Any = n, delta_: Any = delta):
    """(b − a)·√(log(1/δ)/(2n)): one-sided McDiarmid deviation of sup_θ (R̃ − R̂_n); δ ∈ (0, 1), n ≥ 1."""
    return loss_range(loss, tau_, k_) * sp.sqrt(sp.log(1 / delta_) / (2 * n_))


def _bias():
    from . import bias  # the bias engineer's module (named interface)

    return bias


def _rademacher():
    from . import rademacher  # the continuity engineer's module (named interface)

    return rademacher


def complexity_term(
    tau_: Any = tau, gamma_: Any = gamma, k_: Any = k, n_: Any = n, L_: Any = L, p_: Any = p, R_: Any = R
) -> sp.Expr:
    """2 · complexity_avg(τ, γ, k, n, L, p, R): twice the Rademacher bound of the DCL-loss class."""
    return 2 * _rademacher().complexity_avg(tau_, gamma_, k_, n_, L_, p_, R_)


def complexity_max_term(tau_: Any = tau, k_: Any = k, n_: Any = n, L_: Any = L, p_: Any = p, R_: Any = R) -> sp.Expr:
    """2 · complexity_max(τ, k, n, L, p, R): the same penalty through the max-type (ℓ∞) continuity bound."""
    return 2 * _rademacher().complexity_max(tau_, k_, n_, L_, p_, R_)


def complexity_direct_term(tau_: Any = tau, n_: Any = n, L_: Any = L, p_: Any = p, R_: Any = R) -> sp.Expr:
    """2 · complexity_direct(τ, n, L, p, R): the k-free penalty from the loss being Lipschitz in θ directly.

    Not the paper's route (no averaging over negatives involved); for parametric classes it is smaller
    than both vector-contraction penalties, and it is an equally valid complexity term.
    """
    return 2 * _rademacher().complexity_direct(tau_, n_, L_, p_, R_)


def bias_term(tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """min(C(τ)/k, D(τ)): 0 ≤ CE − R̃ ≤ ``bias.bias_bound_sharp(τ, k)``; C(τ)/k carries the O(1/k) rate.

    D(τ) < 2/τ is the bias engineer's k-free cap; without it (older ``bias``) the log-range cap
    2/τ is used (log Z(x), log Z_k(x) ∈ [−1/τ, 1/τ]). The cap keeps the term finite and meaningful at
    small τ, where C(τ) ~ 0.22 e^{2/τ} is 1e8 at τ = 0.1.
    """
    b = _bias()
    if hasattr(b, "bias_bound_sharp"):
        return b.bias_bound_sharp(tau_, k_)
    return sp.Min(b.bias_bound(tau_, k_), 2 / sp.sympify(tau_))


def bias_term_uncapped(tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """C(τ)/k alone (``bias.bias_bound``), the O(1/k) part of ``bias_term``."""
    return _bias().bias_bound(tau_, k_)


def theorem_terms(
    tau_: Any = tau,
    gamma_: Any = gamma,
    k_: Any = k,
    n_: Any = n,
    delta_: Any = delta,
    L_: Any = L,
    p_: Any = p,
    R_: Any = R,
    loss: str = "dcl",
) -> dict[str, Term]:
    """The named components of Theorem 1 and their sum.

    Returns ``{"sample_variability", "complexity", "finite_k_bias", "bound"}`` → ``Term``; every
    expression is in τ, γ, k, n, δ, p, L, R (or the values passed). Valid on the module domain.
    """
    loss = canonical_loss(loss)
    sv = sample_variability(loss, tau_, k_, n_, delta_)
    cx = complexity_term(tau_, gamma_, k_, n_, L_, p_, R_)
    bs = bias_term(tau_, k_)
    shows = _show_names()
    terms = {
        "sample_variability": Term(
            "sample_variability",
            sv,
            "ours",
            RATES["sample_variability"],
            PAPER_CLAIMS["sample_variability"],
            "theorem",
            {"loss": loss},
        ),
        "complexity": Term(
            "complexity",
            cx,
            "ours",
            RATES["complexity"],
            PAPER_CLAIMS["complexity"],
            shows["complexity"],
            {"loss": loss},
        ),
        "finite_k_bias": Term(
            "finite_k_bias",
            bs,
            "ours",
            RATES["finite_k_bias"],
            PAPER_CLAIMS["finite_k_bias"],
            shows["finite_k_bias"],
            {"loss": loss},
        ),
    }
    terms["bound"] = Term(
        "bound", sv + cx + bs, "ours", RATES["bound"], PAPER_CLAIMS["bound"], "theorem", {"loss": loss}
    )
    return terms


def theorem_expr(loss: str = "dcl") -> sp.Expr:
    """The combined bound as one SymPy expression in τ, γ, k, n, δ, p, L, R."""
    return theorem_terms(loss=loss)["bound"].expr


def trivial_bound(loss: str = "dcl", tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """The data-free cap on CE − R̂_n: 4/τ (DCL ℓ̃ ≥ −2/τ) or 2/τ − log(1/k + e^{−2/τ}) ≤ 4/τ (ℓ (14); the
    standard loss with R̂_n = R̂_std − log k), written 2/τ + log k − log(1 + k e^{−2/τ}) so that no float
    overflows at τ = 1e-3. Domain: τ > 0, k ≥ 1. CE ≤ 2/τ by (9) (both terms ≤ 1/τ since |⟨φ, φ'⟩| ≤ 1)."""
    loss = canonical_loss(loss)
    tau_ = sp.sympify(tau_)
    if loss == "dcl":
        return 4 / tau_
    return 2 / tau_ + sp.log(k_) - sp.log(1 + k_ * sp.exp(-2 / tau_))


def trivial_ce(tau_: Any = tau) -> sp.Expr:
    """2/τ, τ > 0: the data-free cap on the left side of Theorem 1 itself, ∫ E CrossEnt[M̂_k ‖ Q̂^φ_{τ,k}] dπ ≤ 2/τ
    (every CrossEnt of (9) is −(weighted mean of ⟨φ, φ⟩)/τ + (1/τ)·τ log-mean-exp, both parts ≤ 1/τ; step
    ``TRIVIAL_NAMES["ce"]``). The caps of CE − R̂_n (``trivial_bound``) follow from it and R̂_n's lower end."""
    return 2 / sp.sympify(tau_)


_T1 = "Theorem-1 components"

#: what ``infonce-bounds constants`` certifies from this module (``derivations.results``): the loss range
#: and the complexity terms beside the bound, then the components of Theorem 1, whose rates are checked
#: by the limit steps of the ``theorem`` derivation; ``show`` names the derivation each comes from
CLOSED_FORMS = [
    ClosedForm(
        "loss_range",
        "b − a ({loss})",
        loss_range,
        "ours",
        {"dcl": "k-free", "infonce": "≤ 4/τ for every k", "standard": "≤ 4/τ for every k"},
        show="theorem",
    ),
    ClosedForm(
        "complexity_max",
        "2 · Rad_n, max-type (ℓ∞)",
        complexity_max_term,
        "ours",
        "grows with k",
        show="rademacher_max",
        note="for contrast; not part of the bound",
    ),
    ClosedForm(
        "complexity_direct",
        "2 · Rad_n, θ-Lipschitz loss (k-free)",
        complexity_direct_term,
        "ours",
        "k-free",
        show="rademacher_chaining",
        note="a valid alternative complexity term, smaller for parametric classes; not the paper's route",
    ),
    ClosedForm(
        "sample_variability",
        "(b − a)√(log(1/δ)/(2n))",
        sample_variability,
        "ours",
        "O(n^{-1/2}), independent of k",
        show="theorem",
        group=_T1,
        note="paper: " + PAPER_CLAIMS["sample_variability"],
    ),
    ClosedForm(
        "complexity",
        "2 · Rad_n (DCL, γ family)",
        complexity_term,
        "ours",
        "O(n^{-1/2}), stabilises as k → ∞",
        show="rademacher_avg",
        group=_T1,
        note="paper: " + PAPER_CLAIMS["complexity"],
    ),
    ClosedForm(
        "finite_k_bias",
        "min(C(τ)/k, D(τ))",
        bias_term,
        "ours",
        "O(1/k) (k-free cap D(τ) < 2/τ)",
        show="bias_bound",
        group=_T1,
        note="paper: " + PAPER_CLAIMS["finite_k_bias"],
    ),
    ClosedForm(
        "bound",
        "Theorem 1: the sum of the three",
        theorem_expr,
        "ours",
        "O(n^{-1/2}) + O(1/k)",
        show="theorem",
        group=_T1,
        note="paper: " + PAPER_CLAIMS["bound"],
    ),
    ClosedForm(
        "trivial_bound",
        "trivial cap ({loss})",
        trivial_bound,
        "ours",
        {"dcl": "k-free (4/τ)", "infonce": "≤ 4/τ for every k", "standard": "≤ 4/τ for every k"},
        show="theorem",
        group=_T1,
        note="CE ≤ 2/τ by (9) and ℓ ≥ log(1/k + e^{−2/τ}) (ℓ̃ ≥ −2/τ for DCL)",
    ),
    ClosedForm(
        "capped_bound",
        "min(bound, trivial)",
        lambda loss="dcl": sp.Min(theorem_expr(loss), trivial_bound(loss)),
        "ours",
        "min of the two",
        show="theorem",
        group=_T1,
        note="the bound the toolkit reports; `active` says which term attains the minimum",
    ),
]

#: the rate each of *our* Theorem-1 expressions has, and the result ``show`` prints for each closed form
RATES = {cf.name: cf.rate for cf in CLOSED_FORMS if cf.group == _T1}
#: the Theorem-1 rows that are caps, not components (``theorem_terms`` does not list them)
CAP_ROWS = ("trivial_bound", "capped_bound")
SHOW_NAMES = {cf.name: cf.show for cf in CLOSED_FORMS}


def _show_names() -> dict[str, str]:
    """Result names (for ``infonce-bounds show``) of the derivations the components come from."""
    return dict(SHOW_NAMES)
