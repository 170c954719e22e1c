"""Lemma 6 (appendix B.1): the Gâteaux derivative of H_τ(f, x, y, μ) in the embedding function f.

H_τ(f, x, y, μ) = log ∫ e^{⟨f(x), f(z) − f(y)⟩/τ} μ(dz)  (35),
G_τ(f, η, μ, x) = ∫ η(z) e^{⟨f(x), f(z)⟩/τ} μ(dz) / ∫ e^{⟨f(x), f(z)⟩/τ} μ(dz)  (36),
δH_τ(f, x, y, μ)[η] = (1/τ)[⟨η(x), G_τ(f, f, μ, x) − f(y)⟩ + ⟨f(x), G_τ(f, η, μ, x) − η(y)⟩],
for τ > 0, x, y ∈ Z, μ ∈ P(Z), f, η ∈ B(Z, R^d).

Checked on finite realisations: μ = Σ_j μ_j δ_{z_j} (weights μ_j > 0; a probability measure is the case
Σ μ_j = 1, and the formula is invariant under rescaling μ), f(x), f(y), f(z_j), η(·) symbolic vectors in
R^d. The derivative d/dε H_τ(f + εη)|_{ε=0} is computed by SymPy and compared with the printed formula:
symbolically for (d, k) = (3, 3), for every k as a SymPy Sum over j = 1..k (d = 2), and with x a support
point of μ (the anchor among the negatives, so f(x) and f(z_1) move together). The dominated-convergence
bound of the proof and its mean-value step are vector claims, attacked on random finite vectors.
G_τ's arguments are written in (36)'s order (f, η, μ, x) throughout; the lemma's statement prints
G_τ(f, f, x, μ) (erratum, notational).
"""

from __future__ import annotations

import math
import random

import sympy as sp

from ..checks.configurations import ConfigurationClaim
from ..ledger import Derivation, Domain, Step
from ..render import printed
from ..symbols import (
    H_val,
    c_mvt,
    dir_a,
    dir_n,
    dir_p,
    emb_a,
    emb_n,
    emb_p,
    j,
    k,
    mu,
    tau,
    veps,
)
from . import Erratum
from ._embed import add, dot, norm

POSITION = (4, 1, 3, 6)  # appendix B.1; registered before Prop. 4, whose proof uses it

D_FIX, K_FIX = 3, 3  #: the concrete realisation of the symbolic identities
#: the parameter of the segment f + tη, t between 0 and ε, along which the mean value route runs
T_PATH = sp.Symbol("t_path", real=True)


def _vecs(d: int, kk: int) -> dict:
    return {
        "fa": [emb_a[i] for i in range(1, d + 1)],
        "fp": [emb_p[i] for i in range(1, d + 1)],
        "fn": [[emb_n[jj, i] for i in range(1, d + 1)] for jj in range(1, kk + 1)],
        "ea": [dir_a[i] for i in range(1, d + 1)],
        "ep": [dir_p[i] for i in range(1, d + 1)],
        "en": [[dir_n[jj, i] for i in range(1, d + 1)] for jj in range(1, kk + 1)],
    }


def H_finite(fa, fp, fn, weights=None) -> sp.Expr:
    """H_τ(f, x, y, μ) of (35) for μ = Σ_j μ_j δ_{z_j}: log Σ_j μ_j e^{⟨f(x), f(z_j) − f(y)⟩/τ}."""
    weights = weights or [mu[jj] for jj in range(1, len(fn) + 1)]
    return sp.log(sum(m * sp.exp(dot(fa, add(u, fp, -1)) / tau) for m, u in zip(weights, fn)))


def G_finite(fa, fn, vals, weights=None) -> list:
    """G_τ(f, η, μ, x) of (36): the μ-average of η(z_j) tilted by e^{⟨f(x), f(z_j)⟩/τ}."""
    weights = weights or [mu[jj] for jj in range(1, len(fn) + 1)]
    tilt = [m * sp.exp(dot(fa, u) / tau) for m, u in zip(weights, fn)]
    tot = sum(tilt)
    return [sum(t_ * v_[i] for t_, v_ in zip(tilt, vals)) / tot for i in range(len(fa))]


def printed_derivative(fa, fp, fn, ea, ep, en, weights=None) -> sp.Expr:
    """Lemma 6's formula (1/τ)[⟨η(x), G_τ(f, f) − f(y)⟩ + ⟨f(x), G_τ(f, η) − η(y)⟩]."""
    gf = G_finite(fa, fn, fn, weights)
    ge = G_finite(fa, fn, en, weights)
    return (dot(ea, add(gf, fp, -1)) + dot(fa, add(ge, ep, -1))) / tau


def gateaux(fa, fp, fn, ea, ep, en, weights=None) -> sp.Expr:
    """d/dε H_τ(f + εη, x, y, μ) at ε = 0, by SymPy (the left-hand side of Lemma 6)."""
    sh = lambda u, e: add(u, e, veps)  # noqa: E731
    moved = H_finite(sh(fa, ea), sh(fp, ep), [sh(u, e) for u, e in zip(fn, en)], weights)
    return sp.diff(moved, veps).subs(veps, 0)


def lemma6_identity(d: int = D_FIX, kk: int = K_FIX, wrong: str | None = None) -> tuple[sp.Expr, sp.Expr]:
    """(SymPy derivative, printed formula) on the (d, k) realisation; ``wrong`` plants an error in the formula
    ("no_tau": the 1/τ dropped, "sign": −η(y) replaced by +η(y), "untilted": G_τ without the tilt)."""
    V = _vecs(d, kk)
    lhs = gateaux(V["fa"], V["fp"], V["fn"], V["ea"], V["ep"], V["en"])
    rhs = printed_derivative(V["fa"], V["fp"], V["fn"], V["ea"], V["ep"], V["en"])
    if wrong == "no_tau":
        rhs = rhs * tau
    elif wrong == "sign":
        rhs = rhs + 2 * dot(V["fa"], V["ep"]) / tau
    elif wrong == "untilted":
        gf = [sum(u[i] for u in V["fn"]) / kk for i in range(d)]
        ge = [sum(u[i] for u in V["en"]) / kk for i in range(d)]
        rhs = (dot(V["ea"], add(gf, V["fp"], -1)) + dot(V["fa"], add(ge, V["ep"], -1))) / tau
    elif wrong is not None:
        raise ValueError(f"wrong must be None, 'no_tau', 'sign' or 'untilted', got {wrong!r}")
    return lhs, rhs


def lemma6_sum_identity(d: int = 2) -> tuple[sp.Expr, sp.Expr]:
    """The same identity for every k: sums over the negatives j = 1..k as SymPy ``Sum`` (d fixed)."""
    I = range(1, d + 1)
    f_a = lambda i: emb_a[i] + veps * dir_a[i]  # noqa: E731
    f_p = lambda i: emb_p[i] + veps * dir_p[i]  # noqa: E731
    f_n = lambda i: emb_n[j, i] + veps * dir_n[j, i]  # noqa: E731
    H = sp.log(sp.Sum(mu[j] * sp.exp(sum(f_a(i) * (f_n(i) - f_p(i)) for i in I) / tau), (j, 1, k)))
    lhs = sp.diff(H, veps).subs(veps, 0)
    tilt = mu[j] * sp.exp(sum(emb_a[i] * emb_n[j, i] for i in I) / tau)
    Z = sp.Sum(tilt, (j, 1, k))
    gf = [sp.Sum(tilt * emb_n[j, i], (j, 1, k)) / Z for i in I]
    ge = [sp.Sum(tilt * dir_n[j, i], (j, 1, k)) / Z for i in I]
    rhs = (sum(dir_a[i] * (gf[i - 1] - emb_p[i]) for i in I) + sum(emb_a[i] * (ge[i - 1] - dir_p[i]) for i in I)) / tau
    return lhs, rhs


def _fast(e: sp.Expr) -> sp.Expr:
    """Combine exponentials before simplifying (5× faster than ``simplify`` alone on these forms)."""
    return sp.simplify(sp.powsimp(sp.expand(sp.together(e))))


def _log_split(e: sp.Expr) -> sp.Expr:
    """Pull e^{−⟨f(x), f(y)⟩/τ} out of the log (every weight is positive, so the log splits)."""
    return sp.simplify(sp.expand_log(sp.logcombine(sp.expand(e))))


# ----------------------------------------------------------------------------- vector checks (proof steps)


def _pairs(seed: str, n_: int) -> list[dict]:
    """Random (f(x), f(z), η(x), η(z), ε, s, τ) with ‖f‖ ≤ 3, ‖η‖ ≤ 3, d ∈ {2, 3, 8}."""
    rng = random.Random(seed)
    out = []
    for it in range(n_):
        d = rng.choice((2, 3, 8))
        vec = lambda r_, d=d: [rng.gauss(0, 1) * r_ for _ in range(d)]  # noqa: E731
        fx, fz, ex, ez = (vec(rng.choice((0.1, 0.5, 1.0))) for _ in range(4))
        if it % 4 == 0:  # aligned: the exponent is as large as the norms allow
            fz, ez = list(fx), list(ex)
        out.append(
            {
                "fx": fx,
                "fz": fz,
                "ex": ex,
                "ez": ez,
                "eps": rng.choice((1.0, 0.5, 1e-2, 1e-5)),
                "s": rng.random(),
                "tau": rng.choice((0.05, 0.2, 1.0, 5.0)),
            }
        )
    return out


def _dct_claim(P: dict, lib=math) -> tuple:
    """lhs: (1/τ)|⟨f(x)+εsη(x), η(z)⟩ + ⟨η(x), f(z)+εsη(z)⟩| e^{⟨f(x)+εsη(x), f(z)+εsη(z)⟩/τ};
    rhs: (2/τ)(‖f‖ + ‖η‖)‖η‖ e^{(‖f‖ + ‖η‖)²/τ}, sup norms over the points x, z."""
    t_, cs = P["tau"], P["eps"] * P["s"]
    fx, fz, ex, ez = P["fx"], P["fz"], P["ex"], P["ez"]
    ax, az = add(fx, ex, cs), add(fz, ez, cs)
    lhs = abs(dot(ax, ez) + dot(ex, az)) / t_ * lib.exp(dot(ax, az) / t_)
    F = max(norm(fx, lib), norm(fz, lib))
    N = max(norm(ex, lib), norm(ez, lib))
    return lhs, 2 / t_ * (F + N) * N * lib.exp((F + N) ** 2 / t_)


def dct_checker(claim=None) -> ConfigurationClaim:
    """The dominated-convergence bound as a configuration claim on the vectors of ``_pairs``; ``claim(P, lib) ->
    (lhs, rhs)`` (default ``_dct_claim``; a wrong one is refuted)."""
    return ConfigurationClaim(
        claim=claim or _dct_claim,
        draw=_pairs,
        shown=("tau", "eps", "s"),
        attacked={"tau": ("1/20", "5"), "eps": ("1/100000", "1"), "s": ("0", "1"), "d": ("2", "8")},
        what="random finite vectors",
        ranges="d ∈ {2, 3, 8}, norms ≤ ~3, ε ∈ [1e-5, 1], s ∈ [0, 1], τ ∈ [0.05, 5]",
    )


# ----------------------------------------------------------------------------- the ledger

RESULT = "Lemma 6, every k: d/dε H_τ(f + εη, x, y, μ)|₀ = (1/τ)[⟨η(x), G_τ(f,f) − f(y)⟩ + ⟨f(x), G_τ(f,η) − η(y)⟩]"


def _domain(extra: dict | None = None) -> Domain:
    ranges = {
        tau: (sp.Rational(1, 20), 20),
        mu: (sp.Rational(1, 100), 1),
        emb_a: (-1, 1),
        emb_p: (-1, 1),
        emb_n: (-1, 1),
        dir_a: (-2, 2),
        dir_p: (-2, 2),
        dir_n: (-2, 2),
        veps: (-1, 1),
    }
    ranges.update(extra or {})
    return Domain(
        ranges,
        name="τ ∈ [0.05, 20], μ_j ∈ [0.01, 1], coordinates of f in [−1, 1], of η in [−2, 2], ε ∈ [−1, 1]",
    )


def derivations() -> list[Derivation]:
    d, kk = D_FIX, K_FIX
    V = _vecs(d, kk)
    fa, fp, fn, ea, ep, en = V["fa"], V["fp"], V["fn"], V["ea"], V["ep"], V["en"]
    D = _domain()
    Dk = _domain({k: (1, sp.oo)})
    H = H_finite(fa, fp, fn)
    lse_tilt = sp.log(sum(mu[jj + 1] * sp.exp(dot(fa, fn[jj]) / tau) for jj in range(kk)))
    inner = lambda u, v: dot(u, v) / tau  # noqa: E731
    fxe, fye = add(fa, ea, veps), add(fp, ep, veps)
    z1 = fn[0]
    e1 = en[0]
    gamma_eps = sp.exp(dot(add(fa, ea, veps), add(z1, e1, veps)) / tau)
    gamma_path = gamma_eps.subs(veps, T_PATH)
    dgamma = (dot(fa, e1) + dot(ea, z1)) / tau * sp.exp(dot(fa, z1) / tau)
    integral_eps = sum(mu[jj + 1] * sp.exp(dot(add(fa, ea, veps), add(fn[jj], en[jj], veps)) / tau) for jj in range(kk))
    d_integral = sum(
        mu[jj + 1] * (dot(fa, en[jj]) + dot(ea, fn[jj])) / tau * sp.exp(dot(fa, fn[jj]) / tau) for jj in range(kk)
    )
    gf, ge = G_finite(fa, fn, fn), G_finite(fa, fn, en)
    eq40 = (dot(fa, ge) + dot(ea, gf)) / tau
    lhs6, rhs6 = lemma6_identity(d, kk)
    # the proof's mean-value and dominated-convergence lines, stated at one support point z = z_1
    at = lambda u, e, c_: add(u, e, veps * c_)  # noqa: E731
    quotient = (gamma_eps - sp.exp(dot(fa, z1) / tau)) / veps
    dgamma_c = (
        (dot(at(fa, ea, c_mvt), e1) + dot(ea, at(z1, e1, c_mvt)))
        / tau
        * sp.exp(dot(at(fa, ea, c_mvt), at(z1, e1, c_mvt)) / tau)
    )
    sup_f = sp.Max(sp.sqrt(dot(fa, fa)), sp.sqrt(dot(z1, z1)))
    sup_e = sp.Max(sp.sqrt(dot(ea, ea)), sp.sqrt(dot(e1, e1)))
    dct_rhs = 2 / tau * (sup_f + sup_e) * sup_e * sp.exp((sup_f + sup_e) ** 2 / tau)
    Dc = _domain({c_mvt: (0, 1)})
    lhs_sum, rhs_sum = lemma6_sum_identity(2)
    # the anchor is a support point of μ: z_1 = x, so f(z_1) = f(x) and η(z_1) = η(x) move together
    fn_co = [list(fa)] + fn[1:]
    en_co = [list(ea)] + en[1:]
    lhs_co = gateaux(fa, fp, fn_co, ea, ep, en_co)
    rhs_co = printed_derivative(fa, fp, fn_co, ea, ep, en_co)
    steps = [
        Step(
            "(35) H_τ(f, x, y, μ) := log ∫ e^{⟨f(x), f(z) − f(y)⟩/τ} μ(dz), μ = Σ_j μ_j δ_{z_j} (d = 3, k = 3)",
            H_val,
            H,
            kind="definition",
            domain=D | Domain({H_val: (-sp.oo, sp.oo)}),
            provenance="paper",
            reference="(35)",
            note="(36) G_τ(f, η, μ, x) = ∫ η e^{⟨f(x), f(·)⟩/τ} dμ / ∫ e^{⟨f(x), f(·)⟩/τ} dμ: ``G_finite``",
        ),
        Step(
            "(37) H_τ = −⟨f(x), f(y)⟩/τ + log ∫ e^{⟨f(x), f(z)⟩/τ} μ(dz)",
            H,
            -inner(fa, fp) + lse_tilt,
            domain=D,
            provenance="paper",
            reference="(37)",
            simplifier=_log_split,
        ),
        Step(
            "expansion before (38): (1/τ)⟨f(x)+εη(x), f(y)+εη(y)⟩ − (1/τ)⟨f(x), f(y)⟩ = (ε/τ)[⟨f(x),η(y)⟩ + ⟨η(x),f(y)⟩] + (ε²/τ)⟨η(x),η(y)⟩",
            inner(fxe, fye) - inner(fa, fp),
            veps * (inner(fa, ep) + inner(ea, fp)) + veps**2 * inner(ea, ep),
            domain=D,
            provenance="paper",
            reference="display before (38)",
        ),
        Step(
            "(38) lim_{ε→0} [(1/τ)⟨f(x)+εη(x), f(y)+εη(y)⟩ − (1/τ)⟨f(x), f(y)⟩]/ε = (1/τ)[⟨f(x), η(y)⟩ + ⟨η(x), f(y)⟩]",
            (inner(fxe, fye) - inner(fa, fp)) / veps,
            inner(fa, ep) + inner(ea, fp),
            kind="limit",
            var=veps,
            point=0,
            domain=D,
            provenance="paper",
            reference="(38)",
        ),
        Step(
            "(39) δΓ(f)[η] = (1/τ)[⟨f(x), η(z)⟩ + ⟨η(x), f(z)⟩] e^{⟨f(x), f(z)⟩/τ}, Γ(f) = e^{⟨f(x), f(z)⟩/τ}",
            # δΓ(f)[η] as its definition prints it: d/dε Γ(f + εη) at ε = 0
            printed(sp.Subs(sp.Derivative(gamma_eps, veps), veps, 0), sp.diff(gamma_eps, veps).subs(veps, 0)),
            dgamma,
            domain=D,
            provenance="paper",
            reference="(39)",
            simplifier=_fast,
        ),
        Step(
            "mean value theorem in the proof of Lemma 6: (1/ε)(Γ(f + εη) − Γ(f)) = δΓ(f + εcη)[η] for some c ∈ [0, 1]",
            quotient,
            dgamma_c,
            kind="identity",
            domain=Dc,
            provenance="paper",
            reference="proof of Lemma 6, first line of the dominated-convergence display",
            # G(t) = Γ(f + tη) from t = 0 to ε: the quotient is (G(ε) − G(0))/ε, the derivative G'(cε)
            route=("mean value", {"path": gamma_path, "var": T_PATH, "point": c_mvt, "start": 0, "end": veps}),
            note="an existence claim: proved by the mean value route along G(t) = Γ(f + tη), t between 0 and ε",
        ),
        Step(
            "dominated-convergence bound: (1/τ)|⟨f(x)+εcη(x), η(z)⟩ + ⟨η(x), f(z)+εcη(z)⟩| e^{⟨·,·⟩/τ} "
            "≤ (2/τ)(‖f‖_{2,∞} + ‖η‖_{2,∞})‖η‖_{2,∞} e^{(‖f‖_{2,∞} + ‖η‖_{2,∞})²/τ}",
            sp.Abs(dgamma_c),
            dct_rhs,
            kind="inequality",
            relation="<=",
            domain=Dc,
            provenance="paper",
            reference="proof of Lemma 6, last two lines of the dominated-convergence display",
            check=dct_checker(),
            note="vector claim (εc ∈ [0, 1]); the ε-free bound licenses the interchange of ∫ and d/dε",
        ),
        Step(
            "interchange: d/dε ∫ e^{⟨f(x)+εη(x), f(z)+εη(z)⟩/τ} μ(dz)|₀ = ∫ δΓ(f)[η] μ(dz)",
            printed(sp.Subs(sp.Derivative(integral_eps, veps), veps, 0), sp.diff(integral_eps, veps).subs(veps, 0)),
            d_integral,
            domain=D,
            provenance="paper",
            reference="display after the dominated-convergence bound",
            simplifier=_fast,
        ),
        Step(
            "(40) d/dε log ∫ e^{⟨f(x), f(z)⟩/τ} μ(dz) = (1/τ)[⟨f(x), G_τ(f, η, μ, x)⟩ + ⟨η(x), G_τ(f, f, μ, x)⟩]",
            sp.diff(sp.log(integral_eps), veps).subs(veps, 0),
            eq40,
            domain=D,
            provenance="paper",
            reference="(40)",
            simplifier=_fast,
        ),
        Step(
            "Lemma 6 (d = 3, k = 3): d/dε H_τ(f + εη)|₀ = (1/τ)[⟨η(x), G_τ(f, f) − f(y)⟩ + ⟨f(x), G_τ(f, η) − η(y)⟩]",
            lhs6,
            rhs6,
            domain=D,
            provenance="paper",
            reference="Lemma 6 ((37) minus (38), with (40))",
            simplifier=_fast,
        ),
        Step(
            "Lemma 6 with x a support point of μ (z_1 = x: f(z_1), η(z_1) move with f(x), η(x))",
            lhs_co,
            rhs_co,
            domain=D,
            provenance="ours",
            simplifier=_fast,
            note="the lemma allows any x, y, μ; the anchor among the negatives is the case the proof's "
            "term-by-term differentiation does not spell out",
        ),
        Step(
            RESULT,
            lhs_sum,
            rhs_sum,
            domain=Dk,
            provenance="paper",
            reference="Lemma 6",
            simplifier=lambda e: sp.simplify(e.doit()),
            note="sums over j = 1..k as SymPy Sum (d = 2); proved symbolically for symbolic k, spot-checked at k ≤ 6",
        ),
    ]
    return [
        Derivation(
            "lemma6",
            "Lemma 6: the Gâteaux derivative of H_τ(f, x, y, μ) in the embedding function f",
            steps,
            result=RESULT,
            source="paper",
            paper_claim="Lemma 6 (appendix B.1): δH_τ(f, x, y, μ)[η] = (1/τ)[⟨η(x), G_τ(f, f, x, μ) − f(y)⟩ + "
            "⟨f(x), G_τ(f, η, μ, x) − η(y)⟩]",
            summary="Proved on finite realisations (μ = Σ μ_j δ_{z_j}): d = 3, k = 3 and every k (Sum, d = 2); "
            "holds also with the anchor in the support of μ.",
            objects={"H_finite": H_finite, "G_finite": G_finite, "lemma6_identity": lemma6_identity},
        )
    ]


ERRATA = [
    Erratum(
        location="Appendix B.1, statement of Lemma 6 (and the first line after (43))",
        as_printed=r"G_\tau(f, f, x, \mu)",
        kind="misprint or undefined symbol",
        result="lemma6",
        correction=r"G_\tau(f, f, \mu, x), the argument order of (36); B.1 also declares G_\tau(\cdot,\cdot,x,y,\mu) "
        "with five arguments while (36) defines four",
        consequence="none: notational; the ledger uses (36)'s order",
        evidence="the formula with G_τ read as (36) is proved (step 'Lemma 6 (d = 3, k = 3) …' and the every-k step)",
    ),
    Erratum(
        location="Appendix B.1, proof of Lemma 6, sentence before (38)",
        as_printed="Considering the first term on the l.h.s. of (37)",
        kind="misprint or undefined symbol",
        result="lemma6",
        correction="the first term on the r.h.s. of (37), −(1/τ)⟨f(x), f(y)⟩; (38) differentiates its negative, "
        "which is why (38) is subtracted from (40)",
        consequence="none",
        evidence="(37) is proved as printed (step '(37) …'); (38) as a limit",
    ),
]
