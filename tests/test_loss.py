"""The InfoNCE loss ℓ of the paper's (14), the DCL loss ℓ̃ and the standard loss: stated relations, gap
bounds, tightness, against mpmath; the loss names and the deprecated alias."""

from __future__ import annotations

import dataclasses

import mpmath
import pytest
import sympy as sp

from infonce_bounds.derivations import loss
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import Verdict
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
    dcl_sym = loss.dcl_loss(kk).doit().subs(sub).evalf(50)
    ell_sym = loss.infonce_loss(kk).doit().subs(sub).evalf(50)
    std, avg = _mp_losses(sp_, sn, mpmath.mpf(t))
    # the paper's (14), straight from its printed form: log(1/k + (1/k) Σ_j e^{(s_j − s⁺)/τ})
    ell = mpmath.log((1 + mpmath.fsum(mpmath.exp((mpmath.mpf(x) - mpmath.mpf(sp_)) / mpmath.mpf(t)) for x in sn)) / kk)
    assert abs(mpmath.mpf(str(std_sym)) - std) < mpmath.mpf(10) ** -40
    assert abs(mpmath.mpf(str(dcl_sym)) - avg) < mpmath.mpf(10) ** -40
    assert abs(mpmath.mpf(str(ell_sym)) - ell) < mpmath.mpf(10) ** -40
    assert abs(ell - (std - mpmath.log(kk))) < mpmath.mpf(10) ** -40


def test_offset_bounds_hold_and_are_attained(mp50):
    # the gap ℓ − ℓ̃ = ℓ_std − log k − ℓ̃ attains its upper bound at s⁺ = 1, all s_j = −1, and its lower at the reverse
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
    assert sp.simplify(loss.dcl_from_logit(c, k) - (c - sp.log(k))) == 0
    assert sp.simplify(loss.infonce_from_logit(c, k) - (loss.standard_from_logit(c) - sp.log(k))) == 0


def test_k_times_offset_tends_to_positive_weight(mp50):
    # k (ℓ − ℓ̃) → e^{s⁺/τ}/Z_k for fixed negatives' mean: check numerically at growing k
    t, sp_, zk = mpmath.mpf("0.5"), mpmath.mpf("0.3"), mpmath.mpf("1.7")
    target = mpmath.exp(sp_ / t) / zk
    errs = [abs(kk * mpmath.log(1 + mpmath.exp(sp_ / t) / (kk * zk)) - target) for kk in (10, 100, 1000)]
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 1e-3 * target


def _loss_step(name_start):
    return next(st for st in loss.derivations()[0].steps if st.name.startswith(name_start))


def test_paper_identity_step_proved_and_planted_wrong_refuted():
    """ℓ (14) = ℓ_std − log k is proved; with + log k, or against the DCL loss, it is refuted."""
    good = _loss_step("the paper's ℓ (14) = standard InfoNCE − log k")
    assert good.provenance == "paper" and good.reference
    assert check_step(good).verdict == Verdict.PROVED
    for bad_rhs in (loss.standard_loss() + sp.log(k), loss.dcl_loss()):
        bad = dataclasses.replace(good, name="planted: wrong normalisation of (14)", rhs=bad_rhs)
        assert check_step(bad).verdict == Verdict.REFUTED


def test_relation_step_planted_wrong_refuted():
    good = _loss_step("exact relation ℓ − ℓ̃")
    assert check_step(good).verdict == Verdict.PROVED
    bad = dataclasses.replace(good, name="planted: relation with the log k left in", rhs=good.rhs - sp.log(k))
    assert check_step(bad).verdict == Verdict.REFUTED


def test_loss_names_and_deprecated_alias():
    assert loss.LOSS_NAMES == ("infonce", "dcl", "standard")
    for name in loss.LOSS_NAMES:
        assert loss.canonical_loss(name) == name
    with pytest.warns(DeprecationWarning, match="'dcl'"):
        assert loss.canonical_loss("averaged") == "dcl"
    for bad in ("mean", "Averaged", None, 3):
        with pytest.raises(ValueError, match="'infonce'"):
            loss.canonical_loss(bad, "variant")
