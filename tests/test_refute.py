"""The refutation gate (``derivations/checks/refute.py``): a claim is refuted only at an exact point where Arb
shows it false; every search of the engine only proposes points to it."""

from __future__ import annotations

import fractions
import math

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.falsifier import falsify, group_claim
from infonce_bounds.derivations.checks.refute import (
    Counterexample,
    closed_form_candidates,
    confirm,
    confirm_float_point,
    exact_point,
    format_exact,
    in_domain,
    parse_exact,
    replay,
)
from infonce_bounds.derivations.ledger import Domain, Step, Verdict

x = sp.Symbol("x", real=True)
y = sp.Symbol("y", real=True)
tau = sp.Symbol("tau", positive=True)
sv = sp.Symbol("s", real=True)
k = sp.Symbol("k", integer=True, positive=True)
j = sp.Symbol("j", integer=True, positive=True)
a = sp.IndexedBase("a")
OPTS = {**DEFAULTS, "trials": 4000}


def _margin_claim():
    """log(1 + 10⁻³⁰) ≤ 10⁻³⁰ − 10⁻⁶⁰ + (x − 1/2)²: false at x = 1/2 by about 5e-61."""
    t = sp.Integer(10) ** -30
    return sp.log(1 + t), t - t**2 + (x - sp.Rational(1, 2)) ** 2


# ----------------------------------------------------------------------------- the gate itself


def test_the_gate_refuses_a_point_outside_the_domain():
    dom = Domain({x: (0, 1)})
    # x ≤ 1/2 is false at x = 2, but 2 is not in [0, 1]; at 3/4 it is refuted
    assert confirm(x, sp.Rational(1, 2), "<=", {x: 2}, domain=dom) is None
    assert confirm(x, sp.Rational(1, 2), "<=", {x: sp.Rational(3, 4)}, domain=dom) is not None
    # a closed-form point outside, decided exactly: e > 1
    assert not in_domain({x: sp.E}, dom)
    assert in_domain({x: sp.E}, Domain({x: (1, 10)}))
    # a range end is inside (closed ranges), an integer symbol needs an integer value
    assert in_domain({x: sp.Integer(1)}, dom)
    assert not in_domain({k: sp.Rational(3, 2)}, Domain({k: (1, 10)}))
    # constraints are decided exactly too
    cons = Domain({x: (0, 1), y: (0, 1)}, constraints=(sp.Le(x, y),))
    assert confirm(x + y, 1, "<=", {x: sp.Rational(9, 10), y: sp.Rational(1, 2)}, domain=cons) is None
    assert confirm(x + y, 1, "<=", {x: sp.Rational(1, 2), y: sp.Rational(9, 10)}, domain=cons) is not None


def test_a_margin_of_1e_61_is_refuted_by_raising_the_precision():
    lhs, rhs = _margin_claim()
    cx = confirm(lhs, rhs, "<=", {x: sp.Rational(1, 2)})
    assert cx is not None and cx.bits > 64 and not cx.equal_exactly
    lo_l = sp.Rational(cx.lhs[0])
    hi_r = sp.Rational(cx.rhs[1])
    assert lo_l > hi_r  # the printed (outward) enclosures themselves show it
    # too little precision: undecided, never refuted
    assert confirm(lhs, rhs, "<=", {x: sp.Rational(1, 2)}, max_bits=64) is None
    # the true claim with the margin the other way is never refuted
    t = sp.Integer(10) ** -30
    assert confirm(sp.log(1 + t), t - t**2 / 2 + t**3 / 3, "<=", {x: sp.Rational(1, 2)}) is None


def test_true_strict_claims_with_tiny_sides_are_never_refuted():
    assert confirm(sp.exp(-x), 0, ">", {x: 1000}) is None
    assert confirm(sp.exp(-x), 0, ">", {x: sp.Integer(10) ** 6}) is None
    # the InfoNCE-style loss log(1 + e^{−s/τ}) > 0 at τ = 0.01 (its value is e^{−100})
    assert confirm(sp.log(1 + sp.exp(-sv / tau)), 0, ">", {sv: 1, tau: sp.Rational(1, 100)}) is None
    # a softmax weight > 0 at low temperature
    w = sp.exp(-sv / tau) / (sp.exp(-sv / tau) + sp.exp(sv / tau))
    assert confirm(w, 0, ">", {sv: 1, tau: sp.Rational(1, 1000)}) is None
    # and the false strict claim e^{-x} < 0 is refuted at once
    assert confirm(sp.exp(-x), 0, "<", {x: 1000}) is not None


def test_a_strict_claim_is_refuted_where_its_sides_are_exactly_equal():
    cx = confirm(sp.log(x), x / sp.E, "<", {x: sp.E}, domain=Domain({x: (1, 10)}))
    assert cx is not None and cx.equal_exactly and cx.point == {"x": "E"}
    # the non-strict claim holds there
    assert confirm(sp.log(x), x / sp.E, "<=", {x: sp.E}) is None
    # at the float nearest e the sides differ (by ~1e-33): not a counterexample of the strict claim
    assert confirm(sp.log(x), x / sp.E, "<", {x: math.e}) is None
    # the falsifier's proposal near e reaches the exact point through the closed-form candidates
    cx = confirm_float_point(sp.log(x), x / sp.E, "<", {x: math.e}, closed_forms=True)
    assert cx is not None and cx.point["x"] == "E"
    step = Step("log x < x/e", sp.log(x), x / sp.E, kind="inequality", relation="<", domain=Domain({x: (1, 10)}))
    res = check_step(step, **OPTS)
    assert res.verdict is Verdict.REFUTED and res.counterexample["x"] == "E"
    assert replay(res.counterexample, step.lhs, step.rhs, "<", step.domain)


def test_identities_with_cancellation_are_not_refuted():
    assert confirm(sp.cosh(x) ** 2 - sp.sinh(x) ** 2, 1, "=", {x: 100}) is None
    assert confirm((x + 1) ** 2 - x**2, 2 * x + 1, "=", {x: sp.Integer(10) ** 30}) is None
    for lhs, rhs, rng in [
        (sp.cosh(x) ** 2 - sp.sinh(x) ** 2, sp.Integer(1), (0, 100)),
        ((x + 1) ** 2 - x**2, 2 * x + 1, (0, sp.Integer(10) ** 30)),
    ]:
        res = check_step(Step("cancellation", lhs, rhs, domain=Domain({x: rng})), **OPTS)
        assert res.verdict is Verdict.PROVED
    # a planted wrong identity of the same kind is refuted, with a replayable counterexample
    bad = Step(
        "planted: cosh² − sinh² = 1 + 10⁻³⁰",
        sp.cosh(x) ** 2 - sp.sinh(x) ** 2,
        1 + sp.Rational(1, 10**30),
        domain=Domain({x: (0, 2)}),
    )
    res = check_step(bad, **OPTS)
    assert res.verdict is Verdict.REFUTED
    assert replay(res.counterexample, bad.lhs, bad.rhs, "=", bad.domain)


def test_undefined_sides_are_never_counterexamples():
    # log of 0 and sqrt of a negative number: undecided, not refuted
    assert confirm(sp.log(x), 5, ">=", {x: 0}) is None
    assert confirm(sp.sqrt(x - 1), -1, "<=", {x: sp.Rational(1, 2)}) is None
    assert confirm(1 / x, 1, ">=", {x: 0}) is None


def test_an_integral_is_enclosed_by_rigorous_quadrature():
    t = sp.Symbol("t")
    integral = sp.Integral(sp.exp(x * t), (t, 0, 1))
    assert confirm(integral, (sp.exp(x) - 1) / x, "=", {x: sp.Rational(3, 10)}) is None
    off = (sp.exp(x) - 1) / x + sp.Rational(1, 10**20)
    assert confirm(integral, off, "=", {x: sp.Rational(3, 10)}) is not None


def test_exact_points_and_their_strings():
    dom = Domain({x: (sp.Rational(1, 10), 1)})
    pt = exact_point({x: 0.1, k: 7}, dom)
    assert pt[x] == sp.Rational(1, 10) and pt[k] == 7 and pt[k].is_Integer
    third = Domain({x: (sp.Rational(1, 3), 1)})
    assert exact_point({x: 1 / 3}, third)[x] == sp.Rational(1, 3)  # a snapped range end is the end itself
    assert exact_point({x: 0.3})[x] == sp.Rational(3, 10)
    for v in (sp.Rational(3, 10), sp.Rational(1, 3), sp.Integer(12), sp.E, sp.sqrt(2), sp.exp(sp.Rational(1, 3))):
        assert parse_exact(format_exact(v)) == v
    assert format_exact(sp.Rational(3, 10)) == "0.3" and format_exact(sp.Rational(1, 3)) == "1/3"
    assert parse_exact(0.1) == sp.Rational(fractions.Fraction(0.1))  # a Python float: its binary value
    with pytest.raises(ValueError):
        parse_exact("x + 1")
    assert closed_form_candidates(x, math.e) == [sp.E]
    assert sp.sqrt(2) in closed_form_candidates(x, math.sqrt(2))
    assert closed_form_candidates(k, 4.0000001) == [4]
    with pytest.raises(ValueError):
        confirm(x, 1, "<<", {x: 0})


# ----------------------------------------------------------------------------- every counterexample replays


def test_every_counterexample_the_falsifier_prints_replays():
    cases = [
        Step("planted: x² ≤ x", x**2, x, kind="inequality", relation="<=", domain=Domain({x: (0, 2)})),
        Step(
            "planted: tanh x ≤ x − x³/4",
            sp.tanh(x),
            x - x**3 / 4,
            kind="inequality",
            relation="<=",
            domain=Domain({x: (0, 1)}),
        ),
        Step(
            "planted: e^x ≥ 1 + x + x²",
            sp.exp(x),
            1 + x + x**2,
            kind="inequality",
            relation=">=",
            domain=Domain({x: (-1, 1)}),
        ),
        Step(
            "planted: Σ a_j² ≤ 3",
            sp.Sum(a[j] ** 2, (j, 1, k)),
            sp.Integer(3),
            kind="inequality",
            relation="<=",
            domain=Domain({k: (1, 10), a: (-1, 1)}),
        ),
    ]
    for st in cases:
        fz = falsify(st, OPTS)
        cx = fz.counterexample
        assert cx is not None, st.name
        assert {"lhs_enclosure", "rhs_enclosure", "bits", "relation"} <= set(cx)
        assert replay(cx, st.lhs, st.rhs, st.relation, st.domain), st.name
        # a tampered point does not replay (the dict alone decides)
        if "x" in cx:
            ok = dict(cx, x="0")
            assert not replay(ok, st.lhs, st.rhs, st.relation, st.domain) or st.name.startswith("planted: e^x")


def test_a_grouped_large_k_counterexample_replays():
    st = Step(
        "planted: Σ a_j² ≤ 20",
        sp.Sum(a[j] ** 2, (j, 1, k)),
        sp.Integer(20),
        kind="inequality",
        relation="<=",
        domain=Domain({k: (1, sp.oo), a: (-1, 1)}),
    )
    fz = falsify(st, {**OPTS, "trials": 20000})
    cx = fz.counterexample
    assert cx is not None and int(cx["k"]) > 20 and "grouped" in cx
    (gl, gr), ms = group_claim([st.lhs, st.rhs], k)
    named = {m: sp.Symbol(f"m{g + 1}", integer=True, nonnegative=True) for g, m in enumerate(ms)}
    assert replay(cx, gl.xreplace(named), gr.xreplace(named), "<=", st.domain)
    assert sum(int(cx[f"m{g}"]) for g in (1, 2, 3)) == int(cx["k"])


def test_a_counterexample_object_round_trips():
    cx = confirm(x**2, x, "<=", {x: 2})
    assert isinstance(cx, Counterexample)
    d = cx.as_dict()
    assert d["x"] == "2.0" and d["bits"] == 64 and d["relation"] == "<=" and d["equal_exactly"] is False
    assert cx.replay(x**2, x) and not cx.replay(x**2, x + 10)


# ----------------------------------------------------------------------------- crashes (mechanism 7)


def test_a_vector_claim_with_a_finite_k_bound_above_twelve_does_not_crash():
    st = Step(
        "Σ a_j² ≤ k on k ≤ 30",
        sp.Sum(a[j] ** 2, (j, 1, k)),
        k,
        kind="inequality",
        relation="<=",
        domain=Domain({k: (1, 30), a: (-1, 1)}),
    )
    res = check_step(st, **OPTS)
    assert res.verdict in (Verdict.PROVED, Verdict.VERIFIED)
    # and a false one of the kind is refuted beyond k_cap, at a point that replays
    bad = Step(
        "planted: Σ a_j² ≤ 20 on k ≤ 30",
        sp.Sum(a[j] ** 2, (j, 1, k)),
        sp.Integer(20),
        kind="inequality",
        relation="<=",
        domain=Domain({k: (1, 30), a: (-1, 1)}),
    )
    fz = falsify(bad, {**OPTS, "trials": 20000})
    assert fz.counterexample is not None and 20 < int(fz.counterexample["k"]) <= 30


def test_a_limit_returned_as_accumulation_bounds_is_undecided():
    xp = sp.Symbol("xp", positive=True)
    st = Step(
        "lim sin x = 0", sp.sin(xp), sp.Integer(0), kind="limit", var=xp, point=sp.oo, domain=Domain({xp: (1, 2)})
    )
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.UNDECIDED and "accumulation" in res.method


def test_the_falsifier_no_longer_refutes_a_true_strict_claim_by_tolerance():
    st = Step("e^{-x} > 0", sp.exp(-x), sp.Integer(0), kind="inequality", relation=">", domain=Domain({x: (0, 1000)}))
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.PROVED
    loss = sp.log(1 + sp.exp(-sv / tau))
    st2 = Step(
        "InfoNCE-style > 0",
        loss,
        sp.Integer(0),
        kind="inequality",
        relation=">",
        domain=Domain({sv: (-1, 1), tau: (sp.Rational(1, 100), 10)}),
    )
    assert falsify(st2, OPTS).counterexample is None


def test_an_interval_refutation_stands_only_where_the_gate_confirms_it(monkeypatch):
    """Branch and bound only proposes its point: a (planted) wrong proposal leaves a true claim unrefuted, a
    right one refutes with the gate's enclosures."""
    from infonce_bounds.derivations.checks import inequality
    from infonce_bounds.derivations.checks.interval import IntervalOutcome

    def fake(point):
        return lambda *a, **kw: IntervalOutcome("refuted", 1, "planted proposal", counterexample=point)

    true_step = Step(
        "cosh x ≥ 1 + x²/3", sp.cosh(x), 1 + x**2 / 3, kind="inequality", relation=">=", domain=Domain({x: (-1, 1)})
    )
    monkeypatch.setattr(inequality, "certify_nonnegative", fake({"x": "1/2"}))
    res = check_step(true_step, **OPTS)
    assert res.verdict is not Verdict.REFUTED and "not confirmed by the Arb gate" in res.evidence
    false_step = Step(
        "planted: x² ≥ 1/2", x**2, sp.Rational(1, 2), kind="inequality", relation=">=", domain=Domain({x: (-1, 1)})
    )
    monkeypatch.setattr(inequality, "certify_nonnegative", fake({"x": "0"}))
    res = inequality.check_inequality(false_step, {**OPTS, "trials": 1})
    assert res.verdict is Verdict.REFUTED and res.counterexample["x"] == "0.0"
    assert replay(res.counterexample, false_step.lhs, false_step.rhs, ">=", false_step.domain)
