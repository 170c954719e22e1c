"""Signs a proof may rely on, decided by Arb or exact arithmetic only (never by SymPy's ``evalf``).

``arb_sign(c)`` for a constant ``c`` (no free symbols) is ``1``, ``-1`` or ``0`` when that sign is certain
and ``None`` when it is not: an exact rational's sign is read exactly; any other constant is enclosed in
an Arb ball at rising precision (64, 128, …, ``max_bits`` bits) until the ball excludes 0. A constant that
is zero but not *written* as 0 (``log 6 − log 2 − log 3``) is never decided by Arb: it stays ``None``.

``certain_nonnegative(e, strict)`` for a symbolic ``e``: ``e ≥ 0`` (``e > 0`` if strict) for every value
of its symbols that their SymPy assumptions allow, established from the structure of ``e``. Why the
replacement below: SymPy's assumption handlers decide the sign of a *number* by evaluating it in floating
point (``log(1 + e^{-200})`` is 0 to them, since ``1 + e^{-200}`` rounds to 1), so a false claim with a
margin below the working precision came out "proved". Here every maximal constant subexpression that is
not a rational is first replaced by a fresh ``Dummy`` declared positive or negative *by* ``arb_sign`` (a
certain zero becomes 0; an undecided sign means the expression is not certified), so the assumption system
only ever sees symbols with declared signs and exact rationals: its deductions are then structural.
"""

from __future__ import annotations

from typing import Any

import sympy as sp
from flint import arb, ctx, fmpq, fmpz

#: Arb working precisions tried in turn (bits) before a sign is called undecided
_START_BITS = 64


class _Undecided(Exception):
    """A constant whose ball cannot be formed (unknown function, a pole, a value outside a domain)."""


#: SymPy's named constants → their Arb balls at the current ``ctx.prec`` (called, so the precision is the caller's)
NAMED_CONSTANTS = {
    sp.pi: arb.pi,
    sp.E: arb.const_e,
    sp.EulerGamma: arb.const_euler,
    sp.Catalan: arb.const_catalan,
    sp.GoldenRatio: lambda: (1 + arb(5).sqrt()) / 2,
}


def _ball(e: sp.Expr) -> arb:  # noqa: C901 - one branch per node type
    """An Arb ball containing the real constant ``e`` at the current ``ctx.prec`` (raises ``_Undecided``)."""
    if e.is_Integer:
        return arb(fmpz(int(e)))
    if e.is_Rational:
        return arb(fmpq(int(e.p), int(e.q)))
    if e.is_Float:
        neg, man, exp, _ = e._mpf_
        if not man and exp:  # ±inf, nan
            raise _Undecided("a non-finite float")
        return arb(fmpz(-int(man) if neg else int(man))) * arb(2) ** int(exp)
    if e in NAMED_CONSTANTS:
        return NAMED_CONSTANTS[e]()
    if isinstance(e, sp.Add):
        out = arb(0)
        for a in e.args:
            out += _ball(a)
        return out
    if isinstance(e, sp.Mul):
        out = arb(1)
        for a in e.args:
            out *= _ball(a)
        return out
    if isinstance(e, sp.Pow):
        base, ex = e.args
        if base is sp.E:
            return _checked(_ball(ex).exp())
        b = _ball(base)
        if ex.is_Integer:
            n = int(ex)
            if n < 0:
                if b.contains(0):
                    raise _Undecided("a reciprocal of a ball containing 0")
                return _checked(arb(1) / b ** (-n))
            return b**n
        # a non-integer power (SymPy's principal branch): real only for a positive base (0^p, p > 0, is 0)
        x = _ball(ex)
        if b > 0:
            if ex.is_Rational and ex.q in (2, 3) and abs(ex.p) < 1000:
                r = b.sqrt() if ex.q == 2 else b.root(3)
                return _checked(r ** int(ex.p)) if ex.p > 0 else _checked(arb(1) / r ** int(-ex.p))
            return _checked((x * b.log()).exp())
        if b.is_zero() and x > 0:
            return arb(0)
        raise _Undecided("a non-integer power of a base not certainly positive")
    if isinstance(e, sp.Abs):
        return abs(_ball(e.args[0]))
    if isinstance(e, (sp.Max, sp.Min)):
        balls = [_ball(a) for a in e.args]
        out = balls[0]
        for b_ in balls[1:]:
            out = out.max(b_) if isinstance(e, sp.Max) else out.min(b_)
        return out
    if isinstance(e, sp.log):
        if len(e.args) != 1:
            return _ball(sp.log(e.args[0]) / sp.log(e.args[1]))
        b = _ball(e.args[0])
        if not b > 0:
            raise _Undecided("log of a ball not certainly positive")
        return _checked(b.log())
    fn = _UNARY.get(type(e))
    if fn is not None and len(e.args) == 1:
        return _checked(fn(_ball(e.args[0])))
    raise _Undecided(f"no Arb rule for {type(e).__name__}")


def _checked(b: arb) -> arb:
    """Arb returns NaN outside a function's domain (log of a negative, a pole): never a sign."""
    if b.is_nan() or not b.is_finite():
        raise _Undecided("not finite")
    return b


_UNARY: dict[type, Any] = {
    sp.exp: arb.exp,
    sp.sin: arb.sin,
    sp.cos: arb.cos,
    sp.tan: arb.tan,
    sp.cot: arb.cot,
    sp.sec: arb.sec,
    sp.csc: arb.csc,
    sp.sinh: arb.sinh,
    sp.cosh: arb.cosh,
    sp.tanh: arb.tanh,
    sp.coth: arb.coth,
    sp.asin: arb.asin,
    sp.acos: arb.acos,
    sp.atan: arb.atan,
    sp.asinh: arb.asinh,
    sp.acosh: arb.acosh,
    sp.atanh: arb.atanh,
    sp.erf: arb.erf,
    sp.erfc: arb.erfc,
    sp.gamma: arb.gamma,
    sp.loggamma: arb.lgamma,
    sp.LambertW: arb.lambertw,
    sp.zeta: arb.zeta,
}


def arb_sign(expr: Any, max_bits: int = 4096) -> int | None:
    """The sign (``1``, ``-1``, ``0``) of the constant ``expr``, certain, or ``None`` if undecided.

    ``expr`` has no free symbols (else ``ValueError``). An exact rational (SymPy's ``0`` included) has
    its exact sign; anything else is enclosed in Arb balls at 64, 128, …, ``max_bits`` bits until a ball
    excludes 0. A value Arb cannot enclose (an unknown function, a pole, a log of a non-positive number),
    an infinity, NaN, or a non-real constant gives ``None``.
    """
    e = sp.sympify(expr)
    if e.free_symbols:
        raise ValueError(f"arb_sign needs a constant; {e} has free symbols {sorted(map(str, e.free_symbols))}")
    if max_bits < _START_BITS:
        raise ValueError(f"max_bits must be ≥ {_START_BITS}, got {max_bits}")
    if e.is_Rational:
        return int(bool(e > 0)) - int(bool(e < 0))
    if e.is_Float:
        return int(bool(e > 0)) - int(bool(e < 0))  # a float is its own exact binary value
    if e.has(sp.oo, -sp.oo, sp.zoo, sp.nan, sp.I):
        return None
    bits, old = _START_BITS, ctx.prec
    try:
        while bits <= max_bits:
            ctx.prec = bits
            try:
                b = _ball(e)
            except _Undecided:
                b = None
            except (ZeroDivisionError, ValueError, OverflowError):
                b = None
            if b is not None:
                if b > 0:
                    return 1
                if b < 0:
                    return -1
            bits *= 2
    finally:
        ctx.prec = old
    return None


def _constant(e: sp.Expr) -> bool:
    return e.is_number and not e.free_symbols


def signed_dummies(expr: Any, max_bits: int = 4096) -> sp.Expr | None:
    """``expr`` with every maximal non-rational constant subexpression replaced by a ``Dummy`` carrying
    its certain sign (positive / negative; a certain zero becomes 0). ``None`` when one sign is undecided.

    The constant terms of a sum (factors of a product) are taken together: ``x + π − 3`` becomes
    ``x + d`` with ``d > 0``, which keeps what a sum of constants says about the sign.
    """
    e = sp.sympify(expr)
    memo: dict[sp.Expr, sp.Expr] = {}

    def sign_of(c: sp.Expr) -> sp.Expr:
        if c.is_Rational:
            return c
        if c not in memo:
            s = arb_sign(c, max_bits)
            if s is None:
                raise _Undecided(str(c))
            memo[c] = sp.Integer(0) if s == 0 else sp.Dummy("c", positive=s > 0, negative=s < 0)
        return memo[c]

    def walk(node: Any) -> tuple[Any, bool]:
        """(the node with its constants signed, whether the node is a constant); rebuilt only if changed."""
        if not isinstance(node, sp.Basic):
            return node, False
        if not node.args:
            const = isinstance(node, sp.Expr) and node.is_number and not isinstance(node, sp.Symbol)
            return node, bool(const)
        if isinstance(node, (sp.Sum, sp.Product, sp.Integral, sp.Derivative, sp.Subs, sp.Lambda)):
            # bound variables: the body's closed constants are signed, the limits are kept
            body, _ = walk(node.args[0])
            if body is node.args[0]:
                return node, False
            return node.func(body, *node.args[1:]), False
        kids = [walk(a) for a in node.args]
        if all(c for _, c in kids) and isinstance(node, sp.Expr):
            return node, True  # a constant: signed by the parent (maximal constants only)
        if isinstance(node, (sp.Add, sp.Mul)):
            consts = [a for a, (_, c) in zip(node.args, kids) if c]
            rest = [n for n, c in kids if not c]
            if consts:
                cst = node.func(*consts)
                same = all(n is a for (n, c), a in zip(kids, node.args) if not c)
                if cst.is_Rational and same:
                    return node, False  # only exact rationals among the constants: nothing to sign
                rest.append(sign_of(cst) if not cst.free_symbols else walk(cst)[0])
        else:
            rest = [sign_of(n) if c and isinstance(n, sp.Expr) else n for n, c in kids]
        if all(a is b for a, b in zip(rest, node.args)) and len(rest) == len(node.args):
            return node, False
        return node.func(*rest), False

    try:
        out, const = walk(e)
        return sign_of(out) if const and isinstance(out, sp.Expr) else out
    except _Undecided:
        return None


def certain_nonnegative(expr: Any, strict: bool = False, max_bits: int = 4096) -> bool:
    """``expr ≥ 0`` (``> 0`` if ``strict``) wherever it is defined, for every value the symbols'
    assumptions allow, by SymPy's *structural* sign deduction on ``signed_dummies(expr)``, extended by:
    an even integer power of a real base is ≥ 0 (where defined), a sum of terms ≥ 0 is ≥ 0 (> 0 when one
    term is > 0), a product of factors ≥ 0 is ≥ 0 (> 0 when every factor is > 0).

    ``False`` means *not certified* (not "negative"): an undecided constant sign, or a deduction SymPy
    cannot make. A query that raises is not certified either.
    """
    e = signed_dummies(expr, max_bits)
    if e is None:
        return False
    try:
        return _structural(e, strict)
    except (TypeError, ValueError, AttributeError, RecursionError, NotImplementedError):
        return False


def _structural(e: sp.Expr, strict: bool, logs: bool = True) -> bool:
    if e.is_Rational:
        return bool(e > 0) if strict else bool(e >= 0)
    if (e.is_positive if strict else e.is_nonnegative) is True:
        return True
    if logs and isinstance(e, sp.Add) and len(e.args) == 2:
        # p − q with p, q > 0: its sign is that of log p − log q (1 − e^{−2/τ} > 0 since 2/τ > 0), which
        # SymPy's assumptions do not see; the logs are expanded only where SymPy knows it is valid
        a, b = e.args
        for p, q in ((a, -b), (b, -a)):
            if p.is_positive and q.is_positive:
                d = sp.expand_log(sp.log(p) - sp.log(q))
                if _structural(d, strict, logs=False):
                    return True
    if isinstance(e, sp.Pow):
        ex = e.exp
        if ex.is_integer and ex.is_even and e.base.is_real:
            return not strict or e.base.is_nonzero is True
        return False
    if isinstance(e, sp.Add):
        return all(_structural(a, False) for a in e.args) and (not strict or any(_structural(a, True) for a in e.args))
    if isinstance(e, sp.Mul):
        return all(_structural(a, strict) for a in e.args)
    return False
