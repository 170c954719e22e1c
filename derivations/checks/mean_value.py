"""Route "mean value": "(G(b) − G(a))/(b − a) = G'(a + c(b − a)) for some c ∈ [0, 1]", or |G(b) − G(a)| ≤ L|b − a|.

Claim shape: an identity step whose ``rhs`` contains the existential symbol ``point`` (c), whose range in the
domain must be exactly [0, 1]. The claim is: for every point of the domain (c excluded) some c ∈ [0, 1] makes
``lhs = rhs``. The hint names the function along the segment:

    Step(..., route=("mean value", {"path": G, "var": t, "point": c, "start": a, "end": b}))

``G`` an expression in the scalar ``var`` (t) and the claim's symbols, ``a``, ``b`` expressions of the claim's
symbols (default 0 and 1); optional ``points`` (exact points the refutation attempt tries, default 8) and
``pieces`` (how many pieces [0, 1] is cut into when enclosing ``rhs`` over c, default 32).

Proved, on the whole domain, when all hold:

1. ``lhs − (G(b) − G(a))/(b − a)`` and ``rhs − G'(a + c(b − a))`` reduce to 0 in SymPy (``expand``, else
   ``simplify``, else the step's own simplifier): symbolic identities in every symbol;
2. G is continuously differentiable on every segment [a, b]: built from analytic heads only
   (``monotone.SMOOTH_HEADS``), and G and G' are *defined* (``wellposed.check_wellposed``: log arguments > 0,
   divisors ≠ 0, … established symbolically or by Arb) on the domain with t over the hull of a and b over
   the domain (Arb enclosures of a and b, rounded outward to rationals): a finite, certified set containing
   every segment;
3. then Lagrange's mean value theorem gives c ∈ (0, 1) wherever b ≠ a; where b = a the quotient is 0/0 and
   the claim is read as its continuous extension G'(a), which ``rhs`` equals at every c.

Never floats: the identities are symbolic, definedness is symbolic or Arb, and the theorem does the rest. The
cover is the domain's box (c's entry is the range in which c exists).

Second shape, a derivative bound (hint ``"bound": L`` instead of ``"point"``): a non-strict inequality whose
small side is ``G(b) − G(a)`` or ``|G(b) − G(a)|`` and whose big side is ``L·|b − a|`` (``L`` free of t). Proved
when both sides reduce to those forms in SymPy, G is C¹ along every segment (2. above) and ``L − G'(t) ≥ 0``
and ``L + G'(t) ≥ 0`` are certified by Arb branch and bound (``interval.certify_nonnegative``) on the domain
with t over the segments' hull: then |G(b) − G(a)| = |G'(ξ)|·|b − a| ≤ L·|b − a|. The box falsifier runs for
the record (its counterexamples go through the refutation gate).

Refutation of the existence shape (run in every case, for the record): at ``points`` seeded exact rational points of the domain
(b ≠ a), ``rhs`` is enclosed over c ∈ [0, 1] by Arb (``intervals.interval_eval``, [0, 1] cut into ``pieces``)
in [L, U] with exact endpoints; if the refutation gate (``refute.confirm``) shows ``lhs > U`` or ``lhs < L``
there, no c exists and the claim is refuted at that point. Without a proof and without a refutation the
verdict is "verified numerically" on the ranges tried.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

import sympy as sp

from .. import intervals
from ..ledger import DerivationError, Domain, Step, StepResult, free_names, region
from . import verdicts
from .budget import run_symbolic
from .custom import proof_result
from .falsifier import falsify
from .interval import certify_nonnegative
from .monotone import smooth
from .refute import confirm
from .sampling import _sides
from .wellposed import check_wellposed

#: default parameters: exact points the refutation attempt tries, pieces [0, 1] is cut into for c
POINTS, PIECES = 8, 32


def _params(step: Step, params: Mapping[str, Any]) -> dict[str, Any]:
    name = f"step {step.name!r}: route 'mean value' parameter"
    path = sp.sympify(params["path"])
    var = sp.sympify(params["var"])
    shape = "bound" if "bound" in params else "exists"
    if shape == "exists" and "point" not in params:
        raise DerivationError(f"{name}s: give point (an existence claim) or bound (a derivative bound); missing both")
    if shape == "bound" and "point" in params:
        raise DerivationError(f"{name}s: give point (an existence claim) or bound (a derivative bound), not both")
    point = sp.sympify(params["point"]) if shape == "exists" else None
    bound = sp.sympify(params["bound"]) if shape == "bound" else None
    for p, v in (("var", var), ("point", point)):
        if v is not None and not isinstance(v, sp.Symbol):
            raise DerivationError(f"{name} {p} must be a SymPy symbol, got {v!r}")
    if point is not None and (point not in step.domain.ranges or tuple(step.domain.ranges[point]) != (0, 1)):
        raise DerivationError(f"{name} point {point} must range over exactly [0, 1] in the domain")
    if var in step.domain.ranges or var in free_names(step.lhs) | free_names(step.rhs):
        raise DerivationError(f"{name} var {var} must be a fresh symbol (not in the claim or its domain)")
    start, end = sp.sympify(params.get("start", 0)), sp.sympify(params.get("end", 1))
    given = (("start", start), ("end", end), ("path", path), ("bound", bound))
    for p, v in given:
        if v is None:
            continue
        if point is not None and point in free_names(v):  # c is what the theorem supplies, not an input
            raise DerivationError(f"{name} {p} must not contain the point {point}")
        if p != "path" and var in free_names(v):
            raise DerivationError(f"{name} {p} must not contain the path's variable {var}")
        missing = free_names(v) - {var} - set(step.domain.ranges)
        if missing:
            raise DerivationError(f"{name} {p} uses {sorted(map(str, missing))}, which have no range")
    counts = {}
    for p, default, top in (("points", POINTS, 10_000), ("pieces", PIECES, 10_000)):
        v = params.get(p, default)
        if not isinstance(v, int) or not 0 <= v <= top:
            raise DerivationError(f"{name} {p} must be an integer in [0, {top}], got {v!r}")
        counts[p] = v
    if shape == "exists" and step.kind != "identity":
        raise DerivationError(f"step {step.name!r}: route 'mean value' with a point proves identities, not {step.kind}")
    if shape == "bound" and (step.kind != "inequality" or step.relation not in ("<=", ">=")):
        raise DerivationError(
            f"step {step.name!r}: route 'mean value' with a bound proves a non-strict inequality "
            f"|G(b) − G(a)| ≤ L·|b − a|, not {step.kind} {step.relation or ''}"
        )
    return {
        "path": path,
        "var": var,
        "point": point,
        "bound": bound,
        "start": start,
        "end": end,
        "shape": shape,
        **counts,
    }


def _zero(e: sp.Expr, simplifier: Any, screen: Mapping[Any, sp.Expr] | None, clock: Any) -> bool:
    """``e`` reduces to 0 in SymPy: ``expand``, then ``simplify``, then the step's simplifier, each under the
    claim's clock. First the refutation gate at the exact point ``screen``: an ``e`` that is certainly not 0
    there is not an identity, and SymPy is not asked to simplify it (which may not end)."""
    if screen is not None and confirm(e, 0, "=", screen) is not None:
        return False
    if sp.expand(e) == 0:
        return True
    deadline = 5.0 if clock is None else clock.deadline(0.25)
    if run_symbolic(sp.simplify, e, deadline=deadline, stage="mean value: simplify") == 0:
        return True
    if simplifier is None:
        return False
    return run_symbolic(simplifier, e, deadline=deadline, stage="mean value: simplifier") == 0


def _rational(x: Any) -> sp.Rational:
    """An exact Arb point (an interval endpoint) as a SymPy rational."""
    man, ex = x.mid().man_exp()
    return sp.Integer(int(man)) * sp.Integer(2) ** int(ex)


def _hull(expr: sp.Expr, domain: Domain) -> tuple[sp.Expr, sp.Expr] | None:
    """Rational bounds of ``expr`` over the domain box (Arb), or None when not finite."""
    box = {}
    for atom in expr.atoms(sp.Symbol, sp.Indexed):
        key = atom.base.label if isinstance(atom, sp.Indexed) else atom
        box[atom] = domain.ranges[key]
    try:
        iv = intervals.interval_eval(expr, box)
    except intervals.NotEnclosable:
        return None
    if not (iv.lo.is_finite() and iv.hi.is_finite()):
        return None
    return _rational(iv.lo), _rational(iv.hi)


def _segment(step: Step, p: Mapping[str, Any], clock: Any) -> tuple[Domain | None, str]:
    """The domain with the path's variable over the hull of a and b (Arb, rounded out to rationals), when G
    is built from analytic heads and G, G' are defined there (``wellposed``): a set containing every segment."""
    G, t, a, b = p["path"], p["var"], p["start"], p["end"]
    head = smooth(G)
    if head is not None:
        return None, f"the path contains {head}, which need not be differentiable"
    ha, hb = _hull(a, step.domain), _hull(b, step.domain)
    if ha is None or hb is None:
        return None, "the segment's ends are not bounded on the domain (Arb)"
    seg = (min(ha[0], hb[0]), max(ha[1], hb[1]))
    dom = Domain({**step.domain.ranges, t: seg}, step.domain.constraints)
    wp = check_wellposed([G, sp.diff(G, t)], dom, step.name, clock)
    note = f"G, G' defined for {t} ∈ [{seg[0]}, {seg[1]}] over the domain: {wp.status == 'defined'} ({wp.reason})"
    return (dom if wp.status == "defined" else None), note


def _proof(
    step: Step, p: Mapping[str, Any], screen: Mapping[Any, sp.Expr] | None, clock: Any
) -> tuple[bool, list[str]]:
    """The existence shape: the two identities, then definedness along the segment."""
    G, t, c, a, b = p["path"], p["var"], p["point"], p["start"], p["end"]
    notes: list[str] = []
    quotient_ok = _zero(step.lhs - (G.subs(t, b) - G.subs(t, a)) / (b - a), step.simplifier, screen, clock)
    notes.append(f"lhs = (G(b) − G(a))/(b − a): {quotient_ok}")
    derivative_ok = _zero(step.rhs - sp.diff(G, t).subs(t, a + c * (b - a)), step.simplifier, screen, clock)
    notes.append(f"rhs = G'(a + c(b − a)): {derivative_ok}")
    if not (quotient_ok and derivative_ok):
        return False, notes
    dom, note = _segment(step, p, clock)
    return dom is not None, [*notes, note]


def _bound_proof(
    step: Step, p: Mapping[str, Any], screen: Mapping[Any, sp.Expr] | None, opts: Mapping[str, Any]
) -> tuple[bool, list[str]]:
    """The bound shape: small ≡ G(b) − G(a) or |G(b) − G(a)|, big ≡ L·|b − a|, and L ∓ G' ≥ 0 certified by Arb
    branch and bound over the set containing every segment."""
    G, t, a, b, L = p["path"], p["var"], p["start"], p["end"], p["bound"]
    clock = opts.get("clock")
    small, big, _ = _sides(step)
    diff = G.subs(t, b) - G.subs(t, a)
    small_ok = _zero(small - diff, step.simplifier, screen, clock)
    small_ok = small_ok or _zero(small - sp.Abs(diff), step.simplifier, screen, clock)
    big_ok = _zero(big - L * sp.Abs(b - a), step.simplifier, screen, clock)
    notes = [f"small side = G(b) − G(a) or its absolute value: {small_ok}", f"big side = L·|b − a|: {big_ok}"]
    if not (small_ok and big_ok):
        return False, notes
    dom, note = _segment(step, p, clock)
    notes.append(note)
    if dom is None:
        return False, notes
    dG = sp.diff(G, t)
    for sign in (1, -1):  # L − G' ≥ 0 and L + G' ≥ 0: |G'| ≤ L without enclosing an Abs
        out = certify_nonnegative(L - sign * dG, dom, budget=opts["box_budget"], clock=clock)
        notes.append(f"L {'−' if sign > 0 else '+'} G' ≥ 0 (Arb): {out.status}")
        if out.status != "proved":
            return False, notes
    return True, notes


def _sample(rng: random.Random, lo: sp.Expr, hi: sp.Expr, integer: bool) -> sp.Expr:
    lo_ = lo if lo.is_finite else (hi - 10 if hi.is_finite else sp.Integer(-10))
    hi_ = hi if hi.is_finite else lo_ + 10
    if integer:
        return sp.Integer(rng.randint(int(sp.ceiling(lo_)), int(sp.floor(hi_))))
    return lo_ + (hi_ - lo_) * sp.Rational(rng.randint(0, 1024), 1024)


def _points(step: Step, p: Mapping[str, Any], opts: Mapping[str, Any]) -> Iterator[dict[Any, sp.Expr]]:
    """Seeded exact rational points of the domain (every symbol and vector entry of the claim, c included)
    with b ≠ a, at most ``3 · points`` draws."""
    a, b = p["start"], p["end"]
    atoms = sorted(step.lhs.atoms(sp.Symbol, sp.Indexed) | step.rhs.atoms(sp.Symbol, sp.Indexed), key=str)
    atoms = [x_ for x_ in atoms if not (isinstance(x_, sp.Symbol) and x_ not in step.domain.ranges)]  # bound indices
    rng = random.Random(f"{opts.get('seed', 0)}:mean value:{step.name}")
    for _ in range(3 * max(p["points"], 1)):
        pt = {}
        for x_ in atoms:
            key = x_.base.label if isinstance(x_, sp.Indexed) else x_
            lo, hi = step.domain.ranges[key]
            pt[x_] = _sample(rng, lo, hi, bool(key.is_integer))
        if sp.simplify((b - a).subs(pt)) == 0 or not all(
            bool(sp.sympify(k_).subs(pt)) for k_ in step.domain.constraints
        ):
            continue
        yield pt


def _attack(step: Step, p: Mapping[str, Any], opts: Mapping[str, Any]) -> tuple[dict | None, int]:
    """(counterexample, points tried): an exact point where ``lhs`` is outside ``rhs``'s Arb range over c."""
    c = p["point"]
    cuts = [sp.Rational(i, p["pieces"]) for i in range(p["pieces"] + 1)]
    tried = 0
    for pt in _points(step, p, opts):
        if tried >= p["points"]:
            break
        tried += 1
        pt.pop(c, None)
        rhs_c = step.rhs.subs(pt)
        try:
            pieces = [intervals.interval_eval(rhs_c, {c: (lo, hi)}) for lo, hi in zip(cuts[:-1], cuts[1:])]
        except intervals.NotEnclosable:
            continue
        lo_ = min((x_.lo for x_ in pieces), key=lambda v: v)
        hi_ = max((x_.hi for x_ in pieces), key=lambda v: v)
        if not (lo_.is_finite() and hi_.is_finite()):
            continue
        for bound, rel in ((_rational(hi_), "<="), (_rational(lo_), ">=")):
            cx = confirm(step.lhs, bound, rel, pt, domain=step.domain)
            if cx is not None:
                out = cx.as_dict()
                out["rhs_range_over_c"] = f"[{sp.N(_rational(lo_), 15)}, {sp.N(_rational(hi_), 15)}]"
                return out, tried
    return None, tried


def prove_mean_value(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (module docstring)."""
    p = _params(step, params)
    screen = next(_points(step, p, opts), None)
    box = region(step.domain.ranges)  # a symbol of the domain the claim does not contain restricts nothing
    if p["shape"] == "bound":
        proved, notes = _bound_proof(step, p, screen, opts)
        how = f"route mean value, |G'| ≤ {p['bound']} (path {p['var']} ↦ G from {p['start']} to {p['end']}: "
        how += "; ".join(notes) + ")"
        fz = falsify(step, opts)
        return proof_result(step, fz, proved, how, covered=box if proved else None, symbolic=True, certified=True)
    proved, notes = _proof(step, p, screen, opts.get("clock"))
    cx, tried = _attack(step, p, opts)
    how = (
        f"route mean value (path {p['var']} ↦ G from {p['start']} to {p['end']}: {'; '.join(notes)}); "
        f"refutation attempt: {tried} exact points, rhs enclosed by Arb over c ∈ [0, 1] in {p['pieces']} pieces"
    )
    if cx is not None:
        return verdicts.refuted(
            step,
            method=how,
            evidence="lhs outside the Arb range of rhs over every c ∈ [0, 1] (refutation gate)",
            trials=tried,
            counterexample=cx,
        )
    if proved:
        return verdicts.proved(
            step,
            method=how,
            evidence="symbolic identities, definedness established, Lagrange's mean value theorem",
            trials=tried,
            symbolic=True,
            cover=box,
        )
    if tried == 0:
        return verdicts.undecided(step, method=f"{how} (not proved)", evidence="; ".join(notes))
    return verdicts.verified(
        step,
        method=f"{how} (not proved)",
        evidence=f"lhs inside rhs's range over c at every point tried; {'; '.join(notes)}",
        trials=tried,
        attacked=box,
    )
