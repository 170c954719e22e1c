"""In-batch layout: B anchors, B positives, each anchor's negatives are the other B − 1 positives.

S = A Pᵀ comes from BLAS (``numpy.dot``); one fused ``prange`` pass per row (and, for the symmetric
form, per block of columns) computes the logit c_i = log Σ_{j≠i} e^{(S_ij − S_ii)/τ} with a
max-shifted log-sum-exp and closes it with the generated formulas of ``derivations.loss``:
standard ℓ_i = log(1 + e^{c_i}) (SimCLR / ``F.cross_entropy(S/τ, arange(B))``, the step "in-batch row
i is the standard loss with k = B − 1 negatives") or averaged c_i − log(B − 1). The symmetric
(CLIP-style) loss is (row_i + col_i)/2, col_i the same with positives as anchors.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._jit import kernel
from .logsumexp import UNDERFLOW
from .per_anchor import close_dlogit, close_loss


@kernel
def row_kernel(S, tau, variant, out, logits):
    """out[i] = closing formula of c_i = log Σ_{j≠i} e^{(S_ij − S_ii)/τ}; logits[i] = c_i."""
    B = S.shape[0]
    for i in prange(B):
        diag = np.float64(S[i, i])
        m = -math.inf
        for j in range(B):
            if j != i:
                v = np.float64(S[i, j])
                if v > m:
                    m = v
        zm = (m - diag) / tau
        acc = 0.0
        for j in range(B):
            if j != i:
                t = (np.float64(S[i, j]) - diag) / tau - zm
                if t > UNDERFLOW:
                    acc += math.exp(t)
        c = zm + math.log(acc)
        logits[i] = c
        out[i] = close_loss(c, B - 1, variant)


@kernel
def col_kernel(S, tau, variant, out, logits):
    """Column form: c_j = log Σ_{i≠j} e^{(S_ij − S_jj)/τ}, blocks of 64 columns read row by row (contiguous)."""
    B = S.shape[0]
    nblocks = (B + 63) // 64
    for blk in prange(nblocks):
        j0 = blk * 64
        j1 = min(B, j0 + 64)
        w = j1 - j0
        m = np.full(w, -math.inf)
        for i in range(B):
            for jj in range(w):
                j = j0 + jj
                if i != j:
                    v = np.float64(S[i, j])
                    if v > m[jj]:
                        m[jj] = v
        acc = np.zeros(w)
        for i in range(B):
            for jj in range(w):
                j = j0 + jj
                if i != j:
                    t = (np.float64(S[i, j]) - m[jj]) / tau
                    if t > UNDERFLOW:
                        acc[jj] += math.exp(t)
        for jj in range(w):
            j = j0 + jj
            c = (m[jj] - np.float64(S[j, j])) / tau + math.log(acc[jj])
            logits[j] = c
            out[j] = close_loss(c, B - 1, variant)


@kernel
def row_grad_kernel(S, tau, variant, logits, scale, D):
    """D[i, j] = scale · (∂ℓ/∂c)(c_i) (w_ij − δ_ij)/τ with w_ij = softmax_{j≠i}((S_ij − S_ii)/τ), w_ii = 0:
    ∂(scale Σ_i ℓ_i)/∂S_ij. Overwrites nothing in S."""
    B = S.shape[0]
    for i in prange(B):
        c = logits[i]
        g = scale * close_dlogit(c, B - 1, variant) / tau
        diag = np.float64(S[i, i])
        for j in range(B):
            if j == i:
                D[i, j] = -g
            else:
                t = (np.float64(S[i, j]) - diag) / tau - c
                D[i, j] = g * math.exp(t) if t > UNDERFLOW else 0.0
