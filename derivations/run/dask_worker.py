"""The Dask worker's side of ``--scheduler`` (``dask_backend`` is the client's): one check at a time, in a process
forked from the worker, after installing what the check reads.

``run_task(work, source, preload, expect, task)`` is the Dask task. It refuses to run under another package
(``expect``: the client's engine version and catalogue key, ``identity``), stores the cited verdicts
``preload`` in this machine's run cache, and hands ``(work, source, task)`` to this worker's *check process*:
a ``pool.Slot`` forked on the first task and reused while it lives, which installs the source where ``work``
reads it (``runner._REGISTRY`` for a derivation, built here by name when it is the catalogue's; for a claim
file, the plan's own ``install``, ``claims.install``) and runs ``work(task)`` in its main thread. Dask runs a task in a thread,
where the budget can arm no deadline (``SIGALRM``) and cap no memory (``RLIMIT_AS``): both need the main
thread, which the forked process's only thread is. A check that kills its process is ``CheckDied`` here; the
worker lives on and forks a fresh one.

This module imports the runner (whose registry it fills), which imports neither it nor ``dask_backend``: the
client refers to ``run_task`` and ``hold`` by name, and they are unpickled on the worker.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any


class WorkerMismatch(ValueError):
    """A Dask worker runs another version of the package than this process: its verdicts would not be ours."""


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


class CheckDied(RuntimeError):
    """The check process of a Dask worker ended without answering (killed, out of memory, a crash in C)."""


#: the check process of this worker process: ``[Slot, the tokens of the sources it holds]``, forked on the first
#: task and reused while it lives (as a local slot is), so the engine's memos and warm caches carry over
_CHILD: list = []
#: in the check process: token → the pickled derivation or claims it received (one run's at a time)
_HELD: dict[str, Any] = {}


def _install(kind: str, name: str, obj: Any, install: Callable | None) -> None:
    """Put the task's derivation where ``plan.work`` reads it, as a forked slot inherits it: the runner's
    registry, or the plan's own ``install(name, obj)`` (``check``'s claims)."""
    from . import runner

    if install is not None:
        install(name, obj)
    elif kind == "catalogue":
        from .. import catalogue

        runner._REGISTRY[name] = catalogue.get(name)
    else:  # "derivation": one outside the catalogue, pickled
        runner._REGISTRY[name] = obj


def _child_work(message: tuple) -> Any:
    """In the check process: install the task's source (received once per token), then ``work(task)``."""
    import pickle

    from .library import install_default

    work, (kind, name, _obj, token, install), obj, task = pickle.loads(message)
    if obj is not None:
        run = token.split("-source-")[0]
        for old in [t for t in _HELD if not t.startswith(run)]:  # another run's: no longer needed
            del _HELD[old]
        _HELD[token] = obj
    _install(kind, name, _HELD.get(token) if token is not None else None, install)
    install_default()
    return work(task)


@contextlib.contextmanager
def _may_fork() -> Iterator[None]:
    """A Dask worker is a daemonic process, and ``multiprocessing`` refuses children to those (so that none
    outlives it). The check process cannot outlive its worker (``pool.die_with_parent``: the kernel's parent-death
    signal and a watchdog), so the flag is lifted while it is forked."""
    import multiprocessing

    config = multiprocessing.current_process()._config
    old = config.get("daemon")
    config["daemon"] = False
    try:
        yield
    finally:
        if old is None:
            config.pop("daemon", None)
        else:
            config["daemon"] = old


def run_task(work: Callable, source: tuple, preload: Mapping[str, Any], expect: tuple[str, str], task: tuple) -> Any:
    """Worker: check ``task`` with ``work`` (the plan's work function) in this worker's check process.

    ``source``: ``(kind, name, object, token, install)``, what ``work`` reads; ``preload``: the cited
    verdicts (run-cache key → payload), stored in this machine's run cache first. The check runs in a process
    forked from this worker (``pool.Slot``) because Dask runs a task in a thread, where the budget can neither arm
    its deadlines (``SIGALRM``) nor cap memory (both: main thread only): in the forked process the calling
    thread is the main one, so a claim is checked under the same budget as in a local slot. ``WorkerMismatch`` if
    this worker's code differs; ``CheckDied`` if the check process ended without answering (the worker lives on).
    """
    import cloudpickle  # a dask dependency: a derivation outside the catalogue may hold closures (check=)

    from .cache import load, store
    from .pool import Slot, SlotDied

    with _LOCK:
        mine = identity()
        if mine != tuple(expect):
            raise WorkerMismatch(
                f"--scheduler: a Dask worker runs another infonce-bounds (engine {mine[0]}, catalogue "
                f"{mine[1][:12]}; this process: engine {expect[0]}, catalogue {expect[1][:12]}): install the "
                "same version on every worker"
            )
        for key, payload in preload.items():
            if load(key) is None:
                store(key, payload)
        kind, name, obj, token, _install_fn = source
        if not _CHILD:
            with _may_fork():
                _CHILD.extend([Slot(_child_work, ()), set()])
        slot, held = _CHILD
        ship = obj if token is not None and token not in held else None
        try:
            slot.send(cloudpickle.dumps((work, (kind, name, None, token, _install_fn), ship, task)))
            _task, result = slot.receive()
        except SlotDied as exc:
            slot.close()
            _CHILD.clear()
            raise CheckDied(
                f"the check process of a Dask worker ended without answering, checking {kind} {name!r} #{task[1]}"
                + (f" ({exc})" if str(exc) else "")
            ) from None
        if token is not None:
            held.add(token)
        return result


def hold(obj: Any) -> Any:
    """Worker: ``obj`` itself. A task's result, not scattered data: Dask computes it again from the task (which
    holds ``obj``) when the worker that kept it dies; scattered data would be lost with it, and every task
    needing it cancelled."""
    return obj


__all__ = ["CheckDied", "WorkerMismatch", "hold", "identity", "run_task"]
