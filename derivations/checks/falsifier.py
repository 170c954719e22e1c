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

from ..ledger import Step
from .falsifier_batch import _Vectorised
from .falsifier_large_k import GROUPS, _NotGroupable, group_claim, large_k_attack
from .refute import confirm_float_point
from .sampling import Evaluator, Sampler, _satisfies, _sides

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
    """Randomized + adversarial search for a violation of ``small ≤ big``; worst ratio small/big.

    Phases on one running state (``_Falsifier``): the step's adversarial points and the box's corners, random
    and boundary-snapped samples to 60 % of the budget, pattern search from the worst points, closed forms
    near the best points of a strict claim, and for a vector claim for every k a fifth of the budget on k
    beyond ``k_cap`` with grouped coordinates (``large_k_attack``). A float violation is only a proposal: the
    Arb gate (``confirm_float_point``) decides."""
    run = _Falsifier(step, opts)
    run.seed_phase()
    run.random_phase()
    run.pattern_phase()
    state = run.state
    if run.strict and state["cx"] is None:
        # a strict claim tight at a closed form (log x < x/e at x = e) has no float violation unless the
        # search lands within ~1e-8 of it: the best points where the margin is ≈ 0 propose nearby closed forms
        tight_closed_forms(step, run.ev, [state["worst_pt"], *state["top"][:4]], state, run.gate_bits)
    return run.outcome()


class _Falsifier:
    """One ``falsify`` run: the claim's sides and evaluator, the sampler, the budget (the large-k share set
    apart), and ``state``, the running record the batch pass (``_Vectorised``) and ``tight_closed_forms``
    share: trials ``n``, the worst ratio and its point, the least margin, the counterexample ``cx``, the float
    violations the gate did not confirm, the closed-form tries, and the 24 best points (``top``, ``top_r``)."""

    def __init__(self, step: Step, opts: Mapping[str, Any]) -> None:
        self.step, self.opts = step, opts
        small, big, strict = _sides(step)
        self.small, self.big, self.strict = small, big, strict
        self.rng = random.Random(f"{opts['seed']}:{step.name}")
        self.ev = ev = Evaluator([small, big], step.domain)
        self.sampler = Sampler(step.domain, self.rng, opts["real_cap"], opts["k_cap"])
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
        self.large_k = large_k
        self.budget = budget - large_k
        self.dps = opts["dps"]
        self.gate_bits = int(opts.get("gate_bits", GATE_BITS))
        self.state: dict[str, Any] = {
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
        self.scored: list[tuple[float, dict]] = []
        self.unconfirmed: dict[tuple, bool] = {}  # points the gate did not refute at (True: a side not evaluable)
        self.vec: _Vectorised | None = None

    def score(self, pt: dict) -> float:
        """One point in floats: the worst ratio, the best points and the least margin updated; a violation
        proposed to the gate (``confirm``) unless it is float rounding past the first 50 such points."""
        state, strict = self.state, self.strict
        state["n"] += 1
        try:
            sv, bv = self.ev.evaluate(pt)
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
            self.confirm(pt)
        elif violated and tiny:
            state["float_noise"] += 1
        return ratio if bv > 0 else (1e300 if violated else -1e300)

    def confirm(self, pt: dict) -> None:
        """A float violation at ``pt``, proposed to the Arb gate (the counterexample if it refutes there)."""
        # a float violation is only a proposal: the gate (refute.confirm) decides at the exact point it
        # names (a strict claim also at nearby closed forms, where it may be exactly tight: log x < x/e at
        # x = e). The pattern search proposes the same point again and again near a float-only violation:
        # the gate's verdict is a function of the point, so it is computed once and counted every time
        state, strict, dps, step = self.state, self.strict, self.dps, self.step
        if not self.admissible(pt):  # a point outside the constraints (an entry's, which no sampler cuts): no claim
            state["float_noise"] += 1
            return
        key = tuple((s_, type(v_), v_) for s_, v_ in pt.items())
        seen = self.unconfirmed.get(key)
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
            s_x, b_x = self.ev.evaluate(pt, exact=True, dps=dps)
            m_x = b_x - s_x
            clear = bool(m_x > mpmath.mpf(10) ** (10 - dps) * max(1, abs(s_x), abs(b_x)) or (not strict and m_x >= 0))
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            pass
        if clear and not closed:
            state["float_noise"] += 1
            self.unconfirmed[key] = False
            return
        state["closed_tries"] += closed
        cx = confirm_float_point(
            step.lhs,
            step.rhs,
            step.relation,
            pt,
            domain=step.domain,
            closed_forms=closed,
            max_bits=self.gate_bits,
            at_point=not clear,
        )
        if cx is not None:
            state["cx"] = cx.as_dict()
        else:
            state["float_noise"] += 1
            self.unconfirmed[key] = False

    def admissible(self, pt: dict) -> bool:
        return _satisfies(self.step.domain, pt)

    def seed_phase(self) -> None:
        """1. the step's own adversarial points and the corners of the box (the batch pass set up here)."""
        ev, sampler, state, budget = self.ev, self.sampler, self.state, self.budget
        seeds = [ev.complete(dict(p), sampler) for p in self.step.adversarial]
        corner_syms = ev.scalars
        for c in sampler.corners(corner_syms, ev.structural):
            seeds.append(ev.complete(c, sampler))
        vec = None
        if self.opts.get("vectorise", True):
            vec = _Vectorised(ev, sampler, self.step, self.rng, state, self.confirm, self.strict)
        if vec is not None and not vec.ok:
            vec = None
        self.vec = vec
        scored = self.scored
        if vec is not None:
            seeds = [pt for pt in seeds[:budget] if self.admissible(pt)]
            with vec.np.errstate(all="ignore"):  # the batches' overflows and 0/0 are handled as values
                scored.extend(zip(vec.score_points(seeds), seeds))
            self.scored = [(float(sc_), pt_) for sc_, pt_ in scored]
        else:
            for pt in seeds:
                if state["n"] >= budget:
                    break
                if self.admissible(pt):
                    scored.append((self.score(pt), pt))

    def random_phase(self) -> None:
        """2. random and boundary-snapped samples, up to 60 % of the budget (the 64 best kept as starts)."""
        state, vec = self.state, self.vec
        n_random = max(0, int(0.6 * self.budget) - state["n"])
        if vec is not None:
            with vec.np.errstate(all="ignore"):
                self.scored = vec.random_phase(n_random, self.scored)
            n_random = 0
        scored = self.scored
        for it in range(n_random):
            pt = self.ev.random_point(self.sampler, snap=0.3 if it % 2 else 0.0)
            if not self.admissible(pt):
                state["n"] += 1
                continue
            sc = self.score(pt)
            if len(scored) < 64 or sc > scored[-1][0]:
                scored.append((sc, pt))
                scored.sort(key=lambda x: -x[0])
                del scored[64:]
            if state["cx"] is not None:
                break

    def pattern_phase(self) -> None:
        """3. pattern search from the worst points toward violation (none where the caller has proved the
        claim: opts["pattern_search"] False, the trials stop at what the seeds and the random phase spent)."""
        state, vec, ev, sampler = self.state, self.vec, self.ev, self.sampler
        if not self.opts.get("pattern_search", True):
            self.budget = state["n"]
        budget = self.budget
        starts = sorted(self.scored, key=lambda x: -x[0])[:16]
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
                if not self.admissible(pt0):
                    state["n"] += 1
                    continue
                sc0 = self.score(pt0)
            n0 = state["n"]
            moving = [s_ for s_ in pt0 if s_ not in ev.structural]
            if vec is not None and 2 * len(moving) >= _Vectorised.MIN_BATCH:
                with vec.np.errstate(all="ignore"):
                    vec.pattern_search(pt0, sc0, min(per_start, budget - state["n"]))
            else:
                _pattern_search(
                    pt0,
                    sc0,
                    per_start,
                    sampler,
                    ev,
                    self.score,
                    self.admissible,
                    self.rng,
                    lambda: state["cx"] is not None,
                )
            if state["n"] == n0:
                state["n"] += 1  # a start with nothing to move still costs a trial: the loop ends

    def outcome(self) -> FalsifierOutcome:
        """The worst ratio at full precision, the large-k attack (a vector claim for every k), the evidence."""
        state, ev, step, dps = self.state, self.ev, self.step, self.dps
        # the float ratio is noisy where both sides are tiny: report the worst ratio at full precision
        exact_worst = None
        for pt in state["top"]:
            r_ = _settled_ratio(ev, pt, dps)
            if r_ is not None and (exact_worst is None or r_ > exact_worst[0]):
                exact_worst = (r_, pt)
        if exact_worst is not None:
            state["worst"], state["worst_pt"] = exact_worst

        big_k = None
        if self.large_k and state["cx"] is None:
            big_k = large_k_attack(
                step, self.small, self.big, self.strict, self.sampler, ev, self.large_k, self.rng, dps
            )
        attacked = self.sampler.attacked(ev)
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
                f"; k ≤ {k_lo - 1} sampled coordinate by coordinate, {k_lo} ≤ k ≤ {k_hi} with {GROUPS} groups of "
                f"equal coordinates ({big_k['trials']} trials, worst float ratio "
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
