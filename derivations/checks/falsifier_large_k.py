"""The falsifier's large-k attack on vector claims: ``group_claim`` rewrites every ``Sum(f(x[j]), (j, 1, k))``
as ``Σ_g m_g f(x[g])`` over ``GROUPS`` groups of equal coordinates (exact for such vectors, at any k), so
``large_k_attack`` can attack the claim at k up to ``K_MAX`` = 10⁹ with a handful of numbers.
"""

from __future__ import annotations

import math

import sympy as sp

from ..ledger import Step, free_names
from .falsifier_batch import _py
from .refute import confirm_float_point
from .sampling import Evaluator, Sampler, fast_lambdify

GROUPS = 3  #: groups of equal coordinates in the large-k attack


K_MAX = 10**9  #: the largest k the grouped attack draws


class _NotGroupable(ValueError):
    pass


def group_claim(exprs: list[sp.Expr], kk: sp.Symbol) -> tuple[list[sp.Expr], list[sp.Symbol]]:
    """``exprs`` with every ``Sum(f(x[j]), (j, 1, k))`` written as ``Σ_g m_g f(x[g])`` over ``GROUPS``
    groups of equal coordinates (multiplicities ``m_g``, ``Σ m_g = k``), products as ``Π f(x[g])^{m_g}``.

    Exact for vectors whose coordinates take at most ``GROUPS`` distinct values, at any k: the claim
    can then be attacked at k = 10⁹ with a handful of numbers. Raises ``_NotGroupable`` when a summand
    depends on its index other than through the entries ``x[j]`` (a weight ``2^{−j}``, say) or a
    limit is not ``(j, 1, k)``.
    """
    ms = [sp.Symbol(f"_m{g}", nonnegative=True) for g in range(1, GROUPS + 1)]

    def walk(e: sp.Expr) -> sp.Expr:
        if isinstance(e, (sp.Sum, sp.Product)):
            if len(e.limits) != 1:
                raise _NotGroupable("several limits")
            idx, lo, hi = e.limits[0]
            if not (lo == 1 and hi == kk):
                raise _NotGroupable(f"limits ({idx}, {lo}, {hi})")
            body = walk(e.function)
            own = [a for a in body.atoms(sp.Indexed) if a.indices == (idx,)]
            if idx in body.xreplace({a: sp.Dummy() for a in own}).free_symbols:
                raise _NotGroupable(f"the summand depends on {idx} itself")
            parts = [body.xreplace({idx: sp.Integer(g)}) for g in range(1, GROUPS + 1)]
            if isinstance(e, sp.Sum):
                return sp.Add(*[m * p_ for m, p_ in zip(ms, parts)])
            return sp.Mul(*[p_**m for m, p_ in zip(ms, parts)])
        if not e.args:
            return e
        return e.func(*[walk(a) for a in e.args])

    out = [walk(sp.sympify(e)) for e in exprs]
    for e in out:
        for a in e.atoms(sp.Indexed):
            if not (a.indices[0].is_Integer and 1 <= int(a.indices[0]) <= GROUPS):
                raise _NotGroupable(f"entry {a} outside the groups")
    return out, ms


def grouped_k_range(step: Step, kk: sp.Symbol, k_cap: int) -> tuple[int, int] | None:
    """The k a grouped large-k check draws: beyond the coordinate-by-coordinate points (> ``k_cap``), inside
    the stated range of ``kk``, at most ``K_MAX``; None where that is empty."""
    lo_k, hi_k = step.domain.range_of(kk)
    # plain ints: math.floor of a SymPy Integer is a SymPy Integer, and numpy then builds object arrays
    k_lo = max(int(k_cap) + 1, int(sp.ceiling(lo_k)) if lo_k.is_finite else 1)
    k_hi = K_MAX if hi_k == sp.oo else min(K_MAX, int(sp.floor(hi_k)))
    return None if k_hi < k_lo else (k_lo, k_hi)


def large_k_attack(step: Step, small, big, strict, sampler: Sampler, ev: Evaluator, budget: int, rng, dps: int):
    """Random attack at k ∈ (k_cap, min(k_max, 10⁹)] with ``GROUPS`` groups of equal coordinates.

    Returns ``None`` when the claim is not groupable, else a dict with trials, worst ratio and point,
    counterexample (the refutation gate's, at the exact grouped point: k, multiplicities m1 … m3 summing
    to k, the groups' entries) and the k range attacked.
    """
    import numpy as np

    if len(ev.structural) != 1 or budget <= 0:
        return None
    (kk,) = ev.structural
    ks = grouped_k_range(step, kk, sampler.k_cap)
    if ks is None:
        return None
    k_lo, k_hi = ks
    try:
        (gs, gb), ms = group_claim([small, big], kk)
    except _NotGroupable:
        return None
    atoms = sorted(gs.atoms(sp.Indexed) | gb.atoms(sp.Indexed), key=str)
    scalars = [s_ for s_ in ev.scalars if s_ != kk]
    args = [kk, *ms, *scalars, *atoms]
    try:
        fn = fast_lambdify(args, [gs, gb], "numpy")
    except Exception:  # noqa: BLE001
        return None
    gen = np.random.default_rng(rng.getrandbits(64))
    cons = []
    for c in step.domain.constraints:
        if free_names(c) <= set(ev.scalars):
            syms = sorted(free_names(c), key=str)
            cons.append((syms, sp.lambdify(syms, c, modules="numpy")))
    n = int(budget)
    kv = np.unique(np.rint(np.exp(gen.uniform(math.log(k_lo), math.log(k_hi + 0.5), n))).astype(np.int64))
    kv = np.clip(gen.choice(np.concatenate([kv, [k_lo, k_hi]]), n), k_lo, k_hi)
    # multiplicities: Dirichlet splits, and the extremes (one odd coordinate out of k, half and half)
    w = gen.dirichlet(np.ones(GROUPS), n)
    mult = np.floor(w * kv[:, None]).astype(np.int64)
    mult[:, 0] += kv - mult.sum(axis=1)
    kind = gen.integers(0, 4, n)
    odd = kind == 1
    mult[odd] = np.stack([kv[odd] - 1, np.ones(odd.sum(), np.int64), np.zeros(odd.sum(), np.int64)], axis=1)
    half = kind == 2
    mult[half] = np.stack([kv[half] - kv[half] // 2, kv[half] // 2, np.zeros(half.sum(), np.int64)], axis=1)
    cols = {kk: kv}
    for s_ in scalars:
        cols[s_] = sampler.array(s_, n, gen, 0.3)
    for a in atoms:
        cols[a] = sampler.array(a.base.label, n, gen, 0.3)
    ok = np.ones(n, dtype=bool)
    for syms, cf in cons:
        with np.errstate(all="ignore"):
            ok &= np.broadcast_to(np.asarray(cf(*[cols[s_] for s_ in syms]), dtype=bool), (n,))
    vals = [kv.astype(float), *[mult[:, g].astype(float) for g in range(GROUPS)]]
    vals += [np.asarray(cols[s_], dtype=float) for s_ in scalars] + [np.asarray(cols[a], dtype=float) for a in atoms]
    with np.errstate(all="ignore"):
        sv, bv = (np.broadcast_to(np.asarray(o, dtype=float), (n,)) for o in fn(*vals))
        finite = ok & np.isfinite(sv) & np.isfinite(bv)
        margin = bv - sv
        ratio = np.where(finite & (bv > 0), sv / np.where(bv > 0, bv, 1.0), -np.inf)

    def point(i: int) -> dict:
        pt = {str(kk): int(kv[i]), **{f"m{g + 1}": int(mult[i, g]) for g in range(GROUPS)}}
        pt.update({str(s_): _py(cols[s_][i]) for s_ in scalars})
        pt.update({str(a): float(cols[a][i]) for a in atoms})
        return pt

    # the gate decides at the exact grouped point (multiplicities named m1, m2, …, as printed)
    lhs_g, rhs_g = (gs, gb) if step.relation in ("<=", "<") else (gb, gs)
    names = {str(s_) for s_ in gs.free_symbols | gb.free_symbols}
    ren = {
        m: sp.Symbol(f"m{g + 1}" if f"m{g + 1}" not in names else f"_m{g + 1}", integer=True, nonnegative=True)
        for g, m in enumerate(ms)
    }
    lhs_g, rhs_g = lhs_g.xreplace(ren), rhs_g.xreplace(ren)
    cx, noise = None, 0
    viol = np.flatnonzero(finite & ((margin < 0) | (strict & (margin <= 0))))
    for i in viol[:50]:  # every float violation is only a proposal to the gate
        pt = {kk: int(kv[i]), **{ren[m]: int(mult[i, g]) for g, m in enumerate(ms)}}
        pt.update({s_: _py(cols[s_][i]) for s_ in scalars})
        pt.update({a: float(cols[a][i]) for a in atoms})
        got = confirm_float_point(lhs_g, rhs_g, step.relation, pt, domain=step.domain, closed_forms=strict)
        if got is not None:
            cx = got.as_dict()
            break
        noise += 1
    noise += max(0, viol.size - 50) if cx is None else 0
    j = int(np.argmax(ratio)) if n else 0
    worst = float(ratio[j]) if n and np.isfinite(ratio[j]) else None
    return {
        "trials": n,
        "worst": worst,
        "worst_pt": point(j) if worst is not None else None,
        "cx": cx,
        "noise": noise,
        "k_range": (k_lo, k_hi),
    }
