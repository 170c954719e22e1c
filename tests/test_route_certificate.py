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


def test_termwise_sign_proves_a_sum_of_products_whose_enclosure_straddles_zero():
    """The C_B certificate of bias_bound: (chord gap)·P + (1 − e^{−2/τ})/τ·[…]; the chord gap is tight at both ends
    of t ∈ [0, 1], so the product's enclosure straddles 0 where each factor's sign is certified."""
    t = sp.Symbol("t_cr", real=True)
    rho = sp.exp(2 / tau)
    chord = (1 - t) * (1 - 1 / rho) - (sp.exp(-2 * t / tau) - 1 / rho)
    cert = chord * t / tau * (1 + t / (3 * tau)) + (1 - 1 / rho) / tau * (
        (t - sp.Rational(1, 2)) ** 2 + (sp.Rational(1, 4) - t**2 + t**3) / (3 * tau)
    )
    dom = Domain({t: (0, 1), tau: (sp.Rational(1, 1000), 100)})
    opts = {"box_budget": 300, "max_dims": 4}
    got = CR.termwise_sign(cert, dom, opts)
    assert got is not None and covers(got[0], dom)
    # a term of the wrong sign somewhere (the chord gap minus 1/100) withholds the proof
    assert CR.termwise_sign((chord - sp.Rational(1, 100)) * t + (t - sp.Rational(1, 2)) ** 2, dom, opts) is None


def test_termwise_sign_needs_every_factor_signed():
    # x(x − 1/2) < 0 on (0, 1/2): no termwise proof; (x − 1/2)² ≥ 0 by SymPy's sign even though x − 1/2 is not
    dom = Domain({x: (0, 1)})
    assert CR.termwise_sign(x * (x - sp.Rational(1, 2)), dom, {"box_budget": 300, "max_dims": 4}) is None
    st = _step(x / 2, "<=", x**2, {x: (0, 1)}, {"certificate": x * (x - sp.Rational(1, 2))})
    assert check_step(st, **FAST).verdict is not Verdict.PROVED


def test_one_combination_signs_a_factor_through_its_monomial():
    """c_A − e^{−y}h(y) with y = 2t/τ: the box in (t, τ) cannot resolve the maximum along y ≈ 1.15, the line in y can."""
    t = sp.Symbol("t_cr", real=True)
    y = 2 * t / tau
    f = sp.Rational(2163, 10000) - sp.exp(-y) * (y / (1 - sp.exp(-y)) - 1)
    dom = Domain({t: (sp.Rational(1, 10**9), 1), tau: (sp.Rational(1, 1000), 100)})
    got = CR.one_combination_sign(f, dom, 1500)
    assert got is not None and covers(got[0], dom) and "t_cr/tau_cr" in got[1]
    # planted false: the constant 0.2162 is below the maximum 0.216216… of e^{−y}h(y)
    assert CR.one_combination_sign(f - sp.Rational(1, 10**4), dom, 1500) is None
    # not a function of one monomial: no reduction
    assert CR.one_combination_sign(f + t - t**2, dom, 1500) is None
    # the monomial's other variable reaches 0 (t = τ·W is undefined through W there): no reduction
    assert CR.one_combination_sign(f, Domain({t: (0, 1), tau: (0, 100)}), 1500) is None
