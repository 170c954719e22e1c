"""Boundary checks for the kernels: every bad input becomes a ``ValueError`` that names the argument,
its shape or value and what is allowed, raised *before* any compute kernel runs — with one stated
exception: the values (finiteness, unit norms) of the big ``(n, k, d)`` negatives of
``numerics.infonce_loss`` are screened inside its loss pass (``per_anchor.checked_loss_kernel``), which
saves a second read of the largest array, and the flagged blocks are checked exactly
(``raise_bad_blocks``); the error is then raised before any number is returned.
Shapes, dtypes, τ, the variant, indices and all other arrays are always checked first.

What the kernels are promised (the compile policy in ``numerics._jit``): ``float64`` or ``float32``
embedding arrays, finite, with unit rows (or ``normalize=True``); integer index arrays inside the pool; a
finite ``tau > 0``; ``k ≥ 1`` negatives per anchor. Integer, boolean, complex and float16 embeddings are
refused (say what to convert to) rather than silently converted.

Copies. The big array of a call — the ``(n, k, d)`` negatives, the ``(m, d)`` pool — is handed to the kernels
as it is: its own dtype (float32 negatives with float64 anchors are read as float32 and widened per product)
and its own strides (Fortran order, strided views, broadcasts), never copied; a broadcast (zero stride) is
checked and normalised on its distinct rows (``distinct_rows``). A broadcast that would have to be copied and
would not fit in half the free memory is refused (``refuse_broadcast_copy``). The small ``(n, d)`` arrays (anchors,
positives; in-batch both) are brought to one C-contiguous dtype, float64 if any array of the call is
float64 (``small_operand``); when that copies an array the caller passed, an ``InputCopyWarning`` says which,
its size and why. ``normalize=True`` returns new, normalised arrays by definition.
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings

import numpy as np
from numba import prange

from ._jit import kernel
from .logsumexp import dot

#: allowed deviation | ‖x‖ − 1 | of a row that must be a unit vector, per dtype
UNIT_TOL = {np.dtype(np.float64): 1e-6, np.dtype(np.float32): 1e-4}
#: loss variant → kernel code (``numerics.per_anchor``): the DCL loss ℓ̃ (paper §3.4), the standard
#: SimCLR cross-entropy ℓ_std, the paper's InfoNCE ℓ of (14) = ℓ_std − log k
VARIANT_CODES = {"dcl": 0, "standard": 1, "infonce": 2}
VARIANTS = tuple(VARIANT_CODES)


def _describe(x) -> str:
    a = np.asarray(x) if not isinstance(x, np.ndarray) else x
    return f"shape {a.shape}, dtype {a.dtype}"


def embeddings(x, name: str, ndim: int, dtype=None) -> np.ndarray:
    """``x`` as a float64/float32 array with ``ndim`` dimensions, ≥ 1 entry per axis: the caller's array itself
    (its dtype and strides, no copy) unless ``dtype`` is given, which brings it to a C-contiguous array of that
    dtype through ``small_operand`` (announced by an ``InputCopyWarning`` when it copies).
    """
    if isinstance(x, (str, bytes)) or x is None:
        raise ValueError(f"{name} must be a float64 or float32 array, got {type(x).__name__}")
    try:
        a = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} must be a float64 or float32 array, got {type(x).__name__} ({exc})") from None
    if a.dtype not in (np.float64, np.float32):
        raise ValueError(
            f"{name} must be a float64 or float32 array, got dtype {a.dtype} ({_describe(a)}); "
            f"convert explicitly, e.g. {name}.astype(np.float64)"
        )
    if a.ndim != ndim:
        axes = {2: "(n, d)", 3: "(n, k, d)"}.get(ndim, f"{ndim} axes")
        raise ValueError(f"{name} must have shape {axes}, got shape {a.shape}")
    if any(sz == 0 for sz in a.shape):
        raise ValueError(
            f"{name} must have at least one entry along every axis, got shape {a.shape}"
            + (" (k = 0 negatives; need k ≥ 1)" if ndim == 3 and a.shape[1] == 0 else "")
        )
    if dtype is not None:
        return small_operand(a, name, dtype, x)
    return a


def copy_limit() -> int:
    """Bytes a copy of a broadcast input may take: half the memory free now (``os.sysconf``; 4 GiB if unknown)."""
    import os

    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) // 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 4 << 30


def _gib(nbytes: float) -> str:
    return f"{nbytes / 2**30:.3g} GiB" if nbytes >= 2**30 else f"{nbytes / 2**20:.3g} MiB"


def refuse_broadcast_copy(a: np.ndarray, name: str, dtype, why: str) -> None:
    """A broadcast (zero-stride) ``a`` whose contiguous copy would exceed ``copy_limit()``: a ValueError naming
    ``name``, the memory the copy would need and the memory free, instead of running out of memory."""
    axes = broadcast_axes(a) if a.ndim > 1 else ((0,) if a.ndim == 1 and a.strides[0] == 0 and a.size > 1 else ())
    if not axes:
        return
    need = a.size * np.dtype(dtype).itemsize
    limit = copy_limit()
    if need > limit:
        raise ValueError(
            f"{name} is a broadcast (zero-stride along axis {', '.join(map(str, axes))}) array of shape {a.shape} "
            f"whose copy would need {_gib(need)} ({why}), more than half the free memory ({_gib(2 * limit)}); pass "
            f"the distinct rows, or a contiguous {np.dtype(dtype)} array"
        )


def refuse_kernel_scratch(negatives: np.ndarray, name: str, streams: int = 4) -> None:
    """A ValueError naming ``name`` when the per-anchor kernels' working rows would not fit in half the free memory
    (``copy_limit()``): each thread holds, per k, 16 bytes for each of ``streams`` anchors (the logits, or B_τ's
    squared norms and their logs) and an 8-byte index, so an ``(n, k, d)`` negatives array with a huge k (a
    broadcast of 10⁹ negatives to 4 anchors has k = 2.5·10⁸) needs O(k) scratch per thread whatever its own
    memory; refused here instead of running out of memory inside the kernel (numba's SystemError)."""
    import numba

    k = negatives.shape[1]
    need = numba.get_num_threads() * (min(streams, negatives.shape[0]) * 16 + 8) * k
    limit = copy_limit()
    if need > limit:
        raise ValueError(
            f"{name} has k = {k} negatives per anchor: the kernels' working rows (k values per anchor, {streams} "
            f"anchors per thread) would need {_gib(need)}, more than half the free memory ({_gib(2 * limit)}); "
            "pass fewer negatives per anchor (the pooled layout, or several calls over parts of k)"
        )


def small_operand(a: np.ndarray, name: str, dtype, given=None, why: str = "") -> np.ndarray:
    """``a`` as a C-contiguous ``dtype`` array; if that copies an array the caller passed (``given``, by default
    ``a``), an ``InputCopyWarning`` names it, its shape, dtype, layout and size, and why. A broadcast array whose
    copy would not fit in memory is refused first (``refuse_broadcast_copy``).

    Used for the small ``(n, d)`` operands only (anchors, positives), so that each kernel is compiled for one
    dtype and layout of them (the big negatives or pool keep theirs: a combination of dtypes and layouts for
    every array would multiply the compiled specialisations)."""
    if not (a.flags.c_contiguous and a.dtype == np.dtype(dtype)):
        refuse_broadcast_copy(a, name, dtype, why or "the kernels read it as a C-contiguous array")
    out = np.ascontiguousarray(a, dtype=dtype)
    given = a if given is None else given
    if isinstance(given, np.ndarray) and not np.may_share_memory(out, given):
        layout = (
            "C-ordered"
            if given.flags.c_contiguous
            else ("Fortran-ordered" if given.flags.f_contiguous else ("broadcast" if 0 in given.strides else "strided"))
        )
        reason = why or (
            f"the kernels read the small (n, d) arrays of a call as C-contiguous {np.dtype(dtype)}"
            + (" (another array of the call is float64)" if given.dtype != np.dtype(dtype) else "")
        )
        warn(
            f"{name} ({layout} {given.dtype} array of shape {given.shape}) was copied to a C-ordered "
            f"{np.dtype(dtype)} array of {out.nbytes / 2**20:.3g} MiB: {reason}; pass it as "
            f"np.ascontiguousarray({name}, dtype=np.{np.dtype(dtype)}) to avoid the copy",
            InputCopyWarning,
        )
    return out


def as_float64(a: np.ndarray, name: str, why: str) -> np.ndarray:
    """``a`` as float64: the array itself when it is float64, else a copy announced by an ``InputCopyWarning`` (its
    name, size and ``why``); a broadcast array too large to copy is refused (``refuse_broadcast_copy``)."""
    if a.dtype == np.float64:
        return a
    refuse_broadcast_copy(a, name, np.float64, why)
    out = a.astype(np.float64)
    warn(
        f"{name} ({a.dtype} array of shape {a.shape}) was copied to a float64 array of {_gib(out.nbytes)}: {why}; "
        f"pass it as float64 to avoid the copy",
        InputCopyWarning,
    )
    return out


def as_array(x, name: str, what: str = "an array") -> np.ndarray:
    """``np.asarray(x)``, with numpy's own errors (ragged lists, strings that are not numbers) as a
    ``ValueError`` naming the argument."""
    if x is None or isinstance(x, (str, bytes)):
        raise ValueError(f"{name} must be {what}, got {type(x).__name__}")
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{name} must be {what}, got {type(x).__name__} that numpy cannot read ({exc})") from None
    if a.dtype == object:
        raise ValueError(f"{name} must be {what}, got an object array (mixed or nested values)")
    return a


def flag(value, name: str) -> bool:
    """A boolean option: ``True``/``False`` (or numpy booleans) only; "False" or "no" are not false."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")


def common_dtype(*arrays) -> np.dtype:
    """float64 if any argument is float64, else float32 (all arguments must be float arrays already)."""
    return np.dtype(np.float64) if any(np.asarray(a).dtype == np.float64 for a in arrays) else np.dtype(np.float32)


def positive_scalar(value, name: str) -> float:
    """A finite real ``value > 0`` (with ``1/value`` finite) as a Python float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a finite real number > 0, got {value!r}")
    v = float(value)
    if not (math.isfinite(v) and v > 0 and math.isfinite(1.0 / v)):
        raise ValueError(f"{name} must be a finite real number > 0, got {value!r}")
    return v


#: the τ range on which the kernels' accuracy is tested against 50-digit references (the README's stated range)
TAU_VALIDATED = (1e-3, 1e2)
#: below this τ the largest exponent |s_j − s⁺|/τ ≤ 2/τ of a loss is not a finite float64
TAU_MIN = 2.0 / np.finfo(np.float64).max


class OutsideValidatedRangeWarning(UserWarning):
    """τ outside ``TAU_VALIDATED``: the result is returned (no overflow, no underflow to a wrong 0 — those
    cases are refused with a ValueError), but the accuracy tests do not cover it."""


class InputCopyWarning(UserWarning):
    """An input array was copied before the kernels read it (what, its size and why are in the message)."""


def warn(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` attributed to the first caller outside ``infonce_bounds`` (the user's line), however
    deep the call chain inside the package (``infonce_risk`` → ``infonce_loss`` → here)."""
    level, frame = 2, sys._getframe(1)  # stacklevel 2 is the frame that called warn()
    while frame is not None and str(frame.f_globals.get("__name__", "")).startswith("infonce_bounds"):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)


def tau_value(tau) -> float:
    """τ > 0, finite, with 2/τ finite (else a ValueError naming τ). Outside ``TAU_VALIDATED`` = [1e-3, 1e2], the
    range the accuracy tests cover, an ``OutsideValidatedRangeWarning`` says so and the value is returned."""
    t = positive_scalar(tau, "tau")
    if t < TAU_MIN:
        raise ValueError(
            f"tau must be ≥ {TAU_MIN:.4g} (so that the largest exponent 2/τ of a loss is a finite float64), got {tau!r}"
        )
    lo, hi = TAU_VALIDATED
    if not lo <= t <= hi:
        warn(
            f"tau = {t!r} is outside [{lo:g}, {hi:g}], the range on which the kernels' accuracy is validated "
            "(against 50-digit references); the result is computed with the same overflow-free forms",
            OutsideValidatedRangeWarning,
        )
    return t


def integer_value(value, name: str, lo: int, what: str) -> int:
    """An integer ≥ ``lo`` (Python or numpy integer, or an integral float), else a ValueError naming ``name``."""
    ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, (numbers.Integral, numbers.Real))
    if ok and not isinstance(value, numbers.Integral):
        ok = math.isfinite(float(value)) and float(value).is_integer()
    if not ok or int(value) < lo:
        raise ValueError(f"{name} must be an integer ≥ {lo} ({what}), got {value!r}")
    return int(value)


def real_value(value, name: str, allowed: str, ok) -> float:
    """A finite real accepted by ``ok``, else a ValueError naming ``name`` and ``allowed``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number ({allowed}), got {value!r}")
    v = float(value)
    if not (math.isfinite(v) and ok(v)):
        raise ValueError(f"{name} = {value!r} is out of range; allowed: {allowed}")
    return v


def variant_value(variant) -> int:
    """``"dcl"`` → 0, ``"standard"`` → 1, ``"infonce"`` → 2; the old ``"averaged"`` → 0 with a DeprecationWarning."""
    from infonce_bounds.derivations.loss import canonical_loss

    return VARIANT_CODES[canonical_loss(variant, "variant", stacklevel=4)]


def same_rows(a: np.ndarray, name_a: str, b: np.ndarray, name_b: str) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"{name_b} must have one row per row of {name_a} ({a.shape[0]}), got shape {b.shape}")


def same_dim(a: np.ndarray, name_a: str, b: np.ndarray, name_b: str) -> None:
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"{name_b} must have embedding dimension d = {a.shape[-1]} like {name_a}, got shape {b.shape}")


@kernel
def _row_norm_deviation(x, out):
    """out[i, j] = | ‖x_ij‖ − 1 | for finite rows x_ij of x (n, k, d), −1 for rows holding NaN or ±inf.

    Three axes, any strides: a (n, d) array comes in as the view x[:, None, :] (``_deviation``), so no
    array is reshaped (a reshape of a Fortran-ordered or strided array would copy it)."""
    n, k, dim = x.shape
    for i in prange(n):
        for j in range(k):
            acc = dot(x[i, j], x[i, j])  # vectorised; NaN/±inf entries make it NaN or inf
            bad = False
            if not math.isfinite(acc):  # rare: find out whether an entry is non-finite or merely huge
                for t in range(dim):
                    if not math.isfinite(x[i, j, t]):
                        bad = True
            out[i, j] = -1.0 if bad else abs(math.sqrt(acc) - 1.0)


@kernel(parallel=False)
def _row_norm_deviation_serial(x, out):
    """``_row_norm_deviation`` without threads, for small arrays: waking worker threads costs more than
    the pass itself there (up to a scheduler tick, 4 ms, per launch on a loaded machine)."""
    n, k, dim = x.shape
    for i in range(n):
        for j in range(k):
            acc = dot(x[i, j], x[i, j])
            bad = False
            if not math.isfinite(acc):
                for t in range(dim):
                    if not math.isfinite(x[i, j, t]):
                        bad = True
            out[i, j] = -1.0 if bad else abs(math.sqrt(acc) - 1.0)


def _deviation(x: np.ndarray) -> np.ndarray:
    """| ‖x_r‖ − 1 | (or −1 for non-finite rows) for every row r of x (2 or 3 axes), flat in C order of the rows."""
    x3 = x[:, None, :] if x.ndim == 2 else x
    dev = np.empty(x3.shape[:2], dtype=np.float64)
    (_row_norm_deviation_serial if x.size < SERIAL_BELOW else _row_norm_deviation)(x3, dev)
    return dev.reshape(-1)


#: arrays with fewer entries than this are checked without threads
SERIAL_BELOW = 1 << 18


def _row_index(flat: int, shape: tuple) -> tuple:
    return tuple(int(i) for i in np.unravel_index(flat, shape[:-1]))


def broadcast_axes(x: np.ndarray) -> tuple[int, ...]:
    """The axes of ``x`` other than the last along which every row is the same row: stride 0 (``np.broadcast_to``,
    ``np.lib.stride_tricks``) and more than one entry."""
    return tuple(i for i in range(x.ndim - 1) if x.strides[i] == 0 and x.shape[i] > 1)


def distinct_rows(x: np.ndarray) -> np.ndarray:
    """``x`` with each broadcast axis (``broadcast_axes``) cut to its one distinct entry: a view, no copy. A row
    index of the view is a row index of ``x`` (0 along a broadcast axis), so an error names a real row."""
    axes = broadcast_axes(x)
    if not axes:
        return x
    return x[tuple(slice(0, 1) if i in axes else slice(None) for i in range(x.ndim))]


def finite_unit_rows(x: np.ndarray, name: str, normalize: bool) -> np.ndarray:
    """Refuse NaN/inf; with ``normalize`` return ``x/‖x‖`` row-wise, otherwise require unit rows.

    The norms are computed so that rows like [1e-200, 0, …] or [1e200, …] (whose squared norm under- or
    overflows) are normalised correctly, not reported as zero or turned into zeros. A broadcast array (a zero
    stride: 10⁹ negatives that are one row repeated) is checked on its distinct rows only, and normalised into a
    broadcast of its normalised distinct rows: nothing of the size of ``x`` is allocated."""
    normalize = flag(normalize, "normalize")
    if broadcast_axes(x):
        out = finite_unit_rows(distinct_rows(x), name, normalize)
        return np.broadcast_to(out, x.shape) if normalize else x
    dev = _deviation(x)
    if not normalize:
        raise_bad_rows(x, name, dev, np.arange(dev.size))
        return x
    bad = np.flatnonzero(dev < 0)
    if bad.size:
        raise ValueError(
            f"{name} must be finite; row {_row_index(bad[0], x.shape)} holds NaN or inf "
            f"({bad.size} such rows, {name} {_describe(x)})"
        )
    if normalize:
        norms = np.sqrt(np.einsum("...d,...d->...", x, x, dtype=np.float64))
        odd = ~((norms > 1e-150) & (norms < 1e150))  # ‖x‖² near the float64 range: rescale those rows only
        if np.any(odd):
            sub = x[odd].astype(np.float64)
            amax = np.max(np.abs(sub), axis=-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                scaled = sub / np.where(amax > 0, amax, 1.0)[..., None]
            norms[odd] = amax * np.sqrt(np.einsum("...d,...d->...", scaled, scaled))
        if np.any(norms == 0):
            zero = np.flatnonzero(norms.reshape(-1) == 0)[0]
            raise ValueError(
                f"{name} row {_row_index(zero, x.shape)} is zero and cannot be normalised (normalize=True)"
            )
        return np.ascontiguousarray((x / norms[..., None].astype(np.float64)).astype(x.dtype, copy=False))
    return x


def raise_bad_rows(x: np.ndarray, name: str, dev: np.ndarray, rows: np.ndarray) -> None:
    """Raise the ValueError for the first failing row, if any.

    ``dev[i]`` is | ‖x_r‖ − 1 | of flat row ``r = rows[i]`` of ``x`` (rows of its last axis), or −1 when
    ‖x_r‖² is not finite (NaN/inf entries, or overflow of huge finite entries: told apart here).
    """

    def row(r):  # row r of x's rows in C order, without reshaping x (that would copy a non-contiguous x)
        return x[_row_index(r, x.shape)]

    nonfinite = np.flatnonzero(dev < 0)
    for i in nonfinite:
        r = int(rows[i])
        if not np.all(np.isfinite(row(r))):
            raise ValueError(
                f"{name} must be finite; row {_row_index(r, x.shape)} holds NaN or inf ({name} {_describe(x)})"
            )
    tol = UNIT_TOL[x.dtype]
    over = np.flatnonzero((dev < 0) | (dev > tol))
    if over.size:
        r = int(rows[over[0]])
        norm = float(np.hypot.reduce(row(r).astype(np.float64)))  # no overflow for huge finite entries
        raise ValueError(
            f"{name} must have unit rows (| ‖x‖ − 1 | ≤ {tol:g} for {x.dtype}); row "
            f"{_row_index(r, x.shape)} has norm {norm:.9g}. Pass normalize=True to normalise the rows"
        )


def raise_bad_blocks(x: np.ndarray, name: str, screen: np.ndarray) -> None:
    """Raise the ValueError of ``finite_unit_rows`` for ``x`` of shape (n, k, d), given a screen of its
    blocks x[i] (``per_anchor.checked_loss_kernel``): screen[i] ≥ max_j | ‖x_ij‖² − 1 | or NaN.

    Only blocks with screen[i] > tol (or NaN) can hold a bad row (| ‖x‖ − 1 | > tol implies
    | ‖x‖² − 1 | > tol (2 − tol) ≥ tol); their rows are checked exactly here, in order, so the error names
    the same row the full check would (the first non-finite row, else the first non-unit one).
    """
    flagged = np.flatnonzero(~(screen <= UNIT_TOL[x.dtype]))
    if flagged.size == 0:
        return
    k = x.shape[1]
    dev = _deviation(x[flagged])  # a copy of the flagged blocks only
    raise_bad_rows(x, name, dev, (flagged[:, None] * k + np.arange(k)).reshape(-1))


def index_array(index, name: str, n: int, m: int) -> np.ndarray:
    """An ``(n, k)`` integer array with every entry in ``[0, m)``; an int64 or int32 array is returned as it is
    (any strides, no copy), other integer dtypes as int64."""
    a = as_array(index, name, "an (n, k) integer array of pool row numbers")
    if a.dtype.kind not in "iu":
        raise ValueError(f"{name} must be an integer array of pool row numbers, got dtype {a.dtype}")
    if a.ndim != 2 or a.shape[0] != n:
        raise ValueError(f"{name} must have shape (n, k) = ({n}, k), got shape {a.shape}")
    if a.shape[1] == 0:
        raise ValueError(f"{name} must list k ≥ 1 negatives per anchor, got shape {a.shape}")
    lo, hi = int(a.min()), int(a.max())
    if lo < 0 or hi >= m:
        bad = lo if lo < 0 else hi
        where = tuple(int(i) for i in np.argwhere(a == bad)[0])
        raise ValueError(f"{name} entries must lie in [0, {m}) (the pool has {m} rows); {name}{list(where)} = {bad}")
    if a.dtype in (np.int64, np.int32) and a.dtype.isnative:
        return a
    return a.astype(np.int64)  # uint, int8/16: small dtypes, or a list (nothing of the caller's is copied twice)


def betas_array(betas, name: str = "betas") -> np.ndarray:
    """A non-empty 1-D array of finite inverse temperatures b > 0, float64."""
    a = np.atleast_1d(as_array(betas, name, "a non-empty list of real numbers > 0"))
    if a.dtype.kind not in "iuf" or a.ndim != 1 or a.size == 0:
        raise ValueError(f"{name} must be a non-empty list of real numbers > 0, got {betas!r}")
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a) & (a > 0)):
        raise ValueError(f"{name} must be finite and > 0, got {betas!r}")
    return np.ascontiguousarray(a)


def scores_array(x, name: str) -> np.ndarray:
    """An ``(n, k)`` finite float array (similarities or scores), float64 or float32, as given (any strides)."""
    a = embeddings(x, name, 2)
    if not np.all(np.isfinite(a)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name} must be finite; {name}{list(bad)} = {a[bad]!r}")
    return a


def weights_array(x, name: str, shape: tuple) -> np.ndarray:
    """Nonnegative finite ``shape`` weights with a positive sum per row, normalised to sum to 1: a new float64 array
    (a broadcast one stays a broadcast: its distinct entries are normalised, nothing of size n × k is made)."""
    a = as_array(x, name, f"a real array of shape {shape}")
    if a.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be a real array, got dtype {a.dtype}")
    if a.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got shape {a.shape}")
    full = a.shape
    rows_same, cols_same = (a.ndim == 2 and a.strides[i] == 0 and a.shape[i] > 1 for i in (0, 1))
    if rows_same or cols_same:  # a broadcast: normalise its distinct entries, return their broadcast (no n × k array)
        part = a[: 1 if rows_same else None, : 1 if cols_same else None]
        out = weights_array(np.ascontiguousarray(part), name, part.shape)
        if cols_same:  # one entry stands for k equal ones: each is 1/k of the row
            out = out / full[1]
        return np.broadcast_to(out, full)
    a = a.astype(np.float64)
    if not np.all(np.isfinite(a) & (a >= 0)):
        bad = tuple(int(i) for i in np.argwhere(~(np.isfinite(a) & (a >= 0)))[0])
        raise ValueError(f"{name} must be finite and ≥ 0; {name}{list(bad)} = {a[bad]!r}")
    tot = a.sum(axis=1)
    if np.any(tot <= 0):
        row = int(np.flatnonzero(tot <= 0)[0])
        raise ValueError(f"{name} row {row} sums to 0; the ideal weights need Σ_j m(x, y_j) > 0")
    return np.ascontiguousarray(a / tot[:, None])


# --- data-dependent bounds (numerics.data_bounds) ----------------------------------------------


def finite_inputs(x: np.ndarray, name: str) -> np.ndarray:
    """Refuse NaN/inf in raw inputs z ∈ R^{d_in} (any finite values are allowed: no norm condition)."""
    ok = np.isfinite(x)
    if not ok.all():
        bad = tuple(int(i) for i in np.argwhere(~ok)[0])
        raise ValueError(f"{name} must be finite; {name}{list(bad)} = {x[bad]!r}")
    return x


def beta_value(beta) -> float:
    """Prop. 4's power-mean exponent β ≥ 1 (``math.inf`` allowed: the max over negatives)."""
    if isinstance(beta, (bool, np.bool_)) or not isinstance(beta, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"beta must be a real number ≥ 1 (Prop. 4's power-mean exponent; inf allowed), got {beta!r}")
    b = float(beta)
    if not b >= 1.0:  # also NaN
        raise ValueError(f"beta must be a real number ≥ 1 (Prop. 4's power-mean exponent; inf allowed), got {beta!r}")
    return b


def embedding_map(phi, name: str, second: str) -> tuple:
    """``phi`` = (anchors, positives, negatives-or-pool): an embedding map evaluated on the tuples."""
    if not isinstance(phi, (tuple, list)) or len(phi) != 3:
        raise ValueError(
            f"{name} must be a tuple (anchors (n, d), positives (n, d), {second}) of the embedding map's values "
            f"on the tuples, got {type(phi).__name__}"
            + (f" of length {len(phi)}" if isinstance(phi, (tuple, list)) else "")
        )
    return tuple(phi)
