"""Route "integral enclosure" (``checks/monotone_comparison.py``), the expectation route's moment map and remainder
hint (``checks/expectation.py``), and the chain checker's min chains and placeholders (``checks/chain.py``), as they
carry bias_bound's C(τ)/k and finite-k bounds: each proves its true claim and withholds the proof of a planted one."""

from __future__ import annotations

import dataclasses

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.ledger import DerivationError, Domain, Link, Step, Verdict, covers

OPTS = {**DEFAULTS, "trials": 1500, "box_budget": 600}
#: bias_bound's steps at the engine's defaults (the enclosed piece near t = 0 takes ~900 boxes)
BIAS = dict(DEFAULTS)
HALF = sp.Rational(1, 2)
R = sp.Rational
a_ = sp.Symbol("a_t", positive=True)
v = sp.Symbol("v_t", positive=True)
r = sp.Symbol("r_t", real=True)
HINT = {
    "G": sp.Lambda(v, (v - 1 - sp.log(v)) / (v - 1) ** 2),
    "integral": sp.Integral(r / (1 + r * (v - 1)), (r, 0, 1)),
    "antiderivative": r / (v - 1) - sp.log(1 + r * (v - 1)) / (v - 1) ** 2,
    "removable": [1],
    "direction": "decreasing",
}
G_A = sp.Integral(r / (1 + r * (a_ - 1)), (r, 0, 1))


def _claim(rhs, lo=HALF, hi=1, **hint) -> Step:
    return Step(
        "c",
        G_A * (1 - a_),
        rhs,
        kind="inequality",
        relation="<=",
        domain=Domain({a_: (lo, hi)}),
        route=("integral enclosure", {**HINT, **hint}),
    )


def _bias(name: str) -> Step:
    (step,) = [s_ for s_ in catalogue.get("bias_bound").steps if s_.name == name]
    return step


def test_enclose_mode_proves_a_bound_through_the_removable_point_and_not_a_smaller_one():
    """g(a)(1 − a) ≤ g(1/2)/2 = 0.386… on [1/2, 1] (a = 1 included): g replaced by J ∈ [1/2, g(1/2)]."""
    res = check_step(_claim(R(2, 5), mode="enclose"), **OPTS)
    assert res.verdict is Verdict.PROVED, res.method
    assert check_step(_claim(R(3, 10), mode="enclose"), **OPTS).verdict is not Verdict.PROVED  # 0.386 > 3/10


def test_closed_mode_needs_the_argument_off_the_removable_point():
    assert check_step(_claim(R(2, 5), hi=R(9, 10), mode="closed"), **OPTS).verdict is Verdict.PROVED
    res = check_step(_claim(R(2, 5), mode="closed"), **OPTS)  # a reaches 1: the closed form is 0/0 there
    assert res.verdict is not Verdict.PROVED and "≠ 0 not established" in res.method


def test_enclose_mode_with_the_wrong_direction_is_not_proved():
    res = check_step(_claim(R(2, 5), mode="enclose", direction="increasing"), **OPTS)
    assert res.verdict is not Verdict.PROVED


@pytest.mark.parametrize(
    "pieces",
    [
        [{"var": a_, "range": (R(1, 2), R(3, 4)), "mode": "closed"}],  # does not reach 1
        [
            {"var": a_, "range": (R(1, 2), R(3, 4)), "mode": "closed"},
            {"var": a_, "range": (R(4, 5), 1), "mode": "enclose"},  # a gap [3/4, 4/5]
        ],
        [{"var": sp.Symbol("b_t"), "range": (R(1, 2), 1), "mode": "enclose"}],  # not a coordinate of the box
    ],
)
def test_pieces_that_do_not_tile_the_coordinate_are_rejected(pieces):
    with pytest.raises(DerivationError, match="pieces"):
        check_step(_claim(R(2, 5), pieces=pieces), **OPTS)


def test_the_bhatia_davis_step_is_proved_and_a_smaller_constant_is_not():
    step = _bias("Bhatia–Davis: k × quadratic bound ≤ C(τ)")
    res = check_step(step, **BIAS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, step.domain), res.method
    assert "integral enclosure" in res.method
    # the remainder's constant 9/10 C(τ): the given remainder no longer matches, and stated so it matches, the
    # t-space claim is false near the maximum of the per-anchor constant
    name, params = step.route
    smaller = sp.Rational(9, 10) * step.rhs
    params = {**params, "remainder": params["remainder"] - step.rhs + smaller, "attack": None}
    planted = dataclasses.replace(step, rhs=smaller, route=(name, params))
    assert check_step(planted, **BIAS).verdict is not Verdict.PROVED


def test_a_moment_map_that_misses_an_end_is_not_proved():
    """Z = m e^{2t/τ} reaches M at t = 1; m e^{t/τ} stops at e^{0}: the claim would be proved on part of Z's range."""
    from infonce_bounds.derivations.bias_forms import _W1, W_MAX, W_MIN
    from infonce_bounds.derivations.symbols import t, tau

    step = _bias("Bhatia–Davis: k × quadratic bound ≤ C(τ)")
    name, params = step.route
    bounds = {**params["bounds"], _W1: (W_MIN, W_MAX, sp.Lambda(t, W_MIN * sp.exp(t / tau)))}
    res = check_step(dataclasses.replace(step, route=(name, {**params, "bounds": bounds, "attack": None})), **BIAS)
    assert res.verdict is not Verdict.PROVED and "does not run from" in res.method


def test_the_min_chain_proves_the_finite_k_bound_and_not_a_min_with_a_wrong_entry():
    from infonce_bounds.derivations.bias_forms import bias_bound, bias_bound_k_free
    from infonce_bounds.derivations.symbols import k

    step = _bias("finite-k bias bound")
    res = check_step(step, **BIAS)
    assert res.verdict is Verdict.PROVED, res.method
    planted = dataclasses.replace(step, rhs=sp.Min(bias_bound() / 2, bias_bound_k_free()))  # C/(2k): no link says so
    assert check_step(planted, **BIAS).verdict is not Verdict.PROVED
    # a link that does not start at the claim's left side: not a min chain, and its joins fail
    lhs = step.lhs
    links = [Link(lhs, bias_bound(), cite="bias_bound / C(τ)/k bound"), Link(lhs / k, bias_bound_k_free(), cite="")]
    assert check_step(dataclasses.replace(step, links=links), **BIAS).verdict is not Verdict.PROVED


def test_a_chain_link_with_a_wrong_factor_on_a_placeholder_is_not_proved():
    """The C(τ)/k chain's second link is k·QB ≤ C times 1/k; times 1 (C − k·QB vs C/k − QB) the identity fails."""
    step = _bias("C(τ)/k bound")
    first, second = step.links
    planted = dataclasses.replace(step, links=[first, dataclasses.replace(second, factor=sp.Integer(1))])
    assert check_step(planted, **BIAS).verdict is not Verdict.PROVED
