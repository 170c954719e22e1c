"""Route "certificate" (``checks/certificate.py``): a factored gap proves, a wrong certificate only withholds the
proof, every refutation replays through the gate, a malformed hint names its parameter."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import certificate as CR
from infonce_bounds.derivations.checks import check_step, refute
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers

FAST = {"trials": 2000, "seed": 0, "box_budget": 300}
x = sp.Symbol("x_cr", real=True)
tau = sp.Symbol("tau_cr", positive=True)
k = sp.Symbol("k_cr", integer=True, positive=True)


def _step(lhs, rel, rhs, ranges, params, name="claim"):
    return Step(name, lhs, rhs, kind="inequality", relation=rel, domain=Domain(ranges), route=("certificate", params))


def test_a_tight_bound_over_an_unbounded_k_is_proved_on_its_domain():
    """M_k = k e^{2/τ}/(e^{2/τ} + k − 1) ≤ e^{2/τ}, equal at k = 1: its factored gap proves it for every k."""
    e2 = sp.exp(2 / tau)
    st = _step(
        k * e2 / (e2 + k - 1),
        "<=",
        e2,
        {tau: (sp.Rational(1, 10), 10), k: (1, sp.oo)},
        {"certificate": e2 * (e2 - 1) / (e2 + k - 1)},
    )
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.PROVED and covers(res.covered, st.domain)


def test_a_planted_false_bound_is_refuted_at_a_point_the_gate_replays():
    e2 = sp.exp(2 / tau)
    st = _step(
        k * e2 / (e2 + k - 1),
        "<=",
        e2 - sp.Rational(1, 100),
        {tau: (sp.Rational(1, 10), 10), k: (1, sp.oo)},
        {"certificate": e2 * (e2 - 1) / (e2 + k - 1) - sp.Rational(1, 100)},
    )
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.REFUTED
    coords = {k_: v for k_, v in res.counterexample.items() if k_ not in refute.RESERVED}
    assert refute.replay(coords, st.lhs, st.rhs, "<=", st.domain)


def test_a_counterexample_the_gate_does_not_confirm_refutes_nothing(monkeypatch):
    """The route replays every counterexample through ``refute.confirm``: one it does not confirm is no refutation."""
    monkeypatch.setattr(CR, "confirm", lambda *a, **kw: None)
    st = _step(x**2, "<=", x, {x: (0, 2)}, {"certificate": x * (1 - x)})
    res = check_step(st, **FAST)
    assert res.verdict is not Verdict.REFUTED and res.verdict is not Verdict.PROVED


def test_a_strict_claim_is_not_proved_by_a_nonnegative_certificate():
    st = _step(x**2, "<", x, {x: (0, 1)}, {"certificate": x * (1 - x)})
    assert check_step(st, **FAST).verdict is not Verdict.PROVED


def test_an_undefined_claim_is_ill_posed():
    st = _step(sp.log(x), "<=", x - 1, {x: (-1, 2)}, {"certificate": x - 1 - sp.log(x)})
    assert check_step(st, **FAST).verdict is Verdict.ILL_POSED


@pytest.mark.parametrize(
    "params, word",
    [({"certificate": x, "reduction": "magic"}, "reduction"), ({}, "certificate"), ({"certificate": x, "z": 1}, "z")],
)
def test_a_malformed_hint_names_its_parameter(params, word):
    st = _step(0, "<=", x, {x: (0, 1)}, params)
    with pytest.raises(DerivationError, match=word):
        check_step(st, **FAST)


def test_an_identity_is_not_the_route_s_shape():
    st = Step("x = x", x, x, kind="identity", domain=Domain({x: (0, 1)}), route=("certificate", {"certificate": 0}))
    with pytest.raises(DerivationError, match="inequalities"):
        CR.prove_certificate(st, st.route[1], {"box_budget": 10, "max_dims": 4})
