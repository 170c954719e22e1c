"""Well-posedness (checks/wellposed.py): a claim undefined somewhere in its stated domain is ill-posed, with an
exact point of the domain, never proved or verified; intervals.py never certifies a box that may be undefined."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations import intervals
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.interval import certify_nonnegative
from infonce_bounds.derivations.checks.wellposed import check_wellposed, conditions
from infonce_bounds.derivations.ledger import Domain, Step, StepResult, Verdict

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
tau = sp.Symbol("tau", positive=True)
R = sp.Rational


def _ineq(lhs, rhs, rng, rel="<=", sym=x):
    return Step("claim", lhs, rhs, kind="inequality", relation=rel, domain=Domain({sym: rng}))


def _ident(lhs, rhs, rng, sym=x):
    return Step("claim", lhs, rhs, kind="identity", domain=Domain({sym: rng}))


def _point_inside(res: StepResult, lo, hi, sym="x") -> sp.Expr:
    v = sp.sympify(res.counterexample[sym])
    assert bool(v >= lo) and bool(v <= hi), (v, lo, hi)
    return v


ILL_POSED = [
    # (lhs, rel, rhs, domain of x, why)
    (sp.sqrt(x) * sp.sqrt(x - 1), ">=", 0, (-1, 2)),  # the soundness bench
    (sp.log(x + 1), "<=", 1, (-2, 1)),
    (1 / x, ">=", 1, (0, 1)),
    (sp.log(x), "<=", x, (-1, 1)),  # "verified numerically, worst ratio 0" before
    (1 / (x - R(1, 3)), ">=", -100, (0, 1)),  # a pole inside, at an exact root only
    (sp.sqrt(x - 2), ">=", 0, (0, 3)),
    (sp.log(sp.sin(x)), "<=", 1, (0, 4)),
    (x ** R(1, 2), "<=", 2, (-1, 1)),
    (x ** R(1, 3), ">=", -1, (-1, 1)),  # SymPy's cube root of a negative is complex
    (sp.tan(x), ">=", -(10**9), (0, 2)),  # a pole at π/2
    (sp.asin(x), "<=", 2, (0, 2)),
    (sp.log(x**2 - 2), "<=", 10, (0, 3)),  # undefined on [0, √2]
    (1 / (x**2 - 2), "<=", 10**9, (1, 2)),  # a pole at √2, an irrational root
]


@pytest.mark.parametrize("lhs, rel, rhs, rng", ILL_POSED)
def test_ill_posed_claims_are_reported_with_a_point(lhs, rel, rhs, rng):
    res = check_step(_ineq(lhs, rhs, rng, rel), trials=300)
    assert res.verdict is Verdict.ILL_POSED, (res.method, res.evidence)
    assert not res.as_expected
    _point_inside(res, *rng)


def test_ill_posed_identity_and_two_variables():
    st = Step("id", sp.log(x * tau) - sp.log(tau), sp.log(x), domain=Domain({x: (-1, 1), tau: (1, 2)}))
    res = check_step(st, trials=300)
    assert res.verdict is Verdict.ILL_POSED  # an identity that SymPy may "prove" for x > 0
    st = Step("two", sp.log(x - y), 5, kind="inequality", relation="<=", domain=Domain({x: (0, 2), y: (0, 1)}))
    res = check_step(st, trials=300)
    assert res.verdict is Verdict.ILL_POSED
    pt = {k: sp.sympify(v) for k, v in res.counterexample.items()}
    assert pt["x"] - pt["y"] <= 0


def test_open_end_of_a_positive_symbol_is_not_a_point():
    # 1/τ on τ ∈ [0, 10] with τ declared positive: τ = 0 is not a value the claim speaks of
    st = Step("pos", 1 / tau, R(1, 10), kind="inequality", relation=">=", domain=Domain({tau: (0, 10)}))
    assert check_step(st, trials=300).verdict is not Verdict.ILL_POSED


TRUE = [
    (sp.log(1 + x), "<=", x, (0, sp.oo)),
    (sp.sqrt(x), ">=", 0, (0, 4)),
    (x * sp.log(x), ">=", -sp.exp(-1), (R(1, 1000), 1)),  # tight at the interior point x = 1/e
    (sp.sqrt(x - x**2), "<=", R(1, 2), (0, 1)),  # the argument's enclosure dips below 0 near the ends
    (1 / (x - R(1, 3)), "<=", 0, (-1, R(1, 4))),
    (sp.log(sp.sin(x)), "<=", 0, (R(1, 10), 3)),
    (sp.acosh(x), ">=", 0, (1, 5)),
]


@pytest.mark.parametrize("lhs, rel, rhs, rng", TRUE)
def test_true_claims_on_their_domain_are_still_proved(lhs, rel, rhs, rng):
    res = check_step(_ineq(lhs, rhs, rng, rel), trials=300)
    assert res.verdict in (Verdict.PROVED, Verdict.VERIFIED), (res.verdict, res.method, res.evidence)
    if lhs.has(sp.sin, sp.acosh):
        return  # not enclosable by intervals.py: verified numerically, defined
    assert res.verdict is Verdict.PROVED, (res.method, res.evidence)


def test_planted_false_on_a_well_posed_domain_is_refuted():
    res = check_step(_ineq(x * sp.log(x), -sp.exp(-1) + R(1, 10**40), (R(1, 1000), 1), ">="), trials=300)
    assert res.verdict is Verdict.REFUTED  # false by 1e-40 at x = 1/e


def test_conditions_collected():
    got = {(str(c.expr), c.rel) for c in conditions([sp.log(x) + sp.sqrt(y) / (x - 1) + tau ** R(-1, 2)])}
    assert {("x", ">"), ("y", ">="), ("x - 1", "!="), ("tau", ">")} <= got
    assert conditions([sp.exp(x) + x**2 + sp.Abs(x)]) == []


def test_undecided_definedness_blocks_proved():
    # a condition neither established nor refuted (an Indexed sum of symbolic length): at most verified
    j, k = sp.Symbol("j", integer=True), sp.Symbol("k", integer=True, positive=True)
    r = sp.IndexedBase("r", real=True)
    s = sp.Sum(r[j], (j, 1, k))
    st = Step(
        "und", s / s, 1, kind="identity", domain=Domain({r: (-1, 1), k: (1, 5)})
    )  # SymPy reduces s/s to 1 on construction: nothing to decide
    assert check_step(st, trials=50).verdict is Verdict.PROVED
    wp = check_wellposed([1 / s], Domain({r: (-1, 1), k: (1, 5)}))
    assert wp.status == "undecided"
    wp = check_wellposed([1 / s], Domain({r: (R(1, 10), 1), k: (1, 5)}))
    assert wp.status == "defined"  # a sum of positive terms over a nonempty range


def test_intervals_never_certify_a_possibly_undefined_box():
    with pytest.raises(intervals.Undefined):
        intervals.interval_eval(sp.log(x + 1), {x: (-2, 1)})
    with pytest.raises(intervals.Undefined):
        intervals.interval_eval(sp.sqrt(x), {x: (-1, 2)})
    with pytest.raises(intervals.Undefined):
        intervals.interval_eval(x ** R(1, 3), {x: (-1, 2)})
    # the interval prover alone: never "proved" on a domain where the claim is undefined
    for expr, rng in ((1 - sp.log(x + 1), (-2, 1)), (sp.sqrt(x) * sp.sqrt(x - 1), (-1, 2))):
        assert certify_nonnegative(expr, Domain({x: rng})).status != "proved"
    # known defined (conditions proved): the part outside the domain is overestimation and is clipped
    with intervals.assume_defined():
        iv = intervals.interval_eval(sp.sqrt(x - x**2), {x: (0, 1)})
    assert iv.lo >= 0


def test_check_exit_status_two_for_ill_posed(tmp_path):
    from infonce_bounds.numerics.cli import main

    f = tmp_path / "c.toml"
    claim = r"\log(x) \le x"
    f.write_text(f"[[claim]]\nname = 'a'\nclaim = '{claim}'\nwhere = {{ x = [-1, 1] }}\n")
    assert main(["check", str(f), "--trials", "200"]) == 2
    f.write_text(f"[[claim]]\nname = 'a'\nclaim = '{claim}'\nwhere = {{ x = [1, 2] }}\n")
    assert main(["check", str(f), "--trials", "200"]) == 0
