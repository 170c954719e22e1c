"""Building blocks of the result modules' own checkers, each recording what it covered and attacked.

* ``falsifier_only``: a claim tight on a whole curve or on the domain's boundary (interval arithmetic
  cannot settle it): the box falsifier alone, verified numerically on the ranges it attacked;
* ``all_of``: a claim that is the conjunction of checked parts (max(x, y) ≤ 1 ⟸ x ≤ 1, y ≤ 1): proved on
  the intersection of what the parts cover;
* ``proof_cover``: the region a proof covers, from an interval outcome (the certified box) or from SymPy's
  assumptions (every symbol over its assumption range), with the claim's other symbols — those the
  certified expression does not contain — over their assumption ranges (the proof does not restrict them).

Every custom checker returns ``covered`` on a PROVED verdict and ``attacked`` on a VERIFIED one, as the
standard checkers do: its verdict is made by a builder of ``checks/verdicts.py``, which refuses one without
(``tests/test_engine.py`` also asserts it over the whole catalogue).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sympy as sp

from ..ledger import Step, StepResult, Verdict, covers, free_names, region
from .falsifier import falsify
from .implication import implied, part_box, tiles
from .interval import IntervalOutcome
from .sampling import _sides, intersect, symbolic_cover
from .verdicts import by_verdict, refuted, refuted_argument, verified
from .verdicts import proved as proved_verdict  # ``proof_result`` has a flag named ``proved``


def proof_cover(
    step: Step, outcome: IntervalOutcome | None = None, fixed: Mapping[str, tuple[str, str]] | None = None
) -> dict[str, tuple[str, str]]:
    """The region a proof of ``step`` covers: the certified box of ``outcome`` (if any), ``fixed`` ranges
    (a symbol the argument covers over a known range), and every other symbol of the claim over its
    assumption range (SymPy's assumptions are what a symbolic argument uses)."""
    small, big, _ = _sides(step)
    out = symbolic_cover([small, big])
    if outcome is not None and outcome.covered:
        out.update(outcome.covered)
    if fixed:
        out.update(fixed)
    return out


def falsifier_only(reason: str) -> Callable[[Step, dict], StepResult]:
    """A checker for a claim tight on a whole curve (interval arithmetic cannot settle it): falsifier only."""

    def check(step: Step, opts: dict) -> StepResult:
        return proof_result(step, falsify(step, opts), False, f"interval not attempted: {reason}")

    return check


def all_of(
    parts: Sequence[Step],
    reason: str,
    multipliers: Sequence[Any] | None = None,
    subs: Sequence[Mapping | None] | None = None,
) -> Callable[[Step, dict], StepResult]:
    """A checker for a claim that is the conjunction of ``parts`` (e.g. max(x, y) ≤ 1 ⟸ x ≤ 1, y ≤ 1).

    Proved when every part is proved and the parts imply the claim (``implication.implied``: cases, a
    nonnegative combination with ``multipliers`` or found ones, max/min), covering what the parts cover; a
    conjunction of proved parts that are not shown to imply the claim is verified numerically; refuted when a
    part is refuted or the falsifier refutes the claim itself; otherwise the weakest verdict of the parts.
    The falsifier's worst ratio and attacked ranges are reported.
    """
    from .reentry import check_step  # the package's dispatcher (parts may be of any kind)

    def check(step: Step, opts: dict) -> StepResult:
        return checked_once(step, opts, lambda: conjunction(step, opts))

    def conjunction(step: Step, opts: dict) -> StepResult:
        results = [checked_once(p, opts, lambda p=p: check_step(p, **opts)) for p in parts]
        fz = falsify(step, opts)
        verdicts = [r.verdict for r in results]
        how = reason
        if fz.counterexample is not None or Verdict.REFUTED in verdicts:
            verdict = Verdict.REFUTED
        elif all(v == Verdict.PROVED for v in verdicts):
            # proved parts prove the claim only if they imply it: checked, never assumed
            ok, why = implied(step, parts, results, multipliers, subs)
            verdict = Verdict.PROVED if ok else Verdict.VERIFIED
            how = f"{reason}; implication{'' if ok else ' not established'}: {why}"
        elif Verdict.UNDECIDED in verdicts:
            verdict = Verdict.UNDECIDED
        else:
            verdict = Verdict.VERIFIED
        covered = _parts_cover(step, parts, results) if verdict == Verdict.PROVED else None
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

    return check


@functools.lru_cache(maxsize=1)
def _results() -> dict[str, StepResult]:
    """The results ``checked_once`` keeps in this process, by content hash. Behind a function, not a module
    dict: the verify cache fingerprints a checker's globals, and the memo's contents are run state."""
    return {}


#: most results ``checked_once`` keeps (the catalogue's conjunctions and their parts are a few dozen)
_RESULTS_CAP = 512


def checked_once(step: Step, opts: Mapping[str, Any], check: Callable[[], StepResult]) -> StepResult:
    """``check()`` (the result of checking ``step`` with ``opts``), computed once per process per content hash.

    The same part recurs in several conjunctions (b − a ≤ 4/τ is a part of Prop. 3's, Prop. 5's and
    Theorem 1's, and itself a conjunction of Lemma 5): its check is a pure function of the step, its
    checker's code and the options, which is what the library's content key hashes, so within one process it is
    done once (a fresh process — every ``verify`` — checks everything; the verify cache is untouched).
    A copy is returned: ``check_step`` annotates the result it hands back."""
    from . import library

    # the running clock (and budget) of the claim that asked are run state, not part of what is checked
    key = library.current().key(step, {k_: v_ for k_, v_ in opts.items() if k_ not in ("clock", "budget")})
    if key is None:  # no library installed: no content key, nothing memoised
        return check()
    memo = _results()
    if key not in memo:
        if len(memo) >= _RESULTS_CAP:
            memo.clear()
        memo[key] = check()
    return copy.deepcopy(memo[key])


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


def with_range(sym: Any, lo: Any, hi: Any) -> dict[str, tuple[str, str]]:
    """``{name: (lo, hi)}`` as exact strings, for ``proof_cover(fixed=…)``."""
    return {str(sym): (str(sp.sympify(lo)), str(sp.sympify(hi)))}


def proof_result(
    step: Step,
    fz: Any,
    proved: bool,
    method: str,
    *,
    covered: dict[str, tuple[str, str]] | None = None,
    symbolic: bool = False,
    certified: bool = False,
) -> StepResult:
    """The verdict of a checker that attempts a proof and runs the falsifier (``fz``, a ``FalsifierOutcome``)
    for the record: refuted on the falsifier's counterexample, proved (on ``covered``) when the argument
    went through, else verified numerically on the ranges the falsifier attacked."""
    common = dict(
        method=f"{method}; falsifier: {fz.trials} trials",
        evidence=fz.evidence,
        worst_ratio=fz.worst_ratio,
        trials=fz.trials,
        attacked=fz.attacked,
    )
    if fz.counterexample is not None:
        return refuted(step, counterexample=fz.counterexample, **common)
    if proved:
        return proved_verdict(step, cover=covered, symbolic=symbolic, certified=certified, **common)
    return verified(step, **common)
