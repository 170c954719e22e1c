"""Classical inequalities between the means of the sums route, each used only where its instance is checked.

Contract: ``relate(means, scalar_box, domain, notes)`` takes the mean variables the vector stage made (plain means
``M = (1/n) Σ_j t(v_j)`` and weighted means ``W = Σ_j q_j t(v_j)``, ``q_j = w_j / (c₀ + Σ_i w_i)`` with ``w_j > 0``
and ``c₀ ≥ 0`` proved, so ``q_j > 0`` and ``Σ_j q_j ≤ 1``, ``= 1`` for ``c₀ = 0``) and tightens their ranges by the classical inequalities below, each end then a formula in another mean.
A relation is added only when the claim is proved to be an instance of it: the two summands are the same base
``b(v_j)`` to the exponents ``p`` and ``q`` (exact SymPy equality of the base after ``|x|^{2m} = x^{2m}``), the
sums run over the same index range with the same weights, and the side conditions are proved with Arb on the
stated box (``b ≥ 0``, ``p > 0``, ``q − p ≥ 0``, ``n ≥ 1``, ``w_j > 0``). Nothing is assumed; a relation that
cannot be checked is simply not added (the route then proves less, never more).

* **Power means** (classical, Hardy–Littlewood–Pólya 1934, Thm 16): for ``b_j ≥ 0``, ``0 < p ≤ q`` and weights
  ``q_j ≥ 0`` with ``Σ q_j = 1``: ``(Σ q_j b_j^p)^{1/p} ≤ (Σ q_j b_j^q)^{1/q}``, so ``M_q ≥ M_p^{q/p}``
  (Jensen for the convex ``s ↦ s^{q/p}`` on ``s ≥ 0``); for ``Σ q_j = m ≤ 1`` the same bound holds, as
  ``(Σ q_j b_j^p)^{q/p} ≤ m^{q/p − 1} Σ q_j b_j^q ≤ Σ q_j b_j^q``.
* **ℓ_p norms decrease in p** (classical, Hardy–Littlewood–Pólya 1934, Thm 19): ``(Σ_j b_j^q)^{1/q} ≤
  (Σ_j b_j^p)^{1/p}`` for ``0 < p ≤ q``, ``b_j ≥ 0``, so ``M_q ≤ n^{q/p − 1} M_p^{q/p}`` (plain means only).
* **Minkowski** (classical, Hardy–Littlewood–Pólya 1934, Thm 24): ``(Σ_j p_j (Σ_r b_{rj})^p)^{1/p} ≤
  Σ_r (Σ_j p_j b_{rj}^p)^{1/p}`` for ``p ≥ 1``, ``b_{rj} ≥ 0``.
* **A power of the weight itself**: ``Σ_j q_j w_j^s = D^s Σ_j q_j^{1+s} ≤ (D·max_j q_j)^s`` for ``s ≥ 0``
  (``D = c₀ + Σ_i w_i``, ``Σ_j q_j ≤ 1``), ``max_j q_j`` bounded as below.
* **Hölder** (classical, Hardy–Littlewood–Pólya 1934, Thm 11): ``Σ_j w_j b_j ≤ (Σ_j w_j^r)^{1/r} (Σ_j b_j^q)^{1/q}``
  for ``w_j > 0``, ``b_j ≥ 0``, ``r > 1``, ``1/r + 1/q = 1`` (exact), the weights' power sum read from a weighted
  mean of ``w^{r−1}``.
* **Largest softmax weight** (with Jensen as above): ``q_j = w_j / (c₀ + Σ_i w_i) ≤ w⁺/(c₀ + w⁺ + (n − 1) w⁻)``
  for ``w_j ∈ [w⁻, w⁺]``, ``w⁻ > 0`` (``w/(c + w)`` increases in ``w`` and decreases in ``c``, the other ``n − 1``
  weights at their least), so for ``b ≥ 0``, ``0 < p ≤ q``: ``Σ_j q_j b_j^p ≤ (Σ_j q_j b_j^q)^{p/q} ≤
  (c · (1/n) Σ_j b_j^q)^{p/q}``, ``c = n·max_j q_j ≤ n w⁺/(c₀ + w⁺ + (n − 1) w⁻)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from .scalar import Box, _enclose, _show, _sign

HLP = "Hardy–Littlewood–Pólya 1934"


def _power(t: sp.Expr) -> tuple[sp.Expr, sp.Expr, bool] | None:
    """``t = b^e`` as (b, e, |b| taken): ``|x|^e`` and ``x^{2m}`` read as powers of ``|x|``; ``x`` as ``x^1``."""
    if isinstance(t, sp.Abs):
        return t.args[0], sp.Integer(1), True
    if t.is_Pow and t.base is not sp.E:
        b, e = t.base, t.exp
        if isinstance(b, sp.Abs):
            return b.args[0], e, True
        if e.is_Integer and e.is_even:
            return b, e, True
        return b, e, False
    if t.has(sp.Indexed):
        return t, sp.Integer(1), False
    return None


def _entry_box(m: Any, domain: Any, scalar_box: Box) -> Box:
    """The box of the mean's summand: the scalars and every entry the summand reads, over its vector's range."""
    box = dict(scalar_box)
    for e_ in m.orig.atoms(sp.Indexed):
        box[e_] = domain.range_of(e_.base.label)
    return box


def _nonneg(base: sp.Expr, absolute: bool, m: Any, domain: Any, scalar_box: Box) -> bool:
    """``b ≥ 0`` for every entry in its range (``|x|`` always; else one Arb enclosure over the entry box)."""
    if absolute:
        return True
    sym = {e_: sp.Dummy(str(e_.base.label), real=True) for e_ in base.atoms(sp.Indexed)}
    box = {sym.get(s_, s_): r_ for s_, r_ in _entry_box(m, domain, scalar_box).items()}
    v = _enclose(base.xreplace(sym), box)
    return v is not None and v.lo >= 0


def _pos(e: sp.Expr, box: Box) -> bool:
    """``e > 0`` on the box (SymPy, or one Arb enclosure whose lower end is > 0)."""
    if e.is_positive:
        return True
    v = _enclose(e, box)
    return v is not None and v.lo > 0


def _weight_power(t: sp.Expr, w: sp.Expr) -> sp.Expr | None:
    """``s`` with ``t = w^s`` exactly (``e^{su} = (e^u)^s``, ``w^s``), ``s`` free of the entries; else None."""
    if isinstance(t, sp.exp) and isinstance(w, sp.exp):
        s_ = sp.cancel(t.args[0] / w.args[0])
    elif t.is_Pow and t.base == w:
        s_ = t.exp
    elif t == w:
        s_ = sp.Integer(1)
    else:
        return None
    return None if s_.has(sp.Indexed) else s_


def _refs(e: sp.Expr, syms: set) -> set:
    return e.free_symbols & syms


def _reaches(a: Any, b: Any, by_sym: Mapping) -> bool:
    """The ends of mean ``a`` refer (directly or through other means) to mean ``b``."""
    seen, todo = set(), [a]
    while todo:
        m = todo.pop()
        if m is b:
            return True
        if m.sym in seen:
            continue
        seen.add(m.sym)
        for s_ in _refs(m.lo, set(by_sym)) | _refs(m.hi, set(by_sym)):
            todo.append(by_sym[s_])
    return False


def relate(means: list, scalar_box: Box, domain: Any, notes: list[str]) -> None:
    """Tighten the means' ranges by the module's classical inequalities, each instance checked (module doc):
    power means and ℓ_p norms, Minkowski, the weight's own power, Hölder, the largest softmax weight, in this
    order (a later one sees the ranges an earlier one set)."""
    cx = _Means(means, scalar_box, domain, notes)
    _power_means(cx)
    _minkowski(cx)
    _weight_power_bound(cx)
    _holder(cx)
    _largest_weight(cx)


class _Means:
    """What every inequality of ``relate`` reads: the means, the box (a dict copy of ``scalar_box``) and the
    domain, each mean's (base, exponent, |·|) reading (``pw``, None where it is no power), the means grouped by
    their sums' limits and weight (``same``), and the notes to append to."""

    def __init__(self, means: list, scalar_box: Box, domain: Any, notes: list[str]) -> None:
        self.means, self.scalar_box, self.domain, self.notes = means, scalar_box, domain, notes
        self.by_sym = {m.sym: m for m in means}
        self.box = dict(scalar_box)
        self.pw = {m.sym: _power(m.orig) for m in means}
        self.same: dict[Any, list] = {}
        for m in means:
            self.same.setdefault((m.limits, m.weight), []).append(m)

    def acyclic(self, m: Any, *others: Any) -> bool:
        """No other mean is ``m`` or reaches it through the ranges set so far (a bound must not be circular)."""
        return not any(o is m or _reaches(o, m, self.by_sym) for o in others)


def _power_means(cx: _Means) -> None:
    """Power means (Thm 16) and ℓ_p norms decreasing in p (Thm 19): two means of one base to the exponents
    p ≤ q over the same sums."""
    box, pw, same, acyclic = cx.box, cx.pw, cx.same, cx.acyclic
    domain, scalar_box, notes = cx.domain, cx.scalar_box, cx.notes
    # power means and ℓ_p norms: two means of one base to the exponents p ≤ q
    for group in same.values():
        for m1 in group:
            for m2 in group:
                if m1 is m2 or m2.jensen or pw[m1.sym] is None or pw[m2.sym] is None or m1.split or m2.split:
                    continue
                (b1, p, a1), (b2, q, a2) = pw[m1.sym], pw[m2.sym]
                if b1 != b2 or not acyclic(m2, m1):
                    continue
                if sp.cancel(q - p) == 0 or not _pos(p, box) or _sign(q - p, box) <= 0:
                    continue
                if not (_nonneg(b1, a1, m1, domain, scalar_box) and _nonneg(b1, a2, m2, domain, scalar_box)):
                    continue
                r = q / p
                m2.lo = m1.sym**r
                m2.jensen = True
                base = f"|{_show(b1)}|" if (a1 or a2) else _show(b1)
                notes.append(
                    f"power means (classical, {HLP}, Thm 16; Jensen for the convex s ↦ s^({_show(r)}) on s ≥ 0): "
                    f"{base} ≥ 0 and 0 < {_show(p)} ≤ {_show(q)} on the box (Arb), so the mean of {base}^{_show(q)}, "
                    f"{_show(m2.sym)} ≥ {_show(m2.lo)}"
                )
                n = m1.limits[2] - m1.limits[1] + 1
                if m1.weight is None and _sign(n - 1, box) > 0:
                    m2.hi = n ** (r - 1) * m1.sym**r
                    notes.append(
                        f"ℓ_p norms decrease in p (classical, {HLP}, Thm 19): (Σ {base}^{_show(q)})^(1/{_show(q)}) ≤ "
                        f"(Σ {base}^{_show(p)})^(1/{_show(p)}), so {_show(m2.sym)} ≤ {_show(m2.hi)}"
                    )


def _minkowski(cx: _Means) -> None:
    """Minkowski (Thm 24): the mean of (Σ_r b_r)^p against the means of each b_r^p, p ≥ 1."""
    box, pw, same, acyclic = cx.box, cx.pw, cx.same, cx.acyclic
    domain, scalar_box, notes = cx.domain, cx.scalar_box, cx.notes
    # Minkowski: the mean of (Σ_r b_r)^p against the means of each b_r^p
    for group in same.values():
        for m in group:
            info = pw[m.sym]
            if info is None or m.split or m.hi_classical:
                continue
            b, p, ab_ = info
            if not isinstance(b, sp.Add) or _sign(p - 1, box) <= 0 or not _nonneg(b, ab_, m, domain, scalar_box):
                continue
            parts = []
            for term in b.args:
                hit = next(
                    (
                        o
                        for o in group
                        if o is not m
                        and pw[o.sym] is not None
                        and pw[o.sym][0] == term
                        and sp.cancel(pw[o.sym][1] - p) == 0
                        and not o.split
                    ),
                    None,
                )
                if hit is None or not _nonneg(term, pw[hit.sym][2], hit, domain, scalar_box):
                    parts = None
                    break
                parts.append(hit)
            if not parts or not acyclic(m, *parts):
                continue
            m.hi = sp.Add(*[o.sym ** (1 / p) for o in parts]) ** p
            m.hi_classical = True
            notes.append(
                f"Minkowski (classical, {HLP}, Thm 24): p = {_show(p)} ≥ 1 on the box (Arb) and every term of "
                f"{_show(b)} ≥ 0, so the mean {_show(m.sym)} of ({_show(b)})^{_show(p)} ≤ {_show(m.hi)}"
            )


def _weight_power_bound(cx: _Means) -> None:
    """A weighted mean of a power of the weight itself: Σ_j q_j w_j^s ≤ (D·max_j q_j)^s."""
    means, box, acyclic, notes = cx.means, cx.box, cx.acyclic, cx.notes
    # a weighted mean of a power of the weight itself (Σ_j q_j w_j^s = D^s Σ_j q_j^{1+s}, D = c₀ + Σ_i w_i)
    for m in means:
        if m.weight is None or m.hi_classical or m.wrange is None:
            continue
        w, c0 = m.weight
        s_ = _weight_power(m.orig, w)
        if s_ is None or _sign(s_, box) <= 0:
            continue
        n = m.limits[2] - m.limits[1] + 1
        o = next((o for o in means if o.weight is None and o.limits == m.limits and not o.split and o.orig == w), None)
        if o is None or _sign(n - 1, box) <= 0 or not acyclic(m, o):
            continue
        wlo, whi = m.wrange
        qmax = whi / (c0 + whi + (n - 1) * wlo)
        m.hi = ((c0 + n * o.sym) * qmax) ** s_
        m.hi_classical = True
        notes.append(
            f"the weight's own power: {_show(m.orig)} = w_j^({_show(s_)}), w_j = {_show(w)} ∈ [{_show(wlo)}, {_show(whi)}] "
            f"and s = {_show(s_)} ≥ 0 (Arb), so with D = {_show(c0)} + Σ_i w_i = {_show(c0 + n * o.sym)}: Σ_j q_j w_j^s = "
            f"D^s Σ_j q_j^(1+s) ≤ D^s (max_j q_j)^s Σ_j q_j ≤ (D·max_j q_j)^s, max_j q_j ≤ w⁺/({_show(c0)} + w⁺ + "
            f"(n − 1)w⁻) (the others at their least), so {_show(m.sym)} ≤ {_show(m.hi)}"
        )


def _holder(cx: _Means) -> None:
    """Hölder (Thm 11) with the weights as one factor: Σ_j w_j b_j ≤ (Σ_j w_j^r)^{1/r} (Σ_j b_j^q)^{1/q}."""
    means, box, pw, acyclic, domain, scalar_box, notes = (
        cx.means,
        cx.box,
        cx.pw,
        cx.acyclic,
        cx.domain,
        cx.scalar_box,
        cx.notes,
    )
    # Hölder with the weights as one factor: Σ_j w_j b_j ≤ (Σ_j w_j^r)^{1/r} (Σ_j b_j^q)^{1/q}, 1/r + 1/q = 1
    for m in means:
        if m.weight is None or m.hi_classical or m.weight[1] != 0 or pw[m.sym] is None:
            continue
        b, one, a1 = pw[m.sym]
        w = m.weight[0]
        if one != 1:
            continue
        lim = m.limits
        n = lim[2] - lim[1] + 1
        norm = next((o for o in means if o.weight is None and o.limits == lim and not o.split and o.orig == w), None)
        if norm is None or _sign(n - 1, box) <= 0:
            continue
        for ow in means:
            if ow is m or ow.weight != m.weight or ow.split:
                continue
            s_ = _weight_power(ow.orig, w)
            if s_ is None or not _pos(s_, box):
                continue
            r = s_ + 1  # Σ_j w_j^r = (Σ_j q_j w_j^{r−1})·Σ_i w_i
            oh = next(
                (
                    o
                    for o in means
                    if o.weight is None
                    and o.limits == lim
                    and not o.split
                    and pw[o.sym] is not None
                    and pw[o.sym][0] == b
                    and sp.cancel(1 / r + 1 / pw[o.sym][1] - 1) == 0
                ),
                None,
            )
            # Σ_j w_j b_j ≤ Σ_j w_j |b_j|: a signed b is bounded too, but the q-th powers must be of |b| (or b ≥ 0)
            if oh is None or not _nonneg(b, pw[oh.sym][2], oh, domain, scalar_box) or not acyclic(m, ow, norm, oh):
                continue
            q = pw[oh.sym][1]
            bt = f"|{_show(b)}|" if (a1 or pw[oh.sym][2]) else _show(b)
            m.hi = ow.sym ** (1 / r) * (n * norm.sym) ** (1 / r - 1) * (n * oh.sym) ** (1 / q)
            m.hi_classical = True
            notes.append(
                f"Hölder (classical, {HLP}, Thm 11): r = {_show(r)} > 1 and q = {_show(q)} with 1/r + 1/q = 1 (exact), "
                f"w_j = {_show(w)} > 0, {bt} ≥ 0: Σ_j w_j·{bt} ≤ (Σ_j w_j^r)^(1/r) (Σ_j {bt}^q)^(1/q), "
                f"with Σ_j w_j^r = {_show(ow.sym)}·Σ_i w_i and Σ_i w_i = {_show(n * norm.sym)}, so {_show(m.sym)} ≤ "
                f"{_show(m.hi)}"
            )
            break


def _largest_weight(cx: _Means) -> None:
    """The largest softmax weight with power means: a weighted mean of b^p against the plain mean of b^q (p ≤ q)."""
    means, box, pw, acyclic = cx.means, cx.box, cx.pw, cx.acyclic
    domain, scalar_box, notes = cx.domain, cx.scalar_box, cx.notes
    # the largest softmax weight: a weighted mean of b^p against the plain mean of b^q (p ≤ q)
    for m in means:
        if m.weight is None or m.hi_classical or pw[m.sym] is None or m.wrange is None:
            continue
        b, p, a1 = pw[m.sym]
        wlo, whi = m.wrange
        w, c0 = m.weight
        lim = m.limits
        n = lim[2] - lim[1] + 1
        for o in means:
            if o.weight is not None or o.limits != lim or o.split or pw[o.sym] is None:
                continue
            b2, q, a2 = pw[o.sym]
            if b2 != b or not _pos(p, box) or _sign(q - p, box) <= 0 or not acyclic(m, o):
                continue
            if _sign(n - 1, box) <= 0 or not (
                _nonneg(b, a1, m, domain, scalar_box) and _nonneg(b, a2, o, domain, scalar_box)
            ):
                continue
            c = sp.cancel(n / (sp.powsimp(sp.expand((c0 + whi) / whi)) + (n - 1) * sp.powsimp(wlo / whi)))
            m.hi = (c * o.sym) ** (p / q)
            m.hi_classical = True
            notes.append(
                f"largest weight (q_j = w_j/({_show(c0)} + Σ_i w_i) ≤ w⁺/({_show(c0)} + w⁺ + (n − 1)w⁻), "
                f"w_j = {_show(w)} ∈ "
                f"[{_show(wlo)}, {_show(whi)}]) with power means (classical, {HLP}, Thm 16; 0 < {_show(p)} ≤ {_show(q)} "
                f"on the box, Arb; Σ_j q_j ≤ 1): Σ_j q_j b_j^{_show(p)} ≤ (Σ_j q_j b_j^{_show(q)})^({_show(p / q)}) ≤ "
                f"(c·{_show(o.sym)})^({_show(p / q)}), c = n·max q_j = {_show(c)}, so {_show(m.sym)} ≤ {_show(m.hi)}"
            )
            break
