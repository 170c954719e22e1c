"""Do proved parts imply the claim? ``implied(step, parts, results) -> (bool, how)``, decided symbolically.

A conjunction (``custom.all_of``) is proved only when its parts are proved *and* they imply the claim; a
proved part that says something else proves nothing about the claim. Three rules are recognised, each
checked exactly (SymPy reduction to zero, and signs by Arb enclosures over the claim's box; never evalf):

* **cases**: every part states the claim itself (the same gap ``big − small``, exactly) on a piece of the
  domain; ``custom._parts_cover`` then credits the union only where the pieces tile the claim's box;
* **combination**: ``gap(claim) = Σ c_i gap(part_i) + r`` with every multiplier ``c_i ≥ 0`` and the remainder
  ``r ≥ 0`` on the claim's box (``c_i = 1`` for a chain ``a ≤ b ≤ c``; given multipliers for a weighted sum,
  e.g. a linear form dominated coefficientwise), each part proved on a region that contains the box;
* **max/min**: ``max(a_1, …, a_n) ≤ R`` is the conjunction of ``a_i ≤ R`` (and ``L ≤ min(b_j)`` of
  ``L ≤ b_j``): each piece is implied by the parts under the rules above.

Anything else is not recognised, and the conjunction is then at most verified numerically.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy as sp

from .. import intervals
from ..ledger import Domain, Step, StepResult, Verdict, covers, free_names
from .budget import Spent, run_symbolic
from .sampling import _sides
from .verdicts import proved

#: seconds for each SymPy call or branch and bound of an implication rule: a rule that needs longer decides nothing
_CAP = 3.0


def _gap(step: Step) -> tuple[sp.Expr, bool]:
    small, big, strict = _sides(step)
    return sp.sympify(big) - sp.sympify(small), strict


def _is_zero(e: sp.Expr) -> bool:
    """``e ≡ 0`` by exact symbolic reduction (expand, then together, then simplify)."""
    e = sp.sympify(e)
    if e == 0:
        return True
    for reduce in (sp.expand, lambda x: sp.together(sp.expand(x)), sp.simplify):
        try:
            if run_symbolic(reduce, e, deadline=_CAP, stage="implication: reduce to 0") == 0:
                return True
        except Exception:  # noqa: BLE001 - a reduction SymPy cannot do decides nothing
            return False
    return False


def _box(step: Step) -> dict:
    return {s_: (sp.sympify(lo), sp.sympify(hi)) for s_, (lo, hi) in step.domain.ranges.items()}


def _sign_on_box(e: sp.Expr, step: Step, strict: bool) -> bool:
    """``e ≥ 0`` (``> 0``) on the claim's whole box, by one Arb enclosure (rigorous; False if not shown)."""
    e = sp.sympify(e)
    if e.is_Rational:
        return bool(e > 0) if strict else bool(e >= 0)
    names = free_names(e)
    box = {s_: r_ for s_, r_ in _box(step).items() if s_ in names}
    if names - set(box):
        return False
    try:
        with intervals.iv_prec(128):
            val = intervals.interval_eval(e, box)
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError):
        return False
    return bool(val.lo > 0) if strict else bool(val.lo >= 0)


def _defined_on_box(c: sp.Expr, step: Step) -> bool:
    """Every denominator of ``c`` is shown nonzero on the claim's box (a ratio of gaps is undefined where the
    part's gap vanishes: ``gap = c·gap_i`` would then say nothing there)."""
    c = sp.sympify(c)
    dens = [sp.fraction(sp.together(c))[1]]
    dens += [n.base for n in sp.preorder_traversal(c) if isinstance(n, sp.Pow) and n.exp.is_negative]
    return all(d.is_Rational and d != 0 or _sign_on_box(d, step, True) or _sign_on_box(-d, step, True) for d in dens)


def _part_holds_on_claim(step: Step, part: Step, res: StepResult) -> bool:
    """The part was proved on a region containing the claim's box (on the symbols the part uses)."""
    used = free_names(part.lhs) | free_names(part.rhs)
    if not covers(res.covered, step.domain, {s_ for s_ in step.domain.ranges if s_ in used}):
        return False
    extra = set(part.domain.constraints) - set(step.domain.constraints)
    return not extra


def implied(
    step: Step,
    parts: Sequence[Step],
    results: Sequence[StepResult],
    multipliers: Sequence[sp.Expr] | None = None,
    subs: Sequence[Mapping | None] | None = None,
    rule: str | None = None,
) -> tuple[bool, str]:
    """Whether the proved ``parts`` imply ``step`` by one of the rules above, and how (in words).

    ``subs[i]`` (optional) substitutes into part ``i`` (``{ε: 1/k}``: a part stated in ε used for a claim in
    k); the substituted values must provably lie where the part was proved. ``multipliers[i]`` fixes part
    ``i``'s multiplier in the combination rule (otherwise 1, or the ratio of the gaps for a single part).
    ``rule`` (one of ``RULES``, optional) is the rule the author says applies: tried first, alone; the full
    search runs only when it fails (the answer is the same, the search for a rule is what it saves)."""
    if rule is not None and rule not in RULES:
        raise ValueError(f"implication rule must be one of {sorted(RULES)}, got {rule!r}")
    if step.kind != "inequality":
        return False, f"a conjunction proves inequalities only (this step is a {step.kind})"
    if len([r for r in results if r.verdict == Verdict.PROVED]) != len(parts):
        return False, "not every part is proved"
    if multipliers is not None and len(multipliers) != len(parts):
        return False, f"{len(multipliers)} multipliers for {len(parts)} parts"
    if subs is not None:
        keep = _instances(step, parts, results, subs)
        if multipliers is not None:
            multipliers = [multipliers[i] for i in keep[2]]
        parts, results = keep[0], keep[1]
    try:
        if RULES.get(rule) is not None:
            ok, how = RULES[rule](step, list(parts), list(results), multipliers)
            if ok:
                return True, how
        return _implied(step, list(parts), list(results), multipliers, depth=0)
    except (sp.SympifyError, TypeError, ValueError, KeyError, ZeroDivisionError, RecursionError) as exc:
        # an expression a rule cannot handle decides nothing: the implication is then not established
        return False, f"implication not decided ({exc.__class__.__name__}: {str(exc)[:80]})"


def _implied(step, parts, results, multipliers, depth) -> tuple[bool, str]:
    gap, strict = _gap(step)
    gap = _decide_minmax(gap, step)
    proved = list(zip(parts, results))
    ineq = [(p, r) for p, r in proved if p.kind == "inequality"]

    # cases: each part states the claim on a piece of the domain (the tiling is custom._parts_cover's)
    if (
        ineq
        and len(ineq) == len(parts)
        and all(_gap(p)[1] >= strict and _is_zero(_gap(p)[0] - gap) for p, _ in ineq)
        and _tiled(step, ineq)
    ):
        return True, "cases: every part states the claim itself on a piece of the domain, and the pieces tile it"
    usable = [(p, r) for p, r in ineq if _part_holds_on_claim(step, p, r)]
    forms = _gap_forms(gap, proved)
    if multipliers is not None:
        pairs = [(p, r, sp.sympify(c)) for p, r, c in zip(parts, results, multipliers) if sp.sympify(c) != 0]
        if any((p, r) not in usable for p, r, _ in pairs):
            return False, "a part with a nonzero multiplier is not proved on the claim's whole box"
        for form in forms:
            ok, how = _combination(step, form, strict, [(p, c) for p, _, c in pairs])
            if ok:
                return True, how
        return False, how
    # chains and sums: every part, or a single part, with multiplier 1; a single part scaled by gap/part gap
    candidates = [[(p, sp.Integer(1)) for p, _ in usable]] if usable else []
    candidates += [[(p, sp.Integer(1))] for p, _ in usable] if len(usable) > 1 else []
    for form in forms:
        for combo in candidates:
            ok, how = _combination(step, form, strict, combo)
            if ok:
                return True, how
        for p, _ in usable:
            ratio = (
                run_symbolic(sp.simplify, form / _gap(p)[0], deadline=_CAP, stage="implication: ratio")
                if _gap(p)[0] != 0
                else None
            )
            ratio = None if isinstance(ratio, Spent) else ratio
            if ratio is not None and not ratio.has(sp.zoo, sp.nan) and _sign_on_box(ratio, step, False):
                ok, how = _combination(step, form, strict, [(p, ratio)])
                if ok:
                    return True, how
    ok, how = _rewrite_and_sign(step, gap, strict, parts, proved)
    if ok:
        return True, how
    if depth < 3:
        for rule in (_by_pieces, _by_monotone, _by_domains):
            ok, how = rule(step, parts, results, depth)
            if ok:
                return True, how
    return False, (
        "the parts are not recognised as implying the claim (cases, a nonnegative combination, a rewrite whose "
        "sign follows from the parts, max/min, a monotone function of both sides)"
    )


def _rule_rewrite(step, parts, results, multipliers) -> tuple[bool, str]:
    gap, strict = _gap(step)
    return _rewrite_and_sign(step, _decide_minmax(gap, step), strict, parts, list(zip(parts, results)))


def _rule_pieces(step, parts, results, multipliers) -> tuple[bool, str]:
    return _by_pieces(step, parts, results, 0)


def _rule_monotone(step, parts, results, multipliers) -> tuple[bool, str]:
    return _by_monotone(step, parts, results, 0)


def _rule_domains(step, parts, results, multipliers) -> tuple[bool, str]:
    return _by_domains(step, parts, results, 0)


#: the rules an author may name (``implied(rule=…)``); "combination" and "cases" are the search's first steps
#: (None: the search itself)
RULES = {
    "rewrite": _rule_rewrite,
    "pieces": _rule_pieces,
    "monotone": _rule_monotone,
    "domains": _rule_domains,
    "combination": None,
    "cases": None,
}


def _tiled(step: Step, proved) -> bool:
    """Each part's proof covers its own box, and those boxes (on the claim's symbols) tile the claim's box."""
    syms = list(step.domain.ranges)
    for p, r in proved:
        if not covers(r.covered, p.domain, {s_ for s_ in p.domain.ranges if s_ in syms}):
            return False
        if set(p.domain.constraints) - set(step.domain.constraints):
            return False
    box = {s_: tuple(sp.sympify(v) for v in step.domain.ranges[s_]) for s_ in syms}
    return tiles(box, [part_box(p, syms) for p, _ in proved])


def _decide_minmax(e: sp.Expr, step: Step) -> sp.Expr:
    """``e`` with each two-entry max/min whose order is proved on the claim's box (Arb enclosure, else branch
    and bound) replaced by the entry it equals there: on a piece ``τ ≤ 2``, ``max(τ, 2)`` is 2."""
    from .interval import certify_nonnegative

    def ge(a: sp.Expr, b: sp.Expr) -> bool:
        d = sp.sympify(a - b)
        if _sign_on_box(d, step, False):
            return True
        if not free_names(d) <= set(step.domain.ranges):
            return False
        return certify_nonnegative(d, step.domain, budget=100).status == "proved"

    def walk(node: sp.Expr) -> sp.Expr:
        if not getattr(node, "args", ()):
            return node
        node = node.func(*[walk(a) for a in node.args])
        if isinstance(node, (sp.Max, sp.Min)) and len(node.args) == 2:
            a, b = node.args
            first = ge(a, b)
            if first or ge(b, a):
                return (a if first else b) if isinstance(node, sp.Max) else (b if first else a)
        return node

    if not e.has(sp.Max, sp.Min):
        return e
    return walk(e)


def _gap_forms(gap: sp.Expr, proved) -> list[sp.Expr]:
    """The gap, and the gap with each identity part ``a = b`` used to rewrite ``a`` as ``b``."""
    forms = [gap]
    for p, _r in proved:
        if p.kind != "identity":
            continue
        a, b = sp.sympify(p.lhs), sp.sympify(p.rhs)
        for x, y in ((a, b), (b, a)):
            if x.free_symbols and gap.has(x):
                forms.append(gap.xreplace({x: y}))
    return forms


def _restricted(step: Step, name: str, small: sp.Expr, big: sp.Expr, strict: bool, domain=None) -> Step:
    return Step(
        f"{step.name} [{name}]",
        small,
        big,
        kind="inequality",
        relation="<" if strict else "<=",
        domain=domain or step.domain,
    )


def _by_pieces(step, parts, results, depth) -> tuple[bool, str]:
    """``c·max(a_i) ≤ R`` (``c > 0`` rational) ⟸ every ``c·a_i ≤ R``; ``L ≤ c·min(b_j)`` ⟸ every ``L ≤ c·b_j``;
    ``c·|x| ≤ R`` ⟸ ``±c·x ≤ R``."""
    small, big, strict = _sides(step)
    for side, pieces in ((small, sp.Max), (big, sp.Min)):
        scale, core = side.as_coeff_Mul() if isinstance(side, sp.Mul) else (sp.Integer(1), side)
        if not (isinstance(core, pieces) and scale.is_Rational and scale > 0):
            continue
        subs_ = [
            _restricted(
                step,
                f"entry {i + 1}",
                scale * a if pieces is sp.Max else small,
                big if pieces is sp.Max else scale * a,
                strict,
            )
            for i, a in enumerate(core.args)
        ]
        if all(_implied(s_, parts, results, None, depth + 1)[0] for s_ in subs_):
            return True, f"{pieces.__name__.lower()}: each of its {len(subs_)} entries is implied"
    scale, core = small.as_coeff_Mul() if isinstance(small, sp.Mul) else (sp.Integer(1), small)
    if isinstance(core, sp.Abs) and scale.is_Rational and scale > 0:  # c|x| ≤ R ⟸ c·x ≤ R and −c·x ≤ R
        x = core.args[0]
        subs_ = [_restricted(step, name, sgn * scale * x, big, strict) for name, sgn in (("+", 1), ("−", -1))]
        if all(_implied(s_, parts, results, None, depth + 1)[0] for s_ in subs_):
            return True, "abs: c·x ≤ R and −c·x ≤ R are both implied"
    return False, ""


_INCREASING = (sp.exp, sp.log)


def _by_monotone(step, parts, results, depth) -> tuple[bool, str]:
    """``f(u) ≤ f(v)`` ⟸ ``u ≤ v`` for ``f`` = exp or log (increasing; e is exp(1))."""
    small, big, strict = _sides(step)

    def split(e):
        if e == sp.E:
            return sp.exp, sp.Integer(1)
        if isinstance(e, _INCREASING):
            return e.func, e.args[0]
        return None, None

    fs, us = split(sp.sympify(small))
    fb, ub = split(sp.sympify(big))
    if fs is None or fs is not fb:
        return False, ""
    inner = _restricted(step, "argument", us, ub, strict)
    ok, how = _implied(inner, parts, results, None, depth + 1)
    return (True, f"monotone: {fs.__name__} increasing, and for the arguments {how}") if ok else (False, "")


def _by_domains(step, parts, results, depth) -> tuple[bool, str]:
    """Cases by domain: parts proved on different boxes; on each box the claim, restricted to it, is implied
    by the parts proved there, and the boxes tile the claim's box."""
    boxes: dict[tuple, list[int]] = {}
    for i, p in enumerate(parts):
        key = tuple(
            sorted((str(s_), str(lo), str(hi)) for s_, (lo, hi) in p.domain.ranges.items() if s_ in step.domain.ranges)
        )
        boxes.setdefault(key, []).append(i)
    if len(boxes) < 2:
        return False, ""
    pieces = []
    for key, idx in boxes.items():
        piece = dict(step.domain.ranges)
        for name, lo, hi in key:
            sym = next(s_ for s_ in step.domain.ranges if str(s_) == name)
            c_lo, c_hi = step.domain.ranges[sym]
            piece[sym] = (sp.Max(sp.sympify(lo), c_lo), sp.Min(sp.sympify(hi), c_hi))
        try:
            dom = Domain(piece, step.domain.constraints, name=f"piece of {step.domain.name}")
        except Exception:  # noqa: BLE001 - an empty piece: nothing to prove there
            continue
        sub = _restricted(step, "piece", *_sides(step)[:2], _sides(step)[2], domain=dom)
        ok, how = _implied(sub, [parts[i] for i in idx], [results[i] for i in idx], None, depth + 1)
        if not ok:
            return False, ""
        pieces.append((dom, how))
    syms = list(step.domain.ranges)
    box = {s_: tuple(sp.sympify(v) for v in step.domain.ranges[s_]) for s_ in syms}
    if not tiles(box, [{s_: tuple(sp.sympify(v) for v in d.ranges[s_]) for s_ in syms} for d, _ in pieces]):
        return False, ""
    return True, "cases by domain: " + "; ".join(f"on {d.describe()}: {h}" for d, h in pieces)


def _instances(step: Step, parts, results, subs) -> tuple[list[Step], list[StepResult], list[int]]:
    """Each part with a substitution (``{ε: 1/k}``) as its instance on the claim's box, kept only where the
    substituted values provably lie in the part's proved region (an Arb enclosure over the claim's box)."""
    if len(subs) != len(parts):
        raise ValueError(f"{len(subs)} substitutions for {len(parts)} parts")
    out_p, out_r, kept = [], [], []
    for i, (p, r, sub) in enumerate(zip(parts, results, subs)):
        if not sub:
            out_p.append(p)
            out_r.append(r)
            kept.append(i)
            continue
        inside = True
        for sym, val in sub.items():
            lo, hi = (sp.sympify(v) for v in (r.covered or {}).get(str(sym), (sp.nan, sp.nan)))
            names = free_names(sp.sympify(val))
            box = {s_: rg for s_, rg in _box(step).items() if s_ in names}
            try:
                with intervals.iv_prec(128):
                    enc = intervals.interval_eval(sp.sympify(val), box)
                inside = (
                    not (names - set(box))
                    and lo.is_comparable
                    and hi.is_comparable
                    and bool(enc.lo >= intervals.to_iv(lo, lo).lo)
                    and bool(enc.hi <= intervals.to_iv(hi, hi).hi)
                )
            except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError):
                inside = False
            if not inside:
                break
        if not inside:
            continue  # the instance is not shown to lie where the part was proved: unusable
        if any(c.subs(sub, simultaneous=True) not in (sp.true, *step.domain.constraints) for c in p.domain.constraints):
            continue  # the part holds only where its constraints do, and they are not the claim's: unusable
        found = instance(step, p, sub)
        if found is None:  # an empty intersection: the part says nothing on the claim's box
            continue
        inst, res = found
        out_p.append(inst)
        out_r.append(res)
        kept.append(i)
    return out_p, out_r, kept


def instance(step: Step, part: Step, sub: Mapping) -> tuple[Step, StepResult] | None:
    """``part`` at ``sub`` (``{ε: 1/k}``) as a step on ``step``'s box, with the proved result it inherits.

    Contract: the caller has shown that every substituted value lies where ``part`` was proved, on the whole
    box, and that ``part``'s constraints hold there after substitution; then the instance holds on the claim's
    box cut to ``part``'s ranges of the symbols they share (None when that cut is empty)."""
    mapping = {sym: sp.sympify(val) for sym, val in sub.items()}
    ranges = dict(step.domain.ranges)
    for sym, (lo, hi) in part.domain.ranges.items():
        if sym in ranges and sym not in mapping:
            ranges[sym] = (sp.Max(sp.sympify(lo), ranges[sym][0]), sp.Min(sp.sympify(hi), ranges[sym][1]))
    try:
        dom = Domain(ranges, step.domain.constraints, name=f"{step.domain.name} ∩ {part.domain.name}")
    except Exception:  # noqa: BLE001 - an empty intersection
        return None
    inst = Step(
        f"{part.name} [at {sp.sstr(mapping)}]",
        sp.sympify(part.lhs).subs(mapping, simultaneous=True),
        sp.sympify(part.rhs).subs(mapping, simultaneous=True),
        kind=part.kind,
        relation=part.relation,
        domain=dom,
    )
    covered = {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in dom.ranges.items()}
    return inst, proved(inst, method=f"instance of {part.name}", cover=covered)


def _region(step: Step) -> dict[str, tuple[str, str]]:
    return {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in step.domain.ranges.items()}


def _rewrite_and_sign(step: Step, gap: sp.Expr, strict: bool, parts, proved) -> tuple[bool, str]:
    """``gap = E`` by an identity part (or ``E = gap``), and ``E ≥ 0`` follows structurally once each proved
    sign fact ``A ≥ B`` (``A > B``) of the parts, on the claim's box, is written ``A = B + d`` with ``d ≥ 0``
    (``d > 0``): e.g. gap = log(1 + N/D) with N ≥ 0, D > 0. The structural step is SymPy's assumption system
    on expressions whose only numbers are rationals (a number it would have to evaluate makes it fail)."""
    forms = [gap]
    for p, _r in proved:
        if p.kind != "identity":
            continue
        for a, b in ((p.lhs, p.rhs), (p.rhs, p.lhs)):
            if _is_zero(sp.sympify(a) - gap):
                forms.append(sp.sympify(b))
    facts = []
    for i, (p, r) in enumerate(proved):
        if p.kind == "inequality" and _part_holds_on_claim(step, p, r):
            small_p, big_p, strict_p = _sides(p)
            d = sp.Dummy(f"d{i}", positive=True) if strict_p else sp.Dummy(f"d{i}", nonnegative=True)
            if sp.sympify(small_p) == 0:
                facts.append((sp.sympify(big_p), d))
            elif sp.sympify(big_p) == 0:
                facts.append((sp.sympify(small_p), -d))
            else:
                facts.append((sp.sympify(big_p), sp.sympify(small_p) + d))
    if not facts:
        return False, "no sign facts"
    for e in forms:
        rewritten = _replace_facts(e, facts)
        if rewritten == e:
            continue
        if any(n.is_number and not n.is_Rational for n in sp.preorder_traversal(rewritten) if isinstance(n, sp.Expr)):
            continue  # a numeric constant: its sign would be SymPy's evalf guess
        sign = rewritten.is_positive if strict else rewritten.is_nonnegative
        if sign:
            return True, f"rewrite: gap = {sp.sstr(e)}, whose sign follows from the parts' sign facts"
    return False, "no rewrite whose sign follows from the parts"


def _combination(step: Step, gap: sp.Expr, strict: bool, combo: list[tuple[Step, sp.Expr]]) -> tuple[bool, str]:
    """``gap = Σ c_i gap_i + r`` with ``c_i ≥ 0`` and ``r ≥ 0`` (``> 0`` for a strict claim unless a strict
    part has ``c_i > 0``) on the claim's box."""
    if not combo:
        return False, "no part"
    rest = gap - sp.Add(*[c * _gap(p)[0] for p, c in combo])
    if not all(_sign_on_box(c, step, False) and _defined_on_box(c, step) for _, c in combo):
        return False, "a multiplier is not shown defined and ≥ 0 on the claim's box"
    if _negative_at_a_point(rest, step):  # the remainder cannot be ≥ 0 on the box: skip the costly reductions
        return False, "the combination leaves a remainder < 0 at a point of the box"
    strict_part = any(_gap(p)[1] and _sign_on_box(c, step, True) for p, c in combo)
    need_strict = strict and not strict_part
    if _is_zero(rest):
        if need_strict:
            return False, "a strict claim from non-strict parts"
        return True, _describe(combo, "exactly")
    forms = [rest]
    for reduce in (sp.simplify, lambda x: sp.factor(sp.together(x))):
        f = run_symbolic(reduce, rest, deadline=_CAP, stage="implication: remainder form")
        forms.append(rest if isinstance(f, Spent) else f)
    for form in forms:
        if _sign_on_box(form, step, need_strict):
            return True, _describe(combo, f"plus a remainder {sp.sstr(form)} ≥ 0 on the box (Arb enclosure)")
    from .interval import certify_nonnegative  # branch and bound on Arb, as for any inequality

    if not free_names(forms[1]) <= set(step.domain.ranges):
        return False, "the remainder involves symbols the claim does not range"
    out = run_symbolic(
        certify_nonnegative, forms[1], step.domain, strict=need_strict, budget=400, deadline=_CAP, stage="remainder"
    )
    if not isinstance(out, Spent) and out.status == "proved":
        return True, _describe(
            combo, f"plus a remainder {sp.sstr(forms[1])} ≥ 0 (interval arithmetic, {out.boxes} boxes)"
        )
    return False, "the combination leaves a remainder not shown ≥ 0"


def _negative_at_a_point(e: sp.Expr, step: Step) -> bool:
    """``e < 0`` at one point of the claim's box (its centre; 1 from a finite end of a half-line), by an Arb
    enclosure of ``e`` there: then ``e ≥ 0`` on the box is false. Only ever used to give up early, never to prove."""
    names = free_names(e)
    point = {}
    for s_, (lo, hi) in _box(step).items():
        if s_ not in names:
            continue
        if lo.is_finite and hi.is_finite:
            mid = (lo + hi) / 2
        elif lo.is_finite:
            mid = lo + 1
        elif hi.is_finite:
            mid = hi - 1
        else:
            mid = sp.Integer(0)
        if s_.is_integer:
            mid = sp.floor(mid) if bool(sp.floor(mid) >= lo) else sp.ceiling(mid)
        point[s_] = (mid, mid)
    if names - set(point):
        return False
    try:
        with intervals.iv_prec(128):
            val = intervals.interval_eval(e, point)
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, ArithmeticError):
        return False
    return bool(val.hi < 0)


def _describe(combo: list[tuple[Step, sp.Expr]], tail: str) -> str:
    terms = " + ".join(f"{'' if c == 1 else f'({sp.sstr(c)})·'}gap[{p.name}]" for p, c in combo)
    return f"combination: gap = {terms}, {tail}"


__all__ = ["RULES", "implied", "instance"]


def _replace_facts(e: sp.Expr, facts: list[tuple[sp.Expr, sp.Expr]]) -> sp.Expr:
    """``e`` with each fact's expression ``A`` replaced by its form ``B + d``: verbatim subtrees, and a product
    ``A`` also where its factors sit among a larger product's (SymPy flattens ``N/D`` into one product)."""
    out = e.xreplace(dict(facts))

    def walk(node: sp.Expr) -> sp.Expr:
        if not node.args:
            return node
        node = node.func(*[walk(a) for a in node.args])
        if isinstance(node, sp.Mul):
            for a, b in facts:
                if not isinstance(a, sp.Mul):
                    continue
                have = list(node.args)
                try:
                    for f in a.args:
                        have.remove(f)
                except ValueError:
                    continue
                return sp.Mul(b, *have)
        return node

    return walk(out)


def part_box(part: Step, syms: Sequence[Any]) -> dict[Any, tuple[Any, Any]]:
    """A part's box on ``syms`` (unbounded where it does not range a symbol), ready for ``tiles``: integer
    ranges [1, 12] and [13, ∞) tile, so each is widened by 1/2 on both sides."""
    pb = {}
    for s_ in syms:
        lo, hi = (sp.sympify(v) for v in part.domain.ranges.get(s_, (-sp.oo, sp.oo)))
        if s_.is_integer:
            lo, hi = lo - sp.Rational(1, 2), hi + sp.Rational(1, 2)
        pb[s_] = (lo, hi)
    return pb


def tiles(box: Mapping[Any, tuple[Any, Any]], pboxes: Sequence[Mapping[Any, tuple[Any, Any]]]) -> bool:
    """True when every cell of the grid of end points inside ``box`` lies in one of ``pboxes``."""
    import itertools

    try:
        cuts = {}
        for s_, (lo, hi) in box.items():
            pts = {lo, hi} | {v for pb in pboxes for v in pb[s_] if bool(lo < v) and bool(v < hi)}
            cuts[s_] = sorted(pts, key=lambda v: float(v) if v.is_finite else (1e308 if v == sp.oo else -1e308))
        cells = [list(zip(c[:-1], c[1:])) or [(c[0], c[0])] for c in cuts.values()]
        for cell in itertools.product(*cells):
            if not any(
                all(bool(pb[s_][0] <= a) and bool(b <= pb[s_][1]) for s_, (a, b) in zip(cuts, cell)) for pb in pboxes
            ):
                return False
    except TypeError:  # an end point SymPy cannot order (symbolic): no credit for the union
        return False
    return True
