"""Touching along a curve or a face: prove ``gap ≥ 0`` on a bounded box in two or three real variables where
``gap = 0`` on a curve ``xᵢ = c(others)`` (a closed form) or on a face ``xᵢ = end`` of the box.

Contract: ``prove_touching_curve(gap, domain, strict, opts)`` returns ``RouteOutcome(proved, method, reduction,
covered)``, or ``None`` when the route does not apply (a strict claim, constraints, an integer or unbounded range,
not 2–3 variables, or no zero set found symbolically). It never refutes: ``proved=False`` says only that no
certificate was found.

The zero set, found symbolically: a face ``xᵢ = end`` is kept when ``gap(xᵢ = end)`` reduces to 0 (SymPy); a
curve ``xᵢ = c`` when ``c`` is a closed-form solution (``solve``) of ``gap = 0`` or ``∂_{xᵢ} gap = 0`` for ``xᵢ``
and ``gap(xᵢ = c)`` reduces to 0. Its order ``n`` is the first ``xᵢ``-derivative not reducing to 0 on it (the
lower ones reduce to 0 identically).

Certificates, each a theorem with its sign conditions proved by Arb (``touching.certify``: branch and bound), on
the boxes of a subdivision of the domain (every box gets one of them, or the route fails):

* *plain*: ``gap ≥ 0`` on the box by branch and bound;
* *face* ``xᵢ = e`` of order n that the box touches (inward direction ``s``): Taylor in ``xᵢ`` from the face,
  ``gap(x) = ∂ⁿ_{xᵢ} gap(ξ)·(xᵢ − e)ⁿ/n!`` (the lower derivatives vanish on the face), so ``gap ≥ 0`` on the box
  when ``sⁿ·∂ⁿ_{xᵢ} gap ≥ 0`` on it (the segment from the face lies in the box);
* *curve* ``xᵢ = c(y)`` of order n: ``gap(x, y) = ∂ⁿ_{xᵢ} gap(ξ, y)·(xᵢ − c(y))ⁿ/n!`` with ξ between c(y) and xᵢ,
  so on a box whose ``y``-part has ``c(y) ∈ [c_lo, c_hi]`` (Arb) it suffices that ``∂ⁿ_{xᵢ} gap ≥ 0`` on the hull
  ``[min(lo, c_lo), max(hi, c_hi)] × y-part`` for even n (for odd n, the box must lie on one side of the curve
  and the sign is ``(±1)ⁿ``), with ``gap, …, ∂ⁿ gap`` finite there (defined and continuous);
* *concave*: ``∂²_{xᵢ} gap ≤ 0`` on the box and ``gap ≥ 0`` on its two ``xᵢ``-faces (each ≡ 0 symbolically on a
  zero face of the domain, else branch and bound in one variable fewer): a concave function of ``xᵢ`` lies above
  its chord.

A box where none holds is halved along its widest variable (geometrically on a wide positive range), up to a
box and time budget. The ``reduction`` names the zero set, the orders and the certificate counts.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import mpmath
import sympy as sp

from .. import intervals
from ..ledger import Domain, free_names, region
from .touching import CALL_SECONDS, RouteOutcome, _time_limited, _TimeUp, bounded_box, const_sign, finite_on, is_zero

#: highest order tried on a zero face or curve
NMAX = 4
#: boxes of the subdivision at most, and its wall-clock limit (seconds)
MAX_BOXES = 400
SECONDS = 20.0
#: branch-and-bound boxes per certificate attempt
CERT_BUDGET = 24


def _num(c: Any) -> float:
    return float(sp.N(c, 30))


def _rat_mid(lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    """An exact rational strictly inside ``(lo, hi)``: geometric mean on a wide positive range, else the midpoint."""
    a, b = mpmath.mpf(_num(lo)), mpmath.mpf(_num(hi))
    m = mpmath.sqrt(a * b) if a > 0 and b / a > 4 else (a + b) / 2
    if lo.is_Rational and hi.is_Rational and not (a > 0 and b / a > 4):
        return (lo + hi) / 2
    r = sp.Rational(mpmath.nstr(m, 20))
    if const_sign(r - lo) == 1 and const_sign(hi - r) == 1:
        return r
    return (lo + hi) / 2


def _width(lo: sp.Expr, hi: sp.Expr) -> float:
    a, b = _num(lo), _num(hi)
    if a > 0 and b / a > 4:
        return float(mpmath.log(b / a))
    return b - a


# ---------------------------------------------------------------- the zero set


def _logs_split(e: sp.Expr) -> sp.Expr:
    """``e`` rewritten by equalities: exponentials for hyperbolics, each log's argument simplified and factored,
    then logs of products split where SymPy's assumptions allow it (``expand_log`` unforced), simplified."""
    e = sp.sympify(e).rewrite(sp.exp)
    e = e.xreplace({lg: sp.log(sp.factor(sp.simplify(lg.args[0]).rewrite(sp.exp))) for lg in e.atoms(sp.log)})
    e = sp.simplify(sp.expand_log(e, force=False))
    if e != 0:
        e = sp.simplify(sp.expand_log(e.rewrite(sp.exp), force=False))
    return e


def zero(e: Any) -> bool:
    """``e`` reduces to 0 symbolically: ``touching.is_zero``, else after ``_logs_split`` (both SymPy rewriting;
    no numeric evaluation decides it)."""
    try:
        if _time_limited(lambda: _logs_split(e) == 0, CALL_SECONDS):
            return True
    except Exception:  # noqa: BLE001,S110 - a failed (or interrupted) rewrite proves nothing; the next may
        pass
    return is_zero(e)


def _order(gap: sp.Expr, x: sp.Symbol, subs: Mapping, ranges: Mapping) -> tuple[int, list[sp.Expr]] | None:
    """The first ``n ≥ 1`` with ``∂ⁿ_x gap`` not reducing to 0 after ``subs`` (the lower ones do), and the
    derivatives ``[gap, ∂gap, …, ∂ⁿgap]``; ``None`` when every order up to ``NMAX`` vanishes."""
    derivs = [gap]
    for n in range(1, NMAX + 1):
        derivs.append(sp.diff(derivs[-1], x))
        on = derivs[n].subs(subs)
        # a float filter only picks the order to try; the lower orders are each proved to vanish symbolically,
        # and the sign of the n-th is certified by Arb, so a wrong pick costs a proof, never soundness
        if not _vanishes_on_samples(on, ranges) or not zero(on):
            return n, derivs
    return None


def _vanishes_on_samples(e: sp.Expr, ranges: Mapping) -> bool:
    """A float pre-filter (never a proof): ``e`` ≈ 0 at three interior points of the box."""
    syms = sorted(free_names(e), key=str)
    if not syms:
        return True
    with mpmath.workdps(30):
        for frac in (0.31, 0.5, 0.77):
            # a different fraction per variable: a sample on a diagonal would sit on a zero curve x = y
            pt = {
                s_: mpmath.mpf(_num(ranges[s_][0]))
                + ((frac + 0.137 * i) % 1) * (_num(ranges[s_][1]) - _num(ranges[s_][0]))
                for i, s_ in enumerate(syms)
            }
            try:
                f = sp.lambdify(syms, e, modules="mpmath")
                v = f(*[pt[s_] for s_ in syms])
                if abs(complex(v)) > 1e-18:
                    return False
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                return False
    return True


def _faces(gap: sp.Expr, ranges: Mapping) -> list[tuple[sp.Symbol, sp.Expr, int, int, list]]:
    """Faces ``x = end`` with ``gap ≡ 0`` there: ``(x, end, inward sign, order, derivatives)``."""
    out = []
    for x in ranges:
        for end, s_ in ((ranges[x][0], 1), (ranges[x][1], -1)):
            face = gap.subs(x, end)
            if not _vanishes_on_samples(face, ranges) or not zero(face):
                continue
            got = _order(gap, x, {x: end}, ranges)
            if got is not None:
                out.append((x, end, s_, *got))
    return out


def _solutions(e: sp.Expr, x: sp.Symbol, seconds: float = 2.0) -> list[sp.Expr]:
    """Closed-form real solutions of ``e = 0`` for ``x`` (SymPy's ``solve`` under a time limit; none if it fails)."""
    try:
        sols = _time_limited(lambda: sp.solve(e, x, dict=False), seconds)
    except (_TimeUp, NotImplementedError, ValueError, TypeError, AttributeError):
        return []
    except Exception:  # noqa: BLE001 - a solver failure offers no candidate
        return []
    if not isinstance(sols, list):
        return []
    return [
        c for c in sols if isinstance(c, sp.Expr) and not c.has(sp.I, sp.zoo, sp.nan, sp.oo) and x not in c.free_symbols
    ]


def _curves(gap: sp.Expr, ranges: Mapping) -> list[tuple[sp.Symbol, sp.Expr, int, list]]:
    """Curves ``x = c(others)`` (closed forms) with ``gap(x = c) ≡ 0``: ``(x, c, order, derivatives)``."""
    out = []
    # the variable with the simplest partial first (its critical-point equation is the likeliest to solve)
    for x in sorted(ranges, key=lambda v_: (sp.count_ops(sp.diff(gap, v_)), str(v_))):
        cands: list[sp.Expr] = []
        # ∂_x gap = 0 first (a touching zero is a critical point, and its equation is often algebraic in x);
        # gap = 0 only when that offers nothing
        for e in (sp.diff(gap, x), gap):
            if cands:
                break
            for c in _solutions(e, x):
                if c not in cands and c.free_symbols and c.free_symbols <= set(ranges):
                    cands.append(c)
        for c in cands:
            on = gap.subs(x, c)
            if not _vanishes_on_samples(on, ranges) or not zero(on):
                continue
            got = _order(gap, x, {x: c}, ranges)
            if got is not None:
                out.append((x, c, *got))
        if out:  # the zero set as a graph over the other variables: one description is enough
            break
    return out


# ---------------------------------------------------------------- certificates on one box


def _enclose(e: sp.Expr, box: Mapping, pieces: int = 1) -> tuple[Any, Any] | None:
    """An Arb enclosure ``(lo, hi)`` of ``e`` on ``box`` (the hull over ``pieces`` parts of each axis: a tighter
    one where ``e`` repeats a variable), or ``None`` when not finite."""
    if pieces > 1:
        parts: list[dict] = [dict(box)]
        for s_ in [s_ for s_ in box if s_ in e.free_symbols]:
            lo, hi = box[s_]
            cuts = [lo + (hi - lo) * sp.Rational(i, pieces) for i in range(pieces + 1)]
            parts = [{**b_, s_: (cuts[i], cuts[i + 1])} for b_ in parts for i in range(pieces)]
        encs = [_enclose(e, b_) for b_ in parts]
        if any(v_ is None for v_ in encs):
            return None
        return min((v_[0] for v_ in encs), key=_exact), max((v_[1] for v_ in encs), key=_exact)
    try:
        v = intervals.compiled(e)({s_: intervals.to_iv(*r_) for s_, r_ in box.items() if s_ in e.free_symbols})
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError):
        return None
    if not (v.lo.is_finite() and v.hi.is_finite()):
        return None
    return v.lo, v.hi


def _exact(v: Any) -> sp.Rational:
    """The exact dyadic value of an Arb endpoint (``Interval.lo``/``hi`` are exact points)."""
    man, exp = v.man_exp()
    return sp.Integer(int(man)) * sp.Integer(2) ** int(exp)


def _face_cert(box: Mapping, face: tuple, dom: Mapping) -> bool:
    x, end, s_, n, derivs = face
    if box[x][0 if s_ > 0 else 1] != end:
        return False
    return _plain(s_**n * derivs[n], box) and finite_on(derivs[: n + 1], box, pieces=2)


def _curve_cert(box: Mapping, curve: tuple, dom: Mapping, column: dict) -> str | None:
    """The curve certificate on ``box`` (module docstring): on the hull of the box and the curve's values over
    the box's other coordinates (an Arb enclosure), else on the whole column ``[Lo, Hi] × others`` of the
    domain once ``Lo ≤ c ≤ Hi`` is proved there by branch and bound (the curve then stays in the domain)."""
    x, c, n, derivs = curve
    ys = {s_: box[s_] for s_ in box if s_ != x}
    lo, hi = box[x]
    hulls = []
    enc = _enclose(c, ys, pieces=256 if len(ys) == 1 else 16)
    if enc is not None:
        c_lo, c_hi = _exact(enc[0]), _exact(enc[1])
        if n % 2 == 0 or const_sign(c_hi - lo) in (0, -1) or const_sign(hi - c_lo) in (0, -1):
            h_lo = lo if const_sign(c_lo - lo) in (0, 1) else c_lo
            h_hi = hi if const_sign(hi - c_hi) in (0, 1) else c_hi
            side = -1 if n % 2 and const_sign(hi - c_lo) in (0, -1) else 1
            hulls.append(({**box, x: (h_lo, h_hi)}, side, "curve"))
    if n % 2 == 0:
        key = (x, c, tuple(sorted(ys.items(), key=lambda t_: str(t_[0]))))
        if key not in column:  # the column certificate's side condition, once per y-part
            lo_d, hi_d = dom[x]
            # a generous budget on the first (whole-domain) attempt, where one success settles everything
            first = not any(k_[:2] == key[:2] for k_ in column)
            sec, bud = (1.5, 400) if first else (0.3, CERT_BUDGET)
            # the curve as written (its factored form costs a factorisation and is rarely better here)
            column[key] = _plain(c - lo_d, ys, sec, bud, False) and _plain(hi_d - c, ys, sec, bud, False)
        if column[key]:
            hulls.append(({**box, x: dom[x]}, 1, "column"))
    for hull, side, kind in hulls:
        if _plain(side**n * derivs[n], hull) and finite_on(derivs[: n + 1], hull, pieces=2):
            return kind
    return None


def _meets_zero_set(box: Mapping, faces: list, curves: list) -> bool:
    """The box may hold a point of the zero set: it lies on a zero face, or a curve's enclosure meets it."""
    for x, end, s_, _, _ in faces:
        if box[x][0 if s_ > 0 else 1] == end:
            return True
    for x, c, _, _ in curves:
        enc = _enclose(c, {s_: box[s_] for s_ in box if s_ != x})
        if enc is None:
            return True
        if const_sign(_exact(enc[0]) - box[x][1]) != 1 and const_sign(box[x][0] - _exact(enc[1])) != 1:
            return True
    return False


_FORMS: dict[sp.Expr, list[sp.Expr]] = {}


def _plain(e: sp.Expr, box: Mapping, seconds: float = 1.0, budget: int | None = None, factored: bool = True) -> bool:
    """``e ≥ 0`` on ``box`` by branch and bound on its factored form, then on ``e`` (a small box budget and
    time each: the subdivision does the rest). The forms are equal expressions, computed once per ``e``."""
    from .interval import certify_nonnegative
    from .touching import _forms

    if e not in _FORMS:
        _FORMS[e] = _forms(e)
    for f_ in _FORMS[e] if factored else [e]:
        names = free_names(f_)
        if not names:
            if const_sign(f_) in (0, 1):
                return True
            continue
        if not names <= set(box):
            continue
        dom = Domain({s_: box[s_] for s_ in names})
        try:
            out = _time_limited(
                lambda f_=f_, dom=dom: certify_nonnegative(f_, dom, budget=budget or CERT_BUDGET, max_dims=4), seconds
            )
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, _TimeUp):
            continue
        if out.status == "proved":
            return True
    return False


def _concave_cert(gap: sp.Expr, box: Mapping, x: sp.Symbol, d2: sp.Expr, zero_faces: set) -> bool:
    if not _plain(-d2, box) or not finite_on([gap, sp.diff(gap, x), d2], box, pieces=2):
        return False
    for end in box[x]:
        if (x, end) in zero_faces:
            continue
        rest = {s_: r_ for s_, r_ in box.items() if s_ != x}
        if not _plain(gap.subs(x, end), rest):
            return False
    return True


def _negative_at_centre(gap: sp.Expr, box: Mapping) -> bool:
    """Arb proves ``gap < 0`` at the box's centre (then the claim is false: no certificate is looked for)."""
    centre = {s_: _rat_mid(*r_) for s_, r_ in box.items()}
    enc = _enclose(gap, {s_: (v_, v_) for s_, v_ in centre.items()})
    return enc is not None and enc[1] < 0


# ---------------------------------------------------------------- the subdivision


def prove_touching_curve(
    gap: Any, domain: Domain, strict: bool, opts: Mapping[str, Any] | None = None
) -> RouteOutcome | None:
    """Prove ``gap ≥ 0`` on ``domain`` (a bounded box in two or three real variables) from a zero set made of
    faces and closed-form curves (module docstring). ``None`` when the route does not apply."""
    if not isinstance(domain, Domain):
        raise TypeError(f"prove_touching_curve: domain must be a Domain, got {type(domain).__name__}")
    opts = dict(opts or {})
    gap = sp.sympify(gap)
    # |·|, min and max: the lattice route's (this one's Taylor certificates need a smooth gap)
    if strict or domain.constraints or gap.atoms(sp.Indexed) or gap.has(sp.Abs, sp.Min, sp.Max):
        return None
    ranges = bounded_box(gap, domain, 2, 3)
    if ranges is None:
        return None
    seconds = float(opts.get("touching_curve_seconds", SECONDS))
    try:
        with intervals.iv_prec(80):
            return _prove(gap, ranges, seconds)
    except (intervals.NotEnclosable, ZeroDivisionError, OverflowError, RecursionError) as exc:
        return RouteOutcome(False, "touching curve: no proof", f"{type(exc).__name__}: {exc}", None)


def _prove(gap: sp.Expr, ranges: dict, seconds: float) -> RouteOutcome | None:
    t0 = time.monotonic()
    faces = _faces(gap, ranges)
    zero_faces = {(f_[0], f_[1]) for f_ in faces}
    second = {x: sp.diff(gap, x, 2) for x in ranges}
    curves = _curves(gap, ranges)
    if not faces and not curves:
        return None
    zero_text = "; ".join(
        [f"face {x} = {e} (order {n})" for x, e, _, n, _ in faces]
        + [f"curve {x} = {c} (order {n})" for x, c, n, _ in curves]
    )
    # the chord certificate for a variable with a zero face (its other end is checked on each box)
    concave_vars = [x for x in ranges if (x, ranges[x][0]) in zero_faces or (x, ranges[x][1]) in zero_faces]
    counts = {"plain": 0, "face": 0, "curve": 0, "column": 0, "concave": 0}
    stack = [dict(ranges)]
    boxes = 0
    column: dict = {}
    while stack:
        if time.monotonic() - t0 > seconds or boxes >= MAX_BOXES:
            return RouteOutcome(
                False,
                "touching curve: no proof",
                f"zero set {zero_text}: budget spent ({boxes} boxes, {len(stack)} left)",
                None,
            )
        box = stack.pop()
        boxes += 1
        if _negative_at_centre(gap, box):  # no certificate can exist: stop early (the falsifier refutes)
            return RouteOutcome(False, "touching curve: no proof", f"gap < 0 at the centre of {box} (Arb)", None)
        done = None
        for x in concave_vars:
            if _concave_cert(gap, box, x, second[x], zero_faces):
                done = "concave"
                break
        if done is None:
            for f_ in faces:
                if _face_cert(box, f_, ranges):
                    done = "face"
                    break
        if done is None:
            for c_ in curves:
                done = _curve_cert(box, c_, ranges, column)
                if done:
                    break
        # branch and bound cannot settle a box holding a zero of the gap (it never certifies a touching point
        # from enclosures alone): only boxes clear of the zero set get it
        if done is None and not _meets_zero_set(box, faces, curves) and _plain(gap, box):
            done = "plain"
        if done is not None:
            counts[done] += 1
            continue
        # a box the curve x = c(y) may cross is settled by narrowing y (c's range, the hull), not x
        axes = list(box)
        crossed = {c_[0] for c_ in curves if _meets_zero_set(box, [], [c_])}
        if len(crossed) == 1 and len(box) > 1:
            axes = [s_ for s_ in box if s_ not in crossed]
        x = max(axes, key=lambda s_: _width(*box[s_]) / max(_width(*ranges[s_]), 1e-300))
        lo, hi = box[x]
        mid = _rat_mid(lo, hi)
        stack += [{**box, x: (lo, mid)}, {**box, x: (mid, hi)}]
    how = {
        "concave": "∂²_x gap ≤ 0 on the box and gap ≥ 0 on its two x-faces (chord)",
        "face": "sⁿ·∂ⁿ gap ≥ 0 on the box from a zero face (Taylor, Lagrange remainder)",
        "curve": "∂ⁿ gap ≥ 0 on the hull of the box and the curve's Arb range over it (Taylor, Lagrange remainder)",
        "column": "Lo ≤ c ≤ Hi over the box's other coordinates and ∂ⁿ gap ≥ 0 on the domain's column over them"
        " (Taylor from the curve, Lagrange remainder)",
        "plain": "gap ≥ 0 by branch and bound",
    }
    told = "; ".join(f"{counts[k_]} box{'es' if counts[k_] != 1 else ''}: {how[k_]}" for k_ in counts if counts[k_])
    return RouteOutcome(
        True,
        f"touching curve: gap ≡ 0 on {zero_text}; certificates on a subdivision ({boxes} boxes)",
        f"zero set (symbolic): {zero_text}; Arb: {told}",
        region(ranges),
    )


__all__ = ["prove_touching_curve"]
