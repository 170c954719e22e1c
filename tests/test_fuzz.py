"""Issue 15, fuzz: random argument strings and random model files at every subcommand, random arrays at every
API function. Bounded (a fixed number of examples, derandomized: the same inputs on every run) and in-process.

CLI contract: exit status 0, 1 or 2 only, stderr never holds a traceback, and an input whose validation
passed and whose work started is stopped after ``PER_INPUT`` seconds (counted, never failed: validation
comes before the work, so the error paths are all exercised in that time). Each CLI input runs in a forked
child of the test process (no re-import; a stopped child cannot corrupt the parent's state).
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
import warnings

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infonce_bounds.numerics import cli
from infonce_bounds.numerics.validate import InputCopyWarning, OutsideValidatedRangeWarning

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="each CLI input runs in a forked child")

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


STATS = {
    "inputs": 0,
    "cut": 0,
    "status": {},
    "api_refused": 0,
    "api_checked": 0,
    "api_other": 0,
    "api_warned": 0,
    "api_odd_checked": 0,
    "api_copy_warned": 0,
}


def run_cli(argv: list[str]) -> tuple[int | None, str]:
    """main(argv) in a forked child of this process (cheap: nothing is re-imported), so that stopping it at the
    per-input limit can never leave this process's caches (SymPy's, mpmath's precision) half-updated:
    (exit status, stderr); status None when the limit stopped the work."""
    import tempfile
    import time
    import traceback

    if os.environ.get("FUZZ_LOG"):
        with open(os.environ["FUZZ_LOG"], "a") as fh:
            fh.write(f"start {argv!r}\n")
    with tempfile.TemporaryFile() as err_f, tempfile.TemporaryFile() as out_f:
        pid = os.fork()
        if pid == 0:  # the child: run, report through the exit status, never return into pytest
            code = 99
            try:
                os.dup2(out_f.fileno(), 1)
                os.dup2(err_f.fileno(), 2)
                sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
                try:
                    code = cli.main(argv)
                except SystemExit as exc:  # argparse's own errors and --help/--version
                    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
            except BaseException:  # noqa: BLE001 - reported to the parent as a traceback on stderr
                traceback.print_exc()
                code = 99
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code if isinstance(code, int) and 0 <= code < 256 else 98)
        t0 = time.monotonic()
        status: int | None = None
        while True:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(raw)
                break
            if time.monotonic() - t0 > PER_INPUT:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                break
            time.sleep(0.005)
        err_f.seek(0)
        err = err_f.read().decode("utf-8", "replace")
    if os.environ.get("FUZZ_LOG"):  # a trace of every input and its status, for finding a slow one
        with open(os.environ["FUZZ_LOG"], "a") as fh:
            fh.write(f"{status!r} {argv!r}\n")
    STATS["inputs"] += 1
    if status is None:
        STATS["cut"] += 1
    else:
        STATS["status"][status] = STATS["status"].get(status, 0) + 1
    return status, err


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
    so that the forked children do not each import them again."""
    d = tmp_path_factory.mktemp("fuzz")
    old = os.getcwd()
    os.chdir(d)
    for mod in ("rate", "search", "generalisation", "temperature"):
        importlib.import_module(f"infonce_bounds.numerics.experiments.{mod}")
    cli.build_parser()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for argv in (["constants"], ["show"], ["exact", "nonexistent.json"]):
            cli.main(argv)
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
    max_examples=110,
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
    max_examples=50,
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


# ------------------------------------------------------------------------------------------ random arrays at the API

API_ARGS = {
    "anchors",
    "positives",
    "negatives",
    "pool",
    "index",
    "tau",
    "variant",
    "normalize",
    "symmetric",
    "losses",
    "scores",
    "b",
    "betas",
    "ideal_weights",
}
ENTRY = st.one_of(
    st.floats(-1, 1, width=64),
    st.sampled_from([0.0, float("nan"), float("inf"), -float("inf"), 1e300, -1e300, 1e-300, 5e-324, 1e-200]),
)
TAUS = st.sampled_from([1e-3, 0.07, 1.0, 100.0, 1e-40, 1e300, 0.0, -1.0, float("nan"), "1", None, True])


def _layout(draw, a):
    """An odd dtype or layout of the same values: Fortran order, a strided view, reversed rows (negative
    strides), float32 (read as it is) or a dtype that must be refused, a nested list."""
    kind = draw(st.integers(0, 6))
    if kind == 1:
        return np.asfortranarray(a)
    if kind == 2:
        big = np.repeat(a, 2, axis=-1)
        return big[..., ::2]  # a strided view
    if kind == 3:
        with np.errstate(over="ignore", invalid="ignore"):  # 1e300 → inf in float16/float32 is intended
            return a.astype(draw(st.sampled_from([np.float32, np.float16, np.int64, np.complex128, bool])))
    if kind == 4:
        return a.tolist()
    if kind == 5:
        return a[::-1]  # negative strides
    if kind == 6:
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asfortranarray(a.astype(np.float32))  # float32 and Fortran order at once
    return a


def _odd(x) -> bool:
    """An array of float32 or of a non-C layout (the paths that used to be copied silently)."""
    return isinstance(x, np.ndarray) and (x.dtype == np.float32 or not x.flags.c_contiguous)


@st.composite
def api_calls(draw):
    n, k, d = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    unit = draw(st.integers(0, 3)) > 0

    def arr(shape):
        if unit:
            a = np.asarray(draw(st.lists(st.floats(-1, 1), min_size=int(np.prod(shape)), max_size=int(np.prod(shape)))))
            a = a.reshape(shape)
            a[..., 0] += 1.5  # no zero rows
            a = a / np.linalg.norm(a, axis=-1, keepdims=True)
        else:
            a = np.asarray(draw(st.lists(ENTRY, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))).reshape(
                shape
            )
        return _layout(draw, a) if draw(st.integers(0, 2)) == 0 else a

    fn = draw(st.sampled_from(["loss", "pooled", "in_batch", "weights", "lme", "risk"]))
    tau = draw(TAUS) if draw(st.integers(0, 5)) == 0 else draw(st.sampled_from([1e-3, 0.1, 1.0, 100.0]))
    variant = draw(st.sampled_from(["dcl", "standard", "infonce"] * 3 + ["nosuch", 3]))
    flag = draw(st.sampled_from([False, True] * 4 + ["False", "no", 0, None]))
    if fn == "loss":
        return fn, (arr((n, d)), arr((n, d)), arr((n, k, d)), tau, variant, flag)
    if fn == "pooled":
        index = draw(
            st.sampled_from([[[0] * k] * n] * 4 + [[[1, 2], [3]], [[-1] * k] * n, [["a"] * k] * n, [[0.5] * k] * n])
        )
        if isinstance(index[0][0], int) and draw(st.integers(0, 2)) == 0:  # int32, Fortran order: read as given
            index = np.asfortranarray(np.asarray(index, dtype=np.int32))
        return fn, (arr((n, d)), arr((n, d)), arr((max(n, 1), d)), index, tau, variant, flag)
    if fn == "in_batch":
        B = n + 1
        return fn, (arr((B, d)), arr((B, d)), tau, variant, draw(st.sampled_from([False] * 4 + [True, "False"])), flag)
    if fn == "weights":
        return fn, (arr((n, d)), arr((n, k, d)), tau, flag)
    if fn == "lme":
        return fn, (arr((n, k)) if draw(st.booleans()) else draw(st.sampled_from([["a"], [[1], [2, 3]]])), tau)
    return fn, (draw(st.sampled_from([["a"], [[1], [2, 3]], [], [1.0, float("nan")], [1.0, 2.0], [3]])),)


def _check_warnings(fn, args, rec) -> None:
    """A result computed at τ outside [1e-3, 1e2] came with an OutsideValidatedRangeWarning (and only then); an
    InputCopyWarning names the argument copied, and only a small (n, d) one or a scattered pool."""
    cats = [w.category for w in rec]
    STATS["api_warned"] += len(cats)
    for w in rec:
        if w.category is InputCopyWarning:
            assert str(w.message).split(" ")[0] in ("anchors", "positives", "pool"), str(w.message)
            STATS["api_copy_warned"] += 1
    if fn in ("loss", "pooled", "in_batch", "weights"):
        tau = args[{"loss": 3, "pooled": 4, "in_batch": 2, "weights": 2}[fn]]
        outside = not 1e-3 <= float(tau) <= 1e2
        assert (OutsideValidatedRangeWarning in cats) == outside, (tau, cats)


def _mp_loss(a, p, ng, tau, variant):
    """50-digit reference of the per-anchor loss from the same (float) input values."""
    with mpmath.workdps(50):
        t = mpmath.mpf(tau)
        out = []
        for i in range(a.shape[0]):
            sp_ = mpmath.fsum(mpmath.mpf(float(x)) * mpmath.mpf(float(y)) for x, y in zip(a[i], p[i]))
            ss = [mpmath.fsum(mpmath.mpf(float(x)) * mpmath.mpf(float(y)) for x, y in zip(a[i], nj)) for nj in ng[i]]
            kk = len(ss)
            tot = mpmath.fsum(mpmath.exp((s - sp_) / t) for s in ss)
            if variant == "dcl":
                out.append(mpmath.log(tot / kk))
            elif variant == "standard":
                out.append(mpmath.log(1 + tot))
            else:
                out.append(mpmath.log(1 + tot) - mpmath.log(kk))
        return out


def _dtype(arrays):
    """float32 if every array of the call is float32 (then the similarities are float32 sums), else float64."""
    return np.float32 if all(np.asarray(x).dtype == np.float32 for x in arrays) else np.float64


def _close(got, ref, tau, dtype):
    eps = 1e-5 if dtype == np.float32 else 1e-11
    for g, r in zip(got, ref):
        assert abs(mpmath.mpf(float(g)) - r) <= eps * (abs(r) + 2 / mpmath.mpf(tau) + 1), (g, r, tau)


@settings(
    max_examples=80,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(call=api_calls())
def test_random_arrays_at_the_api(call):
    from infonce_bounds.numerics import api

    fn, args = call
    f = {
        "loss": api.infonce_loss,
        "pooled": api.infonce_loss_pooled,
        "in_batch": api.infonce_loss_in_batch,
        "weights": api.softmax_weights,
        "lme": api.log_mean_exp,
        "risk": api.risk,
    }[fn]
    try:
        with warnings.catch_warnings(record=True) as rec:
            # only these two are expected; any other warning stays an error (pytest runs warnings as errors)
            warnings.simplefilter("always", OutsideValidatedRangeWarning)
            warnings.simplefilter("always", InputCopyWarning)
            res = f(*args)
    except ValueError as exc:
        msg = str(exc)
        assert any(name in msg for name in API_ARGS), msg  # names the argument
        STATS["api_refused"] += 1
        return
    _check_warnings(fn, args, rec)
    if fn == "loss":
        (a, p, ng), tau = (np.asarray(x) for x in args[:3]), args[3]
        norm = lambda x: x / np.linalg.norm(x.astype(np.float64), axis=-1, keepdims=True)  # noqa: E731
        if args[5] is True:
            a, p, ng = norm(a), norm(p), norm(ng)
        _close(res, _mp_loss(a, p, ng, float(tau), args[4]), float(tau), _dtype(args[:3]))
        STATS["api_checked"] += 1
        STATS["api_odd_checked"] += any(_odd(x) for x in args[:3])
    elif fn == "in_batch" and args[4] is False:
        a, p = np.asarray(args[0]), np.asarray(args[1])
        if args[5] is True:
            a = a / np.linalg.norm(a.astype(np.float64), axis=-1, keepdims=True)
            p = p / np.linalg.norm(p.astype(np.float64), axis=-1, keepdims=True)
        B = a.shape[0]
        ng = np.stack([np.delete(p, i, axis=0) for i in range(B)])
        _close(res, _mp_loss(a, p, ng, float(args[2]), args[3]), float(args[2]), _dtype(args[:2]))
        STATS["api_checked"] += 1
        STATS["api_odd_checked"] += any(_odd(x) for x in args[:2])
    else:
        assert np.all(np.isfinite(np.asarray(res if fn != "risk" else res.mean)))
        STATS["api_other"] += 1


GOOD_LAYOUTS = ["c", "fortran", "strided", "reversed", "float32", "float32-fortran"]


def _as(kind: str, x: np.ndarray) -> np.ndarray:
    """The same values (up to float32 rounding) in an accepted dtype and layout."""
    if kind == "fortran":
        return np.asfortranarray(x)
    if kind == "strided":
        wide = np.empty((*x.shape[:-1], 2 * x.shape[-1]))
        wide[..., ::2] = x
        return wide[..., ::2]
    if kind == "reversed":
        return np.ascontiguousarray(x[::-1])[::-1]
    if kind == "float32":
        return x.astype(np.float32)
    if kind == "float32-fortran":
        return np.asfortranarray(x.astype(np.float32))
    return x


@st.composite
def odd_calls(draw):
    """Valid unit-row inputs, each array in a random accepted dtype and layout (mixed float32/float64 too)."""
    n, k, d = draw(st.integers(1, 4)), draw(st.integers(1, 5)), draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)

    def unit(*shape):
        x = rng.standard_normal(shape)
        x[..., 0] += np.sign(x[..., 0]) + (x[..., 0] == 0)  # no zero rows
        return x / np.linalg.norm(x, axis=-1, keepdims=True)

    kinds = [draw(st.sampled_from(GOOD_LAYOUTS)) for _ in range(3)]
    fn = draw(st.sampled_from(["loss", "pooled", "in_batch"]))
    tau = draw(st.sampled_from([1e-3, 0.05, 1.0, 100.0]))
    variant = draw(st.sampled_from(["dcl", "standard", "infonce"]))
    if fn == "in_batch":
        B = n + 1
        return fn, kinds, (_as(kinds[0], unit(B, d)), _as(kinds[1], unit(B, d)), tau, variant)
    a, p = _as(kinds[0], unit(n, d)), _as(kinds[1], unit(n, d))
    if fn == "loss":
        return fn, kinds, (a, p, _as(kinds[2], unit(n, k, d)), tau, variant)
    m = draw(st.integers(1, 6))
    index = _as(draw(st.sampled_from(["c", "fortran", "reversed"])), rng.integers(0, m, size=(n, k)))
    if draw(st.booleans()):
        index = index.astype(np.int32)
    return fn, kinds, (a, p, _as(kinds[2], unit(m, d)), index, tau, variant)


@settings(max_examples=60, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=odd_calls())
def test_odd_dtypes_and_layouts_at_the_api(call):
    """Float32, Fortran-ordered, strided and reversed arrays, mixed with float64 ones, at the three loss layouts:
    the result matches a 50-digit reference of the same numbers; a copy, if any, is announced naming the array."""
    from infonce_bounds.numerics import api

    fn, kinds, args = call
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", InputCopyWarning)
        if fn == "loss":
            res = api.infonce_loss(*args)
        elif fn == "pooled":
            res = api.infonce_loss_pooled(*args)
        else:
            res = api.infonce_loss_in_batch(*args)
    _check_warnings(fn, args, rec)
    if fn == "loss":
        a, p, ng, tau, var = args
        arrays = (a, p, ng)
    elif fn == "pooled":
        a, p, pool, index, tau, var = args
        ng, arrays = np.asarray(pool)[np.asarray(index)], (a, p, pool)
    else:
        a, p, tau, var = args
        ng, arrays = np.stack([np.delete(p, i, axis=0) for i in range(a.shape[0])]), (a, p)
    _close(res, _mp_loss(np.asarray(a), np.asarray(p), ng, tau, var), tau, _dtype(arrays))
    STATS["api_checked"] += 1
    STATS["api_odd_checked"] += any(_odd(x) for x in arrays)
    if fn == "loss" and kinds[2] != "c":  # the big array is read as given: never named in a copy warning
        assert not any("negatives" in str(w.message) for w in rec)


def test_fuzz_counts_are_reported(workdir):
    """Runs last in this file: the number of inputs tried (printed with -s; also a sanity check that the
    fuzz tests above did run and that some inputs were valid and some refused)."""
    print(
        f"\nfuzz: {STATS['inputs']} CLI inputs, exit statuses {STATS['status']}, {STATS['cut']} stopped at "
        f"{PER_INPUT} s after validation",
        file=sys.stderr,
    )
    assert STATS["inputs"] >= 150
    assert STATS["status"].get(2, 0) > 0 and STATS["status"].get(0, 0) > 0
    print(
        f"fuzz: API calls {STATS['api_refused']} refused naming an argument, {STATS['api_checked']} checked "
        f"against 50 digits ({STATS['api_odd_checked']} of them with float32 or non-C-ordered arrays), "
        f"{STATS['api_other']} finite results; {STATS['api_warned']} warnings "
        f"({STATS['api_copy_warned']} InputCopyWarning)",
        file=sys.stderr,
    )
    assert STATS["api_refused"] > 0 and STATS["api_checked"] > 0 and STATS["api_odd_checked"] > 0
