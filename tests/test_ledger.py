"""The ledger: every catalogued derivation verifies, and every checker refutes a planted wrong claim."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks import certify_nonnegative, check_step
from infonce_bounds.derivations.ledger import Derivation, DerivationError, Domain, Step, Verdict
from infonce_bounds.derivations.symbols import TAU_RANGE, j, k, s, tau, x

KNOWN_ILL_POSED: set[tuple[str, str]] = set()  # catalogue steps undefined somewhere in their domain: none


@pytest.mark.parametrize("name", catalogue.names())
def test_catalogued_derivation_has_no_refuted_step(name, catalogue_verdicts):
    der = catalogue.get(name)
    results = [res for _, res in catalogue_verdicts[name]]  # the session's one check of the catalogue
    assert [st.name for st, _ in catalogue_verdicts[name]] == [st.name for st in der.steps]
    # a printed step marked expected="refuted" (an erratum of the paper) must be refuted; nothing else may be
    # (nor be ill-posed, but for the known cases above, which must be reported as such)
    known = {r.step for r in results if (name, r.step) in KNOWN_ILL_POSED}
    assert all(r.verdict is Verdict.ILL_POSED for r in results if r.step in known)
    bad = [(r.step, r.evidence, r.counterexample) for r in results if not r.as_expected and r.step not in known]
    assert not bad
    assert all(r.verdict is not Verdict.UNDECIDED for r in results if r.kind != "definition"), [
        (r.step, r.method, r.evidence) for r in results if r.verdict is Verdict.UNDECIDED
    ]


def test_catalogue_rejects_unknown_result():
    with pytest.raises(catalogue.UnknownResult, match="unknown result 'nope'"):
        catalogue.get("nope")


# ---- planted wrong claims: each checker must refute, and show the counterexample ----------------


def test_identity_checker_refutes_wrong_identity():
    st = Step("planted: sinh² = (cosh 2x + 1)/2", sp.sinh(1 / tau) ** 2, (sp.cosh(2 / tau) + 1) / 2, domain=TAU_RANGE)
    res = check_step(st)
    assert res.verdict is Verdict.REFUTED
    assert res.counterexample and "tau" in res.counterexample


def test_identity_spot_check_catches_what_simplify_would_accept():
    # a perturbation far below float precision: only the 50-digit spot-check can see it
    st = Step(
        "planted: tiny perturbation",
        sp.exp(1 / tau),
        sp.exp(1 / tau) + sp.Rational(1, 10**30),
        domain=Domain({tau: (1, 10)}),
        simplifier=lambda e: sp.Integer(0),
    )  # a 'buggy' simplifier
    res = check_step(st)
    assert res.verdict is Verdict.REFUTED and "simplification bug" in res.method


def test_identity_checker_proves_true_identity():
    st = Step("sinh² = (cosh 2x − 1)/2", sp.sinh(1 / tau) ** 2, (sp.cosh(2 / tau) - 1) / 2, domain=TAU_RANGE)
    res = check_step(st)
    assert res.verdict is Verdict.PROVED and res.symbolic


def test_inequality_counterexample_only_near_boundary_is_found():
    # e^x ≤ 1 + x + x² holds on [−1, 1.79…] and fails only in the last sliver of [−1, 1.8]
    st = Step(
        "planted: e^x ≤ 1 + x + x² on [−1, 1.8]",
        sp.exp(x),
        1 + x + x**2,
        kind="inequality",
        relation="<=",
        domain=Domain({x: (-1, sp.Rational(18, 10))}),
    )
    res = check_step(st, trials=5000)
    assert res.verdict is Verdict.REFUTED
    assert float(res.counterexample["x"]) > 1.79


def test_interval_certifier_refutes_on_its_own():
    out = certify_nonnegative(1 + x + x**2 - sp.exp(x), Domain({x: (-1, sp.Rational(18, 10))}))
    assert out.status == "refuted"
    assert float(sp.sympify(out.counterexample["x"])) > 1.79


def test_interval_certifier_proves_tight_inequality():
    out = certify_nonnegative(x - sp.log(1 + x), Domain({x: (-sp.Rational(1, 2), 10)}))
    assert out.status == "proved"


def test_halved_constant_is_refuted():
    # the offset bound log(1 + e^{2/τ}/k) with its constant halved must fail
    g = sp.Symbol("g_test", real=True)
    st = Step(
        "planted: offset ≤ log(1 + e^{2/τ}/(2k))",
        sp.log(1 + sp.exp(g / tau) / k),
        sp.log(1 + sp.exp(2 / tau) / (2 * k)),
        kind="inequality",
        relation="<=",
        domain=Domain({tau: (sp.Rational(1, 1000), 100), k: (1, sp.oo), g: (-2, 2)}),
    )
    res = check_step(st, trials=2000)
    assert res.verdict is Verdict.REFUTED


def test_vector_inequality_falsifier_refutes():
    st = Step(
        "planted: Λ(1/τ; s) ≤ 0.99/τ",
        sp.log(sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k),
        sp.Rational(99, 100) / tau,
        kind="inequality",
        relation="<=",
        domain=Domain({tau: (sp.Rational(1, 1000), 100), k: (1, 12), s: (-1, 1)}),
    )
    res = check_step(st, trials=2000)
    assert res.verdict is Verdict.REFUTED
    assert res.worst_ratio > 1


def test_wrong_certificate_is_not_accepted():
    st = Step(
        "x² ≥ 0 with a wrong certificate",
        x**2,
        0,
        kind="inequality",
        relation=">=",
        domain=Domain({x: (-1, 1)}),
        certificate=x**2 + 1,
    )
    res = check_step(st, trials=500)
    assert "certificate rejected" in res.evidence


def test_expansion_checker_refutes_wrong_coefficient():
    st = Step(
        "planted: log(1 + 1/k) = 1/k − 1/(3k²)",
        sp.log(1 + 1 / k),
        1 / k - 1 / (3 * k**2),
        kind="expansion",
        var=k,
        order=2,
        domain=Domain({}),
    )
    res = check_step(st)
    assert res.verdict is Verdict.REFUTED
    assert res.counterexample["term"] == "k^-2" and res.counterexample["derived"] == "-1/2"


def test_limit_checker_refutes_wrong_limit():
    st = Step("planted: k log(1 + τ/k) → 2τ", k * sp.log(1 + tau / k), 2 * tau, kind="limit", var=k, domain=TAU_RANGE)
    assert check_step(st).verdict is Verdict.REFUTED


# ---- malformed steps: one clear error, at construction ----------------------------------------


def test_uncovered_free_symbol_is_an_error():
    with pytest.raises(DerivationError, match=r"free symbols \['k'\] are not covered"):
        Step("bad", tau * k, 0, domain=TAU_RANGE)


def test_empty_domain_is_an_error():
    with pytest.raises(DerivationError, match="empty domain"):
        Domain({x: (2, 1)})


def test_inconsistent_domain_is_an_error():
    with pytest.raises(DerivationError, match="declared positive"):
        Domain({tau: (-2, -1)})


def test_classical_step_needs_reference():
    with pytest.raises(DerivationError, match="needs a reference"):
        Step("bad", x, x, domain=Domain({x: (0, 1)}), provenance="classical")


def test_derivation_result_must_be_a_step():
    st = Step("a", x, x, domain=Domain({x: (0, 1)}))
    with pytest.raises(DerivationError, match="is not one of its steps"):
        Derivation("d", "t", [st], result="b")


def test_limit_checker_compares_infinities_structurally():
    assert check_step(Step("k τ → ∞", k * tau, sp.oo, kind="limit", var=k, domain=TAU_RANGE)).verdict is Verdict.PROVED
    wrong = check_step(Step("planted: 1/k → ∞", 1 / k, sp.oo, kind="limit", var=k, domain=Domain({})))
    assert wrong.verdict is Verdict.REFUTED and wrong.counterexample["limit"] == "0"
    assert (
        check_step(Step("planted: k → −∞", k, -sp.oo, kind="limit", var=k, domain=Domain({}))).verdict
        is Verdict.REFUTED
    )


def test_monotonicity_test_respects_constraints():
    # 1/2 − 1/(γτ) ≥ 0 is false at γτ = 1, inside the constrained domain; the increasing direction
    # in γ points at a face outside the domain, which must not be taken as the minimum
    from infonce_bounds.derivations.symbols import gamma

    dom = Domain({tau: (sp.Rational(1, 10), 10), gamma: (sp.Rational(1, 100), 100)}, constraints=(gamma * tau >= 1,))
    assert certify_nonnegative(sp.Rational(1, 2) - 1 / (gamma * tau), dom).status != "proved"
    res = check_step(
        Step(
            "planted: 1/(γτ) ≤ 1/2 for γτ ≥ 1",
            1 / (gamma * tau),
            sp.Rational(1, 2),
            kind="inequality",
            relation="<=",
            domain=dom,
        ),
        trials=2000,
    )
    assert res.verdict is Verdict.REFUTED


def test_expected_refutation_of_a_printed_step_is_pinned_both_ways():
    """An erratum (a printed step marked expected='refuted') passes only while its check refutes it."""
    from infonce_bounds.derivations.checks import check_step
    from infonce_bounds.derivations.ledger import Domain, Step, Verdict
    from infonce_bounds.derivations.symbols import x

    dom = Domain({x: (0, 2)})
    false_as_printed = Step(
        "printed: x² ≤ x", x**2, x, kind="inequality", relation="<=", domain=dom, provenance="paper", expected="refuted"
    )
    res = check_step(false_as_printed, trials=2000)
    assert res.verdict == Verdict.REFUTED and res.as_expected
    true_but_flagged = Step(
        "printed: x² ≥ 0", x**2, 0, kind="inequality", relation=">=", domain=dom, provenance="paper", expected="refuted"
    )
    res = check_step(true_but_flagged, trials=2000)
    assert res.verdict != Verdict.REFUTED and not res.as_expected
    with pytest.raises(Exception, match="only a printed"):
        Step("ours cannot be an erratum", x, x, domain=dom, provenance="ours", expected="refuted")
