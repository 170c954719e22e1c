"""Route "taylor" (``checks/taylor.py``): gap ≥ 0 vanishing along x = x₀, by Taylor with integral remainder.

The pointwise forms of Lemma 2's Taylor step (five variables, k ≥ 1 unbounded) and of A.1's third-order displays
(|·|³ and max(·, 0)³, split on the sign of x − x₀) as route "expectation" scalarises them, each proved; planted
false ones (a remainder constant too small, the wrong sign, the wrong derivative bound) never proved.
"""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.routes import HINTED, ROUTES
from infonce_bounds.derivations.checks.taylor import applies, pairs, prove_taylor
from infonce_bounds.derivations.ledger import Domain, Step, Verdict, covers
from infonce_bounds.derivations.symbols import Z, b, c_X, k, tau

R = sp.Rational
TU = sp.Symbol("theta_u2", real=True)  # the sample mean's coordinate, as Scalarise names it
TM = sp.Symbol("theta_m1", real=True)  # the expectation's


def _lemma2_gap(const: int = 2) -> sp.Expr:
    """f(bμ̂) − f(bμ) − f'(bμ)b(μ̂ − μ) + e^{2c}(μ̂ − μ)²/const, f = log(1/k + ·), μ̂, μ ∈ [e^{−c}, e^c]."""
    e = sp.exp(c_X)
    u, m = 1 / e + (e - 1 / e) * TU, 1 / e + (e - 1 / e) * TM
    return (
        sp.log(1 / k + b * u)
        - sp.log(1 / k + b * m)
        - b * (u - m) / (1 / k + b * m)
        + sp.exp(2 * c_X) * (u - m) ** 2 / sp.Integer(const)
    )


LEMMA2_BOX = Domain({b: (R(1, 10**6), 10**6), c_X: (R(1, 100), 1000), k: (1, sp.oo), TU: (0, 1), TM: (0, 1)})


def _a1_gap(kind: str, const: int = 3) -> sp.Expr:
    """log μ − log μ̂ + (μ̂ − μ)/μ − (μ̂ − μ)²/(2μ²) + the third-order term, μ̂, μ ∈ [e^{−1/τ}, e^{1/τ}]."""
    e = sp.exp(1 / tau)
    u, m = 1 / e + (e - 1 / e) * TU, 1 / e + (e - 1 / e) * TM
    t2 = sp.log(m) - sp.log(u) + (u - m) / m - (u - m) ** 2 / (2 * m**2)
    if kind == "abs":
        return t2 + sp.exp(3 / tau) * sp.Abs(u - m) ** 3 / sp.Integer(const)
    return t2 + sp.Max(u - m, 0) ** 3 / (sp.Integer(const) * m**3)


A1_BOX = Domain({tau: (R(1, 1000), 100), TU: (0, 1), TM: (0, 1)})


def _step(gap: sp.Expr, dom: Domain) -> Step:
    return Step("taylor test", sp.Integer(0), gap, kind="inequality", relation="<=", domain=dom, route=("taylor", {}))


def test_registered_both_ways():
    assert "taylor" in ROUTES and "taylor" in HINTED and HINTED["taylor"].required == ()


def test_pairs_and_shape():
    assert (TU, TM) in pairs(_lemma2_gap(), LEMMA2_BOX)
    assert not applies(sp.log(1 + TU) - TU / 2, Domain({TU: (0, 1)}))  # no second variable: no pair
    assert prove_taylor(TU - TM, Domain({TU: (0, 1), TM: (0, 1)}), True, {}) is None  # strict: not this route


def test_lemma2_pointwise_taylor_proved_with_k_unbounded():
    res = check_step(_step(_lemma2_gap(), LEMMA2_BOX))
    assert res.verdict == Verdict.PROVED, res.method
    assert "Taylor in theta_u2 about theta_m1" in res.method and "convex" in res.method
    assert covers(res.covered, LEMMA2_BOX)


@pytest.mark.parametrize("kind", ["abs", "max"])
def test_a1_third_order_split_on_the_sign(kind):
    res = check_step(_step(_a1_gap(kind), A1_BOX))
    assert res.verdict == Verdict.PROVED, res.method
    assert "theta_u2 ≥ theta_m1" in res.method and "theta_u2 ≤ theta_m1" in res.method
    assert covers(res.covered, A1_BOX)


@pytest.mark.parametrize(
    "gap, dom",
    [
        (_lemma2_gap(4), LEMMA2_BOX),  # e^{2c}/4 instead of /2: 1/ξ² ≤ e^{2c}/2 fails at ξ = e^{−c}
        (_lemma2_gap(-2), LEMMA2_BOX),  # the wrong sign of the remainder
        (_a1_gap("abs", 6), A1_BOX),  # |·|³ term halved
        (_a1_gap("max", 6), A1_BOX),  # max(·, 0)³ term halved
        (_a1_gap("abs", 3).xreplace({sp.exp(3 / tau): sp.exp(-3 / tau)}), A1_BOX),  # the printed e^{−3/τ}: wrong bound
    ],
)
def test_planted_false_not_proved(gap, dom):
    res = check_step(_step(gap, dom))
    assert res.verdict != Verdict.PROVED, res.method
    out = prove_taylor(gap, dom, False, {})
    assert out is None or not out.proved


def test_expectation_step_with_a_constant_too_small_is_not_proved():
    """Lemma 2's Taylor step in expectation with e^{2c}/4: the route must not prove it (the law attack may refute)."""
    from infonce_bounds.derivations.paper import lemma2 as L2

    step = next(s_ for s_ in L2.derivations()[0].steps if s_.name.startswith("E f(bμ̂) ≥"))
    name, params = step.route
    mu, muh = L2.MU_X, L2.MU_HAT_X
    bad = {
        **params,
        "integrand": sp.log(1 / k + b * muh)
        - sp.log(1 / k + b * mu)
        - b * (muh - mu) / (1 / k + b * mu)
        + sp.exp(2 * c_X) * (muh - mu) ** 2 / 4,
    }
    planted = Step(
        step.name,
        step.lhs,
        sp.log(1 / k + b * Z) - sp.exp(2 * c_X) * L2.SecondMoment(c_X, k) / 4,
        kind="inequality",
        relation=">=",
        domain=step.domain,
        route=(name, {k_: v_ for k_, v_ in bad.items() if k_ != "attack"}),
    )
    res = check_step(planted, trials=2000)
    assert res.verdict != Verdict.PROVED, res.method


def test_popoviciu_remainder_rule_with_a_constant_too_small_is_not_proved():
    """(22) with (e^{2c} − 1)²/(16k), half the printed constant: the Taylor integrand still holds, but what is left
    for Popoviciu's rule (``then``) is no longer E[(M − W)(W − m)] plus its square remainder: not proved."""
    from infonce_bounds.derivations.paper import lemma2 as L2

    step = next(s_ for s_ in L2.derivations()[0].steps if s_.name == "(22) second difference")
    name, params = step.route
    planted = Step(
        step.name,
        step.lhs,
        L2.PAPER_UPPER / (2 * k),
        kind="inequality",
        relation="<=",
        domain=step.domain,
        route=(name, {k_: v_ for k_, v_ in params.items() if k_ != "attack"}),
    )
    res = check_step(planted, trials=2000)
    assert res.verdict != Verdict.PROVED, res.method
