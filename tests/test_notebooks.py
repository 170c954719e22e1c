"""The teaching notebooks execute headless, cell by cell, and are committed without outputs.

Each notebook in ``notebooks/`` is run with nbclient (kernel ``python3``, working directory
``notebooks/``, a per-cell timeout); any cell error fails the test. A second test fails if a
notebook is stored with outputs or execution counts (they must be cleared before committing:
``python notebooks/_build.py`` writes them clean).
"""

from __future__ import annotations

import os
import pathlib
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))
CELL_TIMEOUT = 300  #: seconds per cell (a cell that hangs fails the test instead of the suite)
BUDGET = 120  #: seconds per notebook (the issue's "under two minutes on 2 cores")


def test_notebooks_exist():
    names = [p.stem for p in NOTEBOOKS]
    assert len(names) == 5, f"expected five teaching notebooks in {NB_DIR}, found {names}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_stored_without_outputs(path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        assert not cell.get("outputs"), f"{path.name}: cell {i} has committed outputs (clear them)"
        assert cell.get("execution_count") is None, f"{path.name}: cell {i} has an execution count (clear it)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_executes(path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(path, as_version=4)
    # the kernel is a separate process: make the checkout importable there (pytest's `pythonpath`
    # only changes this process; the notebooks also find the checkout from their own directory)
    env_before = {k: os.environ.get(k) for k in ("PYTHONPATH",)}
    os.environ["PYTHONPATH"] = os.pathsep.join(x for x in (str(ROOT), env_before["PYTHONPATH"]) if x)
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=CELL_TIMEOUT, resources={"metadata": {"path": str(NB_DIR)}}
    )
    t0 = time.perf_counter()
    try:
        client.execute()  # raises CellExecutionError naming the failing cell and its traceback
    finally:
        for k, v in env_before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    seconds = time.perf_counter() - t0
    print(f"{path.name}: executed in {seconds:.1f} s")
    assert seconds < BUDGET, f"{path.name} took {seconds:.0f} s, over the {BUDGET} s budget"
