"""Lemma 3 (appendix A): for ν ≪ π, f: Z → [−1, 1], m ≥ 1 and ξ_1, …, ξ_m i.i.d. π, with w = dν/dπ,

    |E[Σ_j f(ξ_j) w(ξ_j) / Σ_j w(ξ_j)] − E_ν f| ≤ (4/m) E_π[w²].

Printed proof: A = m⁻¹ Σ w_j (f_j − E_ν f), B = m⁻¹ Σ w_j, 1/B = 2 − B + (B − 1)²/B, E A = 0, so
E[A/B] = −E[AB] + E[(A/B)(B − 1)²] (23); |E AB| ≤ 2E_π w²/m (24); |A| ≤ 2B gives
|E[(A/B)(B − 1)²]| ≤ 2E(B − 1)² = 2E_π(w − 1)²/m ≤ 2E_π w²/m (25). Every step holds.

Erratum (undefined quantity): under the stated hypothesis ν ≪ π only, w may vanish on a set of positive
π-mass, and then Σ_j w(ξ_j) = 0 with probability π(w = 0)^m > 0: the ratio (and A/B) is undefined there.
The lemma needs π(w = 0) = 0 (ν ~ π) or a convention on {B = 0}; with the convention ratio := E_ν f
there (no error on that event) the bound still holds (checked on exact laws with zero densities).

Proved (route "expectation" and chains): (23) in expectation and (25)'s first inequality with the convention
ratio := E_ν f (A/B := 0) on {Σ_j w_j = 0} (a weighted mean of values in [−2, 2], or its convention 0, lies in
[−2, 2]), and (25) under ν ~ π stated (w > 0); so the statement with the convention is proved as the chain
(23) → triangle → (24) + (25) → E(B − 1)² = (E_π w² − 1)/m. As printed (ν ≪ π only) the statement and (25) stay
unproved: the ratio is undefined with positive probability (the erratum).

Ours: E_π[w(f − E_ν f)] = 0 turns the AB term into E_π[w(w − 1)(f − E_ν f)]/m, and Cauchy–Schwarz gives

    |E[ratio] − E_ν f| ≤ (2√(s(s − 1)) + 2(s − 1))/m,   s = E_π[w²] ≥ 1   (ratio := E_ν f on {Σ w = 0}),

which vanishes at ν = π (where the error is 0) and is ≤ 4s/m (ratio → 1 as s → ∞: no gain in the
leading coefficient for heavy-tailed densities).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..ledger import Derivation, Domain, Link, Step
from ..render import printed
from ..symbols import A_L3, B_L3, Ew2, j, k, s, t, x, y
from . import Erratum, PaperConstant
from ._laws import ARRAY, Expect, Law, expect, expectation_route, fmax, law_check

#: the density draws w_j = (dν/dπ)(ξ_j) ≥ 0: nonnegative only (the shared ``symbols.w`` is declared positive, which
#: would assume ν ~ π silently: Σ_j w_j > 0 and a convention on {Σ_j w_j = 0} must be stated where they are used)
w = sp.IndexedBase("w", nonnegative=True)

POSITION = (3, 2, 3)  # appendix A; registered before Prop. 2, whose proof (and ours' chain) cites it

PAPER_CONST = 4 * Ew2  #: m × the bound, as printed
OURS_CONST = 2 * sp.sqrt(Ew2 * (Ew2 - 1)) + 2 * (Ew2 - 1)
_S = Domain({Ew2: (1, sp.oo)}, name="s = E_π w² ≥ 1")
#: m is the number of draws; it is k when Lemma 3 is applied in Proposition 2
_LAW = Domain({k: (1, sp.oo)}, name="finite laws of (f, w), m = k ≥ 1") | _S

Err = sp.Function("SNIS_error")  #: E[Σ f w/Σ w] − E_ν f
EAB = sp.Function("E_AB")
ETail = sp.Function("E_A_over_B_times_B_minus_1_sq")
EBm1 = sp.Function("E_B_minus_1_sq")

# the same quantities as expectations over the draws (f_j, w_j) = (s_j, w_j) of ξ_j ~ π (route "expectation"):
# E_ν f = E_π[w f], A = m⁻¹Σ_j w_j(f_j − E_ν f), B = m⁻¹Σ_j w_j; the density w = dν/dπ has E_π w = 1
NU_F = Expect(w[1] * s[1])
A_SUM = sp.Sum(w[j] * (s[j] - NU_F), (j, 1, k)) / k
B_SUM = sp.Sum(w[j], (j, 1, k)) / k
DENSITY = {Expect(w[1]): 1}  #: ∫ dν/dπ dπ = 1
DEFS = {
    sp.Function("E_A")(k): Expect(A_SUM),
    EAB(k): Expect(A_SUM * B_SUM),
    EBm1(k): Expect((B_SUM - 1) ** 2),
    sp.Function("diag_term")(k): Expect(w[1] ** 2 * (s[1] - NU_F)) / k,
    sp.Function("diag_term_centred")(k): Expect(w[1] * (w[1] - 1) * (s[1] - NU_F)) / k,
    Ew2: Expect(w[1] ** 2),
}
_DRAWS = Domain({s: (-1, 1), w: (0, sp.oo)}, name="f(ξ_j) ∈ [−1, 1], w(ξ_j) ≥ 0")

# the self-normalised ratio and A/B as weighted means over the draws: as printed (defined only where Σ_j w_j > 0,
# which ν ≪ π does not give: the erratum), and with our convention on {Σ_j w_j = 0}: ratio := E_ν f, so A/B := 0
W_SUM = sp.Sum(w[j], (j, 1, k))
RATIO_CONV = sp.Piecewise((sp.Sum(w[j] * s[j], (j, 1, k)) / W_SUM, W_SUM > 0), (NU_F, True))
A_OVER_B = sp.Sum(w[j] * (s[j] - NU_F), (j, 1, k)) / W_SUM  #: (A/B), the 1/m factors cancelled
A_OVER_B_CONV = sp.Piecewise((A_OVER_B, W_SUM > 0), (0, True))
_P, _Q = sp.symbols("p q", real=True)  #: the triangle inequality's two reals
ErrC = sp.Function("SNIS_error_c")  #: E[ratio] − E_ν f with ratio := E_ν f on {Σ w = 0}
ETailC = sp.Function("E_A_over_B_c_times_B_minus_1_sq")  #: E[(A/B)(B − 1)²] with A/B := 0 on {Σ w = 0}
DEFS[ETail(k)] = Expect(A_OVER_B * (B_SUM - 1) ** 2)
DEFS[Err(k)] = Expect(sp.Sum(w[j] * s[j], (j, 1, k)) / W_SUM - NU_F)  #: as printed: defined where Σ_j w_j > 0
DEFS[ErrC(k)] = Expect(RATIO_CONV - NU_F)
DEFS[ETailC(k)] = Expect(A_OVER_B_CONV * (B_SUM - 1) ** 2)


#: per-draw bounds: |w f| ≤ w (so |E_ν f| = |E_π[w f]| ≤ E_π w = 1), w² ≥ 2w − 1 (so E_π w² ≥ 1)
_W1, _F1 = w[1], s[1]
BOUNDS = {_W1 * _F1: (-_W1, _W1), _W1**2: (2 * _W1 - 1, sp.oo)}


def _abs_route(attack: Any) -> tuple[str, dict]:
    """(24): |E AB| = |m⁻¹E_π[w²(f − E_ν f)]| ≤ 2E_π w²/m, each sign by monotonicity of expectation with
    |f − E_ν f| ≤ 2 (f ∈ [−1, 1], E_ν f ∈ [−1, 1] from |w f| ≤ w and E_π w = 1)."""
    return expectation_route(
        "abs",
        attack,
        defs=DEFS,
        facts=DENSITY,
        bounds=BOUNDS,
        then=[
            {"rule": "pointwise", "integrand": _W1**2 * (2 - _F1 + NU_F) / k},
            {"rule": "pointwise", "integrand": _W1**2 * (2 + _F1 - NU_F) / k},
        ],
    )


def _cs_route(attack: Any) -> tuple[str, dict]:
    """Ours: |E AB| = m⁻¹|E_π[w(f − E_ν f)·(w − 1)]| ≤ m⁻¹(E_π[w²(f − E_ν f)²] E_π(w − 1)²)^{1/2} (Cauchy–Schwarz),
    then (f − E_ν f)² ≤ 4 by monotonicity of expectation (E_π(w − 1)² = E_π w² − 1 ≥ 0 a constant factor)."""
    return expectation_route(
        "cauchy_schwarz",
        attack,
        defs=DEFS,
        facts=DENSITY,
        bounds=BOUNDS,
        x=_W1 * (_F1 - NU_F),
        y=_W1 - 1,
        then={"rule": "pointwise", "integrand": (Expect(_W1**2) - 1) * _W1**2 * (4 - (_F1 - NU_F) ** 2) / k**2},
    )


def _cs_claim(L: Any, lw: Law) -> tuple[Any, Any]:
    """(|E AB|, 2(E_π w²(E_π w² − 1))^{1/2}/m) of the law: ours' Cauchy–Schwarz step, attacked."""
    return abs(_e_ab(L, lw)), 2 * L.sqrt(fmax(ew2(L, lw) * (ew2(L, lw) - 1), 0 * lw.tau)) / lw.k


def _tail_route(attack: Any, a_over_b: Any) -> tuple[str, dict]:
    """(25)'s first inequality |E[(A/B)(B − 1)²]| ≤ 2E(B − 1)²: rule "abs", then monotonicity of expectation with
    the integrands (2 ∓ A/B)(B − 1)² ≥ 0, A/B a weighted mean of the values f_j − E_ν f ∈ [−2, 2] (the weighted-mean
    rule of the pointwise scalarisation: it needs Σ_j w_j > 0 on every sample, or the convention on {Σ_j w_j = 0})."""
    tail = a_over_b * (B_SUM - 1) ** 2
    return expectation_route(
        "abs",
        attack,
        defs=DEFS,
        facts=DENSITY,
        bounds={**BOUNDS, _W1: (0, sp.oo)},
        then=[
            {"rule": "pointwise", "integrand": 2 * (B_SUM - 1) ** 2 - tail},
            {"rule": "pointwise", "integrand": 2 * (B_SUM - 1) ** 2 + tail},
        ],
    )


def _moments(attack: Any) -> tuple[str, dict]:
    """Route "expectation", rule "moments", with the density fact E_π w = 1 and the law check beside."""
    return expectation_route("moments", attack, defs=DEFS, facts=DENSITY)


# --------------------------------------------------------------------------- law quantities
def _nu_f(L: Any, lw: Law) -> Any:
    return sum(p_ * w_ * f_ for p_, w_, f_ in zip(lw.probs, lw.dens, lw.sims))


def ew2(L: Any, lw: Law) -> Any:
    return sum(p_ * w_**2 for p_, w_ in zip(lw.probs, lw.dens))


def _ratio(L: Any, lw: Law, cnt: tuple, on_zero: Any = None) -> Any:
    den = sum(c * w_ for c, w_ in zip(cnt, lw.dens) if c)
    if L is ARRAY and on_zero is not None:  # a law batch: the convention law by law
        import numpy as np

        num = sum(c * w_ * f_ for c, w_, f_ in zip(cnt, lw.dens, lw.sims) if c)
        return np.where(den == 0, on_zero, num / np.where(den == 0, 1.0, den))
    if den == 0:
        return on_zero
    return sum(c * w_ * f_ for c, w_, f_ in zip(cnt, lw.dens, lw.sims) if c) / den


def snis_error(L: Any, lw: Law) -> Any:
    """E[Σ f w/Σ w] − E_ν f, with the ratio := E_ν f on {Σ w = 0} (no error there)."""
    nf = _nu_f(L, lw)
    return expect(L, lw, lambda cnt: _ratio(L, lw, cnt, nf)) - nf


def _ab(L: Any, lw: Law, cnt: tuple) -> tuple[Any, Any]:
    nf, m_ = _nu_f(L, lw), lw.k
    a_ = sum(c * w_ * (f_ - nf) for c, w_, f_ in zip(cnt, lw.dens, lw.sims) if c) / m_
    b_ = sum(c * w_ for c, w_ in zip(cnt, lw.dens) if c) / m_
    return a_, b_


def _e_a(L: Any, lw: Law) -> Any:
    return expect(L, lw, lambda cnt: _ab(L, lw, cnt)[0])


def _e_ab(L: Any, lw: Law) -> Any:
    return expect(L, lw, lambda cnt: _ab(L, lw, cnt)[0] * _ab(L, lw, cnt)[1])


def _diag(L: Any, lw: Law) -> Any:
    """m⁻¹ E_π[w²(f − E_ν f)]."""
    nf = _nu_f(L, lw)
    return sum(p_ * w_**2 * (f_ - nf) for p_, w_, f_ in zip(lw.probs, lw.dens, lw.sims)) / lw.k


def _diag_ours(L: Any, lw: Law) -> Any:
    """m⁻¹ E_π[w(w − 1)(f − E_ν f)]."""
    nf = _nu_f(L, lw)
    return sum(p_ * w_ * (w_ - 1) * (f_ - nf) for p_, w_, f_ in zip(lw.probs, lw.dens, lw.sims)) / lw.k


def _tail(L: Any, lw: Law) -> Any:
    def fn(cnt):
        a_, b_ = _ab(L, lw, cnt)
        return a_ / b_ * (b_ - 1) ** 2

    return expect(L, lw, fn)


def _e_bm1(L: Any, lw: Law) -> Any:
    return expect(L, lw, lambda cnt: (_ab(L, lw, cnt)[1] - 1) ** 2)


def _ours_num(L: Any, lw: Law) -> Any:
    s2 = ew2(L, lw)
    return (2 * L.sqrt(fmax(s2 * (s2 - 1), 0 * s2)) + 2 * (s2 - 1)) / lw.k


def _id(lhs, rhs):
    """|lhs − rhs|/(E_π w²) ≤ 0: an identity between law quantities, at the scale of E_π w²."""

    def claim(L: Any, lw: Law) -> tuple[Any, Any]:
        return abs(lhs(L, lw) - rhs(L, lw)) / ew2(L, lw), 0 * lw.tau

    return claim


def _law(claim, reason: str, **kw) -> Any:
    return law_check(claim, reason, with_density=True, **kw)


#: π uniform on two atoms and ν = δ at the first: w = (2, 0), so Σ_j w(ξ_j) = 0 w.p. 2^{−m}
DEGENERATE = tuple(Law(1.0, m_, [1.0, -1.0], [0.5, 0.5], [2.0, 0.0]) for m_ in (1, 4, 12))


def _p_zero(L: Any, lw: Law) -> tuple[Any, Any]:
    """(P(Σ_j w(ξ_j) = 0), 0): the probability that the self-normalised ratio is 0/0."""
    return expect(L, lw, lambda cnt: 1 if _ratio(L, lw, cnt) is None else 0), 0 * lw.tau


def _tail_c(L: Any, lw: Law) -> Any:
    """E[(A/B)(B − 1)²] with A/B := 0 on {Σ w = 0}."""

    def fn(cnt):
        a_, b_ = _ab(L, lw, cnt)
        if L is ARRAY:
            import numpy as np

            return np.where(b_ == 0, 0.0, a_ / np.where(b_ == 0, 1.0, b_) * (b_ - 1) ** 2)
        return 0 * lw.tau if b_ == 0 else a_ / b_ * (b_ - 1) ** 2

    return expect(L, lw, fn)


def _err_c_abs(L: Any, lw: Law) -> Any:
    return abs(snis_error(L, lw))


#: ν ~ π stated: every draw's density w_j > 0 (the hypothesis the printed proof uses when it divides by B)
_POSITIVE = Domain({s: (-1, 1), w: (0, sp.oo)}, (w.label > 0,), name="f(ξ_j) ∈ [−1, 1], w(ξ_j) > 0 (ν ~ π)")
_S_LE = "(25) E_π(w − 1)² ≤ E_π w²"
_TRI = "ours: triangle inequality |q − p| ≤ |p| + |q|"


def _BND(ab_bound: Any) -> Any:  # noqa: N802 - the chain's running bound 2E(B − 1)² → 2(E_π w² − 1)/m + ab_bound
    # 2·(E_π w² − 1)/m as one product (not distributed): the link citing E(B − 1)² = (E_π w² − 1)/m with factor 2
    # is then the cited gap's tree itself
    return sp.Mul(2, Ew2 - 1, 1 / k) + ab_bound


def _chain(ab_bound: Any, ab_step: str, tail: list, positive: bool = False) -> list:
    """|E[ratio] − E_ν f| (ratio := E_ν f on {Σ w = 0}) = |E[(A/B)(B − 1)²] − E AB| ≤ |E AB| + |E[(A/B)(B − 1)²]|
    ≤ ab_bound + 2E(B − 1)² = ab_bound + 2(E_π w² − 1)/m, then ``tail``: (23), the triangle inequality, the AB
    step ``ab_step`` ((24) or ours' Cauchy–Schwarz), (25) with the convention, E(B − 1)² = (E_π w² − 1)/m.
    With ``positive`` the same chain under ν ~ π stated (w > 0): the printed ratio and A/B, no convention needed."""
    err, tl = (Err(k), ETail(k)) if positive else (ErrC(k), ETailC(k))
    s23, s25 = (
        ("ours: (23) under ν ~ π (w > 0)", "ours: (25) first inequality under ν ~ π (w > 0)")
        if positive
        else ("ours: (23) with ratio := E_ν f on {Σ w = 0}", "ours: (25) first inequality with A/B := 0 on {Σ w = 0}")
    )
    return [
        Link(
            sp.Abs(err),
            sp.Abs(tl - EAB(k)),
            "=",
            cite=f"lemma3 / {s23}",
        ),
        Link(
            sp.Abs(tl - EAB(k)),
            sp.Abs(EAB(k)) + sp.Abs(tl),
            "<=",
            cite=f"lemma3 / {_TRI}",
            subs={_P: EAB(k), _Q: tl},
        ),
        Link(
            sp.Abs(EAB(k)) + sp.Abs(tl),
            ab_bound + sp.Abs(tl),
            "<=",
            cite=f"lemma3 / {ab_step}",
        ),
        Link(
            ab_bound + sp.Abs(tl),
            ab_bound + 2 * EBm1(k),
            "<=",
            cite=f"lemma3 / {s25}",
        ),
        Link(
            ab_bound + 2 * EBm1(k),
            _BND(ab_bound),
            "=",
            cite="lemma3 / (25) E(B − 1)² = E_π(w − 1)²/m",
            factor=2,
        ),
        *tail,
    ]


def _ours_steps() -> list[Step]:
    """Our steps of Lemma 3: (23)–(25) under ν ~ π or with the convention on {Σ w = 0}, the statement sharpened."""
    return [
        Step(
            "ours: (25) first inequality under ν ~ π (w > 0)",
            sp.Abs(ETail(k)),
            2 * EBm1(k),
            kind="inequality",
            relation="<=",
            domain=_LAW | _POSITIVE,
            route=_tail_route(_law(lambda L, lw: (abs(_tail(L, lw)), 2 * _e_bm1(L, lw)), "|A/B| ≤ 2"), A_OVER_B),
            note="the hypothesis the printed proof needs: w = dν/dπ > 0 on every draw, so Σ_j w_j > 0",
        ),
        Step(
            "ours: (25) first inequality with A/B := 0 on {Σ w = 0}",
            sp.Abs(ETailC(k)),
            2 * EBm1(k),
            kind="inequality",
            relation="<=",
            domain=_LAW | _DRAWS,
            route=_tail_route(
                _law(
                    lambda L, lw: (abs(_tail_c(L, lw)), 2 * _e_bm1(L, lw)),
                    "|A/B| ≤ 2, A/B := 0 where Σ w = 0",
                    zero_density=True,
                    seeds=DEGENERATE,
                ),
                A_OVER_B_CONV,
            ),
            note="ν ≪ π only: the convention (ratio := E_ν f, so A/B := 0) on the event {Σ_j w_j = 0}",
        ),
        Step(
            "ours: (23) with ratio := E_ν f on {Σ w = 0}",
            sp.Abs(ErrC(k)),
            sp.Abs(ETailC(k) - EAB(k)),
            kind="identity",
            domain=_LAW | _DRAWS,
            route=_moments(
                _law(
                    _id(_err_c_abs, lambda L, lw: abs(_tail_c(L, lw) - _e_ab(L, lw))),
                    "|E[ratio] − E_ν f| = |E[(A/B)(B − 1)²] − E AB|",
                    zero_density=True,
                    seeds=DEGENERATE,
                )
            ),
            note="pointwise A/B = 2A − AB + (A/B)(B − 1)² where Σ w > 0, and 0 = 0 where Σ w = 0 (then A = 0); E A = 0",
        ),
        Step(
            "ours: (23) under ν ~ π (w > 0)",
            sp.Abs(Err(k)),
            sp.Abs(ETail(k) - EAB(k)),
            kind="identity",
            domain=_LAW | _POSITIVE,
            route=_moments(
                _law(
                    _id(_err_c_abs, lambda L, lw: abs(_tail(L, lw) - _e_ab(L, lw))),
                    "|E[ratio] − E_ν f| = |E[(A/B)(B − 1)²] − E AB|, w > 0",
                )
            ),
            note="pointwise A/B = 2A − AB + (A/B)(B − 1)² (B > 0 on every sample as w > 0), and E A = 0",
        ),
        Step(
            "ours: triangle inequality |q − p| ≤ |p| + |q|",
            sp.Abs(_Q - _P),
            sp.Abs(_P) + sp.Abs(_Q),
            kind="inequality",
            relation="<=",
            domain=Domain({_P: (-sp.oo, sp.oo), _Q: (-sp.oo, sp.oo)}),
        ),
        Step(
            "ours: statement with ratio := E_ν f on {Σ w = 0}",
            sp.Abs(ErrC(k)),
            PAPER_CONST / k,
            kind="chain",
            relation="<=",
            domain=_LAW | _DRAWS,
            links=_chain(
                2 * Ew2 / k,
                "(24)",
                [Link(_BND(2 * Ew2 / k), PAPER_CONST / k, "<=", cite=f"lemma3 / {_S_LE}", factor=2 / k)],
            ),
            note="the convention adds no error; the bound survives (E_π w² ≥ 1/π(w > 0))",
        ),
        Step(
            "ours: AB term through E_π[w(f − E_ν f)] = 0",
            EAB(k),
            sp.Function("diag_term_centred")(k),
            kind="identity",
            domain=_LAW | _DRAWS,
            route=_moments(_law(_id(_e_ab, _diag_ours), "E AB = m⁻¹E_π[w(w − 1)(f − E_ν f)]")),
        ),
        Step(
            "ours: Cauchy–Schwarz on the AB term",
            sp.Abs(EAB(k)),
            2 * sp.sqrt(Ew2 * (Ew2 - 1)) / k,
            kind="inequality",
            relation="<=",
            domain=_LAW | _DRAWS,
            route=_cs_route(_law(_cs_claim, "|E_π[w(w − 1)(f − c)]| ≤ 2 (E_π w²)^{1/2} (E_π (w − 1)²)^{1/2}")),
        ),
        Step(
            "ours: statement",
            sp.Abs(ErrC(k)),
            OURS_CONST / k,
            kind="chain",
            relation="<=",
            domain=_LAW | _DRAWS,
            links=_chain(2 * sp.sqrt(Ew2 * (Ew2 - 1)) / k, "ours: Cauchy–Schwarz on the AB term", []),
            note="ν ≪ π, with ratio := E_ν f on {Σ w = 0} (no error there; where Σ w > 0 a.s. it is the ratio itself)",
        ),
        Step(
            "ours: statement as printed, under ν ~ π (w > 0)",
            sp.Abs(Err(k)),
            PAPER_CONST / k,
            kind="chain",
            relation="<=",
            domain=_LAW | _POSITIVE,
            links=_chain(
                2 * Ew2 / k,
                "(24)",
                [Link(_BND(2 * Ew2 / k), PAPER_CONST / k, "<=", cite=f"lemma3 / {_S_LE}", factor=2 / k)],
                positive=True,
            ),
            note="the printed statement and proof with the hypothesis they need stated (the erratum's first fix)",
        ),
        Step(
            "ours: statement under ν ~ π (w > 0)",
            sp.Abs(Err(k)),
            OURS_CONST / k,
            kind="chain",
            relation="<=",
            domain=_LAW | _POSITIVE,
            links=_chain(2 * sp.sqrt(Ew2 * (Ew2 - 1)) / k, "ours: Cauchy–Schwarz on the AB term", [], positive=True),
            note="the form Proposition 2 cites (ν = M(z, ·) with dM(z, ·)/dπ > 0 stated): the printed ratio, no convention",
        ),
        Step(
            "ours ≤ paper",
            OURS_CONST.subs(Ew2, 1 + y),
            PAPER_CONST.subs(Ew2, 1 + y),
            kind="inequality",
            relation="<=",
            domain=Domain({y: (0, 10**6)}, name="s = 1 + y, y ≥ 0"),
            certificate=2 + 2 * (1 + y) / (1 + y + sp.sqrt((1 + y) * y)),
            note="written at s = 1 + y so that SymPy sees the rationalised gap 2 + 2s/(s + √(s(s − 1))) ≥ 0; "
            "the ratio paper/ours → 1 as s → ∞ and → ∞ as s → 1",
        ),
    ]


def _lemma3() -> Derivation:
    wsum = sp.Sum(w[j], (j, 1, k))
    idx = Domain({w: (sp.Rational(1, 10**6), 10), s: (-1, 1), x: (-1, 1), k: (1, sp.oo)})
    steps = [
        Step(
            "statement",
            sp.Abs(Err(k)),
            PAPER_CONST / k,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="Lemma 3",
            domain=_LAW,
            check=_law(lambda L, lw: (abs(snis_error(L, lw)), 4 * ew2(L, lw) / lw.k), "as printed, f = s ∈ [−1, 1]"),
            unproved="a claim over every law of the draws, attacked on exact finite laws; not proved as printed: under "
            "ν ≪ π alone the ratio is 0/0 on {Σ_j w(ξ_j) = 0}, an event of positive probability when π(w = 0) > 0 (the "
            "erratum), and the proof's (25) divides by B there (its first inequality is not proved as printed); with "
            "the convention ratio := E_ν f on that event the chain (23)–(25) is proved (step 'ours: statement with "
            "ratio := E_ν f on {Σ w = 0}')",
            note="checked on laws with w > 0 everywhere; see the erratum for w = 0 on a set of positive mass",
        ),
        Step(
            "ratio − E_ν f = A/B",
            sp.Sum(w[j] * (s[j] - x), (j, 1, k)) / wsum,
            sp.Sum(w[j] * s[j], (j, 1, k)) / wsum - x,
            kind="identity",
            provenance="paper",
            reference="proof of Lemma 3 (the 1/m factors of A and B cancel)",
            domain=idx,
            note="w_j = dν/dπ(ξ_j) > 0, s_j = f(ξ_j), x = E_ν f",
        ),
        Step(
            "1/B = 2 − B + (B − 1)²/B",
            1 / B_L3,
            2 - B_L3 + (B_L3 - 1) ** 2 / B_L3,
            kind="identity",
            provenance="paper",
            reference="proof of Lemma 3",
            domain=Domain({B_L3: (sp.Rational(1, 10**6), 10**6)}),
        ),
        Step(
            "E A = 0",
            sp.Abs(sp.Function("E_A")(k)),
            0,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Lemma 3: E[w(ξ)(f(ξ) − E_ν f)] = 0",
            domain=_LAW | _DRAWS,
            route=_moments(_law(_id(_e_a, lambda L, lw: 0 * lw.tau), "|E A|/E_π w² ≤ 0")),
        ),
        Step(
            "(23) pointwise",
            A_L3 / B_L3,
            2 * A_L3 - A_L3 * B_L3 + A_L3 / B_L3 * (B_L3 - 1) ** 2,
            kind="identity",
            provenance="paper",
            reference="(23), before taking E (then E[2A] = 0)",
            domain=Domain({A_L3: (-10, 10), B_L3: (sp.Rational(1, 10**6), 10**6)}),
        ),
        Step(
            "E[AB] = m⁻² Σ_j E[w_j²(f_j − E_ν f)]",
            EAB(k),
            sp.Function("diag_term")(k),
            kind="identity",
            provenance="paper",
            reference="proof of Lemma 3: cross terms of AB have mean 0",
            domain=_LAW | _DRAWS,
            route=_moments(_law(_id(_e_ab, _diag), "|E AB − m⁻¹E_π[w²(f − E_ν f)]|/E_π w² ≤ 0")),
        ),
        Step(
            "(24)",
            sp.Abs(EAB(k)),
            2 * Ew2 / k,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="(24)",
            domain=_LAW | _DRAWS,
            route=_abs_route(_law(lambda L, lw: (abs(_e_ab(L, lw)), 2 * ew2(L, lw) / lw.k), "|f − E_ν f| ≤ 2")),
        ),
        Step(
            "|f − E_ν f| ≤ 2, so |A| ≤ 2B",
            (x - t) ** 2,
            4,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Lemma 3: 'again using |f| ≤ 1 we have |A| ≤ 2B'",
            domain=Domain({x: (-1, 1), t: (-1, 1)}),
            note="x = f(ξ_j), t = E_ν f ∈ [−1, 1]; squared so the claim is polynomial; w_j ≥ 0 then gives |A| ≤ 2B",
        ),
        Step(
            "(25) first inequality",
            sp.Abs(ETail(k)),
            2 * EBm1(k),
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="(25)",
            domain=_LAW | _DRAWS,
            route=_tail_route(_law(lambda L, lw: (abs(_tail(L, lw)), 2 * _e_bm1(L, lw)), "|A/B| ≤ 2"), A_OVER_B),
            unproved="a claim over every law of the draws, attacked on exact finite laws; the expectation route does "
            "not prove it as printed: A/B = Σ_j w_j(f_j − E_ν f)/Σ_j w_j is a weighted mean of values in [−2, 2] only "
            "where Σ_j w_j > 0, and the printed hypothesis ν ≪ π admits w = 0 on a set of positive π-mass, so "
            "Σ_j w_j = 0 (A/B undefined) with positive probability (the erratum's step 'printed hypothesis ν ≪ π "
            "keeps Σ_j w(ξ_j) > 0'); proved with ν ~ π stated (w > 0) and with the convention A/B := 0 on "
            "{Σ w = 0} (the two 'ours: (25) first inequality' steps)",
        ),
        Step(
            "(25) E(B − 1)² = E_π(w − 1)²/m",
            EBm1(k),
            (Ew2 - 1) / k,
            kind="identity",
            provenance="paper",
            reference="(25)",
            domain=_LAW | _DRAWS,
            route=_moments(
                _law(_id(_e_bm1, lambda L, lw: (ew2(L, lw) - 1) / lw.k), "E_π(w − 1)² = E_π w² − 1 as E_π w = 1")
            ),
        ),
        Step(
            "(25) E_π(w − 1)² ≤ E_π w²",
            Ew2 - 1,
            Ew2,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="(25)",
            domain=_S,
        ),
        Step(
            "triangle inequality on (23)",
            printed(sp.Add(2 * Ew2 / k, 2 * Ew2 / k, evaluate=False), 2 * Ew2 / k + 2 * Ew2 / k),  # (24) + (25)
            PAPER_CONST / k,
            kind="identity",
            provenance="paper",
            reference="proof of Lemma 3, last line",
            domain=_LAW,
        ),
        Step(
            "printed hypothesis ν ≪ π keeps Σ_j w(ξ_j) > 0",
            sp.Function("P_sum_w_zero")(k),
            0,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="Lemma 3 (hypothesis ν ≪ π; the proof divides by B)",
            domain=_LAW,
            check=_law(_p_zero, "P(Σ_j w(ξ_j) = 0) ≤ 0 on laws with π(w = 0) > 0", zero_density=True, seeds=DEGENERATE),
            expected="refuted",
            unproved="a claim over every law of the draws, attacked on exact finite laws; the expectation route does not prove it: an erratum: the law search refutes it",
            note="π uniform on two points, ν = δ at the first: P(Σ w = 0) = 2^{−m}",
        ),
        # --- ours
        *_ours_steps(),
    ]
    return Derivation(
        "lemma3",
        "Lemma 3: bias of self-normalised importance sampling",
        steps,
        result="statement",
        source="paper",
        paper_claim="|E[Σ f(ξ_j) w(ξ_j)/Σ w(ξ_j)] − E_ν f| ≤ (4/m) E_π[w²], w = dν/dπ",
        summary="Holds where the ratio is defined (π(w = 0) = 0); proved with ratio := E_ν f on {Σ w = 0}; "
        "ours: (2√(s(s − 1)) + 2(s − 1))/m, s = E_π w².",
    )


def derivations() -> list[Derivation]:
    return [_lemma3()]


ERRATA = [
    Erratum(
        location="Appendix A, Lemma 3 (and Proposition 2 through M̂_k)",
        as_printed=r"\nu \ll \pi, \quad \mathbb{E}\Big[\frac{\sum_j f(\xi_j)\frac{d\nu}{d\pi}(\xi_j)}"
        r"{\sum_j \frac{d\nu}{d\pi}(\xi_j)}\Big]",
        kind="misprint or undefined symbol",
        result="lemma3",
        printed_step="printed hypothesis ν ≪ π keeps Σ_j w(ξ_j) > 0",
        corrected_step="ours: statement with ratio := E_ν f on {Σ w = 0}",
        correction="assume π(dν/dπ = 0) = 0 (ν ~ π), or define the ratio as E_ν f on {Σ_j w(ξ_j) = 0}",
        consequence="the bound holds with either fix (proved: step 'ours: statement with ratio := E_ν f on {Σ w = 0}', "
        "and its sharpened form under ν ~ π, which Proposition 2's ours chain cites); "
        "likewise M̂_k in Proposition 2 and (12) needs Σ_j dM(z, ·)/dπ(ξ_j) > 0 a.s.",
        evidence="the ratio is 0/0 with probability π(dν/dπ = 0)^m > 0 under the stated hypothesis",
    ),
]

CONSTANTS = [
    PaperConstant(
        name="lemma3_constant",
        label="Lemma 3 constant 4·E_π[(dν/dπ)²] (times 1/m)",
        result="lemma3",
        build=lambda: (PAPER_CONST, OURS_CONST),
        proof_step="ours ≤ paper",
        attained="not attained; the AB term alone approaches 2E_π w²/m for densities spread over a small set",
        note="ours 2√(s(s − 1)) + 2(s − 1), s = E_π w²: no sharper in the leading coefficient as s → ∞ "
        "(ratio → 1); independent of τ and k",
        params=("E_w2",),
    ),
]
