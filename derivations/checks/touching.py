"""Touching points: prove ``gap ≥ 0`` on a bounded box where ``gap = 0`` at isolated points (one
variable) or along a line (two variables), with derivative information certified by Arb.

Contract: ``prove_touching(gap, domain, strict, opts)`` returns ``RouteOutcome(proved, method,
reduction, covered)``, or ``None`` when the route does not apply (a strict claim, an unbounded or
integer range, more than two variables, constraints, or no zero of ``gap`` found that is *exactly*
a zero). It never refutes: ``proved=False`` only says this route found no proof.

Why it is sound. A zero ``x₀`` is a float estimate snapped to a closed form (small rationals,
``nsimplify`` against ``E`` and ``π``) and accepted only when ``gap(x₀)`` reduces to 0 symbolically.
Near ``x₀``, on a side ``s = ±1`` (the segment from ``x₀`` towards ``x₀ + s·r``), Taylor's theorem with
the Lagrange remainder gives, for ``x = x₀ + s·h``, ``h ∈ [0, r]``::

    gap(x) = Σ_{j<n} gap⁽ʲ⁾(x₀) (s h)ʲ / j!  +  gap⁽ⁿ⁾(ξ) (s h)ⁿ / n!   for some ξ on the segment,

so ``gap ≥ 0`` on the segment when ``sʲ·gap⁽ʲ⁾(x₀) ≥ 0`` for every ``j < n`` (each an exact zero, or a
constant whose Arb enclosure is positive) and ``sⁿ·gap⁽ⁿ⁾ ≥ 0`` on the segment (Arb branch and bound,
``interval.certify_nonnegative``). Away from the neighbourhoods ``gap`` is certified by branch and bound.
In two variables with ``gap ≡ 0`` on a line ``xᵢ = b`` (``b`` another variable ``xⱼ`` or a constant),
the same argument runs along every segment ``xᵢ = b + s·τ·L`` (``xⱼ`` fixed, ``τ ∈ [0, 1]``, ``L`` the
distance to the box face), with the lower derivatives on the line identically zero (symbolically) or
certified of the right sign, and ``sⁿ·∂ⁿ_{xᵢ} gap ≥ 0`` certified on the box (or on the mapped box).
An ``|a|`` in the gap is replaced by ``±a`` on a side only where Arb proves the sign of ``a`` there.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from .. import intervals
from ..ledger import Domain, free_names, region
from .interval import certify_nonnegative

#: highest derivative order tried at a zero (8: a Taylor remainder of order 6 against its Lagrange bound
#: differs at order 7)
NMAX = 8
#: neighbourhood radii, as fractions of the distance to the next zero or the domain's end
RADII = (1, sp.Rational(1, 4), sp.Rational(1, 32), sp.Rational(1, 256), sp.Rational(1, 4096))


@dataclass
class RouteOutcome:
    """What a proof route established: ``proved`` with the ``method`` (short, for the table), the
    ``reduction`` (the argument, for a reader) and the region it ``covered`` (symbol → exact strings)."""

    proved: bool
    method: str
    reduction: str
    covered: dict[str, tuple[str, str]] | None


# ---------------------------------------------------------------- exact and Arb-decided signs


def const_sign(c: Any) -> int | None:
    """The sign of the constant ``c`` decided by Arb (``+1``/``-1`` when its enclosure excludes 0),
    or ``0`` when ``c`` reduces to 0 symbolically; ``None`` when neither settles it."""
    c = sp.sympify(c)
    if c == 0:
        return 0
    if c.free_symbols:
        raise ValueError(f"const_sign: {c} is not a constant")
    for bits in (128, 512):
        try:
            with intervals.iv_prec(bits):
                v = intervals.interval_eval(c, {})
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError):
            return 0 if is_zero(c) else None
        if v.lo > 0:
            return 1
        if v.hi < 0:
            return -1
    return 0 if is_zero(c) else None


def is_zero(e: Any) -> bool:
    """``e`` reduces to 0 symbolically (SymPy rewriting; no numeric evaluation decides it)."""
    e = sp.sympify(e)
    if e == 0:
        return True
    try:
        return _time_limited(
            lambda: sp.simplify(e) == 0 or sp.simplify(sp.expand_log(sp.together(e))) == 0, CALL_SECONDS
        )
    except Exception:  # a failed (or interrupted) rewrite proves nothing
        return False


def _forms(e: sp.Expr) -> list[sp.Expr]:
    """Equal forms of ``e`` to enclose: the factored form first (a square stays a square, so Arb sees
    its sign: Hoeffding's ``∂²_λ`` gap is ``(p e^λ + p − 1)²/(4(p e^λ − p + 1)²)``), then ``e`` itself."""
    out: list[sp.Expr] = []
    if e.has(sp.sinh) and e.has(sp.cosh):
        # sinh u = tanh u · cosh u (an identity): sinh/cosh quotients cancel to a bounded tanh
        e = e.xreplace({a_: sp.tanh(a_.args[0]) * sp.cosh(a_.args[0]) for a_ in e.atoms(sp.sinh)})
    if sp.count_ops(e) < 400:
        try:
            f = sp.factor(sp.together(e))
            out.append(f)
        except Exception:  # a form SymPy cannot factor is simply not offered
            pass
    if e not in out:
        out.append(e)
    return out


#: wall-clock limit of one branch-and-bound call (SymPy's simplify of a face value can hang:
#: ``simplify(-log(2) - 1/10**9 + 2*exp(-1))`` does not return)
CALL_SECONDS = 4.0


class _TimeUp(Exception):
    """A branch-and-bound call ran out of its wall-clock limit (it then proves nothing)."""


def _time_limited(fn, seconds: float):
    """``fn()``, interrupted after ``seconds`` (``budget.run_symbolic``: a deadline that nests with the claim's
    own, the earlier of the two winning); raises ``_TimeUp`` when spent."""
    from .budget import Spent, run_symbolic

    out = run_symbolic(fn, deadline=seconds, memory=None, stage="touching")
    if isinstance(out, Spent):
        raise _TimeUp()
    return out


def certify(e: sp.Expr, ranges: Mapping[sp.Symbol, tuple[Any, Any]], budget: int, strict: bool = False) -> bool:
    """``e ≥ 0`` (``> 0``) on the box ``ranges``: Arb for a constant, else branch and bound on each form."""
    e = sp.sympify(e)
    if not free_names(e):
        s = const_sign(e)
        return s == 1 or (s == 0 and not strict)
    for f in _forms(e):
        names = free_names(f)
        if not names:
            s = const_sign(f)
            if s == 1 or (s == 0 and not strict):
                return True
            continue
        if not names <= set(ranges):
            return False
        dom = Domain({x_: ranges[x_] for x_ in names})
        try:
            out = _time_limited(
                lambda f=f, dom=dom: certify_nonnegative(f, dom, strict=strict, budget=budget, max_dims=4), CALL_SECONDS
            )
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, _TimeUp):
            continue
        if out.status == "proved":
            return True
    return False


def finite_on(exprs: list[sp.Expr], ranges: Mapping[sp.Symbol, tuple[Any, Any]], pieces: int = 8) -> bool:
    """Every expression has a finite Arb enclosure on the box (split into ``pieces`` per axis if the whole
    box does not give one): each is then defined and continuous there, as Taylor's theorem needs of
    ``gap, gap′, …, gap⁽ⁿ⁾`` (a log at 0 or a pole would enclose to ±∞)."""

    def ok(e: sp.Expr, box: Mapping) -> bool:
        try:
            v = intervals.compiled(e)({s_: intervals.to_iv(*r_) for s_, r_ in box.items() if s_ in e.free_symbols})
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError):
            return False
        return v.lo.is_finite() and v.hi.is_finite()

    for e in exprs:
        if ok(e, ranges):
            continue
        axes = [s_ for s_ in ranges if s_ in e.free_symbols]
        boxes: list[dict] = [dict(ranges)]
        for s_ in axes:
            lo, hi = ranges[s_]
            cuts = [lo + (hi - lo) * sp.Rational(i, pieces) for i in range(pieces + 1)]
            boxes = [{**b_, s_: (cuts[i], cuts[i + 1])} for b_ in boxes for i in range(pieces)]
        if not all(ok(e, b_) for b_ in boxes):
            return False
    return True


def _lt(a: Any, b: Any) -> bool:
    """``a < b`` decided by Arb (False when undecided)."""
    return const_sign(sp.sympify(b) - sp.sympify(a)) == 1


# ---------------------------------------------------------------- zeros


def _fnum(f: Any, x: Any) -> Any:
    try:
        v = f(x)
        v = mpmath.mpmathify(v)
        if isinstance(v, mpmath.mpc):
            return None if abs(v.imag) > 1e-30 else v.real
        return v if mpmath.isfinite(v) else None
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None


def _snaps(xf: Any, lo: sp.Expr, hi: sp.Expr) -> list[sp.Expr]:
    """Closed forms near the float ``xf``: the domain's ends, 0, small rationals, ``nsimplify`` with E, π."""
    out: list[sp.Expr] = []
    scale = 1 + abs(xf)
    for end in (lo, hi, sp.Integer(0)):
        if abs(xf - mpmath.mpf(float(end))) < 1e-7 * scale:
            out.append(end)
    if abs(xf) > 1e-7:
        r = sp.Rational(str(mpmath.nstr(xf, 25))).limit_denominator(1000)
        if abs(xf - mpmath.mpf(r.p) / r.q) < 1e-9 * scale:
            out.append(r)
        if not out:  # nsimplify is slow: only where no rational fits
            try:
                c = sp.nsimplify(sp.Float(xf, 30), [sp.E, sp.pi], tolerance=1e-12 * float(scale))
                if sp.count_ops(c) <= 8:
                    out.append(c)
            except Exception:  # no closed form offered
                pass
    seen: list[sp.Expr] = []
    for c in out:
        if c not in seen:
            seen.append(c)
    return seen


def find_zeros_1d(gap: sp.Expr, x: sp.Symbol, lo: sp.Expr, hi: sp.Expr, points: int = 400) -> list[sp.Expr]:
    """Exact zeros of ``gap`` on ``[lo, hi]`` (finite): float search on a grid, local refinement of the
    minima of ``|gap|``, snap to closed forms, and keep a candidate ``c`` only when ``gap(c)`` reduces to 0
    symbolically and ``lo ≤ c ≤ hi`` by Arb or exactly."""
    with mpmath.workdps(40):
        try:
            f = sp.lambdify(x, gap, modules="mpmath")
        except Exception:
            return []
        a, b = mpmath.mpf(float(lo)), mpmath.mpf(float(hi))
        if a > 0 and b / a > 4:
            grid = [a * (b / a) ** (mpmath.mpf(i) / points) for i in range(points + 1)]
        else:
            grid = [a + (b - a) * mpmath.mpf(i) / points for i in range(points + 1)]
        for c in (0, 1, mpmath.e, mpmath.pi, 0.5):
            if a < c < b:
                grid.append(mpmath.mpf(c))
        grid.sort()
        vals = [_fnum(f, t) for t in grid]
        absv = [abs(v) if v is not None else mpmath.inf for v in vals]
        mins = [
            i
            for i in range(len(grid))
            if absv[i] < mpmath.inf
            and (i == 0 or absv[i] <= absv[i - 1])
            and (i == len(grid) - 1 or absv[i] <= absv[i + 1])
        ]
        mins = sorted(mins, key=lambda i: absv[i])[:5]
        cands: list[sp.Expr] = []
        for i in mins:
            u, w = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
            xm = _golden(lambda t: abs(_fnum(f, t)) if _fnum(f, t) is not None else mpmath.inf, u, w)
            # the grid point itself too: at a high-order zero (|gap| ~ x⁶ at a domain end) |gap| is flat below
            # the working precision and the golden search stops ~1e-7 away, past the snapping tolerance
            for c in _snaps(xm, lo, hi) + _snaps(grid[i], lo, hi):
                if c not in cands:
                    cands.append(c)
        zeros: list[sp.Expr] = []
        for c in cands:
            v = _fnum(f, mpmath.mpf(sp.N(c, 45)))
            if v is None or abs(v) > mpmath.mpf(10) ** -25:
                continue
            inside = (c == lo or not _lt(c, lo)) and (c == hi or not _lt(hi, c))
            if inside and const_sign(c - lo) in (0, 1) and const_sign(hi - c) in (0, 1) and is_zero(gap.subs(x, c)):
                zeros.append(c)
    return zeros


def _golden(fn, a: Any, b: Any, iters: int = 70) -> Any:
    """A minimiser of ``fn`` on ``[a, b]`` by golden-section search (a float estimate only)."""
    g = (mpmath.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = fn(c), fn(d)
    for _ in range(iters):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = fn(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = fn(d)
    best = min((fn(a), a), (fn(b), b), (fc, c), (fd, d), key=lambda t: t[0])
    return best[1]


# ---------------------------------------------------------------- Taylor conditions


def _rat_near(v: sp.Expr, side: int) -> sp.Rational:
    """A rational strictly on ``side`` of the constant ``v`` (``+1``: above), within about 1e-12."""
    if v.is_Rational:
        return v
    f = mpmath.mpf(sp.N(v, 40))
    for step in (12, 9, 6):
        r = sp.Rational(mpmath.nstr(f + side * mpmath.mpf(10) ** -step * (1 + abs(f)), 30))
        if const_sign(side * (r - v)) == 1:  # Arb confirms the side: the bracket is exact
            return r
    raise ValueError(f"no rational bracket found beside {v}")


def _leading_order(derivs: list[sp.Expr], x: sp.Symbol, z: sp.Expr, side: int) -> int | None:
    """The first ``n ≥ 1`` with ``gap⁽ⁿ⁾(z) ≠ 0``, when every lower derivative at ``z`` has the sign the
    side needs (``sʲ·gap⁽ʲ⁾(z) ≥ 0``) and so does it; ``None`` when a sign is wrong or undecided (then no
    Taylor certificate of any order exists at ``z``: the claim fails near ``z`` on that side)."""
    for n in range(NMAX + 1):
        while len(derivs) <= n:
            derivs.append(sp.diff(derivs[-1], x))
        s = const_sign(derivs[n].subs(x, z))
        if s is None or s * side**n < 0:
            return None
        if s != 0 and n >= 1:
            return n
    return None


def _side_taylor(
    derivs: list[sp.Expr], x: sp.Symbol, z: sp.Expr, side: int, far: sp.Expr, budget: int
) -> tuple[int, sp.Expr] | None:
    """Prove ``gap ≥ 0`` on the segment from ``z`` to ``z + side·h`` for the largest ``h`` tried
    (``|far − z|`` times a fraction in ``RADII``). Returns ``(n, end)``: the order used and the proved
    end of the segment (a rational), or ``None``."""
    lead = _leading_order(derivs, x, z, side)
    if lead is None:
        return None
    dist = sp.Abs(far - z)
    # the certified interval contains the segment [z, end]: its inner end is z or a rational just past it
    inner = z if z.is_Rational else _rat_near(z, -side)
    for r in RADII:
        if r == 1:
            end = far if far.is_Rational else _rat_near(far, -side)
        else:
            end = _rat_near(z + side * r * dist, side)
        lo_, hi_ = (inner, end) if side > 0 else (end, inner)
        # the leading order works on a small enough neighbourhood; a lower one (all derivatives
        # below it vanish at z) may hold on the whole segment, where the leading one need not
        for n in (lead, *range(lead - 1, 0, -1)) if r == 1 else (lead,):
            # the whole segment is a long shot for some orders: a small budget there
            if certify(side**n * derivs[n], {x: (lo_, hi_)}, budget // 4 if r == 1 else budget) and finite_on(
                derivs[: n + 1], {x: (lo_, hi_)}
            ):
                return n, end
    return None


def _prove_1d(gap: sp.Expr, x: sp.Symbol, lo: sp.Expr, hi: sp.Expr, budget: int) -> RouteOutcome | None:
    zeros = find_zeros_1d(gap, x, lo, hi)
    if not zeros:
        return None
    zeros = sorted(zeros, key=lambda c: float(sp.N(c, 30)))
    derivs = [gap]
    steps: list[str] = []
    pieces: list[tuple[sp.Expr, sp.Expr]] = []  # what is left for branch and bound
    left = lo
    for k, z in enumerate(zeros):
        # the neighbourhood on each side reaches at most half way to the next zero
        prev_limit = lo if k == 0 else (zeros[k - 1] + z) / 2
        next_limit = hi if k == len(zeros) - 1 else (z + zeros[k + 1]) / 2
        a = b = z
        for side, far in ((-1, prev_limit), (1, next_limit)):
            if far == z or not _lt(min(far, z, key=_num), max(far, z, key=_num)):
                continue
            got = _side_taylor(derivs, x, z, side, far, budget)
            if got is None:
                return RouteOutcome(
                    False,
                    "touching: no proof",
                    f"no Taylor certificate on the {'left' if side < 0 else 'right'} of {z}",
                    None,
                )
            n, end = got
            steps.append(
                f"{'left' if side < 0 else 'right'} of {x} = {z}: derivatives 0..{n - 1} at {z} of sign ≥ 0 on that side"
                f" (exact), {'(−1)^' + str(n) + '·' if side < 0 else ''}gap^({n}) ≥ 0 on [{min(end, z, key=_num)},"
                f" {max(end, z, key=_num)}] (Arb)"
            )
            if side < 0:
                a = end
            else:
                b = end
        if a != left and _lt(left, a):
            pieces.append((left, a))
        left = b
    if left != hi and _lt(left, hi):
        pieces.append((left, hi))
    for p_lo, p_hi in pieces:
        if not certify(gap, {x: (p_lo, p_hi)}, budget):
            return RouteOutcome(False, "touching: no proof", f"branch and bound failed on [{p_lo}, {p_hi}]", None)
    zs = ", ".join(str(z) for z in zeros)
    away = "; branch and bound (Arb) on " + ", ".join(f"[{a}, {b}]" for a, b in pieces) if pieces else ""
    return RouteOutcome(
        True,
        f"touching: gap = 0 exactly at {x} = {zs}; Taylor with Lagrange remainder near each zero",
        "; ".join(steps) + away,
        region({x: (lo, hi)}),
    )


def _num(c: sp.Expr) -> float:
    return float(sp.N(c, 30))


# ---------------------------------------------------------------- two variables: a zero line


def _resolve_abs(gap: sp.Expr, phi: Mapping[sp.Symbol, sp.Expr], box: Mapping) -> sp.Expr:
    """``gap`` with each ``|a|`` replaced by ``a`` or ``−a`` where Arb proves the sign of ``a∘φ`` on ``box``."""
    reps = {}
    for ab in gap.atoms(sp.Abs):
        a = ab.args[0]
        try:
            v = intervals.interval_eval(a.subs(phi), {s_: intervals.to_iv(*r_) for s_, r_ in box.items()})
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError):
            continue
        if v.lo >= 0:
            reps[ab] = a
        elif v.hi <= 0:
            reps[ab] = -a
    return gap.xreplace(reps) if reps else gap


def _near_zero_at(gap: sp.Expr, subs: Mapping, others: list[sp.Symbol], ranges: Mapping) -> bool:
    """A cheap float pre-filter: ``gap`` (after ``subs``) vanishes at three sample points (a filter only)."""
    f = gap.subs(subs)
    with mpmath.workdps(40):
        for frac in (sp.Rational(3, 10), sp.Rational(1, 2), sp.Rational(7, 9)):
            pt = {s_: ranges[s_][0] + frac * (ranges[s_][1] - ranges[s_][0]) for s_ in others}
            try:
                v = sp.N(f.subs(pt), 40)
                if not v.is_number or abs(complex(v)) > 1e-25:
                    return False
            except (TypeError, ValueError, ZeroDivisionError):
                return False
    return True


def _sign_ok_at_samples(e: sp.Expr, x: sp.Symbol, rng: tuple) -> bool:
    """A float pre-filter (never a proof): ``e ≥ 0`` at 17 points of ``rng`` (False if clearly negative)."""
    lo, hi = rng
    with mpmath.workdps(30):
        try:
            f = sp.lambdify(x, e, modules="mpmath")
        except Exception:
            return True
        for i in range(17):
            v = _fnum(f, mpmath.mpf(float(lo)) + (mpmath.mpf(float(hi)) - mpmath.mpf(float(lo))) * i / 16)
            if v is not None and v < -(mpmath.mpf(10) ** -20):
                return False
    return True


def _line_candidates(gap: sp.Expr, syms: list[sp.Symbol], ranges: Mapping) -> list[tuple[sp.Symbol, sp.Expr]]:
    """Lines ``xᵢ = b`` on which ``gap ≡ 0`` (symbolically): ``b`` the other variable (when its range lies in
    ``xᵢ``'s, so the line crosses the box) or a constant found as a common exact zero of 1-D sections."""
    out: list[tuple[sp.Symbol, sp.Expr]] = []
    for xi in syms:
        (xj,) = [s_ for s_ in syms if s_ != xi]
        lo_i, hi_i = ranges[xi]
        lo_j, hi_j = ranges[xj]
        if const_sign(lo_j - lo_i) in (0, 1) and const_sign(hi_i - hi_j) in (0, 1):
            if _near_zero_at(gap, {xi: xj}, [xj], ranges) and is_zero(gap.subs(xi, xj)):
                out.append((xi, xj))
        # constant lines: the exact zeros of one section, kept if every other section vanishes there too
        first = find_zeros_1d(gap.subs(xj, lo_j + sp.Rational(1, 2) * (hi_j - lo_j)), xi, lo_i, hi_i, points=200)
        for c in sorted(first, key=_num):
            if _near_zero_at(gap, {xi: c}, [xj], ranges) and is_zero(gap.subs(xi, c)):
                out.append((xi, c))
    return out


def _prove_line(gap: sp.Expr, xi: sp.Symbol, base: sp.Expr, ranges: Mapping, budget: int) -> str | None:
    """``gap ≥ 0`` on the whole box from ``gap ≡ 0`` on ``xᵢ = base``: along each segment from the line to
    a face, the lower ``xᵢ``-derivatives on the line are ≥ 0 on that side and ``±∂ⁿ_{xᵢ} gap ≥ 0``."""
    (xj,) = [s_ for s_ in ranges if s_ != xi]
    lo_i, hi_i = ranges[xi]
    tau = sp.Dummy("tau", real=True)
    told: list[str] = []
    for side in (1, -1):
        length = (hi_i - base) if side > 0 else (base - lo_i)
        if base == (hi_i if side > 0 else lo_i):
            continue  # the line is the face itself: nothing on this side
        if not base.free_symbols:
            sl = const_sign(length)
            if sl == 0:
                continue
            if sl != 1:
                return None
        phi = {xi: base + side * tau * length}
        pbox = {tau: (sp.Integer(0), sp.Integer(1)), xj: ranges[xj]}
        g = _resolve_abs(gap, phi, pbox)
        derivs = [g]
        # the leading order: the first xᵢ-derivative not identically zero on the line; the lower ones
        # vanish there, so on this side their sign condition holds exactly
        lead = None
        for n in range(1, NMAX + 1):
            derivs.append(sp.diff(derivs[-1], xi))
            on_line = derivs[n].subs(xi, base)
            if not is_zero(on_line):
                lead = n
                break
        if lead is None:
            return None
        if not _sign_ok_at_samples(side**lead * derivs[lead].subs(xi, base), xj, ranges[xj]):
            return None  # the leading derivative has the wrong sign somewhere on the line: no certificate
        done = None
        for n in (lead, *range(lead - 1, 0, -1)):
            top = side**n * derivs[n]
            if certify(top, {xi: ranges[xi], xj: ranges[xj]}, budget) and finite_on(
                derivs[: n + 1], {xi: ranges[xi], xj: ranges[xj]}
            ):
                done = f"box {xi} ∈ [{lo_i}, {hi_i}], {xj} ∈ [{ranges[xj][0]}, {ranges[xj][1]}]"
            elif certify(top.subs(phi), pbox, budget) and finite_on([d_.subs(phi) for d_ in derivs[: n + 1]], pbox):
                done = f"the segments {xi} = {phi[xi]}, τ ∈ [0, 1]"
            if done:
                told.append(
                    f"{'above' if side > 0 else 'below'} the line: ∂^j_{xi} gap ≡ 0 on it for j < {n} (exact),"
                    f" {'' if side > 0 else f'(−1)^{n}·'}∂^{n}_{xi} gap ≥ 0 on {done} (Arb)"
                )
                break
        if done is None:
            return None
    return "; ".join(told)


def _prove_line_strip(gap: sp.Expr, xi: sp.Symbol, base: sp.Expr, ranges: Mapping, budget: int) -> str | None:
    """``gap ≥ 0`` on the box from ``gap ≡ 0`` on ``xᵢ = base`` when ``±∂ⁿ_{xᵢ} gap ≥ 0`` holds only near the
    line: on the strip ``|xᵢ − base| ≤ r`` Taylor's theorem as in ``_prove_line`` (the strip covered by
    boxes over pieces of ``xⱼ``'s range of width ``r/2``), and away from it (``|xᵢ − base| ≥ r``, covered
    by boxes whose points lie at least ``r/2`` from the line) branch and bound on ``gap`` itself."""
    (xj,) = [s_ for s_ in ranges if s_ != xi]
    lo_i, hi_i = ranges[xi]
    lo_j, hi_j = ranges[xj]
    width_i = hi_i - lo_i
    for frac in (sp.Rational(1, 8), sp.Rational(1, 32)):
        r = width_i * frac
        told: list[str] = []
        for side in (1, -1):
            face = hi_i if side > 0 else lo_i
            if base == face:
                continue
            # Abs resolved on the whole side (as in _prove_line), then the leading order on the line
            tau = sp.Dummy("tau", real=True)
            length = (hi_i - base) if side > 0 else (base - lo_i)
            g = _resolve_abs(
                gap, {xi: base + side * tau * length}, {tau: (sp.Integer(0), sp.Integer(1)), xj: ranges[xj]}
            )
            derivs = [g]
            lead = None
            for n in range(1, NMAX + 1):
                derivs.append(sp.diff(derivs[-1], xi))
                if not is_zero(derivs[n].subs(xi, base)):
                    lead = n
                    break
            if lead is None:
                return None
            top = side**lead * derivs[lead]
            if base.free_symbols:  # the diagonal xᵢ = xⱼ: pieces of xⱼ's range
                m = int(sp.ceiling((hi_j - lo_j) / (r / 2)))
                cuts = [lo_j + (hi_j - lo_j) * sp.Rational(k, m) for k in range(m + 1)]
                strips, aways = [], []
                for c0, c1 in zip(cuts, cuts[1:], strict=False):
                    if side > 0:
                        s_lo, s_hi = c0, sp.Min(c1 + r, hi_i)
                        a_lo, a_hi = c0 + r, hi_i
                    else:
                        s_lo, s_hi = sp.Max(c0 - r, lo_i), c1
                        a_lo, a_hi = lo_i, c1 - r
                    strips.append({xi: (s_lo, s_hi), xj: (c0, c1)})
                    if const_sign(a_hi - a_lo) == 1:
                        aways.append({xi: (a_lo, a_hi), xj: (c0, c1)})
            else:
                near = base + side * r
                if const_sign(side * (face - near)) != 1:
                    near = face  # the side is narrower than the strip: the strip is the whole side
                strips = [{xi: tuple(sorted((base, near), key=_num)), xj: ranges[xj]}]
                aways = [] if near == face else [{xi: tuple(sorted((near, face), key=_num)), xj: ranges[xj]}]
            if not all(certify(top, b_, budget // 4) and finite_on(derivs[: lead + 1], b_) for b_ in strips):
                break
            if not all(certify(gap, b_, budget // 4) for b_ in aways):
                break
            told.append(
                f"{'above' if side > 0 else 'below'} the line: ∂^j_{xi} gap ≡ 0 on it for j < {lead} (exact),"
                f" {'' if side > 0 else f'(−1)^{lead}·'}∂^{lead}_{xi} gap ≥ 0 on the strip |{xi} − {base}| ≤ {r}"
                f" ({len(strips)} boxes, Arb); gap ≥ 0 beyond it ({len(aways)} boxes, Arb)"
            )
        else:
            return "; ".join(told)
    return None


def _prove_2d(gap: sp.Expr, syms: list[sp.Symbol], ranges: Mapping, budget: int) -> RouteOutcome | None:
    lines = _line_candidates(gap, syms, ranges)
    if not lines:
        return None
    for xi, base in lines:
        how = _prove_line(gap, xi, base, ranges, budget) or _prove_line_strip(gap, xi, base, ranges, budget)
        if how is not None:
            return RouteOutcome(
                True,
                f"touching: gap ≡ 0 on the line {xi} = {base}; Taylor along {xi} with Lagrange remainder",
                f"gap({xi} = {base}) = 0 identically; " + how,
                region(ranges),
            )
    return RouteOutcome(False, "touching: no proof", f"zero lines {lines}: no derivative certificate", None)


# ---------------------------------------------------------------- entry point


def bounded_box(gap: sp.Expr, domain: Domain, fewest: int, most: int) -> dict[sp.Symbol, tuple] | None:
    """The gap's variables (sorted by name) over their ranges, when there are ``fewest`` to ``most`` of them, all
    real (not integer) over bounded ranges of positive width; else None (the touching routes do not apply)."""
    syms = sorted(free_names(gap), key=str)
    if not fewest <= len(syms) <= most:
        return None
    ranges: dict[sp.Symbol, tuple[sp.Expr, sp.Expr]] = {}
    for s_ in syms:
        if s_.is_integer:
            return None
        lo, hi = (sp.sympify(v_) for v_ in domain.range_of(s_))
        if not (lo.is_finite and hi.is_finite) or lo == hi:
            return None
        ranges[s_] = (lo, hi)
    return ranges


def prove_touching(
    gap: Any, domain: Domain, strict: bool, opts: Mapping[str, Any] | None = None
) -> RouteOutcome | None:
    """Prove ``gap ≥ 0`` on ``domain`` (a bounded box in one or two real variables) where ``gap`` has
    exact zeros: isolated points (1-D) or a line ``xᵢ = xⱼ`` / ``xᵢ = c`` (2-D). ``None`` when the route
    does not apply (``strict``: a touching claim is not strict; unbounded or integer ranges; more than
    two variables; constraints; no exact zero found). Never refutes."""
    if not isinstance(domain, Domain):
        raise TypeError(f"prove_touching: domain must be a Domain, got {type(domain).__name__}")
    opts = dict(opts or {})
    budget = int(opts.get("touching_budget", min(int(opts.get("box_budget", 1500)), 600)))
    gap = sp.sympify(gap)
    if strict or domain.constraints or gap.atoms(sp.Indexed):
        return None
    ranges = bounded_box(gap, domain, 1, 2)
    if ranges is None:
        return None
    syms = list(ranges)
    try:
        with intervals.iv_prec(80):
            if len(syms) == 1:
                return _prove_1d(gap, syms[0], *ranges[syms[0]], budget)
            return _prove_2d(gap, syms, ranges, budget)
    except (intervals.NotEnclosable, ZeroDivisionError, OverflowError, RecursionError) as exc:
        return RouteOutcome(False, "touching: no proof", f"{type(exc).__name__}: {exc}", None)


__all__ = ["RouteOutcome", "certify", "const_sign", "find_zeros_1d", "finite_on", "is_zero", "prove_touching"]
