"""The checkers a step can use. Every one of them can fail, and a test shows each one failing.

* identity: ``simplify(lhs − rhs) == 0`` and a 50-digit spot-check at random domain points (a
  simplification bug cannot pass: a spot-check mismatch refutes even a "simplified" identity);
* inequality: symbolic reduction where SymPy can (assumptions, or a supplied certificate
  checked as an identity), else certified interval arithmetic (``mpmath.iv``, adaptive
  subdivision of the domain box); and in every case a randomized + adversarial falsifier
  (box corners, boundary snapping, log-uniform sampling of wide ranges, the step's own
  adversarial points, then pattern-search toward violation) reporting the worst ratio found;
  a float-found violation is confirmed at 50 digits before the step is refuted;
* expansion: SymPy series about ``var = ∞`` compared term by term with the claim;
* limit: SymPy limit compared with the claim, with a numeric cross-check.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from . import intervals
from .ledger import Domain, Step, StepResult, Verdict, free_names

DEFAULTS: dict[str, Any] = {
    "trials": 100_000,  # falsifier evaluations per inequality
    "seed": 0,
    "dps": 50,  # digits for spot-checks and confirmations
    "spot_points": 6,  # random points per identity spot-check
    "box_budget": 1500,  # interval boxes per inequality
    "max_dims": 4,  # interval subdivision only below this many free symbols
    "k_cap": 12,  # largest concrete k used to instantiate symbolic sums
    "real_cap": 1e6,  # sampling cap for unbounded real ranges
}


def check_step(step: Step, **options: Any) -> StepResult:
    """Check one step with the checker for its kind."""
    opts = {**DEFAULTS, **options}
    step = step.unwrapped()  # printed forms (Shown) are for the reader; checks run on the values
    if step.check is not None:
        res = step.check(step, opts)
    elif step.kind == "definition":
        res = StepResult(step.name, step.kind, Verdict.DEFINED, "definition (well-formed: free symbols covered)")
    elif step.kind == "identity":
        res = check_identity(step, opts)
    elif step.kind == "inequality":
        res = check_inequality(step, opts)
    elif step.kind == "expansion":
        res = check_expansion(step, opts)
    elif step.kind == "limit":
        res = check_limit(step, opts)
    else:  # pragma: no cover - Step validates kind
        raise AssertionError(step.kind)
    res.provenance = step.provenance
    res.expected = step.expected
    return res


# ----------------------------------------------------------------------------- sampling


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


@dataclass
class Instance:
    """An expression with its sums made concrete for given structural integers."""

    fn_float: Callable
    args: list[sp.Symbol]
    concrete: list[sp.Expr]
    scalars: list[sp.Symbol]
    entries: list[tuple[sp.Indexed, sp.Symbol]]  # (indexed atom, its base label)
    _fn_mp: Callable | None = None

    @property
    def fn_mp(self) -> Callable:
        if self._fn_mp is None:  # built on first use: most instances never need 50 digits
            self._fn_mp = sp.lambdify(self.args, self.concrete, modules="mpmath", dummify=False)
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
        concrete = [e.subs(structural_values).doit() for e in self.exprs]
        atoms = sorted(set().union(*(c.atoms(sp.Indexed) for c in concrete)), key=str)
        dummies = [sp.Symbol(f"_entry{n}", real=True) for n in range(len(atoms))]
        rep = dict(zip(atoms, dummies))
        with sp.evaluate(False):  # a plain renaming: re-evaluating every node costs seconds
            concrete = [c.xreplace(rep) for c in concrete]
        scalars = [s for s in self.scalars if s not in structural_values]
        args = scalars + dummies
        fn_float = sp.lambdify(args, concrete, modules="math", dummify=False)
        inst = Instance(fn_float, args, concrete, scalars, [(a, a.base.label) for a in atoms])
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


# ----------------------------------------------------------------------------- identity


def check_identity(step: Step, opts: Mapping[str, Any]) -> StepResult:
    diff = step.lhs - step.rhs
    simp = step.simplifier or sp.simplify
    try:
        reduced = simp(diff)
        symbolic = reduced == 0
    except Exception as exc:  # SymPy can fail deep inside simplify; say so, do not crash
        reduced, symbolic = None, False
        _ = exc
    spot = _spot_check(step, [step.lhs, step.rhs], opts)
    if spot["counterexample"] is not None:
        return StepResult(
            step.name,
            step.kind,
            Verdict.REFUTED,
            "50-digit spot-check" + (" (SymPy simplified to 0: simplification bug)" if symbolic else ""),
            evidence=spot["evidence"],
            counterexample=spot["counterexample"],
            trials=spot["n"],
        )
    if spot["n"] == 0 and not symbolic:
        return StepResult(
            step.name,
            step.kind,
            Verdict.UNDECIDED,
            "no symbolic reduction and no evaluable point",
            evidence=str(reduced),
        )
    if symbolic:
        return StepResult(
            step.name,
            step.kind,
            Verdict.PROVED,
            f"symbolic simplification to 0; spot-checked at {spot['n']} points ({opts['dps']} digits)",
            evidence=spot["evidence"],
            trials=spot["n"],
            symbolic=True,
        )
    return StepResult(
        step.name,
        step.kind,
        Verdict.VERIFIED,
        f"SymPy did not reduce lhs − rhs to 0; agrees at {spot['n']} random points ({opts['dps']} digits)",
        evidence=spot["evidence"],
        trials=spot["n"],
    )


def _spot_check(step: Step, exprs: list[sp.Expr], opts: Mapping[str, Any]) -> dict[str, Any]:
    rng = random.Random(f"{opts['seed']}:{step.name}")
    ev = Evaluator(exprs, step.domain)
    sampler = Sampler(step.domain, rng, opts["real_cap"], min(opts["k_cap"], 6))
    dps = opts["dps"]
    exact_tol = any(e.has(sp.Integral, sp.Derivative) for e in exprs)
    tol = mpmath.mpf(10) ** (-(dps // 2 if exact_tol else dps - 15))
    worst = mpmath.mpf(0)
    n = 0
    pts = [ev.complete(dict(p), sampler) for p in step.adversarial]
    tries = 0
    while len(pts) < opts["spot_points"] + len(step.adversarial) and tries < 50 * opts["spot_points"]:
        tries += 1
        pt = ev.random_point(sampler, snap=0.1)
        if _satisfies(step.domain, pt):
            pts.append(pt)
    for pt in pts:
        try:
            with mpmath.workdps(dps):
                lv, rv = _exact_values(exprs, pt, ev, dps)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue
        n += 1
        scale = max(mpmath.mpf(1), abs(lv), abs(rv))
        err = abs(lv - rv) / scale
        worst = max(worst, err)
        if err > tol:
            return {
                "n": n,
                "counterexample": {**_fmt_point(pt), "lhs": mpmath.nstr(lv, dps - 5), "rhs": mpmath.nstr(rv, dps - 5)},
                "evidence": f"relative difference {mpmath.nstr(err, 3)} > {mpmath.nstr(tol, 2)}",
            }
    return {"n": n, "counterexample": None, "evidence": f"max relative difference {mpmath.nstr(worst, 3)}"}


def _exact_values(exprs: list[sp.Expr], pt: Mapping, ev: Evaluator, dps: int) -> list:
    """High-precision values; falls back to SymPy evalf for integrals and derivatives."""
    if any(e.has(sp.Derivative) for e in exprs):  # integrals go through lambdify → mpmath.quad
        sub = {s: (sp.Integer(v) if isinstance(v, int) else sp.Float(v, dps)) for s, v in pt.items()}
        struct = {s: int(pt[s]) for s in ev.structural}
        out = []
        for e in exprs:
            val = e.subs(struct).doit().subs(sub).evalf(dps)
            if not val.is_number:
                raise ValueError("not evaluable")
            out.append(mpmath.mpf(str(val)) if val.is_real is not False else mpmath.mpc(complex(val)))
        return out
    return ev.evaluate(pt, exact=True, dps=dps)


# ----------------------------------------------------------------------------- inequality


def _sides(step: Step) -> tuple[sp.Expr, sp.Expr, bool]:
    """(small, big, strict) such that the claim reads small ≤ big (or <)."""
    rel = step.relation
    if rel in ("<=", "<"):
        return step.lhs, step.rhs, rel == "<"
    return step.rhs, step.lhs, rel == ">"


def _obviously_nonnegative(e: sp.Expr) -> bool:
    """SymPy's assumptions, extended by: even powers of real bases (where defined), and sums and
    products of nonnegative terms. (x⁻² is nonnegative wherever it is defined.)"""
    if e.is_nonnegative:
        return True
    if isinstance(e, sp.Pow):
        ex = e.exp
        return bool(ex.is_integer and ex.is_even and e.base.is_real)
    if isinstance(e, (sp.Mul, sp.Add)):
        return all(_obviously_nonnegative(a) for a in e.args)
    return False


def check_inequality(step: Step, opts: Mapping[str, Any]) -> StepResult:
    small, big, strict = _sides(step)
    gap = big - small
    methods: list[str] = []
    symbolic = certified = False
    evidence: list[str] = []

    # (a) symbolic reduction
    if step.certificate is not None:
        cert = sp.sympify(step.certificate)
        same = sp.simplify(gap - cert) == 0
        sign_ok = cert.is_positive if strict else _obviously_nonnegative(cert)
        if same and sign_ok:
            symbolic = True
            methods.append("symbolic: gap = certificate, certificate ≥ 0 by SymPy assumptions")
        else:
            evidence.append("certificate rejected" + ("" if same else " (not equal to the gap)"))
    if not symbolic:
        try:
            g = sp.simplify(gap)
            sign = g.is_positive if strict else g.is_nonnegative
        except Exception:
            sign = None
        if sign:
            symbolic = True
            methods.append("symbolic: SymPy assumptions give gap ≥ 0")

    # (b) certified interval arithmetic over the box
    interval = None
    if not symbolic:
        interval = certify_nonnegative(
            gap, step.domain, strict=strict, budget=opts["box_budget"], max_dims=opts["max_dims"]
        )
        if interval.status == "proved":
            certified = True
            methods.append(f"interval arithmetic: certified on {interval.boxes} boxes")
        elif interval.status == "refuted":
            pass
        else:
            evidence.append(f"interval: {interval.reason}")

    # (c) falsifier, always (its worst ratio is part of the record)
    fz = falsify(step, opts)
    methods.append(f"falsifier: {fz.trials} trials")
    evidence.append(fz.evidence)

    if fz.counterexample is not None:
        return StepResult(
            step.name,
            step.kind,
            Verdict.REFUTED,
            "; ".join(methods),
            "; ".join(evidence),
            worst_ratio=fz.worst_ratio,
            trials=fz.trials,
            counterexample=fz.counterexample,
        )
    if interval is not None and interval.status == "refuted":
        return StepResult(
            step.name,
            step.kind,
            Verdict.REFUTED,
            "interval subdivision found a violating point",
            interval.reason,
            worst_ratio=fz.worst_ratio,
            trials=fz.trials,
            counterexample=interval.counterexample,
        )
    verdict = Verdict.PROVED if (symbolic or certified) else Verdict.VERIFIED
    if fz.trials == 0 and verdict is Verdict.VERIFIED:
        verdict = Verdict.UNDECIDED
    return StepResult(
        step.name,
        step.kind,
        verdict,
        "; ".join(methods),
        "; ".join(evidence),
        worst_ratio=fz.worst_ratio,
        trials=fz.trials,
        symbolic=symbolic,
        certified=certified,
    )


@dataclass
class IntervalOutcome:
    status: str  # proved | refuted | undecided | n/a
    boxes: int
    reason: str = ""
    counterexample: dict[str, str] | None = None


def _rat(x: float) -> sp.Rational:
    return sp.Rational(repr(float(x)))


def _split(sym: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> list[tuple[sp.Expr, sp.Expr]] | None:
    """Two exact-rational halves of [lo, hi] (geometric on wide positive ranges, integers kept).

    A range straddling 0 is split at 0 first: claims tight at 0 (log(1 + x) ≤ x) then settle
    on each half by the monotonicity test instead of being bisected forever.
    """
    if lo < 0 < hi and not sym.is_integer:
        return [(lo, sp.Integer(0)), (sp.Integer(0), hi)]
    if hi == sp.oo:
        mid = sp.Max(2 * lo, lo + 1) if lo >= 0 else sp.Integer(0)
    elif lo == -sp.oo:
        mid = sp.Min(2 * hi, hi - 1) if hi <= 0 else sp.Integer(0)
    elif lo > 0 and hi / lo > 4:
        mid = _rat(math.sqrt(float(lo) * float(hi)))
    else:
        mid = (lo + hi) / 2
    if sym.is_integer:
        mid = sp.floor(mid)
        mid = sp.Min(sp.Max(mid, lo), hi - 1)
        if hi - lo < 1:
            return None
        return [(lo, mid), (mid + 1, hi)]
    if not (lo < mid < hi):
        return None
    return [(lo, mid), (mid, hi)]


def _rel_width(lo: sp.Expr, hi: sp.Expr) -> float:
    if hi == sp.oo or lo == -sp.oo:
        return 1e9
    if lo > 0 and hi / lo > 4:
        return math.log(float(hi) / float(lo))
    return float(hi - lo)


class _Variants:
    """The expression with some variables fixed at exact endpoints, simplified, and its partials."""

    def __init__(self, expr: sp.Expr, special: Mapping[sp.Symbol, set] | None = None):
        self.expr = expr
        self.special = special or {}  # per symbol: the domain's own endpoints (and 0)
        self.cache: dict[frozenset, tuple[sp.Expr, dict]] = {}

    def get(self, fixed: Mapping[sp.Symbol, sp.Expr]) -> tuple[sp.Expr, dict]:
        key = frozenset(fixed.items())
        if key not in self.cache:
            e = self.expr.subs(dict(fixed)) if fixed else self.expr
            # simplification pays off only where a claim can be tight: on the domain's own faces;
            # inner faces (bisection points) are plentiful and enclosure alone settles them
            if fixed and all(v_ in self.special.get(x_, ()) for x_, v_ in fixed.items()):
                try:
                    e = sp.simplify(e)
                except Exception:  # keep the unsimplified form: still a valid enclosure target
                    pass
            self.cache[key] = (e, {})
        return self.cache[key]

    def partial(self, fixed: Mapping[sp.Symbol, sp.Expr], sym: sp.Symbol) -> sp.Expr | None:
        e, parts = self.get(fixed)
        if sym not in parts:
            try:
                parts[sym] = sp.diff(e, sym)
            except Exception:
                parts[sym] = None
        return parts[sym]


def certify_nonnegative(
    expr: sp.Expr, domain: Domain, strict: bool = False, budget: int = 1500, max_dims: int = 4
) -> IntervalOutcome:
    """Prove ``expr ≥ 0`` (``> 0`` if strict) on the domain box by interval branch and bound.

    Each box is enclosed with outward-rounded interval arithmetic; a box that is not certified
    gets the *monotonicity test* (a partial derivative of one sign over the box moves that
    variable to the face where the minimum lies, substituted exactly and simplified, so a claim
    that is tight on a face is settled symbolically there), then is bisected. A box centre with
    a certainly negative value refutes the claim.
    """
    expr = sp.sympify(expr)
    names = free_names(expr)
    if expr.atoms(sp.Indexed) or _structural_ints(expr):
        return IntervalOutcome("n/a", 0, "vector-valued claim (indexed entries): not subdivided")
    if len(names) > max_dims:
        return IntervalOutcome("n/a", 0, f"{len(names)} free symbols > {max_dims}: not subdivided")
    box0: dict[sp.Symbol, tuple[sp.Expr, sp.Expr]] = {}
    for sym in sorted(names, key=str):
        lo, hi = domain.range_of(sym)
        if sym.is_integer:
            lo = sp.ceiling(lo) if lo.is_finite else lo
            hi = sp.floor(hi) if hi.is_finite else hi
        box0[sym] = (lo, hi)
    cons = [
        c.lhs - c.rhs if isinstance(c, (sp.GreaterThan, sp.StrictGreaterThan)) else c.rhs - c.lhs
        for c in domain.constraints
    ]
    variants = _Variants(expr, {x_: {lo, hi, sp.Integer(0)} for x_, (lo, hi) in box0.items()})
    constrained = set().union(*(free_names(c) for c in domain.constraints)) if domain.constraints else set()
    stack: list[tuple[dict, dict]] = [(box0, {})]
    done = 0
    left: list[dict] = []

    def ok(val: Any) -> bool:
        return val.a > 0 or (val.a >= 0 and not strict)

    def enclose(e: sp.Expr, box: Mapping) -> Any:
        return intervals.interval_eval(e, {x_: intervals.to_iv(lo, hi) for x_, (lo, hi) in box.items()})

    with mpmath.workprec(80), intervals.iv_prec(80):
        while stack:
            if done >= budget:
                left = [b_ for b_, _ in stack]
                break
            box, fixed = stack.pop()
            done += 1
            full = {**box, **{x_: (v_, v_) for x_, v_ in fixed.items()}}
            if any(_outside(c, full) for c in cons):
                continue
            e, _ = variants.get(fixed)
            if e.is_number:
                sign = e.is_positive if strict else e.is_nonnegative
                if sign:
                    continue
                if sign is False:
                    return IntervalOutcome(
                        "refuted",
                        done,
                        f"value {sp.N(e, 10)} at a face of the box",
                        counterexample={str(x_): str(v_) for x_, v_ in fixed.items()},
                    )
            try:
                val = enclose(e, box)
            except intervals.NotEnclosable as exc:
                return IntervalOutcome("n/a", done, f"not enclosable: {exc}")
            except (ZeroDivisionError, ValueError):
                val = None
            if val is not None and ok(val):
                continue
            # monotonicity test: move a monotone variable to the face holding the minimum
            moved = False
            for sym, (lo, hi) in box.items():
                # the minimum over the box sits on a face, but under a constraint on this variable
                # that face may lie outside the domain: the test would then discard good points
                if lo == hi or sym in constrained:
                    continue
                d_ = variants.partial(fixed, sym)
                if d_ is None:
                    continue
                try:
                    dv = enclose(d_, box)
                except (intervals.NotEnclosable, ZeroDivisionError, ValueError):
                    continue
                if dv.a >= 0 and lo.is_finite:
                    face = lo
                elif dv.b <= 0 and hi.is_finite:
                    face = hi
                else:
                    continue
                nb = {x_: r_ for x_, r_ in box.items() if x_ != sym}
                stack.append((nb, {**fixed, sym: face}))
                moved = True
                break
            if moved:
                continue
            # a certainly negative centre refutes
            centre = {x_: _centre(x_, lo, hi) for x_, (lo, hi) in box.items()}
            try:
                cval = enclose(e, {x_: (v_, v_) for x_, v_ in centre.items()})
                if not any(
                    _outside(
                        c, {**{x_: (v_, v_) for x_, v_ in centre.items()}, **{x_: (v_, v_) for x_, v_ in fixed.items()}}
                    )
                    for c in cons
                ):
                    if cval.b < 0 or (strict and cval.b <= 0):
                        pt = {
                            **{str(x_): str(v_) for x_, v_ in fixed.items()},
                            **{str(x_): str(v_) for x_, v_ in centre.items()},
                        }
                        return IntervalOutcome(
                            "refuted", done, f"value ≤ {mpmath.nstr(cval.b, 6)} at a box centre", counterexample=pt
                        )
            except (intervals.NotEnclosable, ZeroDivisionError, ValueError):
                pass
            widths = sorted(((_rel_width(lo, hi), x_) for x_, (lo, hi) in box.items()), key=lambda w_: -w_[0])
            for _, sym in widths:
                parts = _split(sym, *box[sym])
                if parts:
                    for lo, hi in parts:
                        nb = dict(box)
                        nb[sym] = (lo, hi)
                        stack.append((nb, fixed))
                    break
            else:
                left.append(full)
    if not left and not stack:
        return IntervalOutcome("proved", done)
    return IntervalOutcome(
        "undecided", done, f"{len(left)} boxes not certified after {done} evaluations (e.g. {_fmt_box(left[0])})"
    )


def _outside(c: sp.Expr, box: Mapping) -> bool:
    try:
        cv = intervals.interval_eval(c, {x_: intervals.to_iv(lo, hi) for x_, (lo, hi) in box.items()})
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError):
        return False
    return cv.b < 0  # the constraint c ≥ 0 certainly fails: the box lies outside the domain


def _centre(sym: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> sp.Expr:
    if hi == sp.oo:
        c_ = sp.Max(2 * lo, lo + 1)
    elif lo == -sp.oo:
        c_ = sp.Min(2 * hi, hi - 1)
    elif lo > 0 and hi / lo > 4:
        c_ = _rat(math.sqrt(float(lo) * float(hi)))
    else:
        c_ = (lo + hi) / 2
    return sp.floor(c_) if sym.is_integer else c_


def _fmt_box(box: Mapping) -> str:
    return ", ".join(f"{x_} ∈ [{sp.N(lo, 5)}, {sp.N(hi, 5)}]" for x_, (lo, hi) in box.items())


@dataclass
class FalsifierOutcome:
    trials: int
    worst_ratio: float | None
    evidence: str
    counterexample: dict[str, str] | None = None
    worst_point: dict | None = None


def falsify(step: Step, opts: Mapping[str, Any]) -> FalsifierOutcome:
    """Randomized + adversarial search for a violation of ``small ≤ big``; worst ratio small/big."""
    small, big, strict = _sides(step)
    rng = random.Random(f"{opts['seed']}:{step.name}")
    ev = Evaluator([small, big], step.domain)
    sampler = Sampler(step.domain, rng, opts["real_cap"], opts["k_cap"])
    budget = int(opts["trials"])
    dps = opts["dps"]
    state = {
        "n": 0,
        "worst": -math.inf,
        "worst_pt": None,
        "min_margin": math.inf,
        "cx": None,
        "float_noise": 0,
        "top": [],
        "top_r": [],
    }
    scored: list[tuple[float, dict]] = []

    def score(pt: dict) -> float:
        state["n"] += 1
        try:
            sv, bv = ev.evaluate(pt)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return -math.inf
        if math.isnan(sv) or math.isnan(bv):
            return -math.inf
        margin = bv - sv
        ratio = sv / bv if bv > 0 else (math.inf if sv > bv else -math.inf)
        if ratio > state["worst"]:
            state["worst"], state["worst_pt"] = ratio, pt
        if bv > 0 and (len(state["top"]) < 24 or ratio > state["top_r"][-1]):
            state["top"].append(pt)
            state["top_r"].append(ratio)
            order = sorted(range(len(state["top"])), key=lambda i_: -state["top_r"][i_])[:24]
            state["top"] = [state["top"][i_] for i_ in order]
            state["top_r"] = [state["top_r"][i_] for i_ in order]
        state["min_margin"] = min(state["min_margin"], margin)
        violated = margin < 0 or (strict and margin <= 0)
        # a margin within float rounding of zero is confirmed at full precision only for the first
        # few such points: tight claims produce thousands of them, real violations are larger
        tiny = abs(margin) <= 1e-9 * max(1.0, abs(sv), abs(bv))
        if violated and state["cx"] is None and (not tiny or state["float_noise"] < 50):
            confirm(pt)
        elif violated and tiny:
            state["float_noise"] += 1
        return ratio if bv > 0 else (1e300 if violated else -1e300)

    def confirm(pt: dict) -> None:
        try:
            sv, bv = ev.evaluate(pt, exact=True, dps=dps)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            return
        m = bv - sv
        tol = mpmath.mpf(10) ** (-(dps - 10)) * max(1, abs(sv), abs(bv))
        if m < -tol or (strict and m <= tol):
            state["cx"] = {
                **_fmt_point(pt),
                "lhs": mpmath.nstr(sv if step.relation in ("<=", "<") else bv, 20),
                "rhs": mpmath.nstr(bv if step.relation in ("<=", "<") else sv, 20),
            }
        else:
            state["float_noise"] += 1

    def admissible(pt: dict) -> bool:
        return _satisfies(step.domain, pt)

    # 1. the step's own adversarial points and the corners of the box
    seeds = [ev.complete(dict(p), sampler) for p in step.adversarial]
    corner_syms = ev.scalars
    for c in sampler.corners(corner_syms, ev.structural):
        seeds.append(ev.complete(c, sampler))
    for pt in seeds:
        if state["n"] >= budget:
            break
        if admissible(pt):
            scored.append((score(pt), pt))
    # 2. random and boundary-snapped samples
    n_random = max(0, int(0.6 * budget) - state["n"])
    for it in range(n_random):
        pt = ev.random_point(sampler, snap=0.3 if it % 2 else 0.0)
        if not admissible(pt):
            state["n"] += 1
            continue
        sc = score(pt)
        if len(scored) < 64 or sc > scored[-1][0]:
            scored.append((sc, pt))
            scored.sort(key=lambda x: -x[0])
            del scored[64:]
        if state["cx"] is not None:
            break
    # 3. pattern search from the worst points toward violation
    starts = sorted(scored, key=lambda x: -x[0])[:16]
    per_start = max(1, (budget - state["n"]) // max(1, len(starts)))
    while state["cx"] is None and state["n"] < budget:
        if starts:
            sc0, pt0 = starts.pop(0)
        else:  # every start converged: restart from a fresh boundary-snapped point
            pt0 = ev.random_point(sampler, snap=0.3)
            if not admissible(pt0):
                state["n"] += 1
                continue
            sc0 = score(pt0)
        n0 = state["n"]
        _pattern_search(pt0, sc0, per_start, sampler, ev, score, admissible, rng, lambda: state["cx"] is not None)
        if state["n"] == n0:
            state["n"] += 1  # a start with nothing to move still costs a trial: the loop ends

    # the float ratio is noisy where both sides are tiny: report the worst ratio at full precision
    exact_worst = None
    for pt in state["top"]:
        try:
            sv, bv = ev.evaluate(pt, exact=True, dps=dps)
        except (ZeroDivisionError, ValueError, TypeError, OverflowError):
            continue
        if bv > 0:
            r_ = float(sv / bv)
            if exact_worst is None or r_ > exact_worst[0]:
                exact_worst = (r_, pt)
    if exact_worst is not None:
        state["worst"], state["worst_pt"] = exact_worst

    worst = state["worst"]
    worst_f = None if worst in (-math.inf, math.inf) else worst
    ev_txt = (
        f"worst ratio {'lhs/rhs' if step.relation in ('<=', '<') else 'rhs/lhs'} = {worst_f:.9g}"
        if worst_f is not None
        else "no ratio defined"
    )
    ev_txt += f", min margin {state['min_margin']:.3g}"
    if state["worst_pt"] is not None:
        ev_txt += f" at {_short(state['worst_pt'])}"
    if state["float_noise"]:
        ev_txt += f"; {state['float_noise']} float-only violations not confirmed at {dps} digits"
    return FalsifierOutcome(state["n"], worst_f, ev_txt, state["cx"], state["worst_pt"])


def _short(pt: Mapping) -> str:
    items = [(str(k_), v_ if isinstance(v_, int) else mpmath.nstr(mpmath.mpf(v_), 6)) for k_, v_ in pt.items()]
    txt = ", ".join(f"{k_}={v_}" for k_, v_ in items[:6])
    return txt + (", …" if len(items) > 6 else "")


def _pattern_search(pt0, sc0, budget, sampler, ev, score, admissible, rng, stop) -> None:
    """Coordinate pattern search maximising the ratio, steps halving on failure."""
    keys = [s for s in pt0 if s not in ev.structural]
    if not keys:
        return
    best, best_sc = dict(pt0), sc0
    steps = {}
    for key in keys:
        label = key.base.label if isinstance(key, sp.Indexed) else key
        lo, hi = sampler.ranges[label]
        steps[key] = (hi - lo) / 4 if hi > lo else 0.0
    used = 0
    while used < budget and not stop():
        improved = False
        for key in rng.sample(keys, len(keys)):
            if used >= budget or stop():
                break
            label = key.base.label if isinstance(key, sp.Indexed) else key
            lo, hi = sampler.ranges[label]
            for sign in (1, -1):
                cand = dict(best)
                if lo > 0 and hi / lo > 50:  # move multiplicatively on wide positive ranges
                    val = best[key] * math.exp(sign * min(steps[key], 2.0))
                else:
                    val = best[key] + sign * steps[key]
                val = min(max(val, lo), hi)
                if label.is_integer:
                    val = int(round(val))
                cand[key] = val
                used += 1
                if not admissible(cand):
                    continue
                sc = score(cand)
                if sc > best_sc:
                    best, best_sc, improved = cand, sc, True
                    break
        if not improved:
            small = True
            for key in keys:
                steps[key] /= 2
                small &= steps[key] < 1e-12
            if small:
                return


# ----------------------------------------------------------------------------- expansion, limit


def _series_coeffs(expr: sp.Expr, var: sp.Symbol, order: int) -> list[sp.Expr]:
    eps = sp.Dummy("eps", positive=True)
    e = sp.sympify(expr).subs(var, 1 / eps)
    ser = sp.series(e, eps, 0, order + 1).removeO()
    ser = sp.expand(ser)
    return [sp.simplify(ser.coeff(eps, n)) for n in range(order + 1)]


def check_expansion(step: Step, opts: Mapping[str, Any]) -> StepResult:
    if step.point not in (sp.oo, float("inf")):
        raise ValueError("only expansions about ∞ are supported")
    try:
        got = _series_coeffs(step.lhs, step.var, step.order)
        want = _series_coeffs(step.rhs, step.var, step.order)
    except Exception as exc:
        return StepResult(step.name, step.kind, Verdict.UNDECIDED, "SymPy series failed", evidence=str(exc))
    mismatches = []
    unsure = []
    for n_, (g, w_) in enumerate(zip(got, want)):
        d_ = sp.simplify(g - w_)
        if d_ == 0:
            continue
        # SymPy could not reduce: a numeric check at domain points decides between refuted and unsure
        probe = Step(f"{step.name}: coefficient of {step.var}^-{n_}", g, w_, kind="identity", domain=step.domain)
        spot = _spot_check(probe, [g, w_], opts)
        if spot["counterexample"] is not None:
            mismatches.append((n_, g, w_, spot["counterexample"]))
        else:
            unsure.append(n_)
    if mismatches:
        n_, g, w_, cx = mismatches[0]
        return StepResult(
            step.name,
            step.kind,
            Verdict.REFUTED,
            f"SymPy series in 1/{step.var} to order {step.order}",
            evidence=f"coefficient of {step.var}^-{n_}: derived {g}, claimed {w_}",
            counterexample={"term": f"{step.var}^-{n_}", "derived": str(g), "claimed": str(w_), **cx},
        )
    if unsure:
        return StepResult(
            step.name,
            step.kind,
            Verdict.VERIFIED,
            f"SymPy series in 1/{step.var} to order {step.order}",
            evidence=f"coefficients {unsure} agree numerically only",
        )
    return StepResult(
        step.name,
        step.kind,
        Verdict.PROVED,
        f"SymPy series in 1/{step.var} to order {step.order}",
        evidence=f"{step.order + 1} coefficients equal",
        symbolic=True,
    )


def check_limit(step: Step, opts: Mapping[str, Any]) -> StepResult:
    try:
        got = sp.limit(step.lhs, step.var, step.point)
    except Exception as exc:
        return StepResult(step.name, step.kind, Verdict.UNDECIDED, "SymPy limit failed", evidence=str(exc))
    if isinstance(got, sp.Limit) or got.has(sp.Limit):
        return StepResult(step.name, step.kind, Verdict.UNDECIDED, "SymPy returned an unevaluated limit")
    same = got == step.rhs or (got.is_infinite is not True and sp.simplify(got - step.rhs) == 0)
    if same:  # ∞ = ∞ compared structurally: ∞ − ∞ is undefined, not 0
        return StepResult(
            step.name,
            step.kind,
            Verdict.PROVED,
            f"SymPy limit {step.var} → {step.point}",
            evidence=f"limit = {got}",
            symbolic=True,
        )
    if got.is_infinite or sp.sympify(step.rhs).is_infinite:  # one side infinite, not the same infinity
        return StepResult(
            step.name,
            step.kind,
            Verdict.REFUTED,
            f"SymPy limit {step.var} → {step.point}",
            evidence=f"limit is {got}, claimed {step.rhs}",
            counterexample={"limit": str(got), "claimed": str(step.rhs)},
        )
    probe = Step(f"{step.name}: limit value", got, step.rhs, kind="identity", domain=step.domain)
    spot = _spot_check(probe, [got, step.rhs], opts)
    if spot["counterexample"] is not None:
        return StepResult(
            step.name,
            step.kind,
            Verdict.REFUTED,
            f"SymPy limit {step.var} → {step.point}",
            evidence=f"limit is {got}, claimed {step.rhs}",
            counterexample=spot["counterexample"],
        )
    return StepResult(
        step.name,
        step.kind,
        Verdict.VERIFIED,
        f"SymPy limit {step.var} → {step.point}",
        evidence=f"limit {got} agrees numerically with the claim",
    )
