"""Every REFUTED verdict of the catalogue that carries a counterexample replays (issue 25: "refuted" needs an
exact point whose Arb enclosures replay).

For each derivation with an erratum (``infonce-bounds errata --json``), the steps are checked once (the
session's catalogue check: 1000 falsifier trials, seed 0) and every REFUTED result with a counterexample is replayed from its dict
alone: a SymPy-expression claim through ``refute.replay`` (the one gate), an A.2 construction claim
(``check`` key) through ``eq13_a2.replay_a2``. Counterexamples of the exact-finite-law search
(``checks.laws``: a law, decided by mpmath at doubling precision, not by Arb) are the one known exception;
they are listed by name so a new one is seen. Planted: a nudged point or constant does not replay.
"""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks.refute import replay
from infonce_bounds.derivations.ledger import Verdict
from infonce_bounds.derivations.paper import eq13_a2
from infonce_bounds.derivations.paper import errata as paper_errata
from infonce_bounds.derivations.paper.eq13_a2 import a2_refutation, replay_a2

#: refutations by the exact-finite-law search (``checks.laws.search``/``confirm``: mpmath, precision doubling;
#: the law's evaluate functions are written for floats/mpmath, not Arb): (derivation, step)
LAW_SEARCH_REFUTATIONS = {
    ("a1", "display as printed"),
    ("lemma3", "printed hypothesis ν ≪ π keeps Σ_j w(ξ_j) > 0"),
    ("prop2", "chain, third equality, in expectation (printed)"),
}


def _errata_derivations() -> list[str]:
    """The derivations ``infonce-bounds errata`` lists (each erratum's ``result``)."""
    return sorted({e.result for e in paper_errata()})


@pytest.fixture(scope="module")
def refutations(catalogue_runs) -> list[tuple[str, object, object]]:
    """(derivation, step, result) of every REFUTED result with a counterexample, derivations with errata (the
    session's one check of the catalogue: 1000 falsifier trials, seed 0)."""
    rows = []
    for name in _errata_derivations():
        der = catalogue.get(name)
        by_name = {s.name: s for s in der.steps}
        for step_name, r in catalogue_runs[name].items():
            if r.verdict == Verdict.REFUTED and r.counterexample:
                rows.append((name, by_name[step_name], r))
    return rows


def _relation(step) -> str:
    return "=" if step.kind == "identity" else (step.relation or "<=")


def test_every_catalogue_counterexample_replays(refutations):
    assert len(refutations) >= 10, "the errata's printed steps should give at least ten refutations at a point"
    law_seen = set()
    for name, step, r in refutations:
        cex = r.counterexample
        if "check" in cex:  # the A.2 construction (a binomial sum, not a SymPy expression)
            assert name == "eq13_a2"
            assert replay_a2(cex), (name, step.name, cex)
            continue
        if (name, step.name) in LAW_SEARCH_REFUTATIONS:
            law_seen.add((name, step.name))
            continue
        assert "lhs_enclosure" in cex and "rhs_enclosure" in cex, (name, step.name, "not from the gate", cex)
        assert replay(cex, step.lhs, step.rhs, _relation(step), step.domain), (name, step.name, cex)
    # a listed law refutation that no longer comes up is a stale entry: drop it from the list
    assert law_seen == LAW_SEARCH_REFUTATIONS


def test_a2_printed_liminf_enclosures_are_shown(refutations):
    (r,) = [r for n, s, r in refutations if n == "eq13_a2"]
    cex = r.counterexample
    assert cex["check"] == "printed_liminf" and cex["tau"] == "1" and cex["a"] == "1/2"
    lo_l, hi_l = (sp.Rational(v) for v in cex["lhs_enclosure"])
    lo_r, hi_r = (sp.Rational(v) for v in cex["rhs_enclosure"])
    assert lo_l <= hi_l < lo_r <= hi_r  # (11)'s bound strictly below the printed constant
    assert sp.Rational(cex["gap_enclosure"][1]) < lo_r
    assert cex["lhs_enclosure"][0] in r.evidence


def test_nudged_gate_counterexample_does_not_replay(refutations):
    """Planted: a counterexample of the gate with one coordinate moved to where the claim holds (or outside
    the domain) must not replay; nor may one whose recorded enclosures are swapped (A.2)."""
    name, step, r = next((n, s, r) for n, s, r in refutations if n == "a1" and s.name.startswith("remainder"))
    cex = dict(r.counterexample)
    assert replay(cex, step.lhs, step.rhs, _relation(step), step.domain)
    # e^{−3x/τ} ≤ e^{−3/τ} on x ∈ [−1, 1] fails for x < 1: at x = 1 it holds (equal), x = 10⁶ is off the domain
    for nudged_x in ("1", "1000000"):
        bad = {**cex, "x": nudged_x}
        assert not replay(bad, step.lhs, step.rhs, _relation(step), step.domain), nudged_x


def test_nudged_a2_counterexample_does_not_replay():
    cex = a2_refutation("printed_liminf", {"tau": "1", "a": "1/2", "k": 228}, 16)
    assert cex is not None and replay_a2(cex)
    assert not replay_a2({**cex, "k": "50"})  # (11) at k = 50 is above the printed constant
    assert not replay_a2({**cex, "tau": "3/2"})  # e^{2/3} < 2: outside the construction
    assert not replay_a2({**cex, "lhs_enclosure": cex["rhs_enclosure"], "rhs_enclosure": cex["lhs_enclosure"]})
    assert not replay_a2(cex, const=1000)  # a much weaker printed constant is not refuted there
    assert not replay_a2({**cex, "relation": "<="})


@pytest.mark.parametrize(
    "check,point,true_const,false_const",
    [
        ("exact_scaled", {"tau": "1/4", "k": 64}, 16, 1),
        ("ratio13", {"tau": "1/2", "lambda": "1/2", "k": 256}, 65, 1),
        ("printed_liminf", {"tau": "1/2", "a": "1/2", "k": 100000}, 10**9, 16),
    ],
)
def test_a2_checks_refute_false_and_spare_true(check, point, true_const, false_const):
    """The Arb decision of each A.2 claim: the paper's (true) constant is not refuted at the point; a planted
    wrong constant is, and its counterexample replays."""
    assert a2_refutation(check, point, true_const) is None
    cex = a2_refutation(check, point, false_const)
    assert cex is not None and replay_a2(cex)


def test_a2_checkers_refute_planted_constants():
    """The checkers themselves, fed a planted wrong constant, refute with a replaying counterexample; with the
    paper's constants they do not refute."""
    der = catalogue.get("eq13_a2")
    step = {s.name: s for s in der.steps}["(13) on the construction"]
    opts = {"trials": 10, "seed": 0, "dps": 30}
    bad = eq13_a2.ratio13_checker(1)(step, opts)
    assert bad.verdict == Verdict.REFUTED and replay_a2(bad.counterexample, const=1)
    assert eq13_a2.ratio13_checker(65)(step, opts).verdict != Verdict.REFUTED


def test_a2_bad_input():
    with pytest.raises(ValueError, match="tau"):
        eq13_a2.a2_arb(0.25, 10)
    with pytest.raises(ValueError, match="lambda"):
        eq13_a2.a2_arb("1/4", 10, "3/2")
    with pytest.raises(ValueError, match="k = 100000"):
        eq13_a2.a2_arb("1/4", 100_000)  # an exact sum of 10⁵ huge rationals is refused, not attempted
    with pytest.raises(ValueError, match="check"):
        a2_refutation("nope", {"tau": "1/4", "k": 4}, 16)
