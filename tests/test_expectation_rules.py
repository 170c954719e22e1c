"""The classical rules of route "expectation" (``checks/expectation_rules.py``): Cauchy–Schwarz, Lyapunov,
Lipschitz (mean value), ratio (cross-multiplication by a positive expectation) and leave-one-out averaging.
Each proves a true instance and must not prove a planted false one: the square root dropped, the wrong power,
a Lipschitz constant too small, min and max swapped, a factor 2, a random variable that is not the claim's,
a convex φ where concavity is needed; true claims with the law attack beside are not refuted."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.expectation import Expect
from infonce_bounds.derivations.checks.expectation_sums import sum_simplifier
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers
from infonce_bounds.derivations.paper._laws import MU, MU_HAT, W1, W_BOUNDS, law_check, mu, var_w
from infonce_bounds.derivations.symbols import TAU_MAX, TAU_MIN, i, j, k, s, tau, u, w

OPTS = {**DEFAULTS, "trials": 300, "seed": 0}
DOM = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1)})
M_, MM = sp.exp(-1 / tau), sp.exp(1 / tau)
AD, ALD, AD1 = sp.Function("E_abs_dev"), sp.Function("E_abs_log_dev"), sp.Function("E_abs_dev_one")
M3, M4 = sp.Function("M3_t"), sp.Function("M4_t")
DEFS = {
    AD(tau, k): Expect(sp.Abs(MU_HAT - MU)),
    ALD(tau, k): Expect(sp.Abs(sp.log(MU_HAT) - sp.log(MU))),
    AD1(tau): Expect(sp.Abs(W1 - MU)),
    M3(tau, k): Expect(sp.Abs(MU_HAT - MU) ** 3),
    M4(tau, k): Expect((MU_HAT - MU) ** 4),
}
_v = sp.Symbol("v", positive=True)
LOG = sp.Lambda(_v, sp.log(_v))


def _popoviciu(scale=1, n=k):
    """Continuation scale²·E(X)² ≤ scale²·sinh²(1/τ)/n: integrand scale²(M − W)(W − m)/n, remainder (Z − cosh)²."""
    return {
        "rule": "pointwise",
        "integrand": scale**2 * (MM - W1) * (W1 - M_) / n,
        "remainder": scale**2 * (MU - sp.cosh(1 / tau)) ** 2 / n,
    }


def _st(lhs, rhs, params, relation="<=", dom=DOM):
    return Step("rule claim", lhs, rhs, kind="inequality", relation=relation, domain=dom, route=("expectation", params))


def _proved(res, dom=DOM):
    return res.verdict is Verdict.PROVED and covers(res.covered, dom)


def _cs(rhs, x=MU_HAT - MU, then=None):
    params = {"rule": "cauchy_schwarz", "defs": DEFS, "bounds": W_BOUNDS, "x": x, "then": then or _popoviciu()}
    return check_step(_st(AD(tau, k), rhs, params), **OPTS)


# ----------------------------------------------------------------------------- Cauchy–Schwarz


def test_cauchy_schwarz_with_popoviciu_is_proved_and_shows_the_substitution():
    res = _cs(sp.sinh(1 / tau) / sp.sqrt(k))
    assert _proved(res) and "Cauchy–Schwarz (classical" in res.method and "Billingsley" in res.method
    assert "X = " in res.method and "then pointwise" in res.method


@pytest.mark.parametrize(
    "rhs",
    [sp.sinh(1 / tau) / k, sp.sinh(1 / tau) / (2 * sp.sqrt(k))],
    ids=["square root dropped", "factor 2"],
)
def test_cauchy_schwarz_planted_false_is_not_proved(rhs):
    """E|Z_k − Z| ≤ sinh(1/τ)/k and ≤ sinh(1/τ)/(2√k) fail (two-point laws at ±1, k = 2)."""
    assert _cs(rhs).verdict is not Verdict.PROVED


def test_cauchy_schwarz_with_a_random_variable_that_is_not_the_claims_is_not_proved():
    res = _cs(sp.sinh(1 / tau) / sp.sqrt(k), x=MU_HAT - MU / 2)
    assert res.verdict is not Verdict.PROVED and "not c·F" in res.method


def test_unseen_cauchy_schwarz_of_one_draw():
    """E|W_1 − Z| ≤ sinh(1/τ) (one draw, n = 1): Cauchy–Schwarz then Popoviciu; halved it is not proved."""
    then = _popoviciu(n=1)
    for rhs, want in ((sp.sinh(1 / tau), True), (sp.sinh(1 / tau) / 2, False)):
        params = {"rule": "cauchy_schwarz", "defs": DEFS, "bounds": W_BOUNDS, "x": W1 - MU, "then": then}
        dom = Domain({tau: (TAU_MIN, TAU_MAX), s: (-1, 1)})
        res = check_step(_st(AD1(tau), rhs, params, dom=dom), **OPTS)
        assert (res.verdict is Verdict.PROVED) == want, res.method


# ----------------------------------------------------------------------------- Lyapunov


def _lyap(rhs, p=3, q=4, x=MU_HAT - MU):
    params = {"rule": "lyapunov", "defs": DEFS, "bounds": W_BOUNDS, "x": x, "p": p, "q": q}
    return check_step(_st(M3(tau, k), rhs, params), **OPTS)


def test_lyapunov_three_four_is_proved():
    res = _lyap(M4(tau, k) ** sp.Rational(3, 4))
    assert _proved(res) and "Lyapunov (classical" in res.method


def test_lyapunov_with_the_wrong_power_is_not_proved():
    """E|X|³ ≤ (E X⁴)^{1/2} is false (scale X up); and a hint p = 2 does not match the cube."""
    assert _lyap(M4(tau, k) ** sp.Rational(1, 2)).verdict is not Verdict.PROVED
    assert _lyap(M4(tau, k) ** sp.Rational(3, 4), p=2).verdict is not Verdict.PROVED


def test_lyapunov_needs_p_at_most_q():
    with pytest.raises(DerivationError, match="p ≤ q"):
        _lyap(M4(tau, k) ** sp.Rational(3, 4), p=4, q=3)


def test_unseen_lyapunov_one_two_gives_the_mean_absolute_deviation():
    """E|Z_k − Z| ≤ (E(Z_k − Z)²)^{1/2} by Lyapunov (p = 1, q = 2): the bound is the big side itself; halved, the
    continuation (E X²)^{1/2} ≤ (E X²)^{1/2}/2 is not proved."""
    params = {"rule": "lyapunov", "defs": DEFS, "bounds": W_BOUNDS, "x": MU_HAT - MU, "p": 1, "q": 2}
    res = check_step(_st(AD(tau, k), sp.sqrt(Expect((MU_HAT - MU) ** 2)), params), **OPTS)
    assert _proved(res)
    res = check_step(_st(AD(tau, k), sp.sqrt(Expect((MU_HAT - MU) ** 2)) / 2, params), **OPTS)
    assert res.verdict is not Verdict.PROVED


# ----------------------------------------------------------------------------- Lipschitz


def _lip(rhs, lip=MM, f=LOG):
    cs = {"rule": "cauchy_schwarz", "x": MU_HAT - MU, "then": _popoviciu(MM)}
    params = {"rule": "lipschitz", "defs": DEFS, "bounds": W_BOUNDS, "f": f, "L": lip, "u": MU_HAT, "v": MU, "then": cs}
    return check_step(_st(ALD(tau, k), rhs, params), **OPTS)


def test_lipschitz_log_then_cauchy_schwarz_is_proved():
    res = _lip((sp.exp(2 / tau) - 1) / (2 * sp.sqrt(k)))
    assert _proved(res) and "mean value theorem" in res.method


def test_lipschitz_constant_too_small_is_not_proved():
    """|log'| = 1/t reaches e^{1/τ} at t = e^{−1/τ}: L = e^{1/(2τ)} fails there (the bound is then also false)."""
    res = _lip(sp.exp(1 / (2 * tau)) * sp.sinh(1 / tau) / sp.sqrt(k), lip=sp.exp(1 / (2 * tau)))
    assert res.verdict is not Verdict.PROVED and "f' ≤ L" in res.method


def test_lipschitz_with_a_function_that_is_not_the_claims_is_not_proved():
    res = _lip((sp.exp(2 / tau) - 1) / (2 * sp.sqrt(k)), f=sp.Lambda(_v, 2 * sp.log(_v)))
    assert res.verdict is not Verdict.PROVED


# ----------------------------------------------------------------------------- ratio (eq8's kind)

IOTA = sp.IndexedBase("iota_t", real=True)
Q = sp.Function("Q_t")
RHO = sp.exp(2 / tau)
DOM_A = Domain({tau: (TAU_MIN, TAU_MAX), u: (sp.Rational(1, 10**6), 1), s: (-1, 1), IOTA: (0, 1)})


def _ratio(rhs, integrand, remainder=0, relation="<="):
    facts = {Expect(IOTA[1]): u}
    params = {
        "rule": "ratio",
        "defs": {Q(tau, u): Expect(IOTA[1] * W1) / Expect(W1)},
        "facts": facts,
        "bounds": W_BOUNDS,
        "then": {"rule": "pointwise", "integrand": integrand, "remainder": remainder, "facts": facts},
    }
    return check_step(_st(Q(tau, u), rhs, params, relation=relation, dom=DOM_A), **OPTS)


UPPER_T = (RHO * u * (1 - IOTA[1]) * (W1 - M_) + (1 - u) * IOTA[1] * (MM - W1)) / (RHO * u + 1 - u)
LOWER_T = ((1 - u) * RHO * IOTA[1] * (W1 - M_) + u * (1 - IOTA[1]) * (MM - W1)) / (u + (1 - u) * RHO)


def test_ratio_sharp_ends_are_proved():
    assert _proved(_ratio(RHO * u / (RHO * u + 1 - u), UPPER_T), DOM_A)
    assert _proved(_ratio(u / (u + (1 - u) * RHO), LOWER_T, relation=">="), DOM_A)


def test_ratio_with_min_and_max_swapped_is_not_proved():
    """Q ≤ p/(p + (1 − p)ρ) (the lower end as an upper bound) and Q ≥ pρ/(pρ + 1 − p): false; the integrands
    of the true ends are given and do not match, nor would any (the claims fail)."""
    assert _ratio(u / (u + (1 - u) * RHO), UPPER_T).verdict is not Verdict.PROVED
    assert _ratio(u / (u + (1 - u) * RHO), LOWER_T).verdict is not Verdict.PROVED
    assert _ratio(RHO * u / (RHO * u + 1 - u), LOWER_T, relation=">=").verdict is not Verdict.PROVED


def test_ratio_with_a_factor_2_is_not_proved():
    res = _ratio(RHO * u / 2, IOTA[1] * (MM - W1), RHO * u * (Expect(W1) - M_) / 2)
    assert res.verdict is not Verdict.PROVED


def test_unseen_ratio_the_tilted_mean_of_w_is_at_least_the_mean():
    """E[W²]/E W ≥ E W (Chebyshev's sum inequality, E W² ≥ (E W)²): cross-multiplied, Var W ≥ 0 by the integrand
    (W − Z)²; the reverse (≤) is not proved."""
    t2 = sp.Function("tilt_t")
    for rel, want in ((">=", True), ("<=", False)):
        params = {
            "rule": "ratio",
            "defs": {t2(tau): Expect(W1**2) / Expect(W1)},
            "bounds": W_BOUNDS,
            "then": {"rule": "pointwise", "integrand": (W1 - MU) ** 2},
        }
        dom = Domain({tau: (TAU_MIN, TAU_MAX), s: (-1, 1)})
        res = check_step(_st(t2(tau), MU, params, relation=rel, dom=dom), **OPTS)
        assert (res.verdict is Verdict.PROVED) == want, res.method


# ----------------------------------------------------------------------------- leave-one-out

EL = sp.Function("E_log_mean_t")
DOM2 = Domain({tau: (TAU_MIN, TAU_MAX), k: (2, sp.oo), s: (-1, 1)})


def _loo(lhs, rhs, phi=LOG, dom=DOM2, relation=">="):
    inner = sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k
    params = {
        "rule": "leave_one_out",
        "defs": {EL: sp.Lambda((tau, k), Expect(phi(sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k)))},
        "bounds": W_BOUNDS,
        "phi": phi,
        "inner": inner,
    }
    return check_step(_st(lhs, rhs, params, relation=relation, dom=dom), **OPTS)


def test_leave_one_out_is_proved():
    assert _proved(_loo(EL(tau, k), EL(tau, k - 1)), DOM2)


def test_leave_one_out_planted_false_is_not_proved():
    # the reverse direction; a convex φ (v²: E(mean)² is nonincreasing in n); k ≥ 1 (k − 1 = 0 has no mean)
    assert _loo(EL(tau, k), EL(tau, k - 1), relation="<=").verdict is not Verdict.PROVED
    square = sp.Lambda(_v, _v**2)
    assert _loo(EL(tau, k), EL(tau, k - 1), phi=square).verdict is not Verdict.PROVED
    dom1 = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1)})
    assert _loo(EL(tau, k), EL(tau, k - 1), dom=dom1).verdict is not Verdict.PROVED
    # a step of 2 in k is not the leave-one-out instance
    assert _loo(EL(tau, k), EL(tau, k - 2)).verdict is not Verdict.PROVED


def test_sum_simplifier_proves_the_leave_one_out_identity_only():
    lhs = sp.Sum((sp.Sum(w[i], (i, 1, k)) - w[j]) / (k - 1), (j, 1, k)) / k
    assert sum_simplifier(lhs - sp.Sum(w[i], (i, 1, k)) / k) == 0
    assert sum_simplifier(lhs - sp.Sum(w[i], (i, 1, k)) / (k - 1)) != 0
    assert sum_simplifier(sp.Sum(w[i] * w[j], (i, 1, k)) - sp.Sum(w[j] ** 2, (j, 1, k))) != 0


# ----------------------------------------------------------------------------- true claims with the law attack


def test_a_true_claim_with_the_law_attack_is_proved_not_refuted():
    attack = law_check(lambda L, lw: (0 * lw.tau, mu(L, lw) ** 2 + var_w(L, lw) - mu(L, lw) ** 2), "E W² ≥ (E W)²")
    params = {
        "rule": "ratio",
        "defs": {sp.Function("tilt_a")(tau): Expect(W1**2) / Expect(W1)},
        "bounds": W_BOUNDS,
        "then": {"rule": "pointwise", "integrand": (W1 - MU) ** 2},
        "attack": attack,
    }
    dom = Domain({tau: (TAU_MIN, TAU_MAX), s: (-1, 1)})
    res = check_step(_st(sp.Function("tilt_a")(tau), MU, params, relation=">=", dom=dom), **OPTS)
    assert _proved(res, dom) and "law attack" in res.evidence


# ----------------------------------------------------------------------------- abs, ranges relative to the draw, ratios in E

from infonce_bounds.derivations.symbols import rn  # noqa: E402

WD, SD = w[1], s[1]
NU = Expect(WD * SD)
DOM_W = Domain({k: (1, sp.oo), s: (-1, 1), w: (0, sp.oo)})
EAB_T = sp.Function("EAB_t")


def _eab(rhs, bounds, plus=None, minus=None):
    a_ = sp.Sum(w[j] * (s[j] - NU), (j, 1, k)) / k
    b_ = sp.Sum(w[j], (j, 1, k)) / k
    params = {
        "rule": "abs",
        "defs": {EAB_T(k): Expect(a_ * b_)},
        "facts": {Expect(WD): 1},
        "bounds": bounds,
        "then": [
            {"rule": "pointwise", "integrand": plus if plus is not None else WD**2 * (2 - SD + NU) / k},
            {"rule": "pointwise", "integrand": minus if minus is not None else WD**2 * (2 + SD - NU) / k},
        ],
    }
    return check_step(_st(sp.Abs(EAB_T(k)), rhs, params, dom=DOM_W), **OPTS)


def test_abs_with_a_moment_range_relative_to_the_draw_is_proved():
    """Lemma 3's (24): |E AB| ≤ 2E w²/k, with |E_ν f| = |E[w f]| ≤ E w = 1 from the per-draw bound |w f| ≤ w."""
    res = _eab(2 * Expect(WD**2) / k, {WD * SD: (-WD, WD)})
    assert _proved(res, DOM_W) and "E[-w[1]] = -1" in res.method


def test_abs_planted_false_is_not_proved():
    # a factor 2 in the bound; a per-draw bound that is false (|w f| ≤ w/2); one sign's integrand for both
    assert _eab(Expect(WD**2) / k, {WD * SD: (-WD, WD)}).verdict is not Verdict.PROVED
    assert _eab(2 * Expect(WD**2) / k, {WD * SD: (-WD / 2, WD / 2)}).verdict is not Verdict.PROVED
    same = WD**2 * (2 - SD + NU) / k
    assert _eab(2 * Expect(WD**2) / k, {WD * SD: (-WD, WD)}, minus=same).verdict is not Verdict.PROVED


def _ratio_step(lhs, rhs, dom, defs=None):
    return Step(
        "kernel", lhs, rhs, kind="identity", domain=dom, route=("expectation", {"rule": "moments", "defs": defs or {}})
    )


_R_NONNEG = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1), rn: (0, sp.oo)})
#: r > 0 stated (M(z, ·) ~ π): Σ_j r_j > 0 on every sample
_R_POS = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1), rn: (0, sp.oo)}, (rn.label > 0,))


def test_identities_between_ratio_statistics_need_the_denominator_positive():
    """E[−Σ_j (r_j/Σ_i r_i)(s_j/τ − log μ̂)] = −E[Σ s r/Σ r]/τ + E log μ̂ (prop2's (9) from (30)): its reduction
    cancels r_j/Σ_i r_i (x/x = 1). With r_j ≥ 0 only, {Σ_j r_j = 0} is a possible event where both sides are 0/0:
    not proved, the reason naming that event; with r > 0 stated it is proved; without the log μ̂ term it is not
    proved in either domain."""
    rs = sp.Sum(rn[i], (i, 1, k))
    hk, ws, el = sp.Function("Hk_t"), sp.Function("WS_t"), sp.Function("EL_t")
    defs = {
        hk(tau, k): Expect(-sp.Sum(rn[j] / rs * (s[j] / tau - sp.log(MU_HAT)), (j, 1, k))),
        ws(tau, k): Expect(sp.Sum(s[j] * rn[j], (j, 1, k)) / sp.Sum(rn[j], (j, 1, k))),
        el(tau, k): Expect(sp.log(MU_HAT)),
    }
    true_rhs, wrong_rhs = -ws(tau, k) / tau + el(tau, k), -ws(tau, k) / tau
    res = check_step(_ratio_step(hk(tau, k), true_rhs, _R_NONNEG, defs), **OPTS)
    assert res.verdict is not Verdict.PROVED
    assert "is not established for every sample" in res.method and "= 0}" in res.method
    assert check_step(_ratio_step(hk(tau, k), true_rhs, _R_POS, defs), **OPTS).verdict is Verdict.PROVED
    for dom in (_R_NONNEG, _R_POS):
        assert check_step(_ratio_step(hk(tau, k), wrong_rhs, dom, defs), **OPTS).verdict is not Verdict.PROVED


def test_planted_x_over_x_is_proved_only_where_the_denominator_cannot_vanish():
    """E[Σ_j r_j/Σ_i r_i] = 1 and E[Σ_j (r_j/Σ_i r_i)] = 1 hold only where Σ_j r_j > 0 (x/x = 1):
    not proved under r ≥ 0, proved with r > 0 stated; with the ratio's convention on {Σ_j r_j = 0} (value 1) the
    first is proved under r ≥ 0 (by cases), with a wrong convention value (0) it is not."""
    rs = sp.Sum(rn[j], (j, 1, k))
    ones = Expect(rs / rs.xreplace({j: i}))  # α-renamed, so SymPy does not cancel it before the rule sees it
    # Σ_j M̂_k({ξ_j}) = 1 in expectation: Σ_j (r_j/Σ_i r_i) = 1 needs the same cancellation
    mass = Expect(sp.Sum(rn[j] / rs.xreplace({j: i}), (j, 1, k)))
    for lhs in (ones, mass):
        rhs = sp.Integer(1)
        assert check_step(_ratio_step(lhs, rhs, _R_NONNEG), **OPTS).verdict is not Verdict.PROVED
        assert check_step(_ratio_step(lhs, rhs, _R_POS), **OPTS).verdict is Verdict.PROVED
    conv = sp.Piecewise((rs / rs.xreplace({j: i}), rs.xreplace({j: i}) > 0), (1, True))
    assert check_step(_ratio_step(Expect(conv), sp.Integer(1), _R_NONNEG), **OPTS).verdict is Verdict.PROVED
    wrong = sp.Piecewise((rs / rs.xreplace({j: i}), rs.xreplace({j: i}) > 0), (0, True))
    assert check_step(_ratio_step(Expect(wrong), sp.Integer(1), _R_NONNEG), **OPTS).verdict is not Verdict.PROVED


def test_a_bare_ratio_beside_a_convention_is_not_proved_under_nonnegative_weights():
    """E[M_c + Σ_j r_j/Σ_i r_i] = 2 with M_c the ratio with convention 1 on {Σ r = 0}: the bare ratio is 0/0 there
    (r ≥ 0), so the case split cannot prove it; with r > 0 stated it holds (both ratios are 1)."""
    rs, ri = sp.Sum(rn[j], (j, 1, k)), sp.Sum(rn[i], (i, 1, k))
    both = Expect(sp.Piecewise((rs / ri, ri > 0), (1, True)) + rs / ri)
    res = check_step(_ratio_step(both, sp.Integer(2), _R_NONNEG), **OPTS)
    assert res.verdict is not Verdict.PROVED and "is not established for every sample" in res.method
    assert check_step(_ratio_step(both, sp.Integer(2), _R_POS), **OPTS).verdict is Verdict.PROVED


def test_the_same_ratio_on_both_sides_is_proved_only_where_it_is_defined():
    """E[Σ s r/Σ r] = E[Σ_j (s_j r_j/Σ_i r_i)]: linearity alone (no cancellation) makes the two sides one
    expression, but under r ≥ 0 both are 0/0 on {Σ_j r_j = 0}, so "equal" would rest on that event: not proved,
    the reason naming it; with r > 0 stated it is proved. A wrong factor 2 is proved in neither domain."""
    rs = sp.Sum(rn[i], (i, 1, k))
    lhs = Expect(sp.Sum(s[j] * rn[j], (j, 1, k)) / rs)
    rhs = Expect(sp.Sum(s[j] * rn[j] / rs, (j, 1, k)))
    res = check_step(_ratio_step(lhs, rhs, _R_NONNEG), **OPTS)
    assert res.verdict is not Verdict.PROVED and "is not established for every sample" in res.method
    res = check_step(_ratio_step(lhs, rhs, _R_POS), **OPTS)
    assert res.verdict is Verdict.PROVED and "every ratio defined on every sample" in res.method
    for dom in (_R_NONNEG, _R_POS):
        assert check_step(_ratio_step(lhs, 2 * rhs, dom), **OPTS).verdict is not Verdict.PROVED
