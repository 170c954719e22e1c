"""Route "termwise" (``checks/termwise.py``): Σ a_i ≤ Σ b_i from a_i ≤ b_σ(i), terms matched by key symbols.

A true claim is proved term by term and covers its box; planted false ones (a term off by 1 %, a range past
where a term holds) are never proved; a claim whose terms do not match one to one is not of the route's shape.
The contract test runs ``TRUE`` and ``FALSE`` too.
"""

from __future__ import annotations

import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS
from infonce_bounds.derivations.checks.termwise import applies, matching, prove_termwise
from infonce_bounds.derivations.ledger import Domain, Step, covers

R = sp.Rational
x = sp.Symbol("x_tw", real=True)
y = sp.Symbol("y_tw", real=True)
tau = sp.Symbol("tau_tw", positive=True)
OPTS = {**DEFAULTS, "trials": 500, "spot_points": 2}


def claim(lhs, rhs, ranges) -> Step:
    return Step(f"{lhs} ≤ {rhs}", lhs, rhs, kind="inequality", relation="<=", domain=Domain(dict(ranges)))


BOX = {x: (0, 10), y: (0, 1)}
TRUE = [
    claim(sp.log(1 + x) + y**2, x + y, BOX),  # log(1 + x) ≤ x and y² ≤ y
    # a shared parameter (τ in every term) is no key: the terms still match by x and y
    claim(sp.log(1 + x) / tau + y**2 / tau, x / tau + y / tau, {**BOX, tau: (R(1, 10), 10)}),
]
FALSE = {
    "a term off by 1 %": claim(sp.log(1 + x) + y**2, x + R(99, 100) * y, BOX),  # y² > 0.99y near y = 1
    "the other term off by 1 %": claim(sp.log(1 + x) + y**2, R(99, 100) * x + y, BOX),  # near x = 0
    "a range past where a term holds": claim(sp.log(1 + x) + y**2, x + y, {x: (0, 10), y: (0, 2)}),
}


def test_true_claims_are_proved_term_by_term():
    for step in TRUE:
        out = prove_termwise(step, False, OPTS)
        assert out.proved, (step.name, out.method)
        assert covers(out.covered, step.domain)
        assert "the 2 inequalities summed" in out.method


def test_planted_false_claims_are_not_proved():
    for name, step in FALSE.items():
        assert applies(step), name
        assert not prove_termwise(step, False, OPTS).proved, name


def test_terms_that_do_not_match_are_not_of_the_shape():
    assert matching(claim(x + y, 2 * x + 1, BOX)) is None  # 1 has no key
    assert matching(claim(x * y + y, x + y, BOX)) is None  # x·y reads both keys' symbols
    assert matching(claim(x + y, x + y + 1, BOX)) is None  # three terms against two
    assert not applies(Step("s", x + y, 2 * x + 2 * y, kind="inequality", relation="<", domain=Domain(BOX)))


def test_a_huge_power_is_not_expanded_to_look_for_terms():
    """(1 + x)^{10⁶} ≥ 1 + 10⁶x: the sides do not match as written, and expanding the power (degree 10⁶) to look
    again would take minutes and tens of GB: the route says at once that the claim is not of its shape."""
    import time

    from infonce_bounds.derivations.checks.termwise import matching

    x_ = sp.Symbol("x_tw", nonnegative=True)
    st = Step("bernoulli", (1 + x_) ** 1000000, 1 + 1000000 * x_, "inequality", Domain({x_: (0, 1)}), relation=">=")
    t0 = time.monotonic()
    assert matching(st) is None
    assert time.monotonic() - t0 < 5
