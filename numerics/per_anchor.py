"""Per-anchor-negatives layout: anchors (n, d), positives (n, d), negatives (n, k, d).

For anchor i: s⁺_i = ⟨a_i, p_i⟩, s_ij = ⟨a_i, n_ij⟩, the logit c_i = log Σ_j e^{(s_ij − s⁺_i)/τ}
(max-shifted, ``numerics.logsumexp``), and the closing formulas generated from
``derivations.loss`` (``numerics._generated.constants``): the DCL loss ℓ̃ = c − log k, the paper's
InfoNCE ℓ (14) = log(1 + e^c) − log k, the standard ℓ_std = log(1 + e^c).
Every kernel is ``prange`` over anchors (the loss kernels: over groups of ``STREAMS`` anchors) with
private outputs (``numerics._jit``); inputs are validated by ``numerics.api`` before they reach a
kernel. Domain: τ > 0 (accuracy tested for τ ∈ [1e-3, 1e2]), unit rows so that every similarity lies
in [−1, 1].
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._generated import constants as G
from ._jit import helper, kernel
from .logsumexp import dot, dot_and_norm2, log_mean_exp, logsumexp, row_max, softmax_into

#: kernel codes of the loss variants (``numerics.validate.variant_value``)
DCL, STANDARD, INFONCE = 0, 1, 2


@helper
def row_logit(a, p, negs, tau, z):
    """c = log Σ_j e^{(s_j − s⁺)/τ}; fills z_j = (s_j − s⁺)/τ; returns (c, s⁺)."""
    s_pos = dot(a, p)
    inv_tau = 1.0 / tau  # the loss kernels' rounding, so that all routes agree bit for bit
    for j in range(negs.shape[0]):
        z[j] = (dot(a, negs[j]) - s_pos) * inv_tau
    return logsumexp(z), s_pos


@helper
def close_loss(c, k, variant):
    """The generated closing formula: ℓ̃ = c − log k (DCL), ℓ_std = log(1 + e^c) (standard) or
    ℓ = log(1 + e^c) − log k (InfoNCE, the paper's (14))."""
    if variant == DCL:
        return G.dcl_from_logit(c, np.float64(k))
    if variant == INFONCE:
        return G.infonce_from_logit(c, np.float64(k))
    return G.standard_from_logit(c)


@helper
def close_dlogit(c, k, variant):
    """∂ℓ/∂c from the generated derivatives: 1 (DCL) or e^c/(1 + e^c) (standard and InfoNCE (14))."""
    if variant == DCL:
        return G.dcl_dlogit(c, np.float64(k))
    if variant == INFONCE:
        return G.infonce_dlogit(c, np.float64(k))
    return G.standard_dlogit(c)


#: anchors whose negatives are read side by side in one thread (see ``loss_kernel``)
STREAMS = 4


@kernel
def loss_kernel(anchors, positives, negatives, tau, variant, out):
    """out[i] = the loss (ℓ̃, ℓ_std or ℓ of (14), by ``variant``) of anchor i.

    The anchors go in groups of ``STREAMS``, and the negatives j of the group's anchors are read side by
    side. Why: one anchor's negatives are a single sequential stream, and a core then has too few
    cache lines in flight to reach the memory bandwidth (the loop is latency-bound); four streams
    per core measured 1.2–1.3× faster at n = 20000, k = 256, d = 64 (2 and 8 streams: less).
    Every anchor's arithmetic is unchanged, so the results are bit-identical to one anchor at a time.
    """
    n, k = negatives.shape[0], negatives.shape[1]
    inv_tau = 1.0 / tau  # a multiply, not a divide, per negative: ≤ 1 ulp more error in the exponent
    for grp in prange((n + STREAMS - 1) // STREAMS):
        i0 = grp * STREAMS
        cnt = min(STREAMS, n - i0)
        z = np.empty((cnt, k))
        s_pos = np.empty(cnt)
        for g in range(cnt):
            s_pos[g] = dot(anchors[i0 + g], positives[i0 + g])
        for j in range(k):
            for g in range(cnt):
                z[g, j] = (dot(anchors[i0 + g], negatives[i0 + g, j]) - s_pos[g]) * inv_tau
        for g in range(cnt):
            out[i0 + g] = close_loss(logsumexp(z[g]), k, variant)


@kernel
def checked_loss_kernel(anchors, positives, negatives, tau, variant, out, screen):
    """``loss_kernel`` that also screens the negatives in the same memory pass (one read of the
    (n, k, d) array instead of two): screen[i] = max_j | ‖n_ij‖² − 1 |, or NaN if some ‖n_ij‖² is not
    finite (NaN/inf entries, or overflow). A row with | ‖n‖ − 1 | > tol has | ‖n‖² − 1 | > tol (2 − tol)
    ≥ tol, so the caller re-checks exactly (``validate.raise_bad_blocks``) only the anchors with
    screen > tol, and raises before returning anything. Squared norms, no square root or branch per
    negative: the screen costs a multiply-add per entry and three operations per negative. Same
    grouping of anchors into ``STREAMS`` side-by-side streams as ``loss_kernel``."""
    n, k = negatives.shape[0], negatives.shape[1]
    inv_tau = 1.0 / tau
    for grp in prange((n + STREAMS - 1) // STREAMS):
        i0 = grp * STREAMS
        cnt = min(STREAMS, n - i0)
        z = np.empty((cnt, k))
        s_pos = np.empty(cnt)
        dev = np.zeros(cnt)
        total = np.zeros(cnt)  # Σ_j ‖n_ij‖² ≥ 0: NaN or inf as soon as one term is
        for g in range(cnt):
            s_pos[g] = dot(anchors[i0 + g], positives[i0 + g])
        for j in range(k):
            for g in range(cnt):
                s, nn = dot_and_norm2(anchors[i0 + g], negatives[i0 + g, j])  # one read for loss and check
                z[g, j] = (s - s_pos[g]) * inv_tau
                e = abs(nn - 1.0)
                dev[g] = e if e > dev[g] else dev[g]
                total[g] += nn
        for g in range(cnt):
            screen[i0 + g] = dev[g] if math.isfinite(total[g]) else math.nan
            out[i0 + g] = close_loss(logsumexp(z[g]), k, variant)


#: anchors per block of ``checked_loss_kernel_t``: one (t, j) reads this many consecutive negatives' entries
FORTRAN_BLOCK = 64


@kernel
def checked_loss_kernel_t(anchors, positives, negatives_t, tau, variant, out, screen):
    """``checked_loss_kernel`` for Fortran-ordered negatives, passed as their transpose negatives_t (d, k, n),
    which is C-contiguous: the same losses and screen, with the array read once in its memory order.

    Why: in Fortran order the d entries of one negative are n·k entries apart, so the row-by-row kernel
    fetches a cache line per entry (measured 16× the CPU time of C order; copying to C order first costs a
    second array and was slower still). Here a block of ``FORTRAN_BLOCK`` anchors is done together:
    for every (t, j) the entries negatives_t[t, j, i0 : i0 + W] are consecutive, and s_ij = Σ_t a_it n_ijt and
    ‖n_ij‖² accumulate in float64 in (k, W) buffers that stay in cache. The sums run over t in order (no vector
    lanes), so a loss can differ from the C-order kernel's in the last bits."""
    d, k, n = negatives_t.shape
    inv_tau = 1.0 / tau
    W = FORTRAN_BLOCK
    for blk in prange((n + W - 1) // W):
        i0 = blk * W
        w = min(W, n - i0)
        s = np.zeros((k, w))
        nn = np.zeros((k, w))
        acol = np.empty(w)
        for t in range(d):
            for ii in range(w):
                acol[ii] = anchors[i0 + ii, t]
            for j in range(k):
                run = negatives_t[t, j, i0 : i0 + w]
                for ii in range(w):
                    x = np.float64(run[ii])
                    s[j, ii] += acol[ii] * x
                    nn[j, ii] += x * x
        z = np.empty(k)
        for ii in range(w):
            i = i0 + ii
            s_pos = dot(anchors[i], positives[i])
            dev = 0.0
            total = 0.0
            for j in range(k):
                z[j] = (s[j, ii] - s_pos) * inv_tau
                e = abs(nn[j, ii] - 1.0)
                dev = e if e > dev else dev
                total += nn[j, ii]
            screen[i] = dev if math.isfinite(total) else math.nan
            out[i] = close_loss(logsumexp(z), k, variant)


@kernel
def logit_kernel(anchors, positives, negatives, tau, out):
    """out[i] = c_i = log Σ_j e^{(s_ij − s⁺_i)/τ}."""
    n, k = negatives.shape[0], negatives.shape[1]
    for i in prange(n):
        z = np.empty(k)
        c, _ = row_logit(anchors[i], positives[i], negatives[i], tau, z)
        out[i] = c


@kernel
def similarity_kernel(anchors, positives, negatives, s_pos, s_neg):
    """s_pos[i] = ⟨a_i, p_i⟩, s_neg[i, j] = ⟨a_i, n_ij⟩ (float64)."""
    n, k = negatives.shape[0], negatives.shape[1]
    for i in prange(n):
        s_pos[i] = dot(anchors[i], positives[i])
        for j in range(k):
            s_neg[i, j] = dot(anchors[i], negatives[i, j])


@kernel
def weights_kernel(anchors, negatives, tau, out):
    """out[i, j] = Q̂_{τ,k}(x_i, j) = e^{s_ij/τ} / Σ_l e^{s_il/τ}, the softmax search over the negatives."""
    n, k = negatives.shape[0], negatives.shape[1]
    for i in prange(n):
        z = np.empty(k)
        for j in range(k):
            z[j] = dot(anchors[i], negatives[i, j]) / tau
        softmax_into(z, out[i])


@kernel
def cross_entropy_kernel(anchors, negatives, ideal, tau, out):
    """out[i] = −Σ_j P̂_ij log Q̂_ij = Σ_j P̂_ij (log Σ_l e^{z_l} − z_j), z_j = s_ij/τ, Σ_j P̂_ij = 1."""
    n, k = negatives.shape[0], negatives.shape[1]
    for i in prange(n):
        z = np.empty(k)
        for j in range(k):
            z[j] = dot(anchors[i], negatives[i, j]) / tau
        lse = logsumexp(z)
        acc = 0.0
        for j in range(k):
            acc += ideal[i, j] * (lse - z[j])
        out[i] = acc


@kernel
def log_mean_exp_kernel(scores, bs, out):
    """out[i, l] = Λ(b_l; z_i) = log((1/k) Σ_j e^{b_l z_ij}), max-shifted."""
    n = scores.shape[0]
    for i in prange(n):
        row = scores[i].astype(np.float64)
        for col in range(bs.shape[0]):
            out[i, col] = log_mean_exp(row, bs[col])


@kernel
def data_factor_kernel(scores, gamma, tau, out):
    """out[i] = exp(Λ(γ; z_i)/(γτ) − Λ(1/τ; z_i)), the data-dependent continuity factor (generated closing)."""
    n = scores.shape[0]
    for i in prange(n):
        # shift by m = max_j z_j first: Λ(b; z) = b m + Λ(b; z − m), and the b m terms cancel exactly in
        # Λ(γ; z)/(γτ) − Λ(1/τ; z), so only O(1) quantities (not O(1/τ) ones) are subtracted
        row = scores[i].astype(np.float64)
        row -= row_max(row)
        out[i] = G.data_factor(log_mean_exp(row, gamma), log_mean_exp(row, 1.0 / tau), gamma, tau)


@kernel
def gradient_kernel(anchors, positives, negatives, tau, variant, scale, loss, g_a, g_p, g_n):
    """Per-anchor loss and the gradient of scale · Σ_i ℓ_i with respect to a_i, p_i and n_ij.

    With c_i the logit, w_ij = softmax_j((s_ij − s⁺_i)/τ) and g_i = scale · (∂ℓ/∂c)(c_i)/τ:
    ∂/∂a_i = g_i (Σ_j w_ij n_ij − p_i), ∂/∂p_i = −g_i a_i, ∂/∂n_ij = g_i w_ij a_i.
    """
    n, k, dim = negatives.shape[0], negatives.shape[1], negatives.shape[2]
    for i in prange(n):
        z = np.empty(k)
        w = np.empty(k)
        a = anchors[i]
        s_pos = dot(a, positives[i])
        for j in range(k):
            z[j] = (dot(a, negatives[i, j]) - s_pos) / tau
        c = softmax_into(z, w)
        loss[i] = close_loss(c, k, variant)
        g = scale * close_dlogit(c, k, variant) / tau
        acc = np.zeros(dim)
        for j in range(k):
            gw = g * w[j]
            for t in range(dim):
                acc[t] += w[j] * negatives[i, j, t]
                g_n[i, j, t] = gw * a[t]
        for t in range(dim):
            g_a[i, t] = g * (acc[t] - positives[i, t])
            g_p[i, t] = -g * a[t]
