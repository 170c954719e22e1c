"""The vector stage of the sums route: sums and products over ``j = a..b`` replaced by mean variables with
proved bounds (termwise, fixed-index entries split off, Jensen), the means then moved to their worst ends
(monotone elimination) or, for symmetric claims concave in each entry, to the vertices of the entry box."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ...ledger import Domain, free_names
from .classical import relate
from .scalar import Box, _enclose, _GiveUp, _is_zero, _rational, _show, _sign


@dataclass
class _Mean:
    """A relaxed variable standing for the mean (geometric mean, for a product) of a sum's terms."""

    sym: sp.Symbol
    lo: sp.Expr
    hi: sp.Expr
    vector: sp.Symbol | None  #: the one vector its summand reads (None: several)
    summand: sp.Expr  #: the summand with the entry as ``entry``
    entry: sp.Symbol | None
    key: tuple  #: (vector, lower, upper, split indices, weight): sums over the same entries share it
    jensen: bool = False
    orig: sp.Expr = sp.S.Zero  #: the summand as written (entries ``v[J]`` at the canonical index ``J``)
    limits: tuple = ()  #: (J, lower, upper)
    weight: tuple | None = None  #: a weighted mean's (weight ``w(v_J) > 0``, offset ``c₀ ≥ 0``) (None: plain)
    wrange: tuple | None = None  #: the weight's proved range (w⁻, w⁺), w⁻ > 0
    split: tuple = ()  #: the fixed-index entries split off the sum (``("∏",)`` for a geometric mean)
    hi_classical: bool = False  #: the upper end is already a classical inequality's
    tw: tuple = ()  #: the termwise range (lo, hi) before any relation: a valid, wider range for the tests


#: the one summation index every sum is written with (sums over the same range then compare by equality)
J = sp.Dummy("j", integer=True)


def _normalise(gap: sp.Expr) -> sp.Expr:
    """Every single-index sum written with the index ``J`` and its factors free of the index taken outside
    (``Σ_j C·f_j = C·Σ_j f_j``, linearity: an identity; a power of a product of positive factors split first). A normalising sum inside a summand (``Σ_j (w_j/Σ_i w_i)
    t_j``, a softmax weight) is such a factor; a summand that still holds a sum keeps its own index."""

    def fix(node: sp.Sum) -> sp.Expr:
        if len(node.limits) != 1:
            return node
        j, a, b = node.limits[0]
        # a power of a product of positive factors split over them ((a·b)^e = a^e·b^e, (e^u)^v = e^{uv}: SymPy
        # applies each only where its assumptions prove the bases positive), so constant factors can come out
        f = sp.Mul(
            *[
                sp.powdenest(sp.expand_power_base(x)) if x.is_Pow and isinstance(x.base, sp.Mul) else x
                for x in sp.Mul.make_args(node.function)
            ]
        )
        dep = [x for x in sp.Mul.make_args(f) if j in x.free_symbols]
        ind = [x for x in sp.Mul.make_args(f) if j not in x.free_symbols]
        inner = sp.Mul(*dep)
        if inner.has(sp.Sum, sp.Product) or J in inner.free_symbols:
            return sp.Mul(*ind) * sp.Sum(inner, (j, a, b))
        return sp.Mul(*ind) * sp.Sum(inner.xreplace({j: J}), (J, a, b))

    return gap.replace(lambda e: isinstance(e, sp.Sum), fix)


def _cofactor(u: sp.Expr, w: sp.Expr) -> sp.Expr | None:
    """``t`` with ``u = w·t`` exactly (``w``'s factors a sub-multiset of ``u``'s), ``t`` reading an entry."""
    uf = list(sp.Mul.make_args(u))
    for f_ in sp.Mul.make_args(w):
        if f_ not in uf:
            break
        uf.remove(f_)
    else:
        t = sp.Mul(*uf)
        return t if t.has(sp.Indexed) and t != 1 else None
    # a power of the weight (e^{2x} = e^x·e^x): the quotient as SymPy simplifies it, kept only when it is no
    # larger than the summand (u = w·t is then an identity, w > 0 being proved by the caller)
    if not (isinstance(w, sp.exp) or w.is_Pow) or u.atoms(sp.Indexed) != w.atoms(sp.Indexed):
        return None  # only a summand of the weight's own entries (e^{2x} against e^x), never another vector's
    t = sp.powsimp(u / w)
    if isinstance(t, sp.exp):
        t = sp.exp(sp.factor_terms(t.args[0]))
    if not t.has(sp.Indexed) or t == 1 or sp.count_ops(t) > sp.count_ops(u) + 3:
        return None
    return t if _is_zero(u - w * t) else None


def _entry_box(domain: Domain, names: set) -> Box:
    return {s_: domain.range_of(s_) for s_ in names if s_ in domain.ranges}


class _Abstraction:
    """Each sum or product of the gap replaced by a mean variable with proved bounds (see the module doc)."""

    def __init__(self, gap: sp.Expr, domain: Domain, notes: list[str]):
        self.domain = domain
        self.notes = notes
        self.means: list[_Mean] = []
        self.labels = {a_.base.label: a_.base for a_ in gap.atoms(sp.Indexed)}
        #: fixed-index entries (s_1) → real symbols in the vector's range
        self.fixed: dict[sp.Indexed, sp.Symbol] = {}
        for a_ in gap.atoms(sp.Indexed):
            if a_.indices and all(i_.is_Integer for i_ in a_.indices):
                lo, hi = domain.range_of(a_.base.label)
                self.fixed[a_] = sp.Dummy(f"{a_.base.label}_{'_'.join(map(str, a_.indices))}", real=True)
        self.scalar_box: Box = {
            s_: domain.range_of(s_) for s_ in free_names(gap) if s_ in domain.ranges and s_ not in self.labels
        }
        self.gap = _normalise(gap)

    def run(self) -> sp.Expr:
        nodes = sorted(self.gap.atoms(sp.Sum, sp.Product), key=sp.count_ops)
        for node in nodes:
            if node.function.has(sp.Sum, sp.Product):
                raise _GiveUp("nested sums are not reduced")
        # weighted means first: Σ_j w_j t_j = W·Σ_j w_j, W = Σ_j p_j t_j with p_j = w_j/Σ_i w_i
        sums = [n_ for n_ in nodes if isinstance(n_, sp.Sum)]
        rep: dict[sp.Expr, sp.Expr] = {}
        normalisers: set = set()
        for a_ in sums:  # simplest first: a weight sum is a normaliser, never itself a weighted numerator
            if a_ in normalisers:
                continue
            for b_ in sums:
                if a_ is b_ or a_.limits != b_.limits or b_ in rep or sp.count_ops(b_) > sp.count_ops(a_):
                    continue
                t = _cofactor(a_.function, b_.function)
                if t is None:
                    continue
                # the normaliser: Σ_i w_i itself, or c₀ + Σ_i w_i (c₀ ≥ 0: the "+1" of InfoNCE) where the gap holds it
                c0 = self._offset(b_)
                w_ = self._weighted(a_, t, b_, c0)
                if w_ is not None:
                    rep[a_] = w_ * (b_ + c0)
                    normalisers.add(b_)
                    break
        g = self.gap.xreplace(rep)
        rep = {}
        for node in sorted(g.atoms(sp.Sum, sp.Product), key=sp.count_ops):
            rep[node] = self._replace(node)
        g = g.xreplace(rep)
        left = [a_ for a_ in g.atoms(sp.Indexed) if a_ not in self.fixed]
        if left:
            raise _GiveUp(f"entry {left[0]} outside a sum with a non-integer index")
        self._jensen()
        relate(self.means, self.scalar_box, self.domain, self.notes)
        return g.xreplace(self.fixed)

    def _offset(self, wnode: sp.Sum) -> sp.Expr:
        """``c₀`` where the gap holds ``c₀ + Σ_j w_j`` (``c₀`` free of sums and entries, ``c₀ ≥ 0`` proved by Arb on the
        scalar box), else 0: the sum is then normalised by that denominator (weights ``q_j`` with ``Σ_j q_j ≤ 1``)."""
        for add in self.gap.atoms(sp.Add):
            if wnode not in add.args:
                continue
            c0 = add - wnode
            if c0 == 0 or c0.has(sp.Sum, sp.Product, sp.Indexed):
                continue
            v = _enclose(c0, self.scalar_box)
            if v is not None and v.lo >= 0:
                return c0
        return sp.Integer(0)

    def _weighted(self, node: sp.Sum, t: sp.Expr, wnode: sp.Sum, c0: sp.Expr = sp.S.Zero) -> sp.Symbol | None:
        """The weighted mean ``W = Σ_j q_j t_j`` of ``node = Σ_j w_j t_j``, ``q_j = w_j/(c₀ + Σ_i w_i)``
        (``wnode = Σ_j w_j``, ``c₀ ≥ 0``): ``Σ_j q_j = 1`` for ``c₀ = 0`` (a convex combination, ``W ∈ [min t, max t]``),
        else ``Σ_j q_j ∈ (0, 1]`` and ``W`` lies between 0 and those ends; None where ``w_j > 0`` is not proved (Arb)."""
        j, a, b = node.limits[0]
        w = wnode.function
        ents = {e_: sp.Dummy(f"{e_.base.label}_j", real=True) for e_ in (t + w).atoms(sp.Indexed)}
        if any(e_.indices != (j,) for e_ in ents):
            return None
        box = {**self.scalar_box, **{x_: self.domain.range_of(e_.base.label) for e_, x_ in ents.items()}}
        w_x, t_x = w.xreplace(ents), t.xreplace(ents)
        if j in (w_x + t_x).free_symbols or _sign(b - a, box) <= 0:
            return None  # a weighted mean needs n ≥ 1 terms
        try:
            wlo, whi, _ = self._term_range(w_x, [x_ for e_, x_ in ents.items() if e_ in w.atoms(sp.Indexed)], box)
        except _GiveUp:
            return None
        v = _enclose(wlo, box)
        if v is None or not v.lo > 0:
            return None
        t_ents = [x_ for e_, x_ in ents.items() if e_ in t.atoms(sp.Indexed)]
        lo, hi, how = self._term_range(t_x, t_ents, box)
        if c0 != 0:  # Σ_j q_j ∈ (0, 1]: a combination of the terms and 0, so the range stretches to hold 0
            if _sign(lo, box) > 0:
                lo = sp.Integer(0)
            elif _sign(hi, box) < 0:
                hi = sp.Integer(0)
            elif not (_sign(lo, box) < 0 and _sign(hi, box) > 0):
                return None
        name = f"W{len(self.means) + 1}"
        v_lo = _enclose(lo, box)
        kw = {"positive": True} if v_lo is not None and v_lo.lo > 0 else {}
        if not kw and v_lo is not None and v_lo.lo >= 0:
            kw = {"nonnegative": True}
        m = sp.Dummy(name, real=True, **kw)
        vecs = {e_.base.label for e_ in t.atoms(sp.Indexed)}
        x0 = t_ents[0] if len(t_ents) == 1 else None
        vec = next(iter(vecs)) if len(vecs) == 1 else None
        key = (vec, a, b, (), (w, c0))
        self.means.append(
            _Mean(
                m, lo, hi, vec, t_x, x0, key, orig=t, limits=(j, a, b), weight=(w, c0), wrange=(wlo, whi), tw=(lo, hi)
            )
        )
        norm = f"{_show(c0)} + Σ_i w_i" if c0 != 0 else "Σ_i w_i"
        mass = (
            "Σ_j q_j = 1: a convex combination"
            if c0 == 0
            else f"Σ_j q_j ∈ (0, 1] ({_show(c0)} ≥ 0, Arb): a combination of the terms and 0"
        )
        self.notes.append(
            f"weighted mean: Σ_{{{_show(j)}={a}}}^{{{b}}} {_show(node.function)} = {name}·({norm}), "
            f"{name} = Σ_j q_j·{_show(t)} with q_j = w_j/({norm}), w_j = {_show(w)} ∈ [{_show(wlo)}, {_show(whi)}] "
            f"> 0 (Arb), {mass}, so {name} ∈ [{_show(lo)}, {_show(hi)}] ({how})"
        )
        return m

    def _replace(self, node: sp.Expr) -> sp.Expr:
        if len(node.limits) != 1:
            raise _GiveUp(f"{node}: one summation index only")
        j, a, b = node.limits[0]
        t = node.function
        entries = {}
        for e_ in t.atoms(sp.Indexed):
            if e_ in self.fixed:  # an entry with a fixed index (s_1 in e^{s_j − s_1}): a scalar of the term
                continue
            if e_.indices != (j,):
                raise _GiveUp(f"{node}: entry {e_} is not indexed by the summation index alone")
            entries[e_] = sp.Dummy(f"{e_.base.label}_j", real=True)
        t_x = t.xreplace(entries).xreplace(self.fixed)
        if j in t_x.free_symbols:
            raise _GiveUp(f"{node}: the summand depends on the index {j} itself")
        n = b - a + 1
        box = {
            **self.scalar_box,
            **{x_: self.domain.range_of(f_.base.label) for f_, x_ in self.fixed.items()},
            **{x_: self.domain.range_of(e_.base.label) for e_, x_ in entries.items()},
        }
        if _sign(n, box) <= 0 and n != 0:
            raise _GiveUp(f"{node}: the number of terms {n} is not proved ≥ 0")
        # split off the entries the claim names by a fixed index (s_1 of a softmax numerator)
        split: list[sp.Indexed] = []
        if len(entries) == 1:
            (e0,) = entries
            for f_ in self.fixed:
                if f_.base == e0.base:
                    i_ = f_.indices[0]
                    if _sign(i_ - a, box) > 0 and _sign(b - i_, box) > 0:
                        split.append(f_)
        split.sort(key=lambda f_: int(f_.indices[0]))
        lo, hi, how = self._term_range(t_x, list(entries.values()), box)
        is_sum = isinstance(node, sp.Sum)
        name = f"{'M' if is_sum else 'G'}{len(self.means) + 1}"
        # the mean inherits the sign of the terms' lower end (proved by Arb): SymPy then simplifies
        # (G^k)^(1/k) = G and log(k·M) = log k + log M, which it may not do for a merely real symbol
        v_lo = _enclose(lo, box)
        sign_kw = {}
        if v_lo is not None and v_lo.lo > 0:
            sign_kw = {"positive": True}
        elif lo == 0 or (v_lo is not None and v_lo.lo >= 0):
            sign_kw = {"nonnegative": True}
        m = sp.Dummy(name, real=True, **sign_kw)
        x0 = next(iter(entries.values())) if len(entries) == 1 else None
        vec = next(iter(entries)).base.label if len(entries) == 1 else None
        key = (vec, a, b, tuple(split), None)
        if not is_sum and not sign_kw:
            raise _GiveUp(f"{node}: a product's terms are not proved ≥ 0")
        self.means.append(
            _Mean(
                m,
                lo,
                hi,
                vec,
                t_x,
                x0,
                key,
                orig=t,
                limits=(j, a, b),
                split=tuple(split) if is_sum else ("∏",),
                tw=(lo, hi),
            )
        )
        rest = n - len(split)
        parts = [t_x.xreplace({x0: self.fixed[f_]}) for f_ in split]
        term_txt = _show(t)
        if is_sum:
            val = sp.Add(*parts) + rest * m
            self.notes.append(
                f"termwise: each term {term_txt} ∈ [{_show(lo)}, {_show(hi)}] ({how}), so "
                f"Σ_{{{_show(j)}={a}}}^{{{b}}} {term_txt} = "
                + (" + ".join(_show(p_) for p_ in parts) + " + " if parts else "")
                + f"({_show(rest)})·{name} with the mean {name} ∈ [{_show(lo)}, {_show(hi)}]"
            )
        else:
            val = sp.Mul(*parts) * m**rest
            self.notes.append(
                f"termwise: each factor {term_txt} ∈ [{_show(lo)}, {_show(hi)}] ⊂ [0, ∞) ({how}), so "
                f"∏_{{{_show(j)}={a}}}^{{{b}}} {term_txt} = "
                + (" · ".join(_show(p_) for p_ in parts) + " · " if parts else "")
                + f"{name}^({_show(rest)}) with the geometric mean {name} ∈ [{_show(lo)}, {_show(hi)}]"
            )
        return val

    def _term_range(self, t_x: sp.Expr, xs: list[sp.Symbol], box: Box) -> tuple[sp.Expr, sp.Expr, str]:
        """The summand's range over the entry box: symbolic ends where it is monotone in every entry."""
        signs = [_sign(sp.diff(t_x, x_), box) for x_ in xs]
        if all(signs):
            lo_pt = {x_: box[x_][0] if s_ > 0 else box[x_][1] for x_, s_ in zip(xs, signs)}
            hi_pt = {x_: box[x_][1] if s_ > 0 else box[x_][0] for x_, s_ in zip(xs, signs)}
            if all(v_.is_finite for v_ in (*lo_pt.values(), *hi_pt.values())):
                words = ", ".join(
                    f"{'increasing' if s_ > 0 else 'decreasing'} in {_show(x_)}" for x_, s_ in zip(xs, signs)
                )
                return t_x.subs(lo_pt), t_x.subs(hi_pt), f"{words} by the sign of its derivative (Arb)"
        v = _enclose(t_x, box)
        if v is None or not (v.lo.is_finite() and v.hi.is_finite()):
            raise _GiveUp(f"no finite enclosure of the summand {t_x} over the entry box")
        return _rational(v.lo), _rational(v.hi), "Arb enclosure over the entry box"

    def _jensen(self) -> None:
        """(1/n)Σ f(v_j) ≥ f((1/n)Σ v_j) for f proved convex on the entry range (≤ for concave); for a product,
        the same for log t: its geometric mean G = exp((1/n)Σ log t(v_j)) ≤ t(M) when log t is concave."""
        linear = {m_.key: m_ for m_ in self.means if m_.entry is not None and m_.summand == m_.entry}
        for m_ in self.means:
            lin = linear.get(m_.key)
            if lin is None or lin is m_ or m_.entry is None:
                continue
            if m_.weight is not None and m_.weight[1] != 0:
                continue  # Jensen needs Σ_j q_j = 1 (f(Σ q v) ≤ Σ q f(v) fails for f ≡ 1 when Σ q < 1)
            box = {**self.scalar_box, m_.entry: self.domain.range_of(m_.vector)}
            box.update({x_: self.domain.range_of(f_.base.label) for f_, x_ in self.fixed.items()})
            product = m_.sym.name.startswith("G")
            if product:
                v = _enclose(m_.lo, box)
                if v is None or not v.lo > 0:
                    continue
                f = sp.log(m_.summand)
            else:
                f = m_.summand
            f2 = sp.diff(f, m_.entry, 2)
            sgn = _sign(f2, box)
            if sgn == 0:
                continue
            f_at = m_.summand.xreplace({m_.entry: lin.sym})
            if sgn > 0:
                m_.lo = f_at
            else:
                m_.hi = f_at
            m_.jensen = True
            rel = "≥" if sgn > 0 else "≤"
            what = "log t" if product else "f"
            self.notes.append(
                f"Jensen: {what}({_show(m_.entry)}) = {_show(f)} has second derivative {_show(f2)} {rel} 0 on the entry "
                f"range (Arb), so the {'geometric ' if product else ''}mean {_show(m_.sym)} {rel} "
                f"{_show(f_at)}, the term at the mean {_show(lin.sym)}"
            )


def _hull(e: sp.Expr, box: Box, lower: bool) -> sp.Expr:
    if not e.free_symbols:
        return e
    v = _enclose(e, box)
    if v is None:
        raise _GiveUp(f"no enclosure of the bound {e}")
    return _rational(v.lo if lower else v.hi)


def _eliminate(g: sp.Expr, ab: _Abstraction, notes: list[str]) -> tuple[sp.Expr, Box]:
    """Move each mean variable to the end of its range where the gap is smallest (sign of ∂/∂M by Arb);
    a mean that is not monotone stays a variable of the scalar claim (``M = lo + w(hi − lo)``, w ∈ [0, 1])."""
    box: Box = {**ab.scalar_box}
    for f_, x_ in ab.fixed.items():
        box[x_] = ab.domain.range_of(f_.base.label)
    # a mean whose end is a formula in other means (Jensen, a classical inequality) is moved before them; the
    # widest range of each mean, for the derivative tests, is enclosed after those it refers to
    syms = {m_.sym: m_ for m_ in ab.means}
    order: list = []

    def visit(m_: _Mean, path: frozenset) -> None:
        if m_ in order:
            return
        if m_.sym in path:
            raise _GiveUp("the means' bounds refer to one another in a cycle")
        for s_ in sorted((m_.lo.free_symbols | m_.hi.free_symbols) & set(syms), key=str):
            visit(syms[s_], path | {m_.sym})
        order.append(m_)  # after every mean it refers to

    for m_ in ab.means:
        visit(m_, frozenset())
    plain: Box = {}
    for m_ in order:
        full = {**box, **plain}
        ends = []
        for e_, lower, tw in ((m_.lo, True, m_.tw[:1]), (m_.hi, False, m_.tw[1:])):
            try:
                ends.append(_hull(e_, full, lower))
            except _GiveUp:  # a relation's end not enclosable (k → ∞): the termwise end, also valid
                if not tw:
                    raise
                ends.append(_hull(tw[0], full, lower))
        plain[m_.sym] = (ends[0], ends[1])
    pending = list(reversed(order))
    extra: Box = {}
    for m_ in pending:
        full = {**box, **plain, **extra}
        if m_.sym not in g.free_symbols:
            continue
        sgn = _sign(sp.diff(g, m_.sym), full)
        if sgn:
            end = m_.lo if sgn > 0 else m_.hi
            notes.append(
                f"the gap is {'increasing' if sgn > 0 else 'decreasing'} in {_show(m_.sym)} (∂/∂{_show(m_.sym)} "
                f"{'≥' if sgn > 0 else '≤'} 0 on the relaxed box, Arb): {_show(m_.sym)} = {_show(end)}"
            )
            g = g.xreplace({m_.sym: end})
        elif not (m_.lo.free_symbols or m_.hi.free_symbols):
            extra[m_.sym] = (m_.lo, m_.hi)
            notes.append(f"{_show(m_.sym)} ∈ [{_show(m_.lo)}, {_show(m_.hi)}] stays a variable of the scalar claim")
        else:
            w = sp.Dummy(f"w_{m_.sym.name}", nonnegative=True)  # w ∈ [0, 1]
            g = g.xreplace({m_.sym: m_.lo + w * (m_.hi - m_.lo)})
            extra[w] = (sp.Integer(0), sp.Integer(1))
            notes.append(f"{_show(m_.sym)} = {_show(m_.lo)} + w·({_show(m_.hi)} − {_show(m_.lo)}), w ∈ [0, 1]")
    return g, {**box, **extra}


def _corners(g: sp.Expr, ab: _Abstraction, notes: list[str]) -> tuple[sp.Expr, Box] | None:
    """Extremes at corners: every sum runs over the same entries ``v_j`` (one vector, same limits, nothing split
    off) and the gap is proved concave in each entry separately (its second partial in one entry ≤ 0 over the
    relaxed box, Arb). A function concave in each coordinate attains its minimum over a box at a vertex, and the
    gap is symmetric in the entries, so a vertex is fixed by the count ``m`` of entries at the upper end:
    ``M_i = t_i(lo) + w·(t_i(hi) − t_i(lo))`` with ``w = m/n ∈ [0, 1]`` (relaxed to a real). None: not applicable."""
    keys = {m_.key for m_ in ab.means}
    if len(keys) != 1 or ab.fixed or any(m_.entry is None for m_ in ab.means):
        return None
    (vec, a, b, split, weight) = next(iter(keys))
    if split or weight is not None or any(m_.sym.name.startswith("G") for m_ in ab.means):
        return None
    n = b - a + 1
    x = sp.Dummy(f"{vec}_j", real=True)
    lo, hi = ab.domain.range_of(vec)
    if not (lo.is_finite and hi.is_finite):
        return None
    ts = {m_.sym: m_.summand.xreplace({m_.entry: x}) for m_ in ab.means}
    # ∂M_i/∂v_j = t_i'(v_j)/n, so ∂²g/∂v_j² = Σ_i g_i t_i''/n + Σ_il g_il t_i' t_l'/n²
    d2 = sp.Add(*(sp.diff(g, m) * sp.diff(t, x, 2) / n for m, t in ts.items()))
    d2 += sp.Add(*(sp.diff(g, m, l_) * sp.diff(t, x) * sp.diff(ts[l_], x) / n**2 for m, t in ts.items() for l_ in ts))
    box: Box = {**ab.scalar_box, x: (lo, hi)}
    # M_i = (t_i(v_j) + (n − 1) R_i)/n exactly, R_i the mean of the other terms, in the termwise range: the
    # second partial is enclosed over (v_j, R_i), which keeps the tie between M_i and the entry v_j
    others = {}
    for m_ in ab.means:
        t = ts[m_.sym]
        v = _enclose(t, box)
        if v is None or not (v.lo.is_finite() and v.hi.is_finite()):
            return None
        r_ = sp.Dummy(f"R{len(others) + 1}", real=True)
        others[m_.sym] = (t + (n - 1) * r_) / n
        box[r_] = (_rational(v.lo), _rational(v.hi))
    d2 = d2.xreplace(others)
    if not (_is_zero(d2) or _sign(d2, box) < 0):
        return None
    w = sp.Dummy("w", real=True)
    at = {m: t.subs(x, lo) + w * (t.subs(x, hi) - t.subs(x, lo)) for m, t in ts.items()}
    notes.append(
        f"corners: the gap is concave in each entry {vec}_j (∂²/∂{vec}_j² = {_show(d2)} ≤ 0 for every value of the "
        "mean R of the other terms in its termwise range, Arb) "
        f"and symmetric in them, so its minimum is at a vertex: m entries at {hi}, the rest at {lo}, w = m/n ∈ [0, 1]: "
        + ", ".join(f"{_show(m)} = {_show(e)}" for m, e in at.items())
    )
    rest = {s_: r_ for s_, r_ in box.items() if s_ in ab.scalar_box}
    return g.xreplace(at), {**rest, w: (sp.Integer(0), sp.Integer(1))}
