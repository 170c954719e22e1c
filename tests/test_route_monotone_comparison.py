"""The route "monotone comparison" (``checks/monotone_comparison.py``): gap = w·(G(p) − G(q)), w ≥ 0, p and q in
order and G monotone on their range (by G' or by an integral form, which allows a removable 0/0 of G's closed form).

It proves bias_bound's quadratic lower bound of log; it must not prove a claim whose identity, weight, order or
monotonicity fails, nor use an integral form whose antiderivative is wrong or a removable point it was not told of;
a malformed hint is an error naming the parameter."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers

OPTS = {**DEFAULTS, "trials": 1500, "seed": 0}
R = sp.Rational
a = sp.Symbol("a_mc", positive=True)
x = sp.Symbol("x_mc", real=True)
y = sp.Symbol("y_mc", real=True)
t = sp.Symbol("t_mc", real=True)
v = sp.Symbol("v_mc", positive=True)
G_CLOSED = (v - 1 - sp.log(v)) / (v - 1) ** 2
U = a * sp.exp(x)
BOX = Domain({a: (R(1, 10**6), 1 - R(1, 10**6)), x: (0, 20)})


def _g_hint(**over):
    hint = {
        "G": sp.Lambda(v, G_CLOSED),
        "weight": (U - 1) ** 2,
        "p": a,
        "q": U,
        "direction": "decreasing",
        "integral": sp.Integral(t / (1 + t * (v - 1)), (t, 0, 1)),
        "antiderivative": t / (v - 1) - sp.log(1 + t * (v - 1)) / (v - 1) ** 2,
        "removable": [1],
        "name": "g",
    }
    return {**hint, **over}


def _quad(rhs_shift=0, box=BOX, **over):
    rhs = (U - 1) - G_CLOSED.subs(v, a) * (U - 1) ** 2 + rhs_shift
    return Step(
        "quadratic lower bound of log",
        sp.log(a) + x,
        rhs,
        kind="inequality",
        relation=">=",
        domain=box,
        route=("monotone comparison", _g_hint(**over)),
    )


def test_the_quadratic_lower_bound_of_log_is_proved_on_the_whole_box():
    """Equality on x = 0 and along x = −log a, meeting at the corner a → 1: the reduction proves it on the box."""
    res = check_step(_quad(), **OPTS)
    assert res.verdict is Verdict.PROVED, res.method
    assert covers(res.covered, BOX)
    assert "g decreasing" in res.method and "removable point" in res.method
    assert "-t_mc**2/(t_mc*v_mc - t_mc + 1)**2 ≤ 0" in res.method


def test_the_bias_bound_step_names_the_route_and_is_proved():
    from infonce_bounds.derivations import catalogue

    (step,) = [s_ for s_ in catalogue.get("bias_bound").steps if s_.name == "quadratic lower bound of log"]
    assert step.route[0] == "monotone comparison"
    res = check_step(step, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, step.domain), res.method


@pytest.mark.parametrize(
    "shift, over, why",
    [
        (R(1, 1000), {}, "does not reduce to 0"),  # off by 1/1000 (equal at x = 0): the identity fails
        (0, {"direction": "increasing"}, "the order"),  # the wrong direction: p ≥ q is then needed, and fails
        (0, {"antiderivative": t / (v - 1)}, "H(t1) − H(t0) = G"),  # a wrong antiderivative
        (0, {"integral": sp.Integral(t**2 / (1 + t * (v - 1)), (t, 0, 1))}, "∂_t H = h"),  # a wrong integrand
        (0, {"removable": []}, "removable points"),  # 0/0 at v = 1 not declared: H is not defined there
    ],
)
def test_a_wrong_part_is_not_proved(shift, over, why):
    res = check_step(_quad(shift, **over), **OPTS)
    assert res.verdict is not Verdict.PROVED
    assert why in res.method, res.method


def test_a_false_claim_with_a_consistent_hint_is_refuted_or_unproved():
    """The claim reversed (log u ≤ …) with g said increasing and p, q swapped: false away from the zero set."""
    st = _quad(direction="increasing", p=U, q=a)
    st = Step(st.name, st.rhs, st.lhs, kind="inequality", relation=">=", domain=BOX, route=st.route)
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.REFUTED, res.method
    assert "sign of ∂_v h" in res.method  # identity, weight and order hold: the monotonicity is what fails


def test_the_removable_set_must_have_empty_interior():
    """p ≡ 1 on the box: the identity says nothing anywhere (G(1) is 0/0), so nothing is proved."""
    b = sp.Symbol("b_mc", real=True)
    st = Step(
        "p constant at the removable point",
        0,
        (b - 1) ** 2,
        kind="inequality",
        relation="<=",
        domain=Domain({b: (2, 3)}),
        route=("monotone comparison", _g_hint(weight=(b - 1) ** 2, p=sp.Integer(1), q=b)),
    )
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED


def test_weight_sign_order_and_non_monotone_g_by_derivative():
    box = Domain({x: (0, 2), y: (0, 2)})

    def st(lhs, rhs, **hint):
        base = {"G": sp.Lambda(v, 1 / (1 + v)), "weight": 1, "p": x, "q": x + y, "direction": "decreasing"}
        return Step(
            "c", lhs, rhs, kind="inequality", relation=">=", domain=box, route=("monotone comparison", {**base, **hint})
        )

    assert check_step(st(y**2 / (1 + x), y**2 / (1 + x + y), weight=y**2), **OPTS).verdict is Verdict.PROVED
    bad = [
        (st(-(y**2) / (1 + x), -(y**2) / (1 + x + y), weight=-(y**2)), "the weight"),
        (st(1 / (1 + x + y), 1 / (1 + x), p=x + y, q=x), "the order"),
        (st((x - 1) ** 2, (x + y - 1) ** 2, G=sp.Lambda(v, (v - 1) ** 2)), "sign of G'"),
    ]
    for step, why in bad:
        res = check_step(step, **OPTS)
        assert res.verdict is not Verdict.PROVED and why in res.method, res.method


@pytest.mark.parametrize(
    "over, name",
    [
        ({"direction": "down"}, "direction"),
        ({"G": 1 / (1 + v)}, "G"),
        ({"integral": None, "antiderivative": None}, "removable"),  # removable points without an integral form
        ({"antiderivative": None}, "antiderivative"),
        ({"integral": sp.Integral(t, (t, 1, 0))}, "integral"),  # t0 > t1
    ],
)
def test_a_malformed_hint_names_the_parameter(over, name):
    hint = {k_: v_ for k_, v_ in _g_hint(**over).items() if v_ is not None}
    st = Step("m", sp.log(a) + x, 0, kind="inequality", relation=">=", domain=BOX, route=("monotone comparison", hint))
    with pytest.raises(DerivationError, match=f"parameter {name}"):
        check_step(st, **OPTS)


def _per_anchor():
    from infonce_bounds.derivations import catalogue

    (step,) = [s_ for s_ in catalogue.get("bias_bound").steps if s_.name == "per-anchor quadratic bound"]
    return step


def test_the_per_anchor_bound_is_proved_through_the_expectation_route_with_the_pointwise_hint():
    """E over U = Z_k/Z of U − 1 − log U ≤ g(a)(U − 1)², U ≥ a = m/Z: the scalarised pointwise claim is proved by
    this route (g(m/Z) is the integral form in the statement: defined at Z = m too)."""
    step = _per_anchor()
    assert step.route[0] == "expectation" and step.route[1]["pointwise_route"][0] == "monotone comparison"
    res = check_step(step, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, step.domain), res.method
    assert "proved by route monotone comparison" in res.method


@pytest.mark.parametrize("change", ["half the bound", "wrong direction"])
def test_a_wrong_per_anchor_claim_or_hint_is_not_proved(change):
    import dataclasses

    from infonce_bounds.derivations.bias_forms import QuadBound
    from infonce_bounds.derivations.symbols import k, tau

    step = _per_anchor()
    name, params = step.route
    if change == "half the bound":  # the pointwise form no longer matches: E[T] ≠ big − small
        step = dataclasses.replace(step, rhs=QuadBound(tau, k) / 2)
    else:  # g said increasing: then a ≥ U is needed, and fails
        hname, hp = params["pointwise_route"]
        params = {**params, "pointwise_route": (hname, {**hp, "direction": "increasing"})}
        step = dataclasses.replace(step, route=(name, params))
    res = check_step(step, **OPTS)
    assert res.verdict is not Verdict.PROVED, res.method
