"""Route "integral bound" (``checks/integral_bound.py``): Cauchy–Schwarz, an antiderivative proved by
differentiation and a scalar inequality prove ``∫ f ≤ rhs``; a dropped square root, a wrong antiderivative or a
lowered bound is never proved (the last refuted through the gate)."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict
from infonce_bounds.derivations.paper import prop5
from infonce_bounds.derivations.symbols import U_dud, c_dud, eps_cov

FAST = {"trials": 2000, "seed": 0, "box_budget": 300}
DUDLEY = "Cauchy–Schwarz + antiderivative + log(1 + x) ≤ x: ∫_0^U √(log(1 + 2c/ε)) dε ≤ U√(log(1 + 2c/U) + 1)"
t = sp.Symbol("t_ib", positive=True)
u = sp.Symbol("u_ib", positive=True)


def _dudley() -> Step:
    return catalogue.get("prop5").step(DUDLEY)


def test_the_printed_dudley_step_is_proved_with_its_reduction():
    res = check_step(_dudley(), **FAST)
    assert res.verdict is Verdict.PROVED, res.method
    assert "Cauchy–Schwarz" in res.method and "instance of 'log(1 + x) ≤ x'" in res.method
    assert res.covered == {"U_dud": ("1/10000", "10000"), "c_dud": ("1/10000", "10000")}


def test_cauchy_schwarz_with_the_square_root_dropped_is_not_proved():
    st = _dudley()
    # what the bound would be if ∫ f ≤ (U ∫ f²) (no square root): below ∫ f for small U
    no_root = U_dud * prop5.DUDLEY_ANTIDERIVATIVE.subs(eps_cov, U_dud)
    bad = replace(st, name="planted: square root dropped", rhs=no_root)
    res = check_step(bad, **FAST)
    # quadrature finds ∫ above it; Arb cannot enclose ∫_0^U with the log singularity at 0, so no refutation
    assert res.verdict is Verdict.UNDECIDED and "exceeds the bound" in res.method


def test_a_wrong_antiderivative_proves_nothing():
    st = _dudley()
    name, params = st.route
    wrong = {**params, "antiderivative": eps_cov * sp.log(1 + 2 * c_dud / eps_cov)}  # the 2c log(1 + ε/2c) lost
    res = check_step(replace(st, name="planted: wrong antiderivative", route=(name, wrong)), **FAST)
    assert res.verdict is Verdict.VERIFIED and "does not reduce to 0" in res.method


def test_a_lowered_bound_is_refuted_at_an_exact_point():
    st = _dudley()
    low = replace(st, name="planted: ∫ ≤ U/2", rhs=U_dud / 2 + 0 * c_dud)
    assert check_step(low, **FAST).verdict in (Verdict.REFUTED, Verdict.UNDECIDED)


def test_direct_rule_proves_a_polynomial_bound_and_not_a_false_one():
    # ∫_0^u t dt = u²/2 ≤ u²/2 + 1/10 on u ∈ [0, 2]; the direct rule with G = t²/2
    dom = Domain({u: (0, 2)})
    good = Step(
        "∫ t ≤ u²/2 + 1/10",
        sp.Integral(t, (t, 0, u)),
        u**2 / 2 + sp.Rational(1, 10),
        kind="inequality",
        relation="<=",
        domain=dom,
        route=("integral bound", {"rule": "direct", "antiderivative": t**2 / 2}),
    )
    assert check_step(good, **FAST).verdict is Verdict.PROVED
    bad = replace(good, name="planted: ∫ t ≤ u²/3", rhs=u**2 / 3)
    res = check_step(bad, **FAST)
    assert res.verdict is Verdict.REFUTED


def test_cauchy_schwarz_bound_is_only_as_strong_as_it_is():
    # ∫_0^u t dt = u²/2 and CS gives u²/√3 ≈ 0.577u²: the CS bound is proved, a bound between them is not
    dom = Domain({u: (sp.Rational(1, 10), 2)})
    hint = ("integral bound", {"rule": "cauchy-schwarz", "antiderivative": t**3 / 3})
    cs = Step(
        "∫ t ≤ u²/√3",
        sp.Integral(t, (t, 0, u)),
        u**2 / sp.sqrt(3),
        kind="inequality",
        relation="<=",
        domain=dom,
        route=hint,
    )
    assert check_step(cs, **FAST).verdict is Verdict.PROVED
    between = replace(cs, name="true, but below Cauchy–Schwarz: ∫ t ≤ 0.55 u²", rhs=sp.Rational(55, 100) * u**2)
    assert check_step(between, **FAST).verdict is Verdict.VERIFIED


def test_a_malformed_hint_names_the_parameter():
    st = _dudley()
    with pytest.raises(DerivationError, match="rule"):
        check_step(replace(st, route=("integral bound", {"rule": "holder", "antiderivative": t})), **FAST)
    with pytest.raises(DerivationError, match="uses"):
        check_step(replace(st, route=("integral bound", {**st.route[1], "uses": (st,)})), **FAST)


def test_the_exact_multiple_shortcut_checks_the_lemma_box_and_the_multiplier():
    from infonce_bounds.derivations.checks import integral_bound as IB

    x_ = sp.Symbol("x_ib", nonnegative=True)
    (lem,) = IB.lemmas((("log(1 + x) ≤ x", sp.log(1 + x_), x_, {x_: (0, sp.oo)}),), "test")
    lres = check_step(lem, **FAST)
    dom = Domain({u: (sp.Rational(1, 10), 2)})
    good = Step("g", 0, 3 * u * (u - sp.log(1 + u)), kind="inequality", relation="<=", domain=dom)
    assert IB._multiple(good, lem, lres, {"x_ib": u}) is not None
    # the value u − 1 leaves the lemma's box [0, ∞) for u < 1: no shortcut (and the instance may fail there)
    off = Step("o", 0, 3 * (u - 1 - sp.log(u)), kind="inequality", relation="<=", domain=dom)
    assert IB._multiple(off, lem, lres, {"x_ib": u - 1}) is None
    # a multiplier that may be negative: no shortcut
    neg = Step("n", 0, (u - 1) * (u - sp.log(1 + u)), kind="inequality", relation="<=", domain=dom)
    assert IB._multiple(neg, lem, lres, {"x_ib": u}) is None
