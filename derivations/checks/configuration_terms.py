"""The configuration route's terms (``checks.configuration``): its vocabulary (``Norm``, ``Inner``, ``FamilyMax``),
the finite realisation of a typed claim (``realise``, ``vector_coords``) and the exact tests it makes on a step's
stated domain and scalar claim:

* ``stated_ball(domain, row, r²)``: a constraint of the domain is ``Σ_i row_i² ≤ r²`` (up to a positive factor);
* ``corner_inside(domain, row, r²)``: the stated box of ``row`` lies in the ball (its corner, exactly);
* ``cover_row``: the stated ranges of the coordinates a row reads (the box part of a cover);
* ``quadratic_form(small, big)``: ``small ≤ K √Q`` from a positive semidefinite ``K² Q − small²`` (exact minors).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy as sp

from ..ledger import Domain


class Norm(sp.Function):
    """‖v‖ (unevaluated)."""

    nargs = 1

    def _sympystr(self, printer: Any) -> str:
        return "‖" + printer._print(self.args[0]) + "‖"

    def _latex(self, printer: Any) -> str:
        return r"\left\|" + printer._print(self.args[0]) + r"\right\|"


class Inner(sp.Function):
    """⟨u, v⟩ (unevaluated)."""

    nargs = 2

    def _sympystr(self, printer: Any) -> str:
        return "⟨" + printer._print(self.args[0]) + ", " + printer._print(self.args[1]) + "⟩"

    def _latex(self, printer: Any) -> str:
        return r"\langle " + printer._print(self.args[0]) + ", " + printer._print(self.args[1]) + r"\rangle"


class FamilyMax(sp.Function):
    """max_{j=lo..hi} t_j: ``FamilyMax(t, Tuple(j, lo, hi))`` (unevaluated)."""

    nargs = 2

    def _sympystr(self, printer: Any) -> str:
        j, lo, hi = self.args[1]
        return f"max_{{{j}={printer._print(lo)}..{printer._print(hi)}}} {printer._print(self.args[0])}"


class NotProved(Exception):
    """The rules do not reduce the claim, or a side condition is not proved."""


def vector_coords(u: sp.Expr, coords: Mapping[Any, Any], d: int) -> list:
    """The d coordinates of ``u`` (linear in the vectors of ``coords``): coordinate i is u with each vector
    replaced by its i-th coordinate (linearity)."""
    u = sp.sympify(u)
    atoms = [a for a in u.atoms(sp.Indexed) if a.base in coords] + [a for a in u.atoms(sp.Symbol) if a in coords]

    def coord(v: sp.Expr, i: int) -> sp.Expr:
        if isinstance(v, sp.Indexed):
            return sp.sympify(coords[v.base][int(v.indices[0]) - 1][i])
        return sp.sympify(coords[v][i])

    return [u.xreplace({a: coord(a, i) for a in atoms}) for i in range(d)]


def realise(expr: Any, coords: Mapping[Any, Any], at: Mapping[Any, Any]) -> sp.Expr:
    """The typed ``expr`` in the finite realisation: ``at`` substituted (k), sums written out, each vector its
    coordinates (``coords``: Symbol → list, IndexedBase → list of lists, index 1..k), Norm → √(Σ_i v_i²),
    Inner → Σ_i u_i v_i, FamilyMax → Max over the family."""
    e = sp.sympify(expr).xreplace({sp.sympify(a): sp.sympify(b) for a, b in dict(at).items()})
    e = e.replace(
        lambda n: isinstance(n, FamilyMax),
        lambda n: sp.Max(
            *[n.args[0].xreplace({n.args[1][0]: i}) for i in range(int(n.args[1][1]), int(n.args[1][2]) + 1)]
        ),
    )
    e = e.replace(lambda n: isinstance(n, sp.Sum), lambda n: n.doit(deep=False) if n.limits[0][2].is_Integer else n)
    if e.has(sp.Sum):
        raise NotProved("a sum is not written out at the realisation's k (give at = {k: …})")
    dims = {len(c) for v, c in coords.items() if isinstance(v, sp.Symbol)}
    dims |= {len(c[0]) for v, c in coords.items() if isinstance(v, sp.IndexedBase)}
    if len(dims) != 1:
        raise NotProved(f"the realisation's vectors have dimensions {sorted(dims)}")
    (d,) = dims

    def node(n: sp.Expr) -> sp.Expr:
        if isinstance(n, Norm):
            return sp.sqrt(sum(c_**2 for c_ in vector_coords(n.args[0], coords, d)))
        a, b = vector_coords(n.args[0], coords, d), vector_coords(n.args[1], coords, d)
        return sum(x_ * y_ for x_, y_ in zip(a, b))

    return e.replace(lambda n: isinstance(n, (Norm, Inner)), node)


def sum_sq(row: list) -> sp.Expr:
    return sp.expand(sum(sp.sympify(c_) ** 2 for c_ in row))


def stated_ball(domain: Domain, row: list, r2: sp.Expr) -> str | None:
    """The stated constraint that puts the realised ``row`` in the ball of radius² ``r2``: one of the domain's
    constraints is ``Σ_i row_i² ≤ r2`` (or ``<``, or ``= r2``, the sphere inside the ball) up to a positive factor
    and sides; its text, or None."""
    want = sum_sq(row) - sp.sympify(r2)
    for c in domain.constraints:
        if not isinstance(c, sp.Rel) or c.rel_op not in ("<=", "<", ">=", ">", "=="):
            continue
        e = sp.expand(c.lhs - c.rhs) if c.rel_op in ("<=", "<", "==") else sp.expand(c.rhs - c.lhs)
        if e == 0:
            continue
        q = sp.cancel(e / want)
        if q.is_number and (q.is_positive or (c.rel_op == "==" and q.is_nonzero)):
            return str(c)
    return None


def cover_row(domain: Domain, row: list, what: str, scalars: Mapping, out: dict) -> str | None:
    """Every coordinate the realised ``row`` reads into ``out`` (name → its stated range), a parameter of
    ``scalars`` left out (it keeps the proof's range in the cover, not the stated box's); why not, or None."""
    from .sampling import constraint_atoms

    for a_ in constraint_atoms(sp.Add(*[sp.sympify(c_) ** 2 for c_ in row])):
        if a_ in scalars:
            continue
        key = a_.base.label if isinstance(a_, sp.Indexed) else a_
        if key not in domain.ranges:
            return f"{what} reads {a_}, which has no stated range"
        lo, hi = domain.ranges[key]
        if not (lo.is_finite and hi.is_finite):
            return f"{what} reads {a_}, whose stated range is unbounded"
        out[str(key)] = (str(lo), str(hi))
    return None


def corner_inside(domain: Domain, row: list, r2: sp.Expr) -> bool:
    """Every entry of ``row`` a stated coordinate with a finite range and the box's corner in the ball of
    radius² ``r2``: Σ_i max(lo_i², hi_i²) ≤ r2, exactly."""
    tot = sp.Integer(0)
    for c_ in row:
        c_ = sp.sympify(c_)
        key = c_.base.label if isinstance(c_, sp.Indexed) else c_
        if not isinstance(c_, (sp.Symbol, sp.Indexed)) or key not in domain.ranges:
            return False
        lo, hi = (sp.sympify(x_) for x_ in domain.ranges[key])
        if not (lo.is_finite and hi.is_finite):
            return False
        tot += sp.Max(lo**2, hi**2)
    return sp.sympify(r2 - tot).is_nonnegative is True


def quadratic_form(small: sp.Expr, big: sp.Expr) -> str | None:
    """``small ≤ K √Q`` (K > 0 a number) from ``G = K² Q − small² ≥ 0`` for every real value of its variables:
    G a homogeneous quadratic form with a positive semidefinite matrix (every principal minor ≥ 0, exact
    rationals); then small ≤ |small| = √(small²) ≤ √(K² Q). The method, or None where the shape differs."""
    from itertools import combinations

    from .signs import arb_sign

    roots = [f_ for f_ in sp.Mul.make_args(big) if f_.is_Pow and f_.exp == sp.Rational(1, 2) and not f_.is_number]
    if len(roots) != 1:
        return None
    K = sp.Mul(*[f_ for f_ in sp.Mul.make_args(big) if f_ is not roots[0]])
    if not K.is_number or arb_sign(K) != 1:
        return None
    G = sp.expand(K**2 * roots[0].base - sp.sympify(small) ** 2)
    xs = sorted(G.free_symbols, key=str)
    if not xs or G.has(sp.Indexed, Norm, Inner, sp.Sum) or not G.is_polynomial(*xs):
        return None
    poly = sp.Poly(G, *xs)
    if not poly.is_homogeneous or poly.total_degree() != 2:
        return None
    M = sp.hessian(G, xs) / 2
    if not all(x_.is_Rational for x_ in M):
        return None
    n_ = len(xs)
    for r_ in range(1, n_ + 1):
        for idx in combinations(range(n_), r_):
            if M.extract(list(idx), list(idx)).det() < 0:
                return None
    return f"K²Q − small² = {G} is a positive semidefinite quadratic form (principal minors ≥ 0, exact), K = {K}"
