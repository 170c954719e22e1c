"""Route "classical theorem" (``checks/classical_theorem.py``): a claim as an instance of a theorem of the
literature, its glue and conditions proved, its hypotheses discharged, labelled *cited*; Maurer's √2 replaced by
1, a missing hypothesis or an unproved hypothesis lemma gives no citation."""

from __future__ import annotations

from dataclasses import replace

import pytest
import sympy as sp

from infonce_bounds.derivations import rademacher
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict

FAST = {"trials": 300, "seed": 0, "box_budget": 300}
RF = sp.Symbol("RF_ct", nonnegative=True)
RV = sp.Symbol("RV_ct", nonnegative=True)
L2 = sp.Symbol("L2_ct", real=True)
x = sp.Symbol("x_ct", real=True)
DOM = Domain({RF: (0, 10), RV: (0, 10), L2: (0, 5)})
WORDS = {"lipschitz": "L2 is, by definition, F's ℓ2-Lipschitz constant", "class": "one class, any K"}


def _claim(rhs, discharge=WORDS, dom=DOM, **extra):
    hint = {"theorem": "maurer2016", "with": {"R_F": RF, "L2": L2, "R_V": RV}, "discharge": discharge, **extra}
    return Step("contraction", RF, rhs, kind="inequality", relation="<=", domain=dom, route=("classical theorem", hint))


def _maurer() -> Step:
    return next(s for d in rademacher.derivations() for s in d.steps if s.name.startswith("vector contraction"))


def test_maurer_step_is_cited_with_its_hypotheses_and_attacked():
    res = check_step(_maurer(), **FAST)
    assert res.verdict is Verdict.PROVED and res.method.startswith("cited: Maurer (2016)")
    assert "hypotheses: lipschitz" in res.evidence and res.trials > 0 and res.attacked


def test_sqrt2_replaced_by_1_is_not_cited():
    st = _maurer()
    bad = replace(st, name="planted: Maurer with constant 1", rhs=st.rhs / sp.sqrt(2))
    res = check_step(bad, **FAST)
    assert res.verdict is not Verdict.PROVED and "not an instance" in res.method


def test_a_weaker_claim_follows_and_a_stronger_does_not():
    assert check_step(_claim(2 * L2 * RV), **FAST).verdict is Verdict.PROVED  # √2 ≤ 2: glue proved
    assert check_step(_claim(L2 * RV), **FAST).verdict is Verdict.UNDECIDED


def test_a_hypothesis_left_out_or_a_false_hypothesis_lemma_gives_no_citation():
    res = check_step(_claim(sp.sqrt(2) * L2 * RV, discharge={"class": "one class"}), **FAST)
    assert res.verdict is Verdict.UNDECIDED and "not discharged" in res.method
    false_lemma = ("x ≤ x/2 on [0, 1]", x, x / 2, {x: (0, 1)})  # false at x = 1
    res = check_step(_claim(sp.sqrt(2) * L2 * RV, discharge={**WORDS, "lipschitz": false_lemma}), **FAST)
    assert res.verdict is Verdict.UNDECIDED


def test_a_condition_that_fails_on_the_domain_gives_no_citation():
    # L2 may be negative here: the theorem's condition L2 ≥ 0 is not proved
    res = check_step(_claim(sp.sqrt(2) * L2 * RV, dom=Domain({RF: (0, 10), RV: (0, 10), L2: (-1, 5)})), **FAST)
    assert res.verdict is Verdict.UNDECIDED


def test_a_malformed_hint_names_the_parameter():
    with pytest.raises(DerivationError, match="theorem"):
        check_step(replace(_claim(RV), route=("classical theorem", {"theorem": "nope", "with": {}})))
    with pytest.raises(DerivationError, match="with"):
        check_step(replace(_claim(RV), route=("classical theorem", {"theorem": "maurer2016", "with": {"R_F": RF}})))


# ------------------------------------------------------------------ "lse_linf": log-sum-exp is 1-Lipschitz in ℓ∞

V = sp.symbols("v1_ct v2_ct v3_ct", real=True)
W = sp.symbols("w1_ct w2_ct w3_ct", real=True)
T = sp.Symbol("tau_ct", positive=True)
VDOM = Domain({**{s_: (-2, 2) for s_ in V + W}, T: (sp.Rational(1, 10), 10)})


def _lse(u, c=1, m=1, weight=sp.exp):
    return sp.log(m * (c + sum(weight(x_) for x_ in u)))


def _lse_claim(lhs, rhs, v, v2, c=1, m=1, dom=VDOM, **extra):
    hint = {"theorem": "lse_linf", "with": {"c": c, "m": m, "v": list(v), "v'": list(v2)}, **extra}
    return Step("lse", lhs, rhs, kind="inequality", relation="<=", domain=dom, route=("classical theorem", hint))


def _linf(v, v2, scale=1):
    return scale * sp.Max(*[sp.Abs(a_ - b_) for a_, b_ in zip(v, v2)])


def _eq16_18_step(prefix: str) -> Step:
    from infonce_bounds.derivations.paper import eq16_18

    return next(s for s in eq16_18.derivations()[0].steps if s.name.startswith(prefix))


@pytest.mark.parametrize("prefix", ["(16) |", "(17)"])
def test_eq16_and_eq17_are_cited_instances_with_the_attack_beside(prefix):
    res = check_step(_eq16_18_step(prefix), **FAST)
    assert res.verdict is Verdict.PROVED and res.method.startswith("cited: log-sum-exp is 1-Lipschitz")
    assert "termwise max" in res.evidence and "(k = 2)" in res.evidence and res.trials > 0


def test_true_lse_claims_every_shape_are_cited():
    # k = 3, no extra term (c = 0), the mean's 1/k, the rhs scaled out of a 1/τ: v_j = x_j/τ
    v, v2 = [x_ / T for x_ in V], [x_ / T for x_ in W]
    lhs = sp.Abs(_lse(v, c=0, m=sp.Rational(1, 3)) - _lse(v2, c=0, m=sp.Rational(1, 3)))
    res = check_step(_lse_claim(lhs, _linf(V, W) / T, v, v2, c=0, m=sp.Rational(1, 3)), **FAST)
    assert res.verdict is Verdict.PROVED, res.method
    # k = 1 with the fixed coordinate: |log(1 + e^v) − log(1 + e^w)| ≤ |w − v| (sign flipped inside |·|)
    lhs = sp.Abs(_lse(V[:1]) - _lse(W[:1]))
    assert check_step(_lse_claim(lhs, sp.Abs(W[0] - V[0]), V[:1], W[:1]), **FAST).verdict is Verdict.PROVED
    # a weaker rhs: the glue goes to the engine (|v − w| ≤ |v − w| + 1/10)
    lhs = sp.Abs(_lse(V[:1]) - _lse(W[:1]))
    weak = sp.Abs(V[0] - W[0]) + sp.Rational(1, 10)
    assert check_step(_lse_claim(lhs, weak, V[:1], W[:1]), **FAST).verdict is Verdict.PROVED


def test_lipschitz_constant_099_is_not_cited():
    # false: v' = v + c·1 moves both sides by exactly c when c = 0 (no fixed coordinate), so 0.99c < c
    lhs = sp.Abs(_lse(V[:2], c=0) - _lse(W[:2], c=0))
    res = check_step(_lse_claim(lhs, _linf(V[:2], W[:2], sp.Rational(99, 100)), V[:2], W[:2], c=0), **FAST)
    assert res.verdict is not Verdict.PROVED
    st = _eq16_18_step("(16) |")
    bad = replace(st, name="planted: (16) with constant 0.99", rhs=st.rhs * sp.Rational(99, 100))
    assert check_step(bad, **FAST).verdict is not Verdict.PROVED


def test_linf_replaced_by_the_min_is_not_cited():
    lhs = sp.Abs(_lse(V[:2]) - _lse(W[:2]))
    rhs = sp.Min(*[sp.Abs(a_ - b_) for a_, b_ in zip(V[:2], W[:2])])
    assert check_step(_lse_claim(lhs, rhs, V[:2], W[:2]), **FAST).verdict is not Verdict.PROVED


def test_a_claim_that_is_not_an_instance_is_not_cited():
    # weights 2e^{v_j} under the hint c = 1, m = 1: not the theorem's small side (true, yet not this instance)
    lhs = sp.Abs(_lse(V[:2], weight=lambda x_: 2 * sp.exp(x_)) - _lse(W[:2], weight=lambda x_: 2 * sp.exp(x_)))
    res = check_step(_lse_claim(lhs, _linf(V[:2], W[:2]), V[:2], W[:2]), **FAST)
    assert res.verdict is Verdict.UNDECIDED and "not an instance" in res.method
    # e^{2v_j} (Lipschitz constant 2, false): neither the hint v nor the hint 2v makes it an instance with this rhs
    two = lambda u: sp.log(1 + sum(sp.exp(2 * x_) for x_ in u))  # noqa: E731
    lhs = sp.Abs(two(V[:2]) - two(W[:2]))
    for v, v2 in ((V[:2], W[:2]), ([2 * x_ for x_ in V[:2]], [2 * x_ for x_ in W[:2]])):
        assert check_step(_lse_claim(lhs, _linf(V[:2], W[:2]), v, v2), **FAST).verdict is not Verdict.PROVED


def test_a_factor_or_an_extra_term_not_known_positive_gives_no_citation():
    # m = x ∈ [−1, 1] (log of a negative number), c = x ∈ [−1, 1] (c + Σ e^{v_j} may vanish)
    dom = Domain({**VDOM.ranges, x: (-1, 1)})
    lhs = sp.Abs(_lse(V[:2], m=x) - _lse(W[:2], m=x))
    res = check_step(_lse_claim(lhs, _linf(V[:2], W[:2]), V[:2], W[:2], m=x, dom=dom), **FAST)
    assert res.verdict is not Verdict.PROVED and "> 0" in res.method
    lhs = sp.Abs(_lse(V[:2], c=x) - _lse(W[:2], c=x))
    res = check_step(_lse_claim(lhs, _linf(V[:2], W[:2]), V[:2], W[:2], c=x, dom=dom), **FAST)
    assert res.verdict is not Verdict.PROVED


def test_a_malformed_vector_hint_names_the_parameter():
    lhs = sp.Abs(_lse(V[:2]) - _lse(W[:2]))
    with pytest.raises(DerivationError, match="with"):
        check_step(_lse_claim(lhs, _linf(V[:2], W[:2]), V[:2], W[:1]))
    with pytest.raises(DerivationError, match="with"):
        check_step(_lse_claim(lhs, _linf(V[:2], W[:2]), [], []))
