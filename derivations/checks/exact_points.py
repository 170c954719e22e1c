"""Exact points for the refutation gate (``refute.confirm``) and the claim's sides made concrete there.

* points: ``format_exact``/``parse_exact`` (a coordinate as exact text and back), ``exact_point`` and
  ``exact_point_binary`` (the shortest decimal or dyadic rational near a float, range ends snapped, integer
  symbols rounded), ``closed_form_candidates`` (E, π, √2, exp(1/3), … near a float, for strict claims);
* concrete sides: a side with the point substituted and its structural integers (sum lengths) expanded
  (``_concrete``), and ``_exactly_zero``: a gap that exact SymPy rewrites (rational arithmetic, ``expand``,
  ``cancel``; never a tolerance) reduce to 0, tried only on small expressions (``_small``).
"""

from __future__ import annotations

import fractions
import functools
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

import sympy as sp

#: exponents above this are not expanded exactly (x^(10^9) at x = 1/2 is a 10⁹-bit rational): the exact
#: equality test is skipped there (the Arb enclosures still decide)
_EXACT_EXPONENT_CAP = 10_000


#: the exact equality test only runs on expressions of at most this many nodes (expand of a written-out
#: k = 12 vector claim can take seconds; the Arb enclosures still decide)
_EXACT_NODE_CAP = 400


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
