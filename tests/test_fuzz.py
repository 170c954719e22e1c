"""Issue 15, fuzz: random argument strings and random model files at every subcommand, random arrays at every
API function. Bounded (a fixed number of examples, derandomized: the same inputs on every run) and in-process.

CLI contract: exit status 0, 1 or 2 only, stderr never holds a traceback, and an input whose validation
passed and whose work started is stopped after ``PER_INPUT`` seconds (counted, never failed: validation
comes before the work, so the error paths are all exercised in that time).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import signal
import string
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infonce_bounds.numerics import cli

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="per-input time limit needs SIGALRM")

#: seconds an input may run once it has passed validation
PER_INPUT = 1.0

NASTY = [
    "",
    " ",
    "-",
    "--",
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "3",
    "0.5",
    "1/4",
    "1/0",
    "0/0",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "1e-3",
    "1e2",
    "1e-20",
    "1e-300",
    "1e-400",
    "1e300",
    "1e400",
    "1e999999999",
    "-1e999999999",
    "0x10",
    "1_000",
    "١",  # Arabic-Indic digit one
    "½",
    "é",
    "1,2",
    "1-3",
    "3-1",
    "1..8",
    "8..1",
    "1,2,...,8",
    "1,3,...,8",
    "...",
    ",",
    "1-300000000",
    "9" * 60,
    "9" * 5000,
    "a" * 300,
    "auto",
    "AUTO",
    "True",
    "averaged",
    "standard",
    "tcp://127.0.0.1:9",
    "not an address",
    "/etc/hostname/x",
    "/dev/null",
    "/",
    "..",
    "%s%n",
    "{}",
    "[]",
    "'",
    '"',
    "\\",
    "\t",
    "\n",
]

VALUE = st.one_of(st.sampled_from(NASTY), st.text(alphabet=string.printable + "τβδπ∞−", max_size=12))


def _subcommands() -> dict[str, list[tuple[str, bool]]]:
    """Every subcommand's option strings, and whether each takes a value (read from the real parser)."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = {}
    for name, p in sub.choices.items():
        opts = []
        for act in p._actions:
            if isinstance(act, argparse._HelpAction) or not act.option_strings:
                continue
            takes = act.nargs != 0
            opts += [(o, takes) for o in act.option_strings]
        out[name] = opts
    return out


SUBCOMMANDS = _subcommands()
POSITIONAL = {"exact": True, "check": True, "experiment": True, "show": False, "verify": False}


class _Budget(BaseException):
    """The per-input time limit: raised by SIGALRM inside work that passed validation."""


def _on_alarm(signum, frame):
    raise _Budget


STATS = {"inputs": 0, "cut": 0, "status": {}}


def run_cli(argv: list[str]) -> tuple[int | None, str]:
    """main(argv) in-process: (exit status, stderr); status None when the per-input limit stopped the work."""
    err, out = io.StringIO(), io.StringIO()
    if os.environ.get("FUZZ_LOG"):
        with open(os.environ["FUZZ_LOG"], "a") as fh:
            fh.write(f"start {argv!r}\n")
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, PER_INPUT)
    status: int | None
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                status = cli.main(argv)
            except SystemExit as exc:  # argparse's own errors and --help/--version
                status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except _Budget:
        status = None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if os.environ.get("FUZZ_LOG"):  # a trace of every input and its status, for finding a slow one
        with open(os.environ["FUZZ_LOG"], "a") as fh:
            fh.write(f"{status!r} {argv!r}\n")
    STATS["inputs"] += 1
    STATS["cut" if status is None else "status"] = (
        STATS["cut"] + 1 if status is None else {**STATS["status"], status: STATS["status"].get(status, 0) + 1}
    )
    return status, err.getvalue()


def check_contract(argv, status, err) -> None:
    assert "Traceback" not in err, (argv, err)
    if status is None:
        return
    assert status in (0, 1, 2), (argv, status, err)
    if status == 2:
        lines = [ln for ln in err.strip().splitlines() if ln.strip()]
        # argparse prints its usage line before its one-line error; ours print exactly one line
        assert lines and ("error:" in lines[-1] or "usage:" in err), (argv, err)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A scratch cwd (relative --out/--plot values land here) with every lazily imported module loaded first,
    so the per-input limit never interrupts an import."""
    d = tmp_path_factory.mktemp("fuzz")
    old = os.getcwd()
    os.chdir(d)
    for mod in ("rate", "search", "generalisation", "temperature"):
        importlib.import_module(f"infonce_bounds.numerics.experiments.{mod}")
    for argv in (["constants"], ["show"], ["exact", "nonexistent.json"]):
        run_cli(argv)
    yield d
    os.chdir(old)


@st.composite
def argvs(draw):
    name = draw(st.sampled_from(sorted(SUBCOMMANDS)))
    argv = [name]
    if POSITIONAL.get(name) or (name in POSITIONAL and draw(st.booleans())):
        argv.append(draw(st.one_of(st.sampled_from(["rate", "search", "nosuch", "loss", "bias_bound"]), VALUE)))
    opts = SUBCOMMANDS[name]
    for flag, takes in draw(st.lists(st.sampled_from(opts), max_size=4)) if opts else []:
        argv.append(flag)
        if takes:
            argv.append(draw(VALUE))
    if name in ("verify", "report", "check") and draw(st.integers(0, 3)):
        argv += ["--trials", draw(st.sampled_from(["0", "-1", "nan", "1e9", "x"]))]  # keep most of these cheap
    if name == "experiment":
        argv += ["--out", "exp-out"]
    if name == "report":
        argv += ["--out", "report-out"]
    if draw(st.integers(0, 9)) == 0:
        argv.append(draw(VALUE))  # a stray positional
    return argv


@settings(
    max_examples=140,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(argv=argvs())
def test_random_arguments_at_every_subcommand(workdir, argv):
    status, err = run_cli(argv)
    check_contract(argv, status, err)


# ------------------------------------------------------------------------------------------ random model files

JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(NASTY[:40]),
    st.text(max_size=6),
)
ROW = st.lists(st.one_of(JUNK, st.sampled_from(["1", "0", "1/2", "1/3", "3/5", "4/5"])), min_size=0, max_size=4)


@st.composite
def models(draw):
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.binary(max_size=200))
    if kind == 1:
        depth = draw(st.integers(1, 50_000))
        return ("[" * depth + "]" * depth).encode()
    n = draw(st.integers(1, 4))
    good = {
        "tau": draw(st.one_of(st.sampled_from(["1/4", "1", 0.5, "1e-3", "100"]), JUNK)),
        "pi": [f"1/{n}"] * n,
        "M": [[f"1/{n}"] * n for _ in range(n)],
        "phi": [["1", "0"]] * n,
    }
    if kind == 2:  # one field replaced by junk
        key = draw(st.sampled_from(sorted(good)))
        good[key] = draw(st.one_of(JUNK, ROW, st.lists(ROW, max_size=4)))
    elif kind == 3:  # one entry replaced by junk
        key = draw(st.sampled_from(["pi", "M", "phi"]))
        i = draw(st.integers(0, n - 1))
        if key == "pi":
            good["pi"][i] = draw(JUNK)
        else:
            good[key][i] = draw(ROW)
    elif kind == 4:
        del good[draw(st.sampled_from(sorted(good)))]
    text = json.dumps(good, allow_nan=True)
    return text.encode() if draw(st.booleans()) else text.encode("utf-16")


@settings(
    max_examples=60,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=models(), k=st.sampled_from(["1", "1-3", "2,4", "1000000", "0", "x", "1-300000000"]))
def test_random_model_files_at_exact(workdir, data, k):
    path = workdir / "model.json"
    path.write_bytes(data)
    argv = ["exact", str(path), "--k", k, "--digits", "10", "--budget", "2e5"]
    status, err = run_cli(argv)
    check_contract(argv, status, err)
    if status == 2:
        assert any(w in err for w in ("model", "--k", "--budget", "tau", "pi", "M ", "M[", "phi")), err


def test_fuzz_counts_are_reported(workdir):
    """Runs last in this file: the number of inputs tried (printed with -s; also a sanity check that the
    fuzz tests above did run and that some inputs were valid and some refused)."""
    print(f"\nfuzz: {STATS['inputs']} CLI inputs, exit statuses {STATS['status']}, {STATS['cut']} stopped at "
          f"{PER_INPUT} s after validation", file=sys.stderr)
    assert STATS["inputs"] >= 200
    assert STATS["status"].get(2, 0) > 0 and STATS["status"].get(0, 0) > 0
