"""Numeric pre-screen of a symbolic proof attempt: a point *allowed by the symbols' assumptions* where
``lhs ≠ rhs`` (identity) or ``small > big`` (inequality), certain by Arb enclosures at 50 digits.

SymPy reasons from the symbols' assumptions only (``tau`` positive, ``x`` real, ``k`` a positive
integer), never from a step's stated domain. A reduction of ``lhs − rhs`` to 0 is an equality of
functions wherever both sides are defined under those assumptions, and ``gap.is_nonnegative`` is a
statement for every value they allow. So where the claim fails at a point the assumptions allow
(typically outside the stated domain: ``x ≤ 1``, stated on [0, 1] for a real x, fails at x = 2),
no sound simplification can reach 0 and no sound sign deduction can say ≥ 0: the
attempt (``simplify``, often the most expensive call of a check) is futile and is skipped. The
pre-screen never *proves* anything and never refutes a claim; it only spares an attempt whose
failure is certain, and the verdict then rests on the remaining checks exactly as if SymPy had
failed. The failure at a point is decided with the rigorous Arb enclosures of ``intervals`` (a
value lost to cancellation is a wide enclosure and decides nothing); points where a side is
undefined, infinite or not enclosable are not used.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import sympy as sp

from .. import intervals
from ..ledger import Domain, assumption_range, free_names
from .sampling import Evaluator, _structural_ints

#: magnitudes tried for every scalar (signed as its assumptions allow), jittered per draw
_SCALES = (0.001, 0.05, 0.3, 0.7, 1.0, 1.6, 3.0, 7.0, 20.0, 200.0)


def _draw(sym: sp.Symbol, rng: random.Random, domain: Domain, structural: bool, k_cap: int) -> Any:
    """A value of ``sym`` allowed by its assumptions: 30% of the time from the stated domain (another
    symbol may carry the failure), else a signed magnitude from ``_SCALES``."""
    lo, hi = assumption_range(sym)
    if sym.is_integer:
        lo_i = int(lo) if lo.is_finite else -k_cap
        hi_i = int(hi) if hi.is_finite else k_cap
        if structural:  # a vector length: one short instance (each new length is compiled anew)
            return min(max(k_cap, lo_i), hi_i)
        if hi_i < lo_i:
            raise ValueError("empty integer range")
        return rng.randint(lo_i, hi_i)
    if sym in domain.ranges and rng.random() < 0.3:
        d_lo, d_hi = domain.ranges[sym]
        a = float(d_lo) if d_lo.is_finite else -30.0
        b = float(d_hi) if d_hi.is_finite else 30.0
        if a > b:
            a, b = b, a
        return rng.uniform(a, b)
    mag = rng.choice(_SCALES) * math.exp(rng.uniform(-0.3, 0.3))
    if lo >= 0:  # nonnegative or positive: the open half-line (0 itself is left to the stated domain)
        return mag
    if hi <= 0:
        return -mag
    return mag if rng.random() < 0.5 else -mag


def assumption_witness(
    exprs: list[sp.Expr], relation: str, name: str, domain: Domain, points: int = 16, dps: int = 50
) -> dict[str, str] | None:
    """A point allowed by the assumptions where the claim on ``exprs`` fails, or ``None``.

    ``relation`` is ``"=="`` (``exprs = [lhs, rhs]``), ``"<="`` or ``"<"`` (``exprs = [small, big]``).
    ``None`` means nothing was found (or the claim cannot be evaluated numerically: integrals,
    derivatives), and the symbolic attempt goes ahead as always."""
    try:
        exprs = [sp.sympify(e) for e in exprs]
        if any(e.has(sp.Integral, sp.Derivative, sp.Limit) for e in exprs):
            return None
        names = set().union(*(free_names(e) for e in exprs))
        ev = Evaluator(exprs, Domain({}))
        structural = set().union(*(_structural_ints(e) for e in exprs))
    except Exception:  # noqa: BLE001 - a claim this cannot handle is simply not pre-screened
        return None
    rng = random.Random(f"prescreen:{name}")
    scalars = sorted(names - ev.indexed_labels, key=str)
    bits = int(dps * 3.33) + 16
    for _ in range(points):
        try:
            pt: dict[Any, Any] = {s_: _draw(s_, rng, domain, s_ in structural, 3) for s_ in scalars}
            inst = ev.instance({s_: int(pt[s_]) for s_ in ev.structural})
            for atom, label in inst.entries:
                pt[atom] = _draw(label, rng, domain, False, 3)
            if _certainly_fails(inst, pt, relation, bits):
                return {str(s_): (str(v_) if isinstance(v_, int) else repr(v_)) for s_, v_ in pt.items()}
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue  # undefined or not enclosable here: try another point (none at all: no witness)
    return None


def _certainly_fails(inst: Any, pt: Mapping, relation: str, bits: int) -> bool:
    """The claim fails at ``pt`` for certain: Arb enclosures of both sides (the same rigorous
    arithmetic as the interval proofs) that are disjoint the wrong way round. A value lost to
    cancellation (cosh² − sinh² at x = 200, which 50-digit mpmath returns as exactly 0) is a wide
    enclosure and decides nothing."""
    values = [pt[s_] for s_ in inst.scalars] + [pt[a_] for a_, _ in inst.entries]
    box = {a_: intervals.to_interval(v_) for a_, v_ in zip(inst.args, values)}
    with intervals.iv_prec(bits):
        a, b = (intervals.compiled(c_)(box) for c_ in inst.concrete)
    finite = all(bool(end.is_finite()) for end in (a.lo, a.hi, b.lo, b.hi))
    if not finite:
        return False
    if relation == "==":
        return bool(a.lo > b.hi) or bool(b.lo > a.hi)
    return bool(a.lo > b.hi)  # small > big for certain ("<": a gap of exactly 0 is left alone)
