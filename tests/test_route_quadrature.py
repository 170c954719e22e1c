"""Route "quadrature" (``checks/quadrature.py``): quadrature only proposes; the gate refutes; an antiderivative
proves by the fundamental theorem of calculus; without one a true identity is at most verified."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import check_step, refute
from infonce_bounds.derivations.checks import quadrature as Q
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict

FAST = {"trials": 2000, "seed": 0, "box_budget": 300, "spot_points": 4}
x = sp.Symbol("x_qr", real=True)
t = sp.Symbol("t_qr", real=True)
a = sp.Symbol("a_qr", positive=True)


def _step(lhs, integral, ranges, params):
    return Step("claim", lhs, integral, kind="identity", domain=Domain(ranges), route=("quadrature", params))


def test_a_true_identity_without_antiderivative_is_verified_not_proved():
    st = _step(sp.atan(x), sp.Integral(1 / (1 + t**2), (t, 0, x)), {x: (-3, 3)}, {})
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.VERIFIED and res.attacked and "t_qr" not in res.attacked


def test_the_antiderivative_proves_over_symbolic_limits():
    st = _step(sp.atan(x), sp.Integral(1 / (1 + t**2), (t, 0, x)), {x: (-3, 3)}, {"antiderivative": sp.atan(t)})
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.PROVED and res.covered == {"x_qr": ("-3", "3")}


def test_a_wrong_antiderivative_proves_nothing():
    st = _step(sp.atan(x), sp.Integral(1 / (1 + t**2), (t, 0, x)), {x: (-3, 3)}, {"antiderivative": sp.atan(2 * t) / 2})
    assert check_step(st, **FAST).verdict is Verdict.VERIFIED


def test_a_planted_wrong_identity_is_refuted_by_the_gate_at_an_exact_point():
    st = _step(sp.atan(x), sp.Integral(1 / (1 + t**2) * a, (t, 0, x)), {x: (1, 3), a: (2, 3)}, {})
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.REFUTED
    coords = {k_: v for k_, v in res.counterexample.items() if k_ not in refute.RESERVED}
    assert refute.replay(coords, st.lhs, st.rhs, "=", st.domain)


def test_a_disagreement_the_gate_cannot_confirm_is_undecided(monkeypatch):
    """Quadrature's relative difference is a tolerance, not a proof: without the gate it refutes nothing."""
    monkeypatch.setattr(Q, "confirm_float_point", lambda *a_, **kw: None)
    st = _step(sp.atan(x), sp.Integral(1 / (1 + t**2) * a, (t, 0, x)), {x: (1, 3), a: (2, 3)}, {})
    assert check_step(st, **FAST).verdict is Verdict.UNDECIDED


def test_a_pole_inside_the_range_is_ill_posed():
    st = _step(sp.log(1 + x), sp.Integral(1 / (1 + t), (t, 0, x)), {x: (-2, 1)}, {"antiderivative": sp.log(1 + t)})
    assert check_step(st, **FAST).verdict is Verdict.ILL_POSED


@pytest.mark.parametrize(
    "params, word", [({"points": 0}, "points"), ({"floor": {"tau": 1}}, "floor"), ({"nodes": 3}, "nodes")]
)
def test_a_malformed_hint_names_its_parameter(params, word):
    st = _step(sp.atan(x), sp.Integral(1 / (1 + t**2), (t, 0, x)), {x: (0, 1)}, params)
    with pytest.raises(DerivationError, match=word):
        check_step(st, **FAST)


def test_the_rhs_must_be_an_integral():
    st = Step("c", x, x, kind="identity", domain=Domain({x: (0, 1)}), route=("quadrature", {}))
    with pytest.raises(DerivationError, match="Integral"):
        check_step(st, **FAST)
