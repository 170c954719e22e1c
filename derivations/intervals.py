"""Outward-rounded interval evaluation of SymPy expressions with ``mpmath.iv``.

``interval_eval(expr, box)`` returns an ``iv.mpf`` that encloses every value of ``expr`` for
parameters in ``box`` (a mapping symbol → (lo, hi)). Rational constants are enclosed exactly
(``p/q`` computed in interval arithmetic), never rounded to the nearest float. Anything the
evaluator does not know raises ``NotEnclosable``: a bound is never produced by guessing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import mpmath
import sympy as sp
from mpmath import iv

INF = mpmath.inf


class NotEnclosable(ValueError):
    """The expression holds an operation the interval evaluator cannot enclose."""


def to_iv(lo: Any, hi: Any | None = None) -> Any:
    """An interval enclosing ``[lo, hi]`` given SymPy numbers (exact rationals enclosed outward)."""
    if hi is None:
        hi = lo
    return iv.mpf([_lower(lo).a, _upper(hi).b])


def _const(c: sp.Expr) -> Any:
    c = sp.sympify(c)
    if c is sp.oo:
        return iv.mpf([INF, INF])
    if c is -sp.oo:
        return iv.mpf([-INF, -INF])
    if c.is_Integer:
        return iv.mpf(int(c))
    if c.is_Rational:
        return iv.mpf(int(c.p)) / iv.mpf(int(c.q))
    if c.is_Float:
        return iv.mpf(mpmath.mpf(c))  # a Float is its own exact binary value
    if c is sp.pi:
        return iv.pi
    if c is sp.E:
        return iv.e
    return None


def _lower(x: Any) -> Any:
    e = _const(x)
    if e is None:
        e = interval_eval(sp.sympify(x), {})
    return e


_upper = _lower


def _hull(lo: Any, hi: Any) -> Any:
    return iv.mpf([lo, hi])


def _pow(base: Any, expo: sp.Expr, box: Mapping) -> Any:
    if expo.is_Integer:
        e = int(expo)
        if e >= 0:
            return base**e
        return 1 / (base ** (-e))
    if expo == sp.Rational(1, 2):
        return _sqrt(base)
    if expo == sp.Rational(-1, 2):
        return 1 / _sqrt(base)
    ex = interval_eval(expo, box)
    if base.a < 0:
        raise NotEnclosable(f"power with possibly negative base {base} and non-integer exponent {expo}")
    if base.a == 0:
        # x^e on [0, hi]: monotone in x for fixed e; enclose via endpoints, e known positive
        if ex.a > 0:
            hi = max((iv.mpf(base.b) ** iv.mpf(ex.a)).b, (iv.mpf(base.b) ** iv.mpf(ex.b)).b)
            return _hull(0, hi)
        raise NotEnclosable(f"power 0^{expo} with exponent not certainly positive")
    return iv.exp(ex * iv.log(base))


def _sqrt(x: Any) -> Any:
    if x.b < 0:
        raise NotEnclosable(f"sqrt of a negative interval {x}")
    if x.a < 0:
        x = _hull(0, x.b)
    return iv.sqrt(x)


def _log(x: Any) -> Any:
    if x.b <= 0:
        raise NotEnclosable(f"log of a nonpositive interval {x}")
    if x.a <= 0:
        return _hull(-INF, iv.log(iv.mpf(x.b)).b)
    return iv.log(x)


def _monotone(fn, x: Any, increasing: bool = True) -> Any:
    lo, hi = fn(iv.mpf(x.a)), fn(iv.mpf(x.b))
    return _hull(lo.a, hi.b) if increasing else _hull(hi.a, lo.b)


def _sinh(x: Any) -> Any:
    return _monotone(lambda y: (iv.exp(y) - iv.exp(-y)) / 2, x)


def _cosh(x: Any) -> Any:
    m = abs(x)
    return _monotone(lambda y: (iv.exp(y) + iv.exp(-y)) / 2, m)


def _tanh(x: Any) -> Any:
    def f(y):
        if y.a > 0:
            return 1 - 2 / (iv.exp(2 * y) + 1)
        return 2 / (1 + iv.exp(-2 * y)) - 1

    return _monotone(f, x)


def _max(args: list) -> Any:
    return _hull(max(a.a for a in args), max(a.b for a in args))


def _min(args: list) -> Any:
    return _hull(min(a.a for a in args), min(a.b for a in args))


def interval_eval(expr: sp.Expr, box: Mapping[sp.Symbol, Any]) -> Any:
    """Enclosure of ``expr`` over ``box`` (symbol → ``iv.mpf`` or ``(lo, hi)``)."""
    ibox = {s: (v if isinstance(v, type(iv.mpf(0))) else to_iv(*v)) for s, v in box.items()}
    return _eval(sp.sympify(expr), ibox)


def _eval(e: sp.Expr, box: Mapping) -> Any:
    c = _const(e) if e.is_number and e.is_Atom else None
    if c is not None:
        return c
    if isinstance(e, sp.Symbol):
        if e in box:
            return box[e]
        raise NotEnclosable(f"symbol {e} has no range")
    if isinstance(e, sp.Indexed):
        if e in box:
            return box[e]
        raise NotEnclosable(f"indexed {e} has no range")
    if isinstance(e, sp.Add):
        out = iv.mpf(0)
        for a in e.args:
            out = out + _eval(a, box)
        return out
    if isinstance(e, sp.Mul):
        out = iv.mpf(1)
        for a in e.args:
            out = out * _eval(a, box)
        return out
    if isinstance(e, sp.Pow):
        base, expo = e.args
        if base is sp.E:
            return iv.exp(_eval(expo, box))
        return _pow(_eval(base, box), expo, box)
    if isinstance(e, sp.exp):
        return iv.exp(_eval(e.args[0], box))
    if isinstance(e, sp.log):
        if len(e.args) != 1:
            raise NotEnclosable("log with a base")
        return _log(_eval(e.args[0], box))
    if isinstance(e, sp.sinh):
        return _sinh(_eval(e.args[0], box))
    if isinstance(e, sp.cosh):
        return _cosh(_eval(e.args[0], box))
    if isinstance(e, sp.tanh):
        return _tanh(_eval(e.args[0], box))
    if isinstance(e, sp.Abs):
        return abs(_eval(e.args[0], box))
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
        return _eval(sp.expand_func(e), box) if e != sp.expand_func(e) else _numeric_atom(e)
    raise NotEnclosable(f"cannot enclose {type(e).__name__}: {e}")


def _numeric_atom(e: sp.Expr) -> Any:
    raise NotEnclosable(f"no interval rule for the constant {e}")


@contextlib.contextmanager
def iv_prec(bits: int):
    """Temporarily set the working precision of ``mpmath.iv`` (it has no ``workprec``)."""
    old = iv.prec
    iv.prec = bits
    try:
        yield
    finally:
        iv.prec = old


def width(x: Any) -> Any:
    return x.b - x.a
