"""Λ(b; z) = log((1/k) Σ_j e^{b z_j}) and log Σ_j e^{z_j}, max-shifted: the one log-sum-exp of the kernels.

Every sum of exponentials in ``numerics`` goes through these helpers:
``log Σ_j e^{z_j} = m + log Σ_j e^{z_j − m}`` with ``m = max_j z_j``, so every exponent is ≤ 0
(no overflow at τ = 1e-3, where |z_j| reaches 2000) and the largest term is exactly 1 (the sum is
≥ 1, so its logarithm loses no relative accuracy to underflow). Terms with ``z_j − m < −745``
contribute less than 2⁻¹⁰⁷⁴ and are skipped: it changes no bit of the result and keeps float
exponentials out of the subnormal range, which is slow on x86.

Accumulation is float64 for float64 and float32 inputs alike (the shift invariance
``Λ(b; z) = b m + Λ(b; z − m)`` is the step "shift invariance of Λ" of ``derivations.loss``).
Reference: Blanchard, Higham & Higham, "Accurately computing the log-sum-exp and softmax
functions", IMA J. Numer. Anal. 41 (2021).
"""

from __future__ import annotations

import math

import numpy as np

from ._jit import dot_helper, helper

#: exponents below this (after the shift) underflow to 0 in float64: the term is skipped
UNDERFLOW = -745.0


@dot_helper
def dot(a, b):
    """⟨a, b⟩ accumulated in float64 (float32 inputs are widened exactly before multiplying)."""
    acc = 0.0
    for t in range(a.shape[0]):
        acc += np.float64(a[t]) * np.float64(b[t])
    return acc


@helper
def row_max(z):
    """max_j z_j of a non-empty row."""
    m = z[0]
    for j in range(1, z.shape[0]):
        if z[j] > m:
            m = z[j]
    return m


@helper
def sum_exp_shifted(z, m):
    """Σ_j e^{z_j − m} (terms with z_j − m < −745 skipped: they are 0 in float64)."""
    acc = 0.0
    for j in range(z.shape[0]):
        t = z[j] - m
        if t > UNDERFLOW:
            acc += math.exp(t)
    return acc


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
    k = z.shape[0]
    m = row_max(z)
    acc = 0.0
    for j in range(k):
        t = b * (z[j] - m)
        if t > UNDERFLOW:
            acc += math.exp(t)
    return b * m + math.log(acc) - math.log(k)


@helper
def softmax_into(z, out):
    """out_j = e^{z_j − m} / Σ_l e^{z_l − m}; returns log Σ_j e^{z_j} (the normaliser)."""
    m = row_max(z)
    acc = 0.0
    for j in range(z.shape[0]):
        t = z[j] - m
        e = math.exp(t) if t > UNDERFLOW else 0.0
        out[j] = e
        acc += e
    inv = 1.0 / acc
    for j in range(z.shape[0]):
        out[j] *= inv
    return m + math.log(acc)
