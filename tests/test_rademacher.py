"""Rademacher complexity bounds: ledger steps, planted wrong versions refuted, ℓ∞ vs ℓ2 Lipschitz constants and
their k-scaling (max-type ∝ √k, averaged flattens), the bound against a Monte-Carlo estimate on a concrete
Lipschitz class, and input validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from infonce_bounds.derivations import rademacher as RD
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import Domain, Step, Verdict
from infonce_bounds.derivations.symbols import L, Lam, R, Rad_vec, chi, k, n, p, tau

FAST = {"trials": 3000, "seed": 0, "box_budget": 200}


@pytest.fixture(scope="module")
def ders():
    return {d.name: d for d in RD.derivations()}


def _step(ders, prefix):
    for d in ders.values():
        for st in d.steps:
            if st.name.startswith(prefix):
                return st
    raise KeyError(prefix)


def _planted(step: Step, **changes) -> Step:
    fields = {
        f: getattr(step, f)
        for f in (
            "name",
            "lhs",
            "rhs",
            "kind",
            "domain",
            "provenance",
            "reference",
            "relation",
            "var",
            "point",
            "order",
            "adversarial",
            "note",
            "check",
            "links",
            "route",
            "unproved",
        )
    }
    fields.update(changes)
    fields["name"] = "planted: " + fields["name"]
    return Step(**fields)


def _small_k(step: Step, kmax: int = 4) -> Step:
    return _planted(step, domain=step.domain | Domain({k: (1, kmax)}))


# ----------------------------------------------------------------------------- the ledger


def test_catalogue_order_and_dependencies(ders):
    assert list(ders) == ["rademacher_chaining", "rademacher_max", "rademacher_avg"]
    assert "continuity" in ders["rademacher_avg"].depends_on


SLOW_STEPS = ("Jensen", "max-type bound", "averaged bound")  # interval subdivision / Monte-Carlo classes


def _check_every_step(ders, skip=()):
    for d in ders.values():
        for st in d.steps:
            if skip and st.name.startswith(skip):
                continue
            if any(isinstance(a, sp.Indexed) for a in st.lhs.atoms(sp.Indexed)):
                st = _small_k(st)
            res = check_step(st, **FAST)
            assert res.verdict in (Verdict.PROVED, Verdict.VERIFIED, Verdict.DEFINED), (st.name, res.evidence)
            if st.kind == "inequality":
                assert res.worst_ratio is not None and res.worst_ratio <= 1 + 1e-12


def test_fast_steps_pass(ders):
    _check_every_step(ders, skip=SLOW_STEPS)


@pytest.mark.slow
def test_every_step_passes(ders):
    _check_every_step(ders)


def test_maurer_constant_is_tight_for_one_coordinate(ders):
    """K = 1: F(u) = u/τ exactly, the contraction is an equality, ratio 1/√2 is the worst possible. The step is
    cited (Maurer 2016, route "classical theorem"); the exact enumeration is the attack beside the citation."""
    res = check_step(_step(ders, "vector contraction"), trials=20_000, seed=3)
    assert res.verdict is Verdict.PROVED and res.method.startswith("cited: Maurer (2016)")
    assert res.worst_ratio == pytest.approx(1 / math.sqrt(2), rel=1e-9)


def test_planted_maurer_constant_is_refuted(ders):
    st = _step(ders, "vector contraction")
    res = check_step(_planted(st, rhs=Lam * Rad_vec / 2), **FAST)
    assert res.verdict is Verdict.REFUTED and res.counterexample


def test_planted_complexity_bound_divided_by_200_is_refuted(ders):
    for name in ("max-type bound", "averaged bound"):
        st = _step(ders, name)
        res = check_step(_planted(st, rhs=st.rhs / 200), trials=100_000, seed=0)
        assert res.verdict is Verdict.REFUTED, (name, res.evidence)


def test_planted_scale_doubling_is_refuted(ders):
    st = _step(ders, "scale doubling")
    res = check_step(_planted(st, rhs=st.rhs / 2), **FAST)
    assert res.verdict is Verdict.REFUTED


def test_planted_jensen_constant_is_refuted(ders):
    st = _step(ders, "Jensen")
    res = check_step(_planted(st, rhs=sp.sqrt(sp.log(2 * (1 + chi)))), **FAST)
    assert res.verdict is Verdict.REFUTED


def test_planted_power_mean_is_refuted(ders):
    st = _step(ders, "power means, q ≤ 2")
    res = check_step(_small_k(_planted(st, rhs=st.rhs / sp.sqrt(k))), **FAST)
    assert res.verdict is Verdict.REFUTED


def test_planted_limit_is_refuted(ders):
    st = _step(ders, "k → ∞ at γ = 2/τ")
    res = check_step(_planted(st, rhs=st.rhs.subs(sp.exp(1 / tau), sp.exp(2 / tau))), **FAST)
    assert res.verdict is Verdict.REFUTED


def test_planted_wrong_sum_identity_is_refuted(ders):
    st = _step(ders, "Σ_{l≥1}")
    res = check_step(_planted(st, rhs=sp.log(2 * (1 + chi))), **FAST)
    assert res.verdict is Verdict.REFUTED


# ----------------------------------------------------------------------------- the chains (issue 29)

CHAINS = ("max-type bound", "averaged bound")


@pytest.mark.parametrize("name", CHAINS)
def test_bound_is_a_proved_chain_with_the_attack_beside_it(ders, name):
    res = check_step(_step(ders, name), trials=4000, seed=0)
    assert res.verdict is Verdict.PROVED and res.method.startswith("chain of 4 links"), res.method
    assert "Maurer (2016)" in res.method and "Bartlett & Mendelson (2002)" in res.method
    assert "attack beside the chain: Monte-Carlo" in res.evidence and res.trials >= 4


def _without_sqrt2(ders, name) -> sp.Expr:
    """The bound with √2 → 1 in front of the vector part: a constant too small for the final comparison."""
    st = _step(ders, name)
    return st.rhs.subs(sp.sqrt(2), 1)


@pytest.mark.parametrize("name", CHAINS)
def test_chain_with_a_too_small_constant_does_not_prove(ders, name):
    from infonce_bounds.derivations.checks import DEFAULTS
    from infonce_bounds.derivations.checks.chain import check_chain

    st = _step(ders, name)
    bad = _planted(st, rhs=_without_sqrt2(ders, name))
    assert bad.rhs != st.rhs
    assert check_chain(bad, {**DEFAULTS, **FAST}).verdict is Verdict.REFUTED  # the last join is not an identity
    assert check_step(bad, **FAST).verdict is not Verdict.PROVED


def test_chaining_bound_chain_with_half_the_constant_does_not_prove(ders):
    st = _step(ders, RD.CHAINING_BOUND)
    assert check_step(st, **FAST).verdict is Verdict.PROVED
    assert check_step(_planted(st, rhs=st.rhs / 2), **FAST).verdict is not Verdict.PROVED


def _with_discharge(st: Step, **discharge) -> Step:
    kind, hint = st.route
    return _planted(st, route=(kind, {**hint, "discharge": {**hint["discharge"], **discharge}}))


ERRATUM = (
    "prop5 / upper limit LR: 'combining (53) with the definition of Θ, ρ^info(φ_θ, φ_θ') ≤ LR': L‖θ − θ'‖ ≤ LR on Θ"
)


@pytest.mark.parametrize("name", [RD.VC_MAX, RD.VC_AVG])
def test_maurer_instance_with_an_undischarged_hypothesis_does_not_prove(ders, name):
    st = _step(ders, name)
    assert check_step(st, **FAST).verdict is Verdict.PROVED
    for how in (
        ("cites", (ERRATUM,), "a refuted step cannot discharge the Lipschitz hypothesis"),
        ("cites", ("continuity / no such step",), "a step the catalogue does not hold"),
    ):
        res = check_step(_with_discharge(st, lipschitz=how), **FAST)
        assert res.verdict is not Verdict.PROVED, (how, res.method)
        assert "not an instance" in res.method
    kind, hint = st.route
    dropped = _planted(st, route=(kind, {**hint, "discharge": {"class": hint["discharge"]["class"]}}))
    res = check_step(dropped, **FAST)
    assert res.verdict is not Verdict.PROVED and "hypotheses not discharged: ['lipschitz']" in res.method


def test_maurer_instance_without_sqrt2_does_not_prove(ders):
    st = _step(ders, RD.VC_MAX)
    assert check_step(_planted(st, rhs=Rad_vec / tau), **FAST).verdict is not Verdict.PROVED


def test_sum_of_classes_without_the_scale_does_not_prove(ders):
    st = _step(ders, RD.SUBADDITIVITY)
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.PROVED and res.worst_ratio <= 1 and set(res.attacked) >= {"n", "tau"}
    assert check_step(_planted(st, rhs=RD.Rad_pos + RD.Rad_F), **FAST).verdict is not Verdict.PROVED
    # the exact enumeration beside the citation refutes a bound far too small
    bad = check_step(_planted(st, rhs=(RD.Rad_pos / tau + RD.Rad_F) / 3), **FAST)
    assert bad.verdict is Verdict.REFUTED and bad.counterexample


def test_averaged_maurer_attack_draws_gamma_and_refutes_half_the_constant(ders):
    st = _step(ders, RD.VC_AVG)
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.PROVED and "gamma*tau" in res.attacked and res.worst_ratio <= 1
    bad = check_step(_planted(st, rhs=st.rhs / 2), **FAST)
    assert bad.verdict is Verdict.REFUTED and "gamma" in bad.counterexample


def test_jensen_over_all_levels_with_a_smaller_log_does_not_prove(ders):
    st = _step(ders, RD.JENSEN_ALL)
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.PROVED and res.worst_ratio <= 1 and "chi" in res.attacked
    bad = _planted(st, rhs=st.rhs.subs(sp.log(4 * chi + 4), sp.log(2 * chi + 2)))
    assert bad.rhs != st.rhs and check_step(bad, **FAST).verdict is not Verdict.PROVED
    # the partial sums beside the citation refute a constant far too small
    assert check_step(_planted(st, rhs=st.rhs / 3), **FAST).verdict is Verdict.REFUTED


# ----------------------------------------------------------------------------- k-scaling (independent numbers)


def _ref_bracket(tau_, k_, kind):
    """The bracket [1/τ + √2 L₂ √k] computed from the formulas in the docstrings, by hand."""
    mk = k_ * math.exp(2 / tau_) / (math.exp(2 / tau_) + k_ - 1)
    if kind == "max":
        return (1 + math.sqrt(2) * math.sqrt(k_)) / tau_
    return (1 + math.sqrt(2) * math.sqrt(mk)) / tau_


@pytest.mark.parametrize("tau_", [sp.Rational(1, 10), sp.Rational(1, 2), sp.Integer(1), sp.Integer(10)])
def test_k_scaling_max_grows_avg_flattens(tau_):
    n_, L_, p_, R_ = 10_000, sp.Integer(1), 1000, sp.Integer(1)
    base = 6 * 1 * math.sqrt(math.log(4 * (1 + 4))) * math.sqrt(p_ / n_)  # c₀ = 1, χ = 4LR = 4
    vals = {}
    for k_ in (1, 64, 4096):
        cm = float(RD.complexity_max(tau_, k_, n_, L_, p_, R_))
        ca = float(RD.complexity_avg(tau_, 2 / tau_, k_, n_, L_, p_, R_))
        assert cm == pytest.approx(base * _ref_bracket(float(tau_), k_, "max"), rel=1e-12)
        assert ca == pytest.approx(base * _ref_bracket(float(tau_), k_, "avg"), rel=1e-12)
        assert ca <= cm * (1 + 1e-15)
        assert float(RD.complexity_direct(tau_, n_, L_, p_, R_)) <= ca
        vals[k_] = (cm, ca)
    # max-type: ×(1 + √2·64)/(1 + √2·8) from 64 to 4096; averaged: bounded by its k → ∞ limit
    assert vals[4096][0] / vals[64][0] == pytest.approx((1 + math.sqrt(2) * 64) / (1 + math.sqrt(2) * 8), rel=1e-12)
    lim = base * (1 + math.sqrt(2) * math.exp(1 / float(tau_))) / float(tau_)
    assert vals[1][1] <= vals[64][1] <= vals[4096][1] <= lim * (1 + 1e-12)


def test_avg_limit_and_choice_of_gamma():
    tau_, n_, p_ = sp.Rational(1, 2), 100, 10
    lim = RD.k_limits()["complexity_avg (gamma = 2/tau)"].subs({L: 1, R: 1, n: n_, p: p_, tau: tau_})
    big = RD.complexity_avg(tau_, 2 / tau_, 10**8, n_, 1, p_, 1)
    assert float(big) == pytest.approx(float(lim), rel=1e-5)
    # γ = 2/τ is the best γ of the family for the complexity bound (continuity.optimal_gamma)
    at_opt = float(RD.complexity_avg(tau_, 4, 64, n_, 1, p_, 1))
    for b_ in (2, sp.Rational(5, 2), 3, 6, 40):
        assert float(RD.complexity_avg(tau_, b_, 64, n_, 1, p_, 1)) >= at_opt * (1 - 1e-15)


def test_l2_lipschitz_constants_against_gradients(rng):
    """max-type ℓ2 constant 1/τ and averaged (1/τ)√(M_k/k) bound ‖∇F‖₂ = ‖w‖₂/τ on random points of [−1, 1]^k."""
    for k_ in (1, 3, 50):
        for tau_ in (0.05, 0.5, 5.0):
            zz = rng.uniform(-1, 1, (500, k_))
            zz[0] = -1
            zz[0, 0] = 1
            w = np.exp((zz - zz.max(axis=1, keepdims=True)) / tau_)
            w /= w.sum(axis=1, keepdims=True)
            grad = np.sqrt((w**2).sum(axis=1)) / tau_
            avg = float(RD._cont.l2_lipschitz(2 / sp.nsimplify(tau_), sp.nsimplify(tau_), k_))
            assert np.all(grad <= avg * (1 + 1e-12))
            assert avg <= 1 / tau_ * (1 + 1e-15)


def test_similarity_lipschitz_on_the_sphere(rng):
    a, b, a2, b2 = (rng.normal(size=(2000, 7)) for _ in range(4))
    a, b, a2, b2 = (u / np.linalg.norm(u, axis=1, keepdims=True) for u in (a, b, a2, b2))
    a2 = a + 0.05 * (a2 - a)
    a2 /= np.linalg.norm(a2, axis=1, keepdims=True)
    lhs = np.abs((a * b).sum(1) - (a2 * b2).sum(1))
    rhs = np.linalg.norm(a - a2, axis=1) + np.linalg.norm(b - b2, axis=1)
    assert np.all(lhs <= rhs + 1e-12)


def test_bound_dominates_monte_carlo_estimate(rng):
    """A 1-parameter class on S¹: φ_θ(y) = (cos(θ a_y + b_y), sin(θ a_y + b_y)), |a_y| ≤ 1 (L = 1), |θ| ≤ R.

    E_ε sup_θ (1/n) Σ ε_i ℓ_θ(tuple_i), estimated with a θ grid and 300 sign draws, is below both bounds.
    """
    n_, k_, tau_, R_ = 40, 8, 0.5, 2.0
    ax, bx = rng.uniform(-1, 1, n_), rng.uniform(-np.pi, np.pi, n_)
    ap, bp = rng.uniform(-1, 1, n_), rng.uniform(-np.pi, np.pi, n_)
    an, bn = rng.uniform(-1, 1, (n_, k_)), rng.uniform(-np.pi, np.pi, (n_, k_))
    thetas = np.linspace(-R_, R_, 801)[:, None]
    s_pos = np.cos(thetas * (ax - ap) + (bx - bp))  # (T, n)
    s_neg = np.cos(thetas[:, :, None] * (ax[:, None] - an) + (bx[:, None] - bn))  # (T, n, k)
    m = s_neg.max(axis=2, keepdims=True)
    F = m[..., 0] / tau_ + np.log(np.mean(np.exp((s_neg - m) / tau_), axis=2))
    loss = -s_pos / tau_ + F  # (T, n)
    eps = rng.choice([-1.0, 1.0], size=(300, n_))
    est = np.mean(np.max(eps @ loss.T / n_, axis=1))
    bmax = float(RD.complexity_max(sp.Rational(1, 2), k_, n_, 1, 1, 2))
    bavg = float(RD.complexity_avg(sp.Rational(1, 2), 4, k_, n_, 1, 1, 2))
    bdir = float(RD.complexity_direct(sp.Rational(1, 2), n_, 1, 1, 2))
    assert 0 < est <= min(bmax, bavg, bdir)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: RD.complexity_max(-1, 4, 10, 1, 1, 1), "tau"),
        (lambda: RD.complexity_max(1, 0, 10, 1, 1, 1), "k"),
        (lambda: RD.complexity_max(1, 4, 0, 1, 1, 1), "n"),
        (lambda: RD.complexity_max(1, 4, 10, -1, 1, 1), "L"),
        (lambda: RD.complexity_max(1, 4, 10, 1, 0, 1), "p"),
        (lambda: RD.complexity_max(1, 4, 10, 1, 1, -2), "R"),
        (lambda: RD.complexity_avg(1, 0.5, 4, 10, 1, 1, 1), "gamma"),
        (lambda: RD.complexity_avg(1, 2, 2.5, 10, 1, 1, 1), "k"),
    ],
)
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} "):
        call()


def test_zero_lipschitz_gives_zero_complexity():
    assert RD.complexity_max(1, 4, 10, 0, 3, 1) == 0
    assert RD.complexity_avg(1, 2, 4, 10, 1, 3, 0) == 0


@pytest.mark.parametrize("seed", [0, 1, 2**31 + 7, 987654321])
def test_rademacher_signs_are_random_choice_bit_for_bit(seed):
    """``class_check``'s sign draws (numpy from the generator's words) are ``random.Random(seed).choice`` calls."""
    import random

    for m in (1, 2, 17, 3200):
        r_ = random.Random(seed)
        ref = np.array([r_.choice((-1.0, 1.0)) for _ in range(m)])
        assert np.array_equal(RD.rademacher_signs(seed, m), ref)
