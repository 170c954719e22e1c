"""Proposition 4 (paper's and ours) by the mean value composition (``checks/mean_value_composition.py``).

With φ = f, φ' = f − η on the d = 2, k = 2 realisation and the segment x(t) = φ' + tΔ, Δ = φ − φ' = η, t ∈ [0, 1]:

* FTC (ours): ℓ(φ) − ℓ(φ') = ∫₀¹ δℓ(x(t))[Δ] dt, the derivative written as (1/τ)[⟨Δ_a, Σ_j q_j ξ_j − W ξ_+⟩ +
  ⟨ξ_a, Σ_j q_j Δ_j − W Δ_+⟩] at ξ = x(t), q_j = s_j/(1 + Σ_l s_l), s_j = e^{(⟨ξ_a, ξ_j⟩ − ⟨ξ_a, ξ_+⟩)/τ},
  W = Σ_j q_j (the quadrature route: an antiderivative, ℓ along the segment);
* pointwise (ours, every d and k, the configuration route): |τ δℓ(ξ)[Δ]| ≤ 2W_k‖Δ_a‖ + W_k‖Δ_+‖ +
  N_k^{1/β} M_β(‖Δ_j‖) at every ξ with ‖ξ(z)‖ ≤ 1 (the unit *ball*: x(t) lies in it by convexity, not on the
  sphere) and ‖Δ(z)‖ ≤ 2: Cauchy–Schwarz, the weighted triangle inequality, then W ≤ W_k, k q_j ≤ N_k and the
  power mean, term by term (the ``termwise`` route on the scalar claim);
* ours ≤ paper (the paper's chain link): 2W_k‖Δ_a‖ + W_k‖Δ_+‖ + N_k^{1/β} M_β ≤ 4‖Δ_a‖ + ‖Δ_+‖ +
  3e^{2/(βτ)} M_β, term by term.

Both loss-gap steps state φ, φ' in the unit ball (‖φ(z)‖² ≤ 1, ‖φ(z) − η(z)‖² ≤ 1) and ‖η(z)‖² ≤ 4 (implied
by the two: the triangle inequality) as ``Domain`` constraints: wider than the paper's sphere, which they
contain, so the claim proved contains the paper's.
"""

from __future__ import annotations

import math

import sympy as sp

from ..checks import mean_value_composition as mvc
from ..checks.configuration import Inner, Norm
from ..ledger import Domain, Step
from ..symbols import beta, dir_a, dir_n, dir_p, emb_a, emb_n, emb_p, j, k, tau
from ._embed import add, direction, dot, segment, tilted_mean, vector_check, weight_h
from .prop4_terms import ETA, XI, configuration, ell_finite, our_coefficients, paper_coefficients, rhs_ours

#: the segment's parameter: x(t) = φ' + t(φ − φ'), t ∈ [0, 1]
T_SEG = sp.Symbol("t_seg", real=True)
_I = sp.Symbol("i", integer=True, positive=True)
_J = sp.Symbol("jj", integer=True, positive=True)
TAU_BOX = (sp.Rational(1, 20), 20)
BETA_BOX = (1, 201)

PW_NAME = (
    "ours, pointwise: |τ δℓ(ξ)[Δ]| ≤ 2W_k‖Δ_a‖ + W_k‖Δ_+‖ + N_k^{1/β} M_β(‖Δ_j‖) for every ξ in the unit ball "
    "(every d and k)"
)
FTC_NAME = "ours: ℓ(φ) − ℓ(φ') = ∫₀¹ δℓ(φ' + tΔ)[Δ] dt, δℓ(ξ)[Δ] in the q_j form (d = 2, k = 2)"
LINK_NAME = "ours ≤ paper, pointwise: 2W_k‖Δ_a‖ + W_k‖Δ_+‖ + N_k^{1/β} M_β ≤ 4‖Δ_a‖ + ‖Δ_+‖ + 3e^{2/(βτ)} M_β"
UNPROVED = (
    "the mean value composition (FTC along φ' + tΔ, then the pointwise bound on |τ δℓ(ξ)[Δ]| at every ξ of the "
    "unit ball) proves it exactly when its pointwise configuration step is proved on its ball-constrained domain; "
    "the configuration route covers a coordinate box only inside its balls, unless it reads the balls as Domain "
    "constraints"
)


def _q(jj: sp.Expr) -> sp.Expr:
    """q_j = s_j/(1 + Σ_l s_l), s_j = e^{(⟨ξ_a, ξ_j⟩ − ⟨ξ_a, ξ_+⟩)/τ}: two similarities, each in [−1, 1] on the
    ball (one inner product ⟨ξ_a, ξ_j − ξ_+⟩ ∈ [−2, 2] would lose that they share ⟨ξ_a, ξ_+⟩)."""
    s_ = lambda i_: sp.exp((Inner(XI["a"], XI["n"][i_]) - Inner(XI["a"], XI["p"])) / tau)  # noqa: E731
    return s_(jj) / (1 + sp.Sum(s_(_I), (_I, 1, k)))


def pointwise_claim(coefficients=our_coefficients) -> tuple[sp.Expr, sp.Expr]:
    """(|τ δℓ(ξ)[Δ]|, τ·rhs) in the configuration vocabulary (every k), rhs from ``coefficients``."""
    w_ = sp.Sum(_q(j), (j, 1, k))
    towards = sp.Sum(_q(j) * XI["n"][j], (j, 1, k)) - w_ * XI["p"]
    moved = sp.Sum(_q(j) * ETA["n"][j], (j, 1, k)) - w_ * ETA["p"]
    lhs = sp.Abs(Inner(ETA["a"], towards) + Inner(XI["a"], moved))
    ca, cp, cn = coefficients()
    rhs = sp.expand(
        tau * ca * Norm(ETA["a"])
        + tau * cp * Norm(ETA["p"])
        + tau * cn * (sp.Sum(Norm(ETA["n"][j]) ** beta, (j, 1, k)) / k) ** (1 / beta)
    )
    return lhs, rhs


def _sq(u) -> sp.Expr:
    return sum(c_**2 for c_ in u)


def ball_domain(V: dict) -> Domain:
    """ξ coordinates in the unit ball, Δ's in the ball of radius 2 (the pointwise step's hypotheses)."""
    cons = tuple(sp.Le(_sq(u), 1) for u in [V["fa"], V["fp"], *V["fn"]])
    cons += tuple(sp.Le(_sq(e), 4) for e in [V["ea"], V["ep"], *V["en"]])
    box = {emb_a: (-1, 1), emb_p: (-1, 1), emb_n: (-1, 1), dir_a: (-2, 2), dir_p: (-2, 2), dir_n: (-2, 2)}
    return Domain(
        {tau: TAU_BOX, beta: BETA_BOX, **box},
        constraints=cons,
        name="τ ∈ [0.05, 20], β ∈ [1, 201], ‖ξ(z)‖ ≤ 1, ‖Δ(z)‖ ≤ 2 at z^a, z^+, z_j^- (d = 2, k = 2)",
    )


def claim_domain(V: dict, base: Domain) -> Domain:
    """``base`` (the realisation's box) with φ = f and φ' = f − η in the unit ball and ‖η‖ ≤ 2 (implied)."""
    phis = [V["fa"], V["fp"], *V["fn"]]
    etas = [V["ea"], V["ep"], *V["en"]]
    cons = tuple(sp.Le(_sq(u), 1) for u in phis)
    cons += tuple(sp.Le(_sq(add(u, e, -1)), 1) for u, e in zip(phis, etas))
    cons += tuple(sp.Le(_sq(e), 4) for e in etas)
    return Domain(
        {**base.ranges, beta: BETA_BOX},
        constraints=cons,
        name="τ ∈ [0.05, 20], β ∈ [1, 201], φ = f and φ' = f − η in the unit ball (the sphere's hull; ‖η‖ ≤ 2 "
        "follows) at z^a, z^+, z_j^- (d = 2, k = 2)",
    )


def attack_pointwise(cfg, lib=math):
    """(|τ δℓ(ξ)[Δ]|, τ·rhs_ours) at ξ = (1 − c)φ + cφ': τ δℓ = W(⟨Δ_a, G(ξ) − ξ_+⟩ + ⟨ξ_a, G(Δ) − Δ_+⟩)."""
    xa, xp, xn = segment(cfg, cfg.c)
    ea, ep, en = direction(cfg)
    xn_l = [list(u) for u in xn]
    en_l = [list(e) for e in en]
    wt = weight_h(cfg.tau, xa, xp, xn_l, lib)
    g_xi = tilted_mean(cfg.tau, xa, xn_l, xn_l, lib)
    g_eta = tilted_mean(cfg.tau, xa, xn_l, en_l, lib)
    value = wt * (dot(list(ea), add(list(g_xi), list(xp), -1.0)) + dot(list(xa), add(list(g_eta), list(ep), -1.0)))
    return abs(value), cfg.tau * rhs_ours(cfg, lib)


def steps(V: dict, base: Domain, attack_ours, attack_paper) -> tuple[list[Step], tuple, tuple, Domain]:
    """([FTC, pointwise, ours ≤ paper link], ours' hint, the paper's hint, the loss-gap steps' domain)."""
    fa, fp, fn, ea, ep, en = V["fa"], V["fp"], V["fn"], V["ea"], V["ep"], V["en"]
    lhs, rhs = pointwise_claim()
    cfg = configuration(lhs, rhs, attack_pointwise, fa, fp, fn, ea, ep, en)
    pointwise = Step(PW_NAME, kind="inequality", relation="<=", domain=ball_domain(V), provenance="ours", **cfg)
    # the segment: ξ = f − (1 − t)η, Δ = η (f = φ, f − η = φ')
    at = {
        emb_a: sp.Lambda(_I, emb_a[_I] - (1 - T_SEG) * dir_a[_I]),
        emb_p: sp.Lambda(_I, emb_p[_I] - (1 - T_SEG) * dir_p[_I]),
        emb_n: sp.Lambda((_J, _I), emb_n[_J, _I] - (1 - T_SEG) * dir_n[_J, _I]),
    }
    g = mvc._substitute(cfg["lhs"].args[0], at) / tau
    moving = lambda u, e: add(u, e, -(1 - T_SEG))  # noqa: E731
    ell_seg = ell_finite(moving(fa, ea), moving(fp, ep), [moving(u, e) for u, e in zip(fn, en)])
    gap = ell_finite(fa, fp, fn) - ell_finite(add(fa, ea, -1), add(fp, ep, -1), [add(u, e, -1) for u, e in zip(fn, en)])
    ftc = Step(
        FTC_NAME,
        gap,
        sp.Integral(g, (T_SEG, 0, 1)),
        kind="identity",
        domain=base | Domain({T_SEG: (0, 1)}),
        provenance="ours",
        reference="fundamental theorem of calculus along the segment (ℓ is C¹ in the embedding)",
        route=("quadrature", {"antiderivative": ell_seg}),
        note="the integrand is the derivative of ours (q_j = s_j/(1 + Σ s_l)) at ξ = x(t), Δ = η",
    )
    p_lhs, p_rhs = pointwise_claim(paper_coefficients)
    realised_paper = configuration(p_lhs, p_rhs, attack_pointwise, fa, fp, fn, ea, ep, en)["rhs"]
    link = Step(
        LINK_NAME,
        cfg["rhs"],
        realised_paper,
        kind="inequality",
        relation="<=",
        domain=Domain({tau: TAU_BOX, beta: BETA_BOX, dir_a: (-2, 2), dir_p: (-2, 2), dir_n: (-2, 2)}),
        provenance="ours",
        note="τ times each side; term by term: 2W_k ≤ 4, W_k ≤ 1, N_k^{1/β} ≤ 3e^{2/(βτ)} (k = 2)",
    )
    why = "the segment φ' + tΔ stays in the unit ball (convex); the pointwise bound is τ × |integrand|"
    ours = mvc.hint(T_SEG, ftc, [pointwise], at, reason=why, attack=vector_check(attack_ours))
    paper = mvc.hint(T_SEG, ftc, [pointwise, link], at, reason=why, attack=vector_check(attack_paper))
    return [ftc, pointwise, link], ours, paper, claim_domain(V, base)


__all__ = ["attack_pointwise", "ball_domain", "claim_domain", "pointwise_claim", "steps"]
