"""Worker slots for ``verify``: one forked process each, fed one task at a time over a pipe.

A slot is forked from the parent *when it is needed*, and inherits what the parent holds at that moment
(the derivations built so far, the step keys, SymPy's and the lambdify caches, the imported modules):
nothing is pickled but the task ``(derivation, index, options)`` and the result dict. So the first slot
can start checking the first derivations while the parent is still building the later ones, and is
forked again (``Slot.knows`` says what it can check) once the whole catalogue is built.

A slot that dies (killed, out of memory) is reported by ``Slot.receive`` raising ``SlotDied``; the tasks
it held are handed back (``Slot.inflight``).

A slot never outlives its parent (``die_with_parent``): killed with ``kill -9``, the parent takes its
workers with it, and Ctrl-C is the parent's alone to handle (a worker ignores SIGINT and is ended by the
parent's clean-up). Before this, the second slot inherited the parent's end of the first slot's pipe (and
each slot its own), so neither ever saw EOF, and both slept for ever under init.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Iterable
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from typing import Any


class SlotDied(RuntimeError):
    """The slot's process ended without answering (killed, out of memory, ``os._exit``)."""


class TaskFailed(RuntimeError):
    """A check raised in the worker: the parent re-raises it with the worker's traceback."""


#: the parent's ends of the live slots' pipes: a newly forked slot closes its copies of them (else a slot's
#: pipe never reads EOF while another slot is alive, and the slots keep each other alive)
_PARENT_ENDS: weakref.WeakSet[Connection] = weakref.WeakSet()

#: how often (s) a worker's watchdog thread looks for its parent
WATCH_PERIOD = 0.25


def die_with_parent(parent_pid: int) -> None:
    """Make this (worker) process end when process ``parent_pid``, its parent, ends, however it ends.

    On Linux the kernel sends SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``); everywhere, a daemon
    thread looks at ``getppid()`` every ``WATCH_PERIOD`` s (it changes when the parent dies), which also closes
    the race in which the parent died before ``prctl`` ran. SIGINT is ignored: Ctrl-C reaches the whole
    process group, and the parent, which handles it, ends its workers itself.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):  # pragma: no cover - no prctl symbol
            pass
    if os.getppid() != parent_pid:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(WATCH_PERIOD)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _serve(conn: Connection, work: Callable[[Any], Any], parent_pid: int, inherited: list[Connection]) -> None:
    """The child's loop: a task in, its result out, until the parent sends ``None`` or goes away."""
    die_with_parent(parent_pid)
    for end in inherited:  # the parent's ends, this slot's own among them: EOF on ``conn`` must mean "parent gone"
        try:
            end.close()
        except OSError:
            pass
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        try:
            out = ("ok", work(task))
        except BaseException:  # noqa: BLE001 - a failing check is reported to the parent, not swallowed
            out = ("error", traceback.format_exc())
        conn.send(out)


class Slot:
    """One worker process; ``knows``: the names of the derivations it inherited when it was forked."""

    def __init__(self, work: Callable[[Any], Any], knows: Iterable[str]) -> None:
        ctx = get_context("fork")
        self.conn, child = ctx.Pipe()
        inherited = [*_PARENT_ENDS, self.conn]
        self.proc = ctx.Process(target=_serve, args=(child, work, os.getpid(), inherited), daemon=True)
        self.proc.start()
        _PARENT_ENDS.add(self.conn)
        child.close()  # the parent keeps one end: the child's exit then shows as EOF here
        self.knows = frozenset(knows)
        self.inflight: list[Any] = []  # tasks sent, in order (answers come back in that order)

    def send(self, task: Any) -> None:
        try:
            self.conn.send(task)
        except (BrokenPipeError, OSError) as exc:
            raise SlotDied(str(exc)) from exc
        self.inflight.append(task)

    def receive(self) -> tuple[Any, Any]:
        """(task, its result); ``SlotDied`` if the process ended instead."""
        try:
            status, payload = self.conn.recv()
        except (EOFError, OSError) as exc:
            raise SlotDied(str(exc)) from exc
        task = self.inflight.pop(0)
        if status == "error":
            raise TaskFailed(f"checking {task[:2]} failed in a worker:\n{payload}")
        return task, payload

    def close(self) -> None:
        """Ask the process to stop and reap it (a busy one is terminated)."""
        try:
            self.conn.send(None)
        except (BrokenPipeError, OSError):
            pass
        self.proc.join(timeout=5 if not self.inflight else 0)
        if self.proc.is_alive():
            self.proc.terminate()
            self.proc.join()
        _PARENT_ENDS.discard(self.conn)
        self.conn.close()


def ready(slots: Iterable[Slot], timeout: float | None) -> list[Slot]:
    """The slots with an answer (or an EOF) waiting, after at most ``timeout`` seconds."""
    by_conn = {s.conn: s for s in slots if s.inflight}
    if not by_conn:
        return []
    return [by_conn[c] for c in wait(list(by_conn), timeout)]


def map_in_order(
    fn: Callable[[Any], Any],
    items: list[Any],
    workers: int,
    chunk: int | None = None,
    on_chunk: Callable[[int], None] | None = None,
) -> list[Any] | None:
    """``[fn(x) for x in items]`` computed by ``workers`` forked slots, chunk by chunk, in order.

    ``fn`` may be a closure (a slot is forked: nothing is pickled but the chunk's bounds and the results, which
    must pickle). An exception ``fn`` raises is returned in place of the chunk's results and re-raised here,
    the first in the items' order, after every slot is closed. ``None`` when a slot died: the caller then
    computes the items itself. ``on_chunk(n)`` is called as each chunk of ``n`` items comes back.
    """
    n = len(items)
    size = chunk or max(4, -(-n // (workers * 8)))
    bounds = [(i, min(i + size, n)) for i in range(0, n, size)]

    def run_chunk(b: tuple[int, int]) -> tuple[int, list[Any] | BaseException]:
        try:
            return b[0], [fn(items[i]) for i in range(*b)]
        except Exception as exc:  # noqa: BLE001 - handed back, raised in order by the parent
            return b[0], exc

    out: dict[int, list[Any] | BaseException] = {}
    slots = [Slot(run_chunk, ()) for _ in range(min(workers, len(bounds)))]
    todo = list(bounds)
    try:
        for slot in slots:
            if todo:
                slot.send(todo.pop(0))
        while any(s.inflight for s in slots):
            for slot in ready(slots, None):
                _, (start, res) = slot.receive()
                out[start] = res
                if on_chunk is not None:
                    on_chunk(next(b - a for a, b in bounds if a == start))
                if todo:
                    slot.send(todo.pop(0))
    except (SlotDied, TaskFailed):
        return None
    finally:
        for slot in slots:
            slot.close()
    results: list[Any] = []
    for start, _ in bounds:
        res = out[start]
        if isinstance(res, BaseException):
            raise res
        results.extend(res)
    return results
