"""Route "rademacher affine": the empirical Rademacher complexity of an affine image of a class,
``R̂(s·F + c) = s·R̂(F)`` for a scale ``s ≥ 0`` and a shift ``c`` that is a constant.

Claim shape: an identity ``image = rhs`` where ``image`` is a symbol standing for ``R̂(G)``,
``G = {z ↦ map(f(z)) : f ∈ F}``, and ``rhs`` is an expression of the symbol ``complexity`` = ``R̂(F)`` and of
the claim's constants; ``R̂(F) = E_σ sup_{f∈F} (1/n) Σ_i σ_i f(z_i)``, σ_i independent signs (±1 w.p. 1/2).

    Step(..., route=("rademacher affine", {"complexity": Rad_F, "value": v, "map": (v − a)/(b − a)}))
    # optional "per_point": symbols that vary with the sample point z_i; "points": classes enumerated

The route proves, and proves only when all hold (each a symbolic reduction or an engine proof):

1. *affine*: ``map`` is a polynomial of degree ≤ 1 in the value symbol ``v``: ``map = s·v + c`` with
   ``s = ∂map/∂v`` and ``c = map(0)``, neither holding ``v`` nor a ``per_point`` symbol (a shift that changes
   with the point, or with the function's value, is not a constant);
2. *the shift averages out*: ``E σ_i c = (c − c)/2 = 0`` (exact), so ``E_σ (1/n) Σ_i σ_i c = 0``;
3. *homogeneity*: ``s ≥ 0`` on the domain (the engine), so ``sup_f Σ_i σ_i s f(z_i) = s sup_f Σ_i σ_i f(z_i)``;
   then ``R̂(G) = E_σ [s·sup_f (1/n) Σ_i σ_i f(z_i) + (1/n) Σ_i σ_i c] = s R̂(F)`` (linearity of E);
4. ``rhs − s·complexity`` reduces to 0 in SymPy (the claim is that identity).

Beside the proof, the claim is attacked by exact rational enumeration of the 2^n sign vectors on random finite
classes (n ≤ 6 points, ≤ 5 functions, values in [−9, 9], the claim's constants rational points of the domain):
a class where ``R̂(G)`` differs from ``rhs`` at the exact ``R̂(F)`` proposes the point (constants, ``R̂(F)``,
``R̂(G)``) to the refutation gate, which alone refutes (the point must lie in the stated domain).
Without a proof, and no such class, the verdict is *verified numerically*. The cover of a proof is the
domain's box.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from fractions import Fraction
from itertools import product
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Step, StepResult, region
from .integral_bound import NotProved, prove_obligation
from .refute import confirm
from .verdicts import proved, refuted, verified


def rad(values: list[list[Fraction]]) -> Fraction:
    """E_σ sup_f (1/n) Σ_i σ_i f(z_i), exactly, for a finite class given as rows of values (one row per f).

    In integers: every value times the common denominator D, then the sum over the 2^n sign vectors of the row
    maxima over D·n·2^n (Python integers: no size limits)."""
    n_ = len(values[0])
    den = math.lcm(*(v_.denominator for row in values for v_ in row))
    ints = [[v_.numerator * (den // v_.denominator) for v_ in row] for row in values]
    tot = 0
    for sig in product((-1, 1), repeat=n_):
        tot += max(sum(si * fi for si, fi in zip(sig, row)) for row in ints)
    return Fraction(tot, den * n_ * 2**n_)


def _params(step: Step, params: Mapping[str, Any]) -> tuple:
    where = f"step {step.name!r}: route 'rademacher affine'"
    if step.kind != "identity":
        raise DerivationError(f"{where} checks identities R̂(G) = …, not a {step.kind}")
    comp, v = params.get("complexity"), params.get("value")
    if not isinstance(comp, sp.Symbol) or not isinstance(v, sp.Symbol):
        raise DerivationError(f"{where} parameters complexity and value must be SymPy symbols")
    if not isinstance(step.lhs, sp.Symbol) or step.lhs in (comp, v):
        raise DerivationError(f"{where} needs lhs to be the image's complexity symbol (not {comp} or {v})")
    try:
        mp = sp.sympify(params["map"])
    except (KeyError, sp.SympifyError, TypeError) as exc:
        raise DerivationError(f"{where} parameter map must be a SymPy expression in {v}") from exc
    per_point = tuple(params.get("per_point", ()))
    if not all(isinstance(s_, sp.Symbol) for s_ in per_point):
        raise DerivationError(f"{where} parameter per_point must be a tuple of SymPy symbols")
    points = params.get("points", 60)
    if not (isinstance(points, int) and 0 <= points <= 2000):
        raise DerivationError(f"{where} parameter points must be an integer in [0, 2000], got {points!r}")
    return comp, v, mp, per_point, points


def _proof(step: Step, comp: sp.Symbol, v: sp.Symbol, mp: sp.Expr, per_point: tuple, opts) -> str:
    """The proof's text (module docstring, 1–4), or ``NotProved``."""
    if not mp.is_polynomial(v) or sp.degree(sp.expand(mp), v) > 1:
        raise NotProved(f"the map {mp} is not affine in {v}")
    s, c = sp.diff(mp, v), mp.subs(v, 0)
    moving = (s.free_symbols | c.free_symbols) & ({v} | set(per_point))
    if moving:
        raise NotProved(f"scale {s} or shift {c} changes with {sorted(map(str, moving))}: not a constant")
    if sp.expand(sum(sig * c for sig in (1, -1)) / 2) != 0:  # E σ_i c over σ_i = ±1, each w.p. 1/2
        raise NotProved("E σ c does not reduce to 0")
    sign = prove_obligation("scale ≥ 0", 0, s, step.domain, opts)
    if sp.expand(mp - (s * v + c)) != 0 or sp.simplify(step.rhs - s * comp) != 0:
        raise NotProved(f"rhs − s·{comp} does not reduce to 0 (s = {s})")
    return (
        f"map = s·{v} + c with s = {s}, c = {c} constants; E σ_i c = 0 (exact); s ≥ 0: {sign}; "
        f"sup positively homogeneous and E linear: R̂ = s·{comp} = rhs (symbolic)"
    )


def _rational(rng: random.Random, lo: Any, hi: Any) -> Fraction:
    """A rational of [lo, hi] (an infinite end read as ∓1000), on a grid of 1000 steps, the ends included."""
    lo, hi = sp.sympify(lo), sp.sympify(hi)
    lo_q = Fraction(str(sp.Rational(lo))) if lo.is_finite else Fraction(-1000)
    hi_q = Fraction(str(sp.Rational(hi))) if hi.is_finite else Fraction(1000)
    return lo_q + (hi_q - lo_q) * Fraction(rng.randint(0, 1000), 1000)


def _attack(step: Step, comp: sp.Symbol, v: sp.Symbol, mp: sp.Expr, points: int, opts) -> StepResult | None:
    """Exact enumeration on random finite classes (module docstring): a refutation, or None."""
    rng = random.Random(f"{opts.get('seed', 0)}:{step.name}")
    names = (step.rhs.free_symbols | mp.free_symbols) - {step.lhs, comp, v}
    consts = sorted((s_ for s_ in step.domain.ranges if s_ in names), key=str)
    for t_ in range(points):
        at = {s_: _rational(rng, *step.domain.range_of(s_)) for s_ in consts}
        n_, m_ = rng.randint(1, 6), rng.randint(1, 5)
        rows = [[Fraction(rng.randint(-9, 9), rng.randint(1, 9)) for _ in range(n_)] for _ in range(m_)]
        sub = {s_: sp.Rational(f_.numerator, f_.denominator) for s_, f_ in at.items()}
        g_map = mp.xreplace(sub)
        try:
            g_rows = [[g_map.xreplace({v: sp.Rational(x_.numerator, x_.denominator)}) for x_ in r_] for r_ in rows]
            if not all(x_.is_Rational for r_ in g_rows for x_ in r_):
                continue  # the map is not rational at this point: no exact evidence here
            got = rad([[Fraction(int(x_.p), int(x_.q)) for x_ in r_] for r_ in g_rows])
            rad_f = rad(rows)
            want = sp.nsimplify(step.rhs.xreplace({**sub, comp: sp.Rational(rad_f.numerator, rad_f.denominator)}))
        except (TypeError, ValueError, ZeroDivisionError):
            continue  # the map is not rational at this point: no exact evidence here
        if not want.is_Rational:
            continue
        if sp.Rational(got.numerator, got.denominator) == want:
            continue
        # the exact point (the constants, R̂(F) and R̂(G) of this class) through the gate, as every refutation
        point = {
            **sub,
            comp: sp.Rational(rad_f.numerator, rad_f.denominator),
            step.lhs: sp.Rational(got.numerator, got.denominator),
        }
        cx = confirm(step.lhs, step.rhs, "=", point, domain=step.domain, max_bits=256)
        if cx is not None:
            return refuted(
                step,
                method=f"route rademacher affine: exact enumeration of 2^n sign vectors ({t_ + 1} classes); the gate",
                evidence=f"class {[[str(x_) for x_ in r_] for r_ in rows]} on n = {n_} points: R̂(G) = {got}, "
                f"claimed {want}",
                trials=t_ + 1,
                counterexample=cx.as_dict(),
            )
    return None


def prove_rademacher_affine(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The route's verdict on ``step`` with hint ``params`` (module docstring)."""
    comp, v, mp, per_point, points = _params(step, params)
    try:
        how, ok = _proof(step, comp, v, mp, per_point, opts), True
    except NotProved as exc:
        how, ok = f"not proved: {exc}", False
    cx = _attack(step, comp, v, mp, points, opts)
    if cx is not None:
        return cx
    method = f"route rademacher affine: {how}; exact enumeration on {points} random finite classes (n ≤ 6)"
    if ok:
        return proved(step, method=method, cover=region(step.domain.ranges), symbolic=True, trials=points)
    return verified(
        step,
        method=method,
        trials=points,
        attacked={"n": ("1", "6"), "functions": ("1", "5"), "values": ("-9", "9")},
    )


__all__ = ["prove_rademacher_affine", "rad"]
