"""``check FILE`` through the runner: a claim file's claims as the steps of one derivation, checked by ``run_steps``.

``ClaimPlan`` is ``check``'s plan for ``runner.run_steps`` (the loop ``verify`` uses: the same worker slots,
cache, longest-first order and progress callback):

* **key** — ``claim_key``: SHA-256 of the claim's *parsed content*, never of code: both sides, the kind,
  relation, ``var``/``point``/``order`` and the domain's ranges and constraints by ``srepr`` (a symbol's
  assumptions included; SymPy's ``Dummy`` numbers renumbered by first appearance), whether a two-sided limit
  is checked as its two one-sided halves, the options (``trials``, ``seed``), the claim budget (every field
  of ``Budget``), the engine version (``cache.engine_version``: the engine's and the run layer's source and
  the libraries' versions), the sources of ``userclaims/`` (how a claim is turned into a step and its
  coverage described), the keys of the claims it ``uses``, and the claim's *name*: the falsifier's random
  stream is seeded by ``"{seed}:{name}"``, so two claims stating the same thing under two names may be
  attacked at other points (another worst ratio, in principle another verdict) and never share an entry.
  The note is prose, and the text as written is not keyed (a LaTeX and a SymPy spelling read alike share
  an entry).
* **work** — ``_check_claim`` checks one claim under the check budget (``budget.CHECK`` unless given:
  10 s), in a worker or, serially, in this process; an exception in a checker is that claim's verdict
  ``error`` (its message in ``method``), never the run's end; a worker process that dies checking a claim
  (killed, out of memory, a crash in a C library) makes that claim ``error`` and a fresh worker checks the
  rest (``ClaimPlan.died``).
* **cached** — what is stored is the claim's outcome (verdict, method, evidence, worst ratio,
  counterexample, coverage, …). Not stored: an ``error``, a verdict reached after a budget ran out (its
  method or evidence says "budget … spent": on a less loaded machine the same claim may be decided), and
  one whose check took half the claim's seconds or more (``ClaimPlan.storable``).
* **dependency waves** — a claim whose ``uses`` names earlier claims of the file waits until they are
  finished, then receives their results: ``opts["cited"]`` maps each used claim's name to its
  ``StepResult`` (as ``check_step`` returned it, or rebuilt from the cache). A claim without ``uses`` gets
  no ``cited`` option, so its check is exactly the serial one.

Results come back in file order whatever the order of checking; verdicts are the serial run's (each claim
is checked alone, with its own seed, in a fresh clock).
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..ledger import Derivation, StepResult, Verdict
from . import keys as step_keys
from . import runner
from .cache import engine_version, file_hash

#: options key under which a claim with ``uses`` receives the results of the claims it uses (name → StepResult)
CITED = "cited"
#: the run state a worker inherits when it forks: derivation name → the parsed claims (``userclaims.UserClaim``)
_CLAIMS: dict[str, Sequence[Any]] = {}
#: step fields that do not change a claim's verdict (prose) or are keyed another way (``check``, ``domain``)
_NOT_KEYED = frozenset({"note", "reference", "check", "domain"})
#: the sources of how a claim is turned into a step and reported (the ``userclaims`` package)
_USERCLAIMS = sorted((Path(__file__).resolve().parents[1] / "userclaims").glob("*.py"))
#: a budget that ran out, as the checkers say it (``budget.Spent``: "…: time budget (4 s) spent"; the interval
#: stage: "time budget spent after 300 boxes"; the falsifier: "falsifier: time budget spent")
_SPENT = re.compile(r"budget\b[^;]*\bspent")


def _budget_text(budget: Any) -> str:
    import dataclasses

    return repr(sorted(dataclasses.asdict(budget).items()))


def claim_key(claim: Any, options: Mapping[str, Any], budget: Any, cited_keys: Sequence[str] = ()) -> str:
    """The content key of ``claim`` (a ``userclaims.UserClaim``) checked with ``options`` under ``budget``."""
    import dataclasses

    step = claim.step
    fields = [
        "user-claim-v1",
        engine_version(),
        *(file_hash(f) for f in _USERCLAIMS),
        f"trials={options['trials']!r}",
        f"seed={options['seed']!r}",
        f"budget={_budget_text(budget)}",
        "cited=" + ",".join(cited_keys),
        f"two-sided={step.check is not None}",
        f"ranges={step_keys._canon(dict(step.domain.ranges))}",
        f"constraints={step_keys._canon(tuple(step.domain.constraints))}",
    ]
    for f in dataclasses.fields(step):  # every other field: one added to Step is keyed without an edit here
        if f.name not in _NOT_KEYED:
            fields.append(f"{f.name}={step_keys._canon(getattr(step, f.name))}")
    step_keys._clear_memos()
    try:
        text = step_keys._renumber_dummies("\x1f".join(fields))
    finally:
        step_keys._clear_memos()
    return hashlib.sha256(text.encode()).hexdigest()


def _error(exc_text: str, seconds: float) -> dict[str, Any]:
    return {
        "verdict": ERROR,
        "method": f"internal error: {exc_text}"[:300],
        "worst_ratio": None,
        "counterexample": None,
        "covered": "nothing established (internal error)",
        "whole_domain": False,
        "evidence": "",
        "unproved": "",
        "trials": 0,
        "symbolic": False,
        "certified": False,
        "seconds": round(seconds, 4),
        "result": None,
    }


ERROR = "error"


def _check_claim(task: tuple[str, int, dict]) -> tuple[str, int, dict, float, float]:
    """Worker (or this process, serially): check claim ``index`` of file ``name`` under its budget.

    Returns ``(name, index, outcome, wall seconds, CPU seconds)``; ``outcome["result"]`` is the
    ``StepResult.as_dict()`` (``None`` for an error), the rest is what the file's row shows.
    """
    from .. import checks
    from ..checks.budget import default_budget_set
    from ..userclaims.outcome import check_claim, coverage

    name, index, options = task
    claim = _CLAIMS[name][index]
    opts = {"trials": options["trials"], "seed": options["seed"]}
    cited = {k: step_keys.result_from_dict(v) for k, v in (options.get(CITED) or {}).items()}
    step_of = {c.name: c.step for c in _CLAIMS[name]} if claim.uses else {}
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        # a user's claim runs under the check budget (10 s, symbolic calls capped), from Python as from the CLI
        with default_budget_set(options["budget"]):
            res, uses_verdicts = check_claim(claim, cited, step_of, opts)
        res.seconds = time.perf_counter() - t0
        covered, whole = coverage(claim.step, res, {**checks.DEFAULTS, **opts})
        outcome = {
            "verdict": str(res.verdict),
            "method": res.method,
            "worst_ratio": res.worst_ratio,
            "counterexample": res.counterexample,
            "covered": covered,
            "whole_domain": whole,
            "evidence": res.evidence,
            "unproved": res.unproved,
            "trials": res.trials,
            "symbolic": res.symbolic,
            "certified": res.certified,
            "seconds": round(res.seconds, 4),
            "result": res.as_dict(),
            "uses_verdicts": uses_verdicts,
        }
    except Exception as exc:  # one claim's internal error must not hide the others' verdicts
        msg = " ".join(str(exc).split()) or exc.__class__.__name__
        outcome = _error(f"{exc.__class__.__name__}: {msg}", time.perf_counter() - t0)
    return name, index, outcome, time.perf_counter() - t0, time.process_time() - c0


def install(name: str, claims: Sequence[Any]) -> None:
    """Make ``claims`` the parsed claims of file ``name`` in this process (as a forked worker inherits them)."""
    _CLAIMS[name] = claims


def _catalogue_key(name: str) -> str:
    """A catalogue step a claim uses, keyed by its name and statement (its checker's code is the engine's)."""
    import sympy as sp

    from ..userclaims.build import catalogue_step

    step = catalogue_step(name)
    text = "|".join([name, sp.srepr(step.lhs), sp.srepr(step.rhs), str(step.relation), step.domain.describe()])
    return "catalogue:" + hashlib.sha256(text.encode()).hexdigest()


class ClaimPlan(runner.Plan):
    """``check FILE``'s plan for ``runner.run_steps`` (see the module docstring)."""

    label = "check"
    what = "claim"
    isolates = True

    def __init__(self, claims: Sequence[Any], options: Mapping[str, Any], budget: Any) -> None:
        self.claims = list(claims)
        self.options = {"trials": options["trials"], "seed": options["seed"]}
        self.budget = budget
        self.index = {c.name: i for i, c in enumerate(self.claims)}
        self.work = _check_claim
        self.install = install  # how a process not forked from this one receives the claims (a Dask worker)

    def keys(self, der: Derivation) -> list[str]:
        _CLAIMS[der.name] = self.claims
        keys: list[str] = []
        for c in self.claims:  # uses name earlier claims only (userclaims checks it): their keys are known
            # a catalogue step it uses is keyed by its name and statement (the engine version keys the rest)
            cited = [keys[self.index[u]] if u in self.index else _catalogue_key(u) for u in c.uses]
            keys.append(claim_key(c, self.options, self.budget, cited))
        return keys

    def shipment(self, name: str) -> list[Any]:
        """What ``install`` receives in a process not forked from this one: the file's parsed claims."""
        return list(self.claims)

    def estimate(self, der: Derivation, index: int) -> float:
        return 0.1

    def waits(self, der: Derivation, index: int, index_of: Mapping[tuple[str, str], int]) -> set[tuple[str, int]]:
        return {(der.name, self.index[u]) for u in self.claims[index].uses if u in self.index}

    def task_options(self, task: tuple[str, int], results: Mapping[str, list[Any]]) -> dict:
        opts: dict[str, Any] = {**self.options, "budget": self.budget}
        uses = self.claims[task[1]].uses
        if uses:
            done = results[task[0]]
            opts[CITED] = {
                u: done[self.index[u]]["result"]
                for u in uses
                if u in self.index and done[self.index[u]]["result"] is not None
            }
        return opts

    def result(self, payload: Any, seconds: float | None, index: int) -> dict:
        return {**payload, "name": self.claims[index].name, "cached": seconds is None}

    def storable(self, payload: Any) -> bool:
        """Not an internal error, nor a verdict the clock may have shaped (it depends on the machine's load):
        one whose method or evidence says a budget was spent (``budget (4 s) spent``, ``time budget spent``),
        or one whose check took half the claim's seconds or more (past that, stages are cut or skipped by
        the clock without always saying so)."""
        if payload["verdict"] == ERROR:
            return False
        if _SPENT.search(f"{payload.get('method', '')} {payload.get('evidence', '')}"):
            return False
        limit = getattr(self.budget, "claim_seconds", None)
        return limit is None or float(payload.get("seconds") or 0.0) < 0.5 * limit

    def died(self, task: tuple[str, int], why: str) -> dict:
        name = self.claims[task[1]].name
        return _error(f"WorkerDied: the worker process checking {name!r} ended without answering ({why})", 0.0)


def run_claims(
    der: Derivation,
    claims: Sequence[Any],
    options: Mapping[str, Any],
    budget: Any,
    workers: int = 2,
    use_cache: bool = True,
    on_result: Callable[[str, dict, bool], None] | None = None,
    scheduler: str | None = None,
) -> tuple[list[dict], dict[str, Any]]:
    """Check ``claims`` (the steps of ``der``, in file order); returns (outcomes in file order, stats).

    Each outcome is ``_check_claim``'s dict plus ``"cached"`` (answered from the run cache); ``stats`` are
    ``run_steps``'s (``cached``, ``checked``, ``workers``, …). ``scheduler``: the address of a Dask scheduler whose
    workers check the claims instead of local processes (``dask_backend.Cluster``; the same verdicts).
    """
    plan = ClaimPlan(claims, options, budget)
    cluster = None
    if scheduler is not None:
        from .dask_backend import Cluster

        cluster = Cluster(scheduler)
    try:
        by_der, stats = runner.run_steps(
            [der], plan, workers=workers, use_cache=use_cache, on_result=on_result, backend=cluster
        )
    finally:
        _CLAIMS.pop(der.name, None)
    return by_der[der.name], (cluster.report(stats) if cluster is not None else stats)


__all__ = ["CITED", "ClaimPlan", "StepResult", "Verdict", "claim_key", "run_claims"]
