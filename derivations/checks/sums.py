"""Proofs of inequalities over ``j = 1..k`` for every ``k``: ``prove_sums(step, opts) -> SumsOutcome | None``.

Contract: for an inequality step whose gap ``big − small`` holds sums ``Σ_{j=a}^{b} t(v_j)``, products
``∏_{j=a}^{b} t(v_j)`` over vector entries, or an integer symbol with an unbounded range (``(1 + x)^k ≥ 1 + kx``
for every integer ``k ≥ 1``), ``prove_sums`` either *proves* the claim on the whole stated box (``proved=True``,
with the reduction written out) or says it could not (``proved=False``, never a refutation); ``None`` when none
of the above occurs (the claim is for the other routes). Every step of a reduction is itself proved:

1. **Termwise bounds.** Each summand's range over the entry box is enclosed (by the sign of its partials in
   each entry, proved with Arb, giving symbolic ends in the scalars; else by a plain Arb enclosure), so the
   mean ``M = (1/n) Σ t_j`` lies in ``[L, H]`` and ``Σ = n·M`` (``n = b − a + 1 ≥ 0``, proved); a product is
   ``G^n`` with the geometric mean ``G ∈ [L, H]`` (``L ≥ 0`` proved). An entry written with a fixed index
   (``s_1``) is split off its sum: ``Σ_{j=1}^{k} t(s_j) = t(s_1) + (k − 1)·M`` (``1 ≤ 1 ≤ k`` proved).
   Replacing the sums by these variables gives a claim that holds for the true values whenever it holds on
   the whole relaxed box: a sound relaxation (log-sum-exp's sandwich ``log k + min ≤ lse ≤ log k + max`` and
   the softmax bound are instances).
2. **Jensen.** Where ``Σ f(v_j)`` and ``Σ v_j`` run over the same entries and ``f'' ≥ 0`` is proved on the
   entry range (Arb), ``(1/n) Σ f(v_j) ≥ f((1/n) Σ v_j)``: the lower end of that mean is ``f(M_v)``
   (concave: the upper end).
3. **Monotone elimination.** A relaxed variable whose partial derivative has one sign over the whole box
   (Arb, on the derivative as written or brought over a common denominator) is moved to the end where the
   gap is smallest. ``k`` is relaxed to a real ``≥`` its lower end (a proof for every real ``k`` covers every
   integer); an increasing gap takes ``k`` to its lower end, a decreasing one is written in ``u = 1/k ∈ [0, 1/k₀]``
   (logarithms split over a common denominator), a bounded box.
4. **Tangent of a convex function.** ``g(x₀) = 0``, ``∂g/∂x(x₀) = 0`` (exact) and ``∂²g/∂x² ≥ 0`` on the open
   range ⇒ ``g ≥ 0`` there; the two end faces are proved separately (Bernoulli's inequality).
5. **The scalar claim** left is proved by SymPy's assumptions (each variable shifted to a nonnegative one
   from its finite end), an Arb enclosure of the whole box, or ``interval.certify_nonnegative``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from .. import intervals
from ..ledger import Domain, Step, free_names, region
from .interval import certify_nonnegative
from .sampling import _sides

Box = dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]


@dataclass
class SumsOutcome:
    """``proved``: the claim holds on the whole stated domain by ``reduction`` (the argument, in words);
    ``method``: the route's one-line label; ``covered``: the proved region (symbol → (lo, hi), exact strings)."""

    proved: bool
    method: str
    reduction: str
    covered: dict[str, tuple[str, str]] | None = None


class _GiveUp(Exception):
    """The route cannot reduce this claim (the reason is the message); never a refutation."""


# ----------------------------------------------------------------------------- Arb helpers


def _enclose(e: sp.Expr, box: Mapping[sp.Symbol, tuple[sp.Expr, sp.Expr]]) -> intervals.Interval | None:
    """An Arb enclosure of ``e`` over ``box`` (None where the evaluator cannot enclose it)."""
    try:
        with intervals.iv_prec(80):
            return intervals.interval_eval(e, {s_: box[s_] for s_ in e.free_symbols if s_ in box})
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, KeyError):
        return None


def _forms(e: sp.Expr) -> list[sp.Expr]:
    """``e`` as written, over a common denominator with the numerator expanded, and factored: each an
    identity of SymPy's, tried in turn (interval arithmetic is sensitive to the form)."""
    out = [e]
    try:
        n, d = sp.fraction(sp.together(e))
        out.append(sp.expand(n, power_exp=False) / d)
        out.append(sp.factor(out[-1]))
    except Exception:  # a form SymPy cannot build is simply not tried
        pass
    return list(dict.fromkeys(out))


def _is_zero(e: sp.Expr) -> bool:
    """``e ≡ 0`` by SymPy identities cheap enough to try often (logarithms expanded, one denominator, the
    numerator expanded); ``False`` means only "not seen to be zero"."""
    if e == 0:
        return True
    try:
        n, _ = sp.fraction(sp.together(sp.expand_log(e)))
        return sp.expand(n) == 0
    except Exception:  # SymPy could not rewrite it: not seen to be zero
        return False


def _sign(e: sp.Expr, box: Box) -> int:
    """+1 if ``e ≥ 0`` on the box, −1 if ``e ≤ 0`` (proved by Arb on one of its forms), else 0."""
    if e == 0:
        return 1
    for f in _forms(e):
        v = _enclose(f, box)
        if v is None:
            continue
        if v.lo >= 0:
            return 1
        if v.hi <= 0:
            return -1
    return 0


def _rational(x: Any) -> sp.Expr:
    """The exact value of an Arb interval endpoint (an exact point) as a SymPy rational; ±oo if infinite."""
    if not x.is_finite():
        return sp.oo if x > 0 else -sp.oo
    man, exp = x.man_exp()
    return sp.Integer(int(man)) * sp.Integer(2) ** int(exp)


def _show(e: Any) -> str:
    """``e`` as text, the route's own variables (Dummy) under their plain names."""
    e = sp.sympify(e)
    return sp.sstr(e.xreplace({d_: sp.Symbol(d_.name) for d_ in e.atoms(sp.Dummy)}))


# ----------------------------------------------------------------------------- scalar claims


@dataclass
class _Prover:
    strict: bool
    budget: int
    max_dims: int
    deadline: float
    notes: list[str] = field(default_factory=list)
    bb_ops: int = 60  #: the largest claim (SymPy operation count) given to interval branch and bound

    def note(self, text: str) -> None:
        self.notes.append(text)

    def _time_left(self) -> bool:
        return time.perf_counter() < self.deadline

    # ---- closed forms
    def symbolic(self, g: sp.Expr, box: Box, open_vars: frozenset = frozenset()) -> bool:
        """``g ≥ 0`` (> 0 if strict) by SymPy's assumptions after shifting every variable to a nonnegative
        one from a finite end (``x = lo + y``, ``y ≥ 0``; ``y > 0`` for an open end in ``open_vars``)."""
        rep = {}
        for s_, (lo, hi) in box.items():
            kw = {"positive": True} if s_ in open_vars else {"nonnegative": True}
            y = sp.Dummy(f"{s_}_shift", **kw)
            if lo.is_finite:
                rep[s_] = lo + y
            elif hi.is_finite:
                rep[s_] = hi - y
        shifted = g.xreplace(rep) if rep else g
        for f in (shifted, sp.expand_log(shifted), sp.together(shifted)):
            if f == 0 and not self.strict:
                return True
            if (f.is_positive if self.strict else f.is_nonnegative) is True:
                return True
        return False

    def enclosed(self, g: sp.Expr, box: Box) -> bool:
        for f in _forms(g):
            v = _enclose(f, box)
            if v is not None and (v.lo > 0 or (v.lo >= 0 and not self.strict)):
                return True
        return False

    def prove(self, g: sp.Expr, box: Box, depth: int = 0) -> bool:
        """Prove ``g ≥ 0`` on ``box`` (every variable real; an unbounded ``[lo, ∞)`` end allowed)."""
        g = sp.expand_log(g)
        box = {s_: r_ for s_, r_ in box.items() if s_ in g.free_symbols}
        if self.symbolic(g, box):
            self.note(f"{_show(g)} {'>' if self.strict else '≥'} 0 by SymPy's assumptions on the ranges")
            return True
        if self.enclosed(g, box):
            self.note(f"{_show(g)} {'>' if self.strict else '≥'} 0 by an Arb enclosure over the box")
            return True
        if depth > 6 or not self._time_left():
            return False
        for attempt in (self._monotone, self._factors, self._fraction):
            mark = len(self.notes)
            res = attempt(g, box, depth)
            if res is not None:
                if res:
                    return True
                del self.notes[mark:]
                if attempt is self._monotone:  # a proved monotone move is the best the route knows
                    return False
        if not self.strict and self.tangent(g, box, depth):
            return True
        # an unbounded variable not known monotone: the bounded form in u = 1/s
        for s_, (lo, hi) in box.items():
            if hi == sp.oo and lo.is_finite and lo > 0:
                u = sp.Dummy(f"u_{s_.name}", nonnegative=True)
                g_u = _at_infinity(g, s_, u)
                rest = {x_: r_ for x_, r_ in box.items() if x_ != s_}
                self.note(f"u = 1/{_show(s_)} ∈ [0, {1 / lo}] maps {_show(s_)} ∈ [{lo}, ∞) to a bounded range")
                return self.prove(g_u, {**rest, u: (sp.Integer(0), 1 / lo)}, depth + 1)
        return self.certified(g, box)

    def _positive(self, e: sp.Expr, box: Box) -> bool:
        """``e > 0`` on the box, by SymPy's assumptions or one Arb enclosure (no subdivision)."""
        if e.is_positive:
            return True
        for f in _forms(e)[:2]:
            v = _enclose(f, box)
            if v is not None and v.lo > 0:
                return True
        return False

    def _factors(self, g: sp.Expr, box: Box, depth: int) -> bool | None:
        """``g = P·h`` with every factor of ``P`` proved positive: prove ``h`` (None: no such factor)."""
        if not isinstance(g, sp.Mul):
            return None
        keep = [f for f in g.args if not self._positive(f, box)]
        if len(keep) == len(g.args):
            return None
        h = sp.Mul(*keep)
        self.note(f"the factors of {_show(g)} other than {_show(h)} are > 0 on the box (SymPy/Arb)")
        return self.prove(h, box, depth + 1)

    def _fraction(self, g: sp.Expr, box: Box, depth: int) -> bool | None:
        """``g = n/d`` over a common denominator with ``d > 0`` proved: prove the (expanded) numerator."""
        try:
            n, d = sp.fraction(sp.together(g))
        except Exception:  # SymPy could not bring g over one denominator: this step does not apply
            return None
        if d.is_number or not d.free_symbols:
            return None
        if not self._positive(d, box):
            return None
        n = sp.expand(n, power_exp=False)
        self.note(f"{_show(g)} = ({_show(n)})/({_show(d)}) with the denominator > 0 on the box (SymPy/Arb)")
        return self.prove(n, box, depth + 1)

    def _derivative_sign(self, d: sp.Expr, box: Box, depth: int) -> int:
        """The sign of ``d`` on the box: one Arb enclosure, else (for an unbounded box, shallow depth) a
        proof of ``±d ≥ 0`` by this prover (its notes kept)."""
        if depth > 1 or all(hi.is_finite for _, hi in box.values()):
            return 0
        for want in (1, -1):
            if not self._time_left():
                return 0
            sub = _Prover(False, min(self.budget, 200), self.max_dims, self.deadline, bb_ops=25)
            if sub.prove(want * d, box, depth + 3):
                rel = "≥" if want > 0 else "≤"
                self.note(f"the derivative {_show(d)} {rel} 0 on the box, because: [{'; '.join(sub.notes)}]")
                return want
        return 0

    def _monotone(self, g: sp.Expr, box: Box, depth: int) -> bool | None:
        """A variable whose partial has one sign moves to the end holding the minimum (None: none moves)."""
        order = sorted(box.items(), key=lambda kv: (kv[1][1] != sp.oo, str(kv[0])))
        signs = {s_: _sign(sp.diff(g, s_), box) for s_, (lo, hi) in order if lo != hi}
        if not any(signs.values()):  # a second look, by this prover, at an unbounded variable's derivative
            for s_, (lo, hi) in order:
                if hi == sp.oo and lo != hi:
                    signs[s_] = self._derivative_sign(sp.diff(g, s_), box, depth)
                    if signs[s_]:
                        break
        if any(signs.values()) and _enclose(g, box) is None:
            return None  # g itself not enclosable on the box: its continuity there is not established
        for s_, (lo, hi) in order:
            sgn = signs.get(s_, 0)
            if sgn == 0:
                continue
            end = lo if sgn > 0 else hi
            how = "increasing" if sgn > 0 else "decreasing"
            rest = {x_: r_ for x_, r_ in box.items() if x_ != s_}
            if end.is_finite:
                self.note(
                    f"∂/∂{_show(s_)} {'≥' if sgn > 0 else '≤'} 0 on the box: {how} in {_show(s_)}, "
                    f"so {_show(s_)} = {end}"
                )
                return self.prove(g.subs(s_, end), rest, depth + 1)
            if end == sp.oo and lo.is_finite and lo > 0:
                u = sp.Dummy(f"u_{s_.name}", nonnegative=True)
                mark = len(self.notes)
                self.note(f"∂/∂{_show(s_)} ≤ 0 on the box: decreasing in {_show(s_)}; write u = 1/{_show(s_)}")
                if self.prove(_at_infinity(g, s_, u), {**rest, u: (sp.Integer(0), 1 / lo)}, depth + 1):
                    return True
                del self.notes[mark:]
                self.note(f"∂/∂{_show(s_)} ≤ 0 on the box: decreasing in {_show(s_)}")
                return self._at_limit(g, s_, rest, depth)
            continue  # decreasing towards −∞ or from a nonpositive end: no bounded form
        return None

    def _at_limit(self, g: sp.Expr, s_: sp.Symbol, rest: Box, depth: int) -> bool:
        """``g`` decreasing in ``s`` on ``[lo, ∞)`` ⇒ ``g ≥ lim_{s→∞} g``: the limit by SymPy's Gruntz algorithm
        (symbolic; only for a gap in ``s`` alone, as Gruntz's answer with parameters may hold for generic values
        only), then proved ≥ 0."""
        if rest:  # with parameters, SymPy may answer for generic values only: not used as a proof
            return False
        try:
            lim = sp.limit(g, s_, sp.oo)
        except Exception:  # no symbolic limit: not proved
            return False
        if lim.has(sp.Limit, sp.AccumBounds, sp.nan, sp.zoo) or not lim.is_finite:
            return False
        self.note(f"lim_{{{_show(s_)}→∞}} = {_show(lim)} (SymPy's Gruntz algorithm), so the gap is ≥ this limit")
        return self.prove(lim, rest, depth + 1)

    def tangent(self, g: sp.Expr, box: Box, depth: int) -> bool:
        """Convex in ``x`` with a horizontal tangent at ``x₀`` where ``g = 0``: ``g ≥ 0`` on the range."""
        for x, (lo, hi) in box.items():
            if not (lo.is_finite and hi.is_finite) or lo == hi:
                continue
            g_x = sp.diff(g, x)
            for x0 in (sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Rational(1, 2)):
                if not (lo < x0 < hi):
                    continue
                if not self._time_left():
                    return False
                if not (_is_zero(g.subs(x, x0)) and _is_zero(g_x.subs(x, x0))):
                    continue
                g_xx = sp.diff(g_x, x)
                mark = len(self.notes)
                if not (self.symbolic(g_xx, box, frozenset({x})) or self.enclosed(g_xx, box)):
                    continue
                self.note(
                    f"tangent of a convex function: g = {_show(g)} has g({_show(x)}={x0}) = 0 and ∂g/∂{_show(x)} = 0 there "
                    f"(exact), and ∂²g/∂{_show(x)}² = {_show(g_xx)} ≥ 0 for {_show(x)} ∈ ({lo}, {hi}) (SymPy/Arb), so g ≥ 0 there"
                )
                rest = {y_: r_ for y_, r_ in box.items() if y_ != x}
                ok = True
                for end in (lo, hi):
                    self.note(f"on the face {_show(x)} = {end}")
                    if not self.prove(g.subs(x, end), rest, depth + 1):
                        ok = False
                        break
                if ok:
                    return True
                del self.notes[mark:]
        return False

    def certified(self, g: sp.Expr, box: Box) -> bool:
        if not self._time_left() or any(not (lo.is_finite and hi.is_finite) for lo, hi in box.values()):
            return False
        # the subdivision differentiates g with SymPy, whose assumption queries can run for minutes on a large
        # expression (and its box loop does not see this route's deadline): only small claims are handed over
        if sp.count_ops(g) > self.bb_ops:
            return False
        try:
            out = certify_nonnegative(
                g, Domain(dict(box)), strict=self.strict, budget=min(self.budget, 400), max_dims=self.max_dims
            )
        except Exception:  # a domain the subdivision cannot take (e.g. a degenerate range): not proved
            return False
        if out.status == "proved":
            self.note(f"{_show(g)} ≥ 0 by interval branch and bound on {out.boxes} boxes")
            return True
        return False


def _at_infinity(g: sp.Expr, s_: sp.Symbol, u: sp.Symbol) -> sp.Expr:
    """``g`` with ``s = 1/u``, each logarithm's argument brought over a common denominator and split
    (``log((u + A)/u) = log(u + A) − log u``, only where SymPy knows both parts positive), so the
    ``log u`` terms cancel and the form is finite at ``u = 0``."""
    up = sp.Dummy("u", positive=True)
    e = g.subs(s_, 1 / up)
    e = e.replace(lambda n: isinstance(n, sp.log), lambda n: sp.expand_log(sp.log(sp.together(n.args[0]))))
    e = sp.expand_log(e)
    e = sp.together(e) if not e.has(sp.log) else e
    return e.xreplace({up: u})


# ----------------------------------------------------------------------------- sums and products


@dataclass
class _Mean:
    """A relaxed variable standing for the mean (geometric mean, for a product) of a sum's terms."""

    sym: sp.Symbol
    lo: sp.Expr
    hi: sp.Expr
    vector: sp.Symbol | None  #: the one vector its summand reads (None: several)
    summand: sp.Expr  #: the summand with the entry as ``entry``
    entry: sp.Symbol | None
    key: tuple  #: (vector, lower, upper, split indices): sums over the same entries share it
    jensen: bool = False


def _entry_box(domain: Domain, names: set) -> Box:
    return {s_: domain.range_of(s_) for s_ in names if s_ in domain.ranges}


class _Abstraction:
    """Each sum or product of the gap replaced by a mean variable with proved bounds (see the module doc)."""

    def __init__(self, gap: sp.Expr, domain: Domain, notes: list[str]):
        self.domain = domain
        self.notes = notes
        self.means: list[_Mean] = []
        self.labels = {a_.base.label: a_.base for a_ in gap.atoms(sp.Indexed)}
        #: fixed-index entries (s_1) → real symbols in the vector's range
        self.fixed: dict[sp.Indexed, sp.Symbol] = {}
        for a_ in gap.atoms(sp.Indexed):
            if len(a_.indices) == 1 and a_.indices[0].is_Integer:
                lo, hi = domain.range_of(a_.base.label)
                self.fixed[a_] = sp.Dummy(f"{a_.base.label}_{a_.indices[0]}", real=True)
        self.scalar_box: Box = {
            s_: domain.range_of(s_) for s_ in free_names(gap) if s_ in domain.ranges and s_ not in self.labels
        }
        self.gap = gap

    def run(self) -> sp.Expr:
        nodes = sorted(self.gap.atoms(sp.Sum, sp.Product), key=sp.count_ops)
        rep: dict[sp.Expr, sp.Expr] = {}
        for node in nodes:
            if node.function.has(sp.Sum, sp.Product):
                raise _GiveUp("nested sums are not reduced")
            rep[node] = self._replace(node)
        g = self.gap.xreplace(rep)
        left = [a_ for a_ in g.atoms(sp.Indexed) if a_ not in self.fixed]
        if left:
            raise _GiveUp(f"entry {left[0]} outside a sum with a non-integer index")
        self._jensen()
        return g.xreplace(self.fixed)

    def _replace(self, node: sp.Expr) -> sp.Expr:
        if len(node.limits) != 1:
            raise _GiveUp(f"{node}: one summation index only")
        j, a, b = node.limits[0]
        t = node.function
        entries = {}
        for e_ in t.atoms(sp.Indexed):
            if e_ in self.fixed:  # an entry with a fixed index (s_1 in e^{s_j − s_1}): a scalar of the term
                continue
            if e_.indices != (j,):
                raise _GiveUp(f"{node}: entry {e_} is not indexed by the summation index alone")
            entries[e_] = sp.Dummy(f"{e_.base.label}_j", real=True)
        t_x = t.xreplace(entries).xreplace(self.fixed)
        if j in t_x.free_symbols:
            raise _GiveUp(f"{node}: the summand depends on the index {j} itself")
        n = b - a + 1
        box = {
            **self.scalar_box,
            **{x_: self.domain.range_of(f_.base.label) for f_, x_ in self.fixed.items()},
            **{x_: self.domain.range_of(e_.base.label) for e_, x_ in entries.items()},
        }
        if _sign(n, box) <= 0 and n != 0:
            raise _GiveUp(f"{node}: the number of terms {n} is not proved ≥ 0")
        # split off the entries the claim names by a fixed index (s_1 of a softmax numerator)
        split: list[sp.Indexed] = []
        if len(entries) == 1:
            (e0,) = entries
            for f_ in self.fixed:
                if f_.base == e0.base:
                    i_ = f_.indices[0]
                    if _sign(i_ - a, box) > 0 and _sign(b - i_, box) > 0:
                        split.append(f_)
        split.sort(key=lambda f_: int(f_.indices[0]))
        lo, hi, how = self._term_range(t_x, list(entries.values()), box)
        is_sum = isinstance(node, sp.Sum)
        name = f"{'M' if is_sum else 'G'}{len(self.means) + 1}"
        # the mean inherits the sign of the terms' lower end (proved by Arb): SymPy then simplifies
        # (G^k)^(1/k) = G and log(k·M) = log k + log M, which it may not do for a merely real symbol
        v_lo = _enclose(lo, box)
        sign_kw = {}
        if v_lo is not None and v_lo.lo > 0:
            sign_kw = {"positive": True}
        elif lo == 0 or (v_lo is not None and v_lo.lo >= 0):
            sign_kw = {"nonnegative": True}
        m = sp.Dummy(name, real=True, **sign_kw)
        x0 = next(iter(entries.values())) if len(entries) == 1 else None
        vec = next(iter(entries)).base.label if len(entries) == 1 else None
        key = (vec, a, b, tuple(split))
        if not is_sum and not sign_kw:
            raise _GiveUp(f"{node}: a product's terms are not proved ≥ 0")
        self.means.append(_Mean(m, lo, hi, vec, t_x, x0, key))
        rest = n - len(split)
        parts = [t_x.xreplace({x0: self.fixed[f_]}) for f_ in split]
        term_txt = _show(t)
        if is_sum:
            val = sp.Add(*parts) + rest * m
            self.notes.append(
                f"termwise: each term {term_txt} ∈ [{_show(lo)}, {_show(hi)}] ({how}), so "
                f"Σ_{{{j}={a}}}^{{{b}}} {term_txt} = "
                + (" + ".join(_show(p_) for p_ in parts) + " + " if parts else "")
                + f"({_show(rest)})·{name} with the mean {name} ∈ [{_show(lo)}, {_show(hi)}]"
            )
        else:
            val = sp.Mul(*parts) * m**rest
            self.notes.append(
                f"termwise: each factor {term_txt} ∈ [{_show(lo)}, {_show(hi)}] ⊂ [0, ∞) ({how}), so "
                f"∏_{{{j}={a}}}^{{{b}}} {term_txt} = "
                + (" · ".join(_show(p_) for p_ in parts) + " · " if parts else "")
                + f"{name}^({_show(rest)}) with the geometric mean {name} ∈ [{_show(lo)}, {_show(hi)}]"
            )
        return val

    def _term_range(self, t_x: sp.Expr, xs: list[sp.Symbol], box: Box) -> tuple[sp.Expr, sp.Expr, str]:
        """The summand's range over the entry box: symbolic ends where it is monotone in every entry."""
        signs = [_sign(sp.diff(t_x, x_), box) for x_ in xs]
        if all(signs):
            lo_pt = {x_: box[x_][0] if s_ > 0 else box[x_][1] for x_, s_ in zip(xs, signs)}
            hi_pt = {x_: box[x_][1] if s_ > 0 else box[x_][0] for x_, s_ in zip(xs, signs)}
            if all(v_.is_finite for v_ in (*lo_pt.values(), *hi_pt.values())):
                words = ", ".join(
                    f"{'increasing' if s_ > 0 else 'decreasing'} in {_show(x_)}" for x_, s_ in zip(xs, signs)
                )
                return t_x.subs(lo_pt), t_x.subs(hi_pt), f"{words} by the sign of its derivative (Arb)"
        v = _enclose(t_x, box)
        if v is None or not (v.lo.is_finite() and v.hi.is_finite()):
            raise _GiveUp(f"no finite enclosure of the summand {t_x} over the entry box")
        return _rational(v.lo), _rational(v.hi), "Arb enclosure over the entry box"

    def _jensen(self) -> None:
        """(1/n)Σ f(v_j) ≥ f((1/n)Σ v_j) for f proved convex on the entry range (≤ for concave); for a product,
        the same for log t: its geometric mean G = exp((1/n)Σ log t(v_j)) ≤ t(M) when log t is concave."""
        linear = {m_.key: m_ for m_ in self.means if m_.entry is not None and m_.summand == m_.entry}
        for m_ in self.means:
            lin = linear.get(m_.key)
            if lin is None or lin is m_ or m_.entry is None:
                continue
            box = {**self.scalar_box, m_.entry: self.domain.range_of(m_.vector)}
            box.update({x_: self.domain.range_of(f_.base.label) for f_, x_ in self.fixed.items()})
            product = m_.sym.name.startswith("G")
            if product:
                v = _enclose(m_.lo, box)
                if v is None or not v.lo > 0:
                    continue
                f = sp.log(m_.summand)
            else:
                f = m_.summand
            f2 = sp.diff(f, m_.entry, 2)
            sgn = _sign(f2, box)
            if sgn == 0:
                continue
            f_at = m_.summand.xreplace({m_.entry: lin.sym})
            if sgn > 0:
                m_.lo = f_at
            else:
                m_.hi = f_at
            m_.jensen = True
            rel = "≥" if sgn > 0 else "≤"
            what = "log t" if product else "f"
            self.notes.append(
                f"Jensen: {what}({_show(m_.entry)}) = {_show(f)} has second derivative {_show(f2)} {rel} 0 on the entry "
                f"range (Arb), so the {'geometric ' if product else ''}mean {_show(m_.sym)} {rel} "
                f"{_show(f_at)}, the term at the mean {_show(lin.sym)}"
            )


def _hull(e: sp.Expr, box: Box, lower: bool) -> sp.Expr:
    if not e.free_symbols:
        return e
    v = _enclose(e, box)
    if v is None:
        raise _GiveUp(f"no enclosure of the bound {e}")
    return _rational(v.lo if lower else v.hi)


def _eliminate(g: sp.Expr, ab: _Abstraction, notes: list[str]) -> tuple[sp.Expr, Box]:
    """Move each mean variable to the end of its range where the gap is smallest (sign of ∂/∂M by Arb);
    a mean that is not monotone stays a variable of the scalar claim (``M = lo + w(hi − lo)``, w ∈ [0, 1])."""
    box: Box = {**ab.scalar_box}
    for f_, x_ in ab.fixed.items():
        box[x_] = ab.domain.range_of(f_.base.label)
    pending = sorted(ab.means, key=lambda m_: not m_.jensen)
    # the widest range of each mean, for the derivative tests (a Jensen end is enclosed over the others)
    plain = {m_.sym: (_hull(m_.lo, box, True), _hull(m_.hi, box, False)) for m_ in ab.means if not m_.jensen}
    for m_ in ab.means:
        if m_.jensen:
            full = {**box, **plain}
            plain_lo = _hull(m_.lo, full, True)
            plain_hi = _hull(m_.hi, full, False)
            plain[m_.sym] = (plain_lo, plain_hi)
    extra: Box = {}
    for m_ in pending:
        full = {**box, **plain, **extra}
        if m_.sym not in g.free_symbols:
            continue
        sgn = _sign(sp.diff(g, m_.sym), full)
        if sgn:
            end = m_.lo if sgn > 0 else m_.hi
            notes.append(
                f"the gap is {'increasing' if sgn > 0 else 'decreasing'} in {_show(m_.sym)} (∂/∂{_show(m_.sym)} "
                f"{'≥' if sgn > 0 else '≤'} 0 on the relaxed box, Arb): {_show(m_.sym)} = {_show(end)}"
            )
            g = g.xreplace({m_.sym: end})
        elif not (m_.lo.free_symbols or m_.hi.free_symbols):
            extra[m_.sym] = (m_.lo, m_.hi)
            notes.append(f"{_show(m_.sym)} ∈ [{_show(m_.lo)}, {_show(m_.hi)}] stays a variable of the scalar claim")
        else:
            w = sp.Dummy(f"w_{m_.sym.name}", real=True)
            g = g.xreplace({m_.sym: m_.lo + w * (m_.hi - m_.lo)})
            extra[w] = (sp.Integer(0), sp.Integer(1))
            notes.append(f"{_show(m_.sym)} = {_show(m_.lo)} + w·({_show(m_.hi)} − {_show(m_.lo)}), w ∈ [0, 1]")
    return g, {**box, **extra}


# ----------------------------------------------------------------------------- entry point


def _applies(gap: sp.Expr, domain: Domain) -> bool:
    if gap.has(sp.Sum, sp.Product):
        return True
    for s_ in free_names(gap):
        if s_.is_integer and s_ in domain.ranges:
            lo, hi = domain.range_of(s_)
            if not (lo.is_finite and hi.is_finite):
                return True
    return False


def _relax_integers(g: sp.Expr, box: Box, notes: list[str]) -> tuple[sp.Expr, Box]:
    """Every integer symbol replaced by a real one over the same range (its integer ends): a proof for every
    real value covers every integer one."""
    rep, out = {}, {}
    for s_, (lo, hi) in box.items():
        if s_.is_integer:
            lo = sp.ceiling(lo) if lo.is_finite else lo
            hi = sp.floor(hi) if hi.is_finite else hi
            r_ = sp.Dummy(s_.name, real=True, positive=bool(lo > 0) or None)
            rep[s_] = r_
            out[r_] = (lo, hi)
            notes.append(f"{s_.name} relaxed to a real in [{lo}, {'∞' if hi == sp.oo else hi}] (covers every integer)")
        else:
            out[s_] = (lo, hi)
    return g.xreplace(rep), out


def _corners(g: sp.Expr, ab: _Abstraction, notes: list[str]) -> tuple[sp.Expr, Box] | None:
    """Extremes at corners: every sum runs over the same entries ``v_j`` (one vector, same limits, nothing split
    off) and the gap is proved concave in each entry separately (its second partial in one entry ≤ 0 over the
    relaxed box, Arb). A function concave in each coordinate attains its minimum over a box at a vertex, and the
    gap is symmetric in the entries, so a vertex is fixed by the count ``m`` of entries at the upper end:
    ``M_i = t_i(lo) + w·(t_i(hi) − t_i(lo))`` with ``w = m/n ∈ [0, 1]`` (relaxed to a real). None: not applicable."""
    keys = {m_.key for m_ in ab.means}
    if len(keys) != 1 or ab.fixed or any(m_.entry is None for m_ in ab.means):
        return None
    (vec, a, b, split) = next(iter(keys))
    if split or any(m_.sym.name.startswith("G") for m_ in ab.means):
        return None
    n = b - a + 1
    x = sp.Dummy(f"{vec}_j", real=True)
    lo, hi = ab.domain.range_of(vec)
    if not (lo.is_finite and hi.is_finite):
        return None
    ts = {m_.sym: m_.summand.xreplace({m_.entry: x}) for m_ in ab.means}
    # ∂M_i/∂v_j = t_i'(v_j)/n, so ∂²g/∂v_j² = Σ_i g_i t_i''/n + Σ_il g_il t_i' t_l'/n²
    d2 = sp.Add(*(sp.diff(g, m) * sp.diff(t, x, 2) / n for m, t in ts.items()))
    d2 += sp.Add(*(sp.diff(g, m, l_) * sp.diff(t, x) * sp.diff(ts[l_], x) / n**2 for m, t in ts.items() for l_ in ts))
    box: Box = {**ab.scalar_box, x: (lo, hi)}
    # M_i = (t_i(v_j) + (n − 1) R_i)/n exactly, R_i the mean of the other terms, in the termwise range: the
    # second partial is enclosed over (v_j, R_i), which keeps the tie between M_i and the entry v_j
    others = {}
    for m_ in ab.means:
        t = ts[m_.sym]
        v = _enclose(t, box)
        if v is None or not (v.lo.is_finite() and v.hi.is_finite()):
            return None
        r_ = sp.Dummy(f"R{len(others) + 1}", real=True)
        others[m_.sym] = (t + (n - 1) * r_) / n
        box[r_] = (_rational(v.lo), _rational(v.hi))
    d2 = d2.xreplace(others)
    if not (_is_zero(d2) or _sign(d2, box) < 0):
        return None
    w = sp.Dummy("w", real=True)
    at = {m: t.subs(x, lo) + w * (t.subs(x, hi) - t.subs(x, lo)) for m, t in ts.items()}
    notes.append(
        f"corners: the gap is concave in each entry {vec}_j (∂²/∂{vec}_j² = {_show(d2)} ≤ 0 for every value of the "
        "mean R of the other terms in its termwise range, Arb) "
        f"and symmetric in them, so its minimum is at a vertex: m entries at {hi}, the rest at {lo}, w = m/n ∈ [0, 1]: "
        + ", ".join(f"{_show(m)} = {_show(e)}" for m, e in at.items())
    )
    rest = {s_: r_ for s_, r_ in box.items() if s_ in ab.scalar_box}
    return g.xreplace(at), {**rest, w: (sp.Integer(0), sp.Integer(1))}


def _method(notes: list[str]) -> str:
    """The route's label: the reductions its argument used, in the order it first used them."""
    tags = {
        "termwise:": "termwise bounds",
        "Jensen:": "Jensen",
        "corners:": "extremes at corners",
        "relaxed to a real": "k relaxed to a real",
        "0 on the box:": "monotonicity",
        "on the relaxed box, Arb):": "monotonicity",
        "write u = 1/": "u = 1/k",
        "to a bounded range": "u = 1/k",
        "Gruntz": "limit at ∞",
        "tangent of a convex": "convex tangent",
        "branch and bound": "interval branch and bound",
    }
    text = "; ".join(notes)
    first: dict[str, int] = {}
    for key, label in tags.items():
        at = text.find(key)
        if at >= 0:
            first[label] = min(at, first.get(label, at))
    return "sum reduction (" + ", ".join(sorted(first, key=first.get)) + ")"


def prove_sums(step: Step, opts: Mapping[str, Any]) -> SumsOutcome | None:
    """Prove the inequality ``step`` for every ``k`` by a shown reduction (module doc); ``None`` when the step
    has no sum, product or unbounded integer symbol. Never refutes: ``proved=False`` says only "not proved".

    ``opts``: ``box_budget`` (boxes for the final branch and bound, default 1500), ``max_dims`` (default 4;
    raised by the reduction's own variables), ``sums_seconds`` (time limit, default 2.5).
    """
    if step.kind != "inequality":
        return None
    step = step.unwrapped()
    small, big, strict = _sides(step)
    gap = sp.sympify(big - small)
    if not _applies(gap, step.domain):
        return None
    notes: list[str] = []
    method = "sum reduction"
    t0 = time.perf_counter()
    prover = _Prover(
        strict=strict,
        budget=int(opts.get("box_budget", 1500)),
        max_dims=int(opts.get("max_dims", 4)) + 2,
        deadline=t0 + float(opts.get("sums_seconds", 2.5)),
        notes=notes,
    )
    try:
        if gap.has(sp.Sum, sp.Product):
            ab = _Abstraction(gap, step.domain, notes)
            g0 = ab.run()
            g, box = _eliminate(g0, ab, notes)
        else:
            ab = None
            g = gap
            box = {s_: step.domain.range_of(s_) for s_ in free_names(gap)}
        g, box = _relax_integers(g, box, notes)
        ok = prover.prove(g, box)
        if not ok and ab is not None and prover._time_left():
            # the means moved independently lost how they are tied to one another: try the vertices instead
            tried = list(notes)
            mark = sum(1 for n_ in notes if n_.startswith("termwise"))
            del notes[mark:]
            reduced = _corners(g0, ab, notes)
            if reduced is not None:
                g, box = _relax_integers(*reduced, notes)
                ok = prover.prove(g, box)
            if not ok:
                notes[:] = tried
    except _GiveUp as exc:
        return SumsOutcome(False, method, f"not reduced: {exc}")
    reduction = "; ".join(notes)
    if not ok:
        return SumsOutcome(False, method, "not proved after: " + reduction)
    return SumsOutcome(
        True,
        f"{_method(notes)}: proved for every value in the stated ranges",
        reduction,
        covered=region(step.domain.ranges),
    )
