"""Classical rules of route "expectation" (``checks/expectation.py``) beyond moments, pointwise and Jensen, each
applied only where the claim is proved to be an exact instance, each handing the bound it gives to a further
rule (``then``, default ``"moments"``) that proves ``bound ≤ big``.

Claim: ``small ≤ big`` (the step's sides with the printed placeholders replaced by ``defs``). Each rule names the
random variables of its instance (``x``, ``y``, ``u``, ``v``: expressions in the draws and moments, as inside
``Expect``), builds the instance's left side ``F`` from them, and requires ``small = c·F`` with ``c`` free of
every expectation and draw — SymPy's reduction of ``small − c·F`` to 0 (a symbolic identity, never a numeric
test) — and ``c ≥ 0`` proved by the engine. The substitution (X, Y, c, …) is shown in the reduction.

* ``"cauchy_schwarz"`` (Billingsley, *Probability and Measure*, 3rd ed. 1995, §5: Hölder's inequality at
  p = q = 2): E|XY| ≤ (E X² · E Y²)^{1/2}; ``y`` defaults to 1 (E|X| ≤ (E X²)^{1/2}). ``F`` is E|XY| or
  |E[XY]| (|E Z| ≤ E|Z| first). Then it suffices that ``big ≥ 0`` (proved with each moment over its range)
  and ``c²·E[X²]·E[Y²] ≤ big²`` (the continuation claim, squared so it stays linear in the moments).
* ``"lyapunov"`` (same reference: Lyapunov's inequality, a case of Hölder's): for 0 < p ≤ q,
  E|X|^p ≤ (E|X|^q)^{p/q}. ``F`` is E|X|^p (or E[X^p] for an even integer p: the draws are real). The
  continuation claim is ``c·(E|X|^q)^{p/q} ≤ big`` (|X|^q written X^q for an even integer q).
* ``"lipschitz"`` (the mean value theorem): |f(U) − f(V)| ≤ L|U − V| draw by draw when f is C¹ with
  |f'| ≤ L on an interval holding U and V; ``F`` is E|f(U) − f(V)| or |E[f(U) − f(V)]|. Proved: f and f'
  defined there (``wellposed``), f built from analytic heads, ``L − f'(t) ≥ 0`` and ``L + f'(t) ≥ 0`` for t
  over the hull of the ranges of U and V (each proved from ``bounds``). Continuation: ``c·L·E|U − V| ≤ big``.
* ``"ratio"`` (cross-multiplying by a positive expectation): a side N/D with D an expectation (or a function
  of moments) proved > 0 (D ≥ 0 over the moments' ranges, and 1/D defined): ``N/D ≤ big`` iff
  ``N ≤ big·D``, ``small ≤ N/D`` iff ``small·D ≤ N``; the cross-multiplied claim is the continuation.
* ``"abs"``: ``c·|X| ≤ big`` (c ≥ 0) iff ``c·X ≤ big`` and ``−c·X ≤ big``: two continuation claims (``then``
  one rule for both, or a pair: the rule for +X, the rule for −X).
* ``"leave_one_out"`` (Burda, Grosse & Salakhutdinov 2016, Thm 1): for φ concave on the range of h and
  n ≥ 2, E φ(n⁻¹Σ_{j≤n} h(D_j)) ≥ E φ((n − 1)⁻¹Σ_{j≤n−1} h(D_j)): the n-mean is the mean of its n
  leave-one-out means (a symbolic identity), φ of a mean ≥ the mean of φ (finite Jensen), and each
  leave-one-out mean has the law of the (n − 1)-mean (i.i.d.). The sides must be those two expectations
  (times the same c ≥ 0) exactly; φ'' ≤ 0 on the range of h is proved by the engine.

Where the bound equals ``big`` symbolically the continuation is not needed. Nothing here reads a float: every
sign is a proved verdict of the engine (``expectation._prove_scalar``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Domain, Step, free_names
from . import expectation_means  # noqa: F401 - registers the weighted-mean rules with the route
from .expectation import (
    EXTRA_RULES,
    Expect,
    NotProved,
    Reducer,
    Scalarise,
    _prove_scalar,
    _short,
    _zero,
    rule_table,
)
from .expectation_sums import sum_simplifier

BILLINGSLEY = "Billingsley, Probability and Measure, 3rd ed. (1995), §5"
REFERENCES = {
    "cauchy_schwarz": f"Cauchy–Schwarz inequality, the case p = q = 2 of Hölder's ({BILLINGSLEY})",
    "lyapunov": f"Lyapunov's inequality (E|X|^p)^{{1/p}} ≤ (E|X|^q)^{{1/q}}, 0 < p ≤ q ({BILLINGSLEY})",
    "lipschitz": "the mean value theorem: |f(u) − f(v)| ≤ sup|f'|·|u − v| on an interval holding u, v",
    "ratio": "N/D ≤ B ⇔ N ≤ B·D for D > 0",
    "leave_one_out": "Burda, Grosse & Salakhutdinov (ICLR 2016), Thm 1: E log of the n-mean is nondecreasing in n",
}


# ----------------------------------------------------------------------------- shared pieces


def _coefficient(red: Reducer, side: sp.Expr, forms: list[tuple[str, sp.Expr]]) -> tuple[str, sp.Expr, sp.Expr]:
    """(name, c, F): ``side = c·F`` for the first form F with c free of expectations and draws (symbolic)."""
    side = red.reduce(side)  # both reduced alike (linearity may split log(Σ/k) into log Σ − log k)
    forms = [(label, red.reduce(form)) for label, form in forms]
    for label, form in forms:  # c = 1 by expansion alone first (no simplify)
        if side == form or sp.expand(side - form) == 0:
            return label, sp.Integer(1), form
    for label, form in forms:
        if not form.atoms(Expect) <= side.atoms(Expect):  # c = side/F would keep an expectation: not this form
            continue
        try:
            c = sp.simplify(side / form)
        except Exception:  # noqa: BLE001,S112 - a form SymPy cannot divide by is not this side's
            continue
        if c.has(Expect) or c.has(sp.Sum) or any(ix.base in red.bases for ix in c.atoms(sp.Indexed)):
            continue
        if c == 0 or not _zero(side - c * form):
            continue
        return label, c, form
    shown = "; ".join(f"{lab}: {f}" for lab, f in forms)
    raise NotProved(f"the small side {side} is not c·F with c free of expectations for F in ({shown})")


def _nonneg(name: str, e: sp.Expr, sc: Scalarise, opts: Mapping[str, Any]) -> str:
    """``e ≥ 0`` with its moments over their ranges (a number decided exactly), the method or ``NotProved``."""
    e = sp.sympify(e)
    if e.is_number and e.is_nonnegative:
        return "exact"
    body = sc(e)
    return _prove_scalar(name, sp.Integer(0), body, sc.domain(), opts)


def _continue(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any], red: Reducer, small, big, what) -> str:
    """Prove the continuation claim ``small ≤ big`` by the rule of ``params["then"]`` (default ``"moments"``);
    ``bounds`` and ``facts`` are inherited where the nested rule does not give its own."""
    if sp.expand(red.reduce(big) - red.reduce(small)) == 0:  # the bound is big itself (expansion only: fast)
        return f"{small} = {big} (reduction)"
    then = dict(params.get("then") or {"rule": "moments"})
    rule = then.get("rule")
    table = rule_table()
    if rule not in table or rule == "leave_one_out":
        raise DerivationError(f"step {step.name!r}: a continuation rule ('then') must be one of {sorted(table)}")
    then.setdefault("bounds", params.get("bounds", {}))
    if then.get("facts"):
        red = Reducer(red.bases, {**red.facts, **then["facts"]})
    sub = Step(f"{step.name} [{what}]", small, big, kind="inequality", relation="<=", domain=step.domain)
    return f"then {rule} on {small} ≤ {big}: " + table[rule](sub, then, opts, red, sp.sympify(small), sp.sympify(big))


def _value_range(red: Reducer, sc: Scalarise, u: sp.Expr) -> tuple[sp.Expr, sp.Expr, str]:
    """[lo, hi] holding the random variable U (and E U): a sample mean n⁻¹Σ_j h(D_j), a moment E h, a function
    h(D_1) of one draw — each over the proved range of h — or a deterministic value."""
    u = sp.sympify(u)
    sums = [s_ for s_ in u.atoms(sp.Sum) if red._sample_sum(s_)]
    if sums:
        h = red._sum_factor(sums[0])
        if len(sums) != 1 or not _zero(u - sums[0] / red.n):
            raise NotProved(f"{u} is not a sample mean n⁻¹Σ_j h(D_j)")
        lo, hi = sc.range_of(h)
        return lo, hi, f"{u} a mean of values of {h}"
    if isinstance(u, Expect):
        lo, hi = sc.range_of(u.args[0], moment=True)
        return lo, hi, f"{u} a mean of {u.args[0]}"
    if u.has(Expect):
        raise NotProved(f"{u} is neither a sample mean, a moment nor a function of one draw")
    if any(ix.base in red.bases for ix in u.atoms(sp.Indexed)):
        lo, hi = sc.range_of(u)
        return lo, hi, f"{u}"
    return u, u, f"{u} deterministic"


# ----------------------------------------------------------------------------- the rules


def rule_cauchy_schwarz(step, params, opts, red, small, big) -> str:
    x = sp.sympify(params.get("x"))
    y = sp.sympify(params.get("y", 1))
    if params.get("x") is None:
        raise DerivationError(f"step {step.name!r}: rule 'cauchy_schwarz' needs x (the random variable X)")
    xy = x * y
    label, c, _ = _coefficient(
        red, small, [("E|XY|", Expect(sp.Abs(xy))), ("|E[XY]| ≤ E|XY|", sp.Abs(red.reduce(Expect(xy))))]
    )
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    mc = _nonneg(f"{step.name}: c ≥ 0", c, sc, opts)
    mb = _nonneg(f"{step.name}: big ≥ 0", big, sc, opts)
    bound = c**2 * Expect(x**2) * (Expect(y**2) if y != 1 else 1)
    rest = _continue(step, params, opts, red, bound, big**2, "Cauchy–Schwarz, squared")
    return (
        f"Cauchy–Schwarz (classical: {REFERENCES['cauchy_schwarz']}): small = c·{label} with X = {x}, Y = {y}, "
        f"c = {c} ≥ 0 ({_short(mc)}), so small ≤ c(E X²·E Y²)^{{1/2}}; big ≥ 0 ({_short(mb)}), so it suffices "
        f"that c²·E X²·E Y² ≤ big²; {rest}"
    )


def rule_lyapunov(step, params, opts, red, small, big) -> str:
    x = sp.sympify(params.get("x"))
    p, q = sp.nsimplify(params.get("p", 0)), sp.nsimplify(params.get("q", 0))
    if params.get("x") is None or not (p.is_Rational and q.is_Rational and 0 < p <= q):
        raise DerivationError(f"step {step.name!r}: rule 'lyapunov' needs x and rationals 0 < p ≤ q, got {p}, {q}")

    def even(r: sp.Expr) -> bool:
        return bool(r.is_Integer and r % 2 == 0)

    forms = [("E|X|^p", Expect(sp.Abs(x) ** p))] + ([("E[X^p]", Expect(x**p))] if even(p) else [])
    label, c, _ = _coefficient(red, small, forms)
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    mc = _nonneg(f"{step.name}: c ≥ 0", c, sc, opts)
    # |x|^q = x^q for an even q when X is real: SymPy's assumptions with each statistic a real value
    stat = {a_: sp.Dummy(real=True) for a_ in x.atoms(Expect) | x.atoms(sp.Sum)}
    real = x.xreplace(stat).is_real is True
    qth = Expect(x**q) if even(q) and real else Expect(sp.Abs(x) ** q)
    bound = c * qth ** (p / q)
    rest = _continue(step, params, opts, red, bound, big, "Lyapunov")
    return (
        f"Lyapunov (classical: {REFERENCES['lyapunov']}): small = c·{label} with X = {x}, p = {p}, q = {q}, "
        f"c = {c} ≥ 0 ({_short(mc)}), so small ≤ c·{qth}^({p / q}); {rest}"
    )


def rule_lipschitz(step, params, opts, red, small, big) -> str:
    from .monotone import SMOOTH_HEADS
    from .wellposed import check_wellposed

    f, lip = params.get("f"), sp.sympify(params.get("L"))
    if not isinstance(f, sp.Lambda) or len(f.variables) != 1 or params.get("L") is None:
        raise DerivationError(f"step {step.name!r}: rule 'lipschitz' needs f = Lambda(t, body) and L")
    if lip.has(Expect) or any(ix.base in red.bases for ix in lip.atoms(sp.Indexed)):
        raise NotProved(f"the Lipschitz constant {lip} must be deterministic")
    u, v = sp.sympify(params.get("u")), sp.sympify(params.get("v"))
    d = f(u) - f(v)
    label, c, _ = _coefficient(
        red, small, [("E|f(U) − f(V)|", Expect(sp.Abs(d))), ("|E[f(U) − f(V)]| ≤ E|…|", sp.Abs(red.reduce(Expect(d))))]
    )
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    lo_u, hi_u, why_u = _value_range(red, sc, u)
    lo_v, hi_v, why_v = _value_range(red, sc, v)
    lo = lo_u if _zero(lo_u - lo_v) else sp.Min(lo_u, lo_v)
    hi = hi_u if _zero(hi_u - hi_v) else sp.Max(hi_u, hi_v)
    (tv,) = f.variables
    if any(not isinstance(n_, SMOOTH_HEADS) for n_ in sp.preorder_traversal(f.expr) if not n_.is_Atom):
        raise NotProved(f"f = {f.expr} is not built from analytic heads: C¹ not established")
    t = sc.fresh("t", lo, hi)
    dom = sc.domain()
    fp = sp.diff(f.expr, tv)
    body, dbody = f.expr.xreplace({tv: t}), fp.xreplace({tv: t})
    wp = check_wellposed(
        [body, dbody],
        Domain({s_: r_ for s_, r_ in dom.ranges.items() if s_ in free_names(body) | free_names(dbody)}),
        step.name,
        opts.get("clock"),
    )
    if wp.status != "defined":
        raise NotProved(f"f = {f.expr} or f' not established defined on [{lo}, {hi}] ({wp.status})")
    m1 = _prove_scalar(f"{step.name}: f' ≤ L", dbody, lip, dom, opts)
    m2 = _prove_scalar(f"{step.name}: −L ≤ f'", -lip, dbody, dom, opts)
    mc = _nonneg(f"{step.name}: c ≥ 0", c, sc, opts)
    bound = c * lip * Expect(sp.Abs(u - v))
    rest = _continue(step, params, opts, red, bound, big, "Lipschitz")
    return (
        f"Lipschitz (classical: {REFERENCES['lipschitz']}): small = c·{label} with f(t) = {f.expr}, U = {u}, "
        f"V = {v}, c = {c} ≥ 0 ({_short(mc)}); U, V ∈ [{lo}, {hi}] ({why_u}; {why_v}; "
        f"{'; '.join(sc.proved_bounds.values())}); |f'| = |{fp}| ≤ L = {lip} there ({_short(m1)}; {_short(m2)}), "
        f"so small ≤ c·L·E|U − V|; {rest}"
    )


def rule_ratio(step, params, opts, red, small, big) -> str:
    from .wellposed import check_wellposed

    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    for side in ("small", "big"):
        num, den = sp.fraction(sp.together(small if side == "small" else big))
        if not den.has(Expect):
            continue
        body = sc(den)
        m = _prove_scalar(f"{step.name}: D ≥ 0", sp.Integer(0), body, sc.domain(), opts)
        dom = sc.domain()
        wp = check_wellposed(
            [1 / body], Domain({s_: r_ for s_, r_ in dom.ranges.items() if s_ in free_names(body)}), step.name
        )
        if wp.status != "defined":
            raise NotProved(f"D = {den} ≠ 0 not established ({wp.status})")
        if side == "small":
            new_small, new_big, shown = num, big * den, f"N/D ≤ big ⇔ N ≤ big·D with N = {num}, D = {den}"
        else:
            new_small, new_big, shown = small * den, num, f"small ≤ N/D ⇔ small·D ≤ N with N = {num}, D = {den}"
        rest = _continue(step, params, opts, red, new_small, sp.expand(new_big), "cross-multiplied")
        return f"ratio ({REFERENCES['ratio']}): {shown}, D > 0 (D ≥ 0: {_short(m)}; D ≠ 0: {wp.status}); {rest}"
    raise NotProved("neither side is N/D with D an expectation")


def rule_leave_one_out(step, params, opts, red, small, big) -> str:
    from .wellposed import check_wellposed

    phi = params.get("phi")
    if not isinstance(phi, sp.Lambda) or len(phi.variables) != 1:
        raise DerivationError(f"step {step.name!r}: rule 'leave_one_out' needs phi = Lambda(v, body)")
    h_sum = sp.sympify(params.get("inner"))  # n⁻¹Σ_{j=1}^n h(D_j)
    sums = [s_ for s_ in h_sum.atoms(sp.Sum) if red._sample_sum(s_)]
    if len(sums) != 1:
        raise NotProved(f"U = {h_sum} is not a sample mean n⁻¹Σ_j h(D_j)")
    (jv, one, n) = sums[0].limits[0]
    if one != 1 or not _zero(h_sum - sums[0] / n):
        raise NotProved(f"U = {h_sum} is not a sample mean n⁻¹Σ_{{j=1}}^n h(D_j)")
    h = red._sum_factor(sums[0])
    full = Expect(phi(h_sum))
    loo = Expect(phi(sp.Sum(sums[0].function, (jv, 1, n - 1)) / (n - 1)))
    c = sp.simplify(big / full)
    if c.has(Expect) or c.has(sp.Sum) or not _zero(big - c * full) or not _zero(small - c * loo):
        raise NotProved(f"the sides are not c·E φ(U_{{n−1}}) ≤ c·E φ(U_n) with U_n = {h_sum}, φ = {phi}")
    if not isinstance(n, sp.Symbol):
        raise NotProved(f"the sample size {n} is not one symbol")
    nsym = n
    rng = step.domain.ranges.get(nsym)
    if rng is None or not (sp.sympify(rng[0]) >= 2):
        raise NotProved(f"n = {n} ≥ 2 not given by the domain ({rng})")
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    mc = _nonneg(f"{step.name}: c ≥ 0", c, sc, opts)
    lo, hi = sc.range_of(h)
    (vv,) = phi.variables
    val = sc.fresh("v", lo, hi)
    dom = sc.domain()
    wp = check_wellposed(
        [phi.expr.xreplace({vv: val})], Domain({s_: r_ for s_, r_ in dom.ranges.items() if s_ in free_names(val)})
    )
    if wp.status != "defined":
        raise NotProved(f"φ = {phi} not established defined on [{lo}, {hi}] ({wp.status})")
    d2 = sp.diff(phi.expr, vv, 2).xreplace({vv: val})
    m = _prove_scalar(f"{step.name} [φ'' ≤ 0]", d2, sp.Integer(0), dom, opts)
    # the leave-one-out identity n⁻¹Σ_i (n − 1)⁻¹Σ_{j≠i} h_j = n⁻¹Σ_j h_j, checked symbolically on the sums
    i_ = sp.Dummy("i", integer=True)
    tot = sp.Sum(sums[0].function, (jv, 1, n))
    drop = (tot - sums[0].function.xreplace({jv: i_})) / (n - 1)
    ident = sum_simplifier(sp.Sum(drop, (i_, 1, n)) / n - tot / n)
    if ident != 0:
        raise NotProved(f"the leave-one-out identity did not reduce to 0 ({ident})")
    return (
        f"leave-one-out averaging (classical: {REFERENCES['leave_one_out']}): U_n = {h_sum} is the mean of its n "
        f"leave-one-out means (identity reduced to 0), φ = {phi.expr} concave on [{lo}, {hi}] (φ'' ≤ 0: {_short(m)}; "
        f"{'; '.join(sc.proved_bounds.values())}), so φ(U_n) ≥ n⁻¹Σ_i φ(U^(−i)) (finite Jensen) and "
        f"E φ(U^(−i)) = E φ(U_{{n−1}}) (i.i.d.); c = {c} ≥ 0 ({_short(mc)}); {nsym} ≥ {rng[0]} gives n − 1 ≥ 1"
    )


def rule_abs(step, params, opts, red, small, big) -> str:
    side = red.reduce(small)
    forms = [(f"|{a_.args[0]}|", a_) for a_ in side.atoms(sp.Abs)]
    if not forms:
        raise NotProved(f"the small side {small} has no absolute value")
    _, c, form = _coefficient(red, side, forms)
    sc = Scalarise(red, step, params.get("bounds", {}), opts)
    mc = _nonneg(f"{step.name}: c ≥ 0", c, sc, opts)
    inner = form.args[0]
    then = params.get("then")
    plus, minus = (then if isinstance(then, (list, tuple)) else (then, then)) if then else (None, None)
    if isinstance(then, (list, tuple)) and len(then) != 2:
        raise DerivationError(f"step {step.name!r}: rule 'abs' takes then = one rule or a pair [for +x, for −x]")
    up = _continue(step, {**params, "then": plus}, opts, red, c * inner, big, "+")
    down = _continue(step, {**params, "then": minus}, opts, red, -c * inner, big, "−")
    return f"|x| ≤ B iff x ≤ B and −x ≤ B: small = c·{form}, c = {c} ≥ 0 ({_short(mc)}); (+) {up}; (−) {down}"


RULES = {
    "abs": rule_abs,
    "cauchy_schwarz": rule_cauchy_schwarz,
    "lyapunov": rule_lyapunov,
    "lipschitz": rule_lipschitz,
    "ratio": rule_ratio,
    "leave_one_out": rule_leave_one_out,
}
EXTRA_RULES.update(RULES)  # registered with the route (routes imports this module before the route runs)

__all__ = ["RULES", "sum_simplifier"]
