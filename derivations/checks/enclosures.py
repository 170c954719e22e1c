"""Arb enclosures (python-flint balls) of SymPy expressions at exact points, for the refutation gate.

``_ball(e, point, prec)`` encloses ``e`` or raises ``Undecided``: ``log`` needs a certainly positive argument,
``sqrt`` a certainly nonnegative one, a division a denominator bounded away from 0, every result must be
finite; integrals by ``acb.integral`` (``_integral``). ``_sign``/``_truth`` decide a sign or a relation from
the enclosures at rising precision (or exactly, ``exact_points._exactly_zero``), and ``in_domain`` whether a
point lies in a step's stated domain (its ranges and constraints).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp
from flint import arb, ctx, fmpq, fmpz

from .exact_points import _exactly_zero, _expand, _label_of, _range_of
from .sampling import constraint_atoms
from .signs import NAMED_CONSTANTS

#: the key of a memo under which ``_ball`` finds the point (symbol or entry → exact value)
_ENV = "__point__"


class Undecided(Exception):
    """An Arb enclosure that cannot be formed at this precision (undefined, NaN, infinite, unknown node)."""


def _sign(e: sp.Expr, max_bits: int = 1024) -> int | None:
    """The sign of a closed-form real number, decided by Arb at rising precision (0 only when exact)."""
    e = sp.sympify(e)
    if e.is_Rational:
        return int(bool(e > 0)) - int(bool(e < 0))
    if _exactly_zero(e):
        return 0
    bits = 64
    while bits <= max_bits:
        with _prec(bits):
            try:
                b = _ball(e, {})
            except Undecided:
                b = None
        if b is not None:
            if b > 0:
                return 1
            if b < 0:
                return -1
            if b.is_exact() and b.is_zero():
                return 0
        bits *= 2
    return None


def _truth(c: Any, max_bits: int = 1024) -> bool | None:
    """A relation (or And/Or/Not of them) between closed-form numbers, decided exactly or by Arb."""
    if c is sp.true or c is True:
        return True
    if c is sp.false or c is False:
        return False
    if isinstance(c, sp.And):
        vals = [_truth(a, max_bits) for a in c.args]
        return False if False in vals else (None if None in vals else True)
    if isinstance(c, sp.Or):
        vals = [_truth(a, max_bits) for a in c.args]
        return True if True in vals else (None if None in vals else False)
    if isinstance(c, sp.Not):
        v = _truth(c.args[0], max_bits)
        return None if v is None else not v
    if isinstance(c, sp.Rel):
        s = _sign(c.lhs - c.rhs, max_bits)
        if s is None:
            return None
        return {
            "<": s < 0,
            "<=": s <= 0,
            ">": s > 0,
            ">=": s >= 0,
            "==": s == 0,
            "!=": s != 0,
        }[c.rel_op]
    return None


def in_domain(point: Mapping[Any, Any], domain: Any) -> bool:
    """Whether an exact point lies in ``domain`` (a ``ledger.Domain``, or a mapping symbol → (lo, hi)):
    every coordinate with a stated range inside it (closed ends), an integer symbol's value an integer, every
    constraint whose symbols the point fixes true; each decided exactly (rational comparisons, or Arb signs
    of closed forms, 0 only when exact). Undecided counts as outside."""
    if domain is None:
        return True
    for key, v in point.items():
        v = sp.sympify(v)
        lab = _label_of(key)
        if getattr(lab, "is_integer", False) and v.is_Integer is not True:
            return False
        rng = _range_of(domain, key)
        if rng is None:
            continue
        lo, hi = (sp.sympify(r_) for r_ in rng)
        for end, want in ((lo, 1), (hi, -1)):
            if end.is_infinite:
                continue
            s = _sign(v - end)
            if s is None or s == -want:
                return False
    cons = getattr(domain, "constraints", ()) or ()
    if cons:
        sub = {}
        names = {}
        for key, v in point.items():
            if isinstance(key, (sp.Symbol, sp.Indexed)):
                sub[key] = sp.sympify(v)
            names[str(key)] = sp.sympify(v)
        for c in cons:
            # the coordinates it reads: symbols and entries (f_a[1]² + f_a[2]² ≤ 1 reads f_a[1], f_a[2])
            free = constraint_atoms(c)
            if not all(s_ in sub or str(s_) in names for s_ in free):
                continue  # a constraint on symbols the claim does not involve cannot exclude its points
            cv = c.xreplace({s_: sub.get(s_, names.get(str(s_))) for s_ in free})
            if _truth(cv) is not True:
                return False
    return True


class _prec:
    def __init__(self, bits: int):
        self.bits = bits

    def __enter__(self) -> None:
        self.old = ctx.prec
        ctx.prec = self.bits

    def __exit__(self, *a: Any) -> None:
        ctx.prec = self.old


def _ok(b: arb) -> arb:
    if b.is_nan() or not b.is_finite():
        raise Undecided("an enclosure is not finite")
    return b


def _hull(lo: arb, hi: arb) -> arb:
    return lo.union(hi)


def _pos(b: arb, what: str) -> arb:
    if not b > 0:
        raise Undecided(f"{what} of an argument not certainly positive")
    return b


_UNARY = {
    sp.exp: lambda b: b.exp(),
    sp.sin: lambda b: b.sin(),
    sp.cos: lambda b: b.cos(),
    sp.tan: lambda b: b.tan(),
    sp.sinh: lambda b: b.sinh(),
    sp.cosh: lambda b: b.cosh(),
    sp.tanh: lambda b: b.tanh(),
    sp.atan: lambda b: b.atan(),
    sp.asinh: lambda b: b.asinh(),
    sp.erf: lambda b: b.erf(),
    sp.erfc: lambda b: b.erfc(),
    sp.cot: lambda b: b.cot(),
    sp.sec: lambda b: b.sec(),
    sp.csc: lambda b: b.csc(),
    sp.coth: lambda b: b.coth(),
    sp.sech: lambda b: b.sech(),
    sp.csch: lambda b: b.csch(),
}


def _ball(e: sp.Expr, memo: dict) -> arb:
    """An Arb ball containing the real number ``e`` (no free symbols) at the current precision.

    A symbol's value comes from the memo's environment; numbers and constants are exact balls
    (``_atom_ball``); a unary elementary function applies its Arb method (``_UNARY``, by exact type); every
    other node kind has its rule in ``_NODE_RULES`` (``_node_ball``), and a node without one is rewritten in
    elementary functions (``_rewritten_ball``). Memoised per node in ``memo``."""
    hit = memo.get(e)
    if hit is not None:
        return hit
    if isinstance(e, (sp.Symbol, sp.Indexed)):
        v = memo.get(_ENV, {}).get(e)
        if v is None:
            raise Undecided(f"{e} has no value")
        out = _ok(_ball(v, memo))
        memo[e] = out
        return out
    out = _atom_ball(e, memo)
    if out is None:
        unary = _UNARY.get(type(e))
        out = unary(_ball(e.args[0], memo)) if unary is not None else _node_ball(e, memo)
    out = _ok(out)
    memo[e] = out
    return out


def _atom_ball(e: sp.Expr, memo: dict) -> arb | None:
    """The exact ball of a number or a named constant (π, e, γ, Catalan's, the golden ratio); None otherwise."""
    if e.is_Integer:
        return arb(fmpz(int(e)))
    if e.is_Rational:
        return arb(fmpq(int(e.p), int(e.q)))
    if e.is_Float:
        return _ball(sp.Rational(e), memo)
    if e in NAMED_CONSTANTS:
        return NAMED_CONSTANTS[e]()
    return None


def _node_ball(e: sp.Expr, memo: dict) -> arb:
    """The ball of a node by the first rule of ``_NODE_RULES`` whose kind it is (a rule returns None where it
    does not apply: ψ⁽ᵐ⁾ with m ≠ 0, W with a branch index), else by its rewrite (``_rewritten_ball``)."""
    for kinds, rule in _NODE_RULES:
        if isinstance(e, kinds):
            out = rule(e, memo)
            if out is not None:
                return out
            break
    return _rewritten_ball(e, memo)


def _rewritten_ball(e: sp.Expr, memo: dict) -> arb:
    """A named function of the toolkit (log1p, expm1, …) through its exact rewrite in elementary functions."""
    alt = next((r for r in (e.rewrite(sp.log), e.rewrite(sp.exp)) if r != e), None)
    if alt is None or type(alt) is type(e):
        raise Undecided(f"no Arb rule for {type(e).__name__}")
    return _ball(alt, memo)


def _add_ball(e: sp.Add, memo: dict) -> arb:
    out = arb(0)
    for a in e.args:
        out = out + _ball(a, memo)
    return out


def _mul_ball(e: sp.Mul, memo: dict) -> arb:
    out = arb(1)
    for a in e.args:
        out = out * _ball(a, memo)
    return out


def _log_ball(e: sp.log, memo: dict) -> arb:
    """log x, or log x / log b for SymPy's two-argument log(x, b); x (and b) certainly > 0."""
    if len(e.args) != 1:
        return _pos(_ball(e.args[0], memo), "log").log() / _pos(_ball(e.args[1], memo), "log").log()
    return _pos(_ball(e.args[0], memo), "log").log()


def _asin_acos_ball(e: sp.Expr, memo: dict) -> arb:
    b = _ball(e.args[0], memo)
    if not (b >= -1 and b <= 1):
        raise Undecided(f"{type(e).__name__} of an argument not certainly in [−1, 1]")
    return b.asin() if isinstance(e, sp.asin) else b.acos()


def _acosh_ball(e: sp.acosh, memo: dict) -> arb:
    b = _ball(e.args[0], memo)
    if not b >= 1:
        raise Undecided("acosh of an argument not certainly ≥ 1")
    return b.acosh()


def _atanh_ball(e: sp.atanh, memo: dict) -> arb:
    b = _ball(e.args[0], memo)
    if not (b > -1 and b < 1):
        raise Undecided("atanh of an argument not certainly in (−1, 1)")
    return b.atanh()


def _digamma_ball(e: sp.polygamma, memo: dict) -> arb | None:
    """ψ = polygamma(0, x); None for a higher order (no Arb rule: the rewrite is tried)."""
    if e.args[0] == 0:
        return _ball(e.args[1], memo).digamma()
    return None


def _lambertw_ball(e: sp.LambertW, memo: dict) -> arb | None:
    """W₀(x) for x certainly ≥ −1/e; None for a branch index (the rewrite is tried)."""
    if len(e.args) != 1:
        return None
    b = _ball(e.args[0], memo)
    if not b >= -(arb.const_e() ** -1):
        raise Undecided("LambertW of an argument not certainly ≥ −1/e")
    return b.lambertw()


def _minmax_ball(e: sp.Expr, memo: dict) -> arb:
    """Max/Min: the hull of the max (min) of the lower ends and of the upper ends."""
    bs = [_ball(a, memo) for a in e.args]
    pick = max if isinstance(e, sp.Max) else min
    lo = pick((b.lower() for b in bs), key=lambda t: _Key(t))
    hi = pick((b.upper() for b in bs), key=lambda t: _Key(t))
    return _hull(lo, hi)


def _sign_ball(e: sp.sign, memo: dict) -> arb:
    b = _ball(e.args[0], memo)
    if b > 0:
        return arb(1)
    if b < 0:
        return arb(-1)
    if b.is_exact() and b.is_zero():
        return arb(0)
    raise Undecided("sign of a ball around 0")


def _heaviside_ball(e: sp.Heaviside, memo: dict) -> arb:
    b = _ball(e.args[0], memo)
    if b > 0:
        return arb(1)
    if b < 0:
        return arb(0)
    raise Undecided("Heaviside at a ball around 0")


def _floor_ceiling_ball(e: sp.Expr, memo: dict) -> arb:
    b = _ball(e.args[0], memo)
    f = b.floor() if isinstance(e, sp.floor) else b.ceil()
    if not f.is_exact():
        raise Undecided(f"{type(e).__name__} of a ball across an integer")
    return f


def _piecewise_ball(e: sp.Piecewise, memo: dict) -> arb:
    """The first branch whose condition certainly holds (every earlier one certainly fails)."""
    for expr_, cond in e.args:
        t = _truth_ball(cond, memo)
        if t is None:
            raise Undecided("a Piecewise condition undecided")
        if t:
            return _ball(expr_, memo)
    raise Undecided("no Piecewise branch holds")


def _sum_product_ball(e: sp.Expr, memo: dict) -> arb:
    done = _expand(e)
    if done.has(sp.Sum, sp.Product):
        raise Undecided(f"{type(e).__name__} with non-integer limits")
    return _ball(done, memo)


def _derivative_ball(e: sp.Derivative, memo: dict) -> arb:
    done = e.doit()
    if done.has(sp.Derivative):
        raise Undecided("a derivative SymPy does not take")
    return _ball(done, memo)


#: node kind(s) → the rule of ``_ball`` for them, tried in this order (no kind is a subclass of another's)
_NODE_RULES: tuple[tuple[Any, Callable[[Any, dict], arb | None]], ...] = (
    (sp.Add, _add_ball),
    (sp.Mul, _mul_ball),
    (sp.Pow, lambda e, memo: _pow(e, memo)),
    (sp.log, _log_ball),
    ((sp.asin, sp.acos), _asin_acos_ball),
    (sp.acosh, _acosh_ball),
    (sp.atanh, _atanh_ball),
    (sp.atan2, lambda e, memo: _ball(e.args[0], memo).atan2(_ball(e.args[1], memo))),
    (sp.loggamma, lambda e, memo: _pos(_ball(e.args[0], memo), "loggamma").lgamma()),
    (sp.gamma, lambda e, memo: _ball(e.args[0], memo).gamma()),
    (sp.polygamma, _digamma_ball),
    (sp.LambertW, _lambertw_ball),
    (sp.Abs, lambda e, memo: abs(_ball(e.args[0], memo))),
    ((sp.Max, sp.Min), _minmax_ball),
    (sp.sign, _sign_ball),
    (sp.Heaviside, _heaviside_ball),
    ((sp.floor, sp.ceiling), _floor_ceiling_ball),
    (sp.Piecewise, _piecewise_ball),
    ((sp.Sum, sp.Product), _sum_product_ball),
    (sp.Integral, lambda e, memo: _integral(e, memo)),
    (sp.Derivative, _derivative_ball),
)


#: Arb's evaluation budget per integral (its default, 1000·prec + prec², is hours of Python at 1024 bits)
INTEGRAL_EVALS = 4000


def _integral(e: sp.Integral, memo: dict) -> arb:
    """∫_a^b f(t) dt by Arb's rigorous integration (``acb.integral``) of the integrand continued to the complex
    plane, with branch cuts checked (``analytic``): one variable, finite limits, an integrand of the analytic
    nodes ``_acb`` knows; the real part, once the imaginary part is shown to contain 0."""
    from flint import acb

    if len(e.limits) != 1 or len(e.limits[0]) != 3:
        raise Undecided("an integral with several or indefinite limits")
    t, a, b = e.limits[0]
    f = e.function
    if f.has(sp.Integral):
        raise Undecided("a nested integral")
    ab, bb = _ball(sp.sympify(a), memo), _ball(sp.sympify(b), memo)
    # an entry z[i] brings its base's label z among the free symbols: the entry has a value, the label none
    labels = {ix.base.label for ix in f.atoms(sp.Indexed)}
    outer = {s_: acb(_ball(s_, memo)) for s_ in (f.free_symbols | f.atoms(sp.Indexed)) - {t} - labels}

    def fn(x: Any, analytic: bool) -> Any:
        try:
            return _acb(f, {**outer, t: x}, analytic)
        except (Undecided, ZeroDivisionError, ValueError):
            return acb("nan")

    # Arb's default work limit grows like prec² evaluations (2 million at 1024 bits), each a walk of the SymPy
    # tree here: cap it; a capped integral is still enclosed, only wider, and a wider ball decides less
    val = acb.integral(fn, acb(ab), acb(bb), eval_limit=INTEGRAL_EVALS)
    if not val.imag.contains(0) or not val.real.is_finite():
        raise Undecided("the integral is not enclosed as a real number")
    return val.real


def _acb(e: sp.Expr, env: dict, analytic: bool) -> Any:  # noqa: C901 - one branch per node type
    """``e`` as a complex ball at ``env`` (integration variable → acb), checking analyticity where asked."""
    from flint import acb

    if e in env:
        return env[e]
    if e.is_number and not e.free_symbols:
        return acb(_ball(e, {}))
    if isinstance(e, sp.Add):
        out = acb(0)
        for a in e.args:
            out = out + _acb(a, env, analytic)
        return out
    if isinstance(e, sp.Mul):
        out = acb(1)
        for a in e.args:
            out = out * _acb(a, env, analytic)
        return out
    if isinstance(e, sp.Pow):
        base, expo = e.args
        if base is sp.E:
            return _acb(expo, env, analytic).exp()
        if expo.is_Integer:
            n = int(expo)
            bb = _acb(base, env, analytic)
            return bb**n if n >= 0 else acb(1) / bb ** (-n)
        bb = _acb(base, env, analytic)
        if expo == sp.Rational(1, 2):
            return bb.sqrt(analytic=analytic)
        return (_acb(expo, env, analytic) * bb.log(analytic=analytic)).exp()
    if isinstance(e, sp.log) and len(e.args) == 1:
        return _acb(e.args[0], env, analytic).log(analytic=analytic)
    simple = {
        sp.exp: "exp",
        sp.sin: "sin",
        sp.cos: "cos",
        sp.tan: "tan",
        sp.sinh: "sinh",
        sp.cosh: "cosh",
        sp.tanh: "tanh",
        sp.erf: "erf",
        sp.atan: "atan",
    }
    if type(e) in simple:
        return getattr(_acb(e.args[0], env, analytic), simple[type(e)])()
    raise Undecided(f"no analytic Arb rule for {type(e).__name__} in an integrand")


class _Key:
    """Exact Arb points ordered by value (for max/min of endpoints)."""

    __slots__ = ("v",)

    def __init__(self, v: arb):
        self.v = v

    def __lt__(self, other: _Key) -> bool:
        return bool(self.v < other.v)


def _truth_ball(c: Any, memo: dict) -> bool | None:
    """A condition at the current precision (a Piecewise's): None where a ball straddles."""
    if c is sp.true or c is True:
        return True
    if c is sp.false or c is False:
        return False
    if isinstance(c, (sp.And, sp.Or)):
        vals = [_truth_ball(a, memo) for a in c.args]
        if isinstance(c, sp.And):
            return False if False in vals else (None if None in vals else True)
        return True if True in vals else (None if None in vals else False)
    if isinstance(c, sp.Not):
        v = _truth_ball(c.args[0], memo)
        return None if v is None else not v
    if isinstance(c, sp.Rel):
        d = _ball(c.lhs - c.rhs, memo)
        zero = d.is_exact() and d.is_zero()
        pos, neg = bool(d > 0), bool(d < 0)
        op = c.rel_op
        if op in ("<", "<=", ">", ">="):
            if pos or neg:
                return {"<": neg, "<=": neg, ">": pos, ">=": pos}[op]
            if zero:
                return op in ("<=", ">=")
            return None
        if op in ("==", "!="):
            if pos or neg:
                return op == "!="
            return (op == "==") if zero else None
    return None


def _pow(e: sp.Pow, memo: dict) -> arb:
    base, expo = e.args
    if base is sp.E:
        return _ball(expo, memo).exp()
    b = _ball(base, memo)
    if expo.is_Integer:
        n = int(expo)
        if n < 0:
            if not (b > 0 or b < 0):
                raise Undecided("a negative power of a ball around 0")
            return arb(1) / b ** (-n)
        return b**n
    if expo == sp.Rational(1, 2):
        if b.is_exact() and b.is_zero():
            return arb(0)
        if not b >= 0:
            raise Undecided("sqrt of an argument not certainly ≥ 0")
        return b.sqrt()
    x = _ball(expo, memo)
    if x.is_exact() and x.is_integer():
        # an integer symbol's value at the point ((1 + x)^k at k = 21): the power is the integer one, defined
        # for a negative base too
        n = int(x.unique_fmpz())
        if n < 0:
            if not (b > 0 or b < 0):
                raise Undecided("a negative power of a ball around 0")
            return arb(1) / b ** (-n)
        return b**n
    if b.is_exact() and b.is_zero():
        if x > 0:
            return arb(0)
        raise Undecided("0 to a power not certainly positive")
    if not b > 0:
        raise Undecided("a non-integer power of a base not certainly positive")
    return (x * b.log()).exp()
