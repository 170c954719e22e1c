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


def _wide(lo: float, hi: float) -> bool:
    """Whether ``hi − lo`` overflows a float (a range such as ``[−1e308, 1e308]``): then a uniform draw is
    ``lo·(1 − u) + hi·u``, whose terms stay finite, instead of ``lo + (hi − lo)·u`` (inf, or numpy's
    OverflowError); narrower ranges keep the usual formula and so their random streams."""
    return not math.isfinite(hi - lo)


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
        elif _wide(lo, hi):
            u = r.random()
            val = lo * (1 - u) + hi * u
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
        elif _wide(lo, hi):
            u = gen.random(n)
            val = lo * (1 - u) + hi * u
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
            mid = math.sqrt(lo * hi) if lo > 0 and hi / lo > 50 else lo / 2 + hi / 2 if _wide(lo, hi) else (lo + hi) / 2
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


class _NotLoopable(ValueError):
    """An instance that ``loop_lambdify`` does not print (its sums are written out instead)."""


#: the nodes ``loop_lambdify`` prints as the three code printers do (with ``Sum``, ``Product`` and
#: ``Indexed`` its own); anything else (an integral, an unevaluated wrapper, an undefined function)
#: keeps the written-out path, whose entries are the atoms of the written-out expression
_LOOPABLE = (
    sp.Add,
    sp.Mul,
    sp.Pow,
    sp.Sum,
    sp.Product,
    sp.Indexed,
    sp.IndexedBase,
    sp.Symbol,
    sp.Number,
    sp.NumberSymbol,
    sp.Tuple,
    sp.Piecewise,
    sp.Min,
    sp.Max,
    sp.Abs,
    sp.exp,
    sp.log,
    sp.sign,
    sp.sin,
    sp.cos,
    sp.tan,
    sp.sinh,
    sp.cosh,
    sp.tanh,
    sp.Rel,
    sp.And,
    sp.Or,
    sp.Not,
)


def _loops_concrete(exprs: list[sp.Expr]) -> bool:
    """Every node of ``exprs`` is one ``loop_lambdify`` prints (``_LOOPABLE``), and every ``Sum``/``Product``
    has one limit with integer ends (at most 10⁴ terms)."""
    from sympy.functions.elementary.piecewise import ExprCondPair
    from sympy.logic.boolalg import BooleanAtom

    for e in exprs:
        for node in sp.preorder_traversal(e):
            if not isinstance(node, (*_LOOPABLE, ExprCondPair, BooleanAtom)):
                return False
            if isinstance(node, sp.Number) and not node.is_finite:  # ±oo, zoo, nan: no printer has them all
                return False
            if isinstance(node, (sp.Sum, sp.Product)):
                if len(node.limits) != 1:
                    return False
                _idx, lo, hi = node.limits[0]
                if not (lo.is_Integer and hi.is_Integer and int(hi) - int(lo) < 10_000):
                    return False
    return True


def _entry_atoms(exprs: list[sp.Expr]) -> list[sp.Indexed]:
    """The entries ``x[i]`` (integer indices) that ``exprs`` reads once every sum is written out, in
    ``str`` order: the indices of each ``Indexed`` at every value of the loop indices it sits in."""
    found: dict[tuple, sp.Indexed] = {}

    def index(i: sp.Expr, env: dict) -> int:
        if i.is_Integer:
            return int(i)
        if i in env:
            return env[i]
        v = i.xreplace({s_: sp.Integer(n_) for s_, n_ in env.items()})
        if not v.is_Integer:
            raise _NotLoopable(f"index {i} is not an integer")
        return int(v)

    def walk(e: sp.Expr, env: dict) -> None:
        if isinstance(e, sp.Indexed):
            ix = tuple(index(i, env) for i in e.indices)
            if (e.base, ix) not in found:
                found[(e.base, ix)] = e if all(i.is_Integer for i in e.indices) else e.base[ix]
            return
        if isinstance(e, (sp.Sum, sp.Product)):
            (var, lo, hi) = e.limits[0]
            for n_ in range(int(lo), int(hi) + 1):
                walk(e.function, {**env, var: n_})
            return
        for a in e.args:
            walk(a, env)

    for e in exprs:
        walk(e, {})
    return sorted(found.values(), key=str)


def _loop_depth(e: sp.Expr) -> int:
    if isinstance(e, (sp.Sum, sp.Product)):
        return 1 + _loop_depth(e.function)
    return max((_loop_depth(a) for a in e.args), default=0)


class _PyLoops:
    """Printer mixin (math, mpmath): a sum is a generator loop over its index, an entry inside it a
    lookup ``_X0[(j,)]`` in a dict of the entries of its base. The loop index is a Python int, made an
    ``mpf`` where it is a value at 50 digits (``3**(-j)``)."""

    def _setup(self, names: dict, bases: dict, mp: bool) -> None:
        self._names, self._bases, self._mp = names, bases, mp
        self._bound: dict = {}
        self._in_index = 0
        self._n_loops = 0

    def _print_Symbol(self, expr):
        b = self._bound.get(expr)
        if b is not None:
            return f"mpmath.mpf({b})" if self._mp and not self._in_index else b
        n = self._names.get(expr)
        return n if n is not None else super()._print_Symbol(expr)

    _print_Dummy = _print_Symbol

    def _print_Indexed(self, expr):
        n = self._names.get(expr)
        if n is not None:
            return n
        self._in_index += 1
        try:
            ix = ", ".join(self._print(i) for i in expr.indices)
        finally:
            self._in_index -= 1
        return f"{self._bases[expr.base]}[({ix},)]"

    def _loop(self, expr, fn: str) -> str:
        ((var, lo, hi),) = expr.limits
        if int(hi) < int(lo):  # an empty sum or product, as ``expand_sums`` writes it
            return "0" if fn == "_sum" else "1"
        self._n_loops += 1
        name = f"_j{self._n_loops}"
        old = self._bound.get(var)
        self._bound[var] = name
        try:
            body = self._print(expr.function)
        finally:
            if old is None:
                del self._bound[var]
            else:
                self._bound[var] = old
        return f"({fn}(({body}) for {name} in range({int(lo)}, {int(hi) + 1})))"

    def _print_Sum(self, expr):
        return self._loop(expr, "_sum")

    def _print_Product(self, expr):
        return self._loop(expr, "_prod")


class _NpAxes:
    """Printer mixin (numpy): every array has shape (points, 1, …, 1), a sum at nesting depth d runs
    along axis d: an entry ``x[j]`` inside it is the entries ``x[lo] … x[hi]`` concatenated along that
    axis, the index ``j`` itself an ``arange`` there, and the sum a reduction over it (``_vsum``). The
    claim's terms are then a few array operations for every k, where a written-out sum is an
    operation per term."""

    def _setup(self, names: dict, ndim: int) -> None:
        self._names, self._ndim = names, ndim
        self._bound: dict = {}  # loop index -> (axis, lo, terms)
        self._depth = 0
        self._pre: list[str] = []
        self._made: dict = {}

    def _shape(self, axis: int, m: int) -> tuple:
        return tuple(m if a_ == axis else 1 for a_ in range(self._ndim))

    def _print_Symbol(self, expr):
        b = self._bound.get(expr)
        if b is not None:
            key = ("arange", b)
            if key not in self._made:
                self._made[key] = name = f"_r{len(self._made)}"
                axis, lo, m = b
                self._pre.append(f"{name} = numpy.arange({lo}, {lo + m}, dtype=float).reshape({self._shape(axis, m)})")
            return self._made[key]
        n = self._names.get(expr)
        return n if n is not None else super()._print_Symbol(expr)

    _print_Dummy = _print_Symbol

    def _print_Indexed(self, expr):
        n = self._names.get(expr)
        if n is not None:
            return n
        free = set().union(*(sp.sympify(i).free_symbols for i in expr.indices))
        loops = [v_ for v_ in free if v_ in self._bound]
        if len(loops) != 1 or free != set(loops):
            raise _NotLoopable(f"entry {expr} runs along {len(loops)} loops")
        (var,) = loops
        axis, lo, m = self._bound[var]
        cols = tuple(self._names[expr.xreplace({var: sp.Integer(n_)})] for n_ in range(lo, lo + m))
        key = ("gather", axis, cols)
        if key not in self._made:
            self._made[key] = name = f"_g{len(self._made)}"
            self._pre.append(f"{name} = numpy.concatenate(({', '.join(cols)},), axis={axis})")
        return self._made[key]

    def _reduce(self, expr, fn: str, empty: str) -> str:
        ((var, lo, hi),) = expr.limits
        m = int(hi) - int(lo) + 1
        if m <= 0:  # an empty sum, as ``expand_sums`` writes it
            return empty
        self._depth += 1
        old = self._bound.get(var)
        self._bound[var] = (self._depth, int(lo), m)
        try:
            body = self._print(expr.function)
        finally:
            self._depth -= 1
            if old is None:
                del self._bound[var]
            else:
                self._bound[var] = old
        return f"{fn}({body}, {self._depth + 1}, {m})"

    def _print_Sum(self, expr):
        return self._reduce(expr, "_vsum", "0.0")

    def _print_Product(self, expr):
        return self._reduce(expr, "_vprod", "1.0")


def _vsum(a: Any, axis: int, m: int) -> Any:
    """Σ over ``axis`` of ``m`` terms; a body constant along that axis counts ``m`` times."""
    import numpy

    a = numpy.asarray(a)
    if a.ndim > axis and a.shape[axis] == m and m > 1:
        return a.sum(axis=axis, keepdims=True)
    return a * m


def _vprod(a: Any, axis: int, m: int) -> Any:
    import numpy

    a = numpy.asarray(a)
    if a.ndim > axis and a.shape[axis] == m and m > 1:
        return a.prod(axis=axis, keepdims=True)
    return a**m


def _prod(terms: Any) -> Any:
    out = 1
    for t_ in terms:
        out = out * t_
    return out


def loop_lambdify(scalars: list, atoms: list, exprs: list, module: str) -> Callable:
    """``f(*scalar values, *entry values) -> [values of exprs]`` for expressions whose sums have integer
    limits, printed without writing the sums out: loops in Python (``math``, ``mpmath``), reductions
    along array axes (``numpy``, see ``_NpAxes``). The printer's term ordering is off, as in
    ``fast_lambdify``. Raises ``_NotLoopable`` for what it does not print (an entry indexed by two
    loop indices at once, for numpy)."""
    import builtins
    import importlib
    import math as _math

    from sympy.printing.numpy import NumPyPrinter
    from sympy.printing.pycode import MpmathPrinter, PythonCodePrinter

    base_cls = {"numpy": NumPyPrinter, "mpmath": MpmathPrinter, "math": PythonCodePrinter}[module]
    mixin = _NpAxes if module == "numpy" else _PyLoops
    printer = type("_LoopPrinter", (mixin, base_cls), {})(
        {"order": "none", "fully_qualified_modules": True, "inline": True, "allow_unknown_functions": False}
    )
    args = [f"_a{n_}" for n_ in range(len(scalars) + len(atoms))]
    names = dict(zip(list(scalars) + list(atoms), args))
    pre: list[str] = []
    if module == "numpy":
        ndim = 1 + max((_loop_depth(e) for e in exprs), default=0)
        printer._setup(names, ndim)
        if ndim > 1:  # every argument as (points, 1, …, 1), so that loop axes broadcast against it
            pre += [f"{a_} = numpy.reshape({a_}, (-1,{' 1,' * (ndim - 1)}))" for a_ in args]
        body = [printer.doprint(e) for e in exprs]
        pre += printer._pre
        ret = ", ".join(f"numpy.reshape({b_}, -1)" if ndim > 1 else b_ for b_ in body)
    else:
        bases: dict = {}
        for a_ in atoms:
            bases.setdefault(a_.base, f"_X{len(bases)}")
        printer._setup(names, bases, module == "mpmath")
        body = [printer.doprint(e) for e in exprs]
        for base, dname in bases.items():
            if f"{dname}[" in "".join(body):
                items = ", ".join(
                    f"({', '.join(str(int(i)) for i in a_.indices)},): {names[a_]}" for a_ in atoms if a_.base == base
                )
                pre.append(f"{dname} = {{{items}}}")
        ret = ", ".join(body)
    code = "def _f({}):\n{}    return [{}]\n".format(", ".join(args), "".join(f"    {p_}\n" for p_ in pre), ret)
    namespace: dict[str, Any] = {
        "math": _math,
        "mpmath": mpmath,
        "builtins": builtins,
        "_sum": builtins.sum,
        "_prod": _prod,
        "_vsum": _vsum,
        "_vprod": _vprod,
    }
    if module == "numpy":
        import numpy

        namespace["numpy"] = numpy
    for mod_name in sorted(getattr(printer, "module_imports", {})):
        namespace.setdefault(mod_name.split(".")[0], importlib.import_module(mod_name.split(".")[0]))
    exec(compile(code, f"<loop_lambdify {module}>", "exec"), namespace)  # noqa: S102 - our own printed code
    return namespace["_f"]


@dataclass
class Instance:
    """An expression with its sums made concrete for given structural integers: ``exprs`` with the
    integers substituted, evaluated through ``loop_lambdify`` (``looped``), or else with its sums
    written out (``concrete``, built on first use) through ``fast_lambdify``. The functions take the
    values of ``scalars`` then of the ``entries`` atoms."""

    args: list[sp.Symbol]
    concrete_: list[sp.Expr] | None
    scalars: list[sp.Symbol]
    entries: list[tuple[sp.Indexed, sp.Symbol]]  # (indexed atom, its base label)
    exprs: list[sp.Expr] | None = None
    looped: bool = False
    _fn_mp: Callable | None = None
    _fn_np: Callable | None = None
    _fn_float: Callable | None = None

    @property
    def concrete(self) -> list[sp.Expr]:
        """The expressions with every sum written out, entries renamed ``args`` (built on first use)."""
        if self.concrete_ is None:
            concrete = [expand_sums(e) for e in self.exprs]
            rep = {a: d_ for (a, _), d_ in zip(self.entries, self.args[len(self.scalars) :])}
            if not set().union(*(c.atoms(sp.Indexed) for c in concrete)) <= set(rep):
                raise _NotLoopable("the written-out sums read entries the loops do not")
            with sp.evaluate(False):  # a plain renaming: re-evaluating every node costs seconds
                self.concrete_ = [c.xreplace(rep) for c in concrete]
        return self.concrete_

    def _build(self, module: str) -> Callable:
        if self.looped:
            try:
                return loop_lambdify(self.scalars, [a for a, _ in self.entries], self.exprs, module)
            except Exception:  # noqa: BLE001 - not printable as loops: the written-out expression is
                pass
        return fast_lambdify(self.args, self.concrete, module)

    @property
    def fn_float(self) -> Callable:
        if self._fn_float is None:  # built on first use: the vectorised falsifier rarely needs it
            self._fn_float = self._build("math")
        return self._fn_float

    @property
    def fn_np(self) -> Callable:
        """The same expressions lambdified to numpy: one call evaluates a whole batch of points."""
        if self._fn_np is None:
            self._fn_np = self._build("numpy")
        return self._fn_np

    @property
    def fn_mp(self) -> Callable:
        if self._fn_mp is None:  # built on first use: most instances never need 50 digits
            self._fn_mp = self._build("mpmath")
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
        scalars = [s for s in self.scalars if s not in structural_values]
        subbed = [_substituted(e, structural_values) for e in self.exprs]
        atoms, concrete = None, None
        if _loops_concrete(subbed):
            try:  # the entries read, without writing the sums out
                atoms = _entry_atoms(subbed)
            except _NotLoopable:
                atoms = None
        if atoms is None:
            concrete = [_concrete(e, structural_values) for e in self.exprs]
            atoms = sorted(set().union(*(c.atoms(sp.Indexed) for c in concrete)), key=str)
        dummies = [sp.Symbol(f"_entry{n}", real=True) for n in range(len(atoms))]
        if concrete is not None:
            rep = dict(zip(atoms, dummies))
            with sp.evaluate(False):  # a plain renaming: re-evaluating every node costs seconds
                concrete = [c.xreplace(rep) for c in concrete]
        # the instance is only ever evaluated: keep SymPy from re-simplifying the written-out terms
        args = scalars + dummies
        inst = Instance(
            args, concrete, scalars, [(a, a.base.label) for a in atoms], exprs=subbed, looped=concrete is None
        )
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


def _substituted(e: sp.Expr, structural_values: Mapping[sp.Symbol, int]) -> sp.Expr:
    """``e`` with the structural integers substituted (``xreplace``: a plain symbol replacement, as
    ``subs`` does it here at a fraction of the cost), memoised per expression."""
    key = (
        "xreplace",
        e,
        tuple(sorted(((str(s_), s_, int(v_)) for s_, v_ in structural_values.items()), key=lambda t: t[0])),
    )
    hit = _CONCRETE.get(key)
    if hit is None:
        if len(_CONCRETE) > 4096:
            _CONCRETE.clear()
        hit = _CONCRETE[key] = e.xreplace({s_: sp.Integer(int(v_)) for s_, v_ in structural_values.items()})
    return hit


def _mp(x: Any) -> Any:
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.Rational(x)) if x.is_Rational else mpmath.mpf(str(sp.N(x, 60)))
    if isinstance(x, int):
        return mpmath.mpf(x)
    return mpmath.mpf(x)


def constraint_atoms(c: Any) -> set:
    """The point coordinates a constraint reads: its entries (``f_a[1]``, an ``Indexed``) and its free symbols
    other than those entries' labels (``f_a`` in ``f_a[1]² + f_a[2]² ≤ 1`` is not a coordinate)."""
    c = sp.sympify(c)
    entries = set(c.atoms(sp.Indexed))
    labels = {e.base.label for e in entries}
    inner = {x for e in entries for i in e.indices for x in sp.sympify(i).free_symbols}
    return entries | {s_ for s_ in c.free_symbols if isinstance(s_, sp.Symbol) and s_ not in labels | inner}


def _satisfies(domain: Domain, pt: Mapping) -> bool:
    """Whether a (float) point satisfies the domain's constraints that read only its coordinates (symbols and
    entries: ``f_a[1]² + f_a[2]² ≤ 1`` reads ``f_a[1]``, ``f_a[2]``). A filter for the searches; the Arb gate
    (``enclosures.in_domain``) decides a counterexample's point exactly."""
    if not domain.constraints:
        return True
    sub = {
        s: sp.Float(v) if not isinstance(v, int) else sp.Integer(v)
        for s, v in pt.items()
        if isinstance(s, (sp.Symbol, sp.Indexed))
    }
    # a constraint on symbols the claim does not involve cannot exclude any of its points
    return all(bool(c.xreplace(sub)) for c in domain.constraints if constraint_atoms(c) <= set(sub))


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
    A sum with symbolic or infinite limits is left to ``doit``. An integral stays an integral: the
    50-digit printer evaluates it by quadrature (``mpmath.quad``), which checks the stated integral
    itself, not SymPy's antiderivative of it (and SymPy's ``integrate`` cost seconds per instance, to
    fail on most of the catalogue's integrals: 4.5 of the instance builder's 8.6 s in a cold verify)."""

    def walk(e: sp.Expr) -> sp.Expr:
        if not e.args:
            return e
        args = [walk(a) for a in e.args]
        if isinstance(e, (sp.Sum, sp.Product)) and len(e.limits) == 1:
            (idx, lo, hi) = e.limits[0]
            lo, hi = sp.sympify(lo), sp.sympify(hi)
            if lo.is_Integer and hi.is_Integer and int(hi) - int(lo) < 10_000:
                body = args[0]
                own = [a for a in body.atoms(sp.Indexed) if idx in a.free_symbols]
                terms = []
                for n_ in range(int(lo), int(hi) + 1):
                    # the entries' indices evaluated (s[j + 1] at j = 3 is the entry s[4], not a new s[3 + 1])
                    rep = {a: a.xreplace({idx: sp.Integer(n_)}) for a in own}
                    rep[idx] = sp.Integer(n_)
                    with sp.evaluate(False):  # only evaluated numerically later: no re-simplification per term
                        t_ = body.xreplace(rep)
                    # a number left as a power (3**(-2)) would be printed as Python float arithmetic:
                    # evaluated, it is the exact rational the 50-digit printer writes as mpf(1)/mpf(9)
                    terms.append(t_.xreplace({p_: p_.func(*p_.args) for p_ in t_.atoms(sp.Pow) if p_.is_number}))
                if isinstance(e, sp.Sum):
                    return sp.Add(*terms) if terms else sp.Integer(0)
                return sp.Mul(*terms) if terms else sp.Integer(1)
        if isinstance(e, (sp.Sum, sp.Product)):
            return e.func(*args).doit()
        return e.func(*args) if args != list(e.args) else e

    return walk(sp.sympify(expr))
