"""Route "rademacher affine" (``checks/rademacher_affine.py``): R̂(s·F + c) = s·R̂(F) for a constant shift and a
scale proved ≥ 0; a wrong scale, a negative scale, a shift that is not a constant or a map that is not affine is
never proved (a wrong value refuted by exact enumeration on a finite class)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.rademacher_affine import rad
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict

FAST = {"trials": 2000, "seed": 0, "box_budget": 300}
F = sp.Symbol("RF_ra", nonnegative=True)
G = sp.Symbol("RG_ra", real=True)
v = sp.Symbol("v_ra", real=True)
a = sp.Symbol("a_ra", real=True)
s = sp.Symbol("s_ra", real=True)
z = sp.Symbol("z_ra", real=True)
DOM = Domain({F: (0, 10), G: (-10, 10), a: (-5, 5), s: (sp.Rational(1, 10), 4), z: (-1, 1)})


def _claim(rhs, mp, **extra):
    hint = {"complexity": F, "value": v, "map": mp, **extra}
    return Step("R̂(G) = …", G, rhs, domain=DOM, route=("rademacher affine", hint))


def test_prop3_step_is_proved_with_its_reduction():
    st = catalogue.get("prop3").step(
        "Rademacher complexity is invariant to adding a constant; factor out b − a: R̂(g) = R̂(ℓ)/(b − a)"
    )
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.PROVED and "E σ_i c = 0" in res.method and "s ≥ 0" in res.method


def test_a_shift_and_a_positive_scale():
    assert check_step(_claim(s * F, s * v + a), **FAST).verdict is Verdict.PROVED


def test_a_wrong_scale_is_refuted_by_exact_enumeration():
    res = check_step(_claim(2 * s * F, s * v + a), **FAST)
    assert res.verdict is Verdict.REFUTED and set(res.counterexample) >= {"RF_ra", "RG_ra", "s_ra"}


def test_a_negative_scale_is_not_proved():
    # R̂(−F) ≠ −R̂(F): the sup flips to an inf; the claim "R̂(−sF + a) = −s R̂(F)" is false
    res = check_step(_claim(-s * F, -s * v + a), **FAST)
    assert res.verdict is Verdict.REFUTED


def test_a_shift_that_is_not_a_constant_is_not_proved():
    # the shift a·z changes with the point z_i: E Σ σ_i a z_i = 0 still, but the proof must not take it as a constant
    res = check_step(_claim(s * F, s * v + a * z, per_point=(z,)), **FAST)
    assert res.verdict is not Verdict.PROVED and "not a constant" in res.method
    # a map that is not affine in the value (v²): not proved, and refuted on a finite class
    res = check_step(_claim(F, v**2), **FAST)
    assert res.verdict is Verdict.REFUTED


def test_exact_rademacher_of_small_classes():
    # one function: R̂ = E σ f / n-average = 0; two constant-free functions ±1 at one point: E max(σ, −σ) = 1
    assert rad([[Fraction(3), Fraction(-2)]]) == 0
    assert rad([[Fraction(1)], [Fraction(-1)]]) == 1


def test_a_malformed_hint_names_the_parameter():
    with pytest.raises(DerivationError, match="complexity and value"):
        check_step(replace(_claim(F, v), route=("rademacher affine", {"complexity": 1, "value": v, "map": v})))
