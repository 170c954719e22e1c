"""Route "conjunction": ``small ≤ big`` on a box D from parts ``P_1, …, P_n`` that are claims again, checked by
the engine, and an implication ``P_1 ∧ … ∧ P_n ⟹ claim`` that is itself checked.

Claim shape: an inequality (``<=``, ``<``, ``>=``, ``>``) on any domain. The hint names the parts as data, each
a claim with ``lhs``, ``rhs``, ``kind``, ``relation``, ``domain`` and optionally its own ``route`` (a hint again, a
nested conjunction say), ``certificate`` or ``simplify`` (a simplifier of ``SIMPLIFIERS``, by name)::

    Step(..., route=conjunction.hint(parts, "max(x, y) ≤ 1 ⟸ x ≤ 1, y ≤ 1"))
    # ("conjunction", {"parts": [part(p) for p in parts], "reason": "…"}),
    # optional "multipliers", "subs", "implication" (the rule that applies, ``implication.RULES``)

``part(step)`` writes a ``Step`` as that data (``DerivationError`` for one with a ``check=`` closure or an
unnamed simplifier: a hint is data, keyed by value). Proved, covering what the parts cover, when

1. every part is PROVED by ``check_step`` (the engine's dispatcher: every stage and route, as for any claim),
   each on a region containing what the implication uses (``implication.implied`` checks it); and
2. the parts imply the claim (``implication.implied``: cases that tile the box, a nonnegative combination with
   the hint's ``multipliers`` or found ones and a remainder signed by Arb, a rewrite whose sign follows from the
   parts, max/min entrywise, exp/log monotone; ``subs[i]`` instantiates part ``i`` (``{ε: 1/k}``), its values
   shown by Arb to lie where the part was proved). Proved parts that are not shown to imply the claim prove
   nothing: the claim is then verified numerically. The hint's ``implication`` names the rule the author says
   applies ("rewrite", "pieces", …): tried first, and the full search only when it fails.

Otherwise the weakest verdict of the parts, at most VERIFIED: a refuted or unproved part withholds the proof
and never refutes the claim (the claim may hold for another reason). A refutation comes only through the gate:
the claim's own falsifier (``falsifier.falsify``), whose counterexample ``refute.confirm`` replays on the claim
with Arb enclosures at an exact point; its attacked ranges and worst ratio are reported either way.

Parts are keyed by content: ``key(step, opts)`` is the library's content key (``library.Library.key``: SymPy
``srepr`` of both sides, kind, relation, ranges, constraints, hint, certificate, simplifier) of the claim with its
prose (name, provenance, references, the domain's name) cut away. A part proved once in a run is not proved
again: an in-process memo, and the running ``verify``'s memo shared by its workers (``memo_load``/``memo_store``);
a worker that starts a part marks it there, and another that reaches the same part meanwhile waits for its result
(bounded: a marker left by a worker that died only delays the check).
A conjunction claim is stored under the same key, so a part that states another step's claim (Lemma 5's
``b − a ≤ 4/τ`` in Prop. 3, Prop. 5 and Theorem 1) reuses that step's proof. A different domain (wider or
narrower) is a different key.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp

from ..ledger import DerivationError, Domain, Step, StepResult, Verdict, covers, free_names, region
from .falsifier import falsify
from .implication import RULES, implied, part_box, tiles
from .sampling import intersect, symbolic_cover
from .verdicts import by_verdict, refuted_argument, undecided

#: the simplifiers a part may name (its identity's reduction): data in the hint, code here (the engine version)
SIMPLIFIERS: dict[str, Callable[[sp.Expr], sp.Expr]] = {
    "expand_log": lambda e: sp.simplify(sp.expand_log(sp.expand(e))),
    "expand_log_together": lambda e: sp.simplify(sp.expand_log(sp.together(e))),
    "expand_log_factor": lambda e: sp.simplify(sp.expand_log(sp.factor(e))),
}

#: the fields of a part (the claim), those it must give and those it may
_REQUIRED = ("lhs", "rhs", "kind", "domain")
_OPTIONAL = ("name", "relation", "route", "certificate", "simplify")


def part(step: Step, simplify: str | None = None) -> dict[str, Any]:
    """``step`` as a part of a conjunction hint: its claim as data (``simplify`` names its simplifier in
    ``SIMPLIFIERS`` when it has one; a ``check=`` closure cannot be a part: ``DerivationError``)."""
    if step.check is not None:
        raise DerivationError(
            f"part {step.name!r} of a conjunction has a check= closure: a part is a claim as data "
            "(lhs, rhs, relation, domain, an optional route hint)"
        )
    if step.simplifier is not None and simplify is None:
        raise DerivationError(
            f"part {step.name!r} has a simplifier function: name it instead (simplify= one of {sorted(SIMPLIFIERS)})"
        )
    if simplify is not None and simplify not in SIMPLIFIERS:
        raise DerivationError(f"part {step.name!r}: simplify must be one of {sorted(SIMPLIFIERS)}, got {simplify!r}")
    out: dict[str, Any] = {
        "name": step.name,
        "lhs": step.lhs,
        "rhs": step.rhs,
        "kind": step.kind,
        "domain": {
            "ranges": {s_: tuple(r_) for s_, r_ in step.domain.ranges.items()},
            "constraints": tuple(step.domain.constraints),
            "name": step.domain.name,
        },
    }
    for key, val in (("relation", step.relation), ("route", step.route), ("certificate", step.certificate)):
        if val is not None:
            out[key] = val
    if simplify is not None:
        out["simplify"] = simplify
    return out


def hint(
    parts: Sequence[Step | Mapping[str, Any]],
    reason: str,
    *,
    multipliers: Sequence[Any] | None = None,
    subs: Sequence[Mapping | None] | None = None,
    simplify: Mapping[str, str] | None = None,
    implication: str | None = None,
) -> tuple[str, dict[str, Any]]:
    """``Step.route`` for a conjunction of ``parts`` (``Step`` s, written as data by ``part``; ``simplify`` maps
    a part's name to its simplifier's name), with the hint's optional ``multipliers``, ``subs`` and
    ``implication`` (the rule of ``implication.RULES`` that says why the parts imply the claim: tried first)."""
    simplify = dict(simplify or {})
    data = [p if isinstance(p, Mapping) else part(p, simplify.get(p.name)) for p in parts]
    params: dict[str, Any] = {"parts": data, "reason": reason}
    if multipliers is not None:
        params["multipliers"] = list(multipliers)
    if subs is not None:
        params["subs"] = [dict(s_) if s_ else None for s_ in subs]
    if implication is not None:
        params["implication"] = implication
    return ("conjunction", params)


def _step_of(data: Any, where: str) -> Step:
    """The ``Step`` a part's data states (``DerivationError`` naming the part and field when malformed)."""
    if not isinstance(data, Mapping):
        raise DerivationError(f"{where} must be a mapping with {list(_REQUIRED)}, got {type(data).__name__}")
    missing = [f for f in _REQUIRED if f not in data]
    unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
    if missing or unknown:
        raise DerivationError(
            f"{where} needs {list(_REQUIRED)} (optional {list(_OPTIONAL)}); missing {missing}, unknown {unknown}"
        )
    dom = data["domain"]
    if not isinstance(dom, Mapping) or "ranges" not in dom:
        raise DerivationError(f"{where}['domain'] must be a mapping with 'ranges' (and 'constraints', 'name')")
    simp = data.get("simplify")
    if simp is not None and simp not in SIMPLIFIERS:
        raise DerivationError(f"{where}['simplify'] must be one of {sorted(SIMPLIFIERS)}, got {simp!r}")
    route = data.get("route")
    return Step(
        str(data.get("name") or where),
        data["lhs"],
        data["rhs"],
        kind=data["kind"],
        relation=data.get("relation"),
        domain=Domain(dict(dom["ranges"]), tuple(dom.get("constraints", ())), name=str(dom.get("name", ""))),
        route=(route[0], route[1]) if route is not None else None,
        certificate=data.get("certificate"),
        simplifier=SIMPLIFIERS[simp] if simp is not None else None,
    )


def prove_conjunction(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """The verdict of ``step`` by the conjunction its hint ``params`` states (module docstring)."""
    if step.kind != "inequality":
        raise DerivationError(f"step {step.name!r}: route 'conjunction' proves inequalities, not a {step.kind}")
    raw = params["parts"]
    if not isinstance(raw, (list, tuple)) or not raw:
        raise DerivationError(f"step {step.name!r}: route 'conjunction' parameter 'parts' must be a non-empty list")
    parts = [_step_of(p, f"step {step.name!r}: route 'conjunction' parts[{i}]") for i, p in enumerate(raw)]
    for name in ("multipliers", "subs"):
        val = params.get(name)
        if val is not None and (not isinstance(val, (list, tuple)) or len(val) != len(parts)):
            raise DerivationError(
                f"step {step.name!r}: route 'conjunction' parameter {name!r} must be a list of {len(parts)} "
                "entries (one per part)"
            )
    rule = params.get("implication")
    if rule is not None and rule not in RULES:
        raise DerivationError(
            f"step {step.name!r}: route 'conjunction' parameter 'implication' must be one of {sorted(RULES)}, "
            f"got {rule!r}"
        )
    reason = str(params.get("reason", ""))
    mult, subs = params.get("multipliers"), params.get("subs")
    return checked(step, opts, lambda: conjoin(step, parts, reason, opts, mult, subs, rule=rule))


def conjoin(
    step: Step,
    parts: Sequence[Step],
    reason: str,
    opts: Mapping[str, Any],
    multipliers: Sequence[Any] | None = None,
    subs: Sequence[Mapping | None] | None = None,
    *,
    rule: str | None = None,
    gate_only: bool = True,
    check: Callable[[Step, Mapping[str, Any]], StepResult] | None = None,
) -> StepResult:
    """``step`` from its ``parts`` (module docstring), each checked by ``check(part, opts)`` (default ``checked``:
    the engine, memoised by content); ``gate_only=False`` (``custom.all_of``) also refutes the *argument* when a
    part is refuted (``refuted_argument``, no point on the claim)."""
    results = [(check or checked)(p, opts) for p in parts]
    fz = falsify(step, opts)
    verdicts = [r.verdict for r in results]
    how = reason
    # the route: a refuted or ill-posed part withholds the proof; all_of (gate_only=False): a refuted part refutes
    part_refuted = Verdict.REFUTED in verdicts or (gate_only and Verdict.ILL_POSED in verdicts)
    if fz.counterexample is not None:
        verdict = Verdict.REFUTED
    elif part_refuted:
        verdict = Verdict.VERIFIED if gate_only else Verdict.REFUTED
        how = f"{reason}; a part is refuted: the argument fails (the claim itself is not refuted by it)"
    elif all(v == Verdict.PROVED for v in verdicts):
        # proved parts prove the claim only if they imply it: checked, never assumed
        ok, why = implied(step, parts, results, multipliers, subs, rule=rule)
        verdict = Verdict.PROVED if ok else Verdict.VERIFIED
        how = f"{reason}; implication{'' if ok else ' not established'}: {why}"
    elif Verdict.UNDECIDED in verdicts:
        verdict = Verdict.UNDECIDED
    else:
        verdict = Verdict.VERIFIED
    covered = _parts_cover(step, parts, results) if verdict == Verdict.PROVED else None
    if verdict == Verdict.PROVED and covered is None:
        verdict, how = Verdict.VERIFIED, f"{how}; the parts' covers do not meet"
    ev = "; ".join(f"[{r.step}: {r.verdict}, {r.method}]" for r in results)
    method = f"conjunction of {len(parts)} checked parts ({how}); falsifier: {fz.trials} trials"
    common = dict(method=method, worst_ratio=fz.worst_ratio, trials=fz.trials, attacked=fz.attacked)
    if verdict == Verdict.REFUTED and fz.counterexample is None:  # a refuted part, no point on the claim
        return refuted_argument(step, reason=f"{ev}; {fz.evidence}", **common)
    return by_verdict(
        verdict,
        step,
        evidence=f"{ev}; {fz.evidence}",
        counterexample=fz.counterexample,
        certified=verdict == Verdict.PROVED and any(r.certified for r in results),
        symbolic=verdict == Verdict.PROVED and all(r.symbolic for r in results),
        cover=covered,
        **common,
    )


# ------------------------------------------------------------------------------------------ the content memo


@functools.lru_cache(maxsize=1)
def _memo() -> dict[str, StepResult]:
    """The results ``checked`` keeps in this process, by content key. Behind a function, not a module dict:
    the verify cache fingerprints a checker's globals, and the memo's contents are run state."""
    return {}


#: most results ``checked`` keeps in one process (the catalogue's conjunctions and their parts are a few dozen)
_MEMO_CAP = 512
#: what a step's content key leaves out: prose, which cannot change what is proved
_CLAIM = "⟨claim⟩"


def _content(step: Step) -> Step:
    """``step`` without its prose (name, provenance, reference, note, expectation, the domain's name): the claim."""
    dom = step.domain
    return dataclasses.replace(
        step,
        name=_CLAIM,
        provenance="ours",
        reference="",
        note="",
        expected=None,
        unproved="",
        domain=Domain(dict(dom.ranges), tuple(dom.constraints), name=""),
    )


def key(step: Step, opts: Mapping[str, Any]) -> str | None:
    """The content key of ``step``'s claim checked with ``opts`` (the running clock and budget are run state);
    None when no library is installed (then nothing is memoised)."""
    from . import library

    try:
        return library.current().key(_content(step), {k_: v for k_, v in opts.items() if k_ not in ("clock", "budget")})
    except DerivationError:
        return None


def checked(step: Step, opts: Mapping[str, Any], compute: Callable[[], StepResult] | None = None) -> StepResult:
    """``step`` checked with ``opts`` (``compute()``, else ``check_step``), once per content key in a process
    and in a ``verify`` run; the result carries ``step``'s name (a copy: callers annotate it)."""
    from . import library
    from .reentry import check_step

    k_ = key(step, opts)
    if compute is None:

        def compute() -> StepResult:
            return check_step(step, **{o: v for o, v in opts.items() if o != "clock"})

    if k_ is None:
        return compute()
    memo = _memo()
    res = memo.get(k_)
    if res is None:
        lib = library.current()
        mine = _computing()
        # a key this process is computing (a part that is the claim of the route checking it) is never waited for
        res = lib.memo_load(k_) or (None if k_ in mine else _awaited(lib, k_, opts.get("clock")))
        if res is None:
            # claimed for this run: another worker reaching the same part waits for it instead of repeating it
            lib.memo_store(k_ + _PENDING, undecided(step, method=f"{_PENDING}@{time.time():.3f}"))
            mine.add(k_)
            try:
                res = compute()
            finally:
                mine.discard(k_)
            lib.memo_store(k_, res)
        if len(memo) >= _MEMO_CAP:
            memo.clear()
        memo[k_] = res
    return dataclasses.replace(copy.deepcopy(res), step=step.name)


@functools.lru_cache(maxsize=1)
def _computing() -> set[str]:
    """The keys this process is computing now (behind a function: run state, not a module global)."""
    return set()


#: the suffix of the run memo's marker "another worker is checking this key", and how long one is waited for
_PENDING = "-pending"
_WAIT_SECONDS = 300.0
_POLL_SECONDS = 0.2


def _awaited(lib: Any, k_: str, clock: Any) -> StepResult | None:
    """The result another worker of the running ``verify`` is computing under ``k_`` (its marker is in the run
    memo), waited for: at most ``_WAIT_SECONDS`` from the marker's time and what the claim's clock has left (a
    worker that died leaves its marker: the part is then checked here). None: no marker, or no result in time."""
    marker = lib.memo_load(k_ + _PENDING)
    if marker is None:
        return None
    try:
        since = float(str(marker.method).rsplit("@", 1)[1])
    except (IndexError, ValueError):
        return None
    while time.time() - since < _WAIT_SECONDS:
        left = clock.left() if clock is not None else None
        if left is not None and left < 2 * _POLL_SECONDS:
            return None
        time.sleep(_POLL_SECONDS)
        res = lib.memo_load(k_)
        if res is not None:
            return res
    return None


def _parts_cover(step: Step, parts: Sequence[Step], subs: Sequence[StepResult]) -> dict | None:
    """What a conjunction or case split of proved parts covers.

    Each part holds on what it covers; where that includes the part's whole stated box, the step holds
    on the union of the parts' boxes, provided every part whose box contains a point covers it — so a
    conjunction (all parts on the step's box) and a case split (τ ≤ 2 and τ ≥ 2) are both read right.
    The union is credited only where the parts' boxes tile the step's box (checked cell by cell on the
    grid of their end points); otherwise the cover is the intersection of the parts' covers."""
    names = {str(x_) for x_ in free_names(step.lhs) | free_names(step.rhs)}
    syms = [s_ for s_ in step.domain.ranges if str(s_) in names]
    base = symbolic_cover([step.lhs, step.rhs])
    tiled = not step.domain.constraints and all(
        covers(r.covered, p.domain, set(p.domain.ranges)) and not p.domain.constraints for p, r in zip(parts, subs)
    )
    if tiled:
        box = {s_: tuple(sp.sympify(v) for v in step.domain.ranges[s_]) for s_ in syms}
        tiled = tiles(box, [part_box(p, syms) for p in parts])
    if tiled:
        return {**base, **region({s_: step.domain.ranges[s_] for s_ in syms})}
    covered = subs[0].covered
    for r in subs[1:]:
        covered = intersect(covered, r.covered)
    if covered is None:
        return None
    for name, rng in base.items():  # a symbol of the claim that no part mentions is not restricted
        covered.setdefault(name, rng)
    return covered


__all__ = ["SIMPLIFIERS", "checked", "conjoin", "hint", "key", "part", "prove_conjunction"]
