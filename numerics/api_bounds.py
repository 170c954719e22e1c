"""The public API's data-dependent terms (paper §4.2, kernels in ``numerics.data_bounds``) and Theorem 1 on
data (``numerics.theorem1``): ``b_tau`` (b_τ and its parts, ``BTau``), ``prop4_bound`` (Prop. 4's bound,
``Prop4Bound``) and ``theorem1_bound``. Inputs are validated at the boundary as in ``numerics.api``, which
re-exports every name here.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from . import validate as V
from .api_inputs import _brief_repr, _raw_triplet

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
