"""Lemma 2 (appendix A): for k ≥ 1, b, c > 0 and i.i.d. X, X_1, …, X_k valued in [−c, c],

    −log(1 + e^c/(bk)) ≤ log(b E e^X) − E log(1/k + (b/k) Σ_j e^{X_j}) ≤ (e^{2c} − 1)²/(8k).

The printed proof (second-order Taylor expansion of f(y) = log(1/k + y) about bμ, Popoviciu's
inequality, Jensen) is transcribed step by step, each checked: scalar steps symbolically or by
certified interval arithmetic, expectations over the k draws on exact finite laws of X
(``_laws.law_check``). Every printed step holds.

Ours (beside it): dropping the 1/k inside the log only increases the middle term, which is then
log μ − E log μ̂, bounded by derivation ``bias_bound``: the middle is at most C(1/c)/k with
C(τ) = (e^{2/τ} − 1)·min(0.2163, (1 + 1/(3τ))/(4τ)) (``derivations.bias.bias_constant``), i.e.
(e^{2c} − 1)·min(0.2163, c(1 + c/3)/4)/k, against the paper's (e^{2c} − 1)²/(8k). The comparison of
the two constants is registered under Proposition 1 (``prop1_upper``), which is Lemma 2 at c = 1/τ.
"""

from __future__ import annotations

import math
import random
from typing import Any

import sympy as sp

from ..bias import bias_constant
from ..bias_forms import BiasGap
from ..ledger import Derivation, Domain, Link, Step
from ..render import printed
from ..symbols import TAU_MAX, TAU_MIN, Z, b, c_X, j, k, s, t, tau, u, x, y
from ._laws import DRAWS, Expect, Law, bias_gap, expect, expectation_route, fmin, law_check, mu, mu_hat, var_w

POSITION = ("A", 2)

#: c ranges over [1/τ_max, 1/τ_min] = [1/100, 1000]: Lemma 2 is applied with c = 1/τ
C_RANGE = Domain({c_X: (1 / TAU_MAX, 1 / TAU_MIN)}, name="c ∈ [1e-2, 1e3]")
_B = Domain({b: (sp.Rational(1, 10**6), 10**6)}, name="b ∈ [1e-6, 1e6]")
_K = Domain({k: (1, sp.oo)}, name="k ≥ 1")
_LAW = C_RANGE | _B | _K
_Z = Domain({Z: (0, sp.oo)}, name="Z = μ > 0")

# placeholders for expectations over the law of X (evaluated exactly by the law checker)
Middle = sp.Function("L2_middle")  #: log(b E e^X) − E log(1/k + b μ̂)
EfHat = sp.Function("E_f_b_mu_hat")  #: E f(b μ̂)
SecondMoment = sp.Function("E_sq_mu_hat_minus_mu")  #: E(μ̂ − μ)²
VarExp = sp.Function("Var_e_X")  #: Var e^X

# the same quantities as expectations over the draws X_j = c·s_j, s_j ∈ [−1, 1] (route "expectation")
E_X1 = sp.exp(c_X * s[1])  #: e^{X_1}
MU_X = Expect(E_X1)  #: μ = E e^X
MU_HAT_X = sp.Sum(sp.exp(c_X * s[j]), (j, 1, k)) / k  #: μ̂ = k⁻¹Σ_j e^{X_j}
X_BOUNDS = {E_X1: (sp.exp(-c_X), sp.exp(c_X))}
_v = sp.Symbol("v", positive=True)
_LOG_GAP = sp.Function("log_mu_minus_E_log_mu_hat")  #: log μ − E log μ̂ (bias_bound's CE − R̃ at τ = 1/c)
DEFS = {
    Middle(b, c_X, k): sp.log(b * MU_X) - Expect(sp.log(1 / k + b * MU_HAT_X)),
    EfHat(b, k): Expect(sp.log(1 / k + b * MU_HAT_X)),
    SecondMoment(c_X, k): Expect((MU_HAT_X - MU_X) ** 2),
    VarExp(c_X): Expect((E_X1 - MU_X) ** 2),
    _LOG_GAP(c_X, k): sp.log(MU_X) - Expect(sp.log(MU_HAT_X)),
    Z: MU_X,
}
_LAWD = _LAW | DRAWS

#: Lemma 2's constants: paper (e^{2c} − 1)²/8, ours C(1/c)
PAPER_UPPER = (sp.exp(2 * c_X) - 1) ** 2 / 8
PAPER_LOWER = -sp.log(1 + sp.exp(c_X) / (b * k))


def _f(y_: Any) -> sp.Expr:
    """f(y) = log(1/k + y), the function of Lemma 2's Taylor expansion."""
    return sp.log(1 / k + y_)


#: f(bμ̂) − f(bμ) − f'(bμ)b(μ̂ − μ) + e^{2c}(μ̂ − μ)²/2 ≥ 0: the Taylor step's integrand (its linear term has mean 0)
_TAYLOR_INTEGRAND = (
    _f(b * MU_HAT_X)
    - _f(b * MU_X)
    - b * (MU_HAT_X - MU_X) / (1 / k + b * MU_X)
    + sp.exp(2 * c_X) * (MU_HAT_X - MU_X) ** 2 / 2
)


def _popoviciu(extra: sp.Expr) -> dict:
    """The remainder rule after the Taylor integrand: ``extra`` + e^{2c}/(2k)·[(e^c − e^{−c})²/4 − Var e^X] ≥ 0 by
    Popoviciu, (M − m)²/4 − Var W = E[(M − W)(W − m)] + (E W − (M + m)/2)², W = e^X ∈ [m, M] = [e^{−c}, e^c];
    ``extra`` (a function of μ, ≥ 0) stays in the remainder."""
    coef = sp.exp(2 * c_X) / (2 * k)
    return {
        "rule": "pointwise",
        "integrand": coef * (sp.exp(c_X) - E_X1) * (E_X1 - sp.exp(-c_X)),
        "remainder": extra + coef * (MU_X - sp.cosh(c_X)) ** 2,
    }


#: upper − middle − E[Taylor integrand] − e^{2c}/(2k)·[(e^c − e^{−c})²/4 − Var] = f(bμ) − log(bμ) ≥ 0 ((21))
_UPPER_EXTRA = sp.log(1 / k + b * MU_X) - sp.log(b * MU_X)


def ours_upper(c_: Any = c_X) -> sp.Expr:
    """C(1/c) = (e^{2c} − 1)·min(0.2163, c(1 + c/3)/4): k × the middle of Lemma 2 is at most this; c > 0."""
    return bias_constant(1 / sp.sympify(c_))


def _ours_upper_links() -> list[Link]:
    """middle ≤ log μ − E log μ̂ (the step before), then bias_bound's C(τ)/k at τ = 1/c: its CE − R̃ there is
    log E e^{cs} − E log k⁻¹Σ_j e^{cs_j}, this module's log μ − E log μ̂."""
    return [
        Link(Middle(b, c_X, k), _LOG_GAP(c_X, k), cite="lemma2 / ours: middle ≤ log μ − E log μ̂"),
        Link(
            _LOG_GAP(c_X, k),
            ours_upper() / k,
            cite="bias_bound / C(τ)/k bound",
            subs={BiasGap(tau, k): _LOG_GAP(c_X, k), tau: 1 / c_X},
        ),
    ]


def _extra_b(rng: random.Random, tv: float) -> dict:
    """b log-uniform over e^{±(c + 3)} (capped at e^{±600}): the lower bound is tight for small b, the upper for large b."""
    c_ = 1 / tv
    e_ = min(c_ + 3, 600.0)  # b itself must be a float
    return {"b": math.exp(rng.uniform(-e_, e_))}


def _ef(L: Any, law: Law) -> Any:
    """E f(bμ̂) = E log(1/k + bμ̂)."""
    bb, kk = law.extra["b"], law.k
    return expect(L, law, lambda cnt: L.log(1 / (kk + 0 * bb) + bb * mu_hat(L, law, cnt)))


def _fmu(L: Any, law: Law) -> Any:
    bb, kk = law.extra["b"], law.k
    return L.log(1 / (kk + 0 * bb) + bb * mu(L, law))


def _middle(L: Any, law: Law) -> Any:
    return L.log(law.extra["b"] * mu(L, law)) - _ef(L, law)


def _second_moment(L: Any, law: Law) -> Any:
    m_ = mu(L, law)
    return expect(L, law, lambda cnt: (mu_hat(L, law, cnt) - m_) ** 2)


def _paper_upper_num(L: Any, law: Law) -> Any:
    return (L.exp(2 / law.tau) - 1) ** 2 / (8 * law.k)


def _ours_upper_num(L: Any, law: Law) -> Any:
    tv = law.tau
    rho = L.exp(2 / tv)
    ca = 0.2163 if L is math else L.mpf(2163) / 10000
    return (rho - 1) * fmin(ca, (1 + 1 / (3 * tv)) / (4 * tv)) / law.k


def _taylor_line(L: Any, lw: Law) -> tuple[Any, Any]:
    """(f(bμ) − e^{2c}E(μ̂ − μ)²/2, E f(bμ̂)): the Taylor step in expectation on one law."""
    return _fmu(L, lw) - L.exp(2 / lw.tau) * _second_moment(L, lw) / 2, _ef(L, lw)


def _taylor_route(attack: Any, extra: Any = None) -> tuple[str, dict]:
    """Route "expectation", rule "pointwise", integrand ``_TAYLOR_INTEGRAND`` (≥ 0 by route "taylor": ∂²/∂μ̂² =
    e^{2c} − b²/(1/k + bμ̂)² ≥ 0 as μ̂ ≥ e^{−c}, zero along μ̂ = μ; its linear term has mean 0, E μ̂ = μ). With
    ``extra`` (a function of μ, ≥ 0; 0 for none) the remainder ``extra`` + e^{2c}/(2k)·[(e^c − e^{−c})²/4 − Var] goes
    to Popoviciu's integrand (``_popoviciu``): (22) and the upper bound, (20)–(22) of the proof in one route."""
    more = {} if extra is None else {"then": _popoviciu(sp.sympify(extra))}
    return expectation_route(
        "pointwise", attack, defs=DEFS, bounds=X_BOUNDS, integrand=_TAYLOR_INTEGRAND, scalar_route="taylor", **more
    )


def _rel_identity(lhs, rhs):
    """A claim ``|lhs − rhs|/μ² ≤ 0`` for an identity between two second-moment law quantities."""

    def claim(L: Any, lw: Law) -> tuple[Any, Any]:
        return abs(lhs(L, lw) - rhs(L, lw)) / mu(L, lw) ** 2, 0 * lw.tau

    return claim


#: near-extremal laws: two-point ±1 laws at small c (large τ), large b (the 1/k term negligible)
SEEDS = tuple(Law(tv, 12, [1.0, -1.0], [0.5, 0.5], None, {"b": 1e6}) for tv in (100.0, 30.0, 10.0, 3.0, 1.0))


def _law(claim, reason: str, **kw) -> Any:
    """Law checker over X = s/τ, c = 1/τ (so X ∈ [−c, c]), with b sampled as in ``_extra_b``."""
    return law_check(claim, reason, extra=_extra_b, seeds=SEEDS, **kw)


def _lemma2() -> Derivation:
    ec = sp.exp(c_X)
    steps = [
        Step(
            "statement, lower bound",
            Middle(b, c_X, k),
            PAPER_LOWER,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="Lemma 2",
            domain=_LAWD,
            # (20)–(21) with Jensen: middle − lower = [f(bμ) − E f(bμ̂)] + [log(bμ) − f(bμ) + log(1 + e^c/(bk))]
            route=expectation_route(
                "jensen",
                _law(
                    lambda L, lw: (-L.log(1 + L.exp(1 / lw.tau) / (lw.extra["b"] * lw.k)), _middle(L, lw)),
                    "as printed",
                ),
                defs=DEFS,
                phi=sp.Lambda(_v, sp.log(1 / k + b * _v)),
                inner=MU_HAT_X,
                bounds=X_BOUNDS,
                # log(bμ) − f(bμ) + log(1 + e^c/(bk)) written as log(1 + e^c(μ − e^{−c})/(bkμ + 1)), μ ≥ e^{−c}
                remainder=sp.log(1 + ec * (MU_X - 1 / ec) / (b * k * MU_X + 1)),
            ),
        ),
        Step(
            "statement, upper bound",
            Middle(b, c_X, k),
            PAPER_UPPER / k,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="Lemma 2",
            domain=_LAWD,
            route=_taylor_route(
                _law(lambda L, lw: (_middle(L, lw), _paper_upper_num(L, lw)), "as printed"), _UPPER_EXTRA
            ),
        ),
        Step(
            "μ, μ̂ ≤ e^c",
            sp.exp(c_X * x),
            ec,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Lemma 2: μ̂, μ ∈ [e^{−c}, e^c]",
            domain=C_RANGE | Domain({x: (-1, 1)}),
            note="e^X with X = c·x, x ∈ [−1, 1]; μ and μ̂ are averages of such values",
        ),
        Step(
            "μ, μ̂ ≥ e^{−c}",
            sp.exp(c_X * x),
            1 / ec,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="proof of Lemma 2: μ̂, μ ∈ [e^{−c}, e^c]",
            domain=C_RANGE | Domain({x: (-1, 1)}),
        ),
        Step(
            "(20) decomposition",
            sp.log(b * Z) - x,
            # (20): log(bμ) − f(bμ) + f(bμ) − E f(bμ̂), f(y) = log(1/k + y), in the proof's order of terms
            printed(
                sp.Add(sp.log(b * Z), -sp.log(1 / k + b * Z), sp.log(1 / k + b * Z), -x, evaluate=False),
                (sp.log(b * Z) - sp.log(1 / k + b * Z)) + (sp.log(1 / k + b * Z) - x),
            ),
            kind="identity",
            provenance="paper",
            reference="(20)",
            domain=_B | _K | Domain({Z: (sp.Rational(1, 10**6), 10**6), x: (-100, 100)}),
            note="x stands for E f(bμ̂): the identity holds for any value of it",
        ),
        Step(
            "(21) first difference ≤ 0",
            sp.log(b * Z) - sp.log(1 / k + b * Z),
            0,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="(21)",
            domain=_B | _K | _Z,
        ),
        Step(
            "(21) factorisation",
            sp.log(1 / k + b * Z),
            sp.log(b * Z * (1 + 1 / (k * b * Z))),
            kind="identity",
            provenance="paper",
            reference="(21)",
            domain=_B | _K | Domain({Z: (sp.Rational(1, 10**6), 10**6)}),
        ),
        Step(
            "(21) first difference ≥ −log(1 + e^c/(bk))",
            -sp.log(1 + 1 / (k * b * sp.exp(c_X * x))),
            PAPER_LOWER,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="(21), with μ = e^{c x} ≥ e^{−c}",
            domain=C_RANGE | _B | _K | Domain({x: (-1, 1)}),
        ),
        Step(
            "Taylor: f''(y) = −1/(1/k + y)²",
            printed(sp.Derivative(sp.log(1 / k + y), (y, 2)), sp.diff(sp.log(1 / k + y), y, 2)),
            -1 / (1 / k + y) ** 2,
            kind="identity",
            provenance="paper",
            reference="proof of Lemma 2, Taylor expansion of f about bμ (Lagrange remainder)",
            domain=_K | Domain({y: (0, 10**6)}),
        ),
        Step(
            "remainder coefficient ≤ (b/ξ)²",
            b**2 / (1 / k + b * sp.exp(c_X * t)) ** 2,
            sp.exp(-2 * c_X * t),
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Lemma 2: b²/(2(1/k + ξ)²) ≤ 1/(2e^{−2c}) for ξ ∈ [be^{−c}, be^c], first half",
            domain=C_RANGE | _B | _K | Domain({t: (-1, 1)}),
            certificate=(1 / k**2 + 2 * b * sp.exp(c_X * t) / k)
            * sp.exp(-2 * c_X * t)
            / (1 / k + b * sp.exp(c_X * t)) ** 2,
            note="ξ = b e^{c t}, t ∈ [−1, 1]; 1/k ≥ 0 only shrinks the ratio",
        ),
        Step(
            "remainder coefficient ≤ e^{2c}",
            sp.exp(-2 * c_X * t),
            sp.exp(2 * c_X),
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Lemma 2, second half: ξ ≥ be^{−c}",
            domain=C_RANGE | Domain({t: (-1, 1)}),
            note="tight at t = −1 (ξ = be^{−c}) as k → ∞",
        ),
        Step(
            "E f(bμ̂) ≥ f(bμ) − e^{2c} E(μ̂ − μ)²/2",
            EfHat(b, k),
            sp.log(1 / k + b * Z) - sp.exp(2 * c_X) * SecondMoment(c_X, k) / 2,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="proof of Lemma 2, using E μ̂ = μ",
            domain=_LAWD | Domain({Z: (0, sp.oo)}),
            route=_taylor_route(_law(_taylor_line, "the Taylor line in expectation (the linear term has mean 0)")),
        ),
        Step(
            "E(μ̂ − μ)² = Var(e^X)/k",
            SecondMoment(c_X, k),
            VarExp(c_X) / k,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Lemma 2 (i.i.d. draws)",
            domain=_LAWD,
            route=expectation_route(
                "moments",
                _law(
                    _rel_identity(_second_moment, lambda L, lw: var_w(L, lw) / lw.k),
                    "equality checked as |E(μ̂ − μ)² − Var/k|/μ² ≤ 0 (50-digit confirmation of any excess)",
                ),
                defs=DEFS,
            ),
        ),
        Step(
            "Popoviciu: Var(e^X) ≤ (e^c − e^{−c})²/4",
            VarExp(c_X),
            (ec - 1 / ec) ** 2 / 4,
            kind="inequality",
            relation="<=",
            provenance="classical",
            reference="Popoviciu, Mathematica (Cluj) 9 (1935) 129–145",
            domain=_LAWD,
            # Var Y = E[(e^c − Y)(Y − e^{−c})] ... : (b−a)²/4 − Var Y = E[(b − Y)(Y − a)] + (E Y − (a + b)/2)²
            route=expectation_route(
                "pointwise",
                _law(lambda L, lw: (var_w(L, lw), (L.exp(1 / lw.tau) - L.exp(-1 / lw.tau)) ** 2 / 4), "as printed"),
                defs=DEFS,
                integrand=(ec - E_X1) * (E_X1 - 1 / ec),
                remainder=(MU_X - sp.cosh(c_X)) ** 2,
                bounds=X_BOUNDS,
            ),
        ),
        Step(
            "Jensen: E f(bμ̂) ≤ f(bμ)",
            EfHat(b, k),
            sp.log(1 / k + b * Z),
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Lemma 2 (concavity of f)",
            domain=_LAWD | Domain({Z: (0, sp.oo)}),
            route=expectation_route(
                "jensen",
                _law(lambda L, lw: (_ef(L, lw), _fmu(L, lw)), "concave f, E μ̂ = μ"),
                defs=DEFS,
                phi=sp.Lambda(_v, sp.log(1 / k + b * _v)),
                inner=MU_HAT_X,
                bounds=X_BOUNDS,
            ),
        ),
        Step(
            "(22) constant",
            sp.exp(2 * c_X) / 2 * (ec - 1 / ec) ** 2 / (4 * k),
            PAPER_UPPER / k,
            kind="identity",
            provenance="paper",
            reference="(22)",
            domain=C_RANGE | _K,
        ),
        Step(
            "(22) second difference",
            sp.log(1 / k + b * Z) - EfHat(b, k),
            PAPER_UPPER / k,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="(22)",
            domain=_LAWD | _Z,
            route=_taylor_route(
                _law(lambda L, lw: (_fmu(L, lw) - _ef(L, lw), _paper_upper_num(L, lw)), "the steps above"), 0
            ),
        ),
        # --- ours: drop the 1/k and use derivation bias_bound
        Step(
            "f(y) ≥ log y",
            sp.log(1 / k + u),
            sp.log(u),
            kind="inequality",
            relation=">=",
            domain=_K | Domain({u: (sp.Rational(1, 10**6), 10**6)}),
            note="so the middle is at most log μ − E log μ̂ = one anchor's CE − R̃ (bias_bound)",
        ),
        Step(
            "ours: middle ≤ log μ − E log μ̂",
            Middle(b, c_X, k),
            sp.Function("log_mu_minus_E_log_mu_hat")(c_X, k),
            kind="inequality",
            relation="<=",
            domain=_LAWD,
            route=expectation_route(
                "pointwise",
                _law(lambda L, lw: (_middle(L, lw), bias_gap(L, lw)), "f(y) ≥ log y inside the expectation"),
                defs=DEFS,
                integrand=sp.log(1 / k + b * MU_HAT_X) - sp.log(b * MU_HAT_X),
                bounds=X_BOUNDS,
            ),
        ),
        Step(
            "ours: upper bound C(1/c)/k",
            Middle(b, c_X, k),
            ours_upper() / k,
            kind="chain",
            relation="<=",
            domain=_LAW,
            links=_ours_upper_links(),
            note="(e^{2c} − 1)·min(0.2163, c(1 + c/3)/4)/k; compared with the paper's constant in prop1",
        ),
    ]
    return Derivation(
        "lemma2",
        "Lemma 2: the bias inequality (second-order Taylor and Popoviciu)",
        steps,
        result="statement, upper bound",
        source="paper",
        depends_on=("bias_bound",),
        paper_claim="−log(1 + e^c/(bk)) ≤ log(bE[e^X]) − E log(1/k + (b/k)Σ e^{X_j}) ≤ (e^{2c} − 1)²/(8k)",
        summary="Every printed step holds. Ours: the middle is at most (e^{2c} − 1)·min(0.2163, c(1 + c/3)/4)/k.",
    )


def derivations() -> list[Derivation]:
    return [_lemma2()]
