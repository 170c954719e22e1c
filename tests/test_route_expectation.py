"""The route "expectation" (``checks/expectation.py``): claims about expectations over i.i.d. draws proved by
linearity and i.i.d. moments, monotonicity of expectation (a pointwise claim proved by the engine) and Jensen
(φ'' signed by the engine). Each rule proves a true claim and must not prove a planted false one: a wrong
moment identity, Jensen in the wrong direction, a pointwise inequality that fails, a hint that is not the
step's own integrand, a printed symbol without a meaning; the law attack beside it still refutes."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.expectation import Expect, Reducer
from infonce_bounds.derivations.checks.routes import HINTED
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers
from infonce_bounds.derivations.paper._laws import law_check, var_w
from infonce_bounds.derivations.symbols import b, c_X, j, k, s, w

OPTS = {**DEFAULTS, "trials": 800, "seed": 0}
DOM = Domain({c_X: (sp.Rational(1, 100), 1000), b: (sp.Rational(1, 10**6), 10**6), k: (1, sp.oo), s: (-1, 1)})
E1 = sp.exp(c_X * s[1])
MU = Expect(E1)
MU_HAT = sp.Sum(sp.exp(c_X * s[j]), (j, 1, k)) / k
VAR = Expect((E1 - MU) ** 2)
BOUNDS = {E1: (sp.exp(-c_X), sp.exp(c_X))}
SM, V, EF = sp.Function("SM_t"), sp.Function("V_t"), sp.Function("EF_t")
DEFS = {SM(c_X, k): Expect((MU_HAT - MU) ** 2), V(c_X): VAR, EF(b, k): Expect(sp.log(1 / k + b * MU_HAT))}
_v = sp.Symbol("v_t", positive=True)
PHI = sp.Lambda(_v, sp.log(1 / k + b * _v))
EC = sp.exp(c_X)


def _st(lhs, rhs, params, relation="<=", kind="inequality", dom=DOM):
    return Step(
        "expectation claim",
        lhs,
        rhs,
        kind=kind,
        relation=relation if kind == "inequality" else None,
        domain=dom,
        route=("expectation", params),
    )


def _proved(res, dom=DOM):
    return res.verdict is Verdict.PROVED and covers(res.covered, dom)


def test_registered_as_a_hinted_route():
    assert "expectation" in HINTED and HINTED["expectation"].required == ("rule",)


def test_moment_formula_of_a_square_and_a_cube_of_a_sample_sum():
    red = Reducer({s}, {})
    x1 = s[1]
    sq = red.reduce(Expect(sp.Sum(s[j], (j, 1, k)) ** 2))
    assert sp.expand(sq - (k * Expect(x1**2) + k * (k - 1) * Expect(x1) ** 2)) == 0
    cube = red.reduce(Expect(sp.Sum(s[j], (j, 1, k)) ** 3))
    want = k * Expect(x1**3) + 3 * k * (k - 1) * Expect(x1**2) * Expect(x1) + k * (k - 1) * (k - 2) * Expect(x1) ** 3
    assert sp.expand(cube - want) == 0


def test_second_moment_of_the_mean_is_proved():
    res = check_step(_st(SM(c_X, k), V(c_X) / k, {"rule": "moments", "defs": DEFS}, kind="identity"), **OPTS)
    assert _proved(res) and "moments" in res.method


def test_wrong_moment_identity_is_not_proved():
    for wrong in (V(c_X) / k**2, V(c_X) / (k - 1 + sp.Rational(1, 10**6))):
        res = check_step(_st(SM(c_X, k), wrong, {"rule": "moments", "defs": DEFS}, kind="identity"), **OPTS)
        assert res.verdict is not Verdict.PROVED


def test_wrong_moment_inequality_is_not_proved():
    """E(μ̂ − μ)² ≤ Var/k² fails for k ≥ 2: the reduced gap Var(1/k² − 1/k) is not ≥ 0 over the moments' ranges."""
    res = check_step(_st(SM(c_X, k), V(c_X) / k**2, {"rule": "moments", "defs": DEFS, "bounds": BOUNDS}), **OPTS)
    assert res.verdict is not Verdict.PROVED


def test_density_facts_give_E_A_zero_and_a_wrong_fact_does_not():
    """A = k⁻¹Σ_j w_j(s_j − E_π[w s]) with E_π w = 1 (w a density): E A = 0; without the fact, not proved."""
    dom = Domain({k: (1, sp.oo), s: (-1, 1), w: (sp.Rational(1, 10**6), 10)})
    ea = Expect(sp.Sum(w[j] * (s[j] - Expect(w[1] * s[1])), (j, 1, k)) / k)
    good = {"rule": "moments", "facts": {Expect(w[1]): 1}}
    assert _proved(check_step(_st(ea, 0, good, kind="identity", dom=dom), **OPTS), dom)
    bad = {"rule": "moments", "facts": {Expect(w[1]): 2}}
    assert check_step(_st(ea, 0, bad, kind="identity", dom=dom), **OPTS).verdict is not Verdict.PROVED
    assert check_step(_st(ea, 0, {"rule": "moments"}, kind="identity", dom=dom), **OPTS).verdict is not Verdict.PROVED


def test_jensen_for_a_concave_function_is_proved():
    params = {"rule": "jensen", "defs": DEFS, "phi": PHI, "inner": MU_HAT, "bounds": BOUNDS}
    res = check_step(_st(EF(b, k), sp.log(1 / k + b * MU), params), **OPTS)
    assert _proved(res) and "Jensen" in res.method and "concave" in res.method


def test_jensen_in_the_wrong_direction_is_not_proved():
    params = {"rule": "jensen", "defs": DEFS, "phi": PHI, "inner": MU_HAT, "bounds": BOUNDS, "shape": "convex"}
    res = check_step(_st(EF(b, k), sp.log(1 / k + b * MU), params, relation=">="), **OPTS)
    assert res.verdict is not Verdict.PROVED
    # the right shape named for the wrong statement: the gap is not the Jensen gap
    params["shape"] = "concave"
    res = check_step(_st(EF(b, k), sp.log(1 / k + b * MU), params, relation=">="), **OPTS)
    assert res.verdict is not Verdict.PROVED


def test_jensen_with_a_phi_that_is_not_the_steps_is_not_proved():
    other = sp.Lambda(_v, sp.log(1 / k + 2 * b * _v))
    params = {"rule": "jensen", "defs": DEFS, "phi": other, "inner": MU_HAT, "bounds": BOUNDS}
    assert check_step(_st(EF(b, k), sp.log(1 / k + b * MU), params), **OPTS).verdict is not Verdict.PROVED


SQ = (MU - sp.cosh(c_X)) ** 2  #: (E Y − (a + b)/2)², Popoviciu's remainder


def _popoviciu(rhs, integrand, remainder=SQ):
    params = {"rule": "pointwise", "defs": DEFS, "integrand": integrand, "remainder": remainder, "bounds": BOUNDS}
    return check_step(_st(V(c_X), rhs, params), **OPTS)


def test_popoviciu_by_monotonicity_of_expectation_is_proved():
    res = _popoviciu((EC - 1 / EC) ** 2 / 4, (EC - E1) * (E1 - 1 / EC))
    assert _proved(res) and "monotonicity of expectation" in res.method


def test_a_pointwise_inequality_that_fails_is_not_proved():
    """Var ≤ (e^c − e^{−c})²/8 is false (two-point law at ±c); with the integrand halved it matches the gap
    but the pointwise claim fails."""
    half = (EC - 1 / EC) ** 2 / 8 - (E1 - sp.cosh(c_X)) ** 2
    res = _popoviciu((EC - 1 / EC) ** 2 / 8, half)
    assert res.verdict is not Verdict.PROVED


def test_a_hint_that_is_not_the_steps_integrand_is_not_proved():
    """The integrand (b − Y)(Y − a) planted under a claim whose gap it is not (the bound doubled): the remainder
    given no longer matches big − small − E[T], so nothing is proved although both hinted parts are ≥ 0."""
    res = _popoviciu((EC - 1 / EC) ** 2 / 2, (EC - E1) * (E1 - 1 / EC))
    assert res.verdict is not Verdict.PROVED


def test_a_printed_symbol_without_meaning_is_not_proved():
    res = check_step(_st(SM(c_X, k), V(c_X) / k, {"rule": "moments", "defs": {V(c_X): VAR}}, kind="identity"), **OPTS)
    assert res.verdict is not Verdict.PROVED and "without a meaning" in res.method


def test_the_law_attack_still_refutes_a_false_claim():
    """Var(e^X) ≤ (e^c − e^{−c})²/16, false: the law attack beside the route refutes it (the route proves nothing)."""
    attack = law_check(lambda L, lw: (var_w(L, lw), (L.exp(1 / lw.tau) - L.exp(-1 / lw.tau)) ** 2 / 16), "planted")
    params = {"rule": "pointwise", "defs": DEFS, "bounds": BOUNDS, "attack": attack}
    res = check_step(_st(V(c_X), (EC - 1 / EC) ** 2 / 16, params), **OPTS)
    assert res.verdict is Verdict.REFUTED


def test_true_claim_keeps_the_law_attack_record():
    attack = law_check(lambda L, lw: (var_w(L, lw), (L.exp(1 / lw.tau) - L.exp(-1 / lw.tau)) ** 2 / 4), "as printed")
    params = {
        "rule": "pointwise",
        "defs": DEFS,
        "bounds": BOUNDS,
        "integrand": (EC - E1) * (E1 - 1 / EC),
        "remainder": (MU - sp.cosh(c_X)) ** 2,
        "attack": attack,
    }
    res = check_step(_st(V(c_X), (EC - 1 / EC) ** 2 / 4, params), **OPTS)
    assert _proved(res) and res.trials > 0 and "law attack" in res.evidence


def test_bad_parameters_are_named():
    with pytest.raises(DerivationError, match="rule"):
        check_step(_st(SM(c_X, k), V(c_X) / k, {"rule": "magic", "defs": DEFS}), **OPTS)
    with pytest.raises(DerivationError, match="phi"):
        check_step(_st(EF(b, k), 0, {"rule": "jensen", "defs": DEFS, "inner": MU_HAT}), **OPTS)


def test_an_integrand_equal_pointwise_to_the_gaps_is_matched_and_a_different_one_is_not():
    """R − R̃ ≤ log(1 + e^{2c}/k) (prop2's (28) with c = 1/τ): the integrand written as log(1 + 1/(k b μ̂)) is the
    gap's integrand log(1/k + bμ̂) − log(bμ̂) pointwise (b = e^{−s⁺c}, s⁺ a coordinate over [−1, 1]); with a
    factor 2 planted in it, it is not, and nothing is proved."""
    sp1 = sp.IndexedBase("s_pos", real=True)[1]
    dom = DOM | Domain({sp.IndexedBase("s_pos", real=True): (-1, 1)})
    r, rt = sp.Function("R_t"), sp.Function("Rt_t")
    defs = {
        r(c_X, k): Expect(sp.log(1 / k + sp.exp(-c_X * sp1) * MU_HAT)),
        rt(c_X, k): Expect(-c_X * sp1) + Expect(sp.log(MU_HAT)),
    }
    bound = sp.log(1 + sp.exp(2 * c_X) / k)
    for factor, want in ((1, Verdict.PROVED), (2, None)):
        params = {
            "rule": "pointwise",
            "defs": defs,
            "bounds": BOUNDS,
            "integrand": bound - sp.log(1 + sp.exp(c_X * sp1) / (factor * k * MU_HAT)),
        }
        res = check_step(_st(r(c_X, k) - rt(c_X, k), bound, params, dom=dom), **OPTS)
        assert (res.verdict is Verdict.PROVED) == (want is Verdict.PROVED), res.method


def _lemma2_lower(bound, remainder):
    """Lemma 2's lower half: log(bμ) − E log(1/k + bμ̂) ≥ bound, by Jensen with a remainder in μ."""
    mid = sp.Function("Mid_t")
    defs = {mid(b, c_X, k): sp.log(b * MU) - Expect(sp.log(1 / k + b * MU_HAT))}
    params = {"rule": "jensen", "defs": defs, "phi": PHI, "inner": MU_HAT, "bounds": BOUNDS, "remainder": remainder}
    return check_step(_st(mid(b, c_X, k), bound, params, relation=">="), **OPTS)


def test_jensen_with_a_remainder_in_the_moments_is_proved():
    res = _lemma2_lower(-sp.log(1 + EC / (b * k)), sp.log(1 + EC * (MU - 1 / EC) / (b * k * MU + 1)))
    assert _proved(res) and "remainder" in res.method


def test_jensen_with_a_wrong_remainder_or_a_too_strong_bound_is_not_proved():
    # the remainder's form without the factor e^c: not big − small − (Jensen gap)
    assert _lemma2_lower(-sp.log(1 + EC / (b * k)), sp.log(1 + (MU - 1 / EC) / (b * k * MU + 1))).verdict is not (
        Verdict.PROVED
    )
    # the bound with e^c/(2bk): false at μ = e^{−c}; its true remainder log(1 + ...) − log 2·… is negative there
    strong = -sp.log(1 + EC / (2 * b * k))
    rem = sp.log(b * MU) - sp.log(1 / k + b * MU) - strong
    assert _lemma2_lower(strong, rem).verdict is not Verdict.PROVED


def test_a_sum_whose_summand_is_not_the_jth_draw_is_not_a_sample_sum():
    """Σ_j s_1 = k·s_1: E[(Σ_j s_1)²] = k²E s_1², not the i.i.d. formula k E s² + k(k − 1)(E s)²."""
    wrong = k * Expect(s[1] ** 2) + k * (k - 1) * Expect(s[1]) ** 2
    step = _st(Expect(sp.Sum(s[1], (j, 1, k)) ** 2), wrong, {"rule": "moments"}, kind="identity")
    assert check_step(step, **OPTS).verdict is not Verdict.PROVED


def test_an_identity_needs_the_moment_rule():
    """The pointwise and Jensen rules prove one side only: an identity under them is a named error."""
    with pytest.raises(DerivationError, match="identity"):
        check_step(_st(V(c_X), V(c_X), {"rule": "pointwise", "defs": DEFS}, kind="identity"), **OPTS)
