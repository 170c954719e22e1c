"""Cited lemmas: a claim proved as an *instance* of a cited claim that was proved, plus simple glue.

Contract. ``prove_by_citation(step, cited, opts)`` returns a PROVED ``StepResult`` only when, for one proved
cited claim ``L: A(x) R B(x)`` on its proved region ``X`` (its ``covered``, else its stated box) and a
substitution ``σ: x ↦ v(y)`` over the claim's symbols ``y`` (found by matching, or given by the user):

1. *domain mapped*: every ``v_i(y)`` lies in ``X_i`` for every ``y`` of the claim's box ``Y`` (one Arb
   enclosure of ``v_i`` over ``Y``, else the ordinary engine ``check_step`` proving ``lo_i ≤ v_i`` and
   ``v_i ≤ hi_i`` on ``Y``), and ``L``'s constraints, substituted, are the claim's or proved on ``Y``;
2. *instance*: the instance ``A(v) R B(v)`` then holds on ``Y`` (``implication.instance``), and
3. *glue*: the claim follows from it: it is the instance itself (``gap(claim) − gap(instance) ≡ 0`` by exact
   reduction), or a nonnegative combination plus a remainder shown ``≥ 0`` (``implication.implied``), or
   ``lhs ≤ A(v)`` and ``B(v) ≤ rhs`` are each proved by ``check_step`` on ``Y`` (the chain
   ``lhs ≤ A(v) ≤ B(v) ≤ rhs``); with several cited claims, an instance of each, the claim implied by all of
   them together (``implied``'s combination rule: a chain ``a ≤ b ≤ c`` from ``a ≤ b`` and ``b ≤ c``).

An identity claim is proved when ``lhs − rhs ≡ ±(A(v) − B(v))`` exactly and (1) holds. The route never
refutes, and a cited claim that is not proved is never used (``check_citing`` says so in the verdict).
Otherwise it returns None. The claim itself must be shown well-posed on ``Y`` first (``wellposed``).

``check_citing(step, cited, opts, engine)`` is what ``check FILE`` calls for a claim with ``uses``: the route
first; if it does not apply, the ordinary engine (``engine()``), whose verdict is capped at *verified
numerically* when a citation was not proved (the proof as written rests on it), naming that citation.

``with`` (the user's substitution) is ``{cited symbol name: expression over the claim's symbols}``; a symbol
it leaves out is matched (SymPy ``match`` of the cited sides against the claim's), or else kept by name.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp

from .. import intervals
from ..ledger import Step, StepResult, Verdict, free_names, region
from . import verdicts
from .sampling import _sides

#: trials of the falsifier inside each glue or domain-mapping check (a proof is wanted there, not a search)
_GLUE_TRIALS = 2000

Cited = tuple[str, Step, "StepResult | None"]


def _show(e: Any) -> str:
    e = sp.sympify(e)
    return "∞" if e == sp.oo else "−∞" if e == -sp.oo else sp.sstr(e)


def _cited_box(cited: Step, res: StepResult) -> dict[Any, tuple[sp.Expr, sp.Expr]]:
    """Where the cited claim was proved: its ``covered`` region on its symbols, else its stated box (a proved
    verdict covers its stated domain); a symbol ``covered`` does not name keeps its stated range."""
    out = {}
    cov = res.covered or {}
    for sym, (lo, hi) in cited.domain.ranges.items():
        key = str(getattr(sym, "label", sym))
        if key in cov:
            out[sym] = tuple(sp.sympify(v) for v in cov[key])
        else:
            out[sym] = (sp.sympify(lo), sp.sympify(hi))
    return out


def _scalars(step: Step) -> list[sp.Symbol]:
    """The cited claim's free scalar symbols (a vector's label is kept by name, never substituted)."""
    vec = {getattr(b, "label", b) for b in step.domain.ranges if isinstance(b, sp.IndexedBase)}
    names = free_names(step.lhs) | free_names(step.rhs)
    return sorted((s_ for s_ in names if s_ not in vec), key=str)


def _by_name(step: Step) -> dict[str, Any]:
    return {str(getattr(s_, "label", s_)): s_ for s_ in step.domain.ranges}


def _candidates(step: Step, cited: Step, given: Mapping[str, Any]) -> list[dict[sp.Symbol, sp.Expr]]:
    """Substitutions ``cited symbol → expression of the claim`` to try: the user's (``given``), completed by
    matching the cited sides (both together, the gap, then each side alone: the glue cases) against the claim's,
    else by name."""
    syms = _scalars(cited)
    names = {str(s_): s_ for s_ in syms}
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise ValueError(
            f"`with` names {unknown[0]!r}, which is not a free symbol of the cited claim {cited.name!r} "
            f"(its symbols: {', '.join(sorted(names)) or 'none'})"
        )
    fixed = {names[n_]: sp.sympify(v) for n_, v in given.items()}
    free = [s_ for s_ in syms if s_ not in fixed]
    wild = {s_: sp.Wild(f"_w_{s_}") for s_ in free}
    claim_syms = _by_name(step)

    def pattern(e: Any) -> sp.Expr:
        return sp.sympify(e).subs(fixed, simultaneous=True).xreplace(wild)

    pairs: list[tuple[sp.Expr, sp.Expr]] = []
    if step.kind == "identity":
        a, b = sp.sympify(step.lhs), sp.sympify(step.rhs)
        pa, pb = pattern(cited.lhs), pattern(cited.rhs)
        pairs += [(sp.Tuple(a, b), sp.Tuple(pa, pb)), (sp.Tuple(b, a), sp.Tuple(pa, pb)), (a - b, pa - pb)]
    else:
        small, big, _ = _sides(step)
        ps, pb, _ = _sides(cited)
        ps, pb = pattern(ps), pattern(pb)
        pairs += [(sp.Tuple(small, big), sp.Tuple(ps, pb)), (big - small, pb - ps), (small, ps), (big, pb)]
    out: list[dict] = []
    for target, pat in pairs:
        found: Mapping | None = {} if not wild else None
        if wild:
            try:
                found = sp.sympify(target).match(pat)
            except Exception:  # noqa: BLE001 - a pattern SymPy cannot match: no candidate from it
                found = None
        if found is None:
            continue
        cand = dict(fixed)
        for s_, w_ in wild.items():
            if w_ in found:
                cand[s_] = found[w_]
            elif str(s_) in claim_syms:
                cand[s_] = claim_syms[str(s_)]  # not fixed by the match: the claim's symbol of the same name
        if len(cand) == len(syms) and cand not in out:
            out.append(cand)
    if not out and len(fixed) + sum(str(s_) in claim_syms for s_ in free) == len(syms):
        out.append({**fixed, **{s_: claim_syms[str(s_)] for s_ in free}})
    return out


def _check(step: Step, opts: Mapping[str, Any]) -> StepResult:
    from .reentry import check_step

    sub = {k_: v for k_, v in opts.items() if k_ not in ("clock",)}
    sub["trials"] = min(int(opts.get("trials", _GLUE_TRIALS)), _GLUE_TRIALS)
    return check_step(step, **sub)


def _restrict(step: Step, exprs: Sequence[Any]):
    from .chain import _restrict as restrict

    return restrict(step.domain, list(exprs))


def _enclose(v: sp.Expr, step: Step):
    """An Arb enclosure of ``v`` over the claim's box (None if it cannot be enclosed there)."""
    names = free_names(v)
    box = {s_: (sp.sympify(lo), sp.sympify(hi)) for s_, (lo, hi) in step.domain.ranges.items() if s_ in names}
    if names - set(box) or any(isinstance(s_, sp.IndexedBase) for s_ in box):
        return None
    try:
        with intervals.iv_prec(128):
            return intervals.interval_eval(v, box)
    except (intervals.NotEnclosable, ZeroDivisionError, ValueError, TypeError, ArithmeticError):
        return None


def _fmt(x: Any) -> str:
    try:
        f = float(x)
    except (TypeError, ValueError, OverflowError):
        return str(x)
    return "∞" if f == float("inf") else "−∞" if f == float("-inf") else f"{f:.6g}"


def _mapped(step: Step, sym: sp.Symbol, v: sp.Expr, lo: sp.Expr, hi: sp.Expr, opts) -> str | None:
    """Why ``v`` lies in ``[lo, hi]`` on the whole claim box (None: not shown)."""
    v = sp.sympify(v)
    target = f"[{_show(lo)}, {_show(hi)}]"
    if v.is_number:  # a constant: signed exactly or by Arb at rising precision, never by evalf
        from .signs import arb_sign

        def nonnegative(d: sp.Expr) -> bool:
            sign = arb_sign(d)
            return sign is not None and sign >= 0

        try:
            ok = (lo == -sp.oo or nonnegative(v - lo)) and (hi == sp.oo or nonnegative(hi - v))
        except ValueError:
            ok = False
        return f"{sym} ↦ {_show(v)} ∈ {target} (exact/Arb sign)" if ok else None
    enc = _enclose(v, step)
    if enc is not None:
        try:
            inside = bool(enc.lo >= intervals.to_iv(lo, lo).lo) if lo != -sp.oo else True
            inside = inside and (bool(enc.hi <= intervals.to_iv(hi, hi).hi) if hi != sp.oo else True)
        except (intervals.NotEnclosable, ValueError, TypeError):
            inside = False
        if inside:
            return (
                f"{sym} ↦ {_show(v)} ∈ [{_fmt(enc.lo)}, {_fmt(enc.hi)}] ⊆ {target} (Arb enclosure over the claim's box)"
            )
    # the ordinary engine, on each finite end: subdivision, symbolic signs, the proof routes
    hows = []
    for end, rel in ((lo, ">="), (hi, "<=")):
        if not sp.sympify(end).is_finite:
            continue
        try:
            part = Step(
                f"{sym} ↦ {_show(v)} {rel} {_show(end)}", v, end, "inequality", _restrict(step, [v]), relation=rel
            )
        except Exception:  # noqa: BLE001 - a value over symbols the claim does not range: not mapped
            return None
        res = _check(part, opts)
        if res.verdict != Verdict.PROVED:
            return None
        hows.append(f"{rel} {_show(end)} ({res.method.split(';')[0]})")
    return f"{sym} ↦ {_show(v)} ∈ {target}: " + ", ".join(hows)


def _is_zero(e: sp.Expr) -> bool:
    from .implication import _is_zero as zero

    return zero(e)


def _glue(step: Step, inst: Step, inst_res: StepResult, opts) -> str | None:
    """How the claim follows from its proved instance on the claim's box (None: not shown)."""
    from .implication import implied

    if step.kind == "identity":
        d = sp.sympify(step.lhs) - sp.sympify(step.rhs)
        di = sp.sympify(inst.lhs) - sp.sympify(inst.rhs)
        if d == di or _is_zero(d - di):
            return "the claim is the instance itself"
        if d == -di or _is_zero(d + di):
            return "the claim is the instance with its sides exchanged"
        return None
    if inst.kind != "inequality":
        return None
    small, big, strict = _sides(step)
    s_i, b_i, strict_i = _sides(inst)
    if (strict_i or not strict) and (
        sp.sympify(big - small) == sp.sympify(b_i - s_i) or _is_zero(big - small - (b_i - s_i))
    ):
        return "the claim is the instance itself"
    ok, how = implied(step, [inst], [inst_res])
    if ok:
        return how.replace(f"gap[{inst.name}]", "gap[instance]")
    # lhs ≤ A(v) ≤ B(v) ≤ rhs: the two outer comparisons by the ordinary engine
    outer = [(small, s_i, "left"), (b_i, big, "right")]
    need_strict = strict and not strict_i
    hows = []
    for a, b, side in outer:
        if sp.sympify(a) == sp.sympify(b):
            continue
        rel = "<" if need_strict else "<="
        try:
            part = Step(f"{step.name} [{side} glue]", a, b, "inequality", _restrict(step, [a, b]), relation=rel)
        except Exception:  # noqa: BLE001 - glue over symbols the claim does not range: not shown
            return None
        res = _check(part, opts)
        if need_strict and res.verdict == Verdict.PROVED:
            need_strict = False  # this side carries the claim's strictness
        elif need_strict:  # the other side may carry it
            part = dataclasses.replace(part, relation="<=")
            res = _check(part, opts)
        if res.verdict != Verdict.PROVED:
            return None
        hows.append(f"{_show(a)} {'<' if part.relation == '<' else '≤'} {_show(b)} ({res.method.split(';')[0]})")
    if need_strict or not hows:
        return None
    return "glue: " + "; ".join(hows) + ", so lhs ≤ instance lhs ≤ instance rhs ≤ rhs"


def _try(
    step: Step, name: str, cited: Step, res: StepResult, sub: dict, opts, pool: list | None = None
) -> tuple[str, str] | str:
    """(method, evidence) when ``step`` follows from ``cited`` at ``sub``; else the reason it does not. An
    instance shown to hold on the claim's box is added to ``pool`` (``(name, sub, instance, result, maps)``)
    for the combination of several citations."""
    from .implication import instance

    names = set(step.domain.ranges) | {getattr(s_, "label", None) for s_ in step.domain.ranges}
    for v in sub.values():
        extra = free_names(v) - names
        if extra:
            return f"the value {_show(v)} has symbols the claim does not range ({', '.join(map(str, extra))})"
    box = _cited_box(cited, res)
    maps = []
    for sym in _scalars(cited):
        if sym not in box:
            return f"the cited claim gives no range for {sym}"
        how = _mapped(step, sym, sub[sym], *box[sym], opts)
        if how is None:
            return f"{sym} ↦ {_show(sub[sym])} is not shown to stay in [{_show(box[sym][0])}, {_show(box[sym][1])}]"
        maps.append(how)
    for base in cited.domain.ranges:  # vectors: the claim's own, by name, within the cited range
        if not isinstance(base, sp.IndexedBase):
            continue
        mine = _by_name(step).get(str(base.label))
        lo, hi = box[base]
        if mine is None or mine != base:
            return f"the cited vector {base} is not the claim's"
        clo, chi = step.domain.ranges[mine]
        if bool(clo < lo) or bool(chi > hi):
            return f"the vector {base} ranges over [{clo}, {chi}], outside the cited [{lo}, {hi}]"
        maps.append(f"{base}_j ∈ [{clo}, {chi}] ⊆ [{lo}, {hi}]")
    kept = {}
    for c in cited.domain.constraints:  # the cited claim holds only where its constraints do
        cc = c.subs(sub, simultaneous=True)
        if cc is sp.true or cc in step.domain.constraints:
            continue
        if cc is sp.false or not isinstance(cc, sp.core.relational.Relational):
            return f"its constraint {c} fails at the substitution"
        rel = {sp.GreaterThan: ">=", sp.StrictGreaterThan: ">", sp.LessThan: "<=", sp.StrictLessThan: "<"}[type(cc)]
        try:
            part = Step(
                f"constraint {c}", cc.lhs, cc.rhs, "inequality", _restrict(step, [cc.lhs, cc.rhs]), relation=rel
            )
        except Exception:  # noqa: BLE001
            return f"its constraint {c} is over symbols the claim does not range"
        r_ = _check(part, opts)
        if r_.verdict != Verdict.PROVED:
            return f"its constraint {c} is not shown at the substitution ({r_.verdict})"
        kept[c] = cc
        maps.append(f"constraint {_show(cc)} proved")
    bare = dataclasses.replace(cited, domain=type(cited.domain)(dict(cited.domain.ranges), (), name=cited.domain.name))
    found = instance(step, bare if kept else cited, sub)
    if found is None:
        return "the instance's box is empty"
    inst, inst_res = found
    if pool is not None:
        pool.append((name, sub, inst, inst_res, maps))
    glue = _glue(step, inst, inst_res, opts)
    if glue is None:
        return f"not an instance: the claim does not follow from {name!r} at {_show_sub(sub)}"
    method = f"citation route: instance of {name!r} with {_show_sub(sub)}; domain mapped: {'; '.join(maps)}; {glue}"
    evidence = (
        f"cited {name!r} ({res.verdict}: {res.method.split(';')[0]}); instance {inst.statement}; "
        f"domain mapped: {'; '.join(maps)}; {glue}"
    )
    return method, evidence


def _show_sub(sub: Mapping) -> str:
    return (
        ", ".join(f"{s_} = {_show(v)}" for s_, v in sorted(sub.items(), key=lambda kv: str(kv[0]))) or "no substitution"
    )


def prove_by_citation(
    step: Step,
    cited: Sequence[Cited],
    opts: Mapping[str, Any],
    given: Mapping[str, Mapping[str, Any]] | None = None,
    notes: list[str] | None = None,
) -> StepResult | None:
    """A PROVED verdict for ``step`` as an instance (plus glue) of one proved claim of ``cited`` (module
    docstring), or None. ``cited`` lists ``(name, Step, StepResult)``; ``given[name]`` is the user's
    substitution for that citation (``{cited symbol name: expression}``); ``notes`` collects why each
    citation did not prove the claim. Claims not proved among ``cited`` are skipped."""
    notes = [] if notes is None else notes
    if step.kind not in ("inequality", "identity"):
        notes.append(f"a {step.kind} claim is not proved by citation")
        return None
    from .wellposed import check_wellposed

    t0 = time.monotonic()
    pool: list = []
    wp = check_wellposed([step.lhs, step.rhs], step.domain, step.name, opts.get("clock"))
    if wp.status != "defined":
        notes.append(f"the claim is not shown defined on its domain ({wp.status})")
        return None
    step = step.unwrapped()  # printed forms (Shown) are for the reader; the route works on the values
    for name, cstep, cres in cited:
        if cres is None or cres.verdict != Verdict.PROVED:
            continue
        cstep = cstep.unwrapped()
        if cstep.kind not in ("inequality", "identity") or (step.kind == "identity") != (cstep.kind == "identity"):
            notes.append(f"{name!r}: a {cstep.kind} cannot give a {step.kind}")
            continue
        cands = _candidates(step, cstep, (given or {}).get(name, {}))  # a bad `with` key: ValueError
        if not cands:
            notes.append(f"{name!r}: no substitution makes the claim an instance of it")
            continue
        for sub in cands[:_MAX_CANDIDATES]:
            if time.monotonic() - t0 > _ROUTE_SECONDS:
                notes.append(f"the citation route stopped after {_ROUTE_SECONDS:g} s")
                return None
            out = _try(step, name, cstep, cres, sub, opts, pool)
            if isinstance(out, str):
                notes.append(f"{name!r}: {out}")
                continue
            return _proved(step, *out)
    return _combined(step, pool, notes)


#: candidate substitutions tried per citation, and the route's wall-time cap (each engine call has its own budget)
_MAX_CANDIDATES = 4
_MAX_COMBINATIONS = 16
_ROUTE_SECONDS = 20.0


def _proved(step: Step, method: str, evidence: str) -> StepResult:
    # the mapping and the glue were shown on the whole box: the proof covers the stated domain
    return verdicts.proved(step, method=method, evidence=evidence, cover=region(step.domain.ranges))


def _combined(step: Step, pool: list, notes: list[str]) -> StepResult | None:
    """Several cited claims together: one proved instance of each (every combination of their candidates, at
    most ``_MAX_COMBINATIONS``), and the claim implied by all of them (a chain ``a ≤ b ≤ c`` from ``a ≤ b`` and
    ``b ≤ c``: ``implication.implied``'s combination rule)."""
    from .implication import implied

    groups: dict[str, list[tuple]] = {}
    for entry in pool:
        groups.setdefault(entry[0], []).append(entry)
    if len(groups) < 2 or step.kind != "inequality":
        return None
    for parts in itertools.islice(itertools.product(*groups.values()), _MAX_COMBINATIONS):
        ok, how = implied(step, [p[2] for p in parts], [p[3] for p in parts])
        if ok:
            break
    else:
        notes.append(f"the instances of {', '.join(repr(n_) for n_ in groups)} together do not imply the claim")
        return None
    used = [p for p in parts if f"gap[{p[2].name}]" in how] or list(parts)  # the instances the rule used
    parts = used
    for n_, part in enumerate(parts, start=1):
        how = how.replace(f"gap[{part[2].name}]", f"gap[instance {n_}]")
    said = "; ".join(f"instance {n_} of {p[0]!r} with {_show_sub(p[1])}" for n_, p in enumerate(parts, start=1))
    maps = "; ".join(m_ for p in parts for m_ in p[4])
    method = f"citation route: {said}; domain mapped: {maps}; {how}"
    evidence = "; ".join(f"instance {n_}: {p[2].statement}" for n_, p in enumerate(parts, start=1)) + f"; {how}"
    return _proved(step, method, evidence)


def check_citing(
    step: Step,
    cited: Sequence[Cited],
    opts: Mapping[str, Any],
    engine: Callable[[], StepResult],
    given: Mapping[str, Mapping[str, Any]] | None = None,
) -> StepResult:
    """The verdict of a claim with ``uses``: the citation route, else ``engine()`` (module docstring)."""
    unproved = [(n_, r_) for n_, _, r_ in cited if r_ is None or r_.verdict != Verdict.PROVED]
    notes: list[str] = []
    if not unproved:
        res = prove_by_citation(step, cited, opts, given, notes)
        if res is not None:
            return res
    res = engine()
    if unproved:
        said = ", ".join(f"{n_!r} ({r_.verdict if r_ is not None else 'an internal error'})" for n_, r_ in unproved)
        said = (
            f"its citation{'s' if len(unproved) > 1 else ''} {said} {'are' if len(unproved) > 1 else 'is'} not proved"
        )
        if res.verdict == Verdict.PROVED:
            res = dataclasses.replace(
                res,
                verdict=Verdict.VERIFIED,
                symbolic=False,
                certified=False,
                covered=None,
                method=f"not proved: {said}; on its own: {res.method}",
            )
        elif res.verdict != Verdict.REFUTED:
            res = dataclasses.replace(res, method=f"not proved: {said}; {res.method}")
        else:
            res = dataclasses.replace(res, method=f"{res.method} ({said})")
    elif notes:
        res = dataclasses.replace(
            res, evidence="; ".join(x_ for x_ in (res.evidence, "citation: " + " | ".join(notes)) if x_)
        )
    return res


__all__ = ["check_citing", "prove_by_citation"]
