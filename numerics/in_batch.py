"""In-batch layout: B anchors, B positives, each anchor's negatives are the other B − 1 positives.

S = A Pᵀ comes from BLAS (``numpy.dot``), one block of rows at a time into one reused buffer
(``numerics.api``); one fused ``prange`` pass per row (and, for the symmetric form, per block of
columns of the whole S) computes the logit c_i = log Σ_{j≠i} e^{(S_ij − S_ii)/τ} with a
max-shifted log-sum-exp and closes it with the generated formulas of ``derivations.loss``:
standard ℓ_std,i = log(1 + e^{c_i}) (SimCLR / ``F.cross_entropy(S/τ, arange(B))``, the step "in-batch
row i is the standard loss ℓ_std with k = B − 1 negatives"), the paper's InfoNCE ℓ (14)
log(1 + e^{c_i}) − log(B − 1), or the DCL loss ℓ̃ = c_i − log(B − 1). The symmetric
(CLIP-style) loss is (row_i + col_i)/2, col_i the same with positives as anchors.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._jit import helper, kernel
from .logsumexp import UNDERFLOW, dot, dot_wide, exp_terms, exp_terms32, row_max
from .per_anchor import close_dlogit, close_loss


@helper
def _off_diagonal_max(row, i):
    """max_{j≠i} row_j (row has ≥ 2 entries)."""
    B = row.shape[0]
    if i == 0:
        return row_max(row[1:])
    if i == B - 1:
        return row_max(row[:i])
    return max(row_max(row[:i]), row_max(row[i + 1 :]))


@kernel
def row_kernel(S, r0, tau, variant, out, logits):
    """For the block S = (A Pᵀ)[r0 : r0 + R] (shape (R, B)), anchor i = r0 + r:
    out[i] = closing formula of c_i = log Σ_{j≠i} e^{(S_ij − S_ii)/τ}; logits[i] = c_i.

    Max-shifted on the raw similarities: with M = max_{j≠i} S_ij, c_i = (M − S_ii)/τ +
    log Σ_{j≠i} e^{(S_ij − M)/τ}, whose largest term is exactly 1; no (R, B) temporary is written and
    S is only read."""
    R, B = S.shape
    inv_tau = 1.0 / tau  # a multiply, not a divide, per entry (B² of them): ≤ 1 ulp more error in the exponent
    for r in prange(R):
        i = r0 + r
        row = S[r]
        poly = np.empty(B)
        bits = np.empty(B, dtype=np.int64)
        top = np.float64(_off_diagonal_max(row, i))
        # the exponentials of the negatives only: the positive's exponent (S_ii − M)/τ may be > 0 and large,
        # outside exp_terms' domain (there the 2ⁿ scale's bit pattern is inf or NaN); its slot holds 0
        exp_terms(row[:i], top, inv_tau, poly[:i], bits[:i])
        exp_terms(row[i + 1 :], top, inv_tau, poly[i + 1 :], bits[i + 1 :])
        poly[i] = 0.0
        bits[i] = 0
        c = (top - np.float64(row[i])) * inv_tau + math.log(dot(poly, bits.view(np.float64)))
        logits[i] = c
        out[i] = close_loss(c, B - 1, variant)


@kernel
def row_kernel32(S, r0, tau, variant, out, logits):
    """``row_kernel`` for a float32 block: the exponentials e^{(S_ij − M)/τ} in float32 (8 lanes instead of
    4), their sum, the logarithm and the closing formula in float64. Error ≤ ~1e-6·max(|ℓ|, 1/τ)."""
    R, B = S.shape
    inv_tau = np.float32(1.0 / tau)
    for r in prange(R):
        i = r0 + r
        row = S[r]
        poly = np.empty(B, dtype=np.float32)
        bits = np.empty(B, dtype=np.int32)
        top = np.float32(_off_diagonal_max(row, i))
        exp_terms32(row[:i], top, inv_tau, poly[:i], bits[:i])  # the negatives only, as in row_kernel
        exp_terms32(row[i + 1 :], top, inv_tau, poly[i + 1 :], bits[i + 1 :])
        poly[i] = np.float32(0.0)
        bits[i] = np.int32(0)
        c = (np.float64(top) - np.float64(row[i])) / tau + math.log(dot_wide(poly, bits.view(np.float32)))
        logits[i] = c
        out[i] = close_loss(c, B - 1, variant)


@kernel
def col_kernel(S, tau, variant, out, logits):
    """Column form: c_j = log Σ_{i≠j} e^{(S_ij − S_jj)/τ}, blocks of 64 columns read row by row (contiguous)."""
    B = S.shape[0]
    W = 64
    nblocks = (B + W - 1) // W
    for blk in prange(nblocks):
        j0 = blk * W
        w = min(B, j0 + W) - j0
        m = np.full(w, -math.inf)
        for i in range(B):
            for jj in range(w):
                v = np.float64(S[i, j0 + jj]) if i != j0 + jj else -math.inf
                m[jj] = v if v > m[jj] else m[jj]
        acc = np.zeros(w)
        x = np.empty(w)
        poly = np.empty(w)
        bits = np.empty(w, dtype=np.int64)
        for i in range(B):
            for jj in range(w):
                x[jj] = (np.float64(S[i, j0 + jj]) - m[jj]) / tau if i != j0 + jj else -math.inf
            exp_terms(x, 0.0, 1.0, poly, bits)
            scale = bits.view(np.float64)
            for jj in range(w):
                acc[jj] += poly[jj] * scale[jj]
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
