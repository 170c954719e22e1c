"""Prior bounds (our reconstructions): labelled as ours, verified, k-shapes as claimed; planted errors refuted."""

from __future__ import annotations

import importlib
import itertools

import mpmath
import pytest
import sympy as sp

from infonce_bounds.derivations import prior
from infonce_bounds.derivations.checks import DEFAULTS, check_step, two_point_laws
from infonce_bounds.derivations.ledger import DerivationError, Verdict
from infonce_bounds.derivations.symbols import L, R, k, n, p, tau


@pytest.fixture(scope="module")
def results(catalogue_runs):
    return {der.name: (der, catalogue_runs[der.name]) for der in prior.derivations()}  # the session's one check


def test_labelled_as_our_reconstruction(results):
    for name, (der, _) in results.items():
        assert der.source == "ours"
        assert "reconstruction" in der.title and "Confidence" in der.summary
        assert name in prior.CONFIDENCE
    for fn in (prior.large_k_deviation, prior.complexity_klinear, prior.complexity_logk):
        doc = fn.__doc__
        assert "Our reconstruction" in doc or "our reconstruction" in doc.lower()
        assert "reading of" in doc and "How sure we are" in doc


def test_no_step_refuted_and_scalar_steps_proved(results):
    for name, (der, res) in results.items():
        for step_name, r in res.items():
            assert r.verdict != Verdict.REFUTED, (name, step_name, r.evidence)
            if der.step(step_name).kind in ("identity", "limit"):
                assert r.verdict == Verdict.PROVED, (name, step_name, r.method)


def _exact_gap(xv, yv, pv, t, kv):
    """|E log Z_k − log Z| for W ∈ {e^{x/τ}, e^{y/τ}} w.p. (1 − π, π), by summing over all 2^k tuples."""
    a, b = mpmath.exp(xv / t), mpmath.exp(yv / t)
    z = pv * b + (1 - pv) * a
    tot = mpmath.mpf(0)
    for tup in itertools.product((0, 1), repeat=kv):
        m = sum(tup)
        tot += pv**m * (1 - pv) ** (kv - m) * mpmath.log((m * b + (kv - m) * a) / kv)
    return abs(tot - mpmath.log(z))


def test_large_k_deviation_dominates_exact_gap_by_brute_force(rng):
    """Independent route: enumerate all 2^k negative tuples (k ≤ 8), not the binomial sum of the checker."""
    bound = sp.lambdify((tau, k), prior.large_k_deviation(), "mpmath")
    with mpmath.workdps(30):
        for _ in range(40):
            t = mpmath.mpf(10) ** rng.uniform(-1, 1)
            xv, yv = mpmath.mpf(rng.uniform(-1, 1)), mpmath.mpf(rng.uniform(-1, 1))
            pv = mpmath.mpf(rng.uniform(0, 1))
            kv = int(rng.integers(1, 9))
            assert _exact_gap(xv, yv, pv, t, kv) <= bound(t, kv)


def test_agrees_with_bias_module_when_present():
    try:
        bias = importlib.import_module("infonce_bounds.derivations.bias")
    except ImportError:
        pytest.skip("derivations.bias missing")
    if not hasattr(bias, "deviation_bound"):
        pytest.skip("bias.deviation_bound missing")
    assert sp.simplify((prior.large_k_deviation() - bias.deviation_bound(tau, k)).rewrite(sp.exp)) == 0


def test_k_shapes():
    """k-linear grows ∝ k; log-k grows like a power of log k; the deviation falls like k^{-1/2}."""
    vals = {tau: sp.Rational(1, 2), n: 50000, L: 1, p: 1000, R: 1}

    def f(expr, kv):
        return float(expr.subs({**vals, k: kv}).evalf(30))

    klin, logk, dev = prior.complexity_klinear(), prior.complexity_logk(), prior.large_k_deviation()
    assert f(klin, 4095) / f(klin, 2047) == pytest.approx(2.0, rel=1e-3)
    assert 1 < f(logk, 4096) / f(logk, 64) < 2.5
    assert f(dev, 4096) / f(dev, 64) == pytest.approx(1 / 8, rel=1e-12)


def test_similarity_complexity_decreases_in_n():
    G = prior.similarity_complexity()
    vals = [float(G.subs({n: nv, L: 1, p: 100, R: 1})) for nv in (10, 100, 10**4, 10**6)]
    assert all(a > b for a, b in itertools.pairwise(vals))


def _step(name):
    for der in prior.derivations():
        for s in der.steps:
            if s.name.startswith(name):
                return s
    raise KeyError(name)


@pytest.mark.parametrize(
    "prefix,factor", [("large-k deviation bound", sp.Rational(1, 20)), ("E|Z_k − Z| ≤ √(Var W / k)", sp.Rational(1, 2))]
)
def test_planted_wrong_constants_are_refuted(prefix, factor):
    """The two-point-law checker, the attack beside the expectation route, refutes the deviation bounds with the
    constant cut down; the true bounds are proved by the route."""
    good = _step(prefix)
    from dataclasses import replace

    bad = replace(good, name="planted: " + good.name, rhs=good.rhs * factor)
    assert check_step(good, trials=2000).verdict == Verdict.PROVED
    res = check_step(bad, trials=2000)
    assert res.verdict == Verdict.REFUTED and res.counterexample


def test_planted_lipschitz_constant_halved_is_refuted():
    from dataclasses import replace

    good = _step("ℓ2 norm of ∇ℓ_k")
    bad = replace(good, name="planted: ℓ2 norm ≤ 1/τ", rhs=good.rhs / sp.sqrt(2))
    assert check_step(bad, trials=2000).verdict == Verdict.REFUTED


def test_two_point_batch_pass_matches_the_one_point_pass():
    """The numpy float pass of a batch of two-point laws (``_points_float``) against ``_point_float`` point by
    point (to 1e-12 relative), for both statistics, over random laws including τ = 1e-3 and k = 1 … 16; and the
    checker's verdicts with and without it are the same."""
    import math
    import random

    import numpy as np

    r = random.Random(3)
    pts = [
        (10 ** r.uniform(-3, 2), r.uniform(-1, 1), r.uniform(-1, 1), r.uniform(0.01, 0.99), r.randint(1, 16))
        for _ in range(400)
    ] + [(1e-3, 1.0, -1.0, 0.5, 16), (100.0, 1.0, -1.0, 0.5, 1)]
    for statistic in ("abs_dev_mean", "abs_log_gap"):
        rl = np.array([math.log(3.0) + 1 / pt[0] for pt in pts])  # any log rhs
        sm, bg = two_point_laws._points_float(statistic, pts, rl)
        for pt, s_, b_, r_ in zip(pts, sm, bg, rl):
            a_, c_ = two_point_laws._point_float(statistic, *pt, float(r_))
            assert abs(s_ - a_) <= 1e-12 * max(1.0, abs(a_)) and (b_ == c_ or abs(b_ - c_) <= 1e-12 * abs(c_))
    for prefix in ("large-k deviation bound", "E|Z_k − Z| ≤ √(Var W / k)"):
        st = _step(prefix)
        attack = st.route[1]["attack"]  # the two-point check, now the attack beside the expectation route's proof
        opts = {**DEFAULTS, "trials": 3000}
        assert attack(st, {**opts, "vectorise": False}).verdict == attack(st, opts).verdict == Verdict.VERIFIED


def test_two_point_law_claims_are_typed_data_not_closures():
    """The two deviation steps carry a ``TwoPointLaw`` as the expectation route's attack (a law claim the law search
    runs), not checker code in this module; a statistic it does not know is an error naming the parameter."""
    for prefix, stat in (("large-k deviation bound", "abs_log_gap"), ("E|Z_k − Z| ≤ √(Var W / k)", "abs_dev_mean")):
        assert _step(prefix).route[1]["attack"] == two_point_laws.TwoPointLaw(stat)
    with pytest.raises(DerivationError, match="statistic must be one of"):
        two_point_laws.TwoPointLaw("abs_gap")


def test_two_point_law_refutes_a_planted_false_claim_and_not_a_true_one():
    """|E log Z_k − log Z| ≤ 1/(10k) is false (a two-point law at τ = 1/2 has a gap ≈ 0.5/k); ≤ 2/τ is true
    (log Z_k, log Z ∈ [−1/τ, 1/τ])."""
    from dataclasses import replace

    st = _step("large-k deviation bound")
    false = replace(st, name="planted: gap ≤ 1/(10k)", rhs=1 / (10 * k))
    res = check_step(false, trials=2000)
    assert res.verdict is Verdict.REFUTED and res.counterexample
    true = replace(st, name="gap ≤ 2/τ", rhs=2 / tau)
    assert check_step(true, trials=2000).verdict is not Verdict.REFUTED
