"""Public kernel API: InfoNCE losses, risk, softmax search weights, Λ(b; z), continuity factor,
search cross-entropy and gradients, on real embeddings, for three layouts.

Every function validates its inputs at the boundary (``numerics.validate``: a ``ValueError`` naming
the argument, its shape or value and what is allowed, before any compiled code runs), then calls a
``prange`` kernel. Embeddings must be float64 or float32 with unit rows (``normalize=True``
normalises them); similarities accumulate in the input precision (float32 dot products in float32
lanes; a float32 array beside a float64 one is widened per product), every exponential, sum and logarithm
in float64; losses are returned as float64. The big array of a call (negatives, pool) is read in its own
dtype and layout, never copied (a Fortran-ordered pool excepted); the remaining copies of (n, d) arrays are
announced by ``validate.InputCopyWarning``. τ outside [1e-3, 1e2] gives a
``validate.OutsideValidatedRangeWarning``; a τ whose result would not be a correct float is refused.

Layouts
-------
* per-anchor: ``anchors (n, d)``, ``positives (n, d)``, ``negatives (n, k, d)``;
* pooled: ``pool (m, d)`` and ``index (n, k)`` of each anchor's negatives (no (n, k, d) copy);
* in-batch: ``anchors (B, d)``, ``positives (B, d)``; the other positives are the negatives.

The data-dependent terms (``b_tau``, ``prop4_bound``) and Theorem 1 on data (``theorem1_bound``) are in
``numerics.api_bounds``, re-exported here; the argument checks all layouts share in ``numerics.api_inputs``.
"""

from __future__ import annotations

import math
import threading
from typing import NamedTuple

import numpy as np

from . import validate as V
from .api_bounds import BTau, Prop4Bound, b_tau, prop4_bound, theorem1_bound  # noqa: F401 - re-exported
from .api_inputs import _brief_repr, _pair, _raw_triplet, _triplet


class Risk(NamedTuple):
    """Mean loss over anchors with its standard error std(ddof=1)/√n (nan when n = 1)."""

    mean: float
    stderr: float
    n: int


class Gradient(NamedTuple):
    """Mean loss and its gradient with respect to each input array (same shapes as the inputs)."""

    loss: float
    anchors: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray

    __repr__ = _brief_repr


# --- per-anchor layout -----------------------------------------------------------------------


def infonce_loss(anchors, positives, negatives, tau, variant="dcl", normalize=False):
    """Per-anchor loss, by ``variant``: "infonce", the paper's ℓ (14) = log(1/k + (1/k) Σ_j e^{(s_j − s⁺)/τ});
    "dcl", the DCL loss ℓ̃ = −s⁺/τ + log((1/k) Σ_j e^{s_j/τ}) (paper §3.4); "standard", the SimCLR
    cross-entropy ℓ_std = −log(e^{s⁺/τ}/(e^{s⁺/τ} + Σ_j e^{s_j/τ})) = ℓ + log k; τ > 0, unit rows.

    Parameters
    ----------
    anchors, positives : (n, d) float64 or float32 arrays with unit rows.
    negatives : (n, k, d) array, k ≥ 1 negatives per anchor.
    tau : float > 0 (accuracy tested on τ ∈ [1e-3, 1e2]).
    variant : "dcl" (default), "infonce" or "standard"; "averaged" is the deprecated name of "dcl"
        (accepted with a DeprecationWarning).
    normalize : bool, divide every row by its norm first (otherwise rows must be unit).

    Returns
    -------
    (n,) float64 array of losses. The standard loss keeps full relative accuracy when it is tiny
    (the positive dominates), because it is computed as log1p(Σ_j e^{(s_j − s⁺)/τ}); ℓ of (14) is that
    minus log k.

    Raises
    ------
    ValueError
        Naming the argument, for bad shapes, dtypes, τ, variant, NaN/inf or non-unit rows. The
        negatives' values are checked inside the loss pass (one read of the (n, k, d) array, not two);
        nothing is returned when they fail.
    """
    from .per_anchor import checked_loss_kernel, checked_loss_kernel_t, loss_kernel

    t = V.tau_value(tau)
    var = V.variant_value(variant)
    if V.flag(normalize, "normalize"):
        a, p, ng = _triplet(anchors, positives, negatives, True)
        out = np.empty(a.shape[0])
        loss_kernel(a, p, ng, t, var, out)
        return _small_dcl(out, var, a, p, lambda rows: ng[rows], t)
    # the (n, k, d) negatives are checked inside the loss pass (one memory read instead of two); the
    # error is raised before anything is returned, exactly as the separate check would raise it
    a, p, ng = _raw_triplet(anchors, positives, negatives)
    a = V.finite_unit_rows(a, "anchors", False)
    p = V.finite_unit_rows(p, "positives", False)
    n, k = ng.shape[:2]
    out, screen = np.empty(n), np.empty(n)
    if ng.flags.f_contiguous and not ng.flags.c_contiguous:  # read in its memory order (no copy)
        checked_loss_kernel_t(a, p, ng.T, t, var, out, screen)
    else:
        checked_loss_kernel(a, p, ng, t, var, out, screen)
    V.raise_bad_blocks(ng, "negatives", screen)
    return _small_dcl(out, var, a, p, lambda rows: ng[rows], t)


#: DCL losses below this are recomputed in the compensated form (``_small_dcl``)
SMALL_DCL = 1e-3


def _small_dcl(out, var, a, p, negs, t):
    """DCL rows with |ℓ̃| < ``SMALL_DCL`` recomputed as ℓ̃ = m + log1p(mean_j expm1(z_j − m)), z_j = (s_j − s⁺)/τ,
    m = max_j z_j: the closing form c − log k of the kernels subtracts two numbers ≈ log k and keeps only
    the absolute accuracy 1e-16·log k (measured 2.1 % relative error at τ = 100, s_j = s⁺ + 1e-12; exactly 0
    for a true 1e-300 at τ = 1e300). Only those rows' negatives are read again (``negs(rows)``)."""
    if var != 0:
        return out
    rows = np.flatnonzero(np.abs(out) < SMALL_DCL)
    if rows.size == 0:
        return out
    a64, p64 = a[rows].astype(np.float64), p[rows].astype(np.float64)
    n64 = negs(rows).astype(np.float64)
    # ⟨a, n_j − p⟩ rather than ⟨a, n_j⟩ − ⟨a, p⟩: close rows subtract exactly (Sterbenz), so z keeps its
    # relative accuracy when s_j − s⁺ is far below the 1e-16 rounding of each similarity
    z = np.einsum("id,ikd->ik", a64, n64 - p64[:, None, :]) / t
    out[rows] = _compensated_dcl(z)
    return out


def _compensated_dcl(z):
    """ℓ̃ = m + log1p(mean_j expm1(z_j − m)), m = max_j z_j, row by row of z (r, k): the DCL loss
    log((1/k) Σ_j e^{z_j}) with no subtraction of two numbers ≈ log k."""
    m = z.max(axis=1)
    return m + np.log1p(np.mean(np.expm1(z - m[:, None]), axis=1))


def _small_dcl_batch(out, var, a, p, t):
    """In-batch twin of ``_small_dcl``: rows with |ℓ̃_i| < ``SMALL_DCL`` recomputed compensated, with
    z_ij = ⟨a_i, p_j − p_i⟩/τ over the negatives j ≠ i (the same Sterbenz-exact difference). The (r, B, d)
    differences are formed a block of rows at a time (at most ``BLOCK_ENTRIES`` entries), never all at once.
    For the column losses of the symmetric form call it with a and p swapped."""
    if var != 0:
        return out
    rows = np.flatnonzero(np.abs(out) < SMALL_DCL)
    if rows.size == 0:
        return out
    B, d = p.shape
    p64 = p.astype(np.float64, copy=False)
    step = max(1, BLOCK_ENTRIES // (B * d))
    for c0 in range(0, rows.size, step):
        rr = rows[c0 : c0 + step]
        a64 = a[rr].astype(np.float64)
        z = np.einsum("rd,rjd->rj", a64, p64[None, :, :] - p64[rr][:, None, :]) / t
        keep = np.ones(z.shape, dtype=bool)
        keep[np.arange(rr.size), rr] = False  # the positive j = i is not a negative
        out[rr] = _compensated_dcl(z[keep].reshape(rr.size, B - 1))
    return out


def risk(losses) -> Risk:
    """Mean of per-anchor losses with standard error std(ddof=1)/√n; serial, fixed-order reduction.

    Parameters
    ----------
    losses : array_like, shape (n,)
        Finite per-anchor losses, n ≥ 1.

    Returns
    -------
    Risk
        ``(mean, stderr, n)``; the mean by ``math.fsum`` (correctly rounded), stderr nan when n = 1.
    """
    x = V.as_array(losses, "losses", "a non-empty finite 1-D array of losses")
    if x.dtype.kind not in "iuf":
        raise ValueError(f"losses must be a non-empty finite 1-D array of real numbers, got dtype {x.dtype}")
    x = x.astype(np.float64, copy=False)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError(f"losses must be a non-empty finite 1-D array, got {_shape(losses)}")
    n = x.size
    mean = float(math.fsum(x) / n)
    se = float(math.sqrt(math.fsum((x - mean) ** 2) / (n - 1) / n)) if n > 1 else math.nan
    return Risk(mean, se, n)


def _shape(x):
    try:
        a = np.asarray(x)
        return f"shape {a.shape}, dtype {a.dtype}"
    except Exception:
        return type(x).__name__


def infonce_risk(anchors, positives, negatives, tau, variant="dcl", normalize=False) -> Risk:
    """Empirical risk (1/n) Σ_i ℓ_i of the per-anchor loss, with its standard error: the paper's R̂_n (1)
    for variant "infonce", the empirical DCL risk (whose mean is R̃) for "dcl".

    Parameters
    ----------
    anchors, positives, negatives, tau, variant, normalize
        As for ``infonce_loss``.

    Returns
    -------
    Risk
        ``(mean, stderr, n)``: the mean loss, std(ddof=1)/√n (nan when n = 1) and n.
    """
    return risk(infonce_loss(anchors, positives, negatives, tau, variant, normalize))


def similarities(anchors, positives, negatives, normalize=False):
    """(s⁺ (n,), s (n, k)) with s⁺_i = ⟨a_i, p_i⟩ and s_ij = ⟨a_i, n_ij⟩, float64."""
    from .per_anchor import similarity_kernel

    a, p, ng = _triplet(anchors, positives, negatives, normalize)
    s_pos = np.empty(a.shape[0])
    s_neg = np.empty(ng.shape[:2])
    similarity_kernel(a, p, ng, s_pos, s_neg)
    return s_pos, s_neg


def softmax_weights(anchors, negatives, tau, normalize=False):
    """Q̂_{τ,k}(x_i, j) = e^{s_ij/τ} / Σ_l e^{s_il/τ}: the empirical softmax search over the negatives.

    Parameters
    ----------
    anchors : (n, d) float64 or float32 array with unit rows.
    negatives : (n, k, d) array with unit rows, k ≥ 1.
    tau : float > 0.
    normalize : bool
        Divide every row by its norm first.

    Returns
    -------
    (n, k) float64 array; each row sums to 1 (the tilted weights of the log-partition).
    """
    from .per_anchor import weights_kernel

    t = V.tau_value(tau)
    a, ng = _pair(anchors, negatives, normalize)
    out = np.empty(ng.shape[:2])
    weights_kernel(a, ng, t, out)
    return out


search_kernel = softmax_weights  #: Q̂_{τ,k}, the paper's name for the same weights


def search_cross_entropy(anchors, negatives, ideal_weights, tau, normalize=False):
    """H_i = −Σ_j P̂_k(x_i, j) log Q̂_{τ,k}(x_i, j): cross-entropy of the learned softmax search against P̂.

    Parameters
    ----------
    anchors : (n, d) float64 or float32 array with unit rows.
    negatives : (n, k, d) array with unit rows.
    ideal_weights : (n, k) array ≥ 0, each row with a positive sum (normalised here to P̂).
    tau : float > 0.
    normalize : bool
        Divide every embedding row by its norm first.

    Returns
    -------
    (n,) float64 array of cross-entropies.
    """
    from .per_anchor import cross_entropy_kernel

    t = V.tau_value(tau)
    a, ng = _pair(anchors, negatives, normalize)
    pw = V.weights_array(ideal_weights, "ideal_weights", ng.shape[:2])
    out = np.empty(a.shape[0])
    cross_entropy_kernel(a, ng, pw, t, out)
    return out


def log_mean_exp(scores, b):
    """Λ(b; z_i) = log((1/k) Σ_j e^{b z_ij}) for every row z_i of ``scores`` (n, k) and every inverse
    temperature in ``b`` (a list of values > 0); returns (n, len(b)) float64, max-shifted (no overflow at
    b·|z| ~ 1e3)."""
    from .per_anchor import log_mean_exp_kernel

    z = V.scores_array(scores, "scores")
    bs = V.betas_array(b, "b")
    out = np.empty((z.shape[0], bs.size))
    log_mean_exp_kernel(z, bs, out)
    return out


def data_continuity_factor(similarities_, gamma=None, tau=None, *, beta=None):
    """exp(Λ(γ; z_i)/(γτ) − Λ(1/τ; z_i)) = ((1/k) Σ_j (k w_ij)^{γτ})^{1/(γτ)}, w = softmax(z/τ):
    the data-dependent factor of the toolkit's continuity family at each row z_i of similarities (n, k).

    gamma : the toolkit's similarity-space exponent γ ≥ 1/τ (power mean exponent q = γτ/(γτ − 1)).
    beta : instead of gamma, the paper's power-mean exponent β ≥ 1 (Prop. 4): the factor at the γ whose
        q equals β, γ = β/(τ(β − 1)) (``derivations.continuity.gamma_from_paper_beta``); β = 1 (γ = ∞)
        gives its limit max_j k w_ij.
    """
    from ._generated import constants as G

    if not hasattr(G, "data_factor"):
        raise NotImplementedError(
            "data_factor has not been generated yet (derivations.continuity.data_factor "
            "is unavailable): run `python -m infonce_bounds.numerics.codegen` once it exists"
        )
    from .per_anchor import data_factor_kernel

    if tau is None:
        raise ValueError("tau must be given (a finite real number > 0)")
    t = V.tau_value(tau)
    if (gamma is None) == (beta is None):
        raise ValueError("give exactly one of gamma (the toolkit's γ ≥ 1/τ) or beta (the paper's β ≥ 1)")
    z = V.scores_array(similarities_, "similarities")
    if beta is not None:
        bp = V.positive_scalar(beta, "beta")
        if bp < 1.0:
            raise ValueError(f"beta must be ≥ 1 (the paper's power-mean exponent), got {beta!r}")
        if bp == 1.0:  # γ = ∞: exp(max_j z_j/τ − Λ(1/τ; z)) = max_j k w_j
            zz = V.as_float64(z, "similarities", "the max form (β = 1) is evaluated in float64")
            return np.exp(zz.max(axis=1) / t - log_mean_exp(zz, [1.0 / t])[:, 0])
        b = bp / (t * (bp - 1.0))
    else:
        b = V.positive_scalar(gamma, "gamma")
        if b * t < 1.0:
            raise ValueError(f"gamma must be ≥ 1/tau = {1 / t:.6g}, got {gamma!r}")
    out = np.empty(z.shape[0])
    data_factor_kernel(z, b, t, out)
    return out


def data_continuity_factor_segment(v, v_prime, gamma=None, tau=None, points=65, *, beta=None):
    """max over t on a grid of ``points`` values in [0, 1] of the data-dependent continuity factor at
    v + t (v′ − v), row by row: the quantity whose supremum over the segment enters the continuity bound.

    v, v_prime : (n, k) similarity vectors (finite); gamma, tau, beta as for ``data_continuity_factor``.
    Returns (n,) float64. A grid maximum is a *lower*
    estimate of the supremum over the segment; raise ``points`` to tighten it.
    """
    why = "the segment v + t(v′ − v) is evaluated in float64"
    z0 = V.as_float64(V.scores_array(v, "v"), "v", why)
    z1 = V.as_float64(V.scores_array(v_prime, "v_prime"), "v_prime", why)
    if z1.shape != z0.shape:
        raise ValueError(f"v_prime must have the shape of v {z0.shape}, got shape {z1.shape}")
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 2:
        raise ValueError(f"points must be an integer ≥ 2, got {points!r}")
    t = np.linspace(0.0, 1.0, int(points))
    path = z0[None] + t[:, None, None] * (z1 - z0)[None]  # (points, n, k)
    vals = data_continuity_factor(path.reshape(-1, z0.shape[1]), gamma, tau, beta=beta).reshape(len(t), -1)
    return vals.max(axis=0)


def infonce_gradient(anchors, positives, negatives, tau, variant="dcl", normalize=False) -> Gradient:
    """Mean loss (1/n) Σ_i ℓ_i and its gradient with respect to anchors, positives and negatives.

    Parameters
    ----------
    anchors, positives, negatives, tau, variant, normalize
        As for ``infonce_loss``. With ``normalize=True`` the loss is evaluated on x/‖x‖ and the
        gradient is taken through the normalisation: ∂/∂x = (g − x̂⟨x̂, g⟩)/‖x‖.

    Returns
    -------
    Gradient
        ``(loss, anchors, positives, negatives)``: the mean loss and the gradient with respect to each
        array as passed (similarities are plain dot products), in the dtype of the inputs.
    """
    from .per_anchor import gradient_kernel

    t = V.tau_value(tau)
    var = V.variant_value(variant)
    normalize = V.flag(normalize, "normalize")
    a0, p0, n0 = _triplet(anchors, positives, negatives, False) if not normalize else (None, None, None)
    if normalize:
        raw = _raw_triplet(anchors, positives, negatives)
        a, p, ng = (V.finite_unit_rows(x, nm, True) for x, nm in zip(raw, ("anchors", "positives", "negatives")))
    else:
        a, p, ng = a0, p0, n0
    n = a.shape[0]
    _gradient_representable(t, 1.0 / n, ng.shape[1], a.dtype)
    loss = np.empty(n)
    g_a, g_p, g_n = np.empty_like(a), np.empty_like(p), np.empty_like(ng)
    gradient_kernel(a, p, ng, t, var, 1.0 / n, loss, g_a, g_p, g_n)
    if normalize:
        g_a, g_p, g_n = (_through_normalisation(x, g) for x, g in zip(raw, (g_a, g_p, g_n)))
    _gradient_finite(t, g_a, g_p, g_n)
    return Gradient(float(math.fsum(loss) / n), g_a, g_p, g_n)


def _gradient_representable(t: float, scale: float, k: int, dtype) -> None:
    """Refuse a τ so large that the typical gradient entry scale/(τ k) (softmax weights average 1/k) falls
    below the normal range of ``dtype`` with fewer than its mantissa's bits left: the gradient would come
    back as subnormal noise or exactly 0 (a wrong number, not a small one)."""
    fi = np.finfo(dtype)
    floor = float(fi.tiny) * 2.0 ** (fi.nmant + 1)
    if scale / (t * k) < floor:
        raise ValueError(
            f"tau = {t!r} is too large for a {np.dtype(dtype)} gradient: its entries ≈ 1/(τ n k) = {scale / (t * k):.3g} "
            f"fall below {floor:.3g}, where {np.dtype(dtype)} keeps no relative accuracy; pass a smaller tau"
        )


def _gradient_finite(t: float, *grads) -> None:
    """Refuse a gradient that overflowed its dtype (float32 outputs at a tiny τ: entries ≈ 1/(τ n))."""
    for g in grads:
        if not np.all(np.isfinite(g)):
            raise ValueError(
                f"tau = {t!r} is too small for a {g.dtype} gradient: its entries ≈ 1/(τ n) overflow {g.dtype}; "
                "pass float64 inputs or a larger tau"
            )


def _through_normalisation(x, g):
    x64 = x.astype(np.float64)
    norm = np.sqrt(np.einsum("...d,...d->...", x64, x64))[..., None]
    xh = x64 / norm
    g64 = g.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # a float32 overflow is refused by _gradient_finite
        return ((g64 - xh * np.einsum("...d,...d->...", xh, g64)[..., None]) / norm).astype(x.dtype)


# --- pooled layout ---------------------------------------------------------------------------


def _pooled(anchors, positives, pool, index, normalize):
    """Anchors and positives C-contiguous in the common dtype; the pool and the index as given (no copy)."""
    a = V.embeddings(anchors, "anchors", 2)
    p = V.embeddings(positives, "positives", 2)
    pl = V.embeddings(pool, "pool", 2)
    V.same_rows(a, "anchors", p, "positives")
    V.same_dim(a, "anchors", p, "positives")
    V.same_dim(a, "anchors", pl, "pool")
    idx = V.index_array(index, "index", a.shape[0], pl.shape[0])
    dt = V.common_dtype(a, p, pl)
    a, p = V.small_operand(a, "anchors", dt, anchors), V.small_operand(p, "positives", dt, positives)
    pl = _pool_rows(pl, pool)
    return (
        V.finite_unit_rows(a, "anchors", normalize),
        V.finite_unit_rows(p, "positives", normalize),
        V.finite_unit_rows(pl, "pool", normalize),
        idx,
    )


#: a pool whose row entries lie further apart than this (bytes) is copied to C order (``_pool_rows``)
POOL_ENTRY_STRIDE_MAX = 64


def _pool_rows(pl, given):
    """The pool as given, unless its rows are scattered (entries of a row more than a cache line apart, e.g.
    Fortran order): then a C-ordered copy, with an ``InputCopyWarning``. Why: the kernels gather pool rows in
    the index's order, and a scattered row costs d cache lines instead of d/8 — measured 5× the CPU time of
    copying first (m = 786432, d = 64, Fortran order: 6.4 s against 1.3 s)."""
    if abs(pl.strides[-1]) <= POOL_ENTRY_STRIDE_MAX:
        return pl
    return V.small_operand(
        pl,
        "pool",
        pl.dtype,
        given,
        "the kernels gather whole pool rows in the index's order, and a row whose "
        "entries are a cache line or more apart costs d cache lines (measured 5× slower than copying first)",
    )


def infonce_loss_pooled(anchors, positives, pool, index, tau, variant="dcl", normalize=False):
    """Per-anchor InfoNCE loss with negatives pool[index[i, :]]: same formulas as ``infonce_loss``.

    Parameters
    ----------
    anchors, positives : (n, d) float64 or float32 arrays with unit rows.
    pool : (m, d) array of unit rows, the shared negatives.
    index : (n, k) integer array with entries in [0, m): anchor i's negatives are ``pool[index[i]]``.
    tau, variant, normalize
        As for ``infonce_loss``.

    Returns
    -------
    (n,) float64 array of losses (no (n, k, d) copy of the negatives is made). The pool is read as given
    (float32 or float64, any strides) unless its rows are scattered (Fortran order): then it is copied to C
    order once, with an ``InputCopyWarning`` (``_pool_rows``). Anchors and positives are brought to one
    C-contiguous dtype (a copy of an (n, d) array, warned, only when they differ).
    """
    from .pooled import loss_kernel

    t = V.tau_value(tau)
    var = V.variant_value(variant)
    a, p, pl, idx = _pooled(anchors, positives, pool, index, normalize)
    out = np.empty(a.shape[0])
    loss_kernel(a, p, pl, idx, t, var, out)
    return _small_dcl(out, var, a, p, lambda rows: pl[idx[rows]], t)


def softmax_weights_pooled(anchors, pool, index, tau, normalize=False):
    """Q̂_{τ,k}(x_i, j) over the negatives pool[index[i, :]]; (n, k) float64."""
    from .pooled import weights_kernel

    t = V.tau_value(tau)
    a = V.embeddings(anchors, "anchors", 2)
    pl = V.embeddings(pool, "pool", 2)
    V.same_dim(a, "anchors", pl, "pool")
    idx = V.index_array(index, "index", a.shape[0], pl.shape[0])
    a = V.finite_unit_rows(V.small_operand(a, "anchors", V.common_dtype(a, pl), anchors), "anchors", normalize)
    pl = V.finite_unit_rows(_pool_rows(pl, pool), "pool", normalize)
    out = np.empty(idx.shape, dtype=np.float64)
    weights_kernel(a, pl, idx, t, out)
    return out


class PooledGradient(NamedTuple):
    """Mean loss and its gradient with respect to anchors, positives and the pool."""

    loss: float
    anchors: np.ndarray
    positives: np.ndarray
    pool: np.ndarray

    __repr__ = _brief_repr


def infonce_gradient_pooled(anchors, positives, pool, index, tau, variant="dcl") -> PooledGradient:
    """Mean loss and its gradient w.r.t. anchors, positives and pool (rows must be unit; plain dot products).

    The pool gradient accumulates over every anchor that uses a pool row, serially in a fixed order.
    """
    from .pooled import coefficient_kernel, scatter_kernel

    t = V.tau_value(tau)
    var = V.variant_value(variant)
    a, p, pl, idx = _pooled(anchors, positives, pool, index, False)
    n, k = idx.shape
    _gradient_representable(t, 1.0 / n, k, a.dtype)
    loss = np.empty(n)
    coef = np.empty((n, k))
    g_a, g_p = np.empty_like(a), np.empty_like(p)
    coefficient_kernel(a, p, pl, idx, t, var, 1.0 / n, loss, coef, g_a, g_p)
    g_pool = np.zeros(pl.shape, dtype=np.float64)
    scatter_kernel(a, idx, coef, g_pool)
    with np.errstate(over="ignore"):  # a float32 overflow is refused just below, naming τ
        g_pool = g_pool.astype(pl.dtype, copy=False)
    _gradient_finite(t, g_a, g_p, g_pool)
    return PooledGradient(float(math.fsum(loss) / n), g_a, g_p, g_pool)


# --- in-batch layout -------------------------------------------------------------------------


def _batch(anchors, positives, normalize):
    """Anchors and positives in one dtype (float64 if either is), each C- or Fortran-ordered as given: BLAS
    reads both orders; only a strided view or the float32 one of a mixed pair is copied (a (B, d) array,
    small beside the B × B similarities), with an ``InputCopyWarning``."""
    a = V.embeddings(anchors, "anchors", 2)
    p = V.embeddings(positives, "positives", 2)
    V.same_rows(a, "anchors", p, "positives")
    V.same_dim(a, "anchors", p, "positives")
    if a.shape[0] < 2:
        raise ValueError(f"anchors must hold a batch of B ≥ 2 rows (k = B − 1 ≥ 1 negatives), got shape {a.shape}")
    dt = V.common_dtype(a, p)
    a, p = (
        x
        if x.dtype == dt and (x.flags.c_contiguous or x.flags.f_contiguous)
        else V.small_operand(x, nm, dt, given, "the similarities S = A Pᵀ come from one BLAS product in one dtype")
        for x, nm, given in ((a, "anchors", anchors), (p, "positives", positives))
    )
    return V.finite_unit_rows(a, "anchors", normalize), V.finite_unit_rows(p, "positives", normalize)


def _similarity_matrix(a, p):
    """S = A Pᵀ from BLAS, in the inputs' dtype (float32 GEMM for float32 inputs)."""
    return np.dot(a, p.T)


#: entries of one block of rows of S = A Pᵀ (2²¹: 16 MB in float64, 512 rows at B = 4096)
BLOCK_ENTRIES = 1 << 21

_workspace = threading.local()


def _block_buffer(rows: int, cols: int, dtype) -> np.ndarray:
    """A (rows, cols) buffer reused across calls from the same thread (at most BLOCK_ENTRIES entries kept).

    Why: a fresh buffer costs a page fault per 4 kB on first write, measured 0.5–1 ms per call at
    B = 1024 (as much as the row pass itself), paid again on every step of a training loop.
    Per thread, so concurrent calls never share one.
    """
    size = rows * cols
    buf = getattr(_workspace, "buf", None)
    if buf is None or buf.dtype != dtype or buf.size < size:
        buf = np.empty(max(size, min(BLOCK_ENTRIES, 4 * size)), dtype=dtype)
        _workspace.buf = buf
    return buf[:size].reshape(rows, cols)


def _in_batch_rows(a, p, t, var):
    """Row losses and logits of the in-batch loss, S computed block by block of rows into one reused buffer.

    Why blocks: the whole B × B matrix is written once and read once (B = 4096: 128 MB in float64),
    and a fresh one costs page faults on every call; a block of rows stays in cache between the GEMM
    and the row pass. Measured at B = 4096, d = 128, float64: 117 ms against 148 ms for the whole S.
    The block buffer is kept between calls (``_block_buffer``).
    """
    from .in_batch import row_kernel, row_kernel32

    B = a.shape[0]
    R = max(1, min(B, BLOCK_ENTRIES // B))
    buf = _block_buffer(R, B, a.dtype)
    rows, logits = np.empty(B), np.empty(B)
    kern = row_kernel32 if _float32_lanes(a.dtype, t) else row_kernel
    pt = p.T
    for r0 in range(0, B, R):
        blk = buf[: min(B, r0 + R) - r0]
        np.dot(a[r0 : r0 + blk.shape[0]], pt, out=blk)
        kern(blk, r0, t, var, rows, logits)
    return rows, logits


#: above this 1/τ the float32 row pass would overflow (float32(1/τ) = inf at τ < 2.9e-39, and (S_ij − M)/τ
#: nears the float32 range well before): the float64 row pass reads the same float32 S instead
FLOAT32_INV_TAU_MAX = 1e30


def _float32_lanes(dtype, t: float) -> bool:
    return dtype == np.float32 and 1.0 / t < FLOAT32_INV_TAU_MAX


def infonce_loss_in_batch(anchors, positives, tau, variant="standard", symmetric=False, normalize=False):
    """In-batch InfoNCE, per anchor: row_i = ℓ(S_ii; S_ij, j ≠ i) with S = A Pᵀ, k = B − 1 negatives.

    Parameters
    ----------
    anchors, positives : (B, d) float64 or float32 arrays with unit rows, B ≥ 2; row i of
        ``positives`` is anchor i's positive and every other row one of its negatives.
    tau : float > 0.
    variant : "standard" (default), "infonce" or "dcl" ("averaged": deprecated name of "dcl")
        "standard" is SimCLR's / ``F.cross_entropy(S/τ, arange(B), reduction="none")``; "infonce" is the
        paper's ℓ (14), the same row minus log(B − 1); "dcl" is the DCL loss ℓ̃ = c_i − log(B − 1) (rows with
        |ℓ̃| < 1e-3 recomputed in the compensated form m + log1p(mean_j expm1(z_j − m)),
        z_j = ⟨a_i, p_j − p_i⟩/τ, so that a near-zero loss keeps its relative accuracy).
    symmetric : bool
        Return (row_i + col_i)/2 (CLIP-style), col_i with positives as anchors.
    normalize : bool
        Divide every row by its norm first.

    Returns
    -------
    (B,) float64 array of losses.
    """
    from .in_batch import col_kernel, row_kernel, row_kernel32

    t = V.tau_value(tau)
    var = V.variant_value(variant)
    symmetric = V.flag(symmetric, "symmetric")
    a, p = _batch(anchors, positives, V.flag(normalize, "normalize"))
    if not symmetric:
        return _small_dcl_batch(_in_batch_rows(a, p, t, var)[0], var, a, p, t)
    S = _similarity_matrix(a, p)
    B = a.shape[0]
    rows, logits = np.empty(B), np.empty(B)
    (row_kernel32 if _float32_lanes(S.dtype, t) else row_kernel)(S, 0, t, var, rows, logits)
    cols = np.empty(B)
    col_kernel(S, t, var, cols, logits)
    return 0.5 * (_small_dcl_batch(rows, var, a, p, t) + _small_dcl_batch(cols, var, p, a, t))


class BatchGradient(NamedTuple):
    """Mean in-batch loss and its gradient with respect to anchors and positives."""

    loss: float
    anchors: np.ndarray
    positives: np.ndarray

    __repr__ = _brief_repr


def infonce_gradient_in_batch(anchors, positives, tau, variant="standard", symmetric=False) -> BatchGradient:
    """Mean in-batch loss (1/B) Σ_i ℓ_i (symmetric: mean of row and column losses) and its gradient:
    with D = ∂loss/∂S, ∂/∂A = D P and ∂/∂P = Dᵀ A (BLAS). Rows must be unit (plain dot products)."""
    from .in_batch import row_grad_kernel, row_kernel

    t = V.tau_value(tau)
    var = V.variant_value(variant)
    a, p = _batch(anchors, positives, False)
    B = a.shape[0]
    _gradient_representable(t, 1.0 / B, B - 1, a.dtype)
    a64, p64 = a.astype(np.float64, copy=False), p.astype(np.float64, copy=False)
    S = np.dot(a64, p64.T)
    rows, logits = np.empty(B), np.empty(B)
    row_kernel(S, 0, t, var, rows, logits)
    D = np.empty((B, B))
    scale = 1.0 / B if not V.flag(symmetric, "symmetric") else 0.5 / B
    row_grad_kernel(S, t, var, logits, scale, D)
    g_a, g_p = D @ p64, D.T @ a64
    loss = math.fsum(rows) / B
    if symmetric:
        St = np.ascontiguousarray(S.T)
        cols, clog = np.empty(B), np.empty(B)
        row_kernel(St, 0, t, var, cols, clog)
        Dc = np.empty((B, B))
        row_grad_kernel(St, t, var, clog, scale, Dc)
        g_p += Dc @ a64
        g_a += Dc.T @ p64
        loss = 0.5 * (loss + math.fsum(cols) / B)
    with np.errstate(over="ignore"):  # a float32 overflow is refused just below, naming τ
        g_a, g_p = g_a.astype(a.dtype, copy=False), g_p.astype(p.dtype, copy=False)
    _gradient_finite(t, g_a, g_p)
    return BatchGradient(float(loss), g_a, g_p)
