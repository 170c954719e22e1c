"""The runner's tasks on a Dask cluster (``--scheduler ADDRESS``) instead of the local worker slots.

``run_on_cluster(address, plan, pending, waits, finished, pick, task_of, done)`` is what ``runner.run_steps``
calls in place of its forked slots when it is given a scheduler. Everything else is the runner's own: the
cache look-up and store (``done`` stores a result before the tasks waiting for it are sent), the order
(``pick``: longest runnable first), the dependency waves (a task is submitted only once every task it
``waits`` for is ``finished``: a chain after the steps it cites, a claim with ``uses`` after the claims it
uses, which then travel in its options), the progress callback (inside ``done``) and the work function
(``plan.work``, the same ``(name, index, options) → (name, index, payload, seconds, CPU seconds)`` a local
slot runs, so a cluster's verdicts are a local run's: the same code on the same step with the same options).

A Dask worker is not forked from this process, so it receives what a slot inherits:

* *the step*: a catalogue derivation by its name (the worker builds it from its own copy of the package:
  catalogue derivations do not all pickle, SymPy's ``Str`` names among them), any other derivation and a
  claim file's parsed claims pickled, scattered once per run;
* *the code's identity*: every task carries this process's engine version and catalogue key (a hash of every
  source file of ``derivations`` and the library versions, ``cache.catalogue_key``); a worker whose package
  differs refuses the task (``WorkerMismatch``), so a cluster never answers with another version's verdicts;
* *the cited verdicts*: a task that waits for others carries their cached payloads by key, and the worker
  stores them in its own run cache first (a chain on another machine reads its citations from there, as
  a local slot reads the shared cache).

One task at a time per worker process (a lock): the engine keeps per-process state (the chain's memo, the
budget's clock), like a forked slot. Start workers with ``--nthreads 1`` and as many processes as cores.

A worker that dies while checking (killed, out of memory) costs only its task, reported as the local pool
reports it. Dask retries the tasks a dead worker held on the others; when it gives up on one (``KilledWorker``,
after the scheduler's ``allowed-failures``) that task, and it alone, is checked here as a local run checks it:
``check`` in a forked slot of its own, whose death makes that claim ``error`` (``plan.died``), ``verify`` in
this process (a dead worker costs no result); either says so on stderr. An exception inside a check is re-raised here with the
worker's traceback (``pool.TaskFailed``), as from a local slot.
"""

from __future__ import annotations

import re
import sys
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any

#: [PROTOCOL://]HOST:PORT, HOST a name, an IPv4 address or a bracketed IPv6 address
_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.\-_]+):(\d{1,5})")
#: the extra that installs dask.distributed (pyproject's optional dependencies)
EXTRA = "pip install 'infonce-bounds[distributed]'"


class WorkerMismatch(ValueError):
    """A Dask worker runs another version of the package than this process: its verdicts would not be ours."""


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


# ----------------------------------------------------------------------------- worker side

#: one task at a time in a worker process (the engine's per-process state, as in a forked slot)
_LOCK = threading.Lock()
#: this worker's (engine version, catalogue key), computed once
_IDENTITY: list[tuple[str, str]] = []


def identity() -> tuple[str, str]:
    """(engine version, catalogue key): equal in two processes exactly when their engines, their
    ``derivations`` sources and the libraries a verdict depends on are."""
    if not _IDENTITY:
        from .cache import catalogue_key, engine_version

        _IDENTITY.append((engine_version(), catalogue_key({})))
    return _IDENTITY[0]


def _install(source: tuple) -> None:
    """Put the task's derivation (or claims) where ``plan.work`` reads it, as a forked slot inherits it."""
    from . import runner

    kind, name, obj = source
    if kind == "catalogue":
        from .. import catalogue

        runner._REGISTRY[name] = catalogue.get(name)
    elif kind == "derivation":
        runner._REGISTRY[name] = obj
    else:  # "claims": check FILE's parsed claims
        from . import claims

        claims._CLAIMS[name] = obj


def run_task(work: Callable, source: tuple, preload: Mapping[str, Any], expect: tuple[str, str], task: tuple) -> Any:
    """Worker: check ``task`` with ``work`` (the plan's work function) after installing its ``source`` and the
    cited verdicts ``preload`` (run-cache key → payload); ``WorkerMismatch`` if this worker's code differs."""
    from .cache import load, store
    from .library import install_default

    with _LOCK:
        mine = identity()
        if mine != tuple(expect):
            raise WorkerMismatch(
                f"--scheduler: a Dask worker runs another infonce-bounds (engine {mine[0]}, catalogue "
                f"{mine[1][:12]}; this process: engine {expect[0]}, catalogue {expect[1][:12]}): install the "
                "same version on every worker"
            )
        _install(source)
        for key, payload in preload.items():
            if load(key) is None:
                store(key, payload)
        install_default()
        return work(task)


# ----------------------------------------------------------------------------- client side


def _hold(obj: Any) -> Any:
    """Worker: ``obj`` itself. A task's result, not scattered data: Dask computes it again from the task (which
    holds ``obj``) when the worker that kept it dies; scattered data would be lost with it, and every task
    needing it cancelled."""
    return obj


def _source_of(name: str, client: Any, key: str) -> tuple:
    """How a worker gets derivation ``name``: by name from the catalogue, else pickled (sent once, ``_hold``)."""
    from . import claims, runner

    if name in claims._CLAIMS:
        return ("claims", name, client.submit(_hold, list(claims._CLAIMS[name]), key=key, priority=1 << 30))
    der = runner._REGISTRY[name]
    from .. import catalogue
    from ..ledger import DerivationError

    try:
        if catalogue.get(name) is der:
            return ("catalogue", name, None)
    except DerivationError:
        pass
    return ("derivation", name, client.submit(_hold, der, key=key, priority=1 << 30))


def cluster_info(client: Any) -> dict[str, Any]:
    """The cluster's size: ``workers`` (processes) and ``threads``."""
    info = client.scheduler_info()
    workers = info.get("workers", {}) if isinstance(info, dict) else {}
    return {"workers": len(workers), "threads": sum(int(w.get("nthreads", 1)) for w in workers.values())}


def run_on_cluster(
    address: str,
    plan: Any,
    pending: dict[tuple[str, int], float],
    waits: Mapping[tuple[str, int], set[tuple[str, int]]],
    finished: set[tuple[str, int]],
    pick: Callable[..., tuple[str, int] | None],
    task_of: Callable[[tuple[str, int]], tuple[str, int, dict]],
    done: Callable[..., None],
) -> dict[str, Any]:
    """Check every ``pending`` task on the Dask cluster at ``address`` (see the module docstring).

    ``pick(None)`` / ``pick(None, force=True)``: the runner's choice of the next runnable task (``force``:
    a citation cycle, nothing runnable and nothing running); ``task_of``: the task with its options;
    ``done(name, index, payload, seconds, cpu)``: the runner's bookkeeping of a result. Returns
    ``{"address", "workers", "threads"}``.
    """
    from concurrent.futures import CancelledError

    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    from . import runner
    from .cache import load
    from .pool import TaskFailed

    client = connect(address)
    sources: dict[str, tuple] = {}
    expect = identity()
    run = uuid.uuid4().hex[:8]
    inflight: dict[Any, tuple[str, int]] = {}
    queue = as_completed(loop=client.loop)
    seq = [0]

    def submit(task: tuple[str, int]) -> None:
        name, index = task
        if name not in sources:
            sources[name] = _source_of(name, client, f"infonce-{plan.label}-{run}-source-{len(sources)}")
        preload = {}
        for n, j in waits.get(task, ()):  # the cited verdicts, for a worker whose run cache is not ours
            key = runner._RUN_KEYS[n][2][j] if n in runner._RUN_KEYS else None
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
        queue.add(fut)

    def feed() -> None:
        while True:
            task = pick(None)
            if task is None and pending and not inflight:  # a citation cycle: check them anyway
                task = pick(None, force=True)
            if task is None:
                return
            submit(task)

    try:
        info = {"address": address, **cluster_info(client)}
        feed()
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
            elif isinstance(exc, (KilledWorker, CancelledError)):
                _lost(plan, task, f"{type(exc).__name__}: {exc}", task_of, done)
            else:
                import traceback

                tb = "".join(traceback.format_exception(type(exc), exc, fut.traceback()))
                raise TaskFailed(f"checking {task} failed in a Dask worker:\n{tb}")
            feed()
        return info
    finally:
        if inflight:
            client.cancel(list(inflight))
        client.close()


def _lost(plan: Any, task: tuple[str, int], why: str, task_of: Callable, done: Callable) -> None:
    """Dask gave up on ``task``: a worker died while it held it. Dask cannot say whether this task killed the
    worker or only sat beside the one that did, so it is checked once more here, as a local run would: a plan
    that isolates (``check``) in a forked slot of its own (its death costs that claim alone: ``plan.died``),
    ``verify`` (a dead worker costs no result) in this process."""
    from . import runner
    from .pool import Slot, SlotDied

    step = runner._REGISTRY[task[0]].steps[task[1]].name
    print(
        f"{plan.label}: a Dask worker died holding {plan.what} {step!r}; checking it in this process", file=sys.stderr
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


__all__ = ["EXTRA", "WorkerMismatch", "check_address", "connect", "identity", "run_on_cluster", "run_task"]
