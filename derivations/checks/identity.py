"""Identity checker: ``simplify(lhs − rhs) == 0`` and a spot-check at random domain points.

The spot-check compares the two sides at ``dps`` digits; a mismatch there is only a proposal (50 digits lose
everything to cancellation in ``cosh(x)² − sinh(x)²`` at x = 100 or ``(x + 1)² − x²`` at x = 10³⁰): the identity
is refuted only where the refutation gate (``refute.confirm``) shows the two sides' Arb enclosures disjoint at
an exact point, and then even a "simplified" identity is refuted (SymPy's reduction to 0 was wrong). A
mismatch the gate does not confirm is undecided noise, reported in the evidence, never a refutation."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import mpmath
import sympy as sp

from ..ledger import Step, StepResult, assumption_range, free_names
from .refute import confirm_float_point
from .sampling import Evaluator, Sampler, _satisfies, symbolic_cover
from .verdicts import proved, refuted, undecided, verified

#: functions whose rewriting in terms of ``exp`` is exact (trigonometric and hyperbolic)
_EXP_REWRITABLE = (sp.sin, sp.cos, sp.tan, sp.sinh, sp.cosh, sp.tanh)


def cheap_zero(expr: sp.Expr) -> bool:
    """True when a cheap exact rewrite of ``expr`` is already 0 (a proof that ``expr`` ≡ 0).

    The rewrites, in order: ``expand``; ``cancel`` of that (a rational function of its non-rational
    parts, e.g. the powers of e^{1/τ} or an unevaluated derivative, put over one reduced
    denominator); and, for claims with trigonometric or hyperbolic functions, the same two after
    ``rewrite(exp)``. Each rewrites an expression into an equal one (``cancel`` up to removable
    singularities, exactly as ``simplify``, which runs it too), so a 0 from any of them is a proof
    as good as ``simplify``'s. They take milliseconds where ``simplify`` runs a dozen strategies and
    keeps the shortest result; False only means "not shown here"."""
    forms = [expr]
    if expr.has(*_EXP_REWRITABLE):
        forms.append(expr.rewrite(sp.exp))
    for form in forms:
        try:
            e1 = sp.expand(form)
            if e1 == 0 or sp.cancel(e1) == 0:
                return True
        except Exception:  # noqa: BLE001 - a rewrite failing deep inside SymPy: the full route decides
            pass
    return False


def expand_then_simplify(expr: sp.Expr) -> sp.Expr:
    """0 when ``cheap_zero(expr)``, else ``simplify(expr)`` (the full route, exactly as before)."""
    return sp.Integer(0) if cheap_zero(expr) else sp.simplify(expr)


def _reducer(step: Step):
    """The step's reduction of ``lhs − rhs``: the cheap exact rewrites first, then the step's own
    ``simplifier`` (``simplify`` if it has none) on what they leave. A step's simplifier exists to
    reach 0 where ``simplify`` does not; where ``expand``/``cancel`` already do, it is not needed (one
    catalogue simplifier evaluates a symbolic sum with ``doit`` for two seconds first).

    Called with the claim's two ``sides``, a claim with derivatives also gets the cheap rewrites of
    its sides written out (``doit``, exact), memoised with the spot-check's own evaluation of them,
    so the derivatives are taken once for both."""
    full = step.simplifier or sp.simplify

    def reduce(expr: sp.Expr, sides: tuple | None = None) -> sp.Expr:
        if cheap_zero(expr):
            return sp.Integer(0)
        if sides is not None and any(
            sp.sympify(e).has(sp.Derivative) and not sp.sympify(e).has(sp.Integral) for e in sides
        ):
            try:
                if cheap_zero(_done(sp.sympify(sides[0]), {}) - _done(sp.sympify(sides[1]), {})):
                    return sp.Integer(0)
            except Exception:  # noqa: BLE001 - doit failing deep inside SymPy: the full route decides
                pass
        return full(expr)

    return reduce


def check_identity(step: Step, opts: Mapping[str, Any]) -> StepResult:
    diff = step.lhs - step.rhs
    simp = _reducer(step)
    try:
        reduced = simp(diff, (step.lhs, step.rhs))
        symbolic = reduced == 0
    except Exception as exc:  # SymPy can fail deep inside simplify; say so, do not crash
        reduced, symbolic = None, False
        _ = exc
    spot = _spot_check(step, [step.lhs, step.rhs], opts)
    if spot["counterexample"] is not None:
        return refuted(
            step,
            method="spot-check refuted by the Arb gate"
            + (
                " (simplification bug: SymPy reduced lhs − rhs to 0, the sides differ at an exact point)"
                if symbolic
                else ""
            ),
            evidence=spot["evidence"],
            counterexample=spot["counterexample"],
            trials=spot["n"],
        )
    if spot["n"] == 0 and not symbolic:
        return undecided(
            step,
            method="no symbolic reduction and no evaluable point",
            evidence=str(reduced),
        )
    big_k = None if symbolic else _grouped_spot_check(step, [step.lhs, step.rhs], opts)
    if big_k is not None and big_k["counterexample"] is not None:
        return refuted(
            step,
            method=f"spot-check at large k refuted by the Arb gate ({big_k['grouping']})",
            evidence=big_k["evidence"],
            counterexample=big_k["counterexample"],
            trials=spot["n"] + big_k["n"],
        )
    if symbolic:
        covered = _symbolic_identity_cover(step, simp)
        return proved(
            step,
            method=f"symbolic simplification to 0; spot-checked at {spot['n']} points ({opts['dps']} digits)",
            evidence=spot["evidence"],
            trials=spot["n"],
            symbolic=True,
            cover=covered,
        )
    method = f"SymPy did not reduce lhs − rhs to 0; agrees at {spot['n']} random points ({opts['dps']} digits)"
    attacked, evidence, n = spot["attacked"], spot["evidence"], spot["n"]
    if big_k is not None and big_k["n"]:
        (kk, (k_lo, k_hi)) = big_k["k"]
        method += f" and at {big_k['n']} points with {k_lo} ≤ {kk} ≤ {k_hi} ({big_k['grouping']})"
        attacked = {
            **attacked,
            kk: (attacked.get(kk, (str(k_lo), ""))[0], str(k_hi)),
            "grouped_k": (str(k_lo), str(k_hi)),
        }
        evidence = f"{evidence}; large k: {big_k['evidence']}"
        n += big_k["n"]
    return verified(step, method=method, evidence=evidence, trials=n, attacked=attacked)


#: spot points of a vector identity at large k (``_grouped_spot_check``)
GROUPED_SPOT_POINTS = 6


def _grouped_spot_check(step: Step, exprs: list[sp.Expr], opts: Mapping[str, Any]) -> dict[str, Any] | None:
    """The spot check of a vector identity for every k at k beyond the coordinate-by-coordinate points:
    ``GROUPED_SPOT_POINTS`` points with k log-uniform in (min(k_cap, 6), 10⁹] (within the stated range)
    whose coordinates take ``GROUPS`` values with multiplicities summing to k, where the claim is written
    exactly with those multiplicities (``falsifier.group_claim``), both sides at ``dps`` digits.

    None where there is no one length symbol, the claim has integrals or derivatives (their spot values
    need SymPy's ``doit`` per k), or a summand depends on its index itself (not groupable)."""
    from .falsifier_large_k import GROUPS, _NotGroupable, group_claim, grouped_k_range
    from .sampling import fast_lambdify

    ev = Evaluator(exprs, step.domain)
    if len(ev.structural) != 1 or any(sp.sympify(e).has(sp.Integral, sp.Derivative) for e in exprs):
        return None
    (kk,) = ev.structural
    rng = random.Random(f"{opts['seed']}:{step.name}:large-k")
    sampler = Sampler(step.domain, rng, opts["real_cap"], min(opts["k_cap"], 6))
    ks = grouped_k_range(step, kk, sampler.k_cap)
    if ks is None:
        return None
    k_lo, k_hi = ks
    try:
        grouped, ms = group_claim(exprs, kk)
        atoms = sorted(set().union(*(e.atoms(sp.Indexed) for e in grouped)), key=str)
        scalars = [s_ for s_ in ev.scalars if s_ != kk]
        fn = fast_lambdify([kk, *ms, *scalars, *atoms], grouped, "mpmath")
    except _NotGroupable:
        return None
    except Exception:  # noqa: BLE001 - a claim the printer cannot write: no large-k points, as before
        return None
    dps = opts["dps"]
    tol = mpmath.mpf(10) ** (-(dps - 15))
    worst, n, noise = mpmath.mpf(0), 0, 0
    names = {str(s_) for e in grouped for s_ in e.free_symbols}
    named = [
        sp.Symbol(f"m{g + 1}" if f"m{g + 1}" not in names else f"_m{g + 1}", integer=True, nonnegative=True)
        for g in range(GROUPS)
    ]
    g_lhs, g_rhs = (e.xreplace(dict(zip(ms, named))) for e in grouped)
    for i in range(GROUPED_SPOT_POINTS * 10):
        if n >= GROUPED_SPOT_POINTS:
            break
        kv = k_hi if i == 0 else min(k_hi, max(k_lo, round(math.exp(rng.uniform(math.log(k_lo), math.log(k_hi))))))
        # multiplicities: a random split, one odd coordinate out of k, or half and half
        form = i % 3
        if form == 0:
            cuts = sorted(rng.randint(0, kv) for _ in range(GROUPS - 1))
            mult = [b_ - a_ for a_, b_ in zip([0, *cuts], [*cuts, kv])]
        elif form == 1:
            mult = [kv - 1, 1] + [0] * (GROUPS - 2)
        else:
            mult = [kv - kv // 2, kv // 2] + [0] * (GROUPS - 2)
        pt = {s_: sampler.scalar(s_, 0.1) for s_ in scalars}
        if not _satisfies(step.domain, {**pt, kk: kv}):
            continue
        vals = {a: sampler.scalar(a.base.label, 0.1) for a in atoms}
        try:
            with mpmath.workdps(dps):
                args = [mpmath.mpf(kv), *(mpmath.mpf(m_) for m_ in mult)]
                args += [mpmath.mpf(pt[s_]) for s_ in scalars] + [mpmath.mpf(vals[a]) for a in atoms]
                lv, rv = fn(*args)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue
        n += 1
        err = abs(lv - rv) / max(mpmath.mpf(1), abs(lv), abs(rv))
        if err > tol:  # a proposal: the gate decides at the exact grouped point
            gpt = {kk: kv, **dict(zip(named, mult)), **{s_: pt[s_] for s_ in scalars}, **vals}
            cx = confirm_float_point(g_lhs, g_rhs, "=", gpt, domain=step.domain)
            if cx is not None:
                return {
                    "n": n,
                    "counterexample": cx.as_dict(),
                    "evidence": f"the two sides' Arb enclosures are disjoint at {cx.bits} bits",
                    "grouping": f"{GROUPS} groups of equal coordinates",
                    "k": (str(kk), (k_lo, k_hi)),
                }
            noise += 1
            continue
        worst = max(worst, err)
    return {
        "n": n,
        "counterexample": None,
        "evidence": f"max relative difference {mpmath.nstr(worst, 3)}"
        + (f"; {noise} fixed-precision mismatches not confirmed by the Arb gate (undecided)" if noise else ""),
        "grouping": f"{GROUPS} groups of equal coordinates",
        "k": (str(kk), (k_lo, k_hi)),
    }


def _spot_check(step: Step, exprs: list[sp.Expr], opts: Mapping[str, Any]) -> dict[str, Any]:
    rng = random.Random(f"{opts['seed']}:{step.name}")
    ev = Evaluator(exprs, step.domain)
    sampler = Sampler(step.domain, rng, opts["real_cap"], min(opts["k_cap"], 6))
    dps = opts["dps"]
    exact_tol = any(e.has(sp.Integral, sp.Derivative) for e in exprs)
    tol = mpmath.mpf(10) ** (-(dps // 2 if exact_tol else dps - 15))
    worst = mpmath.mpf(0)
    n = noise = tiny = 0
    pts = [ev.complete(dict(p), sampler) for p in step.adversarial]
    tries = 0
    while len(pts) < opts["spot_points"] + len(step.adversarial) and tries < 50 * opts["spot_points"]:
        tries += 1
        pt = ev.random_point(sampler, snap=0.1)
        if _satisfies(step.domain, pt):
            pts.append(pt)
    for pt in pts:
        try:
            with mpmath.workdps(dps):
                lv, rv = _exact_values(exprs, pt, ev, dps)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue
        n += 1
        scale = max(mpmath.mpf(1), abs(lv), abs(rv))
        err = abs(lv - rv) / scale
        if err > tol:
            # a fixed-precision mismatch is only a proposal (cancellation: cosh² − sinh² at x = 100 loses
            # 87 digits): the gate refutes where Arb shows the two sides' enclosures disjoint at the exact point
            cx = confirm_float_point(exprs[0], exprs[1], "=", pt, domain=step.domain)
            if cx is not None:
                return {
                    "n": n,
                    "counterexample": cx.as_dict(),
                    "evidence": f"the two sides' Arb enclosures are disjoint at {cx.bits} bits",
                }
            noise += 1
            continue
        if err > 0 and tiny < 2:
            # below the fixed-precision tolerance but not zero: rounding, or a claim wrong by less than 1e-35
            # (cosh² − sinh² = 1 + e^{−100}). Two such points go to the gate too, at up to 1024 bits
            tiny += 1
            cx = confirm_float_point(exprs[0], exprs[1], "=", pt, domain=step.domain, max_bits=1024)
            if cx is not None:
                return {
                    "n": n,
                    "counterexample": cx.as_dict(),
                    "evidence": f"the two sides' Arb enclosures are disjoint at {cx.bits} bits "
                    f"(a relative difference {mpmath.nstr(err, 3)}, below the {dps}-digit tolerance)",
                }
        worst = max(worst, err)
    return {
        "n": n,
        "counterexample": None,
        "evidence": f"max relative difference {mpmath.nstr(worst, 3)}"
        + (f"; {noise} fixed-precision mismatches not confirmed by the Arb gate (undecided)" if noise else ""),
        "attacked": sampler.attacked(ev),  # the ranges the spot points were drawn from (k ≤ min(k_cap, 6))
    }


#: ``e.subs(structural).doit()`` per (expression, structural integers): the derivatives written out
#: once per claim instead of once per spot point (six derivatives of an MGF cost a second each time)
_DONE: dict[tuple, sp.Expr] = {}


def _done(e: sp.Expr, struct: Mapping[sp.Symbol, int]) -> sp.Expr:
    key = (e, tuple(sorted(((str(s_), s_, v_) for s_, v_ in struct.items()), key=lambda t: t[0])))
    hit = _DONE.get(key)
    if hit is None:
        if len(_DONE) > 1024:  # bounded: a long session checks many claims
            _DONE.clear()
        hit = _DONE[key] = e.subs(struct).doit()
    return hit


def _exact_values(exprs: list[sp.Expr], pt: Mapping, ev: Evaluator, dps: int) -> list:
    """High-precision values; falls back to SymPy evalf for integrals and derivatives."""
    if any(e.has(sp.Derivative) for e in exprs):  # integrals go through lambdify → mpmath.quad
        sub = {s: (sp.Integer(v) if isinstance(v, int) else sp.Float(v, dps)) for s, v in pt.items()}
        struct = {s: int(pt[s]) for s in ev.structural}
        out = []
        for e in exprs:
            val = _done(e, struct).subs(sub).evalf(dps)
            if not val.is_number:
                raise ValueError("not evaluable")
            out.append(mpmath.mpf(str(val)) if val.is_real is not False else mpmath.mpc(complex(val)))
        return out
    return ev.evaluate(pt, exact=True, dps=dps)


def _symbolic_identity_cover(step: Step, simp) -> dict:
    """The region a symbolic reduction covers. SymPy reduced ``lhs − rhs`` under the symbols'
    assumptions; where the stated domain reaches beyond them (a ``nonnegative`` y stated on [−1, 1]),
    the reduction is redone with those symbols replaced by plain real ones, and covers the stated
    range only if it still reaches 0."""
    cover = symbolic_cover([step.lhs, step.rhs])
    beyond = {}
    for sym in sorted(free_names(step.lhs) | free_names(step.rhs), key=str):
        if not isinstance(sym, sp.Symbol) or sym not in step.domain.ranges or str(sym) not in cover:
            continue
        # covers() on the recorded strings, compared without re-parsing them (region() wrote them
        # from these very assumption ranges)
        a_lo, a_hi = assumption_range(sym)
        lo, hi = step.domain.ranges[sym]
        if bool(a_lo > lo) or bool(a_hi < hi):
            beyond[sym] = sp.Dummy(sym.name, positive=True) if bool(lo > 0) else sp.Dummy(sym.name, real=True)
    if not beyond:
        return cover
    try:
        again = simp((step.lhs - step.rhs).xreplace(beyond)) == 0
    except Exception:  # noqa: BLE001 - no reduction: the cover stays what the assumptions give
        again = False
    if again:
        for sym, dummy in beyond.items():
            cover[str(sym)] = ("0", "oo") if dummy.is_positive else ("-oo", "oo")
    return cover
