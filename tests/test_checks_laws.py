"""The shared law falsifier (``checks.laws``) and the custom-checker building blocks (``checks.custom``):
each refutes a planted wrong claim, passes the true one, and records what it attacked / covered."""

from __future__ import annotations

import math
from dataclasses import replace

import mpmath
import pytest
import sympy as sp

from infonce_bounds.derivations import bias, bias_laws, prior, rademacher
from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.custom import all_of, falsifier_only
from infonce_bounds.derivations.checks.laws import Law, confirm, expect, law_check, search
from infonce_bounds.derivations.ledger import Domain, Step, Verdict, covers
from infonce_bounds.derivations.paper import _gen, _laws
from infonce_bounds.derivations.symbols import k, tau, x

OPTS = {**DEFAULTS, "trials": 1500, "seed": 0}
_LAW_DOMAIN = Domain({tau: (sp.Rational(1, 1000), 100), k: (1, sp.oo)})


def _jensen(L, lw):
    """E log μ̂ ≤ log μ (Jensen): true for every law."""
    m_ = _laws.mu(L, lw)
    return expect(L, lw, lambda cnt: L.log(_laws.mu_hat(L, lw, cnt))), L.log(m_)


def _law_step(name, chk):
    lhs = sp.Function("E_log_mu_hat")(tau, k)  # placeholders: the checker computes both sides on each law
    rhs = sp.Function("log_mu")(tau, k)
    return Step(name, lhs, rhs, kind="inequality", relation="<=", domain=_LAW_DOMAIN, check=chk)


def test_law_check_passes_jensen_and_records_the_k_range():
    res = check_step(_law_step("Jensen", law_check(_jensen, "Jensen")), **OPTS)
    assert res.verdict is Verdict.VERIFIED
    assert res.worst_ratio is not None and res.worst_ratio <= 1 + 1e-12
    assert res.attacked["k"] == ("1", str(DEFAULTS["k_cap"])) and res.attacked["tau"] == ("0.001", "100.0")


def test_law_check_refutes_reversed_jensen_with_a_50_digit_counterexample():
    def reversed_(L, lw):
        small, big = _jensen(L, lw)
        return big, small

    res = check_step(_law_step("planted: reversed Jensen", law_check(reversed_, "planted")), **OPTS)
    assert res.verdict is Verdict.REFUTED and res.counterexample
    assert mpmath.mpf(res.counterexample["lhs"]) > mpmath.mpf(res.counterexample["rhs"])


def test_float_rounding_of_an_equality_is_not_a_counterexample():
    """small and big equal in exact arithmetic, different in floats: never refuted (confirmed at 50 digits)."""

    def equal(L, lw):
        a_ = expect(L, lw, lambda cnt: sum(c * s_ for c, s_ in zip(cnt, lw.sims)) / lw.k)
        return a_, sum(p_ * s_ for p_, s_ in zip(lw.probs, lw.sims))

    res = check_step(_law_step("E mean = mean", law_check(equal, "exact equality")), **OPTS)
    assert res.verdict is Verdict.VERIFIED, res.evidence
    assert abs(res.worst_ratio - 1) < 1e-12 or res.worst_ratio < 1


def test_search_refutes_and_counts_its_trials():
    step = Step("planted: x² ≤ x", x**2, x, kind="inequality", relation="<=", domain=Domain({x: (0, 2)}))
    out = search(
        step,
        OPTS,
        budget=500,
        sample=lambda rng: rng.uniform(0, 2),
        evaluate=lambda v, exact: (mpmath.mpf(v) ** 2, mpmath.mpf(v)) if exact else (v * v, v),
        describe=lambda v: {"x": repr(v)},
    )
    assert out.counterexample is not None and float(out.counterexample["x"]) > 1
    ok = search(
        step,
        OPTS,
        budget=500,
        sample=lambda rng: rng.uniform(0, 1),
        evaluate=lambda v, exact: (mpmath.mpf(v) ** 2, mpmath.mpf(v)) if exact else (v * v, v),
        describe=lambda v: {"x": repr(v)},
    )
    assert ok.counterexample is None and ok.trials == 500 and ok.worst_ratio <= 1


def test_confirmation_settles_rounding_of_large_terms_and_holds_a_real_excess():
    """small = (A + x) − A against big = x with A = 1e30: equal in exact arithmetic, but at 50 digits the
    rounding of A + x (1e-20) is far above the tolerance 1e-40 × max(1, |sides|); it is gone at 100 digits, so
    the confirmation does not hold it. An excess of 1e-30 over the same terms is held (it does not move)."""

    def rounding(pt, exact):
        a_, x_ = mpmath.mpf(10) ** 30, mpmath.mpf(1) / 3
        return (a_ + x_) - a_ + pt, x_

    held, sm, bg, digits = confirm(rounding, mpmath.mpf(0), 50)
    assert not held and digits == 100 and abs(sm - bg) < mpmath.mpf(10) ** -60
    with mpmath.workdps(50):  # a single evaluation at 50 digits would have refuted
        sm, bg = rounding(mpmath.mpf(0), True)
        assert sm - bg > mpmath.mpf(10) ** -40
    held, sm, bg, digits = confirm(rounding, mpmath.mpf(10) ** -30, 50)
    assert held and digits == 200  # 1e-30 ± 1e-20 at 50 digits, 1e-30 at 100 and at 200: settled
    held, *_ = confirm(lambda pt, exact: (mpmath.mpf(2), mpmath.mpf(1)), None, 50)
    assert held


def test_bias_law_checker_is_the_shared_one():
    """bias keeps its claim interface (τ, k, summary) but searches with checks.laws: a planted claim fails."""

    def planted(L, tv, kv, sm):
        return sm["gap"], 0.5 * sm["gap"] - 1e-9  # the gap is positive for non-constant laws

    chk = bias._law_check(planted, "planted half gap")
    res = chk(_law_step("planted: gap ≤ gap/2", chk), {**OPTS})
    assert res.verdict is Verdict.REFUTED and res.counterexample and "k" in res.counterexample
    good = bias._law_check(lambda L, tv, kv, sm: (0 * sm["gap"], sm["gap"] + 1e-12), "gap ≥ 0")
    res = good(_law_step("gap ≥ 0", good), {**OPTS})
    assert res.verdict is Verdict.VERIFIED and res.attacked["k"][0] == "1"


def test_prior_two_point_checker_refutes_and_attacks_k_to_16():
    """The two-point law attack (``TwoPointLaw``, beside the expectation route's proof of prior's deviation
    steps) attacks k up to 16 and refutes a planted bound a quarter of the true one."""
    good = prior.derivations()
    steps = [st for d in good for st in d.steps if st.route and "attack" in st.route[1] and st.kind == "inequality"]
    assert steps
    st = steps[0]
    attack = st.route[1]["attack"]
    res = attack(st, dict(OPTS))
    assert res.verdict is Verdict.VERIFIED and res.attacked["k"] == ("1", "16")
    bad = replace(st, name="planted: " + st.name, rhs=st.rhs / 4)
    assert attack(bad, dict(OPTS)).verdict is Verdict.REFUTED
    assert check_step(bad, **OPTS).verdict is Verdict.REFUTED  # through the route: the attack's refutation stands


def test_maurer_checker_records_its_ranges():
    st = next(
        s
        for d in rademacher.derivations()
        for s in d.steps
        if s.route and s.route[1].get("attack") is rademacher.maurer_check
    )
    res = check_step(st, trials=300, seed=0)
    # the classical-theorem route cites Maurer (2016); the exact enumeration is the attack beside it
    assert res.verdict is Verdict.PROVED and res.method.startswith("cited")
    assert set(res.attacked) >= {"n", "K", "tau"}


def test_falsifier_only_refutes_and_records_attacked():
    dom = Domain({x: (0, 2)})
    bad = Step("planted: x² ≤ x", x**2, x, kind="inequality", relation="<=", domain=dom, check=falsifier_only("t"))
    assert check_step(bad, **OPTS).verdict is Verdict.REFUTED
    good = Step("x² ≤ 2x", x**2, 2 * x, kind="inequality", relation="<=", domain=dom, check=falsifier_only("t"))
    res = check_step(good, **OPTS)
    assert res.verdict is Verdict.VERIFIED and [float(v_) for v_ in res.attacked["x"]] == [0.0, 2.0]
    assert _gen.falsifier_only is falsifier_only  # one implementation, re-exported


def test_attack_only_is_a_hint_of_data_that_never_proves():
    """The catalogue's tight claims name the hinted route ``attack only`` (a reason, data) rather than a closure:
    the same verdicts as ``falsifier_only``; a hint without its reason is an error naming it."""
    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.ledger import DerivationError

    dom = Domain({x: (0, 2)})
    hint = ("attack only", {"reason": "t"})
    bad = Step("planted: x² ≤ x", x**2, x, kind="inequality", relation="<=", domain=dom, route=hint)
    assert check_step(bad, **OPTS).verdict is Verdict.REFUTED
    good = Step("x² ≤ 2x", x**2, 2 * x, kind="inequality", relation="<=", domain=dom, route=hint)
    assert check_step(good, **OPTS).verdict is Verdict.VERIFIED  # never proved, though true
    with pytest.raises(DerivationError, match="needs 'reason'"):
        check_step(
            Step(
                "no reason",
                x**2,
                2 * x,
                kind="inequality",
                relation="<=",
                domain=dom,
                route=("attack only", {"reason": ""}),
            ),
            **OPTS,
        )
    tight = [s for d in catalogue.all_derivations() for s in d.steps if s.route and s.route[0] == "attack only"]
    assert len(tight) <= 1 and all(s.check is None for s in tight)  # bias_bound's went to "monotone comparison"


def test_all_of_covers_the_intersection_and_refutes_a_false_part():
    dom = Domain({x: (0, 1), tau: (1, 2)})
    parts = [
        Step("x ≤ 1", x, 1, kind="inequality", relation="<=", domain=dom),
        Step("τ ≤ 2", tau, 2, kind="inequality", relation="<=", domain=dom),
    ]
    st = Step("max(x, τ/2) ≤ 1", sp.Max(x, tau / 2), 1, kind="inequality", relation="<=", domain=dom)
    st = replace(st, check=all_of(parts, "max of parts"))
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, dom) and res.attacked
    wrong = [parts[0], Step("planted: τ ≤ 1.5", tau, sp.Rational(3, 2), kind="inequality", relation="<=", domain=dom)]
    st2 = Step(
        "planted: max(x, τ/1.5) ≤ 1",
        sp.Max(x, tau / sp.Rational(3, 2)),
        1,
        kind="inequality",
        relation="<=",
        domain=dom,
        check=all_of(wrong, "planted part"),
    )
    assert check_step(st2, **OPTS).verdict is Verdict.REFUTED


def test_monotone_and_factored_checkers_cover_their_domain_and_refuse_wrong_certificates():
    dom = Domain({x: (0, 10)})
    st = Step("log(1 + x) ≤ x", sp.log(1 + x), x, kind="inequality", relation="<=", domain=dom)
    ok = Step(
        st.name,
        st.lhs,
        st.rhs,
        kind="inequality",
        relation="<=",
        domain=dom,
        check=_laws.monotone_from(0, x / (1 + x), x),
    )
    res = check_step(ok, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, dom)
    wrong = Step(
        st.name, st.lhs, st.rhs, kind="inequality", relation="<=", domain=dom, check=_laws.monotone_from(0, x, x)
    )
    assert check_step(wrong, **OPTS).verdict is Verdict.VERIFIED  # gap' ≠ the planted derivative: no proof
    fac = Step("x² ≥ 0 as x·x", x**2, 0, kind="inequality", relation=">=", domain=Domain({x: (-3, 3)}))
    fac_ok = Step(
        fac.name,
        fac.lhs,
        fac.rhs,
        kind="inequality",
        relation=">=",
        domain=fac.domain,
        check=_laws.factored_certificate(x**2),
    )
    res = check_step(fac_ok, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, fac.domain)
    fac_bad = Step(
        fac.name,
        fac.lhs,
        fac.rhs,
        kind="inequality",
        relation=">=",
        domain=fac.domain,
        check=_laws.factored_certificate(x),
    )
    # gap ≠ x and x < 0 on half the box: the certificate proves nothing (the claim's own checker proves x² ≥ 0)
    bad = check_step(fac_bad, **OPTS)
    assert "gap = certificate: refuted" in bad.method and bad.verdict is not Verdict.REFUTED


def test_law_describes_its_point():
    lw = Law(0.5, 3, [1.0, -1.0], [0.25, 0.75])
    assert lw.describe()["k"] == "3" and math.isclose(float(lw.at(mpmath).probs[0]), 0.25)


def test_all_of_case_split_covers_the_union_only_where_the_parts_tile():
    """Parts on τ ∈ [1, 2] and [2, 3] cover [1, 3]; with a gap (2, 5/2) the union is not credited."""
    dom = Domain({tau: (1, 3)})
    st = Step("τ/2 ≤ 3/2", tau / 2, sp.Rational(3, 2), kind="inequality", relation="<=", domain=dom)

    def part(lo, hi):
        return Step(f"τ ≤ 3 on [{lo}, {hi}]", tau, 3, kind="inequality", relation="<=", domain=Domain({tau: (lo, hi)}))

    res = check_step(replace(st, check=all_of([part(1, 2), part(2, 3)], "cases")), **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, dom)
    gap = check_step(replace(st, check=all_of([part(1, 2), part(sp.Rational(5, 2), 3)], "planted gap")), **OPTS)
    assert not covers(gap.covered, dom)


# ----------------------------------------------------------------------------------- law batches


def _jensen_check(claim, **kw):
    chk = law_check(claim, "test", **kw)
    return chk, _law_step("test: " + claim.__name__, chk)


def test_batches_search_the_same_laws_and_refute_a_planted_claim_at_the_same_point():
    """The batched search draws the same laws as the one-law loop: the same counterexample, after as many trials."""

    def reversed_(L, lw):
        small, big = _jensen(L, lw)
        return big, small

    chk, st = _jensen_check(reversed_)
    one = chk(st, {**OPTS, "vectorise": False})
    bat = chk(st, {**OPTS, "vectorise": True})
    assert one.verdict is Verdict.REFUTED and bat.verdict is Verdict.REFUTED
    assert bat.counterexample == one.counterexample and bat.trials == one.trials
    assert chk._batch is not None and chk._batch.off == ""  # the batches ran: no fallback to the one-law loop


def test_law_batches_guard_turns_off_a_claim_whose_arrays_disagree():
    """A claim that computes something else on arrays than on one law: the guard sees it, and the one-law
    verdict stands (here: the claim holds on every law, its array form would be violated everywhere)."""

    def two_faced(L, lw):
        small = 0 * lw.tau if L in (math, mpmath) else 1 + 0 * lw.tau
        return small, 0.5 + 0 * lw.tau

    chk, st = _jensen_check(two_faced)
    res = chk(st, {**OPTS})
    assert res.verdict is Verdict.VERIFIED
    assert chk._batch.off.startswith("batch and one-law float passes differ")


def test_law_batches_refute_where_only_wide_arithmetic_sees_it():
    """A claim false only for τ < 1/720, where e^{1/τ} overflows a double: the one-law loop sees it at 30
    digits, the batches in long double (or at 30 digits near the violation); both refute it."""

    def planted(L, lw):
        slack = 0.5 + 1.5 * (lw.tau > 1 / 720)  # a bool, or an array of them on a law batch
        return L.log(_laws.mu(L, lw)), 1 / lw.tau + L.log(slack)  # log μ ≤ 1/τ − log 2: false for s ≈ 1

    chk, st = _jensen_check(planted, tau_range=(1e-3, 2e-3))
    for vec in (False, True):
        res = chk(st, {**OPTS, "vectorise": vec})
        assert res.verdict is Verdict.REFUTED, (vec, res.evidence)
        assert float(res.counterexample["tau"]) < 1 / 720
    good = law_check(lambda L, lw: (L.log(_laws.mu(L, lw)), 1 / lw.tau), "log μ ≤ 1/τ", tau_range=(1e-3, 2e-3))
    res = good(_law_step("log μ ≤ 1/τ", good), {**OPTS})
    assert res.verdict is Verdict.VERIFIED and good._batch.off == "" and good._batch.wide_off == ""


def test_every_catalogue_law_step_runs_on_batches_with_the_one_law_verdict():
    """Every law step of the catalogue runs on law batches (no claim falls back to the one-law loop) and
    gets the verdict, trial count and (to float noise of tight claims) worst ratio of the one-law loop."""
    from infonce_bounds.derivations import catalogue

    steps = [(d.name, st) for d in catalogue.all_derivations() for st in d.steps if hasattr(st.check, "law_claim")]
    # a step proved by the route "expectation" keeps its law check beside the proof (the hint's "attack"): run alone
    steps += [
        (d.name, replace(st, check=st.route[1]["attack"], route=None))
        for d in catalogue.all_derivations()
        for st in d.steps
        if st.route is not None and hasattr(st.route[1].get("attack"), "law_claim")
    ]
    assert len(steps) > 50
    for name, st in steps:
        one = check_step(st, **{**OPTS, "trials": 400, "vectorise": False})
        bat = check_step(st, **{**OPTS, "trials": 400})
        where = f"{name} / {st.name}"
        assert bat.verdict == one.verdict and bat.trials == one.trials, where
        assert st.check._batch.off == "", (where, st.check._batch.off)
        if one.worst_ratio is not None and bat.worst_ratio is not None:
            assert abs(bat.worst_ratio - one.worst_ratio) <= 1e-6 * max(1.0, abs(one.worst_ratio)), where


# ------------------------------------------------------------------------------- two-atom laws at large k


def test_binomial_window_bound_holds_against_the_exact_tails():
    """The Chernoff window leaves out at most 1e-30 of Binomial(k, p): the exact tails (50 digits) are below
    the bound it reports, and the bound below 1e-30; the window is O(√k) wide."""
    from infonce_bounds.derivations.checks.laws import TAIL, binomial_window

    with mpmath.workdps(50):
        for k_, p in [(5000, 0.5), (4097, 1e-3), (6000, 0.97), (20000, 0.3), (4100, 1e-11)]:
            lo, hi, bound = binomial_window(k_, p)
            pm = mpmath.mpf(p)

            def pmf(c, k_=k_, pm=pm):
                return mpmath.binomial(k_, c) * pm**c * (1 - pm) ** (k_ - c)

            below = mpmath.fsum(pmf(c) for c in range(0, lo))
            above = mpmath.fsum(pmf(c) for c in range(hi + 1, k_ + 1))
            assert below + above <= bound <= TAIL, (k_, p, below, above, bound)
            assert hi - lo + 1 <= 30 * math.sqrt(k_ * p * (1 - p)) + 10
    lo, hi, bound = binomial_window(10**9, 0.5)
    assert bound <= TAIL and 3e5 < hi - lo + 1 < 4e5  # ±~12 sd of 15811
    # planted: a window of ±6 standard deviations (what a Gaussian rule of thumb gives) fails the same check
    with mpmath.workdps(50):
        k_, p = 5000, 0.5
        sd = math.sqrt(k_ * p * (1 - p))
        lo, hi = round(k_ * p - 6 * sd), round(k_ * p + 6 * sd)
        tails = mpmath.fsum(
            mpmath.binomial(k_, c) * mpmath.mpf(p) ** k_ for c in [*range(0, lo), *range(hi + 1, k_ + 1)]
        )
        assert tails > TAIL


def _two_atom(k_, tv, sims, probs):
    return Law(tv, k_, list(sims), list(probs))


_TWO_ATOM = [
    (4096, 0.5, (1.0, -0.3), (0.3, 0.7)),
    (4000, 0.05, (0.2, -1.0), (1e-3, 1 - 1e-3)),
    (3000, 2.0, (1.0, -1.0), (0.5, 0.5)),
    (4096, 0.01, (0.7, 0.69), (0.9, 0.1)),
]


def _claim_fns(L, lw):
    """Three expectations a claim is written in: E log μ̂, E (μ̂ − μ)², E |μ̂/μ − 1|."""
    m_ = _laws.mu(L, lw)
    return (
        expect(L, lw, lambda cnt: L.log(_laws.mu_hat(L, lw, cnt))),
        expect(L, lw, lambda cnt: (_laws.mu_hat(L, lw, cnt) - m_) ** 2),
        expect(L, lw, lambda cnt: abs(_laws.mu_hat(L, lw, cnt) / m_ - 1)),
    )


def test_windowed_expectations_match_the_exact_sums_up_to_k_4096(monkeypatch):
    """The binomial-window sum against the exact O(k) sum at k ≤ 4096 (the window forced on by lowering
    EXACT_K): in floats within 1e-13 relative of the 60-digit exact value (float precision; the exact float
    sum overflows its coefficients at k = 4096), and at 50 digits to 1e-45; in the one-law path and in the
    law-batch (numpy) path."""
    import numpy as np

    from infonce_bounds.derivations.checks import laws as laws_mod
    from infonce_bounds.derivations.checks.laws import large_k

    for k_, tv, sims, probs in _TWO_ATOM:
        lw = _two_atom(k_, tv, sims, probs)
        with mpmath.workdps(60):
            ref = _claim_fns(mpmath, lw.at(mpmath))
        try:  # the float pass (the exact sum up to FLOAT_EXACT_K, where its coefficients fit a double; beyond, the window)
            flt_exact = _claim_fns(math, lw)
        except OverflowError:
            flt_exact = (None, None, None)
        monkeypatch.setattr(large_k, "EXACT_K", 10)
        flt_win = _claim_fns(math, lw)
        batch = Law(np.array([tv]), k_, [np.array([s_]) for s_ in sims], [np.array([p_]) for p_ in probs])
        arr_win = [float(v_[0]) for v_ in _claim_fns(laws_mod.ARRAY, batch)]
        with mpmath.workdps(50):
            mp_win = _claim_fns(mpmath, lw.at(mpmath))
        monkeypatch.setattr(large_k, "EXACT_K", 4096)
        for r_, fe, fw, aw, mw in zip(ref, flt_exact, flt_win, arr_win, mp_win):
            scale = abs(r_)
            err_exact = 0.0 if fe is None else abs(fe - r_) / scale
            for got in (fw, aw):
                # measured ≤ 8e-16 except E(μ̂ − μ)² at τ = 0.01, s ≈ 0.7 (1e-14: μ̂ − μ cancels in the claim itself)
                assert abs(got - r_) / scale <= max(4 * err_exact, 1e-13), (k_, tv, got, fe, r_)
            assert abs(mw - r_) / scale < 1e-45, (k_, tv, mw, r_)


def test_multinomial_coefficients_are_the_factorial_formula():
    from infonce_bounds.derivations.checks.laws.multinomial import _comps

    for k_, n_ in ((0, 2), (1, 3), (7, 2), (12, 3), (30, 2), (9, 4)):
        got = _comps.__wrapped__(k_, n_)
        assert len(got) == math.comb(k_ + n_ - 1, n_ - 1)
        for cnt, coef in got:
            assert sum(cnt) == k_
            assert coef == math.factorial(k_) // math.prod(math.factorial(c) for c in cnt), (k_, cnt)


def test_float_passes_beyond_the_double_range_of_the_coefficients_sum_the_window():
    """At 1024 < k ≤ 4096 a binomial coefficient overflows a double: the float and batch passes sum the
    binomial window (no OverflowError, no 30-digit fallback) and agree with the exact 50-digit sum; below
    FLOAT_EXACT_K, and at full precision, the sum is the exact one over every composition."""
    import numpy as np

    from infonce_bounds.derivations.checks import laws as laws_mod
    from infonce_bounds.derivations.checks.laws import multinomial

    def fn_of(L, lw):
        return lambda cnt: L.log(1 + cnt[0] * L.exp(lw.sims[0] / lw.tau) + cnt[1] * L.exp(lw.sims[1] / lw.tau))

    calls = []
    orig = multinomial._expect_window
    for k_ in (1000, 1025, 3000, 4096):
        lw = _two_atom(k_, 0.5, (0.3, -0.8), (0.35, 0.65))
        with mpmath.workdps(50):
            lm = lw.at(mpmath)
            ref = expect(mpmath, lm, fn_of(mpmath, lm))
        multinomial._expect_window = lambda L, law, fn: calls.append(law.k) or orig(L, law, fn)
        try:
            got = expect(math, lw, fn_of(math, lw))
            batch = Law(np.array([0.5]), k_, [np.array([0.3]), np.array([-0.8])], [np.array([0.35]), np.array([0.65])])
            arr = float(expect(laws_mod.ARRAY, batch, fn_of(np, batch))[0])
        finally:
            multinomial._expect_window = orig
        for v_ in (got, arr):
            assert abs(v_ - ref) <= 1e-13 * abs(ref), (k_, v_, ref)
    assert calls == [1025, 1025, 3000, 3000, 4096, 4096]  # k = 1000: the exact sum in both passes


def test_bias_windowed_summary_matches_the_exact_one(monkeypatch):
    """bias's law summary (float, batch and 50-digit passes) over the binomial window against the exact sum."""
    import numpy as np

    for k_, tv, sims, probs in [
        *_TWO_ATOM,
        (4096, 0.001, (1.0, -1.0), (0.3, 0.7)),
        (4000, 0.002, (0.9, 1.0), (0.5, 0.5)),
    ]:
        with mpmath.workdps(60):
            pm = [mpmath.mpf(p_) for p_ in probs]
            pm = [p_ / sum(pm) for p_ in pm]
            ref = bias._law_summary(mpmath, mpmath.mpf(tv), k_, [mpmath.mpf(s_) for s_ in sims], pm)
        fe = bias._law_summary_float(tv, k_, sims, probs)
        monkeypatch.setattr(bias_laws, "EXACT_K", 10)  # the module whose functions read it
        fw = bias._law_summary_float(tv, k_, sims, probs)
        bw = bias._law_summary_batch(
            np.array([tv]), k_, [np.array([s_]) for s_ in sims], [np.array([p_]) for p_ in probs]
        )
        with mpmath.workdps(50):
            mw = bias._law_summary(mpmath, mpmath.mpf(tv), k_, [mpmath.mpf(s_) for s_ in sims], pm)
        monkeypatch.setattr(bias_laws, "EXACT_K", 4096)
        for key in ("gap", "abs_dev", "offset_hi", "offset_lo"):
            scale = abs(ref[key])
            err_exact = abs(fe[key] - ref[key]) / scale
            for got in (fw[key], float(bw[key][0])):
                assert abs(got - ref[key]) / scale <= max(4 * err_exact, 1e-14), (key, k_, tv, got, ref[key])
            assert abs(mw[key] - ref[key]) < 1e-45 * max(scale, 1), (key, k_, tv)  # gap: E log U cancels
    # τ = 1e-3 at k = 10⁹: e^{2/τ} overflows a double; the float window sums stay finite (no 30-digit fallback)
    big = bias._law_summary_float(0.001, 10**9, [1.0, -1.0], [0.4, 0.6])
    assert all(math.isfinite(v_) for v_ in big.values()) and big["gap"] > 0


def _count_claim(L, lw):
    """planted: E c₀ ≤ 10⁶, i.e. k p₀ ≤ 10⁶: true for every k ≤ 10⁶, false beyond for laws with p₀ near 1."""
    return expect(L, lw, lambda cnt: cnt[0] + 0 * lw.tau), 10**6 + 0 * lw.tau


def test_large_k_attack_refutes_a_claim_false_only_beyond_a_million():
    """The two-atom phase with binomial windows (k log-uniform up to 10⁹) refutes a claim false only for
    k > 10⁶, with a 50-digit counterexample; the former phase (k ≤ 4096) passed it; the verdict states the range."""
    from infonce_bounds.derivations.checks.laws import K_MAX

    opts = {**OPTS, "trials": 1000}  # 100 laws in the two-atom phase
    res = check_step(_law_step("planted: k p ≤ 1e6", law_check(_count_claim, "planted", large_k=K_MAX)), **opts)
    assert res.verdict is Verdict.REFUTED, res.evidence
    assert int(res.counterexample["k"]) > 10**6
    assert mpmath.mpf(res.counterexample["lhs"]) > 10**6
    # the former phase (exact sums, k ≤ 4096; 30 laws here: no k it reaches can violate k p ≤ 10⁶)
    old = check_step(
        _law_step("planted: k p ≤ 1e6", law_check(_count_claim, "planted", large_k=4096)), **{**opts, "trials": 300}
    )
    assert old.verdict is Verdict.VERIFIED and old.attacked["k"] == ("1", "4096")


def test_large_k_verdict_states_the_k_range_and_the_truncation():
    from infonce_bounds.derivations.checks.laws import K_MAX

    good = bias._law_check(lambda L, tv, kv, sm: (0 * sm["gap"], sm["gap"] + 1e-12), "gap ≥ 0")
    res = good(_law_step("gap ≥ 0", good), {**OPTS})
    assert res.verdict is Verdict.VERIFIED
    assert res.attacked["k"] == ("1", str(K_MAX)) and res.attacked["k_binomial_window"] == ("4097", str(K_MAX))
    assert "truncated binomial sums" in res.method and "1e-30" in res.method and "Chernoff" in res.method


def test_law_draws_are_those_of_the_random_module():
    """``law_check``'s sample/perturb write out random.Random's calls (choice, randrange, uniform,
    expovariate(1.0)) as its own code has them: the same numbers in the same order, so the laws searched are
    those of the calls themselves."""
    import random

    a_, b_ = random.Random("laws"), random.Random("laws")
    for _ in range(2000):
        assert a_.choice((2, 2, 3)) == (2, 2, 3)[b_._randbelow(3)]
        assert a_.choice((-1, 0, 0, 1)) == (-1, 0, 0, 1)[b_._randbelow(4)]
        assert a_.randrange(3) == b_._randbelow(3)
        assert a_.uniform(-1, 1) == -1 + 2 * b_.random()
        lo, hi = math.log(1e-3), math.log(100.0)
        assert a_.uniform(lo, hi) == lo + (hi - lo) * b_.random()
        assert a_.expovariate(1.0) == -math.log(1.0 - b_.random())
        assert a_.gauss(0, 0.1) == b_.gauss(0, 0.1)


def test_law_blocks_draw_the_same_kind_of_laws():
    """The block draws of ``law_check`` (numpy) attack the laws ``sample`` describes: 2 atoms about 2/3 of the
    time, else 3; snapped similarities about half of the time; weights summing to 1; τ and k within their
    ranges; zero densities where asked; the perturbed laws stay within the ranges too."""
    seen = []

    def record(L, lw):
        if L is math:
            seen.append(lw)
        return 0 * lw.tau, 1 + 0 * lw.tau

    chk = law_check(record, "records", with_density=True, zero_density=True, k_cap=9, tau_range=(0.01, 5.0))
    res = chk(_law_step("records", chk), {**OPTS, "vectorise": False, "trials": 3000})
    assert res.verdict is Verdict.VERIFIED and len(seen) == 3000
    two = sum(len(lw.probs) == 2 for lw in seen) / len(seen)
    assert 0.6 < two < 0.73 and all(len(lw.probs) in (2, 3) for lw in seen)
    sims = [s_ for lw in seen[:2100] for s_ in lw.sims]
    snapped = sum(s_ in (-1.0, 0.0, 1.0) for s_ in sims) / len(sims)
    assert 0.45 < snapped < 0.56 and all(-1 <= s_ <= 1 for lw in seen for s_ in lw.sims)
    assert all(abs(sum(lw.probs) - 1) < 1e-12 and len(lw.dens) == len(lw.probs) for lw in seen)
    assert all(0.01 <= lw.tau <= 5.0 and 1 <= lw.k <= 9 and isinstance(lw.k, int) for lw in seen)
    assert {lw.k for lw in seen} == set(range(1, 10))
    assert any(0.0 in lw.dens for lw in seen[:2100]) and any(0.0 in lw.dens for lw in seen[2100:])
    for lw in seen:  # E_π w = 1
        assert abs(sum(p_ * w_ for p_, w_ in zip(lw.probs, lw.dens)) - 1) < 1e-9


def test_bias_window_sums_are_the_same_floats_whichever_are_read():
    """bias's two-atom summary at large k sums only the window sums a claim reads (``_WindowSummary``); each
    is the same float as in the pass computing all four, and a read of the gap alone sums nothing else."""
    import numpy as np

    for k_, tv, sims, probs in [(10**6, 0.5, (1.0, -0.3), (0.2, 0.8)), (5000, 0.01, (0.9, -1.0), (0.999, 0.001))]:
        args = (np.array([tv]), k_, [np.array([s_]) for s_ in sims], [np.array([p_]) for p_ in probs])
        every = bias._law_summary_batch(*args)
        full = {key: float(every[key][0]) for key in bias.WINDOW_KEYS}  # read one by one: four passes
        want: set = set(bias.WINDOW_KEYS)
        together = bias._law_summary_batch(*args, want=want)
        assert {key: float(together[key][0]) for key in bias.WINDOW_KEYS} == full
        lw = [s_ / tv for s_ in sims]
        p0, z_ = probs[0] / sum(probs), float(every["logZ"][0])
        assert bias._window_sums(tv, k_, lw, p0, z_) == tuple(full[key] for key in bias.WINDOW_KEYS)
        for key in bias.WINDOW_KEYS:
            assert bias._window_sums(tv, k_, lw, p0, z_, (key,)) == (full[key],)
        alone: set = set()
        gap_only = bias._law_summary_batch(*args, want=alone)
        assert float(gap_only["gap"][0]) == full["gap"] and alone == {"gap"} and "offset_hi" not in gap_only


# ------------------------------------------------------------------------- the faster paths give the same results


def test_batch_scoring_keeps_the_worst_points_of_the_one_point_loop():
    """``search`` with ``evaluate_batch`` (arrays, ``score_batch``/``keep``) against the one-point loop on a
    claim full of ties, float violations, infinities and inf/inf ratios: the same trials, worst ratio, worst
    point, evidence (margins, counters) and local-search starts (so the same points in the second phase)."""
    import numpy as np

    def pair(v):
        b_ = math.floor(v * 8) / 8  # ratios tie in blocks
        if v > 0.97:
            return math.inf, math.inf  # ratio nan (inf/inf): the path-dependent sort
        if v < 0.02:
            return -math.inf, 1.0
        return b_ + (1e-17 if v > 0.9 else 0.0), max(b_, 1e-13)  # > 0.9: a float-rounding violation

    def evaluate(v, exact):
        if exact:
            sm, bg = pair(v)
            return (mpmath.mpf(sm), mpmath.mpf(bg)) if math.isfinite(sm) else (mpmath.mpf(0), mpmath.mpf(1))
        return pair(v)

    def batch(pts):
        out = np.array([pair(v) for v in pts])
        return out[:, 0], out[:, 1]

    step = Step("ties", x, x, kind="inequality", relation="<=", domain=Domain({x: (0, 1)}))
    kw = dict(
        budget=20000,
        sample=lambda rng: rng.random(),
        evaluate=evaluate,
        describe=lambda v: {"x": repr(v)},
        perturb=lambda rng, v: min(1.0, max(0.0, v + rng.gauss(0, 0.01))),
    )
    one = search(step, OPTS, **kw)
    bat = search(step, OPTS, evaluate_batch=batch, **kw)
    assert (one.trials, one.worst_ratio, one.worst_point, one.evidence) == (
        bat.trials,
        bat.worst_ratio,
        bat.worst_point,
        bat.evidence,
    )


def test_law_batches_expectations_are_the_one_composition_loop_bit_for_bit():
    """``_expect_array`` (fn once per support on count arrays) gives the loop's doubles, and a fn that is not
    elementwise in the counts (a branch on a count's value, or another value on arrays without raising) is
    summed by the loop."""
    import numpy as np

    from infonce_bounds.derivations.checks import laws as laws_mod
    from infonce_bounds.derivations.checks.laws import multinomial

    A = laws_mod.ARRAY
    rng = np.random.default_rng(7)
    for k_, na in [(1, 2), (3, 3), (7, 2), (12, 3)]:
        n = 200
        pr = rng.exponential(1, (na, n)) ** 3
        pr[0, :7] = 0.0  # an atom of probability 0 is skipped law by law
        pr = pr / pr.sum(0)
        lw = Law(
            np.exp(rng.uniform(math.log(1e-3), math.log(100), n)),
            k_,
            [rng.choice([-1.0, 0.0, 1.0, 0.3], n) for _ in range(na)],
            list(pr),
        )
        with np.errstate(all="ignore"):
            m_ = _laws.mu(A, lw)
        for fn in (
            lambda cnt, lw=lw: A.log(_laws.mu_hat(A, lw, cnt)),
            lambda cnt, lw=lw, m_=m_: (_laws.mu_hat(A, lw, cnt) - m_) ** 3,
            lambda cnt, lw=lw, m_=m_: abs(_laws.mu_hat(A, lw, cnt) / m_ - 1),
        ):
            with np.errstate(all="ignore"):
                got, ref = multinomial._expect_array(lw, fn), multinomial._expect_loop(lw, fn)
            assert np.array_equal(got, ref, equal_nan=True), (k_, na)

        def branchy(cnt, lw=lw):
            return sum(2.0 if c > 1 else 1.0 for c in cnt if c) + 0 * lw.tau  # ``c > 1`` on an array raises

        def sized(cnt, lw=lw):
            return float(sum(np.size(c) for c in cnt)) + 0 * lw.tau  # the array's size, not the count

        for fn in (branchy, sized):
            with np.errstate(all="ignore"):
                assert np.array_equal(multinomial._expect_array(lw, fn), multinomial._expect_loop(lw, fn))
            if k_ > 1:  # (at k = 1 every support has one composition: ``sized`` is then the same on arrays)
                assert multinomial._ELEMENTWISE[(fn.__code__, k_, na)] is False


def test_window_pmf_is_as_accurate_as_loaders_formula():
    """``window_pmf`` (Loader every 16 compositions, the exact ratio recurrence between) against 40-digit
    binomial probabilities over whole windows: relative error within a few times Loader's own, everywhere."""
    import numpy as np

    from infonce_bounds.derivations.checks.laws import binomial_window, log_binomial_pmf, window_pmf

    for k_, p in [(5000, 0.5), (123457, 0.013), (10**7, 0.77), (10**9, 0.3), (4097, 0.999)]:
        lo, hi, _ = binomial_window(k_, p)
        c = np.arange(lo, hi + 1, dtype=float)
        new, old = window_pmf(k_, c, p), np.exp(log_binomial_pmf(k_, c, p))
        idx = np.unique(np.linspace(0, len(c) - 1, 60).astype(int))
        with mpmath.workdps(40):
            pm = mpmath.mpf(p)
            ex = [
                mpmath.exp(
                    mpmath.loggamma(k_ + 1)
                    - mpmath.loggamma(c[i] + 1)
                    - mpmath.loggamma(k_ - c[i] + 1)
                    + c[i] * mpmath.log(pm)
                    + (k_ - c[i]) * mpmath.log(1 - pm)
                )
                for i in idx
            ]
        err_new = max(float(abs(new[i] - e) / e) for i, e in zip(idx, ex))
        err_old = max(float(abs(old[i] - e) / e) for i, e in zip(idx, ex))
        assert err_new <= max(3 * err_old, 1e-14), (k_, p, err_new, err_old)


def test_binomial_window_search_finds_the_bisection_boundaries():
    """``binomial_window``'s galloping search from a Newton start returns the windows of the bisection it
    replaced (the least / largest count whose Chernoff tail is below the bound), and ``_means`` in integers
    the doubles of the Fraction arithmetic."""
    import random
    from fractions import Fraction

    from infonce_bounds.derivations.checks.laws import large_k

    def bisect_window(k_, p, tail):
        need = math.log(2 / tail) + 1

        def ok(c):
            return k_ * large_k._kl(c / k_, p) >= need

        mean, sd = k_ * p, math.sqrt(k_ * p * (1 - p))
        guess = int(math.sqrt(2 * need) * sd) + 2
        a_, b_ = max(math.ceil(mean), 0), k_
        if ok(min(k_, a_ + guess) + 1) or a_ + guess >= k_:
            b_ = min(k_, a_ + guess)
        while a_ < b_:
            m_ = (a_ + b_) // 2
            if m_ + 1 > k_ or ok(m_ + 1):
                b_ = m_
            else:
                a_ = m_ + 1
        hi = a_
        a_, b_ = 0, min(math.floor(mean), k_)
        if b_ - guess <= 0 or ok(max(0, b_ - guess) - 1):
            a_ = max(0, b_ - guess)
        while a_ < b_:
            m_ = (a_ + b_ + 1) // 2
            if m_ - 1 < 0 or ok(m_ - 1):
                a_ = m_
            else:
                b_ = m_ - 1
        return a_, hi

    r = random.Random(11)
    for _ in range(3000):
        k_ = r.choice([r.randint(4097, 10**9), r.randint(1, 5000)])
        p = r.choice([r.random(), 10 ** r.uniform(-12, 0), 1 - 10 ** r.uniform(-12, -0.3), 0.0, 1.0])
        tail = r.choice([large_k.TAIL, 1e-60])
        assert large_k.binomial_window.__wrapped__(k_, p, tail)[:2] == bisect_window(k_, p, tail), (k_, p, tail)
        ex_p = k_ * Fraction(p)
        Mp, Mq = float(ex_p), float(k_ - ex_p)
        ref = (Mp, Mq, float(ex_p - Fraction(Mp)), float(k_ - ex_p - Fraction(Mq)))
        assert large_k._means.__wrapped__(k_, p) == ref


def test_merged_batches_and_k_arrays_give_the_same_verdicts_and_floats(monkeypatch):
    """Scoring the blocks of a run as one batch (``MERGE``) and the windowed two-atom laws as one batch with k an
    array (``k_arrays``) change no float: the same result as block by block and law by law, for a bias claim
    with its large-k phase and a paper claim."""
    from infonce_bounds.derivations.checks.laws import batches, search_loop

    good = bias._law_check(lambda L, tv, kv, sm: (sm["gap"], bias._c_numeric(L, tv) / kv), "C/k")
    jensen = law_check(_jensen, "Jensen")
    opts = {**OPTS, "trials": 6000}
    orig = batches._block_groups
    for chk in (good, jensen):
        st = _law_step("same", chk)
        fast = chk(st, opts).as_dict()
        monkeypatch.setattr(search_loop, "MERGE", 0)
        monkeypatch.setattr(batches, "_block_groups", lambda b, k_arrays=False: orig(b, False))
        slow = chk(st, opts).as_dict()
        monkeypatch.undo()
        assert fast == slow
