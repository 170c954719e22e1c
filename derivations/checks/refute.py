"""The one refutation gate: ``lhs REL rhs`` is refuted at an exact point only where Arb shows it false there.

``confirm(lhs, rhs, relation, point, domain=…)`` evaluates both sides at an exact point (rationals, integers
for integer symbols, or closed forms such as ``E``, ``sqrt(2)``, ``exp(1/3)``) as Arb balls (python-flint)
at 64, 128, … bits up to ``max_bits`` and returns a ``Counterexample`` only when

* the two enclosures lie strictly on the wrong side of ``relation`` (``<=``, ``<``, ``>=``, ``>``), or are
  disjoint for ``=``; or
* the claim is strict (``<``, ``>``) and the two sides are equal *exactly* at the point: both balls are the
  same exact number, or the gap at the point reduces to 0 by exact SymPy rewrites (rational arithmetic,
  ``expand``, ``cancel``; never a tolerance).

Anything else (the enclosures overlap at every precision, a side is undefined or not enclosable at the
point, the point lies outside the stated domain) is undecided: ``None``. Every search in the engine (the box
falsifier, its vectorised lane, the grouped large-k attack, the identity spot-check, the series and limit
cross-checks, the interval branch and bound) only *proposes* points; this gate decides.

Counterexamples are printed with the enclosures that decided them (``as_dict``: the point's coordinates as
exact strings, ``lhs``/``rhs`` as 20-digit values, ``lhs_enclosure``/``rhs_enclosure`` as outward decimal
pairs, ``bits``, ``relation``, ``equal_exactly``) and ``replay(dict, lhs, rhs, relation, domain)`` re-runs the
gate from the dict alone.

An undefined side is never a counterexample: ``log`` needs a certainly positive argument, ``sqrt`` a certainly
nonnegative one, a division a denominator bounded away from 0, every Arb result must be finite (NaN and
infinite balls are undecided). A point where a side is undefined is the ill-posedness checker's business.
"""

from __future__ import annotations

import fractions
import functools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from flint import arb, ctx, fmpq, fmpz

__all__ = [
    "RELATIONS",
    "Counterexample",
    "closed_form_candidates",
    "confirm",
    "confirm_float_point",
    "exact_point",
    "format_exact",
    "in_domain",
    "parse_exact",
    "replay",
]

RELATIONS = ("<=", "<", ">=", ">", "=")
#: keys of a counterexample dict that are not coordinates of its point
RESERVED = frozenset(
    {
        "lhs",
        "rhs",
        "lhs_enclosure",
        "rhs_enclosure",
        "bits",
        "relation",
        "equal_exactly",
        "grouped",
        "side",
        "term",
        "derived",
        "claimed",
        "limit",
    }
)
#: exponents above this are not expanded exactly (x^(10^9) at x = 1/2 is a 10⁹-bit rational): the exact
#: equality test is skipped there (the Arb enclosures still decide)
_EXACT_EXPONENT_CAP = 10_000
#: the exact equality test only runs on expressions of at most this many nodes (expand of a written-out
#: k = 12 vector claim can take seconds; the Arb enclosures still decide)
_EXACT_NODE_CAP = 400


#: the key of a memo under which ``_ball`` finds the point (symbol or entry → exact value)
_ENV = "__point__"


class Undecided(Exception):
    """An Arb enclosure that cannot be formed at this precision (undefined, NaN, infinite, unknown node)."""


# ----------------------------------------------------------------------------- exact points


def format_exact(v: sp.Expr) -> str:
    """An exact number as a string ``parse_exact`` reads back to the same value: integers as digits, rationals
    with a terminating decimal expansion as that decimal ("0.3" is 3/10), other rationals as ``p/q``, closed
    forms as SymPy prints them ("E", "sqrt(2)", "exp(1/3)")."""
    v = sp.sympify(v)
    if v.is_Integer:
        return str(int(v))
    if v.is_Rational:
        q = int(v.q)
        a = b = 0
        while q % 2 == 0:
            q //= 2
            a += 1
        while q % 5 == 0:
            q //= 5
            b += 1
        n = max(a, b)
        if q == 1 and n <= 60:
            num = abs(int(v.p)) * 10**n // int(v.q)
            s = str(num).rjust(n + 1, "0")
            s = f"{s[:-n]}.{s[-n:]}".rstrip("0").rstrip(".")
            return ("-" if v < 0 else "") + s
        return f"{int(v.p)}/{int(v.q)}"
    return sp.sstr(v)


_DECIMAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def parse_exact(s: Any) -> sp.Expr:
    """The exact number a string (or number) names: "0.3" is 3/10, "3/10" too, "12" an integer, "E", "pi",
    "sqrt(2)", "exp(1/3)" closed forms. A Python float is its exact binary value. Raises ``ValueError`` for
    anything with a free symbol or that is not a real number."""
    if isinstance(s, bool):
        raise ValueError(f"not a number: {s!r}")
    if isinstance(s, int):
        return sp.Integer(s)
    if isinstance(s, float):
        if not math.isfinite(s):
            raise ValueError(f"not a finite number: {s!r}")
        return sp.Rational(fractions.Fraction(s))
    if isinstance(s, sp.Basic):
        v = s
    else:
        txt = str(s).strip()
        if _DECIMAL.match(txt) or re.fullmatch(r"[+-]?\d+/\d+", txt):
            return sp.Rational(txt)
        v = sp.sympify(txt, rational=True)
    if v.free_symbols or not v.is_number or v.is_real is False or v.has(sp.oo, -sp.oo, sp.zoo, sp.nan):
        raise ValueError(f"not an exact real number: {s!r}")
    if v.is_Float:
        return sp.Rational(v)
    return v


def _domain_end(v: Any) -> sp.Expr | None:
    v = sp.sympify(v)
    return None if v.is_infinite else v


def exact_point(float_point: Mapping[Any, Any], domain: Any = None) -> dict[Any, sp.Expr]:
    """The falsifier's float coordinates as exact numbers: an int (an integer symbol's value) as that integer,
    a float equal to the float of a stated range end as that end exactly (a boundary snap of ``[0.1, 1]`` or
    ``[1/3, 1]`` is the end itself), any other float as the shortest decimal that reads back to it ("0.3" is
    3/10). ``exact_point_binary`` gives the floats' exact binary values instead."""
    out: dict[Any, sp.Expr] = {}
    for key, x in float_point.items():
        if isinstance(x, bool):
            raise ValueError(f"coordinate {key}: a flag, not a number")
        if isinstance(x, (int, sp.Integer)) or (hasattr(x, "dtype") and x.dtype.kind in "iu"):
            out[key] = sp.Integer(int(x))
            continue
        if isinstance(x, sp.Basic):
            out[key] = parse_exact(x)
            continue
        xf = float(x)
        if not math.isfinite(xf):
            raise ValueError(f"coordinate {key} = {x!r} is not finite")
        v = None
        rng = _range_of(domain, key)
        if rng is not None:
            for end in rng:
                end = _domain_end(end)
                if end is not None and float(end) == xf:
                    v = end
                    break
        if v is None:
            v = sp.Rational(repr(xf))
        if getattr(_label_of(key), "is_integer", False) and v.is_Integer is not True and xf == int(xf):
            v = sp.Integer(int(xf))
        out[key] = v
    return out


def exact_point_binary(float_point: Mapping[Any, Any]) -> dict[Any, sp.Expr]:
    """The float coordinates as their exact binary values (``Fraction(x)``), ints as integers."""
    return {
        key: sp.Integer(int(x)) if isinstance(x, (int, sp.Integer)) else sp.Rational(fractions.Fraction(float(x)))
        for key, x in float_point.items()
    }


#: the constants ``closed_form_candidates`` tries small rational multiples of
_CONSTANTS = (sp.E, sp.pi, sp.exp(-1), sp.E**2, sp.sqrt(2), sp.sqrt(3), sp.log(2), sp.sqrt(sp.pi), sp.EulerGamma)


def closed_form_candidates(sym: Any, x_float: float, rel_tol: float = 1e-12) -> list[sp.Expr]:
    """Exact numbers near ``x_float`` to try when a float search finds the margin of a strict claim ≈ 0 there:
    the claim may be exactly tight at a closed form (``log x < x/e`` at x = e). Tried, all in floats (no
    SymPy search: this runs on every near-zero margin the falsifier proposes): a rational of denominator
    ≤ 1000, a small rational multiple (denominator ≤ 12) of e, π, 1/e, e², √2, √3, log 2, √π, γ, ``exp`` of a
    rational of denominator ≤ 12, the square root of a rational of denominator ≤ 100. Each candidate is
    within ``rel_tol`` (relative) of ``x_float``; an integer ``sym`` gets the nearest integer. Only proposals: the
    gate decides."""
    x = float(x_float)
    if not math.isfinite(x):
        return []
    if getattr(_label_of(sym), "is_integer", False):
        return [sp.Integer(round(x))]
    cands: list[sp.Expr] = []
    tol = rel_tol * max(1.0, abs(x))

    def near(f: fractions.Fraction, scale: float) -> bool:
        return abs(float(f) * scale - x) <= tol

    f = fractions.Fraction(x).limit_denominator(1000)
    if near(f, 1.0):
        cands.append(sp.Rational(f))
    for c in _CONSTANTS:
        cf = float(c)
        f = fractions.Fraction(x / cf).limit_denominator(12)
        if f != 0 and near(f, cf):
            cands.append(sp.Rational(f) * c)
    if x > 0:
        f = fractions.Fraction(math.log(x)).limit_denominator(12)
        if f != 0 and abs(math.exp(float(f)) - x) <= tol:
            cands.append(sp.exp(sp.Rational(f)))
        f = fractions.Fraction(x * x).limit_denominator(100)
        if abs(math.sqrt(float(f)) - x) <= tol:
            cands.append(sp.sqrt(sp.Rational(f)))
    out: list[sp.Expr] = []
    for c in cands:
        if c not in out and not c.is_Float:
            out.append(c)
    return out


# ----------------------------------------------------------------------------- domain


def _label_of(key: Any) -> Any:
    return key.base.label if isinstance(key, sp.Indexed) else key


def _range_of(domain: Any, key: Any) -> tuple[Any, Any] | None:
    if domain is None:
        return None
    ranges = getattr(domain, "ranges", domain)
    lab = _label_of(key)
    if lab in ranges:
        return ranges[lab]
    for s_, r_ in ranges.items():  # a key given by name
        if str(s_) == str(lab):
            return r_
    return None


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
            if isinstance(key, sp.Symbol):
                sub[key] = sp.sympify(v)
            names[str(key)] = sp.sympify(v)
        for c in cons:
            free = c.free_symbols
            if not all(s_ in sub or str(s_) in names for s_ in free):
                continue  # a constraint on symbols the claim does not involve cannot exclude its points
            cv = c.xreplace({s_: sub.get(s_, names.get(str(s_))) for s_ in free})
            if _truth(cv) is not True:
                return False
    return True


# ----------------------------------------------------------------------------- Arb evaluation


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


def _ball(e: sp.Expr, memo: dict) -> arb:  # noqa: C901 - one branch per node type
    """An Arb ball containing the real number ``e`` (no free symbols) at the current precision."""
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
    if e.is_Integer:
        out = arb(fmpz(int(e)))
    elif e.is_Rational:
        out = arb(fmpq(int(e.p), int(e.q)))
    elif e.is_Float:
        out = _ball(sp.Rational(e), memo)
    elif e is sp.pi:
        out = arb.pi()
    elif e is sp.E:
        out = arb.const_e()
    elif e is sp.EulerGamma:
        out = arb.const_euler()
    elif e is sp.Catalan:
        out = arb.const_catalan()
    elif e is sp.GoldenRatio:
        out = (1 + arb(5).sqrt()) / 2
    elif isinstance(e, sp.Add):
        out = arb(0)
        for a in e.args:
            out = out + _ball(a, memo)
    elif isinstance(e, sp.Mul):
        out = arb(1)
        for a in e.args:
            out = out * _ball(a, memo)
    elif isinstance(e, sp.Pow):
        out = _pow(e, memo)
    elif isinstance(e, sp.log):
        if len(e.args) != 1:
            out = _pos(_ball(e.args[0], memo), "log").log() / _pos(_ball(e.args[1], memo), "log").log()
        else:
            out = _pos(_ball(e.args[0], memo), "log").log()
    elif type(e) in _UNARY:
        out = _UNARY[type(e)](_ball(e.args[0], memo))
    elif isinstance(e, (sp.asin, sp.acos)):
        b = _ball(e.args[0], memo)
        if not (b >= -1 and b <= 1):
            raise Undecided(f"{type(e).__name__} of an argument not certainly in [−1, 1]")
        out = b.asin() if isinstance(e, sp.asin) else b.acos()
    elif isinstance(e, sp.acosh):
        b = _ball(e.args[0], memo)
        if not b >= 1:
            raise Undecided("acosh of an argument not certainly ≥ 1")
        out = b.acosh()
    elif isinstance(e, sp.atanh):
        b = _ball(e.args[0], memo)
        if not (b > -1 and b < 1):
            raise Undecided("atanh of an argument not certainly in (−1, 1)")
        out = b.atanh()
    elif isinstance(e, sp.atan2):
        out = _ball(e.args[0], memo).atan2(_ball(e.args[1], memo))
    elif isinstance(e, sp.loggamma):
        out = _pos(_ball(e.args[0], memo), "loggamma").lgamma()
    elif isinstance(e, sp.gamma):
        out = _ball(e.args[0], memo).gamma()
    elif isinstance(e, sp.polygamma) and e.args[0] == 0:
        out = _ball(e.args[1], memo).digamma()
    elif isinstance(e, sp.LambertW) and len(e.args) == 1:
        b = _ball(e.args[0], memo)
        if not b >= -(arb.const_e() ** -1):
            raise Undecided("LambertW of an argument not certainly ≥ −1/e")
        out = b.lambertw()
    elif isinstance(e, sp.Abs):
        out = abs(_ball(e.args[0], memo))
    elif isinstance(e, (sp.Max, sp.Min)):
        bs = [_ball(a, memo) for a in e.args]
        pick = max if isinstance(e, sp.Max) else min
        lo = pick((b.lower() for b in bs), key=lambda t: _Key(t))
        hi = pick((b.upper() for b in bs), key=lambda t: _Key(t))
        out = _hull(lo, hi)
    elif isinstance(e, sp.sign):
        b = _ball(e.args[0], memo)
        if b > 0:
            out = arb(1)
        elif b < 0:
            out = arb(-1)
        elif b.is_exact() and b.is_zero():
            out = arb(0)
        else:
            raise Undecided("sign of a ball around 0")
    elif isinstance(e, sp.Heaviside):
        b = _ball(e.args[0], memo)
        if b > 0:
            out = arb(1)
        elif b < 0:
            out = arb(0)
        else:
            raise Undecided("Heaviside at a ball around 0")
    elif isinstance(e, (sp.floor, sp.ceiling)):
        b = _ball(e.args[0], memo)
        f = b.floor() if isinstance(e, sp.floor) else b.ceil()
        if not f.is_exact():
            raise Undecided(f"{type(e).__name__} of a ball across an integer")
        out = f
    elif isinstance(e, sp.Piecewise):
        out = None
        for expr_, cond in e.args:
            t = _truth_ball(cond, memo)
            if t is None:
                raise Undecided("a Piecewise condition undecided")
            if t:
                out = _ball(expr_, memo)
                break
        if out is None:
            raise Undecided("no Piecewise branch holds")
    elif isinstance(e, (sp.Sum, sp.Product)):
        done = _expand(e)
        if done.has(sp.Sum, sp.Product):
            raise Undecided(f"{type(e).__name__} with non-integer limits")
        out = _ball(done, memo)
    elif isinstance(e, sp.Integral):
        out = _integral(e, memo)
    elif isinstance(e, sp.Derivative):
        done = e.doit()
        if done.has(sp.Derivative):
            raise Undecided("a derivative SymPy does not take")
        out = _ball(done, memo)
    else:
        # a named function of the toolkit (log1p, expm1, …) through its exact rewrite in elementary functions
        alt = next((r for r in (e.rewrite(sp.log), e.rewrite(sp.exp)) if r != e), None)
        if alt is None or type(alt) is type(e):
            raise Undecided(f"no Arb rule for {type(e).__name__}")
        out = _ball(alt, memo)
    out = _ok(out)
    memo[e] = out
    return out


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


# ----------------------------------------------------------------------------- concrete sides


def _expand(e: sp.Expr) -> sp.Expr:
    from .sampling import expand_sums

    return expand_sums(e)


def _floats_exact(e: sp.Expr) -> sp.Expr:
    """Every Float atom as the exact rational it is (its binary value): SymPy's Float arithmetic rounds."""
    fl = e.atoms(sp.Float)
    if not fl:
        return e
    return e.xreplace({f: sp.Rational(f) for f in fl})


@functools.lru_cache(maxsize=64)
def _names(exprs: tuple) -> tuple[dict[str, Any], dict[str, Any]]:
    """The symbols and entries (by name) and the entry bases (by name) of ``exprs``."""
    names: dict[str, Any] = {}
    bases: dict[str, Any] = {}
    for e in exprs:
        for s_ in e.free_symbols:
            names.setdefault(str(s_), s_)
        for a in e.atoms(sp.Indexed):
            names.setdefault(str(a), a)
        for b_ in e.atoms(sp.IndexedBase):
            bases.setdefault(str(b_), b_)
    return names, bases


def _keyed(point: Mapping[Any, Any], exprs: Iterable[sp.Expr]) -> dict[Any, sp.Expr]:
    """``point`` keyed by the symbols and entries of ``exprs`` (a key may be a name such as "x" or "a[2]")."""
    out: dict[Any, sp.Expr] = {}
    if all(isinstance(key, (sp.Symbol, sp.Indexed)) for key in point):
        return {key: parse_exact(v) for key, v in point.items()}
    names, bases = _names(tuple(exprs))
    for key, v in point.items():
        if isinstance(key, (sp.Symbol, sp.Indexed)):
            out[key] = parse_exact(v)
            continue
        k_ = str(key)
        if k_ in names and isinstance(names[k_], (sp.Symbol, sp.Indexed)):
            out[names[k_]] = parse_exact(v)
            continue
        m = re.fullmatch(r"\s*([A-Za-z_]\w*)\[([\d,\s]+)\]\s*", k_)
        if m and m.group(1) in bases:
            idx = [sp.Integer(int(t)) for t in m.group(2).split(",")]
            out[bases[m.group(1)][tuple(idx) if len(idx) > 1 else idx[0]]] = parse_exact(v)
            continue
        out[sp.Symbol(k_)] = parse_exact(v)  # not in the claim: kept for the domain check only
    return out


#: ``_concrete`` forms per (expression, integer values of its structural symbols)
_CONCRETE: dict[tuple, sp.Expr] = {}


@functools.lru_cache(maxsize=256)
def _structural(e: sp.Expr) -> frozenset:
    """The symbols in the limits of ``e``'s sums and products (a vector's length k)."""
    from .sampling import _structural_ints

    return frozenset(_structural_ints(e))


def _concrete(e: sp.Expr, point: Mapping[Any, sp.Expr]) -> sp.Expr:
    """``e`` ready for ``_ball`` at ``point``: Floats exact, the point's integers substituted (sums get integer
    limits), sums written out, derivatives taken (exact; integrals are left to Arb's quadrature). The other
    coordinates are read by ``_ball`` from the memo (no SymPy substitution: x^(10^9) at 1/2 would be evaluated
    exactly). Memoised per expression and integers. Raises ``ValueError`` naming a symbol the point leaves free."""
    struct = _structural(e)  # only the integers that fix sums' limits are substituted; the rest are read
    ints = {k_: v for k_, v in point.items() if k_ in struct and v.is_Integer}
    key = (e, frozenset(ints.items()))
    hit = _CONCRETE.get(key)
    if hit is None:
        out = _floats_exact(sp.sympify(e))
        used = {k_: v for k_, v in ints.items() if k_ in out.free_symbols}
        if used:
            out = out.xreplace(used)
        if out.has(sp.Sum, sp.Product):
            out = _expand(out)
        if out.has(sp.Derivative):  # derivatives taken (exact), integrals left to Arb's rigorous quadrature
            out = out.replace(lambda n: isinstance(n, sp.Derivative), lambda n: n.doit())
        if out.has(sp.Subs):  # a substitution carried out (exact), e.g. a moment as the CGF's derivative at 0
            out = out.replace(lambda n: isinstance(n, sp.Subs), lambda n: n.doit())
        if len(_CONCRETE) > 512:
            _CONCRETE.clear()
        labels = {b_.label for b_ in out.atoms(sp.IndexedBase)}
        needs = frozenset({x_ for x_ in out.free_symbols if x_ not in labels} | out.atoms(sp.Indexed))
        hit = _CONCRETE[key] = (out, needs)
    out, needs = hit
    left = {x_ for x_ in needs if x_ not in point}
    if left:
        raise ValueError(f"point leaves {sorted(map(str, left))} free")
    return out


def _substituted(e: sp.Expr, point: Mapping[Any, sp.Expr]) -> sp.Expr:
    """``e`` with the point substituted and SymPy's exact evaluation on (for the exact equality test only)."""
    return e.xreplace({k_: v for k_, v in point.items() if isinstance(k_, sp.Indexed)}).xreplace(
        {k_: v for k_, v in point.items() if isinstance(k_, sp.Symbol)}
    )


def _small(e: sp.Expr, cap: int = _EXACT_NODE_CAP) -> bool:
    n = 0
    for node in sp.preorder_traversal(e):
        n += 1
        if n > cap:
            return False
        if isinstance(node, sp.Pow) and node.exp.is_Integer and abs(int(node.exp)) > _EXACT_EXPONENT_CAP:
            return False
    return True


def _reeval(e: sp.Expr) -> sp.Expr:
    """``e`` rebuilt node by node with SymPy's automatic (exact) evaluation on."""
    if not e.args:
        return e
    return e.func(*[_reeval(a) for a in e.args])


def _exactly_zero(d: sp.Expr) -> bool:
    """``d`` (a closed-form number) is 0, shown by exact rewrites only: evaluation (rational arithmetic,
    log(e) = 1, …), ``expand``, and ``expand`` after ``rewrite(exp)`` for trig/hyperbolic functions. False means
    "not shown"."""
    if not _small(d) or d.has(sp.Integral, sp.Derivative, sp.Sum, sp.Product):
        return False
    try:
        d = _reeval(sp.sympify(d))  # evaluates what evaluate(False) left unevaluated, exactly
        if d == 0:
            return True
        if d.is_Rational:
            return False
        # expand only (after rewrite(exp) for trig/hyperbolic functions): cancel's polynomial gcd on the huge
        # integers of a grouped point at k ~ 10⁹ died of SIGFPE inside the ground types
        forms = [d]
        if d.has(sp.sin, sp.cos, sp.tan, sp.sinh, sp.cosh, sp.tanh):
            forms.append(d.rewrite(sp.exp))
        return any(sp.expand(f_) == 0 for f_ in forms)
    except Exception:  # noqa: BLE001 - an exact rewrite failing deep inside SymPy shows nothing
        return False


# ----------------------------------------------------------------------------- the gate


def _dec(x: arb, digits: int, up: bool) -> str:
    """An exact Arb point as a decimal string with ``digits`` significant digits, rounded down or up."""
    if x.is_zero():
        return "0"
    man, exp = x.man_exp()
    if abs(int(exp)) > 4000:  # 2^exp exactly would be a number of millions of digits (x^(10^8) at x = 2)
        return _dec_huge(x, digits, up)
    q = fractions.Fraction(int(man)) * (fractions.Fraction(2) ** int(exp))
    neg = q < 0
    a = -q if neg else q
    e10 = math.floor(math.log10(a.numerator) - math.log10(a.denominator)) if a else 0
    # correct the estimate
    while a >= fractions.Fraction(10) ** (e10 + 1):
        e10 += 1
    while a < fractions.Fraction(10) ** e10:
        e10 -= 1
    scale = fractions.Fraction(10) ** (digits - 1 - e10)
    v = a * scale
    toward_up = up != neg  # rounding |x| up when (x up and positive) or (x down and negative)
    n = math.ceil(v) if toward_up else math.floor(v)
    s = str(n)
    exp10 = e10 - digits + len(s)  # a carry (9.99… rounded up to 10.0…) adds a digit
    frac = s[1:].rstrip("0")
    return f"{'-' if neg else ''}{s[0]}{'.' + frac if frac else ''}e{exp10}"


def _dec_huge(x: arb, digits: int, up: bool) -> str:
    """``_dec`` for a point of huge or tiny magnitude, by Arb: the decimal exponent from an enclosure of
    log10|x|, the mantissa from an enclosure of |x|·10^(digits−1−e10), rounded outward from its ball."""
    neg = x < 0
    a = -x if neg else x
    old = ctx.prec
    ctx.prec = max(old, 4 * digits + 128)
    try:
        lg = a.log() / arb(10).log()
        e10 = int(lg.floor().upper().man_exp()[0]) * 2 ** int(lg.floor().upper().man_exp()[1])
        v = a * arb(10) ** (digits - 1 - e10)
        toward_up = up != neg
        end = v.upper() if toward_up else v.lower()
        n = end.ceil() if toward_up else end.floor()
        man, ex = n.upper().man_exp()
        n_int = int(man) * 2 ** int(ex)
    finally:
        ctx.prec = old
    if n_int == 0:  # |x| rounded down to nothing: 0 is still on the right side of x
        return "0"
    s_ = str(n_int)
    exp10 = e10 - digits + len(s_)
    frac = s_[1:].rstrip("0")
    return f"{'-' if neg else ''}{s_[0]}{'.' + frac if frac else ''}e{exp10}"


def _pair(b: arb, digits: int) -> tuple[str, str]:
    return _dec(b.lower(), digits, False), _dec(b.upper(), digits, True)


def _mid(b: arb) -> str:
    return b.mid().str(20, radius=False)


@dataclass(frozen=True)
class Counterexample:
    """An exact point where ``lhs relation rhs`` is false, with the Arb enclosures (outward decimals) of both
    sides that show it at ``bits`` of precision; ``equal_exactly`` for a strict claim whose sides are equal."""

    point: Mapping[str, str]
    lhs: tuple[str, str]
    rhs: tuple[str, str]
    relation: str
    equal_exactly: bool
    bits: int
    lhs_value: str = ""
    rhs_value: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """The counterexample as JSON: the coordinates (exact strings), ``lhs``/``rhs`` (20-digit values),
        ``lhs_enclosure``/``rhs_enclosure`` (outward decimal pairs), ``relation``, ``equal_exactly``, ``bits``."""
        return {
            **dict(self.point),
            **dict(self.extra),
            "lhs": self.lhs_value or self.lhs[0],
            "rhs": self.rhs_value or self.rhs[0],
            "lhs_enclosure": list(self.lhs),
            "rhs_enclosure": list(self.rhs),
            "relation": self.relation,
            "equal_exactly": self.equal_exactly,
            "bits": self.bits,
        }

    def replay(self, lhs: sp.Expr, rhs: sp.Expr, relation: str | None = None, domain: Any = None) -> bool:
        """The gate again at this point: True when it still refutes ``lhs relation rhs``."""
        return replay(self.as_dict(), lhs, rhs, relation or self.relation, domain)


def _verdict(lb: arb, rb: arb, relation: str) -> str:
    """'wrong' (certainly false), 'right' (certainly true) or 'overlap' at these enclosures."""
    if relation in (">=", ">"):
        lb, rb = rb, lb
        relation = "<=" if relation == ">=" else "<"
    if relation == "<=":
        if lb > rb:
            return "wrong"
        if lb <= rb:
            return "right"
        return "overlap"
    if relation == "<":
        if lb >= rb:  # certainly ≥: certainly greater, or both the same exact number
            return "wrong"
        if lb < rb:
            return "right"
        return "overlap"
    # "="
    if not lb.overlaps(rb):
        return "wrong"
    if lb.is_exact() and rb.is_exact() and lb == rb:
        return "right"
    return "overlap"


def confirm(
    lhs: Any,
    rhs: Any,
    relation: str,
    point: Mapping[Any, Any],
    *,
    domain: Any = None,
    max_bits: int = 4096,
) -> Counterexample | None:
    """The gate: a ``Counterexample`` when ``lhs relation rhs`` is certainly false at the exact ``point``.

    ``lhs``/``rhs``: SymPy expressions whose sums have integer limits once the point's integers are
    substituted; ``relation`` one of ``RELATIONS`` (for "=": refuted iff the enclosures are disjoint);
    ``point``: symbol, entry (or their names) → exact number (int, Rational, a decimal or ``p/q`` string,
    or a closed form such as ``E``; a Python float is taken as its exact binary value); ``domain``: a
    ``ledger.Domain`` (or mapping symbol → (lo, hi)) the point must lie in, decided exactly; ``max_bits``:
    the highest Arb precision tried (64, 128, … up to it). ``None``: undecided, or true at the point."""
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, got {relation!r}")
    if not isinstance(max_bits, int) or max_bits < 64:
        raise ValueError(f"max_bits must be an integer ≥ 64, got {max_bits!r}")
    lhs, rhs = sp.sympify(lhs), sp.sympify(rhs)
    pt = _keyed(point, [lhs, rhs])
    if domain is not None and not in_domain(pt, domain):
        return None
    try:
        L, R = _concrete(lhs, pt), _concrete(rhs, pt)
    except ValueError:
        raise
    except Exception:  # noqa: BLE001 - SymPy failing to write the claim out at the point: undecided
        return None
    strict = relation in ("<", ">")
    tried_exact = False
    bits = 64
    while bits <= max_bits:
        with _prec(bits):
            try:
                memo: dict = {_ENV: pt}
                lb, rb = _ball(L, memo), _ball(R, memo)
            except (Undecided, ZeroDivisionError, ValueError, TypeError, OverflowError):
                lb = rb = None
            if lb is not None:
                v = _verdict(lb, rb, relation)
                if v == "wrong":
                    equal = strict and lb.is_exact() and rb.is_exact() and lb == rb
                    return _build(pt, lb, rb, relation, equal, bits)
                if v == "right":
                    return None
                if not tried_exact and strict:  # only a strict claim is refuted by equal sides
                    tried_exact = True
                    if _small(L) and _small(R) and _exactly_zero(_substituted(L, pt) - _substituted(R, pt)):
                        return _build(pt, lb, rb, relation, True, bits)
        bits *= 2
    return None


def _build(pt: Mapping, lb: arb, rb: arb, relation: str, equal: bool, bits: int) -> Counterexample:
    digits = 20
    while True:  # enough digits that the printed enclosures show what the balls showed
        lp, rp = _pair(lb, digits), _pair(rb, digits)
        if equal or digits >= 400 or _shows(lp, rp, relation):
            break
        digits *= 2
    return Counterexample(
        point={str(k_): _coord(k_, v) for k_, v in pt.items()},
        lhs=lp,
        rhs=rp,
        relation=relation,
        equal_exactly=bool(equal),
        bits=bits,
        lhs_value=_mid(lb),
        rhs_value=_mid(rb),
    )


def _coord(key: Any, v: sp.Expr) -> str:
    """A coordinate as printed: ``format_exact``, a whole value of a real (not integer) symbol as "3.0" (the
    falsifier's points always printed so; "3.0" reads back as exactly 3)."""
    txt = format_exact(v)
    if v.is_Integer and not getattr(_label_of(key), "is_integer", False):
        txt += ".0"
    return txt


def _shows(lp: tuple[str, str], rp: tuple[str, str], relation: str) -> bool:
    lo_l, hi_l = (sp.Rational(s) for s in lp)
    lo_r, hi_r = (sp.Rational(s) for s in rp)
    if relation == "<=":
        return bool(lo_l > hi_r)
    if relation == "<":
        return bool(lo_l >= hi_r)
    if relation == ">=":
        return bool(lo_r > hi_l)
    if relation == ">":
        return bool(lo_r >= hi_l)
    return bool(lo_l > hi_r or lo_r > hi_l)


def replay(
    counterexample: Mapping[str, Any],
    lhs: Any,
    rhs: Any,
    relation: str,
    domain: Any = None,
    *,
    max_bits: int | None = None,
) -> bool:
    """Re-run the gate from a counterexample dict alone (its coordinates, every key but ``RESERVED``):
    True when ``lhs relation rhs`` is refuted there again (at up to the dict's ``bits``, at least 4096)."""
    point = {k_: v for k_, v in counterexample.items() if k_ not in RESERVED}
    bits = max_bits or max(4096, int(counterexample.get("bits", 0) or 0))
    return confirm(lhs, rhs, relation, point, domain=domain, max_bits=bits) is not None


def confirm_float_point(
    lhs: Any,
    rhs: Any,
    relation: str,
    float_point: Mapping[Any, Any],
    *,
    domain: Any = None,
    closed_forms: bool = False,
    max_bits: int = 4096,
    closed_tol: float = 1e-12,
    at_point: bool = True,
) -> Counterexample | None:
    """The gate at the exact points a float point proposes: ``exact_point`` (range ends, shortest decimals),
    then the floats' binary values, then (``closed_forms``: a strict claim whose float margin is ≈ 0 there)
    nearby closed forms of each coordinate (``closed_form_candidates``), one coordinate at a time and all
    together (``at_point`` False: the closed forms only). The first counterexample the gate confirms, or None."""
    tried: list[dict] = []

    def attempt(p: dict) -> Counterexample | None:
        if p in tried:
            return None
        tried.append(p)
        try:
            return confirm(lhs, rhs, relation, p, domain=domain, max_bits=max_bits)
        except ValueError:
            return None

    try:
        base = exact_point(float_point, domain)
    except (ValueError, TypeError):
        return None
    if at_point:
        # the floats' binary values only where the decimals leave the domain (a decimal is as good a
        # proposal as the float it reads back to; asking twice costs a second evaluation per point)
        p = base if domain is None or in_domain(base, domain) else exact_point_binary(float_point)
        cx = attempt(p)
        if cx is not None:
            return cx
    if closed_forms:
        alts = {}
        for key, x in float_point.items():
            if isinstance(x, (int, sp.Integer)):
                continue
            c = [v for v in closed_form_candidates(key, float(x), closed_tol) if v != base[key]]
            if c:
                alts[key] = c
        for key, cs in alts.items():
            for c in cs[:4]:
                cx = attempt({**base, key: c})
                if cx is not None:
                    return cx
        if len(alts) > 1:
            cx = attempt({**base, **{k_: cs[0] for k_, cs in alts.items()}})
            if cx is not None:
                return cx
    return None
