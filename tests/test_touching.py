"""The touching-point route (``derivations.checks.touching``): claims whose two sides meet at points or
along a line are proved, each with the route's method, reduction and covered box; planted false claims
of the same shapes (a coefficient off, a sliver below a touching point) are never proved, and quickly."""

from __future__ import annotations

import time

import pytest
import sympy as sp

from infonce_bounds.derivations.checks.touching import RouteOutcome, const_sign, find_zeros_1d, prove_touching
from infonce_bounds.derivations.ledger import Domain

x, y, p, q, lam = sp.symbols("x y p q lambda", real=True)
R = sp.Rational
PQ = (R(1, 1000), R(999, 1000))


def _pinsker(c):
    return p * sp.log(p / q) + (1 - p) * sp.log((1 - p) / (1 - q)) - c * (p - q) ** 2


def _hoeffding(c):
    return c * lam**2 - sp.log(p * sp.exp(lam * (1 - p)) + (1 - p) * sp.exp(-lam * p))


def _softplus(t):
    return sp.log(1 + sp.exp(t))


TRUE = {
    "cosh sub-gaussian": (sp.exp(x**2 / 2) - sp.cosh(x), {x: (-50, 50)}),
    "exp above its tangent": (sp.exp(x) - 1 - x, {x: (-30, 30)}),
    "log below x/e (touching at e)": (x / sp.E - sp.log(x), {x: (R(1, 1000), 100)}),
    "tanh below identity": (x - sp.tanh(x), {x: (0, 40)}),
    "log(1+x) <= x": (x - sp.log(1 + x), {x: (0, 100)}),
    "Pinsker, two points": (_pinsker(2), {p: PQ, q: PQ}),
    "Hoeffding two-point": (_hoeffding(R(1, 8)), {p: (0, 1), lam: (-20, 20)}),
    "softplus 1-Lipschitz": (sp.Abs(x - y) - _softplus(x) + _softplus(y), {x: (-40, 40), y: (-40, 40)}),
    "convex only near the line (strip)": ((x - y) ** 2 - (x - y) ** 4 / 60, {x: (-3, 3), y: (-3, 3)}),
    "a double zero at 1/3": ((x - R(1, 3)) ** 2 * sp.exp(x), {x: (-2, 2)}),
}

FALSE = {
    "cosh with 0.49": (sp.exp(R(49, 100) * x**2) - sp.cosh(x), {x: (-50, 50)}),
    "log below x/e minus 1e-9": (x / sp.E - sp.log(x) - R(1, 10**9), {x: (R(1, 100), 100)}),
    "Pinsker with 2.01": (_pinsker(R(201, 100)), {p: PQ, q: PQ}),
    "Hoeffding with 1/9": (_hoeffding(R(1, 9)), {p: (0, 1), lam: (-20, 20)}),
    "exp above its quadratic": (sp.exp(x) - 1 - x - x**2 / 2, {x: (-30, 30)}),
    "log(1+x) <= x - x^2/4": (x - x**2 / 4 - sp.log(1 + x), {x: (0, 100)}),
    "tanh cubic": (x - x**3 / 4 - sp.tanh(x), {x: (0, 1)}),
    "strip claim false at the corners": ((x - y) ** 2 - (x - y) ** 4 / 35, {x: (-3, 3), y: (-3, 3)}),
    "softplus 0.9-Lipschitz": (R(9, 10) * sp.Abs(x - y) - _softplus(x) + _softplus(y), {x: (-40, 40), y: (-40, 40)}),
}


@pytest.mark.parametrize("name", sorted(TRUE))
def test_true_touching_claims_are_proved(name):
    gap, ranges = TRUE[name]
    t0 = time.perf_counter()
    out = prove_touching(gap, Domain(ranges), False, {})
    assert isinstance(out, RouteOutcome) and out.proved, (name, out)
    assert out.method.startswith("touching") and out.reduction
    # the covered region is the whole stated box, as exact strings
    assert out.covered == {str(s_): (str(sp.sympify(lo)), str(sp.sympify(hi))) for s_, (lo, hi) in ranges.items()}
    assert time.perf_counter() - t0 < 10


@pytest.mark.parametrize("name", sorted(FALSE))
def test_planted_false_claims_are_never_proved(name):
    gap, ranges = FALSE[name]
    t0 = time.perf_counter()
    out = prove_touching(gap, Domain(ranges), False, {})
    assert out is None or not out.proved, (name, out)
    assert out is None or out.covered is None
    assert time.perf_counter() - t0 < 15


def test_median_time_of_true_claims():
    times = []
    for gap, ranges in TRUE.values():
        t0 = time.perf_counter()
        assert prove_touching(gap, Domain(ranges), False, {}).proved
        times.append(time.perf_counter() - t0)
    assert sorted(times)[len(times) // 2] < 2.0, times


def test_exact_snap_of_e_and_refusal_of_a_near_zero():
    # log x ≤ x/e touches at x = e: the float estimate is snapped to E and checked exactly
    assert find_zeros_1d(x / sp.E - sp.log(x), x, R(1, 1000), R(100)) == [sp.E]
    # a sliver of 1e-9 below: no exact zero, so the route does not apply (it never refutes)
    assert find_zeros_1d(x / sp.E - sp.log(x) - R(1, 10**9), x, R(1, 100), R(100)) == []


def test_signs_are_decided_by_arb_or_exactly():
    assert const_sign(sp.E - R(27183, 10000)) == -1  # e = 2.71828… < 2.7183
    assert const_sign(sp.log(sp.E) - 1) == 0
    assert const_sign(sp.pi - R(314159, 100000)) == 1


def test_route_does_not_apply_where_it_should_not():
    assert prove_touching(sp.exp(x) - 1 - x, Domain({x: (-1, 1)}), True, {}) is None  # strict
    assert prove_touching(sp.exp(x) - 1 - x, Domain({x: (0, sp.oo)}), False, {}) is None  # unbounded
    assert prove_touching(sp.exp(x) + 1, Domain({x: (-1, 1)}), False, {}) is None  # no zero
    k = sp.Symbol("k", integer=True, positive=True)
    assert prove_touching((x - 1) ** 2 * k, Domain({x: (0, 2), k: (1, 5)}), False, {}) is None
    with pytest.raises(TypeError, match="domain"):
        prove_touching(x**2, {x: (0, 1)}, False, {})


def test_called_as_check_inequality_would_call_it():
    # the gap of a Step, as check_inequality forms it: big − small, with the claim's relation
    from infonce_bounds.derivations.checks.sampling import _sides
    from infonce_bounds.derivations.ledger import Step

    step = Step(
        "Pinsker, two points",
        p * sp.log(p / q) + (1 - p) * sp.log((1 - p) / (1 - q)),
        2 * (p - q) ** 2,
        kind="inequality",
        relation=">=",
        domain=Domain({p: PQ, q: PQ}),
    )
    small, big, strict = _sides(step)
    out = prove_touching(big - small, step.domain, strict, {"box_budget": 1500})
    assert out.proved and out.covered == {"p": ("1/1000", "999/1000"), "q": ("1/1000", "999/1000")}
    assert "p = q" in out.method
