"""Route "mean value composition": ``F(b) − F(a) ≤ R`` (or ``|F(b) − F(a)| ≤ R``) on a box Y, from the fundamental
theorem of calculus along the segment ``a + t(b − a)``, ``t ∈ [0, 1]``, and a pointwise bound on the integrand that
is a proved claim over a domain X the segment never leaves.

Claim shape: an inequality ``small ≤ big`` (relation ``<=`` or ``>=``, not strict) whose ``small`` is ``D`` or
``Abs(D)`` (``D = F(b) − F(a)``, any expression) and whose ``big`` does not contain the segment's parameter.
The hint (parameters as data; parts written by ``conjunction.part``)::

    route=("mean value composition", {
        "var": t,                        # the segment's parameter, t ∈ [0, 1]
        "integral": part(I),             # identity  D = ∫₀¹ g(t) dt  (its own route: an antiderivative)
        "pointwise": [part(P1), …],      # a chain  L_1 ≤ R_1 = L_2 ≤ … ≤ R_n  over X (each part proved)
        "at": {x: a + t*(b − a), h: Lambda(i, v[i] − z[i]), …},  # X's point and direction on the segment
    })                                   # optional "reason" (prose), "attack" (code, beside the proof)

Proved (covering Y, the claim's stated box) when all of the following hold, each shown, none assumed:

1. *integral*: the part ``I`` is PROVED (``check_step`` through ``conjunction.checked``: once per content in a
   run) on a box containing Y × [0, 1], its lhs is ``D`` and its rhs is ``Integral(g, (t, 0, 1))``;
2. *pointwise*: every part ``P_i`` is PROVED on its stated domain (covering it), ``R_i ≡ L_{i+1}`` exactly,
   and the first link bounds a positive multiple of the integrand at the segment's points: ``L_1[at] ≡ c·F``
   with ``F`` one of ``g`` (a one-sided claim only), ``|g|`` or ``M(g)``, the *triangle majorant*
   (``|Σ_j u_j| ≤ Σ_j |u_j|``, ``|Π f| = Π |f|`` with each factor that is ≥ 0 structurally kept as it is: exp,
   a positive symbol, a sum or power of such), so ``g ≤ |g| ≤ M(g)``; ``c`` has no t, no Abs, and is > 0 by
   SymPy's assumptions or Arb over Y (τ when the part bounds τ times a derivative); the bound is then
   ``R_n[at]/c``. Equality is structural (bound indices renamed), else ``expand`` for small differences only;
3. *domain*: the segment stays in X: each value of ``at`` is linear in t, ``e(t) = e(0) + t (e(1) − e(0))``
   (exact), and both ends lie in X's range of that variable over Y (Arb enclosure; a vector's entries each), so
   every point of the segment does (an interval is convex: a box, and a ball, contain the chord between two of
   their points; a sphere does not); an end is in the range by Arb over Y's box, or because Y states a ball
   ``Σ_m u_m² ≤ ρ²`` with the end among the u_m (|u_m| ≤ ρ); a value without t is enclosed directly. A
   vector's entries are checked one by one where the part reads concrete ones (a realisation's coordinates). Every other symbol of X is the
   claim's own, its range in Y inside its range in X. A constraint of X that the segment does not move must be
   one of Y's; one it moves must be a convex sublevel set ``q ≤ c₀`` (q quadratic with a constant positive
   semidefinite Hessian: a ball) that is one of Y's constraints at both ends; an equality (a sphere: ‖x‖ = 1)
   is never carried along, since the chord between two points of a sphere leaves it;
4. *sup*: ``R_n[at]`` has no t, and equals ``big`` exactly or ``R_n[at] ≤ big`` is proved on Y by the engine.

Then ``D = ∫₀¹ g dt ≤ ∫₀¹ L_1(at(t)) dt ≤ ∫₀¹ R_n[at] dt = R_n[at] ≤ big`` (monotonicity of the integral; g is
continuous on [0, 1] since the proved identity I has it as the derivative of an antiderivative). The verdict's
method names the parts and each condition. Whatever the proof, the claim's own falsifier runs beside it (or the
hint's ``attack``, code: a ``Step.check``-like search, e.g. ``paper._embed.vector_check`` over configurations);
a counterexample it confirms (``refute.confirm``'s Arb replay at an exact point) refutes the claim. Not proved:
the falsifier's verdict (at most *verified numerically*), with the condition that failed in the method. A part
that is not proved, a path that leaves X, a bound that does not reach ``big``: not proved, never refuted by
that alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp

from .. import intervals
from ..ledger import DerivationError, Step, StepResult, Verdict, covers, free_names, region
from .sampling import _sides
from .verdicts import by_verdict

#: the parameters a hint must give
REQUIRED = ("var", "integral", "pointwise", "at")
OPTIONAL = ("reason", "attack")


class _No(Exception):
    """A condition of the composition is not shown (the message says which)."""


# ----------------------------------------------------------------------------- expression helpers


def _canon(e: Any, depth: int = 0) -> sp.Expr:
    """``e`` with every sum's bound index renamed by its nesting depth, ``sqrt(u²)`` written ``|u|``: two
    sides equal up to the names of bound indices compare equal."""
    e = sp.sympify(e)
    if isinstance(e, sp.Sum) and len(e.limits) == 1:
        var, lo, hi = e.limits[0]
        new = sp.Symbol(f"_mvc_j{depth}", integer=True)
        body = e.function.xreplace({var: new})
        return sp.Sum(_canon(body, depth + 1), (new, _canon(lo, depth), _canon(hi, depth)))
    if isinstance(e, sp.Pow) and e.exp == sp.S.Half and isinstance(e.base, sp.Pow) and e.base.exp == 2:
        inner = _canon(e.base.base, depth)
        if inner.is_real:
            return sp.Abs(inner)
    if not e.args or isinstance(e, (sp.Indexed, sp.IndexedBase, sp.Symbol, sp.Lambda)):
        return e
    return e.func(*[_canon(a, depth) for a in e.args])


def _same(a: Any, b: Any) -> bool:
    """``a ≡ b`` exactly: structurally after ``_canon``, else ``expand(a − b) = 0`` (no evalf, no sampling)."""
    ca, cb = _canon(a), _canon(b)
    if ca == cb:
        return True
    d = ca - cb
    if sp.count_ops(d) > _EXPAND_OPS:  # a realisation's derivative: expanding it costs minutes; not shown equal
        return False
    try:
        return sp.expand(d) == 0
    except Exception:  # noqa: BLE001 - an expression SymPy cannot expand: not shown equal
        return False


#: the largest difference ``_same`` expands (operations); larger ones must agree structurally
_EXPAND_OPS = 400


def _nonneg(e: Any) -> bool:
    """``e ≥ 0`` structurally (SymPy's assumptions, exp of a real, sums, products and powers of such)."""
    e = sp.sympify(e)
    if e.is_nonnegative:
        return True
    if isinstance(e, sp.exp):
        return bool(e.args[0].is_real)
    if isinstance(e, sp.Abs):
        return True
    if isinstance(e, sp.Sum):
        return _nonneg(e.function)
    if isinstance(e, (sp.Mul, sp.Add)):
        return all(_nonneg(a) for a in e.args)
    if isinstance(e, sp.Pow):
        return _nonneg(e.base) and bool(e.exp.is_real)
    return False


def majorant(e: Any) -> sp.Expr:
    """M(e) ≥ |e|: the triangle inequality through a sum over j, ``|Π f| = Π |f|``, a factor ≥ 0
    (``_nonneg``) kept as it is and any other factor ``|f|``."""
    e = sp.sympify(e)
    if _nonneg(e):
        return e
    if isinstance(e, sp.Mul):
        return sp.Mul(*[majorant(f) for f in e.args])
    if isinstance(e, sp.Sum):
        return sp.Sum(majorant(e.function), *e.limits)
    return sp.Abs(e)  # an addition stays whole: |a + b| (the tightest; a user's L₁ may split it in a chain)


def _substitute(e: Any, at: Mapping[Any, Any]) -> sp.Expr:
    """``e`` with X's point put on the segment: a symbol ↦ its value, a vector's entry ``x[i]`` ↦ ``value(i)``
    (``Lambda``), all at once."""
    e = sp.sympify(e)
    rep: dict = {}
    for key, val in at.items():
        if isinstance(key, sp.IndexedBase):
            for a in e.atoms(sp.Indexed):
                if a.base == key:
                    rep[a] = val(*a.indices)
        else:
            rep[key] = val
    return e.xreplace(rep)


def _entry_box(e: sp.Expr, step: Step) -> tuple[sp.Expr, dict]:
    """``e`` with each vector entry ``v[i]`` a scalar over its base's range in ``step`` (entries independent),
    and the box of every symbol it then has (KeyError: a symbol ``step`` does not range)."""
    ranges = {getattr(s_, "label", s_): rng for s_, rng in step.domain.ranges.items()}
    rep, box = {}, {}
    for a in sp.sympify(e).atoms(sp.Indexed):
        sym = sp.Symbol(f"_mvc_{a.base.label}_{'_'.join(map(str, a.indices))}", real=True)
        rep[a] = sym
        box[sym] = tuple(sp.sympify(x_) for x_ in ranges[a.base.label])
    out = sp.sympify(e).xreplace(rep)
    for s_ in out.free_symbols:
        if s_ not in box:
            box[s_] = tuple(sp.sympify(x_) for x_ in ranges[s_])
    return out, box


def _ball_radius(e: sp.Expr, step: Step) -> sp.Expr | None:
    """ρ when one of ``step``'s constraints is ``Σ_m u_m² ≤ ρ²`` with some ``u_m = ±e`` (a coordinate of a vector
    in a stated ball: |e| ≤ ρ); else None."""
    for c in step.domain.constraints:
        if isinstance(c, sp.LessThan):
            total, r2 = c.lhs, c.rhs
        elif isinstance(c, sp.GreaterThan):
            total, r2 = c.rhs, c.lhs
        else:
            continue
        if not (sp.sympify(r2).is_number and sp.sympify(r2).is_nonnegative):
            continue
        for term in sp.Add.make_args(total):
            if isinstance(term, sp.Pow) and term.exp == 2 and (_same(term.base, e) or _same(term.base, -e)):
                if all(isinstance(t_, sp.Pow) and t_.exp == 2 for t_ in sp.Add.make_args(total)):
                    return sp.sqrt(r2)
    return None


def _inside(e: sp.Expr, lo: Any, hi: Any, step: Step) -> bool:
    """``e ∈ [lo, hi]`` on the whole stated domain of ``step``: one Arb enclosure over its box (exact for a
    number), else |e| ≤ ρ from a stated ball ``Σ_m u_m² ≤ ρ²`` with e among the u_m (``_ball_radius``)."""
    lo, hi = sp.sympify(lo), sp.sympify(hi)
    rho = _ball_radius(sp.sympify(e), step)
    if rho is not None and bool(lo <= -rho) and bool(rho <= hi):
        return True
    try:
        val, box = _entry_box(e, step)
    except KeyError:
        return False
    try:
        with intervals.iv_prec(128):
            enc = intervals.interval_eval(val, box) if box else intervals.to_iv(val, val)
        ok_lo = lo == -sp.oo or bool(enc.lo >= intervals.to_iv(lo, lo).lo)
        ok_hi = hi == sp.oo or bool(enc.hi <= intervals.to_iv(hi, hi).hi)
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, ArithmeticError):
        return False
    return ok_lo and ok_hi


# ----------------------------------------------------------------------------- the conditions


def _parts(params: Mapping[str, Any], step: Step) -> tuple[Step, list[Step]]:
    from .conjunction import _step_of

    where = f"step {step.name!r}: route 'mean value composition'"
    integral = _step_of(params["integral"], f"{where} integral")
    raw = params["pointwise"]
    if not isinstance(raw, (list, tuple)) or not raw:
        raise DerivationError(f"{where}: parameter 'pointwise' must be a non-empty list of parts")
    chain = [_step_of(p, f"{where} pointwise[{i}]") for i, p in enumerate(raw)]
    for p in chain:
        if p.kind != "inequality" or (p.relation or "<=") not in ("<=", ">="):
            raise DerivationError(f"{where}: pointwise part {p.name!r} must be a non-strict inequality")
    if integral.kind != "identity":
        raise DerivationError(f"{where}: parameter 'integral' must be an identity D = ∫₀¹ g dt")
    return integral, chain


def _proved(part: Step, opts: Mapping[str, Any], what: str) -> tuple[StepResult, str]:
    from .conjunction import checked

    res = checked(part, opts)
    if res.verdict != Verdict.PROVED:
        raise _No(f"{what} {part.name!r} is not proved ({res.verdict}: {str(res.method)[:160]})")
    if not covers(res.covered, part.domain):
        raise _No(f"{what} {part.name!r} is proved on {res.covered}, short of its stated domain")
    return res, f"{what} {part.name!r} proved ({str(res.method).split(';')[0][:120]})"


def _integrand(step: Step, integral: Step, d: sp.Expr, var: sp.Symbol, absolute: bool) -> sp.Expr:
    """g of ``D = ∫₀¹ g dt``, with the identity's box containing the claim's box × [0, 1]."""
    lhs, rhs = sp.sympify(integral.lhs), sp.sympify(integral.rhs)
    if isinstance(lhs, sp.Integral) and not isinstance(rhs, sp.Integral):
        lhs, rhs = rhs, lhs
    if not (isinstance(rhs, sp.Integral) and len(rhs.limits) == 1 and len(rhs.limits[0]) == 3):
        raise _No("the integral part is not D = ∫₀¹ g dt (one definite integral)")
    tv, lo, hi = rhs.limits[0]
    if tv != var or lo != 0 or hi != 1:
        raise _No(f"the integral part integrates over ({tv}, {lo}, {hi}), not ({var}, 0, 1)")
    if not (_same(lhs, d) or (absolute and _same(lhs, -d))):  # |D| = |−D|: SymPy may print Abs with D negated
        raise _No("the integral part's other side is not the claim's difference D")
    names = free_names(lhs) | free_names(rhs)
    mine = {getattr(s_, "label", s_): rng for s_, rng in integral.domain.ranges.items()}
    for s_, (clo, chi) in step.domain.ranges.items():
        label = getattr(s_, "label", s_)
        if label not in names:
            continue
        if label not in mine or bool(sp.sympify(clo) < mine[label][0]) or bool(sp.sympify(chi) > mine[label][1]):
            raise _No(f"the integral part's box does not contain the claim's range of {label}")
    if var not in mine or bool(mine[var][0] > 0) or bool(mine[var][1] < 1):
        raise _No(f"the integral part's box does not contain {var} ∈ [0, 1]")
    return rhs.function


def _scale(first: sp.Expr, form: sp.Expr, step: Step, var: sp.Symbol) -> sp.Expr | None:
    """c > 0 without ``var`` with ``first ≡ c·form`` (1 when they are equal), or None: the pointwise part may bound
    a positive multiple of the integrand (τ times the derivative, say)."""
    if _same(first, form):
        return sp.Integer(1)
    c = sp.sympify(first) / sp.sympify(form)  # SymPy's own cancellation of equal factors (τ·|Q| / (|Q|/τ) = τ)
    if (c.has(sp.Abs) or var in c.free_symbols) and sp.count_ops(c) <= _EXPAND_OPS:
        c = sp.cancel(sp.powsimp(sp.expand(c)))  # small sides written differently (a + t(b − a), a − t(a − b))
    if c.has(sp.Abs, sp.Sum, sp.Indexed) or var in c.free_symbols or c == 0 or not _same(first, c * form):
        return None
    if c.is_positive:
        return c
    return c if _inside(c, 0, sp.oo, step) and c.is_nonzero else None


def _first_link(small: sp.Expr, g: sp.Expr, first: sp.Expr, step: Step, var: sp.Symbol) -> tuple[str, sp.Expr]:
    """How the first part's lhs at the segment's points bounds a positive multiple c of the integrand, and c
    (``_No`` if it does not)."""
    absolute = isinstance(small, sp.Abs)
    forms = [] if absolute else [(g, "the integrand")]
    forms += [
        (sp.Abs(g), "|integrand|"),
        (majorant(g), "the integrand's triangle majorant (|Σ u_j| ≤ Σ |u_j|, |Π f| = Π |f|, f ≥ 0 kept)"),
    ]
    for form, said in forms:
        c = _scale(first, form, step, var)
        if c is not None:
            return (f"L₁ at the segment is {said}" if c == 1 else f"L₁ at the segment is {sp.sstr(c)} × {said}"), c
    raise _No(
        "the first pointwise part's lhs at the segment's points is neither the integrand, its absolute "
        "value nor its triangle majorant"
    )


def _domain(step: Step, chain: Sequence[Step], at: Mapping[Any, Any], var: sp.Symbol) -> list[str]:
    """Why every point of the segment lies in each part's domain (``_No`` naming the first that fails)."""
    said: list[str] = []
    claim_ranges = {getattr(s_, "label", s_): rng for s_, rng in step.domain.ranges.items()}
    for p in chain:
        ranges = {getattr(s_, "label", s_): (s_, rng) for s_, rng in p.domain.ranges.items()}
        used = free_names(p.lhs) | free_names(p.rhs)
        for label in sorted(used, key=str):
            if label not in ranges:
                raise _No(f"part {p.name!r} gives no range for {label}")
            sym, (lo, hi) = ranges[label]
            key = next((k_ for k_ in at if getattr(k_, "label", k_) == label), None)
            if key is None:  # the claim's own symbol: its range must lie in the part's
                if label not in claim_ranges:
                    raise _No(f"{label} of part {p.name!r} is neither put on the segment nor ranged by the claim")
                clo, chi = (sp.sympify(x_) for x_ in claim_ranges[label])
                if bool(clo < sp.sympify(lo)) or bool(chi > sp.sympify(hi)):
                    raise _No(f"the claim's {label} ∈ [{clo}, {chi}] leaves part {p.name!r}'s [{lo}, {hi}]")
                continue
            val = at[key]
            if isinstance(key, sp.IndexedBase):
                # the entries the part reads: each concrete one (a realisation's coordinates, which a stated
                # ball may bound), else one generic entry (a family over j)
                read = {
                    a_.indices
                    for e_ in (p.lhs, p.rhs, *p.domain.constraints)
                    for a_ in sp.sympify(e_).atoms(sp.Indexed)
                    if a_.base == key
                }
                if not read or not all(all(sp.sympify(i_).is_Integer for i_ in ix) for ix in read):
                    read = {tuple(sp.Symbol(f"i{n_}", integer=True, positive=True) for n_ in range(len(val.variables)))}
                entries = [
                    (f"{label}[{', '.join(map(str, ix))}]", sp.sympify(val(*ix))) for ix in sorted(read, key=str)
                ]
            else:
                entries = [(str(label), sp.sympify(val))]
            said += [_on_segment(step, p, shown, expr, lo, hi, var) for shown, expr in entries]
        for c in p.domain.constraints:
            said.append(_constraint(step, p, c, at, var))
    return list(dict.fromkeys(said))


def _on_segment(step: Step, p: Step, label: str, expr: sp.Expr, lo: Any, hi: Any, var: sp.Symbol) -> str:
    """Why the segment's coordinate ``expr`` lies in [lo, hi] for every t ∈ [0, 1] (``_No`` if not shown)."""
    if var in expr.free_symbols:
        e0, e1 = expr.subs(var, 0), expr.subs(var, 1)
        if sp.expand(expr - (e0 + var * (e1 - e0))) != 0:
            raise _No(f"{label} ↦ {sp.sstr(expr)} is not linear in {var}: not a segment")
        ends = (e0, e1)
    else:
        ends = (expr,)
    for e in ends:
        if not _inside(e, lo, hi, step):
            raise _No(
                f"the segment leaves part {p.name!r}'s domain: {label} ↦ {sp.sstr(expr)} is not shown in "
                f"[{lo}, {hi}] at {sp.sstr(e)} over the claim's stated domain"
            )
    how = "both ends" if len(ends) == 2 else "its value"
    return f"{label} ↦ {sp.sstr(expr)}: {how} in [{lo}, {hi}], a convex range"


def _stated(c: Any, step: Step) -> bool:
    """Whether ``c`` is one of ``step``'s constraints (the same relation, sides equal up to expansion)."""
    if c in step.domain.constraints:
        return True
    if not isinstance(c, sp.core.relational.Relational):
        return False
    return any(
        type(s_) is type(c) and sp.expand((s_.lhs - s_.rhs) - (c.lhs - c.rhs)) == 0 for s_ in step.domain.constraints
    )


def _constraint(step: Step, part: Step, c: Any, at: Mapping[Any, Any], var: sp.Symbol) -> str:
    """Why part's constraint ``c`` holds at every point of the segment (``_No`` if not shown): it does not move
    (then it must be one of the claim's, substituted), or it is a convex sublevel set ``q(x) ≤ c₀`` (q a quadratic
    with a positive semidefinite constant Hessian in the moved scalars: a ball) holding at both ends (each one of
    the claim's constraints). An equality (a sphere) is never convex: the chord leaves it."""
    cc = _substitute(c, at)
    if var not in cc.free_symbols:
        if cc is sp.true or _stated(cc, step):
            return f"constraint {c}: the claim's own"
        raise _No(f"part {part.name!r}'s constraint {c} is not one of the claim's at the segment's points")
    if isinstance(c, sp.Eq):
        raise _No(f"part {part.name!r}'s constraint {c} is an equality (a sphere): not convex, the segment leaves it")
    if not isinstance(c, (sp.LessThan, sp.GreaterThan)):
        raise _No(f"part {part.name!r}'s constraint {c} is not of the form q ≤ c₀ with q convex")
    expr = (c.lhs - c.rhs) if isinstance(c, sp.LessThan) else (c.rhs - c.lhs)
    moved = [k_ for k_ in at if isinstance(k_, sp.Symbol) and k_ in expr.free_symbols]
    moved += [a_ for a_ in expr.atoms(sp.Indexed) if a_.base in at]  # a moved vector's entries
    moved = sorted(set(moved), key=sp.default_sort_key)
    if not moved:
        raise _No(f"part {part.name!r}'s constraint {c} is not a convex condition in the moved variables")
    hess = sp.hessian(expr, moved)
    if any(sp.sympify(x_).free_symbols for x_ in hess) or not hess.is_positive_semidefinite:
        raise _No(f"part {part.name!r}'s constraint {c} is not convex (its Hessian is not a constant PSD matrix)")
    for end in (0, 1):
        ce = cc.subs(var, end)
        if ce is not sp.true and not _stated(ce, step):
            raise _No(
                f"part {part.name!r}'s constraint {c} is not one of the claim's at the segment's end {var} = {end}"
            )
    return f"constraint {c}: convex (constant PSD Hessian), the claim's at both ends"


def compose(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> tuple[str, str]:
    """(method, evidence) when the composition proves ``step`` (module docstring); ``_No`` otherwise."""
    var = params["var"]
    at = dict(params["at"])
    for key, val in at.items():
        if isinstance(key, sp.IndexedBase) and not isinstance(val, sp.Lambda):
            raise DerivationError(f"step {step.name!r}: 'at' maps the vector {key} by Lambda(i, e(i)), got {val!r}")
    if step.kind != "inequality":
        raise _No(f"a {step.kind} is not a bound on a difference")
    small, big, strict = _sides(step)
    if strict:
        raise _No("a strict claim: the composition gives ≤ only")
    if var in sp.sympify(big).free_symbols:
        raise _No(f"the bound depends on {var}")
    d = small.args[0] if isinstance(small, sp.Abs) else small
    integral, chain = _parts(params, step)
    g = _integrand(step, integral, d, var, isinstance(small, sp.Abs))
    for prev, nxt in zip(chain[:-1], chain[1:]):
        pb = _sides(prev)[1]
        ns = _sides(nxt)[0]
        if not _same(pb, ns):
            raise _No(f"the chain breaks: {prev.name!r}'s bound is not {nxt.name!r}'s lhs")
    first = _substitute(_sides(chain[0])[0], at)
    link, scale = _first_link(small, g, first, step, var)
    where = _domain(step, chain, at, var)
    top = _substitute(_sides(chain[-1])[1], at) / scale
    if var in top.free_symbols:
        raise _No(f"the last part's bound at the segment's points depends on {var}: no sup over the segment")
    pieces = [_proved(integral, opts, "FTC along the segment:")[1]]
    pieces += [_proved(p, opts, "pointwise:")[1] for p in chain]
    if _same(top, big):
        last = "the bound at the segment's points is the claim's rhs"
    else:
        from ..ledger import Domain as _D
        from .reentry import check_step

        names = free_names(top) | free_names(big)
        dom = _D(
            {s_: rng for s_, rng in step.domain.ranges.items() if getattr(s_, "label", s_) in names},
            tuple(c_ for c_ in step.domain.constraints if free_names(c_) <= names),
        )
        glue = Step(f"{step.name} [sup ≤ rhs]", top, big, "inequality", dom, relation="<=")
        res = check_step(glue, **{o: v for o, v in opts.items() if o != "clock"})
        if res.verdict != Verdict.PROVED or not covers(res.covered, dom):
            raise _No(f"the pointwise bound {sp.sstr(top)} is not shown ≤ the claim's rhs ({res.verdict})")
        last = f"the bound at the segment's points ≤ the claim's rhs ({str(res.method).split(';')[0][:100]})"
    names = ", ".join(repr(p.name) for p in chain)
    method = (
        f"mean value composition along {var} ∈ [0, 1]: D = ∫₀¹ g d{var} ({integral.name!r}), sup over the segment "
        f"of the directional derivative ≤ the pointwise bound ({names}); {link}; segment in the parts' domains: "
        f"{'; '.join(where) or 'no variable moves'}; {last}"
    )
    evidence = "; ".join(pieces)
    return method, evidence


def prove_mean_value_composition(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The verdict of ``step`` by the mean value composition its hint states (module docstring)."""
    from .falsifier import falsify

    reason = str(params.get("reason", ""))
    try:
        method, evidence = compose(step, params, opts)
        proved = True
    except _No as exc:
        method, evidence, proved = f"mean value composition not established: {exc}", "", False
    attack = params.get("attack")
    if attack is not None:  # the claim's own attack (a configuration search), beside the proof
        seen = attack(dataclasses.replace(step, route=None), opts)
        if seen.verdict == Verdict.REFUTED:
            return seen
        fz = _Seen(seen.trials, seen.worst_ratio, seen.evidence, None, seen.attacked)
        method = f"{method}; attack: {str(seen.method).split(';')[0]}"
    else:
        fz = falsify(dataclasses.replace(step, route=None), opts)
    if fz.counterexample is not None:
        verdict = Verdict.REFUTED
    elif proved:
        verdict = Verdict.PROVED
    else:
        verdict = Verdict.VERIFIED
    if reason:
        method = f"{method} ({reason})"
    return by_verdict(
        verdict,
        step,
        method=f"{method}; falsifier: {fz.trials} trials",
        evidence="; ".join(x_ for x_ in (evidence, fz.evidence) if x_),
        counterexample=fz.counterexample,
        certified=verdict == Verdict.PROVED,
        symbolic=False,
        cover=region(step.domain.ranges) if verdict == Verdict.PROVED else None,
        worst_ratio=fz.worst_ratio,
        trials=fz.trials,
        attacked=fz.attacked,
    )


@dataclasses.dataclass(frozen=True)
class _Seen:
    """What the claim's own attack saw (the falsifier's fields the verdict reports)."""

    trials: int
    worst_ratio: float | None
    evidence: str
    counterexample: None
    attacked: Any


def hint(
    var: sp.Symbol,
    integral: Step,
    pointwise: Sequence[Step],
    at: Mapping[Any, Any],
    reason: str = "",
    attack: Any = None,
) -> tuple:
    """``Step.route`` for this route: the parts written as data (``conjunction.part``)."""
    from .conjunction import part

    params: dict[str, Any] = {
        "var": var,
        "integral": part(integral),
        "pointwise": [part(p) for p in pointwise],
        "at": dict(at),
    }
    if reason:
        params["reason"] = reason
    if attack is not None:
        params["attack"] = attack
    return ("mean value composition", params)


__all__ = ["compose", "hint", "majorant", "prove_mean_value_composition"]
