"""Data-dependent terms of §4.2 on real tuples: B_τ of Lemma 1 and the right-hand sides of Prop. 4 and (18).

B_τ(z_1 … z_n) = ((1/n) Σ_i ‖z_iᵃ‖²)^{1/2} + ((1/n) Σ_i ‖z_i⁺‖²)^{1/2} + ((1/nk) Σ_ij (‖z_ij⁻‖²)^r)^{1/(2r)},
r = 1/(1 ∧ τ) (Lemma 1; inputs z ∈ R^{d_in}, any finite values, τ > 0). Each term is evaluated in logs,
``exp(Λ(r; L)/(2r))`` with L = log ‖z‖² and Λ the max-shifted log-mean-exp of ``numerics.logsumexp``, because
(‖z‖²)^r overflows for r = 1/τ = 1000 as soon as ‖z‖ > 1.43; the result is then exact to a few ulps.

Prop. 4, per tuple, for two unit-vector embeddings φ, φ' of the same tuple (Δ = φ − φ' at zᵃ, z⁺, z_j⁻):
  paper  (4/τ)‖Δ_a‖ + (1/τ)‖Δ_+‖ + (3/τ) e^{2/(βτ)} M_β,           M_β = ((1/k) Σ_j ‖Δ_j‖^β)^{1/β}, β ≥ 1;
  ours   (2W_k/τ)‖Δ_a‖ + (W_k/τ)‖Δ_+‖ + (N_k^{1/β}/τ) M_β           (``derivations.paper.prop4``, proved);
  (18)   (√6/τ)(‖Δ_a‖² + ‖Δ_+‖² + max_j ‖Δ_j‖²)^{1/2}               (ℓ∞ route, ``derivations.paper.eq16_18``);
beside the actual |ℓ(φ) − ℓ(φ')|, ℓ of (14) through the generated closing formula (stable log-sum-exp).
The coefficients are the generated functions of ``numerics._generated.constants`` (``KERNEL_FORMULAS`` of
prop4, eq16_18, lemma1). M_β is computed as max_j ‖Δ_j‖ · exp(Λ(β; log(‖Δ_j‖/max))/β), so β up to 1e6 and
β = ∞ (M_∞ = max_j ‖Δ_j‖) are exact; for β/2 an integer ≤ 64 (Lemma 1's β = 2/τ at the usual τ) the terms
(‖Δ_j‖/max)^β are binary powers of ‖Δ_j‖²/max² instead (no logarithm or exponential per negative); the paper's
e^{2/(βτ)} is carried as a logarithm and multiplied in only at the end (``numerics.api.prop4_bound`` refuses
where the product is not a float64).

Kernels here are ``prange`` over anchors with private outputs; the O(n) closing arithmetic (coefficients,
sums over anchors in a fixed order) is done by ``numerics.api``. Validation happens there, never here.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from ._generated import constants as G
from ._jit import dot_helper, helper, kernel, poly_helper
from .logsumexp import UNDERFLOW, dot, logsumexp, row_max, sum_exp_shifted

#: anchors whose negatives are read side by side in one thread (as ``per_anchor.STREAMS``: more cache
#: lines in flight per core on a memory-bound pass)
STREAMS = 4
PROP4_STREAMS = 4


@dot_helper
def _sq_norm(x):
    """Σ_t x_t² accumulated in float64 (raw inputs: a float32 sum of squares overflows at |x| ≈ 1e19)."""
    acc = 0.0
    for t in range(x.shape[0]):
        v = np.float64(x[t])
        acc += v * v
    return acc


@dot_helper
def _sq_dist(x, y):
    """‖x − y‖² accumulated in float64."""
    acc = 0.0
    for t in range(x.shape[0]):
        v = np.float64(x[t]) - np.float64(y[t])
        acc += v * v
    return acc


@dot_helper
def _pair_terms(a, x, a2, x2):
    """(⟨a, x⟩, ‖x‖², ⟨a2, x2⟩, ‖x2‖², ‖x − x2‖²) in one pass over the two rows, accumulated in the inputs'
    precision across vector lanes like ``logsumexp.dot`` (float32: twice the lanes; error ≤ ~12·2⁻²⁴ relative
    for unit rows), returned as float64. One fused loop instead of three: each row is read once."""
    zero = x.dtype.type(0)
    s = zero
    nn = zero
    s2 = zero
    nn2 = zero
    dd = zero
    for t in range(x.shape[0]):
        u = x[t]
        v = x2[t]
        s += a[t] * u
        nn += u * u
        s2 += a2[t] * v
        nn2 += v * v
        w = u - v
        dd += w * w
    return np.float64(s), np.float64(nn), np.float64(s2), np.float64(nn2), np.float64(dd)


@helper
def _log_sq_norm_rescaled(x):
    """log ‖x‖² through x/max|x_t| (for rows whose Σ x_t² under- or overflows); −inf for the zero row, NaN
    for a row holding NaN or ±inf."""
    amax = 0.0
    for t in range(x.shape[0]):
        v = abs(np.float64(x[t]))
        if not math.isfinite(v):
            return math.nan
        amax = v if v > amax else amax
    if amax == 0.0:
        return -math.inf
    acc = 0.0
    for t in range(x.shape[0]):
        v = np.float64(x[t]) / amax
        acc += v * v
    return 2.0 * math.log(amax) + math.log(acc)


@helper
def log_sq_norm(x):
    """log ‖x‖² (−inf for the zero row, NaN for a non-finite one). The rare rescaled route is a separate
    function: kept inline, its loops made this one 2× slower (measured) on the common path."""
    s = _sq_norm(x)
    if s > 1e-290 and s < 1e300:
        return math.log(s)
    return _log_sq_norm_rescaled(x)


_LN2 = 0.6931471805599453
_SQRT2 = 1.4142135623730951
_MANT = np.int64((1 << 52) - 1)
_ONE_BITS = np.int64(1023 << 52)
_ATANH = tuple(2.0 / (2 * i + 1) for i in range(12))  # log f = Σ_i 2 s^{2i+1}/(2i + 1), s = (f − 1)/(f + 1)


@poly_helper
def log_normal(x, out, scratch):
    """out_j = log x_j for positive normal float64 x_j (1e-290 < x_j < 1e300 here), vectorisable: no libm call;
    ``scratch`` is an int64 array of x's length.

    x = 2^e f with f ∈ [√½, √2) from the exponent bits; log f = 2 atanh(s) = Σ_{i<12} 2 s^{2i+1}/(2i + 1),
    s = (f − 1)/(f + 1), |s| ≤ 0.1716, truncation < 2·0.1716²⁵/25 < 1e-20; then e ln 2 + log f. Why: one
    scalar ``math.log`` per negative was the cost that kept B_τ's pass above the memory-read floor (measured
    30 ns of 85 per negative); tests/test_data_bounds.py compares it with ``numpy.log`` (≤ 2 ulp measured)."""
    bits = x.view(np.int64)
    for j in range(x.shape[0]):
        scratch[j] = (bits[j] & _MANT) | _ONE_BITS
        out[j] = np.float64((bits[j] >> 52) - 1023)
    fv = scratch.view(np.float64)
    for j in range(x.shape[0]):
        f = fv[j]
        big = f > _SQRT2
        f = f * 0.5 if big else f
        ef = out[j] + 1.0 if big else out[j]
        s = (f - 1.0) / (f + 1.0)
        s2 = s * s
        q = _ATANH[11]
        q = q * s2 + _ATANH[10]
        q = q * s2 + _ATANH[9]
        q = q * s2 + _ATANH[8]
        q = q * s2 + _ATANH[7]
        q = q * s2 + _ATANH[6]
        q = q * s2 + _ATANH[5]
        q = q * s2 + _ATANH[4]
        q = q * s2 + _ATANH[3]
        q = q * s2 + _ATANH[2]
        q = q * s2 + _ATANH[1]
        q = q * s2 + _ATANH[0]
        out[j] = ef * _LN2 + s * q


@helper
def _half_log(d2, out, scratch):
    """out_j = log √d2_j = ½ log d2_j (−inf for d2_j = 0): ``log_normal`` on the row, ``math.log`` where d2_j
    is outside its range."""
    log_normal(d2, out, scratch)
    for j in range(d2.shape[0]):
        v = d2[j]
        if v > 1e-290 and v < 1e300:
            out[j] *= 0.5
        else:
            out[j] = 0.5 * math.log(v) if v > 0.0 else -math.inf


@helper
def _row_power_sum(L, r, out_m, out_s, i):
    """out_m[i] = max_j L_j, out_s[i] = Σ_j e^{r (L_j − max)} (0 when every L_j is −inf)."""
    m = row_max(L)
    out_m[i] = m
    out_s[i] = 0.0 if m == -math.inf else sum_exp_shifted(L, m, r)


@kernel
def b_tau_kernel(anchors, positives, negatives, r, la, lp, mneg, sneg, bad):
    """la[i] = log ‖z_iᵃ‖², lp[i] = log ‖z_i⁺‖², and per anchor the negatives' max_j L_ij and
    Σ_j e^{r (L_ij − max)}, L_ij = log ‖z_ij⁻‖² (per-anchor layout (n, k, d_in)). bad[i] = 1 when a negative
    of anchor i holds NaN or ±inf: the finiteness check rides on this pass (one read of the (n, k, d_in)
    array instead of two); ``numerics.api.b_tau`` names the entry and raises before returning."""
    n, k = negatives.shape[0], negatives.shape[1]
    for grp in prange((n + STREAMS - 1) // STREAMS):
        i0 = grp * STREAMS
        cnt = min(STREAMS, n - i0)
        L = np.empty((cnt, k))
        sq = np.empty((cnt, k))
        scratch = np.empty(k, dtype=np.int64)
        nan = np.zeros(cnt)
        for j in range(k):
            for g in range(cnt):
                sq[g, j] = _sq_norm(negatives[i0 + g, j])
        for g in range(cnt):
            log_normal(sq[g], L[g], scratch)
            for j in range(k):  # rows outside the normal range (zero, tiny, huge, non-finite): the exact route
                v = sq[g, j]
                if not (v > 1e-290 and v < 1e300):
                    w = _log_sq_norm_rescaled(negatives[i0 + g, j])
                    L[g, j] = w
                    nan[g] += 0.0 if w == w else 1.0
        for g in range(cnt):
            i = i0 + g
            bad[i] = nan[g]
            la[i] = log_sq_norm(anchors[i])
            lp[i] = log_sq_norm(positives[i])
            _row_power_sum(L[g], r, mneg, sneg, i)


@kernel
def log_sq_norms_kernel(x, out):
    """out[r] = log ‖x_r‖² for every row of a (m, d_in) array."""
    for q in prange(x.shape[0]):
        out[q] = log_sq_norm(x[q])


@kernel
def b_tau_pooled_kernel(lpool, index, r, mneg, sneg):
    """The negatives' part of ``b_tau_kernel`` from the pool's log ‖·‖² (computed once per pool row)."""
    n, k = index.shape[0], index.shape[1]
    for i in prange(n):
        L = np.empty(k)
        for j in range(k):
            L[j] = lpool[index[i, j]]
        _row_power_sum(L, r, mneg, sneg, i)


@helper
def _power_mean_log(ld, beta):
    """(log max_j Δ_j, log M_β) from ld_j = log Δ_j (−inf for Δ_j = 0): M_β = max · exp(Λ(β; ld − max)/β)."""
    m = row_max(ld)
    if m == -math.inf:
        return m, m
    return m, m + math.log(sum_exp_shifted(ld, m, beta) / ld.shape[0]) / beta


#: largest h = β/2 for which ``_power_mean_log_sq`` forms the terms (Δ_j/Δ_max)^β = (Δ_j²/Δ_max²)^h by binary powering
#: (≤ 2·log2(h) multiplications each) instead of a logarithm and an exponential per negative: Lemma 1's β = 1 ∨ 2/τ is
#: an even integer at the usual τ (0.05, 0.1, 0.2, 0.25, 0.5, 1), and the two transcendental passes over the k
#: negatives cost ~7 % of the Prop. 4 kernel's CPU time in float32 (benchmarks/RESULTS.md, the Prop. 4 closing)
POWER_H_MAX = 64


@dot_helper
def _row_sum(x):
    """Σ_j x_j (vector lanes: the terms are ≥ 0, so reassociation changes rounding only)."""
    acc = 0.0
    for j in range(x.shape[0]):
        acc += x[j]
    return acc


@helper
def _power_mean_log_sq(sq, beta, ld, scratch, r, acc):
    """(log max_j Δ_j, log M_β) from sq_j = Δ_j² (row scratch ``ld``, ``scratch``, ``r``, ``acc`` of the row's length).

    M_β = Δ_max ((1/k) Σ_j (sq_j/sq_max)^h)^{1/β}, h = β/2. For an integer h ≤ POWER_H_MAX each term is a binary power
    of r_j = sq_j/sq_max ∈ [0, 1] (relative error ≲ (h + 2 log₂ h)·2⁻⁵³, as e^{β(log Δ_j − log Δ_max)} carries its
    argument's error times β; the two routes agree to 1e-11 and both match 50 digits, tests/test_data_bounds.py); a term below e^{−708} is 0 (r_j < e^{−708/h}), as ``exp_terms`` cuts, so no product is subnormal.
    Otherwise (or for a NaN/inf row, which the screen then refuses) the logarithm route ``_power_mean_log``."""
    h = 0.5 * beta
    e = int(h)
    m2 = row_max(sq)
    if e != h or e < 1 or e > POWER_H_MAX or not (m2 < math.inf):
        _half_log(sq, ld, scratch)
        return _power_mean_log(ld, beta)
    if m2 == 0.0:
        return -math.inf, -math.inf
    thr = math.exp(UNDERFLOW / h)
    inv = 1.0 / m2
    if math.isinf(inv):  # sq_max subnormal: divide instead
        for j in range(sq.shape[0]):
            v = sq[j] / m2
            r[j] = v if v >= thr else 0.0
    else:
        for j in range(sq.shape[0]):
            v = sq[j] * inv
            r[j] = v if v >= thr else 0.0
    first = True
    while e > 0:
        if e & 1:
            if first:
                acc[:] = r
                first = False
            else:
                for j in range(r.shape[0]):
                    acc[j] *= r[j]
        e >>= 1
        if e > 0:
            for j in range(r.shape[0]):
                r[j] *= r[j]
    lm = 0.5 * math.log(m2)
    return lm, lm + math.log(_row_sum(acc) / sq.shape[0]) / beta


@helper
def _close_pair(z, z2, k):
    """|ℓ(φ) − ℓ(φ')| from the two rows of scaled similarity gaps (the generated closing formula of (14))."""
    kk = np.float64(k)
    return abs(G.infonce_from_logit(logsumexp(z), kk) - G.infonce_from_logit(logsumexp(z2), kk))


@kernel
def prop4_kernel(a, p, ng, a2, p2, ng2, tau, beta, da, dp, lmax, lpm, gap, screen, screen2):
    """Per tuple i: da = ‖Δ_a‖, dp = ‖Δ_+‖, lmax = log max_j ‖Δ_j‖, lpm = log M_β, gap = |ℓ(φ) − ℓ(φ')|
    (per-anchor layout: φ's rows a, p, ng and φ''s rows a2, p2, ng2). The (n, k, d) arrays are read once,
    both in the same loop, ``PROP4_STREAMS`` anchors side by side; the same pass screens their unit norms as
    ``per_anchor.checked_loss_kernel`` does (screen[i] = max_j | ‖ng_ij‖² − 1 |, NaN if not finite), so the
    boundary check costs no second read (``validate.raise_bad_blocks`` then checks flagged blocks exactly)."""
    n, k = ng.shape[0], ng.shape[1]
    inv_tau = 1.0 / tau
    for grp in prange((n + PROP4_STREAMS - 1) // PROP4_STREAMS):
        i0 = grp * PROP4_STREAMS
        cnt = min(PROP4_STREAMS, n - i0)
        z = np.empty((cnt, k))
        z2 = np.empty((cnt, k))
        ld = np.empty(k)  # the logarithm route's row (β/2 not an integer ≤ POWER_H_MAX)
        sq = np.empty((cnt, k))
        scratch = np.empty(k, dtype=np.int64)
        rbuf = np.empty(k)
        acc = np.empty(k)
        s_pos = np.empty(cnt)
        s_pos2 = np.empty(cnt)
        dev = np.zeros(cnt)
        dev2 = np.zeros(cnt)
        total = np.zeros(cnt)  # Σ_j (‖ng_ij‖² + ‖ng2_ij‖²): NaN or inf as soon as one term is
        for g in range(cnt):
            s_pos[g] = dot(a[i0 + g], p[i0 + g])
            s_pos2[g] = dot(a2[i0 + g], p2[i0 + g])
        for j in range(k):
            for g in range(cnt):
                i = i0 + g
                s, nn, s2, nn2, d2 = _pair_terms(a[i], ng[i, j], a2[i], ng2[i, j])
                z[g, j] = (s - s_pos[g]) * inv_tau
                z2[g, j] = (s2 - s_pos2[g]) * inv_tau
                e, e2 = abs(nn - 1.0), abs(nn2 - 1.0)
                dev[g] = e if e > dev[g] else dev[g]
                dev2[g] = e2 if e2 > dev2[g] else dev2[g]
                total[g] += nn + nn2
                sq[g, j] = d2
        for g in range(cnt):
            i = i0 + g
            fin = math.isfinite(total[g])
            screen[i] = dev[g] if fin else math.nan
            screen2[i] = dev2[g] if fin else math.nan
            da[i] = math.sqrt(_sq_dist(a[i], a2[i]))
            dp[i] = math.sqrt(_sq_dist(p[i], p2[i]))
            lmax[i], lpm[i] = _power_mean_log_sq(sq[g], beta, ld, scratch, rbuf, acc)
            gap[i] = _close_pair(z[g], z2[g], k)


@kernel
def log_row_dist_kernel(x, y, out):
    """out[r] = log ‖x_r − y_r‖ (−inf for equal rows)."""
    for q in prange(x.shape[0]):
        d2 = _sq_dist(x[q], y[q])
        out[q] = 0.5 * math.log(d2) if d2 > 0.0 else -math.inf


@kernel
def prop4_pooled_kernel(a, p, pool, a2, p2, pool2, index, lpool, tau, beta, da, dp, lmax, lpm, gap):
    """``prop4_kernel`` for the pooled layout: negatives pool[index[i, j]] (φ) and pool2[index[i, j]] (φ'),
    lpool[r] = log ‖pool[r] − pool2[r]‖ computed once per pool row (``log_row_dist_kernel``)."""
    n, k = index.shape[0], index.shape[1]
    inv_tau = 1.0 / tau
    for i in prange(n):
        z = np.empty(k)
        z2 = np.empty(k)
        ld = np.empty(k)
        s_pos = dot(a[i], p[i])
        s_pos2 = dot(a2[i], p2[i])
        for j in range(k):
            q = index[i, j]
            z[j] = (dot(a[i], pool[q]) - s_pos) * inv_tau
            z2[j] = (dot(a2[i], pool2[q]) - s_pos2) * inv_tau
            ld[j] = lpool[q]
        da[i] = math.sqrt(_sq_dist(a[i], a2[i]))
        dp[i] = math.sqrt(_sq_dist(p[i], p2[i]))
        lmax[i], lpm[i] = _power_mean_log(ld, beta)
        gap[i] = _close_pair(z, z2, k)
