"""Numba kernels against a 50-digit mpmath reference computed from the same (float64 or float32)
inputs, on random and adversarial embeddings, τ from 1e-3 to 1e2; float32 path; threads on/off.

Tolerances (issue 4): |error| ≤ 1e-12 · max(|value|, 1/τ) in float64 and ≤ 1e-5 · max(|value|, 1/τ)
for float32 inputs; the standard loss keeps *relative* error ≤ 1e-12 when the positive dominates.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from infonce_bounds import numerics
from infonce_bounds.numerics import _jit

TAUS = (1e-3, 1e-2, 0.1, 1.0, 1e2)


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def mp_sims(a, p, negs):
    """s⁺ and s_j in 50-digit arithmetic from the exact binary values of the inputs."""

    def mdot(x, y):
        return mpmath.fsum(mpmath.mpf(float(u)) * mpmath.mpf(float(v)) for u, v in zip(x, y))

    return mdot(a, p), [mdot(a, y) for y in negs]


def mp_losses(a, p, negs, tau):
    with mpmath.workdps(50):
        t = mpmath.mpf(tau)
        sp, sn = mp_sims(a, p, negs)
        tot = mpmath.fsum(mpmath.exp((s - sp) / t) for s in sn)
        return mpmath.log(tot) - mpmath.log(len(sn)), mpmath.log1p(tot)


def mp_weights(a, negs, tau):
    with mpmath.workdps(50):
        t = mpmath.mpf(tau)
        _, sn = mp_sims(a, a, negs)
        e = [mpmath.exp(s / t) for s in sn]
        tot = mpmath.fsum(e)
        return [x / tot for x in e], sn


def case(kind, rng, n=4, k=6, d=5):
    """Embeddings for one named input family (unit rows, float64)."""
    a = unit(rng.standard_normal((n, d)))
    p = unit(rng.standard_normal((n, d)))
    negs = unit(rng.standard_normal((n, k, d)))
    if kind == "near-duplicate negatives":
        negs = unit(a[:, None, :] + 1e-9 * rng.standard_normal((n, k, d)))
    elif kind == "all similarities equal":
        negs = np.repeat(p[:, None, :], k, axis=1)
    elif kind == "one dominant negative":
        negs[:, 0, :] = a
    elif kind == "positive dominates":
        p = a.copy()
        ortho = unit(rng.standard_normal((n, k, d)))
        ortho -= np.einsum("nkd,nd->nk", ortho, a)[..., None] * a[:, None, :]
        ortho = unit(ortho)
        negs = unit(0.5 * a[:, None, :] + math.sqrt(0.75) * ortho)  # s_j = 0.5
    elif kind == "antipodal positive":
        p = -a
        negs[:, 0, :] = a
    return a, p, negs


KINDS = (
    "random",
    "near-duplicate negatives",
    "all similarities equal",
    "one dominant negative",
    "positive dominates",
    "antipodal positive",
)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("tau", TAUS)
def test_losses_float64_against_mpmath(kind, tau, rng):
    a, p, negs = case(kind, rng)
    avg = numerics.infonce_loss(a, p, negs, tau, "dcl")
    std = numerics.infonce_loss(a, p, negs, tau, "standard")
    ell = numerics.infonce_loss(a, p, negs, tau, "infonce")
    assert np.all(np.isfinite(avg)) and np.all(np.isfinite(std)) and np.all(np.isfinite(ell))
    for i in range(a.shape[0]):
        ref_avg, ref_std = mp_losses(a[i], p[i], negs[i], tau)
        ref_ell = _mp_variant(a[i], p[i], negs[i], tau, 2)  # the paper's (14): standard − log k
        for got, ref in ((avg[i], ref_avg), (std[i], ref_std), (ell[i], ref_ell)):
            scale = max(abs(float(ref)), 1 / tau)
            assert abs(got - float(ref)) <= 1e-12 * scale, (kind, tau, got, ref)
        if float(ref_std) > 0:  # the standard loss is positive: relative accuracy wherever it is representable
            assert abs(std[i] / float(ref_std) - 1) <= 1e-12, (kind, tau, std[i], ref_std)


def test_standard_loss_tiny_keeps_relative_accuracy(rng):
    """τ = 0.01, s⁺ = 1, s_j = 0.5: ℓ ≈ k e^{−50} ~ 1e-21; naive log-sum-exp routes return 0."""
    a, p, negs = case("positive dominates", rng)
    std = numerics.infonce_loss(a, p, negs, 0.01, "standard")
    for i in range(a.shape[0]):
        _, ref = mp_losses(a[i], p[i], negs[i], 0.01)
        assert 1e-23 < float(ref) < 1e-19
        assert abs(std[i] / float(ref) - 1) <= 1e-12
    # the naive route (what numpy/scipy/PyTorch users write) loses it entirely: planted comparison
    from scipy.special import logsumexp

    s_pos = np.einsum("nd,nd->n", a, p)
    s_neg = np.einsum("nd,nkd->nk", a, negs)
    naive = logsumexp(np.c_[s_pos, s_neg] / 0.01, axis=1) - s_pos / 0.01
    assert np.all(np.abs(naive / std - 1) > 0.5)


@pytest.mark.parametrize("kind", ("random", "one dominant negative", "positive dominates"))
@pytest.mark.parametrize("tau", (1e-3, 0.1, 1e2))
def test_losses_float32_inputs(kind, tau, rng):
    a, p, negs = (x.astype(np.float32) for x in case(kind, rng))
    for variant, pick in (("dcl", 0), ("standard", 1), ("infonce", 2)):
        got = numerics.infonce_loss(a, p, negs, tau, variant)
        assert got.dtype == np.float64
        for i in range(a.shape[0]):
            ref = float(_mp_variant(a[i], p[i], negs[i], tau, pick))
            assert abs(got[i] - ref) <= 1e-5 * max(abs(ref), 1 / tau)


@pytest.mark.parametrize("tau", (1e-3, 0.1, 1e2))
def test_softmax_weights_and_cross_entropy(tau, rng):
    a, _, negs = case("one dominant negative", rng)
    w = numerics.softmax_weights(a, negs, tau)
    ideal = rng.uniform(0, 1, w.shape)
    ideal[:, 1] = 0.0
    h = numerics.search_cross_entropy(a, negs, ideal, tau)
    for i in range(a.shape[0]):
        with mpmath.workdps(50):
            ref, sn = mp_weights(a[i], negs[i], tau)
            for j in range(w.shape[1]):
                assert abs(w[i, j] - float(ref[j])) <= 1e-12 * max(1, 1 / tau) * float(ref[j]) + 1e-300
            pw = [mpmath.mpf(float(x)) for x in ideal[i]]
            pw = [x / mpmath.fsum(pw) for x in pw]
            href = -mpmath.fsum(q * mpmath.log(r) for q, r in zip(pw, ref) if q != 0)
            assert abs(h[i] - float(href)) <= 1e-12 * max(abs(float(href)), 1 / tau)
    assert np.allclose(w.sum(axis=1), 1.0, atol=1e-14, rtol=0)


@pytest.mark.parametrize("b", (1e-2, 1.0, 1e3))
def test_log_mean_exp_against_mpmath(b, rng):
    z = rng.uniform(-1, 1, (3, 7))
    z[0] = 0.25  # all equal
    z[1, 0] = 1.0  # one dominant
    got = numerics.log_mean_exp(z, [b, 2 * b])
    with mpmath.workdps(50):
        for i in range(z.shape[0]):
            for col, bb in enumerate((b, 2 * b)):
                ref = mpmath.log(mpmath.fsum(mpmath.exp(bb * mpmath.mpf(float(x))) for x in z[i]) / z.shape[1])
                assert abs(got[i, col] - float(ref)) <= 1e-12 * max(abs(float(ref)), bb)


@pytest.mark.parametrize("tau, gamma_times_tau", [(1e-3, 1.5), (0.1, 2.0), (1.0, 10.0), (1e2, 1.0)])
def test_data_continuity_factor_against_mpmath(tau, gamma_times_tau, rng):
    z = rng.uniform(-1, 1, (3, 6))
    gamma = gamma_times_tau / tau
    got = numerics.data_continuity_factor(z, gamma, tau)
    with mpmath.workdps(50):
        for i in range(z.shape[0]):
            zs = [mpmath.mpf(float(x)) for x in z[i]]
            e = [mpmath.exp(x / mpmath.mpf(tau)) for x in zs]
            w = [x / mpmath.fsum(e) for x in e]
            r = mpmath.mpf(gamma) * mpmath.mpf(tau)
            ref = (mpmath.fsum((len(zs) * x) ** r for x in w) / len(zs)) ** (1 / r)
            assert abs(got[i] / float(ref) - 1) <= 1e-12 * max(1, 1 / tau)


@pytest.mark.parametrize("tau", (0.05, 0.5, 5.0))
def test_data_continuity_factor_paper_beta(tau, rng):
    """beta= (the paper's β ≥ 1) gives the factor at γ = β/(τ(β − 1)), whose power mean exponent q is β;
    β = 1 gives the γ → ∞ limit max_j k w_j (checked against mpmath)."""
    z = rng.uniform(-1, 1, (4, 5))
    for b in (1.5, 2.0, 7.0):
        np.testing.assert_allclose(
            numerics.data_continuity_factor(z, tau=tau, beta=b),
            numerics.data_continuity_factor(z, b / (tau * (b - 1)), tau),
            rtol=1e-15,
        )
    got = numerics.data_continuity_factor(z, tau=tau, beta=1)
    with mpmath.workdps(50):
        for i in range(z.shape[0]):
            e = [mpmath.exp(mpmath.mpf(float(x)) / mpmath.mpf(tau)) for x in z[i]]
            ref = max(e) * len(e) / mpmath.fsum(e)
            assert abs(got[i] / float(ref) - 1) <= 1e-12


def test_mean_risk_and_standard_error(rng):
    a, p, negs = case("random", rng, n=40)
    losses = numerics.infonce_loss(a, p, negs, 0.2)
    r = numerics.infonce_risk(a, p, negs, 0.2)
    assert r.n == 40
    assert r.mean == pytest.approx(float(mpmath.fsum(losses) / 40), rel=1e-15)
    assert r.stderr == pytest.approx(float(np.std(losses, ddof=1) / math.sqrt(40)), rel=1e-12)


def _fd_check(fun, arrays, grads, rng, h=1e-6, picks=6):
    """Central finite differences at a few random coordinates of each array."""
    for which, (x, g) in enumerate(zip(arrays, grads)):
        for _ in range(picks):
            idx = tuple(int(rng.integers(s)) for s in x.shape)
            xp = [y.copy() for y in arrays]
            xm = [y.copy() for y in arrays]
            xp[which][idx] += h
            xm[which][idx] -= h
            fd = (fun(*xp) - fun(*xm)) / (2 * h)
            assert abs(g[idx] - fd) <= 1e-6 * max(1.0, abs(fd)), (which, idx, g[idx], fd)


def _close(c, k, variant):
    """The three closing formulas in numpy: ℓ̃ = c − log k, ℓ_std = log(1 + e^c), ℓ (14) = ℓ_std − log k."""
    if variant == "dcl":
        return c - math.log(k)
    return np.logaddexp(0, c) - (math.log(k) if variant == "infonce" else 0.0)


def _mp_variant(a, p, negs, tau, pick):
    """mpmath reference of variant ``pick``: 0 DCL, 1 standard, 2 the paper's ℓ (14)."""
    ref_avg, ref_std = mp_losses(a, p, negs, tau)
    with mpmath.workdps(50):
        return (ref_avg, ref_std, ref_std - mpmath.log(len(negs)))[pick]


def test_deprecated_variant_name_warns_and_equals_dcl(rng):
    a, p, negs = case("random", rng)
    with pytest.warns(DeprecationWarning, match="'dcl'"):
        old = numerics.infonce_loss(a, p, negs, 0.1, "averaged")
    assert np.array_equal(old, numerics.infonce_loss(a, p, negs, 0.1, "dcl"))
    with pytest.warns(DeprecationWarning):
        old_b = numerics.infonce_loss_in_batch(a, p, 0.1, "averaged")
    assert np.array_equal(old_b, numerics.infonce_loss_in_batch(a, p, 0.1, "dcl"))


@pytest.mark.parametrize("variant", ("dcl", "standard", "infonce"))
def test_gradient_per_anchor_and_pooled_against_finite_differences(variant, rng):
    a, p, negs = case("random", rng, n=3, k=4, d=3)
    tau = 0.5
    g = numerics.infonce_gradient(a, p, negs, tau, variant)
    # plain dot products: evaluate the loss off the sphere through the pooled kernel's math in numpy
    from scipy.special import logsumexp

    def mean_loss(a_, p_, n_):
        sp_ = np.einsum("nd,nd->n", a_, p_)
        sn_ = np.einsum("nd,nkd->nk", a_, n_)
        c = logsumexp((sn_ - sp_[:, None]) / tau, axis=1)
        return float(np.mean(_close(c, n_.shape[1], variant)))

    assert g.loss == pytest.approx(mean_loss(a, p, negs), rel=1e-13)
    _fd_check(mean_loss, [a, p, negs], [g.anchors, g.positives, g.negatives], rng)
    # pooled layout: the same numbers when the pool holds the negatives once each
    pool = negs.reshape(-1, negs.shape[-1])
    index = np.arange(pool.shape[0]).reshape(negs.shape[:2])
    gp = numerics.infonce_gradient_pooled(a, p, pool, index, tau, variant)
    assert gp.loss == pytest.approx(g.loss, rel=1e-14)
    np.testing.assert_allclose(gp.pool.reshape(negs.shape), g.negatives, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(gp.anchors, g.anchors, rtol=1e-12, atol=1e-15)


def test_gradient_through_normalisation(rng):
    a, p, negs = (x * 1.7 for x in case("random", rng, n=2, k=3, d=3))
    g = numerics.infonce_gradient(a, p, negs, 0.3, "standard", normalize=True)

    def mean_loss(a_, p_, n_):
        return float(np.mean(numerics.infonce_loss(a_, p_, n_, 0.3, "standard", normalize=True)))

    _fd_check(mean_loss, [a, p, negs], [g.anchors, g.positives, g.negatives], rng)


@pytest.mark.parametrize("symmetric", (False, True))
@pytest.mark.parametrize("variant", ("dcl", "standard", "infonce"))
def test_in_batch_gradient_against_finite_differences(variant, symmetric, rng):
    B, d, tau = 4, 3, 0.4
    a, p = unit(rng.standard_normal((B, d))), unit(rng.standard_normal((B, d)))
    g = numerics.infonce_gradient_in_batch(a, p, tau, variant, symmetric)

    def mean_loss(a_, p_):
        S = a_ @ p_.T / tau
        from scipy.special import logsumexp

        def rows(M):
            off = M - np.diag(M)[:, None]
            np.fill_diagonal(off, -np.inf)
            c = logsumexp(off, axis=1)
            return _close(c, B - 1, variant)

        r = rows(S)
        return float(np.mean(0.5 * (r + rows(S.T)) if symmetric else r))

    assert g.loss == pytest.approx(mean_loss(a, p), rel=1e-13)
    assert g.loss == pytest.approx(
        float(np.mean(numerics.infonce_loss_in_batch(a, p, tau, variant, symmetric))), rel=1e-13
    )
    _fd_check(mean_loss, [a, p], [g.anchors, g.positives], rng)


@pytest.mark.parametrize("tau", (1e-3, 1e2))
def test_in_batch_against_mpmath(tau, rng):
    B, d = 5, 4
    a, p = unit(rng.standard_normal((B, d))), unit(rng.standard_normal((B, d)))
    p[0] = a[0]
    rows = numerics.infonce_loss_in_batch(a, p, tau, "standard")
    sym = numerics.infonce_loss_in_batch(a, p, tau, "standard", symmetric=True)
    with mpmath.workdps(50):
        for i in range(B):
            _, ref_row = mp_losses(a[i], p[i], [p[j] for j in range(B) if j != i], tau)
            _, ref_col = mp_losses(p[i], a[i], [a[j] for j in range(B) if j != i], tau)
            assert abs(rows[i] - float(ref_row)) <= 1e-12 * max(float(ref_row), 1 / tau)
            ref_sym = (ref_row + ref_col) / 2
            assert abs(sym[i] - float(ref_sym)) <= 1e-12 * max(float(ref_sym), 1 / tau)


def test_threads_on_off_bitwise_equal(rng):
    """Private per-anchor outputs: the result does not depend on the thread count."""
    import numba

    a, p, negs = case("random", rng, n=64, k=5, d=4)
    many = numerics.infonce_loss(a, p, negs, 0.1, "standard")
    prev = _jit.set_threads(1)
    try:
        one = numerics.infonce_loss(a, p, negs, 0.1, "standard")
    finally:
        numba.set_num_threads(prev)
    assert np.array_equal(one, many)


def test_no_overflow_anywhere_in_tau_range(rng):
    a, p, negs = case("antipodal positive", rng)
    for tau in (1e-3, 1e2):
        for fn in (
            lambda: numerics.infonce_loss(a, p, negs, tau, "standard"),
            lambda: numerics.infonce_loss(a, p, negs, tau, "dcl"),
            lambda: numerics.softmax_weights(a, negs, tau),
            lambda: numerics.infonce_loss_in_batch(a, p, tau, symmetric=True),
            lambda: numerics.infonce_gradient(a, p, negs, tau, "standard").anchors,
        ):
            assert np.all(np.isfinite(fn()))


def test_agreement_with_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    a, p, negs = case("random", rng, n=8, k=5, d=6)
    tau = 0.07
    A, P, N = (torch.from_numpy(x) for x in (a, p, negs))
    s_pos = (A * P).sum(-1, keepdim=True)
    s_neg = torch.einsum("nd,nkd->nk", A, N)
    ref = torch.logsumexp(torch.cat([s_pos, s_neg], 1) / tau, 1) - s_pos[:, 0] / tau
    np.testing.assert_allclose(numerics.infonce_loss(a, p, negs, tau, "standard"), ref.numpy(), rtol=1e-12)
    ce = torch.nn.functional.cross_entropy(A @ P.T / tau, torch.arange(8), reduction="none")
    np.testing.assert_allclose(numerics.infonce_loss_in_batch(a, p, tau), ce.numpy(), rtol=1e-12)


def test_agreement_with_pytorch_metric_learning_ntxent():
    pytest.importorskip("torch")
    losses = pytest.importorskip("pytorch_metric_learning.losses")
    import torch

    rng = np.random.default_rng(8)
    B, d, tau = 6, 5, 0.1
    a, p = unit(rng.standard_normal((B, d))), unit(rng.standard_normal((B, d)))
    emb = np.concatenate([a, p])
    labels = np.concatenate([np.arange(B), np.arange(B)])
    ref = losses.NTXentLoss(temperature=tau)(torch.from_numpy(emb), torch.from_numpy(labels)).item()
    # NT-Xent = standard loss in the pooled layout: each view's negatives are the 2B − 2 other-label views
    index = np.array([[j for j in range(2 * B) if labels[j] != labels[i]] for i in range(2 * B)])
    positives = np.concatenate([p, a])
    ours = numerics.infonce_loss_pooled(emb, positives, emb, index, tau, "standard")
    assert float(np.mean(ours)) == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("variant", ("dcl", "standard", "infonce"))
@pytest.mark.parametrize("tau", (1e-3, 0.1, 1e2))
def test_in_batch_float32_against_mpmath(variant, tau, rng):
    """float32 rows: float32 GEMM and float32 exponentials, float64 sums; ≤ 1e-5 · max(|ℓ|, 1/τ)."""
    B, d = 40, 8
    a = unit(rng.standard_normal((B, d))).astype(np.float32)
    p = unit(rng.standard_normal((B, d))).astype(np.float32)
    p[0] = a[0]
    got = numerics.infonce_loss_in_batch(a, p, tau, variant)
    pick = {"dcl": 0, "standard": 1, "infonce": 2}[variant]
    with mpmath.workdps(50):
        for i in range(0, B, 7):
            ref = float(_mp_variant(a[i], p[i], [p[j] for j in range(B) if j != i], tau, pick))
            assert abs(got[i] - ref) <= 1e-5 * max(abs(ref), 1 / tau), (i, got[i], ref)


@pytest.mark.parametrize("dtype", (np.float64, np.float32))
def test_row_max_integer_keys_match_numpy(dtype, rng):
    """``row_max`` compares bit patterns as integers: same maximum as ``np.max`` on signed values, ±0,
    −inf, subnormals and huge values, in float64 and float32."""
    from infonce_bounds.numerics.logsumexp import row_max

    fi = np.finfo(dtype)
    special = np.array(
        [-np.inf, -fi.max, -1.0, -fi.tiny / 4, -0.0, 0.0, fi.tiny / 4, fi.tiny, 1.0, fi.max], dtype=dtype
    )
    for _ in range(300):
        size = int(rng.integers(1, 40))
        z = (
            rng.choice(special, size)
            if rng.random() < 0.5
            else (rng.standard_normal(size) * 10.0 ** rng.integers(-40, 30))
        )
        z = z.astype(dtype)
        assert row_max(z) == np.max(z), z
    assert row_max(np.full(7, -np.inf, dtype=dtype)) == -np.inf
    assert row_max(np.array([-3.0, -2.0, -5.0], dtype=dtype)) == -2.0


@pytest.mark.parametrize("tau", (1e-3, 0.1))
@pytest.mark.parametrize("dtype", (np.float64, np.float32))
def test_in_batch_blocks_of_rows_against_mpmath(dtype, tau, rng, monkeypatch):
    """S = A Pᵀ in blocks of 3 rows (B = 8: blocks 3, 3, 2) gives the same rows as the mpmath reference;
    the largest off-diagonal entry sits first, last and next to the diagonal in different rows (at
    τ = 1e-3 a shift that missed it would overflow)."""
    from infonce_bounds.numerics import api

    monkeypatch.setattr(api, "BLOCK_ENTRIES", 3 * 8)
    B, d = 8, 6
    a = unit(rng.standard_normal((B, d)))
    p = unit(rng.standard_normal((B, d)))
    p[2] = a[2]  # row 2: the diagonal is the row maximum
    p[7] = unit(a[3] + 0.01)  # row 3: the largest negative is the last column
    p[0] = unit(a[5] + 0.01)  # row 5: ... the first column
    p[5] = unit(a[6] - 0.01)  # row 6: ... next to the diagonal
    a, p = a.astype(dtype), p.astype(dtype)
    tol = 1e-12 if dtype == np.float64 else 1e-5
    for variant, pick in (("dcl", 0), ("standard", 1), ("infonce", 2)):
        got = numerics.infonce_loss_in_batch(a, p, tau, variant)
        with mpmath.workdps(50):
            for i in range(B):
                ref = float(_mp_variant(a[i], p[i], [p[j] for j in range(B) if j != i], tau, pick))
                assert abs(got[i] - ref) <= tol * max(abs(ref), 1 / tau), (variant, i, got[i], ref)


def test_in_batch_block_buffer_reused_across_calls_and_threads(rng):
    """The block buffer is kept per thread between calls: calls of other sizes and dtypes in between, and
    calls from several threads at once, give the same rows as a fresh computation."""
    from concurrent.futures import ThreadPoolExecutor

    from scipy.special import logsumexp

    def reference(a, p, tau):
        S = np.dot(a.astype(np.float64), p.astype(np.float64).T) / tau
        off = S.copy()
        np.fill_diagonal(off, -np.inf)
        return np.logaddexp(0.0, logsumexp(off - np.diag(S)[:, None], axis=1))

    batches = []
    for B, dtype in ((8, np.float64), (300, np.float32), (40, np.float64), (8, np.float64), (300, np.float64)):
        a = unit(rng.standard_normal((B, 16))).astype(dtype)
        p = unit(rng.standard_normal((B, 16))).astype(dtype)
        batches.append((a, p, reference(a, p, 0.1), 1e-12 if dtype == np.float64 else 1e-5))
    for a, p, ref, tol in batches:
        assert np.max(np.abs(numerics.infonce_loss_in_batch(a, p, 0.1) - ref)) <= tol * 10
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda b: numerics.infonce_loss_in_batch(b[0], b[1], 0.1), batches * 8))
    for (_a, _p, ref, tol), got in zip(batches * 8, results):
        assert np.max(np.abs(got - ref)) <= tol * 10


@pytest.mark.parametrize("dtype", (np.float64, np.float32))
def test_in_batch_positive_far_above_every_negative(dtype):
    """The row pass computes the positive's exponent (S_ii − max_{j≠i} S_ij)/τ with the others and then
    drops it; for gaps where that exponent is 710 (float64) or 88.7 (float32) and beyond, its scale's
    bit pattern is inf or NaN. Every gap from 0 to 2 at τ = 1e-3 must give the exact, finite loss
    log(1 + e^{−gap/τ}) (regression: a NaN at gap 0.71)."""
    tau = 1e-3
    for gap in np.r_[np.linspace(0.0, 2.0, 201), 0.71, 0.0887, 0.0888, 0.7098]:
        cos = 1.0 - gap
        th = math.acos(cos)
        a = np.array([[1.0, 0.0], [math.cos(th), math.sin(th)]])
        got = numerics.infonce_loss_in_batch(a.astype(dtype), a.astype(dtype), tau)
        s = float(np.dot(a.astype(dtype)[0], a.astype(dtype)[1]))  # the similarity as the kernel sees it
        diag = float(np.dot(a.astype(dtype)[0], a.astype(dtype)[0]))
        exact = math.log1p(math.exp((s - diag) / tau))
        tol = 1e-12 if dtype == np.float64 else 1e-5
        assert np.all(np.isfinite(got)), (gap, got)
        assert abs(got[0] - exact) <= tol * max(exact, 1 / tau), (gap, got[0], exact)


def test_pooled_and_per_anchor_layouts_agree_bit_for_bit(rng):
    """The same negatives held as a pool + index or as an (n, k, d) copy give identical losses."""
    n, k, d, m = 9, 7, 12, 30
    a, p = unit(rng.standard_normal((n, d))), unit(rng.standard_normal((n, d)))
    pool = unit(rng.standard_normal((m, d)))
    index = rng.integers(0, m, (n, k))
    for variant in ("dcl", "standard", "infonce"):
        assert np.array_equal(
            numerics.infonce_loss_pooled(a, p, pool, index, 0.03, variant),
            numerics.infonce_loss(a, p, pool[index], 0.03, variant),
        )
