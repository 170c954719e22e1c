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
