"""Route "mean value composition" (``checks/mean_value_composition.py``): |F(b) − F(a)| ≤ R from a proved FTC
identity along the segment and a proved pointwise bound over a domain the segment stays in.

A true claim is proved and covers its stated box; planted false ones are never proved: a cited pointwise bound
that is not proved, a segment that leaves the cited domain (a box too small, a sphere), a constant too small
(then refuted through the falsifier's gate), a path not linear in t, a chain that breaks. The contract test
(``tests/test_route_contract.py``) runs ``TRUE`` and ``FALSE`` too.
"""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.mean_value_composition import _constraint, _domain, _No, hint, majorant
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers

R = sp.Rational
a = sp.Symbol("a_mvc", real=True)
b = sp.Symbol("b_mvc", real=True)
x = sp.Symbol("x_mvc", real=True)
hh = sp.Symbol("h_mvc", real=True)
t = sp.Symbol("t_mvc", real=True)
OPTS = {**DEFAULTS, "trials": 1500, "spot_points": 2, "box_budget": 600}

SEG = a + t * (b - a)
G = sp.log(1 + sp.exp(SEG))  # F(x) = log(1 + e^x) along the segment
INTEGRAND = sp.diff(G, t)  # σ(a + t(b − a)) (b − a)
BOX = {a: (-1, 1), b: (-1, 1)}


def _integral() -> Step:
    """log(1 + e^b) − log(1 + e^a) = ∫₀¹ σ(a + t(b − a))(b − a) dt (FTC: the antiderivative G)."""
    return Step(
        "FTC for softplus",
        G.subs(t, 1) - G.subs(t, 0),
        sp.Integral(INTEGRAND, (t, 0, 1)),
        kind="identity",
        domain=Domain({**BOX, t: (0, 1)}),
        route=("quadrature", {"antiderivative": G}),
    )


def _pointwise(bound, lo=-1, hi=1) -> Step:
    """σ(x)|h| ≤ bound·|h| on x ∈ [lo, hi], h ∈ [−2, 2]."""
    return Step(
        f"σ(x)|h| ≤ {bound}|h| on [{lo}, {hi}]",
        sp.exp(x) / (1 + sp.exp(x)) * sp.Abs(hh),
        bound * sp.Abs(hh),
        kind="inequality",
        relation="<=",
        domain=Domain({x: (lo, hi), hh: (-2, 2)}),
    )


AT = {x: SEG, hh: b - a}


def softplus(bound, pointwise: Step, at=None, absolute: bool = True, name: str = "") -> Step:
    """|log(1 + e^b) − log(1 + e^a)| ≤ bound·|b − a| on a, b ∈ [−1, 1], by the route."""
    d = G.subs(t, 1) - G.subs(t, 0)
    return Step(
        name or f"softplus difference ≤ {bound}|b − a|",
        sp.Abs(d) if absolute else d,
        bound * sp.Abs(b - a),
        kind="inequality",
        relation="<=",
        domain=Domain(dict(BOX)),
        route=hint(t, _integral(), [pointwise], at or AT),
    )


def true_claim() -> Step:
    # σ ≤ e/(1 + e) < 3/4 on [−1, 1]
    return softplus(R(3, 4), _pointwise(R(3, 4)))


#: planted false (or unprovable as stated) claims, by what is wrong
FALSE = {
    # the cited bound is false (σ(1) ≈ 0.731 > 1/2): never proved, so the claim (false too) is not proved
    "cited bound not proved": lambda: softplus(R(1, 2), _pointwise(R(1, 2))),
    # the pointwise bound 2/3 holds on [−1/2, 1/2] only (σ(1/2) ≈ 0.622); the segment reaches ±1 where σ ≈ 0.731
    "path leaves the cited box": lambda: softplus(R(2, 3), _pointwise(R(2, 3), -R(1, 2), R(1, 2))),
    # a proved pointwise bound 3/4, a claimed constant 1/2 below it (false: refuted by the falsifier's gate)
    "constant too small": lambda: softplus(R(1, 2), _pointwise(R(3, 4))),
}


def test_a_true_composition_is_proved_and_covers_its_box():
    res = check_step(true_claim(), **OPTS)
    assert res.verdict is Verdict.PROVED, res.method
    assert covers(res.covered, true_claim().domain)
    for word in ("FTC for softplus", "L₁ at the segment is", "both ends in [-1, 1]"):
        assert word in res.method + res.evidence, word


def test_the_one_sided_claim_is_proved_too():
    res = check_step(softplus(R(3, 4), _pointwise(R(3, 4)), absolute=False), **OPTS)
    assert res.verdict is Verdict.PROVED, res.method


@pytest.mark.parametrize("name", sorted(FALSE))
def test_planted_false_claims_are_not_proved(name):
    res = check_step(FALSE[name](), **OPTS)
    assert res.verdict is not Verdict.PROVED, (name, res.method)
    assert "mean value composition not established" in res.method


def test_the_constant_too_small_is_refuted_at_an_exact_point():
    res = check_step(FALSE["constant too small"](), **OPTS)
    assert res.verdict is Verdict.REFUTED and res.counterexample


def test_a_path_not_linear_in_t_is_no_segment():
    """a + t²(b − a) has both ends in the box, but is no chord: the convexity argument does not apply."""
    at = {x: a + t**2 * (b - a), hh: b - a}
    res = check_step(softplus(R(3, 4), _pointwise(R(3, 4)), at=at), **OPTS)
    assert res.verdict is not Verdict.PROVED  # the integrand is not the part's lhs there either
    with pytest.raises(_No, match="not linear"):
        _domain(true_claim(), [_pointwise(R(3, 4))], at, t)
    assert _domain(true_claim(), [_pointwise(R(3, 4))], AT, t)


def test_a_wrong_first_link_is_not_accepted():
    """A pointwise part about another function (σ(2x) instead of σ(x)) does not bound this integrand."""
    other = Step(
        "σ(2x)|h| ≤ |h|",
        sp.exp(2 * x) / (1 + sp.exp(2 * x)) * sp.Abs(hh),
        sp.Abs(hh),
        kind="inequality",
        relation="<=",
        domain=Domain({x: (-1, 1), hh: (-2, 2)}),
    )
    res = check_step(softplus(1, other), **OPTS)
    assert res.verdict is not Verdict.PROVED and "first pointwise part" in res.method


def test_a_broken_chain_is_not_accepted():
    first = _pointwise(R(3, 4))
    second = Step("|h| ≤ 2", sp.Abs(hh) * 2, 4, kind="inequality", relation="<=", domain=Domain({hh: (-2, 2)}))
    res = check_step(
        softplus(R(3, 4), first).__class__(
            **{**_fields(softplus(3, first)), "route": hint(t, _integral(), [first, second], AT)}
        ),
        **OPTS,
    )
    assert res.verdict is not Verdict.PROVED and "chain breaks" in res.method


def _fields(step: Step) -> dict:
    import dataclasses

    return {f.name: getattr(step, f.name) for f in dataclasses.fields(step) if f.init}


def test_a_sphere_is_never_carried_along_a_ball_is():
    """‖x‖ = 1 is not convex: a part stated on the sphere says nothing at the chord's midpoint; ‖x‖ ≤ 1 does,
    when the claim has it at both ends."""
    x1, x2, a1, a2, b1, b2 = sp.symbols("x1_m x2_m a1_m a2_m b1_m b2_m", real=True)
    at = {x1: a1 + t * (b1 - a1), x2: a2 + t * (b2 - a2)}
    ball_a, ball_b = sp.Le(a1**2 + a2**2, 1), sp.Le(b1**2 + b2**2, 1)
    claim = Step(
        "c",
        a1,
        b1,
        kind="inequality",
        relation="<=",
        domain=Domain(dict.fromkeys((a1, a2, b1, b2), (-1, 1)), (ball_a, ball_b)),
    )
    part = Step("p", x1, 1, kind="inequality", relation="<=", domain=Domain({x1: (-1, 1), x2: (-1, 1)}))
    with pytest.raises(_No, match="sphere"):
        _constraint(claim, part, sp.Eq(x1**2 + x2**2, 1), at, t)
    assert "convex" in _constraint(claim, part, sp.Le(x1**2 + x2**2, 1), at, t)
    with pytest.raises(_No, match="not convex"):
        _constraint(claim, part, sp.Le(-(x1**2) - x2**2, -1), at, t)  # outside the ball: not convex
    with pytest.raises(_No, match="end"):
        _constraint(claim, part, sp.Le(x1**2 + x2**2, R(1, 2)), at, t)  # not the claim's at the ends


def test_the_majorant_keeps_nonnegative_factors_and_takes_abs_of_the_rest():
    j = sp.Symbol("j", integer=True, positive=True)
    k = sp.Symbol("k", integer=True, positive=True)
    w = sp.IndexedBase("w_mvc", real=True)
    e = sp.Sum(sp.exp(w[j]) * (w[j] - 1), (j, 1, k)) / k
    assert majorant(e) == sp.Sum(sp.exp(w[j]) * sp.Abs(w[j] - 1), (j, 1, k)) / k


def test_a_malformed_hint_names_the_parameter():
    step = softplus(R(3, 4), _pointwise(R(3, 4)))
    name, params = step.route
    bad = dict(params)
    del bad["at"]
    with pytest.raises(DerivationError, match="at"):
        check_step(Step(**{**_fields(step), "route": (name, bad)}), **OPTS)
    vec = sp.IndexedBase("v_mvc", real=True)
    with pytest.raises(DerivationError, match="Lambda"):
        check_step(Step(**{**_fields(step), "route": (name, {**params, "at": {vec: a}})}), **OPTS)


def test_a_positive_multiple_of_the_integrand_is_accepted_and_an_unsigned_one_is_not():
    """2σ(x)|h| ≤ (3/2)|h| bounds 2|g|: the claim's bound is (3/4)|b − a| (the scale 2 divided out); a part
    scaled by a (which may be negative) is no bound on |g|."""
    doubled = Step(
        "2σ(x)|h| ≤ (3/2)|h|",
        2 * sp.exp(x) / (1 + sp.exp(x)) * sp.Abs(hh),
        R(3, 2) * sp.Abs(hh),
        kind="inequality",
        relation="<=",
        domain=Domain({x: (-1, 1), hh: (-2, 2)}),
    )
    res = check_step(softplus(R(3, 4), doubled), **OPTS)
    assert res.verdict is Verdict.PROVED and "2 × " in res.method, res.method
    signed = Step(
        "aσ(x)|h| ≤ |h|",
        a * sp.exp(x) / (1 + sp.exp(x)) * sp.Abs(hh),
        sp.Abs(hh),
        kind="inequality",
        relation="<=",
        domain=Domain({x: (-1, 1), hh: (-2, 2), a: (-1, 1)}),
    )
    res = check_step(softplus(R(3, 4), signed), **OPTS)
    assert res.verdict is not Verdict.PROVED and "first pointwise part" in res.method


def test_the_integral_must_be_of_the_claims_difference():
    other = sp.log(1 + sp.exp(2 * b)) - sp.log(1 + sp.exp(2 * a))
    step = softplus(R(3, 4), _pointwise(R(3, 4)))
    res = check_step(Step(**{**_fields(step), "lhs": sp.Abs(other)}), **OPTS)
    assert res.verdict is not Verdict.PROVED and "not the claim's difference" in res.method


def test_a_stated_ball_bounds_a_coordinate_the_box_does_not():
    """f − η with f ∈ [−1, 1], η ∈ [−2, 2]: the box gives [−3, 3]; the stated ‖f − η‖² ≤ 1 gives [−1, 1]."""
    from infonce_bounds.derivations.checks.mean_value_composition import _inside

    f1, f2, e1, e2 = sp.symbols("f1_m f2_m e1_m e2_m", real=True)
    box = {f1: (-1, 1), f2: (-1, 1), e1: (-2, 2), e2: (-2, 2)}
    bare = Step("c", f1, 1, kind="inequality", relation="<=", domain=Domain(dict(box)))
    ball = Step(
        "c",
        f1,
        1,
        kind="inequality",
        relation="<=",
        domain=Domain(dict(box), (sp.Le((f1 - e1) ** 2 + (f2 - e2) ** 2, 1),)),
    )
    assert not _inside(f1 - e1, -1, 1, bare)
    assert _inside(f1 - e1, -1, 1, ball) and _inside(e1 - f1, -1, 1, ball)
    assert not _inside(f1 - e1, -R(1, 2), R(1, 2), ball)
    assert not _inside(f1 + e1, -1, 1, ball)  # not a coordinate of the stated ball


def test_prop4_with_a_lowered_constant_is_not_proved_by_the_composition(monkeypatch):
    """Prop. 4 ours with its anchor coefficient lowered by 1 %: with every part taken as proved (to isolate the last
    link), the pointwise bound at the segment does not reach the claim's bound: not established."""
    from infonce_bounds.derivations.checks import mean_value_composition as mvc
    from infonce_bounds.derivations.paper import prop4_compose as pc
    from infonce_bounds.derivations.paper import prop4_terms as pt

    V = pt.vecs(2, 2)
    _, ours_hint, _, dom = pc.steps(V, pt.domains()["sym"], pt.attack_prop4_ours, pt.attack_prop4_paper)
    oa, op_, on = pt.our_coefficients()
    ea, ep, en = V["ea"], V["ep"], V["en"]
    gap = pt.loss_gap_sym(V["fa"], V["fp"], V["fn"], ea, ep, en)
    rhs = (oa * pt.dist_sym(ea) + op_ * pt.dist_sym(ep) + on * pt.pm_sym(en)).subs(pt.k, 2)
    low = (R(99, 100) * oa * pt.dist_sym(ea) + op_ * pt.dist_sym(ep) + on * pt.pm_sym(en)).subs(pt.k, 2)
    monkeypatch.setattr(mvc, "_proved", lambda part, opts, what: (None, f"{what} {part.name!r} (taken as proved)"))
    fast = {**OPTS, "trials": 300}
    ok = Step("ours", gap, rhs, kind="inequality", relation="<=", domain=dom, route=ours_hint)
    assert mvc.compose(ok, ours_hint[1], fast)[0].startswith("mean value composition along")
    lowered = Step("ours lowered", gap, low, kind="inequality", relation="<=", domain=dom, route=ours_hint)
    with pytest.raises(_No, match="not shown ≤ the claim's rhs"):
        mvc.compose(lowered, ours_hint[1], fast)


def test_a_hint_nested_in_a_part_is_keyed_with_its_code_parameters():
    """A part's own route (here a configuration hint with its ``attack`` closure) is keyed as a top-level hint is:
    code parameters by their code (two attacks, two keys), any other function still refused."""
    from infonce_bounds.derivations.run.route_keys import params_text

    def canon(o):
        return o.__code__.co_code.hex() if callable(o) and not isinstance(o, sp.Basic) else sp.srepr(o)

    def nested(attack, extra=None):
        part = dict(hint(t, _integral(), [_pointwise(R(3, 4))], AT)[1]["pointwise"][0])
        part["route"] = ("configuration", {"attack": attack, **(extra or {})})
        params = {**hint(t, _integral(), [_pointwise(R(3, 4))], AT)[1], "pointwise": [part]}
        return Step(**{**_fields(true_claim()), "route": ("mean value composition", params)})

    one = params_text(nested(lambda cfg, lib: (0.0, 1.0)), canon)
    two = params_text(nested(lambda cfg, lib: (1.0, 0.0) if cfg else None), canon)
    assert one != two
    with pytest.raises(DerivationError, match="not data"):
        params_text(nested(lambda cfg, lib: (0.0, 1.0), {"claim": lambda: 0}), canon)
