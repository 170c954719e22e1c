"""Shared pieces of the paper's §4 generalisation results (Prop. 3, Lemma 5, Lemma 1, Prop. 5, Theorem 1).

b − a = log(1/k + e^{2/τ}) − log(1/k + e^{−2/τ}) = 2/τ + log(k + e^{−2/τ}) − log(1 + k e^{−2/τ}),  τ > 0, k ≥ 1,

the exact range of the loss ℓ(φ, z, k, τ) of (14) (proof of Prop. 3), written without e^{2/τ} so that its float
value exists for every τ ∈ [1e-3, 1e2]; and the factors κ(τ), δ'(τ, k), μ = max(κ, δ') by which our Lipschitz
constant and our diameter undercut the paper's in Lemma 1 and Prop. 5. Not a result module (no ``derivations``).
``all_of`` and ``falsifier_only`` are re-exported from ``derivations.checks.custom``.
"""

from __future__ import annotations

import sympy as sp

from ..checks.custom import all_of, falsifier_only  # noqa: F401 — re-exported for the paper modules
from ..ledger import Domain, Step
from ..symbols import TAU_MAX, TAU_MIN, eps_k, k, tau

#: τ over the toolkit's stated range, k ≥ 1 (the paper states τ > 0)
TAU_K = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1")
#: τ over the stated range and ε = 1/k ∈ (0, 1]: claims tight as k → ∞ become tight on the face ε = 0
TAU_EPS = Domain({tau: (TAU_MIN, TAU_MAX), eps_k: (0, 1)}, name="τ ∈ [1e-3, 1e2], ε = 1/k ∈ (0, 1]")
TAU_ONLY = Domain({tau: (TAU_MIN, TAU_MAX)}, name="τ ∈ [1e-3, 1e2]")

E = sp.E


def loss_lo(kk: sp.Expr = k) -> sp.Expr:
    """a = log(1/k + e^{−2/τ}), as printed in the proof of Prop. 3."""
    return sp.log(1 / kk + sp.exp(-2 / tau))


def loss_hi(kk: sp.Expr = k) -> sp.Expr:
    """b = log(1/k + e^{2/τ}), as printed in the proof of Prop. 3."""
    return sp.log(1 / kk + sp.exp(2 / tau))


def loss_range() -> sp.Expr:
    """b − a in the float-stable form 2/τ + log(k + e^{−2/τ}) − log(1 + k e^{−2/τ})."""
    return 2 / tau + sp.log(k + sp.exp(-2 / tau)) - sp.log(1 + k * sp.exp(-2 / tau))


def loss_range_eps() -> sp.Expr:
    """b − a with k = 1/ε: 2/τ + log(1 + ε e^{−2/τ}) − log(ε + e^{−2/τ}) (tight as ε → 0)."""
    return 2 / tau + sp.log(1 + eps_k * sp.exp(-2 / tau)) - sp.log(eps_k + sp.exp(-2 / tau))


def neg_factor() -> sp.Expr:
    """e^{2/(βτ)} at Lemma 1's β = 1 ∨ 2/τ: βτ = τ ∨ 2, so the factor is e^{2/(τ ∨ 2)} ≤ e."""
    return sp.exp(2 / sp.Max(tau, 2))


def lemma1_ours() -> sp.Expr:
    """Our Lemma-1 constant: max(4, 3 e^{2/(τ∨2)})/τ (Prop. 4's own weights 4, 1, 3e^{2/(βτ)} kept)."""
    return sp.Max(4, 3 * neg_factor()) / tau


def kappa() -> sp.Expr:
    """κ(τ) = our Lemma-1 constant over the paper's 4e/τ: max(4, 3e^{2/(τ∨2)})/(4e) ∈ (0, 1]."""
    return sp.Max(4, 3 * neg_factor()) / (4 * E)


def delta_ratio() -> sp.Expr:
    """δ'(τ, k) = (b − a)/(4/τ) ∈ (0, 1]: our diameter of Φ in ρ_n^info over the paper's."""
    return tau * loss_range() / 4


def mu() -> sp.Expr:
    """μ(τ, k) = max(κ, δ'): Prop. 5's bound with our ingredients is at most μ times the paper's."""
    return sp.Max(kappa(), delta_ratio())


def log_ratio_parts(name: str, gap: sp.Expr, num: sp.Expr, den: sp.Expr, domain: Domain, reference: str) -> list[Step]:
    """Parts proving ``gap ≥ 0`` as ``gap = log(1 + num/den)`` with ``num ≥ 0`` and ``den > 0``.

    The identity is checked symbolically (logs expanded), the two signs by interval arithmetic or
    SymPy; log(1 + y) ≥ 0 for y ≥ 0 closes the argument. Used where the gap is tight on a face at
    infinity (k → ∞), which interval bisection of the gap itself cannot reach.
    """
    return [
        Step(
            f"{name}: gap = log(1 + N/D)",
            gap,
            sp.log(1 + num / den),
            domain=domain,
            provenance="ours",
            reference=reference,
            simplifier=lambda e: sp.simplify(sp.expand_log(sp.expand(e))),
        ),
        Step(f"{name}: N ≥ 0", num, 0, kind="inequality", relation=">=", domain=domain, reference=reference),
        Step(f"{name}: D > 0", den, 0, kind="inequality", relation=">", domain=domain, reference=reference),
    ]
