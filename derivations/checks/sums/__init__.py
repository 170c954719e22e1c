"""Proofs of inequalities over ``j = 1..k`` for every ``k``: ``prove_sums(step, opts) -> SumsOutcome | None``.

Contract: for an inequality step whose gap ``big − small`` holds sums ``Σ_{j=a}^{b} t(v_j)``, products
``∏_{j=a}^{b} t(v_j)`` over vector entries, or an integer symbol with an unbounded range (``(1 + x)^k ≥ 1 + kx``
for every integer ``k ≥ 1``), ``prove_sums`` either *proves* the claim on the whole stated box (``proved=True``,
with the reduction written out) or says it could not (``proved=False``, never a refutation); ``None`` when none
of the above occurs (the claim is for the other routes). Every step of a reduction is itself proved:

1. **Termwise bounds.** Each summand's range over the entry box is enclosed (by the sign of its partials in
   each entry, proved with Arb, giving symbolic ends in the scalars; else by a plain Arb enclosure), so the
   mean ``M = (1/n) Σ t_j`` lies in ``[L, H]`` and ``Σ = n·M`` (``n = b − a + 1 ≥ 0``, proved); a product is
   ``G^n`` with the geometric mean ``G ∈ [L, H]`` (``L ≥ 0`` proved). An entry written with a fixed index
   (``s_1``) is split off its sum: ``Σ_{j=1}^{k} t(s_j) = t(s_1) + (k − 1)·M`` (``1 ≤ 1 ≤ k`` proved).
   Replacing the sums by these variables gives a claim that holds for the true values whenever it holds on
   the whole relaxed box: a sound relaxation (log-sum-exp's sandwich ``log k + min ≤ lse ≤ log k + max`` and
   the softmax bound are instances).
2. **Jensen.** Where ``Σ f(v_j)`` and ``Σ v_j`` run over the same entries and ``f'' ≥ 0`` is proved on the
   entry range (Arb), ``(1/n) Σ f(v_j) ≥ f((1/n) Σ v_j)``: the lower end of that mean is ``f(M_v)``
   (concave: the upper end).
   **Weighted means.** A sum ``Σ_j w_j t_j`` whose weight sum ``Σ_j w_j`` (or ``c₀ + Σ_j w_j``, ``c₀ ≥ 0``: the
   "+1" of InfoNCE) the claim also holds, ``w_j > 0`` proved, is ``W·(c₀ + Σ_j w_j)`` with ``W = Σ_j q_j t_j``
   (``q_j = w_j/(c₀ + Σ_i w_i)``), a combination of the terms (and 0 when ``c₀ > 0``); constant factors leave a
   sum first (``Σ_j C·f_j = C·Σ_j f_j``, ``linear_sums``). Jensen then holds for the weights (``c₀ = 0``).
   **Classical inequalities** (``classical.py``: power means, ℓ_p norms, Minkowski, Hölder, the largest softmax
   weight; Hardy–Littlewood–Pólya 1934) tie one mean's end to others, each used only where the claim is proved to
   be its instance (exact match of bases and exponents, side conditions by Arb), with its reference in the text.
3. **Monotone elimination.** A relaxed variable whose partial derivative has one sign over the whole box
   (Arb, on the derivative as written or brought over a common denominator) is moved to the end where the
   gap is smallest. ``k`` is relaxed to a real ``≥`` its lower end (a proof for every real ``k`` covers every
   integer); an increasing gap takes ``k`` to its lower end, a decreasing one is written in ``u = 1/k ∈ [0, 1/k₀]``
   (logarithms split over a common denominator), a bounded box.
4. **Tangent of a convex function.** ``g(x₀) = 0``, ``∂g/∂x(x₀) = 0`` (exact) and ``∂²g/∂x² ≥ 0`` on the open
   range ⇒ ``g ≥ 0`` there; the two end faces are proved separately (Bernoulli's inequality).
5. **The scalar claim** left is proved by SymPy's assumptions (each variable shifted to a nonnegative one
   from its finite end), an Arb enclosure of the whole box, or ``interval.certify_nonnegative``.
6. **Extremes at corners**, when the above fails: every sum runs over the same entries, and the gap is proved
   concave in each entry (its second partial ≤ 0 with the other terms' mean free in its range), so its minimum
   over the entry box is at a vertex, fixed by the share ``w = m/n`` of entries at the upper end (Popoviciu,
   Hoeffding's lemma for empirical means).

A claim on a few named entries and no sum (``S_{1,1}``, ``S_{1,2}``: at most 6 entries, 60 operations) is taken
as a scalar claim over the entries' ranges. ``scalar.py`` holds the scalar stage (1-line contract: prove
``g ≥ 0`` on a box; identities of powers of positive bases, common nonnegative powers factored out), ``vectors.py``
the sums, ``classical.py`` the classical relations.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ... import intervals
from ...ledger import Domain, Step, free_names, region
from ..sampling import _sides
from .scalar import Box, _GiveUp, _in_logs, _Prover
from .vectors import _Abstraction, _corners, _eliminate

__all__ = ["SumsOutcome", "linear_sums", "prove_sums"]


def linear_sums(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every single-index sum written with one canonical index and its factors free of the index taken
    outside (``Σ_j C·f_j = C·Σ_j f_j``, linearity: an identity), over one common denominator: two sides that differ
    only by a constant factor inside a sum (a softmax normaliser ``1/Σ_i w_i``, ``1/τ``) then compare equal."""
    from .vectors import _normalise

    return sp.together(_normalise(sp.sympify(expr)))


@dataclass
class SumsOutcome:
    """``proved``: the claim holds on the whole stated domain by ``reduction`` (the argument, in words);
    ``method``: the route's one-line label; ``covered``: the proved region (symbol → (lo, hi), exact strings)."""

    proved: bool
    method: str
    reduction: str
    covered: dict[str, tuple[str, str]] | None = None


#: the largest claim on named entries alone (no sum) the route takes: entries, SymPy operations
_MAX_ENTRIES, _MAX_OPS = 6, 60


def _applies(gap: sp.Expr, domain: Domain) -> bool:
    if gap.has(sp.Sum, sp.Product):
        return True
    # a small claim on a few named entries (S_{1,1}, S_{1,2}, …): each a variable over its vector's range (a large
    # configuration, vectors in R^d entry by entry, is left to the other checks: its box has too many dimensions)
    ents = gap.atoms(sp.Indexed)
    if ents and len(ents) <= _MAX_ENTRIES and sp.count_ops(gap) <= _MAX_OPS:
        if all(a_.indices and all(i_.is_Integer for i_ in a_.indices) for a_ in ents):
            return True
    for s_ in free_names(gap):
        if s_.is_integer and s_ in domain.ranges:
            lo, hi = domain.range_of(s_)
            if not (lo.is_finite and hi.is_finite):
                return True
    return False


def _relax_integers(g: sp.Expr, box: Box, notes: list[str]) -> tuple[sp.Expr, Box]:
    """Every integer symbol replaced by a real one over the same range (its integer ends): a proof for every
    real value covers every integer one."""
    rep, out = {}, {}
    for s_, (lo, hi) in box.items():
        if s_.is_integer:
            lo = sp.ceiling(lo) if lo.is_finite else lo
            hi = sp.floor(hi) if hi.is_finite else hi
            r_ = sp.Dummy(s_.name, real=True, positive=bool(lo > 0) or None)
            rep[s_] = r_
            out[r_] = (lo, hi)
            notes.append(f"{s_.name} relaxed to a real in [{lo}, {'∞' if hi == sp.oo else hi}] (covers every integer)")
        else:
            out[s_] = (lo, hi)
    return g.xreplace(rep), out


def _method(notes: list[str]) -> str:
    """The route's label: the reductions its argument used, in the order it first used them."""
    tags = {
        "termwise:": "termwise bounds",
        "weighted mean:": "weighted means",
        "power means (classical": "power means (HLP 1934)",
        "ℓ_p norms decrease": "ℓ_p norms (HLP 1934)",
        "Minkowski (classical": "Minkowski (HLP 1934)",
        "Hölder (classical": "Hölder (HLP 1934)",
        "the weight's own power": "largest softmax weight",
        "largest weight": "largest softmax weight",
        "powers of positive bases combined": "identity of powers",
        "Jensen:": "Jensen",
        "corners:": "extremes at corners",
        "relaxed to a real": "k relaxed to a real",
        "0 on the box:": "monotonicity",
        "on the relaxed box, Arb):": "monotonicity",
        "write u = 1/": "u = 1/k",
        "to a bounded range": "u = 1/k",
        "Gruntz": "limit at ∞",
        "tangent of a convex": "convex tangent",
        "branch and bound": "interval branch and bound",
    }
    text = "; ".join(notes)
    first: dict[str, int] = {}
    for key, label in tags.items():
        at = text.find(key)
        if at >= 0:
            first[label] = min(at, first.get(label, at))
    return "sum reduction (" + ", ".join(sorted(first, key=first.get)) + ")"


def prove_sums(step: Step, opts: Mapping[str, Any]) -> SumsOutcome | None:
    """Prove the inequality ``step`` for every ``k`` by a shown reduction (module doc); ``None`` when the step
    has no sum, product or unbounded integer symbol. Never refutes: ``proved=False`` says only "not proved".

    ``opts``: ``box_budget`` (boxes for the final branch and bound, default 1500), ``max_dims`` (default 4;
    raised by the reduction's own variables), ``sums_seconds`` (time limit, default 2.5).
    """
    if step.kind != "inequality":
        return None
    step = step.unwrapped()
    small, big, strict = _sides(step)
    gap = sp.sympify(big - small)
    if not _applies(gap, step.domain):
        return None
    return _prove(step, gap, strict, opts)


def _relaxed_defined(g: sp.Expr, box: Mapping) -> bool:
    """Every power of ``g`` whose exponent holds a variable (an integer k relaxed to a real) has a base proved > 0
    on the box (SymPy, or an Arb enclosure taken without clipping): such a power is then defined for every real
    exponent, as the relaxed claim needs. (``(1 + x)^k`` with ``1 + x`` reaching below 0 is not.)"""
    with intervals.assume_defined(False):
        for p_ in g.atoms(sp.Pow):
            if not p_.exp.free_symbols or p_.base.is_positive:
                continue
            try:
                v = intervals.interval_eval(p_.base, {s_: box[s_] for s_ in p_.base.free_symbols if s_ in box})
            except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, KeyError):
                return False
            if not v.lo > 0:
                return False
    return True


def _on_relaxed(g: sp.Expr, box: Mapping, fn: Any) -> bool:
    """``fn()`` for the relaxed claim ``g`` on ``box``. The stated claim's definedness was proved on its domain
    (``check_step`` then lets enclosures clip what lies outside a function's domain: ``intervals.assume_defined``),
    but the relaxed claim is another expression: an integer k relaxed to a real makes ``(1 + x)^k`` undefined for
    ``1 + x < 0`` (and its k-derivative holds ``log(1 + x)``), and the monotonicity and tangent arguments need it
    defined along whole segments. So clipping stays on only where the relaxed claim is itself proved defined on
    the relaxed box; elsewhere a box that may be undefined is never certified."""
    if _relaxed_defined(g, box):
        return fn()
    with intervals.assume_defined(False):
        return fn()


def _prove(step: Step, gap: sp.Expr, strict: bool, opts: Mapping[str, Any]) -> SumsOutcome:
    notes: list[str] = []
    method = "sum reduction"
    t0 = time.perf_counter()
    prover = _Prover(
        strict=strict,
        budget=int(opts.get("box_budget", 1500)),
        max_dims=int(opts.get("max_dims", 4)) + 2,
        deadline=t0 + float(opts.get("sums_seconds", 2.5)),
        notes=notes,
    )
    try:
        if gap.has(sp.Sum, sp.Product, sp.Indexed):
            ab = _Abstraction(gap, step.domain, notes)
            g0 = ab.run()
            g, box = _eliminate(g0, ab, notes)
        else:
            ab = None
            g = gap
            box = {s_: step.domain.range_of(s_) for s_ in free_names(gap)}
        g, box = _relax_integers(g, box, notes)
        # a power to a variable exponent against an exponential ((1 + x/k)^k ≤ e^x, G^k ≤ e^{kM}): in logarithms
        # first, where the exponent becomes a factor; it is decided quickly (or not applicable)
        powers = any(p_.exp.free_symbols for p_ in g.atoms(sp.Pow)) and g.has(sp.exp)
        ok = _on_relaxed(g, box, lambda: (powers and _in_logs(g, box, prover)) or prover.prove(g, box))
        if not ok and ab is not None and prover._time_left():
            # the means moved independently lost how they are tied to one another: try the vertices instead
            tried = list(notes)
            mark = sum(1 for n_ in notes if n_.startswith("termwise"))
            del notes[mark:]
            reduced = _corners(g0, ab, notes)
            if reduced is not None:
                g, box = _relax_integers(*reduced, notes)
                ok = _on_relaxed(g, box, lambda: prover.prove(g, box))
            if not ok:
                notes[:] = tried
        if not ok and prover._time_left():
            ok = _on_relaxed(g, box, lambda: _in_logs(g, box, prover))
    except _GiveUp as exc:
        return SumsOutcome(False, method, f"not reduced: {exc}")
    reduction = "; ".join(notes)
    if not ok:
        return SumsOutcome(False, method, "not proved after: " + reduction)
    return SumsOutcome(
        True,
        f"{_method(notes)}: proved for every value in the stated ranges",
        reduction,
        covered=region(step.domain.ranges),
    )
