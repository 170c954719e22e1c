"""Route "monotone comparison": ``small ≤ big`` from ``big − small = w·(G(p) − G(q))``, ``w ≥ 0`` and ``G(p) ≥ G(q)``
because G is monotone on a range holding p and q and they are in the right order.

Claim shape: a non-strict inequality ``small ≤ big`` (or ``big ≥ small``) on a box domain (no constraints), its gap
``big − small`` defined on the whole box and built from analytic heads (``monotone.SMOOTH_HEADS``). Hint::

    Step(..., route=("monotone comparison", {
        "G": Lambda(v, closed form), "weight": w, "p": p, "q": q, "direction": "decreasing" | "increasing",
        # optional: an integral representation, for a G with a removable singularity (a 0/0 closed form)
        "integral": Integral(h(t, v), (t, t0, t1)), "antiderivative": H(t, v), "removable": [s, …],
        "name": "g",   # how the method names G
    }))

``w``, ``p`` and ``q`` are expressions in the claim's symbols. The route proves, and proves only when all hold:

1. *the identity*: ``big − small − w·(G(p) − G(q))`` reduces to 0 in SymPy (expand, simplify, logs expanded under
   the signs the box gives its symbols: a symbol whose range lies in (0, ∞) is a positive symbol, an exact rewrite
   there); it then holds wherever G(p) and G(q) are defined;
2. *the weight and the order*: ``w ≥ 0`` and ``q − p ≥ 0`` (decreasing G; ``p − q ≥ 0`` for increasing) on the
   box, each proved by the engine (``check_step``: SymPy's deduction or Arb, its proof covering the box);
3. *the range*: R = the hull of the Arb enclosures of p and q over the box (rounded outward to rationals), finite;
4. *monotonicity of G on R*, either

   * by its derivative: G built from analytic heads and defined on all of R (``wellposed``), ``∓G' ≥ 0`` on R
     proved by the engine (no ``removable`` point in this form); or
   * by the integral form G(v) = ∫_{t0}^{t1} h(t, v) dt (t0 < t1 numbers) for every v ∈ R except the ``removable``
     points S: ``H(t1) − H(t0) = G`` and ``∂_t H = h`` reduce to 0 in SymPy, H is built from analytic heads and H
     and G are defined on [t0, t1] × (R \\ S) (every definedness condition established on the whole box, except a
     ``≠ 0`` condition's factors ``α·(v − s)``, s ∈ S), so the fundamental theorem of calculus gives the identity
     off S; h and ∂_v h are defined on [t0, t1] × R and ``∓∂_v h ≥ 0`` there is proved by the engine. Then
     Ĝ(v) = ∫ h(t, v) dt is monotone on R (for v₁ ≤ v₂, h(t, v₂) − h(t, v₁) = ∫_{v₁}^{v₂} ∂_v h, of one sign) and
     equals G off S: G(p) − G(q) = Ĝ(p) − Ĝ(q) has the sign wanted wherever p, q ∉ S;
5. *the exceptional set*: where p or q is a removable point the identity says nothing; p and q are analytic
   (analytic heads, defined on the box) and p − s, q − s are nonzero at an exact point of the box (Arb), so
   {p = s} ∪ {q = s} has empty interior in the box, and the gap, continuous on the box (defined, analytic
   heads), is ≥ 0 on a dense subset, hence everywhere.

The claim may hold the integral form itself, ∫_{t0}^{t1} h(t, X) dt for an expression X (G's value where its closed
form is 0/0): it stands for Ĝ(X), X joins p and q in the range and the exceptional set, the gap's definedness and
continuity are checked with it as a placeholder (h is continuous on [t0, t1] × R), and the identity with G(X).

Cover: the stated box (every part is proved over it). The box falsifier runs for the record: a counterexample it
confirms through the refutation gate refutes the claim; without a proof the verdict is at most "verified
numerically". A malformed hint raises ``DerivationError`` naming the parameter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp

from .. import intervals
from ..ledger import DerivationError, Domain, Step, StepResult, Verdict, covers, free_names
from .budget import Spent, run_symbolic
from .custom import proof_result
from .falsifier import falsify
from .identity import expand_then_simplify
from .interval import certify_nonnegative
from .mean_value import _hull, _rational
from .monotone import smooth
from .sampling import _sides
from .signs import certain_nonnegative
from .verdicts import undecided
from .wellposed import Condition, check_wellposed, conditions, ranged

NAME = "monotone comparison"
DIRECTIONS = ("decreasing", "increasing")


class NotProved(Exception):
    """One part of the argument does not hold as given (a mismatch, an unproved sign)."""


# ----------------------------------------------------------------------------------------------- the hint


def _params(step: Step, params: Mapping[str, Any]) -> dict[str, Any]:
    """The hint, checked: a malformed one raises ``DerivationError`` naming the parameter."""
    where = f"step {step.name!r}: route {NAME!r} parameter"
    G = params["G"]
    if not isinstance(G, sp.Lambda) or len(G.variables) != 1:
        raise DerivationError(f"{where} G must be Lambda(v, closed form) of one variable, got {G!r}")
    direction = params["direction"]
    if direction not in DIRECTIONS:
        raise DerivationError(f"{where} direction must be one of {DIRECTIONS}, got {direction!r}")
    out: dict[str, Any] = {"G": G, "direction": direction, "name": str(params.get("name", "G"))}
    for key in ("weight", "p", "q"):
        try:
            out[key] = sp.sympify(params[key])
        except (sp.SympifyError, TypeError) as exc:
            raise DerivationError(f"{where} {key} must be a SymPy expression, got {params[key]!r}") from exc
    (v,) = G.variables
    integral = params.get("integral")
    if integral is not None:
        if (
            not isinstance(integral, sp.Integral)
            or len(integral.limits) != 1
            or len(integral.limits[0]) != 3
            or not all(sp.sympify(e).is_number and sp.sympify(e).is_finite for e in integral.limits[0][1:])
        ):
            raise DerivationError(f"{where} integral must be Integral(h(t, v), (t, t0, t1)) with finite numbers t0, t1")
        ((t, t0, t1),) = integral.limits
        if not bool(sp.sympify(t1 - t0) > 0):
            raise DerivationError(f"{where} integral's limits must satisfy t0 < t1, got {t0}, {t1}")
        if t == v or t in free_names(out["p"]) | free_names(out["q"]) | free_names(out["weight"]):
            raise DerivationError(f"{where} integral's variable {t} must be new (not G's variable or the claim's)")
        if "antiderivative" not in params:
            raise DerivationError(f"{where} antiderivative is needed with integral (the proof of G = ∫ h)")
        out["integral"] = integral
        out["antiderivative"] = sp.sympify(params["antiderivative"])
    elif "antiderivative" in params:
        raise DerivationError(f"{where} antiderivative is given without integral")
    removable = params.get("removable", ())
    if not isinstance(removable, (list, tuple)) or not all(sp.sympify(s_).is_number for s_ in removable):
        raise DerivationError(f"{where} removable must be a list of numbers (G's 0/0 points), got {removable!r}")
    if removable and integral is None:
        raise DerivationError(f"{where} removable points need integral (G's value there is its integral form's)")
    out["removable"] = [sp.sympify(s_) for s_ in removable]
    return out


# ------------------------------------------------------------------------------------------------- parts


def _positive_symbols(e: sp.Expr, domain: Domain) -> sp.Expr:
    """``e`` with each symbol whose box range lies in (0, ∞) made a positive symbol of the same name (exact on the
    box: SymPy's log rules may then split log(a·eˣ) = log a + x)."""
    rep = {}
    for s_ in free_names(e):
        rng = domain.ranges.get(s_)
        if isinstance(s_, sp.Symbol) and rng is not None and bool(sp.sympify(rng[0]) > 0) and not s_.is_positive:
            rep[s_] = sp.Dummy(str(s_), positive=True)
    return e.xreplace(rep)


def _reduces_to_zero(e: sp.Expr, domain: Domain, clock: Any, stage: str) -> bool:
    """Whether SymPy reduces ``e`` to 0 (a symbolic identity, never a numeric test), under the claim's clock."""
    e = _positive_symbols(sp.sympify(e), domain)
    if sp.expand(e) == 0:
        return True

    def forms(z: sp.Expr) -> bool:
        for f_ in (
            expand_then_simplify,
            lambda y: sp.simplify(sp.expand_log(sp.expand(y), force=False)),
            lambda y: sp.simplify(sp.logcombine(y, force=False)),
        ):
            try:
                if f_(z) == 0:
                    return True
            except Exception:  # noqa: BLE001, S112 - a simplifier that fails proves nothing; the next may
                continue
        return False

    out = run_symbolic(forms, e, deadline=None if clock is None else clock.deadline(0.2), stage=stage)
    return not isinstance(out, Spent) and out is True


def _identity(e: sp.Expr, opaque: Sequence[sp.Expr], positive: bool, domain: Domain, clock: Any) -> bool:
    """Whether ``e`` reduces to 0: first with each of ``opaque`` (G's arguments) a symbol of its own — positive
    when Arb encloses them all in (0, ∞), ``positive`` — then as written. Zero as a function of free symbols is
    zero at every value they take, so the first form proves the second (and is far cheaper when the arguments
    are large expressions: the pointwise form of an expectation claim holds e^{±1/τ} in each)."""
    rep = {}
    for i_, x_ in enumerate(sorted(set(opaque), key=sp.count_ops, reverse=True)):
        if not x_.is_Symbol and not x_.is_number:
            rep[x_] = sp.Dummy(f"X{i_}", positive=True) if positive else sp.Dummy(f"X{i_}", real=True)
    if rep:
        e_opaque = e.subs(rep, simultaneous=True)  # subs: a Mul argument distributed over a sum (−q) too
        if not e_opaque.has(*[x_ for x_ in rep]) and _reduces_to_zero(e_opaque, domain, clock, f"{NAME}: the identity"):
            return True
    return _reduces_to_zero(e, domain, clock, f"{NAME}: the identity")


def _engine_nonnegative(name: str, expr: sp.Expr, domain: Domain, opts: Mapping[str, Any]) -> str:
    """``expr ≥ 0`` on ``domain`` proved by the engine (``check_step``, its cover containing the box): the method
    text, or ``NotProved``."""
    from .reentry import check_step

    expr = sp.sympify(expr)
    names = free_names(expr)
    if not names:
        if expr.is_number and bool(expr >= 0) and expr.is_finite:
            return "exact"
        raise NotProved(f"{name}: {expr} ≥ 0 does not hold exactly")
    missing = [s_ for s_ in names if s_ not in domain.ranges]
    if missing:
        raise NotProved(f"{name}: no range for {sorted(map(str, missing))}")
    sub_dom = Domain({s_: r_ for s_, r_ in domain.ranges.items() if s_ in names})
    sub = Step(name, sp.Integer(0), expr, kind="inequality", relation="<=", domain=sub_dom)
    sub_opts = {k_: v_ for k_, v_ in opts.items() if k_ != "clock"}
    clock = opts.get("clock")
    if clock is not None:
        left = clock.left()
        if left is not None:
            if left <= 0.05:
                raise NotProved(f"{name}: the claim's time ran out before this part")
            sub_opts["budget"] = clock.budget.but(claim_seconds=left)
    res: StepResult = check_step(sub, **sub_opts)
    if res.verdict is not Verdict.PROVED:
        raise NotProved(f"{name}: 0 ≤ {expr} {res.verdict} ({str(res.method)[:140]})")
    if not covers(res.covered, sub_dom):
        raise NotProved(f"{name}: the proof covers {res.covered}, not {sub_dom.ranges}")
    return str(res.method)


def _sign_on(name: str, expr: sp.Expr, box: Domain, opts: Mapping[str, Any]) -> str:
    """``expr ≥ 0`` on ``box`` (its definedness established beforehand): SymPy's structural deduction on the
    box-signed form, else Arb branch and bound (``_conditions_hold``); the method text, or ``NotProved``. The
    engine's full ``check_step`` is not used here: its definedness search draws floats, which overflow on a
    range as wide as [e^{−2000}, e^{2000}] (G's argument over τ ∈ [1e-3, 100])."""
    failed = _conditions_hold([Condition(expr, ">=", name)], box, opts.get("clock"), budget=opts.get("box_budget", 600))
    if failed is not None:
        raise NotProved(f"{name}: 0 ≤ {expr} not established on {dict(box.ranges)}"[:300])
    return "SymPy's structural deduction or Arb branch and bound over the box"


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _excused(expr: sp.Expr, v: sp.Symbol, removable: Sequence[sp.Expr]) -> sp.Expr:
    """``expr`` (a ``≠ 0`` condition) without its factors ``α·(v − s)``, s removable: what must be ≠ 0 off S."""
    kept = []
    for fac in sp.Mul.make_args(sp.factor(expr)):
        base, _ = fac.as_base_exp()
        if (
            free_names(base) == {v}
            and sp.Poly(base, v).degree() == 1
            and any(base.subs(v, s_) == 0 for s_ in removable)
        ):
            continue
        kept.append(fac)
    return sp.Mul(*kept)


def _conditions_hold(conds: Sequence[Condition], box: Domain, clock: Any, budget: int = 600) -> str | None:
    """None when every condition holds on the whole box — SymPy's structural deduction on the box-signed form
    (``wellposed.ranged``), else Arb branch and bound (``interval.certify_nonnegative``; a ``≠ 0`` condition by
    one sign throughout) — else the first that was not established. (No search for a failing point: a proof
    needs the conditions, not a diagnosis; ``wellposed``'s search draws floats, which overflow on ranges such as
    [e^{−2000}, e^{2000}].)"""
    for c in conds:
        signs = (1, -1) if c.rel == "!=" else (1,)
        strict = c.rel != ">="
        forms = [c.expr] + [r_ for r_ in (ranged(c.expr, box, sh) for sh in (False, True)) if r_ is not None]
        if any(certain_nonnegative(sg * f_, strict) for f_ in forms for sg in signs):
            continue
        names = free_names(c.expr)
        sub = Domain({s_: r_ for s_, r_ in box.ranges.items() if s_ in names})
        if any(
            certify_nonnegative(sg * c.expr, sub, strict=strict, budget=budget, max_dims=8, clock=clock).status
            == "proved"
            for sg in signs
        ):
            continue
        return str(c)
    return None


def _defined_off(exprs: Sequence[sp.Expr], v: sp.Symbol, removable: Sequence[sp.Expr], box: Domain, clock: Any) -> str:
    """``exprs`` defined at every point of ``box`` whose ``v`` is not removable (module docstring, part 4); the
    text, or ``NotProved``."""
    needs: list[Condition] = []
    for c in conditions(list(exprs), box):
        if c.rel == "!=":
            rest = _excused(c.expr, v, removable)
            if not (rest.is_number and rest != 0):
                needs.append(Condition(rest, "!=", c.why))
        else:
            needs.append(c)
    failed = _conditions_hold(needs, box, clock)
    if failed is not None:
        raise NotProved(f"not established defined off the removable points: {failed}")
    return f"defined off the removable points ({len(needs)} condition(s) established)"


def _defined_on(exprs: Sequence[sp.Expr], box: Domain, clock: Any, what: str) -> None:
    """``exprs`` defined on the whole box (every definedness condition established), or ``NotProved``."""
    failed = _conditions_hold(conditions(list(exprs), box), box, clock)
    if failed is not None:
        raise NotProved(f"{what} not established defined: {failed}")


def _nonzero_somewhere(e: sp.Expr, domain: Domain) -> bool:
    """``e ≠ 0`` at an exact point of the box (Arb encloses it away from 0): the midpoint, then two others."""
    names = sorted(free_names(e), key=str)
    if not names:
        return bool(e != 0)
    fracs = [sp.Rational(n_, d_) for n_, d_ in ((1, 2), (1, 3), (2, 7), (5, 11), (7, 13), (11, 17), (13, 19))]
    for shift in range(3):  # a different fraction for each variable: not on a diagonal such as θ₁ = θ₂
        pt = {}
        for i_, s_ in enumerate(names):
            lo, hi = (sp.sympify(b) for b in domain.ranges[s_])
            frac = fracs[(i_ + shift) % len(fracs)]
            pt[s_] = (lo + (hi - lo) * frac, lo + (hi - lo) * frac)
        try:
            iv = intervals.interval_eval(e, pt)
        except Exception:  # noqa: BLE001, S112 - not enclosable here: try another point
            continue
        if iv.lo > 0 or iv.hi < 0:
            return True
    return False


def _monotone_by_derivative(hint: dict, rng: Domain, opts: Mapping[str, Any]) -> str:
    G = hint["G"]
    (v,) = G.variables
    head = smooth(G.expr)
    if head is not None:
        raise NotProved(f"G contains {head}, which need not be differentiable")
    dG = sp.diff(G.expr, v)
    _defined_on([G.expr, dG], rng, opts.get("clock"), "G or G' on the range")
    signed = -dG if hint["direction"] == "decreasing" else dG
    m = _sign_on(f"{NAME}: sign of G'", signed, rng, opts)
    rel = "≤" if hint["direction"] == "decreasing" else "≥"
    return f"G' = {dG} {rel} 0 on the range, proved by {_short(m)}"


def _ftc(hint: dict, rng: Domain, opts: Mapping[str, Any]) -> str:
    """G(v) = ∫_{t0}^{t1} h(t, v) dt for every v of ``rng`` off the removable points (module docstring, part 4: the
    antiderivative's two identities, analytic heads, H and G defined off S); the text, or ``NotProved``."""
    G, integral, H, S = hint["G"], hint["integral"], hint["antiderivative"], hint["removable"]
    (v,) = G.variables
    ((t, t0, t1),) = integral.limits
    h = integral.function
    clock = opts.get("clock")
    box = Domain({**rng.ranges, t: (t0, t1)})
    if not _reduces_to_zero(H.subs(t, t1) - H.subs(t, t0) - G.expr, box, clock, f"{NAME}: H(t1) − H(t0) = G"):
        raise NotProved(f"H(t1) − H(t0) = G does not reduce to 0 (H = {H})")
    if not _reduces_to_zero(sp.diff(H, t) - h, box, clock, f"{NAME}: ∂_t H = h"):
        raise NotProved(f"∂_t H = h does not reduce to 0 (H = {H}, h = {h})")
    for what, e in (("H", H), ("h", h)):
        head = smooth(e)
        if head is not None:
            raise NotProved(f"{what} contains {head}, which need not be differentiable")
    return _defined_off([H, G.expr], v, S, box, clock)


def _monotone_by_integral(hint: dict, rng: Domain, opts: Mapping[str, Any]) -> str:
    G, integral, H = hint["G"], hint["integral"], hint["antiderivative"]
    (v,) = G.variables
    ((t, t0, t1),) = integral.limits
    h = integral.function
    clock = opts.get("clock")
    box = Domain({**rng.ranges, t: (t0, t1)})
    off = _ftc(hint, rng, opts)
    dh = sp.diff(h, v)
    _defined_on([h, dh], box, clock, "h or ∂_v h on [t0, t1] × the range")
    signed = -dh if hint["direction"] == "decreasing" else dh
    m = _sign_on(f"{NAME}: sign of ∂_v h", signed, box, opts)
    rel = "≤" if hint["direction"] == "decreasing" else "≥"
    return (
        f"{hint['name']}({v}) = ∫_{t0}^{t1} {h} d{t} ({hint['name']} = H({t1}) − H({t0}), ∂_{t}H = h, H = {H}, "
        f"symbolic; H and {hint['name']} {off[:40]}…), ∂_{v} of the integrand {sp.factor(dh)} {rel} 0 on "
        f"[{t0}, {t1}] × the range, proved by {_short(m)}"
    )


def _integral_forms(e: sp.Expr, hint: dict) -> dict[sp.Integral, sp.Expr]:
    """Each ``Integral`` node of ``e`` → the argument X at which it is the hint's integral form ∫ h(t, X) dt (the
    same limits, the integrand h with v = X after renaming the integration variable); ``NotProved`` for another."""
    out: dict[sp.Integral, sp.Expr] = {}
    nodes = e.atoms(sp.Integral)
    if not nodes:
        return out
    if "integral" not in hint:
        raise NotProved("the claim holds an integral, and the hint gives no integral form")
    (v,) = hint["G"].variables
    ((t, t0, t1),) = hint["integral"].limits
    pattern_x = sp.Wild("X", exclude=[t])
    pattern = hint["integral"].function.xreplace({v: pattern_x})
    for node in nodes:
        if len(node.limits) != 1 or len(node.limits[0]) != 3 or tuple(node.limits[0][1:]) != (t0, t1):
            raise NotProved(f"{node} is not the hint's integral form (its limits)")
        body = node.function.xreplace({node.limits[0][0]: t})
        m = body.match(pattern)
        if not m or pattern_x not in m or m[pattern_x].has(t) or sp.expand(body - pattern.xreplace(m)) != 0:
            raise NotProved(f"{node} is not the hint's integral form ∫ {hint['integral'].function} d{t} at some v")
        out[node] = m[pattern_x]
    return out


def _closed_step(step: Step, forms: Mapping[sp.Integral, sp.Expr], hint: dict) -> Step:
    """``step`` with each integral form ∫ h(t, X) dt written as G(X): the same claim wherever X is not removable
    (the integral identity, part 4), and one the falsifier can evaluate."""
    import dataclasses

    rep = {node: hint["G"](arg) for node, arg in forms.items()}
    return dataclasses.replace(step, lhs=sp.sympify(step.lhs).xreplace(rep), rhs=sp.sympify(step.rhs).xreplace(rep))


def _argument(step: Step, hint: dict, opts: Mapping[str, Any]) -> str:
    """The reduction a reader can follow, when every part is proved; else ``NotProved`` naming the part."""
    small, big, strict = _sides(step)
    if step.kind != "inequality" or strict:
        raise NotProved("not a non-strict inequality (the route gives ≥ 0, with equality allowed)")
    if step.domain.constraints:
        raise NotProved("the domain has constraints: the route needs a box")
    gap = sp.sympify(big) - sp.sympify(small)
    G, w, p, q = hint["G"], hint["weight"], hint["p"], hint["q"]
    (v,) = G.variables
    clock = opts.get("clock")
    # an integral form ∫ h(t, X) dt in the claim is Ĝ(X): a placeholder symbol for the gap's own definedness and
    # continuity (h is proved defined and continuous on [t0, t1] × the range below, which holds X), G(X) in the
    # identity (equal off the removable points, the exceptional set of part 5)
    forms = _integral_forms(gap, hint)
    marks = {node: sp.Dummy(f"Ghat{i}") for i, node in enumerate(forms)}
    marked = gap.xreplace(marks)
    args = list(dict.fromkeys(forms.values()))
    for what, e in (
        ("the gap", marked),
        ("p", p),
        ("q", q),
        ("the weight", w),
        *(("an integral's v", x_) for x_ in args),
    ):
        head = smooth(e)
        if head is not None:
            raise NotProved(f"{what} contains {head}, which need not be continuous")
    if any(m_ in free_names(c.expr) for c in conditions([marked], step.domain) for m_ in marks.values()):
        raise NotProved("an integral form sits where the claim needs a sign or a nonzero value of it")
    sub = Domain({**step.domain.ranges, **{m_: (-1, 1) for m_ in marks.values()}})
    wp = check_wellposed([marked, w, p, q, *args], sub, f"{NAME}:{step.name}", clock)
    if wp.status != "defined":
        raise NotProved(f"the gap, weight, p or q not established defined on the box ({wp.status}: {wp.reason})")
    hulls = [_hull(e, step.domain) for e in (p, q, *args)]
    if any(h_ is None for h_ in hulls):
        raise NotProved("p or q is not finitely enclosed on the box (Arb)")
    lo, hi = min(h_[0] for h_ in hulls), max(h_[1] for h_ in hulls)
    rhs = w * (G(p) - G(q))
    closed = gap.xreplace({node: G(arg) for node, arg in forms.items()})
    if not _identity(closed - rhs, [p, q, *args], lo > 0, step.domain, clock):
        raise NotProved(f"big − small − {w}·(G({p}) − G({q})) does not reduce to 0")
    mw = _engine_nonnegative(f"{NAME}: the weight", w, step.domain, opts)
    order = q - p if hint["direction"] == "decreasing" else p - q
    mo = _engine_nonnegative(f"{NAME}: the order", order, step.domain, opts)
    rng = Domain({v: (lo, hi)})
    if "integral" in hint:
        mono = _monotone_by_integral(hint, rng, opts)
    else:
        mono = _monotone_by_derivative(hint, rng, opts)
    for s_ in hint["removable"]:
        for what, e in (("p", p), ("q", q), *((f"the integral's v = {x_}", x_) for x_ in args)):
            if not _nonzero_somewhere(e - s_, step.domain):
                raise NotProved(
                    f"{what} − {s_} is not shown nonzero at a point of the box: {{{what} = {s_}}} may "
                    "have interior, where the identity says nothing"
                )
    name = hint["name"]
    order_text = f"{q} ≥ {p}" if hint["direction"] == "decreasing" else f"{p} ≥ {q}"
    text = (
        f"gap = {w}·({name}({p}) − {name}({q})) (symbolic), {order_text} and {w} ≥ 0 (proved: {_short(mo, 60)}; "
        f"{_short(mw, 60)}), {name} {hint['direction']} on [{sp.Float(lo, 4)}, {sp.Float(hi, 4)}] (exact rational ends, Arb hull) ⊇ the range of {p} and {q}: {mono}"
    )
    if hint["removable"]:
        text += (
            f"; where {p} or {q} is a removable point {hint['removable']} of {name}'s closed form the gap is ≥ 0 "
            "by continuity (that set has empty interior: p, q analytic and not constant there)"
        )
    return text


def prove_monotone_comparison(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (module docstring)."""
    hint = _params(step, params)
    try:
        argument, ok = _argument(step, hint, opts), True
    except NotProved as exc:
        argument, ok = f"not proved: {exc}", False
    try:
        forms = _integral_forms(sp.sympify(step.lhs) - sp.sympify(step.rhs), hint)
    except NotProved:
        forms = None
    if forms:  # the falsifier evaluates no integral: it attacks the claim with G(X) for ∫ h(t, X) dt
        fz = falsify(_closed_step(step, forms, hint), dict(opts))
        if fz.counterexample is not None:  # confirmed on the closed form (equal off the removable points)
            return undecided(
                step,
                method=f"route {NAME}: {argument}; the falsifier on the claim with G's closed form for its integral "
                f"forms found a counterexample there: {fz.counterexample}",
                evidence=fz.evidence,
                trials=fz.trials,
            )
    elif forms is None:
        return undecided(step, method=f"route {NAME}: {argument}")
    else:
        fz = falsify(step, dict(opts))
    cover = {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in step.domain.ranges.items()} if ok else None
    if ok and not covers(cover, step.domain):  # pragma: no cover - the cover is the box itself
        ok, cover = False, None
    return proof_result(step, fz, ok, f"route {NAME}: {argument}", covered=cover, symbolic=True, certified=True)


# ------------------------------------------------------------------------------- route "integral enclosure"

#: Route "integral enclosure": a claim holding integral forms ∫_{t0}^{t1} h(t, X) dt (the hint's, as in "monotone
#: comparison") is proved through a claim without them, then checked by the engine (or the hint's ``then`` route):
#:
#: * ``mode="closed"``: every X stays off the removable points S on the whole box (``X − s ≠ 0`` established by
#:   SymPy's deduction or Arb branch and bound), so ∫ h(t, X) dt = G(X) there (part 4's identities, H and G defined
#:   off S on the hull of X): the claim with G(X) in place of the integral is the same claim on the box;
#: * ``mode="enclose"``: Ĝ(v) = ∫ h(t, v) dt is monotone on the hull [lo, hi] of X (∂_v h signed, part 4), so
#:   Ĝ(X) lies between Ĝ(lo) and Ĝ(hi) — each end G's closed form at a point off S (FTC there), or at a removable
#:   point the integral evaluated exactly by SymPy — rounded outward to rationals by Arb: the claim with a new
#:   variable J over that interval in place of the integral holds for every J there, so for J = Ĝ(X).
#:
#: Hint: the integral form's parameters of "monotone comparison" (``G``, ``integral``, ``antiderivative``,
#: ``removable``, ``direction`` for "enclose", ``name``), ``mode``, and optionally ``then = (route, params)`` for
#: the claim without integrals. Proved when every part is proved and the reduced claim's proof covers the box; the
#: falsifier attacks the claim with G's closed form for the record. A malformed hint raises ``DerivationError``.
ENCLOSURE = "integral enclosure"
MODES = ("closed", "enclose")


def _enclosure_params(step: Step, params: Mapping[str, Any]) -> dict[str, Any]:
    where = f"step {step.name!r}: route {ENCLOSURE!r} parameter"
    if "integral" not in params:
        raise DerivationError(f"{where} integral is needed: Integral(h(t, v), (t, t0, t1))")
    mode = params.get("mode", "closed")
    if mode not in MODES:
        raise DerivationError(f"{where} mode must be one of {MODES}, got {mode!r}")
    direction = params.get("direction", "decreasing")
    hint = _params(step, {**params, "direction": direction, "weight": 0, "p": 0, "q": 0})
    then = params.get("then")
    if then is not None and not (isinstance(then, tuple) and len(then) == 2 and isinstance(then[0], str)):
        raise DerivationError(f"{where} then must be (route name, params), got {then!r}")
    hint.update(mode=mode, then=then)
    return hint


def _rational_hull_of_constant(e: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    iv = intervals.interval_eval(sp.sympify(e), {})
    if not (iv.lo.is_finite() and iv.hi.is_finite()):
        raise NotProved(f"{e} is not finitely enclosed (Arb)")
    return _rational(iv.lo), _rational(iv.hi)


def _g_hat(hint: dict, end: sp.Expr) -> tuple[sp.Expr, str]:
    """Ĝ(end) exactly: G's closed form off the removable points, the integral itself (SymPy) at one."""
    G, integral = hint["G"], hint["integral"]
    (v,) = G.variables
    if any(end == s_ for s_ in hint["removable"]):
        val = sp.integrate(integral.function.xreplace({v: end}), integral.limits[0])
        if val.has(sp.Integral) or not val.is_number:
            raise NotProved(f"the integral form at the removable point {end} is not evaluated exactly")
        return val, f"∫ at {end} = {val}"
    return G(end), f"{hint['name']}({end})"


def _enclosure_argument(step: Step, hint: dict, opts: Mapping[str, Any]) -> tuple[str, Step]:
    """The reduced claim (without integral forms) and why it implies the claim; ``NotProved`` naming the part."""
    import dataclasses

    small, big, strict = _sides(step)
    if step.kind != "inequality":
        raise NotProved("not an inequality")
    if step.domain.constraints:
        raise NotProved("the domain has constraints: the route needs a box")
    gap = sp.sympify(big) - sp.sympify(small)
    forms = _integral_forms(gap, hint)
    if not forms:
        raise NotProved("the claim holds no integral form of the hint")
    args = list(dict.fromkeys(forms.values()))
    for x_ in args:
        head = smooth(x_)
        if head is not None:
            raise NotProved(f"an integral's v contains {head}, which need not be continuous")
    clock = opts.get("clock")
    _defined_on(args, step.domain, clock, "an integral's v")
    hulls = [_hull(x_, step.domain) for x_ in args]
    if any(h_ is None for h_ in hulls):
        raise NotProved("an integral's v is not finitely enclosed on the box (Arb)")
    (v,) = hint["G"].variables
    name = hint["name"]
    if hint["mode"] == "closed":
        for x_ in args:
            for s_ in hint["removable"]:
                failed = _conditions_hold([Condition(x_ - s_, "!=", f"{x_} ≠ {s_}")], step.domain, clock)
                if failed is not None:
                    raise NotProved(f"{x_} − {s_} ≠ 0 not established on the box: the closed form may be 0/0 there")
        lo, hi = min(h_[0] for h_ in hulls), max(h_[1] for h_ in hulls)
        why = _ftc(hint, Domain({v: (lo, hi)}), opts)
        rep = {node: hint["G"](arg) for node, arg in forms.items()}
        reduced = dataclasses.replace(
            step, lhs=sp.sympify(step.lhs).xreplace(rep), rhs=sp.sympify(step.rhs).xreplace(rep), route=hint["then"]
        )
        text = (
            f"every integral form's v ({', '.join(map(str, args))}) is off the removable points {hint['removable']} "
            f"on the box, so each is {name}(v) there ({_short(why, 60)})"
        )
        return text, reduced
    rep, ranges, parts = {}, {}, []
    for i_, (x_, (lo, hi)) in enumerate(zip(args, hulls, strict=True)):
        mono = _monotone_by_integral(hint, Domain({v: (lo, hi)}), opts)
        (g_lo, w_lo), (g_hi, w_hi) = _g_hat(hint, lo), _g_hat(hint, hi)
        ends = [_rational_hull_of_constant(g_lo), _rational_hull_of_constant(g_hi)]
        j_lo, j_hi = min(e_[0] for e_ in ends), max(e_[1] for e_ in ends)
        sym = sp.Symbol(f"J_{name}{i_ + 1}", real=True)
        ranges[sym] = (j_lo, j_hi)
        rep.update({node: sym for node, arg in forms.items() if arg == x_})
        parts.append(
            f"{name}({x_}) ∈ [{sp.Float(j_lo, 6)}, {sp.Float(j_hi, 6)}] ∋ {w_lo}, {w_hi}: v ∈ [{sp.Float(lo, 6)}, "
            f"{sp.Float(hi, 6)}] (Arb hull), {_short(mono, 160)}"
        )
    reduced = dataclasses.replace(
        step,
        lhs=sp.sympify(step.lhs).xreplace(rep),
        rhs=sp.sympify(step.rhs).xreplace(rep),
        domain=Domain({**step.domain.ranges, **ranges}),
        route=hint["then"],
    )
    text = "each integral form replaced by a variable over an interval holding it: " + "; ".join(parts)
    return text, reduced


def _pieces(step: Step, params: Mapping[str, Any]) -> list[tuple[Step, dict]]:
    """``pieces`` (optional): ``[{"var": x, "range": (lo, hi), "mode": …, "then": …}, …]`` in one coordinate x of the
    box, consecutive and tiling x's stated range exactly; each piece is the claim on the box with x over its range,
    proved by the route with the piece's mode and then. Without ``pieces``: the claim itself with the hint's."""
    import dataclasses

    where = f"step {step.name!r}: route {ENCLOSURE!r} parameter pieces"
    raw = params.get("pieces")
    if raw is None:
        return [(step, _enclosure_params(step, params))]
    if not isinstance(raw, (list, tuple)) or not raw:
        raise DerivationError(f"{where} must be a nonempty list of dicts with var, range, mode, then")
    var = raw[0].get("var")
    if var not in step.domain.ranges or any(p_.get("var") != var for p_ in raw):
        raise DerivationError(f"{where}: every piece names the same box coordinate var, got {var!r}")
    lo, hi = (sp.sympify(e_) for e_ in step.domain.ranges[var])
    ends = [tuple(sp.sympify(e_) for e_ in p_.get("range", ())) for p_ in raw]
    if any(len(e_) != 2 for e_ in ends):
        raise DerivationError(f"{where}: each piece needs range = (lo, hi)")
    chained = ends[0][0] == lo and ends[-1][1] == hi and all(a_[1] == b_[0] for a_, b_ in zip(ends, ends[1:]))
    if not chained or not all(bool(a_ < b_) for a_, b_ in ends):
        raise DerivationError(f"{where}: the ranges {ends} do not tile {var}'s range [{lo}, {hi}] in order")
    out = []
    base = {k_: v_ for k_, v_ in params.items() if k_ != "pieces"}
    for p_, rng in zip(raw, ends):
        sub = dataclasses.replace(step, domain=Domain({**step.domain.ranges, var: rng}, step.domain.constraints))
        extra = {k_: v_ for k_, v_ in p_.items() if k_ in ("mode", "then")}
        out.append((sub, _enclosure_params(sub, {**base, **extra})))
    return out


def _into_lattice(term: sp.Expr, box: Domain) -> sp.Expr:
    """c·Min(a, b) → Min(c·a, c·b) (likewise Max) when the other factors c are ≥ 0 on the box (one Arb enclosure):
    an exact rewrite there, c·min = min of the c-multiples for c ≥ 0."""
    factors = sp.Mul.make_args(term)
    nodes = [f_ for f_ in factors if isinstance(f_, (sp.Min, sp.Max))]
    if len(nodes) != 1:
        return term
    rest = sp.Mul(*[f_ for f_ in factors if f_ is not nodes[0]])
    hull = _hull(rest, box) if free_names(rest) <= set(box.ranges) else None
    if rest.is_number:
        hull = (rest, rest) if rest.is_Rational else None
    if hull is None or not bool(hull[0] >= 0):
        return term
    return nodes[0].func(*[rest * a_ for a_ in nodes[0].args])


def _lattice_sides(step: Step) -> Step:
    """``step`` (``small ≤ big``) with its gap's terms that hold a Min/Max on the big side and the others on the small
    side, negated: the same gap, in the form the min/max rules read (``L ≤ min(b_j)``)."""
    import dataclasses

    small, big, strict = _sides(step)
    gap = sp.sympify(big) - sp.sympify(small)
    terms = [_into_lattice(a_, step.domain) for a_ in sp.Add.make_args(sp.expand(gap, deep=False))]
    lattice = [a_ for a_ in terms if a_.has(sp.Min, sp.Max)]
    if not lattice or len(lattice) == len(terms):
        return step
    rest = [a_ for a_ in terms if not a_.has(sp.Min, sp.Max)]
    return dataclasses.replace(
        step, lhs=-sp.Add(*rest), rhs=sp.Add(*lattice), relation="<" if strict else "<=", kind="inequality"
    )


def _prove_piece(step: Step, hint: dict, opts: Mapping[str, Any]) -> str:
    """One claim (a piece) through its reduced claim: the text, or ``NotProved``."""
    from .reentry import check_step

    text, reduced = _enclosure_argument(step, hint, opts)
    reduced = _lattice_sides(reduced)
    sub_opts = {k_: v_ for k_, v_ in opts.items() if k_ != "clock"}
    clock = opts.get("clock")
    left = clock.left() if clock is not None else None
    if left is not None:
        if left <= 0.05:
            raise NotProved("the claim's time ran out before the reduced claim")
        sub_opts["budget"] = clock.budget.but(claim_seconds=left)
    res: StepResult = check_step(reduced, **sub_opts)
    if res.verdict is not Verdict.PROVED:
        raise NotProved(f"{text}; the reduced claim is {res.verdict} ({str(res.method)[:200]})")
    # a coordinate the reduced claim does not hold (the integral's argument alone, replaced by J) is free in it
    names = free_names(sp.sympify(reduced.lhs)) | free_names(sp.sympify(reduced.rhs))
    used = Domain({s_: r_ for s_, r_ in reduced.domain.ranges.items() if s_ in names}, reduced.domain.constraints)
    if not covers(res.covered, used):
        raise NotProved(f"{text}; the reduced claim's proof covers {res.covered}, not its box")
    return f"{text}; the reduced claim proved: {_short(str(res.method), 200)}"


def prove_integral_enclosure(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (the comment above ``ENCLOSURE``)."""
    pieces = _pieces(step, params)
    hint = pieces[0][1]
    ok, cover = False, None
    try:
        texts = []
        for sub, sub_hint in pieces:
            got = _prove_piece(sub, sub_hint, opts)
            texts.append(got if len(pieces) == 1 else f"[{sub.domain.describe()}] {got}")
        argument, ok = " | ".join(texts), True
        cover = {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in step.domain.ranges.items()}
    except NotProved as exc:
        argument = f"not proved: {exc}"
    try:
        forms = _integral_forms(sp.sympify(step.lhs) - sp.sympify(step.rhs), hint)
    except NotProved:
        forms = {}
    fz = falsify(_closed_step(step, forms, hint) if forms else step, dict(opts))
    if fz.counterexample is not None and forms:  # confirmed on the closed form, equal to the claim off S
        return undecided(
            step,
            method=f"route {ENCLOSURE}: {argument}; the falsifier on the claim with G's closed form found a "
            f"counterexample there: {fz.counterexample}",
            evidence=fz.evidence,
            trials=fz.trials,
        )
    return proof_result(step, fz, ok, f"route {ENCLOSURE}: {argument}", covered=cover, symbolic=True, certified=True)
