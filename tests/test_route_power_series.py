"""The route "power series" (``checks/power_series.py``): gap ≥ 0 for var > 0 from gap·F = G, F with positive and G
with nonnegative terms. It proves the bias module's three series steps and e^y ≥ 1 + y; it must not prove a claim
whose series is wrong, has a negative term, is off by a constant, is strict where it touches, or whose range reaches
below 0; a malformed hint names its parameter."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations import bias
from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.power_series import terms_signed
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers

OPTS = {**DEFAULTS, "trials": 1500, "seed": 0}
y = sp.Symbol("y_ps", positive=True)
yr = sp.Symbol("y_psr", real=True)
n = sp.Symbol("n_ps", integer=True, positive=True)
EXP_M1 = sp.Sum(y**n / sp.factorial(n), (n, 1, sp.oo))  # e^y − 1
DOM = Domain({y: (sp.Rational(1, 10**6), 50)})


def _st(lhs, rel, rhs, series, factor=1, dom=DOM, var=y):
    return Step(
        "series claim",
        lhs,
        rhs,
        kind="inequality",
        relation=rel,
        domain=dom,
        route=("power series", {"series": series, "factor": factor, "var": var}),
    )


def test_exp_tangent_is_proved_and_its_cover_contains_the_domain():
    """e^y − 1 − y = Σ_{n≥2} yⁿ/n! ≥ 0 (F = 1)."""
    st = _st(1 + y, "<=", sp.exp(y), sp.Sum(y**n / sp.factorial(n), (n, 2, sp.oo)))
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, DOM)


def test_strict_claim_with_positive_terms_is_proved():
    st = _st(1 + y, "<", sp.exp(y), sp.Sum(y**n / sp.factorial(n), (n, 2, sp.oo)))
    assert check_step(st, **OPTS).verdict is Verdict.PROVED


@pytest.mark.parametrize("name", ["h(y) ≥ 0", "Padé bound h(y) ≤ y/2 + y²/12", "(e^y − 1)/y increases"])
def test_the_bias_series_steps_are_proved(name):
    (st,) = [s for d in bias.derivations() for s in d.steps if s.name == name]
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, st.domain)


def test_planted_constant_off_by_a_hundredth_is_not_proved():
    """h(y) ≤ y/2 + y²/12 − 1/100 is false near 0; the true series does not equal its gap·F."""
    (st,) = [s for d in bias.derivations() for s in d.steps if s.name.startswith("Padé bound")]
    bad = Step(
        st.name,
        st.lhs,
        st.rhs - sp.Rational(1, 100),
        kind=st.kind,
        relation=st.relation,
        domain=st.domain,
        route=st.route,
    )
    res = check_step(bad, **OPTS)
    assert res.verdict is not Verdict.PROVED and res.covered is None


def test_wrong_series_is_not_proved():
    """A series that is not gap·F (it misses the y² term) withholds the proof of a true claim."""
    st = _st(1 + y, "<=", sp.exp(y), sp.Sum(y**n / sp.factorial(n), (n, 3, sp.oo)))
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.VERIFIED and "= G: False" in res.method


def test_a_negative_term_is_not_proved():
    """e^{−y} − 1 + y = Σ_{n≥2} (−y)ⁿ/n! holds (≥ 0) but its terms alternate: no proof from this series."""
    st = _st(1 - y, "<=", sp.exp(-y), sp.Sum((-y) ** n / sp.factorial(n), (n, 2, sp.oo)))
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED


def test_strict_claim_that_touches_is_not_proved():
    """y²·(…) with a zero term: G = Σ_{n≥2} (n − 2) yⁿ/n! has a zero first term; the strict claim needs G > 0
    termwise, so the route declines (the claim itself is true for y > 0, so it is not refuted either)."""
    g = sp.Sum((n - 2) * y**n / sp.factorial(n), (n, 2, sp.oo))  # = y e^y − 2e^y + 2 + y
    st = _st(0, "<", g.doit(), g)
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED and res.verdict is not Verdict.REFUTED


def test_range_below_zero_is_refuted_not_proved():
    """e^y ≥ 1 + y + y²/2 holds for y ≥ 0 only; stated on [−1, 1] (y real) the route declines and the
    falsifier's counterexample refutes it through the gate."""
    st = _st(
        1 + yr + yr**2 / 2,
        "<=",
        sp.exp(yr),
        sp.Sum(yr**n / sp.factorial(n), (n, 3, sp.oo)),
        dom=Domain({yr: (-1, 1)}),
        var=yr,
    )
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.REFUTED and "does not lie in (0, ∞)" in res.method


def test_terms_signed_reads_strictness_and_empty_ranges():
    assert terms_signed(sp.Sum(y**n, (n, 1, sp.oo)), y, True)
    assert not terms_signed(sp.Sum((n - 1) * y**n, (n, 1, sp.oo)), y, True)  # the n = 1 term is 0
    assert terms_signed(sp.Sum((n - 1) * y**n, (n, 1, sp.oo)), y, False)
    assert not terms_signed(sp.Sum(y**n, (n, 3, 2)), y, False)  # an empty sum proves nothing


@pytest.mark.parametrize(
    ("params", "word"),
    [
        ({"series": sp.exp(y) - 1, "var": y}, "series must be a Sum"),
        ({"series": EXP_M1, "var": "y"}, "var must be a SymPy symbol"),
        ({"series": EXP_M1}, "needs parameters"),
    ],
)
def test_malformed_hint_names_the_parameter(params, word):
    st = Step(
        "bad hint", 1 + y, sp.exp(y), kind="inequality", relation="<=", domain=DOM, route=("power series", params)
    )
    with pytest.raises(DerivationError, match=word):
        check_step(st, **OPTS)


def test_exponential_closed_form_matches_sympy_and_declines_other_shapes():
    from infonce_bounds.derivations.checks.power_series import exponential_closed

    s_ = sp.Sum((n - 3) * (n - 4) * y**n / (12 * sp.factorial(n)), (n, 5, sp.oo))
    assert sp.simplify(exponential_closed(s_, y) - s_.doit()) == 0
    assert exponential_closed(sp.Sum(y**n / n, (n, 1, sp.oo)), y) is None  # not p(n) yⁿ/n!
    assert exponential_closed(sp.Sum(y**n / sp.factorial(n), (n, 1, 9)), y) is None  # a finite range
