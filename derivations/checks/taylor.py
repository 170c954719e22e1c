"""Route "taylor": prove ``gap ≥ 0`` on a box where ``gap`` vanishes to second order along ``x = x₀`` (two of its
variables), by Taylor's theorem with integral remainder in ``x`` and a proved sign of one derivative.

Contract: ``prove_taylor(gap, domain, strict, opts)`` returns ``RouteOutcome(proved, method, reduction, covered)``,
or ``None`` when the route does not apply (a strict claim, constraints, sums or indexed draws, no pair below). It
never refutes: ``proved=False`` says only that no Taylor certificate was found.

Applies to: a pair of real (non-integer) variables ``x``, ``x₀`` of the gap with bounded ranges, the range of
``x₀`` inside that of ``x`` (exact comparison: the segment between ``x₀`` and any ``x`` stays in the box), with
``gap|_{x = x₀} ≡ 0`` (SymPy). The other variables may be anything the engine takes (an integer ``k ≥ 1``
unbounded included): they are parameters of the derivative claims below.

The theorem: for G of class Cⁿ on the segment, with G(x₀) = G'(x₀) = … = G⁽ⁿ⁻¹⁾(x₀) = 0,

    G(x) = (x − x₀)ⁿ/(n − 1)! · ∫₀¹ (1 − t)ⁿ⁻¹ G⁽ⁿ⁾(x₀ + t(x − x₀)) dt,

so G(x) ≥ 0 when ``sⁿ·G⁽ⁿ⁾ ≥ 0`` on the segment, ``s = sign(x − x₀)``. Certificates, in order:

* *convex* (smooth gap): G'(x₀) ≡ 0 and ``∂²_x gap ≥ 0`` on the whole box (one claim for the engine), tried for
  every pair before the sides;
* *sides*: a case split on the sign of ``x − x₀`` (a general rule: it is what makes ``|x − x₀|³`` and
  ``max(x − x₀, 0)³`` smooth). On the side ``s`` the segment is ``x = x₀ + t(e − x₀)``, ``t ∈ [0, 1]``, ``e`` the
  box's end of ``x`` on that side (a change of variables that keeps a box); each ``|a|``, ``max(a, b)``,
  ``min(a, b)`` whose argument (difference) ``d`` vanishes at ``x₀`` with ``d/(x − x₀) = q`` free of ``x`` takes the
  branch of ``sign(d) = s·sign(q)``, the sign of ``q`` proved by the engine; the resolved ``G_s`` must be built
  from analytic heads (``monotone.SMOOTH_HEADS``) and its derivatives up to the order used defined on the side's
  box (``wellposed``), so it is Cⁿ there; then for an order ``n ≥ 2`` with G_s⁽ⁱ⁾(x₀) ≡ 0 for i < n (SymPy; the
  order of contact N ≤ NMAX, the first derivative not ≡ 0 at x₀, is tried first, then N − 1, …, 2) whose claim ``sⁿ·G_s⁽ⁿ⁾(x₀ + t(e − x₀)) ≥ 0`` over ``t ∈ [0, 1]`` and the other variables the
  engine proves (``check_step``: symbolic, Arb, the routes) the side holds.

Every identity is SymPy's reduction (never a float); every sign is a proved verdict of the engine, whose proof
must cover the claim's box. The derivative claims run one level deep (``taylor_depth``): they do not re-enter
this route. ``covered`` is the claim's box: each side's claim covers every ``x₀`` in its range and every ``x``
between ``x₀`` and the end.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import permutations
from typing import Any

import sympy as sp

from ..ledger import Domain, Step, Verdict, covers, free_names
from .touching import CALL_SECONDS, RouteOutcome, _time_limited, _TimeUp

#: highest order of the Taylor remainder tried on a side
NMAX = 4
#: wall seconds for one derivative claim at most (a true one the engine proves is proved well within it)
SUB_SECONDS = 30.0
#: pairs (x, x₀) tried at most (every ordered pair of the gap's bounded real variables)
MAX_PAIRS = 12

_NONSMOOTH = (sp.Abs, sp.Max, sp.Min)


class _NoCertificate(Exception):
    """This pair (or side) has no Taylor certificate: try the next."""


def _zero(e: sp.Expr) -> bool:
    """``e`` reduces to 0 symbolically: automatic evaluation, expansion, then simplify under a time limit."""
    e = sp.sympify(e)
    if e == 0:
        return True
    try:
        if sp.expand(e) == 0:
            return True
        return bool(
            _time_limited(lambda: sp.simplify(e) == 0 or sp.simplify(sp.expand_log(sp.together(e))) == 0, CALL_SECONDS)
        )
    except (_TimeUp, Exception):  # noqa: BLE001 - a rewrite that fails or runs out proves nothing
        return False


def _cheap_zero(e: sp.Expr) -> bool:
    """The pair test of ``applies``: 0 by automatic evaluation or expansion (no simplify: it runs on every claim)."""
    e = sp.sympify(e)
    if e == 0:
        return True
    try:
        return sp.expand(e) == 0
    except Exception:  # noqa: BLE001 - an expansion that fails decides nothing
        return False


def _bounded_real(gap: sp.Expr, domain: Domain) -> dict:
    out = {}
    for s_ in free_names(gap):
        if s_.is_integer:
            continue
        lo, hi = (sp.sympify(v_) for v_ in domain.range_of(s_))
        if lo.is_finite and hi.is_finite and lo.is_number and hi.is_number and sp.sympify(hi - lo).is_positive:
            out[s_] = (lo, hi)
    return out


def _inside(inner: tuple, outer: tuple) -> bool:
    """``inner ⊆ outer`` for two ranges with exact (rational or constant) ends, decided exactly."""
    return bool(sp.sympify(inner[0] - outer[0]).is_nonnegative) and bool(sp.sympify(outer[1] - inner[1]).is_nonnegative)


def pairs(gap: Any, domain: Domain) -> list[tuple[sp.Symbol, sp.Symbol]]:
    """The pairs ``(x, x₀)`` the route tries: bounded real variables, range of x₀ in that of x, gap(x₀) ≡ 0 by
    automatic evaluation or expansion."""
    gap = sp.sympify(gap)
    box = _bounded_real(gap, domain)
    out = []
    for x, x0 in permutations(sorted(box, key=str), 2):
        if len(out) >= MAX_PAIRS:
            break
        if _inside(box[x0], box[x]) and _cheap_zero(gap.xreplace({x: x0})):
            out.append((x, x0))
    return out


def _ordered(gap: sp.Expr, found: list) -> list:
    """The pairs, the simplest ``∂²_x gap`` first: the variable of the expansion appears in few terms (a sample mean
    beside its expectation), the point ``x₀`` in many (inside the linear term's coefficient)."""
    return sorted(found, key=lambda p_: (sp.count_ops(sp.diff(gap, p_[0], 2)), str(p_)))


def applies(gap: Any, domain: Domain) -> bool:
    """The claim's shape: no sums or draws, and at least one pair ``(x, x₀)`` (``pairs``)."""
    gap = sp.sympify(gap)
    if gap.has(sp.Sum, sp.Product, sp.Indexed) or domain.constraints:
        return False
    return bool(pairs(gap, domain))


# ---------------------------------------------------------------- the engine's proofs of the derivative claims


def _sample_values(lo: sp.Expr, hi: sp.Expr, is_int: bool) -> list:
    """A few points of a range (ends, interior, far along an infinite end): for the screen, never for a proof."""
    lo_f = float(lo) if sp.sympify(lo).is_finite else None
    hi_f = float(hi) if sp.sympify(hi).is_finite else None
    if lo_f is not None and hi_f is not None:
        vals = [lo_f, hi_f, (lo_f + hi_f) / 2, lo_f + (hi_f - lo_f) / 7, hi_f - (hi_f - lo_f) / 5]
        if lo_f > 0 and hi_f / lo_f > 100:
            vals += [(lo_f * hi_f) ** 0.5, lo_f * 10, hi_f / 10]
    elif lo_f is not None:
        vals = [lo_f, lo_f + 1, lo_f + 10, lo_f + 1e6]
    elif hi_f is not None:
        vals = [hi_f, hi_f - 1, hi_f - 10, hi_f - 1e6]
    else:
        vals = [0.0, 1.0, -1.0, 1e6, -1e6]
    return [round(v_) for v_ in vals] if is_int else vals


def _negative_somewhere(expr: sp.Expr, ranges: Mapping) -> bool:
    """A screen before a proof attempt: the Arb enclosure of ``expr`` at a sample point of the box lies below 0
    (so the claim is false there and has no proof). True only skips an attempt; it proves nothing."""
    import random

    from .. import intervals

    syms = sorted(free_names(expr), key=str)
    if not syms:
        return False
    grid = [_sample_values(*ranges[s_], bool(s_.is_integer)) for s_ in syms]
    rng = random.Random(0)
    points = [[g[0] for g in grid], [g[1] for g in grid], [g[2] for g in grid]]
    points += [[rng.choice(g) for g in grid] for _ in range(30)]
    with intervals.iv_prec(128):
        for pt in points:
            try:
                v = intervals.interval_eval(expr, {s_: (sp.Rational(p_), sp.Rational(p_)) for s_, p_ in zip(syms, pt)})
            except Exception:  # noqa: BLE001,S112 - a point the formula cannot take says nothing
                continue
            if v.hi < 0:
                return True
    return False


def _prove(expr: sp.Expr, ranges: Mapping, opts: Mapping[str, Any], label: str) -> str:
    """``0 ≤ expr`` on the box ``ranges`` (restricted to expr's symbols), proved by the engine over the whole box;
    the method text, or ``_NoCertificate``."""
    from .reentry import check_step

    names = free_names(expr)
    missing = names - set(ranges)
    if missing:
        raise _NoCertificate(f"{label}: no range for {sorted(map(str, missing))}")
    dom = Domain({s_: r_ for s_, r_ in ranges.items() if s_ in names})
    if not names:
        from .touching import const_sign

        sgn = const_sign(expr)
        if sgn is not None and sgn >= 0:
            return "exact (Arb)"
        raise _NoCertificate(f"{label}: the sign of {expr} not decided")
    sub = {k_: v_ for k_, v_ in opts.items() if k_ != "clock"}
    sub["taylor_depth"] = int(opts.get("taylor_depth", 0)) + 1
    clock = opts.get("clock")
    left = clock.left() if clock is not None else None
    if left is not None:
        if left <= 0.05:
            raise _NoCertificate(f"{label}: the claim's time ran out")
        sub["budget"] = clock.budget.but(claim_seconds=min(left, SUB_SECONDS))
    else:  # a claim without a time limit (the catalogue's): each derivative claim gets its own
        from .budget import default_budget

        base = clock.budget if clock is not None else (opts.get("budget") or default_budget())
        sub["budget"] = base.but(claim_seconds=SUB_SECONDS)
    if _negative_somewhere(expr, dom.ranges):
        raise _NoCertificate(f"{label}: negative at a sample point (no proof attempted)")
    res = check_step(Step(label, sp.Integer(0), expr, kind="inequality", relation="<=", domain=dom), **sub)
    if res.verdict != Verdict.PROVED or not covers(res.covered, dom):
        raise _NoCertificate(f"{label}: {res.verdict} ({str(res.method)[:120]})")
    m = str(res.method)
    return m if len(m) <= 90 else m[:87] + "…"


def _sign_of(q: sp.Expr, ranges: Mapping, opts: Mapping[str, Any]) -> tuple[int, str]:
    """+1 (q ≥ 0) or −1 (q ≤ 0) on the box, proved; ``_NoCertificate`` otherwise."""
    if q.is_nonnegative:
        return 1, "SymPy's assumptions"
    if q.is_nonpositive:
        return -1, "SymPy's assumptions"
    for sgn in (1, -1):
        try:
            return sgn, _prove(sgn * q, ranges, opts, f"{'' if sgn > 0 else '−'}({q}) ≥ 0")
        except _NoCertificate:
            continue
    raise _NoCertificate(f"no proved sign for {q}")


def _resolve(g: sp.Expr, x: sp.Symbol, x0: sp.Symbol, side: int, ranges: Mapping, opts: Mapping, why: list) -> sp.Expr:
    """``g`` on the side ``sign(x − x₀) = side`` with every |·|, max, min replaced by its branch there."""
    memo: dict = {}
    while True:
        atoms = [a_ for a_ in g.atoms(*_NONSMOOTH) if not any(b_.has(*_NONSMOOTH) for b_ in a_.args)]
        if not atoms:
            return g
        rep = {}
        for a_ in atoms:
            if isinstance(a_, sp.Abs):
                d = a_.args[0]
            elif len(a_.args) == 2:
                d = a_.args[0] - a_.args[1]
            else:
                raise _NoCertificate(f"{a_}: a max/min of more than two terms")
            if not _zero(d.xreplace({x: x0})):
                raise _NoCertificate(f"{a_}: its argument does not vanish at {x} = {x0}")
            q = sp.simplify(sp.cancel(d / (x - x0)))
            if q.has(x) or q.has(sp.zoo, sp.nan):
                raise _NoCertificate(f"{a_}: its argument is not (x − x₀)·q with q free of {x}")
            key = sp.srepr(q)
            if key not in memo:
                sq, m = _sign_of(q, ranges, opts)
                memo[key] = sq
                why.append(f"sign({q}) = {'+' if sq > 0 else '−'} ({m})")
            s_d = side * memo[key]  # the sign of d on this side
            if isinstance(a_, sp.Abs):
                rep[a_] = s_d * d
            elif isinstance(a_, sp.Max):
                rep[a_] = a_.args[0] if s_d > 0 else a_.args[1]
            else:
                rep[a_] = a_.args[1] if s_d > 0 else a_.args[0]
        g = g.xreplace(rep)


def _smooth(g: sp.Expr) -> bool:
    from .monotone import SMOOTH_HEADS

    return all(isinstance(n_, SMOOTH_HEADS) for n_ in sp.preorder_traversal(g) if not n_.is_Atom)


def _defined(exprs: list, ranges: Mapping, opts: Mapping, label: str) -> None:
    from .wellposed import check_wellposed

    names = set().union(*(free_names(e) for e in exprs))
    dom = Domain({s_: r_ for s_, r_ in ranges.items() if s_ in names})
    wp = check_wellposed(exprs, dom, label, opts.get("clock"))
    if wp.status != "defined":
        raise _NoCertificate(f"{label}: the derivatives are not established defined on the segment ({wp.status})")


def _convex(g: sp.Expr, x: sp.Symbol, x0: sp.Symbol, box: Mapping, opts: Mapping) -> str:
    """G'(x₀) ≡ 0 and G'' ≥ 0 on the whole box: G ≥ 0 (G smooth, G(x₀) = 0)."""
    if not _smooth(g):
        raise _NoCertificate("not built from analytic heads")
    d1 = sp.diff(g, x)
    if not _zero(d1.xreplace({x: x0})):
        raise _NoCertificate(f"∂_{x} gap does not vanish at {x} = {x0}")
    d2 = sp.diff(g, x, 2)
    _defined([g, d1, d2], box, opts, f"taylor: gap, ∂_{x}, ∂²_{x}")
    m = _prove(d2, box, opts, f"taylor: ∂²_{x} gap ≥ 0")
    return f"convex in {x}: gap = ∂_{x} gap = 0 at {x} = {x0}, ∂²_{x} gap ≥ 0 on the box ({m})"


def _side(g: sp.Expr, x: sp.Symbol, x0: sp.Symbol, side: int, box: Mapping, opts: Mapping) -> str:
    """G ≥ 0 for x between x₀ and the box's end on ``side`` (module docstring, *sides*)."""
    why: list[str] = []
    gs = _resolve(g, x, x0, side, box, opts, why)
    if not _smooth(gs):
        raise _NoCertificate(f"the side {'+' if side > 0 else '−'} form is not built from analytic heads")
    lo, hi = box[x]
    end = hi if side > 0 else lo
    t = sp.Dummy("t", real=True)
    seg = {x: x0 + t * (end - x0)}
    ranges = {**{s_: r_ for s_, r_ in box.items() if s_ != x}, t: (sp.Integer(0), sp.Integer(1))}
    if not _zero(gs.xreplace({x: x0})):
        raise _NoCertificate("the side's form does not vanish at x = x₀")
    derivs = [gs]
    contact = NMAX  # the order of contact: the first derivative not ≡ 0 at x₀ (its claim is strict at t = 0)
    for n in range(1, NMAX + 1):
        derivs.append(sp.diff(derivs[-1], x))
        if not _zero(derivs[n].xreplace({x: x0})):
            contact = n
            break
    if contact < 2:
        raise _NoCertificate(f"∂_{x} of the side's form does not vanish at {x} = {x0}")
    notes = []
    for n in range(contact, 1, -1):  # the order of contact first, then lower orders (their claims touch at t = 0)
        claim = (sp.Integer(side) ** n * derivs[n]).xreplace(seg)
        try:
            _defined([d_.xreplace(seg) for d_ in derivs[: n + 1]], ranges, opts, f"taylor: derivatives to order {n}")
            m = _prove(claim, ranges, opts, f"taylor: side {'+' if side > 0 else '−'}, order {n}")
        except _NoCertificate as exc:
            notes.append(str(exc)[:100])
            continue
        pre = ("; ".join(why) + "; ") if why else ""
        sgn = "" if side > 0 or n % 2 == 0 else "−"
        return (
            f"{x} {'≥' if side > 0 else '≤'} {x0}: {pre}derivatives of order < {n} vanish at {x} = {x0}, "
            f"{sgn}∂^{n}_{x} gap ≥ 0 on {x} = {x0} + t·({end} − {x0}), t ∈ [0, 1] ({m})"
        )
    raise _NoCertificate(f"side {'+' if side > 0 else '−'}: no order proved ({'; '.join(notes)})")


def prove_taylor(gap: Any, domain: Domain, strict: bool, opts: Mapping[str, Any] | None = None) -> RouteOutcome | None:
    """Prove ``gap ≥ 0`` on ``domain`` by Taylor's theorem in one variable about another (module docstring).
    ``None`` when the route does not apply."""
    if not isinstance(domain, Domain):
        raise TypeError(f"prove_taylor: domain must be a Domain, got {type(domain).__name__}")
    opts = dict(opts or {})
    gap = sp.sympify(gap)
    if strict or int(opts.get("taylor_depth", 0)) >= 1 or not applies(gap, domain):
        return None
    box = {s_: tuple(sp.sympify(v_) for v_ in domain.range_of(s_)) for s_ in free_names(gap)}
    notes = []
    found = _ordered(gap, pairs(gap, domain))
    if opts.get("taylor_pair") is not None:  # a hint names the pair
        found = [p_ for p_ in found if p_ == tuple(opts["taylor_pair"])]
    if not gap.has(*_NONSMOOTH):  # the one-claim certificate first, for every pair (the cheaper when it holds)
        for x, x0 in found:
            try:
                return _outcome(gap, domain, x, x0, _convex(gap, x, x0, box, opts))
            except _NoCertificate as exc:
                notes.append(f"({x}, {x0}) convex: {exc}")
    for x, x0 in found:
        try:
            texts = [_side(gap, x, x0, side, box, opts) for side in (1, -1)]
            return _outcome(gap, domain, x, x0, "; ".join(texts))
        except _NoCertificate as exc:
            notes.append(f"({x}, {x0}): {exc}")
    return RouteOutcome(False, "taylor: no proof", "; ".join(notes)[:600], None)


def _outcome(gap: sp.Expr, domain: Domain, x: sp.Symbol, x0: sp.Symbol, text: str) -> RouteOutcome:
    covered = {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in domain.ranges.items() if s_ in free_names(gap)}
    return RouteOutcome(
        True,
        f"Taylor in {x} about {x0}, integral remainder",
        f"gap = 0 at {x} = {x0}; Taylor with integral remainder G(x) = (x − x₀)ⁿ/(n − 1)!·∫₀¹(1 − t)ⁿ⁻¹G⁽ⁿ⁾ dt: {text}",
        covered,
    )


def prove_taylor_hinted(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    """Hinted form (``Step.route = ("taylor", {})``): the route above on the step's gap before any other stage (a
    claim whose symbolic stage would spend its time on |·| or max), with the falsifier beside it. Optional
    ``x``, ``x0``: the one pair to try. A refutation only through the falsifier's gate."""
    from ..ledger import DerivationError
    from .custom import proof_result
    from .falsifier import falsify
    from .sampling import _sides

    if step.kind != "inequality":
        raise DerivationError(f"step {step.name!r}: route 'taylor' proves inequalities, not {step.kind}")
    pair = (params.get("x"), params.get("x0"))
    if (pair[0] is None) != (pair[1] is None) or any(p_ is not None and not isinstance(p_, sp.Symbol) for p_ in pair):
        raise DerivationError(f"step {step.name!r}: route 'taylor' parameters x and x0 must be two symbols or absent")
    small, big, strict = _sides(step)
    gap = sp.sympify(big) - sp.sympify(small)
    fz = falsify(step, opts)
    out = None
    if fz.counterexample is None:
        out = prove_taylor(gap, step.domain, strict, {**opts, "taylor_pair": pair if pair[0] is not None else None})
    proved = out is not None and out.proved and covers(out.covered, step.domain, free_names(gap))
    method = f"route taylor: {out.method}" if out is not None else "route taylor: not of the route's shape"
    if out is not None and out.reduction:
        method += f" ({out.reduction})"
    cover = dict(out.covered or {}) if proved else None
    if cover is not None:
        for name in free_names(step.lhs) | free_names(step.rhs):  # a symbol the gap cancelled: any value
            cover.setdefault(str(name), ("-oo", "oo"))
    return proof_result(step, fz, proved, method, covered=cover, symbolic=True, certified=True)
