"""Certified evaluation: a rigorous interval ``[lo, hi] ∋ expr(params)`` (Arb balls, python-flint).

What the toolkit prints as a bound is ``hi`` rounded *up* to the printed digits, so no printed
bound is understated. Each evaluation also computes the float value of the same expression
(``sympy.lambdify`` with the ``math`` module) and checks ``float ∈ [lo₅₃, hi₅₃]``, the enclosure
computed at the float's own precision (53 bits): every float operation of the lambdified tree is
a correctly (or faithfully) rounded version of an operation the interval evaluator encloses
outward, so a float outside that interval means the float route and the symbolic route disagree
(a codegen or transcription bug), never mere rounding: ``certify`` raises ``CertificationError``.
When the float overflows (``τ = 1e-3`` gives ``e^{2000}``), the certified interval is still
returned and printed in scientific form; ``float_value`` is then ``inf`` and ``overflow`` is true.
If the float overflows although the value itself fits in a float (an intermediate ``e^{2000}``
in a form that is not float-stable), ``intermediate_overflow`` is true: the interval result
stands, and the expression deserves a stable rewrite. A value below the normal float range (|x| < 2.2e-308)
has a float of 0.0 or a subnormal: ``underflow`` is true, and the check asks only that the float be that small
too (an intermediate underflow of a value that fits, 0.0 for 1e-200, still fails it).

Parameters are converted to exact rationals first: a decimal string ``"0.1"`` becomes ``1/10``
exactly, an ``int`` stays exact, a ``float`` is read through its shortest ``repr`` (so ``0.1``
also becomes ``1/10``, the number the user typed).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import mpmath
import sympy as sp

from infonce_bounds.derivations.intervals import NotEnclosable, interval_eval, iv_prec

#: working precision (bits) of the tight enclosure whose upper end is printed
TIGHT_BITS = 120
#: precision of the enclosure the float value is checked against (the float's own)
FLOAT_BITS = 53


class CertificationError(ValueError):
    """The float value of an expression lies outside its certified interval (a real bug)."""


def exact(value: Any, name: str = "value") -> sp.Rational:
    """``value`` as an exact SymPy rational; decimal strings are read exactly (``"0.1"`` → 1/10).

    Raises ``ValueError`` naming ``name`` for non-numeric or non-finite input.
    """
    if isinstance(value, sp.Basic):
        val = sp.nsimplify(value) if isinstance(value, sp.Float) else value
        if val.is_Rational:
            return sp.Rational(val)
        raise ValueError(f"{name} must be an exact number, got {value!r}")
    if isinstance(value, bool):  # a flag is not a parameter value; ValueError so the CLI reports it in one line
        raise ValueError(f"{name} must be a number, got {value!r}")  # noqa: TRY004
    if isinstance(value, int):
        return sp.Integer(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
        return sp.Rational(repr(value))
    if isinstance(value, mpmath.mpf):
        if not mpmath.isfinite(value):
            raise ValueError(f"{name} must be a finite number, got {value!r}")
        sign, man, exp, _ = value._mpf_
        return (-1) ** sign * sp.Integer(man) * sp.Integer(2) ** exp
    text = str(value).strip()
    try:
        out = sp.Rational(text)
    except (TypeError, ValueError, SyntaxError, sp.SympifyError):
        raise ValueError(f"{name} must be a number, got {value!r}") from None
    if not out.is_Rational:  # pragma: no cover - Rational() returns rationals or raises
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return out


@dataclass
class Certified:
    """A certified enclosure ``lo ≤ value ≤ hi`` of ``expr`` at ``params``, with its float value."""

    name: str
    expr: sp.Expr
    params: dict
    lo: Any  #: lower end (``mpmath.mpf``), outward rounded
    hi: Any  #: upper end (``mpmath.mpf``), outward rounded
    float_value: float  #: lambdified float value (``inf`` when it overflows)
    float_lo: Any = None  #: 53-bit enclosure the float is checked against
    float_hi: Any = None
    meta: dict = field(default_factory=dict)

    @property
    def overflow(self) -> bool:
        """True when the float route cannot represent the value (overflow, inf or nan)."""
        return not math.isfinite(self.float_value)

    @property
    def underflow(self) -> bool:
        """True when the value lies below the normal float range (|value| < 2.2e-308, e.g. a complexity term at
        n = 1e300 and τ = 100): the float route keeps few digits there (subnormals) or none (0.0)."""
        return math.isfinite(self.float_value) and bool(max(abs(self.float_lo), abs(self.float_hi)) < _FLOAT_TINY)

    @property
    def float_in_interval(self) -> bool:
        """``float ∈ [lo₅₃, hi₅₃]``; when the float overflows, true iff the interval really is beyond
        the float range (so an overflow is never a disguised wrong formula); when the value underflows, true iff
        the float is below the normal range too (0.0 or a subnormal: it cannot hold the 53-bit enclosure)."""
        if self.overflow:
            return bool(abs(self.float_hi) > _FLOAT_MAX or abs(self.float_lo) > _FLOAT_MAX)
        if self.underflow:
            return abs(self.float_value) < sys.float_info.min
        return bool(self.float_lo <= self.float_value <= self.float_hi)

    @property
    def intermediate_overflow(self) -> bool:
        """The float route overflowed (inf/nan) although the value itself fits in a float: the
        expression is not written in a float-stable form; the certified interval is still exact."""
        return self.overflow and not self.float_in_interval

    @property
    def upper(self) -> Any:
        """The certified upper bound (what the toolkit prints)."""
        return self.hi

    def upper_str(self, digits: int = 6) -> str:
        """``hi`` rounded *up* to ``digits`` significant digits, scientific when large or small."""
        return format_up(self.hi, digits)

    def lower_str(self, digits: int = 6) -> str:
        return format_down(self.lo, digits)

    def as_dict(self, digits: int = 6) -> dict:
        return {
            "name": self.name,
            "upper": self.upper_str(digits),
            "interval": [self.lower_str(digits), self.upper_str(digits)],
            "float": None if self.overflow else self.float_value,
            "float_overflows": self.overflow,
            "float_in_interval": self.float_in_interval,
            "float_intermediate_overflow": self.intermediate_overflow,
            **self.meta,
        }


_FLOAT_MAX = mpmath.mpf(sys.float_info.max)
#: the smallest normal float: below it a float has fewer than 53 bits (or is 0)
_FLOAT_TINY = mpmath.mpf(sys.float_info.min)


def _params_exact(params: Mapping) -> dict:
    return {sym: exact(val, str(sym)) for sym, val in params.items()}


def enclose(expr: sp.Expr, params: Mapping, bits: int = TIGHT_BITS) -> tuple[Any, Any]:
    """``(lo, hi)`` enclosing ``expr`` at the exact parameter values ``params`` (symbol → number)."""
    ex = _params_exact(params)
    expr = sp.sympify(expr)
    missing = {s for s in expr.free_symbols if s not in ex}
    if missing:
        raise ValueError(f"no value given for {sorted(map(str, missing))}")
    box = {s: (v, v) for s, v in ex.items() if s in expr.free_symbols}
    # Why the loop: a ball's radius grows with the size of an exponent (e^{2/τ} at τ = 1e-50 needs
    # ≈ 170 more bits than at τ = 1, and at τ = 1e-300 ≈ 1000 more, or the enclosure is [−∞, ∞]), so the
    # working precision is doubled until the enclosure is as tight as ``bits`` asks (or MAX_BITS).
    work = bits
    while True:
        with iv_prec(work):
            val = interval_eval(expr, box)
        # the endpoints are exact Arb points converted to mpmath without rounding (``Interval.a/.b``)
        lo, hi = val.a, val.b
        if mpmath.isnan(lo) or mpmath.isnan(hi):
            raise NotEnclosable(f"enclosure of {expr} is nan")
        if work >= MAX_BITS or _tight(lo, hi, bits):
            return lo, hi
        work *= 2


#: the largest working precision ``enclose`` doubles up to (e^{2/τ} at τ = 1e-300 needs ≈ 1100 bits)
MAX_BITS = 8192


def _tight(lo, hi, bits: int) -> bool:
    """Finite ends whose gap is below 2^{−bits/2} relative (or absolute, near 0)."""
    if not (mpmath.isfinite(lo) and mpmath.isfinite(hi)):
        return False
    scale = max(abs(lo), abs(hi), mpmath.mpf(1))
    return (hi - lo) <= scale * mpmath.ldexp(1, -(bits // 2))


@lru_cache(maxsize=512)
def _lambdified(expr: sp.Expr):
    syms = sorted(expr.free_symbols, key=str)
    return syms, sp.lambdify(syms, expr, modules="math")


def float_value(expr: sp.Expr, params: Mapping) -> float:
    """The lambdified float value of ``expr`` (``math`` module); ``inf``/``nan`` on overflow."""
    expr = sp.sympify(expr)
    syms, fn = _lambdified(expr)
    args = [float(params[s]) if not isinstance(params[s], str) else float(exact(params[s], str(s))) for s in syms]
    try:
        out = float(fn(*args))
    except OverflowError:
        return math.inf
    except (ValueError, ZeroDivisionError):
        return math.nan
    return out


def certify(
    expr: sp.Expr, params: Mapping, name: str = "", check: bool = True, bits: int = TIGHT_BITS, **meta: Any
) -> Certified:
    """Certified enclosure of ``expr`` at ``params`` plus its float value, cross-checked.

    Parameters
    ----------
    expr : SymPy expression; every free symbol must have a value in ``params``.
    params : mapping symbol → number (exact decimal strings, ints, floats or SymPy rationals).
    name : label carried into the result.
    check : raise ``CertificationError`` when the float lies outside the 53-bit enclosure.
    bits : precision of the tight enclosure whose upper end is printed.

    Returns
    -------
    Certified
    """
    expr = sp.sympify(expr)
    ex = _params_exact(params)
    lo, hi = enclose(expr, ex, bits)
    flo, fhi = enclose(expr, ex, FLOAT_BITS)
    fv = float_value(expr, ex)
    out = Certified(name or str(expr), expr, ex, lo, hi, fv, flo, fhi, dict(meta))
    if check and not out.overflow and not out.float_in_interval:
        raise CertificationError(
            f"{out.name}: float value {fv!r} lies outside its certified interval [{flo}, {fhi}] at "
            + ", ".join(f"{s}={v}" for s, v in ex.items())
        )
    return out


def exact_str(value: sp.Rational) -> str:
    """An exact rational as a terminating decimal when it is one (``1/10`` → ``"0.1"``), else ``"p/q"``."""
    r = sp.Rational(value)
    q, twos, fives = int(r.q), 0, 0
    while q % 2 == 0:
        q //= 2
        twos += 1
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q != 1:
        return f"{r.p}/{r.q}"
    places = max(twos, fives)
    if places == 0:
        return str(r.p)
    digits = str(abs(int(r * 10**places))).rjust(places + 1, "0")
    return ("-" if r < 0 else "") + digits[:-places] + "." + digits[-places:]


def short_str(value: Any, width: int = 24) -> str:
    """An exact rational for a line of text: ``exact_str`` when it has at most ``width`` characters, else
    ``m·10^e`` written ``"me±E"`` when the value is one exactly (``10^300`` → ``"1e300"``, ``10^-300`` →
    ``"1e-300"``), else ``"≈ "`` and six significant digits (the JSON keeps ``exact_str``)."""
    text = exact_str(value)
    if len(text) <= width:
        return text
    r = sp.Rational(value)
    num, den = abs(int(r.p)), int(r.q)
    e = 0
    if den == 1:
        while num % 10 == 0:
            num //= 10
            e += 1
    else:
        while den % 10 == 0 and den > 1:
            den //= 10
            e -= 1
        if den != 1:
            num = None
    if num is not None and len(str(num)) <= 12:
        return f"{'-' if r < 0 else ''}{num}e{e}"
    return "≈ " + _fmt(r, 6, up=True)


def format_up(x: Any, digits: int = 6) -> str:
    """Decimal string ≥ ``x`` with ``digits`` significant digits (scientific outside [1e-3, 1e6))."""
    return _fmt(x, digits, up=True)


def format_down(x: Any, digits: int = 6) -> str:
    """Decimal string ≤ ``x`` with ``digits`` significant digits."""
    return _fmt(x, digits, up=False)


def _fmt(x: Any, digits: int, up: bool) -> str:
    x = mpmath.mpf(x)
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    # exact decimal directed rounding: x = m · 10^e with m an integer of `digits` digits
    neg = x < 0
    ax = -x if neg else x
    if abs(int(mpmath.mag(ax))) > _EXACT_MAG:
        return _fmt_far(ax, digits, up != neg, "-" if neg else "")
    with mpmath.workprec(max(64, int(mpmath.mag(ax)) + 64)):
        e = int(mpmath.floor(mpmath.log10(ax))) - digits + 1
    man, ex2 = ax.man_exp
    rx = sp.Integer(man) * sp.Integer(2) ** ex2
    scaled = rx / sp.Integer(10) ** e if e >= 0 else rx * sp.Integer(10) ** (-e)
    toward_up = up != neg  # rounding the magnitude up when the signed value rounds up
    m = int(sp.ceiling(scaled)) if toward_up else int(sp.floor(scaled))
    if m >= 10**digits:  # log10 estimate was one low
        e += 1
        scaled = scaled / 10
        m = int(sp.ceiling(scaled)) if toward_up else int(sp.floor(scaled))
    elif m < 10 ** (digits - 1):
        e -= 1
        scaled = scaled * 10
        m = int(sp.ceiling(scaled)) if toward_up else int(sp.floor(scaled))
    sign = "-" if neg else ""
    exp10 = e + digits - 1  # exponent of the leading digit
    mant = str(m)
    if -3 <= exp10 < 6:
        val = sp.Integer(m) * sp.Rational(10) ** e
        dec = max(0, -e)
        s = f"{int(val * 10**dec)}"
        if dec:
            s = s.rjust(dec + 1, "0")
            s = s[:-dec] + "." + s[-dec:]
            s = s.rstrip("0").rstrip(".")
        return sign + s
    body = mant[0] + ("." + mant[1:].rstrip("0") if mant[1:].rstrip("0") else "")
    return f"{sign}{body}e{exp10:+d}"


#: beyond 2^±3000 (10^±903) ``_fmt`` rounds through an interval enclosure instead of exact integers: the exact
#: route's integers grow with the exponent (τ = 1e-20 gives e^{2·10²⁰}, an integer of 10²⁰ digits)
_EXACT_MAG = 3000


def _fmt_far(ax: Any, digits: int, toward_up: bool, sign: str) -> str:
    """``_fmt`` for magnitudes beyond 2^±``_EXACT_MAG``: the mantissa m = ax/10^e is enclosed in an
    outward-rounded interval and rounded from its upper (lower) end, so the result is still ≥ (≤) ax;
    it may be one unit in the last digit looser than the exact route, never on the wrong side."""
    # 10^e with |e| ~ 10^j loses j·log2(10) bits to the exponent: carry that many more
    bits = 4 * digits + 64 + int(mpmath.mag(abs(int(mpmath.mag(ax))) + 1)) + 8
    with mpmath.workprec(bits):
        e = int(mpmath.floor(mpmath.log10(ax))) - digits + 1
    with iv_prec(bits):
        for _ in range(3):  # the log10 estimate may be one off in either direction
            scaled = mpmath.iv.mpf(ax) / mpmath.iv.mpf(10) ** e
            lo, hi = scaled.a, scaled.b
            m = int(mpmath.ceil(hi)) if toward_up else int(mpmath.floor(lo))
            if m >= 10**digits:
                e += 1
            elif m < 10 ** (digits - 1):
                e -= 1
            else:
                break
    mant = str(m)
    body = mant[0] + ("." + mant[1:].rstrip("0") if mant[1:].rstrip("0") else "")
    return f"{sign}{body}e{e + digits - 1:+d}"


def certify_theorem(params: Mapping, loss: str = "dcl") -> dict[str, Certified]:
    """Certified Theorem-1 components at ``params`` (symbol → value; γ must be given, γ ≥ 1/τ).

    Returns ``{"sample_variability", "complexity", "finite_k_bias", "bound"}`` → ``Certified``; the
    upper ends are what ``infonce-bounds constants`` prints. Example::

        from infonce_bounds.derivations.symbols import tau, gamma, k, n, delta, L, p, R
        certify_theorem({tau: "0.5", gamma: 4, k: 256, n: 50000, delta: "0.05", L: 1, p: 10000, R: 1})
    """
    from infonce_bounds.derivations import theorem
    from infonce_bounds.derivations.symbols import gamma, tau

    ex = _params_exact(params)
    if gamma in ex and tau in ex and ex[gamma] * ex[tau] < 1:
        raise ValueError(f"gamma = {ex[gamma]} is out of range; allowed: γ ≥ 1/τ = {exact_str(1 / ex[tau])}")
    out = {}
    for name, term in theorem.theorem_terms(loss=loss).items():
        sub = {s: v for s, v in ex.items() if s in term.expr.free_symbols}
        out[name] = certify(term.expr, sub, name=name, provenance=term.provenance, rate=term.rate, show=term.show)
    return out
