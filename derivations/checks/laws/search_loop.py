"""The one search loop for claims checked on exact finite objects (``search``), its full-precision
confirmation (``confirm``) and its verdict (``search_result``).

A claim here is ``small(p) ≤ big(p)`` for every point ``p`` of a family that is not a box of reals (a finite
law, a finite function class). The rules (the package docstring of ``checks.laws`` gives them in full): the
checker's seeds first, then ``sample`` until 70 % of the budget, then local search from the 16 worst points;
each point in floats, a float violation confirmed at ``opts["dps"]`` digits and again at twice as many before
it refutes; the worst ratio small/big reported at ``dps`` digits. One ``_Search`` holds a run's state: the
trials, the counterexample, the margins and counters, and the worst points.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath

from ...ledger import Step, StepResult
from ..verdicts import refuted, verified
from .law import LawBlock, _Row

#: float-only violations within float rounding re-evaluated at full precision before further ones are only
#: counted (a confirmation of a law costs 10–100 ms at 50 digits: tight claims produce thousands of them)
NOISE_CAP = 20
#: a larger side below this is treated as zero when forming the ratio small/big
ZERO = 1e-12
#: points per float batch of ``search(evaluate_batch=…)``: the first batch is small (a false claim is
#: usually refuted within it), later ones double up to ``BATCH`` (numpy's per-call cost is then negligible)
BATCH_START = 64
BATCH = 4096
#: points ``search`` scores as one batch after a run's first block (``LawBlock`` draws, ``BATCH_START`` doubling
#: to ``BATCH`` a block as before): the law groups of the batch pass are larger, its per-call cost shared
MERGE = 16384


@dataclass
class SearchOutcome:
    """What ``search`` found: trials, worst ratio (at full precision), counterexample, evidence text."""

    trials: int
    worst_ratio: float | None
    evidence: str
    counterexample: dict[str, str] | None
    worst_point: Any = None


def search(
    step: Step,
    opts: Mapping[str, Any],
    *,
    budget: int,
    sample: Callable[[random.Random], Any],
    evaluate: Callable[[Any, bool], tuple[Any, Any]],
    describe: Callable[[Any], dict[str, str]],
    perturb: Callable[[random.Random, Any], Any] | None = None,
    seeds: Iterable[Any] = (),
    zero: float = ZERO,
    zero_ratio: float = 1.0,
    noise_cap: int = NOISE_CAP,
    evaluate_batch: Callable[[list], tuple[Any, Any]] | None = None,
    exact_cheap: Callable[[Any], bool] | None = None,
    sample_block: Callable[[Any, random.Random, int], list] | None = None,
    perturb_block: Callable[[Any, random.Random, list], list] | None = None,
) -> SearchOutcome:
    """Search for a point with ``small > big``: ``evaluate(p, exact)`` gives (small, big), in floats when
    ``exact`` is false and in mpmath at the current precision when true. See the module docstring.

    Where ``big ≤ zero`` the ratio is ``zero_ratio`` if ``small − big ≤ zero`` (both sides vanish: an
    equality law by default), else ∞.

    ``evaluate_batch(points) -> (small, big)``: the float pass on many points at once (two float arrays);
    a point whose entry is NaN is redone by ``evaluate(p, False)`` (±inf is a value, as from ``evaluate``). The points are drawn exactly
    as without it (sampling and local search consume the generator in the same order, and no point
    depends on the value of another within a phase), so the points searched, the trials counted, the
    confirmations and the verdict are those of the one-point-at-a-time loop.

    ``exact_cheap(p)`` false (a two-atom law whose binomial window is too wide for ``dps`` digits): a
    float violation within float rounding there is counted as float noise without its full-precision
    re-evaluation (as beyond ``noise_cap``), and a worst point there is reported with its float ratio (the
    evidence says so). A larger float violation is always re-evaluated at ``dps`` digits, whatever it costs.

    ``sample_block(gen, rng, n)`` / ``perturb_block(gen, rng, starts, which)``: the points drawn a block at a
    time (``gen`` a numpy Generator seeded from the same seed and step name, ``rng`` the ``random.Random`` of
    ``sample``), in place of ``sample`` / ``perturb``; ``perturb_block`` draws one point from ``starts[w]`` for
    each ``w`` of ``which`` (the same round robin over the worst points). A block is a list of points or a
    ``LawBlock`` (rows read as laws only where one is needed). Blocks have the batch sizes (``BATCH_START``
    doubling to ``BATCH``) with or without ``evaluate_batch``, so both loops search the same points.

    With ``evaluate_batch`` a batch is scored as arrays (``score_batch``): only a point to redo or a float
    violation takes a Python step, and the worst points are kept as the one-point loop keeps them (``keep``)."""
    rng = random.Random(f"{opts['seed']}:{step.name}")
    gen = None
    if sample_block is not None or perturb_block is not None:
        import hashlib

        import numpy as np

        gen = np.random.default_rng(
            int.from_bytes(hashlib.sha256(f"{opts['seed']}:{step.name}".encode()).digest()[:8], "big")
        )
    run = _Search(evaluate, describe, int(opts["dps"]), zero, zero_ratio, noise_cap, evaluate_batch, exact_cheap)
    for pt in seeds:
        if run.cx is None and run.n < budget:
            run.score(pt)
    fresh = None if sample_block is None else (lambda i, n: sample_block(gen, rng, n))
    run.run(lambda i: sample(rng), int(0.7 * budget), fresh)
    run.worst.sort(key=lambda w_: -w_[0])
    starts = [run.point(pt) for _, pt in run.worst[:16]]
    if starts:  # round robin over the starts, as many rounds as the budget allows
        near = None
        if perturb_block is not None:
            near = lambda i, n: perturb_block(gen, rng, starts, [(i + j) % len(starts) for j in range(n)])  # noqa: E731
        elif perturb is None:
            near = fresh
        run.run(lambda i: perturb(rng, starts[i % len(starts)]) if perturb is not None else sample(rng), budget, near)
    else:
        run.run(lambda i: sample(rng), budget, fresh)
    return run.outcome()


class _Search:
    """The running state of one ``search``: trials ``n``, the counterexample ``cx`` (None until one is
    confirmed), the least margin big − small, the float-noise counters (``noise``: float violations that were
    rounding at full precision, or counted past ``noise_cap``; ``wide``: within float rounding at windows too
    wide for the full-precision pass; ``deep``: rounding beyond the tolerance at ``dps`` digits but gone at
    more), and ``worst``: (ratio, point or ``_Row``), the worst points so far in the order of the one-point loop
    (see ``keep``)."""

    def __init__(
        self,
        evaluate: Callable[[Any, bool], tuple[Any, Any]],
        describe: Callable[[Any], dict[str, str]],
        dps: int,
        zero: float,
        zero_ratio: float,
        noise_cap: int,
        evaluate_batch: Callable[[list], tuple[Any, Any]] | None,
        exact_cheap: Callable[[Any], bool] | None,
    ) -> None:
        self.evaluate, self.describe, self.dps = evaluate, describe, dps
        self.zero, self.zero_ratio, self.noise_cap = zero, zero_ratio, noise_cap
        self.evaluate_batch, self.exact_cheap = evaluate_batch, exact_cheap
        self.worst: list[tuple[float, Any]] = []
        self.n = 0
        self.cx: dict[str, str] | None = None
        self.min_margin = math.inf
        self.noise = self.wide = self.deep = 0

    def violated(self, pt: Any, sm: float, bg: float) -> tuple[float, float]:
        """The float violation sm > bg at ``pt`` (no counterexample yet; a ``_Row``: the law, read only when
        needed): counted, or confirmed at full precision (``confirm``); returns the pair to score (the
        full-precision one where it was redone)."""
        exact_cheap = self.exact_cheap
        tiny = sm - bg <= 1e-9 * max(1.0, abs(sm), abs(bg))
        if isinstance(pt, _Row) and (exact_cheap is not None or not tiny or self.noise < self.noise_cap):
            pt = pt.law()
        if tiny and exact_cheap is not None and not exact_cheap(pt):
            self.wide += 1  # float-rounding size, at a window too wide for the full-precision pass
        elif tiny and self.noise >= self.noise_cap:
            self.noise += 1  # float rounding of a tight claim: enough of them confirmed at full precision
        else:
            held, sm_, bg_, digits = confirm(self.evaluate, pt, self.dps)
            if held:
                self.cx = {**self.describe(pt), "lhs": mpmath.nstr(sm_, 20), "rhs": mpmath.nstr(bg_, 20)}
            else:  # rounding only: keep the full-precision values
                self.noise += 1
                self.deep += digits > self.dps  # beyond the tolerance at dps digits, rounding at more
                sm, bg = float(sm_), float(bg_)
        return sm, bg

    def score(self, pt: Any) -> None:
        """One point, in floats by ``evaluate`` (the seeds, and the loops without batches)."""
        self.n += 1
        try:
            sm, bg = self.evaluate(pt, False)
            sm, bg = float(sm), float(bg)
        except (ValueError, ZeroDivisionError, OverflowError):
            return
        if math.isnan(sm) or math.isnan(bg):
            return
        if sm > bg and self.cx is None:
            sm, bg = self.violated(pt, sm, bg)
        self.min_margin = min(self.min_margin, bg - sm)
        zero = self.zero
        ratio = sm / bg if bg > zero else (self.zero_ratio if sm - bg <= zero else math.inf)
        worst = self.worst
        worst.append((ratio, pt))
        if len(worst) > 64:
            worst.sort(key=lambda w_: -w_[0])
            del worst[16:]

    def score_batch(self, pts: Any, sm: Any, bg: Any) -> None:
        """``score`` of every point of a batch whose float pairs ``evaluate_batch`` gave (NaN: redone by
        ``evaluate``), as arrays: the points that need Python (a NaN to redo, a float violation to count or
        confirm) are taken one by one in their order, the rest at once; the trials, margins, confirmations,
        counters and worst points are those of ``score`` on each point in turn (see ``keep``)."""
        import numpy as np

        m = len(pts)
        get = pts.law if isinstance(pts, LawBlock) else pts.__getitem__
        sm, bg = np.array(sm, dtype=float), np.array(bg, dtype=float)
        redo = np.isnan(sm) | np.isnan(bg)
        ok = ~redo
        stop = m
        for j in np.flatnonzero(redo | (sm > bg)).tolist():
            if redo[j]:
                try:
                    a_, b_ = self.evaluate(get(j), False)
                    a_, b_ = float(a_), float(b_)
                except (ValueError, ZeroDivisionError, OverflowError):
                    continue
                if math.isnan(a_) or math.isnan(b_):
                    continue
                sm[j], bg[j], ok[j] = a_, b_, True
            if sm[j] > bg[j]:
                row = _Row(pts, j) if isinstance(pts, LawBlock) else get(j)
                sm[j], bg[j] = self.violated(row, float(sm[j]), float(bg[j]))
                if self.cx is not None:
                    stop = j + 1
                    break
        self.n += stop
        idx = np.flatnonzero(ok[:stop])
        if not len(idx):
            return
        s_, b_ = sm[idx], bg[idx]
        zero = self.zero
        with np.errstate(all="ignore"):
            gap = b_ - s_
            gap = gap[~np.isnan(gap)]  # min(x, nan) is x
            if len(gap):
                self.min_margin = min(self.min_margin, float(gap.min()))
            ratio = np.where(
                b_ > zero, s_ / np.where(b_ > zero, b_, 1.0), np.where(s_ - b_ <= zero, self.zero_ratio, np.inf)
            )
        self.keep(ratio, idx, (lambda j: _Row(pts, j)) if isinstance(pts, LawBlock) else get)

    def keep(self, ratio: Any, idx: Any, ref: Callable[[int], Any]) -> None:
        """Append (ratio[i], ref(idx[i])) to ``worst`` as ``score`` does one at a time (append; past 64 entries,
        a stable sort on −ratio and a cut to 16), without a Python step per point: between two cuts nothing
        is read, and without NaN ratios the list after the last cut of the batch is the 16 best, ties in order
        of arrival, of the list and the points up to that cut (a point cut once never comes back: 16 at least
        as good arrived before it), followed by the points after it. With a NaN ratio (inf/inf) anywhere the
        sort's result depends on its path, so the points are appended one by one as ``score`` does."""
        import numpy as np

        worst = self.worst
        m = len(idx)
        if np.isnan(ratio).any() or any(w_[0] != w_[0] for w_ in worst):
            for r_, j in zip(ratio.tolist(), idx.tolist()):
                worst.append((r_, ref(j)))
                if len(worst) > 64:
                    worst.sort(key=lambda w_: -w_[0])
                    del worst[16:]
            return
        ell = len(worst)
        if ell + m <= 64:
            worst.extend(zip(ratio.tolist(), [ref(j) for j in idx.tolist()]))
            return
        first = 65 - ell  # points whose arrival makes the first cut; then one cut every 49
        last = first + 49 * ((m - first) // 49)  # points up to the last cut of this batch
        pool = np.concatenate([np.array([w_[0] for w_ in worst], dtype=float), ratio[:last]])
        top = np.argsort(-pool, kind="stable")[:16].tolist()
        tail = zip(ratio[last:].tolist(), [ref(j) for j in idx[last:].tolist()])
        worst[:] = [worst[q] if q < ell else (float(ratio[q - ell]), ref(int(idx[q - ell]))) for q in top] + list(tail)

    @staticmethod
    def point(ref: Any) -> Any:
        return ref.law() if isinstance(ref, _Row) else ref

    def run(self, draw: Callable[[int], Any], until: int, block: Callable[[int, int], Any] | None = None) -> None:
        """Score points ``draw(i)`` (i = 0, 1, …), or the blocks ``block(i, n)`` of n points from the i-th on,
        until ``until`` trials or a counterexample, in batches when ``evaluate_batch`` is given (the draws of a
        batch are made before any of them is scored: the same draws, since a draw never reads a score)."""
        evaluate_batch = self.evaluate_batch
        if evaluate_batch is None and block is None:
            i = 0
            while self.n < until and self.cx is None:
                self.score(draw(i))
                i += 1
            return
        i, size = 0, BATCH_START
        while self.n < until and self.cx is None:
            m = min(size, until - self.n)
            pts = block(i, m) if block is not None else [draw(i + j) for j in range(m)]
            i += len(pts)
            size = min(2 * size, BATCH)  # a refuted claim stops in the first small batch
            if evaluate_batch is not None and isinstance(pts, LawBlock) and m > BATCH_START:
                # after the first (small) block, the next blocks are drawn (the same blocks, in the same order: a
                # draw never reads a score) until MERGE points and scored as one batch: larger law groups
                more, ahead = [pts], self.n + m
                while ahead - self.n < MERGE and ahead < until:
                    m2 = min(size, until - ahead)
                    size = min(2 * size, BATCH)
                    nxt = block(i, m2)
                    if not isinstance(nxt, LawBlock):
                        break
                    more.append(nxt)
                    i += len(nxt)
                    ahead += m2
                pts = LawBlock.concat(more)
                if pts is None:  # blocks that do not stack (different extras): one batch each
                    for b_ in more:
                        if self.cx is None:
                            self.score_batch(b_, *evaluate_batch(b_))
                    continue
            if evaluate_batch is None:
                for pt in pts:
                    self.score(pt)
                    if self.cx is not None:
                        break
                continue
            self.score_batch(pts, *evaluate_batch(pts))

    def outcome(self) -> SearchOutcome:
        """The run's ``SearchOutcome``: the worst ratio re-evaluated at ``dps`` digits (in floats where
        ``exact_cheap`` says the point is too wide for it), and the evidence text."""
        worst, dps, zero, describe = self.worst, self.dps, self.zero, self.describe
        worst.sort(key=lambda w_: -w_[0])
        worst_pt = self.point(worst[0][1]) if worst else None
        best = None
        in_floats = False
        if worst and worst[0][0] not in (math.inf, -math.inf):
            if self.exact_cheap is not None and not self.exact_cheap(worst_pt):
                best, in_floats = worst[0][0], True
            else:
                with mpmath.workdps(dps):
                    sm_, bg_ = self.evaluate(worst_pt, True)
                    best = float(sm_ / bg_) if bg_ > zero else worst[0][0]
        where = ""
        if worst:
            where = " at " + ", ".join(f"{key}={v_}" for key, v_ in describe(worst_pt).items())
        ev = (
            (f"worst ratio lhs/rhs = {best:.9g}" if best is not None else "no ratio defined")
            + (" (in floats: its window is too wide for the full-precision pass)" if in_floats else "")
            + f", min margin {self.min_margin:.3g}{where}"
            + (f"; {self.noise} float-only violations (none at {dps} digits)" if self.noise else "")
            + (
                f" ({self.deep} of them beyond the tolerance at {dps} digits but rounding: gone at {2 * dps} or more)"
                if self.deep
                else ""
            )
            + (
                f"; {self.wide} float violations within float rounding (≤ 1e-9 × max(1, |side|)) at windows too "
                f"wide for {dps} digits, not re-evaluated"
                if self.wide
                else ""
            )
        )
        return SearchOutcome(self.n, best, ev, self.cx, worst_pt)


#: precisions a confirmation tries: dps, 2·dps, 4·dps, … (``confirm``): 32 × 50 digits settles a cancellation of
#: terms 10^{868} times the result (e^{±1000} at τ = 1e-3) with digits to spare
SETTLE_DOUBLINGS = 5
#: two successive excesses within this (relative) have settled: the excess is the claim's, not rounding
SETTLE_AGREE = 1e-9


def confirm(evaluate: Callable[[Any, bool], tuple[Any, Any]], pt: Any, dps: int) -> tuple[bool, Any, Any, int]:
    """Whether ``small > big`` at ``pt`` survives full precision: (held, small, big, digits), the values at the
    last precision tried and that precision.

    The excess small − big is formed at ``dps`` digits and must exceed the tolerance 10^{10−dps} ×
    max(1, |small|, |big|); it must then still exceed it at 2·dps digits and not have moved (to
    ``SETTLE_AGREE``), else the precision doubles again (up to ``SETTLE_DOUBLINGS`` times). The tolerance is
    relative to the two sides, not to the terms a side is formed from: where a side is a difference of
    terms far larger than itself (|E(μ̂ − μ)² − Var/k|/μ² with Var/μ² ~ 10^{12}), the rounding of those terms
    at ``dps`` digits can exceed it. Rounding shrinks by 10^{−dps} when the digits double; an excess the
    claim really has does not move. One that exceeds the tolerance at every precision tried is held (never
    a counterexample less than a single evaluation at ``dps`` gave)."""
    tol = None
    prev = None
    sm_ = bg_ = None
    for i in range(SETTLE_DOUBLINGS + 1):
        with mpmath.workdps(dps * 2**i):
            sm_, bg_ = evaluate(pt, True)
            if tol is None:
                tol = mpmath.mpf(10) ** (10 - dps) * max(1, abs(sm_), abs(bg_))
            ex = sm_ - bg_
            if not ex > tol:
                return False, sm_, bg_, dps * 2**i
            if prev is not None and abs(ex - prev) <= SETTLE_AGREE * abs(ex):
                return True, sm_, bg_, dps * 2**i
            prev = ex
    return True, sm_, bg_, dps * 2**SETTLE_DOUBLINGS


def search_result(step: Step, out: SearchOutcome, method: str, attacked: dict[str, tuple[str, str]]) -> StepResult:
    """The verdict of a ``search``: refuted on a confirmed counterexample, else verified numerically on
    ``attacked`` (the ranges searched, recorded on the result)."""
    common = dict(method=method, evidence=out.evidence, worst_ratio=out.worst_ratio, trials=out.trials)
    if out.counterexample is not None:
        return refuted(step, counterexample=out.counterexample, attacked=attacked, **common)
    return verified(step, attacked=attacked, **common)
