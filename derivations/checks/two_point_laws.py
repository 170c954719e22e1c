"""A law claim over two-point laws of W = e^{s/τ}: ``statistic(τ, k) ≤ rhs(τ, k)``, attacked by exact sums.

``TwoPointLaw(statistic)`` is a typed law claim (a ``Step.check`` that is data: the run cache keys it by its
field and the engine's version). Its claim: for every τ ∈ [1e-3, 1e2], every law of W with two atoms
``e^{x/τ}``, ``e^{y/τ}`` (x, y ∈ [−1, 1], weight π on y) and every k ≥ 1, ``lhs ≤ step.rhs(τ, k)`` where lhs is

* ``"abs_dev_mean"``: ``E|Z_k − Z|``, compared with ``min(√(Var W/k), rhs)`` (the Cauchy–Schwarz form too);
* ``"abs_log_gap"``: ``|E log Z_k − log Z|``,

with ``Z = E W`` and ``Z_k`` the mean of k i.i.d. copies of W. SymPy cannot state an expectation over a law,
so the claim is attacked, never proved: the expectation over the k draws is summed exactly over the binomial
law of the number of draws at y (no sampling of negatives), at random (τ, x, y, π, k) with τ log-uniform,
x, y, π uniform and k ∈ 1 … ``K_TWO_POINT``, box corners first, by the shared law search of ``checks.laws``
(local search around the worst laws). Two-point laws are where Var W reaches Popoviciu's bound, the
adversarial case. The float pass is in the log domain (τ = 1e-3 does not overflow), a batch at a time in numpy
(checked against the one-point pass on its first point); a float-found violation is confirmed at 50 digits
(never below 40) before the step is refuted. Verdict: refuted, or verified numerically on the ranges attacked.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from ..ledger import DerivationError, Step, StepResult
from ..symbols import k, tau
from . import DEFAULTS
from .laws import search, search_result

#: the statistics a two-point law claim may bound
STATISTICS = ("abs_dev_mean", "abs_log_gap")


def _lae(u: float, v: float) -> float:
    """log(e^u + e^v) for floats, −inf allowed."""
    if u == -math.inf:
        return v
    if v == -math.inf:
        return u
    m = max(u, v)
    return m + math.log1p(math.exp(-abs(u - v)))


def _point_float(statistic: str, tv: float, xv: float, yv: float, pv: float, kv: int, rhs_log: float):
    """(lhs, bound) for one two-point law, scaled by e^{−max(x, y)/τ} (abs_dev_mean) or in nats
    (abs_log_gap); all in floats and in the log domain, so τ = 1e-3 does not overflow."""
    lx, ly = xv / tv, yv / tv
    big = max(lx, ly)
    if statistic == "abs_dev_mean":
        a_, b_ = math.exp(lx - big), math.exp(ly - big)
        zt = pv * b_ + (1 - pv) * a_
        lhs = 0.0
        for m in range(kv + 1):
            wgt = math.comb(kv, m) * pv**m * (1 - pv) ** (kv - m)
            lhs += wgt * abs((m * b_ + (kv - m) * a_) / kv - zt)
        cs = math.sqrt(pv * (1 - pv)) * abs(b_ - a_) / math.sqrt(kv)  # √(Var W/k), scaled
        cap = math.exp(rhs_log - big) if rhs_log - big < 700 else math.inf
        return lhs, min(cs, cap)
    lz = _lae(math.log(pv) + ly if pv > 0 else -math.inf, math.log1p(-pv) + lx if pv < 1 else -math.inf)
    gap = 0.0
    for m in range(kv + 1):
        wgt = math.comb(kv, m) * pv**m * (1 - pv) ** (kv - m)
        if wgt == 0.0:
            continue
        lzk = _lae(math.log(m) + ly if m else -math.inf, math.log(kv - m) + lx if m < kv else -math.inf) - math.log(kv)
        gap += wgt * (lzk - lz)
    return abs(gap), (math.exp(rhs_log) if rhs_log < 700 else math.inf)


#: the two-point laws' k range, 1 … this
K_TWO_POINT = 16
#: a batch's float pair and the one-point float pair of the same point must agree to this (else one point at a time)
BATCH_AGREE = 1e-9


def _points_float(statistic: str, pts: list, rhs_log: Any) -> tuple[Any, Any]:
    """``_point_float`` of many points at once (numpy, grouped by k; ``rhs_log`` their log rhs, an array):
    the same sums over m = 0 … k in the same order, with numpy's exp/log (so equal to ``_point_float`` up to
    float rounding, which the caller's guard checks). NaN where a point has π ∈ {0, 1} (left to the one-point
    pass, which handles the absent atom)."""
    import numpy as np

    arr = np.array([pt[:4] for pt in pts], dtype=float).reshape(-1, 4)
    kk = np.array([pt[4] for pt in pts], dtype=np.int64)
    sm, bg = np.full(len(pts), np.nan), np.full(len(pts), np.nan)
    with np.errstate(all="ignore"):
        for kv in np.unique(kk).tolist():
            ii = np.flatnonzero((kk == kv) & (arr[:, 3] > 0) & (arr[:, 3] < 1))
            if not len(ii):
                continue
            tv, xv, yv, pv = (arr[ii, j] for j in range(4))
            lx, ly = xv / tv, yv / tv
            big = np.maximum(lx, ly)
            rl = rhs_log[ii]
            if statistic == "abs_dev_mean":
                a_, b_ = np.exp(lx - big), np.exp(ly - big)
                zt = pv * b_ + (1 - pv) * a_
                lhs = np.zeros(len(ii))
                for m in range(kv + 1):
                    wgt = math.comb(kv, m) * pv**m * (1 - pv) ** (kv - m)
                    lhs = lhs + wgt * np.abs((m * b_ + (kv - m) * a_) / kv - zt)
                cs = np.sqrt(pv * (1 - pv)) * np.abs(b_ - a_) / math.sqrt(kv)
                cap = np.where(rl - big < 700, np.exp(np.minimum(rl - big, 700)), np.inf)
                sm[ii], bg[ii] = lhs, np.minimum(cs, cap)
                continue
            lz = np.logaddexp(np.log(pv) + ly, np.log1p(-pv) + lx)
            gap = np.zeros(len(ii))
            for m in range(kv + 1):
                wgt = math.comb(kv, m) * pv**m * (1 - pv) ** (kv - m)
                if m == 0:
                    lzk = lx + math.log(kv)
                elif m == kv:
                    lzk = ly + math.log(kv)
                else:
                    lzk = np.logaddexp(math.log(m) + ly, math.log(kv - m) + lx)
                gap = gap + np.where(wgt == 0.0, 0.0, wgt * ((lzk - math.log(kv)) - lz))
            sm[ii], bg[ii] = np.abs(gap), np.where(rl < 700, np.exp(np.minimum(rl, 700)), np.inf)
    return sm, bg


def _point_exact(statistic: str, tv, xv, yv, pv, kv: int, rhs) -> tuple:
    """The same (lhs, bound) unscaled, at the current mpmath precision (the search confirms a float-found
    violation at 50 digits, ``checks.laws.search``); never below 40 digits."""
    with mpmath.workdps(max(40, mpmath.mp.dps)):
        tv, xv, yv, pv = (mpmath.mpf(v) for v in (tv, xv, yv, pv))
        a_, b_ = mpmath.exp(xv / tv), mpmath.exp(yv / tv)
        zt = pv * b_ + (1 - pv) * a_
        tot = mpmath.mpf(0)
        for m in range(kv + 1):
            wgt = mpmath.binomial(kv, m) * pv**m * (1 - pv) ** (kv - m)
            zk = (m * b_ + (kv - m) * a_) / kv
            tot += wgt * (abs(zk - zt) if statistic == "abs_dev_mean" else mpmath.log(zk) - mpmath.log(zt))
        if statistic == "abs_dev_mean":
            return abs(tot), min(mpmath.sqrt(pv * (1 - pv) * (b_ - a_) ** 2 / kv), rhs(tv, kv))
        return abs(tot), rhs(tv, kv)


#: the box corners searched first: ±1 similarities, landmark τ and π, k at both ends of 1 … K_TWO_POINT
CORNERS = [
    (tv, xv, yv, pv, kv)
    for tv in (1e-3, 1e-2, 0.3, 1.0, 100.0)
    for xv, yv in ((-1.0, 1.0), (1.0, -1.0))
    for pv in (0.5, 0.1, 0.9)
    for kv in (1, K_TWO_POINT)
]


def _sample(rng: random.Random) -> tuple:
    """One law: τ log-uniform on [1e-3, 1e2], x, y uniform on [−1, 1], π uniform on [0, 1], k uniform on 1 … 16."""
    return (10 ** rng.uniform(-3, 2), rng.uniform(-1, 1), rng.uniform(-1, 1), rng.random(), rng.randint(1, 16))


def _perturb(rng: random.Random, pt: tuple) -> tuple:
    """A law near ``pt``: one scale from (0.3, 0.1, 0.01), Gaussian steps of it on log τ, x, y and π (clipped
    to their ranges), k moved by −1, 0, 0, +1."""
    tv, xv, yv, pv, kv = pt
    sc = rng.choice((0.3, 0.1, 0.01))
    return (
        min(100.0, max(1e-3, tv * math.exp(rng.gauss(0, sc)))),
        min(1.0, max(-1.0, xv + rng.gauss(0, sc))),
        min(1.0, max(-1.0, yv + rng.gauss(0, sc))),
        min(1.0, max(0.0, pv + rng.gauss(0, sc))),
        min(16, max(1, kv + rng.choice((-1, 0, 0, 1)))),
    )


def _sample_block(gen: Any, rng: random.Random, n: int) -> list:
    """``_sample``'s points a block at a time (numpy): τ log-uniform on [1e-3, 1e2], x, y uniform on
    [−1, 1], π uniform on [0, 1], k uniform on 1 … 16."""
    tv = 10 ** gen.uniform(-3, 2, n)
    xv, yv, pv = gen.uniform(-1, 1, n), gen.uniform(-1, 1, n), gen.random(n)
    kv = gen.integers(1, K_TWO_POINT + 1, n)
    return list(zip(tv.tolist(), xv.tolist(), yv.tolist(), pv.tolist(), kv.tolist()))


def _perturb_block(gen: Any, rng: random.Random, starts: list, which: list) -> list:
    """``_perturb`` of ``starts[w]`` for each w of ``which`` (numpy): one scale per point from (0.3, 0.1,
    0.01), Gaussian steps of it on log τ, x, y and π (clipped to their ranges), k moved by −1, 0, 0, +1."""
    import numpy as np

    n = len(which)
    base = np.array([starts[w][:4] for w in which], dtype=float).reshape(n, 4)
    k0 = np.array([starts[w][4] for w in which], dtype=np.int64)
    sc = np.array((0.3, 0.1, 0.01))[gen.integers(0, 3, n)]
    z = gen.standard_normal((n, 4)) * sc[:, None]
    tv = np.clip(base[:, 0] * np.exp(z[:, 0]), 1e-3, 100.0)
    xv, yv = np.clip(base[:, 1] + z[:, 1], -1.0, 1.0), np.clip(base[:, 2] + z[:, 2], -1.0, 1.0)
    pv = np.clip(base[:, 3] + z[:, 3], 0.0, 1.0)
    kv = np.clip(k0 + np.array((-1, 0, 0, 1))[gen.integers(0, 4, n)], 1, K_TWO_POINT)
    return list(zip(tv.tolist(), xv.tolist(), yv.tolist(), pv.tolist(), kv.tolist()))


def _describe(pt: tuple) -> dict[str, str]:
    return dict(zip(("tau", "x", "y", "pi", "k"), (repr(pt[0]), repr(pt[1]), repr(pt[2]), repr(pt[3]), str(pt[4]))))


class _Sides:
    """(lhs, bound) of one claim at a law, one at a time (floats or mpmath) or a batch at a time (numpy)."""

    def __init__(self, statistic: str, rhs: Any) -> None:
        self.statistic = statistic
        self.rhs_mp = sp.lambdify((tau, k), rhs, modules="mpmath")
        self.rhs_f = sp.lambdify((tau, k), rhs, modules="math")
        self.rhs_np = sp.lambdify((tau, k), rhs, modules="numpy")
        self.off = ""  # why the batch pass is off (its first point disagreed with the one-point pass)
        self.seen = False

    def evaluate(self, pt: tuple, exact: bool) -> tuple:
        tv, xv, yv, pv, kv = pt
        if exact:
            return _point_exact(self.statistic, tv, xv, yv, pv, kv, self.rhs_mp)
        try:
            rhs_log = math.log(self.rhs_f(tv, kv))
        except (OverflowError, ValueError):
            rhs_log = float(mpmath.log(self.rhs_mp(mpmath.mpf(tv), kv)))
        return _point_float(self.statistic, tv, xv, yv, pv, kv, rhs_log)

    def _rhs_logs(self, pts: list) -> Any:
        """log rhs of each point (a float array): beyond a double in long double, else as ``evaluate``."""
        import numpy as np

        n = len(pts)
        tv = np.array([pt[0] for pt in pts], dtype=float)
        kv = np.array([pt[4] for pt in pts], dtype=float)
        with np.errstate(all="ignore"):
            rl = np.log(np.broadcast_to(np.asarray(self.rhs_np(tv, kv), dtype=float), (n,))).copy()
        over = np.flatnonzero(~np.isfinite(rl))
        if len(over):
            with np.errstate(all="ignore"):
                ld = np.log(np.asarray(self.rhs_np(tv[over].astype(np.longdouble), kv[over].astype(np.longdouble))))
            ld = np.broadcast_to(ld, over.shape).astype(float)
            for j, v_ in zip(over.tolist(), ld.tolist()):
                if math.isfinite(v_) and (v_ > 750 or self.statistic == "abs_dev_mean"):
                    rl[j] = v_  # (abs_log_gap: any log rhs ≥ 700 gives the bound +inf, as in ``_point_float``)
                    continue
                try:
                    rl[j] = float(mpmath.log(self.rhs_mp(mpmath.mpf(pts[j][0]), pts[j][4])))
                except (OverflowError, ValueError, ZeroDivisionError):
                    rl[j] = np.nan
        return rl

    def evaluate_batch(self, pts: list) -> tuple:
        """The float pass on a batch (numpy): NaN where it is not finite (redone by ``evaluate``). Guard:
        the first point of the first batch is also evaluated alone and must agree to ``BATCH_AGREE``,
        else every batch is left to the one-point pass."""
        import numpy as np

        n = len(pts)
        if self.off:
            return np.full(n, np.nan), np.full(n, np.nan)
        sm, bg = _points_float(self.statistic, pts, self._rhs_logs(pts))
        # NaN or a non-finite lhs: redone by ``evaluate``; a bound of +inf (its log ≥ 700) is a value, as there
        bad = np.isnan(sm) | np.isnan(bg) | ~np.isfinite(sm) | (bg == -np.inf)
        sm, bg = np.where(bad, np.nan, sm), np.where(bad, np.nan, bg)
        if not self.seen and (~bad).any():
            j = int(np.flatnonzero(~bad)[0])
            self.seen = True
            ref = self.evaluate(pts[j], False)
            for g_, r_ in zip((sm[j], bg[j]), ref):
                if not (g_ == r_ or abs(g_ - r_) <= BATCH_AGREE * max(1.0, abs(g_), abs(r_))):
                    self.off = f"batch and one-point float passes differ: {(sm[j], bg[j])!r} vs {ref!r}"
                    return np.full(n, np.nan), np.full(n, np.nan)
        return sm, bg


def attack_two_point(step: Step, opts: Mapping[str, Any], statistic: str) -> StepResult:
    """The search of the module docstring on ``step`` (its ``rhs`` a function of τ and k): refuted on a
    confirmed violation, else verified numerically on the ranges attacked."""
    sides = _Sides(statistic, step.rhs)
    out = search(
        step,
        {**DEFAULTS, **opts},
        budget=int(opts.get("trials", 100_000)),
        sample=_sample,
        evaluate=sides.evaluate,
        describe=_describe,
        perturb=_perturb,
        seeds=CORNERS,
        evaluate_batch=sides.evaluate_batch if opts.get("vectorise", True) else None,
        sample_block=_sample_block,
        perturb_block=_perturb_block,
    )
    method = f"falsifier: exact binomial sums over {out.trials} two-point laws of W (k ≤ 16, τ ∈ [1e-3, 1e2])"
    attacked = {"tau": ("1/1000", "100"), "x": ("-1", "1"), "y": ("-1", "1"), "pi": ("0", "1"), "k": ("1", "16")}
    return search_result(step, out, method, attacked)


@dataclass(frozen=True)
class TwoPointLaw:
    """The law claim ``statistic ≤ step.rhs(τ, k)`` over two-point laws (module docstring), as a ``Step.check``:
    ``Step(..., check=TwoPointLaw("abs_log_gap"))``. ``statistic`` is one of ``STATISTICS``."""

    statistic: str

    def __post_init__(self) -> None:
        if self.statistic not in STATISTICS:
            raise DerivationError(f"TwoPointLaw: statistic must be one of {STATISTICS}, got {self.statistic!r}")

    def __call__(self, step: Step, opts: Mapping[str, Any]) -> StepResult:
        return attack_two_point(step, opts, self.statistic)
