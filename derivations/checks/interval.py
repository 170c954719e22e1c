"""Certified interval branch and bound: ``certify_nonnegative(expr, domain)`` proves ``expr ≥ 0`` on
the domain box with the rigorous enclosures of ``derivations.intervals`` (Arb balls).

Every sign it relies on is an Arb enclosure or exact arithmetic: a constant met at a face of the box
is signed by ``signs.arb_sign`` (rising precision; undecided is *not* certified), never by SymPy's
``is_nonnegative`` (which decides a number by ``evalf``). A box on which the expression may be undefined
(``intervals.Undefined``) is never certified. The face simplifications run under the claim's budget."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from .. import intervals
from ..ledger import Domain, free_names, region
from .budget import Spent, run_symbolic
from .sampling import _structural_ints
from .signs import arb_sign


@dataclass
class IntervalOutcome:
    status: str  # proved | refuted | undecided | n/a
    boxes: int
    reason: str = ""
    counterexample: dict[str, str] | None = None
    covered: dict[str, tuple[str, str]] | None = None  #: the box a "proved" outcome covers


def _rat(x: float) -> sp.Rational:
    return sp.Rational(repr(float(x)))


def _larger(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """max(a, b) of two exact SymPy numbers (±∞ allowed), by SymPy's exact comparison: what ``sp.Max`` gives for
    numbers, without its argument analysis (sp.Max and sp.Min in _split and _centre were 8 % of the interval
    stage in a profile of eight derivations)."""
    return a if a >= b else b


def _smaller(a: sp.Expr, b: sp.Expr) -> sp.Expr:
    """min(a, b) of two exact SymPy numbers (±∞ allowed), as ``_larger``."""
    return a if a <= b else b


def _split(sym: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """Two exact-rational halves of [lo, hi] (geometric on wide positive ranges, integers kept).

    A range straddling 0 is split at 0 first: claims tight at 0 (log(1 + x) ≤ x) then settle
    on each half by the monotonicity test instead of being bisected forever.
    """
    if lo < 0 < hi and not sym.is_integer:
        return [(lo, sp.Integer(0)), (sp.Integer(0), hi)]
    if hi == sp.oo:
        mid = _larger(2 * lo, lo + 1) if lo >= 0 else sp.Integer(0)
    elif lo == -sp.oo:
        mid = _smaller(2 * hi, hi - 1) if hi <= 0 else sp.Integer(0)
    elif lo > 0 and hi / lo > 4:
        mid = _rat(math.sqrt(float(lo) * float(hi)))
    else:
        mid = (lo + hi) / 2
    if sym.is_integer:
        mid = sp.floor(mid)
        mid = _smaller(_larger(mid, lo), hi - 1)
        if hi - lo < 1:
            return None
        return [(lo, mid), (mid + 1, hi)]
    if not (lo < mid < hi):
        return None
    return [(lo, mid), (mid, hi)]


#: |finite end| of an unbounded range past which branch and bound stops bisecting it: ``_split`` doubles that end
#: each time, so 64 halvings of the tail are spent by then, and a claim whose margin as x → ∞ is that small is
#: beyond the enclosures' 80 bits anyway
_TAIL_END = sp.Integer(2) ** 64


def _endless_tail(box: Mapping, sym: sp.Symbol) -> str | None:
    """``"x ∈ [L, ∞)"`` when ``box`` is about to be split in ``sym`` over an unbounded range whose finite end
    is past ``±_TAIL_END`` (``None`` otherwise): ``[L, ∞) → [L, 2L], [2L + 1, ∞)`` never ends."""
    lo, hi = box[sym]
    if hi == sp.oo and lo.is_finite and lo >= _TAIL_END:
        return f"{sym} ∈ [{sp.N(lo, 5)}, ∞)"
    if lo == -sp.oo and hi.is_finite and hi <= -_TAIL_END:
        return f"{sym} ∈ (−∞, {sp.N(hi, 5)}]"
    return None


def _rel_width(lo: sp.Expr, hi: sp.Expr) -> float:
    if hi == sp.oo or lo == -sp.oo:
        return 1e9
    if lo > 0 and hi / lo > 4:
        return math.log(float(hi) / float(lo))
    return float(hi - lo)


class _Variants:
    """The expression with some variables fixed at exact endpoints, simplified, and its partials."""

    def __init__(self, expr: sp.Expr, special: Mapping[sp.Symbol, set] | None = None, clock: Any = None):
        self.expr = expr
        self.clock = clock  # the claim's running budget (None: unbounded simplify calls)
        self.special = special or {}  # per symbol: the domain's own endpoints (and 0)
        self.cache: dict[frozenset, tuple[sp.Expr, dict]] = {}

    def _run(self, fn: Any, *args: Any, stage: str, share: float = 0.1, cap: float | None = None) -> Any:
        """``fn(*args)`` under the claim's budget (a SymPy call can expand (1 + x)^{10⁶} while it builds a
        derivative); ``Spent`` when it runs out."""
        clock = self.clock
        if clock is None:
            from .budget import default_budget

            clock = self.clock = default_budget().started()
        left = clock.deadline(share)
        if cap is not None:  # an optional aid (the curvature test's roots): never worth the claim's whole budget
            left = cap if left is None else min(cap, left)
        return run_symbolic(fn, *args, deadline=left, memory=clock.budget.memory_mb, stage=stage)

    def get(self, fixed: Mapping[sp.Symbol, sp.Expr]) -> tuple[sp.Expr | None, dict]:
        """The expression on the face ``fixed`` (``None`` when substituting ran out of budget)."""
        key = frozenset(fixed.items())
        if key not in self.cache:
            e = self._run(self.expr.subs, dict(fixed), stage="interval face") if fixed else self.expr
            if isinstance(e, Spent):
                self.cache[key] = (None, {})
                return self.cache[key]
            # simplification pays off only where a claim can be tight: on the domain's own faces;
            # inner faces (bisection points) are plentiful and enclosure alone settles them
            if fixed and all(v_ in self.special.get(x_, ()) for x_, v_ in fixed.items()):
                try:
                    s_ = self._run(sp.simplify, e, stage="interval face simplify", share=0.25)
                    e = e if isinstance(s_, Spent) else s_
                except Exception:  # keep the unsimplified form: still a valid enclosure target
                    pass
            self.cache[key] = (e, {})
        return self.cache[key]

    def partial_cancelled(self, fixed: Mapping[sp.Symbol, sp.Expr], sym: sp.Symbol) -> sp.Expr | None:
        """The partial in ``sym`` over one denominator (``cancel``, under the claim's budget), or None."""
        e, parts = self.get(fixed)
        key = (sym, "cancel")
        if key not in parts:
            d1 = self.partial(fixed, sym)
            parts[key] = None
            if d1 is not None:
                try:
                    c = self._run(sp.cancel, d1, stage="interval slope")
                except OverflowError:  # SymPy's gcd over exp(2t/τ)-powers overflows flint: no cancelled form
                    c = d1
                if not isinstance(c, Spent) and c != d1:
                    parts[key] = c
        return parts[key]

    def second(self, fixed: Mapping[sp.Symbol, sp.Expr], sym: sp.Symbol) -> sp.Expr | None:
        """The second partial in ``sym`` (cached with the first)."""
        e, parts = self.get(fixed)
        key = (sym, 2)
        if key not in parts:
            d1 = self.partial(fixed, sym)
            try:
                d2 = None if d1 is None else self._run(sp.diff, d1, sym, stage="interval curvature")
                parts[key] = None if isinstance(d2, Spent) else d2
            except Exception:
                parts[key] = None
        return parts[key]

    def critical(self, fixed: Mapping[sp.Symbol, sp.Expr], sym: sp.Symbol) -> list[sp.Expr]:
        """Exact real constants ``r`` with ``∂e/∂sym (r) = 0`` exactly (the partial depends on ``sym``
        alone), found by ``solveset`` under the claim's budget and substituted back to an exact 0."""
        e, parts = self.get(fixed)
        key = (sym, "critical")
        if key not in parts:
            parts[key] = []
            d1 = self.partial(fixed, sym)
            if d1 is not None and d1.free_symbols == {sym}:
                sols = self._run(sp.solveset, d1, sym, sp.S.Reals, stage="roots", cap=_ROOTS_SECONDS)
                if isinstance(sols, sp.FiniteSet):
                    for r in list(sols)[:6]:
                        if r.free_symbols or r.has(sp.I, sp.zoo, sp.nan):
                            continue
                        z = d1.xreplace({sym: r})
                        if z != 0:
                            z = self._run(sp.simplify, z, stage="roots", cap=_ROOTS_SECONDS)
                        if not isinstance(z, Spent) and z == 0:
                            parts[key].append(r)
                            self.special.setdefault(sym, set()).add(r)  # the face at r is simplified
        return parts[key]

    def partial(self, fixed: Mapping[sp.Symbol, sp.Expr], sym: sp.Symbol) -> sp.Expr | None:
        e, parts = self.get(fixed)
        if sym not in parts:
            try:
                d1 = None if e is None else self._run(sp.diff, e, sym, stage="interval slope")
                parts[sym] = None if isinstance(d1, Spent) else d1
            except Exception:
                parts[sym] = None
        return parts[sym]


def certify_nonnegative(
    expr: sp.Expr,
    domain: Domain,
    strict: bool = False,
    budget: int = 1500,
    max_dims: int = 4,
    clock: Any = None,
) -> IntervalOutcome:
    """Prove ``expr ≥ 0`` (``> 0`` if strict) on the domain box by interval branch and bound.

    Each box is enclosed with outward-rounded interval arithmetic; a box that is not certified
    gets the *monotonicity test* (a partial derivative of one sign over the box moves that
    variable to the face where the minimum lies, substituted exactly and simplified, so a claim
    that is tight on a face is settled symbolically there), then is bisected. A box centre with
    a certainly negative value refutes the claim.

    ``budget`` boxes at most; ``clock`` (a ``budget.Clock``) bounds the wall time too: when the claim's
    time is spent the outcome is undecided, naming the stage. The loop's state is a ``_BranchAndBound``.
    """
    expr = sp.sympify(expr)
    names = free_names(expr)
    if expr.atoms(sp.Indexed) or _structural_ints(expr):
        return IntervalOutcome("n/a", 0, "vector-valued claim (indexed entries): not subdivided")
    if len(names) > max_dims:
        return IntervalOutcome("n/a", 0, f"{len(names)} free symbols > {max_dims}: not subdivided")
    box0: dict[sp.Symbol, tuple[sp.Expr, sp.Expr]] = {}
    for sym in sorted(names, key=str):
        lo, hi = domain.range_of(sym)
        if sym.is_integer:
            lo = sp.ceiling(lo) if lo.is_finite else lo
            hi = sp.floor(hi) if hi.is_finite else hi
        box0[sym] = (lo, hi)
    run = _BranchAndBound(expr, domain, box0, strict, clock)
    with intervals.iv_prec(80):
        out = run.run(budget)
    if out is not None:
        return out
    if not run.left and not run.stack:
        return IntervalOutcome("proved", run.done, covered=region(box0))
    return IntervalOutcome(
        "undecided",
        run.done,
        f"{len(run.left)} boxes not certified after {run.done} evaluations (e.g. {_fmt_box(run.left[0])})",
    )


class _BranchAndBound:
    """The state of one ``certify_nonnegative``: the boxes still to visit (``stack``: (box, fixed), ``fixed``
    the variables moved to a face), the boxes left uncertified, the boxes visited (``done``), the domain's
    constraints as ``c ≥ 0`` forms, the expression's face variants and the interval memo of endpoint pairs."""

    def __init__(self, expr: sp.Expr, domain: Domain, box0: dict, strict: bool, clock: Any) -> None:
        self.strict, self.clock = strict, clock
        self.cons = [
            c.lhs - c.rhs if isinstance(c, (sp.GreaterThan, sp.StrictGreaterThan)) else c.rhs - c.lhs
            for c in domain.constraints
        ]
        self.variants = _Variants(expr, {x_: {lo, hi, sp.Integer(0)} for x_, (lo, hi) in box0.items()}, clock)
        self.constrained = set().union(*(free_names(c) for c in domain.constraints)) if domain.constraints else set()
        self.stack: list[tuple[dict, dict]] = [(box0, {})]
        self.done = 0
        self.left: list[dict] = []
        self.ends: dict[tuple, intervals.Interval] = {}  # endpoint pair → interval (boxes share most endpoints)

    def ok(self, val: Any) -> bool:
        return val.lo > 0 or (val.lo >= 0 and not self.strict)

    def to_iv(self, lo: sp.Expr, hi: sp.Expr) -> intervals.Interval:
        ends = self.ends
        if (lo, hi) not in ends:
            ends[lo, hi] = intervals.to_iv(lo, hi)
        return ends[lo, hi]

    def enclose(self, e: sp.Expr, box: Mapping) -> Any:
        # compiled once per expression: the box loop re-encloses the same few expressions
        return intervals.compiled(e)({x_: self.to_iv(lo, hi) for x_, (lo, hi) in box.items()})

    def run(self, budget: int) -> IntervalOutcome | None:
        """Visit boxes until none is left, ``budget`` boxes, the clock's share or a decisive box (its outcome)."""
        stack, clock = self.stack, self.clock
        while stack:
            if self.done >= budget:
                self.left = [b_ for b_, _ in stack]
                break
            # at most 60% of the claim's time: the falsifier runs after this stage
            if clock is not None and self.done % 16 == 0 and clock.spent(0.6):
                return IntervalOutcome(
                    "undecided", self.done, f"interval arithmetic: time budget spent after {self.done} boxes"
                )
            box, fixed = stack.pop()
            self.done += 1
            out = self.visit(box, fixed)
            if out is not None:
                return out
        return None

    def visit(self, box: dict, fixed: dict) -> IntervalOutcome | None:
        """One box: certified, moved to a face (monotonicity, curvature), refuted at its centre, certified by
        the mean-value form, or bisected (left uncertified where no variable can be split); an outcome only
        where the box decides the claim (refuted, or not enclosable)."""
        full = {**box, **{x_: (v_, v_) for x_, v_ in fixed.items()}}
        if any(_outside(c, full) for c in self.cons):
            return None
        e, _ = self.variants.get(fixed)
        if e is None:  # the face could not be formed within the budget: not certified
            self.left.append(full)
            return None
        if e.is_number and not e.free_symbols:
            # a constant at a face: its sign by Arb at rising precision (exact for a rational);
            # SymPy's is_nonnegative would decide it in floating point
            s_ = arb_sign(e)
            if s_ is not None and (s_ > 0 or (s_ == 0 and not self.strict)):
                return None
            if s_ is not None:
                return IntervalOutcome(
                    "refuted",
                    self.done,
                    f"value {sp.N(e, 10)} at a face of the box" if s_ else "value exactly 0 at a face of the box",
                    counterexample={str(x_): str(v_) for x_, v_ in fixed.items()},
                )
        try:
            val = self.enclose(e, box)
        except intervals.Undefined:
            val = None  # possibly undefined somewhere in the box: never certified (smaller boxes may be)
        except intervals.NotEnclosable as exc:
            return IntervalOutcome("n/a", self.done, f"not enclosable: {exc}")
        except (ZeroDivisionError, ValueError):
            val = None
        if val is not None and self.ok(val):
            return None
        slope = self.slope_of(fixed, box)
        moved = self.monotone_move(box, fixed, slope)
        if not moved and val is not None and bool(val.lo.is_finite()) and bool(val.hi.is_finite()):
            # (a finite enclosure over the closed box: the expression is continuous there, no pole)
            moved = _curvature_move(e, box, fixed, self.variants, self.constrained, slope, self.enclose, self.stack)
        if moved:
            return None
        centre = {x_: _centre(x_, lo, hi) for x_, (lo, hi) in box.items()}
        cval, out = self.centre_value(e, centre, fixed)
        if out is not None:
            return out
        # mean-value form: f(x) = f(c) + Σ_i ∂_i f(ξ) (x_i − c_i) for some ξ on the segment [c, x]
        # (the box is convex), so f(box) ⊆ f(c) + Σ_i ∂_i f(box)·(box_i − c_i). Valid wherever f is
        # C¹ on the box, which finite enclosures of its partials certify (|x|, max, min have
        # partials sign/Heaviside, which are not enclosable, so they never take this route). Its
        # width shrinks like the square of the box's, where the plain enclosure's shrinks like it:
        # a claim with a small margin is settled on far fewer boxes than bisection alone needs.
        if val is not None and cval is not None and _mean_value_ok(cval, box, centre, slope, self.to_iv, self.ok):
            return None
        return self.bisect(box, fixed, full)

    def slope_of(self, fixed: dict, box: dict) -> Any:
        """``slope(sym)``: the enclosure of ∂e/∂sym over ``box`` at the face ``fixed`` (memoised per box; None
        where it cannot be formed or enclosed), tightened by its form over one denominator where needed."""
        slopes: dict[sp.Symbol, Any] = {}  # enclosures of the partials over the box (reused below)
        variants, enclose = self.variants, self.enclose

        def slope(sym: sp.Symbol) -> Any:
            if sym not in slopes:
                d_ = variants.partial(fixed, sym)
                try:
                    slopes[sym] = None if d_ is None else enclose(d_, box)
                except (intervals.NotEnclosable, ZeroDivisionError, ValueError):
                    slopes[sym] = None
                sv = slopes[sym]
                if sv is not None and sv.lo < 0 < sv.hi:
                    # the partial's sign is lost to dependency (1/(k+ε) − ε/(kε+1)): its form over one
                    # denominator ((1 − ε²)/((k+ε)(kε+1))) encloses the same function, often with one sign
                    d2 = variants.partial_cancelled(fixed, sym)
                    if d2 is not None:
                        try:
                            c2 = enclose(d2, box)
                            slopes[sym] = intervals.Interval(max(sv.lo, c2.lo), min(sv.hi, c2.hi))
                        except (intervals.NotEnclosable, ZeroDivisionError, ValueError):
                            pass
            return slopes[sym]

        return slope

    def monotone_move(self, box: dict, fixed: dict, slope: Any) -> bool:
        """The monotonicity test: move the first monotone variable to the face holding the minimum (pushed)."""
        for sym, (lo, hi) in box.items():
            # the minimum over the box sits on a face, but under a constraint on this variable
            # that face may lie outside the domain: the test would then discard good points
            if lo == hi or sym in self.constrained:
                continue
            dv = slope(sym)
            if dv is None:
                continue
            if dv.lo >= 0 and lo.is_finite:
                face = lo
            elif dv.hi <= 0 and hi.is_finite:
                face = hi
            else:
                continue
            nb = {x_: r_ for x_, r_ in box.items() if x_ != sym}
            self.stack.append((nb, {**fixed, sym: face}))
            return True
        return False

    def centre_value(self, e: sp.Expr, centre: dict, fixed: dict) -> tuple[Any, IntervalOutcome | None]:
        """The enclosure of ``e`` at the box's centre (None where it cannot be formed) and, where the centre
        lies in the domain and the value is certainly negative (≤ 0 for a strict claim), the refutation."""
        cval = None
        try:
            cval = self.enclose(e, {x_: (v_, v_) for x_, v_ in centre.items()})
            if not any(
                _outside(
                    c, {**{x_: (v_, v_) for x_, v_ in centre.items()}, **{x_: (v_, v_) for x_, v_ in fixed.items()}}
                )
                for c in self.cons
            ):
                if cval.hi < 0 or (self.strict and cval.hi <= 0):
                    pt = {
                        **{str(x_): str(v_) for x_, v_ in fixed.items()},
                        **{str(x_): str(v_) for x_, v_ in centre.items()},
                    }
                    return cval, IntervalOutcome(
                        "refuted", self.done, f"value ≤ {mpmath.nstr(cval.b, 6)} at a box centre", counterexample=pt
                    )
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError):
            pass
        return cval, None

    def bisect(self, box: dict, fixed: dict, full: dict) -> IntervalOutcome | None:
        """Split the relatively widest variable that can be split (both halves pushed); none: left uncertified.
        (An outcome where bisecting cannot end: an unbounded range split past ``_TAIL_END``.)"""
        widths = sorted(((_rel_width(lo, hi), x_) for x_, (lo, hi) in box.items()), key=lambda w_: -w_[0])
        tail = _endless_tail(box, widths[0][1]) if widths else None
        if tail is not None:
            # an unbounded range is always split first and its unbounded part popped next: past
            # |end| = 2^64 the boxes left are an endless chain of tails, so the stage cannot prove the
            # claim (a claim tight as x → ∞, log(a + 1/k) − log a ≥ 0, spent all 1500 boxes there)
            return IntervalOutcome(
                "undecided",
                self.done,
                f"the unbounded range {tail} is not certified (the claim may be tight as it grows): "
                f"bisecting it cannot end (after {self.done} evaluations)",
            )
        for _, sym in widths:
            parts = _split(sym, *box[sym])
            if parts:
                for lo, hi in parts:
                    nb = dict(box)
                    nb[sym] = (lo, hi)
                    self.stack.append((nb, fixed))
                return None
        self.left.append(full)
        return None


#: seconds for each SymPy call that looks for a critical point (solveset, then simplify of a root): the curvature
#: test is an aid, and solveset on a large derivative ran to the catalogue's 120 s deadline (Prop. 5's chain)
_ROOTS_SECONDS = 5.0


def _curvature_move(e, box, fixed, variants, constrained, slope, enclose, stack) -> bool:
    """The curvature test, where the monotonicity test fails: for a variable in which ``e`` is concave on
    the box (``∂²e`` enclosed ≤ 0), the minimum over it lies at one of its two ends, so the box is
    replaced by its two end faces; in which ``e`` is convex (``∂²e ≥ 0``) and whose partial has an exact
    root ``r`` inside the box (``solveset``, substituted back to an exact 0), the minimum over it is at
    ``r``, so the box is replaced by the face at ``r``. Settles claims tight at an interior minimum
    (``x log x ≥ −1/e`` at ``x = 1/e``), which bisection alone never certifies."""
    for sym, (lo, hi) in box.items():
        if lo == hi or sym in constrained or not (lo.is_finite and hi.is_finite) or sym.is_integer:
            continue
        if slope(sym) is None:
            continue
        d2 = variants.second(fixed, sym)
        if d2 is None:
            continue
        try:
            c2 = enclose(d2, box)
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError):
            continue
        nb = {x_: r_ for x_, r_ in box.items() if x_ != sym}
        if c2.hi <= 0:
            stack.append((nb, {**fixed, sym: lo}))
            stack.append((nb, {**fixed, sym: hi}))
            return True
        if c2.lo >= 0:
            for r in variants.critical(fixed, sym):
                a, b = arb_sign(r - lo), arb_sign(hi - r)
                if a is not None and b is not None and a >= 0 and b >= 0:
                    stack.append((nb, {**fixed, sym: r}))
                    return True
    return False


def _mean_value_ok(cval: Any, box: Mapping, centre: Mapping, slope, to_iv, ok) -> bool:
    """Whether the mean-value enclosure ``f(c) + Σ_i ∂_i f(box)·(box_i − c_i)`` certifies the box."""
    mv = cval
    for sym, (lo, hi) in box.items():
        if lo == hi:
            continue
        dv = slope(sym)
        if dv is None:
            return False
        mv = mv + dv * (to_iv(lo, hi) - to_iv(centre[sym], centre[sym]))
    return ok(mv)


def _outside(c: sp.Expr, box: Mapping) -> bool:
    try:
        cv = intervals.interval_eval(c, {x_: intervals.to_iv(lo, hi) for x_, (lo, hi) in box.items()})
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError):
        return False
    return cv.hi < 0  # the constraint c ≥ 0 certainly fails: the box lies outside the domain


def _centre(sym: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    if hi == sp.oo:
        c_ = _larger(2 * lo, lo + 1)
    elif lo == -sp.oo:
        c_ = _smaller(2 * hi, hi - 1)
    elif lo > 0 and hi / lo > 4:
        c_ = _rat(math.sqrt(float(lo) * float(hi)))
    else:
        c_ = (lo + hi) / 2
    return sp.floor(c_) if sym.is_integer else c_


def _fmt_box(box: Mapping) -> str:
    return ", ".join(f"{x_} ∈ [{sp.N(lo, 5)}, {sp.N(hi, 5)}]" for x_, (lo, hi) in box.items())
