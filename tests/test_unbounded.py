"""The unbounded-range route (``derivations.checks.unbounded``): claims on ``[a, ∞)`` and ``(−∞, ∞)`` are
proved by certified tails (Arb on unbounded boxes, monotone tails, dominance of leading terms through
``log big − log small``) and a bounded middle (branch and bound or the touching route); planted false
claims are never proved."""

from __future__ import annotations

import time

import pytest
import sympy as sp

from infonce_bounds.derivations.checks.touching import RouteOutcome
from infonce_bounds.derivations.checks.unbounded import prove_unbounded
from infonce_bounds.derivations.ledger import Domain

x, a = sp.symbols("x a", real=True)
R = sp.Rational
oo = sp.oo

TRUE = {
    "log(1+x) <= x, unbounded": (x - sp.log(1 + x), {x: (0, oo)}),
    "exp above its tangent": (sp.exp(x) - 1 - x, {x: (-oo, oo)}),
    "log below x/e": (x / sp.E - sp.log(x), {x: (R(1, 1000), oo)}),
    "tanh below identity": (x - sp.tanh(x), {x: (0, oo)}),
    "cosh sub-gaussian on R": (sp.exp(x**2 / 2) - sp.cosh(x), {x: (-oo, oo)}),
    "softplus above identity (a decreasing tail)": (sp.log(1 + sp.exp(x)) - x, {x: (-oo, oo)}),
    "exp above x on (-inf, 3], strict": (sp.exp(x) - x, {x: (-oo, 3)}),
    "exp above x on (-inf, 3]": (sp.exp(x) - x, {x: (-oo, 3)}),
    "a bounded second variable": (sp.exp(x) - 1 - a * x, {x: (0, oo), a: (0, 1)}),
    # log(1 + e^x) = log 2 + x/2 + log cosh(x/2) ≤ log 2 + x/2 + x²/8: the right tail's derivative
    # x/4 + 1/2 − e^x/(1 + e^x) encloses to [−∞, ∞] on [X, ∞] as written, not with e^x factored out
    "softplus below its quadratic at 0 on R": (
        sp.log(2) + x / 2 + x**2 / 8 - sp.log(1 + sp.exp(x)),
        {x: (-oo, oo)},
    ),
}
STRICT = {"exp above x on (-inf, 3], strict"}

FALSE = {
    "exp above its quadratic on R": (sp.exp(x) - 1 - x - x**2 / 2, {x: (-oo, oo)}),
    "log(1+x) <= x - x^2/4": (x - x**2 / 4 - sp.log(1 + x), {x: (0, oo)}),
    "cosh with 0.49 on R": (sp.exp(R(49, 100) * x**2) - sp.cosh(x), {x: (-oo, oo)}),
    "log below x/e minus 1e-9": (x / sp.E - sp.log(x) - R(1, 10**9), {x: (R(1, 100), oo)}),
    "tanh below x - x^3/4": (x - x**3 / 4 - sp.tanh(x), {x: (0, oo)}),
    "exp above its tangent, strict": (sp.exp(x) - 1 - x, {x: (-oo, oo)}),
    "softplus above identity, strict (its limit is 0)": (sp.log(1 + sp.exp(x)) - x, {x: (-oo, oo)}),
    "softplus above x + 1e-9": (sp.log(1 + sp.exp(x)) - x - R(1, 10**9), {x: (0, oo)}),
    # the same quadratic with 8.08 (1% off): false for x² < 0.238, its tails still true
    "softplus below its quadratic with 8.08": (
        sp.log(2) + x / 2 + x**2 / R(808, 100) - sp.log(1 + sp.exp(x)),
        {x: (-oo, oo)},
    ),
}


def test_growing_exponentials_factored_out_is_an_identity():
    from infonce_bounds.derivations.checks.unbounded import at_infinity

    for e in (sp.log(1 + sp.exp(x)), sp.exp(x) / (1 + sp.exp(x)), x / 4 - sp.exp(2 * x) / (3 + sp.exp(2 * x) + x)):
        f = at_infinity(e, x)
        assert f != e and not f.has(sp.exp(x)) and not f.has(sp.exp(2 * x))
        for t in (-3, R(1, 2), 7, 40):
            assert abs(sp.N(e.subs(x, t) - f.subs(x, t), 40)) < 1e-30


@pytest.mark.parametrize("name", sorted(TRUE))
def test_true_unbounded_claims_are_proved(name):
    gap, ranges = TRUE[name]
    t0 = time.perf_counter()
    out = prove_unbounded(gap, Domain(ranges), name in STRICT, {})
    assert isinstance(out, RouteOutcome) and out.proved, (name, out)
    assert out.method.startswith("unbounded") and "tail" in out.reduction
    assert out.covered == {str(s_): (str(sp.sympify(lo)), str(sp.sympify(hi))) for s_, (lo, hi) in ranges.items()}
    assert time.perf_counter() - t0 < 10


@pytest.mark.parametrize("name", sorted(FALSE))
def test_planted_false_claims_are_never_proved(name):
    gap, ranges = FALSE[name]
    t0 = time.perf_counter()
    out = prove_unbounded(gap, Domain(ranges), "strict" in name, {})
    assert out is None or not out.proved, (name, out)
    assert out is None or out.covered is None
    assert time.perf_counter() - t0 < 20


def test_median_time_of_true_claims():
    times = []
    for name, (gap, ranges) in TRUE.items():
        t0 = time.perf_counter()
        assert prove_unbounded(gap, Domain(ranges), name in STRICT, {}).proved
        times.append(time.perf_counter() - t0)
    assert sorted(times)[len(times) // 2] < 2.0, times


def test_cosh_tail_is_a_dominance_argument():
    out = prove_unbounded(sp.exp(x**2 / 2) - sp.cosh(x), Domain({x: (-oo, oo)}), False, {})
    assert "log(big) − log(small)" in out.reduction and "touching" in out.reduction


def test_route_does_not_apply_to_bounded_or_doubly_unbounded_boxes():
    assert prove_unbounded(sp.exp(x) - 1 - x, Domain({x: (-1, 1)}), False, {}) is None
    assert prove_unbounded(sp.exp(x) + sp.exp(a), Domain({x: (0, oo), a: (0, oo)}), False, {}) is None
    with pytest.raises(TypeError, match="domain"):
        prove_unbounded(x, {x: (0, oo)}, False, {})


@pytest.mark.parametrize(
    "name", ["exp above its quadratic on R", "log(1+x) <= x - x^2/4", "log below x/e minus 1e-9", "cosh with 0.49 on R"]
)
def test_proof_machinery_alone_proves_no_false_claim(name, monkeypatch):
    # the float pre-filter only saves time: without it, tails and middle must still fail to prove
    from infonce_bounds.derivations.checks import unbounded

    monkeypatch.setattr(unbounded, "_negative_somewhere", lambda *args: False)
    gap, ranges = FALSE[name]
    out = prove_unbounded(gap, Domain(ranges), False, {})
    assert out is None or not out.proved, (name, out)
