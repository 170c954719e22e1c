"""Budgets (checks/budget.py): every symbolic call runs under a deadline and a memory cap and falls through
when either is spent; a claim that used to grow without bound finishes within its budget."""

from __future__ import annotations

import resource
import time

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.budget import CHECK, Budget, Spent, run_symbolic
from infonce_bounds.derivations.ledger import Domain, Step, Verdict

x = sp.Symbol("x", nonnegative=True)


def _spin(seconds: float) -> int:
    t0, n = time.monotonic(), 0
    while time.monotonic() - t0 < seconds:
        n += 1
    return n


def test_deadline_falls_through_and_names_the_stage():
    t0 = time.monotonic()
    out = run_symbolic(_spin, 30.0, deadline=0.3, memory=None, stage="spin")
    assert isinstance(out, Spent) and not out and out.what == "time" and "spin" in str(out)
    assert time.monotonic() - t0 < 5
    assert run_symbolic(_spin, 0.01, deadline=5, memory=None) > 0  # within budget: the value


def test_memory_cap_falls_through_and_is_restored():
    before = resource.getrlimit(resource.RLIMIT_AS)
    out = run_symbolic(lambda: bytearray(3 * 2**30), deadline=None, memory=200, stage="alloc")
    assert isinstance(out, Spent) and out.what == "memory"
    assert resource.getrlimit(resource.RLIMIT_AS) == before
    assert len(run_symbolic(lambda: bytearray(2**20), deadline=None, memory=200)) == 2**20


def test_nested_deadlines_keep_the_tighter_one():
    def inner():
        return run_symbolic(_spin, 30.0, deadline=10, memory=None, stage="inner")

    t0 = time.monotonic()
    out = run_symbolic(inner, deadline=0.3, memory=None, stage="outer")
    assert isinstance(out, Spent) and time.monotonic() - t0 < 5


def test_deadline_inside_a_gc_callback_is_deferred_not_lost():
    """A deadline that falls while a gc callback runs is raised after it, in the caller's code: raised
    inside the callback, CPython would swallow it (an unraisable-exception warning) and the deadline
    would never fire."""
    import gc

    in_callback = []

    def slow_callback(phase, info):
        if phase == "start":
            in_callback.append(1)
            t0 = time.monotonic()
            while time.monotonic() - t0 < 0.3:
                pass

    def work():
        gc.collect()  # the alarm (0.1 s) rings inside slow_callback
        t0 = time.monotonic()
        while time.monotonic() - t0 < 3:
            time.sleep(0.01)
        return "the deadline was lost"

    gc.callbacks.append(slow_callback)
    try:
        out = run_symbolic(work, deadline=0.1, stage="gc")
    finally:
        gc.callbacks.remove(slow_callback)
    assert in_callback
    assert isinstance(out, Spent) and out.stage == "gc"


def test_a_deadline_leaves_no_working_precision_behind():
    """Stopped between its own ``prec = …`` and the restoring line (as SymPy's evalf can be), a symbolic call
    must not leave mpmath or Arb at its precision: every later number of the process would be rounded to it."""
    import mpmath
    from flint import ctx

    before = (mpmath.mp.prec, mpmath.iv.prec, ctx.prec)

    def lowers_then_hangs():
        mpmath.mp.prec, mpmath.iv.prec, ctx.prec = 8, 8, 8
        t0 = time.monotonic()
        while time.monotonic() - t0 < 3:
            time.sleep(0.01)

    assert isinstance(run_symbolic(lowers_then_hangs, deadline=0.1), Spent)
    assert (mpmath.mp.prec, mpmath.iv.prec, ctx.prec) == before


def test_other_exceptions_propagate():
    with pytest.raises(ZeroDivisionError):
        run_symbolic(lambda: 1 / 0, deadline=1, memory=None)


def test_budget_validates():
    with pytest.raises(ValueError, match="claim_seconds"):
        Budget(claim_seconds=-1)
    with pytest.raises(ValueError, match="trials"):
        Budget(trials=0)
    assert CHECK.claim_seconds == 10 and Budget.unbounded().symbolic_seconds is None
    with pytest.raises(TypeError, match="budget"):
        check_step(Step("s", x, x, domain=Domain({x: (0, 1)})), budget=5)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_HUGE = """
import sympy as sp
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.budget import CHECK
from infonce_bounds.derivations.ledger import Domain, Step
x = sp.Symbol("x", real=True)
st = Step("huge", x**1000000000, 1, kind="inequality", relation="<=", domain=Domain({x: (0, 1)}))
res = check_step(st, trials=2000, budget=CHECK)
# this program's own peak (VmHWM belongs to the address space exec made; ru_maxrss also keeps the peak of the
# process it was forked from, a test worker past 1 GB)
hwm = [ln for ln in open("/proc/self/status") if ln.startswith("VmHWM:")]
print(res.verdict, "|", res.method)
print("peak_kb", int(hwm[0].split()[1]) if hwm else -1)
"""


def test_huge_power_is_proved_within_budget():
    """gap.is_nonnegative used to build a dense polynomial of degree 10⁹ (3.8 GB at a 4 GB cap, more with more).
    Checked in a process of its own, whose peak resident memory is its own (the suite's process grows past 1 GB)."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _HUGE], stdout=subprocess.PIPE, text=True, check=False)
    out = proc.stdout
    assert proc.returncode == 0, out
    assert out.startswith("proved |"), out
    peak_kb = int(out.rsplit("peak_kb", 1)[1])
    if peak_kb < 0:
        pytest.skip("no /proc/self/status VmHWM on this system")
    assert peak_kb / 1024 < 1024  # MB, this claim's process alone


def test_tower_finishes_within_budget():
    y = sp.Symbol("y", real=True)
    st = Step(
        "tower",
        sp.exp(sp.exp(sp.exp(sp.exp(sp.exp(y))))),
        y,
        kind="inequality",
        relation=">=",
        domain=Domain({y: (0, 1)}),
    )
    t0 = time.monotonic()
    res = check_step(st, trials=2000, budget=CHECK)
    assert res.verdict is Verdict.PROVED, (res.method, res.evidence)  # the interval stage proves it at once
    assert time.monotonic() - t0 < CHECK.claim_seconds + 5


def test_check_command_uses_the_check_budget(tmp_path):
    from infonce_bounds.derivations.checks.budget import CATALOGUE, default_budget
    from infonce_bounds.numerics.cli import main

    f = tmp_path / "c.toml"
    f.write_text(
        "[[claim]]\nname = 'tower'\nclaim = '" + r"e^{e^{e^{e^{e^{x}}}}} \ge x" + "'\nwhere = { x = [0, 1] }\n"
    )
    t0 = time.monotonic()
    assert main(["check", str(f), "--trials", "2000"]) == 0
    assert time.monotonic() - t0 < CHECK.claim_seconds + 10
    assert default_budget() is CATALOGUE  # the CLI's budget does not leak into the library default


def test_spent_stage_is_named_in_the_evidence():
    st = Step("slow", x**1000000000, 1, kind="inequality", relation="<=", domain=Domain({x: (0, 1)}))
    res = check_step(st, trials=500, budget=Budget(symbolic_seconds=0.05, memory_mb=300))
    assert "budget" in res.evidence and ("sign of the gap" in res.evidence or "simplify" in res.evidence)


def test_every_sympy_call_of_the_interval_stage_is_budgeted():
    # diff of (1 + x)^{10⁶} − 10⁶x − 1 expands a multinomial of degree 10⁶ inside SymPy's assumption
    # queries: the interval stage used to run for minutes on it
    st = Step(
        "bernoulli",
        (1 + x) ** 1000000,
        1 + 1000000 * x,
        kind="inequality",
        relation=">=",
        domain=Domain({x: (0, 1)}),
    )
    t0 = time.monotonic()
    res = check_step(st, trials=2000, budget=CHECK)
    assert res.verdict in (Verdict.PROVED, Verdict.VERIFIED, Verdict.UNDECIDED)
    assert time.monotonic() - t0 < CHECK.claim_seconds + 5


def test_a_deadline_counts_cpu_time_not_the_machines_load():
    """With ``cpu`` (verify's route caps), a call that waits (here: sleeps, as a process does while others hold
    the cores) is not stopped at its deadline of CPU seconds, only at ``WALL_FACTOR`` times it of wall time; one that computes is stopped at it."""
    from infonce_bounds.derivations.checks import budget

    def waits():
        time.sleep(0.6)
        return "done"

    def computes():
        t0 = time.process_time()
        while time.process_time() - t0 < 3:
            pass
        return "the deadline was lost"

    assert run_symbolic(waits, deadline=0.3, cpu=True) == "done"  # 0.6 s of waiting < 3 × 0.3 s of wall time
    assert isinstance(run_symbolic(waits, deadline=0.3), Spent)  # a wall deadline (check's) stops it
    t0 = time.process_time()
    out = run_symbolic(computes, deadline=0.3, stage="busy", cpu=True)
    assert isinstance(out, Spent) and out.stage == "busy"
    assert time.process_time() - t0 < 2  # stopped near 0.3 CPU s, long before the loop's 3
    assert isinstance(run_symbolic(lambda: time.sleep(3), deadline=0.2, cpu=True), Spent)  # waiting past 3 × 0.2 s
    assert budget.WALL_FACTOR >= 1
