"""Gâteaux derivatives against finite differences in mpmath; the second derivative's two faces."""

from __future__ import annotations

import mpmath
import sympy as sp

from infonce_bounds.derivations import gateaux
from infonce_bounds.derivations.symbols import h, mu, nu, t, tau, v, w


def _subs_point(rng, n=3):
    return {
        **{mu[i]: sp.Rational(float(rng.uniform(0.1, 1))) for i in range(1, n + 1)},
        **{nu[i]: sp.Rational(float(rng.uniform(0, 1))) for i in range(1, n + 1)},
        **{w[i]: sp.Rational(float(rng.uniform(0.2, 5))) for i in range(1, n + 1)},
    }


def test_first_derivative_matches_finite_difference(mp50, rng):
    pt = _subs_point(rng)
    F = gateaux.log_partition(gateaux.segment(), 3).subs(pt)
    f = lambda tt: mpmath.mpf(str(F.subs(t, sp.Float(mpmath.nstr(tt, 60), 60)).evalf(50)))  # noqa: E731
    fd = mpmath.diff(f, 0, h=mpmath.mpf("1e-12"))  # f is exact to 50 digits only: a fixed step
    exact = mpmath.mpf(str(gateaux.first_gateaux().subs(pt).evalf(50)))
    assert abs(fd - exact) < mpmath.mpf(10) ** -20 * max(1, abs(exact))


def test_second_derivative_is_minus_a_square_not_a_variance(mp50, rng):
    pt = _subs_point(rng)
    F = gateaux.log_partition(gateaux.segment(), 3).subs(pt)
    f = lambda tt: mpmath.mpf(str(F.subs(t, sp.Float(mpmath.nstr(tt, 60), 60)).evalf(50)))  # noqa: E731
    d2 = mpmath.diff(f, 0, 2, h=mpmath.mpf("1e-8"))
    assert abs(d2 + mpmath.mpf(str(gateaux.first_gateaux().subs(pt).evalf(50))) ** 2) < mpmath.mpf(10) ** -12


def test_path_derivatives_match_finite_differences(mp50, rng):
    kk = 4
    pt = {
        tau: sp.Rational(1, 5),
        **{v[i]: sp.Rational(float(rng.uniform(-1, 1))) for i in range(1, kk + 1)},
        **{h[i]: sp.Rational(float(rng.uniform(-1, 1))) for i in range(1, kk + 1)},
    }
    F = gateaux.path_loss(kk).doit().subs(pt)
    f = lambda tt: mpmath.mpf(str(F.subs(t, sp.Float(mpmath.nstr(tt, 60), 60)).evalf(50)))  # noqa: E731
    d1 = gateaux.path_first_derivative(kk).doit().subs(pt).subs(t, sp_half := sp.Rational(1, 2)).evalf(50)
    d2 = gateaux.path_second_derivative(kk).doit().subs(pt).subs(t, sp_half).evalf(50)
    assert abs(mpmath.diff(f, mpmath.mpf(0.5), h=mpmath.mpf("1e-12")) - mpmath.mpf(str(d1))) < mpmath.mpf(10) ** -20
    assert abs(mpmath.diff(f, mpmath.mpf(0.5), 2, h=mpmath.mpf("1e-8")) - mpmath.mpf(str(d2))) < mpmath.mpf(10) ** -12
    assert mpmath.mpf(str(d2)) >= 0
