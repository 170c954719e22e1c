"""Shared fixtures: a seeded generator per test (no global seed), mpmath precision, one verify cache."""

from __future__ import annotations

import zlib

from infonce_bounds.numerics._env import apply_cli_defaults

# the same settings as the CLI, before numpy and numba load: passive OpenMP waits, OpenBLAS workers
# that sleep, and a numba cache keyed on the kernel sources (so an edited helper never runs stale)
apply_cli_defaults()

import contextlib  # noqa: E402
import os  # noqa: E402
import pathlib  # noqa: E402

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


def _run_root(tmp_path_factory) -> pathlib.Path:
    """The directory this run's pytest-xdist workers share (the parent of their base temps), else this session's."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def _run_lock(tmp_path_factory, name: str):
    """One worker of this run at a time: the first builds a shared thing, the others then read it."""
    import fcntl

    with open(_run_root(tmp_path_factory) / f"{name}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


@pytest.fixture(scope="session", autouse=True)
def session_verify_cache(tmp_path_factory):
    """A verify cache of this run's own, shared by its workers: never the developer's ``~/.cache`` (a verdict
    cached by other code must not pass a test), shared by the tests of the whole catalogue. Numba's cache
    directory is fixed already (``apply_cli_defaults`` above), so kernels stay cached across sessions."""
    old = os.environ.get("XDG_CACHE_HOME")
    shared = _run_root(tmp_path_factory) / "xdg-cache"
    shared.mkdir(exist_ok=True)
    os.environ["XDG_CACHE_HOME"] = str(shared)
    yield os.environ["XDG_CACHE_HOME"]
    if old is None:
        del os.environ["XDG_CACHE_HOME"]
    else:
        os.environ["XDG_CACHE_HOME"] = old


@pytest.fixture(autouse=True)
def numeric_precision_restored():
    """Every test ends with mpmath and Arb at the precision it started with: a leaked precision rounds every
    later number of the worker (a reference value at 8 bits once failed an unrelated enclosure test)."""
    from flint import ctx

    before = (mpmath.mp.prec, mpmath.iv.prec, ctx.prec)
    yield
    after = (mpmath.mp.prec, mpmath.iv.prec, ctx.prec)
    mpmath.mp.prec, mpmath.iv.prec, ctx.prec = before
    assert after == before, f"the test left (mpmath, mpmath.iv, Arb) precision at {after}, not {before}"


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A generator seeded from the test's name: reproducible, independent across tests."""
    seed = zlib.crc32(request.node.nodeid.encode())  # stable across processes, unlike hash()
    return np.random.default_rng(seed)


@pytest.fixture
def mp50():
    """50-digit mpmath precision for the duration of one test."""
    with mpmath.workdps(50):
        yield


@pytest.fixture(scope="session")
def executed_notebooks(tmp_path_factory):
    """Copy the packaged notebooks out (``infonce-bounds notebooks DIR``) and execute each once, headless,
    in that directory with the installed package: ``{name: {"path", "seconds", "error"}}``.

    Session-scoped so the notebook tests and the documentation build share one execution (the docs
    render these executed copies, outputs included, instead of running the notebooks again); under
    pytest-xdist the first worker to need them executes them and the others read its record.
    """
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    import json
    import time

    from infonce_bounds.numerics.cli import main

    with _run_lock(tmp_path_factory, "notebooks"):
        work = _run_root(tmp_path_factory) / "notebooks"
        record = work / "executed.json"
        if record.exists():
            return {k: {**v, "path": pathlib.Path(v["path"])} for k, v in json.loads(record.read_text()).items()}
        work.mkdir()
        out = _execute_notebooks(work, nbformat, nbclient, time, main)
        record.write_text(json.dumps({k: {**v, "path": str(v["path"])} for k, v in out.items()}))
        return out


def _execute_notebooks(work, nbformat, nbclient, time, main) -> dict:
    assert main(["notebooks", str(work)]) == 0
    out = {}
    for path in sorted(work.glob("[0-9][0-9]_*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        client = nbclient.NotebookClient(
            nb, kernel_name="python3", timeout=NOTEBOOK_CELL_TIMEOUT, resources={"metadata": {"path": str(work)}}
        )
        t0 = time.perf_counter()
        error = None
        try:
            client.execute()
        except Exception as exc:  # reported by the test of this notebook, with the failing cell
            error = f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - t0
        executed = work / "executed" / path.name
        executed.parent.mkdir(exist_ok=True)
        nbformat.write(nb, executed)
        out[path.stem] = {"path": executed, "seconds": seconds, "error": error}
    return out


NOTEBOOK_CELL_TIMEOUT = 300  #: seconds per cell (a cell that hangs fails the test instead of the suite)


@pytest.fixture(scope="session")
def catalogue_verdicts(session_verify_cache, tmp_path_factory):
    """Every catalogue step checked once per session (the suite's budget, both cores, the session's
    verify cache): ``{derivation name: [(step, result), …]}``, shared by every whole-catalogue test."""
    from suite_budget import SUITE_TRIALS

    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.checks import DEFAULTS
    from infonce_bounds.derivations.run import runner

    ders = catalogue.all_derivations()
    with _run_lock(tmp_path_factory, "catalogue"):  # a second worker reads the first one's verdicts from the cache
        by_der, _ = runner.verify_derivations(ders, {"trials": SUITE_TRIALS, "seed": DEFAULTS["seed"]}, workers=2)
    return {d.name: list(zip(d.steps, by_der[d.name])) for d in ders}


@pytest.fixture(scope="session")
def catalogue_runs(catalogue_verdicts):
    """``{derivation name: {step name: result}}`` of the session's one check of the catalogue."""
    return {name: {st.name: res for st, res in pairs} for name, pairs in catalogue_verdicts.items()}
