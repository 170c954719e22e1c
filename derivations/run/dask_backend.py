"""The runner's tasks on a Dask cluster (``--scheduler ADDRESS``) instead of the local worker slots: the client.

``Cluster(address)`` is the ``backend`` that ``runner.run_steps`` calls in place of its forked slots; the caller
that reads ``--scheduler`` builds it (``verify_all``, ``claims.run_claims``), so the runner does not import this
module, and this module imports neither the runner nor the claim plan (the worker's side, ``dask_worker``,
fills the runner's registry, or calls the plan's ``install``). Everything else is the runner's own: the
cache look-up and store (``done`` stores a result before the tasks waiting for it are sent), the order
(``pick``: longest runnable first), the dependency waves (a task is submitted only once every task it
``waits`` for is ``finished``: a chain after the steps it cites, a claim with ``uses`` after the claims it
uses, which then travel in its options), the progress callback (inside ``done``) and the work function
(``plan.work``, the same ``(name, index, options) → (name, index, payload, seconds, CPU seconds)`` a local
slot runs, so a cluster's verdicts are a local run's: the same code on the same step with the same options).

A Dask worker is not forked from this process, so it receives what a slot inherits:

* *the step*: a catalogue derivation by its name (the worker builds it from its own copy of the package:
  catalogue derivations do not all pickle, SymPy's ``Str`` names among them), any other derivation and a
  claim file's parsed claims pickled, sent once per run as the result of a task (``hold``: Dask computes it
  again if the worker holding it dies, where scattered data would be lost) and once to each check process;
* *the code's identity*: every task carries this process's engine version and catalogue key (a hash of every
  source file of ``derivations`` and the library versions, ``cache.catalogue_key``); a worker whose package
  differs refuses the task (``WorkerMismatch``), so a cluster never answers with another version's verdicts;
* *the cited verdicts*: a task that waits for others carries their cached payloads by key, and the worker
  stores them in its own run cache first (a chain on another machine reads its citations from there, as
  a local slot reads the shared cache).

A worker checks in a *check process* it forks on its first task and reuses (``dask_worker.run_task``): Dask runs a task in
a thread, where the budget can arm no deadline and cap no memory (``SIGALRM`` and ``RLIMIT_AS``: main thread
only), so a claim checked in the thread could run past its budget and end "budget spent" where a local slot
decides it; in the forked process the budget is the local one. One check at a time per worker process (a
lock): start workers with ``--nthreads 1`` and as many processes as cores.

A check that kills its process (out of memory, a crash in C) costs only its task, reported as the local pool
reports it: the worker survives (``CheckDied``) and forks a fresh check process. A worker that dies (killed)
has its tasks retried by Dask on the others. Either way, a task lost so (``CheckDied``, or ``KilledWorker``
once Dask gives up, after the scheduler's ``allowed-failures``) is checked once more here as a local run
checks it: ``check`` in a forked slot of its own, whose death makes that claim ``error`` (``plan.died``),
``verify`` in this process (a dead worker costs no result); either says so on stderr. An exception inside a
check is re-raised here with the worker's traceback (``pool.TaskFailed``), as from a local slot; a task the
scheduler or a worker cannot even unpickle (another environment) is one line naming ``--scheduler``.
"""

from __future__ import annotations

import re
import sys
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from .dask_worker import CheckDied, WorkerMismatch, hold, identity, run_task

#: [PROTOCOL://]HOST:PORT, HOST a name, an IPv4 address or a bracketed IPv6 address
_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.\-_]+):(\d{1,5})")
#: the extra that installs dask.distributed (pyproject's optional dependencies)
EXTRA = "pip install 'infonce-bounds[distributed]'"


def check_address(address: str) -> None:
    """``ValueError`` naming ``--scheduler`` unless ``address`` reads as ``[tcp://]HOST:PORT``, port 1 … 65535
    (``inproc://…``: an in-process cluster). Checked before dask is imported or any work is done."""
    if isinstance(address, str) and re.fullmatch(r"inproc://\S+", address):
        return
    m = _ADDRESS.fullmatch(address) if isinstance(address, str) else None
    if m is None or not 0 < int(m.group(1)) < 65536:
        raise ValueError(
            f"--scheduler {address!r} is not a scheduler address; allowed: [tcp://]HOST:PORT with a port in "
            "1 … 65535, e.g. tcp://127.0.0.1:8786"
        )


def connect(address: str) -> Any:
    """A ``distributed.Client`` for ``address``; ``ValueError`` naming ``--scheduler`` if the address is malformed,
    dask.distributed is not installed (with the extra to install) or the scheduler does not answer in 3 s."""
    check_address(address)
    try:
        from distributed import Client
    except ImportError:
        raise ValueError(f"--scheduler {address!r} needs dask.distributed, which is not installed ({EXTRA})") from None
    # a Client whose constructor failed still runs __del__, which raises again ("Exception ignored in …"):
    # that second report is silenced, the first becomes the one-line error
    old_hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None
    try:
        return Client(address, timeout=3, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - OSError / TimeoutError / ValueError depending on the version
        raise ValueError(f"--scheduler {address!r} does not answer: {type(exc).__name__}: {exc}") from None
    finally:
        import gc

        gc.collect()  # the failed Client's __del__ now, under the silent hook
        sys.unraisablehook = old_hook


# ----------------------------------------------------------------------------- client side


def _source_of(name: str, plan: Any, der: Any, client: Any, key: str) -> tuple:
    """How a worker gets derivation ``name`` (``der``): what a plan with its own ``install`` gives it (``check``'s
    claims) and a derivation outside the catalogue pickled, sent once (as ``dask_worker.hold``'s result); a
    catalogue derivation by name. ``(kind, name, object, token, install)``."""
    install = getattr(plan, "install", None)
    if install is not None:
        return ("plan", name, client.submit(hold, plan.shipment(name), key=key, priority=1 << 30), key, install)
    from .. import catalogue
    from ..ledger import DerivationError

    try:
        if catalogue.get(name) is der:
            return ("catalogue", name, None, None, None)
    except DerivationError:
        pass
    import cloudpickle

    try:  # here, not on a worker: a derivation that does not travel is one clear line before any work is sent
        cloudpickle.loads(cloudpickle.dumps(der))
    except Exception as exc:  # noqa: BLE001 - pickling raises TypeError, PicklingError, AttributeError, …
        raise ValueError(
            f"--scheduler: derivation {name!r} is not the catalogue's and cannot be sent to a Dask worker "
            f"({type(exc).__name__}: {exc}); check it without --scheduler"
        ) from None
    return ("derivation", name, client.submit(hold, der, key=key, priority=1 << 30), key, None)


def cluster_info(client: Any) -> dict[str, Any]:
    """The cluster's size: ``workers`` (processes) and ``threads``."""
    info = client.scheduler_info()
    workers = info.get("workers", {}) if isinstance(info, dict) else {}
    return {"workers": len(workers), "threads": sum(int(w.get("nthreads", 1)) for w in workers.values())}


class Cluster:
    """``runner.run_steps``'s ``backend`` for the Dask cluster at ``address`` (checked here, before any work).

    Called by the runner as ``backend(plan, build, pending, waits, finished, pick, task_of, done, run_keys)``: it
    builds every derivation (``build()`` until False), checks every ``pending`` task there and returns when all
    are ``done``. ``pick(None)`` / ``pick(None, force=True)`` is the runner's choice of the next runnable task
    (``force``: a citation cycle, nothing runnable and nothing running), ``task_of`` the task with its options,
    ``done(name, index, payload, seconds, cpu)`` its bookkeeping of a result, ``run_keys`` the run's derivations
    and their step keys by name (``runner._RUN_KEYS``: ``(derivation, options, keys)``). ``info`` is then
    ``{"address", "workers", "threads"}``; ``report(stats)`` puts the cluster's size in the run's statistics.
    """

    def __init__(self, address: str) -> None:
        check_address(address)
        self.address = address
        self.info: dict[str, Any] | None = None

    def report(self, stats: dict[str, Any]) -> dict[str, Any]:
        """``stats`` with the cluster's worker processes (not this process's) and its size under ``scheduler``."""
        return {**stats, "workers": self.info["workers"], "scheduler": self.info} if self.info else stats

    def __call__(
        self,
        plan: Any,
        build: Callable[[], bool],
        pending: dict[tuple[str, int], float],
        waits: Mapping[tuple[str, int], set[tuple[str, int]]],
        finished: set[tuple[str, int]],
        pick: Callable[..., tuple[str, int] | None],
        task_of: Callable[[tuple[str, int]], tuple[str, int, dict]],
        done: Callable[..., None],
        run_keys: Mapping[str, tuple[Any, str, list[str]]],
    ) -> None:
        from .cache import load

        while build():  # every derivation: a chain may cite a step of one given later
            pass
        registry = {name: entry[0] for name, entry in run_keys.items()}

        client = connect(self.address)
        sources: dict[str, tuple] = {}
        expect = identity()
        run = uuid.uuid4().hex[:8]
        inflight: dict[Any, tuple[str, int]] = {}
        seq = [0]

        def submit(task: tuple[str, int]) -> None:
            name, index = task
            if name not in sources:
                key = f"infonce-{plan.label}-{run}-source-{len(sources)}"
                sources[name] = _source_of(name, plan, registry[name], client, key)
            preload = {}
            for n, j in waits.get(task, ()):  # the cited verdicts, for a worker whose run cache is not ours
                key = run_keys[n][2][j] if n in run_keys else None
                hit = load(key) if key is not None else None
                if hit is not None:
                    preload[key] = hit
            seq[0] += 1
            fut = client.submit(
                run_task,
                plan.work,
                sources[name],
                preload,
                expect,
                task_of(task),
                key=f"infonce-{plan.label}-{run}-{seq[0]}-{name}-{index}",
                priority=-seq[0],  # the order pick chose: longest first
                pure=False,
            )
            inflight[fut] = task

        def feed() -> None:
            while True:
                task = pick(None)
                if task is None and pending and not inflight:  # a citation cycle: check them anyway
                    task = pick(None, force=True)
                if task is None:
                    return
                submit(task)

        try:
            self.info = {"address": self.address, **cluster_info(client)}
            _drive(client, plan, inflight, feed, task_of, done, registry)
        finally:
            if inflight:
                client.cancel(list(inflight))
            client.close()


def _drive(client: Any, plan: Any, inflight: dict, feed: Callable, task_of: Callable, done: Callable, registry) -> None:
    """Submit what is runnable, then take each result as it comes and submit what it made runnable, until no
    task is in flight; a task the cluster lost is checked here (``_lost``), a failed check re-raised."""
    from concurrent.futures import CancelledError

    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    from .pool import TaskFailed

    queue = as_completed(loop=client.loop)
    feed()
    queue.update(inflight)
    while inflight:
        fut = next(queue)
        task = inflight.pop(fut)
        try:
            exc = fut.exception() if fut.status != "finished" else None
            result = fut.result() if exc is None else None
        except CancelledError as cancelled:  # Dask lost it (its inputs or result went with a dead worker)
            exc = cancelled
        if exc is None:
            done(*result)
        elif isinstance(exc, WorkerMismatch):
            raise WorkerMismatch(str(exc)) from None
        elif _foreign(exc):
            raise WorkerMismatch(
                f"--scheduler: the cluster could not load this task ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}): install the same infonce-bounds on the "
                "scheduler and every worker"
            ) from None
        elif isinstance(exc, (KilledWorker, CancelledError, CheckDied)):
            _lost(plan, task, f"{type(exc).__name__}: {exc}", task_of, done, registry)
        else:
            import traceback

            tb = "".join(traceback.format_exception(type(exc), exc, fut.traceback()))
            raise TaskFailed(f"checking {task} failed in a Dask worker:\n{tb}")
        before = set(inflight)
        feed()
        queue.update([f for f in inflight if f not in before])


def _foreign(exc: BaseException) -> bool:
    """``exc`` says the scheduler or a worker could not unpickle the task: another environment (a package
    without ``dask_backend``, say). Such a task never started, so no check failed."""
    chain = [exc, exc.__cause__]
    return any(
        isinstance(e, ImportError)
        or (isinstance(e, AttributeError) and "Can't get attribute" in str(e))
        or (isinstance(e, RuntimeError) and "deserialization" in str(e))
        for e in chain
        if e is not None
    )


def _lost(plan: Any, task: tuple[str, int], why: str, task_of: Callable, done: Callable, registry) -> None:
    """The cluster lost ``task``: its check process died (``CheckDied``), or Dask gave up on it after workers died
    holding it (``KilledWorker``: Dask cannot say whether this task killed them or only sat beside the one that
    did). It is checked once more here, as a local run would: a plan
    that isolates (``check``) in a forked slot of its own (its death costs that claim alone: ``plan.died``),
    ``verify`` (a dead worker costs no result) in this process."""
    from .pool import Slot, SlotDied

    step = registry[task[0]].steps[task[1]].name
    print(
        f"{plan.label}: the Dask cluster lost {plan.what} {step!r} ({why.splitlines()[0][:160]}); checking it in this process",
        file=sys.stderr,
    )
    if not plan.isolates:
        done(*plan.work(task_of(task)))
        return
    slot = Slot(plan.work, (task[0],))
    try:
        slot.send(task_of(task))
        _task, result = slot.receive()
    except SlotDied as exc:
        done(task[0], task[1], plan.died(task, f"{why}; checked again in a local process: {exc}"), 0.0, 0.0)
    else:
        done(*result)
    finally:
        slot.close()


__all__ = ["EXTRA", "Cluster", "check_address", "cluster_info", "connect"]
