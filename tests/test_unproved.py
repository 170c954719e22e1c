"""Every step left "verified numerically" says why no proof route proved it (``checks.unproved``)."""

from __future__ import annotations

import sympy as sp

from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.unproved import CONFIGURATIONS, LAWS, unproved_reason
from infonce_bounds.derivations.ledger import Domain, Step, StepResult, Verdict

x = sp.Symbol("x", real=True)


def test_every_verified_catalogue_step_states_why(catalogue_verdicts):
    missing, verified = [], 0
    for der, pairs in catalogue_verdicts.items():
        for step, res in pairs:
            if res.verdict == Verdict.VERIFIED:
                verified += 1
                if not res.unproved.strip():
                    missing.append(f"{der} / {step.name}")
            elif res.unproved:  # only a verified step carries a reason: a proof needs none
                missing.append(f"{der} / {step.name} ({res.verdict} with a reason)")
    assert verified > 0
    assert not missing, missing


def test_author_reason_wins_and_is_kept_in_the_record():
    step = Step("s", x, x, kind="identity", domain=Domain({x: (0, 1)}), unproved="stated by the author")
    res = StepResult("s", "identity", Verdict.VERIFIED, "exact finite laws (multinomial enumeration): 1 law")
    assert unproved_reason(step, res) == "stated by the author"
    assert res.as_dict()["unproved"] == ""


def test_reasons_by_what_the_claim_is():
    ineq = Step("i", x, 1, kind="inequality", relation="<=", domain=Domain({x: (0, 1)}))
    law = StepResult("i", "inequality", Verdict.VERIFIED, "exact finite laws (multinomial enumeration): 9 laws")
    conf = StepResult("i", "inequality", Verdict.VERIFIED, "finite-configuration falsifier: 12 configurations")
    staged = StepResult(
        "i", "inequality", Verdict.VERIFIED, "falsifier: 10 trials", "interval: 3 boxes not certified; worst ratio 1"
    )
    assert unproved_reason(ineq, law) == LAWS
    assert unproved_reason(ineq, conf) == CONFIGURATIONS
    assert unproved_reason(ineq, staged) == "interval: 3 boxes not certified"


def test_a_checked_step_carries_the_reason_only_when_verified():
    proved = check_step(Step("p", x, 1, kind="inequality", relation="<=", domain=Domain({x: (0, 1)})), trials=200)
    assert proved.verdict == Verdict.PROVED and proved.unproved == ""
    # an identity whose simplifier is switched off is only spot-checked: verified, with the reason
    weak = Step(
        "w",
        sp.Max(x, 1 - x) + sp.Min(x, 1 - x),
        1,
        kind="identity",
        domain=Domain({x: (0, 1)}),
        simplifier=lambda e: e,
    )
    res = check_step(weak, trials=200)
    assert res.verdict == Verdict.VERIFIED
    assert res.unproved.startswith("SymPy did not reduce lhs − rhs to 0")
