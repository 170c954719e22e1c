"""Budgets: how much time, memory and work one claim's check may spend, and symbolic calls run under them.

``Budget`` (all fields optional; ``None`` means unbounded):

* ``claim_seconds``: wall seconds for one claim's whole check (10 for ``infonce-bounds check``; none for
  ``verify``, whose verdicts must not depend on the load); the symbolic stages get at most half of what is
  left, so a slow stage falls through to the next one, and the falsifier runs under what remains;
* ``symbolic_seconds``: deadline of one symbolic call (``simplify``, a sign query): default 4 s; where the claim
  has no wall budget (``verify``) a proof route's cap counts CPU seconds (``cpu=True``), so that its verdict
  does not depend on the machine's load;
* ``memory_mb``: how much more address space one symbolic call may take (default 512 MB; the process's
  peak stays below 1 GB on a claim file);
* ``trials``: falsifier evaluations per claim; ``boxes``: interval boxes per claim (``None``: the checker
  defaults, ``checks.DEFAULTS``).

``run_symbolic(fn, *args, deadline=, memory=, stage=)`` runs ``fn(*args)`` under a wall (or, with ``cpu``, a CPU-time)
deadline (a ``SIGALRM`` timer raising a private exception; see ``_deadline``) and a memory cap (the soft ``RLIMIT_AS`` lowered to the
current address space plus the cap for the duration of the call, restored after; ``MemoryError`` is
caught). Both only in the main thread (elsewhere the call runs unbounded: a signal cannot reach another
thread, and an address-space cap would hit the other threads too). Give ``memory=None`` around code that
may JIT-compile (numba/LLVM aborts on a failed allocation instead of raising). When either is spent it returns a
``Spent`` marker naming the stage, which the caller treats as *undecided*: a symbolic proof attempt that
runs out proves nothing, and the interval or numeric stages still run. Nested calls keep the tighter
deadline and cap of the two.
"""

from __future__ import annotations

import contextlib
import gc
import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Budget:
    """What one claim's check may spend (``None``: unbounded). See the module docstring for each field."""

    claim_seconds: float | None = 10.0
    symbolic_seconds: float | None = 4.0
    memory_mb: float | None = 512.0
    trials: int | None = None
    boxes: int | None = None

    def __post_init__(self) -> None:
        for name in ("claim_seconds", "symbolic_seconds", "memory_mb"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, (int, float)) and v > 0):
                raise ValueError(f"Budget.{name} must be a positive number of {'MB' if 'mb' in name else 's'} or None")
        for name in ("trials", "boxes"):
            v = getattr(self, name)
            if v is not None and not (isinstance(v, int) and v >= 1):
                raise ValueError(f"Budget.{name} must be an integer ≥ 1 or None, got {v!r}")

    @classmethod
    def unbounded(cls) -> Budget:
        return cls(None, None, None)

    def started(self) -> Clock:
        """A clock for one claim: deadlines of its symbolic calls are cut to what is left of the claim's."""
        return Clock(self, time.monotonic())

    def but(self, **changes: Any) -> Budget:
        return replace(self, **changes)


#: the budget of ``infonce-bounds check`` (one user claim: 10 s, 4 s per symbolic call, 512 MB more per call)
CHECK = Budget()
#: the default of ``check_step`` elsewhere (``verify``, the Python API): no wall limit per claim (a verdict
#: of the catalogue must not depend on the machine's load), a generous deadline and cap per symbolic call
CATALOGUE = Budget(claim_seconds=None, symbolic_seconds=120.0, memory_mb=1024.0)

_DEFAULT: list[Budget] = [CATALOGUE]


def default_budget() -> Budget:
    """The budget ``check_step`` uses when its options give none (``CATALOGUE`` unless set)."""
    return _DEFAULT[-1]


@contextlib.contextmanager
def default_budget_set(budget: Budget) -> Iterator[Budget]:
    """Within the block, ``budget`` is the default of ``check_step`` (``infonce-bounds check`` sets ``CHECK``)."""
    if not isinstance(budget, Budget):
        raise TypeError(f"budget must be a checks.budget.Budget, got {type(budget).__name__}")
    _DEFAULT.append(budget)
    try:
        yield budget
    finally:
        _DEFAULT.pop()


@dataclass
class Clock:
    """A running claim budget: ``left()`` seconds of the claim, ``deadline()`` for the next symbolic call."""

    budget: Budget
    t0: float

    def left(self) -> float | None:
        if self.budget.claim_seconds is None:
            return None
        return self.budget.claim_seconds - (time.monotonic() - self.t0)

    def deadline(self, share: float = 1.0) -> float | None:
        """Seconds for the next symbolic call: ``symbolic_seconds``, cut to ``share`` of what the claim has left."""
        per = self.budget.symbolic_seconds
        left = self.left()
        if left is None:
            return per
        left = max(left * share, 0.05)
        return left if per is None else min(per, left)

    def spent(self, fraction: float = 1.0) -> bool:
        """Whether ``fraction`` of the claim's seconds has gone (never, without a claim limit)."""
        if self.budget.claim_seconds is None:
            return False
        return time.monotonic() - self.t0 >= fraction * self.budget.claim_seconds


@dataclass(frozen=True)
class Spent:
    """A symbolic call that ran out of its budget: what ran out (``"time"`` or ``"memory"``) and where."""

    stage: str
    what: str
    limit: str

    def __bool__(self) -> bool:  # a spent call settles nothing: falsy, like an undecided sign
        return False

    def __str__(self) -> str:
        return f"{self.stage}: {self.what} budget ({self.limit}) spent"


class _Deadline(BaseException):
    """Raised by the timer inside a symbolic call (BaseException: SymPy's ``except Exception`` cannot eat it)."""


_state = threading.local()


def _vm_bytes() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextlib.contextmanager
def _memory_cap(memory_mb: float | None) -> Iterator[None]:
    if (
        memory_mb is None
        or not hasattr(resource, "RLIMIT_AS")
        or threading.current_thread() is not threading.main_thread()
    ):
        yield
        return
    vm = _vm_bytes()
    if vm is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = vm + int(memory_mb * 2**20)
    if soft != resource.RLIM_INFINITY:
        cap = min(cap, soft)  # a nested or outer cap that is tighter stays
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def _numeric_contexts() -> Iterator[None]:
    """Restore mpmath's and Arb's working precision on exit: a deadline or the memory cap can stop SymPy or
    mpmath between their own ``prec = …`` and its restoring line (SymPy's evalf estimates magnitudes at a
    few bits), and the precision they left would round every later computation of the process."""
    import mpmath
    from flint import ctx

    saved = (mpmath.mp.prec, mpmath.iv.prec, ctx.prec)
    try:
        yield
    finally:
        mpmath.mp.prec, mpmath.iv.prec, ctx.prec = saved


#: True while the garbage collector runs (its callbacks, finalisers and weakref callbacks swallow exceptions)
_COLLECTING = [False]


def _gc_phase(phase: str, info: dict) -> None:
    _COLLECTING[0] = phase == "start"


gc.callbacks.insert(0, _gc_phase)
#: the standard library's weakref callbacks (called when a referent dies, outside a collection too)
_WEAKREF_FILES = ("weakref.py", "_weakrefset.py")


def _in_swallowing_frame(frame: Any) -> bool:
    """Whether ``frame`` runs inside a gc callback, a finaliser or a weakref callback, where CPython swallows
    exceptions."""
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        code = frame.f_code
        if code in callbacks or code.co_name == "__del__" or code.co_filename.endswith(_WEAKREF_FILES):
            return True
        frame = frame.f_back
    return False


#: a CPU deadline (``cpu=True``: a claim with no wall budget, as under ``verify``) counts this process's CPU
#: seconds (``time.process_time``), so a verdict does not depend on how many other processes share the cores; a
#: call that waits without computing is still stopped after this many times its seconds of wall time
WALL_FACTOR = 3.0


def _remaining(until: tuple[float, float]) -> float:
    """Wall seconds to wait before the deadline ``until = (CPU, wall)`` can have passed: CPU time advances at
    most as fast as wall time in one thread, so neither end can be reached sooner."""
    return max(min(until[0] - time.process_time(), until[1] - time.monotonic()), 1e-3)


@contextlib.contextmanager
def _deadline(seconds: float | None, cpu: bool = False) -> Iterator[bool]:
    """Arm a deadline of ``seconds`` of wall time, or with ``cpu`` of this process's CPU time (and at most
    ``WALL_FACTOR·seconds`` of wall time), in the main thread only; yields whether it is armed. ``SIGALRM``
    rings when the deadline could first have passed; the handler re-arms while neither end has. A nested
    deadline keeps the earlier of each end and re-arms the outer one's remainder on exit."""
    if seconds is None or threading.current_thread() is not threading.main_thread():
        yield False
        return
    if cpu:
        mine = (time.process_time() + seconds, time.monotonic() + WALL_FACTOR * seconds)
    else:
        mine = (float("inf"), time.monotonic() + seconds)
    outer = getattr(_state, "until", None)
    until = mine if outer is None else (min(outer[0], mine[0]), min(outer[1], mine[1]))
    token = object()

    def fire(signum: int, frame: Any) -> None:
        if getattr(_state, "token", None) is None:
            return
        now = _state.until
        if now is not None and time.process_time() < now[0] and time.monotonic() < now[1]:
            signal.setitimer(signal.ITIMER_REAL, _remaining(now))  # waited, not computed: not yet
            return
        if _COLLECTING[0] or _in_swallowing_frame(frame):
            # raised there, the exception would be lost (and reported as unraisable): try again shortly
            signal.setitimer(signal.ITIMER_REAL, 0.01)
            return
        # should a callback not recognised above swallow it, the alarm rings again (a normal unwind disarms it)
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        raise _Deadline()

    old_handler = signal.signal(signal.SIGALRM, fire)
    old_token = getattr(_state, "token", None)
    _state.until, _state.token = until, token
    signal.setitimer(signal.ITIMER_REAL, _remaining(until))
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _state.until, _state.token = outer, old_token
        signal.signal(signal.SIGALRM, old_handler)
        if outer is not None:
            signal.setitimer(signal.ITIMER_REAL, _remaining(outer))


def run_symbolic(
    fn: Callable[..., Any],
    *args: Any,
    deadline: float | None = CHECK.symbolic_seconds,
    memory: float | None = CHECK.memory_mb,
    stage: str = "symbolic",
    cpu: bool = False,
    **kwargs: Any,
) -> Any:
    """``fn(*args, **kwargs)`` under a ``deadline`` (wall s; with ``cpu``, CPU s: see ``_deadline``) and a ``memory`` cap (MB), or ``Spent``.

    ``Spent`` is falsy and names ``stage``; the caller treats it as undecided. Any other exception of
    ``fn`` propagates unchanged."""
    if deadline is not None and deadline <= 0:
        return Spent(stage, "time", "0 s left")
    try:
        with _numeric_contexts(), _deadline(deadline, cpu), _memory_cap(memory):
            return fn(*args, **kwargs)
    except _Deadline:
        return Spent(stage, "time", f"{deadline:g} s")
    except MemoryError:
        return Spent(stage, "memory", f"{memory:g} MB")
    except RecursionError:
        return Spent(stage, "recursion", "Python stack")


def spent_note(value: Any) -> str:
    """The evidence line for a ``Spent`` value, else ''."""
    return str(value) if isinstance(value, Spent) else ""
