"""Proposition 4's terms: its constants (paper's and ours), the finite realisations of its proof (ℓ, H, the
bracket after (43) at d = 2, k = 2), the vocabulary of its configuration claims (φ, φ' on the sphere, ξ = (1 − c)φ
+ cφ', Δ = φ − φ'; ``checks.configuration``), the configuration attacks beside them, the domains of its steps and
its kernel formulas. ``prop4`` holds the ledger (the printed proof and ours, step by step), its errata and
constants, and re-exports these names.

W_k = k e^{2/τ}/(1 + k e^{2/τ}), N_k = k e^{2/τ}/(e^{2/τ} + k): ours, (2W_k/τ, W_k/τ, N_k^{1/β}/τ), against the
paper's (4/τ, 1/τ, (3/τ) e^{2/(βτ)}), for τ > 0, k ≥ 1, β ≥ 1.
"""

from __future__ import annotations

import math

import sympy as sp

from ..checks.configuration import Inner, Norm, realise
from ..ledger import Domain
from ..symbols import (
    TAU_MAX,
    TAU_MIN,
    beta,
    c_mvt,
    cos_pp,
    delta_s,
    dir_a,
    dir_n,
    dir_p,
    dist,
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
from ._embed import (
    Config,
    add,
    direction,
    distances,
    dot,
    loss,
    norm,
    np_pass,
    power_mean,
    row_norms,
    running_sums,
    segment,
    tilt,
    tilted_mean,
    vector_check,
    weight_h,
)
from .lemma6 import H_finite

E2 = sp.exp(2 / tau)


# ----------------------------------------------------------------------------- the constants


def paper_coefficients(b=beta) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(4/τ, 1/τ, (3/τ) e^{2/(βτ)}): anchor, positive, negatives' power mean, as printed."""
    return 4 / tau, 1 / tau, 3 * sp.exp(2 / (b * tau)) / tau


def W_k(k_=k) -> sp.Expr:
    """W_k = k e^{2/τ}/(1 + k e^{2/τ}): the largest e^{H}/(1/k + e^{H}) (H ≤ 2/τ)."""
    return k_ * E2 / (1 + k_ * E2)


def N_k(k_=k) -> sp.Expr:
    """N_k = k e^{2/τ}/(e^{2/τ} + k): the largest k q_j, q_j = s_j/(1 + Σ_l s_l)."""
    return k_ * E2 / (E2 + k_)


def our_coefficients(b=beta, k_=k) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """(2W_k/τ, W_k/τ, N_k^{1/β}/τ): ours, proved coefficient by coefficient."""
    return 2 * W_k(k_) / tau, W_k(k_) / tau, N_k(k_) ** (1 / b) / tau


def rhs_paper(cfg: Config, lib=math):
    da, dp, dn = distances(cfg, lib)
    t_, b_ = cfg.tau, cfg.beta
    return (4 * da + dp + 3 * lib.exp(2 / (b_ * t_)) * power_mean(dn, b_, lib)) / t_


def rhs_ours(cfg: Config, lib=math):
    da, dp, dn = distances(cfg, lib)
    t_, b_, k_ = cfg.tau, cfg.beta, cfg.k
    e_m2 = lib.exp(-2 / t_)
    wk = k_ / (k_ + e_m2)  # = k e^{2/τ}/(1 + k e^{2/τ}), overflow-free
    nk = k_ / (1 + k_ * e_m2)  # = k e^{2/τ}/(e^{2/τ} + k)
    return (2 * wk * da + wk * dp + nk ** (1 / b_) * power_mean(dn, b_, lib)) / t_


def loss_gap(cfg: Config, lib=math):
    (a, p, n_), (a2, p2, n2) = cfg.phi, cfg.psi
    return abs(loss(cfg.tau, a, p, n_, lib) - loss(cfg.tau, a2, p2, n2, lib))


# ----------------------------------------------------------------------------- finite realisations


def vecs(d: int, kk: int) -> dict:
    return {
        "fa": [emb_a[i] for i in range(1, d + 1)],
        "fp": [emb_p[i] for i in range(1, d + 1)],
        "fn": [[emb_n[jj, i] for i in range(1, d + 1)] for jj in range(1, kk + 1)],
        "ea": [dir_a[i] for i in range(1, d + 1)],
        "ep": [dir_p[i] for i in range(1, d + 1)],
        "en": [[dir_n[jj, i] for i in range(1, d + 1)] for jj in range(1, kk + 1)],
    }


def ell_finite(fa, fp, fn) -> sp.Expr:
    """ℓ(f) of (14): log(1/k + (1/k) Σ_j e^{⟨f(z^a), f(z_j^-) − f(z^+)⟩/τ})."""
    kk = len(fn)
    return sp.log(sp.Rational(1, kk) + sum(sp.exp(dot(fa, add(u, fp, -1)) / tau) for u in fn) / kk)


def H_hat(fa, fp, fn) -> sp.Expr:
    """H(f) = H_τ(f, z^a, z^+, π̂^-), π̂^- = (1/k) Σ_j δ_{z_j^-}."""
    return H_finite(fa, fp, fn, [sp.Rational(1, len(fn))] * len(fn))


def bracket_sym(fa, fp, fn, ea, ep, en) -> sp.Expr:
    """[⟨η(z^a), G_τ(ξ, ξ) − ξ(z^+)⟩ + ⟨ξ(z^a), G_τ(ξ, η) − η(z^+)⟩] (the display after (43)), f = ξ."""
    from .lemma6 import G_finite

    uni = [sp.Rational(1, len(fn))] * len(fn)
    return dot(ea, add(G_finite(fa, fn, fn, uni), fp, -1)) + dot(fa, add(G_finite(fa, fn, en, uni), ep, -1))


def derivative_of_loss(fa, fp, fn, ea, ep, en) -> sp.Expr:
    """d/dε ℓ(f + εη)|₀ by SymPy."""
    sh = lambda u, e: add(u, e, veps)  # noqa: E731
    return sp.diff(ell_finite(sh(fa, ea), sh(fp, ep), [sh(u, e) for u, e in zip(fn, en)]), veps).subs(veps, 0)


def fast_simplify(e: sp.Expr) -> sp.Expr:
    return sp.simplify(sp.powsimp(sp.expand(sp.together(e))))


# ----------------------------------------------------------------------------- the configuration claims

#: the vocabulary of the configuration claims (``checks.configuration``): φ, φ' on the sphere at z^a, z^+, z_j^-;
#: ξ = (1 − c)φ + cφ' (the mean value point, c ∈ [0, 1]) and η = Δ = φ − φ', derived
_I = sp.Symbol("i", integer=True, positive=True)
_PT = {"a": "z^a", "p": "z^+"}
PHI = {x_: sp.Symbol(f"φ({z_})") for x_, z_ in _PT.items()} | {"n": sp.IndexedBase("φ(z^-)")}
PSI = {x_: sp.Symbol(f"φ'({z_})") for x_, z_ in _PT.items()} | {"n": sp.IndexedBase("φ'(z^-)")}
XI = {x_: sp.Symbol(f"ξ({z_})") for x_, z_ in _PT.items()} | {"n": sp.IndexedBase("ξ(z^-)")}
ETA = {x_: sp.Symbol(f"Δ({z_})") for x_, z_ in _PT.items()} | {"n": sp.IndexedBase("Δ(z^-)")}


def _vectors() -> dict:
    out: dict = {}
    for x_ in ("a", "p", "n"):
        out[PHI[x_]] = out[PSI[x_]] = ("sphere", 1)
        if x_ == "n":
            out[XI[x_]] = ("def", sp.Lambda(_I, (1 - c_mvt) * PHI[x_][_I] + c_mvt * PSI[x_][_I]))
            out[ETA[x_]] = ("def", sp.Lambda(_I, PHI[x_][_I] - PSI[x_][_I]))
        else:
            out[XI[x_]] = ("def", (1 - c_mvt) * PHI[x_] + c_mvt * PSI[x_])
            out[ETA[x_]] = ("def", PHI[x_] - PSI[x_])
    return out


VECTORS = _vectors()
SCALARS = {tau: (sp.Rational(1, 20), 20), k: (1, sp.oo), c_mvt: (0, 1), beta: (1, 201)}


def tilt_weight(jj=j) -> sp.Expr:
    """p_j = e^{⟨ξ(z^a), ξ(z_j^-)⟩/τ} / Σ_i e^{⟨ξ(z^a), ξ(z_i^-)⟩/τ}: G_τ(ξ, ·, π̂, z^a)'s weights (every k)."""
    xa, xn = XI["a"], XI["n"]
    return sp.exp(Inner(xa, xn[jj]) / tau) / sp.Sum(sp.exp(Inner(xa, xn[_I]) / tau), (_I, 1, k))


def q_weight(jj=j) -> sp.Expr:
    """q_j = s_j/(1 + Σ_l s_l), s_j = e^{⟨ξ(z^a), ξ(z_j^-) − ξ(z^+)⟩/τ} (every k)."""
    xa, xp, xn = XI["a"], XI["p"], XI["n"]
    s_ = lambda i_: sp.exp(Inner(xa, xn[i_] - xp) / tau)  # noqa: E731
    return s_(jj) / (1 + sp.Sum(s_(_I), (_I, 1, k)))


_W = sp.Sum(q_weight(), (j, 1, k))
#: (49), Lemma 8 at f = ξ: ‖Σ_j p_j Δ_j‖ ≤ e^{2/(βτ)} ((1/k) Σ_j ‖Δ_j‖^β)^{1/β} (lhs, rhs)
LEMMA8_AT_XI = (
    Norm(sp.Sum(tilt_weight() * ETA["n"][j], (j, 1, k))),
    sp.exp(2 / (beta * tau)) * (sp.Sum(Norm(ETA["n"][j]) ** beta, (j, 1, k)) / k) ** (1 / beta),
)
#: ours, the anchor's vector: ‖Σ_j q_j ξ(z_j^-) − W ξ(z^+)‖ ≤ 2W, W = Σ_j q_j (lhs, rhs)
ANCHOR_OURS = (Norm(sp.Sum(q_weight() * XI["n"][j], (j, 1, k)) - _W * XI["p"]), 2 * _W)


def configuration(lhs, rhs, attack, fa, fp, fn, ea, ep, en) -> dict:
    """The step's sides (the typed claim realised at d = 2, k = 2: ξ = f, η = Δ) and its configuration route."""
    coords = {XI["a"]: fa, XI["p"]: fp, XI["n"]: fn, ETA["a"]: ea, ETA["p"]: ep, ETA["n"]: en}
    at = {k: len(fn)}
    hint = {"vectors": VECTORS, "claim": (lhs, rhs), "realise": coords, "at": at, "scalars": SCALARS}
    return {
        "lhs": realise(lhs, coords, at),
        "rhs": realise(rhs, coords, at),
        "route": ("configuration", {**hint, "attack": vector_check(attack)}),
    }


# ----------------------------------------------------------------------------- vector checks


def attack_48(cfg: Config, lib=math):
    xi = segment(cfg, cfg.c)
    eta = direction(cfg)
    if np_pass(cfg, lib):  # the same doubles as below, the k·d work in numpy
        diff_n = xi[2] + -1.0 * eta[2]
        g = tilted_mean(cfg.tau, xi[0], xi[2], diff_n, lib)
        ends = [norm(add(u, e, -1.0), lib) for u, e in zip(xi[0:2], eta[0:2])]
        return norm(g, lib), max(ends + row_norms(diff_n))
    diff_n = [add(u, e, -1.0) for u, e in zip(xi[2], eta[2])]
    g = tilted_mean(cfg.tau, xi[0], xi[2], diff_n, lib)
    sup = max(norm(add(u, e, -1.0), lib) for u, e in zip(xi[0:2] + tuple(xi[2]), eta[0:2] + tuple(eta[2])))
    return norm(g, lib), sup


def attack_48_three(cfg: Config, lib=math):
    return attack_48(cfg, lib)[1], 3.0


def attack_49(cfg: Config, lib=math):
    xi = segment(cfg, cfg.c)
    g = tilted_mean(cfg.tau, xi[0], xi[2], direction(cfg)[2], lib)
    return norm(g, lib), lib.exp(2 / (cfg.beta * cfg.tau)) * power_mean(distances(cfg, lib)[2], cfg.beta, lib)


def attack_anchor_ours(cfg: Config, lib=math):
    """‖Σ_j q_j ξ(z_j^-) − W ξ(z^+)‖ ≤ 2W, q_j = s_j/(1 + Σ s_l), W = Σ q_j."""
    xa, xp, xn = segment(cfg, cfg.c)
    wt = weight_h(cfg.tau, xa, xp, xn, lib)
    p = tilt(cfg.tau, xa, xn, lib)
    if np_pass(cfg, lib):
        sums = running_sums(p, xn)
        v = [wt * sums[i] - wt * xp[i] for i in range(len(xa))]
    else:
        v = [wt * sum(p[jj] * xn[jj][i] for jj in range(len(xn))) - wt * xp[i] for i in range(len(xa))]
    return norm(v, lib), 2 * wt


def attack_prop4_paper(cfg: Config, lib=math):
    return loss_gap(cfg, lib), rhs_paper(cfg, lib)


def attack_prop4_ours(cfg: Config, lib=math):
    return loss_gap(cfg, lib), rhs_ours(cfg, lib)


def ball_constraints(d: int = 2, kk: int = 2) -> tuple:
    """The configuration claims' hypotheses on the d, k realisation (``vecs``): ‖ξ(z)‖² ≤ 1 at z^a, z^+, z_j^-
    ((47): ξ = (1 − c)φ + cφ' with φ, φ' on the sphere) and ‖Δ(z)‖² ≤ 4 (Δ = φ − φ'; for d ≥ 2 the differences
    of two unit vectors are exactly the vectors of norm ≤ 2). Every pair (ξ, Δ) of the proof is among these; the
    claims are proved for all of them."""
    V = vecs(d, kk)
    return tuple(sp.Le(sum(c_**2 for c_ in u), 1) for u in [V["fa"], V["fp"], *V["fn"]]) + tuple(
        sp.Le(sum(c_**2 for c_ in e), 4) for e in [V["ea"], V["ep"], *V["en"]]
    )


def domains() -> dict[str, Domain]:
    coords = {emb_a: (-1, 1), emb_p: (-1, 1), emb_n: (-1, 1), dir_a: (-2, 2), dir_p: (-2, 2), dir_n: (-2, 2)}
    return {
        "sym": Domain(
            {tau: (sp.Rational(1, 20), 20), **coords, veps: (-1, 1)},
            name="τ ∈ [0.05, 20], coordinates of f (or ξ) in [−1, 1], of η = φ − φ' in [−2, 2] (d = 2, k = 2)",
        ),
        # the configuration claims: the box cut by their hypotheses (the box alone is wider: at ξ = (1, 1),
        # Δ = (−2, −2), ‖ξ − Δ‖ = 3√2 > 3)
        "cfg": Domain(
            {tau: (sp.Rational(1, 20), 20), **coords},
            constraints=ball_constraints(),
            name="τ ∈ [0.05, 20], ‖ξ(z)‖ ≤ 1, ‖Δ(z)‖ = ‖φ(z) − φ'(z)‖ ≤ 2 at z^a, z^+, z_j^- (d = 2, k = 2)",
        ),
        "symk": Domain(
            {tau: (sp.Rational(1, 20), 20), k: (1, sp.oo), emb_a: (-1, 1), emb_p: (-1, 1), emb_n: (-1, 1)},
            name="τ ∈ [0.05, 20], k ≥ 1, coordinates of f in [−1, 1] (d = 2)",
        ),
        "mvt": Domain(
            {tau: (sp.Rational(1, 20), 20), **coords, c_mvt: (0, 1), veps: (-1, 1)},
            name="τ ∈ [0.05, 20], c ∈ [0, 1], φ = f, φ' = f − η (d = 2, k = 2)",
        ),
        "free": Domain(
            {emb_a: (-1, 1), emb_p: (-1, 1), dir_a: (-2, 2), dir_p: (-2, 2), gvec_a: (-1, 1), gvec_b: (-2, 2)},
            name="ξ, η coordinates and free vectors g_A, g_B (d = 3)",
        ),
        "cg": Domain({c_mvt: (0, 1), cos_pp: (-1, 1)}, name="c ∈ [0, 1], ⟨φ, φ'⟩ ∈ [−1, 1]"),
        "w": Domain({wt_h: (0, 1)}, name="w_H ∈ [0, 1]"),
        "wgtb": Domain(
            {wt_h: (0, 1), frac_g: (0, 1), tau: (TAU_MIN, TAU_MAX), beta: (1, sp.oo)},
            name="w_H ∈ [0, 1], θ ∈ [0, 1], τ ∈ [1e-3, 1e2], β ≥ 1",
        ),
        "hk": Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), x: (-2, 2)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, x ∈ [−2, 2]"),
        "hkd": Domain(
            {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), x: (-2, 2), delta_s: (0, 4)},
            name="τ ∈ [1e-3, 1e2], k ≥ 1, x ∈ [−2, 2], δ ∈ [0, 4]",
        ),
        "tk": Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1"),
        "tkb": Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), beta: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, β ≥ 1"),
        "map": Domain(
            {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), beta: (sp.Rational(101, 100), 1000)},
            name="τ ∈ [1e-3, 1e2], k ≥ 1, paper's β ∈ [1.01, 1000]",
        ),
        "qsum": Domain(
            {tau: (sp.Rational(1, 50), 50), k: (1, sp.oo), s: (-1, 1), s_pos: (-1, 1), dist: (0, 2), beta: (1, 50)},
            name="τ ∈ [0.02, 50], k ≥ 1, ⟨ξ(z^a), ξ(z_j^-)⟩, ⟨ξ(z^a), ξ(z^+)⟩ ∈ [−1, 1], ‖Δ_j‖ ∈ [0, 2], β ∈ [1, 50]",
        ),
        "wsum": Domain({w: (sp.Rational(1, 1000), 1000), k: (1, sp.oo)}, name="s_j ∈ [1e-3, 1e3], k ≥ 1"),
    }


def dist_sym(e) -> sp.Expr:
    return sp.sqrt(sum(c_**2 for c_ in e))


def pm_sym(en) -> sp.Expr:
    return (sum(dist_sym(e) ** beta for e in en) / len(en)) ** (1 / beta)


def loss_gap_sym(fa, fp, fn, ea, ep, en) -> sp.Expr:
    """|ℓ(φ) − ℓ(φ')| with φ = f, φ' = f − η on the finite realisation."""
    moved = ell_finite(add(fa, ea, -1), add(fp, ep, -1), [add(u, e, -1) for u, e in zip(fn, en)])
    return sp.Abs(ell_finite(fa, fp, fn) - moved)


# ----------------------------------------------------------------------------- kernel formulas (numerics.data_bounds)


def _without_e2(expr: sp.Expr) -> sp.Expr:
    """``expr`` with e^{2/τ} written as 1/q, q = e^{−2/τ}, and cancelled: the same function, but no e^{2/τ}
    that overflows a float for τ < 2/709 (W_k = k/(k + e^{−2/τ}), N_k = k/(1 + k e^{−2/τ}))."""
    q = sp.Dummy("q", positive=True)
    return sp.cancel(sp.sympify(expr).subs(E2, 1 / q)).subs(q, sp.exp(-2 / tau))


def _kernel_formulas():
    from ..results import KernelFormula

    src = "derivations.paper.prop4"
    return [
        KernelFormula(
            "prop4_anchor_paper",
            ("tau",),
            lambda: paper_coefficients()[0],
            f"{src}.paper_coefficients()[0]",
            "prop4 / as printed",
            "4/τ, the anchor coefficient of Prop. 4 as printed.",
        ),
        KernelFormula(
            "prop4_positive_paper",
            ("tau",),
            lambda: paper_coefficients()[1],
            f"{src}.paper_coefficients()[1]",
            "prop4 / as printed",
            "1/τ, the positive's coefficient of Prop. 4 as printed.",
        ),
        KernelFormula(
            "prop4_log_negatives_paper",
            ("beta", "tau"),
            lambda: sp.expand_log(sp.log(paper_coefficients()[2])),
            f"log {src}.paper_coefficients()[2]",
            "prop4 / as printed",
            "log((3/τ) e^{2/(βτ)}): the negatives' coefficient of Prop. 4 as printed, in logs (e^{2/(βτ)} overflows "
            "for βτ < 2/709).",
        ),
        KernelFormula(
            "prop4_anchor_ours",
            ("tau", "k"),
            lambda: _without_e2(our_coefficients()[0]),
            f"{src}.our_coefficients()[0]",
            "prop4 / ours",
            "2W_k/τ, W_k = k e^{2/τ}/(1 + k e^{2/τ}): our anchor coefficient (written without e^{2/τ}).",
        ),
        KernelFormula(
            "prop4_positive_ours",
            ("tau", "k"),
            lambda: _without_e2(our_coefficients()[1]),
            f"{src}.our_coefficients()[1]",
            "prop4 / ours",
            "W_k/τ: our positive's coefficient (written without e^{2/τ}).",
        ),
        KernelFormula(
            "prop4_log_negatives_ours",
            ("beta", "tau", "k"),
            lambda: sp.expand_log(sp.log(_without_e2(N_k()))) / beta - sp.log(tau),
            f"log {src}.our_coefficients()[2] = (1/β) log N_k − log τ",
            "prop4 / ours",
            "log(N_k^{1/β}/τ), N_k = k e^{2/τ}/(e^{2/τ} + k): our negatives' coefficient, in logs, without e^{2/τ}.",
        ),
    ]


#: Prop. 4's coefficients (paper's and ours) for the data kernels of ``numerics.data_bounds``
KERNEL_FORMULAS = _kernel_formulas()
