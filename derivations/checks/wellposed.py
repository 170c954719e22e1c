"""Well-posedness: is a claim defined at every point of its stated domain?

``conditions(exprs)`` collects what the two sides need to be defined (SymPy's real reading):

* ``log(a)``: ``a > 0``;
* ``b^p`` with ``p`` not an integer (``sqrt``, roots, real powers): ``b ≥ 0``, and ``b > 0`` unless ``p > 0``
  (SymPy's ``(−8)^{1/3}`` is the complex principal root, not −2);
* ``b^n`` with an integer ``n`` that may be negative (a division): ``b ≠ 0``;
* ``tan``, ``sec`` (``cos ≠ 0``), ``cot``, ``csc`` (``sin ≠ 0``); ``asin``, ``acos`` (``1 − a² ≥ 0``),
  ``atanh`` (``1 − a² > 0``), ``acosh`` (``a ≥ 1``), ``acoth`` (``a² − 1 > 0``);
* a literal ``zoo`` or ``nan`` (``1/0`` written as a constant): undefined everywhere.

``check_wellposed(exprs, domain)`` decides each condition over the domain:

1. *established* symbolically (``signs.certain_nonnegative``: SymPy's structural deductions, constants
   signed by Arb) or by certified interval arithmetic over the box (``interval.certify_nonnegative``);
2. *failing*: an exact point of the domain (rationals; integers for integer symbols; never a value its
   assumptions exclude, so the open end ``τ → 0`` of a positive ``τ`` is not a point) where the condition
   is false for certain (Arb enclosure at rising precision, or exactly: a rational 0, or a root of a
   ``≠ 0`` condition found by ``solveset`` and substituted back to an exact 0). Points tried: corners,
   ends, 0 and ±1 where inside, midpoints, seeded random rationals, and the roots;
3. otherwise *undecided*.

The outcome is ``"defined"`` (every condition established), ``"ill-posed"`` (a failing point, reported),
or ``"undecided"``: the claim may then be verified numerically but not proved ("definedness not
established"). Conditions under a bound index (inside a ``Sum``) or on vector entries are only decided
symbolically (a sum of positive terms over a nonempty range is positive).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from ..ledger import Domain, free_names
from .budget import CHECK, Spent, run_symbolic
from .signs import arb_sign, certain_nonnegative


@dataclass(frozen=True)
class Condition:
    """``expr > 0`` (``rel=">"``), ``expr ≥ 0`` (``">="``) or ``expr ≠ 0`` (``"!="``), needed by ``why``."""

    expr: sp.Expr
    rel: str
    why: str

    def __str__(self) -> str:
        return f"{self.expr} {'≥' if self.rel == '>=' else '≠' if self.rel == '!=' else '>'} 0 ({self.why})"


@dataclass
class WellPosed:
    status: str  #: "defined" | "ill-posed" | "undecided"
    reason: str = ""
    point: dict[str, str] | None = None
    conditions: list[Condition] = field(default_factory=list)


_SKIP = (sp.Integral, sp.Derivative, sp.Limit, sp.Subs, sp.Lambda)


def conditions(exprs: Sequence[Any], domain: Domain | None = None) -> list[Condition]:
    """The definedness conditions of ``exprs`` (deduplicated, in the order met). The sign of a symbolic
    exponent is read over ``domain`` when given (``|h|^{r/(r−1)}`` with ``r > 1`` needs ``|h| ≥ 0`` only)."""
    out: dict[tuple, Condition] = {}

    def add(expr: sp.Expr, rel: str, why: str) -> None:
        expr = sp.sympify(expr)
        key = (expr, rel)
        if key not in out:
            out[key] = Condition(expr, rel, why)

    def walk(e: Any) -> None:
        if not isinstance(e, sp.Basic) or isinstance(e, _SKIP):
            return
        if e in (sp.zoo, sp.nan):
            add(sp.Integer(0), "!=", f"a literal {e} (division by zero)")
            return
        for a in e.args:
            walk(a)
        if isinstance(e, sp.log):
            add(e.args[0], ">", f"argument of {e}")
            if len(e.args) == 2:
                add(e.args[1], ">", f"base of {e}")
                add(e.args[1] - 1, "!=", f"base of {e}")
        elif isinstance(e, sp.Pow):
            b, p = e.args
            if b is sp.E or (b.is_number and b.is_Rational and b > 0):
                return
            if p.is_integer:
                if not p.is_nonnegative:
                    add(b, "!=", f"denominator of {e}")
            elif certain_nonnegative(p, True) or (domain is not None and _positive_on(p, domain)):
                add(b, ">=", f"base of {e}")
            else:
                add(b, ">", f"base of {e}")
        elif isinstance(e, (sp.tan, sp.sec)):
            add(sp.cos(e.args[0]), "!=", f"pole of {e}")
        elif isinstance(e, (sp.cot, sp.csc)):
            add(sp.sin(e.args[0]), "!=", f"pole of {e}")
        elif isinstance(e, (sp.asin, sp.acos)):
            add(1 - e.args[0] ** 2, ">=", f"argument of {e}")
        elif isinstance(e, sp.atanh):
            add(1 - e.args[0] ** 2, ">", f"argument of {e}")
        elif isinstance(e, sp.acosh):
            add(e.args[0] - 1, ">=", f"argument of {e}")
        elif isinstance(e, sp.acoth):
            add(e.args[0] ** 2 - 1, ">", f"argument of {e}")

    for x in exprs:
        walk(sp.sympify(x))
    return list(out.values())


def _positive_on(e: sp.Expr, domain: Domain) -> bool:
    """``e > 0`` on the domain box, by structural sign deduction (``ranged``), else False."""
    if certain_nonnegative(e, True):  # (a constant exponent signed by Arb, not by SymPy's evalf)
        return True
    key = (e, tuple((s_, domain.ranges.get(s_)) for s_ in sorted(free_names(e), key=str)))
    if key not in _POSITIVE:
        _POSITIVE[key] = _positive_on_box(e, domain)
        if len(_POSITIVE) > 50_000:
            _POSITIVE.clear()
    return _POSITIVE[key]


_POSITIVE: dict[tuple, bool] = {}


def _positive_on_box(e: sp.Expr, domain: Domain) -> bool:
    for shift in (False, True):
        r = ranged(e, domain, shift)
        if r is not None:
            for f in (r, run_symbolic(sp.cancel, r, deadline=1.0)):
                if not isinstance(f, Spent) and run_symbolic(certain_nonnegative, f, True, deadline=1.0) is True:
                    return True
    return False


def _established_symbolically(
    c: Condition, domain: Domain, deadline: float | None, memory: float | None, rewrites: bool = True
) -> bool:
    """The condition holds on the whole domain box by structural sign deduction on ``ranged(c.expr)``
    (each symbol and vector entry a dummy of its range's sign, ``Sum`` s of signed terms signed), as
    written, then after ``cancel`` and ``factor`` (exact rewrites, where the expression is defined)."""
    strict = c.rel != ">="
    signs = (1, -1) if c.rel == "!=" else (1,)
    # the symbols' own assumptions first (cheap, and enough for most conditions: τ > 0, e^x + 1 > 0)
    for sign in signs:
        if run_symbolic(certain_nonnegative, sign * c.expr, strict, deadline=deadline, memory=memory) is True:
            return True
    forms = []
    for shift in (False, True):
        r = ranged(c.expr, domain, shift)
        if r is not None and r not in forms:
            forms.append(r)
    for rewrite in (None, sp.cancel, sp.factor) if rewrites else (None,):
        for f in forms:
            if rewrite is None and f is forms[0] and f == c.expr:
                continue  # already tried
            if rewrite is not None:
                f = run_symbolic(rewrite, f, deadline=deadline, memory=memory, stage="rewrite")
                if isinstance(f, Spent):
                    continue
            for sign in signs:
                r = run_symbolic(certain_nonnegative, sign * f, strict, deadline=deadline, memory=memory)
                if r is True:
                    return True
    return False


def _sign_dummy(sym: Any, lo: sp.Expr, hi: sp.Expr) -> sp.Dummy:
    """A dummy carrying what the range ``[lo, hi]`` (and ``sym``'s own assumptions) say of its sign."""
    kw: dict[str, bool] = {"real": True}
    if getattr(sym, "is_integer", False):
        kw["integer"] = True
    pos = bool(lo > 0) or bool(getattr(sym, "is_positive", False))
    nonneg = bool(lo >= 0) or bool(getattr(sym, "is_nonnegative", False))
    if pos:
        kw["positive"] = True
    elif nonneg:
        kw["nonnegative"] = True
    elif bool(hi < 0) or getattr(sym, "is_negative", False):
        kw["negative"] = True
    elif bool(hi <= 0) or getattr(sym, "is_nonpositive", False):
        kw["nonpositive"] = True
    return sp.Dummy(str(sym), **kw)


def _range(domain: Domain, atom: Any) -> tuple[sp.Expr, sp.Expr] | None:
    label = atom.base.label if isinstance(atom, sp.Indexed) else atom
    return domain.ranges.get(label)


def ranged(expr: sp.Expr, domain: Domain, shift: bool = False) -> sp.Expr | None:
    """``expr`` with its free symbols and vector entries replaced by dummies signed by their ranges
    (a value of the expression on the domain box is a value of this one for some signed dummies, so a
    sign deduced here holds on the box; constraints are ignored, which only enlarges the set). With
    ``shift``, a symbol with a finite nonzero lower end ``lo`` becomes ``lo + d``, ``d ≥ 0``
    (``β/(β − 1) − 1`` on ``β ≥ 101/100`` then cancels to ``1/(1/100 + d)``). A ``Sum`` whose terms are
    all > 0 (≥ 0) over a range certainly nonempty becomes a positive (nonnegative) dummy; another
    ``Sum`` leaves the expression undecidable here (``None``)."""
    memo: dict[Any, sp.Expr] = {}

    def atom(a: Any) -> sp.Expr:
        if a not in memo:
            rng = _range(domain, a)
            if rng is None:
                memo[a] = a
            else:
                lo, hi = rng
                d = _sign_dummy(a, lo, hi)
                if shift and lo.is_finite and lo != 0 and lo.is_Rational and not getattr(a, "is_integer", False):
                    memo[a] = lo + sp.Dummy(str(a), nonnegative=True)
                else:
                    memo[a] = d
        return memo[a]

    def walk(e: Any) -> Any:
        if not isinstance(e, sp.Basic):
            return e
        if isinstance(e, sp.Indexed) or (isinstance(e, sp.Symbol) and not isinstance(e, sp.Dummy)):
            return atom(e)
        if isinstance(e, sp.Sum):
            return _signed_sum(e)
        if not e.args:
            return e
        return e.func(*[walk(a) for a in e.args])

    def _signed_sum(s: sp.Sum) -> sp.Expr:
        if len(s.limits) != 1:
            raise _NoSign()
        j, lo, hi = s.limits[0]
        jj = sp.Dummy("j", integer=True)
        term = s.function.xreplace({j: jj})
        # every entry with the bound index is one dummy per distinct entry (a term is a value of the
        # summand at one index; its sign for every entry value is a sign for every term)
        inner = walk(term)
        lo_, hi_ = walk(lo), walk(hi)
        if not certain_nonnegative(hi_ - lo_, False):
            raise _NoSign()
        if certain_nonnegative(inner, True):
            return sp.Dummy("S", positive=True)
        if certain_nonnegative(inner, False):
            return sp.Dummy("S", nonnegative=True)
        if certain_nonnegative(-inner, True):
            return sp.Dummy("S", negative=True)
        raise _NoSign()

    try:
        return walk(sp.sympify(expr))
    except _NoSign:
        return None


class _NoSign(Exception):
    pass


def _fails(value: int | None, rel: str) -> bool:
    """The condition certainly fails at a point where the expression's sign is ``value``."""
    if value is None:
        return False
    return value < 0 if rel == ">=" else value <= 0 if rel == ">" else value == 0


def _sign_at(expr: sp.Expr, pt: Mapping[sp.Symbol, sp.Expr]) -> int | None:
    try:
        v = expr.xreplace(dict(pt))
        if v.free_symbols:
            return None
        if v.has(sp.zoo, sp.nan):  # the condition itself undefined here: another condition says so
            return None
        return arb_sign(v, 1024)
    except (TypeError, ValueError, ZeroDivisionError, AttributeError, RecursionError):
        return None


def _in_domain(domain: Domain, pt: Mapping[sp.Symbol, sp.Expr]) -> bool:
    """Every constraint of the domain holds at ``pt`` for certain (exactly or by Arb)."""
    for c in domain.constraints:
        if not free_names(c) <= set(pt):
            continue
        if isinstance(c, (sp.GreaterThan, sp.StrictGreaterThan)):
            gap, strict = c.lhs - c.rhs, isinstance(c, sp.StrictGreaterThan)
        elif isinstance(c, (sp.LessThan, sp.StrictLessThan)):
            gap, strict = c.rhs - c.lhs, isinstance(c, sp.StrictLessThan)
        else:
            return False
        s = _sign_at(gap, pt)
        if s is None or s < 0 or (strict and s == 0):
            return False
    return True


def _candidates(sym: sp.Symbol, lo: sp.Expr, hi: sp.Expr, rng: random.Random, n_random: int) -> list[sp.Expr]:
    """Exact values of ``sym`` inside ``[lo, hi]`` that its assumptions allow (an infinite end is never a
    value: a large finite one stands in)."""
    big = sp.Integer(10**6)
    lo_f = lo if lo.is_finite else (-big if not hi.is_finite or hi > -big else hi - big)
    hi_f = hi if hi.is_finite else (big if lo_f < big else lo_f + big)
    vals = [lo_f, hi_f, (lo_f + hi_f) / 2, (3 * lo_f + hi_f) / 4, (lo_f + 3 * hi_f) / 4]
    for v in (0, 1, -1, sp.Rational(1, 2), sp.Rational(-1, 2)):
        if lo_f <= v <= hi_f:
            vals.append(sp.Integer(v) if isinstance(v, int) else v)
    a, b = float(lo_f), float(hi_f)
    for _ in range(n_random):
        vals.append(sp.Rational(round(rng.uniform(a, b) * 1024), 1024))
    out = []
    for v in vals:
        v = sp.nsimplify(v) if not v.is_Rational else v
        if not v.is_Rational:
            continue
        if sym.is_integer:
            v = sp.floor(v) if v >= 0 else sp.ceiling(v)
        if v < lo or v > hi:
            continue
        if (sym.is_positive and v <= 0) or (sym.is_nonnegative and v < 0) or (sym.is_negative and v >= 0):
            continue
        if (sym.is_nonpositive and v > 0) or (sym.is_nonzero and v == 0):
            continue
        if v not in out:
            out.append(v)
    return out


def _points(names: list[sp.Symbol], domain: Domain, seed: str, n_random: int = 6) -> list[dict]:
    rng = random.Random(seed)
    per = {s_: _candidates(s_, *domain.range_of(s_), rng, n_random) for s_ in names}
    if any(not v for v in per.values()):
        return []
    pts: list[dict] = []
    ends = {s_: v[:2] for s_, v in per.items()}
    corners = list(itertools.product(*(ends[s_] for s_ in names)))
    if len(corners) > 16:  # many names: 16 corners, seeded, spread over all of them
        corners = (
            rng.sample(corners, 16)
            if len(corners) < 10_000
            else [tuple(rng.choice(ends[s_]) for s_ in names) for _ in range(16)]
        )
    for combo in corners:
        pts.append(dict(zip(names, combo)))
    width = max(len(v) for v in per.values())
    for i in range(width):  # the other values, each with the others at their i-th value
        pts.append({s_: per[s_][i % len(per[s_])] for s_ in names})
    for _ in range(4 * n_random):
        pts.append({s_: rng.choice(per[s_]) for s_ in names})
    out, seen = [], set()
    for p in pts:
        key = tuple(p[s_] for s_ in names)
        if key not in seen and _in_domain(domain, p):
            seen.add(key)
            out.append(p)
    return out


def _roots(c: Condition, names: list[sp.Symbol], domain: Domain, base: dict, clock: Any) -> list[dict]:
    """Exact zeros of a ``≠ 0`` condition inside the domain: one variable solved for (the others at the
    values of ``base``), each root substituted back to an exact 0."""
    out = []
    for sym in names:
        lo, hi = domain.range_of(sym)
        rest = {s_: v_ for s_, v_ in base.items() if s_ != sym}
        e = c.expr.xreplace(rest)
        if e.free_symbols != {sym}:
            continue
        sols = run_symbolic(
            sp.solveset, e, sym, sp.Interval(lo, hi), deadline=_dl(clock, 0.1), memory=_mem(clock), stage="roots"
        )
        if isinstance(sols, Spent) or not isinstance(sols, sp.FiniteSet):
            continue
        for r in list(sols)[:8]:
            if r.free_symbols or r.has(sp.I):
                continue
            # an exact zero: the value substituted back reduces to 0 (automatically or by simplify)
            z = e.xreplace({sym: r})
            if z != 0:
                z = run_symbolic(sp.simplify, z, deadline=_dl(clock, 0.1), memory=_mem(clock), stage="roots")
            if isinstance(z, Spent) or z != 0:
                continue
            lo_ok = lo == -sp.oo or (arb_sign(r - lo) or 0) >= 0 and arb_sign(r - lo) is not None
            hi_ok = hi == sp.oo or (arb_sign(hi - r) or 0) >= 0 and arb_sign(hi - r) is not None
            sr = arb_sign(r)  # a value the symbol's assumptions exclude is not a point of the claim
            if sr is None or (sym.is_positive and sr != 1) or (sym.is_nonnegative and sr < 0):
                continue
            if (sym.is_negative and sr != -1) or (sym.is_nonpositive and sr > 0) or (sym.is_nonzero and sr == 0):
                continue
            if sym.is_integer and not r.is_integer:
                continue
            pt = {**rest, sym: r}
            if lo_ok and hi_ok and _in_domain(domain, pt):
                out.append(pt)
    return out


def _dl(clock: Any, share: float) -> float | None:
    return 1.0 if clock is None else clock.deadline(share)


def _mem(clock: Any) -> float | None:
    return CHECK.memory_mb if clock is None else clock.budget.memory_mb


def _fmt(pt: Mapping[sp.Symbol, sp.Expr]) -> dict[str, str]:
    return {str(s_): str(v_) for s_, v_ in pt.items()}


#: per process: conditions (with the ranges of their symbols) established (verify meets the same ones often)
_ESTABLISHED: set[tuple] = set()


def _remember(key: tuple) -> None:
    if len(_ESTABLISHED) > 50_000:  # a bound on memory in long sessions
        _ESTABLISHED.clear()
    _ESTABLISHED.add(key)


def _scalarised(expr: sp.Expr, domain: Domain) -> tuple[sp.Expr, Domain, bool] | None:
    """``expr`` with each vector entry ``w[2]`` a real symbol of its base's range, on the matching box;
    ``None`` with a ``Sum`` left (its length is symbolic). The flag says whether the box is the domain
    itself (``False`` when a constraint on vector entries was dropped: the box is then larger, fine for
    establishing a condition, not for reporting a failing point)."""
    if expr.has(sp.Sum, sp.Product):
        return None
    subs: dict[sp.Indexed, sp.Symbol] = {}
    ranges: dict[sp.Symbol, tuple] = {}
    for a in sorted(expr.atoms(sp.Indexed), key=str):
        rng = _range(domain, a)
        if rng is None or any(not sp.sympify(i).is_Integer for i in a.indices):
            return None
        label = a.base.label
        kw = {
            k_: v_
            for k_, v_ in label.assumptions0.items()
            if k_ in ("positive", "nonnegative", "negative", "nonpositive", "integer") and v_
        }
        sym = sp.Symbol(str(a), real=True, **kw)
        subs[a] = sym
        ranges[sym] = rng
    for x in free_names(expr) - {a.base.label for a in subs}:
        if x not in domain.ranges:
            return None
        ranges[x] = domain.ranges[x]
    cons = tuple(c for c in domain.constraints if not c.atoms(sp.Indexed) and free_names(c) <= set(ranges))
    faithful = len(cons) == len(domain.constraints) or not subs
    if not subs:
        return expr, domain, True
    return expr.xreplace(subs), Domain(ranges, cons), faithful


def check_wellposed(
    exprs: Sequence[Any], domain: Domain, name: str = "", clock: Any = None, box_budget: int = 400
) -> WellPosed:
    """Decide whether ``exprs`` are defined on all of ``domain`` (module docstring)."""
    from .interval import certify_nonnegative

    conds = conditions(exprs, domain)
    if not conds:
        return WellPosed("defined", "no definedness condition (no log, root, division, …)")
    undecided: list[Condition] = []
    memory = _mem(clock)
    for c in conds:
        names = sorted(free_names(c.expr), key=str)
        key = (c.expr, c.rel, tuple((s_, domain.ranges.get(s_)) for s_ in names), domain.constraints)
        if key in _ESTABLISHED:
            continue
        if c.expr == 0 and c.rel == "!=":
            return WellPosed("ill-posed", f"undefined everywhere: {c.why}", {}, conds)
        if not names:  # a constant condition: Arb decides it, or nothing does
            s_ = arb_sign(c.expr)
            if _fails(s_, c.rel):
                return WellPosed("ill-posed", f"{c} fails (a constant)", {}, conds)
            if s_ is not None:
                continue
            undecided.append(c)
            continue
        if _established_symbolically(c, domain, _dl(clock, 0.1), memory, rewrites=False):
            _remember(key)
            continue
        sc = _scalarised(c.expr, domain)
        if sc is None:
            if _established_symbolically(c, domain, _dl(clock, 0.1), memory):
                _remember(key)
            else:
                undecided.append(c)
            continue
        expr, dom, faithful = sc
        snames = sorted(free_names(expr), key=str)
        # a failing point, exact
        pts = _points(snames, dom, f"wellposed:{name}:{c.expr}") if faithful else []
        for pt in pts:
            if _fails(_sign_at(expr, pt), c.rel):
                return WellPosed("ill-posed", f"{c} fails at {_fmt(pt)}", _fmt(pt), conds)
        # established by the exact rewrites (cancel, factor), or over the box by interval arithmetic
        # (a ≠ 0 condition: one sign throughout)
        if _established_symbolically(c, domain, _dl(clock, 0.1), memory):
            _remember(key)
            continue
        proved = False
        for sign in (1, -1) if c.rel == "!=" else (1,):
            iv = certify_nonnegative(
                sign * expr, dom, strict=c.rel != ">=", budget=box_budget, max_dims=16, clock=clock
            )
            if iv.status == "proved":
                proved = True
                break
        if proved:
            _remember(key)
            continue
        if c.rel == "!=" and pts:
            cs = Condition(expr, c.rel, c.why)
            for base in pts[:24]:
                roots = _roots(cs, snames, dom, base, clock)
                if roots:
                    pt = roots[0]
                    return WellPosed("ill-posed", f"{c} fails at {_fmt(pt)} (an exact root)", _fmt(pt), conds)
        undecided.append(c)
    if undecided:
        return WellPosed(
            "undecided",
            "definedness not established: " + "; ".join(str(c) for c in undecided[:3]),
            None,
            conds,
        )
    return WellPosed("defined", f"{len(conds)} definedness condition(s) established", None, conds)
