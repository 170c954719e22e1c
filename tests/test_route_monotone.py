"""The route "monotone" (``checks/monotone.py``): gap ≥ 0 from gap(end) = 0, gap' = derivative and its sign.
It proves log(1 + x) ≤ x and the Taylor remainders; it must not prove a claim whose derivative is wrong, whose
gap is not monotone on part of the range, that crosses a pole, or that is strict; its cover contains the domain."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations import angle_class, catalogue
from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers

OPTS = {**DEFAULTS, "trials": 1500, "seed": 0}
x = sp.Symbol("x_mono", real=True)


def _st(lhs, rhs, dom, params, relation="<="):
    return Step(
        "monotone claim", lhs, rhs, kind="inequality", relation=relation, domain=dom, route=("monotone", params)
    )


def test_true_claim_is_proved_and_its_cover_contains_the_domain():
    dom = Domain({x: (0, 10)})
    res = check_step(_st(sp.log(1 + x), x, dom, {"end": 0, "derivative": x / (1 + x), "var": x}), **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, dom)


def test_right_side_with_interval_sign_is_proved():
    """x ∈ [−1/2, 0]: gap = −log(1 + x) + x ... from the right end; the sign of −x/(1 + x) ≥ 0 to the left."""
    dom = Domain({x: (sp.Rational(-1, 2), 0)})
    res = check_step(
        _st(sp.log(1 + x), x, dom, {"end": 0, "derivative": x / (1 + x), "var": x, "side": "right"}, "<="), **OPTS
    )
    # gap = x − log(1 + x), gap' = x/(1 + x) ≤ 0 left of 0: gap decreases to 0, so gap ≥ 0
    assert res.verdict is Verdict.PROVED and covers(res.covered, dom)


def test_derivative_off_by_one_percent_is_not_proved():
    dom = Domain({x: (0, 10)})
    res = check_step(
        _st(sp.log(1 + x), x, dom, {"end": 0, "derivative": sp.Rational(99, 100) * x / (1 + x), "var": x}), **OPTS
    )
    assert res.verdict is not Verdict.PROVED and res.covered is None


def test_not_monotone_on_part_of_the_range_is_not_proved():
    """sin x ≤ x·(something) style: gap = x − 2 sin x has gap' = 1 − 2 cos x < 0 on [0, π/3): false near 0."""
    dom = Domain({x: (0, 4)})
    res = check_step(_st(2 * sp.sin(x), x, dom, {"end": 0, "derivative": 1 - 2 * sp.cos(x), "var": x}), **OPTS)
    assert res.verdict is Verdict.REFUTED  # the falsifier's counterexample, through the gate


def test_a_pole_inside_the_range_is_not_proved():
    """gap = −1/(x − 1) − 1: gap(0) = 0, gap' = 1/(x − 1)² ≥ 0 wherever defined, yet gap(2) = −2."""
    dom = Domain({x: (0, 2)})
    st = _st(0, -1 / (x - 1) - 1, dom, {"end": 0, "derivative": 1 / (x - 1) ** 2, "var": x})
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED
    assert "defined on the domain: False" in res.method


def test_a_strict_claim_or_a_range_not_starting_at_the_end_is_not_proved():
    dom = Domain({x: (0, 10)})
    params = {"end": 0, "derivative": x / (1 + x), "var": x}
    assert check_step(_st(sp.log(1 + x), x, dom, params, "<"), **OPTS).verdict is not Verdict.PROVED
    wide = Domain({x: (-sp.Rational(1, 2), 10)})
    assert check_step(_st(sp.log(1 + x), x, wide, params), **OPTS).verdict is not Verdict.PROVED


def test_a_malformed_hint_names_its_parameter():
    dom = Domain({x: (0, 10)})
    with pytest.raises(DerivationError, match="side"):
        check_step(_st(sp.log(1 + x), x, dom, {"end": 0, "derivative": 1, "var": x, "side": "up"}), **OPTS)
    with pytest.raises(DerivationError, match="missing"):
        check_step(_st(sp.log(1 + x), x, dom, {"end": 0, "var": x}), **OPTS)


def test_the_catalogues_monotone_steps_are_proved_on_their_domain():
    steps = [angle_class.half_chord_upper(), angle_class.half_chord_lower()]
    steps += [s for s in catalogue.get("a1").steps if s.route and s.route[0] == "monotone"]
    assert len(steps) == 4
    for st in steps:
        res = check_step(st, **OPTS)
        assert res.verdict is Verdict.PROVED and covers(res.covered, st.domain), st.name


def test_the_hint_is_keyed_by_value_in_the_verify_cache():
    """A route is data: the same hint gives the same cache key, another derivative another key."""
    import dataclasses

    from infonce_bounds.derivations.run.runner import step_key

    dom = Domain({x: (0, 10)})
    st = _st(sp.log(1 + x), x, dom, {"end": 0, "derivative": x / (1 + x), "var": x})
    same = _st(sp.log(1 + x), x, dom, {"end": 0, "derivative": x / (1 + x), "var": x})
    other = dataclasses.replace(st, route=("monotone", {"end": 0, "derivative": x / (2 + x), "var": x}))
    assert step_key(st, OPTS) == step_key(same, OPTS) != step_key(other, OPTS)
