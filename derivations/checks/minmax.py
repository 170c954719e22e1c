"""Route "lattice": ``small ≤ big`` (``<``), or an identity ``lhs = rhs`` as the two inequalities, whose sides hold
``Min``, ``Max`` and ``Abs``, proved through their lattice normal forms, case by case.

Claim shape: each side is built from ``Min``/``Max``/``Abs`` nodes and the operations below over *leaves* (pieces
with no ``Min``/``Max``/``Abs``); the domain is a box without constraints. Each side ``e`` is rewritten *exactly*
into the two normal forms of a distributive lattice,

    e = max_i min_j a_ij   (DNF)    and    e = min_k max_l b_kl   (CNF),

by these equalities, each used only where its condition is certified on the box (Arb enclosure of the leaves, or
SymPy's structural sign deduction ``signs.certain_nonnegative``):

* ``Max``/``Min`` of lattices: concatenation / distribution (``min(max A, max B) = max_{a,b} min(a, b)``);
  ``|a| = max(a, −a)``;
* a sum: ``max_i x_i + max_k y_k = max_{i,k} (x_i + y_k)``, and the same for min (``+`` is increasing in each term);
* a product by a factor ``c`` of one sign on the box (``c ≥ 0`` keeps the order, ``c ≤ 0`` reverses it:
  ``−max = min(−·)``); a product of two lattices whose leaves are all ≥ 0 on the box (``x·y`` increases in each
  argument there);
* ``f(lattice)`` for ``f`` increasing where its argument lies — ``exp``; ``log`` (leaves > 0); ``xᵖ`` with ``p`` an
  odd integer, or ``p > 0`` and leaves ≥ 0 — or decreasing — ``xᵖ`` with ``p < 0`` and leaves > 0 —: an increasing
  ``f`` commutes with min and max, a decreasing one swaps them.

Then ``small ≤ big`` holds on the box when, for every min-clause ``i`` of ``small``'s DNF and every max-clause ``k``
of ``big``'s CNF, there are ``j``, ``l`` with ``a_ij ≤ b_kl`` on the whole box: ``min_j a_ij ≤ a_ij ≤ b_kl ≤
max_l b_kl``. Each leaf inequality is proved with no min or max in it: ``b − a`` reduced to 0 exactly (expand,
cancel), SymPy's structural sign of ``b − a`` (constants by Arb), certified interval branch and bound
(``interval.certify_nonnegative``), or the touching route (``touching.prove_touching``: Taylor with Lagrange
remainder at exact zeros). A strict claim needs every leaf strict (no zero reduction, no touching).

Case split. Where no uniform pair exists, the box is cut along one variable at the exact zeros of the differences
``u − v`` of two arguments of one ``Min``/``Max`` node (or of ``a`` in ``|a|``) that depend on that variable alone
(``touching.find_zeros_1d``: a zero is kept only when it reduces to 0 symbolically): on each piece that node's
active argument is fixed, and the pieces are closed intervals whose union is the range, so the cases cover the
domain. The argument above then runs on every piece (one level of cuts).

Never refutes: ``None`` when the claim has no ``Min``/``Max``/``Abs`` or a node sits where no rule applies;
``proved=False`` only says this route found no proof. Cover: the domain's box.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from .. import intervals
from ..ledger import DerivationError, Domain, Step, StepResult, free_names, region
from .interval import certify_nonnegative
from .signs import certain_nonnegative
from .touching import RouteOutcome, const_sign, find_zeros_1d, prove_touching

#: the most leaves a normal form may hold (distribution multiplies clause counts)
MAX_LEAVES = 64
#: branch-and-bound boxes per leaf inequality (many leaf pairs may be tried), and the first brief try
LEAF_BUDGET = 300
BRIEF_BOXES = 40
#: sample points of the float pre-filter that skips leaf pairs clearly false somewhere (a filter, never a proof)
SAMPLES = 24

NODES = (sp.Min, sp.Max, sp.Abs)


class Unsupported(Exception):
    """A ``Min``/``Max``/``Abs`` node sits where no exact rule of the module docstring applies on the box."""


@dataclass(frozen=True)
class Lattice:
    """``value = max_i min_j dnf[i][j] = min_k max_l cnf[k][l]`` on the box."""

    dnf: tuple[tuple[sp.Expr, ...], ...]
    cnf: tuple[tuple[sp.Expr, ...], ...]

    @staticmethod
    def leaf(e: sp.Expr) -> Lattice:
        return Lattice(((e,),), ((e,),))

    def leaves(self) -> set[sp.Expr]:
        return {x_ for cl in self.dnf for x_ in cl} | {x_ for cl in self.cnf for x_ in cl}

    def map(self, f: Any, increasing: bool) -> Lattice:
        """``f(value)`` for ``f`` monotone on the leaves' values: increasing keeps the forms, decreasing swaps them."""
        d = tuple(tuple(f(x_) for x_ in cl) for cl in self.dnf)
        c = tuple(tuple(f(x_) for x_ in cl) for cl in self.cnf)
        return Lattice(d, c) if increasing else Lattice(c, d)


def _size(forms: tuple) -> int:
    return sum(len(cl) for cl in forms)


def _check_size(lat: Lattice) -> Lattice:
    if _size(lat.dnf) > MAX_LEAVES or _size(lat.cnf) > MAX_LEAVES:
        raise Unsupported(f"normal form above {MAX_LEAVES} leaves")
    return lat


def _join(parts: list[Lattice]) -> Lattice:
    """``max`` of the parts: DNF clauses concatenate, CNF clauses distribute."""
    dnf = tuple(cl for p in parts for cl in p.dnf)
    cnf = tuple(tuple(x_ for cl in combo for x_ in cl) for combo in itertools.product(*(p.cnf for p in parts)))
    return _check_size(Lattice(dnf, cnf))


def _meet(parts: list[Lattice]) -> Lattice:
    """``min`` of the parts (dual of ``_join``)."""
    cnf = tuple(cl for p in parts for cl in p.cnf)
    dnf = tuple(tuple(x_ for cl in combo for x_ in cl) for combo in itertools.product(*(p.dnf for p in parts)))
    return _check_size(Lattice(dnf, cnf))


def _combine(a: Lattice, b: Lattice, op: Any) -> Lattice:
    """``op(a, b)`` for ``op`` increasing in each argument: clause by clause, leaf by leaf."""

    def forms(fa: tuple, fb: tuple) -> tuple:
        return tuple(tuple(op(x_, y_) for x_ in ca for y_ in cb) for ca in fa for cb in fb)

    return _check_size(Lattice(forms(a.dnf, b.dnf), forms(a.cnf, b.cnf)))


class _Box:
    """Signs of expressions on the box ``ranges``, certified by Arb or SymPy's structural deduction."""

    def __init__(self, ranges: Mapping[sp.Symbol, tuple[Any, Any]]):
        self.ranges = dict(ranges)
        self._iv = {s_: intervals.to_iv(*r_) for s_, r_ in self.ranges.items()}

    def sign(self, e: sp.Expr, strict: bool = False) -> int:
        """``+1`` when ``e ≥ 0`` (``> 0``) on the box is certified, ``−1`` when ``e ≤ 0`` (``< 0``), else 0."""
        e = sp.sympify(e)
        if certain_nonnegative(e, strict):
            return 1
        if certain_nonnegative(-e, strict):
            return -1
        if not free_names(e) <= set(self.ranges):
            return 0
        try:
            v = intervals.interval_eval(e, {s_: self._iv[s_] for s_ in free_names(e)})
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, OverflowError):
            return 0
        if (v.lo > 0) if strict else (v.lo >= 0):
            return 1
        if (v.hi < 0) if strict else (v.hi <= 0):
            return -1
        return 0

    def all_sign(self, lat: Lattice, strict: bool = False) -> int:
        signs = {self.sign(x_, strict) for x_ in lat.leaves()}
        return signs.pop() if len(signs) == 1 else 0


def normal_form(e: Any, box: _Box) -> Lattice:
    """The lattice normal forms of ``e`` on the box (module docstring); ``Unsupported`` where no rule applies."""
    e = sp.sympify(e)
    if not e.has(*NODES):
        return Lattice.leaf(e)
    if isinstance(e, sp.Max):
        return _join([normal_form(a_, box) for a_ in e.args])
    if isinstance(e, sp.Min):
        return _meet([normal_form(a_, box) for a_ in e.args])
    if isinstance(e, sp.Abs):
        inner = normal_form(e.args[0], box)
        return _join([inner, inner.map(lambda x_: -x_, increasing=False)])
    if isinstance(e, sp.Add):
        parts = [normal_form(a_, box) for a_ in e.args]
        out = parts[0]
        for p in parts[1:]:
            out = _combine(out, p, lambda x_, y_: x_ + y_)
        return out
    if isinstance(e, sp.Mul):
        plain = sp.Mul(*[f for f in e.args if not f.has(*NODES)])
        lats = [normal_form(f, box) for f in e.args if f.has(*NODES)]
        out = lats[0]
        for p in lats[1:]:
            sa, sb = box.all_sign(out), box.all_sign(p)
            if sa == sb == 1:
                out = _combine(out, p, lambda x_, y_: x_ * y_)
            elif sa == sb == -1:  # (−a)(−b) with −a, −b ≥ 0
                neg = lambda x_: -x_  # noqa: E731
                out = _combine(out.map(neg, False), p.map(neg, False), lambda x_, y_: x_ * y_)
            else:
                raise Unsupported(f"a product of min/max factors not all of one sign: {e}")
        if plain == 1:
            return out
        s = box.sign(plain)
        if s == 0:
            raise Unsupported(f"the factor {plain} has no certified sign on the box")
        return out.map(lambda x_: plain * x_, increasing=s > 0)
    if isinstance(e, sp.Pow) and not e.exp.has(*NODES) and e.exp.is_number:
        p = sp.sympify(e.exp)
        inner = normal_form(e.base, box)
        if p.is_integer and p.is_odd and p > 0:
            return inner.map(lambda x_: x_**p, increasing=True)
        if p > 0 and box.all_sign(inner) == 1:
            return inner.map(lambda x_: x_**p, increasing=True)
        if p < 0 and box.all_sign(inner, strict=True) == 1:
            return inner.map(lambda x_: x_**p, increasing=False)
        raise Unsupported(f"a power of a min/max with no certified monotonicity: {e}")
    if isinstance(e, sp.exp):
        return normal_form(e.args[0], box).map(sp.exp, increasing=True)
    if isinstance(e, sp.log):
        inner = normal_form(e.args[0], box)
        if box.all_sign(inner, strict=True) == 1:
            return inner.map(sp.log, increasing=True)
    raise Unsupported(f"no exact rule for {type(e).__name__} over a min/max: {e}")


# ---------------------------------------------------------------- leaf inequalities


def _cheap_zero(d: sp.Expr) -> bool:
    """``d`` reduces to 0 by exact rewrites (expand, one fraction, combined powers): a symbolic identity."""
    for rw in (sp.expand, lambda e: sp.cancel(sp.together(e)), lambda e: sp.expand(sp.powsimp(sp.expand(e)))):
        try:
            if rw(d) == 0:
                return True
        except Exception:  # noqa: BLE001 - a rewrite failing inside SymPy proves nothing
            pass
    return False


def _float_ok(d: sp.Expr, ranges: Mapping[sp.Symbol, tuple[Any, Any]], strict: bool) -> bool:
    """A pre-filter (never a proof): ``d ≥ 0`` at the box's corners, centre and a fixed grid of points."""
    syms = sorted(free_names(d), key=str)
    if not syms:
        return True
    if not set(syms) <= set(ranges):
        return False
    try:
        f = sp.lambdify(syms, d, modules="mpmath")
    except Exception:  # noqa: BLE001 - an expression mpmath cannot evaluate: leave it to the exact provers
        return True
    fracs = [mpmath.mpf(i) / 7 for i in range(8)]
    pts = itertools.islice(itertools.product(fracs, repeat=len(syms)), 8 ** min(len(syms), 2) + SAMPLES)
    with mpmath.workdps(30):
        for fr in pts:
            try:
                args = []
                for s_, q in zip(syms, fr, strict=True):
                    lo, hi = (mpmath.mpf(float(v)) for v in ranges[s_])
                    if not (mpmath.isfinite(lo) and mpmath.isfinite(hi)):
                        return True
                    args.append(lo + (hi - lo) * q)
                v = f(*args)
                if isinstance(v, mpmath.mpc):
                    continue
                if v < -(mpmath.mpf(10) ** -20) * (1 + abs(v)):
                    return False
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                continue
    return True


def leaf_leq(a: sp.Expr, b: sp.Expr, ranges: Mapping, strict: bool, opts: Mapping[str, Any]) -> str | None:
    """How ``a ≤ b`` (``<``) is proved on the box ``ranges`` (a short reason), or None."""
    d = sp.sympify(b) - sp.sympify(a)
    if not strict and _cheap_zero(d):
        return "equal"
    if not _float_ok(d, ranges, strict):
        return None
    if certain_nonnegative(d, strict):
        return "SymPy sign"
    names = free_names(d)
    if not names:
        return None
    if not names <= set(ranges):
        return None
    dom = Domain({s_: ranges[s_] for s_ in names})
    budget = min(int(opts.get("box_budget", 1500)), LEAF_BUDGET)

    def boxes(n: int) -> str | None:
        try:
            iv = certify_nonnegative(d, dom, strict=strict, budget=n, max_dims=int(opts.get("max_dims", 4)))
        except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError):
            return None
        return f"Arb on {iv.boxes} boxes" if iv.status == "proved" else None

    # a few boxes first (most leaves are settled at once); a leaf touching 0 at a point goes to Taylor
    # before a long subdivision that cannot close in on the zero
    how = boxes(BRIEF_BOXES)
    if how is None and not strict:
        out = prove_touching(d, dom, False, {**opts, "touching_budget": budget})
        if out is not None and out.proved:
            return "touching (Taylor at exact zeros, Arb)"
    return how or boxes(budget)


def _uniform(small: Lattice, big: Lattice, ranges: Mapping, strict: bool, opts: Mapping) -> list[str] | None:
    """For every DNF clause of ``small`` and CNF clause of ``big`` a leaf pair proved on the box, or None."""
    told: list[str] = []
    # every clause pair needs a leaf pair that the float filter lets through: when one has none, no exact
    # work is spent on the others (the case split is tried at once)
    plausible = {
        (i, k): [(a_, b_) for a_, b_ in itertools.product(si, bk) if _float_ok(b_ - a_, ranges, strict)]
        for i, si in enumerate(small.dnf)
        for k, bk in enumerate(big.cnf)
    }
    if not all(plausible.values()):
        return None
    for i, _si in enumerate(small.dnf):
        for k, _bk in enumerate(big.cnf):
            found = None
            for a_, b_ in plausible[(i, k)]:
                how = leaf_leq(a_, b_, ranges, strict, opts)
                if how is not None:
                    found = f"{sp.sstr(a_)} ≤ {sp.sstr(b_)} ({how})"
                    break
            if found is None:
                return None
            told.append(found)
    return told


def _poly_zeros(d: sp.Expr, s_: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> list[sp.Expr] | None:
    """The real roots in ``[lo, hi]`` of ``d`` when it is a polynomial in ``s_`` with rational coefficients (SymPy's
    exact algebraic numbers, placed against the ends by Arb or exactly); None when it is not one."""
    try:
        poly = sp.Poly(d, s_)
    except sp.PolynomialError:
        return None
    if poly.degree() < 1 or not all(c_.is_Rational for c_ in poly.all_coeffs()):
        return None
    return [r for r in sp.real_roots(poly) if const_sign(r - lo) in (0, 1) and const_sign(hi - r) in (0, 1)]


def _cuts(exprs: list[sp.Expr], ranges: Mapping) -> dict[sp.Symbol, list[sp.Expr]]:
    """Exact zeros, inside each one-variable range, of the differences of two arguments of one node: polynomial
    differences first (exact roots); only when they give no cut, the others by ``touching.find_zeros_1d`` (a float
    search, each zero kept only when it reduces to 0 symbolically)."""
    todo: list[tuple[sp.Expr, sp.Symbol, sp.Expr, sp.Expr]] = []
    for e in exprs:
        for node in sp.preorder_traversal(sp.sympify(e)):
            if not isinstance(node, NODES):
                continue
            diffs = (
                [node.args[0]] if isinstance(node, sp.Abs) else [u - v for u, v in itertools.combinations(node.args, 2)]
            )
            for d in diffs:
                names = free_names(d)
                if len(names) != 1 or d.has(*NODES):
                    continue
                (s_,) = names
                if s_ not in ranges:
                    continue
                lo, hi = (sp.sympify(v) for v in ranges[s_])
                if lo.is_finite and hi.is_finite:
                    todo.append((d, s_, lo, hi))
    out: dict[sp.Symbol, list[sp.Expr]] = {}

    def add(s_: sp.Symbol, zs: list[sp.Expr], lo: sp.Expr, hi: sp.Expr) -> None:
        for z in zs:
            if z != lo and z != hi and z not in out.setdefault(s_, []):
                out[s_].append(z)

    rest = []
    for d, s_, lo, hi in todo:
        zs = _poly_zeros(d, s_, lo, hi)
        if zs is None:
            rest.append((d, s_, lo, hi))
        else:
            add(s_, zs, lo, hi)
    if not any(out.values()):
        for d, s_, lo, hi in rest:
            add(s_, find_zeros_1d(d, s_, lo, hi), lo, hi)
    return {s_: zs for s_, zs in out.items() if zs}


def prove_lattice(
    small: Any, big: Any, domain: Domain, strict: bool, opts: Mapping[str, Any] | None = None
) -> RouteOutcome | None:
    """Prove ``small ≤ big`` (``<`` if strict) on the domain's box (module docstring); None when not applicable."""
    if not isinstance(domain, Domain):
        raise TypeError(f"prove_lattice: domain must be a Domain, got {type(domain).__name__}")
    opts = dict(opts or {})
    small, big = sp.sympify(small), sp.sympify(big)
    if not (small.has(*NODES) or big.has(*NODES)) or small.atoms(sp.Indexed) or big.atoms(sp.Indexed):
        return None
    if domain.constraints:
        # the leaves are proved on the whole box, where a side may be undefined outside the constraints (and the
        # engine's enclosures clip there once definedness is established on the constrained domain only)
        return None
    if small.has(sp.Sum, sp.Product, sp.Integral) or big.has(sp.Sum, sp.Product, sp.Integral):
        return None
    names = free_names(small) | free_names(big)
    if not names <= set(domain.ranges):
        return None
    ranges = {s_: domain.range_of(s_) for s_ in names}
    whole = region(ranges)

    def attempt(rng: Mapping) -> list[str] | None:
        box = _Box(rng)
        try:
            with intervals.iv_prec(80):
                return _uniform(normal_form(small, box), normal_form(big, box), rng, strict, opts)
        except Unsupported:
            return None

    try:
        with intervals.iv_prec(80):
            box = _Box(ranges)
            normal_form(small, box), normal_form(big, box)
    except Unsupported as exc:
        return RouteOutcome(False, "lattice: no proof", f"not of the route's shape: {exc}", None)
    told = attempt(ranges)
    if told is not None:
        return RouteOutcome(
            True,
            "lattice: lattice normal forms, one leaf inequality per clause pair on the whole box",
            "; ".join(told),
            whole,
        )
    for s_, zs in _cuts([small, big], ranges).items():
        lo, hi = ranges[s_]
        pts = [lo, *sorted(zs, key=lambda z: float(sp.N(z, 30))), hi]
        pieces: list[str] = []
        for p_lo, p_hi in zip(pts, pts[1:], strict=False):
            got = attempt({**ranges, s_: (p_lo, p_hi)})
            if got is None:
                break
            pieces.append(f"{s_} ∈ [{p_lo}, {p_hi}]: " + "; ".join(got))
        else:
            return RouteOutcome(
                True,
                f"lattice: case split at {s_} = {', '.join(map(str, pts[1:-1]))} (exact zeros of a node's argument "
                "differences; the pieces tile the range), lattice normal forms on each",
                " | ".join(pieces),
                whole,
            )
    return RouteOutcome(False, "lattice: no proof", "no leaf pair proved for some clause pair", None)


# ---------------------------------------------------------------- the hinted route (identities too)


def prove_minmax(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The hinted route ``("lattice", {})``: an identity as ``lhs ≤ rhs`` and ``rhs ≤ lhs``, an inequality as
    itself, by ``prove_lattice``; the claim's own checker (spot checks or falsifier, the refutation gate) runs
    first and decides whenever it proves or refutes, and definedness is established (``wellposed``) before a proof
    is claimed."""
    from .identity import check_identity
    from .inequality import check_inequality
    from .sampling import _sides
    from .verdicts import proved
    from .wellposed import check_wellposed

    if params:
        raise DerivationError(f"step {step.name!r}: route 'lattice' takes no parameters, got {sorted(params)}")
    if step.kind not in ("identity", "inequality"):
        raise DerivationError(
            f"step {step.name!r}: route 'lattice' proves identities and inequalities, not {step.kind}"
        )
    base = check_identity(step, opts) if step.kind == "identity" else check_inequality(step, opts)
    if base.verdict.value in ("proved", "refuted", "ill-posed"):
        return base
    wp = check_wellposed([step.lhs, step.rhs], step.domain, f"lattice:{step.name}", opts.get("clock"))
    if wp.status != "defined":
        return base
    if step.kind == "identity":
        pairs = [(step.lhs, step.rhs, False), (step.rhs, step.lhs, False)]
    else:
        small, big, strict = _sides(step)
        pairs = [(small, big, strict)]
    told = []
    for a_, b_, strict in pairs:
        out = prove_lattice(a_, b_, step.domain, strict, opts)
        if out is None or not out.proved:
            return base
        told.append(f"{sp.sstr(a_)} ≤ {sp.sstr(b_)}: {out.method}: {out.reduction}")
    names = free_names(step.lhs) | free_names(step.rhs)
    both = " (both directions)" if step.kind == "identity" else ""
    return proved(
        step,
        method=f"route lattice: lattice normal forms, leaf inequalities proved on the box{both}; {base.method}",
        evidence=" || ".join(told)[:4000],
        certified=True,
        trials=base.trials,
        worst_ratio=base.worst_ratio,
        attacked=base.attacked,
        cover=region({s_: step.domain.range_of(s_) for s_ in names}),
    )


__all__ = ["Lattice", "leaf_leq", "normal_form", "prove_lattice", "prove_minmax"]
