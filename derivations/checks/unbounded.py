"""Unbounded ranges: prove ``gap ≥ 0`` (``> 0`` if strict) where one variable ranges over ``[a, ∞)``,
``(−∞, b]`` or ``(−∞, ∞)``, so the claim is *proved* on the whole range rather than sampled to a cap.

Contract: ``prove_unbounded(gap, domain, strict, opts)`` returns ``RouteOutcome(proved, method,
reduction, covered)`` (see ``touching``), or ``None`` when the route does not apply (no infinite end,
more than one unbounded variable, constraints, integer variables, indexed entries). It never refutes.

The argument. The range is cut at finite rationals ``X`` into tails ``[X, ∞)`` (and ``(−∞, −X']``,
reflected by ``x = −y`` onto ``[X', ∞)``) and a bounded middle.

* A tail is proved for some form ``f`` of the claim with ``f ≥ 0 ⇔ gap ≥ 0`` there: ``gap`` itself, or,
  writing ``gap = big − small`` (its terms split by sign) with ``big, small > 0`` certified on the tail,
  ``log big − log small`` (the dominance of the leading terms: ``x²/2 − log cosh x`` for
  ``cosh x ≤ e^{x²/2}``, whose derivative ``x − tanh x`` Arb bounds below on ``[1, ∞]``) or
  ``big/small − 1``. Either Arb's branch and bound certifies ``f ≥ 0`` on the unbounded box ``[X, ∞]``
  directly (the enclosures of ``intervals`` take ``±∞`` endpoints as limits), or it certifies
  ``∂ₓf ≥ 0`` there and ``f(X) ≥ 0``: a monotone tail.
* The middle is a bounded box: Arb branch and bound, or the touching-point route where ``gap``
  vanishes there (``e^x ≥ 1 + x`` at 0, ``log x ≤ x/e`` at ``e``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import mpmath
import sympy as sp

from .. import intervals
from ..ledger import Domain, free_names, region
from .touching import CALL_SECONDS, RouteOutcome, _time_limited, certify, const_sign, prove_touching

#: where a right tail may start, above max(a, 0) (a the finite lower end, if any)
CUTS = (1, 4, 16, 64)


def _split_sides(gap: sp.Expr) -> tuple[sp.Expr, sp.Expr] | None:
    """``(big, small)`` with ``big − small = gap`` exactly: the terms of ``gap`` split by their sign."""
    if not isinstance(gap, sp.Add):
        return None
    big = [t for t in gap.args if not t.could_extract_minus_sign()]
    small = [-t for t in gap.args if t.could_extract_minus_sign()]
    if not big or not small:
        return None
    return sp.Add(*big), sp.Add(*small)


def _exp_rate(e: sp.Expr, x: sp.Symbol) -> sp.Expr | None:
    """The largest ``c > 0`` such that a term of ``e`` (expanded) holds ``e^{c·x + d}`` (``c`` a number, the
    exponents linear in ``x``), ``0`` when there is none, ``None`` when an exponent is not linear in ``x``."""
    best = sp.Integer(0)
    for t in sp.Add.make_args(sp.expand(e)):
        c = sp.Integer(0)
        for f in sp.Mul.make_args(t):
            if isinstance(f, sp.exp) or (f.is_Pow and f.base is sp.E):
                arg = f.args[0] if isinstance(f, sp.exp) else f.exp
                if not arg.is_polynomial(x) or sp.degree(arg, x) > 1:
                    return None
                c += sp.expand(arg).coeff(x, 1)
        if c.free_symbols or not c.is_number:
            return None
        if c > best:
            best = c
    return best


def _scaled(a: sp.Expr, c: sp.Expr, x: sp.Symbol) -> sp.Expr:
    """``a·e^{−c·x}`` expanded, exponentials combined (``e^{x}·e^{−x} = 1``): an identity."""
    return sp.expand(sp.powsimp(sp.expand(a * sp.exp(-c * x))))


def at_infinity(e: sp.Expr, x: sp.Symbol) -> sp.Expr:
    """``e`` with its growing exponentials factored out, an identity for real ``x`` that Arb can enclose on
    ``[X, ∞]`` where the form as written gives ``∞ − ∞`` or ``∞/∞``: each ``log A`` whose argument grows like
    ``e^{c·x}`` (``c > 0`` the largest rate of its terms) becomes ``c·x + log(A·e^{−c·x})`` (``A > 0``, as the
    claim is defined), and a quotient ``n/d`` whose denominator grows like ``e^{c·x}`` becomes
    ``(n·e^{−c·x})/(d·e^{−c·x})`` (``log(1 + e^x) = x + log(1 + e^{−x})``, ``e^x/(1 + e^x) = 1/(e^{−x} + 1)``)."""

    def log_rw(node: sp.Expr) -> sp.Expr:
        c = _exp_rate(node.args[0], x)
        return node if not c else c * x + sp.log(_scaled(node.args[0], c, x))

    out = e.replace(lambda n: isinstance(n, sp.log) and n.args[0].has(sp.exp), log_rw)
    n, d = sp.fraction(sp.together(out))
    c = _exp_rate(d, x) if d.has(sp.exp) else None
    if c:
        out = _scaled(n, c, x) / _scaled(d, c, x)
    return out


def _tail_forms(gap: sp.Expr, tail: Mapping, budget: int) -> list[tuple[str, sp.Expr]]:
    """Forms ``f`` of the claim on the tail box, each with ``f ≥ 0 ⇔ gap ≥ 0`` (and ``>`` for ``>``)."""
    out: list[tuple[str, sp.Expr]] = [("gap", gap)]
    (x,) = [s_ for s_, (_, hi) in tail.items() if hi == sp.oo][:1] or [None]
    if x is not None and gap.has(sp.exp):
        g_inf = at_infinity(gap, x)
        if g_inf != gap:  # the same gap, growing exponentials factored out (an identity)
            out.append(("gap (growing exponentials factored out)", g_inf))
    sides = _split_sides(gap)
    if sides is None:
        return out
    big, small = sides
    # log and ratio are order-preserving only where both sides are positive: proved first, by Arb
    if certify(big, tail, budget // 4, strict=True) and certify(small, tail, budget // 4, strict=True):
        h = sp.expand_log(sp.log(big), force=False) - sp.expand_log(sp.log(small), force=False)
        out.append(("log(big) − log(small)", h))
        out.append(("big/small − 1", sp.powsimp(big / small) - 1))
    return out


def _prove_right_tail(
    gap: sp.Expr, x: sp.Symbol, start: sp.Expr, others: Mapping, strict: bool, budget: int
) -> tuple[sp.Expr, str] | None:
    """``gap ≥ 0`` on ``[X, ∞) × others`` for the first cut ``X ≥ start`` that works: ``(X, how)``."""
    base = sp.Max(sp.ceiling(start), 0) if start.is_finite else sp.Integer(0)
    limits: dict[sp.Expr, sp.Expr | None] = {}  # one symbolic limit per form, whatever the cut
    for c in CUTS:
        cut = sp.Integer(base + c)
        tail = {x: (cut, sp.oo), **others}
        for name, f in _tail_forms(gap, tail, budget):
            if certify(f, tail, budget // 4, strict=strict):
                return cut, f"{name} ≥ 0 on {x} ∈ [{cut}, ∞) (Arb, unbounded box)"
            # a monotone tail: ∂ₓf ≥ 0 on [X, ∞] and f(X) ≥ 0 (the derivative as SymPy writes it, or with its
            # growing exponentials factored out: x/4 − e^x/(1 + e^x) encloses to [−∞, ∞] on [X, ∞], its equal
            # x/4 − 1/(1 + e^{−x}) to a finite lower end)
            d = sp.diff(f, x)
            d_inf = at_infinity(d, x) if d.has(sp.exp) else d
            at = f.subs(x, cut)
            up = certify(d, tail, budget // 4) or (d_inf != d and certify(d_inf, tail, budget // 4) and d_inf)
            if up and certify(at, dict(others), budget, strict=strict):
                how = f" = {d_inf}" if up is d_inf else ""
                return (
                    cut,
                    f"∂_{x}({name}){how} ≥ 0 on {x} ∈ [{cut}, ∞) and {name} ≥ 0 at {x} = {cut} (Arb): monotone tail",
                )
            # a decreasing tail: ∂ₓf ≤ 0 on [X, ∞] and lim_{x→∞} f = L ≥ 0 (L > 0 if strict), the limit by
            # SymPy's Gruntz algorithm (symbolic), its sign by Arb: then f ≥ L on the tail
            if not others and (certify(-d, tail, budget // 4) or (d_inf != d and certify(-d_inf, tail, budget // 4))):
                if f not in limits:
                    limits[f] = _limit_at_infinity(f, x)
                lim = limits[f]
                sign = None if lim is None else const_sign(lim)
                if sign == 1 or (sign == 0 and not strict):
                    return (
                        cut,
                        f"∂_{x}({name}) ≤ 0 on {x} ∈ [{cut}, ∞) (Arb) and {name} → {lim} as {x} → ∞: decreasing tail",
                    )
    return None


def _negative_somewhere(gap: sp.Expr, x: sp.Symbol, lo: sp.Expr, hi: sp.Expr, others: Mapping, strict: bool) -> bool:
    """A float pre-filter, never a proof nor a refutation: ``gap`` is clearly negative (or, when strict,
    nonpositive) at one of a few hundred sample points (log-spaced out to 10⁸ on an infinite side)."""
    pts: list[float] = [0.5, 1.0, float(mpmath.e), float(mpmath.pi)]
    for k in range(-60, 81):
        pts += [10 ** (k / 10), -(10 ** (k / 10))]
    for k in range(201):
        pts.append(-10 + k / 10)
    lo_f = -math.inf if lo == -sp.oo else float(lo)
    hi_f = math.inf if hi == sp.oo else float(hi)
    pts = [t for t in pts if lo_f <= t <= hi_f] + [t for t in (lo_f, hi_f) if math.isfinite(t)]
    fixed = [{s_: (r_[0] + r_[1]) / 2 for s_, r_ in others.items()}] + [
        {s_: r_[i] for s_, r_ in others.items()} for i in (0, 1)
    ]
    with mpmath.workdps(30):
        for fx in fixed:
            try:
                f = sp.lambdify(x, gap.subs(fx), modules="mpmath")
            except Exception:
                return False
            for t in pts:
                try:
                    v = mpmath.mpmathify(f(mpmath.mpf(t)))
                except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                    continue
                if isinstance(v, mpmath.mpc) or not mpmath.isfinite(v):
                    continue
                if v < -(mpmath.mpf(10) ** -20) or (strict and v <= 0):
                    return True
    return False


def _limit_at_infinity(f: sp.Expr, x: sp.Symbol) -> sp.Expr | None:
    """``lim_{x→∞} f`` as a finite closed form (SymPy's symbolic limit), or ``None``."""
    try:
        lim = _time_limited(lambda: sp.limit(f, x, sp.oo), CALL_SECONDS)
    except Exception:  # no limit computed: no tail argument
        return None
    if lim is None or lim.free_symbols or lim.has(sp.oo, -sp.oo, sp.zoo, sp.nan, sp.AccumBounds, sp.Limit):
        return None
    return lim


def _prove_middle(gap: sp.Expr, ranges: Mapping, strict: bool, opts: Mapping, budget: int) -> str | None:
    # touching first: where gap vanishes inside, branch and bound alone would spend its whole budget
    out = None if strict else prove_touching(gap, Domain(dict(ranges)), strict, opts)
    if out is not None and out.proved:
        return f"{out.method} ({out.reduction})"
    if out is None and certify(gap, ranges, budget, strict=strict):
        return "branch and bound (Arb)"
    return None


def prove_unbounded(
    gap: Any, domain: Domain, strict: bool, opts: Mapping[str, Any] | None = None
) -> RouteOutcome | None:
    """Prove ``gap ≥ 0`` (``> 0`` if ``strict``) on ``domain``, one of whose real variables has an
    infinite end (the others bounded), by proved tails and a bounded middle. ``None`` when the route
    does not apply; never refutes."""
    if not isinstance(domain, Domain):
        raise TypeError(f"prove_unbounded: domain must be a Domain, got {type(domain).__name__}")
    opts = dict(opts or {})
    budget = int(opts.get("touching_budget", min(int(opts.get("box_budget", 1500)), 600)))
    gap = sp.sympify(gap)
    if domain.constraints or gap.atoms(sp.Indexed):
        return None
    syms = sorted(free_names(gap), key=str)
    if not syms or len(syms) > 3 or any(s_.is_integer for s_ in syms):
        return None
    ranges = {s_: domain.range_of(s_) for s_ in syms}
    unbounded = [s_ for s_ in syms if not (ranges[s_][0].is_finite and ranges[s_][1].is_finite)]
    if len(unbounded) != 1:
        return None
    (x,) = unbounded
    others = {s_: r_ for s_, r_ in ranges.items() if s_ != x}
    lo, hi = ranges[x]
    if _negative_somewhere(gap, x, lo, hi, others, strict):
        # not a refutation (the falsifier replays one): a proof attempt would only spend its budget
        return RouteOutcome(False, "unbounded: no proof", "the gap is negative at a sampled point", None)
    steps: list[str] = []
    mid_lo, mid_hi = lo, hi
    try:
        with intervals.iv_prec(80):
            if hi == sp.oo:
                got = _prove_right_tail(gap, x, lo, others, strict, budget)
                if got is None:
                    return RouteOutcome(False, "unbounded: no proof", f"no tail certificate as {x} → ∞", None)
                mid_hi, how = got
                steps.append(f"right tail: {how}")
            if lo == -sp.oo:
                y = sp.Dummy("y", real=True)
                got = _prove_right_tail(gap.subs(x, -y), y, -hi, others, strict, budget)
                if got is None:
                    return RouteOutcome(False, "unbounded: no proof", f"no tail certificate as {x} → −∞", None)
                cut, how = got
                mid_lo = -cut
                steps.append(f"left tail ({x} = −y): {how}")
            if mid_lo == -sp.oo or mid_hi == sp.oo or const_sign(mid_hi - mid_lo) not in (0, 1):
                return RouteOutcome(False, "unbounded: no proof", "no bounded middle", None)
            if const_sign(mid_hi - mid_lo) == 1:  # Arb decides the order of the cuts
                how = _prove_middle(gap, {x: (mid_lo, mid_hi), **others}, strict, opts, budget)
                if how is None:
                    return RouteOutcome(
                        False, "unbounded: no proof", f"middle {x} ∈ [{mid_lo}, {mid_hi}] not proved", None
                    )
                steps.append(f"middle {x} ∈ [{mid_lo}, {mid_hi}]: {how}")
    except (intervals.NotEnclosable, ZeroDivisionError, OverflowError, RecursionError) as exc:
        return RouteOutcome(False, "unbounded: no proof", f"{type(exc).__name__}: {exc}", None)
    return RouteOutcome(
        True,
        f"unbounded: {x} ∈ [{lo}, {hi}] cut into proved tails and a bounded middle",
        "; ".join(steps),
        region(ranges),
    )


__all__ = ["at_infinity", "prove_unbounded"]
