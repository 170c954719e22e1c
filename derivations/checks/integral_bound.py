"""Route "integral bound": ``∫_lo^hi f(t) dt ≤ rhs`` by Cauchy–Schwarz (or directly), an antiderivative proved
by differentiation, and a scalar inequality proved by the engine.

Claim shape: an inequality ``small ≤ big`` (``<=``, or ``>=`` with the sides swapped) whose small side is one
``sympy.Integral(f, (t, lo, hi))`` over a single real variable; ``lo``, ``hi`` and ``big`` are expressions of
the claim's scalars (bounded box; an integrable singularity of ``f`` at an end is allowed).

    Step(..., route=("integral bound", {"rule": "cauchy-schwarz", "antiderivative": G}))
    # optional "uses": ((name, small, big, {x: (lo, hi)}), …) and "with": {lemma name: {its symbol name: expression}}, "points": n

``rule`` is ``"cauchy-schwarz"`` (``G`` is an antiderivative of ``g = f²``) or ``"direct"`` (of ``g = f``).
The route proves, and proves only when all hold:

1. ``lo ≤ hi`` on the domain (the engine);
2. ``d/dt G − g`` reduces to 0 in SymPy (``expand``, else ``simplify``: a symbolic identity), ``G`` is built
   from analytic heads (``monotone.SMOOTH_HEADS``), and ``g`` and ``G`` are defined (``wellposed``) for
   ``t = lo + w``, ``0 < w ≤`` the hull of ``hi − lo`` (the open end ``w → 0`` is not a point): ``G`` is C¹ on
   ``(lo, hi]`` and ``∫_{lo+δ}^{hi} g = G(hi) − G(lo + δ)``;
3. ``G(lo)`` is ``G`` at ``lo`` where that is finite, else the one-sided limit ``lim_{t→lo+} G`` (SymPy's
   symbolic limit, finite): the (improper) integral is ``I = G(hi) − G(lo⁺)``; for Cauchy–Schwarz ``g = f² ≥ 0``,
   so the improper and the Lebesgue integrals agree (monotone convergence);
4. the scalar inequality: Cauchy–Schwarz ``∫ f·1 ≤ ((hi − lo)·∫ f²)^{1/2}`` (classical; for real ``f`` with
   ``f²`` integrable) reduces the claim to ``big ≥ 0`` and ``(hi − lo)·I ≤ big²``; ``"direct"`` to ``I ≤ big``.
   Each is proved by the engine (``check_step``), or, with ``uses``, as an instance of a cited lemma
   ``small ≤ big`` on a box (each lemma first proved by the engine; ``citation.prove_by_citation``: the substitution proved to map the
   domain into the lemma's, the glue a nonnegative multiple).

Beside the proof, the claim is attacked at random points of the box (``mpmath.quad``, 30 digits, split near
the lower end); a violation is handed to the refutation gate (Arb, ``acb.integral``), which alone refutes; a
violation the gate cannot decide (Arb does not enclose an integral with a singular end) is *undecided*.
Without a proof the verdict is at most *verified numerically* on the attacked ranges. The cover of a proof is
the domain's box (every step above holds at every point of it).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import mpmath
import sympy as sp

from ..ledger import DerivationError, Domain, Step, StepResult, Verdict, covers, free_names, region
from .budget import Spent, run_symbolic
from .identity import expand_then_simplify
from .mean_value import _hull
from .monotone import smooth
from .refute import confirm_float_point
from .sampling import _sides
from .signs import certain_nonnegative
from .verdicts import ill_posed, proved, refuted, undecided, verified
from .wellposed import check_wellposed

RULES = ("cauchy-schwarz", "direct")
#: the relative excess of 30-digit quadrature over the bound that proposes a point to the gate (quadrature is
#: a numeric rule: at a touching point the two agree to far better than this)
PROPOSE = mpmath.mpf(10) ** -15
#: falsifier trials inside each obligation (a proof is wanted there, not a search; the claim is attacked itself)
OBLIGATION_TRIALS = 2000


class NotProved(Exception):
    """One obligation of a route was not proved (the message says which and why)."""


def _zero(e: sp.Expr, opts: Mapping[str, Any], stage: str) -> bool:
    """``e`` reduces to 0 in SymPy (expand, else simplify under the claim's clock)."""
    if sp.expand(e) == 0:
        return True
    clock = opts.get("clock")
    out = run_symbolic(expand_then_simplify, e, deadline=None if clock is None else clock.deadline(0.25), stage=stage)
    return not isinstance(out, Spent) and out == 0


def _sub_opts(opts: Mapping[str, Any]) -> dict:
    """The options of an obligation: the claim's, with what is left of its clock as the obligation's budget."""
    out = {k_: v_ for k_, v_ in opts.items() if k_ != "clock"}
    out["trials"] = min(int(out.get("trials", OBLIGATION_TRIALS)), OBLIGATION_TRIALS)
    clock = opts.get("clock")
    left = clock.left() if clock is not None else None
    if left is not None:
        if left <= 0.05:
            raise NotProved("the claim's time ran out before this obligation")
        out["budget"] = clock.budget.but(claim_seconds=left)
    return out


def prove_obligation(
    name: str,
    small: Any,
    big: Any,
    domain: Domain,
    opts: Mapping[str, Any],
    uses: Sequence[Step] = (),
    given: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """Prove ``small ≤ big`` on ``domain`` (restricted to the symbols it holds): the method text, or ``NotProved``.

    With ``uses``, as an instance of one of those lemmas (each proved by the engine first); else by the engine."""
    from .citation import prove_by_citation
    from .reentry import check_step

    small, big = sp.sympify(small), sp.sympify(big)
    names = free_names(small) | free_names(big)
    if not names:
        if sp.nsimplify(big - small).is_nonnegative:
            return "exact"
        raise NotProved(f"{name}: {small} ≤ {big} not decided exactly")
    if not uses and certain_nonnegative(big - small):
        # SymPy's structural deduction: ≥ 0 for every value the symbols' assumptions allow (the domain among them)
        return "symbolic: SymPy's structural sign deduction"
    ranges = {s_: r_ for s_, r_ in domain.ranges.items() if s_ in names}
    cons = tuple(c_ for c_ in domain.constraints if free_names(c_) <= set(ranges))
    sub = Step(name, small, big, kind="inequality", relation="<=", domain=Domain(ranges, cons, name=domain.name))
    if uses:
        cited = [(u_.name, u_, check_step(u_, **_sub_opts(opts))) for u_ in uses]
        for (lname, lem, lres), sub_map in ((c_, (given or {}).get(c_[0])) for c_ in cited):
            quick = _multiple(sub, lem, lres, sub_map) if sub_map else None
            if quick is not None:
                return f"instance of {lname!r} with {sub_map}: {quick}"
        notes: list[str] = []
        res = prove_by_citation(sub, cited, _sub_opts(opts), given, notes)
        if res is None:
            raise NotProved(f"{name}: no cited lemma proves it ({'; '.join(notes)[:240]})")
    else:
        res = check_step(sub, **_sub_opts(opts))
    if res.verdict != Verdict.PROVED:
        raise NotProved(f"{name}: {res.verdict} ({str(res.method)[:160]})")
    if not covers(res.covered, sub.domain):
        raise NotProved(f"{name}: the proof covers {res.covered}, not {sub.domain.describe()}")
    return str(res.method)


def _multiple(sub: Step, lem: Step, lres: StepResult, given: Mapping[str, Any]) -> str | None:
    """``sub``'s gap as ``m ×`` the instance's gap of the proved lemma ``lem`` at ``given`` (lemma symbol name →
    expression), with ``m ≥ 0`` by SymPy's structural deduction and every substituted value's Arb enclosure over
    ``sub``'s box inside the lemma's range: the text, or None (then the citation route decides)."""
    if lres.verdict != Verdict.PROVED or not covers(lres.covered, lem.domain):
        return None
    names = {str(s_): s_ for s_ in lem.domain.ranges}
    if set(given) - set(names):
        return None
    val = {names[k_]: sp.sympify(v_) for k_, v_ in given.items()}
    for sym, v_ in val.items():
        hull = _hull(v_, sub.domain)
        lo, hi = (sp.sympify(e_) for e_ in lem.domain.range_of(sym))
        inside = hull is not None and (lo == -sp.oo or bool((hull[0] - lo).is_nonnegative))
        if not (inside and (hi == sp.oo or bool((hi - hull[1]).is_nonnegative))):  # (∞ − r).is_nonnegative is False
            return None
    inst = sp.sympify(lem.rhs - lem.lhs).xreplace(val)
    if inst.free_symbols - set(sub.domain.ranges) or inst == 0:
        return None
    m = sp.cancel(sp.sympify(sub.rhs - sub.lhs) / inst)
    if m.has(sp.log, sp.exp) or not certain_nonnegative(m) or sp.expand(sub.rhs - sub.lhs - m * inst) != 0:
        return None
    return f"gap = ({m})·gap[instance], exactly; values mapped into the lemma's box (Arb); ({m}) ≥ 0 (structural)"


def lemmas(uses: Any, where: str) -> tuple[Step, ...]:
    """The cited lemmas of a hint, as Steps: each ``(name, small, big, {symbol: (lo, hi)})``, "small ≤ big" on
    that box (data, so the run cache keys the hint by value)."""
    out = []
    for u_ in uses if isinstance(uses, (list, tuple)) else [None]:
        if not (isinstance(u_, tuple) and len(u_) == 4 and isinstance(u_[0], str) and isinstance(u_[3], Mapping)):
            raise DerivationError(f"{where} parameter uses must be a tuple of (name, small, big, ranges), got {u_!r}")
        name, small, big, ranges = u_
        out.append(Step(name, small, big, kind="inequality", relation="<=", domain=Domain(dict(ranges))))
    return tuple(out)


def _params(step: Step, params: Mapping[str, Any]) -> tuple:
    where = f"step {step.name!r}: route 'integral bound'"
    if step.kind != "inequality":
        raise DerivationError(f"{where} checks inequalities, not a {step.kind}")
    small, big, strict = _sides(step)
    if strict:
        raise DerivationError(f"{where} checks non-strict inequalities (≤ or ≥)")
    if not (isinstance(small, sp.Integral) and len(small.limits) == 1 and len(small.limits[0]) == 3):
        raise DerivationError(f"{where} needs the small side to be Integral(f, (t, lo, hi))")
    rule = params.get("rule")
    if rule not in RULES:
        raise DerivationError(f"{where} parameter rule must be one of {RULES}, got {rule!r}")
    try:
        g = sp.sympify(params["antiderivative"])
    except (KeyError, sp.SympifyError, TypeError) as exc:
        raise DerivationError(f"{where} parameter antiderivative must be a SymPy expression") from exc
    uses = lemmas(params.get("uses", ()), where)
    given = params.get("with", {})
    if not isinstance(given, Mapping):
        raise DerivationError(f"{where} parameter with must map a lemma's name to its substitution")
    points = params.get("points", 8)
    if not (isinstance(points, int) and 0 <= points <= 1000):
        raise DerivationError(f"{where} parameter points must be an integer in [0, 1000], got {points!r}")
    return small, sp.sympify(big), rule, g, uses, given, points


def _lower_value(g: sp.Expr, var: sp.Symbol, lo: sp.Expr) -> sp.Expr:
    """``G(lo)``, or ``lim_{t→lo+} G`` where ``G(lo)`` is not a finite value; ``NotProved`` if neither is."""
    at = g.subs(var, lo)
    if not at.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return at
    lim = sp.limit(g, var, lo, "+")
    if lim.has(sp.nan, sp.zoo, sp.oo, -sp.oo, sp.AccumBounds, sp.Limit) or var in lim.free_symbols:
        raise NotProved(f"G at t = {lo} is not finite and its one-sided limit is {lim}")
    return lim


def _proof(step: Step, small: sp.Integral, big: sp.Expr, rule: str, g: sp.Expr, uses, given, opts) -> str:
    """The proof's text (module docstring, 1–4), or ``NotProved``."""
    ((var, lo, hi),) = small.limits
    f = small.function
    integrand = sp.expand(f**2) if rule == "cauchy-schwarz" else f
    parts = [f"lo ≤ hi: {prove_obligation('lo ≤ hi', lo, hi, step.domain, opts)}"]
    if not _zero(sp.diff(g, var) - integrand, opts, "integral bound: G' = g"):
        raise NotProved(f"d/d{var} G − g does not reduce to 0 (G = {g}, g = {integrand})")
    head = smooth(g)
    if head is not None:
        raise NotProved(f"G contains {head}, which need not be differentiable")
    hull = _hull(sp.sympify(hi - lo), step.domain)
    if hull is None:
        raise NotProved("hi − lo is not finitely enclosed on the box")
    w = sp.Dummy("w", positive=True)
    seg = Domain({**step.domain.ranges, w: (0, hull[1])}, step.domain.constraints)
    shifted = [e_.subs(var, lo + w) for e_ in (g, integrand)]
    wp = check_wellposed(shifted, seg, f"integral bound:{step.name}", opts.get("clock"))
    if wp.status != "defined":
        raise NotProved(f"G and g not shown defined on (lo, hi] ({wp.status})")
    total = g.subs(var, hi) - _lower_value(g, var, lo)
    parts.append(f"G' = g (symbolic); ∫ g = G(hi) − G(lo⁺) = {total}")
    if rule == "cauchy-schwarz":
        parts.append(f"rhs ≥ 0: {prove_obligation('rhs ≥ 0', 0, big, step.domain, opts)}")
        # the gap expanded: what the two sides share cancels before the engine or the citation sees it
        gap = sp.expand(big**2 - (hi - lo) * total)
        how = prove_obligation("(hi − lo)·∫ f² ≤ rhs²", 0, gap, step.domain, opts, uses, given)
        parts.append(f"Cauchy–Schwarz ∫ f ≤ ((hi − lo)∫ f²)^{{1/2}}; (hi − lo)·∫ f² ≤ rhs²: {how}")
    else:
        how = prove_obligation("∫ f ≤ rhs", 0, sp.expand(big - total), step.domain, opts, uses, given)
        parts.append(f"∫ f ≤ rhs: {how}")
    return "; ".join(parts)


def _draw(rng: random.Random, lo: sp.Expr, hi: sp.Expr) -> sp.Rational:
    """A rational in [lo, hi]: log-uniform where the range is positive and spans more than a factor 100."""
    lo_f, hi_f = float(lo), float(hi)
    if lo_f > 0 and hi_f / lo_f > 100:
        v = mpmath.mpf(lo_f) * (mpmath.mpf(hi_f) / lo_f) ** rng.random()
    else:
        v = mpmath.mpf(lo_f + (hi_f - lo_f) * rng.random())
    return min(max(sp.Rational(mpmath.nstr(v, 12)), sp.sympify(lo)), sp.sympify(hi))


def _show(pt: Mapping) -> str:
    return ", ".join(f"{s_} = {v_}" for s_, v_ in pt.items())


def _attack(step: Step, small: sp.Integral, big: sp.Expr, points: int, opts) -> tuple[StepResult | None, int, float]:
    """Quadrature at random points of the box (module docstring): a refutation through the gate, the number
    of points, the worst ratio ∫/rhs."""
    ((var, lo, hi),) = small.limits
    rng = random.Random(f"{opts.get('seed', 0)}:{step.name}")
    syms = sorted(free_names(small) | free_names(big), key=str)
    worst, n_ok = 0.0, 0
    clock = opts.get("clock")
    for _ in range(points):
        if clock is not None and clock.left() is not None and clock.left() <= 0:
            break  # the claim's time is spent: the points drawn so far are the record
        pt = {s_: _draw(rng, *step.domain.range_of(s_)) for s_ in syms}
        with mpmath.workdps(30):
            a_, b_ = (mpmath.mpf(sp.N(sp.sympify(e_).xreplace(pt), 40)) for e_ in (lo, hi))
            fn = sp.lambdify(var, small.function.xreplace(pt), modules="mpmath")
            val = mpmath.quad(fn, [a_, a_ + (b_ - a_) * mpmath.mpf("1e-8"), b_])
            bound = mpmath.mpf(sp.N(big.xreplace(pt), 40))
        n_ok += 1
        if bound > 0:
            worst = max(worst, float(val / bound))
        if val - bound > PROPOSE * max(abs(bound), 1):
            cx = confirm_float_point(small, big, "<=", pt, domain=step.domain, max_bits=512)
            if cx is not None:
                return (
                    refuted(
                        step,
                        method="route integral bound: quadrature proposed, the gate (Arb, acb.integral) confirmed",
                        evidence=f"∫ = {mpmath.nstr(val, 10)} > rhs = {mpmath.nstr(bound, 10)}",
                        counterexample=cx.as_dict(),
                        trials=n_ok,
                    ),
                    n_ok,
                    worst,
                )
            # quadrature disagrees and Arb cannot enclose the integral here (a singular end): neither verdict
            return (
                undecided(
                    step,
                    method="route integral bound: quadrature exceeds the bound; the gate could not decide there",
                    evidence=f"at {_show(pt)}: ∫ ≈ {mpmath.nstr(val, 12)} > rhs ≈ {mpmath.nstr(bound, 12)} "
                    "(30-digit quadrature; Arb undecided)",
                    trials=n_ok,
                ),
                n_ok,
                worst,
            )
    return None, n_ok, worst


def prove_integral_bound(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (module docstring)."""
    small, big, rule, g, uses, given, points = _params(step, params)
    wp = check_wellposed([big], step.domain, f"integral bound:{step.name}", opts.get("clock"))
    if wp.status == "ill-posed":
        return ill_posed(step, point=wp.point, method="route integral bound: the bound is undefined at a point")
    try:
        how, ok = _proof(step, small, big, rule, g, uses, given, opts), True
    except (NotProved, NotImplementedError, ValueError, TypeError) as exc:
        how, ok = f"not proved: {exc}", False
    cx, n_ok, worst = _attack(step, small, big, points, opts)
    if cx is not None and (cx.verdict is Verdict.REFUTED or not ok):
        return cx  # a refutation through the gate; an undecided point only where nothing is proved
    method = f"route integral bound ({rule}): {how}; quadrature at {n_ok} random points (30 digits)"
    if ok and wp.status == "defined":
        return proved(
            step,
            method=method,
            evidence=f"worst ratio ∫/rhs {worst:.6g}",
            cover=region(step.domain.ranges),
            symbolic=True,
            trials=n_ok,
            worst_ratio=worst,
        )
    return verified(
        step,
        method=method,
        evidence=f"worst ratio ∫/rhs {worst:.6g}",
        trials=n_ok,
        worst_ratio=worst,
        attacked={str(s_): tuple(map(str, step.domain.range_of(s_))) for s_ in free_names(big) | free_names(small)},
    )


__all__ = ["NotProved", "prove_integral_bound", "prove_obligation"]
