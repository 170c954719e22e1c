"""B_τ of Lemma 1 and Prop. 4 / (18) on data (numerics.data_bounds through numerics.api): against an
independent mpmath (50 digits) route, the bound checked on random and adversarial data, planted-wrong
constants refuted, bad input refused with an error naming the argument."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import infonce_bounds as ib
from infonce_bounds.derivations.paper import prop4 as P4
from infonce_bounds.derivations.symbols import beta as BETA
from infonce_bounds.derivations.symbols import k as K
from infonce_bounds.derivations.symbols import tau as TAU
from infonce_bounds.numerics._generated import constants as G


@pytest.fixture(autouse=True)
def _fifty_digits():
    """50-digit mpmath references in this module only (a module-level mp.dps leaked into every later test)."""
    with mpmath.workdps(50):
        yield


def _unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def _pair(rng, n, k, d, eps):
    a, p, ng = _unit(rng.normal(size=(n, d))), _unit(rng.normal(size=(n, d))), _unit(rng.normal(size=(n, k, d)))
    move = lambda x: _unit(x + eps * rng.normal(size=x.shape))  # noqa: E731
    return (a, p, ng), (move(a), move(p), move(ng))


def _mp_b_tau(A, P, N, tau):
    r = 1 / min(mpmath.mpf(1), mpmath.mpf(tau))

    def sq(x):
        return mpmath.fsum(mpmath.mpf(float(v)) ** 2 for v in x)

    ta = mpmath.sqrt(mpmath.fsum(sq(x) for x in A) / len(A))
    tp = mpmath.sqrt(mpmath.fsum(sq(x) for x in P) / len(P))
    flat = N.reshape(-1, N.shape[-1])
    tn = (mpmath.fsum(sq(x) ** r for x in flat) / len(flat)) ** (1 / (2 * r))
    return ta + tp + tn


def _mp_loss(a, p, ng, tau):
    t = mpmath.mpf(tau)
    a = [mpmath.mpf(float(v)) for v in a]
    sp_ = mpmath.fsum(x * mpmath.mpf(float(y)) for x, y in zip(a, p))
    terms = [mpmath.exp((mpmath.fsum(x * mpmath.mpf(float(y)) for x, y in zip(a, row)) - sp_) / t) for row in ng]
    k = len(ng)
    return mpmath.log(1 / mpmath.mpf(k) + mpmath.fsum(terms) / k)


@pytest.mark.parametrize("tau", [1e-3, 0.07, 0.5, 1.0, 3.0, 100.0])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_b_tau_matches_mpmath_both_layouts(tau, dtype):
    rng = np.random.default_rng(1)
    n, k, d = 9, 5, 4
    A, P = rng.normal(size=(n, d)) * 3, rng.normal(size=(n, d))
    N = rng.normal(size=(n, k, d)) * np.exp(rng.normal(size=(n, k, 1)))  # spread norms: the power mean matters
    A, P, N = A.astype(dtype), P.astype(dtype), N.astype(dtype)
    ref = _mp_b_tau(A, P, N, tau)
    got = ib.b_tau(A, P, N, tau)
    assert got.value == pytest.approx(float(ref), rel=1e-13)
    assert got.value == pytest.approx(got.anchors + got.positives + got.negatives, rel=1e-15)
    pool = N.reshape(-1, d)
    idx = np.arange(n * k).reshape(n, k)
    assert ib.b_tau(A, P, pool, tau, index=idx).value == pytest.approx(float(ref), rel=1e-13)


def test_b_tau_huge_and_tiny_inputs_and_zero_rows():
    """(‖z‖²)^{1/τ} at τ = 1e-3 is e^{±10⁵}: far outside float64, the logs keep B_τ exact."""
    rng = np.random.default_rng(2)
    A, P, N = rng.normal(size=(4, 3)) * 1e150, rng.normal(size=(4, 3)) * 1e-200, rng.normal(size=(4, 2, 3)) * 1e100
    N[0, 0] = 0.0
    got = ib.b_tau(A, P, N, 1e-3)
    ref = _mp_b_tau(A, P, N, 1e-3)
    assert got.value == pytest.approx(float(ref), rel=1e-12)
    assert ib.b_tau(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 2, 3)), 0.5).value == 0.0


def test_b_tau_planted_wrong_exponent_differs():
    """B_τ with exponent 2 instead of 2/(1∧τ) (a planted error) is a different number on spread data."""
    rng = np.random.default_rng(3)
    N = rng.normal(size=(5, 4, 3)) * np.exp(2 * rng.normal(size=(5, 4, 1)))
    A = P = np.ones((5, 3))
    right = ib.b_tau(A, P, N, 0.1).negatives
    wrong = float(np.sqrt(np.mean(np.sum(N**2, axis=-1))))
    assert right > 1.5 * wrong


@pytest.mark.parametrize("tau", [1e-3, 0.1, 0.5, 2.0, 100.0])
def test_actual_difference_matches_mpmath(tau):
    rng = np.random.default_rng(4)
    phi, psi = _pair(rng, 4, 6, 5, 0.3)
    r = ib.prop4_bound(phi, psi, tau, 2.0 if tau >= 2 / 700 else 2 / tau)
    for i in range(4):
        ref = abs(_mp_loss(phi[0][i], phi[1][i], phi[2][i], tau) - _mp_loss(psi[0][i], psi[1][i], psi[2][i], tau))
        scale = float(abs(_mp_loss(phi[0][i], phi[1][i], phi[2][i], tau))) + 1
        assert abs(r.actual[i] - float(ref)) <= 1e-13 * scale


def test_prop4_rhs_matches_independent_numpy_route():
    rng = np.random.default_rng(5)
    phi, psi = _pair(rng, 7, 9, 4, 0.2)
    tau, beta = 0.3, 3.0
    r = ib.prop4_bound(phi, psi, tau, beta)
    da = np.linalg.norm(phi[0] - psi[0], axis=1)
    dp = np.linalg.norm(phi[1] - psi[1], axis=1)
    dn = np.linalg.norm(phi[2] - psi[2], axis=2)
    pm = np.mean(dn**beta, axis=1) ** (1 / beta)
    paper = 4 / tau * da + dp / tau + 3 / tau * math.exp(2 / (beta * tau)) * pm
    k = 9
    wk = k * math.exp(2 / tau) / (1 + k * math.exp(2 / tau))
    nk = k * math.exp(2 / tau) / (math.exp(2 / tau) + k)
    ours = 2 * wk / tau * da + wk / tau * dp + nk ** (1 / beta) / tau * pm
    linf = math.sqrt(6) / tau * np.sqrt(da**2 + dp**2 + dn.max(axis=1) ** 2)
    np.testing.assert_allclose(r.paper, paper, rtol=1e-12)
    np.testing.assert_allclose(r.ours, ours, rtol=1e-12)
    np.testing.assert_allclose(r.linf, linf, rtol=1e-12)
    assert r.rho_info == pytest.approx(math.sqrt(np.mean(r.actual**2)), rel=1e-14)
    rms = lambda x: math.sqrt(np.mean(x**2))  # noqa: E731
    assert r.rho_paper == pytest.approx(
        4 / tau * rms(da) + rms(dp) / tau + 3 / tau * math.exp(2 / (beta * tau)) * rms(pm), rel=1e-12
    )
    # pooled layout: the same tuples through a pool and an index
    n, k, d = phi[2].shape
    idx = np.arange(n * k).reshape(n, k)
    rp = ib.prop4_bound(
        (phi[0], phi[1], phi[2].reshape(-1, d)), (psi[0], psi[1], psi[2].reshape(-1, d)), tau, beta, index=idx
    )
    for f in ("actual", "paper", "ours", "linf"):
        np.testing.assert_allclose(getattr(rp, f), getattr(r, f), rtol=1e-13, atol=1e-15)


def test_generated_coefficients_are_the_ledger_ones():
    """The generated (overflow-free) forms equal prop4's paper_coefficients / our_coefficients."""
    for t, b, kk in ((0.5, 2.0, 64), (0.05, 1.0, 256), (3.0, 7.0, 1)):
        sub = {TAU: t, BETA: b, K: kk}
        pa, pp, pn = (float(sp.N(e.subs(sub), 30)) for e in P4.paper_coefficients())
        oa, op, on = (float(sp.N(e.subs(sub), 30)) for e in P4.our_coefficients())
        assert G.prop4_anchor_paper(t) == pytest.approx(pa, rel=1e-14)
        assert G.prop4_positive_paper(t) == pytest.approx(pp, rel=1e-14)
        assert math.exp(G.prop4_log_negatives_paper(b, t)) == pytest.approx(pn, rel=1e-13)
        assert G.prop4_anchor_ours(t, float(kk)) == pytest.approx(oa, rel=1e-14)
        assert G.prop4_positive_ours(t, float(kk)) == pytest.approx(op, rel=1e-14)
        assert math.exp(G.prop4_log_negatives_ours(b, t, float(kk))) == pytest.approx(on, rel=1e-13)
    # and stay finite where e^{2/τ} overflows
    assert G.prop4_anchor_ours(1e-3, 256.0) == pytest.approx(2e3, rel=1e-12)
    assert G.prop4_log_negatives_ours(1.0, 1e-3, 256.0) == pytest.approx(math.log(256 / 1e-3), rel=1e-12)


@pytest.mark.parametrize("tau", [1e-3, 0.05, 0.5, 5.0, 100.0])
@pytest.mark.parametrize("eps", [1e-4, 0.05, 1.0])
def test_rhs_bounds_the_actual_difference_on_random_data(tau, eps):
    rng = np.random.default_rng(int(tau * 1000) + int(eps * 1e4))
    phi, psi = _pair(rng, 60, 32, 6, eps)
    for beta in (1.0, 2.0, max(1.0, 2 / tau), math.inf):
        if 2 / (beta * tau) > 700:
            continue
        r = ib.prop4_bound(phi, psi, tau, beta)
        slack = 1e-12 * (1 + np.abs(r.actual))
        assert np.all(r.actual <= r.ours + slack)
        assert np.all(r.ours <= r.paper * (1 + 1e-12))
        assert np.all(r.actual <= r.linf + slack)
        assert r.rho_info <= r.rho_ours * (1 + 1e-12) <= r.rho_paper * (1 + 1e-10)
        assert r.rho_info <= r.rho_linf * (1 + 1e-12)


def _adversarial_negative(k, tau, h):
    """Anchor e1, positive −e1, negative 1 at e2 ⟂ the anchor moving toward it by h, the others at the anchor."""
    d = 3
    a = np.zeros((1, d))
    a[0, 0] = 1.0
    p = np.zeros((1, d))
    p[0, 0] = -1.0
    ng = np.zeros((1, k, d))
    ng[0, :, 0] = 1.0
    ng[0, 0] = [0.0, 1.0, 0.0]
    ng2 = ng.copy()
    ng2[0, 0] = _unit(np.array([h, 1.0, 0.0]))
    return (a, p, ng), (a.copy(), p.copy(), ng2)


def _adversarial_anchor(k, h):
    """Anchor ⟂ u, negatives at u, positive at −u; a small anchor move (prop4's CONSTANTS note: ours' 2W_k/τ
    is approached as k grows)."""
    d = 3
    u = np.array([0.0, 1.0, 0.0])
    a = np.array([[1.0, 0.0, 0.0]])
    a2 = _unit(np.array([[1.0, h, 0.0]]))
    p = -u[None]
    ng = np.tile(u, (1, k, 1)).reshape(1, k, d)
    return (a, p, ng), (a2, p.copy(), ng.copy())


def test_adversarial_anchor_move_is_nearly_attained_and_lowered_constant_fails():
    tau, k = 0.5, 256
    phi, psi = _adversarial_anchor(k, 1e-6)
    r = ib.prop4_bound(phi, psi, tau, 2.0)
    assert r.actual[0] <= r.ours[0]
    assert r.actual[0] / r.ours[0] > 0.99  # ours is nearly attained here
    # planted wrong: the anchor coefficient lowered by 10 % (a Prop. 4 rhs with a smaller constant) is violated
    lowered = 0.9 * G.prop4_anchor_ours(tau, float(k)) * r.delta_a + G.prop4_positive_ours(tau, float(k)) * r.delta_p
    assert r.actual[0] > lowered[0] + 0.0 * r.power_mean[0]


def test_adversarial_negative_move_and_lowered_negatives_coefficient_fails():
    tau, k = 0.5, 1
    phi, psi = _adversarial_negative(k, tau, 1e-6)
    r = ib.prop4_bound(phi, psi, tau, 1.0)
    assert r.actual[0] <= r.ours[0] <= r.paper[0]
    # d|Δℓ|/dh = σ(2)/τ here (s_1 − s⁺ = 1, k = 1) against N_1/τ = (e⁴/(e⁴ + 1))/τ: ratio σ(2)/N_1 ≈ 0.897
    assert r.actual[0] / r.ours[0] > 0.89
    lowered = 0.5 * math.exp(G.prop4_log_negatives_ours(1.0, tau, float(k))) * r.power_mean
    assert r.actual[0] > lowered[0]  # halving ours' negatives' coefficient is refuted


def test_refuses_where_the_paper_rhs_is_not_a_float():
    rng = np.random.default_rng(6)
    phi, psi = _pair(rng, 3, 4, 3, 0.1)
    with pytest.raises(ValueError, match=r"exceeds the float64 range at tau = 0.001, beta = 1.0.*beta ≥"):
        ib.prop4_bound(phi, psi, 1e-3, 1.0)
    # the same τ with β = 2/τ is fine, and no NaN/inf anywhere
    r = ib.prop4_bound(phi, psi, 1e-3, 2e3)
    for f in ("actual", "paper", "ours", "linf"):
        assert np.all(np.isfinite(getattr(r, f)))


def test_float32_agrees_with_float64():
    rng = np.random.default_rng(7)
    phi, psi = _pair(rng, 20, 8, 5, 0.2)
    r64 = ib.prop4_bound(phi, psi, 0.2, 2.0)
    f32 = lambda t: tuple(_unit(x).astype(np.float32) for x in t)  # noqa: E731
    r32 = ib.prop4_bound(f32(phi), f32(psi), 0.2, 2.0)
    np.testing.assert_allclose(r32.ours, r64.ours, rtol=1e-5)
    np.testing.assert_allclose(r32.actual, r64.actual, atol=1e-4)


def _nan_at(x, *where):
    y = x.copy()
    y[where] = np.nan
    return y


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda a, p, n: ib.b_tau(a, p, n, 0.0), r"tau must be a finite real number > 0, got 0.0"),
        (lambda a, p, n: ib.b_tau(a, p, n[:, :, :2], 0.5), r"negatives must have embedding dimension"),
        (lambda a, p, n: ib.b_tau(a, p, np.where(n > 0, np.nan, n), 0.5), r"negatives must be finite"),
        (
            lambda a, p, n: ib.b_tau(a, p, n[0], 0.5, index=np.array([[0, 9]] * 3)),
            r"index entries must lie in \[0, 4\)",
        ),
        (lambda a, p, n: ib.prop4_bound((a, p, n), (a, p, n), 0.5, 0.5), r"beta must be a real number ≥ 1"),
        (lambda a, p, n: ib.prop4_bound((a, p), (a, p, n), 0.5, 1.0), r"phi must be a tuple"),
        (lambda a, p, n: ib.prop4_bound((a, p, n), (a, p, n[:, :2]), 0.5, 1.0), r"phi_prime negatives must have"),
        (lambda a, p, n: ib.prop4_bound((a * 2, p, n), (a, p, n), 0.5, 1.0), r"phi anchors must have unit rows"),
        (lambda a, p, n: ib.prop4_bound((a, p, n), (a, p, n), -1, 1.0), r"tau must be"),
        # the (n, k, d) rows are screened inside the kernel's pass: the error still names argument and row
        (
            lambda a, p, n: ib.prop4_bound((a, p, n), (a, p, n * 1.01), 0.5, 1.0),
            r"phi_prime negatives must have unit rows",
        ),
        (
            lambda a, p, n: ib.prop4_bound((a, p, _nan_at(n, 2, 1)), (a, p, n), 0.5, 1.0),
            r"phi negatives must be finite; row \(2, 1\)",
        ),
        (lambda a, p, n: ib.b_tau(a, p, _nan_at(n, 1, 3), 0.5), r"negatives must be finite; negatives\[1, 3, 0\]"),
        (lambda a, p, n: ib.b_tau(_nan_at(a, 2), p, n, 0.5), r"anchors must be finite; anchors\[2, 0\]"),
        (
            lambda a, p, n: ib.b_tau(a, p, _nan_at(n[0], 2), 0.5, index=np.zeros((3, 2), int)),
            r"negatives must be finite",
        ),
    ],
)
def test_bad_input_names_the_argument(call, match):
    rng = np.random.default_rng(8)
    a, p, n = _unit(rng.normal(size=(3, 4))), _unit(rng.normal(size=(3, 4))), _unit(rng.normal(size=(3, 4, 4)))
    with pytest.raises(ValueError, match=match):
        call(a, p, n)


# ----------------------------------------------------------------------------------------------
# digits: `infonce-bounds experiment prop4` (B_τ of the raw inputs, Prop. 4 between two checkpoints)
# ----------------------------------------------------------------------------------------------


def test_digits_prop4_experiment_quick(tmp_path):
    import json

    pytest.importorskip("sklearn")
    from infonce_bounds.numerics.cli import main

    assert main(["experiment", "prop4", "--quick", "--out", str(tmp_path), "--workers", "1"]) == 0
    rec = json.loads((tmp_path / "prop4.json").read_text())
    assert (tmp_path / "prop4.png").exists()
    b = rec["b_tau_raw"]
    assert b["value"] == pytest.approx(b["anchors"] + b["positives"] + b["negatives"], rel=1e-12)
    assert 0 < rec["b_tau_centred"]["value"] < b["value"]  # centring shrinks the norms of these images
    assert rec["checkpoints"]["distance_W"] > 0
    for val in rec["per_beta"].values():
        for route in ("paper", "ours", "linf"):
            assert val["holds"][route]
            t = val["tightness"][route]
            assert t["tuples"] > 0 and 1.0 <= t["min"] <= t["median"] <= t["max"]
        rho = val["rho"]
        assert rho["info"] <= rho["ours"] <= rho["paper"] and rho["info"] <= rho["linf"]
    assert "B_τ" in rec["note"] and "median" in rec["note"]


def test_digits_tightness_summary_can_fail():
    """The tightness summary reports a violated bound as a ratio below 1 (a bound that is too small)."""
    from infonce_bounds.numerics.experiments.prop4 import tightness

    t = tightness(np.array([0.5, 2.0, 4.0]), np.array([1.0, 1.0, 1.0]))
    assert t["min"] == 0.5 and t["median"] == 2.0 and t["max"] == 4.0
    assert tightness(np.ones(2), np.zeros(2))["tuples"] == 0


def test_vectorised_log_matches_numpy_and_a_wrong_one_fails():
    from infonce_bounds.numerics.data_bounds import log_normal

    rng = np.random.default_rng(9)
    x = np.concatenate([np.exp(rng.uniform(-660, 690, 20000)), [1.0, 2.0, 0.5, math.sqrt(2), 1e-289, 9e299]])
    out = np.empty_like(x)
    log_normal(x, out, np.empty(x.size, dtype=np.int64))
    err_ulp = np.abs(out - np.log(x)) / np.spacing(np.abs(np.log(x)) + 1e-300)
    assert err_ulp.max() <= 4
    assert np.abs((out * (1 + 1e-13)) - np.log(x)).max() / np.spacing(700.0) > 4  # the check resolves 1e-13


@pytest.mark.parametrize("beta", [1.0, 2.0, 3.0, 4.0, 40.0, 128.0, 130.0, math.inf])
def test_power_mean_over_a_wide_range_of_distances_matches_mpmath(beta):
    """M_β = ((1/k) Σ_j Δ_j^β)^{1/β} with Δ_j from 1e-150 to 2, one Δ_j = 0: the binary-power route (β/2 an integer
    ≤ 64: β = 2, 4, 40, 128) and the logarithm route (β = 1, 3, 130, ∞) against 50 digits from the same floats."""
    k = 12
    ang = np.array([0.0, 1e-150, 1e-40, 1e-8, 1e-3, 0.01, 0.1, 0.3, 0.7, 1.5, 2.5, 3.1])
    base = np.linspace(0.1, 6.0, k)
    ng = np.stack([np.cos(base), np.sin(base)], axis=-1)[None]
    ng2 = np.stack([np.cos(base + ang), np.sin(base + ang)], axis=-1)[None]
    a, p = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    r = ib.prop4_bound((a, p, ng), (a, p, ng2), 0.5, beta)
    dist = [
        mpmath.sqrt(mpmath.fsum((mpmath.mpf(x) - mpmath.mpf(y)) ** 2 for x, y in zip(u, v)))
        for u, v in zip(ng[0], ng2[0])
    ]
    if math.isinf(beta):
        ref = max(dist)
    else:
        b = mpmath.mpf(beta)
        ref = (mpmath.fsum(x**b for x in dist) / k) ** (1 / b)
    assert abs(r.power_mean[0] - float(ref)) <= 1e-13 * float(ref)
    assert r.max_neg[0] == pytest.approx(float(max(dist)), rel=1e-15)
    if not math.isinf(beta):  # the comparison can fail: M_{β+2} differs from M_β beyond the tolerance
        wrong = (mpmath.fsum(x ** (b + 2) for x in dist) / k) ** (1 / (b + 2))
        assert abs(r.power_mean[0] - float(wrong)) > 1e-13 * float(ref)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_power_routes_agree_on_random_tuples(dtype):
    """β = 4 (binary powers) against β = 4 + 1e-12 (logarithm route): the same M_β to 1e-11 relative."""
    rng = np.random.default_rng(11)
    phi, psi = _pair(rng, 30, 64, 8, 0.05)
    cast = lambda m: tuple(_unit(x).astype(dtype) for x in m)  # noqa: E731
    r1 = ib.prop4_bound(cast(phi), cast(psi), 0.5, 4.0)
    r2 = ib.prop4_bound(cast(phi), cast(psi), 0.5, 4.0 + 1e-12)
    np.testing.assert_allclose(r1.power_mean, r2.power_mean, rtol=1e-11)
    np.testing.assert_allclose(r1.max_neg, r2.max_neg, rtol=1e-15)


def test_prop4_bound_repr_is_short():
    """Issue 28: the repr of a Prop4Bound printed every array (about 600 lines at n = 500); now one line with the
    headline numbers and each array's shape and range, at any n."""
    rng = np.random.default_rng(3)
    for n in (5, 20_000):
        phi, phi2 = _pair(rng, n, 4, 3, 0.1)
        r = ib.prop4_bound(phi, phi2, 0.5, 2.0)
        text = repr(r)
        assert text.count("\n") == 0 and len(text) < 1000, text
        assert f"shape=({n},)" in text and f"rho_info={r.rho_info:.6g}" in text and "rho_ours=" in text
        assert "Prop4Bound(" in text and "tau=0.5" in text
    g = ib.infonce_gradient(*phi, 0.5)
    assert g.negatives.shape == phi[2].shape and len(repr(g)) < 600  # the gradients' results alike
