"""Building blocks of the result modules' own checkers, each recording what it covered and attacked.

* ``prove_attack_only`` (hinted route ``attack only``) and ``falsifier_only`` (its closure, for tests): a claim
  tight on a whole curve or on the domain's boundary (interval arithmetic cannot settle it): the box falsifier
  alone, verified numerically on the ranges it attacked;
* ``all_of``: a claim that is the conjunction of checked parts that are code (the catalogue's conjunctions
  are the ``conjunction`` route, ``checks/conjunction.py``, parts as data);
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

from ..ledger import DerivationError, Step, StepResult
from .falsifier import falsify
from .interval import IntervalOutcome
from .sampling import _sides, symbolic_cover
from .verdicts import proved as proved_verdict  # ``proof_result`` has a flag named ``proved``
from .verdicts import refuted, verified


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
    """A checker for a claim tight on a whole curve (interval arithmetic cannot settle it): falsifier only.
    The catalogue names the hinted route ``attack only`` instead (``Step.route = ("attack only", {"reason":
    …})``, data); this closure is for a test that passes checkers as code."""

    def check(step: Step, opts: dict) -> StepResult:
        return prove_attack_only(step, {"reason": reason}, opts)

    return check


def prove_attack_only(step: Step, params: Mapping[str, Any], opts: Mapping[str, Any]) -> StepResult:
    """Route ``attack only``: never a proof. The box falsifier alone, for a claim no route settles and whose
    stages would only spend their budgets (its two sides meet along a curve, on a face or on a whole region,
    as ``params["reason"]`` says): verified numerically on the ranges attacked, or refuted through the gate."""
    reason = params.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise DerivationError(f"step {step.name!r}: route 'attack only' needs 'reason', a non-empty string")
    return proof_result(step, falsify(step, dict(opts)), False, f"interval not attempted: {reason}")


def all_of(
    parts: Sequence[Step],
    reason: str,
    multipliers: Sequence[Any] | None = None,
    subs: Sequence[Mapping | None] | None = None,
) -> Callable[[Step, dict], StepResult]:
    """A checker for a claim that is the conjunction of ``parts`` (``Step`` s, which may bring their own checkers).

    The catalogue states conjunctions as a route (``Step.route = conjunction.hint(parts, reason)``, parts as data);
    this closure is for a part that must stay code (a planted checker in a test). The same verdicts
    (``conjunction.conjoin``), except that a refuted part also refutes the argument offered (``refuted_argument``,
    no point on the claim), as this checker always did; the route withholds the proof instead.
    """
    from .conjunction import conjoin
    from .reentry import check_step  # the package's dispatcher (parts may be of any kind)

    def part(p: Step, opts: dict) -> StepResult:
        return checked_once(p, opts, lambda: check_step(p, **opts))

    def check(step: Step, opts: dict) -> StepResult:
        return checked_once(
            step, opts, lambda: conjoin(step, parts, reason, opts, multipliers, subs, gate_only=False, check=part)
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
