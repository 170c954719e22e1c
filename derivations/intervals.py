"""Rigorous interval evaluation of SymPy expressions on Arb (python-flint): ``[a, b] ∋ expr(box)``.

``interval_eval(expr, box)`` returns an ``Interval`` that encloses every value of ``expr`` for
parameters in ``box`` (a mapping symbol → ``(lo, hi)`` or ``Interval``). Rational constants are
enclosed exactly (``p/q`` as an Arb ball around the exact quotient), never rounded to the nearest
float. Anything the evaluator does not know raises ``NotEnclosable``: a bound is never guessed.

Why Arb: every endpoint below is the lower (upper) end of an Arb ball, and an Arb ball always
contains the true value. ``mpmath.iv`` does not guarantee that: its ``exp`` at
``x = 3893924827815215/2^50`` (53 bits) returns an upper end 2.5e-19 *below* ``e^x`` (mpmath
issue 1181), so a "proof" resting on it could be false (``tests/test_engine.py`` keeps the case).

Why endpoint pairs and not one ball per box: a ball is a midpoint and a radius, and the wide boxes
of branch and bound would be wrapped badly (``[0, 100]`` as ``50 ± 50`` through ``exp`` gives a
negative lower end). Here an interval is a pair of exact Arb points (or ±∞); each operation applies
Arb to exact endpoint values (monotone pieces only), so a wide box is enclosed as tightly as
``mpmath.iv`` would, and half-infinite boxes keep working. Precision is Arb's ``ctx.prec``
(``iv_prec(bits)`` sets it for a block).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Mapping
from typing import Any

import mpmath
import sympy as sp
from flint import arb, ctx, fmpq, fmpz

INF = mpmath.inf
_POS = arb.pos_inf()
_NEG = arb.neg_inf()
_ZERO = arb(0)
_ONE = arb(1)


class NotEnclosable(ValueError):
    """The expression holds an operation the interval evaluator cannot enclose."""


class Undefined(NotEnclosable):
    """The expression may be undefined somewhere on the box: a ``log`` whose argument reaches ≤ 0, a
    ``sqrt`` or non-integer power whose base reaches < 0. A box that may be undefined is never certified
    (``[−∞, log hi]`` for the log of ``[lo ≤ 0, hi]`` would make ``log(x + 1) ≤ 1`` on ``[−2, 1]`` "true")."""


_DEFINED = contextvars.ContextVar("intervals_defined", default=False)


@contextlib.contextmanager
def assume_defined(on: bool = True):
    """Within the block, the expressions enclosed are *known* defined on every box they meet (their
    definedness conditions were proved over the domain: ``checks.wellposed``), so the part of an
    argument's enclosure outside a function's domain is overestimation and is clipped: ``log`` of
    ``[lo ≤ 0, hi]`` is ``[−∞, log hi]``, ``sqrt`` of ``[lo < 0, hi]`` is ``sqrt([0, hi])``. Outside
    such a block both raise ``Undefined``. An argument certainly outside the domain raises always."""
    token = _DEFINED.set(on)
    try:
        yield
    finally:
        _DEFINED.reset(token)


def _lower(ball: arb) -> arb:
    return _NEG if ball.is_nan() else ball.lower()


def _upper(ball: arb) -> arb:
    return _POS if ball.is_nan() else ball.upper()


def _to_mpf(x: arb) -> Any:
    """An exact Arb point as an ``mpmath.mpf`` of the same value (no rounding)."""
    if not x.is_finite():
        return INF if x > 0 else -INF
    man, exp = x.man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def _mul_end(x: arb, y: arb) -> tuple[arb, arb]:
    """Enclosure (lower, upper) of the product of two endpoints; 0·∞ is 0 (an unbounded endpoint
    multiplied by an exact zero contributes nothing to the product's range)."""
    if x.is_zero() or y.is_zero():
        return _ZERO, _ZERO
    p = x * y
    return _lower(p), _upper(p)


class Interval:
    """A closed interval ``[lo, hi]`` with exact Arb endpoints (``±∞`` allowed)."""

    __slots__ = ("hi", "lo")

    def __init__(self, lo: arb, hi: arb):
        if lo.is_nan() or hi.is_nan():
            lo, hi = _NEG, _POS
        self.lo, self.hi = lo, hi

    # mpmath-compatible endpoints (exact)
    @property
    def a(self) -> Any:
        return _to_mpf(self.lo)

    @property
    def b(self) -> Any:
        return _to_mpf(self.hi)

    def __repr__(self) -> str:
        return f"[{mpmath.nstr(self.a, 17)}, {mpmath.nstr(self.b, 17)}]"

    def contains(self, x: Any) -> bool:
        """``lo ≤ x ≤ hi`` decided exactly (``x`` an exact rational or a SymPy number)."""
        v = _exact_arb(x)
        return bool(self.lo <= v) and bool(v <= self.hi)

    def __add__(self, other: Any) -> Interval:
        o = other if type(other) is Interval else _as_interval(other)
        return Interval(_lower(self.lo + o.lo), _upper(self.hi + o.hi))

    __radd__ = __add__

    def __neg__(self) -> Interval:
        return Interval(-self.hi, -self.lo)

    def __sub__(self, other: Any) -> Interval:
        return self + (-_as_interval(other))

    def __rsub__(self, other: Any) -> Interval:
        return _as_interval(other) + (-self)

    def __mul__(self, other: Any) -> Interval:
        o = other if type(other) is Interval else _as_interval(other)
        # a point factor (an exact constant) gives each endpoint product twice: computing it once
        # leaves min and max, hence the enclosure, exactly as with all four products
        xs = (self.lo,) if self.lo == self.hi else (self.lo, self.hi)
        ys = (o.lo,) if o.lo == o.hi else (o.lo, o.hi)
        los, his = [], []
        for x in xs:
            x_zero = x.is_zero()
            for y in ys:
                if x_zero or y.is_zero():  # _mul_end inlined (the hottest loop of branch and bound)
                    los.append(_ZERO)
                    his.append(_ZERO)
                    continue
                p = x * y
                if p.is_nan():
                    los.append(_NEG)
                    his.append(_POS)
                else:
                    los.append(p.lower())
                    his.append(p.upper())
        return Interval(min(los), max(his))

    __rmul__ = __mul__

    def reciprocal(self) -> Interval:
        lo, hi = self.lo, self.hi
        if lo.is_zero() and hi.is_zero():
            raise ZeroDivisionError("reciprocal of [0, 0]")
        if lo > 0 or hi < 0:
            return Interval(_lower(_ONE / hi), _upper(_ONE / lo))
        if lo.is_zero():
            return Interval(_lower(_ONE / hi), _POS)
        if hi.is_zero():
            return Interval(_NEG, _upper(_ONE / lo))
        return Interval(_NEG, _POS)

    def __truediv__(self, other: Any) -> Interval:
        return self * _as_interval(other).reciprocal()

    def __rtruediv__(self, other: Any) -> Interval:
        return _as_interval(other) * self.reciprocal()

    def __abs__(self) -> Interval:
        if self.lo >= 0:
            return self
        if self.hi <= 0:
            return -self
        return Interval(_ZERO, max(-self.lo, self.hi))

    def __pow__(self, n: int) -> Interval:
        if not isinstance(n, int):
            raise NotEnclosable("Interval ** non-integer: use interval_eval")
        if n < 0:
            return (self**-n).reciprocal()
        if n == 0:
            return Interval(_ONE, _ONE)
        base = abs(self) if n % 2 == 0 else self
        return _monotone(lambda x: x**n, base, _NEG if n % 2 else _ZERO, _POS)


def _as_interval(x: Any) -> Interval:
    if isinstance(x, Interval):
        return x
    v = _exact_arb(x)
    return Interval(_lower(v), _upper(v))


def _exact_arb(x: Any) -> arb:
    """An Arb ball containing the number ``x`` (int, exact SymPy rational, Float, mpf, float)."""
    if isinstance(x, arb):
        return x
    if isinstance(x, bool):
        raise TypeError("a flag is not a number")
    if isinstance(x, int):
        return arb(fmpz(x))
    if isinstance(x, float):
        return arb(x)  # a float is its own exact binary value
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            return _POS if x > 0 else _NEG
        man, exp = x.man_exp
        return arb(fmpz(int(man))) * arb(2) ** int(exp)
    c = sp.sympify(x)
    if c is sp.oo:
        return _POS
    if c is -sp.oo:
        return _NEG
    if c.is_Integer:
        return arb(fmpz(int(c)))
    if c.is_Rational:
        return arb(fmpq(int(c.p), int(c.q)))
    if c.is_Float:
        return _exact_arb(mpmath.mpf(c))
    raise NotEnclosable(f"not an exact number: {x!r}")


def _monotone(fn, x: Interval, at_neg: arb, at_pos: arb, increasing: bool = True) -> Interval:
    """``fn`` increasing (or decreasing) on ``x``: Arb at each exact endpoint; ``at_neg``/``at_pos``
    are the limits of ``fn`` at −∞/+∞ for an unbounded endpoint."""

    lo, hi = x.lo, x.hi
    f_lo = fn(lo) if lo.is_finite() else (at_pos if lo > 0 else at_neg)
    f_hi = fn(hi) if hi.is_finite() else (at_pos if hi > 0 else at_neg)
    if increasing:
        return Interval(_lower(f_lo), _upper(f_hi))
    return Interval(_lower(f_hi), _upper(f_lo))


def to_interval(lo: Any, hi: Any | None = None) -> Interval:
    """An interval enclosing ``[lo, hi]`` given numbers (exact rationals enclosed outward)."""
    if hi is None:
        hi = lo
    return Interval(_lower(_const_ball(lo)), _upper(_const_ball(hi)))


to_iv = to_interval  # the name used before the Arb back end


def _const_ball(c: Any) -> arb:
    """An Arb ball containing the SymPy constant ``c`` (numbers, π, e, or a closed-form constant)."""
    try:
        return _exact_arb(c)
    except NotEnclosable:
        pass
    e = _eval(sp.sympify(c), {})
    if e.lo == e.hi:
        return e.lo
    return e.lo.union(e.hi)


def _const(c: sp.Expr) -> Interval | None:
    c = sp.sympify(c)
    if c is sp.pi:
        p = arb.pi()
        return Interval(_lower(p), _upper(p))
    if c is sp.E:
        p = arb.const_e()
        return Interval(_lower(p), _upper(p))
    try:
        return _as_interval(c)
    except (NotEnclosable, TypeError):
        return None


def _hull(lo: arb, hi: arb) -> Interval:
    return Interval(lo, hi)


def exp(x: Interval) -> Interval:
    return _monotone(lambda y: y.exp(), x, _ZERO, _POS)


def log(x: Interval) -> Interval:
    if x.hi <= 0:
        raise Undefined(f"log of a nonpositive interval {x}")
    if x.lo <= 0:
        if not _DEFINED.get():
            raise Undefined(f"log of an interval reaching ≤ 0: {x}")
        return Interval(_NEG, _upper(x.hi.log()) if x.hi.is_finite() else _POS)
    return _monotone(lambda y: y.log(), x, _NEG, _POS)


def sqrt(x: Interval) -> Interval:
    if x.hi < 0:
        raise Undefined(f"sqrt of a negative interval {x}")
    if x.lo < 0:
        if not _DEFINED.get():
            raise Undefined(f"sqrt of an interval reaching < 0: {x}")
        x = Interval(_ZERO, x.hi)
    return _monotone(lambda y: y.sqrt(), x, _ZERO, _POS)


def _pow(base: Interval, expo: sp.Expr, box: Mapping) -> Interval:
    if expo.is_Integer:
        return base ** int(expo)
    if expo == sp.Rational(1, 2):
        return sqrt(base)
    if expo == sp.Rational(-1, 2):
        return sqrt(base).reciprocal()
    return _pow_ex(base, _eval(expo, box), expo)


def _pow_ex(base: Interval, ex: Interval, expo: sp.Expr) -> Interval:
    """``base^ex`` for a non-integer exponent enclosed by ``ex`` (``expo`` only names it in errors)."""
    if base.lo < 0:
        if base.hi < 0 or not _DEFINED.get():
            raise Undefined(f"power with possibly negative base {base} and non-integer exponent {expo}")
        base = Interval(_ZERO, base.hi)  # known defined: the negative part is overestimation
    if base.lo.is_zero():
        # x^e on [0, hi] with e > 0: increasing in x, so the maximum is at x = hi for e at an end
        if ex.lo > 0 and base.hi.is_zero():
            return Interval(_ZERO, _ZERO)
        if ex.lo > 0:
            top = Interval(base.hi, base.hi)
            hi = max(exp(Interval(ex.lo, ex.lo) * log(top)).hi, exp(Interval(ex.hi, ex.hi) * log(top)).hi)
            return Interval(_ZERO, hi)
        raise Undefined(f"power 0^{expo} with exponent not certainly positive")
    return exp(ex * log(base))


def _sinh(x: Interval) -> Interval:
    return _monotone(lambda y: y.sinh(), x, _NEG, _POS)


def _cosh(x: Interval) -> Interval:
    return _monotone(lambda y: y.cosh(), abs(x), _ONE, _POS)


def _tanh(x: Interval) -> Interval:
    return _monotone(lambda y: y.tanh(), x, -_ONE, _ONE)


def _periodic(x: Interval, f, offset: arb, value_at) -> Interval:
    """``f`` = sin or cos on ``x``: the hull of the values at the two ends and at every critical point
    ``offset + kπ`` (value ``value_at(k)`` = ±1) that may lie in ``x`` (a doubtful one is included: that
    only widens the enclosure); a box of width ≥ 2π, or unbounded, gives [−1, 1]."""
    lo, hi = x.lo, x.hi
    if not (lo.is_finite() and hi.is_finite()):
        return Interval(-_ONE, _ONE)
    pi = arb.pi()
    if bool((hi - lo) >= 2 * pi) or not bool((hi - lo) < 2 * pi):
        return Interval(-_ONE, _ONE)
    a, b = f(lo), f(hi)
    los, his = [_lower(a), _lower(b)], [_upper(a), _upper(b)]
    k_lo = ((lo - offset) / pi).lower().floor()
    k_hi = ((hi - offset) / pi).upper().ceil()
    k = int(k_lo.unique_fmpz()) if k_lo.is_finite() else 0
    k_end = int(k_hi.unique_fmpz()) if k_hi.is_finite() else k + 3
    for kk in range(k, k_end + 1):
        c = offset + kk * pi
        if bool(c.upper() >= lo) and bool(c.lower() <= hi):
            v = arb(value_at(kk))
            los.append(v)
            his.append(v)
    return Interval(max(min(los), -_ONE), min(max(his), _ONE))


def _sin(x: Interval) -> Interval:
    return _periodic(x, lambda y: y.sin(), arb.pi() / 2, lambda k: 1 if k % 2 == 0 else -1)


def _cos(x: Interval) -> Interval:
    return _periodic(x, lambda y: y.cos(), _ZERO, lambda k: 1 if k % 2 == 0 else -1)


def _atan(x: Interval) -> Interval:
    half = arb.pi() / 2
    return _monotone(lambda y: y.atan(), x, _lower(-half), _upper(half))


def _asinh(x: Interval) -> Interval:
    return _monotone(lambda y: y.asinh(), x, _NEG, _POS)


def _erf(x: Interval) -> Interval:
    return _monotone(lambda y: y.erf(), x, -_ONE, _ONE)


def _clipped(x: Interval, lo: arb | None, hi: arb | None, name: str) -> Interval:
    """``x`` within a function's closed domain ``[lo, hi]``: ``Undefined`` if it may leave it, unless the
    expression is known defined (``assume_defined``: the part outside is overestimation, clipped)."""
    out_lo = lo is not None and bool(x.lo < lo)
    out_hi = hi is not None and bool(x.hi > hi)
    if not (out_lo or out_hi):
        return x
    if (lo is not None and bool(x.hi < lo)) or (hi is not None and bool(x.lo > hi)) or not _DEFINED.get():
        raise Undefined(f"{name} of an interval leaving its domain: {x}")
    return Interval(lo if out_lo else x.lo, hi if out_hi else x.hi)


def _asin(x: Interval) -> Interval:
    return _monotone(lambda y: y.asin(), _clipped(x, -_ONE, _ONE, "asin"), _NEG, _POS)


def _acos(x: Interval) -> Interval:
    return _monotone(lambda y: y.acos(), _clipped(x, -_ONE, _ONE, "acos"), _NEG, _POS, increasing=False)


def _acosh(x: Interval) -> Interval:
    return _monotone(lambda y: y.acosh(), _clipped(x, _ONE, None, "acosh"), _NEG, _POS)


def _atanh(x: Interval) -> Interval:
    if not (bool(x.lo > -_ONE) and bool(x.hi < _ONE)):
        raise Undefined(f"atanh of an interval reaching ±1: {x}")
    return _monotone(lambda y: y.atanh(), x, _NEG, _POS)


def _max(args: list[Interval]) -> Interval:
    return Interval(max(a.lo for a in args), max(a.hi for a in args))


def _min(args: list[Interval]) -> Interval:
    return Interval(min(a.lo for a in args), min(a.hi for a in args))


_MORE_UNARY = {
    sp.sin: _sin,
    sp.cos: _cos,
    sp.atan: _atan,
    sp.asinh: _asinh,
    sp.asin: _asin,
    sp.acos: _acos,
    sp.acosh: _acosh,
    sp.atanh: _atanh,
    sp.erf: _erf,
}


def interval_eval(expr: sp.Expr, box: Mapping[sp.Symbol, Any]) -> Interval:
    """Enclosure of ``expr`` over ``box`` (symbol → ``Interval`` or ``(lo, hi)``)."""
    ibox = {s: (v if isinstance(v, Interval) else to_interval(*v)) for s, v in box.items()}
    return compiled(sp.sympify(expr))(ibox)


#: compiled enclosures, per expression (SymPy ``==`` tells 2.0 from 2, so equal keys compile alike)
_COMPILED: dict[sp.Expr, Any] = {}


def compiled(expr: sp.Expr):
    """``f(box) -> Interval``, the same enclosure as ``_eval(expr, box)`` operation for operation.

    Branch and bound encloses one expression on thousands of boxes; walking the SymPy tree each time
    (type dispatch, constants re-converted to Arb, error messages printed for nodes that cannot be
    enclosed) costs far more than the Arb arithmetic. The tree is walked once here into closures.
    Errors are raised when the closure is *called*, in ``_eval``'s order, so a caller sees the same
    exception (``ZeroDivisionError`` before a later ``NotEnclosable``) on the same box.
    """
    fn = _COMPILED.get(expr)
    if fn is None:
        if len(_COMPILED) > 20_000:  # a bound on memory: long sessions compile many expressions
            _COMPILED.clear()
        fn = _COMPILED[expr] = _compile(expr)
    return fn


def _raiser(exc_type: type, msg: Any):
    def f(box: Mapping) -> Interval:
        raise exc_type(msg() if callable(msg) else msg)

    return f


def _compile_const(e: sp.Expr):
    """A constant atom: ``_const`` per working precision (π or a rational rounds at ``ctx.prec``)."""
    by_prec: dict[int, Any] = {}

    def f(box: Mapping) -> Interval:
        p = ctx.prec
        if p not in by_prec:
            by_prec[p] = _const(e)
        return by_prec[p]

    return f


_UNARY = {sp.exp: exp, sp.sinh: _sinh, sp.cosh: _cosh, sp.tanh: _tanh, sp.Abs: abs, **_MORE_UNARY}


def _compile(e: sp.Expr):
    """``f(box) -> Interval`` for ``e``: a straight-line program of its distinct subexpressions.

    The nodes are listed in post-order (children left to right, then the node), each distinct subexpression
    once: a repeated one (``exp(−2t/τ)`` in a derivative, many times) is enclosed once per box and its
    enclosure reused, the same value the tree walk computes at each occurrence (every operation is a function
    of its operands' enclosures). The first node that raises is the one the tree walk raises at: the walk
    meets every node in this order, and a node met again was enclosed without error the first time."""
    prog: list = []
    slot: dict[sp.Expr, int] = {}
    _emit(e, prog, slot)
    if len(prog) == 1:
        only = prog[0]
        return lambda box: only((), box)
    steps = tuple(prog)

    def run(box: Mapping) -> Interval:
        vals: list = []
        push = vals.append
        for st in steps:
            push(st(vals, box))
        return vals[-1]

    return run


def _emit(e: sp.Expr, prog: list, slot: dict) -> int:  # noqa: C901 - one branch per node type, mirroring _eval
    """Append the program of ``e`` (its operands first) to ``prog``; the slot holding its enclosure.

    Each step is ``step(vals, box) -> Interval``, ``vals`` the enclosures of the earlier slots."""
    if e in slot:
        return slot[e]

    def put(step) -> int:
        slot[e] = len(prog)
        prog.append(step)
        return slot[e]

    if e.is_number and e.is_Atom:
        if _const(e) is not None:  # a known constant (whether it is does not depend on the precision)
            const = _compile_const(e)
            return put(lambda vals, box: const(box))
    if isinstance(e, (sp.Symbol, sp.Indexed)):
        kind = "indexed" if isinstance(e, sp.Indexed) else "symbol"

        def sym(vals: list, box: Mapping, e=e) -> Interval:
            try:
                return box[e]
            except KeyError:
                raise NotEnclosable(f"{kind} {e} has no range") from None

        return put(sym)
    if isinstance(e, (sp.Add, sp.Mul)):
        idx = [_emit(a, prog, slot) for a in e.args]
        first, rest = idx[0], tuple(idx[1:])
        if isinstance(e, sp.Add):
            if len(rest) == 1:
                (second,) = rest
                return put(lambda vals, box: vals[first] + vals[second])

            def add(vals: list, box: Mapping) -> Interval:
                out = vals[first]
                for j in rest:
                    out = out + vals[j]
                return out

            return put(add)
        if len(rest) == 1:
            (second,) = rest
            return put(lambda vals, box: vals[first] * vals[second])

        def mul(vals: list, box: Mapping) -> Interval:
            out = vals[first]
            for j in rest:
                out = out * vals[j]
            return out

        return put(mul)
    if isinstance(e, sp.Pow):
        base, expo = e.args
        if base is sp.E:
            ix = _emit(expo, prog, slot)
            return put(lambda vals, box: exp(vals[ix]))
        ib = _emit(base, prog, slot)
        if expo.is_Integer:
            n = int(expo)
            return put(lambda vals, box: vals[ib] ** n)
        if expo == sp.Rational(1, 2):
            return put(lambda vals, box: sqrt(vals[ib]))
        if expo == sp.Rational(-1, 2):
            return put(lambda vals, box: sqrt(vals[ib]).reciprocal())
        ix = _emit(expo, prog, slot)
        return put(lambda vals, box: _pow_ex(vals[ib], vals[ix], expo))
    for cls, op in _UNARY.items():
        if isinstance(e, cls):
            ia = _emit(e.args[0], prog, slot)
            return put(lambda vals, box, op=op, ia=ia: op(vals[ia]))
    if isinstance(e, sp.log):
        if len(e.args) != 1:
            fail = _raiser(NotEnclosable, "log with a base")
            return put(lambda vals, box: fail(box))
        ia = _emit(e.args[0], prog, slot)
        return put(lambda vals, box: log(vals[ia]))
    if isinstance(e, (sp.Max, sp.Min)):
        idx = tuple(_emit(a, prog, slot) for a in e.args)
        op = _max if isinstance(e, sp.Max) else _min
        return put(lambda vals, box: op([vals[j] for j in idx]))
    if isinstance(e, (sp.Sum, sp.Product)):
        done = e.doit()
        if done.has(sp.Sum, sp.Product):
            fail = _raiser(NotEnclosable, lambda: f"{type(e).__name__} with symbolic limits: {e}")
            return put(lambda vals, box: fail(box))
        slot[e] = _emit(done, prog, slot)
        return slot[e]
    if e.is_number:
        expanded = sp.expand_func(e)
        if e != expanded:
            slot[e] = _emit(expanded, prog, slot)
            return slot[e]
        fail = _raiser(NotEnclosable, lambda: f"no interval rule for the constant {e}")
        return put(lambda vals, box: fail(box))
    fail = _raiser(NotEnclosable, lambda: f"cannot enclose {type(e).__name__}: {e}")
    return put(lambda vals, box: fail(box))


def _eval(e: sp.Expr, box: Mapping) -> Interval:
    if e.is_number and e.is_Atom:
        c = _const(e)
        if c is not None:
            return c
    if isinstance(e, (sp.Symbol, sp.Indexed)):
        if e in box:
            return box[e]
        raise NotEnclosable(f"{'indexed' if isinstance(e, sp.Indexed) else 'symbol'} {e} has no range")
    if isinstance(e, sp.Add):
        out = _eval(e.args[0], box)
        for a in e.args[1:]:
            out = out + _eval(a, box)
        return out
    if isinstance(e, sp.Mul):
        out = _eval(e.args[0], box)
        for a in e.args[1:]:
            out = out * _eval(a, box)
        return out
    if isinstance(e, sp.Pow):
        base, expo = e.args
        if base is sp.E:
            return exp(_eval(expo, box))
        return _pow(_eval(base, box), expo, box)
    if isinstance(e, sp.exp):
        return exp(_eval(e.args[0], box))
    if isinstance(e, sp.log):
        if len(e.args) != 1:
            raise NotEnclosable("log with a base")
        return log(_eval(e.args[0], box))
    if isinstance(e, sp.sinh):
        return _sinh(_eval(e.args[0], box))
    if isinstance(e, sp.cosh):
        return _cosh(_eval(e.args[0], box))
    if isinstance(e, sp.tanh):
        return _tanh(_eval(e.args[0], box))
    if isinstance(e, sp.Abs):
        return abs(_eval(e.args[0], box))
    for cls, op in _MORE_UNARY.items():
        if isinstance(e, cls):
            return op(_eval(e.args[0], box))
    if isinstance(e, sp.Max):
        return _max([_eval(a, box) for a in e.args])
    if isinstance(e, sp.Min):
        return _min([_eval(a, box) for a in e.args])
    if isinstance(e, (sp.Sum, sp.Product)):
        done = e.doit()
        if done.has(sp.Sum, sp.Product):
            raise NotEnclosable(f"{type(e).__name__} with symbolic limits: {e}")
        return _eval(done, box)
    if e.is_number:
        # e.g. sqrt(2)*exp(3) built from known atoms that reached here unevaluated
        if e != sp.expand_func(e):
            return _eval(sp.expand_func(e), box)
        raise NotEnclosable(f"no interval rule for the constant {e}")
    raise NotEnclosable(f"cannot enclose {type(e).__name__}: {e}")


@contextlib.contextmanager
def iv_prec(bits: int):
    """Temporarily set Arb's working precision (bits) for the enclosures computed in the block, and
    ``mpmath.iv``'s too (callers that still use it for exactly rounded arithmetic, never for exp/log)."""
    old, old_iv = ctx.prec, mpmath.iv.prec
    ctx.prec = bits
    mpmath.iv.prec = bits
    try:
        yield
    finally:
        ctx.prec = old
        mpmath.iv.prec = old_iv


def width(x: Interval) -> Any:
    return x.b - x.a
