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
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp
from flint import arb, ctx

from .enclosures import _ENV, Undecided, _ball, _prec, in_domain
from .exact_points import (
    _concrete,
    _exactly_zero,
    _keyed,
    _label_of,
    _small,
    _substituted,
    closed_form_candidates,
    exact_point,
    exact_point_binary,
    format_exact,
    parse_exact,
)

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
