"""The touching-curve route (``checks/touching_curve.py``): gap ≥ 0 in 2–3 variables with gap ≡ 0 on a closed-form
curve or a face of the box. True claims of each kind are proved with the certificate named in the reduction;
planted false ones (a wrong constant near the zero curve, a zero curve of the wrong curvature, a face where the gap
is not identically 0, a chord on the wrong side) are never proved, and the route never refutes."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks.routes import ROUTES
from infonce_bounds.derivations.checks.touching_curve import _faces, prove_touching_curve, zero
from infonce_bounds.derivations.ledger import Domain, Step
from infonce_bounds.derivations.symbols import a, tau

x, y, z, th = sp.symbols("x y z theta", real=True)
QUICK = {"touching_curve_seconds": 6.0}
L = 2 / tau
CHORD = sp.log(1 + (sp.exp(L) - 1) * th) - th * L  # log's chord on [m, M] in θ = (u − m)/(M − m): 0 at θ = 0, 1
TAU_TH = Domain({tau: (sp.Rational(1, 10), 100), th: (0, 1)})


def _proved(gap, dom, opts=QUICK):
    out = prove_touching_curve(gap, dom, False, opts)
    return out is not None and out.proved, out


def test_taylor_of_exp_along_the_diagonal_is_proved():
    ok, out = _proved(sp.exp(y) - sp.exp(x) * (1 + y - x), Domain({x: (-2, 2), y: (-3, 3)}))
    assert ok, out
    assert "curve" in out.method and "order 2" in out.reduction


def test_a_parabola_of_zeros_and_three_variables_are_proved():
    ok, out = _proved(sp.log(y**2) + x / y**2 - 1 - sp.log(x), Domain({x: (sp.Rational(1, 2), 4), y: (1, 2)}))
    assert ok, out
    ok, out = _proved(sp.exp(x + y) - sp.exp(z) * (1 + x + y - z), Domain({x: (-1, 1), y: (-1, 1), z: (-1, 1)}))
    assert ok, out


def test_curve_solved_for_a_transcendental_closed_form():
    """D(τ) − φ ≥ 0 (bias_bound's k-free bound): zero along θ = τ/2 − 1/(e^{2/τ} − 1), a log identity to reduce."""
    m, big_m = sp.exp(-1 / tau), sp.exp(1 / tau)
    zk = m + (big_m - m) * th
    gap = zk * big_m * L / (sp.exp(L) - 1) - 1 - (sp.log(zk) + 1 / tau + sp.log(L) - sp.log(sp.exp(L) - 1))
    ok, out = _proved(gap, Domain({tau: (sp.Rational(1, 1000), 100), th: (0, 1)}), {})
    assert ok, out


def test_chord_of_a_concave_section_is_proved_and_the_wrong_side_is_not():
    ok, out = _proved(CHORD, TAU_TH)
    assert ok, out
    ok, out = _proved(-CHORD, TAU_TH)
    assert not ok, out


def test_a_wrong_constant_near_the_curve_is_not_proved():
    """log a + x ≥ (u − 1) − 0.49(u − 1)², u = a eˣ: fails near u = 1 (g(a) > 1/2 there, 0.49 is too small)."""
    u = a * sp.exp(x)
    gap = sp.log(a) + x - ((u - 1) - sp.Rational(49, 100) * (u - 1) ** 2)
    ok, out = _proved(gap, Domain({a: (sp.Rational(1, 10**6), 1 - sp.Rational(1, 10**6)), x: (0, 20)}))
    assert not ok, out


def test_a_zero_curve_of_the_wrong_curvature_is_not_proved():
    """(y − x)²(x − 1/2): gap ≡ 0 and ∂gap ≡ 0 on y = x, but ∂²gap < 0 for x < 1/2 (false off the curve there)."""
    ok, out = _proved((y - x) ** 2 * (x - sp.Rational(1, 2)), Domain({x: (0, 1), y: (0, 1)}))
    assert not ok, out


def test_a_face_where_the_gap_is_not_identically_zero_is_not_a_zero_face():
    """The chord less 10⁻⁹(1 − θ): θ = 0 is not a zero face (−10⁻⁹ there), so the claim is false and not proved."""
    gap = CHORD - sp.Rational(1, 10**9) * (1 - th)
    assert all(not (f_[0] == th and f_[1] == 0) for f_ in _faces(gap, TAU_TH.ranges))
    ok, out = _proved(gap, TAU_TH)
    assert not ok, out


def test_the_route_never_refutes_and_does_not_apply_outside_its_shape():
    assert prove_touching_curve(x - y, Domain({x: (0, 1), y: (0, 1)}), True, QUICK) is None  # strict
    assert prove_touching_curve(sp.exp(x) - 1 - x, Domain({x: (-1, 1)}), False, QUICK) is None  # one variable
    assert prove_touching_curve(x**2 + y**2 + 1, Domain({x: (0, 1), y: (0, 1)}), False, QUICK) is None  # no zeros
    with pytest.raises(TypeError, match="domain"):
        prove_touching_curve(x - y, {x: (0, 1)}, False, QUICK)


def test_log_identities_on_the_curve_reduce_symbolically():
    assert zero(sp.log(tau * (sp.exp(L) - 1) * sp.exp(-L) / 2) - sp.log(tau) - sp.log(sp.exp(L) - 1) + sp.log(2) + L)
    assert not zero(sp.log(tau) - tau)


def test_registered_and_reached_from_a_step():
    assert "touching curve" in ROUTES
    from infonce_bounds.derivations.checks.reentry import check_step

    step = Step(
        "log tangent at x",
        sp.log(y),
        sp.log(x) + (y - x) / x,
        kind="inequality",
        relation="<=",
        domain=Domain({x: (sp.Rational(1, 10), 10), y: (sp.Rational(1, 10), 10)}),
    )
    res = check_step(step, trials=2000)
    assert str(res.verdict) == "proved", res.method
