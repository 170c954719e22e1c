"""Shared fixtures: a seeded generator per test (no global seed), mpmath precision, one verify cache."""

from __future__ import annotations

import zlib

from infonce_bounds.numerics._env import apply_cli_defaults

# the same settings as the CLI, before numpy and numba load: passive OpenMP waits, OpenBLAS workers
# that sleep, and a numba cache keyed on the kernel sources (so an edited helper never runs stale)
apply_cli_defaults()

import os  # noqa: E402

import mpmath  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def session_verify_cache(tmp_path_factory):
    """A verify cache of this session's own: never the developer's ``~/.cache`` (a verdict cached by
    other code must not pass a test), shared by the tests of the whole catalogue. Numba's cache
    directory is fixed already (``apply_cli_defaults`` above), so kernels stay cached across sessions."""
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
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
    render these executed copies, outputs included, instead of running the notebooks again).
    """
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    import time

    from infonce_bounds.numerics.cli import main

    work = tmp_path_factory.mktemp("notebooks")
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
def catalogue_verdicts(session_verify_cache):
    """Every catalogue step checked once per session (the suite's budget, both cores, the session's
    verify cache): ``{derivation name: [(step, result), …]}``, shared by every whole-catalogue test."""
    from suite_budget import SUITE_TRIALS

    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.checks import DEFAULTS
    from infonce_bounds.derivations.run import runner

    ders = catalogue.all_derivations()
    by_der, _ = runner.verify_derivations(ders, {"trials": SUITE_TRIALS, "seed": DEFAULTS["seed"]}, workers=2)
    return {d.name: list(zip(d.steps, by_der[d.name])) for d in ders}


@pytest.fixture(scope="session")
def catalogue_runs(catalogue_verdicts):
    """``{derivation name: {step name: result}}`` of the session's one check of the catalogue."""
    return {name: {st.name: res for st, res in pairs} for name, pairs in catalogue_verdicts.items()}


#: session fixtures too costly to build twice: a test that uses one runs on the worker that built it
#: (pytest-xdist's ``--dist loadgroup``), so the catalogue is checked once and the notebooks executed once;
#: a file's other tests stay together
_SHARED = {
    "catalogue_verdicts": "catalogue",
    "catalogue_runs": "catalogue",
    "catalogue_results": "catalogue",
    "executed_notebooks": "notebooks",
}


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which reads the marks into the node ids
def pytest_collection_modifyitems(config, items):
    """Each test on the worker of its group: the shared fixture's, else its file's (a file's tests share its
    module fixtures and, in test_fuzz, a tally its last test reads)."""
    for item in items:
        groups = {_SHARED[f] for f in getattr(item, "fixturenames", ()) if f in _SHARED}
        if len(groups) > 1:
            raise pytest.UsageError(f"{item.nodeid} uses fixtures of two worker groups: {sorted(groups)}")
        if not item.get_closest_marker("xdist_group"):
            item.add_marker(pytest.mark.xdist_group(groups.pop() if groups else item.nodeid.split("::")[0]))
