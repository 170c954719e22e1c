"""The one runner of ``verify`` and ``check FILE``: content-hashed result cache and worker processes.

``run_steps(ders, plan, workers, use_cache, on_result)`` is the loop: cache look-up, worker slots
(``pool``), longest first, dependency waves, results in step order. A ``Plan`` says how one kind of run
keys, orders and checks its steps: ``verify``'s (``verify_derivations``, below) and ``check``'s
(``claims.ClaimPlan``: a user claim keyed on its parsed content).

Each step's cache key is computed by ``keys`` (its content, the engine version, its upstream keys); the
cache's storage is ``cache``, the worker slots ``pool``.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import sympy as sp

from ..ledger import Derivation, Step, StepResult
from .cache import cache_dir, canonical_options, catalogue_key, engine_version, load, store
from .keys import (  # noqa: F401 - re-exported: the runner's names of the content keys
    _RUN_DIR,
    _RUN_KEYS,
    _TOO_DEEP,
    _clear_memos,
    _derivation_keys,
    _KeyBook,
    result_from_dict,
    run_keys,
    run_memo_load,
    run_memo_store,
    step_fingerprint,
    step_key,
)

__all__ = [
    "cache_dir",
    "catalogue_key",
    "engine_version",
    "load",
    "step_fingerprint",
    "step_key",
    "store",
    "verify_derivations",
]


# ----------------------------------------------------------------------------- running


#: the derivations being checked, added by the parent as they are built; a worker inherits them when it forks
_REGISTRY: dict[str, Derivation] = {}


def _check_one(task: tuple[str, int, dict]) -> tuple[str, int, dict, float, float]:
    """Worker: check step ``index`` of derivation ``name`` (inherited from the parent through fork).

    Returns the result, its wall seconds and its CPU seconds (this process's, so a loaded machine
    does not inflate it).
    """
    from ..checks import check_step

    name, index, options = task
    step = _REGISTRY[name].steps[index]
    t0, c0 = time.perf_counter(), time.process_time()
    res = check_step(step, **options)
    res.seconds = time.perf_counter() - t0
    return name, index, res.as_dict(), res.seconds, time.process_time() - c0


def _estimate(step: Step, options: Mapping[str, Any]) -> float:
    """A rough CPU estimate (s) of ``step``'s check, from what its checker will do; only the order matters.

    Used when no earlier run's time is cached, so that a cold run still starts the long checks first:
    the falsifier's trials dominate an inequality (a vector claim, a custom law checker several times
    more), a definition costs nothing, an identity is cheap unless it holds a sum or an integral.
    """
    budget = max(float(options.get("trials", 100_000)) / 100_000, 0.05)
    heavy = any(
        isinstance(e, sp.Basic) and e.has(sp.Sum, sp.Product, sp.Integral, sp.Derivative) for e in (step.lhs, step.rhs)
    )
    if step.kind == "definition":
        return 0.0
    if step.kind == "chain":
        return 1.0 + 0.3 * len(step.links)
    if step.kind == "inequality":
        return budget * (0.6 if step.check is not None else 0.7 if heavy else 0.15)
    if step.kind == "identity":
        return 0.5 if step.check is not None or heavy else 0.07
    return 0.05


#: a slot is forked while the catalogue is still being built once this much work (estimated s) is ready
_EARLY_WORK = 1.0
#: tasks sent ahead to a slot, so that it never waits for the parent (which may be building a module)
_AHEAD = 2


def verify_derivations(
    ders: Iterable[Derivation],
    options: Mapping[str, Any],
    workers: int = 2,
    use_cache: bool = True,
    on_result: Callable[[str, StepResult, bool], None] | None = None,
    backend: Callable[..., None] | None = None,
) -> tuple[dict[str, list[StepResult]], dict[str, Any]]:
    """Check every step of ``ders`` (catalogue derivations); returns (results by derivation, stats).

    ``ders`` may be a lazy iterable (``catalogue.iter_derivations()``): the first worker is forked as soon
    as there is work for it, and checks the first derivations while this process builds the others.
    Steps go longest first (an earlier run's time from the cache, else ``_estimate``); a chain goes as
    soon as every step of this run that it cites is stored, so it reads their verdicts from the cache.

    ``stats``: ``{"cached": n, "checked": n, "workers": w, "cpu": {derivation: CPU seconds checked now},
    "overhead": {...}}`` (``overhead``: this process's CPU seconds building derivations and computing keys,
    and the wall seconds until the first check started). Results keep each step's own check time
    (``seconds``), also when they come from the cache. A worker that dies (killed, out of memory) costs
    no result: the steps not returned yet are checked in this process.
    """
    plan = _CataloguePlan(options)
    return run_steps(ders, plan, workers=workers, use_cache=use_cache, on_result=on_result, backend=backend)


class Plan:
    """What ``run_steps`` needs to know about one kind of run (``verify``'s catalogue, ``check``'s claim file).

    ``keys(der)``: the content key of each step (equal keys, equal verdicts); ``estimate(der, i)``: a rough
    CPU estimate (s) of checking step ``i`` when no earlier run's time is stored; ``waits(der, i, index_of)``:
    the tasks ``(derivation, index)`` of this run that must be finished first; ``task_options(task, results)``:
    the options sent with a task (``results``: what is finished so far); ``work``: the module-level function
    a worker (and the serial loop) runs on ``(name, index, options)``, returning ``(name, index, payload,
    seconds, cpu)``; ``result(payload, seconds, index)``: the result kept (``seconds`` None: from the cache); ``storable(payload)``: whether it may be
    cached; ``isolates``/``died(task, why)``: a plan that isolates gives a task whose worker died checking it
    the payload ``died`` returns, and goes on with a fresh worker; one that does not (``verify``: a killed
    worker costs no result) checks what is left in this process.
    """

    work: Callable[[tuple[str, int, dict]], tuple[str, int, Any, float, float]]
    isolates = False  #: a dead worker costs its task (``died``) instead of sending the rest to this process
    label = "verify"  #: the command, in messages
    what = "step"  #: what one task checks, in messages

    def keys(self, der: Derivation) -> list[str]:
        raise NotImplementedError

    def estimate(self, der: Derivation, index: int) -> float:
        return 0.05

    def waits(self, der: Derivation, index: int, index_of: Mapping[tuple[str, str], int]) -> set[tuple[str, int]]:
        return set()

    def task_options(self, task: tuple[str, int], results: Mapping[str, list[Any]]) -> dict:
        raise NotImplementedError

    def result(self, payload: Any, seconds: float | None, index: int) -> Any:
        return payload

    def storable(self, payload: Any) -> bool:
        return True

    def died(self, task: tuple[str, int], why: str) -> Any:
        raise NotImplementedError


class _CataloguePlan(Plan):
    """``verify``: keys by ``_KeyBook`` (code fingerprints, upstream derivations), chains after their citations."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        self.book = _KeyBook({}, self.options)
        self.work = _check_one

    def keys(self, der: Derivation) -> list[str]:
        self.book.add(der)
        return self.book.keys(der.name)

    def estimate(self, der: Derivation, index: int) -> float:
        return _estimate(der.steps[index], self.options)

    def waits(self, der: Derivation, index: int, index_of: Mapping[tuple[str, str], int]) -> set[tuple[str, int]]:
        st = der.steps[index]
        cited = {(link.cited[0], index_of.get(link.cited)) for link in st.links if link.cite}
        return {c for c in cited if c[1] is not None}  # type: ignore[misc]

    def task_options(self, task: tuple[str, int], results: Mapping[str, list[Any]]) -> dict:
        return self.options

    def result(self, payload: Any, seconds: float | None, index: int) -> StepResult:
        res = result_from_dict(payload)
        if seconds is not None:
            res.seconds = seconds
        return res


def run_steps(
    ders: Iterable[Derivation],
    plan: Plan,
    workers: int = 2,
    use_cache: bool = True,
    on_result: Callable[[str, Any, bool], None] | None = None,
    backend: Callable[..., None] | None = None,
) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Check every step of ``ders`` as ``plan`` says; returns (results by derivation, in step order; stats).

    The one loop behind ``verify`` and ``check FILE``: a step whose key is stored is answered from the run
    cache (``on_result(name, result, True)``); the others go to ``workers`` forked slots (one process when
    ``workers`` ≤ 1 or at most one step is left), longest first, each as soon as the steps it waits for are
    finished (dependency waves), and are stored as they come back (``on_result(name, result, False)``).
    """
    from .library import install_default
    from .pool import SlotDied

    install_default()
    run = _StepRun(ders, plan, workers, use_cache, on_result, backend)
    _clear_memos()
    _REGISTRY.clear()
    _RUN_KEYS.clear()
    _RUN_DIR[0] = tempfile.mkdtemp(prefix="infonce-verify-run-")
    try:
        try:
            if backend is not None:  # another executor instead of the slots (a Dask cluster: ``dask_backend``)
                backend(
                    plan,
                    run.build_one,
                    run.pending,
                    run.waits,
                    run.finished,
                    run.pick,
                    run.task_of,
                    run.done,
                    _RUN_KEYS,
                )
            run.in_slots()
        except SlotDied:
            run.fall_back()
        finally:
            for slot in run.slots:
                slot.close()
        if run.serial:
            run.in_this_process()
    finally:
        shutil.rmtree(_RUN_DIR[0], ignore_errors=True)
        _RUN_DIR[0] = None
    _clear_memos()
    return {name: list(run.out[name]) for name in run.order}, run.stats()


class _StepRun:
    """The state of one ``run_steps``: the derivations built so far (``order``, ``out`` their results by step),
    the tasks (derivation, step index) still to check with their estimated seconds (``pending``), what each
    waits for (``waits``), the tasks finished, the worker slots, the counts and the CPU overheads.

    ``serial``: the rest is checked in this process (one worker, no backend, at most one step to check, or
    a worker died); ``built``: every derivation of the source has been registered."""

    def __init__(
        self,
        ders: Iterable[Derivation],
        plan: Plan,
        workers: int,
        use_cache: bool,
        on_result: Callable[[str, Any, bool], None] | None,
        backend: Callable[..., None] | None,
    ) -> None:
        self.t_start, self.c_start = time.perf_counter(), time.process_time()
        self.plan, self.workers, self.use_cache, self.on_result = plan, workers, use_cache, on_result
        given = list(ders) if isinstance(ders, (list, tuple)) else None
        self.source = iter(given if given is not None else ders)
        if given is not None and isinstance(plan, _CataloguePlan):
            for d in given:
                plan.book.add(d)
        self.opts_text = canonical_options(getattr(plan, "options", {}))
        self.order: list[str] = []
        self.out: dict[str, list[Any]] = {}
        self.index_of: dict[tuple[str, str], int] = {}
        self.pending: dict[tuple[str, int], float] = {}  # task → estimated seconds
        self.waits: dict[tuple[str, int], set[tuple[str, int]]] = {}  # task → the tasks of this run it waits for
        self.finished: set[tuple[str, int]] = set()
        self.cpu: dict[str, float] = {}
        self.over: dict[str, Any] = {"build_cpu": 0.0, "keys_cpu": 0.0, "first_check_wall": None}
        self.counts = {"cached": 0, "checked": 0}
        self.built = False
        self.serial = workers <= 1 and backend is None
        self.slots: list[Any] = []
        for der in given or ():  # a chain may cite a step of a derivation given later in the list
            for i, st in enumerate(der.steps):
                self.index_of[(der.name, st.name)] = i

    def register(self, der: Derivation) -> None:
        """Key ``der``'s steps; answer those stored from the cache, queue the others (with what they wait for)."""
        plan, out, counts = self.plan, self.out, self.counts
        c0 = time.process_time()
        keys = plan.keys(der)
        self.over["keys_cpu"] += time.process_time() - c0
        self.order.append(der.name)
        _REGISTRY[der.name] = der
        _RUN_KEYS[der.name] = (der, self.opts_text, keys)
        out[der.name] = [None] * len(der.steps)
        for i, st in enumerate(der.steps):
            self.index_of[(der.name, st.name)] = i
        for i, key in enumerate(keys):
            hit = load(key) if self.use_cache else None
            if hit is not None:
                res = plan.result(hit, None, i)
                out[der.name][i] = res
                counts["cached"] += 1
                self.finished.add((der.name, i))
                if self.on_result:
                    self.on_result(der.name, res, True)
                continue
            prev = load(key + "-t")  # the time a previous run took: longest first
            self.pending[(der.name, i)] = float(prev) if isinstance(prev, (int, float)) else plan.estimate(der, i)
            counts["checked"] += 1
            w = plan.waits(der, i, self.index_of)
            if w:
                self.waits[(der.name, i)] = w

    def build_one(self) -> bool:
        """Build and register the next derivation of the source; False when there is none left."""
        c0 = time.process_time()
        try:
            der = next(self.source)
        except StopIteration:
            self.built = True
            return False
        finally:
            self.over["build_cpu"] += time.process_time() - c0
        self.register(der)
        return True

    def runnable(self, task: tuple[str, int]) -> bool:
        return self.waits.get(task, set()) <= self.finished

    def pick(self, knows: frozenset[str] | None, force: bool = False) -> tuple[str, int] | None:
        """The longest runnable task (in one process: the first, so a serial run goes in the given order)."""
        pending = self.pending
        best = None
        for task, est in pending.items():
            if (knows is None or task[0] in knows) and (force or self.runnable(task)):
                if best is None or est > pending[best]:
                    best = task
                if self.serial:
                    break
        if best is not None:
            del pending[best]
            if self.over["first_check_wall"] is None:
                self.over["first_check_wall"] = time.perf_counter() - self.t_start
        return best

    def done(self, name: str, index: int, payload: Any, seconds: float, cpu_seconds: float) -> None:
        """A task's result: recorded, stored (before the steps waiting for it are sent), reported."""
        plan = self.plan
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu_seconds
        res = plan.result(payload, seconds, index)
        self.out[name][index] = res
        key = _RUN_KEYS[name][2][index]
        if plan.storable(payload):
            store(key, payload)  # before the steps waiting for it are sent: a chain reads it from the cache
            store(key + "-t", seconds)
        self.finished.add((name, index))
        if self.on_result:
            self.on_result(name, res, False)

    def task_of(self, task: tuple[str, int]) -> tuple[str, int, dict]:
        return (*task, self.plan.task_options(task, self.out))

    def stuck(self) -> bool:  # nothing runnable, nothing running: a citation cycle; check them anyway
        return (
            bool(self.pending) and not any(s.inflight for s in self.slots) and not any(map(self.runnable, self.pending))
        )

    def lost(self, slot: Any, why: str, unsent: tuple[str, int] | None = None) -> bool:
        """``slot`` died. A plan that isolates (``check``) charges its task being checked (the first in flight)
        with ``plan.died`` and goes on with a fresh slot; True then. Otherwise (``verify``) False."""
        if unsent is not None:  # picked, never sent: still to check
            self.pending[unsent] = 0.0
        if not self.plan.isolates:
            return False
        head = slot.inflight.pop(0)[:2] if slot.inflight else None
        for task in slot.inflight:  # sent ahead, never started: checked by another slot
            self.pending[task[:2]] = 0.0
        slot.inflight.clear()
        slot.close()
        self.slots.remove(slot)
        if head is not None:
            self.done(head[0], head[1], self.plan.died(head, why), 0.0, 0.0)
        return True

    def drain(self, timeout: float | None) -> None:
        """Take every result a worker has ready (``timeout`` None: wait for one); a worker lost is replaced."""
        from .pool import SlotDied, ready

        for slot in ready(self.slots, timeout):
            try:
                _task, result = slot.receive()
            except SlotDied as exc:
                if not self.lost(slot, str(exc)):
                    raise
                continue
            self.done(*result)

    def in_slots(self) -> None:
        """Check the pending tasks in up to ``workers`` forked slots, building the derivations between sends,
        until none is left (or until the run turns out to be serial: one step or none to check)."""
        from .pool import Slot

        plan, pending, slots = self.plan, self.pending, self.slots
        while not self.serial:
            self.drain(0)
            if self.built and not slots and self.counts["checked"] <= 1:
                self.serial = True  # one step (or none) to check: no process to fork
                break
            work = sum(est for task, est in pending.items() if self.runnable(task))
            if len(slots) < self.workers and (self.built or (not slots and work >= _EARLY_WORK)):
                if pending:
                    slots.append(Slot(plan.work, self.order))
            for slot in list(slots):
                if self.built and not slot.inflight and len(slot.knows) < len(self.order) and pending:
                    slot.close()  # forked before the catalogue was complete: fork it again, knowing all
                    fresh = Slot(plan.work, self.order)
                    slots[slots.index(slot)] = fresh
                    slot = fresh
                self.send_ahead(slot)
            if not self.built:
                self.build_one()
                continue
            if not pending and not any(s.inflight for s in slots):
                break
            self.drain(None)  # wait for a result

    def send_ahead(self, slot: Any) -> None:
        """Send ``slot`` tasks until ``_AHEAD`` are in flight (any pending one when the run is stuck)."""
        from .pool import SlotDied

        force = self.stuck()
        while len(slot.inflight) < _AHEAD:
            task = self.pick(slot.knows, force)
            if task is None:
                break
            try:
                slot.send(self.task_of(task))
            except SlotDied as exc:
                if not self.lost(slot, str(exc), unsent=task):
                    raise
                break

    def fall_back(self) -> None:
        """A worker died (``verify``): close every slot, put their tasks back and go on in this process."""
        for slot in self.slots:
            for task in slot.inflight:
                self.pending[task[:2]] = 0.0
            slot.inflight.clear()
            slot.close()
        self.slots = []
        while self.build_one():
            pass
        plan = self.plan
        print(
            f"{plan.label}: a worker process died; checking the {len(self.pending)} remaining {plan.what}(s) in this process",
            file=sys.stderr,
        )
        self.serial = True

    def in_this_process(self) -> None:
        """Build what is left and check every pending task here, in order (a cycle's tasks forced)."""
        while self.build_one():
            pass
        while self.pending:
            task = self.pick(None) or self.pick(None, force=True)
            self.done(*self.plan.work(self.task_of(task)))  # type: ignore[arg-type]

    def stats(self) -> dict[str, Any]:
        """The run's counts, workers, CPU by derivation and overheads (the parent's CPU up to now)."""
        self.over["parent_cpu"] = time.process_time() - self.c_start
        checked = self.counts["checked"]
        return {
            "cached": self.counts["cached"],
            "checked": checked,
            "workers": self.workers if checked > 1 else 1,
            "cpu": self.cpu,
            "overhead": self.over,
        }
