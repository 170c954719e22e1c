"""E fn(counts) over the k i.i.d. draws of a finite law (``expect``): the exact multinomial sum, in floats,
at full precision, or for a whole law batch at once (``L = ARRAY``: numpy, ``_expect_array``); a two-atom
law at large k is summed over its binomial window (``large_k``, ``_expect_window``).

Where the CPU goes: an expectation over a law batch calls fn once per support of the compositions on count
arrays, with the loop's products and running sum (``_expect_array``: the same doubles); a one-law window
calls fn once on count arrays where it can (``_expect_counts_array``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import mpmath

from .large_k import (
    FLOAT_EXACT_K,
    TAIL,
    binomial_window,
    log_binomial_pmf,
    mp_binomial_pmf,
    tail_of,
    window_of,
    windowed,
)
from .law import ARRAY, Law


def compositions(k_: int, N: int):
    """All count vectors (c_1, …, c_N) of nonnegative integers with Σ c_i = k (C(k+N−1, N−1) of them)."""
    if N == 1:
        yield (k_,)
        return
    if N == 2:  # the two-atom laws at large k: no recursion per composition (same order)
        for c in range(k_, -1, -1):
            yield (c, k_ - c)
        return
    for c in range(k_, -1, -1):
        for rest in compositions(k_ - c, N - 1):
            yield (c,) + rest


@lru_cache(maxsize=256)
def _comps(k_: int, n_atoms: int) -> tuple:
    """(counts, exact multinomial coefficient) for k draws over ``n_atoms`` atoms.

    The coefficient k!/(c_1!⋯c_N!) as the product of binomials C(k, c_1) C(k − c_1, c_2) ⋯ (the same
    integer): ``math.comb`` per factor, where dividing k! by each c_i! costs O(k²) big-integer work
    per composition (at k = 4096, 24 s for the k + 1 compositions of two atoms)."""
    comb = math.comb
    out = []
    for cnt in compositions(k_, n_atoms):
        coef, left = 1, k_
        for c in cnt:
            if c:
                coef *= comb(left, c)
                left -= c
        out.append((cnt, coef))
    return tuple(out)


def expect(L: Any, law: Law, fn: Callable[[tuple], Any]) -> Any:
    """E fn(counts) over the k i.i.d. draws: the exact multinomial sum (zero-probability atoms skipped);
    for a two-atom law with k > ``EXACT_K``, the sum over the binomial window of ``binomial_window``
    (O(√k) compositions; neglected mass ≤ ``TAIL`` = 1e-30 in floats, ≤ 10^{−(dps+10)} at dps digits);
    in floats already beyond ``FLOAT_EXACT_K``, where a coefficient would overflow a double.

    With ``L = ARRAY`` and a law batch (every field an array over the laws), the same sum for every law
    at once: ``fn(cnt)`` then returns an array, and a composition is skipped law by law."""
    if windowed(law) or (L is not mpmath and len(law.probs) == 2 and law.k > FLOAT_EXACT_K):
        return _expect_window(L, law, fn)
    if L is ARRAY:
        return _expect_array(law, fn)
    total = 0 * law.probs[0]
    one = L.mpf(1) if L is mpmath else 1.0
    # p_i ** c for c = 0 … k, once per law (the same powers the loop takes, memoised for its other expectations)
    key = ("pow", id(L), mpmath.mp.prec if L is mpmath else 0)
    pw = law.memo(key, lambda: [[p_**c for c in range(law.k + 1)] for p_ in law.probs])
    zero = [p_ == 0 for p_ in law.probs]
    for cnt, coef in _comps(law.k, len(law.probs)):
        if any(c and z_ for c, z_ in zip(cnt, zero)):
            continue
        pr = coef * one
        for c, row in zip(cnt, pw):
            if c:
                pr *= row[c]
        total += pr * fn(cnt)
    return total


@lru_cache(maxsize=1024)
def _patterns(k_: int, n_atoms: int) -> tuple:
    """The compositions of ``_comps`` grouped by support (the atoms drawn at least once): per support S, the
    rows (in composition order), the multinomial coefficients as floats (None where one overflows a double:
    the caller then takes the one-composition loop, which raises as before) and the count columns, as
    (rows, 1) arrays of S's atoms, read-only (memoised per process: a pure function of k and the atoms)."""
    import numpy as np

    comps = _comps(k_, n_atoms)
    cnt = np.array([c for c, _ in comps], dtype=np.int64).reshape(len(comps), n_atoms)
    try:
        coef = np.array([coef * 1.0 for _, coef in comps])  # the loop's coef * 1.0
    except OverflowError:
        coef = None
    out = []
    sup = cnt > 0
    keys = sup @ (1 << np.arange(n_atoms))
    for key in sorted(set(keys.tolist())):
        rows = np.flatnonzero(keys == key)
        S = tuple(i for i in range(n_atoms) if key >> i & 1)
        cols = {}
        for i in S:
            col = cnt[rows, i].astype(float).reshape(-1, 1)
            col.flags.writeable = False
            cols[i] = col
        icols = {i: cnt[rows, i] for i in S}
        for v_ in (rows, *icols.values()):
            v_.flags.writeable = False
        out.append((S, rows, None if coef is None else coef[rows], cols, icols))
    return tuple(out), len(comps)


#: (fn's code object, k, atoms) ``_expect_array`` has seen to give, on count arrays, what fn gives on one
#: composition (True) or not (False: those take the one-composition loop)
_ELEMENTWISE: dict[Any, bool] = {}


def _expect_array(law: Law, fn: Callable[[tuple], Any]) -> Any:
    """``expect`` on a law batch: fn is called once per support (the compositions' atoms drawn at least once:
    at most 7 for 3 atoms) on count arrays (compositions × 1, broadcasting against the laws), instead of
    once per composition; a count not drawn is the int 0, as in the one-composition loop, so ``if c`` reads
    the same. The probabilities are the loop's products (coef · p_i^{c_i} over the drawn atoms in order, from
    one table of p_i^c per atom), the terms the loop's terms, summed in composition order (a running sum:
    the same doubles as the loop). Guard: the first time a code object of fn is seen at a (k, atoms), fn on the
    first and last composition of each support, as ints, must agree with the array entries (to
    ``COUNTS_AGREE``), else that fn (and fn raising on arrays) is summed by the loop (``_expect_loop``)."""
    import numpy as np

    code = (getattr(fn, "__code__", None), law.k, len(law.probs))
    if _ELEMENTWISE.get(code, True) is False:
        return _expect_loop(law, fn)
    pats, n_comp = _patterns(law.k, len(law.probs))
    if pats and pats[0][2] is None:
        return _expect_loop(law, fn)
    Counts = _counts_class()
    n = np.shape(law.probs[0])
    zero = 0 * law.probs[0]  # the loop's initial total (its dtype: float64, or long double in the wide pass)
    terms = np.zeros((n_comp + 1, *n), dtype=np.result_type(zero, *law.probs, law.tau))
    terms[0] = zero
    check = code not in _ELEMENTWISE
    # the probabilities per support (memoised on the batch: a claim takes several expectations of it)
    probs = law.memo(("pr", law.probs[0].dtype.str), lambda: _support_probs(law, pats))
    try:
        with np.errstate(all="ignore"):
            for (_s, rows, _c, cols, icols), (pr, skip) in zip(pats, probs):
                cnt = tuple(cols[i].view(Counts) if i in cols else 0 for i in range(len(law.probs)))
                vals = np.asarray(fn(cnt))
                if vals.dtype.kind not in "fiu":  # mpmath numbers, objects: not this path's
                    raise TypeError(f"fn gave {vals.dtype} on count arrays")
                vals = np.broadcast_to(vals, pr.shape)
                for r_ in (0, len(rows) - 1) if check else ():  # the first and last composition, as ints
                    one = np.asarray(fn(tuple(int(icols[i][r_]) if i in icols else 0 for i in range(len(law.probs)))))
                    one = np.broadcast_to(one, n)
                    got = vals[r_]
                    same = (one == got) | (np.abs(one - got) <= COUNTS_AGREE * np.maximum(1.0, np.abs(one)))
                    if not bool(np.all(same | (np.isnan(one) & np.isnan(got)))):
                        raise ValueError("fn differs on count arrays")
                terms[rows + 1] = np.where(skip, 0.0, pr * vals)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError, ZeroDivisionError):
        _ELEMENTWISE[code] = False
        return _expect_loop(law, fn)
    except OverflowError:  # data (an exact integer too large for a float), not fn's form: the loop, as before
        return _expect_loop(law, fn)
    if check:
        _ELEMENTWISE[code] = True
    return np.cumsum(terms, axis=0)[-1]  # the running sum of the loop, term by term in composition order


def _support_probs(law: Law, pats: tuple) -> list:
    """Per support of ``_patterns``: (the loop's probabilities coef · Π p_i^{c_i} over the drawn atoms in
    order, (compositions, laws); whether a drawn atom has probability 0, per law)."""
    import numpy as np

    n = np.shape(law.probs[0])
    powers = {}  # p_i ** c, as the loop computes it (an array to a Python int power)
    out = []
    with np.errstate(all="ignore"):
        for S, _rows, coef, _cols, icols in pats:
            pr = coef.reshape(-1, *(1,) * len(n))
            skip = False
            for i in S:
                if i not in powers:
                    powers[i] = np.stack([law.probs[i] ** c for c in range(law.k + 1)])
                pr = pr * powers[i][icols[i]]
                skip = skip | (law.probs[i] == 0)
            out.append((pr, skip))
    return out


def _expect_loop(law: Law, fn: Callable[[tuple], Any]) -> Any:
    """``expect`` on a law batch, one composition at a time (fn on int counts)."""
    import numpy as np

    total = 0 * law.probs[0]
    for cnt, coef in _comps(law.k, len(law.probs)):
        pr = coef * 1.0  # the scalar loop's products in its order: the same floats
        skip = False
        for c, p_ in zip(cnt, law.probs):
            if c:
                pr = pr * p_**c
                skip = skip | (p_ == 0)
        total = total + np.where(skip, 0.0, pr * fn(cnt))  # fn may be inf/nan where it is skipped
    return total


class _Counts:
    """Marker base for the count arrays of ``_expect_counts_array`` (the class itself is built on numpy)."""


@lru_cache(maxsize=1)
def _counts_class() -> type:
    import numpy as np

    class Counts(np.ndarray, _Counts):
        """Counts of one atom over interior compositions (every entry ≥ 1): ``if c`` is true, as for each
        entry; anything computed from them is a plain array (``if c > 5`` then raises, as it should)."""

        def __bool__(self) -> bool:
            return True  # every entry is nonzero (interior compositions only)

        def __array_wrap__(self, arr, context=None, return_scalar=False):  # results are plain arrays
            out = np.asarray(arr)
            return out[()] if return_scalar else out

    return Counts


#: relative agreement the guard of ``_expect_counts_array`` asks of the array and the scalar evaluations
COUNTS_AGREE = 1e-9


def _expect_counts_array(law: Law, fn: Callable[[tuple], Any], lo: int, hi: int, w_: Any) -> Any:
    """E fn over a one-law batch's window with fn called once on count *arrays* (the compositions as the
    array axis), or None where fn cannot run on them (it branches on a count's value, …): the caller then
    loops over the compositions. The end compositions (a count of 0) are scored one by one, since ``if c``
    must be false there. Guard: fn on the first and last interior composition, as scalars, must agree with
    the array entries to ``COUNTS_AGREE``."""
    import numpy as np

    k_ = law.k
    a_, b_ = max(lo, 1), min(hi, k_ - 1)
    if b_ - a_ < 2:
        return None
    Counts = _counts_class()
    c0 = np.arange(a_, b_ + 1, dtype=float)
    cnt = (c0.view(Counts), (k_ - c0).view(Counts))
    try:
        with np.errstate(all="ignore"):
            vals = np.asarray(fn(cnt), dtype=float)
        vals = np.broadcast_to(vals.reshape(-1) if vals.size == len(c0) else vals, c0.shape)
        for j_ in (0, len(c0) - 1):
            one = float(np.asarray(fn((a_ + j_, k_ - a_ - j_)), dtype=float).reshape(-1)[0])
            got = float(vals[j_])
            if not (one == got or abs(one - got) <= COUNTS_AGREE * max(1.0, abs(one), abs(got))):
                return None
    except (TypeError, ValueError, AttributeError, IndexError, KeyError, ZeroDivisionError, OverflowError):
        return None
    inner = w_[a_ - lo : b_ - lo + 1]
    total = float(np.dot(np.where(inner == 0, 0.0, inner), np.where(inner == 0, 0.0, vals)))
    for c in [c_ for c_ in {lo, hi} if c_ < a_ or c_ > b_]:  # c = 0 or c = k, if the window reaches them
        pr = w_[c - lo]
        if pr:
            total += pr * float(np.asarray(fn((c, k_ - c)), dtype=float).reshape(-1)[0])
    return np.array([total])


def _expect_window(L: Any, law: Law, fn: Callable[[tuple], Any]) -> Any:
    """E fn(counts) over a two-atom law at large k: the sum over the binomial window (``binomial_window``:
    neglected mass ≤ ``TAIL`` in floats, ≤ 10^{−(dps+10)} at dps digits), the window's probabilities
    renormalised to sum to 1 (so the result is a weighted mean of fn over the window: its error is at most
    2 × neglected mass × sup |fn|)."""
    if L is ARRAY:
        import numpy as np

        lo, hi, _ = window_of(law, TAIL)
        p = law.probs[0] / (law.probs[0] + law.probs[1])
        cs = np.arange(lo, hi + 1, dtype=float)
        lp = log_binomial_pmf(law.k, cs[None, :], np.asarray(p, dtype=float)[:, None])  # (laws, window)
        w_ = np.exp(lp - lp.max(axis=1, keepdims=True))
        w_ /= w_.sum(axis=1, keepdims=True)
        if len(p) == 1:
            got = _expect_counts_array(law, fn, lo, hi, w_[0])
            if got is not None:
                return got
        total = 0 * law.probs[0]
        for j_, c in enumerate(range(lo, hi + 1)):
            pr = w_[:, j_]
            total = total + np.where(pr == 0, 0.0, pr * fn((c, law.k - c)))
        return total
    if L is mpmath:
        dps = mpmath.mp.dps
        p = law.probs[0] / (law.probs[0] + law.probs[1])
        lo, hi, _ = binomial_window(law.k, min(1.0, max(0.0, float(p))), tail_of(dps))
        if p == 0 or p == 1:
            return fn((lo, law.k - lo))
        q = 1 - p
        k_ = law.k
        pr = mp_binomial_pmf(k_, lo, p, dps)
        ratio = p / q
        total = mpmath.mpf(0)
        mass = mpmath.mpf(0)
        for c in range(lo, hi + 1):
            total += pr * fn((c, k_ - c))
            mass += pr
            pr = pr * (k_ - c) / (c + 1) * ratio  # P(c + 1) from P(c)
        return total / mass
    import numpy as np

    lo, hi, _ = window_of(law, TAIL)
    p = float(law.probs[0]) / (float(law.probs[0]) + float(law.probs[1]))
    lp = log_binomial_pmf(law.k, np.arange(lo, hi + 1, dtype=float), p)
    w_ = np.exp(lp - lp.max())
    w_ = (w_ / w_.sum()).tolist()
    total = 0.0
    for c, pr in zip(range(lo, hi + 1), w_):
        if pr:
            total += pr * fn((c, law.k - c))
    return total
