"""Paper §3 and appendix A (derivations/paper): every printed step verifies as expected, every erratum's
printed step is refuted and its correction proved, every *ours* constant is proved ≤ the paper's and a
planted lowered version of it is refuted."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations import paper as paper_pkg
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import Step, Verdict
from infonce_bounds.derivations.paper import _laws, lemma2, prop1
from infonce_bounds.derivations.symbols import tau

FAST = {"trials": 3000, "seed": 0}
MINE = ["prop1", "eq8", "lemma2"]

#: steps that must be *proved* (not merely verified): the scalar steps of each printed proof
MUST_PROVE = {
    "lemma2": [
        "(21) first difference ≥ −log(1 + e^c/(bk))",
        "remainder coefficient ≤ (b/ξ)²",
        "remainder coefficient ≤ e^{2c}",
        "(22) constant",
    ],
    "prop1": ["Lemma 2 hypothesis with X_j = s_j/τ", "ours ≤ paper: C(τ) ≤ (e^{2/τ} − 1)²/8"],
    "eq8": ["numerator ≤ e^{1/τ} π(A), denominator ≥ e^{−1/τ}"],
}


@pytest.fixture(scope="module")
def results():
    return {name: {r.step: r for r in catalogue.get(name).verify(**FAST)} for name in MINE}


@pytest.mark.parametrize("name", MINE)
def test_every_step_verifies_as_expected(results, name):
    der = catalogue.get(name)
    assert der.source == "paper"
    res = results[name]
    bad = [(s, str(r.verdict), r.evidence) for s, r in res.items() if not r.as_expected]
    assert not bad, bad
    undecided = [s for s, r in res.items() if r.verdict is Verdict.UNDECIDED]
    assert not undecided
    for st in der.steps:
        if st.expected == "refuted":
            assert res[st.name].verdict is Verdict.REFUTED and res[st.name].counterexample
    missing = [s for s in MUST_PROVE.get(name, []) if res[s].verdict is not Verdict.PROVED]
    assert not missing, missing


def _mine(items):
    return [e for e in items if e.result in MINE]


@pytest.mark.parametrize("err", _mine(paper_pkg.errata()), ids=lambda e: e.location)
def test_erratum_printed_refuted_and_correction_proved(results, err):
    res = results[err.result]
    if err.printed_step:
        assert res[err.printed_step].verdict is Verdict.REFUTED
        assert res[err.printed_step].counterexample
    if err.corrected_step:
        assert res[err.corrected_step].verdict is Verdict.PROVED, res[err.corrected_step].evidence
        assert catalogue.get(err.result).step(err.corrected_step).provenance == "ours"


@pytest.mark.parametrize("const", _mine(paper_pkg.constants()), ids=lambda c: c.name)
def test_constant_proof_step_is_proved(results, const):
    assert results[const.result][const.proof_step].verdict is Verdict.PROVED
    paper_expr, ours_expr = const.build()
    assert sp.sympify(paper_expr).free_symbols and sp.sympify(ours_expr).free_symbols


def test_registered_constant_names():
    names = {c.name for c in paper_pkg.constants()}
    assert "prop1_upper" in names


# --- planted wrong versions of the ours constants -------------------------------------------------


def test_lemma2_ours_constant_lowered_is_refuted():
    """0.9·C(1/c)/k is violated by a two-point ±1 law at c = 1/100 (C is sharp as c → 0)."""
    st = lemma2.derivations()[0].step("ours: upper bound C(1/c)/k")
    chk = _laws.law_check(
        lambda L, lw: (lemma2._middle(L, lw), 0.9 * lemma2._ours_upper_num(L, lw)),
        "planted 0.9·C",
        extra=lemma2._extra_b,
        seeds=lemma2.SEEDS,
    )
    res = check_step(
        Step("planted", st.lhs, st.rhs, kind="inequality", relation="<=", domain=st.domain, check=chk), **FAST
    )
    assert res.verdict is Verdict.REFUTED and res.counterexample


def test_prop1_ours_wrong_power_is_refuted():
    """C(τ)/k² in place of C(τ)/k is violated (the rate is 1/k, not 1/k²)."""
    st = prop1.derivations()[0].step("ours: CE − R ≤ C(τ)/k")
    chk = _laws.law_check(
        lambda L, lw: (prop1.gap_standard(L, lw), prop1.ours_constant_num(L, lw.tau) / lw.k**2),
        "planted C/k²",
        extra=prop1._extra_splus,
        seeds=prop1.SEEDS,
    )
    res = check_step(
        Step("planted", st.lhs, st.rhs, kind="inequality", relation="<=", domain=st.domain, check=chk), **FAST
    )
    assert res.verdict is Verdict.REFUTED and res.counterexample


def test_prop1_ours_le_paper_planted_is_refuted():
    """The proof step ours ≤ paper refutes a constant above the paper's (×8 on the paper's side removed)."""
    st = prop1.derivations()[0].step("ours ≤ paper: C(τ) ≤ (e^{2/τ} − 1)²/8")
    wrong = Step("planted", st.lhs, (sp.exp(2 / tau) - 1) ** 2 / 80, kind="inequality", relation="<=", domain=st.domain)
    assert check_step(wrong, **FAST).verdict is Verdict.REFUTED
