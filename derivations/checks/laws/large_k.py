"""Two-atom laws at large k: the binomial window an expectation is summed over, and its probabilities.

Beyond ``EXACT_K`` = 4096 a two-atom expectation is the sum over the binomial window of ``binomial_window``
(O(√k) compositions; Chernoff's bound e^{−k D(a‖p)} puts the neglected mass below ``TAIL`` = 1e-30 in floats
and 10^{−(dps+10)} at dps digits), with Loader's binomial probabilities (``log_binomial_pmf``, ``window_pmf``)
in floats and ``mp_binomial_pmf`` at full precision. ``law_check(large_k=…)`` attacks k up to ``K_MAX`` = 10⁹.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import mpmath

from .law import Law

#: k up to which a two-atom expectation is the exact sum over all k + 1 compositions; beyond it, the sum over
#: the binomial window of ``binomial_window`` (O(√k) compositions)
EXACT_K = 4096
#: k up to which a two-atom expectation's float passes (``math``, ``ARRAY``) are the exact sum over the
#: compositions: beyond it a binomial coefficient overflows a double (C(1030, 515) > 2^1024), so there the
#: float passes sum over the binomial window (neglected mass ≤ ``TAIL``) while the full-precision pass
#: (``mpmath``, the confirmation) stays the exact sum up to ``EXACT_K``
FLOAT_EXACT_K = 1024
#: largest k the two-atom phase of ``law_check`` attacks (``law_check(large_k=K_MAX)``)
K_MAX = 10**9
#: neglected binomial mass of a float-pass window (relative to the total mass 1)
TAIL = 1e-30
#: compositions beyond which a window is not re-summed at full precision for a float-rounding-sized violation
#: or for the worst-ratio report (~45 µs a composition at 50 digits, bias summary): those are counted / reported in floats
EXACT_WINDOW = 2_000


def _kl(a: float, p: float) -> float:
    """D(a‖p) = a log(a/p) + (1 − a) log((1 − a)/(1 − p)), the Bernoulli relative entropy (0 log 0 = 0)."""
    out = 0.0
    if a > 0:
        out += a * math.log(a / p) if p > 0 else math.inf
    if a < 1:
        out += (1 - a) * math.log((1 - a) / (1 - p)) if p < 1 else math.inf
    return max(out, 0.0)


def tail_of(dps: int | None) -> float:
    """The neglected mass of a window: ``TAIL`` in floats, 10^{−(dps+10)} at ``dps`` digits (so that at 50
    digits a neglected part, ≤ that mass × sup|f|, lies 10^{20} below the confirmation tolerance 10^{10−dps}
    for every f with |f| ≤ 1, and below it for |f| up to 10^{20} × max(1, |sides|))."""
    return TAIL if dps is None else 10.0 ** (-(dps + 10))


@lru_cache(maxsize=4096)
def binomial_window(k_: int, p: float, tail: float = TAIL) -> tuple[int, int, float]:
    """[lo, hi] with P(X < lo) + P(X > hi) ≤ bound ≤ tail for X ~ Binomial(k, p), 0 ≤ p ≤ 1.

    The bound is Chernoff's: P(X ≥ ak) ≤ e^{−k D(a‖p)} for a ≥ p and P(X ≤ ak) ≤ e^{−k D(a‖p)} for a ≤ p
    (D the Bernoulli relative entropy, ``_kl``); hi is the least integer ≥ kp with k D((hi+1)/k‖p) ≥
    log(2/tail) + 1 (hi = k if none), lo likewise below kp, so each tail is ≤ tail/(2e): the margin of 1 in the
    exponent absorbs the rounding of D in doubles (relative 1e-12 at k = 10⁹) and of p itself (a float p of an
    mpmath law). Width ≈ 2√(2 log(2/tail) k p(1 − p)) + 2: ≈ 24 standard deviations at tail = 1e-30, so
    O(√k) compositions. Returns (lo, hi, bound), bound the sum of the two Chernoff terms actually met."""
    if not 0 <= p <= 1:
        raise ValueError(f"binomial_window: p must lie in [0, 1], got {p!r}")
    need = math.log(2 / tail) + 1

    def ok(c: int) -> bool:  # the tail beyond c (away from kp) is ≤ e^{−need}
        return k_ * _kl(c / k_, p) >= need

    mean = k_ * p
    sd = math.sqrt(k_ * p * (1 - p))
    guess = int(math.sqrt(2 * need) * sd) + 2
    # hi: the least h ≥ ⌈kp⌉ with ok(h + 1); D(·‖p) increases above p, so a monotone search on [⌈kp⌉, k]
    a_, b_ = max(math.ceil(mean), 0), k_
    if ok(min(k_, a_ + guess) + 1) or a_ + guess >= k_:
        b_ = min(k_, a_ + guess)
    x_hi, x_lo = _chernoff_roots(k_, p, need)
    hi = _least(lambda h: h + 1 > k_ or ok(h + 1), a_, b_, math.ceil(k_ * x_hi) - 1)
    a_, b_ = 0, min(math.floor(mean), k_)  # lo: the largest l ≤ ⌊kp⌋ with ok(l − 1)
    if b_ - guess <= 0 or ok(max(0, b_ - guess) - 1):
        a_ = max(0, b_ - guess)
    top = b_
    lo = _least(lambda j: j > top or not (j - 1 < 0 or ok(j - 1)), a_ + 1, b_ + 1, math.floor(k_ * x_lo) + 2) - 1
    bound = (math.exp(-k_ * _kl((hi + 1) / k_, p)) if hi < k_ else 0.0) + (
        math.exp(-k_ * _kl((lo - 1) / k_, p)) if lo > 0 else 0.0
    )
    return lo, hi, bound


def _least(pred: Callable[[int], bool], lo: int, hi: int, start: int) -> int:
    """The least h in [lo, hi] with pred(h), for pred false then true on [lo, hi] and pred(hi) true: galloping
    from ``start`` (a few calls of pred from a good start), then bisection. The answer is the boundary itself,
    so any search finds the same one (``binomial_window`` bisected from the ends before: the same windows)."""
    h = min(max(start, lo), hi)
    step = 1
    if pred(h):
        while h - step >= lo and pred(h - step):
            h -= step
            step *= 2
        a_, b_ = max(lo, h - step + 1), h
    else:
        while h + step < hi and not pred(h + step):
            h += step
            step *= 2
        a_, b_ = h + 1, min(hi, h + step)
    while a_ < b_:
        m_ = (a_ + b_) // 2
        if pred(m_):
            b_ = m_
        else:
            a_ = m_ + 1
    return a_


def _chernoff_roots(k_: int, p: float, need: float) -> tuple[float, float]:
    """x above and below p with k D(x‖p) ≈ need (a start for ``binomial_window``'s searches: Newton from the
    Gaussian guess p ± √(2 need p(1 − p)/k); only its accuracy, not its correctness, matters)."""
    out = []
    for sgn in (1, -1):
        x = p
        try:
            if 0 < p < 1:
                x = min(1 - 1e-15, max(1e-15, p + sgn * math.sqrt(2 * need * p * (1 - p) / k_)))
                for _ in range(3):
                    f = k_ * _kl(x, p) - need
                    d = k_ * math.log(x * (1 - p) / (p * (1 - x)))
                    if d == 0:
                        break
                    x = min(1 - 1e-15, max(1e-15, x - f / d))
        except (ValueError, ZeroDivisionError, OverflowError):
            x = p
        out.append(x)
    return out[0], out[1]


def _stirlerr(n: Any) -> Any:
    """log n! − [(n + ½) log n − n + ½ log 2π] elementwise (n ≥ 1; Loader 2000: a series from n = 16 on,
    cut where the next term is below 1e-20: 1 term from n = 10⁶ on, 2 from 10⁴, 3 from 300, else 5)."""
    import numpy as np

    n = np.asarray(n, dtype=float)
    lo = float(n.min()) if n.size else 16.0
    if lo >= 16:
        if lo >= 1e6:  # next term 1/(360 n³) ≤ 3e-21
            return (1 / 12) / n
        r = 1 / n
        r2 = r * r
        if lo >= 1e4:  # next term 1/(1260 n⁵) ≤ 8e-24
            return r * (1 / 12 - r2 / 360)
        if lo >= 300:  # next term 1/(1680 n⁷) ≤ 3e-21
            return r * (1 / 12 - r2 * (1 / 360 - r2 / 1260))
        return r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 * (1 / 1680 - r2 / 1188))))
    small = n < 16
    out = _stirlerr(np.where(small, 16.0, n))
    nl = n[small]  # at most 15 distinct values: log n! directly
    out[small] = np.array([math.lgamma(v + 1) for v in nl.tolist()]) - (
        (nl + 0.5) * np.log(nl) - nl + 0.5 * math.log(2 * math.pi)
    )
    return out


def _bd0(x: Any, M: Any) -> Any:
    """x log(x/M) + M − x ≥ 0 elementwise (x ≥ 0, M > 0), without the cancellation near x = M (Loader 2000:
    the series 2x Σ v^{2j+1}/(2j+1) + (x − M) v with v = (x − M)/(x + M) when |x − M| < (x + M)/2)."""
    import numpy as np

    x, M = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(M, dtype=float))
    d = x - M
    v = d / (x + M)
    if v.ndim == 1 and v.size and max(abs(float(v[0])), abs(float(v[-1]))) < 0.5:
        every = True  # x increasing and M one number (a window's block): |v| is largest at an end
        top = max(float(v[0]) ** 2, float(v[-1]) ** 2)
    else:
        near = np.abs(v) < 0.5  # the closed form cancels up to |v| ≈ 1/2 (x log(x/M) vs M − x)
        every = bool(near.all())
        if not every:
            v = np.where(near, v, 0.0)
        top = float((v * v).max()) if v.size else 0.0
    s = d * v
    ej = 2 * x * v
    v2 = v * v
    # terms until v^{2j} < 1e-18 (|v| < 1/2: at most 30; at large k the window has |v| ~ 1e-3: 3 or 4)
    n_terms = 1 if top == 0 else min(30, max(1, math.ceil(math.log(1e-18) / math.log(top))))
    for j_ in range(1, n_terms + 1):
        ej *= v2
        s += ej * (1 / (2 * j_ + 1))
    if every:
        return s
    with np.errstate(divide="ignore", invalid="ignore"):
        far = np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0) / M), 0.0) + M - x
    return np.where(near, s, far)


@lru_cache(maxsize=4096)
def _means(k_: int, p: float) -> tuple[float, float, float, float]:
    """(kp, k(1 − p)) rounded to doubles and their exact residuals (``log_binomial_pmf``): exact rationals
    num/den in integers (p = num/den with den a power of two), each rounded once by Python's correctly rounded
    int / int (what ``float(Fraction)`` does, without the Fraction objects)."""
    num, den = float(p).as_integer_ratio()
    np_, nq = k_ * num, k_ * den - k_ * num  # kp = np_/den, kq = nq/den exactly
    Mp, Mq = np_ / den, nq / den
    a_, b_ = Mp.as_integer_ratio()
    c_, d_ = Mq.as_integer_ratio()
    return Mp, Mq, (np_ * b_ - a_ * den) / (den * b_), (nq * d_ - c_ * den) / (den * d_)


def mp_binomial_pmf(k_: int, c: int, p: Any, dps: int) -> Any:
    """P(X = c) for X ~ Binomial(k, p) in mpmath, good to ``dps`` digits at any k ≤ 10⁹ (log C(k, c) ≈ 10^{10}
    there: the exponent is formed with 15 more digits than the result keeps)."""
    with mpmath.workdps(dps + 15):
        return mpmath.exp(
            mpmath.loggamma(k_ + 1)
            - mpmath.loggamma(c + 1)
            - mpmath.loggamma(k_ - c + 1)
            + c * mpmath.log(p)
            + (k_ - c) * mpmath.log(1 - p)
        )


def log_binomial_pmf(k_: int, c: Any, p: Any) -> Any:
    """log P(X = c) for X ~ Binomial(k, p), elementwise in c (and p), accurate to a few ulps of the pmf at
    every k (Loader 2000: −bd0(c, kp) − bd0(k − c, kq) + stirlerr terms; lgamma(k + 1) ≈ 2·10^{10} at k = 10⁹
    would lose 10⁻⁶ of every probability). −inf where the probability is 0 (p ∈ {0, 1})."""
    import numpy as np

    c = np.asarray(c, dtype=float)
    p = np.asarray(p, dtype=float)
    k_f = float(k_)
    # kp and kq = k(1 − p) rounded to doubles, with their exact residuals r: log P at the window's edge moves
    # by (c/M − 1)·r ≈ 12 sd × 1e-16 with M, which the first-order correction of bd0 in M removes
    if p.ndim == 0:  # one law (a block of its window): the four numbers once per (k, p)
        Mp, Mq, rp, rq = _means(k_, float(p))
    else:
        parts = np.array([_means(k_, v) for v in p.ravel().tolist()]).reshape(*p.shape, 4)
        Mp, Mq, rp, rq = (parts[..., i] for i in range(4))
    interior = bool(c.size) and float(c.min()) >= 1 and float(c.max()) <= k_f - 1
    if interior and bool(np.all(Mp > 0)) and bool(np.all(Mq > 0)):  # the usual case at large k: no end, no 0/1
        ck = k_f - c
        # (1 − c/Mp) rp + (1 − ck/Mq) rq, the first-order corrections, with their constants folded
        corr = (rp + rq) - c * (rp / Mp) - ck * (rq / Mq) if (rp or rq) else 0.0
        return (
            (float(_stirlerr(k_f)) - corr)
            - _stirlerr(c)
            - _stirlerr(ck)
            - _bd0(c, Mp)
            - _bd0(ck, Mq)
            + 0.5 * np.log((k_f / (2 * math.pi)) / (c * ck))
        )
    q = Mq / k_f
    with np.errstate(divide="ignore", invalid="ignore"):
        Mps, Mqs = np.where(Mp > 0, Mp, 1.0), np.where(Mq > 0, Mq, 1.0)
        c1, ck1 = np.clip(c, 1, None), np.clip(k_f - c, 1, None)
        inner = (
            _stirlerr(k_f)
            - _stirlerr(c1)
            - _stirlerr(ck1)
            - (_bd0(c, Mps) + (1 - c / Mps) * rp)
            - (_bd0(k_f - c, Mqs) + (1 - (k_f - c) / Mqs) * rq)
            + 0.5 * np.log(k_f / (2 * math.pi * c1 * ck1))
        )
        lo_end = k_f * np.log1p(-p)  # c = 0
        hi_end = k_f * np.log(p)  # c = k
        out = np.where(c == 0, lo_end, np.where(c == k_f, hi_end, inner))
        out = np.where((p == 0) & (c > 0), -np.inf, out)
        out = np.where((q == 0) & (c < k_f), -np.inf, out)
        out = np.where((p == 0) & (c == 0), 0.0, np.where((q == 0) & (c == k_f), 0.0, out))
    return out


#: compositions from one of Loader's values of P(c) to the next in ``window_pmf`` (the ratio recurrence between)
PMF_ANCHOR = 16
#: windows of fewer compositions than this take Loader's formula at every one (``window_pmf``)
PMF_RECURRENCE_MIN = 1024
#: compositions per chunk of ``window_pmf``'s recurrence
PMF_CHUNK = 8192


def window_pmf(k_: int, c: Any, p: float) -> Any:
    """P(X = c) for X ~ Binomial(k, p) over a run c = c₀, c₀ + 1, …, c₀ + n − 1 (a float array), to the
    accuracy of exp(``log_binomial_pmf``) at a fraction of its cost on wide windows: Loader's value at every
    ``PMF_ANCHOR``-th composition (one call for the whole run), and from there the exact ratio recurrence

        P(c + 1) = P(c) · (1 + ((k + 1)p − (c + 1)) / ((c + 1)(1 − p))),

    a running product of at most 15 factors. The factor is formed without cancellation ((k + 1)p as a double
    and its exact residual: the numerator is good to an ulp, since c + 1 and the double (k + 1)p differ
    exactly by Sterbenz's lemma), so each is within ~1 ulp of the exact ratio and each product step adds
    ≤ ½ ulp: ≤ 15 ulps ≈ 2e-15 relative from the anchor, typically a few 1e-16, the size of Loader's own
    error (which the anchor carries). Narrow windows (fewer than ``PMF_RECURRENCE_MIN`` compositions), ends
    (c = 0 or k) and p ∈ {0, 1} take exp(``log_binomial_pmf``) at every composition."""
    import numpy as np

    c = np.asarray(c, dtype=float)
    n = len(c)
    if n < PMF_RECURRENCE_MIN or not 0 < p < 1 or float(c[0]) < 1 or float(c[-1]) > k_ - 1:
        return np.exp(log_binomial_pmf(k_, c, p))
    B = PMF_ANCHOR
    nb = -(-n // B)
    anchor = np.exp(log_binomial_pmf(k_, c[0] + B * np.arange(nb, dtype=float), p))  # all within [c₀, c_last]
    A, _, rA, _ = _means(k_ + 1, p)  # (k + 1)p = A + rA exactly (rA the double nearest the residual)
    out = np.empty((nb, B))
    step = PMF_CHUNK // B  # anchors per chunk: the temporaries of a chunk stay in cache (2× less CPU)
    offs = np.arange(B - 1, dtype=float)[None, :]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        for b0 in range(0, nb, step):
            b1 = min(nb, b0 + step)
            c1 = (c[0] + 1 + B * np.arange(b0, b1, dtype=float))[:, None] + offs  # c + 1 (the last block padded)
            ratio = 1 + ((A - c1) + rA) / (c1 * (1 - p))
            blk = out[b0:b1]
            blk[:, 0] = 1.0
            np.cumprod(ratio, axis=1, out=blk[:, 1:])
            blk *= anchor[b0:b1, None]
    return out.reshape(-1)[:n]


def window_of(law: Law, tail: float = TAIL) -> tuple[int, int, float]:
    """The binomial window of a two-atom law (counts of atom 0); for a law batch, the union of the laws'
    windows (each law's neglected mass is then at most its own window's bound)."""
    p0, p1 = law.probs
    if hasattr(p0, "shape"):
        import numpy as np

        ps = (np.asarray(p0, dtype=float) / (np.asarray(p0, dtype=float) + np.asarray(p1, dtype=float))).tolist()
        wins = [binomial_window(law.k, min(1.0, max(0.0, p_)), tail) for p_ in ps]
        return min(w_[0] for w_ in wins), max(w_[1] for w_ in wins), max(w_[2] for w_ in wins)
    p = float(p0) / (float(p0) + float(p1))
    return binomial_window(law.k, min(1.0, max(0.0, p)), tail)


def windowed(law: Law) -> bool:
    """Whether ``expect`` sums this law over a binomial window (two atoms, k > ``EXACT_K``)."""
    return len(law.probs) == 2 and law.k > EXACT_K


def window_size(law: Law, dps: int | None = None) -> int:
    """Compositions an expectation over ``law`` sums at ``dps`` digits (None: floats)."""
    if not windowed(law):
        return math.comb(law.k + len(law.probs) - 1, law.k)
    lo, hi, _ = window_of(law, tail_of(dps))
    return hi - lo + 1
