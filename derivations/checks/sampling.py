"""Sampling and evaluation shared by the checkers: domain points, concrete instances of sums, float
and 50-digit evaluation of claims."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from ..ledger import Domain, Step, assumption_range, free_names, region


def _structural_ints(expr: sp.Expr) -> set[sp.Symbol]:
    """Integer symbols that appear in the limits of a Sum/Product (they fix a vector length)."""
    out: set[sp.Symbol] = set()
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Sum, sp.Product)):
            for lim in node.limits:
                for e in lim[1:]:
                    out |= {x for x in sp.sympify(e).free_symbols if isinstance(x, sp.Symbol)}
    return out


def _finite_range(lo: sp.Expr, hi: sp.Expr, cap: float) -> tuple[float, float]:
    lo_f = float(lo) if lo.is_finite else None
    hi_f = float(hi) if hi.is_finite else None
    if lo_f is None and hi_f is None:
        return -cap, cap
    if lo_f is None:
        return hi_f - cap, hi_f
    if hi_f is None:
        return lo_f, max(lo_f * cap, lo_f + cap) if lo_f > 0 else lo_f + cap
    return lo_f, hi_f


class Sampler:
    """Draws points of a domain: uniform, log-uniform on wide positive ranges, boundary snaps."""

    def __init__(self, domain: Domain, rng: random.Random, real_cap: float, k_cap: int):
        self.domain = domain
        self.rng = rng
        self.ranges = {s: _finite_range(lo, hi, real_cap) for s, (lo, hi) in domain.ranges.items()}
        self.k_cap = k_cap

    def scalar(self, sym: sp.Symbol, snap: float = 0.0, structural: bool = False) -> Any:
        lo, hi = self.ranges[sym]
        if structural:
            hi = min(hi, max(lo, self.k_cap))
        r = self.rng
        if snap and r.random() < snap:
            val = lo if r.random() < 0.5 else hi
        elif lo > 0 and hi / lo > 50:
            val = math.exp(r.uniform(math.log(lo), math.log(hi)))
        elif lo >= 0 and hi - lo > 50 and r.random() < 0.5:  # [0, big): small values matter too
            val = lo + math.exp(r.uniform(math.log(1e-9), math.log(hi - lo)))
        else:
            val = r.uniform(lo, hi)
        if sym.is_integer:
            val = int(round(val))
            val = int(min(max(val, math.ceil(lo)), math.floor(hi)))
        return val

    def array(self, sym: sp.Symbol, n: int, gen: Any, snap: float = 0.0, structural: bool = False) -> Any:
        """``n`` draws of ``scalar(sym, snap, structural)`` at once (numpy ``Generator`` ``gen``)."""
        import numpy as np

        lo, hi = self.ranges[sym]
        if structural:
            hi = min(hi, max(lo, self.k_cap))
        if lo > 0 and hi / lo > 50:
            val = np.exp(gen.uniform(math.log(lo), math.log(hi), n))
        elif lo >= 0 and hi - lo > 50:  # [0, big): small values matter too
            wide = lo + np.exp(gen.uniform(math.log(1e-9), math.log(hi - lo), n))
            val = np.where(gen.random(n) < 0.5, wide, gen.uniform(lo, hi, n))
        else:
            val = gen.uniform(lo, hi, n)
        if snap:
            ends = np.where(gen.random(n) < 0.5, lo, hi)
            val = np.where(gen.random(n) < snap, ends, val)
        if sym.is_integer:
            val = np.clip(np.rint(val), math.ceil(lo), math.floor(hi)).astype(np.int64)
        return val

    def attacked(self, ev: Evaluator) -> dict[str, tuple[str, str]]:
        """The ranges this sampler draws from for ``ev``'s symbols (structural integers capped)."""
        out = {}
        for s in sorted(set(ev.scalars) | ev.indexed_labels, key=str):
            lo, hi = self.ranges[s]
            if s in ev.structural:
                hi = min(hi, max(lo, self.k_cap))
            out[str(s)] = (repr(lo), repr(hi))
        return out

    def corners(self, syms: list[sp.Symbol], structural: set[sp.Symbol]) -> list[dict]:
        ends = []
        for s in syms:
            lo, hi = self.ranges[s]
            if s in structural:
                hi = min(hi, max(lo, self.k_cap))
            if s.is_integer:
                lo, hi = math.ceil(lo), math.floor(hi)
            mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 50 else (lo + hi) / 2
            if s.is_integer:
                mid = int(round(mid))
            ends.append(sorted({lo, hi, mid}))
        combos = list(itertools.product(*ends))
        if len(combos) > 729:
            combos = [tuple(self.rng.choice(e) for e in ends) for _ in range(729)]
        return [dict(zip(syms, c)) for c in combos]


def fast_lambdify(args: list, exprs: Any, module: str) -> Callable:
    """``sympy.lambdify``'s job without its costs: the printer's term ordering is off (sorting the terms
    of a written-out sum costs ~10× the rest of the printing; the order of float additions is
    immaterial here) and no docstring is built (``lambdify`` prints the whole expression once more
    for it). The arguments are renamed ``_a0, _a1, …`` first, so any symbol or ``Indexed`` can be one.
    Returns ``f(*args) -> list`` (or a single value when ``exprs`` is not a list)."""
    import math as _math

    from sympy.printing.numpy import NumPyPrinter
    from sympy.printing.pycode import MpmathPrinter, PythonCodePrinter

    printer_cls = {"numpy": NumPyPrinter, "mpmath": MpmathPrinter, "math": PythonCodePrinter}[module]
    printer = printer_cls(
        {"order": "none", "fully_qualified_modules": True, "inline": True, "allow_unknown_functions": False}
    )
    many = isinstance(exprs, (list, tuple))
    names = [sp.Symbol(f"_a{n_}") for n_ in range(len(args))]
    rep = dict(zip(args, names))
    with sp.evaluate(False):
        body = [sp.sympify(e).xreplace(rep) for e in (exprs if many else [exprs])]
    code = "def _f({}):\n    return [{}]\n".format(
        ", ".join(map(str, names)), ", ".join(printer.doprint(e) for e in body)
    )
    namespace: dict[str, Any] = {"math": _math, "mpmath": mpmath}
    if module == "numpy":
        import numpy

        namespace["numpy"] = numpy
    import importlib

    for mod_name in sorted(getattr(printer, "module_imports", {})):  # e.g. functools for Max's reduce
        top = mod_name.split(".")[0]
        namespace.setdefault(top, importlib.import_module(top))
    exec(compile(code, f"<fast_lambdify {module}>", "exec"), namespace)  # noqa: S102 - our own printed code
    fn = namespace["_f"]
    return fn if many else (lambda *a: fn(*a)[0])


@dataclass
class Instance:
    """An expression with its sums made concrete for given structural integers."""

    args: list[sp.Symbol]
    concrete: list[sp.Expr]
    scalars: list[sp.Symbol]
    entries: list[tuple[sp.Indexed, sp.Symbol]]  # (indexed atom, its base label)
    _fn_mp: Callable | None = None
    _fn_np: Callable | None = None
    _fn_float: Callable | None = None

    @property
    def fn_float(self) -> Callable:
        if self._fn_float is None:  # built on first use: the vectorised falsifier rarely needs it
            self._fn_float = fast_lambdify(self.args, self.concrete, "math")
        return self._fn_float

    @property
    def fn_np(self) -> Callable:
        """The same expressions lambdified to numpy: one call evaluates a whole batch of points."""
        if self._fn_np is None:
            self._fn_np = fast_lambdify(self.args, self.concrete, "numpy")
        return self._fn_np

    @property
    def fn_mp(self) -> Callable:
        if self._fn_mp is None:  # built on first use: most instances never need 50 digits
            self._fn_mp = fast_lambdify(self.args, self.concrete, "mpmath")
        return self._fn_mp


class Evaluator:
    """Float (math) and mpmath evaluation of one or more expressions at sampled points."""

    def __init__(self, exprs: list[sp.Expr], domain: Domain):
        self.exprs = [sp.sympify(e) for e in exprs]
        self.domain = domain
        names: set[sp.Symbol] = set()
        for e in self.exprs:
            names |= free_names(e)
        self.structural = set().union(*(_structural_ints(e) for e in self.exprs)) & names
        self.indexed_labels = set().union(*({a.base.label for a in e.atoms(sp.Indexed)} for e in self.exprs))
        self.scalars = sorted(names - self.indexed_labels, key=str)
        self._cache: dict[tuple, Instance] = {}
        self._struct_order = sorted(self.structural, key=str)

    def instance(self, structural_values: Mapping[sp.Symbol, int]) -> Instance:
        key = tuple(structural_values.get(s_) for s_ in self._struct_order)
        if len(structural_values) != len(self._struct_order) or any(
            s_ not in self.structural for s_ in structural_values
        ):
            key = ("partial",) + tuple(sorted((str(s_), v_) for s_, v_ in structural_values.items()))
        if key in self._cache:
            return self._cache[key]
        concrete = [_concrete(e, structural_values) for e in self.exprs]
        atoms = sorted(set().union(*(c.atoms(sp.Indexed) for c in concrete)), key=str)
        dummies = [sp.Symbol(f"_entry{n}", real=True) for n in range(len(atoms))]
        rep = dict(zip(atoms, dummies))
        with sp.evaluate(False):  # a plain renaming: re-evaluating every node costs seconds
            concrete = [c.xreplace(rep) for c in concrete]
        scalars = [s for s in self.scalars if s not in structural_values]
        # the instance is only ever evaluated: keep SymPy from re-simplifying the written-out terms
        args = scalars + dummies
        inst = Instance(args, concrete, scalars, [(a, a.base.label) for a in atoms])
        self._cache[key] = inst
        return inst

    def evaluate(self, point: Mapping[Any, Any], exact: bool = False, dps: int = 50) -> list:
        struct = {s: int(point[s]) for s in self.structural}
        inst = self.instance(struct)
        args = [point[s] for s in inst.scalars] + [point[a] for a, _ in inst.entries]
        if exact:
            with mpmath.workdps(dps):
                return [
                    mpmath.mpf(x) if not isinstance(x, mpmath.mpf) else x for x in inst.fn_mp(*[_mp(a) for a in args])
                ]
        try:
            return [float(x) for x in inst.fn_float(*args)]
        except (OverflowError, ZeroDivisionError, ValueError):
            with mpmath.workdps(30):
                return [float(x) for x in inst.fn_mp(*[_mp(a) for a in args])]

    def random_point(self, sampler: Sampler, snap: float = 0.0) -> dict:
        pt: dict[Any, Any] = {}
        for s in self.scalars:
            pt[s] = sampler.scalar(s, snap, structural=s in self.structural)
        inst = self.instance({s: int(pt[s]) for s in self.structural})
        for atom, label in inst.entries:
            pt[atom] = sampler.scalar(label, snap)
        return pt

    def complete(self, pt: dict, sampler: Sampler) -> dict:
        inst = self.instance({s: int(pt[s]) for s in self.structural})
        for atom, label in inst.entries:
            if atom not in pt:
                pt[atom] = sampler.scalar(label, 0.5)
        return pt


#: written-out instances per (expression, structural values): the same side of a claim is instantiated
#: by every checker that looks at it (identity spot-check, falsifier, a chain re-using a cited step)
_CONCRETE: dict[tuple, sp.Expr] = {}


def _concrete(e: sp.Expr, structural_values: Mapping[sp.Symbol, int]) -> sp.Expr:
    """``expand_sums(e.subs(structural_values))``, memoised per expression (a pure function of both)."""
    key = (e, tuple(sorted(((str(s_), s_, int(v_)) for s_, v_ in structural_values.items()), key=lambda t: t[0])))
    hit = _CONCRETE.get(key)
    if hit is None:
        if len(_CONCRETE) > 4096:  # bounded: an instance at k = 12 can be a long expression
            _CONCRETE.clear()
        hit = _CONCRETE[key] = expand_sums(e.subs(structural_values))
    return hit


def _mp(x: Any) -> Any:
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.Rational(x)) if x.is_Rational else mpmath.mpf(str(sp.N(x, 60)))
    if isinstance(x, int):
        return mpmath.mpf(x)
    return mpmath.mpf(x)


def _satisfies(domain: Domain, pt: Mapping) -> bool:
    if not domain.constraints:
        return True
    sub = {
        s: sp.Float(v) if not isinstance(v, int) else sp.Integer(v) for s, v in pt.items() if isinstance(s, sp.Symbol)
    }
    # a constraint on symbols the claim does not involve cannot exclude any of its points
    return all(bool(c.subs(sub)) for c in domain.constraints if free_names(c) <= set(sub))


def _fmt_point(pt: Mapping) -> dict[str, str]:
    out = {}
    for s, v in pt.items():
        out[str(s)] = str(v) if isinstance(v, int) else mpmath.nstr(mpmath.mpf(v), 17)
    return out


def _sides(step: Step) -> tuple[sp.Expr, sp.Expr, bool]:
    """(small, big, strict) such that the claim reads small ≤ big (or <)."""
    rel = step.relation
    if rel in ("<=", "<"):
        return step.lhs, step.rhs, rel == "<"
    return step.rhs, step.lhs, rel == ">"


def symbolic_cover(exprs: list[sp.Expr], exclude: set | None = None) -> dict[str, tuple[str, str]]:
    """What a symbolic proof about ``exprs`` covers: every free name over its assumption range."""
    names = set().union(*(free_names(e) for e in exprs)) - (exclude or set())
    return region({x_: assumption_range(x_) for x_ in sorted(names, key=str)})


def intersect(a: dict | None, b: dict | None) -> dict | None:
    """The intersection of two covered regions (``None`` covers nothing)."""
    if a is None or b is None:
        return None
    out = dict(a)
    for key, (lo, hi) in b.items():
        if key in out:
            lo0, hi0 = (sp.sympify(v) for v in out[key])
            out[key] = (str(sp.Max(lo0, sp.sympify(lo))), str(sp.Min(hi0, sp.sympify(hi))))
        else:
            out[key] = (lo, hi)
    return out


def expand_sums(expr: sp.Expr) -> sp.Expr:
    """Sums and products with integer limits written out term by term (``xreplace`` per term):
    SymPy's ``doit`` reaches the same expression through its summation algorithms, ~10× slower.
    Anything else unevaluated (an integral, a sum with symbolic limits) is left to ``doit``."""

    def walk(e: sp.Expr) -> sp.Expr:
        if not e.args:
            return e
        args = [walk(a) for a in e.args]
        if isinstance(e, (sp.Sum, sp.Product)) and len(e.limits) == 1:
            (idx, lo, hi) = e.limits[0]
            lo, hi = sp.sympify(lo), sp.sympify(hi)
            if lo.is_Integer and hi.is_Integer and int(hi) - int(lo) < 10_000:
                body = args[0]
                with sp.evaluate(False):  # only evaluated numerically later: no re-simplification per term
                    terms = [body.xreplace({idx: sp.Integer(n_)}) for n_ in range(int(lo), int(hi) + 1)]
                if isinstance(e, sp.Sum):
                    return sp.Add(*terms) if terms else sp.Integer(0)
                return sp.Mul(*terms) if terms else sp.Integer(1)
        if isinstance(e, (sp.Sum, sp.Product, sp.Integral)):
            return e.func(*args).doit()
        return e.func(*args) if args != list(e.args) else e

    return walk(sp.sympify(expr))
