"""A conjunction is proved only when its proved parts imply the claim (``checks/implication.py``).

Each rule is shown proving a true claim from parts, and refusing planted ones: an unrelated proved part, a
part proved on too small a box, a substitution leaving the part's domain, a strict claim from non-strict parts.
"""

from __future__ import annotations

import sympy as sp

from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.custom import all_of
from infonce_bounds.derivations.checks.implication import implied
from infonce_bounds.derivations.ledger import Domain, Step, Verdict

x, y = sp.symbols("x y", real=True)
u = sp.Symbol("u", nonnegative=True)
BOX = Domain({x: (0, 1), y: (0, 1)})


def le(name, a, b, dom=BOX, strict=False):
    return Step(name, a, b, kind="inequality", relation="<" if strict else "<=", domain=dom)


def proved_parts(*parts):
    return list(parts), [check_step(p, trials=500) for p in parts]


def test_chain_by_combination_is_implied():
    parts, res = proved_parts(le("x² ≤ x", x**2, x), le("x ≤ 1", x, 1))
    assert all(r.verdict == Verdict.PROVED for r in res)
    ok, how = implied(le("x² ≤ 1", x**2, 1), parts, res)
    assert ok and how.startswith("combination")


def test_unrelated_proved_part_implies_nothing():
    parts, res = proved_parts(le("x ≤ 1", x, 1))
    ok, _ = implied(le("planted: x² ≤ 1/2", x**2, sp.Rational(1, 2)), parts, res)
    assert not ok


def test_planted_false_claim_with_an_unrelated_part_is_not_proved():
    # false only at x = 1/3 exactly (margin −1e−40 around it): the falsifier's floats do not settle it, and the
    # unrelated proved part must not carry it to "proved"
    claim = Step(
        "planted: (x − 1/3)² ≥ 1e−40",
        (x - sp.Rational(1, 3)) ** 2,
        sp.Rational(1, 10**40),
        kind="inequality",
        relation=">=",
        domain=Domain({x: (0, 1)}),
        check=all_of([le("x ≤ 1", x, 1, Domain({x: (0, 1)}))], "unrelated"),
    )
    assert check_step(claim, trials=300).verdict != Verdict.PROVED


def test_max_needs_every_entry():
    parts, res = proved_parts(le("x ≤ 1", x, 1), le("y ≤ 1", y, 1))
    assert implied(le("max(x, y) ≤ 1", sp.Max(x, y), 1), parts, res)[0]
    assert not implied(le("max(x, y) ≤ 1 from x alone", sp.Max(x, y), 1), parts[:1], res[:1])[0]


def test_strict_claim_needs_a_strict_reason():
    parts, res = proved_parts(le("x ≤ 1", x, 1))
    assert not implied(le("planted: x < 1", x, 1, strict=True), parts, res)[0]


def test_part_on_a_smaller_box_does_not_cover_the_claim():
    half = Domain({x: (0, sp.Rational(1, 2))})
    parts, res = proved_parts(le("x ≤ 1/2 on [0, 1/2]", x, sp.Rational(1, 2), half))
    assert not implied(le("planted: x ≤ 1/2 on [0, 1]", x, sp.Rational(1, 2), Domain({x: (0, 1)})), parts, res)[0]


def test_instance_of_a_generic_part_inside_and_outside_its_domain():
    generic = le("log(1 + u) ≤ u", sp.log(1 + u), u, Domain({u: (0, sp.oo)}))
    parts, res = proved_parts(generic)
    assert res[0].verdict == Verdict.PROVED
    claim = le("log(1 + x²) ≤ x²", sp.log(1 + x**2), x**2, Domain({x: (-1, 1)}))
    assert implied(claim, parts, res, subs=[{u: x**2}])[0]
    # x − 2 ∈ [−3, −1] lies outside u ≥ 0: the instance is not usable
    bad = le("planted: log(x − 1) ≤ x − 2", sp.log(x - 1), x - 2, Domain({x: (-1, 1)}))
    assert not implied(bad, parts, res, subs=[{u: x - 2}])[0]


def test_cases_by_domain_tile_the_box():
    lo, hi = Domain({x: (0, sp.Rational(1, 2))}), Domain({x: (sp.Rational(1, 2), 1)})
    parts, res = proved_parts(le("x ≤ 1 on [0, 1/2]", x, 1, lo), le("x ≤ 1 on [1/2, 1]", x, 1, hi))
    assert implied(le("x ≤ 1", x, 1, Domain({x: (0, 1)})), parts, res)[0]
    # a gap in the tiling ([0, 1/2] only) proves nothing on [0, 1]
    assert not implied(le("planted: x ≤ 1/2", x, sp.Rational(1, 2), Domain({x: (0, 1)})), parts[:1], res[:1])[0]
