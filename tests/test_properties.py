"""Metamorphic properties of the kernels: shift invariance of Λ, permutation of negatives,
the γ = 1/τ and γ → ∞ ends of the continuity factor, layouts agreeing on matched data, and the
exact relations ℓ − ℓ̃ and ℓ = ℓ_std − log k of derivations.loss (ℓ the paper's (14), ℓ̃ the DCL loss)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from infonce_bounds import numerics


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


@pytest.fixture
def data(rng):
    n, k, d = 6, 9, 4
    return unit(rng.standard_normal((n, d))), unit(rng.standard_normal((n, d))), unit(rng.standard_normal((n, k, d)))


@pytest.mark.parametrize("b", (0.5, 30.0, 1000.0))
def test_log_mean_exp_shift_invariance(b, rng):
    z = rng.uniform(-1, 1, (4, 8))
    shift = 0.375  # exact binary fraction: z + shift is exact
    lhs = numerics.log_mean_exp(z + shift, [b])[:, 0]
    rhs = numerics.log_mean_exp(z, [b])[:, 0] + b * shift
    np.testing.assert_allclose(lhs, rhs, rtol=0, atol=1e-13 * max(1.0, b))


def test_log_mean_exp_of_constant_row(rng):
    z = np.full((2, 5), -0.25)
    np.testing.assert_allclose(numerics.log_mean_exp(z, [3.0, 400.0]), [[-0.75, -100.0]] * 2, rtol=1e-15)


@pytest.mark.parametrize("variant", ("dcl", "standard", "infonce"))
def test_permuting_negatives_leaves_loss_unchanged(variant, data, rng):
    a, p, n = data
    perm = rng.permutation(n.shape[1])
    np.testing.assert_allclose(
        numerics.infonce_loss(a, p, n[:, perm], 0.05, variant),
        numerics.infonce_loss(a, p, n, 0.05, variant),
        rtol=1e-14,
        atol=1e-14 / 0.05,
    )
    w = numerics.softmax_weights(a, n, 0.05)
    np.testing.assert_allclose(numerics.softmax_weights(a, n[:, perm], 0.05), w[:, perm], rtol=1e-13)


@pytest.mark.parametrize("tau", (1e-3, 0.1, 10.0))
def test_infonce_minus_dcl_is_the_exact_offset(tau, data):
    """ℓ − ℓ̃ = ℓ_std − log k − ℓ̃ = log(1 + e^{s⁺/τ}/(k Z_k)) (derivations.loss), Z_k = mean_j e^{s_j/τ}."""
    a, p, n = data
    k = n.shape[1]
    s_pos, s_neg = numerics.similarities(a, p, n)
    offset = np.log1p(np.exp(s_pos / tau - numerics.log_mean_exp(s_neg, [1 / tau])[:, 0]) / k)
    lhs = numerics.infonce_loss(a, p, n, tau, "standard") - math.log(k) - numerics.infonce_loss(a, p, n, tau, "dcl")
    np.testing.assert_allclose(lhs, offset, rtol=0, atol=1e-12 / tau)
    ell = numerics.infonce_loss(a, p, n, tau, "infonce")
    np.testing.assert_allclose(ell - numerics.infonce_loss(a, p, n, tau, "dcl"), offset, rtol=0, atol=1e-12 / tau)
    assert np.all(offset >= np.log1p(math.exp(-2 / tau) / k) - 1e-15)


def test_dcl_loss_is_lambda_minus_positive(data):
    a, p, n = data
    tau = 0.2
    s_pos, s_neg = numerics.similarities(a, p, n)
    np.testing.assert_allclose(
        numerics.infonce_loss(a, p, n, tau),
        numerics.log_mean_exp(s_neg, [1 / tau])[:, 0] - s_pos / tau,
        rtol=0,
        atol=1e-13 / tau,
    )


def test_continuity_factor_ends(rng):
    """γ = 1/τ: the factor is exactly 1 (the max form); γ → ∞: it tends to max_j k w_j."""
    z = rng.uniform(-1, 1, (5, 7))
    tau = 0.3
    np.testing.assert_allclose(numerics.data_continuity_factor(z, 1 / tau, tau), 1.0, rtol=1e-14)
    big = numerics.data_continuity_factor(z, 1e5 / tau, tau)
    kw = z.shape[1] * np.exp(z / tau - numerics.log_mean_exp(z, [1 / tau]) - math.log(z.shape[1]))
    np.testing.assert_allclose(big, kw.max(axis=1), rtol=1e-4)
    mid = numerics.data_continuity_factor(z, 3 / tau, tau)
    assert np.all((mid >= 1 - 1e-14) & (mid <= kw.max(axis=1) + 1e-14))  # power means are monotone in r


@pytest.mark.parametrize("variant", ("dcl", "standard", "infonce"))
def test_in_batch_equals_per_anchor_and_pooled_on_matched_data(variant, rng):
    B, d, tau = 7, 5, 0.08
    a, p = unit(rng.standard_normal((B, d))), unit(rng.standard_normal((B, d)))
    index = np.array([[j for j in range(B) if j != i] for i in range(B)])
    negs = p[index]
    ib = numerics.infonce_loss_in_batch(a, p, tau, variant)
    np.testing.assert_allclose(numerics.infonce_loss(a, p, negs, tau, variant), ib, rtol=0, atol=1e-13 / tau)
    np.testing.assert_allclose(numerics.infonce_loss_pooled(a, p, p, index, tau, variant), ib, rtol=0, atol=1e-13 / tau)
    # symmetric = mean of rows and of the transposed problem (positives as anchors)
    cols = numerics.infonce_loss_in_batch(p, a, tau, variant)
    np.testing.assert_allclose(
        numerics.infonce_loss_in_batch(a, p, tau, variant, symmetric=True), 0.5 * (ib + cols), rtol=0, atol=1e-13 / tau
    )


def test_pooled_weights_equal_per_anchor_weights(rng):
    n, k, d, m = 5, 4, 3, 11
    a = unit(rng.standard_normal((n, d)))
    pool = unit(rng.standard_normal((m, d)))
    index = rng.integers(0, m, (n, k))
    np.testing.assert_array_equal(
        numerics.softmax_weights_pooled(a, pool, index, 0.1), numerics.softmax_weights(a, pool[index], 0.1)
    )


def test_cross_entropy_with_ideal_equal_to_learned_is_entropy(data):
    a, _, n = data
    w = numerics.softmax_weights(a, n, 0.5)
    h = numerics.search_cross_entropy(a, n, w, 0.5)
    np.testing.assert_allclose(h, -(w * np.log(w)).sum(axis=1), rtol=1e-12)
    # Gibbs: H(P̂, Q̂) ≥ H(P̂); for uniform P̂, H(P̂) = log k (equality only if Q̂ is uniform too)
    u = np.ones_like(w)
    h_u = numerics.search_cross_entropy(a, n, u, 0.5)
    np.testing.assert_allclose(h_u, -np.log(w).mean(axis=1), rtol=1e-12)
    assert np.all(h_u > math.log(w.shape[1]))


def test_loss_decreases_along_negative_gradient(data):
    a, p, n = data
    g = numerics.infonce_gradient(a, p, n, 0.2, "standard", normalize=True)
    step = 1e-4
    a2, p2, n2 = a - step * g.anchors, p - step * g.positives, n - step * g.negatives
    after = numerics.infonce_gradient(a2, p2, n2, 0.2, "standard", normalize=True).loss
    sq = sum(float(np.sum(x * x)) for x in g[1:])
    assert after < g.loss and after == pytest.approx(g.loss - step * sq, rel=1e-6)


def test_segment_factor_is_max_over_the_path_and_covers_the_ends(rng):
    v, w = rng.uniform(-1, 1, (3, 6)), rng.uniform(-1, 1, (3, 6))
    tau, gamma = 0.2, 12.0
    seg = numerics.data_continuity_factor_segment(v, w, gamma, tau, points=9)
    ends = np.maximum(numerics.data_continuity_factor(v, gamma, tau), numerics.data_continuity_factor(w, gamma, tau))
    assert np.all(seg >= ends - 1e-15)
    mid = numerics.data_continuity_factor(0.5 * (v + w), gamma, tau)
    assert np.all(seg >= mid - 1e-15)
    with pytest.raises(ValueError, match="points"):
        numerics.data_continuity_factor_segment(v, w, gamma, tau, points=1)


def test_import_numerics_does_not_load_numba():
    """The kernel API is exported lazily: the CLI and the derivations stay fast to import."""
    import subprocess
    import sys

    code = (
        "import sys, numerics; assert 'numba' not in sys.modules; numerics.infonce_loss; assert 'numba' in sys.modules"
    )
    root = __import__("pathlib").Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
