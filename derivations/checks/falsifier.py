"""The falsifier: randomized + adversarial search for a violation of ``small ≤ big`` (box corners,
boundary snapping, log-uniform sampling of wide ranges, the step's own adversarial points, then
pattern search toward violation), reporting the worst ratio. A float-found violation is only a
proposal: the refutation gate (``refute.confirm``) decides at the exact point it names (range ends,
shortest decimals; for a strict claim also nearby closed forms such as e), by Arb enclosures of both
sides at rising precision; the step is refuted only where the gate confirms."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from ..ledger import Step, free_names
from .refute import confirm_float_point
from .sampling import Evaluator, Sampler, _satisfies, _sides, fast_lambdify

#: the highest Arb precision (bits) at which the refutation gate tries to separate the two sides of a
#: float-found violation (64, 128, … up to it): a margin of 1e-61 at |sides| ~ 1e-30 needs ~256
GATE_BITS = 4096
#: float violations of a strict claim at which nearby closed forms (e, π, √2, …) are also proposed to the gate
CLOSED_FORM_TRIES = 16


@dataclass
class FalsifierOutcome:
    trials: int
    worst_ratio: float | None
    evidence: str
    counterexample: dict[str, str] | None = None
    worst_point: dict | None = None
    attacked: dict[str, tuple[str, str]] | None = None  #: the ranges sampled (k capped for vector claims)


def falsify(step: Step, opts: Mapping[str, Any]) -> FalsifierOutcome:
    """Randomized + adversarial search for a violation of ``small ≤ big``; worst ratio small/big."""
    small, big, strict = _sides(step)
    rng = random.Random(f"{opts['seed']}:{step.name}")
    ev = Evaluator([small, big], step.domain)
    sampler = Sampler(step.domain, rng, opts["real_cap"], opts["k_cap"])
    budget = int(opts["trials"])
    # vector claims for every k ≥ 1: a fifth of the budget attacks k beyond k_cap with grouped coordinates
    large_k = 0
    if len(ev.structural) == 1 and opts.get("large_k", True):
        (kk,) = ev.structural
        if step.domain.range_of(kk)[1] > opts["k_cap"]:
            try:
                group_claim([small, big], kk)
                large_k = budget // 5
            except _NotGroupable:
                large_k = 0
    budget -= large_k
    dps = opts["dps"]
    gate_bits = int(opts.get("gate_bits", GATE_BITS))
    state = {
        "n": 0,
        "worst": -math.inf,
        "worst_pt": None,
        "min_margin": math.inf,
        "cx": None,
        "float_noise": 0,
        "closed_tries": 0,
        "top": [],
        "top_r": [],
    }
    scored: list[tuple[float, dict]] = []

    def score(pt: dict) -> float:
        state["n"] += 1
        try:
            sv, bv = ev.evaluate(pt)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return -math.inf
        if math.isnan(sv) or math.isnan(bv):
            return -math.inf
        margin = bv - sv
        ratio = sv / bv if bv > 0 else (math.inf if sv > bv else -math.inf)
        if ratio > state["worst"]:
            state["worst"], state["worst_pt"] = ratio, pt
        if bv > 0 and (len(state["top"]) < 24 or ratio > state["top_r"][-1]):
            state["top"].append(pt)
            state["top_r"].append(ratio)
            order = sorted(range(len(state["top"])), key=lambda i_: -state["top_r"][i_])[:24]
            state["top"] = [state["top"][i_] for i_ in order]
            state["top_r"] = [state["top_r"][i_] for i_ in order]
        state["min_margin"] = min(state["min_margin"], margin)
        violated = margin < 0 or (strict and margin <= 0)
        # a margin within float rounding of zero is confirmed at full precision only for the first
        # few such points: tight claims produce thousands of them, real violations are larger
        tiny = abs(margin) <= 1e-9 * max(1.0, abs(sv), abs(bv))
        if violated and state["cx"] is None and (not tiny or state["float_noise"] < 50):
            confirm(pt)
        elif violated and tiny:
            state["float_noise"] += 1
        return ratio if bv > 0 else (1e300 if violated else -1e300)

    unconfirmed: dict[tuple, bool] = {}  # points the gate did not refute at (True: a side not evaluable)

    def confirm(pt: dict) -> None:
        # a float violation is only a proposal: the gate (refute.confirm) decides at the exact point it
        # names (a strict claim also at nearby closed forms, where it may be exactly tight: log x < x/e at
        # x = e). The pattern search proposes the same point again and again near a float-only violation:
        # the gate's verdict is a function of the point, so it is computed once and counted every time
        key = tuple((s_, type(v_), v_) for s_, v_ in pt.items())
        seen = unconfirmed.get(key)
        if seen is not None:
            state["float_noise"] += not seen
            return
        # nearby closed forms for the first CLOSED_FORM_TRIES proposals of a strict claim only: a claim tight
        # at e is tight there at every proposal, and a true strict claim (e^{−x} > 0 underflowing) has many
        closed = strict and state["closed_tries"] < CLOSED_FORM_TRIES
        # a cheap filter, never a verdict: where the claim holds at dps digits with a margin far above their
        # rounding, the gate is not asked about the point itself (only, for a strict claim, about closed
        # forms near it); a float overflow or cancellation proposes thousands of such points
        # (a non-strict claim: wherever the margin is not negative at dps digits — a claim tight along a curve
        # proposes thousands of points whose Arb enclosures overlap at every precision)
        clear = False
        try:
            s_x, b_x = ev.evaluate(pt, exact=True, dps=dps)
            m_x = b_x - s_x
            clear = bool(m_x > mpmath.mpf(10) ** (10 - dps) * max(1, abs(s_x), abs(b_x)) or (not strict and m_x >= 0))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            pass
        if clear and not closed:
            state["float_noise"] += 1
            unconfirmed[key] = False
            return
        state["closed_tries"] += closed
        cx = confirm_float_point(
            step.lhs,
            step.rhs,
            step.relation,
            pt,
            domain=step.domain,
            closed_forms=closed,
            max_bits=gate_bits,
            at_point=not clear,
        )
        if cx is not None:
            state["cx"] = cx.as_dict()
        else:
            state["float_noise"] += 1
            unconfirmed[key] = False

    def admissible(pt: dict) -> bool:
        return _satisfies(step.domain, pt)

    # 1. the step's own adversarial points and the corners of the box
    seeds = [ev.complete(dict(p), sampler) for p in step.adversarial]
    corner_syms = ev.scalars
    for c in sampler.corners(corner_syms, ev.structural):
        seeds.append(ev.complete(c, sampler))
    vec = _Vectorised(ev, sampler, step, rng, state, confirm, strict) if opts.get("vectorise", True) else None
    if vec is not None and not vec.ok:
        vec = None
    if vec is not None:
        seeds = [pt for pt in seeds[:budget] if admissible(pt)]
        with vec.np.errstate(all="ignore"):  # the batches' overflows and 0/0 are handled as values
            scored.extend(zip(vec.score_points(seeds), seeds))
        scored = [(float(sc_), pt_) for sc_, pt_ in scored]
    else:
        for pt in seeds:
            if state["n"] >= budget:
                break
            if admissible(pt):
                scored.append((score(pt), pt))
    # 2. random and boundary-snapped samples
    n_random = max(0, int(0.6 * budget) - state["n"])
    if vec is not None:
        with vec.np.errstate(all="ignore"):
            scored = vec.random_phase(n_random, scored)
        n_random = 0
    for it in range(n_random):
        pt = ev.random_point(sampler, snap=0.3 if it % 2 else 0.0)
        if not admissible(pt):
            state["n"] += 1
            continue
        sc = score(pt)
        if len(scored) < 64 or sc > scored[-1][0]:
            scored.append((sc, pt))
            scored.sort(key=lambda x: -x[0])
            del scored[64:]
        if state["cx"] is not None:
            break
    # 3. pattern search from the worst points toward violation (none where the caller has proved the claim:
    # opts["pattern_search"] False, the trials stop at what the seeds and the random phase spent)
    if not opts.get("pattern_search", True):
        budget = state["n"]
    starts = sorted(scored, key=lambda x: -x[0])[:16]
    per_start = max(1, (budget - state["n"]) // max(1, len(starts)))
    if vec is not None:
        with vec.np.errstate(all="ignore"):
            vec.pattern_search_many(starts, per_start, budget)
        starts = []
    while state["cx"] is None and state["n"] < budget:
        if starts:
            sc0, pt0 = starts.pop(0)
        else:  # every start converged: restart from a fresh boundary-snapped point
            pt0 = ev.random_point(sampler, snap=0.3)
            if not admissible(pt0):
                state["n"] += 1
                continue
            sc0 = score(pt0)
        n0 = state["n"]
        moving = [s_ for s_ in pt0 if s_ not in ev.structural]
        if vec is not None and 2 * len(moving) >= _Vectorised.MIN_BATCH:
            with vec.np.errstate(all="ignore"):
                vec.pattern_search(pt0, sc0, min(per_start, budget - state["n"]))
        else:
            _pattern_search(pt0, sc0, per_start, sampler, ev, score, admissible, rng, lambda: state["cx"] is not None)
        if state["n"] == n0:
            state["n"] += 1  # a start with nothing to move still costs a trial: the loop ends

    if strict and state["cx"] is None:
        # a strict claim tight at a closed form (log x < x/e at x = e) has no float violation unless the
        # search lands within ~1e-8 of it: the best points where the margin is ≈ 0 propose nearby closed forms
        tight_closed_forms(step, ev, [state["worst_pt"], *state["top"][:4]], state, gate_bits)

    # the float ratio is noisy where both sides are tiny: report the worst ratio at full precision
    exact_worst = None
    for pt in state["top"]:
        r_ = _settled_ratio(ev, pt, dps)
        if r_ is not None and (exact_worst is None or r_ > exact_worst[0]):
            exact_worst = (r_, pt)
    if exact_worst is not None:
        state["worst"], state["worst_pt"] = exact_worst

    big_k = None
    if large_k and state["cx"] is None:
        big_k = large_k_attack(step, small, big, strict, sampler, ev, large_k, rng, dps)
    attacked = sampler.attacked(ev)
    if big_k is not None:
        state["n"] += big_k["trials"]
        state["float_noise"] += big_k["noise"]
        if big_k["cx"] is not None:
            state["cx"] = {**big_k["cx"], "grouped": f"{GROUPS} groups of equal coordinates"}
        (kk,) = ev.structural
        attacked[str(kk)] = (attacked[str(kk)][0], str(big_k["k_range"][1]))
        attacked["grouped_k"] = tuple(str(v_) for v_ in big_k["k_range"])
    worst = state["worst"]
    worst_f = None if worst in (-math.inf, math.inf) else worst
    ev_txt = (
        f"worst ratio {'lhs/rhs' if step.relation in ('<=', '<') else 'rhs/lhs'} = {worst_f:.9g}"
        if worst_f is not None
        else "no ratio defined"
    )
    ev_txt += f", min margin {state['min_margin']:.3g}"
    if state["worst_pt"] is not None:
        ev_txt += f" at {_short(state['worst_pt'])}"
    if state["float_noise"]:
        ev_txt += f"; {state['float_noise']} float-only violations not confirmed by the Arb gate"
    if big_k is not None:
        k_lo, k_hi = big_k["k_range"]
        ev_txt += (
            f"; k ≤ {k_lo - 1} sampled coordinate by coordinate, {k_lo} ≤ k ≤ {k_hi} with {GROUPS} groups of equal "
            f"coordinates ({big_k['trials']} trials, worst float ratio "
            + (f"{big_k['worst']:.9g})" if big_k["worst"] is not None else "undefined)")
        )
    return FalsifierOutcome(state["n"], worst_f, ev_txt, state["cx"], state["worst_pt"], attacked)


#: relative float margin under which the best points of a strict claim propose nearby closed forms
TIGHT = 1e-6


def tight_closed_forms(step: Step, ev: Evaluator, pts: list, state: dict, gate_bits: int) -> None:
    """For each of ``pts`` (the search's best) where ``|big − small| ≤ TIGHT × scale`` in floats, the closed forms
    within ``TIGHT`` of its coordinates (``closed_form_candidates``) are proposed to the gate; a confirmed one
    becomes ``state["cx"]``."""
    seen = []
    for pt in pts:
        if pt is None or pt in seen or state["cx"] is not None:
            continue
        seen.append(pt)
        try:
            sv, bv = ev.evaluate(pt)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue
        if not (math.isfinite(sv) and math.isfinite(bv)) or abs(bv - sv) > TIGHT * max(1.0, abs(sv), abs(bv)):
            continue
        cx = confirm_float_point(
            step.lhs,
            step.rhs,
            step.relation,
            pt,
            domain=step.domain,
            closed_forms=True,
            max_bits=gate_bits,
            closed_tol=TIGHT,
        )
        if cx is not None:
            state["cx"] = cx.as_dict()


def _settled_ratio(ev: Evaluator, pt: Mapping, dps: int) -> float | None:
    """small/big at ``pt`` once doubling the working precision no longer moves it (to 1e-9), or None.

    Both sides of a tight claim can vanish to high order (a Taylor remainder at x = 7e-15 is 1e-86):
    at 50 digits the cancellation inside the small side leaves only rounding, and one evaluation
    would report that noise as the worst ratio (3e20 where the truth is below 1).
    """
    prev = None
    for p in (dps * 2**i for i in range(6)):  # up to 32 × 50 digits: x ~ 1e-50 needs ~350 of them
        try:
            sv, bv = ev.evaluate(pt, exact=True, dps=p)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return None
        if not bv > 0:
            return None
        r_ = float(sv / bv)
        if prev is not None and abs(r_ - prev) <= 1e-9 * max(1.0, abs(r_)):
            return r_
        prev = r_
    return None


def _short(pt: Mapping) -> str:
    items = [(str(k_), v_ if isinstance(v_, int) else mpmath.nstr(mpmath.mpf(v_), 6)) for k_, v_ in pt.items()]
    txt = ", ".join(f"{k_}={v_}" for k_, v_ in items[:6])
    return txt + (", …" if len(items) > 6 else "")


def _pattern_search(pt0, sc0, budget, sampler, ev, score, admissible, rng, stop) -> None:
    """Coordinate pattern search maximising the ratio, steps halving on failure."""
    keys = [s for s in pt0 if s not in ev.structural]
    if not keys:
        return
    best, best_sc = dict(pt0), sc0
    steps = {}
    for key in keys:
        label = key.base.label if isinstance(key, sp.Indexed) else key
        lo, hi = sampler.ranges[label]
        steps[key] = (hi - lo) / 4 if hi > lo else 0.0
    used = 0
    while used < budget and not stop():
        improved = False
        for key in rng.sample(keys, len(keys)):
            if used >= budget or stop():
                break
            label = key.base.label if isinstance(key, sp.Indexed) else key
            lo, hi = sampler.ranges[label]
            for sign in (1, -1):
                cand = dict(best)
                if lo > 0 and hi / lo > 50:  # move multiplicatively on wide positive ranges
                    val = best[key] * math.exp(sign * min(steps[key], 2.0))
                else:
                    val = best[key] + sign * steps[key]
                val = min(max(val, lo), hi)
                if label.is_integer:
                    val = int(round(val))
                cand[key] = val
                used += 1
                if not admissible(cand):
                    continue
                sc = score(cand)
                if sc > best_sc:
                    best, best_sc, improved = cand, sc, True
                    break
        if not improved:
            small = True
            for key in keys:
                steps[key] /= 2
                small &= steps[key] < 1e-12
            if small:
                return


class _Vectorised:
    """The falsifier's random phase and pattern search on numpy batches (the same trials, counted the
    same way, as the one-point-at-a-time loops; float violations confirmed at 50 digits as there).

    ``derivations/`` imports numpy for this falsifier only (see ``derivations/__init__``): the claims
    are lambdified to numpy and evaluated on 10⁴ points per call.
    """

    CHUNK = 20_000
    #: a pattern-search sweep of fewer moves than this runs one point at a time. 1: even a sweep of two
    #: moves is cheaper as one numpy call than as two scalar evaluations, each of which rebuilds the
    #: claim's instance (measured on 8 falsifier-only steps at 10⁵ trials: 8.8 → 7.2 CPU s, same verdicts)
    MIN_BATCH = 1
    #: candidate moves per pattern-search sweep at least (several step sizes when the claim has few variables)
    MOVES = 16
    #: pattern searches run side by side (the falsifier's 16 starts, then its restarts)
    POOL = 16

    def __init__(self, ev, sampler, step, rng, state, confirm, strict):
        import numpy as np

        self.np = np
        self.ev, self.sampler, self.step, self.rng, self.state = ev, sampler, step, rng, state
        self.confirm, self.strict = confirm, strict
        self.gen = np.random.default_rng(rng.getrandbits(64))
        self.struct = sorted(ev.structural, key=str)
        self._memo: dict = {}
        scal = set(ev.scalars)
        self.cons = []
        for c in step.domain.constraints:
            if free_names(c) <= scal:  # a constraint on symbols the claim does not use excludes nothing
                syms = sorted(free_names(c), key=str)
                self.cons.append((syms, sp.lambdify(syms, c, modules="numpy")))
        try:  # a claim numpy cannot evaluate (an unevaluated integral, say) keeps the scalar loops
            inst = ev.instance({s_: int(sampler.ranges[s_][0]) for s_ in ev.structural})
            inst.fn_np  # noqa: B018 - lambdify now: a printer failure shows here
            self.ok = True
        except Exception:  # noqa: BLE001
            self.ok = False

    # ---- evaluation and bookkeeping
    def _values(self, inst, cols, n, dtype=float):
        """Both sides at ``n`` points (columns ``cols``) as arrays of ``dtype``, or None where numpy
        cannot evaluate the claim. Called under ``np.errstate(all="ignore")`` (the public entries)."""
        np = self.np
        try:
            sv, bv = inst.fn_np(*cols)
            if (
                type(sv) is np.ndarray
                and type(bv) is np.ndarray
                and sv.dtype == dtype
                and bv.dtype == dtype
                and sv.shape == bv.shape == (n,)
            ):
                return sv, bv  # the common case: no broadcasting, no conversion
            sv, bv = (np.broadcast_to(np.asarray(o), (n,)) for o in (sv, bv))
            if sv.dtype.kind not in "fiu" or bv.dtype.kind not in "fiu":
                raise TypeError("non-real values")
            return sv.astype(dtype), bv.astype(dtype)
        except Exception:  # noqa: BLE001 - fall back to the scalar evaluator point by point
            return None

    def _scalar_values(self, pts):
        """The scalar evaluator point by point (rows numpy could not evaluate, or overflowed in long
        double), memoised per point: a boundary snap repeats the same point thousands of times."""
        np = self.np
        sv, bv = np.full(len(pts), np.nan), np.full(len(pts), np.nan)
        memo = self._memo
        for i, pt in enumerate(pts):
            key = tuple((s_, type(v_), v_) for s_, v_ in pt.items())
            hit = memo.get(key)
            if hit is None:
                try:
                    hit = tuple(self.ev.evaluate(pt))
                except (ZeroDivisionError, ValueError, TypeError, OverflowError):
                    hit = (math.nan, math.nan)
                if len(memo) < 100_000:
                    memo[key] = hit
            sv[i], bv[i] = hit
        return sv, bv

    def _fix_overflow(self, inst, args, sv, bv, point):
        """Rows where float64 overflowed (e^{1/τ} at τ = 1e-3): again in extended precision (x87 long
        double reaches e^{11356}), then any still non-finite row through mpmath, as the scalar loop."""
        np = self.np
        bad = np.flatnonzero(~(np.isfinite(sv) & np.isfinite(bv)))
        if not bad.size:
            return sv, bv
        sv, bv = sv.astype(np.longdouble), bv.astype(np.longdouble)
        ext = self._values(inst, [np.asarray(a)[bad].astype(np.longdouble) for a in args], bad.size, np.longdouble)
        if ext is not None:
            ok = np.isfinite(ext[0]) & np.isfinite(ext[1])
            sv[bad[ok]], bv[bad[ok]] = ext[0][ok], ext[1][ok]
        still = np.flatnonzero(~(np.isfinite(sv) & np.isfinite(bv)))
        if still.size:
            sv[still], bv[still] = self._scalar_values([point(int(j)) for j in still])
        return sv, bv

    def absorb(self, sv, bv, point) -> Any:
        """Record a batch (``point(i)`` builds row ``i``'s point dict); returns the scores: the ratio
        where big > 0, else ±1e300 (violated or not), −inf where a side is undefined. Called under
        ``np.errstate(all="ignore")``."""
        np, state = self.np, self.state
        n = len(sv)
        state["n"] += n
        if n == 0:
            return np.full(0, -np.inf)
        margin = bv - sv
        pos = bv > 0
        if pos.all():  # the common batch: every ratio defined, one pass for each record
            ratio = sv / bv
            i = int(ratio.argmax())  # argmax stops at a NaN: then the general path below
            if ratio[i] == ratio[i]:
                if ratio[i] > state["worst"]:
                    state["worst"], state["worst_pt"] = float(ratio[i]), point(i)
                # most batches hold nothing above the 24th best ratio so far: then the list stays as it is
                if len(state["top"]) < 24 or ratio[i] > state["top_r"][-1]:
                    self._top(ratio, np.arange(n), point)
                mm = float(margin.min())
                state["min_margin"] = min(state["min_margin"], mm)
                if mm < 0 or (self.strict and mm <= 0):
                    self._violations(sv, bv, margin, (margin < 0) | (self.strict & (margin <= 0)), point)
                return ratio.astype(float, copy=False)
        finite = ~(np.isnan(sv) | np.isnan(bv))
        ratio = np.where(pos, sv / np.where(pos, bv, 1.0), np.where(sv > bv, np.inf, -np.inf))
        ratio = np.where(finite, ratio, -np.inf)
        if not finite.any():
            return np.full(n, -np.inf)
        i = int(np.argmax(ratio))
        if ratio[i] > state["worst"]:
            state["worst"], state["worst_pt"] = float(ratio[i]), point(i)
        pos_i = np.flatnonzero(finite & pos)
        if pos_i.size and (len(state["top"]) < 24 or ratio[pos_i].max() > state["top_r"][-1]):
            self._top(ratio[pos_i], pos_i, point)
        state["min_margin"] = min(state["min_margin"], float(np.min(margin[finite])))
        violated = finite & ((margin < 0) | (self.strict & (margin <= 0)))
        if violated.any():
            self._violations(sv, bv, margin, violated, point)
        # long-double ratios beyond the float range become ±inf scores
        return np.where(finite, np.where(pos, ratio, np.where(violated, 1e300, -1e300)), -np.inf).astype(float)

    def _top(self, r: Any, rows: Any, point) -> None:
        """Merge the best 24 of ratios ``r`` (of batch rows ``rows``) into the top-24 list."""
        np, state = self.np, self.state
        if len(r) > 24:
            part = np.argpartition(-r, 23)[:24]
        else:
            part = np.arange(len(r))
        part = part[np.lexsort((part, -r[part]))]  # descending, ties in row order (a stable sort)
        for j in part:
            r_ = float(r[j])
            if len(state["top"]) < 24 or r_ > state["top_r"][-1]:
                state["top"].append(point(int(rows[j])))
                state["top_r"].append(r_)
        order = sorted(range(len(state["top"])), key=lambda i_: -state["top_r"][i_])[:24]
        state["top"] = [state["top"][i_] for i_ in order]
        state["top_r"] = [state["top_r"][i_] for i_ in order]

    def _violations(self, sv, bv, margin, violated, point) -> None:
        """Confirm a batch's float violations at full precision, in row order, until one is confirmed;
        past the first 50 rounding-level ones (|margin| ≤ 1e-9 × scale), those are only counted."""
        np, state = self.np, self.state
        scale = np.maximum(1.0, np.maximum(np.abs(sv), np.abs(bv)))
        tiny = np.abs(margin) <= 1e-9 * scale
        for j in np.flatnonzero(violated):
            if state["cx"] is not None:
                break
            if not tiny[j] or state["float_noise"] < 50:
                self.confirm(point(int(j)))
            else:  # the rest of the rounding-level violations are only counted
                state["float_noise"] += int(np.count_nonzero(violated[j:] & tiny[j:]))
                break

    def score_points(self, pts: list[dict]) -> Any:
        """Scores of arbitrary points (grouped by their structural integers, one batch per group)."""
        np = self.np
        out = np.full(len(pts), -np.inf)
        groups: dict[tuple, list[int]] = {}
        struct = sorted(self.ev.structural, key=str)
        for i, pt in enumerate(pts):
            groups.setdefault(tuple(int(pt[s_]) for s_ in struct), []).append(i)
        for key, idx in groups.items():
            inst = self.ev.instance(dict(zip(struct, key)))
            sub_pts = [pts[i] for i in idx]
            args = [np.array([p_[s_] for p_ in sub_pts], dtype=float) for s_ in inst.scalars]
            args += [np.array([p_[a] for p_ in sub_pts], dtype=float) for a, _ in inst.entries]
            vals = self._values(inst, args, len(sub_pts))
            if vals is None:
                vals = self._scalar_values(sub_pts)
            sv, bv = self._fix_overflow(inst, args, *vals, lambda j, sub_pts=sub_pts: sub_pts[j])
            out[np.asarray(idx)] = self.absorb(sv, bv, lambda j, sub_pts=sub_pts: sub_pts[j])
        return out

    # ---- phase 2: random and boundary-snapped samples, in chunks
    def random_phase(self, n_total: int, scored: list) -> list:
        np, ev, sampler = self.np, self.ev, self.sampler
        done = 0
        while done < n_total and self.state["cx"] is None:
            m = min(self.CHUNK, n_total - done)
            done += m
            half = m // 2  # as the loop: every other point boundary-snapped
            cols = {}
            for s_ in ev.scalars:
                st_ = s_ in ev.structural
                a0 = sampler.array(s_, half, self.gen, 0.0, st_)
                a1 = sampler.array(s_, m - half, self.gen, 0.3, st_)
                cols[s_] = np.concatenate([a0, a1])
            snap = np.concatenate([np.zeros(half), np.full(m - half, 0.3)])
            ok = np.ones(m, dtype=bool)
            for syms, fn in self.cons:
                with np.errstate(all="ignore"):
                    ok &= np.broadcast_to(np.asarray(fn(*[cols[s_] for s_ in syms]), dtype=bool), (m,))
            self.state["n"] += int(m - np.count_nonzero(ok))  # an inadmissible draw still costs a trial
            struct = sorted(ev.structural, key=str)
            keys = np.stack([cols[s_] for s_ in struct], axis=1) if struct else np.zeros((m, 0), dtype=np.int64)
            for key, idx in _groups(np, keys, np.flatnonzero(ok)):
                inst = ev.instance(dict(zip(struct, key)))
                ents = {}
                for atom, label in inst.entries:
                    sn = snap[idx]
                    a0 = sampler.array(label, idx.size, self.gen, 0.0)
                    a1 = sampler.array(label, idx.size, self.gen, 0.3)
                    ents[atom] = np.where(sn > 0, a1, a0)
                args = [cols[s_][idx] for s_ in inst.scalars] + [ents[a] for a, _ in inst.entries]

                def point(j, idx=idx, ents=ents, inst=inst, key=key, cols=cols, struct=struct):
                    pt = {s_: _py(cols[s_][idx[j]]) for s_ in ev.scalars}
                    for s_, v_ in zip(struct, key):
                        pt[s_] = int(v_)
                    for a, _ in inst.entries:
                        pt[a] = float(ents[a][j])
                    return pt

                vals = self._values(inst, args, idx.size)
                if vals is None:
                    vals = self._scalar_values([point(j) for j in range(idx.size)])
                sv, bv = vals
                sv, bv = self._fix_overflow(inst, args, sv, bv, point)
                sc = self.absorb(sv, bv, point)
                top = np.argsort(-sc, kind="stable")[:64]
                for j in top:
                    if sc[j] == -np.inf:
                        break
                    if len(scored) < 64 or sc[j] > scored[-1][0]:
                        scored.append((float(sc[j]), point(int(j))))
                scored.sort(key=lambda x: -x[0])
                del scored[64:]
                if self.state["cx"] is not None:
                    break
        return scored

    # ---- phase 3: pattern search, side by side from every start
    def pattern_search_many(self, starts: list[tuple[float, dict]], per_start: int, budget: int) -> None:
        """The pattern search from every start, then from fresh boundary-snapped points until the
        falsifier's ``budget`` is spent, up to ``POOL`` searches side by side. The searches on one
        instance are rows of one ``_Lane`` (arrays of their best points, step sizes and budgets), so a
        sweep of all of them is a few array operations and one numpy call of the claim per instance,
        and one round of every instance is recorded by one ``absorb``.

        Each search moves exactly as it would alone (its moves depend on its own scores only) and gets
        ``min(per_start, what the budget has left)`` trials when it starts; a start with nothing to move
        costs one trial; a confirmed violation stops every search. A fresh restart costs its own trial
        when it is drawn and is scored in the next round's batch, beside its first sweep (whose moves do
        not depend on that score); the restarts are drawn with numpy, 64 at a time."""
        state = self.state
        self._lanes: dict[int, _Lane] = {}
        self._reserved = 0  #: trials promised to the running searches and not yet spent
        self._unscored = 0  #: restarts drawn (their trial promised) and not yet scored
        self._running = 0
        self._fresh_buf: list = []
        queue = list(starts)

        def launch() -> None:
            while self._running < self.POOL and state["cx"] is None:
                left = budget - state["n"] - self._reserved - self._unscored
                if left <= 0:
                    return
                if queue:
                    sc0, pt0 = queue.pop(0)
                    self._start(pt0, sc0, min(per_start, left))
                    continue
                if not self._fresh_buf:
                    self._fresh_buf = self._fresh(64)[::-1]
                pt0, ok = self._fresh_buf.pop()
                if not ok:  # an inadmissible draw still costs a trial
                    state["n"] += 1
                    continue
                left -= 1
                self._unscored += 1
                self._start(pt0, None, min(per_start, left) if left > 0 else 0)

        launch()
        while state["cx"] is None and any(ln_.active.any() or ln_.orphans for ln_ in self._lanes.values()):
            self._round()
            launch()
        for lane in self._lanes.values():  # a stop by a confirmed violation leaves promised trials unspent
            lane.active[:] = False

    def _lane(self, inst) -> _Lane:
        lane = self._lanes.get(id(inst))
        if lane is None:
            order = list(inst.scalars) + [a for a, _ in inst.entries]
            info = []
            for s_ in order:
                label = s_.base.label if isinstance(s_, sp.Indexed) else s_
                lo, hi = self.sampler.ranges[label]
                info.append((lo, hi, bool(label.is_integer), lo > 0 and hi / lo > 50))
            lane = self._lanes[id(inst)] = _Lane(self.np, inst, order, info, self.MOVES)
        return lane

    def _start(self, pt0: dict, sc0: float | None, cap: int) -> None:
        """A search from ``pt0`` with ``cap`` trials (``sc0`` None: a restart scored in the next round)."""
        state, ev = self.state, self.ev
        inst = ev.instance({s_: int(pt0[s_]) for s_ in ev.structural})
        lane = self._lane(inst)
        keys = [s_ for s_ in pt0 if s_ not in ev.structural]
        if cap <= 0 or not keys:  # scored, nothing searched (no budget left, or nothing to move)
            if sc0 is None and cap <= 0:
                lane.orphans.append(pt0)
                return
            if sc0 is None:
                self._unscored -= 1
                self.score_points([pt0])
            state["n"] += 1  # a start with nothing to move still costs a trial
            return
        if len(keys) != len(lane.order) or not set(keys) <= lane.columns:
            # a coordinate the instance does not evaluate: searched alone
            if sc0 is None:
                self._unscored -= 1
                sc0 = float(self.score_points([pt0])[0])
            n0 = state["n"]
            self.pattern_search(pt0, sc0, cap)
            state["n"] += state["n"] == n0
            return
        lane.add(pt0, sc0, cap)
        self._reserved += cap
        self._running += 1

    def _fresh(self, m: int) -> list[tuple[dict, bool]]:
        """``m`` fresh boundary-snapped points (snap 0.3, as ``Evaluator.random_point``) and whether each
        is admissible, drawn as arrays."""
        np, ev, sampler = self.np, self.ev, self.sampler
        cols = {s_: sampler.array(s_, m, self.gen, 0.3, s_ in ev.structural) for s_ in ev.scalars}
        struct = self.struct
        keys = np.stack([cols[s_] for s_ in struct], axis=1) if struct else np.zeros((m, 0), dtype=np.int64)
        scal = {s_: [_py(v_) for v_ in cols[s_]] for s_ in ev.scalars}
        pts: list = [None] * m
        for key, idx in _groups(np, keys, np.arange(m)):
            inst = ev.instance(dict(zip(struct, key)))
            ents = [(a, sampler.array(label, idx.size, self.gen, 0.3).tolist()) for a, label in inst.entries]
            for jj, i in enumerate(idx.tolist()):
                pt = {s_: scal[s_][i] for s_ in ev.scalars}
                for a, vs in ents:
                    pt[a] = vs[jj]
                pts[i] = pt
        return [(pt, not self.cons or _satisfies(self.step.domain, pt)) for pt in pts]

    def _round(self) -> None:
        """One sweep of every running search, the pending restarts scored in the same batches."""
        np = self.np
        parts = []
        for lane in self._lanes.values():
            if not (lane.active.any() or lane.orphans):
                continue
            part = self._lane_batch(lane)
            if part is not None:
                parts.append(part)
        if not parts:
            return
        if len(parts) == 1:
            sv, bv = parts[0]["sv"], parts[0]["bv"]
        else:
            dt = np.result_type(*[p_["sv"].dtype for p_ in parts], *[p_["bv"].dtype for p_ in parts])
            sv = np.concatenate([p_["sv"].astype(dt, copy=False) for p_ in parts])
            bv = np.concatenate([p_["bv"].astype(dt, copy=False) for p_ in parts])
        bounds = np.cumsum([0] + [len(p_["sv"]) for p_ in parts])

        def point(j: int) -> dict:
            i_ = int(np.searchsorted(bounds, j, side="right")) - 1
            return parts[i_]["point"](j - int(bounds[i_]))

        self._unscored -= sum(p_["n_new"] for p_ in parts)
        sc = self.absorb(sv, bv, point)
        for p_, lo_ in zip(parts, bounds[:-1]):
            self._lane_update(p_, sc[lo_ : lo_ + len(p_["sv"])])

    def _lane_batch(self, lane: _Lane) -> dict | None:
        """The rows one round evaluates on ``lane``: the pending restarts (and restarts scored without a
        search), then every running search's sweep: each coordinate moved by ± its step at every scale,
        in the one-start order (scale, coordinate, sign), at most the search's remaining budget."""
        np, state, t = self.np, self.state, lane.t
        A = np.flatnonzero(lane.active)
        P = A[lane.pending[A]]
        M = t["M"]
        best = lane.best[A]
        ns = np.minimum(M, lane.budget[A] - lane.used[A])
        lane.used[A] += ns
        self._reserved -= int(ns.sum())
        stepv = lane.steps[A][:, t["col"]] * t["fac"]
        base = best[:, t["col"]]
        vals = base + t["sgn"] * stepv
        if t["any_mult"]:  # multiplicative moves on wide positive ranges
            mm = t["mult"]
            vals[:, mm] = base[:, mm] * np.exp(t["sgn"][mm] * np.minimum(stepv[:, mm], 2.0))
        vals = np.minimum(np.maximum(vals, t["lo"]), t["hi"])
        if t["any_int"]:
            vals = np.where(t["int"], np.rint(vals), vals)
        rows = np.repeat(best[:, None, :], M, axis=1)
        rows[:, t["arange"], t["col"]] = vals
        live = t["arange"][None, :] < ns[:, None]  # (searches, moves): the moves within each budget
        if self.cons:  # exact admissibility, as the one-point loop (only constrained claims pay for it)
            for r_, m_ in zip(*np.nonzero(live)):
                if not _satisfies(self.step.domain, lane.as_point(int(A[r_]), rows[r_, m_])):
                    live[r_, m_] = False
                    state["n"] += 1
        cand = rows[live]
        orph = lane.orphans
        lane.orphans = []
        head = [lane.best[P]] + ([np.array([[float(pt[s_]) for s_ in lane.order] for pt in orph])] if orph else [])
        X = np.concatenate(head + [cand]) if len(P) or orph else cand
        n_head = len(P) + len(orph)
        owner = np.nonzero(live)[0]

        def point(j: int) -> dict:
            if j < len(P):
                return lane.as_point(int(P[j]), X[j])
            if j < n_head:
                return orph[j - len(P)]
            return lane.as_point(int(A[owner[j - n_head]]), X[j])

        part = {"lane": lane, "A": A, "P": P, "live": live, "rows": rows, "n_head": n_head, "n_new": n_head}
        part["point"] = point
        if not len(X):
            part["sv"] = part["bv"] = np.zeros(0)
            return part
        args = list(np.ascontiguousarray(X.T))
        vals_ = self._values(lane.inst, args, len(X))
        if vals_ is None:
            vals_ = self._scalar_values([point(j) for j in range(len(X))])
        part["sv"], part["bv"] = self._fix_overflow(lane.inst, args, *vals_, point)
        return part

    def _lane_update(self, part: dict, sc: Any) -> None:
        """Each search takes its best improving move (whose scale becomes its step) or, with none,
        shrinks its steps past the smallest tried; it ends when they are all below 1e-12 or its budget
        is spent."""
        np, lane = self.np, part["lane"]
        A, P, live, n_head = part["A"], part["P"], part["live"], part["n_head"]
        if len(P):
            lane.best_sc[P] = sc[: len(P)]
            lane.pending[P] = False
        if not len(A):
            return
        S = np.full(live.shape, -np.inf)
        S[live] = sc[n_head:]
        jb = np.argmax(S, axis=1)
        r_ = np.arange(len(A))
        sb = S[r_, jb]
        imp = sb > lane.best_sc[A]
        if imp.any():
            w = A[imp]
            lane.best[w] = part["rows"][r_[imp], jb[imp]]
            lane.best_sc[w] = sb[imp]
            lane.steps[w] *= (0.5 ** lane.t["scale"][jb[imp]])[:, None]
        if not imp.all():
            w = A[~imp]
            lane.steps[w] *= 0.5**lane.scales
            lane.done[w] = (lane.steps[w] < 1e-12).all(axis=1)
        end = A[lane.done[A] | (lane.used[A] >= lane.budget[A])]
        if len(end):
            self._reserved -= int((lane.budget[end] - lane.used[end]).sum())
            self._running -= len(end)
            lane.active[end] = False

    # ---- phase 3: pattern search, every coordinate move of one sweep evaluated as one batch
    def pattern_search(self, pt0: dict, sc0: float, budget: int) -> None:
        np, ev, sampler = self.np, self.ev, self.sampler
        keys = [s_ for s_ in pt0 if s_ not in ev.structural]
        if not keys or budget <= 0:
            return
        inst = ev.instance({s_: int(pt0[s_]) for s_ in ev.structural})
        best, best_sc = dict(pt0), sc0
        ranges, steps = {}, {}
        for key in keys:
            label = key.base.label if isinstance(key, sp.Indexed) else key
            lo, hi = sampler.ranges[label]
            ranges[key] = (lo, hi, label.is_integer, lo > 0 and hi / lo > 50)
            steps[key] = (hi - lo) / 4 if hi > lo else 0.0
        used = 0
        # a sweep tries every coordinate move at `scales` step sizes (step, step/2, …) in one batch, so a
        # claim of few variables still fills a batch of MOVES and needs fewer numpy calls; the best move
        # wins and its scale becomes the step; no improvement shrinks the steps past the smallest tried
        scales = max(1, -(-self.MOVES // (2 * len(keys))))
        while used < budget and self.state["cx"] is None:
            cands, cand_scale = [], []
            for sc_i in range(scales):
                f_ = 0.5**sc_i
                for key in keys:
                    lo, hi, integer, mult = ranges[key]
                    for sign in (1, -1):
                        if mult:  # move multiplicatively on wide positive ranges
                            val = best[key] * math.exp(sign * min(steps[key] * f_, 2.0))
                        else:
                            val = best[key] + sign * steps[key] * f_
                        val = min(max(val, lo), hi)
                        if integer:
                            val = int(round(val))
                        cand = dict(best)
                        cand[key] = val
                        cands.append(cand)
                        cand_scale.append(sc_i)
            cands, cand_scale = cands[: budget - used], cand_scale[: budget - used]
            used += len(cands)
            if self.cons:
                keep = [i_ for i_, c in enumerate(cands) if _satisfies(self.step.domain, c)]
                self.state["n"] += len(cands) - len(keep)
                cands, cand_scale = [cands[i_] for i_ in keep], [cand_scale[i_] for i_ in keep]
            if cands:
                args = [np.array([c[s_] for c in cands], dtype=float) for s_ in inst.scalars]
                args += [np.array([c[a] for c in cands], dtype=float) for a, _ in inst.entries]
                vals = self._values(inst, args, len(cands))
                if vals is None:
                    vals = self._scalar_values(cands)
                sv, bv = vals
                sv, bv = self._fix_overflow(inst, args, sv, bv, lambda j, cands=cands: cands[j])
                sc = self.absorb(sv, bv, lambda j, cands=cands: cands[j])
                j = int(np.argmax(sc))
                if sc[j] > best_sc:
                    best, best_sc = cands[j], float(sc[j])
                    for key in keys:
                        steps[key] *= 0.5 ** cand_scale[j]
                    continue
            small = True
            for key in keys:
                steps[key] *= 0.5**scales
                small &= steps[key] < 1e-12
            if small:
                return


def _groups(np: Any, keys: Any, rows: Any) -> list[tuple[tuple, Any]]:
    """``rows`` grouped by their row of ``keys`` (the structural integers): groups in order of first
    appearance, rows ascending within a group, as a dict filled row by row would give them, without a
    Python step per row (a tuple per row cost a fifth of the random phase)."""
    if rows.size == 0:
        return []
    if keys.shape[1] == 0:
        return [((), rows)]
    uniq, first, inv = np.unique(keys[rows], axis=0, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    order = np.argsort(inv, kind="stable")
    bounds = np.cumsum(np.bincount(inv, minlength=len(uniq)))[:-1]
    members = np.split(rows[order], bounds)
    return [(tuple(int(v) for v in uniq[g]), members[g]) for g in np.argsort(first, kind="stable")]


class _Lane:
    """The pattern searches running on one instance: a slot (a row of each array) per search, holding
    its best point, score, step per coordinate, budget and trials used; ``t`` is a sweep's moves in the
    one-start order (scale, coordinate, sign) as arrays, shared by every search on the instance."""

    def __init__(self, np: Any, inst: Any, order: list, info: list, moves: int):
        self.np, self.inst, self.order = np, inst, order
        self.columns = set(order)
        d = len(order)
        self.ints = [i_ for i_, (_, _, integer, _) in enumerate(info) if integer]
        self.steps0 = np.array([(hi - lo) / 4 if hi > lo else 0.0 for lo, hi, _, _ in info], dtype=float)
        # a sweep tries every coordinate move at `scales` step sizes (step, step/2, …) in one batch, so a
        # claim of few variables still fills a batch of MOVES; the best move wins and its scale becomes
        # the step; no improvement shrinks the steps past the smallest tried
        self.scales = max(1, -(-moves // (2 * d))) if d else 1
        mv = [(c_, sign, 0.5**sc_i, sc_i) for sc_i in range(self.scales) for c_ in range(d) for sign in (1.0, -1.0)]
        col = np.array([m_[0] for m_ in mv], dtype=np.intp)
        lo = np.array([info[c_][0] for c_ in col], dtype=float)
        hi = np.array([info[c_][1] for c_ in col], dtype=float)
        integer = np.array([info[c_][2] for c_ in col], dtype=bool)
        mult = np.array([info[c_][3] for c_ in col], dtype=bool)
        self.t = {
            "M": len(mv),
            "col": col,
            "sgn": np.array([m_[1] for m_ in mv], dtype=float),
            "fac": np.array([m_[2] for m_ in mv], dtype=float),
            "scale": np.array([m_[3] for m_ in mv], dtype=np.intp),
            "lo": lo,
            "hi": hi,
            "int": integer,
            "mult": mult,
            "any_int": bool(integer.any()),
            "any_mult": bool(mult.any()),
            "arange": np.arange(len(mv)),
        }
        cap = 16
        self.best = np.zeros((cap, d))
        self.steps = np.zeros((cap, d))
        self.best_sc = np.full(cap, -np.inf)
        self.budget = np.zeros(cap, dtype=np.int64)
        self.used = np.zeros(cap, dtype=np.int64)
        self.active = np.zeros(cap, dtype=bool)
        self.pending = np.zeros(cap, dtype=bool)  #: a restart not scored yet (its score arrives with its first sweep)
        self.done = np.zeros(cap, dtype=bool)
        self.pt0: list = [None] * cap
        self.orphans: list = []  #: restarts drawn when no trial was left to search from them: scored only

    def add(self, pt0: dict, sc0: float | None, cap: int) -> None:
        np = self.np
        free = np.flatnonzero(~self.active)
        if not free.size:  # double the slots
            n = len(self.active)
            for name in ("best", "steps", "best_sc", "budget", "used", "active", "pending", "done"):
                a = getattr(self, name)
                setattr(self, name, np.concatenate([a, np.zeros_like(a)]))
            self.pt0 += [None] * n
            free = np.arange(n, 2 * n)
        i = int(free[0])
        self.best[i] = [float(pt0[s_]) for s_ in self.order]
        self.steps[i] = self.steps0
        self.best_sc[i] = -np.inf if sc0 is None else sc0
        self.pending[i] = sc0 is None
        self.budget[i], self.used[i] = cap, 0
        self.active[i], self.done[i] = True, False
        self.pt0[i] = pt0

    def as_point(self, slot: int, row: Any) -> dict:
        """A row of this lane as the point dict the one-start search builds (ints stay ints)."""
        pt = dict(self.pt0[slot])
        vals = row.tolist()
        for i_, s_ in enumerate(self.order):
            v_ = vals[i_]
            if not (isinstance(pt[s_], int) and v_ == pt[s_]):  # an unmoved int stays as given
                pt[s_] = v_
        for i_ in self.ints:
            pt[self.order[i_]] = int(vals[i_])
        return pt


def _py(v: Any) -> Any:
    """A numpy scalar as the Python number the scalar loops would have drawn."""
    return int(v) if getattr(v, "dtype", None) is not None and v.dtype.kind in "iu" else float(v)


# ----------------------------------------------------------------------------- large k, grouped

GROUPS = 3  #: groups of equal coordinates in the large-k attack
K_MAX = 10**9  #: the largest k the grouped attack draws


class _NotGroupable(ValueError):
    pass


def group_claim(exprs: list[sp.Expr], kk: sp.Symbol) -> tuple[list[sp.Expr], list[sp.Symbol]]:
    """``exprs`` with every ``Sum(f(x[j]), (j, 1, k))`` written as ``Σ_g m_g f(x[g])`` over ``GROUPS``
    groups of equal coordinates (multiplicities ``m_g``, ``Σ m_g = k``), products as ``Π f(x[g])^{m_g}``.

    Exact for vectors whose coordinates take at most ``GROUPS`` distinct values, at any k: the claim
    can then be attacked at k = 10⁹ with a handful of numbers. Raises ``_NotGroupable`` when a summand
    depends on its index other than through the entries ``x[j]`` (a weight ``2^{−j}``, say) or a
    limit is not ``(j, 1, k)``.
    """
    ms = [sp.Symbol(f"_m{g}", nonnegative=True) for g in range(1, GROUPS + 1)]

    def walk(e: sp.Expr) -> sp.Expr:
        if isinstance(e, (sp.Sum, sp.Product)):
            if len(e.limits) != 1:
                raise _NotGroupable("several limits")
            idx, lo, hi = e.limits[0]
            if not (lo == 1 and hi == kk):
                raise _NotGroupable(f"limits ({idx}, {lo}, {hi})")
            body = walk(e.function)
            own = [a for a in body.atoms(sp.Indexed) if a.indices == (idx,)]
            if idx in body.xreplace({a: sp.Dummy() for a in own}).free_symbols:
                raise _NotGroupable(f"the summand depends on {idx} itself")
            parts = [body.xreplace({idx: sp.Integer(g)}) for g in range(1, GROUPS + 1)]
            if isinstance(e, sp.Sum):
                return sp.Add(*[m * p_ for m, p_ in zip(ms, parts)])
            return sp.Mul(*[p_**m for m, p_ in zip(ms, parts)])
        if not e.args:
            return e
        return e.func(*[walk(a) for a in e.args])

    out = [walk(sp.sympify(e)) for e in exprs]
    for e in out:
        for a in e.atoms(sp.Indexed):
            if not (a.indices[0].is_Integer and 1 <= int(a.indices[0]) <= GROUPS):
                raise _NotGroupable(f"entry {a} outside the groups")
    return out, ms


def grouped_k_range(step: Step, kk: sp.Symbol, k_cap: int) -> tuple[int, int] | None:
    """The k a grouped large-k check draws: beyond the coordinate-by-coordinate points (> ``k_cap``), inside
    the stated range of ``kk``, at most ``K_MAX``; None where that is empty."""
    lo_k, hi_k = step.domain.range_of(kk)
    # plain ints: math.floor of a SymPy Integer is a SymPy Integer, and numpy then builds object arrays
    k_lo = max(int(k_cap) + 1, int(sp.ceiling(lo_k)) if lo_k.is_finite else 1)
    k_hi = K_MAX if hi_k == sp.oo else min(K_MAX, int(sp.floor(hi_k)))
    return None if k_hi < k_lo else (k_lo, k_hi)


def large_k_attack(step: Step, small, big, strict, sampler: Sampler, ev: Evaluator, budget: int, rng, dps: int):
    """Random attack at k ∈ (k_cap, min(k_max, 10⁹)] with ``GROUPS`` groups of equal coordinates.

    Returns ``None`` when the claim is not groupable, else a dict with trials, worst ratio and point,
    counterexample (the refutation gate's, at the exact grouped point: k, multiplicities m1 … m3 summing
    to k, the groups' entries) and the k range attacked.
    """
    import numpy as np

    if len(ev.structural) != 1 or budget <= 0:
        return None
    (kk,) = ev.structural
    ks = grouped_k_range(step, kk, sampler.k_cap)
    if ks is None:
        return None
    k_lo, k_hi = ks
    try:
        (gs, gb), ms = group_claim([small, big], kk)
    except _NotGroupable:
        return None
    atoms = sorted(gs.atoms(sp.Indexed) | gb.atoms(sp.Indexed), key=str)
    scalars = [s_ for s_ in ev.scalars if s_ != kk]
    args = [kk, *ms, *scalars, *atoms]
    try:
        fn = fast_lambdify(args, [gs, gb], "numpy")
    except Exception:  # noqa: BLE001
        return None
    gen = np.random.default_rng(rng.getrandbits(64))
    cons = []
    for c in step.domain.constraints:
        if free_names(c) <= set(ev.scalars):
            syms = sorted(free_names(c), key=str)
            cons.append((syms, sp.lambdify(syms, c, modules="numpy")))
    n = int(budget)
    kv = np.unique(np.rint(np.exp(gen.uniform(math.log(k_lo), math.log(k_hi + 0.5), n))).astype(np.int64))
    kv = np.clip(gen.choice(np.concatenate([kv, [k_lo, k_hi]]), n), k_lo, k_hi)
    # multiplicities: Dirichlet splits, and the extremes (one odd coordinate out of k, half and half)
    w = gen.dirichlet(np.ones(GROUPS), n)
    mult = np.floor(w * kv[:, None]).astype(np.int64)
    mult[:, 0] += kv - mult.sum(axis=1)
    kind = gen.integers(0, 4, n)
    odd = kind == 1
    mult[odd] = np.stack([kv[odd] - 1, np.ones(odd.sum(), np.int64), np.zeros(odd.sum(), np.int64)], axis=1)
    half = kind == 2
    mult[half] = np.stack([kv[half] - kv[half] // 2, kv[half] // 2, np.zeros(half.sum(), np.int64)], axis=1)
    cols = {kk: kv}
    for s_ in scalars:
        cols[s_] = sampler.array(s_, n, gen, 0.3)
    for a in atoms:
        cols[a] = sampler.array(a.base.label, n, gen, 0.3)
    ok = np.ones(n, dtype=bool)
    for syms, cf in cons:
        with np.errstate(all="ignore"):
            ok &= np.broadcast_to(np.asarray(cf(*[cols[s_] for s_ in syms]), dtype=bool), (n,))
    vals = [kv.astype(float), *[mult[:, g].astype(float) for g in range(GROUPS)]]
    vals += [np.asarray(cols[s_], dtype=float) for s_ in scalars] + [np.asarray(cols[a], dtype=float) for a in atoms]
    with np.errstate(all="ignore"):
        sv, bv = (np.broadcast_to(np.asarray(o, dtype=float), (n,)) for o in fn(*vals))
        finite = ok & np.isfinite(sv) & np.isfinite(bv)
        margin = bv - sv
        ratio = np.where(finite & (bv > 0), sv / np.where(bv > 0, bv, 1.0), -np.inf)

    def point(i: int) -> dict:
        pt = {str(kk): int(kv[i]), **{f"m{g + 1}": int(mult[i, g]) for g in range(GROUPS)}}
        pt.update({str(s_): _py(cols[s_][i]) for s_ in scalars})
        pt.update({str(a): float(cols[a][i]) for a in atoms})
        return pt

    # the gate decides at the exact grouped point (multiplicities named m1, m2, …, as printed)
    lhs_g, rhs_g = (gs, gb) if step.relation in ("<=", "<") else (gb, gs)
    names = {str(s_) for s_ in gs.free_symbols | gb.free_symbols}
    ren = {
        m: sp.Symbol(f"m{g + 1}" if f"m{g + 1}" not in names else f"_m{g + 1}", integer=True, nonnegative=True)
        for g, m in enumerate(ms)
    }
    lhs_g, rhs_g = lhs_g.xreplace(ren), rhs_g.xreplace(ren)
    cx, noise = None, 0
    viol = np.flatnonzero(finite & ((margin < 0) | (strict & (margin <= 0))))
    for i in viol[:50]:  # every float violation is only a proposal to the gate
        pt = {kk: int(kv[i]), **{ren[m]: int(mult[i, g]) for g, m in enumerate(ms)}}
        pt.update({s_: _py(cols[s_][i]) for s_ in scalars})
        pt.update({a: float(cols[a][i]) for a in atoms})
        got = confirm_float_point(lhs_g, rhs_g, step.relation, pt, domain=step.domain, closed_forms=strict)
        if got is not None:
            cx = got.as_dict()
            break
        noise += 1
    noise += max(0, viol.size - 50) if cx is None else 0
    j = int(np.argmax(ratio)) if n else 0
    worst = float(ratio[j]) if n and np.isfinite(ratio[j]) else None
    return {
        "trials": n,
        "worst": worst,
        "worst_pt": point(j) if worst is not None else None,
        "cx": cx,
        "noise": noise,
        "k_range": (k_lo, k_hi),
    }
