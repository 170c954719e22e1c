"""Exact finite laws of ``W = e^{s/τ}`` (``s ∈ [−1, 1]``): ``E log Z_k``, ``E|log Z_k − log Z|`` and the expected
offsets summed over the multinomial compositions of the ``k`` draws (binomial windows for two atoms at large k).

``_law_check(claim, reason)`` is the bias results' law attack: ``claim(L, τ, k, summary) -> (small, big)`` over the
shared law search of ``checks.laws`` (2 or 3 atoms, extremal laws, k up to ``LARGE_K``, 50-digit confirmation).
``compositions`` and ``composition_probabilities`` are shared with ``numerics/finite.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import mpmath

from .checks.laws import (
    ARRAY,
    EXACT_K,
    K_MAX,
    Law,
    _means,
    binomial_window,
    compositions,
    fmax,
    law_check,
    log_binomial_pmf,
    mp_binomial_pmf,
    tail_of,
    window_pmf,
)

# --------------------------------------------------------------------------------- exact laws


def composition_probabilities(k_: int, probs: Sequence[Any]) -> list[tuple[tuple[int, ...], mpmath.mpf]]:
    """(counts, multinomial probability) for k i.i.d. draws from ``probs``, at the current mpmath precision.

    The multinomial coefficient is an exact integer; zero-probability states are skipped.
    """
    probs = [mpmath.mpf(p_) for p_ in probs]
    support = [i_ for i_, p_ in enumerate(probs) if p_ != 0]
    pw = {i_: [mpmath.mpf(1)] for i_ in support}
    for i_ in support:
        for _ in range(k_):
            pw[i_].append(pw[i_][-1] * probs[i_])
    fact = [1]  # running products: each factorial from scratch cost O(k² log k) per call (k = 16000: 90 s)
    for c in range(1, k_ + 1):
        fact.append(fact[-1] * c)
    out = []
    N = len(probs)
    for sub in compositions(k_, len(support)):
        coef = fact[k_]
        for c in sub:
            coef //= fact[c]
        pr = mpmath.mpf(coef)
        for i_, c in zip(support, sub):
            pr *= pw[i_][c]
        counts = [0] * N
        for i_, c in zip(support, sub):
            counts[i_] = c
        out.append((tuple(counts), pr))
    return out


def law_log_gap(values: Sequence[Any], probs: Sequence[Any], k_: int) -> mpmath.mpf:
    """E log Z_k − log Z for a finite law of W (``values`` > 0 with ``probs``), exactly, at mpmath precision."""
    vals = [mpmath.mpf(v_) for v_ in values]
    Zv = mpmath.fsum(mpmath.mpf(p_) * v_ for p_, v_ in zip(probs, vals))
    tot = mpmath.fsum(
        pr * mpmath.log(mpmath.fsum(c * v_ for c, v_ in zip(cnt, vals)) / k_)
        for cnt, pr in composition_probabilities(k_, probs)
    )
    return tot - mpmath.log(Zv)


def _weighted_compositions(L: Any, k_: int, probs: Sequence[Any]):
    """(counts, probability) of k draws from ``probs`` (``L`` = math or mpmath): every composition, or, for two
    atoms at k > ``EXACT_K``, those of the binomial window (``checks.laws.binomial_window``: neglected mass ≤
    1e-30 in floats, ≤ 10^{−(dps+10)} at dps digits) with probabilities renormalised to sum to 1. Every
    quantity of ``_law_summary`` is E f with |f| ≤ 3/τ + 1 (|log U| ≤ 2/τ, each softplus ≤ 2/τ + log 2), so
    a windowed summary is within 2 × neglected mass × (3/τ + 1) ≤ 10^{−56} of the exact one at 50 digits."""
    if len(probs) == 2 and k_ > EXACT_K:
        p0 = probs[0] / (probs[0] + probs[1])
        if L is mpmath:
            dps = mpmath.mp.dps
            lo, hi, _ = binomial_window(k_, min(1.0, max(0.0, float(p0))), tail_of(dps))
            if p0 in (0, 1):
                yield (lo, k_ - lo), mpmath.mpf(1)
                return
            q0 = 1 - p0
            pr = mp_binomial_pmf(k_, lo, p0, dps)
            prs = []
            for c in range(lo, hi + 1):
                prs.append(pr)
                pr = pr * (k_ - c) / (c + 1) * p0 / q0  # P(c + 1) from P(c)
            mass = mpmath.fsum(prs)
            for c, pr in zip(range(lo, hi + 1), prs):
                yield (c, k_ - c), pr / mass
            return
        import numpy as np

        lo, hi, _ = binomial_window(k_, min(1.0, max(0.0, float(p0))))
        lp = log_binomial_pmf(k_, np.arange(lo, hi + 1, dtype=float), float(p0))
        w_ = np.exp(lp - lp.max())
        for c, pr in zip(range(lo, hi + 1), (w_ / w_.sum()).tolist()):
            if pr:
                yield (c, k_ - c), pr
        return
    # log c! by log-gamma: a factorial per c costs O(k² log k) over the table at the large k the falsifier attacks
    lgf = [L.loggamma(c + 1) if L is mpmath else math.lgamma(c + 1) for c in range(k_ + 1)]
    # each log p once (the same numbers as per composition); p = 0 is left to the composition that draws it
    logp = [L.log(p_) if p_ else None for p_ in probs]
    for cnt in compositions(k_, len(probs)):
        yield (
            cnt,
            L.exp(
                lgf[k_]
                + sum(c * (L.log(p_) if lp_ is None else lp_) - lgf[c] for c, p_, lp_ in zip(cnt, probs, logp) if c)
            ),
        )


def _lse(L: Any, terms: Sequence[Any]) -> Any:
    mx = max(terms)
    return mx + L.log(sum(L.exp(t_ - mx) for t_ in terms))


def _law_summary(
    L: Any,
    tau_v: Any,
    k_: int,
    sims: Sequence[Any],
    probs: Sequence[Any],
    prev: bool = False,
    want: set | None = None,
) -> dict[str, Any]:
    """Exact law quantities in log domain (``L`` is ``math`` or ``mpmath``); W_i = e^{s_i/τ}.

    With ``prev`` (k ≥ 2) also ``gap_prev`` = log Z − E log Z_{k−1}. The sums over the compositions
    (``WINDOW_KEYS``: gap, abs_dev, offset_hi, offset_lo) are made when a claim first reads one of them,
    with those in ``want`` (which the read adds to: ``_LazySums``); each is the same number whichever others
    are summed with it (one accumulator each over the same compositions and the same log U).
    """
    if prev:
        out = _law_summary(L, tau_v, k_, sims, probs, want=want)
        out["gap_prev"] = _law_summary(L, tau_v, k_ - 1, sims, probs, want={"gap"})["gap"]
        return out
    if L is math and math.comb(k_ + len(sims) - 1, k_) >= NUMPY_COMPOSITIONS:
        # the falsifier's float pass on a law with many compositions: the same sums at once (numpy)
        return _law_summary_float(tau_v, k_, sims, probs, want=want)
    lw = [s_ / tau_v for s_ in sims]
    logZ = _lse(L, [L.log(p_) + l_ for p_, l_ in zip(probs, lw)])
    r = [L.exp(l_ - logZ) for l_ in lw]  # W_i / Z
    var_rel = max(sum(p_ * r_ * r_ for p_, r_ in zip(probs, r)) - 1, 0 * r[0])  # Var(W)/Z²
    lgk = L.log(k_)

    def sums(keys: tuple) -> dict:
        on = [key in keys for key in WINDOW_KEYS]
        e_log_u = 0 * r[0]
        e_abs = 0 * r[0]
        off_hi = off_lo = 0 * r[0]
        if L is mpmath and len(probs) == 2 and k_ > EXACT_K:
            # the full-precision pass at large k: W_i = e^{s_i/τ} (mpmath's exponent range holds e^{±1000}),
            # S = k Z_k = c W_0 + (k − c) W_1, and softplus(±1/τ − log S) = log1p(e^{±1/τ}/S): 3 logs a composition
            W0, W1 = mpmath.exp(lw[0]), mpmath.exp(lw[1])
            e_hi, e_lo = mpmath.exp(1 / tau_v), mpmath.exp(-1 / tau_v)
            base = lgk + logZ
            for (c0, c1), pr in _weighted_compositions(L, k_, probs):
                S = c0 * W0 + c1 * W1
                log_u = mpmath.log(S) - base
                if on[0]:
                    e_log_u += pr * log_u
                if on[1]:
                    e_abs += pr * abs(log_u)
                if on[2]:
                    off_hi += pr * mpmath.log1p(e_hi / S)
                if on[3]:
                    off_lo += pr * mpmath.log1p(e_lo / S)
        logc = [None] + [L.log(c) for c in range(1, k_ + 1)] if k_ <= EXACT_K else None  # log c once per c
        for cnt, pr in () if L is mpmath and len(probs) == 2 and k_ > EXACT_K else _weighted_compositions(L, k_, probs):
            log_u = _lse(L, [(logc[c] if logc else L.log(c)) + l_ for c, l_ in zip(cnt, lw) if c]) - lgk - logZ
            if on[0]:
                e_log_u += pr * log_u
            if on[1]:
                e_abs += pr * abs(log_u)
            if on[2] or on[3]:
                log_zk = log_u + logZ
                if on[2]:
                    off_hi += pr * _softplus(L, 1 / tau_v - lgk - log_zk)  # s⁺ = 1: the largest offset
                if on[3]:
                    off_lo += pr * _softplus(L, -1 / tau_v - lgk - log_zk)  # s⁺ = −1: the smallest
        got = {"gap": -e_log_u, "abs_dev": e_abs, "offset_hi": off_hi, "offset_lo": off_lo}
        return {key: got[key] for key in keys}

    log_a = -1 / tau_v - logZ  # a = m/Z ≤ U
    av = L.exp(log_a)
    dv = av - 1
    # g(a) = 1/2 − (a − 1)/3 + (a − 1)²/4 − … near a = 1, where the closed form cancels
    g = (dv - log_a) / dv**2 if abs(dv) > 1e-6 else 0.5 - dv / 3 + dv**2 / 4 - dv**3 / 5
    return _lazy_or_all(_LazySums({"var_rel": var_rel, "g": g, "logZ": logZ}, sums, want), want)


def _lazy_or_all(out: dict, want: set | None) -> dict:
    """``out`` (a ``_LazySums``) with every sum made now when no ``want`` is given (callers outside a checker)."""
    if want is None:
        for key in (*WINDOW_KEYS, *out._lazy):
            out[key]
    return out


#: largest k of the law falsifier's two-atom phase beyond k_cap (claims for every k ≥ 1): exact sums up to
#: ``EXACT_K`` = 4096, binomial windows beyond (``checks.laws.binomial_window``)
LARGE_K = K_MAX
#: from this many compositions on, the float law summary is cheaper in numpy (≈ 0.17 ms a law, flat) than
#: in the Python loop (≈ 0.01 ms a composition); measured at k = 3 and k = 12 on 2 and 3 atoms
NUMPY_COMPOSITIONS = 20


@lru_cache(maxsize=1024)  # the two-atom phase beyond k_cap meets ~500 values of k (and k − 1) per step
def _composition_table(k_: int, n_atoms: int) -> tuple[Any, Any, Any]:
    """(counts C, log C with −inf for 0, log multinomial coefficient) of k draws over ``n_atoms`` atoms."""
    import numpy as np

    if n_atoms == 2:  # the rows of ``compositions`` (c, k − c), c = k … 0, without a Python step per row
        c0 = np.arange(k_, -1, -1, dtype=float)
        C = np.stack([c0, k_ - c0], axis=1)
    else:
        C = np.array(list(compositions(k_, n_atoms)), dtype=float)
    with np.errstate(divide="ignore"):
        logC = np.log(C)
    lgf = _log_factorials(k_)  # log c!, summed per row left to right
    lgm = math.lgamma(k_ + 1) - lgf[C.astype(int)].sum(axis=1)
    for v_ in (C, logC, lgm):
        v_.flags.writeable = False  # memoised: shared by every batch at this k
    return C, logC, lgm


def _log_factorials(k_: int) -> Any:
    """[math.lgamma(c + 1) for c in 0 … k] as an array (memoised up to the largest k asked: ``math.lgamma`` is
    a pure function, so a prefix of a longer table is the same numbers)."""
    import numpy as np

    tab = _LGF[0]
    if len(tab) <= k_:
        tab = np.array([math.lgamma(c + 1) for c in range(max(k_ + 1, 2 * len(tab)))])
        tab.flags.writeable = False
        _LGF[0] = tab
    return tab[: k_ + 1]


_LGF: list = [[]]


def _softplus_block(x: Any) -> Any:
    """log(1 + e^x) on a block of ``_window_sums`` (x monotone in c, so its range is read at the ends): e^x
    where every x < −40 (log1p(e^x) = e^x (1 − e^x/2 + …): relative error < 3e-18), x where every x > 40
    (error e^{−x} < 5e-18 relative), else the stable max(x, 0) + log1p(e^{−|x|})."""
    import numpy as np

    ends = (float(x[0]), float(x[-1]))
    if max(ends) < -40:
        return np.exp(x)
    if min(ends) > 40:
        return x
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


#: compositions per block of ``_window_sums`` (its temporaries stay in cache: ~2× less CPU than whole windows)
WINDOW_BLOCK = 8192


#: the summaries ``_window_sums`` computes (all of them by default)
WINDOW_KEYS = ("gap", "abs_dev", "offset_hi", "offset_lo")


def _window_sums(
    tau_v: float, k_: int, lw: Sequence[float], p0: float, logZ: float, want: Sequence[str] = WINDOW_KEYS
) -> tuple[float, ...]:
    """(gap, abs_dev, offset_hi, offset_lo) of ``_law_summary`` for one two-atom law at k > ``EXACT_K``, in
    floats: sums over the binomial window of c ~ Binomial(k, p₀) (``checks.laws.binomial_window``, neglected
    mass ≤ 1e-30), probabilities by ``window_pmf`` (Loader's ``log_binomial_pmf`` every 16 compositions, the
    exact ratio recurrence between) and renormalised over the window, so each summary is
    a weighted mean within 2e-30 × (3/τ + 1) of the exact sum. In blocks of ``WINDOW_BLOCK`` compositions.
    log U = log1p((c − kp)(W₀ − W₁)/(kZ)), without the cancellation of log Z_k − log Z (see the comment).

    ``want``: the summaries to compute, in that order (a claim of the gap alone skips the |log U| and the two
    softplus passes); each is the same float whichever others are computed with it."""
    import numpy as np

    lo, hi, _ = binomial_window(k_, min(1.0, max(0.0, p0)))
    lgk = math.log(k_)
    # U = Z_k/Z = 1 + (c − kp)(W₀ − W₁)/(kZ) exactly (Z = pW₀ + (1 − p)W₁ with this p): log U = log1p(x),
    # x = (c − kp) δ. Summing log(Z_k) − log Z instead loses ~1e-15 absolute to the rounding of log Z_k ≈ s/τ,
    # which at k = 10⁶ is 1e-3 of the gap E log U ≈ −Var U/2 (measured: a ratio 1.0008 on a true claim).
    q0 = 1 - p0
    logZp = max(lw) + math.log(p0 * math.exp(lw[0] - max(lw)) + q0 * math.exp(lw[1] - max(lw)))
    # δ = (W₀ − W₁)/(kZ) in logs: |W₀ − W₁| = e^{max lw}(1 − e^{−|lw₀ − lw₁|}) (e^{2/τ} overflows at τ = 1e-3)
    gap_w = abs(lw[0] - lw[1])
    delta = 0.0
    if gap_w > 0:
        log_abs = max(lw) + math.log(-math.expm1(-gap_w)) - logZp - math.log(k_)
        delta = math.copysign(math.exp(log_abs), lw[0] - lw[1])
    Mp, _, rp, _ = _means(k_, p0)
    m = max(lw[0], lw[1])
    a0, a1 = math.exp(lw[0] - m), math.exp(lw[1] - m)
    acc = np.zeros(5)  # Σ w, Σ w log U, Σ w |log U|, Σ w softplus(hi), Σ w softplus(lo)
    on = [True] + [key in want for key in WINDOW_KEYS]
    w_all = window_pmf(k_, np.arange(lo, hi + 1, dtype=float), p0)  # the window's probabilities, in one pass
    for start in range(lo, hi + 1, WINDOW_BLOCK):
        c = np.arange(start, min(hi, start + WINDOW_BLOCK - 1) + 1, dtype=float)
        w_ = w_all[start - lo : start - lo + len(c)]
        x = ((c - Mp) - rp) * delta
        log_u = np.log1p(np.maximum(x, -0.5))
        if min(float(x[0]), float(x[-1])) < -0.5:  # U far below 1 (W₀ ≪ W₁ or the reverse): no cancellation
            with np.errstate(divide="ignore"):  # there, and 1 + x may round to 0: the log-sum-exp form
                direct = np.log(c * a0 + (k_ - c) * a1) + (m - lgk - logZp)
            log_u = np.where(x < -0.5, direct, log_u)
        if c[0] == 0 or c[-1] == k_:  # an atom not drawn: Z_k = W of the other atom (exactly)
            log_u = np.where(c == 0, lw[1] - logZp, np.where(c == k_, lw[0] - logZp, log_u))
        if on == [True] * 5:
            log_zk = log_u + logZ
            x_hi = 1 / tau_v - lgk - log_zk
            x_lo = -1 / tau_v - lgk - log_zk
            acc += [w_.sum(), w_ @ log_u, w_ @ np.abs(log_u), w_ @ _softplus_block(x_hi), w_ @ _softplus_block(x_lo)]
            continue
        log_zk = log_u + logZ if on[3] or on[4] else None
        acc += [
            w_.sum(),
            w_ @ log_u if on[1] else 0.0,
            w_ @ np.abs(log_u) if on[2] else 0.0,
            w_ @ _softplus_block(1 / tau_v - lgk - log_zk) if on[3] else 0.0,
            w_ @ _softplus_block(-1 / tau_v - lgk - log_zk) if on[4] else 0.0,
        ]
    tot = acc[0]
    sums = {"gap": -acc[1] / tot, "abs_dev": acc[2] / tot, "offset_hi": acc[3] / tot, "offset_lo": acc[4] / tot}
    return tuple(sums[key] for key in want)


def _law_summary_float(
    tau_v: float, k_: int, sims: Sequence[float], probs: Sequence[float], want: set | None = None
) -> dict[str, float]:
    """``_law_summary`` in float64 with numpy over the compositions (the float pass of the law falsifier:
    numpy is used for the search only; every violation and the worst ratio are redone in mpmath). The sums
    as in ``_law_summary`` (made on first read with ``want``; all of them without)."""
    import numpy as np

    lw = np.asarray(sims, dtype=float) / tau_v
    p_ = np.asarray(probs, dtype=float)
    with np.errstate(divide="ignore"):
        logp = np.log(p_)
    a_ = logp + lw
    logZ = a_.max() + math.log(np.exp(a_ - a_.max()).sum())
    r = np.exp(lw - logZ)  # W_i / Z
    var_rel = max(float((p_ * r * r).sum()) - 1, 0.0)  # Var(W)/Z²
    lgk = math.log(k_)
    log_a = -1 / tau_v - logZ  # a = m/Z ≤ U
    dv = math.exp(log_a) - 1
    # g(a) = 1/2 − (a − 1)/3 + (a − 1)²/4 − … near a = 1, where the closed form cancels
    g = (dv - log_a) / dv**2 if abs(dv) > 1e-6 else 0.5 - dv / 3 + dv**2 / 4 - dv**3 / 5
    base = {"var_rel": var_rel, "g": g, "logZ": float(logZ)}
    if len(sims) == 2 and k_ > EXACT_K:  # two atoms at large k: the binomial window, O(√k) compositions
        p0 = probs[0] / (probs[0] + probs[1])

        def window(keys: tuple) -> dict:
            return {key: float(v_) for key, v_ in zip(keys, _window_sums(tau_v, k_, lw.tolist(), p0, logZ, keys))}

        return _lazy_or_all(_LazySums(base, window, want), want)
    C, logC, lgm = _composition_table(k_, len(sims))
    with np.errstate(invalid="ignore"):
        lp = lgm + np.where(C > 0, C * logp, 0.0).sum(axis=1)
    T = logC + lw  # −inf where an atom is not drawn
    mx = T.max(axis=1)
    log_u = mx + np.log(np.exp(T - mx[:, None]).sum(axis=1)) - lgk - logZ
    pr = np.exp(lp)

    def softplus(v: Any) -> Any:
        return np.maximum(v, 0) + np.log1p(np.exp(-np.abs(v)))

    def sums(keys: tuple) -> dict:
        out = {}
        for key in keys:
            if key == "gap":
                out[key] = float(-(pr * log_u).sum())
            elif key == "abs_dev":
                out[key] = float((pr * np.abs(log_u)).sum())
            else:
                sgn = 1 if key == "offset_hi" else -1
                out[key] = float((pr * softplus(sgn / tau_v - lgk - (log_u + logZ))).sum())
        return out

    return _lazy_or_all(_LazySums(base, sums, want), want)


class _LazySums(dict):
    """A law summary whose sums over the compositions or the binomial window (``WINDOW_KEYS``) are made when a
    claim first reads one of them, together with those its earlier laws read (``want``, which the read adds
    to): a claim of the gap alone pays for no |log U| or softplus pass. The values are those of one pass
    computing all four (each sum is the same number whichever others come with it)."""

    def __init__(self, base: dict, window: Callable[[tuple], dict], want: set | None, lazy: dict | None = None) -> None:
        super().__init__(base)
        self._window, self._want = window, set() if want is None else want
        self._lazy = lazy or {}  # other quantities made on first read (var_rel, g): the same formulas

    def __missing__(self, key: str) -> Any:
        if key in self._lazy:
            self[key] = self._lazy[key]()
            return self[key]
        if key not in WINDOW_KEYS:
            raise KeyError(key)
        self._want.add(key)
        self.update(self._window(tuple(k_ for k_ in WINDOW_KEYS if k_ in self._want and k_ not in self)))
        return self[key]


_WindowSummary = _LazySums  # its name for the two-atom window sums at large k


def _law_summary_batch(
    tau_v: Any, k_: int, sims: Sequence[Any], probs: Sequence[Any], prev: bool = False, want: set | None = None
) -> dict:
    """``_law_summary_float`` for a batch of laws with one k and one number of atoms: ``tau_v`` and each
    entry of ``sims``/``probs`` are arrays over the laws (the float pass of the law falsifier on a batch;
    every violation and the worst ratio are redone in mpmath). Returns arrays over the laws; at k > ``EXACT_K``
    (two atoms) the window sums, below it the sums over the compositions, on first read (``_LazySums``; ``want``:
    the sums to make with it)."""
    import numpy as np

    if prev:
        out = _law_summary_batch(tau_v, k_, sims, probs, want=want)
        out["gap_prev"] = _law_summary_batch(tau_v, k_ - 1, sims, probs, want={"gap"})["gap"]
        return out
    ks = np.asarray(k_) if hasattr(k_, "shape") else None  # k as an array: windowed two-atom laws, one k each
    tv = np.asarray(tau_v, dtype=float)[:, None]
    lw = np.stack(sims, axis=1) / tv  # (laws, atoms)
    p_ = np.stack(probs, axis=1)
    logp = np.log(p_)
    a_ = logp + lw
    amax = a_.max(axis=1, keepdims=True)
    logZ = amax + np.log(np.exp(a_ - amax).sum(axis=1, keepdims=True))  # (laws, 1)

    def var_rel() -> Any:
        r = np.exp(lw - logZ)  # W_i / Z
        return np.maximum((p_ * r * r).sum(axis=1) - 1, 0.0)  # Var(W)/Z²

    def g() -> Any:
        log_a = -1 / tv[:, 0] - logZ[:, 0]  # a = m/Z ≤ U
        dv = np.exp(log_a) - 1
        # g(a) = 1/2 − (a − 1)/3 + (a − 1)²/4 − … near a = 1, where the closed form cancels
        near = np.abs(dv) <= 1e-6
        return np.where(near, 0.5 - dv / 3 + dv**2 / 4 - dv**3 / 5, (dv - log_a) / np.where(near, 1.0, dv) ** 2)

    lazy = {"var_rel": var_rel, "g": g}  # made on first read
    if len(sims) == 2 and (ks is not None or k_ > EXACT_K):  # two atoms at large k: each law over its window
        pp = (p_[:, 0] / (p_[:, 0] + p_[:, 1])).tolist()
        kk = [k_] * len(pp) if ks is None else ks.tolist()
        rows = list(zip(tv[:, 0].tolist(), kk, lw.tolist(), pp, logZ[:, 0].tolist()))

        def window(keys: tuple) -> dict:
            sums = [_window_sums(t_, k1, l_, q_, z_, keys) for t_, k1, l_, q_, z_ in rows]
            sums = np.array(sums).reshape(-1, len(keys))
            return {key: sums[:, j] for j, key in enumerate(keys)}

        return _LazySums({"logZ": logZ[:, 0]}, window, want, lazy)
    lgk = math.log(k_)
    core: list = []  # (probabilities, log U) over the compositions, made on the first sum read

    def softplus(v: Any) -> Any:
        return np.maximum(v, 0) + np.log1p(np.exp(-np.abs(v)))

    def sums(keys: tuple) -> dict:
        if not core:
            C, logC, lgm = _composition_table(k_, len(sims))
            # (laws, compositions) arrays atom by atom: the sums over the atoms left to right and the max, as
            # numpy's reductions over a last axis of 2 or 3 make them (the same doubles, no 3-d temporaries)
            na = len(sims)
            lp = lgm + _left_sum([np.where(C[:, i] > 0, C[:, i] * logp[:, i : i + 1], 0.0) for i in range(na)])
            T = [logC[:, i] + lw[:, i : i + 1] for i in range(na)]  # −inf where an atom is not drawn
            mx = T[0]
            for t_ in T[1:]:
                mx = np.maximum(mx, t_)
            core[:] = (np.exp(lp), mx + np.log(_left_sum([np.exp(t_ - mx) for t_ in T])) - lgk - logZ)
        pr, log_u = core
        out = {}
        for key in keys:
            if key == "gap":
                out[key] = -(pr * log_u).sum(axis=1)
            elif key == "abs_dev":
                out[key] = (pr * np.abs(log_u)).sum(axis=1)
            else:
                sgn = 1 if key == "offset_hi" else -1
                out[key] = (pr * softplus(sgn / tv - lgk - (log_u + logZ))).sum(axis=1)
        return out

    # the sums on first read (``_LazySums``), each the same array whichever others come with it
    return _lazy_or_all(_LazySums({"logZ": logZ[:, 0]}, sums, want, lazy), want)


def _left_sum(terms: list) -> Any:
    """((t₀ + t₁) + t₂) + …: what ``np.sum(axis=-1)`` gives over a last axis of two or three."""
    out = terms[0]
    for t_ in terms[1:]:
        out = out + t_
    return out


def _law_check(claim: Callable[[Any, Any, int, dict], tuple[Any, Any]], reason: str, prev: bool = False) -> Callable:
    """A checker for ``small ≤ big`` over finite laws of W on [e^{−1/τ}, e^{1/τ}], computed exactly.

    ``claim(L, τ, k, summary) -> (small, big)`` with ``summary = _law_summary(…)`` of the law. The search
    is the shared law falsifier (``checks.laws.law_check``: 2 or 3 atoms, extremal laws half of the time,
    τ log-uniform in [1e-3, 1e2], k log-uniform in [k_min, k_cap], local search around the worst laws,
    50-digit confirmation), here with the full ``trials`` budget (no law cap: the bounds of this module
    are the toolkit's own and each law is small, ≤ 91 compositions), then two-atom laws with k log-uniform
    up to ``LARGE_K`` = 10⁹ (exact sums to k = 4096, binomial windows beyond: ``_window_sums``).
    """

    want: set = set()  # the sums over compositions / windows this claim reads (``_LazySums``)

    def on_law(L: Any, law: Law) -> tuple[Any, Any]:
        if L is ARRAY:  # a batch of laws (one k, one number of atoms): every summary at once
            sm = _law_summary_batch(law.tau, law.k, law.sims, law.probs, prev=prev, want=want)
            return claim(L, law.tau, law.k, sm)
        return claim(L, law.tau, law.k, _law_summary(L, law.tau, law.k, law.sims, law.probs, prev=prev, want=want))

    # the float summary of a two-atom law is O(√k) beyond k = 4096 (binomial windows), so k goes to LARGE_K = 1e9
    check = law_check(on_law, reason, k_min=2 if prev else 1, cap=None, large_k=LARGE_K, k_arrays=True)
    check.claim = claim  # type: ignore[attr-defined]  # lets a test plant a wrong version of the same claim
    check.prev = prev  # type: ignore[attr-defined]
    check.reason = reason  # type: ignore[attr-defined]
    return check


def _exp(L: Any, v: Any) -> Any:
    """e^v, with +inf for a float overflow (a bound that is infinite in floats holds trivially)."""
    try:
        return L.exp(v)
    except OverflowError:
        return math.inf


def _softplus(L: Any, v: Any) -> Any:
    """log(1 + e^v) without overflow, and without losing e^v ≪ 10^{−dps} for v ≪ 0 (log1p: the offset at
    the lower end, e^{−2/τ}/k, is ~1e-78 at τ = 0.01, which log(1 + ·) rounds to 0 at 60 digits)."""
    return fmax(v, 0 * v) + L.log1p(L.exp(-abs(v)))
