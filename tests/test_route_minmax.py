"""The lattice route (``checks/minmax.py``): lattice normal forms are exact, leaf pairs prove, cuts cover.

Planted false claims it must not prove sit beside true claims it proves; the contract cases are in
``tests/test_route_contract.py`` (``_minmax``)."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.minmax import Unsupported, _Box, normal_form, prove_lattice
from infonce_bounds.derivations.ledger import Domain, Step, Verdict

x = sp.Symbol("x_mm", real=True)
y = sp.Symbol("y_mm", real=True)
tau = sp.Symbol("tau_mm", positive=True)
R = sp.Rational
OPTS = {**DEFAULTS, "trials": 2000, "spot_points": 2}


def _value(forms, point, dnf=True):
    outer, inner = (max, min) if dnf else (min, max)
    return outer(inner(float(e.subs(point)) for e in cl) for cl in forms)


@pytest.mark.parametrize(
    "expr, ranges",
    [
        (4 * x / sp.Min(1, 2 * x), {x: (R(1, 100), 100)}),
        (sp.Max(y, x) * sp.Min(1, x) + sp.Abs(y - 1), {x: (0, 3), y: (0, 2)}),
        (sp.exp(sp.Min(x, -y)) - sp.Max(x, y) ** 3, {x: (-1, 1), y: (-1, 1)}),
        (sp.log(sp.Max(x, y)) * 2, {x: (1, 3), y: (1, 3)}),
    ],
)
def test_normal_forms_equal_the_expression(expr, ranges):
    lat = normal_form(expr, _Box(ranges))
    syms = list(ranges)
    for fr in (R(1, 7), R(1, 2), R(5, 6), R(99, 100)):
        for gr in (R(1, 3), R(3, 4)):
            pt = {syms[0]: ranges[syms[0]][0] + fr * (ranges[syms[0]][1] - ranges[syms[0]][0])}
            if len(syms) > 1:
                pt[syms[1]] = ranges[syms[1]][0] + gr * (ranges[syms[1]][1] - ranges[syms[1]][0])
            want = float(expr.subs(pt))
            assert _value(lat.dnf, pt) == pytest.approx(want, rel=1e-12, abs=1e-12)
            assert _value(lat.cnf, pt, dnf=False) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_no_rule_without_a_certified_sign():
    # x·Min(1, y) with x of both signs on the box: no exact rewrite, so no normal form (and no proof)
    with pytest.raises(Unsupported):
        normal_form(x * sp.Min(1, y), _Box({x: (-1, 1), y: (0, 2)}))
    with pytest.raises(Unsupported):  # 1/Min with arguments crossing 0
        normal_form(1 / sp.Min(1, x), _Box({x: (-1, 1)}))
    assert prove_lattice(x * sp.Min(1, y), x, Domain({x: (-1, 1), y: (0, 2)}), False).proved is False


def test_true_claims_proved_and_cover_the_box():
    dom = Domain({x: (R(-1, 2), 10)})
    out = prove_lattice(sp.Abs(sp.log(1 + x) - x), x**2 / (2 * sp.Min(1, 1 + x) ** 2), dom, False)
    assert out.proved and out.covered == {"x_mm": ("-1/2", "10")}
    assert "case split at x_mm = 0" in out.method


@pytest.mark.parametrize(
    "small, big, ranges, strict",
    [
        (sp.Abs(sp.log(1 + x) - x), x**2 / 2, {x: (R(-1, 2), 10)}, False),  # false for x < 0
        (sp.Min(x, y), (x + y) / 2 - R(1, 1000), {x: (0, 1), y: (0, 1)}, False),  # off at x = y
        (sp.Min(x, 1), x, {x: (0, 2)}, True),  # strict: equal for x ≤ 1
        (sp.Max(x, 1), x + R(1, 10**6), {x: (R(1, 2), 2)}, False),  # false below x = 1 - 1e-6
    ],
)
def test_planted_false_claims_not_proved(small, big, ranges, strict):
    out = prove_lattice(small, big, Domain(ranges), strict)
    assert out is None or not out.proved


def test_hinted_identity_proved_both_ways():
    st = Step("bt", tau * sp.Max(1, 2 / tau), sp.Max(tau, 2), domain=Domain({tau: (R(1, 1000), 100)}))
    st = Step(st.name, st.lhs, st.rhs, domain=st.domain, route=("lattice", {}))
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.PROVED and "both directions" in res.method
    assert res.covered == {"tau_mm": ("1/1000", "100")}


def test_hinted_false_identity_refuted_or_not_proved():
    # Max(1, 2/τ)·τ ≠ Max(τ, 3) for τ < 3: the identity checker's spot check and the gate decide
    st = Step("bad", tau * sp.Max(1, 2 / tau), sp.Max(tau, 3), domain=Domain({tau: (R(1, 1000), 100)}))
    st = Step(st.name, st.lhs, st.rhs, domain=st.domain, route=("lattice", {}))
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED
    # one direction holds (τ ∨ 2 ≤ τ ∨ 3): a half proof is no proof of the identity
    half = Step("half", sp.Max(tau, 3), sp.Max(tau, 2), domain=st.domain, route=("lattice", {}))
    assert check_step(half, **OPTS).verdict is not Verdict.PROVED


def test_hint_takes_no_parameters():
    from infonce_bounds.derivations.ledger import DerivationError

    st = Step("p", sp.Max(x, 1), sp.Max(1, x), domain=Domain({x: (0, 2)}), route=("lattice", {"split": x}))
    with pytest.raises(DerivationError, match="lattice"):
        check_step(st, **OPTS)


def test_a_constrained_domain_is_not_the_route_s_shape():
    # leaves are proved on the whole box: a domain cut by constraints is left to the other stages
    dom = Domain({x: (0, 2)}, constraints=(sp.Le(x, 1),))
    assert prove_lattice(sp.Min(x, 1), x, dom, False) is None
