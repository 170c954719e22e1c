"""The float pass of a law claim over many laws at once (``batch_evaluator``: ``search(evaluate_batch=…)``).

The laws are grouped into batches of one k and one number of atoms (``_groups``; a ``LawBlock``'s windowed
two-atom laws in one batch with k an array where the claim takes it) and the claim runs once per batch with
``L = ARRAY`` (numpy doubles; long double for the laws whose double pass overflows). A guard compares batch
and one-law values and leaves the claim to the one-law loop on a mismatch: the verdicts are those of the loop.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from .large_k import EXACT_K
from .law import ARRAY, Law, LawBlock
from .search_loop import ZERO


def _groups(laws: list[Law] | LawBlock, k_arrays: bool = False) -> list[tuple[Any, Law]]:
    """The laws as batches: one per (k, atoms, density or not, extra names), with the laws' indices (groups in
    order of first appearance, indices increasing). ``k_arrays`` (a claim that takes k as an array over the
    batch): the two-atom laws at k > ``EXACT_K`` + 1 of a ``LawBlock`` form one batch per density or not, with
    ``k`` the array of their k (each law is summed over its own binomial window)."""
    import numpy as np

    if isinstance(laws, LawBlock):
        return _block_groups(laws, k_arrays)

    idx: dict[tuple, list[int]] = {}
    for i, lw in enumerate(laws):
        idx.setdefault((lw.k, len(lw.probs), lw.dens is None, tuple(lw.extra)), []).append(i)
    out = []
    for (k_, na, no_dens, names), ii in idx.items():
        grp = [laws[i] for i in ii]

        def cols(rows: list, na: int = na) -> list:
            # one array over the laws per atom: the (laws × atoms) table in one call, as contiguous rows
            return list(np.array(rows, dtype=float).reshape(-1, na).T.copy())

        out.append(
            (
                ii,
                Law(
                    np.array([lw.tau for lw in grp], dtype=float),
                    k_,
                    cols([lw.sims for lw in grp]),
                    cols([lw.probs for lw in grp]),
                    None if no_dens else cols([lw.dens for lw in grp]),
                    {key: np.array([lw.extra[key] for lw in grp], dtype=float) for key in names},
                ),
            )
        )
    return out


def _block_groups(b: LawBlock, k_arrays: bool = False) -> list[tuple[Any, Law]]:
    """``_groups`` of a ``LawBlock``: the same groups, in the same order, each column taken from the block's
    arrays (the same doubles as from the laws' lists)."""
    import numpy as np

    hd = np.zeros(len(b), dtype=np.int64) if b.has_dens is None else b.has_dens.astype(np.int64)
    key = (b.k * 4 + b.na) * 2 + hd
    wide = None
    if k_arrays:  # every windowed two-atom law in one group (per density or not): key −1 or −2
        wide = (b.na == 2) & (b.k > EXACT_K + 1)
        key = np.where(wide, -1 - hd, key)
    _, first, inv = np.unique(key, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    srt = np.argsort(inv, kind="stable")
    ends = np.cumsum(np.bincount(inv))
    out = []
    for g in np.argsort(first, kind="stable").tolist():
        ii = srt[ends[g - 1] if g else 0 : ends[g]]
        i0 = int(ii[0])
        na = int(b.na[i0])
        out.append(
            (
                ii,
                Law(
                    b.tau[ii],
                    b.k[ii] if wide is not None and wide[i0] else int(b.k[i0]),
                    [b.sims[ii, j] for j in range(na)],
                    [b.probs[ii, j] for j in range(na)],
                    [b.dens[ii, j] for j in range(na)] if hd[i0] else None,
                    {key_: v_[ii] for key_, v_ in b.extra.items()},
                ),
            )
        )
    return out


#: a float pass of a batch and of the same law alone must agree to this (relative to max(1, |value|))
BATCH_AGREE = 1e-9
#: a long-double pair closer than this to a violation (relative to max(1, |side|)) is redone at 30 digits
WIDE_MARGIN = 1e-9
#: long-double pairs per kind of law also redone at 30 digits (they must agree, else long double stops)
WIDE_GUARDS = 3
#: k beyond which the guard of ``batch_evaluator`` treats every k as one kind (two-atom laws at large k)
GUARD_K = 16


def _kind(batch: Law) -> tuple:
    k_ = GUARD_K if hasattr(batch.k, "shape") else min(batch.k, GUARD_K)  # an array of k: windowed, all > GUARD_K
    return (k_, len(batch.probs), batch.dens is None, tuple(batch.extra))


def _select(batch: Law, m: Any, dtype: Any) -> Law:
    """The laws ``m`` of a law batch, as arrays of ``dtype``."""

    def sel(v_: Any) -> Any:
        return v_[m].astype(dtype)

    return Law(
        sel(batch.tau),
        batch.k[m] if hasattr(batch.k, "shape") else batch.k,
        [sel(v_) for v_ in batch.sims],
        [sel(v_) for v_ in batch.probs],
        None if batch.dens is None else [sel(v_) for v_ in batch.dens],
        {key: sel(v_) for key, v_ in batch.extra.items()},
    )


def batch_evaluator(
    claim: Callable[[Any, Law], tuple[Any, Any]], one: Callable[[Law], tuple[float, float]], k_arrays: bool = False
) -> Callable[[list], tuple[Any, Any]]:
    """``evaluate_batch`` for ``search`` from a law claim: ``claim(ARRAY, batch)`` per group of laws.

    NaN (redone law by law by ``search`` with ``one``, the float pass of one law) where the claim gives
    no finite value or cannot run on arrays. Guard: the first law of the first group of each kind
    (atoms, density, extras, k up to ``GUARD_K``; beyond it one kind) is also evaluated by ``one``; if
    the two disagree beyond ``BATCH_AGREE``, or the claim cannot run on arrays at all, every later
    batch is left to the one-law loop (``evaluate_batch.off`` says why). So a claim written for
    ``math``/``mpmath`` only is still checked, and checked the same.

    Laws without a finite double pair (e^{1/τ} overflows a double for τ < 1/709, where the one-law
    pass redoes the law in mpmath at 30 digits, ~1–4 ms) are evaluated again in long double (x86: a
    64-bit mantissa and exponents to 16383, so e^{3/τ} at τ = 1e-3 is representable), and that pair
    is taken, cast to doubles (a side beyond a double's range is then ±inf, as the 30-digit pass's
    floats give it), only where it is clearly no violation: margin above ``WIDE_MARGIN`` relative to
    max(1, |side|) and larger side above ``ZERO``, or a side at ±inf on the safe side. Everything near
    a violation or a ratio of ~0/0 is left to the one-law pass (30 digits), as before. Long double is a
    screen like the double pass it extends: where a claim cancels catastrophically at e^{±1/τ} (a
    variance of e^{s/τ}-sized terms), the guard sees it: the first ``WIDE_GUARDS`` such laws of each
    kind (atoms, density, extras) are also evaluated by ``one`` and must agree (or both exceed a
    double's range), else the long-double pass stops for this check (``evaluate_batch.wide_off``).
    A law that the one-law pass skips (a ValueError: log 0 after an underflow at τ ≈ 1e-3) and a batch
    evaluates (IEEE: log 0 = −inf, e^{−inf} = 0) is scored: one more point checked, never a point less."""
    import numpy as np

    guarded: set[tuple] = set()
    wide_seen: dict[tuple, int] = {}

    def evaluate_batch(laws: list | LawBlock) -> tuple[Any, Any]:
        n = len(laws)
        get = laws.law if isinstance(laws, LawBlock) else laws.__getitem__
        sm, bg = np.full(n, np.nan), np.full(n, np.nan)
        if evaluate_batch.off:
            return sm, bg
        for ii, batch in _groups(laws, k_arrays):
            try:
                with np.errstate(all="ignore"):
                    a_, b_ = claim(ARRAY, batch)
                a_, b_ = np.asarray(a_), np.asarray(b_)
                if a_.dtype.kind not in "fiu" or b_.dtype.kind not in "fiu":  # mpmath numbers leaked in
                    raise TypeError(f"claim gave {a_.dtype}/{b_.dtype} on a law batch")
                a_ = np.broadcast_to(a_, (len(ii),)).astype(float)
                b_ = np.broadcast_to(b_, (len(ii),)).astype(float)
            except (OverflowError, ZeroDivisionError, FloatingPointError):
                continue  # data, not the claim's form (an exact coefficient too large for a float): law by law
            except (TypeError, ValueError, AttributeError, IndexError, KeyError) as err:
                evaluate_batch.off = f"claim does not run on arrays: {type(err).__name__}: {err}"
                return np.full(n, np.nan), np.full(n, np.nan)
            kind = _kind(batch)
            got = (float(a_[0]), float(b_[0]))
            if kind not in guarded and math.isfinite(got[0]) and math.isfinite(got[1]):
                # (a law whose batch pair is not finite is redone alone anyway, and one the one-law pass
                # skips, log 0 after an underflow, is scored here: nothing to compare for either)
                ref = _one(one, get(int(ii[0])))
                if ref is not None:
                    guarded.add(kind)
                if ref is not None and not _agree(got, ref):
                    evaluate_batch.off = f"batch and one-law float passes differ: {got!r} vs {ref!r}"
                    return np.full(n, np.nan), np.full(n, np.nan)
            bad = ~(np.isfinite(a_) & np.isfinite(b_))
            sm[ii], bg[ii] = np.where(bad, np.nan, a_), np.where(bad, np.nan, b_)  # inf in doubles: not trusted
            if bad.any() and not evaluate_batch.wide_off and np.finfo(np.longdouble).maxexp > 1024:
                try:
                    with np.errstate(all="ignore"):
                        a2, b2 = claim(ARRAY, _select(batch, bad, np.longdouble))
                        a2 = np.broadcast_to(np.asarray(a2), (int(bad.sum()),))
                        b2 = np.broadcast_to(np.asarray(b2), (int(bad.sum()),))
                        ok = np.isfinite(a2) & np.isfinite(b2)
                        # both sides far beyond a double's range (2^1030): the one-law pass gives (±inf, ±inf)
                        lim = np.ldexp(np.longdouble(1), HUGE_LD_EXP)
                        huge = (np.abs(a2) > lim) & (np.abs(b2) > lim)
                        a2, b2 = a2.astype(float), b2.astype(float)
                except (ArithmeticError, TypeError, ValueError, AttributeError, IndexError, KeyError):
                    continue
                wkind = ("wide", *kind[1:])  # one kind for every k: the same code runs at every k
                rows = zip(np.asarray(ii)[bad].tolist(), ok.tolist(), huge.tolist(), a2.tolist(), b2.tolist())
                for i, f_, h_, v_, w_ in rows:
                    if not f_ or not (_clear(v_, w_) or (h_ and not v_ > w_) or _clear_at_zero(v_, w_)):
                        continue
                    if wide_seen.get(wkind, 0) < WIDE_GUARDS:
                        wide_seen[wkind] = wide_seen.get(wkind, 0) + 1
                        ref = _one(one, get(i))
                        if ref is not None and not _agree((v_, w_), ref, huge=True):
                            evaluate_batch.wide_off = f"long-double and one-law passes differ: {(v_, w_)!r} vs {ref!r}"
                            break
                    sm[i], bg[i] = v_, w_
                if evaluate_batch.wide_off:  # this group's long-double pairs go back to the one-law pass
                    sm[ii], bg[ii] = np.where(bad, np.nan, a_), np.where(bad, np.nan, b_)
        return sm, bg

    evaluate_batch.off = ""  # type: ignore[attr-defined]
    evaluate_batch.wide_off = ""  # type: ignore[attr-defined]
    return evaluate_batch


def _one(one: Callable[[Law], tuple[float, float]], law: Law) -> tuple[float, float] | None:
    """The one-law float pair, or None where the one-law pass skips the law."""
    try:
        ref = tuple(float(v_) for v_ in one(law))
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return None if math.isnan(ref[0]) or math.isnan(ref[1]) else ref  # type: ignore[return-value]


def _clear(sm: float, bg: float) -> bool:
    """(sm, bg) is clearly no violation: by more than ``WIDE_MARGIN``, or with a side at ±inf on the safe side."""
    if (bg == math.inf and sm < math.inf) or (sm == -math.inf and bg > -math.inf):
        return True
    return bg > ZERO and bg - sm > WIDE_MARGIN * max(1.0, abs(sm), abs(bg))


#: a long-double side beyond 2^this is ±inf as a double, whatever the rounding of the pass that made it
HUGE_LD_EXP = 1030


def _clear_at_zero(sm: float, bg: float) -> bool:
    """(sm, bg) with the larger side at most ``ZERO``/2 (zero or negative: no ratio is formed, ``search`` scores
    it ``zero_ratio``) and the smaller below it by more than ``WIDE_MARGIN``: clearly no violation, and the
    score the one-law pass gives (its larger side is also below ``ZERO``, its margin as clear)."""
    return (
        math.isfinite(sm)
        and math.isfinite(bg)
        and bg <= ZERO / 2
        and bg - sm > WIDE_MARGIN * max(1.0, abs(sm), abs(bg))
    )


#: beyond this a float is as good as +inf for a ratio or a margin (a long-double side may be finite where
#: the one-law pass returns inf from an overflowed e^{2/τ})
HUGE = 1e300


def _agree(got: tuple[float, float], ref: tuple[float, float], huge: bool = False) -> bool:
    def same(g_: float, r_: float) -> bool:
        if g_ == r_ or abs(g_ - r_) <= BATCH_AGREE * max(1.0, abs(g_), abs(r_)):
            return True
        return huge and abs(g_) >= HUGE and abs(r_) >= HUGE and (g_ > 0) == (r_ > 0)

    return all(same(g_, r_) for g_, r_ in zip(got, ref))
