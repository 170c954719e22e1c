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
"""

from __future__ import annotations

import math
import threading
from typing import NamedTuple

import numpy as np

from . import validate as V


def _brief(value) -> str:
    """A field in a short repr: an array by its shape, dtype and range (a 10⁶-row array is one line), a float to 6
    significant digits."""
    if isinstance(value, np.ndarray):
        if value.size and np.issubdtype(value.dtype, np.number):
            with np.errstate(all="ignore"):
                lo, hi = np.nanmin(value), np.nanmax(value)
            return f"array(shape={value.shape}, {value.dtype}, range [{lo:.6g}, {hi:.6g}])"
        return f"array(shape={value.shape}, {value.dtype})"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    return repr(value)


def _brief_repr(self) -> str:
    """``Name(field=…, …)`` with every array summarised (``_brief``): the repr of a result is a few lines."""
    return f"{type(self).__name__}(" + ", ".join(f"{k}={_brief(v)}" for k, v in zip(self._fields, self)) + ")"


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


def _triplet(anchors, positives, negatives, normalize):
    """Shapes and dtypes checked (``_raw_triplet``), then finite unit rows (or normalised)."""
    a, p, ng = _raw_triplet(anchors, positives, negatives)
    a = V.finite_unit_rows(a, "anchors", normalize)
    p = V.finite_unit_rows(p, "positives", normalize)
    ng = V.finite_unit_rows(ng, "negatives", normalize)
    return a, p, ng


def _pair(anchors, negatives, normalize):
    a = V.embeddings(anchors, "anchors", 2)
    ng = V.embeddings(negatives, "negatives", 3)
    V.same_rows(a, "anchors", ng, "negatives")
    V.same_dim(a, "anchors", ng, "negatives")
    a = V.small_operand(a, "anchors", V.common_dtype(a, ng), anchors)
    return V.finite_unit_rows(a, "anchors", normalize), V.finite_unit_rows(ng, "negatives", normalize)


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


def _raw_triplet(anchors, positives, negatives):
    """The three embedding arrays with consistent shapes (no norm check): the negatives as given (dtype and
    strides), anchors and positives C-contiguous in the common dtype (``validate.small_operand``)."""
    a = V.embeddings(anchors, "anchors", 2)
    p = V.embeddings(positives, "positives", 2)
    ng = V.embeddings(negatives, "negatives", 3)
    V.same_rows(a, "anchors", p, "positives")
    V.same_rows(a, "anchors", ng, "negatives")
    V.same_dim(a, "anchors", p, "positives")
    V.same_dim(a, "anchors", ng, "negatives")
    dt = V.common_dtype(a, p, ng)
    V.refuse_kernel_scratch(ng, "negatives")  # O(k) working rows per thread: a huge k is refused, not an OOM
    return V.small_operand(a, "anchors", dt, anchors), V.small_operand(p, "positives", dt, positives), ng


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


# --- data-dependent terms of §4.2 (numerics.data_bounds) ------------------------------------------


class BTau(NamedTuple):
    """B_τ of Lemma 1 and its three parts: value = anchors + positives + negatives (power = r = 1/(1 ∧ τ))."""

    value: float
    anchors: float
    positives: float
    negatives: float
    tau: float
    power: float


def _log_mean_exp(v: np.ndarray, b: float) -> float:
    """Λ(b; v) = log mean_i e^{b v_i} through the one log-sum-exp (−inf when every v_i is −inf)."""
    from .logsumexp import logsumexp

    v = np.ascontiguousarray(v, dtype=np.float64)
    return float(logsumexp(b * v)) - math.log(v.size)


def _root_mean_power(logs: np.ndarray, r: float) -> float:
    """((1/N) Σ_i e^{r L_i})^{1/(2r)} = exp(Λ(r; L)/(2r)) for L_i = log ‖z_i‖² (0 when every z_i is 0)."""
    lme = _log_mean_exp(logs, r)
    return 0.0 if lme == -math.inf else math.exp(lme / (2.0 * r))


def b_tau(anchors, positives, negatives, tau, *, index=None) -> BTau:
    """B_τ(z_1 … z_n) = ((1/n) Σ‖z_iᵃ‖²)^{1/2} + ((1/n) Σ‖z_i⁺‖²)^{1/2} + ((1/nk) Σ_ij ‖z_ij⁻‖^{2/(1∧τ)})^{(1∧τ)/2}
    (Lemma 1; inputs z ∈ R^{d_in}, any finite values, τ > 0).

    Parameters
    ----------
    anchors, positives : (n, d_in) float64 or float32 arrays of raw inputs (not embeddings: no norm condition).
    negatives : (n, k, d_in) array (per-anchor layout), or, with ``index``, a pool (m, d_in).
    tau : float > 0.
    index : (n, k) integer array of pool rows (pooled layout), or None.

    Returns
    -------
    BTau(value, anchors, positives, negatives, tau, power): every term is evaluated in logs
    (``numerics.data_bounds``), so the exponent 2/τ = 2000 at τ = 1e-3 does not overflow.

    Raises
    ------
    ValueError naming the argument: bad shapes or dtypes, NaN/inf inputs, τ ≤ 0, an index outside the pool,
    or a B_τ larger than the float64 range.
    """
    from ._generated.constants import b_tau_power
    from .data_bounds import b_tau_kernel, b_tau_pooled_kernel, log_sq_norms_kernel

    t = V.tau_value(tau)
    r = float(b_tau_power(t))
    if index is None:
        a, p, ng = _raw_triplet(anchors, positives, negatives)
        n = a.shape[0]
        la, lp, mneg, sneg, bad = (np.empty(n) for _ in range(5))
        b_tau_kernel(a, p, ng, r, la, lp, mneg, sneg, bad)
        # finiteness: screened in the kernel's pass; the flagged rows are checked here to name the entry
        for x, nm, flagged in (
            (a, "anchors", np.isnan(la)),
            (p, "positives", np.isnan(lp)),
            (ng, "negatives", bad > 0),
        ):
            if flagged.any():
                V.finite_inputs(x, nm)  # raises, naming the first bad entry (only reached on bad input)
        nk = ng.shape[0] * ng.shape[1]
    else:
        a = V.embeddings(anchors, "anchors", 2)
        p = V.embeddings(positives, "positives", 2)
        pl = V.embeddings(negatives, "negatives", 2)
        V.same_rows(a, "anchors", p, "positives")
        V.same_dim(a, "anchors", p, "positives")
        V.same_dim(a, "anchors", pl, "negatives")
        dt = V.common_dtype(a, p, pl)
        a = V.small_operand(a, "anchors", dt, anchors)
        p = V.small_operand(p, "positives", dt, positives)
        pl = V.small_operand(pl, "negatives", dt, negatives)
        idx = V.index_array(index, "index", a.shape[0], pl.shape[0])
        n = a.shape[0]
        la, lp, lpool = np.empty(n), np.empty(n), np.empty(pl.shape[0])
        log_sq_norms_kernel(a, la)
        log_sq_norms_kernel(p, lp)
        log_sq_norms_kernel(pl, lpool)
        for x, nm, lg in ((a, "anchors", la), (p, "positives", lp), (pl, "negatives", lpool)):
            if np.isnan(lg).any():  # a row holding NaN or ±inf: name the entry
                V.finite_inputs(x, nm)
        mneg, sneg = np.empty(n), np.empty(n)
        b_tau_pooled_kernel(lpool, idx, r, mneg, sneg)
        nk = idx.shape[0] * idx.shape[1]
    with np.errstate(divide="ignore"):  # log 0 = −inf for rows of zero negatives: they add nothing
        row_logs = np.where(np.isfinite(mneg), r * mneg + np.log(sneg), -math.inf)
    from .logsumexp import logsumexp

    lneg = float(logsumexp(np.ascontiguousarray(row_logs))) - math.log(nk)
    neg = 0.0 if lneg == -math.inf else math.exp(lneg / (2.0 * r))
    anc, pos = _root_mean_power(la, 1.0), _root_mean_power(lp, 1.0)
    value = anc + pos + neg
    if not math.isfinite(value):
        raise ValueError(f"B_τ of these inputs exceeds the float64 range (tau = {t!r}); rescale the inputs")
    return BTau(value, anc, pos, neg, t, r)


class Prop4Bound(NamedTuple):
    """Prop. 4 on data, per tuple i (arrays of shape (n,)) and aggregated over the n tuples.

    actual = |ℓ(φ, z_i) − ℓ(φ', z_i)| (ℓ of (14)); paper, ours = Prop. 4's right-hand side as printed and
    sharpened; linf = (18)'s right-hand side; rho_info = ρ_n^info(φ, φ') = (mean_i actual_i²)^{1/2};
    rho_paper, rho_ours = the Lemma-1 step (51): Minkowski in R^n applied to the three terms,
    c_a (mean ‖Δ_a‖²)^{1/2} + c_+ (mean ‖Δ_+‖²)^{1/2} + c_− (mean M_β²)^{1/2} ≥ ρ_n^info;
    rho_linf = (mean_i linf_i²)^{1/2}. delta_a, delta_p, power_mean, max_neg: the per-tuple distances."""

    actual: np.ndarray
    paper: np.ndarray
    ours: np.ndarray
    linf: np.ndarray
    rho_info: float
    rho_paper: float
    rho_ours: float
    rho_linf: float
    delta_a: np.ndarray
    delta_p: np.ndarray
    power_mean: np.ndarray
    max_neg: np.ndarray
    tau: float
    beta: float

    __repr__ = _brief_repr


def _prop4_shapes(phi, name, pooled):
    """One embedding map's three arrays, validated in shape (no conversion yet), and the arrays as given."""
    second = "pool" if pooled else "negatives"
    given = V.embedding_map(phi, name, "pool (m, d)" if pooled else "negatives (n, k, d)")
    a = V.embeddings(given[0], f"{name} anchors", 2)
    p = V.embeddings(given[1], f"{name} positives", 2)
    ng = V.embeddings(given[2], f"{name} {second}", 2 if pooled else 3)
    V.same_rows(a, f"{name} anchors", p, f"{name} positives")
    V.same_dim(a, f"{name} anchors", p, f"{name} positives")
    V.same_dim(a, f"{name} anchors", ng, f"{name} {second}")
    if not pooled:
        V.same_rows(a, f"{name} anchors", ng, f"{name} negatives")
    return given, (a, p, ng)


def _prop4_arrays(given, arrays, name, pooled, normalize, screened, dt):
    """The map's anchors and positives as C-contiguous ``dt`` (a copy of a caller's array is announced), the
    negatives or pool as given (their dtype and strides: a broadcast of 10⁹ negatives is not copied), with finite
    unit rows."""
    names = ("anchors", "positives", "pool" if pooled else "negatives")
    a, p = (V.small_operand(x, f"{name} {nm}", dt, g) for x, nm, g in zip(arrays[:2], names[:2], given[:2]))
    ng = arrays[2]
    a = V.finite_unit_rows(a, f"{name} anchors", normalize)
    p = V.finite_unit_rows(p, f"{name} positives", normalize)
    if not screened:  # else the per-anchor kernel screens the (n, k, d) rows in its own pass
        ng = V.finite_unit_rows(ng, f"{name} {names[2]}", normalize)
    return a, p, ng


def _scaled(log_coef: float, log_x: np.ndarray, what: str, t: float, b: float) -> np.ndarray:
    """e^{log_coef + log_x} per tuple (0 where x = 0), refusing a product outside the float64 range."""
    with np.errstate(over="ignore"):
        out = np.where(np.isfinite(log_x), np.exp(log_coef + log_x), 0.0)
    if not np.all(np.isfinite(out)):
        raise ValueError(
            f"{what} exceeds the float64 range at tau = {t!r}, beta = {b!r} (its factor e^{{2/(βτ)}} is "
            f"e^{2 / (b * t):.4g}); take beta ≥ {2 / (t * 700):.4g} so that 2/(βτ) ≤ 700"
        )
    return out


def prop4_bound(phi, phi_prime, tau, beta, *, index=None, normalize=False) -> Prop4Bound:
    """|ℓ(φ, z) − ℓ(φ', z)| ≤ (4/τ)‖Δ_a‖ + (1/τ)‖Δ_+‖ + (3/τ) e^{2/(βτ)} ((1/k) Σ_j ‖Δ_j‖^β)^{1/β} (Prop. 4, per
    tuple), beside ours (2W_k/τ, W_k/τ, N_k^{1/β}/τ), the ℓ∞ route (18) and the actual difference; τ > 0, β ≥ 1.

    Parameters
    ----------
    phi, phi_prime : the two embedding maps evaluated on the same tuples, each a tuple
        (anchors (n, d), positives (n, d), negatives (n, k, d)), or with ``index`` (anchors, positives, pool (m, d)),
        float64 or float32 with unit rows (``normalize=True`` normalises them).
    tau : float > 0 (tested on [1e-3, 1e2]).
    beta : Prop. 4's power-mean exponent, β ≥ 1; ``math.inf`` gives the max over negatives.
    index : (n, k) integer array of pool rows (pooled layout; shared by φ and φ'), or None.

    Returns
    -------
    Prop4Bound (see its docstring): per-tuple float64 arrays and the aggregates ρ_n^info and Lemma 1's (51).
    The coefficients are the generated ``KERNEL_FORMULAS`` of ``derivations.paper.prop4`` and ``eq16_18``.
    The actual difference is two losses subtracted: absolute accuracy ≈ 1e-16·|ℓ| (float64).

    Raises
    ------
    ValueError naming the argument (shapes, dtypes, NaN/inf, non-unit rows, τ, β, index), or when the paper's
    right-hand side exceeds the float64 range (e^{2/(βτ)} for βτ < 2/700 and some Δ_j ≠ 0).
    """
    from ._generated import constants as G
    from .data_bounds import log_row_dist_kernel, prop4_kernel, prop4_pooled_kernel

    t = V.tau_value(tau)
    b = V.beta_value(beta)
    pooled = index is not None
    screened = not pooled and not V.flag(normalize, "normalize")
    g1, m1 = _prop4_shapes(phi, "phi", pooled)
    g2, m2 = _prop4_shapes(phi_prime, "phi_prime", pooled)
    for x, y, nm in zip(m1, m2, ("anchors", "positives", "pool" if pooled else "negatives")):
        if x.shape != y.shape:
            raise ValueError(f"phi_prime {nm} must have the shape of phi {nm} {x.shape}, got shape {y.shape}")
    dt = V.common_dtype(*m1, *m2)  # the small arrays of both maps in one dtype; the big ones as given
    a, p, ng = _prop4_arrays(g1, m1, "phi", pooled, normalize, screened, dt)
    a2, p2, ng2 = _prop4_arrays(g2, m2, "phi_prime", pooled, normalize, screened, dt)
    n = a.shape[0]
    kb = b if math.isfinite(b) else 1.0  # β = ∞: the kernel's power mean is unused (M_∞ = max)
    da, dp, lmax, lpm, gap = (np.empty(n) for _ in range(5))
    if pooled:
        idx = V.index_array(index, "index", n, ng.shape[0])
        lpool = np.empty(ng.shape[0])
        log_row_dist_kernel(ng, ng2, lpool)
        prop4_pooled_kernel(a, p, ng, a2, p2, ng2, idx, lpool, t, kb, da, dp, lmax, lpm, gap)
        k = idx.shape[1]
    else:
        screen, screen2 = np.zeros(n), np.zeros(n)
        prop4_kernel(a, p, ng, a2, p2, ng2, t, kb, da, dp, lmax, lpm, gap, screen, screen2)
        if screened:  # raises before anything is returned, naming the first bad row
            V.raise_bad_blocks(ng, "phi negatives", screen)
            V.raise_bad_blocks(ng2, "phi_prime negatives", screen2)
        k = ng.shape[1]
    if not math.isfinite(b):
        lpm = lmax
    kf = float(k)
    inv_b = 0.0 if not math.isfinite(b) else 1.0 / b
    log_neg_paper = (
        math.log(3.0) - math.log(t) + 2.0 * inv_b / t if not math.isfinite(b) else G.prop4_log_negatives_paper(b, t)
    )
    log_neg_ours = -math.log(t) if not math.isfinite(b) else G.prop4_log_negatives_ours(b, t, kf)
    ca_p, cp_p = G.prop4_anchor_paper(t), G.prop4_positive_paper(t)
    ca_o, cp_o = G.prop4_anchor_ours(t, kf), G.prop4_positive_ours(t, kf)
    neg_paper = _scaled(log_neg_paper, lpm, "Prop. 4's right-hand side (paper)", t, b)
    neg_ours = _scaled(log_neg_ours, lpm, "Prop. 4's right-hand side (ours)", t, b)
    with np.errstate(divide="ignore"):
        pm = np.where(np.isfinite(lpm), np.exp(lpm), 0.0)
        mx = np.where(np.isfinite(lmax), np.exp(lmax), 0.0)
    paper = ca_p * da + cp_p * dp + neg_paper
    ours = ca_o * da + cp_o * dp + neg_ours
    linf = G.eq18_coefficient(t) * np.sqrt(da**2 + dp**2 + mx**2)

    def rms(x):
        return math.sqrt(math.fsum(np.asarray(x, dtype=np.float64) ** 2) / n)

    lpm_rms = 0.5 * _log_mean_exp(2.0 * lpm, 1.0) if np.any(np.isfinite(lpm)) else -math.inf
    rho_paper = ca_p * rms(da) + cp_p * rms(dp) + (0.0 if lpm_rms == -math.inf else math.exp(log_neg_paper + lpm_rms))
    rho_ours = ca_o * rms(da) + cp_o * rms(dp) + (0.0 if lpm_rms == -math.inf else math.exp(log_neg_ours + lpm_rms))
    return Prop4Bound(
        actual=gap,
        paper=paper,
        ours=ours,
        linf=linf,
        rho_info=rms(gap),
        rho_paper=rho_paper,
        rho_ours=rho_ours,
        rho_linf=rms(linf),
        delta_a=da,
        delta_p=dp,
        power_mean=pm,
        max_neg=mx,
        tau=t,
        beta=b,
    )


# --- Theorem 1 on data (numerics.theorem1) ---------------------------------------------------------


def theorem1_bound(
    data,
    tau,
    *,
    rhat,
    d_theta,
    c_phi,
    radius,
    ew2,
    delta=0.05,
    n=None,
    k=None,
    index=None,
    lipschitz=None,
):
    """∫ E CrossEnt[M̂_k ‖ Q̂^φ_{τ,k}] dπ ≤ R̂_n + (c₁/τ)√(d_Θ/n) min{A√(log 3 + 1), √(log(1 + 2A) + 1)}
    + (c₂/τ)√(log(2/δ)/(2n)) + c₃/(τk) + log(1 + e^{2/τ}/k), A = eRB_τ(z_1 … z_n)C_Φ, w.p. ≥ 1 − δ (Theorem 1),
    with (c₁, c₂, c₃) = (192, 12, 4E|dM/dπ|²) (paper) or ours, beside the trivial bound 2/τ of the left side;
    τ > 0, k, n, d_Θ ≥ 1, δ ∈ (0, 1), R, C_Φ > 0, E|dM/dπ|² ≥ 1.

    Parameters
    ----------
    data : the training tuples' raw inputs (anchors (n, d_in), positives (n, d_in), negatives (n, k, d_in)), or with
        ``index`` (anchors, positives, pool (m, d_in)), as ``b_tau`` takes them; or a precomputed B_τ (a ``BTau``
        from ``b_tau`` at the same τ, or a number ≥ 0), with ``n`` and ``k`` given.
    tau : float > 0, the temperature (B_τ's exponent 2/(1 ∧ τ) is Lemma 1's choice β = 1 ∨ 2/τ).
    rhat : R̂_n(φ̂; k, τ), the empirical risk of the paper's ℓ (14) on the same n tuples
        (``infonce_risk(..., variant="infonce").mean``), in ℓ's range [log(1/k + e^{−2/τ}), log(1/k + e^{2/τ})].
    d_theta : d_Θ ≥ 1, the parameter dimension of (C).
    c_phi : C_Φ > 0, the constant of assumption (C).
    radius : R > 0, the radius of Θ = {‖θ − θ₀‖ ≤ R}.
    ew2 : E|dM(Z, ·)/dπ(Z')|² ≥ 1 (assumption (B); Prop. 2's bias).
    delta : the confidence δ ∈ (0, 1) (default 0.05).
    n, k : the number of tuples and of negatives per tuple (read from ``data`` when it holds arrays; must agree).
    index : (n, k) integer array of pool rows (pooled layout), or None.
    lipschitz : L > 0, the Lipschitz constant of θ ↦ φ_θ(z) uniformly over the inputs (C_Φ sup‖z‖ under (C)); it
        adds the toolkit's version (θ-Lipschitz chaining, ``derivations.theorem``), else that version is None.

    Returns
    -------
    Theorem1Bound (``numerics.theorem1``): ``paper``, ``ours``, ``toolkit`` (each with complexity, variability,
    bias, bound = R̂_n + the three, capped = min(bound, trivial), active = "bound", "trivial" or "tie"),
    ``trivial`` = 2/τ, and B_τ, A, the min-term and the four constants. The formulas are the catalogue's
    (``derivations.paper.theorem1.bound_terms``, ``derivations.theorem``); every number is the upper end of a
    certified interval (as ``infonce-bounds constants`` prints), so it is never understated. ``notes`` says when A
    lies outside the range on which the ledger checked Theorem 1's chain.

    Raises
    ------
    ValueError naming the argument and its allowed range (as ``b_tau`` for the arrays).
    """
    from . import theorem1 as T1

    t = V.tau_value(tau)
    if isinstance(data, BTau):
        if data.tau != t:
            raise ValueError(f"data is a BTau computed at tau = {data.tau!r}, not at tau = {t!r}; recompute b_tau")
        bt = data.value
    elif isinstance(data, (tuple, list)):
        if len(data) != 3:
            raise ValueError(
                f"data must be (anchors, positives, negatives) or a B_τ value, got a sequence of length {len(data)}"
            )
        bt = b_tau(*data, t, index=index).value
        rows = np.shape(data[0])[0]
        per = np.shape(index)[1] if index is not None else np.shape(data[2])[1]
        for name, given, read in (("n", n, rows), ("k", k, per)):
            if given is not None and V.integer_value(given, name, 1, "the data's count") != read:
                raise ValueError(f"{name} = {given!r} disagrees with the data, which hold {name} = {read}")
        n, k = rows, per
    else:
        bt = V.real_value(
            data, "data", "B_τ ≥ 0 as a number, a BTau, or the (anchors, positives, negatives)", lambda v: v >= 0
        )
        if index is not None:
            raise ValueError("index applies only when data holds the arrays; data is a B_τ value here")
    if not isinstance(data, (tuple, list)) or isinstance(data, BTau):
        if n is None or k is None:
            raise ValueError("n and k must be given when data is a B_τ value (they are read from the arrays otherwise)")
    n_ = V.integer_value(n, "n", 1, "the number of training tuples")
    k_ = V.integer_value(k, "k", 1, "the number of negatives per tuple")
    d_ = V.integer_value(d_theta, "d_theta", 1, "the parameter dimension d_Θ of (C)")
    dl = V.real_value(delta, "delta", "0 < δ < 1", lambda v: 0 < v < 1)
    cp = V.real_value(c_phi, "c_phi", "C_Φ > 0", lambda v: v > 0)
    rad = V.real_value(radius, "radius", "R > 0", lambda v: v > 0)
    w2 = V.real_value(ew2, "ew2", "E|dM/dπ|² ≥ 1 (the mean of dM/dπ is 1)", lambda v: v >= 1)
    lip = None if lipschitz is None else V.real_value(lipschitz, "lipschitz", "L > 0", lambda v: v > 0)
    rh = V.real_value(rhat, "rhat", "a finite empirical risk", lambda v: True)
    lo, hi = T1.rhat_range(t, k_)
    slack = 1e-9 * max(1.0, abs(lo), abs(hi))  # a float mean of ℓ values may leave the range by rounding only
    if not (lo - slack <= rh <= hi + slack):
        raise ValueError(
            f"rhat = {rhat!r} is out of range; allowed: the range of ℓ (14), [{lo:.6g}, {hi:.6g}] at tau = {t!r}, "
            f"k = {k_} (R̂_n is a mean of ℓ values)"
        )
    return T1.evaluate(
        tau=t, k=k_, n=n_, delta=dl, d_theta=d_, c_phi=cp, radius=rad, ew2=w2, b_tau=bt, rhat=rh, lipschitz=lip
    )
