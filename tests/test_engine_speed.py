"""The engine's fail-fast paths (issue 27's speed budget): a stage that cannot succeed stops early, and never proves
a false claim or refutes a true one by stopping."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import certify_nonnegative
from infonce_bounds.derivations.ledger import Domain

X = sp.Symbol("x", positive=True)
A = sp.Symbol("a", positive=True)
HALF_LINE = Domain({X: (0, sp.oo)})


def test_unbounded_tail_tight_at_infinity_stops_early():
    """1/(x+1) − 1/(x+2) ≥ 0 is true but tight as x → ∞, and its enclosure on [L, ∞) never has a lower end ≥ 0
    (dependency): bisecting the tail cannot end, so the stage gives up long before its 1500 boxes."""
    out = certify_nonnegative(1 / (X + 1) - 1 / (X + 2), HALF_LINE)
    assert out.status == "undecided"
    assert out.boxes < 100
    assert "unbounded range x" in out.reason


def test_unbounded_tail_with_a_margin_is_still_certified():
    """With a margin 10⁻⁶ at infinity the tail is certified once 1/(L+2) ≤ 10⁻⁶ (L ~ 2^20 < 2^64): proved."""
    out = certify_nonnegative(sp.Rational(1, 10**6) + 1 / (X + 1) - 1 / (X + 2), HALF_LINE)
    assert out.status == "proved"


def test_unbounded_tail_planted_false_is_not_proved():
    """Planted false: −10⁻⁶ + 1/(x+1) − 1/(x+2) < 0 for large x: never proved (refuted at a box centre)."""
    out = certify_nonnegative(-sp.Rational(1, 10**6) + 1 / (X + 1) - 1 / (X + 2), HALF_LINE)
    assert out.status == "refuted"
    false_two = certify_nonnegative(sp.log(A) - sp.log(A + 1 / (X + 1)), Domain({A: (1, 2), X: (0, sp.oo)}))
    assert false_two.status != "proved"


def test_unbounded_lower_tail_stops_early():
    """The mirror image on (−∞, 0]: tight as y → −∞, given up early (its bounded halves are popped first, so
    they are bisected too), not proved."""
    y = sp.Symbol("y", nonpositive=True)
    out = certify_nonnegative(1 / (1 - y) - 1 / (2 - y), Domain({y: (-sp.oo, 0)}))
    assert out.status == "undecided"
    assert out.boxes < 400


def _bias_certificate(c_a: sp.Expr) -> tuple[sp.Expr, Domain]:
    """bias_bound's C_A certificate (c_A − e^{−y}h(y))(1 − e^{y−2/τ}) + c_A e^{−2/τ}(e^y − 1), y = 2t/τ, with c_A given."""
    from infonce_bounds.derivations.symbols import t, tau

    yt = 2 * t / tau
    h = yt / (1 - sp.exp(-yt)) - 1
    cert = (c_a - sp.exp(-yt) * h) * (1 - sp.exp(2 * (t - 1) / tau)) + c_a * sp.exp(-2 / tau) * (sp.exp(yt) - 1)
    return cert, Domain({tau: (sp.Rational(1, 1000), 100), t: (sp.Rational(1, 10**9), 1)})


def test_certificate_signed_termwise_before_the_whole_budget():
    """A certificate written for its terms to be signed apart (C_A, c_A = 0.2163 ≥ max e^{−y}h(y) ≈ 0.21621): the
    whole-box branch and bound fails on 1500 boxes, termwise signs it; it is tried after a quarter of them."""
    from infonce_bounds.derivations.checks import DEFAULTS
    from infonce_bounds.derivations.checks.certificate import certificate_sign
    from infonce_bounds.derivations.ledger import Step, Verdict

    cert, dom = _bias_certificate(sp.Rational(2163, 10000))
    step = Step("C_A certificate ≥ 0", cert, 0, kind="inequality", relation=">=", domain=dom)
    res = certificate_sign(step, dict(DEFAULTS))
    assert res is not None and res.verdict is Verdict.PROVED
    assert "termwise" in res.method


def test_certificate_planted_false_is_not_signed():
    """Planted false: c_A = 0.2 < max_y e^{−y}h(y), so the certificate is negative near y ≈ 1.6 (t = 0.008, τ = 0.01):
    neither termwise nor the whole budget proves it (certificate_sign gives None)."""
    from infonce_bounds.derivations.checks import DEFAULTS
    from infonce_bounds.derivations.checks.certificate import certificate_sign
    from infonce_bounds.derivations.ledger import Step
    from infonce_bounds.derivations.symbols import t, tau

    cert, dom = _bias_certificate(sp.Rational(2, 10))
    assert cert.subs({t: sp.Rational(8, 1000), tau: sp.Rational(1, 100)}).evalf(30) < 0
    step = Step("false C_A certificate ≥ 0", cert, 0, kind="inequality", relation=">=", domain=dom)
    assert certificate_sign(step, dict(DEFAULTS)) is None


def _repeated_subexpressions():
    from infonce_bounds.derivations.symbols import t, tau

    cert, _ = _bias_certificate(sp.Rational(2163, 10000))
    return [
        sp.diff(cert, t),  # exp(−2t/τ), 1 − exp(−2t/τ) and their powers recur many times
        sp.diff(cert, tau, 2),
        sp.log(t - tau) * sp.exp(sp.log(t - tau)) + sp.sqrt(t - tau) / (t - tau),  # a repeated node that may raise
        sp.Max(t, tau) * sp.Min(t, tau) - sp.Max(t, tau) ** 2 + sp.Abs(t - tau) * sp.Abs(t - tau),
    ]


def test_shared_subexpressions_enclose_exactly_as_the_tree_walk():
    """The compiled program encloses each distinct subexpression once per box and reuses it: the endpoints are
    exactly the tree walk's (``intervals._eval``), and where the walk raises, the program raises the same type."""
    import random

    from infonce_bounds.derivations import intervals
    from infonce_bounds.derivations.symbols import t, tau

    rng = random.Random(1)
    for expr in _repeated_subexpressions():
        fn = intervals.compiled(expr)
        for prec in (53, 80):
            with intervals.iv_prec(prec):
                for _ in range(30):
                    lo_t, hi_t = sorted(sp.Rational(rng.randint(1, 3000), 1000) for _ in range(2))
                    lo_u, hi_u = sorted(sp.Rational(rng.randint(1, 3000), 1000) for _ in range(2))
                    box = {t: intervals.to_iv(lo_t, hi_t), tau: intervals.to_iv(lo_u, hi_u)}
                    try:
                        want = intervals._eval(expr, box)
                    except (intervals.NotEnclosable, ZeroDivisionError, ValueError) as exc:
                        with pytest.raises(type(exc)):
                            fn(box)
                        continue
                    got = fn(box)
                    assert (got.a, got.b) == (want.a, want.b)


def test_shared_subexpressions_do_not_confuse_distinct_ones():
    """Planted wrong: 2.0·t and 2·t, t and t + 10⁻³⁰ are different nodes; sharing one slot for them would show."""
    from infonce_bounds.derivations import intervals
    from infonce_bounds.derivations.symbols import t

    box = {t: intervals.to_iv(1, 2)}
    e = sp.exp(t) - sp.exp(t + sp.Rational(1, 10**30))  # < 0 everywhere: never [0, 0]
    got = intervals.compiled(e)(box)
    assert got.lo < 0
    assert (got.a, got.b) == (intervals._eval(e, box).a, intervals._eval(e, box).b)


def test_expectation_zero_test_is_memoised_per_expression():
    """``expectation._zero`` answers once per expression: a true identity stays proved, a planted nonzero
    remainder (one log short) stays not 0 however often it is asked, and neither answer leaks to the other."""
    from infonce_bounds.derivations.checks import expectation

    a, b = sp.symbols("a b", positive=True)
    ident, wrong = sp.log(a * b) - sp.log(a) - sp.log(b), sp.log(a * b) - sp.log(a)
    for _ in range(3):
        assert expectation._zero(ident) is True
        assert expectation._zero(wrong) is False
    assert expectation._ZERO_MEMO[wrong] is False


def test_bisection_ends_are_sympy_max_and_min():
    """``_larger``/``_smaller`` (the bisection's mid-points and box centres) give exactly ``sp.Max``/``sp.Min`` of
    exact numbers, ±∞ included; planted wrong: the smaller one is never returned as the larger."""
    import itertools

    from infonce_bounds.derivations.checks.interval import _larger, _smaller

    vals = [sp.Integer(0), sp.Integer(3), sp.Rational(1, 3), sp.Rational(-5, 2), sp.oo, -sp.oo, sp.Rational(7, 2)]
    for a, b in itertools.product(vals, vals):
        assert _larger(a, b) == sp.Max(a, b) and _smaller(a, b) == sp.Min(a, b)
    assert _larger(sp.Integer(1), sp.Integer(2)) != 1
