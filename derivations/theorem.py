"""Theorem 1 (our version): CE − R̂_n ≤ (range)·√(log(1/δ)/(2n)) + 2·Rad_n + min(C(τ)/k, D(τ)), w.p. ≥ 1 − δ.

Domain: τ ∈ [1e-3, 1e2], γ ≥ 1/τ, k, n, p ≥ 1, δ ∈ (0, 1), L, R ≥ 0; simultaneously for every
embedding φ_θ, θ ∈ R^p, ‖θ‖ ≤ R, φ_θ(x) ∈ S^{d−1} and L-Lipschitz in θ; n i.i.d. tuples
(x, x⁺, x_1 … x_k). ``CE`` is the expected cross-entropy E_x H(M(x, ·), Q^φ_τ(x, ·)) between the
positive generator and the softmax search kernel (the k → ∞ limit of the DCL risk R̃), ``R̂_n``
the empirical risk of the DCL loss ℓ̃ (paper §3.4) or, for ``loss="infonce"``, the paper's R̂_n (1) of
ℓ (14) (for the standard loss ℓ_std = ℓ + log k read R̂_n − log k).

The three components, each a SymPy expression with its provenance and rate:

* **sample variability** ``(b − a)·√(log(1/δ)/(2n))``: McDiarmid's bounded-differences inequality
  applied once, one-sided, to sup_θ (R̃ − R̂_n) (one tuple moves it by ≤ (b − a)/n). Loss range:
  DCL ℓ̃ ∈ [−2/τ, 2/τ] (width 4/τ, attained); standard ℓ_std ∈ [log(1 + k e^{−2/τ}),
  log(1 + k e^{2/τ})] (width ≤ 4/τ for every k, = 2/τ at k = 1; the paper's ℓ (14) = ℓ_std − log k has
  the same width, the paper's Lemma 5 bound 4/τ). One-sided suffices because the
  theorem bounds CE − R̂_n from above only; a two-sided |·| statement would need log(2/δ) and the
  lower side of the bias. Provenance: ours (classical ingredients). Rate O(n^{-1/2}), k-free.
* **complexity** ``2 · complexity_avg(τ, γ, k, n, L, p, R)`` (2 × the Rademacher bound of the
  DCL loss class, ``derivations.rademacher``); the standard loss is softplus(ℓ̃ + log k) and
  softplus is 1-Lipschitz, so every continuity bound of ℓ̃, hence the same complexity bound,
  holds for it (and for ℓ = ℓ_std − log k). Provenance: ours. Rate O(n^{-1/2}) exactly (√n × penalty is n-free), stabilising
  as k → ∞ (limit step at γ = 2/τ).
* **finite-k bias** ``min(C(τ)/k, D(τ))`` with 0 ≤ CE − R̃ ≤ C(τ)/k and ≤ D(τ) < 2/τ
  (``derivations.bias``; 2/τ is the plain log-range cap, log Z, log Z_k ∈ [−1/τ, 1/τ]); for the paper's ℓ (14), R = R_std,k − log k ≥ R̃ (``loss``: offset ≥ 0), so
  the same one-sided bias bound applies. Provenance: ours. Rate O(1/k).

Proof: CE − R̂_n = (CE − R̃) + (R̃ − R̂_n); the first is ≤ min(C(τ)/k, D(τ)) surely, the second is
≤ 2 Rad_n + (b − a)√(log(1/δ)/(2n)) uniformly in θ with probability ≥ 1 − δ (Mohri,
Rostamizadeh & Talwalkar 2018, Thm 3.3, rescaled from [0, 1] to [a, b]; Bartlett & Mendelson 2002).

The terms, caps and closed forms are stated in ``theorem_statement`` (every name re-exported here); this
module holds the derivation that checks them.
"""

from __future__ import annotations

import sympy as sp

from .ledger import Derivation, Domain, Link, Shown, Step
from .symbols import (
    TAU_MAX,
    TAU_MIN,
    CE_risk,
    L,
    R,
    R_risk,
    Rad_n,
    Rhat_n,
    Rhat_std,
    Rk_risk,
    a,
    c,
    delta,
    g,
    gamma,
    k,
    n,
    p,
    s_pos,
    t,
    tau,
    x,
    y,
)
from .theorem_statement import (  # noqa: F401 - the statement's names, re-exported (CLOSED_FORMS: results.py)
    _T1,
    CAP_ROWS,
    CLOSED_FORMS,
    LOSSES,
    PAPER_CLAIMS,
    RATES,
    SHOW_NAMES,
    Term,
    _bias,
    _rademacher,
    _show_names,
    bias_term,
    bias_term_uncapped,
    complexity_direct_term,
    complexity_max_term,
    complexity_term,
    loss_range,
    sample_variability,
    theorem_expr,
    theorem_terms,
    trivial_bound,
    trivial_ce,
)

# --------------------------------------------------------------------------- the derivation

_RANGE_DOMAIN = Domain(
    {tau: (TAU_MIN, TAU_MAX), s_pos: (-1, 1), y: (-1, 1)}, name="τ ∈ [1e-3, 1e2], s⁺ ∈ [−1, 1], y = τ log Z_k ∈ [−1, 1]"
)
_G_DOMAIN = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), g: (-2, 2)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, g ∈ [−2, 2]")
_TK = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1")
_FULL = Domain(
    {
        tau: (TAU_MIN, TAU_MAX),
        k: (1, sp.oo),
        n: (1, sp.oo),
        delta: (sp.Rational(1, 10**9), 1 - sp.Rational(1, 10**9)),
        L: (0, sp.oo),
        p: (1, sp.oo),
        R: (0, sp.oo),
    },
    name="τ ∈ [1e-3, 1e2], k, n, p ≥ 1, δ ∈ (0, 1), L, R ≥ 0",
)
#: with γ: only for steps whose expressions contain γ (the checker substitutes a constraint's
#: symbols from the step's own expressions)
_FULL_B = _FULL | Domain(
    {gamma: (1 / TAU_MAX, sp.oo), tau: (TAU_MIN, TAU_MAX)},
    constraints=(sp.GreaterThan(gamma * tau, 1),),
    name="γ ≥ 1/τ",
)


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 70

UNIFORM_DEVIATION = "uniform deviation: w.p. ≥ 1 − δ, sup_θ (R̃ − R̂_n) ≤ 2 Rad_n + (b − a)√(log(1/δ)/(2n))"
OFFSET_MEAN = "R − R̃ = E[ℓ − ℓ̃] ≥ log(1 + e^{−2/τ}/k): the expectation of loss's pointwise offset bound"
CHAIN_NAMES = {
    "dcl": "Theorem 1 (ours, DCL loss) as a chain: bias bound, uniform deviation, Rademacher bound",
    "infonce": "Theorem 1 (ours, InfoNCE ℓ (14)) as a chain: bias bound, R ≥ R̃, uniform deviation, Rademacher bound",
    "standard": "Theorem 1 (ours, standard loss, R̂_n = R̂_std − log k) as a chain",
}
TRIVIAL_NAMES = {
    "ce": "trivial bound: CrossEnt[M̂_k ‖ Q̂] = −(1/τ)·(weighted mean of ⟨φ, φ⟩) + log-mean-exp ≤ 2/τ",
    "lower": "trivial bound: ℓ ≥ log(1/k + e^{−2/τ}) (ℓ_std ≥ log(1 + k e^{−2/τ}), minus log k)",
    "gap": "trivial bound: CE − R̂_n ≤ 2/τ − log(1/k + e^{−2/τ}) ≤ 4/τ (ℓ (14); in ε = 1/k)",
    "dcl": "trivial bound, DCL loss: ℓ̃ ≥ −2/τ, so CE − R̂_n ≤ 2/τ + 2/τ = 4/τ",
}


def derivations() -> list[Derivation]:
    sv = sample_variability("dcl")
    sv_std = sample_variability("infonce")
    width_std = sp.log(1 + k * sp.exp(2 / tau)) - sp.log(1 + k * sp.exp(-2 / tau))
    dev = a * sp.sqrt(sp.log(1 / delta) / (2 * n))
    risks = Domain({CE_risk: (-sp.oo, sp.oo), Rk_risk: (-sp.oo, sp.oo), Rhat_n: (-sp.oo, sp.oo)})
    steps = [
        Step(
            "risk decomposition CE − R̂_n = (CE − R̃) + (R̃ − R̂_n)",
            CE_risk - Rhat_n,
            sp.Add(Shown(CE_risk - Rk_risk), Shown(Rk_risk - Rhat_n), evaluate=False),
            domain=risks,
            provenance="ours",
            note="first bracket: finite-k bias (deterministic); second: generalisation gap at fixed k",
        ),
        # --- loss ranges
        Step(
            "DCL loss in reduced form: τ ℓ̃ = y − s⁺ with y = τ log Z_k",
            tau * (-s_pos / tau + sp.log(sp.exp(y / tau))),
            y - s_pos,
            domain=_RANGE_DOMAIN,
            provenance="ours",
            simplifier=lambda e: sp.simplify(sp.expand_log(e)),
        ),
        Step(
            "DCL loss upper end: τ ℓ̃ ≤ 2",
            y - s_pos,
            2,
            kind="inequality",
            relation="<=",
            domain=_RANGE_DOMAIN,
            provenance="ours",
            note="attained at s⁺ = −1, every s_j = 1",
        ),
        Step(
            "DCL loss lower end: τ ℓ̃ ≥ −2",
            y - s_pos,
            -2,
            kind="inequality",
            relation=">=",
            domain=_RANGE_DOMAIN,
            provenance="ours",
            note="attained at s⁺ = 1, every s_j = −1: width 4/τ",
        ),
        Step(
            "standard loss in reduced form: ℓ_std = log(1 + k Z_k e^{−s⁺/τ}) = log(1 + k e^{−g/τ}), g = s⁺ − y",
            sp.log(1 + k * sp.exp(y / tau) * sp.exp(-s_pos / tau)),
            sp.log(1 + k * sp.exp(-(s_pos - y) / tau)),
            domain=_RANGE_DOMAIN | Domain({k: (1, sp.oo)}),
            provenance="ours",
        ),
        Step(
            "standard loss upper end log(1 + k e^{2/τ})",
            sp.log(1 + k * sp.exp(-g / tau)),
            sp.log(1 + k * sp.exp(2 / tau)),
            kind="inequality",
            relation="<=",
            domain=_G_DOMAIN,
            provenance="ours",
        ),
        Step(
            "standard loss lower end log(1 + k e^{−2/τ})",
            sp.log(1 + k * sp.exp(-g / tau)),
            sp.log(1 + k * sp.exp(-2 / tau)),
            kind="inequality",
            relation=">=",
            domain=_G_DOMAIN,
            provenance="ours",
        ),
        Step(
            "InfoNCE range, stable form (no overflow at τ = 1e-3): the width of ℓ (14) and of ℓ_std",
            width_std,
            loss_range("infonce"),
            domain=_TK,
            provenance="ours",
            simplifier=lambda e: sp.simplify(sp.expand_log(sp.expand(e))),
        ),
        Step(
            "InfoNCE range ≤ 4/τ for every k: 1 + k e^{2/τ} ≤ e^{4/τ}(1 + k e^{−2/τ})",
            1 + k * sp.exp(2 / tau),
            sp.exp(4 / tau) * (1 + k * sp.exp(-2 / tau)),
            kind="inequality",
            relation="<=",
            domain=_TK,
            provenance="ours",
            certificate=sp.exp(4 / tau) - 1,
            note="the difference is e^{4/τ} − 1 ≥ 0; taking logs, width ≤ 4/τ (= 2/τ at k = 1)",
        ),
        # --- sample variability
        Step(
            "McDiarmid tail at t = (b − a)√(log(1/δ)/(2n)) is δ (differences c_i = (b − a)/n)",
            Shown(
                sp.exp(-2 * dev**2 / (n * (a / n) ** 2)),
                r"\exp\left(-\frac{2 t^2}{n (a/n)^2}\right)\Big|_{t = a\sqrt{\log(1/\delta)/(2n)}}",
                "exp(−2t²/(n (a/n)²)) at t = a√(log(1/δ)/(2n))",
            ),
            delta,
            domain=Domain({a: (sp.Rational(1, 10**6), sp.oo), n: (1, sp.oo), delta: (sp.Rational(1, 10**9), 1)}),
            provenance="classical",
            reference="McDiarmid (1989), bounded differences: P(f − E f ≥ t) ≤ exp(−2t²/Σ c_i²)",
            note="a = b − a is the loss-range width; one tuple moves sup_θ(R̃ − R̂_n) by ≤ a/n",
        ),
        Step(
            UNIFORM_DEVIATION,
            Rk_risk - Rhat_n,
            2 * Rad_n + dev,
            kind="definition",
            domain=Domain(
                {
                    Rk_risk: (-sp.oo, sp.oo),
                    Rhat_n: (-sp.oo, sp.oo),
                    Rad_n: (0, sp.oo),
                    a: (0, sp.oo),
                    n: (1, sp.oo),
                    delta: (0, 1),
                }
            ),
            note="premise (a classical theorem): the left side is at most the right side, for every θ at once, "
            "w.p. ≥ 1 − δ; R̃, R̂_n the population and empirical risks of a loss with range width a = b − a",
            provenance="classical",
            reference="Mohri, Rostamizadeh & Talwalkar (2018), Foundations of ML, Thm 3.3, "
            "rescaled from [0, 1] to [a, b]; Bartlett & Mendelson (2002)",
        ),
        Step(
            "sample variability, DCL loss: (4/τ)√(log(1/δ)/(2n))",
            sp.Function("SV")(tau, n, delta),
            sv,
            kind="definition",
            domain=_FULL,
            provenance="ours",
        ),
        Step(
            "sample variability, InfoNCE ℓ (14) and standard loss: width·√(log(1/δ)/(2n))",
            sp.Function("SV_std")(tau, k, n, delta),
            sv_std,
            kind="definition",
            domain=_FULL,
            provenance="ours",
        ),
        Step(
            "sample variability is independent of k (∂/∂k = 0)",
            Shown(sp.diff(sv, k), r"\frac{\partial}{\partial k} \mathrm{SV}(\tau, n, \delta)", "∂SV/∂k"),
            0,
            domain=_FULL,
            provenance="ours",
        ),
        Step(
            "sample variability is O(n^{-1/2}): lim √n · SV = (4/τ)√(log(1/δ)/2)",
            sp.sqrt(n) * Shown(sv, r"\mathrm{SV}(\tau, n, \delta)", "SV(τ, n, δ)"),
            4 / tau * sp.sqrt(sp.log(1 / delta) / 2),
            kind="limit",
            var=n,
            domain=_FULL,
            provenance="ours",
        ),
        # --- complexity carries over to ℓ (14) and the standard loss
        Step(
            "softplus is 1-Lipschitz: d/dc log(1 + e^c) = 1/(1 + e^{−c}) ≤ 1",
            sp.diff(sp.log(1 + sp.exp(c)), c),
            1,
            kind="inequality",
            relation="<=",
            domain=Domain({c: (-50, 50)}),
            provenance="ours",
            certificate=sp.exp(-c) / (1 + sp.exp(-c)),
            note="ℓ_std = softplus(ℓ̃ + log k), ℓ = ℓ_std − log k: every continuity bound of ℓ̃ holds for both, "
            "so does its complexity bound",
        ),
        Step(
            OFFSET_MEAN,
            R_risk - Rk_risk,
            sp.log(1 + sp.exp(-2 / tau) / k),
            kind="definition",
            domain=Domain({R_risk: (-sp.oo, sp.oo), Rk_risk: (-sp.oo, sp.oo), tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo)}),
            provenance="classical",
            reference="monotonicity of expectation, applied to loss's pointwise 'offset lower bound "
            "log(1 + e^{−2/τ}/k)' (ℓ − ℓ̃ ≥ it for every tuple)",
            note="premise: the left side is at least the right side",
        ),
    ]
    extra, depends = _dependent_steps(sv)
    steps += extra
    return [
        Derivation(
            "theorem",
            "Theorem 1 (our version): sample variability + complexity penalty + finite-k bias",
            steps,
            result=CHAIN_NAMES["dcl"] if extra else "sample variability, DCL loss: (4/τ)√(log(1/δ)/(2n))",
            source="ours",
            depends_on=depends,
            paper_claim="; ".join(PAPER_CLAIMS[x] for x in ("sample_variability", "complexity", "finite_k_bias")),
            summary="CE − R̂_n ≤ (4/τ)√(log(1/δ)/(2n)) + 2·Rad_n + C(τ)/k with probability ≥ 1 − δ, uniformly over the "
            "embedding class; our constants, the paper's three-part structure.",
            objects={"sample_variability": sv, "sample_variability_infonce": sv_std},
        )
    ]


def _chains(cx: sp.Expr, bs: sp.Expr) -> list[Step]:
    """Each version of our Theorem 1 as a chain of cited links (issue 11); the claims are the bounds printed."""
    BiasGap = sp.Function("CE_minus_R")  # bias.BiasGap: CE − R̃ as the bias derivation writes it
    shows = _show_names()
    risks = {CE_risk: (-sp.oo, sp.oo), Rk_risk: (-sp.oo, sp.oo), R_risk: (-sp.oo, sp.oo), Rhat_n: (-sp.oo, sp.oo)}
    dom = _FULL_B | Domain({**risks, Rhat_std: (-sp.oo, sp.oo), Rad_n: (0, sp.oo)}, name="risks")
    bias_cite = f"{shows['finite_k_bias']} / finite-k bias bound"
    rad_cite = (
        f"{shows['complexity']} / averaged bound: R̂_n(ℓ̃∘Θ) ≤ complexity_avg, L₂ = C(γ, τ, k) k^{{−min(1/2, 1/q)}}"
    )
    dev_cite = f"theorem / {UNIFORM_DEVIATION}"
    root = sp.sqrt(sp.log(1 / delta) / (2 * n))
    out = []
    sv = sample_variability("dcl")
    out.append(
        Step(
            CHAIN_NAMES["dcl"],
            CE_risk - Rhat_n,
            theorem_expr("dcl"),
            kind="chain",
            relation="<=",
            domain=dom,
            provenance="ours",
            note="R̂_n the empirical risk of ℓ̃; CE − R̃ ≤ bias surely, R̃ − R̂_n ≤ 2 Rad + SV w.p. ≥ 1 − δ",
            links=[
                Link(
                    CE_risk - Rhat_n, bs + Rk_risk - Rhat_n, cite=bias_cite, subs={BiasGap(tau, k): CE_risk - Rk_risk}
                ),
                Link(bs + Rk_risk - Rhat_n, bs + 2 * Rad_n + sv, cite=dev_cite, subs={a: 4 / tau}, reads="<="),
                Link(bs + 2 * Rad_n + sv, theorem_expr("dcl"), cite=rad_cite, factor=2),
            ],
        )
    )
    for loss, rhat in (("infonce", Rhat_n), ("standard", Rhat_std - sp.log(k))):
        w = loss_range("infonce")
        svl = w * root
        top = sample_variability("infonce") + cx + bs
        out.append(
            Step(
                CHAIN_NAMES[loss],
                CE_risk - rhat,
                top,
                kind="chain",
                relation="<=",
                domain=dom,
                provenance="ours",
                note="R the paper's risk of ℓ (14); the complexity bound of ℓ̃ holds for ℓ = softplus(ℓ̃ + log k) − log k "
                "(softplus is 1-Lipschitz: step above), so Rad_n is that of the class of ℓ here",
                links=[
                    Link(
                        CE_risk - rhat, bs + Rk_risk - rhat, cite=bias_cite, subs={BiasGap(tau, k): CE_risk - Rk_risk}
                    ),
                    Link(
                        bs + Rk_risk - rhat,
                        bs + R_risk - rhat - sp.log(1 + sp.exp(-2 / tau) / k),
                        cite=f"theorem / {OFFSET_MEAN}",
                        reads=">=",
                    ),
                    Link(
                        bs + R_risk - rhat - sp.log(1 + sp.exp(-2 / tau) / k),
                        bs + R_risk - rhat,
                        cite="loss / offset ≥ 0",
                    ),
                    Link(
                        bs + R_risk - rhat,
                        bs + 2 * Rad_n + svl,
                        cite=dev_cite,
                        subs={Rk_risk: R_risk, Rhat_n: rhat, a: w},
                        reads="<=",
                    ),
                    Link(bs + 2 * Rad_n + svl, top, cite=rad_cite, factor=2),
                ],
            )
        )
    return out


def _trivial_steps() -> list[Step]:
    """The data-free bounds every printed Theorem 1 is capped by (issue 13)."""
    eps = sp.Symbol("epsilon_k", nonnegative=True)  # the same ε = 1/k as derivations.symbols.eps_k
    tk = Domain({tau: (TAU_MIN, TAU_MAX), x: (-1, 1), t: (-1, 1)}, name="τ ∈ [1e-3, 1e2], x, t ∈ [−1, 1]")
    te = Domain({tau: (TAU_MIN, TAU_MAX), eps: (0, 1)}, name="τ ∈ [1e-3, 1e2], ε = 1/k ∈ [0, 1]")
    return [
        Step(
            TRIVIAL_NAMES["ce"],
            (-x + t) / tau,
            trivial_ce(),
            kind="inequality",
            relation="<=",
            domain=tk,
            provenance="ours",
            reference="(9): x = the M̂_k-weighted mean of ⟨φ(z), φ(ξ_j)⟩, t = τ log((1/k)Σ_j e^{⟨φ(z), φ(ξ_j)⟩/τ}), "
            "both in [−1, 1] (unit vectors)",
            certificate=(1 + x) / tau + (1 - t) / tau,
        ),
        Step(
            TRIVIAL_NAMES["lower"],
            sp.log(1 + k * sp.exp(-2 / tau)) - sp.log(k),
            sp.log(1 / k + sp.exp(-2 / tau)),
            domain=_TK,
            provenance="ours",
            reference="standard loss lower end (above) and ℓ = ℓ_std − log k (loss); Lemma 5's a",
            simplifier=lambda e: sp.simplify(sp.expand_log(sp.expand(e))),
        ),
        Step(
            TRIVIAL_NAMES["gap"],
            2 / tau - sp.log(eps + sp.exp(-2 / tau)),
            4 / tau,
            kind="inequality",
            relation="<=",
            domain=te,
            provenance="ours",
            reference="CE ≤ 2/τ and R̂_n ≥ log(1/k + e^{−2/τ}) (a mean of losses ≥ a)",
            certificate=sp.log(1 + eps * sp.exp(2 / tau)),
            note="tight as k → ∞ (ε → 0); the cap the toolkit uses is the left side, 2/τ − log(1/k + e^{−2/τ})",
        ),
        Step(
            TRIVIAL_NAMES["dcl"],
            Shown(4 / tau, r"\frac{2}{\tau} - \left(-\frac{2}{\tau}\right)", "2/τ − (−2/τ)"),
            4 / tau,
            domain=Domain({tau: (TAU_MIN, TAU_MAX)}),
            provenance="ours",
            reference="CE ≤ 2/τ and DCL loss lower end τ ℓ̃ ≥ −2 (above)",
        ),
    ]


def _dependent_steps(sv: sp.Expr) -> tuple[list[Step], tuple[str, ...]]:
    """Steps that use the bias and Rademacher modules (absent until those modules exist)."""
    try:
        cx = complexity_term()
        bs = bias_term()
    except ImportError:
        return [], ("loss",)
    shows = _show_names()
    total = sv + cx + bs
    steps = [
        Step(
            "complexity penalty: 2 × Rademacher bound of the DCL-loss class",
            sp.Function("CP")(tau, gamma, k, n),
            cx,
            kind="definition",
            domain=_FULL_B,
            provenance="ours",
            note=f"from `{shows['complexity']}`",
        ),
        Step(
            "complexity penalty is O(n^{-1/2}): √n × penalty is independent of n",
            sp.diff(sp.sqrt(n) * cx, n),
            0,
            domain=_FULL_B,
            provenance="ours",
        ),
        Step(
            "complexity penalty stabilises as k → ∞ (at γ = 2/τ, the optimal γ)",
            cx.subs(gamma, 2 / tau),
            2 * _rademacher().k_limits()["complexity_avg (gamma = 2/tau)"],
            kind="limit",
            var=k,
            domain=_FULL,
            provenance="ours",
            note="the max-type penalty instead grows like √k (rademacher_max)",
        ),
        Step(
            "log-range cap on the bias: τ(log Z − log Z_k) = u − v ≤ 2 for u, v = τ log Z, τ log Z_k ∈ [−1, 1]",
            x - y,
            2,
            kind="inequality",
            relation="<=",
            domain=Domain({x: (-1, 1), y: (-1, 1)}, name="u, v ∈ [−1, 1]"),
            provenance="ours",
            note="Z, Z_k ∈ [e^{−1/τ}, e^{1/τ}]; so 0 ≤ CE − R̃ ≤ 2/τ for every k "
            "(bias_bound's k-free D(τ) < 2/τ sharpens this cap)",
        ),
        Step(
            "finite-k bias term min(C(τ)/k, D(τ))",
            sp.Function("B")(tau, k),
            bs,
            kind="definition",
            domain=_FULL,
            provenance="ours",
            note=f"C(τ)/k from `{shows['finite_k_bias']}`; one-sided: 0 ≤ CE − R̃",
        ),
        Step(
            "finite-k bias is O(1/k): k × C(τ)/k is independent of k",
            Shown(
                sp.diff(sp.simplify(k * bias_term_uncapped()), k),
                r"\frac{\partial}{\partial k}\left(k \cdot \frac{C(\tau)}{k}\right)",
                "∂(k · C(τ)/k)/∂k",
            ),
            0,
            domain=_FULL,
            provenance="ours",
        ),
        Step(
            "Theorem 1 (ours, DCL loss): w.p. ≥ 1 − δ, CE − R̂_n ≤ SV + 2·Rad_n + C(τ)/k",
            sp.Function("bound")(tau, gamma, k, n, delta, L, p, R),
            total,
            kind="definition",
            domain=_FULL_B,
            provenance="ours",
            note="InfoNCE ℓ (14): R̂_n is the paper's (1) and SV its width's (next step)",
        ),
        Step(
            "Theorem 1 (ours, InfoNCE ℓ (14)): w.p. ≥ 1 − δ, CE − R̂_n ≤ SV_ℓ + 2·Rad_n + C(τ)/k, R̂_n the paper's (1)",
            sp.Function("bound_infonce")(tau, gamma, k, n, delta, L, p, R),
            sample_variability("infonce") + cx + bs,
            kind="definition",
            domain=_FULL_B,
            provenance="ours",
            note="R ≥ R̃ (loss: ℓ − ℓ̃ ≥ 0), so CE − R ≤ CE − R̃ ≤ C(τ)/k; the complexity bound carries over by "
            "the softplus step; the range is that of ℓ (14); standard loss: R̂_n = R̂_std − log k",
        ),
    ]
    steps += _chains(cx, bs) + _trivial_steps()
    from .catalogue import MODULES  # only depend on results the catalogue registers before this one

    before = MODULES[: MODULES.index("theorem")] if "theorem" in MODULES else MODULES
    depends = ("loss",) + tuple(
        name
        for name, mod in ((shows["finite_k_bias"], "bias_bound"), (shows["complexity"], "rademacher"))
        if mod in before
    )
    return steps, depends


__all__ = [
    "LOSSES",
    "PAPER_CLAIMS",
    "RATES",
    "Term",
    "bias_term",
    "complexity_direct_term",
    "complexity_max_term",
    "complexity_term",
    "derivations",
    "loss_range",
    "sample_variability",
    "theorem_expr",
    "theorem_terms",
    "trivial_bound",
]
