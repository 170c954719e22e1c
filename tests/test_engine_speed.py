"""The engine's fail-fast paths (issue 27's speed budget): a stage that cannot succeed stops early, and never proves
a false claim or refutes a true one by stopping."""

from __future__ import annotations

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
