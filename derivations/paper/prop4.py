"""Proposition 4 (§4.1, proof in appendix B.1): the continuity bound of the InfoNCE loss in φ.

|ℓ(φ, z, k, τ) − ℓ(φ', z, k, τ)| ≤ (4/τ)‖Δ_a‖₂ + (1/τ)‖Δ_+‖₂ + (3/τ) e^{2/(βτ)} ((1/k) Σ_j ‖Δ_j‖₂^β)^{1/β},
Δ = φ − φ' at z^a, z^+, z_j^-; for k ≥ 1, z ∈ Z^{2+k}, τ > 0, β ≥ 1, φ, φ' ∈ B(Z, S^{d−1}); ℓ is (14).

The printed proof, step by step: ℓ(f) = log(1/k + e^{H(f)}) with H = H_τ(f, z^a, z^+, π̂^-); the chain rule
(42); the mean value theorem on ξ = (1 − c)φ + cφ' (43); Lemma 6; the split (44)–(46); the norm bounds
(47)–(49); Cauchy–Schwarz; the weight e^{H}/(1/k + e^{H}) ≤ 1. Two printed lines fail as written (ERRATA):
the measure π̂^- is printed with δ_{z_j^+}, and the display after (43) drops Lemma 6's factor 1/τ.

Ours (sharper, proved coefficient by coefficient, the result verified on finite configurations):
with s_j = e^{⟨ξ(z^a), ξ(z_j^-) − ξ(z^+)⟩/τ}, the weight times the softmax is q_j = s_j/(1 + Σ_l s_l) and
τ δℓ(ξ)[η] = ⟨η(z^a), Σ_j q_j ξ(z_j^-) − W ξ(z^+)⟩ + ⟨ξ(z^a), Σ_j q_j η(z_j^-)⟩ − W ⟨ξ(z^a), η(z^+)⟩, W = Σ_j q_j, so
|ℓ(φ) − ℓ(φ')| ≤ (2W_k/τ)‖Δ_a‖₂ + (W_k/τ)‖Δ_+‖₂ + (N_k^{1/β}/τ) ((1/k) Σ_j ‖Δ_j‖₂^β)^{1/β},
W_k = k e^{2/τ}/(1 + k e^{2/τ}) < 1,  N_k = k e^{2/τ}/(e^{2/τ} + k) ≤ min(k, e^{2/τ}).
Each of ours is approached by moving one point alone (verified on configurations: > 99 % at k = 256), so none
can be lowered much; the paper's 4/τ and (3/τ)e^{2/(βτ)} are never approached. At β → ∞ ours is (2W_k/τ, W_k/τ, max_j/τ): the ℓ∞ route (16)–(18) with its Lipschitz constant split as
2 + 1 + 1 instead of √6·ℓ2. N_k ≤ M_k, the weight bound of our similarity-space family (``continuity``),
whose exponent γ maps to the paper's β by β = q = γτ/(γτ − 1) (``continuity.gamma_from_paper_beta``).
"""

from __future__ import annotations

import sympy as sp

from ..checks.configuration import FamilyMax, Norm
from ..continuity import _powsimp, continuity_factor, factored_check, holder_exponent, weight_bound
from ..ledger import Derivation, Domain, Step
from ..render import printed
from ..symbols import (
    beta,
    c_mvt,
    cos_pp,
    delta_s,
    dir_a,
    dir_p,
    dist,
    ell,
    emb_a,
    emb_n,
    emb_p,
    frac_g,
    gvec_a,
    gvec_b,
    j,
    k,
    s,
    s_pos,
    tau,
    veps,
    w,
    wt_h,
    x,
)
from . import Erratum, PaperConstant, prop4_terms
from ._embed import (
    add,
    dot,
)
from .prop4_compose import UNPROVED as UNPROVED_COMPOSITION
from .prop4_compose import steps as by_mvc
from .prop4_terms import (
    ANCHOR_OURS,
    E2,
    ETA,
    LEMMA8_AT_XI,
    XI,
    H_hat,
    N_k,
    W_k,
    attack_48,
    attack_48_three,
    attack_49,
    attack_anchor_ours,
    attack_prop4_ours,
    attack_prop4_paper,
    bracket_sym,
    configuration,
    derivative_of_loss,
    dist_sym,
    domains,
    ell_finite,
    fast_simplify,
    loss_gap,
    loss_gap_sym,
    our_coefficients,
    paper_coefficients,
    pm_sym,
    rhs_ours,
    rhs_paper,
    tilt_weight,
    vecs,
)

POSITION = (4, 1, 4)  # Prop. 4 (§4.1); registered after Lemmas 6–8, which its proof uses

D_SYM, K_SYM = 2, 2  #: the symbolic realisation of the identity steps (d = 2, k = 2)
#: the parameter of the segment φ − tη, t ∈ [0, 1], along which (43)'s mean value route runs
T_PATH = sp.Symbol("t_path", real=True)


# ----------------------------------------------------------------------------- the ledger

RESULT = "Proposition 4: |ℓ(φ) − ℓ(φ')| ≤ (4/τ)‖Δ_a‖ + (1/τ)‖Δ_+‖ + (3/τ) e^{2/(βτ)} ((1/k) Σ_j ‖Δ_j‖^β)^{1/β}"
OURS = (
    "ours, Proposition 4 sharpened: |ℓ(φ) − ℓ(φ')| ≤ (2W_k/τ)‖Δ_a‖ + (W_k/τ)‖Δ_+‖ + (N_k^{1/β}/τ) "
    "((1/k) Σ_j ‖Δ_j‖^β)^{1/β}"
)
PRINTED_43 = (
    "printed after (43), applying Lemma 6: δH(ξ)[φ − φ'] = [⟨Δ_a, G_τ(ξ, ξ) − ξ(z^+)⟩ + ⟨ξ(z^a), G_τ(ξ, Δ) − Δ_+⟩]"
)
CORRECTED_43 = "corrected: δH(ξ)[φ − φ'] = (1/τ)[⟨Δ_a, G_τ(ξ, ξ) − ξ(z^+)⟩ + ⟨ξ(z^a), G_τ(ξ, Δ) − Δ_+⟩] (Lemma 6)"
PRINTED_PI = "printed: ℓ(f) = log(1/k + e^{H(f)}) with π̂^- := k^{-1} Σ_j δ_{z_j^+}"
CORRECTED_PI = "corrected: ℓ(f) = log(1/k + e^{H(f)}) with π̂^- := k^{-1} Σ_j δ_{z_j^-}"
#: when Prop. 4 (paper's and ours) is not proved: what its composition waits for (``prop4_compose``)
UNPROVED_LOSS_GAP = UNPROVED_COMPOSITION
ANCHOR_LE = "ours ≤ paper, anchor: 2W_k/τ ≤ 4/τ"
POSITIVE_LE = "ours ≤ paper, positive: W_k/τ ≤ 1/τ"
NEGATIVES_LE = "ours ≤ paper, negatives: N_k^{1/β}/τ ≤ (3/τ) e^{2/(βτ)}"


def derivations() -> list[Derivation]:
    D = domains()
    V = vecs(D_SYM, K_SYM)
    fa, fp, fn, ea, ep, en = V["fa"], V["fp"], V["fn"], V["ea"], V["ep"], V["en"]
    # every-k forms (d = 2): ℓ and H with sums over j
    I = range(1, 3)
    sim_j = sum(emb_a[i] * (emb_n[j, i] - emb_p[i]) for i in I) / tau
    ell_k = sp.log(1 / k + sp.Sum(sp.exp(sim_j), (j, 1, k)) / k)
    H_right = sp.log(sp.Sum(sp.exp(sim_j), (j, 1, k)) / k)
    H_printed = sp.log(sp.Sum(sp.exp(sum(emb_a[i] * (emb_p[i] - emb_p[i]) for i in I) / tau), (j, 1, k)) / k)
    # (42) on the finite realisation
    sh = lambda u, e: add(u, e, veps)  # noqa: E731
    H_eps = H_hat(sh(fa, ea), sh(fp, ep), [sh(u, e) for u, e in zip(fn, en)])
    dH = sp.diff(H_eps, veps).subs(veps, 0)
    H0 = H_hat(fa, fp, fn)
    weight = sp.exp(H0) / (sp.Rational(1, K_SYM) + sp.exp(H0))
    e_H = sp.exp(H0, evaluate=False)  # e^{H(f)} as (42) prints it (it evaluates to the mean of the e^{s_j})
    weight_form = sp.Mul(e_H, sp.Pow(sp.Rational(1, K_SYM) + e_H, -1), evaluate=False)
    dl = derivative_of_loss(fa, fp, fn, ea, ep, en)
    ell_eps = ell_finite(sh(fa, ea), sh(fp, ep), [sh(u, e) for u, e in zip(fn, en)])
    # (43): φ = f, φ' = f − η, ξ = (1 − c)φ + cφ' = f − cη
    xi = lambda u, e: add(u, e, -c_mvt)  # noqa: E731
    mvt_lhs = ell_finite(fa, fp, fn) - ell_finite(
        add(fa, ea, -1), add(fp, ep, -1), [add(u, e, -1) for u, e in zip(fn, en)]
    )
    mvt_rhs = derivative_of_loss(xi(fa, ea), xi(fp, ep), [xi(u, e) for u, e in zip(fn, en)], ea, ep, en)
    mvt_path = -ell_finite(add(fa, ea, -T_PATH), add(fp, ep, -T_PATH), [add(u, e, -T_PATH) for u, e in zip(fn, en)])
    br = bracket_sym(fa, fp, fn, ea, ep, en)
    # (44)–(46) with free vectors g_A = G_τ(ξ, ξ), g_B = G_τ(ξ, η) (d = 3)
    a3 = [emb_a[i] for i in range(1, 4)]
    p3 = [emb_p[i] for i in range(1, 4)]
    ea3 = [dir_a[i] for i in range(1, 4)]
    ep3 = [dir_p[i] for i in range(1, 4)]
    gA = [gvec_a[i] for i in range(1, 4)]
    gB = [gvec_b[i] for i in range(1, 4)]
    line1 = dot(ea3, add(gA, p3, -1)) + dot(a3, add(gB, ep3, -1))
    line2 = dot(ea3, [-c_ for c_ in p3]) + dot(ep3, [-c_ for c_ in a3]) + dot(ea3, gA) + dot(a3, gB)
    eq44 = dot(ea3, [-c_ for c_ in p3]) + dot(ep3, [-c_ for c_ in a3])
    eq45 = dot(ea3, add(gA, gB, -1))
    eq46 = dot(add(a3, ea3), gB)
    lagrange = sum((a3[i] * gB[l_] - a3[l_] * gB[i]) ** 2 for i in range(3) for l_ in range(i + 1, 3))
    # (48) linearity of G_τ in its second argument (d = 2, k = 2, π̂ uniform)
    from .lemma6 import G_finite

    uni = [sp.Rational(1, K_SYM)] * K_SYM
    lin_lhs = add(G_finite(fa, fn, fn, uni), G_finite(fa, fn, en, uni), -1)
    lin_rhs = G_finite(fa, fn, [add(u, e, -1) for u, e in zip(fn, en)], uni)
    # ours: q_j and the rewritten derivative
    i_ = sp.Dummy("i", integer=True, positive=True)
    tot = sp.Sum(w[i_], (i_, 1, k))
    s_list = [sp.exp(dot(fa, add(u, fp, -1)) / tau) for u in fn]
    q = [s_ / (1 + sum(s_list)) for s_ in s_list]
    Wq = sum(q)
    ours_dl = (
        dot(ea, add([sum(q[jj] * fn[jj][i] for jj in range(K_SYM)) for i in range(D_SYM)], [Wq * c_ for c_ in fp], -1))
        + dot(fa, [sum(q[jj] * en[jj][i] for jj in range(K_SYM)) for i in range(D_SYM)])
        - Wq * dot(fa, ep)
    ) / tau
    qj = sp.exp((s[j] - s_pos) / tau) / (1 + sp.Sum(sp.exp((s[i_] - s_pos) / tau), (i_, 1, k)))
    u_ = sp.exp(x / tau)
    b_ = (k - 1) * sp.exp((x - 2) / tau)
    pa, pp, pn = paper_coefficients()
    oa, op_, on = our_coefficients()
    r_ours = beta / (tau * (beta - 1))  # continuity's γ in terms of the paper's β
    cfg = lambda lhs, rhs, attack: configuration(lhs, rhs, attack, fa, fp, fn, ea, ep, en)  # noqa: E731
    sup_moved = FamilyMax(Norm(XI["n"][j] - ETA["n"][j]), sp.Tuple(j, 1, k))
    _, ours_route, paper_route, gap_domain = by_mvc(V, D["sym"], attack_prop4_ours, attack_prop4_paper)
    steps = [
        Step(
            "(14) ℓ(f, z, k, τ) := log(1/k + (1/k) Σ_j e^{⟨f(z^a), f(z_j^-) − f(z^+)⟩/τ} (d = 2, every k)",
            ell,
            ell_k,
            kind="definition",
            domain=D["symk"] | Domain({ell: (-sp.oo, sp.oo)}),
            provenance="paper",
            reference="(14)",
        ),
        Step(
            PRINTED_PI,
            ell_k,
            sp.log(1 / k + sp.exp(H_printed)),
            domain=D["symk"],
            provenance="paper",
            reference="proof of Prop. 4, definition of π̂^- and 'Observe then'",
            expected="refuted",
            note="with every atom at z^+, e^{H} = e^0 = 1 and the right side is log(1/k + 1), whatever f",
        ),
        Step(
            CORRECTED_PI,
            ell_k,
            # 'Observe then: ℓ(f) = log(1/k + e^{H(f)})', with e^{H} kept (it evaluates to the mean)
            printed(sp.log(1 / k + sp.exp(H_right, evaluate=False)), sp.log(1 / k + sp.exp(H_right))),
            domain=D["symk"],
            provenance="ours",
            simplifier=lambda e: sp.simplify(e),
        ),
        Step(
            "(42) chain rule: δℓ(f)[η] = e^{H(f)}/(1/k + e^{H(f)}) · δH(f)[η] (d = 2, k = 2)",
            # δℓ(f)[η] = d/dε ℓ(f + εη)|₀ and (42)'s product of the weight and δH(f)[η], as printed
            printed(sp.Subs(sp.Derivative(ell_eps, veps), veps, 0), dl),
            printed(
                sp.Mul(sp.UnevaluatedExpr(weight_form), sp.Subs(sp.Derivative(H_eps, veps), veps, 0), evaluate=False),
                weight * dH,
            ),
            domain=D["sym"],
            provenance="paper",
            reference="(42)",
            simplifier=fast_simplify,
        ),
        Step(
            "(43) mean value theorem: ℓ(φ) − ℓ(φ') = δℓ(ξ)[φ − φ'] for some c ∈ [0, 1], ξ = (1 − c)φ + cφ'",
            mvt_lhs,
            mvt_rhs,
            domain=D["mvt"],
            provenance="paper",
            reference="(43)",
            # G(t) = −ℓ(φ − tη): G(1) − G(0) = ℓ(φ) − ℓ(φ'), G'(c) = δℓ(φ − cη)[η] = δℓ(ξ)[φ − φ']
            route=("mean value", {"path": mvt_path, "var": T_PATH, "point": c_mvt, "start": 0, "end": 1}),
            note="an existence claim (stated on d = 2, k = 2 with φ' = φ − η): proved by the mean value route along "
            "G(t) = −ℓ(φ − tη), t ∈ [0, 1]",
        ),
        Step(
            PRINTED_43,
            dH,
            br,
            domain=D["sym"],
            provenance="paper",
            reference="display after (43), first line",
            expected="refuted",
            simplifier=lambda e: sp.expand(e),  # the spot-check decides; simplifying a false identity costs ~10 s
            note="Lemma 6 gives (1/τ)[…]; read literally as continuing (43) from ℓ(φ) − ℓ(φ'), the line also drops "
            "e^{H}/(1/k + e^{H})",
        ),
        Step(
            CORRECTED_43,
            dH,
            br / tau,
            domain=D["sym"],
            provenance="ours",
            simplifier=fast_simplify,
        ),
        Step(
            "corrected (43) in full: ℓ(φ) − ℓ(φ') = δℓ(ξ)[Δ] = (e^{H(ξ)}/(1/k + e^{H(ξ)}))(1/τ)[bracket]",
            dl,
            weight * br / tau,
            domain=D["sym"],
            provenance="ours",
            simplifier=fast_simplify,
            note="at f = ξ: the factor the final combination bounds by 1, and the 1/τ it restores",
        ),
        Step(
            "display after (43), second line: [bracket] = ⟨Δ_a, −ξ(z^+)⟩ + ⟨Δ_+, −ξ(z^a)⟩ + ⟨Δ_a, G_τ(ξ, ξ)⟩ + ⟨ξ(z^a), G_τ(ξ, Δ)⟩",
            line1,
            line2,
            domain=D["free"],
            provenance="paper",
            reference="display after (43), second line",
        ),
        Step(
            "(44)–(46): the same sum split as (44) + (45) + (46)",
            line2,
            eq44 + eq45 + eq46,
            domain=D["free"],
            provenance="paper",
            reference="(44)–(46)",
        ),
        Step(
            "Cauchy–Schwarz (d = 3): ⟨u, v⟩² ≤ ‖u‖²‖v‖², certificate Lagrange's identity",
            dot(a3, gB) ** 2,
            dot(a3, a3) * dot(gB, gB),
            kind="inequality",
            relation="<=",
            domain=D["free"],
            provenance="classical",
            reference="Cauchy–Schwarz via Lagrange's identity ‖u‖²‖v‖² − ⟨u, v⟩² = Σ_{i<l} (u_i v_l − u_l v_i)²",
            certificate=lagrange,
        ),
        Step(
            "‖aφ + bφ'‖² = a²‖φ‖² + b²‖φ'‖² + 2ab⟨φ, φ'⟩ (d = 3; with ‖φ‖ = ‖φ'‖ = 1 the (47) norms are scalars)",
            dot(
                add([(1 - c_mvt) * c_ for c_ in a3], [c_mvt * c_ for c_ in p3]),
                add([(1 - c_mvt) * c_ for c_ in a3], [c_mvt * c_ for c_ in p3]),
            ),
            (1 - c_mvt) ** 2 * dot(a3, a3) + c_mvt**2 * dot(p3, p3) + 2 * c_mvt * (1 - c_mvt) * dot(a3, p3),
            domain=D["free"] | Domain({c_mvt: (0, 1)}),
            provenance="classical",
            reference="bilinearity of the inner product",
        ),
        Step(
            "(47) ‖ξ‖² = (1 − c)² + c² + 2c(1 − c)⟨φ, φ'⟩ ≤ 1",
            (1 - c_mvt) ** 2 + c_mvt**2 + 2 * c_mvt * (1 - c_mvt) * cos_pp,
            1,
            kind="inequality",
            relation="<=",
            domain=D["cg"],
            provenance="paper",
            reference="(47), first bound",
            route=factored_check(2 * c_mvt * (1 - c_mvt) * (1 - cos_pp)),
        ),
        Step(
            "(47) ‖ξ − φ + φ'‖² = ‖−cφ + (1 + c)φ'‖² = c² + (1 + c)² − 2c(1 + c)⟨φ, φ'⟩ ≤ 9",
            c_mvt**2 + (1 + c_mvt) ** 2 - 2 * c_mvt * (1 + c_mvt) * cos_pp,
            9,
            kind="inequality",
            relation="<=",
            domain=D["cg"],
            provenance="paper",
            reference="(47), second bound",
            route=factored_check(9 - (1 + 2 * c_mvt) ** 2 + 2 * c_mvt * (1 + c_mvt) * (1 + cos_pp)),
        ),
        Step(
            "(47) ‖ξ + φ − φ'‖² = ‖(2 − c)φ − (1 − c)φ'‖² = (2 − c)² + (1 − c)² − 2(2 − c)(1 − c)⟨φ, φ'⟩ ≤ 9",
            (2 - c_mvt) ** 2 + (1 - c_mvt) ** 2 - 2 * (2 - c_mvt) * (1 - c_mvt) * cos_pp,
            9,
            kind="inequality",
            relation="<=",
            domain=D["cg"],
            provenance="paper",
            reference="(47), third bound",
            route=factored_check(9 - (3 - 2 * c_mvt) ** 2 + 2 * (2 - c_mvt) * (1 - c_mvt) * (1 + cos_pp)),
        ),
    ]
    steps += [
        Step(
            f"(48) G_τ linear in its second argument: G_τ(ξ, ξ) − G_τ(ξ, Δ) = G_τ(ξ, ξ − Δ) (coordinate {i + 1})",
            lin_lhs[i],
            lin_rhs[i],
            domain=D["sym"],
            provenance="paper",
            reference="(48), equality",
            simplifier=lambda e: sp.simplify(sp.together(e)),
        )
        for i in range(D_SYM)
    ]
    steps += [
        Step(
            "(48) ‖G_τ(ξ, ξ − φ + φ', π̂, z^a)‖₂ ≤ ‖ξ − φ + φ'‖_{2,∞} (Jensen: a convex combination)",
            kind="inequality",
            relation="<=",
            domain=D["cfg"],
            provenance="paper",
            reference="(48), first inequality",
            **cfg(Norm(sp.Sum(tilt_weight() * (XI["n"][j] - ETA["n"][j]), (j, 1, k))), sup_moved, attack_48),
            note="stated on d = 2, k = 2 (sup over the negatives); proved for every d and k: the weighted triangle "
            "inequality, then a convex combination is at most the max (Σ_j p_j = 1 proved)",
        ),
        Step(
            "(48) ‖ξ − φ + φ'‖_{2,∞} ≤ 3 (from (47))",
            kind="inequality",
            relation="<=",
            domain=D["cfg"],
            provenance="paper",
            reference="(48), second inequality",
            **cfg(sup_moved, sp.Integer(3), attack_48_three),
            note="proved for every d and k: ‖ξ_j − Δ_j‖ ≤ ‖ξ_j‖ + ‖Δ_j‖ ≤ ((1 − c) + c) + 2 (triangle, ‖φ‖ = ‖φ'‖ = 1)",
        ),
        Step(
            "(49) Lemma 8 at f = ξ (‖ξ‖_{2,∞} ≤ 1 by (47)): ‖G_τ(ξ, φ − φ', π̂, z^a)‖₂ ≤ e^{2/(βτ)} M_β(‖Δ_j‖)",
            kind="inequality",
            relation="<=",
            domain=D["cfg"] | Domain({beta: (1, 201)}),
            provenance="paper",
            reference="(49)",
            **cfg(*LEMMA8_AT_XI, attack_49),
            note="proved for every d and k as Lemma 8: triangle, then Lemma 7's scalar claim with ⟨ξ(z^a), ξ(z_j^-)⟩ "
            "∈ [−1, 1] (Cauchy–Schwarz, ‖ξ‖ ≤ (1 − c) + c)",
        ),
        Step(
            "the weight e^{H(ξ)}/(1/k + e^{H(ξ)}) ≤ 1 (w = e^{H} > 0)",
            sp.exp(x) / (1 / k + sp.exp(x)),
            1,
            kind="inequality",
            relation="<=",
            domain=Domain({x: (-50, 50), k: (1, sp.oo)}, name="H ∈ [−50, 50], k ≥ 1"),
            provenance="paper",
            reference="proof of Prop. 4, final paragraph",
            route=factored_check(1 / (1 + k * sp.exp(x))),
        ),
        Step(
            "combination, anchor: Cauchy–Schwarz on (44) and (45) gives w_H(‖ξ(z^+)‖ + ‖ξ − Δ‖) ≤ w_H(1 + 3) ≤ 4",
            wt_h * (1 + 3),
            4,
            kind="inequality",
            relation="<=",
            domain=D["w"],
            provenance="paper",
            reference="proof of Prop. 4, final display (coefficient 4/τ)",
        ),
        Step(
            "combination, positive: Cauchy–Schwarz on (44) gives w_H ‖ξ(z^a)‖ ≤ w_H ≤ 1",
            wt_h,
            1,
            kind="inequality",
            relation="<=",
            domain=D["w"],
            provenance="paper",
            reference="proof of Prop. 4, final display (coefficient 1/τ)",
        ),
        Step(
            "combination, negatives: (46) with ‖ξ + Δ‖ ≤ 3 and (49): 3 w_H θ e^{2/(βτ)} ≤ 3 e^{2/(βτ)}, θ = ‖G_τ‖/(49)'s bound",
            3 * wt_h * frac_g * sp.exp(2 / (beta * tau)),
            3 * sp.exp(2 / (beta * tau)),
            kind="inequality",
            relation="<=",
            domain=D["wgtb"],
            provenance="paper",
            reference="proof of Prop. 4, final display (coefficient (3/τ)e^{2/βτ})",
            route=factored_check(3 * sp.exp(2 / (beta * tau)) * (1 - wt_h * frac_g)),
        ),
        Step(
            "reading of e^{2/βτ}: 2/(βτ), as Lemma 7 prints it; Lemma 1's β = 2/τ then gives e^{2/βτ} = e",
            printed(sp.Subs(sp.exp(2 / (beta * tau)), beta, 2 / tau), sp.exp(2 / (beta * tau)).subs(beta, 2 / tau)),
            sp.E,
            domain=D["tk"],
            provenance="paper",
            reference="Prop. 4 and Lemma 8 print e^{2/βτ}; Lemma 7 prints e^{2/(βτ)}; §4.2 'reduces the factor … to e'",
            note="the other reading e^{(2/β)τ} would give e^{τ²} at β = 2/τ, contradicting §4.2",
        ),
        Step(
            RESULT,
            loss_gap_sym(fa, fp, fn, ea, ep, en),
            pa * dist_sym(ea) + pp * dist_sym(ep) + pn * pm_sym(en),
            kind="inequality",
            relation="<=",
            domain=gap_domain,
            provenance="paper",
            reference="Proposition 4",
            route=paper_route,
            unproved=UNPROVED_LOSS_GAP,
            note="on d = 2, k = 2 with φ = f, φ' = f − η in the unit ball; the configuration attack (k ≤ 1000) beside",
        ),
        # ---------------------------------------------------------------- ours
        Step(
            "ours: weight × softmax = q_j: (Σ_l s_l/(1 + Σ_l s_l)) (s_j/Σ_l s_l) = s_j/(1 + Σ_l s_l), every k",
            printed(
                sp.Mul(sp.UnevaluatedExpr(tot / (1 + tot)), sp.UnevaluatedExpr(w[j] / tot), evaluate=False),
                (tot / (1 + tot)) * (w[j] / tot),
            ),
            w[j] / (1 + tot),
            domain=D["wsum"] | Domain({j: (1, sp.oo)}),
            provenance="ours",
            note="s_j = e^{⟨ξ(z^a), ξ(z_j^-) − ξ(z^+)⟩/τ}; e^{H} = (1/k) Σ s_l; W = Σ_j q_j = e^{H}/(1/k + e^{H})",
        ),
        Step(
            "ours: τ δℓ(ξ)[Δ] = ⟨Δ_a, Σ_j q_j ξ(z_j^-) − W ξ(z^+)⟩ + ⟨ξ(z^a), Σ_j q_j Δ_j⟩ − W ⟨ξ(z^a), Δ_+⟩ (d = 2, k = 2)",
            dl,
            ours_dl,
            domain=D["sym"],
            provenance="ours",
            simplifier=fast_simplify,
        ),
        Step(
            "ours: W = k e^{x/τ}/(1 + k e^{x/τ}) ≤ W_k = k e^{2/τ}/(1 + k e^{2/τ}) (x = τH ∈ [−2, 2])",
            k * u_ / (1 + k * u_),
            W_k(),
            kind="inequality",
            relation="<=",
            domain=D["hk"],
            provenance="ours",
            route=factored_check(k * u_ * (sp.exp((2 - x) / tau) - 1) / ((1 + k * E2) * (1 + k * u_))),
        ),
        Step(
            "ours: q_j = e^{x/τ}/(1 + e^{x/τ} + (k − 1)e^{(x − 2 + δ)/τ}) ≤ 1/(e^{−x/τ} + 1 + (k − 1)e^{−2/τ}) "
            "(x = τ log s_j ∈ [−2, 2]; the others' log-mean is ≥ x − 2)",
            u_ / (1 + u_ + b_ * sp.exp(delta_s / tau)),
            1 / (1 / u_ + 1 + (k - 1) * sp.exp(-2 / tau)),
            kind="inequality",
            relation="<=",
            domain=D["hkd"],
            provenance="ours",
            route=factored_check(
                u_ * b_ * (sp.exp(delta_s / tau) - 1) / ((1 + u_ + b_) * (1 + u_ + b_ * sp.exp(delta_s / tau)))
            ),
            note="s_l/s_j = e^{⟨ξ(z^a), ξ(z_l^-) − ξ(z_j^-)⟩/τ} ≥ e^{−2/τ} since ‖ξ‖_{2,∞} ≤ 1",
        ),
        Step(
            "ours: 1/(e^{−x/τ} + 1 + (k − 1)e^{−2/τ}) ≤ N_k/k = e^{2/τ}/(e^{2/τ} + k) (x ≤ 2)",
            1 / (1 / u_ + 1 + (k - 1) * sp.exp(-2 / tau)),
            N_k() / k,
            kind="inequality",
            relation="<=",
            domain=D["hk"],
            provenance="ours",
            route=factored_check(
                sp.exp(-2 / tau)
                * (sp.exp((2 - x) / tau) - 1)
                / ((1 + k * sp.exp(-2 / tau)) * (1 / u_ + 1 + (k - 1) * sp.exp(-2 / tau)))
            ),
        ),
        Step(
            "ours: ‖Σ_j q_j ξ(z_j^-) − W ξ(z^+)‖ ≤ Σ_j q_j + W = 2W (‖ξ‖_{2,∞} ≤ 1)",
            kind="inequality",
            relation="<=",
            domain=D["cfg"],
            provenance="ours",
            **cfg(*ANCHOR_OURS, attack_anchor_ours),
            note="proved for every d and k on the box cut by ‖ξ‖ ≤ 1, ‖Δ‖ ≤ 2 (triangle inequality, q_j ≥ 0)",
        ),
        Step(
            "ours: Σ_j q_j a_j ≤ (Σ_j q_j a_j^β)^{1/β} ≤ N_k^{1/β} ((1/k) Σ_j a_j^β)^{1/β} (Σ_j q_j ≤ 1, k q_j ≤ N_k)",
            sp.Sum(qj * dist[j], (j, 1, k)),
            N_k() ** (1 / beta) * (sp.Sum(dist[j] ** beta, (j, 1, k)) / k) ** (1 / beta),
            kind="inequality",
            relation="<=",
            domain=D["qsum"],
            provenance="ours",
            adversarial=[
                {
                    k: 12,
                    s[1]: 1,
                    **{s[i]: -1 for i in range(2, 13)},
                    s_pos: -1,
                    dist[1]: 2,
                    **{dist[i]: 0 for i in range(2, 13)},
                    beta: 1,
                    tau: sp.Rational(1, 5),
                },
                {
                    k: 3,
                    s[1]: 1,
                    s[2]: -1,
                    s[3]: -1,
                    s_pos: -1,
                    dist[1]: 1,
                    dist[2]: 0,
                    dist[3]: 0,
                    beta: 1,
                    tau: sp.Rational(1, 50),
                },
            ],
            note="Jensen for the sub-probability q (classical), then Σ_j q_j a_j^β ≤ (N_k/k) Σ_j a_j^β; q_j in the "
            "similarities s_j = ⟨ξ(z^a), ξ(z_j^-)⟩, s⁺ = ⟨ξ(z^a), ξ(z^+)⟩; falsifier at k ≤ 12",
        ),
        Step(
            OURS,
            loss_gap_sym(fa, fp, fn, ea, ep, en),
            (oa * dist_sym(ea) + op_ * dist_sym(ep) + on * pm_sym(en)).subs(k, K_SYM),
            kind="inequality",
            relation="<=",
            domain=gap_domain,
            provenance="ours",
            route=ours_route,
            unproved=UNPROVED_LOSS_GAP,
            note="W_k = k e^{2/τ}/(1 + k e^{2/τ}), N_k = k e^{2/τ}/(e^{2/τ} + k); the mean value composition of the "
            "FTC step and the pointwise step above, with the configuration attack (k ≤ 1000) beside",
        ),
        Step(
            ANCHOR_LE,
            oa,
            pa,
            kind="inequality",
            relation="<=",
            domain=D["tk"],
            provenance="ours",
            route=factored_check((4 + 2 * k * E2) / ((1 + k * E2) * tau)),
        ),
        Step(
            POSITIVE_LE,
            op_,
            pp,
            kind="inequality",
            relation="<=",
            domain=D["tk"],
            provenance="ours",
            route=factored_check(1 / ((1 + k * E2) * tau)),
        ),
        Step(
            NEGATIVES_LE,
            on,
            pn,
            kind="inequality",
            relation="<=",
            domain=D["tkb"],
            provenance="ours",
            route=factored_check(
                sp.exp(2 / (beta * tau)) * (3 - (1 / (1 + E2 / k)) ** (1 / beta)) / tau, simplifier=_powsimp
            ),
        ),
        Step(
            "map to our similarity-space family: γ = β/(τ(β − 1)) gives q(γ, τ) = β (the paper's β)",
            holder_exponent(r_ours, tau),
            beta,
            domain=D["map"],
            provenance="ours",
            note="continuity's q = γτ/(γτ − 1) is the power-mean exponent; γ ≥ 1/τ ⟺ β ≥ 1 (β = 1 is γ = ∞)",
        ),
        Step(
            "map: continuity_factor(β/(τ(β − 1)), τ, k) = M_k^{1/β}/τ (Lemma 7's sharpened constant over τ)",
            continuity_factor(r_ours, tau, k),
            weight_bound(tau, k) ** (1 / beta) / tau,
            domain=D["map"],
            provenance="ours",
            simplifier=_powsimp,
        ),
        Step(
            "ours vs the family: N_k ≤ M_k = k e^{2/τ}/(e^{2/τ} + k − 1) (the positive's 1 in ℓ's sum)",
            N_k(),
            weight_bound(tau, k),
            kind="inequality",
            relation="<=",
            domain=D["tk"],
            provenance="ours",
            route=factored_check(k * E2 / ((E2 + k) * (E2 + k - 1))),
        ),
    ]
    return [
        Derivation(
            "prop4",
            "Proposition 4: continuity of the InfoNCE loss in the embedding (Gâteaux route)",
            steps,
            result=RESULT,
            source="paper",
            depends_on=("lemma6", "lemma7", "lemma8"),
            paper_claim="Proposition 4: |ℓ(φ) − ℓ(φ')| ≤ (4/τ)‖Δ_a‖₂ + (1/τ)‖Δ_+‖₂ + (3/τ)e^{2/βτ} "
            "((1/k) Σ_j ‖Δ_j‖₂^β)^{1/β}, β ≥ 1",
            summary="Holds (verified numerically on configurations, k ≤ 1000); two printed lines are errata "
            "(π̂^- with δ_{z_j^+}; 1/τ dropped after (43)); ours: (2W_k/τ, W_k/τ, N_k^{1/β}/τ).",
            objects={
                "paper_coefficients": paper_coefficients,
                "our_coefficients": our_coefficients,
                "rhs_paper": rhs_paper,
                "rhs_ours": rhs_ours,
                "loss_gap": loss_gap,
            },
        )
    ]


ERRATA = [
    Erratum(
        location="Appendix B.1, proof of Prop. 4, the display after (43) (first line)",
        as_printed=r"= \left[\langle \phi(z^a)-\phi'(z^a), G_\tau(\xi,\xi,z^a,\hat\pi)-\xi(z^+)\rangle + "
        r"\langle \xi(z^a), G_\tau(\xi,\phi-\phi',\hat\pi,z^a)-\phi(z^+)+\phi'(z^+)\rangle\right]",
        kind="false as printed",
        result="prop4",
        printed_step=PRINTED_43,
        corrected_step=CORRECTED_43,
        correction=r"\delta H(\xi)[\phi-\phi'] = \frac{1}{\tau}[\ldots] (Lemma 6), so "
        r"\ell(\phi)-\ell(\phi') = \frac{e^{H(\xi)}}{1/k+e^{H(\xi)}}\frac{1}{\tau}[\ldots]",
        consequence="Prop. 4 survives with its constants: the final combination multiplies by 1/τ and bounds the "
        "weight by 1, i.e. it uses the corrected line",
    ),
    Erratum(
        location="Appendix B.1, proof of Prop. 4, definition of π̂^- before 'Observe then'",
        as_printed=r"\hat\pi^- := k^{-1}\sum_{j=1}^k \delta_{z_j^+}",
        kind="misprint or undefined symbol",
        result="prop4",
        printed_step=PRINTED_PI,
        corrected_step=CORRECTED_PI,
        correction=r"\hat\pi^- := k^{-1}\sum_{j=1}^k \delta_{z_j^-} (the negatives' empirical measure, as in Lemma 8)",
        consequence="none: the rest of the proof uses the negatives' measure",
    ),
]


CONSTANTS = [
    PaperConstant(
        name="prop4_anchor",
        label="Prop. 4 anchor coefficient 4/τ",
        result="prop4",
        build=lambda: (paper_coefficients()[0], our_coefficients()[0]),
        proof_step=ANCHOR_LE,
        attained="not attained: moving the anchor alone gives at most (2W_k/τ)‖Δ_a‖ (ours) < (2/τ)‖Δ_a‖",
        note="ours = 2W_k/τ, W_k = k e^{2/τ}/(1 + k e^{2/τ}); the split (44)–(45) pays ‖ξ(z^+)‖ + ‖ξ − Δ‖ ≤ 4 where "
        "‖G_τ(ξ, ξ) − ξ(z^+)‖ ≤ 2 suffices. Ours is approached: anchor ⟂ u, negatives at u, positive at −u, a small "
        "anchor move gives |Δℓ|/(2W_k‖Δ_a‖/τ) → 1 as k grows (tests: > 0.99 at k = 256; halving it is refuted)",
        params=("tau", "k"),
    ),
    PaperConstant(
        name="prop4_positive",
        label="Prop. 4 positive coefficient 1/τ",
        result="prop4",
        build=lambda: (paper_coefficients()[1], our_coefficients()[1]),
        proof_step=POSITIVE_LE,
        attained="approached: φ(z^a) ⟂ φ(z^+), every negative at φ(z^a), a small move of φ(z^+) gives "
        "|Δℓ|/‖Δ_+‖ → k e^{1/τ}/(τ(1 + k e^{1/τ})) → 1/τ as k e^{1/τ} → ∞",
        note="ours is no sharper in practice: W_k/τ = (1/τ)(1 − 1/(1 + k e^{2/τ})), ratio paper/ours = 1 + e^{−2/τ}/k",
        params=("tau", "k"),
    ),
    PaperConstant(
        name="prop4_negatives",
        label="Prop. 4 negatives' power-mean coefficient (3/τ)e^{2/(βτ)}",
        result="prop4",
        build=lambda: (paper_coefficients()[2], our_coefficients()[2]),
        proof_step=NEGATIVES_LE,
        attained="not attained: a move of the negatives alone gives at most (N_k^{1/β}/τ)·M_β (ours) ≤ (e^{2/(βτ)}/τ)·M_β",
        note="ours = N_k^{1/β}/τ, N_k = k e^{2/τ}/(e^{2/τ} + k) ≤ min(k, e^{2/τ}); paper/ours = 3(1 + e^{2/τ}/k)^{1/β}. "
        "Ours is approached by one negative ⟂ the anchor moving toward it (tests: > 0.99; halving it is refuted)",
        params=("tau", "beta", "k"),
    ),
]


#: Prop. 4's coefficients (paper's and ours) for the data kernels of ``numerics.data_bounds`` (built in prop4_terms)
KERNEL_FORMULAS = prop4_terms.KERNEL_FORMULAS
