"""Issue 13: every Theorem 1 the toolkit prints is capped by the trivial bound and says which term is active;
issue 11: every version of Theorem 1 is a chain whose planted-wrong variants are refuted."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import mpmath
import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue, theorem
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import Step, Verdict
from infonce_bounds.derivations.symbols import k, tau, x
from infonce_bounds.numerics.commands.constants import active_term

OPTS = {"trials": 2000, "seed": 0}


def _trivial_ref(loss: str, t: float, kk: int) -> mpmath.mpf:
    """50-digit reference: 4/τ (DCL), 2/τ − log(1/k + e^{−2/τ}) (ℓ (14) and the standard loss)."""
    with mpmath.workdps(50):
        t_ = mpmath.mpf(t)
        if loss == "dcl":
            return 4 / t_
        return 2 / t_ - mpmath.log(mpmath.mpf(1) / kk + mpmath.exp(-2 / t_))


@pytest.mark.parametrize("loss", theorem.LOSSES)
@pytest.mark.parametrize("t", [1e-3, 0.05, 0.5, 3.0, 100.0])
@pytest.mark.parametrize("kk", [1, 64, 10**6])
def test_trivial_bound_float_matches_50_digits_and_stays_below_4_over_tau(loss, t, kk):
    f = sp.lambdify((tau, k), theorem.trivial_bound(loss), "math")
    got = f(t, kk)  # the float form must not overflow at τ = 1e-3
    ref = _trivial_ref(loss, t, kk)
    assert math.isfinite(got)
    assert abs(got - float(ref)) <= 1e-13 * max(1.0, abs(float(ref)))  # negative at k = 1, large τ
    with mpmath.workdps(50):
        assert ref <= 4 / mpmath.mpf(t) * (1 + mpmath.mpf(10) ** -40)


def test_trivial_steps_are_proved_and_a_lowered_cap_is_refuted():
    der = catalogue.get("theorem")
    for key in ("ce", "lower", "gap", "dcl"):
        res = check_step(der.step(theorem.TRIVIAL_NAMES[key]), **OPTS)
        assert res.verdict == Verdict.PROVED, (key, res.method, res.evidence)
    t = sp.Symbol("t", real=True)
    ce = der.step(theorem.TRIVIAL_NAMES["ce"])
    wrong = Step("CE ≤ 1/τ (planted wrong)", ce.lhs, 1 / tau, "inequality", ce.domain, relation="<=")
    assert check_step(wrong, **OPTS).verdict == Verdict.REFUTED
    assert {x, t} <= ce.lhs.free_symbols


def test_active_term_from_intervals():
    assert active_term({"interval": ["162.011", "162.012"]}, {"interval": ["8", "8"]}) == "trivial"
    assert active_term({"interval": ["0.0017", "0.0018"]}, {"interval": ["0.39", "0.40"]}) == "bound"
    assert active_term({"interval": ["7.9", "8.1"]}, {"interval": ["8", "8"]}) == "tie"
    assert active_term({"interval": None}, {"interval": ["8", "8"]}) == "unknown"


def _constants_json(*args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "infonce_bounds.numerics.cli", "constants", "--json", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_constants_caps_the_issue_13_example_by_the_trivial_bound():
    """τ = 0.5, k = 64: the data-free bound was ~20× the trivial 4/τ = 8; now the capped bound is 8."""
    d = _constants_json("--tau", "0.5", "--k", "64")
    rows = {r["name"]: r for r in d["rows"]}
    assert d["theorem1"]["active"] == "trivial" == rows["capped_bound"]["active"]
    assert float(rows["trivial_bound"]["value"]) == 8
    assert float(rows["capped_bound"]["value"]) == 8
    assert float(rows["bound"]["value"]) > 8  # the uncapped bound is still shown
    assert "= trivial" in rows["capped_bound"]["symbol"]


def test_constants_reports_the_bound_active_where_it_is_smaller():
    d = _constants_json("--tau", "10", "--k", "4096", "--n", "100000000", "--params", "10", "--loss", "infonce")
    rows = {r["name"]: r for r in d["rows"]}
    assert d["theorem1"]["active"] == "bound"
    assert rows["capped_bound"]["value"] == rows["bound"]["value"]
    assert float(rows["trivial_bound"]["value"]) == pytest.approx(float(_trivial_ref("infonce", 10, 4096)), rel=1e-5)


@pytest.mark.parametrize("loss", theorem.LOSSES)
def test_each_theorem_version_is_a_chain_not_refuted(loss):
    step = catalogue.get("theorem").step(theorem.CHAIN_NAMES[loss])
    assert step.kind == "chain"
    res = check_step(step, **OPTS)
    assert res.verdict in (Verdict.PROVED, Verdict.VERIFIED), (res.method, res.evidence)
    if res.verdict == Verdict.VERIFIED:
        assert "weakest" in res.method  # the weakest link is named


@pytest.mark.parametrize("loss", theorem.LOSSES)
def test_a_lowered_theorem_claim_is_refuted(loss):
    """Claim the bound without the bias term: the last link no longer reaches the claim (a gap)."""
    from dataclasses import replace

    step = catalogue.get("theorem").step(theorem.CHAIN_NAMES[loss])
    wrong = replace(step, rhs=step.rhs - theorem.bias_term(), name="planted: bias dropped")
    res = check_step(wrong, **OPTS)
    assert res.verdict == Verdict.REFUTED and "gap" in res.method


def test_paper_theorem1_is_a_chain_and_a_smaller_constant_is_refuted():
    from dataclasses import replace

    from infonce_bounds.derivations.paper import theorem1

    der = catalogue.get("theorem1")
    assert der.result == theorem1.THEOREM1_CHAIN and der.result_step.kind == "chain"
    res = check_step(der.result_step, **OPTS)
    assert res.verdict == Verdict.VERIFIED, (res.method, res.evidence)
    assert "prop2 / statement" in res.method  # the weakest links are named
    step = der.result_step
    wrong = replace(step, rhs=step.rhs.subs(sp.Integer(192), sp.Integer(96)), name="planted: const. 96")
    assert check_step(wrong, **OPTS).verdict == Verdict.REFUTED


def test_compare_shows_the_cap_and_the_active_term():
    import argparse

    from infonce_bounds.numerics.commands import compare
    from infonce_bounds.numerics.commands.constants import validate_params

    ns = argparse.Namespace(
        tau="0.5", k=None, gamma="auto", beta=None, n=50000, delta="0.05", lipschitz=1, params=10000, radius=1
    )
    rows = compare.table(validate_params(ns), [64], "auto", "dcl")
    (row,) = rows
    assert row["active"] == "trivial"
    assert float(row["capped"]["upper"]) == float(row["trivial"]["upper"]) == 8
    assert float(row["bound"]["upper"]) > 8
