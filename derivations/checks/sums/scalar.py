"""The scalar stage of the sums route: prove ``g ≥ 0`` on a box of real variables (an unbounded ``[lo, ∞)`` end
allowed) by SymPy's assumptions, Arb enclosures, monotone elimination (``u = 1/k`` at an unbounded end), a
positive factor or denominator set aside, the tangent of a convex function, or interval branch and bound.
Every step it takes is written to ``notes``; it proves or says "not proved", never refutes."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ... import intervals
from ...ledger import Domain
from ..interval import certify_nonnegative

Box = dict[sp.Symbol, tuple[sp.Expr, sp.Expr]]


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
        if not self.strict and self.identity(g, box, depth):
            return True
        for attempt in (self._common, self._monotone, self._factors, self._fraction):
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

    def identity(self, g: sp.Expr, box: Box, depth: int) -> bool:
        """``g ≡ 0`` on the box, so ``g ≥ 0``: SymPy's identities of powers of positive bases (``(ab)^e = a^e b^e``,
        ``(a^b)^c = a^{bc}``, sums of exponents) hold with every variable in the open range above its finite lower
        end (``x = lo + y``, ``y > 0``: each base's sign is then SymPy's own deduction, never assumed); each face
        ``x = lo`` the box closes is then proved by this prover on its own (the identity may fail there)."""
        # it is for powers cancelling one another (two or more with a variable exponent); a lone one is left to the
        # other steps, which need the time
        if sum(1 for p_ in g.atoms(sp.Pow) if p_.exp.free_symbols) < 2 or not all(
            lo.is_finite for lo, _ in box.values()
        ):
            return False
        # a prefilter, never a proof: g at one inside point, 30 digits, visibly nonzero ⇒ not an identity
        pt = {s_: (lo + hi) / 3 if hi.is_finite else lo + sp.Rational(7, 3) for s_, (lo, hi) in box.items()}
        try:
            if abs(complex(g.xreplace(pt).evalf(30))) > 1e-12:
                return False
        except (TypeError, ValueError, ZeroDivisionError):
            pass  # not evaluable there: the symbolic attempt decides
        rep = {s_: lo + sp.Dummy(f"{s_}_up", positive=True) for s_, (lo, _) in box.items()}
        h = g.xreplace(rep)

        def exps(e: sp.Expr) -> sp.Expr:  # each exponent in one canonical form (a rational function, cancelled)
            return e.replace(lambda x: x.is_Pow and x.exp.free_symbols, lambda x: x.base ** sp.cancel(x.exp))

        try:
            forms = [exps(sp.powsimp(sp.powdenest(sp.expand_power_base(h))))]
            forms.append(exps(sp.powsimp(exps(forms[-1]))))
        except Exception:  # a form SymPy cannot build: not seen to be an identity
            return False
        if not any(_is_zero(f) for f in forms):
            return False
        mark = len(self.notes)
        self.note(f"{_show(g)} ≡ 0 for every variable above its lower end (SymPy: powers of positive bases combined)")
        for s_, (lo, hi) in box.items():
            if lo == hi:
                continue
            rest = {x_: r_ for x_, r_ in box.items() if x_ != s_}
            self.note(f"on the face {_show(s_)} = {lo}")
            if not self.prove(g.subs(s_, lo), rest, depth + 1):
                del self.notes[mark:]
                return False
        return True

    def _positive(self, e: sp.Expr, box: Box) -> bool:
        """``e > 0`` on the box, by SymPy's assumptions or one Arb enclosure (no subdivision)."""
        if e.is_positive:
            return True
        for f in _forms(e)[:2]:
            v = _enclose(f, box)
            if v is not None and v.lo > 0:
                return True
        return False

    def _common(self, g: sp.Expr, box: Box, depth: int) -> bool | None:
        """``g = P·h`` once the powers of products are split and the common factors taken out (``factor_terms``: an
        identity), ``P`` a power of a variable SymPy knows ≥ 0 (``≥ 0`` claims only): prove ``h``; None: no such P."""
        if self.strict or not isinstance(g, sp.Add):
            return None
        try:
            h = sp.factor_terms(sp.expand_power_base(g))
        except Exception:  # a form SymPy cannot build: this step does not apply
            return None
        if not isinstance(h, sp.Mul) or not any(self._nonneg_power(f) for f in h.args):
            return None
        rest = sp.Mul(*[f for f in h.args if not self._nonneg_power(f)])
        if any(p_.exp.free_symbols for p_ in rest.atoms(sp.Pow)) and rest.has(sp.exp):
            # both sides > 0 with powers against an exponential: in logarithms first (_in_logs)
            mark = len(self.notes)
            self.note(f"the factors of {_show(h)} other than {_show(rest)} are ≥ 0 (powers of variables ≥ 0)")
            if _in_logs(sp.expand(rest), box, self):
                return True
            del self.notes[mark:]
        return self._factors(h, box, depth)

    @staticmethod
    def _nonneg_power(f: sp.Expr) -> bool:
        """``f = b^e`` with ``b ≥ 0`` by SymPy's assumptions and ``e`` real: ``f ≥ 0`` wherever it is defined."""
        return bool(f.is_Pow and f.base.is_nonnegative and f.exp.is_real and f.base.is_Symbol)

    def _factors(self, g: sp.Expr, box: Box, depth: int) -> bool | None:
        """``g = P·h`` with every factor of ``P`` proved positive (or, for a ``≥ 0`` claim, a power of a variable
        SymPy knows ≥ 0): prove ``h`` (None: no such factor)."""
        if not isinstance(g, sp.Mul):
            return None
        keep = [f for f in g.args if not (self._positive(f, box) or (not self.strict and self._nonneg_power(f)))]
        if len(keep) == len(g.args):
            return None
        h = sp.Mul(*keep)
        self.note(f"the factors of {_show(g)} other than {_show(h)} are ≥ 0 on the box (SymPy/Arb)")
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


def _in_logs(g: sp.Expr, box: Mapping, prover: _Prover) -> bool:
    """``g = big − small`` (its terms split by sign) with ``big, small > 0`` proved on the box (SymPy/Arb): ``g ≥ 0``
    iff ``log big − log small ≥ 0`` (log is strictly increasing on (0, ∞)), each logarithm written out only where
    the rule is proved there: ``log e^u = u``, ``log b^e = e·log b`` for ``b > 0``, ``log(ab) = log a + log b`` for
    ``a, b > 0``. A product against the exponential of a sum, ``G^k ≤ e^{kM}``, becomes ``k(M − log G) ≥ 0``."""
    if not isinstance(g, sp.Add):
        return False
    big = sp.Add(*[t for t in g.args if not t.could_extract_minus_sign()])
    small = sp.Add(*[-t for t in g.args if t.could_extract_minus_sign()])

    def pos(e: sp.Expr) -> bool:
        """``e > 0`` on the box: e^u; b^e with b > 0; a product of such; else SymPy or one Arb enclosure."""
        if isinstance(e, sp.exp) or (e.is_Pow and e.base is sp.E):
            return True
        if e.is_Pow and pos(e.base):
            return True
        if isinstance(e, sp.Mul) and all(pos(f) for f in e.args):
            return True
        return prover._positive(e, box)

    if big == 0 or small == 0 or not (pos(big) and pos(small)):
        return False

    def lg(e: sp.Expr) -> sp.Expr:
        if isinstance(e, sp.exp):
            return e.args[0]
        if e.is_Pow and e.base is sp.E:
            return e.exp
        if e.is_Pow and pos(e.base):
            return e.exp * lg(e.base)
        if isinstance(e, sp.Mul) and all(pos(f) for f in e.args):
            return sp.Add(*[lg(f) for f in e.args])
        return sp.log(e)

    lb, ls = lg(big), lg(small)
    if all(isinstance(v, sp.log) and v.args[0] == e for v, e in ((lb, big), (ls, small))):
        return False  # nothing written out: the same claim
    h = sp.factor_terms(lb - ls)
    mark = len(prover.notes)
    prover.note(
        f"in logarithms: both sides of {_show(big)} ≥ {_show(small)} are > 0 on the box (SymPy/Arb), so the claim is "
        f"{_show(h)} ≥ 0"
    )
    if prover.prove(h, dict(box)):
        return True
    del prover.notes[mark:]
    return False
