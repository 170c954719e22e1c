"""Weighted means over the sample in route "expectation" (``checks/expectation_means.py``): a ratio
Σ_j g_j h_j/Σ_j g_j with g ≥ 0 lies in the hull of the h_j only where Σ_j g_j > 0 (stated as a hypothesis of the
domain, or the ratio written with its convention on {Σ g = 0}); identities by cases on that event.

True claims (Lemma 3's (25) with the convention or with w > 0 stated, (23) with the convention) are proved; planted
false ones are not: a constant too small, a weight allowed negative, the bare ratio under w ≥ 0 only (the paper's
erratum's event), a ratio that is not a weighted mean (Σ s_j/Σ w_j), a wrong convention value, a wrong sign."""

from __future__ import annotations

import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.expectation import Expect
from infonce_bounds.derivations.ledger import Domain, Step, Verdict, covers
from infonce_bounds.derivations.paper import lemma3 as L3
from infonce_bounds.derivations.symbols import j, k, s

OPTS = {**DEFAULTS, "trials": 300, "seed": 0}
w = L3.w  # nonnegative density draws
B = L3.B_SUM
W_SUM = L3.W_SUM
T, TC = sp.Function("T_printed"), sp.Function("T_conv")
E2 = L3.EBm1(k)
DRAWS = L3._LAW | L3._DRAWS
POSITIVE = L3._LAW | L3._POSITIVE


def _tail(ratio, dom, const=2, bounds=None):
    """|E[ratio·(B − 1)²]| ≤ const·E(B − 1)² by rule abs, then pointwise with (const ∓ ratio)(B − 1)² ≥ 0."""
    tail = ratio * (B - 1) ** 2
    defs = {**L3.DEFS, T(k): Expect(tail)}
    route = (
        "expectation",
        {
            "rule": "abs",
            "defs": defs,
            "facts": L3.DENSITY,
            "bounds": bounds or {**L3.BOUNDS, w[1]: (0, sp.oo)},
            "then": [
                {"rule": "pointwise", "integrand": const * (B - 1) ** 2 - tail},
                {"rule": "pointwise", "integrand": const * (B - 1) ** 2 + tail},
            ],
        },
    )
    return Step("tail", sp.Abs(T(k)), const * E2, kind="inequality", relation="<=", domain=dom, route=route)


def test_weighted_mean_with_its_convention_is_proved_on_every_weight():
    res = check_step(_tail(L3.A_OVER_B_CONV, DRAWS), **OPTS)
    assert res.verdict == Verdict.PROVED, res.method
    assert "Hardy, Littlewood" in res.method and "convention" in res.method
    assert covers(res.covered, DRAWS)


def test_bare_weighted_mean_is_proved_where_the_weights_are_stated_positive():
    res = check_step(_tail(L3.A_OVER_B, POSITIVE), **OPTS)
    assert res.verdict == Verdict.PROVED, res.method
    assert "w > 0 (stated" in res.method


def test_bare_ratio_under_nonnegative_weights_is_not_proved():
    """The paper's (25) as printed: w ∈ [0, ∞) admits Σ w = 0, where A/B is 0/0."""
    res = check_step(_tail(L3.A_OVER_B, DRAWS), **OPTS)
    assert res.verdict != Verdict.PROVED
    assert "not established for every sample" in res.method


def test_constant_too_small_is_not_proved():
    res = check_step(_tail(L3.A_OVER_B_CONV, DRAWS, const=sp.Rational(19, 10)), **OPTS)
    assert res.verdict != Verdict.PROVED


def test_negative_weight_allowed_is_not_proved():
    """w ∈ [−1, ∞): Σ w h/Σ w is then no mean (it can leave the hull of the h's)."""
    dom = L3._LAW | Domain({s: (-1, 1), w: (-1, sp.oo)})
    bounds = {w[1]: (-1, sp.oo)}
    ratio = sp.Piecewise((sp.Sum(w[j] * s[j], (j, 1, k)) / W_SUM, W_SUM > 0), (0, True))
    res = check_step(_tail(ratio, dom, bounds=bounds), **OPTS)
    assert res.verdict != Verdict.PROVED
    assert "≥ 0" in res.method


def test_ratio_that_is_not_a_weighted_mean_is_not_proved():
    """Σ_j s_j/Σ_j w_j (Prop. 2's misprinted third line) is not a mean of s/w: s/w is undefined at w = 0."""
    ratio = sp.Sum(s[j], (j, 1, k)) / W_SUM
    res = check_step(_tail(ratio, POSITIVE), **OPTS)
    assert res.verdict != Verdict.PROVED


def _identity(lhs_ratio, conv_value, sign=-1):
    err = sp.Piecewise((sp.Sum(w[j] * s[j], (j, 1, k)) / W_SUM, W_SUM > 0), (conv_value, True)) - L3.NU_F
    defs = {**L3.DEFS, T(k): Expect(err), TC(k): Expect(lhs_ratio * (B - 1) ** 2)}
    route = ("expectation", {"rule": "moments", "defs": defs, "facts": L3.DENSITY})
    return Step("(23)", T(k), sign * L3.EAB(k) + TC(k), kind="identity", domain=DRAWS, route=route)


def test_identity_by_cases_proves_23_with_the_convention():
    res = check_step(_identity(L3.A_OVER_B_CONV, L3.NU_F), **OPTS)
    assert res.verdict == Verdict.PROVED, res.method
    assert "by cases" in res.method


def test_identity_by_cases_rejects_a_wrong_convention_and_a_wrong_sign():
    wrong_value = check_step(_identity(L3.A_OVER_B_CONV, 1), **OPTS)
    assert wrong_value.verdict != Verdict.PROVED
    assert "differs" in wrong_value.method
    wrong_sign = check_step(_identity(L3.A_OVER_B_CONV, L3.NU_F, sign=1), **OPTS)
    assert wrong_sign.verdict != Verdict.PROVED


# --- Lemma 3 cited as an instance (prop2, eq11_12): the substitution must map into the cited domain


def _ours_12(domain):
    """eq11_12's 'ours: (12) with Lemma 3 sharpened' chain, on ``domain``."""
    from infonce_bounds.derivations.paper import eq11_12

    st = eq11_12.derivations()[0].step("ours: (12) with Lemma 3 sharpened")
    return Step("planted", st.lhs, st.rhs, kind="chain", relation="<=", domain=domain, links=st.links)


def test_cited_instance_is_proved_where_the_density_is_stated_positive():
    from infonce_bounds.derivations.paper import prop2

    res = check_step(_ours_12(prop2._LAW | prop2._KERNEL_POSITIVE), **OPTS)
    assert res.verdict == Verdict.PROVED, res.method


def test_cited_instance_leaving_the_cited_domain_is_not_proved():
    """Without dM(z, ·)/dπ > 0 the substitution w ↦ r leaves Lemma 3's domain (w > 0 there); with E w² allowed
    below 1 it leaves s = E_π w² ≥ 1."""
    from infonce_bounds.derivations.paper import prop2
    from infonce_bounds.derivations.symbols import Ew2, tau

    no_positivity = check_step(_ours_12(prop2._LAW | prop2._KERNEL_DRAWS), **OPTS)
    assert no_positivity.verdict != Verdict.PROVED
    low_s = Domain({tau: prop2._LAW.ranges[tau], k: (1, sp.oo), Ew2: (sp.Rational(1, 2), sp.oo)})
    wide = check_step(_ours_12(low_s | prop2._KERNEL_POSITIVE), **OPTS)
    assert wide.verdict != Verdict.PROVED


def test_instance_step_with_a_wrong_meaning_is_not_proved():
    """The instance step checks meanings: Lemma 3's error read with E_ν f replaced by E_π f is not Prop. 2's."""
    from infonce_bounds.derivations.paper import prop2

    st = prop2.derivations()[0].step(prop2.INSTANCE_STEP)
    wrong = dict(prop2.INSTANCE_DEFS)
    wrong[prop2.L3_ERR] = Expect(sp.Sum(prop2.rn[j] * s[j], (j, 1, k)) / sp.Sum(prop2.rn[j], (j, 1, k)) - Expect(s[1]))
    route = ("expectation", {"rule": "moments", "defs": wrong, "facts": {Expect(prop2.rn[1]): 1}})
    res = check_step(Step("planted", st.lhs, st.rhs, kind="identity", domain=st.domain, route=route), **OPTS)
    assert res.verdict != Verdict.PROVED
