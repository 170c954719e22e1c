"""Pooled layout: anchors (n, d), positives (n, d), a pool (m, d) and an index (n, k) of each anchor's
negatives in the pool — how real pipelines hold negatives, with no (n, k, d) copy.

Same mathematics as ``numerics.per_anchor`` with n_ij = pool[index[i, j]]: the logit
c_i = log Σ_j e^{(s_ij − s⁺_i)/τ} (max-shifted), then the generated closing formulas of
``derivations.loss``. ``prange`` over anchors, private outputs; the pool gradient is a scatter-add
done serially in a fixed order (reproducible), after the parallel per-anchor pass.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from ._jit import kernel
from .logsumexp import dot, logsumexp, softmax_into
from .per_anchor import close_dlogit, close_loss


@kernel
def loss_kernel(anchors, positives, pool, index, tau, variant, out):
    """out[i] = the loss (ℓ̃, ℓ_std or ℓ of (14)) of anchor i with negatives pool[index[i, :]]."""
    n, k = index.shape[0], index.shape[1]
    inv_tau = 1.0 / tau  # as ``per_anchor.loss_kernel``: the same rounding, so the two layouts agree bit for bit
    for i in prange(n):
        z = np.empty(k)
        a = anchors[i]
        s_pos = dot(a, positives[i])
        for j in range(k):
            z[j] = (dot(a, pool[index[i, j]]) - s_pos) * inv_tau
        out[i] = close_loss(logsumexp(z), k, variant)


@kernel
def weights_kernel(anchors, pool, index, tau, out):
    """out[i, j] = e^{s_ij/τ} / Σ_l e^{s_il/τ} with s_ij = ⟨a_i, pool[index[i, j]]⟩."""
    n, k = index.shape[0], index.shape[1]
    for i in prange(n):
        z = np.empty(k)
        for j in range(k):
            z[j] = dot(anchors[i], pool[index[i, j]]) / tau
        softmax_into(z, out[i])


@kernel
def coefficient_kernel(anchors, positives, pool, index, tau, variant, scale, loss, coef, g_a, g_p):
    """Per-anchor loss, coef[i, j] = g_i w_ij (the weight of a_i in ∂/∂pool[index[i, j]]), ∂/∂a_i, ∂/∂p_i."""
    n, k, dim = index.shape[0], index.shape[1], anchors.shape[1]
    for i in prange(n):
        z = np.empty(k)
        w = np.empty(k)
        a = anchors[i]
        s_pos = dot(a, positives[i])
        for j in range(k):
            z[j] = (dot(a, pool[index[i, j]]) - s_pos) / tau
        c = softmax_into(z, w)
        loss[i] = close_loss(c, k, variant)
        g = scale * close_dlogit(c, k, variant) / tau
        acc = np.zeros(dim)
        for j in range(k):
            coef[i, j] = g * w[j]
            row = pool[index[i, j]]
            for t in range(dim):
                acc[t] += w[j] * row[t]
        for t in range(dim):
            g_a[i, t] = g * (acc[t] - positives[i, t])
            g_p[i, t] = -g * a[t]


@kernel(parallel=False)
def scatter_kernel(anchors, index, coef, g_pool):
    """g_pool[index[i, j]] += coef[i, j] a_i, serially in (i, j) order (fixed order: reproducible)."""
    n, k, dim = index.shape[0], index.shape[1], anchors.shape[1]
    for i in range(n):
        for j in range(k):
            r = index[i, j]
            for t in range(dim):
                g_pool[r, t] += coef[i, j] * anchors[i, t]
