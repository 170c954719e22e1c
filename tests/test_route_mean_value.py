"""The route "mean value" (``checks/mean_value.py``): it proves (G(b) − G(a))/(b − a) = G'(a + c(b − a)) for
some c ∈ [0, 1] from symbolic identities, definedness along the segment and Lagrange's theorem; it must not
prove a derivative that is off by 1 %, a claim across a pole, or a hint whose path is not the claim's, and its
proved cover contains the stated domain."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers

OPTS = {**DEFAULTS, "trials": 400, "spot_points": 2, "box_budget": 200}
x = sp.Symbol("x_mv", positive=True)
eps = sp.Symbol("eps_mv", real=True)
c = sp.Symbol("c_mv", real=True)
t = sp.Symbol("t_mv", real=True)
DOM = Domain({x: (2, 3), eps: (-1, 1), c: (0, 1)}, name="x ∈ [2, 3], ε ∈ [−1, 1], c ∈ [0, 1]")
HINT = ("mean value", {"path": sp.log(x + t), "var": t, "point": c, "start": 0, "end": eps})


def _claim(rhs, domain=DOM, route=HINT, lhs=None):
    lhs = (sp.log(x + eps) - sp.log(x)) / eps if lhs is None else lhs
    return Step("(log(x + ε) − log x)/ε = G'(cε)", lhs, rhs, domain=domain, route=route)


def test_true_claim_is_proved_and_its_cover_contains_the_domain():
    res = check_step(_claim(1 / (x + c * eps)), **OPTS)
    assert res.verdict is Verdict.PROVED, res.method
    assert res.symbolic and covers(res.covered, DOM)
    assert "Lagrange" in res.evidence


def test_derivative_too_small_by_one_percent_is_not_proved():
    res = check_step(_claim(sp.Rational(99, 100) / (x + c * eps)), **OPTS)
    assert res.verdict in (Verdict.VERIFIED, Verdict.REFUTED), res.method
    assert res.covered is None


def test_derivative_off_by_half_is_refuted_through_the_gate():
    res = check_step(_claim(sp.Rational(3, 2) / (x + c * eps)), **OPTS)
    assert res.verdict is Verdict.REFUTED
    assert "rhs_range_over_c" in res.counterexample


def test_a_pole_on_the_segment_is_not_proved():
    """x ∈ [1/2, 2], ε ∈ [−1, 1]: x + t reaches 0 on some segments, where 1/(x + t) has a pole (the claim is
    false there: at x = 1/2, ε = −1 the quotient is 4 and −1/(x + cε)² < 0)."""
    dom = Domain({x: (sp.Rational(1, 2), 2), eps: (-1, 1), c: (0, 1)})
    hint = ("mean value", {"path": 1 / (x + t), "var": t, "point": c, "start": 0, "end": eps})
    st = _claim(-1 / (x + c * eps) ** 2, dom, hint, lhs=(1 / (x + eps) - 1 / x) / eps)
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED, res.method


def test_a_path_that_is_not_the_claims_is_not_proved():
    wrong = ("mean value", {"path": sp.log(x + 2 * t), "var": t, "point": c, "start": 0, "end": eps})
    res = check_step(_claim(1 / (x + c * eps), route=wrong), **OPTS)
    assert res.verdict is not Verdict.PROVED


def test_a_non_differentiable_path_is_not_proved():
    hint = ("mean value", {"path": sp.Abs(t) + t, "var": t, "point": c, "start": 0, "end": eps})
    st = Step("(|ε| + ε)/ε = G'(cε)", (sp.Abs(eps) + eps) / eps, sp.sign(c * eps) + 1, domain=DOM, route=hint)
    assert check_step(st, **OPTS).verdict is not Verdict.PROVED


@pytest.mark.parametrize(
    "params, what",
    [
        ({"path": sp.log(x + t), "var": t, "point": eps}, "point"),  # ε ranges over [−1, 1], not [0, 1]
        ({"path": sp.log(x + t), "var": x, "point": c}, "var"),  # x is a symbol of the claim
        ({"path": sp.log(x + t), "var": t}, "missing"),
        ({"path": sp.log(x + t), "var": t, "point": c, "points": -1}, "points"),
        ({"path": sp.log(x + t), "var": t, "point": c, "end": c}, "end"),  # the segment cannot depend on c
    ],
)
def test_a_malformed_hint_names_its_parameter(params, what):
    with pytest.raises(DerivationError, match=what):
        check_step(_claim(1 / (x + c * eps), route=("mean value", params)), **OPTS)


@pytest.mark.parametrize("name", ["lemma6", "prop4"])
def test_the_papers_mean_value_steps_are_proved_and_refuted_when_the_derivative_is_doubled(name):
    st = next(s for s in catalogue.get(name).steps if s.route and s.route[0] == "mean value")
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, st.domain)
    assert check_step(dataclasses.replace(st, rhs=2 * st.rhs), **OPTS).verdict is Verdict.REFUTED


# ----------------------------------------------------------------------------- the derivative-bound shape

y = sp.Symbol("y_mv", real=True)
z = sp.Symbol("z_mv", real=True)
LIP = Domain({y: (-40, 40), z: (-40, 40)}, name="x, y ∈ [−40, 40]")


def _lipschitz(bound, lhs=None):
    lhs = sp.log(1 + sp.exp(y)) - sp.log(1 + sp.exp(z)) if lhs is None else lhs
    hint = ("mean value", {"path": sp.log(1 + sp.exp(t)), "var": t, "start": z, "end": y, "bound": bound})
    return Step(
        "softplus is 1-Lipschitz", lhs, bound * sp.Abs(y - z), kind="inequality", relation="<=", domain=LIP, route=hint
    )


def test_softplus_is_one_lipschitz_with_the_bound_certified_by_arb():
    res = check_step(_lipschitz(1), **OPTS)
    assert res.verdict is Verdict.PROVED, res.method
    assert res.certified and covers(res.covered, LIP)
    res = check_step(_lipschitz(1, sp.Abs(sp.log(1 + sp.exp(y)) - sp.log(1 + sp.exp(z)))), **OPTS)
    assert res.verdict is Verdict.PROVED, res.method


def test_a_derivative_bound_too_small_by_one_percent_is_not_proved():
    """sigmoid reaches 0.99 near t = 4.6: L = 99/100 fails there, and the falsifier finds it."""
    res = check_step(_lipschitz(sp.Rational(99, 100)), **OPTS)
    assert res.verdict is not Verdict.PROVED and res.covered is None
    assert "L − G' ≥ 0 (Arb): proved" not in res.method


def test_a_bound_hint_on_a_strict_claim_names_the_shape():
    st = _lipschitz(1)
    with pytest.raises(DerivationError, match="non-strict"):
        check_step(dataclasses.replace(st, relation="<"), **OPTS)
