"""The two normalisations of InfoNCE: stated relation, gap bounds, tightness, against mpmath."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from infonce_bounds.derivations import loss
from infonce_bounds.derivations.symbols import c, k, s, s_pos, tau


def _mp_losses(sp_, sn, t):
    num = mpmath.exp(mpmath.mpf(sp_) / t)
    tot = mpmath.fsum(mpmath.exp(mpmath.mpf(x) / t) for x in sn)
    std = -mpmath.log(num / (num + tot))
    avg = -mpmath.mpf(sp_) / t + mpmath.log(tot / len(sn))
    return std, avg


@pytest.mark.parametrize("t", ["0.05", "0.5", "5"])
def test_symbolic_losses_match_mpmath(mp50, rng, t):
    kk = 4
    sn = [float(x) for x in rng.uniform(-1, 1, kk)]
    sp_ = float(rng.uniform(-1, 1))
    sub = {tau: sp.Rational(t), s_pos: sp.Rational(sp_), **{s[i + 1]: sp.Rational(sn[i]) for i in range(kk)}}
    std_sym = loss.standard_loss(kk).doit().subs(sub).evalf(50)
    avg_sym = loss.averaged_loss(kk).doit().subs(sub).evalf(50)
    std, avg = _mp_losses(sp_, sn, mpmath.mpf(t))
    assert abs(mpmath.mpf(str(std_sym)) - std) < mpmath.mpf(10) ** -40
    assert abs(mpmath.mpf(str(avg_sym)) - avg) < mpmath.mpf(10) ** -40


def test_offset_bounds_hold_and_are_attained(mp50):
    # the gap ℓ − log k − ℓ_k attains its upper bound at s⁺ = 1, all s_j = −1, and its lower at the reverse
    t, kk = mpmath.mpf("0.3"), 5
    for sp_, sj, bound in (
        (1, -1, mpmath.log(1 + mpmath.exp(2 / t) / kk)),
        (-1, 1, mpmath.log(1 + mpmath.exp(-2 / t) / kk)),
    ):
        std, avg = _mp_losses(sp_, [sj] * kk, t)
        assert abs(std - mpmath.log(kk) - avg - bound) < mpmath.mpf(10) ** -40


def test_closing_formulas_are_the_logit_functions(mp50):
    cv = mpmath.mpf("0.7")
    assert (
        abs(loss.standard_from_logit(c).subs(c, sp.Float("0.7", 50)).evalf(50) - mpmath.log(1 + mpmath.exp(cv))) < 1e-40
    )
    assert sp.simplify(loss.averaged_from_logit(c, k) - (c - sp.log(k))) == 0


def test_k_times_offset_tends_to_positive_weight(mp50):
    # k (ℓ − log k − ℓ_k) → e^{s⁺/τ}/Z_k for fixed negatives' mean: check numerically at growing k
    t, sp_, zk = mpmath.mpf("0.5"), mpmath.mpf("0.3"), mpmath.mpf("1.7")
    target = mpmath.exp(sp_ / t) / zk
    errs = [abs(kk * mpmath.log(1 + mpmath.exp(sp_ / t) / (kk * zk)) - target) for kk in (10, 100, 1000)]
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 1e-3 * target
