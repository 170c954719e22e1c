"""The checking engine: a sound interval back end (Arb), honest domains, the cache and the large-k attack."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from mpmath import iv

from infonce_bounds.derivations import intervals
from infonce_bounds.derivations.checks import certify_nonnegative, check_step
from infonce_bounds.derivations.ledger import Domain, Step, Verdict
from infonce_bounds.derivations.symbols import tau, x
from infonce_bounds.numerics import certify as C

#: mpmath issue 1181: at 53 bits, mpmath.iv.exp of this x has an upper end 2.5e-19 below e^x
X_1181 = sp.Rational(3893924827815215, 2**50)


def _true_exp_1181():
    with mpmath.workdps(60):
        return mpmath.exp(mpmath.mpf(3893924827815215) / mpmath.mpf(2) ** 50)


def test_arb_enclosure_holds_where_mpmath_iv_fails():
    """The back end's exp encloses e^x at the mpmath-1181 point; mpmath.iv's does not (why we left it)."""
    true = _true_exp_1181()
    with intervals.iv_prec(53):
        enc = intervals.interval_eval(sp.exp(x), {x: (X_1181, X_1181)})
    with mpmath.workdps(60):
        assert enc.a <= true <= enc.b
    # documentation of the reason: mpmath.iv at 53 bits misses the true value from below
    old = iv.prec
    iv.prec = 53
    try:
        bad = iv.exp(iv.mpf(mpmath.mpf(3893924827815215) / 2**50))
    finally:
        iv.prec = old
    with mpmath.workdps(60):
        assert mpmath.mpf(bad.b) < true, "mpmath.iv now encloses e^x here: issue 1181 fixed upstream?"


def test_certified_constant_is_not_understated_at_the_1181_point():
    """numerics.certify at the float's own precision: the enclosure of e^x contains e^x."""
    true = _true_exp_1181()
    lo, hi = C.enclose(sp.exp(x), {x: X_1181}, bits=53)
    with mpmath.workdps(60):
        assert lo <= true <= hi
    assert mpmath.mpf(C.format_up(hi, 17)) >= true


def test_interval_proof_near_the_1181_point_is_not_false():
    """A claim false by 1e-20 just above e^x: mpmath.iv would 'prove' e^x ≤ c; Arb must not."""
    true = _true_exp_1181()
    with mpmath.workdps(60):
        c = sp.Rational(str(mpmath.nstr(true - mpmath.mpf("1e-20"), 40)))
    st = Step(
        "planted: e^x ≤ c just below e^x",
        sp.exp(x),
        c,
        kind="inequality",
        relation="<=",
        domain=Domain({x: (X_1181, X_1181)}),
    )
    out = certify_nonnegative(c - sp.exp(x), st.domain)
    assert out.status != "proved"
    assert check_step(st, trials=200).verdict is not Verdict.PROVED


@pytest.mark.parametrize(
    "expr",
    [
        (sp.exp(2 / tau) - 1) ** 2 / 8
        - (sp.exp(2 / tau) - 1) * sp.Min(sp.Rational(2163, 10000), (1 + 1 / (3 * tau)) / (4 * tau)),
        sp.sqrt(sp.log(1 + 2**3 * x)) / 8 + sp.pi * x ** sp.Rational(3, 2) - sp.cosh(x) / 3 + sp.Abs(x - 1),
        sp.Max(x, tau) * sp.tanh(1 / tau) - sp.sinh(x) ** 3 + tau**x,
    ],
)
def test_compiled_enclosure_is_the_tree_walk_enclosure(expr):
    """``intervals.compiled`` (what branch and bound uses) gives exactly ``_eval``'s endpoints, and the
    same exception, on every box: compiling changes the cost, never an enclosure."""
    import random

    rng = random.Random(0)
    for prec in (53, 80):
        with intervals.iv_prec(prec):
            for _ in range(40):
                lo_x, hi_x = sorted(sp.Rational(rng.randint(-300, 3000), 1000) for _ in range(2))
                lo_t, hi_t = sorted(sp.Rational(rng.randint(1, 3000), 1000) for _ in range(2))
                box = {x: intervals.to_iv(lo_x, hi_x), tau: intervals.to_iv(lo_t, hi_t)}
                try:
                    want = intervals._eval(expr, box)
                except (intervals.NotEnclosable, ZeroDivisionError, ValueError) as exc:
                    with pytest.raises(type(exc)):
                        intervals.compiled(expr)(box)
                    continue
                got = intervals.compiled(expr)(box)
                assert (got.a, got.b) == (want.a, want.b)


def test_compiled_enclosure_check_can_fail():
    """Planted wrong: a different expression's compiled enclosure is told apart on the same box."""
    box = {x: intervals.to_iv(1, 2)}
    a, b = intervals.compiled(sp.exp(x))(box), intervals._eval(sp.exp(x) + sp.Rational(1, 10**12), box)
    assert (a.a, a.b) != (b.a, b.b)


def test_wide_box_enclosure_is_endpoint_tight():
    """A wide box is not wrapped into one ball: exp over [0, 100] has lower end 1, not a negative number."""
    enc = intervals.interval_eval(sp.exp(x), {x: (0, 100)})
    assert enc.a == 1
    with mpmath.workdps(50):
        assert enc.b >= mpmath.exp(100) and enc.b <= mpmath.exp(100) * (1 + mpmath.mpf(2) ** -40)


def test_half_infinite_box_and_division_by_an_interval_at_zero():
    assert intervals.interval_eval(sp.exp(-x), {x: (0, sp.oo)}).a == 0
    enc = intervals.interval_eval(1 / x, {x: (0, 1)})
    assert enc.a == 1 and enc.b == mpmath.inf
    with pytest.raises(intervals.NotEnclosable):
        intervals.interval_eval(sp.log(x), {x: (-2, -1)})


def test_mean_value_form_certifies_a_small_margin_on_few_boxes():
    """f(box) ⊆ f(c) + f'(box)(box − c): log(1 + x) ≥ 2x/(2 + x) − 10⁻⁶ on [0, 100] (tight as x → 0,
    where bisection with plain enclosures leaves boxes after 1500 evaluations) is proved on a few hundred."""
    out = certify_nonnegative(sp.log(1 + x) - 2 * x / (2 + x) + sp.Rational(1, 10**6), Domain({x: (0, 100)}))
    assert out.status == "proved" and out.boxes < 400


@pytest.mark.parametrize(
    "expr",
    [
        (x - sp.Rational(3, 10)) ** 2 - sp.Rational(1, 10**12),  # fails only within 10⁻⁶ of 3/10, off every centre
        sp.Abs(x - sp.Rational(1, 3)) - sp.Rational(1, 10**6),  # not C¹: its slope sign(x − 1/3) is not enclosed
        sp.Max(x, 1 - x) - sp.Rational(1, 2) - sp.Rational(1, 10**9),  # not C¹ at its minimum 1/2
    ],
)
def test_mean_value_form_does_not_certify_a_false_claim(expr):
    """Planted wrong: claims false on a sliver of [0, 1] are not proved with the mean-value form on."""
    out = certify_nonnegative(expr, Domain({x: (0, 1)}))
    assert out.status != "proved"


def test_assumption_witness_finds_a_failure_outside_the_domain_only_where_there_is_one():
    """x ≤ 1 holds on [0, 1] but not for every real x (a witness); e^x ≥ 1 + x holds for every real x
    (none); an integral is not pre-screened (none)."""
    from infonce_bounds.derivations.checks.prescreen import assumption_witness

    dom = Domain({x: (0, 1)})
    wit = assumption_witness([x, sp.Integer(1)], "<=", "x ≤ 1", dom)
    assert wit is not None and float(wit["x"]) > 1
    assert assumption_witness([1 + x, sp.exp(x)], "<=", "1 + x ≤ e^x", dom) is None
    assert assumption_witness([x, x + 1], "==", "x = x + 1", dom) is not None
    cancels = [sp.cosh(200 * x) ** 2 - sp.sinh(200 * x) ** 2, sp.Integer(1)]  # 1 for every x, 10¹⁷³ − 10¹⁷³ at x = 1
    assert assumption_witness(cancels, "==", "cosh² − sinh² = 1", Domain({x: (1, 2)}), points=40) is None
    assert assumption_witness([x**2 - 1, (x - 1) * (x + 1)], "==", "difference of squares", dom) is None
    t_ = sp.Symbol("t_", real=True)
    assert assumption_witness([sp.Integral(t_, (t_, 0, x)), x], "<=", "∫ t dt ≤ x", dom) is None


def test_prescreened_claims_keep_their_proofs():
    """The pre-screen spares only attempts that must fail: a claim true for all real x that needs
    simplify to show its sign stays a symbolic proof; one true only on its box gets its interval proof."""
    # simplify reduces the gap to x²; at x = 200, 50 digits of cosh² − sinh² are all cancellation
    gap = x**2 + sp.cosh(x) ** 2 - sp.sinh(x) ** 2 - 1
    sq = Step("x² + cosh² x − sinh² x − 1 ≥ 0", gap, 0, kind="inequality", relation=">=", domain=Domain({x: (-5, 5)}))
    res = check_step(sq, trials=2000)
    assert res.verdict is Verdict.PROVED and res.symbolic
    box = Step("x ≤ 1 on [0, 1]", x, 1, kind="inequality", relation="<=", domain=Domain({x: (0, 1)}))
    res = check_step(box, trials=2000)
    assert res.verdict is Verdict.PROVED and res.certified and not res.symbolic
    assert "allowed by the assumptions" in res.evidence


def test_cheap_rewrites_prove_only_true_identities():
    """expand/cancel (after rewrite(exp) for hyperbolic functions) reach 0 on true identities and not on a
    planted wrong one; a step's own simplifier still decides what they leave."""
    from infonce_bounds.derivations.checks.identity import cheap_zero

    assert cheap_zero(sp.sinh(1 / tau) ** 2 - (sp.cosh(2 / tau) - 1) / 2)
    assert cheap_zero((sp.exp(2 / tau) - 1) / (sp.exp(1 / tau) - 1) - sp.exp(1 / tau) - 1)
    assert not cheap_zero(sp.sinh(1 / tau) ** 2 - (sp.cosh(2 / tau) + 1) / 2)
    wrong = Step(
        "planted: d/dx x³ = 3x² + 10⁻²⁰",
        sp.Derivative(x**3, x),
        3 * x**2 + sp.Rational(1, 10**20),
        domain=Domain({x: (1, 2)}),
        simplifier=lambda e: sp.Integer(0),
    )  # a 'buggy' simplifier: the derivative spot-check (50 digits, evaluated once per claim) refutes
    res = check_step(wrong)
    assert res.verdict is Verdict.REFUTED and "simplification bug" in res.method


@pytest.mark.parametrize("tv", ["0.001", "0.1", "1", "100"])
def test_interval_ops_enclose_50_digit_values(tv):
    e = sp.log(1 + sp.exp(2 / tau)) * sp.sinh(1 / tau) ** 2 / sp.sqrt(tau) - sp.tanh(tau) + sp.cosh(1 / tau) ** -1
    t = sp.Rational(tv)
    with intervals.iv_prec(80):
        enc = intervals.interval_eval(e, {tau: (t, t)})
    with mpmath.workdps(50):
        ref = sp.N(e.subs(tau, t), 50)
        ref = mpmath.mpf(str(ref))
        assert enc.a <= ref <= enc.b
        assert enc.b - enc.a <= abs(ref) * mpmath.mpf(10) ** -12 + mpmath.mpf(10) ** -30


# ---------------------------------------------------------------------------------- honest domains


def _claim_symbols(step):
    from infonce_bounds.derivations.ledger import free_names

    names = free_names(step.lhs) | free_names(step.rhs)
    if step.kind in ("expansion", "limit"):
        names.discard(step.var)
    return names


@pytest.fixture(scope="module")
def catalogue_results(catalogue_verdicts):
    """Every catalogue step checked once (``conftest.catalogue_verdicts``)."""
    return catalogue_verdicts


def _k_names(step):
    """The vector-length symbols of a step (k, and any integer symbol named like it) its domain states."""
    return {str(s_) for s_ in step.domain.ranges if str(s_) == "k"}


def test_every_proved_step_covers_its_stated_domain(catalogue_results):
    """covered ⊇ stated domain (on the claim's symbols) for every PROVED step of the catalogue: every
    derivation, every checker (standard or the result module's own), no exclusion list."""
    from infonce_bounds.derivations.ledger import covers

    n_proved, bad = 0, []
    for name, pairs in catalogue_results.items():
        for step, res in pairs:
            if res.verdict is not Verdict.PROVED:
                continue
            n_proved += 1
            if not covers(res.covered, step.domain, _claim_symbols(step)):
                bad.append((name, step.name, res.covered, step.domain.describe()))
    assert n_proved > 50
    assert not bad, bad


def test_every_verified_verdict_states_the_range_it_attacked(catalogue_results):
    """Every verified-numerically verdict (any kind, any checker) records the ranges it attacked, and the
    k range where the step's domain has a k."""
    missing, no_k, n_verified = [], [], 0
    for name, pairs in catalogue_results.items():
        for step, res in pairs:
            if res.verdict is not Verdict.VERIFIED:
                continue
            n_verified += 1
            if not res.attacked:
                missing.append((name, step.name, res.method))
            elif _k_names(step) - set(res.attacked):
                no_k.append((name, step.name, sorted(res.attacked)))
    assert n_verified >= 10  # the catalogue keeps 14 verified steps (issue 29): the check is not vacuous
    assert not missing, missing
    assert not no_k, no_k


def test_covers_can_fail():
    from infonce_bounds.derivations.ledger import covers

    dom = Domain({tau: (sp.Rational(1, 1000), 100)})
    assert covers({"tau": ("1/1000", "oo")}, dom)
    assert not covers({"tau": ("1/100", "oo")}, dom)  # misses τ ∈ [1e-3, 1e-2)
    assert not covers({"x": ("0", "1")}, dom)  # a symbol not covered at all
    assert not covers(None, dom)


#: where a step is *used* by a later argument: (derivation, step, substitution, domain of the use)
def _uses():
    from infonce_bounds.derivations.symbols import TAU_RANGE, chi, u

    z_ratio = {u: (sp.exp(-2 / tau), sp.exp(2 / tau))}  # u = Z_k/Z ∈ [e^{−2/τ}, e^{2/τ}]
    return [
        ("bias_sign", "log u ≤ u − 1", z_ratio, TAU_RANGE),
        ("bias_bound", "log v ≤ v − 1 (again)", z_ratio, TAU_RANGE),
        # the CLI evaluates the chaining bound at any χ = 2ΛR/c₀ > 0
        ("rademacher_chaining", "Σ_{l≥1} 2^{−l} (l log 2 + log(1 + χ)) = log(4(1 + χ))", {chi: (0, sp.oo)}, Domain({})),
    ]


@pytest.mark.parametrize("use", _uses(), ids=lambda u_: u_[1][:30] if isinstance(u_, tuple) else None)
def test_each_use_lies_inside_the_stated_domain(use):
    """The range at which a later step uses a step (enclosed over the user's domain) lies in its domain."""
    from infonce_bounds.derivations import catalogue

    name, step_name, at, over = use
    step = catalogue.get(name).step(step_name)
    box = {s_: lohi for s_, lohi in over.ranges.items()}
    for sym, (lo_e, hi_e) in at.items():
        lo_v = intervals.interval_eval(sp.sympify(lo_e), box).a if box or not sp.sympify(lo_e).is_number else lo_e
        hi_v = intervals.interval_eval(sp.sympify(hi_e), box).b if sp.sympify(hi_e) is not sp.oo else mpmath.inf
        s_lo, s_hi = step.domain.range_of(sym)
        s_lo = mpmath.mpf(-mpmath.inf) if s_lo == -sp.oo else mpmath.mpf(sp.Rational(s_lo).p) / sp.Rational(s_lo).q
        s_hi = mpmath.inf if s_hi == sp.oo else mpmath.mpf(sp.Rational(s_hi).p) / sp.Rational(s_hi).q
        assert s_lo <= mpmath.mpf(lo_v) and mpmath.mpf(hi_v) <= s_hi, (step_name, sym, lo_v, hi_v, s_lo, s_hi)


def test_use_check_can_fail():
    """The old box u ∈ [1e-6, 1e6] does not contain u = Z_k/Z for τ = 1e-3 (e^{−2000})."""
    lo = intervals.interval_eval(sp.exp(-2 / tau), {tau: (sp.Rational(1, 1000), 100)}).a
    assert lo < mpmath.mpf(10) ** -6


# ---------------------------------------------------------------------------------- cache


def test_cache_hits_unchanged_steps_and_rechecks_an_edited_one_and_its_dependents(tmp_path, monkeypatch):
    from infonce_bounds.derivations.ledger import Derivation
    from infonce_bounds.derivations.run import runner

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def build(c):
        a = Derivation(
            "engine_test_a",
            "a",
            [
                Step("exp ≥ 1 + x", sp.exp(x), 1 + x, kind="inequality", relation=">=", domain=Domain({x: (-5, 5)})),
                Step("x² ≥ c", x**2, sp.Integer(c), kind="inequality", relation=">=", domain=Domain({x: (-5, 5)})),
            ],
            result="x² ≥ c",
        )
        b = Derivation(
            "engine_test_b",
            "b",
            [Step("cosh ≥ 1", sp.cosh(x), 1, kind="inequality", relation=">=", domain=Domain({x: (-5, 5)}))],
            result="cosh ≥ 1",
            depends_on=("engine_test_a",),
        )
        c_ = Derivation(
            "engine_test_c",
            "c",
            [Step("x⁴ ≥ 0", x**4, 0, kind="inequality", relation=">=", domain=Domain({x: (-5, 5)}))],
            result="x⁴ ≥ 0",
        )
        return [a, b, c_]

    opts = {"trials": 200}
    first, st1 = runner.verify_derivations(build(0), opts, workers=1)
    assert {k: st1[k] for k in ("cached", "checked", "workers")} == {"cached": 0, "checked": 4, "workers": 1}
    assert set(st1["cpu"]) == {"engine_test_a", "engine_test_b", "engine_test_c"}  # CPU s of what was checked
    assert runner.cache_dir().is_relative_to(tmp_path)
    _, st2 = runner.verify_derivations(build(0), opts, workers=1)
    assert st2["cached"] == 4 and st2["checked"] == 0
    # edit one step of a: it and b (which depends on a) are re-checked; a's other step and c are not
    edited, st3 = runner.verify_derivations(build(-1), opts, workers=1)
    assert st3["cached"] == 2 and st3["checked"] == 2
    assert edited["engine_test_a"][1].verdict is Verdict.PROVED
    # a planted wrong edit is refuted, not served from the cache
    wrong, st4 = runner.verify_derivations(build(1), opts, workers=1)
    assert wrong["engine_test_a"][1].verdict is Verdict.REFUTED and st4["checked"] == 2
    # options are part of the key; --no-cache forces every check
    _, st5 = runner.verify_derivations(build(0), {"trials": 201}, workers=1)
    assert st5["checked"] == 4
    _, st6 = runner.verify_derivations(build(0), opts, workers=2, use_cache=False)
    assert st6["checked"] == 4 and st6["cached"] == 0
    assert [r.verdict for r in first["engine_test_a"]] == [Verdict.PROVED, Verdict.PROVED]


def test_cache_key_sees_a_custom_checker_change():
    from infonce_bounds.derivations.run import runner

    def make(bound):
        def check(step, opts):
            return bound

        return check

    s1 = Step("s", x, x, domain=Domain({x: (0, 1)}), check=make(1))
    s2 = Step("s", x, x, domain=Domain({x: (0, 1)}), check=make(2))
    assert runner.step_key(s1, {}) != runner.step_key(s2, {})
    assert runner.step_key(s1, {}) == runner.step_key(Step("s", x, x, domain=Domain({x: (0, 1)}), check=make(1)), {})


def test_chain_key_follows_a_cited_step_in_its_own_derivation():
    # a chain's verdict rests on the steps it cites; one in the same derivation is not covered by
    # depends_on, so its key must enter the chain's own key (an edit there re-checks the chain)
    from infonce_bounds.derivations.ledger import Derivation, Link
    from infonce_bounds.derivations.run import runner

    def build(c):
        return Derivation(
            "engine_test_chain",
            "chain",
            [
                Step("x ≤ c", x, sp.Integer(c), kind="inequality", relation="<=", domain=Domain({x: (0, 1)})),
                Step("unrelated", x**2, x**2, kind="identity", domain=Domain({x: (0, 1)})),
                Step(
                    "x + 1 ≤ c + 1",
                    x + 1,
                    sp.Integer(c) + 1,
                    kind="chain",
                    relation="<=",
                    domain=Domain({x: (0, 1)}),
                    links=[Link(x + 1, sp.Integer(c) + 1, "<=", cite="engine_test_chain / x ≤ c")],
                ),
            ],
            result="x + 1 ≤ c + 1",
        )

    k1, k2 = (runner._derivation_keys([build(c)], {"trials": 10})["engine_test_chain"] for c in (1, 2))
    assert k1[1] == k2[1]  # the step the chain does not cite keeps its key
    assert k1[0] != k2[0] and k1[2] != k2[2]
    # the chain's own fields unchanged, only the cited step edited: the chain is still re-keyed
    d1, d2 = build(1), build(2)
    d2.steps[2] = d1.steps[2]
    k2b = runner._derivation_keys([d2], {"trials": 10})["engine_test_chain"]
    assert k2b[2] != k1[2]


# ---------------------------------------------------------------------------------- large k, vectorised falsifier


def _vector_claim(bound):
    from infonce_bounds.derivations.symbols import j, k, s

    return Step(
        f"planted: Σ_j s_j² ≤ {bound} for every k ≥ 1",
        sp.Sum(s[j] ** 2, (j, 1, k)),
        bound,
        kind="inequality",
        relation="<=",
        domain=Domain({k: (1, sp.oo), s: (-1, 1)}),
    )


def test_large_k_attack_refutes_a_claim_false_only_beyond_k_cap():
    """Σ s_j² ≤ 100 holds for every k ≤ 100: the k ≤ 12 sampler cannot see the failure; the grouped attack does."""
    res = check_step(_vector_claim(100), trials=5000)
    assert res.verdict is Verdict.REFUTED
    assert int(res.counterexample["k"]) > 100 and "grouped" in res.counterexample
    only_small = check_step(_vector_claim(100), trials=5000, large_k=False)
    assert only_small.verdict is Verdict.VERIFIED and only_small.attacked["k"][1] == "12"


def test_large_k_attack_states_the_k_range_and_keeps_true_claims():
    from infonce_bounds.derivations.symbols import j, k, s

    st = Step(
        "mean of e^{s_j/τ} ≤ e^{1/τ}",
        sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k,
        sp.exp(1 / tau),
        kind="inequality",
        relation="<=",
        domain=Domain({k: (1, sp.oo), s: (-1, 1), tau: (sp.Rational(1, 1000), 100)}),
    )
    res = check_step(st, trials=5000)
    # proved for every k by the sums route (termwise bounds); the falsifier still attacks up to 10⁹
    assert res.verdict is Verdict.PROVED and "sums route" in res.method and res.trials == 5000
    assert res.attacked["grouped_k"] == ("13", str(10**9)) and "groups of equal coordinates" in res.evidence


def test_group_claim_refuses_index_dependent_summands():
    from infonce_bounds.derivations.checks.falsifier import _NotGroupable, group_claim
    from infonce_bounds.derivations.symbols import j, k, s

    with pytest.raises(_NotGroupable):
        group_claim([sp.Sum(2**-j * s[j], (j, 1, k))], k)
    (g,), ms = group_claim([sp.Sum(s[j] ** 2, (j, 1, k))], k)
    assert sp.simplify(g - sum(m * s[i + 1] ** 2 for i, m in enumerate(ms))) == 0


@pytest.mark.parametrize("vectorise", [False, True])
def test_both_falsifier_paths_refute_a_boundary_only_violation(vectorise):
    """The numpy batches and the one-point loops both find a violation in the last sliver of the box."""
    st = Step(
        "planted: x³ ≤ 0.999 on [0, 1]",
        x**3,
        sp.Rational(999, 1000),
        kind="inequality",
        relation="<=",
        domain=Domain({x: (0, 1)}),
        certificate=None,
    )
    from infonce_bounds.derivations.checks import DEFAULTS, falsify

    fz = falsify(st, {**DEFAULTS, "trials": 3000, "vectorise": vectorise})
    assert fz.counterexample is not None


def test_vectorised_falsifier_refutes_a_planted_vector_claim_inside_k_cap():
    from infonce_bounds.derivations.checks import DEFAULTS, falsify

    fz = falsify(_vector_claim(sp.Rational(59, 10)), {**DEFAULTS, "trials": 4000, "large_k": False})
    assert fz.counterexample is not None and int(fz.counterexample["k"]) >= 6


def test_worst_ratio_is_settled_at_higher_precision_where_both_sides_vanish():
    # both sides of the Taylor remainder bound vanish like x⁶: at x = 7.3e-15 and 50 digits the
    # small side is rounding noise (ratio 2.5e20); the settled ratio is the true one, just below 1
    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.checks.falsifier import _settled_ratio, _sides
    from infonce_bounds.derivations.checks.sampling import Evaluator

    st = catalogue.get("bias_expansion").step("Taylor remainder of log(1 + x)")
    small, big, _ = _sides(st)
    ev = Evaluator([small, big], st.domain)
    one = ev.evaluate({x: 7.3039e-15}, exact=True, dps=50)
    assert one[0] / one[1] > 1e10  # the noise the settled ratio removes
    r = _settled_ratio(ev, {x: 7.3039e-15}, 50)
    assert r is not None and 0.999 < r <= 1
    # a claim 2% too tight is still reported above 1 at the same point
    ev2 = Evaluator([small, big * sp.Rational(98, 100)], st.domain)
    r2 = _settled_ratio(ev2, {x: 7.3039e-15}, 50)
    assert r2 is not None and r2 > 1.01
