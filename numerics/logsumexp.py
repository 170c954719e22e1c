"""Λ(b; z) = log((1/k) Σ_j e^{b z_j}) and log Σ_j e^{z_j}, max-shifted: the one log-sum-exp of the kernels.

Every sum of exponentials in ``numerics`` goes through these helpers:
``log Σ_j e^{z_j} = m + log Σ_j e^{z_j − m}`` with ``m = max_j z_j``, so every exponent is ≤ 0
(no overflow at τ = 1e-3, where |z_j| reaches 2000) and the largest term is exactly 1 (the sum is
≥ 1, so its logarithm loses no relative accuracy to underflow). Terms with ``z_j − m < −708``
contribute less than 2⁻¹⁰²¹ to a sum ≥ 1 and are set to 0: it changes no bit of the result and
keeps exponentials out of the subnormal range, which is slow on x86.

The exponentials are evaluated by ``exp_terms``: Cody–Waite reduction x = n ln 2 + r, |r| ≤ ln2/2,
a degree-13 Taylor polynomial for e^r (truncation < 5e-18, Horner steps fused into multiply-adds:
``_jit.poly_helper``) and the scale 2ⁿ built from its exponent bits. It has no libm call, so LLVM
vectorises it (measured 6× faster than ``math.exp`` per element) with an error ≤ 1 ulp
(tests/test_kernels.py compares every output with mpmath).

The running maximum ``row_max`` compares the floats' bit patterns as integers (an order-preserving
map, below): an integer max-reduction vectorises without any fast-math flag, a float one does not
(LLVM may only reorder a float max under ``nnan``), measured 10× faster per element.

Sums of exponentials are accumulated in float64 for float64 and float32 inputs alike (the shift invariance
``Λ(b; z) = b m + Λ(b; z − m)`` is the step "shift invariance of Λ" of ``derivations.loss``).
Reference: Blanchard, Higham & Higham, "Accurately computing the log-sum-exp and softmax
functions", IMA J. Numer. Anal. 41 (2021).
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import dot_helper, helper, poly_helper

#: exponents below this (after the shift) are treated as 0: e^{−708} < 2⁻¹⁰²¹, still a normal number
UNDERFLOW = -708.0

_LN2_HI = 6.93147180369123816490e-01  # Cody–Waite split of ln 2 (fdlibm): n·LN2_HI is exact for |n| < 2¹¹
_LN2_LO = 1.90821492927058770002e-10
_LOG2E = 1.4426950408889634
_ROUND = 6755399441055744.0  # 1.5·2⁵²: (x + _ROUND) − _ROUND rounds x to the nearest integer (strict IEEE)
_C = (
    1.0,
    1.0,
    1 / 2,
    1 / 6,
    1 / 24,
    1 / 120,
    1 / 720,
    1 / 5040,
    1 / 40320,
    1 / 362880,
    1 / 3628800,
    1 / 39916800,
    1 / 479001600,
    1 / 6227020800,
)  # 1/i!, i = 0 … 13


@poly_helper
def exp_terms(z, m, b, poly, bits):
    """poly_j · 2^{n_j} = e^{b (z_j − m)} for b (z_j − m) ≤ 0; the scale's bits go to ``bits`` (int64).

    Read the values as ``poly * bits.view(np.float64)``. Entries with b (z_j − m) ≤ −708 (and −inf)
    give 0. Branch-free and call-free, so the loop vectorises.
    """
    for j in range(z.shape[0]):
        x = b * (np.float64(z[j]) - m)
        keep = x > UNDERFLOW
        x = x if keep else UNDERFLOW
        nf = (x * _LOG2E + _ROUND) - _ROUND
        r = (x - nf * _LN2_HI) - nf * _LN2_LO
        p = _C[13]
        p = p * r + _C[12]
        p = p * r + _C[11]
        p = p * r + _C[10]
        p = p * r + _C[9]
        p = p * r + _C[8]
        p = p * r + _C[7]
        p = p * r + _C[6]
        p = p * r + _C[5]
        p = p * r + _C[4]
        p = p * r + _C[3]
        p = p * r + _C[2]
        p = p * r + 1.0
        p = p * r + 1.0
        poly[j] = p if keep else 0.0
        bits[j] = (np.int64(nf) + 1023) << 52


_F = np.float32
_LN2_HI_F = _F(0.693145751953125)  # Cody–Waite split of ln 2 for float32 (n·LN2_HI_F exact for |n| < 2⁸)
_LN2_LO_F = _F(1.428606765330187045e-06)
_LOG2E_F = _F(1.4426950408889634)
_ROUND_F = _F(12582912.0)  # 1.5·2²³
_C_F = tuple(_F(c) for c in _C[:8])  # degree 7: truncation < 5.3e-9 on |r| ≤ ln2/2
UNDERFLOW_F = _F(-87.0)  # e^{−87} > 2⁻¹²⁶: still a normal float32


@poly_helper
def exp_terms32(z, m, b, poly, bits):
    """float32 twin of ``exp_terms``: poly_j · 2^{n_j} = e^{b (z_j − m)} in float32 (≤ 1 ulp = 6e-8
    relative for the given float32 argument), twice the vector lanes of float64; ``bits`` is int32,
    read as ``bits.view(np.float32)``. Used where the inputs are float32 anyway (in-batch float32
    rows); terms below e^{−87} give 0. ``m`` and ``b`` are float32."""
    for j in range(z.shape[0]):
        x = (z[j] - m) * b
        keep = x > UNDERFLOW_F
        x = x if keep else UNDERFLOW_F
        nf = (x * _LOG2E_F + _ROUND_F) - _ROUND_F
        r = (x - nf * _LN2_HI_F) - nf * _LN2_LO_F
        p = _C_F[7]
        p = p * r + _C_F[6]
        p = p * r + _C_F[5]
        p = p * r + _C_F[4]
        p = p * r + _C_F[3]
        p = p * r + _C_F[2]
        p = p * r + _C_F[1]
        p = p * r + _C_F[0]
        poly[j] = p if keep else _F(0.0)
        bits[j] = (np.int32(nf) + np.int32(127)) << np.int32(23)


@dot_helper
def dot_wide(a, b):
    """⟨a, b⟩ with every product widened to float64 before the (lane-split) float64 sum."""
    acc = 0.0
    for t in range(a.shape[0]):
        acc += np.float64(a[t]) * np.float64(b[t])
    return acc


@dot_helper
def dot(a, b):
    """⟨a, b⟩ accumulated in the inputs' precision across vector lanes, returned as float64.

    float32 inputs accumulate in float32 (16 lanes; error ≤ ~12·2⁻²⁴·Σ|a_t b_t| ≈ 7e-7 for unit rows,
    against the 1e-5 float32 tolerance) because widening every product to float64 made the float32
    per-anchor kernel compute-bound (measured 1.35× slower); everything after the similarities
    (exponentials, sums, logarithms) is float64. Mixed float32/float64 rows accumulate in float64 (the
    accumulator's type is the product's, numpy promotion), so float32 negatives are read as they are.
    Any strides (Fortran-ordered or strided rows are read in place).
    """
    acc = a.dtype.type(0) * b.dtype.type(0)
    for t in range(a.shape[0]):
        acc += a[t] * b[t]
    return np.float64(acc)


@dot_helper
def dot_and_norm2(a, b):
    """(⟨a, b⟩, ⟨b, b⟩) in one pass over b, accumulated like ``dot`` (⟨b, b⟩ in b's precision), as float64."""
    acc = a.dtype.type(0) * b.dtype.type(0)
    nrm = b.dtype.type(0)
    for t in range(a.shape[0]):
        acc += a[t] * b[t]
        nrm += b[t] * b[t]
    return np.float64(acc), np.float64(nrm)


_FLIP64 = np.int64(0x7FFFFFFFFFFFFFFF)
_FLIP32 = np.int32(0x7FFFFFFF)


@helper
def _row_max64(z):
    """max_j z_j for a contiguous float64 row, through the order-preserving key of the bits b:
    key(b) = b for b ≥ 0 (non-negative floats), b XOR 0x7FF…F for b < 0 (negative floats, whose
    magnitude order is reversed); key is its own inverse. −inf < every finite value; a NaN (never
    passed by the boundary) would come out as the maximum and propagate instead of being skipped."""
    zb = z.view(np.int64)
    m = np.int64(-0x7FFFFFFFFFFFFFFF - 1)
    for j in range(zb.shape[0]):
        key = zb[j] ^ ((zb[j] >> 63) & _FLIP64)
        m = key if key > m else m
    out = np.empty(1, dtype=np.int64)
    out[0] = m ^ ((m >> 63) & _FLIP64)
    return out.view(np.float64)[0]


@helper
def _row_max32(z):
    """``_row_max64`` for a contiguous float32 row (int32 keys)."""
    zb = z.view(np.int32)
    m = np.int32(-0x7FFFFFFF - 1)
    for j in range(zb.shape[0]):
        key = zb[j] ^ ((zb[j] >> np.int32(31)) & _FLIP32)
        m = key if key > m else m
    out = np.empty(1, dtype=np.int32)
    out[0] = m ^ ((m >> np.int32(31)) & _FLIP32)
    return out.view(np.float32)[0]


@helper
def row_max(z):
    """max_j z_j of a non-empty contiguous float64 or float32 row (exact; numba may return it as float64)."""
    if z.itemsize == 8:
        return _row_max64(z)
    return _row_max32(z)


@helper
def sum_exp_shifted(z, m, b=1.0):
    """Σ_j e^{b (z_j − m)} for b (z_j − m) ≤ 0 (terms below e^{−708} are 0)."""
    k = z.shape[0]
    poly = np.empty(k)
    bits = np.empty(k, dtype=np.int64)
    exp_terms(z, m, b, poly, bits)
    return dot(poly, bits.view(np.float64))


@helper
def logsumexp(z):
    """log Σ_j e^{z_j} = m + log Σ_j e^{z_j − m}, m = max_j z_j; −inf if every z_j is −inf."""
    m = row_max(z)
    if m == -math.inf or m == math.inf:
        return m
    return m + math.log(sum_exp_shifted(z, m))


@helper
def log_mean_exp(z, b):
    """Λ(b; z) = log((1/k) Σ_j e^{b z_j}) = b·m + log Σ_j e^{b(z_j − m)} − log k, m = max_j z_j (b > 0)."""
    m = row_max(z)
    return b * m + math.log(sum_exp_shifted(z, m, b)) - math.log(z.shape[0])


@helper
def softmax_into(z, out):
    """out_j = e^{z_j − m} / Σ_l e^{z_l − m}; returns log Σ_j e^{z_j} (the normaliser)."""
    k = z.shape[0]
    m = row_max(z)
    bits = np.empty(k, dtype=np.int64)
    exp_terms(z, m, 1.0, out, bits)
    scale = bits.view(np.float64)
    for j in range(k):
        out[j] *= scale[j]
    acc = 0.0
    for j in range(k):
        acc += out[j]
    inv = 1.0 / acc
    for j in range(k):
        out[j] *= inv
    return m + math.log(acc)
