"""``verify --scheduler`` and ``check FILE --scheduler``: the runner's tasks on a Dask cluster give the local verdicts.

The cluster is a ``LocalCluster`` of one worker *process* (``processes=True``): nothing is inherited through a
fork, the worker builds or unpickles what it checks, and it has a run cache of its own (``env``), as a worker on
another machine would. Verdicts are compared field by field (verdict, method, worst ratio, counterexample) with
a local run of the same options.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import textwrap

import pytest

pytest.importorskip("distributed")

import sympy as sp  # noqa: E402

from infonce_bounds.derivations import catalogue  # noqa: E402
from infonce_bounds.derivations.ledger import Derivation, Domain, Link, Step  # noqa: E402
from infonce_bounds.derivations.run import cache, runner  # noqa: E402
from infonce_bounds.derivations.run.dask_backend import Cluster  # noqa: E402
from infonce_bounds.numerics.cli import main  # noqa: E402

TRIALS = 2000
FIELDS = ("verdict", "method", "worst_ratio", "counterexample")

CLAIMS = r"""
[[claim]]
name = "base"
claim = '\log(1 + x) \le x'
where = { x = [0, 2] }

[[claim]]
name = "other"
claim = 'x^{2} \ge 0'
where = { x = [-1, 1] }

[[claim]]
name = "planted false"
claim = 'e^{x} \le 1 + x + x^{2}'
where = { x = [0, 3] }

[[claim]]
name = "built on base"
claim = '\log(1 + x) \le x + 1'
where = { x = [0, 2] }
uses = ["base", "other"]
"""


def _cluster(worker_cache, **kw):
    from distributed import LocalCluster

    return LocalCluster(
        n_workers=1,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=":0",
        env={"XDG_CACHE_HOME": str(worker_cache)},  # the worker's own run cache: not this process's
        **kw,
    )


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    worker_cache = tmp_path_factory.mktemp("worker-xdg")
    with _cluster(worker_cache) as c:
        yield c, worker_cache


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path


def _rows(results: list[dict], name: str = "step") -> dict:
    return {r[name]: tuple(r[f] for f in FIELDS) for r in results}


def test_verify_through_the_scheduler_gives_the_local_verdicts(cluster, own_cache, capsys):
    address = cluster[0].scheduler_address
    argv = ["verify", "in_batch", "bias_sign", "--trials", str(TRIALS), "--no-cache", "--json"]
    assert main([*argv, "--workers", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--scheduler", address]) == 0
    remote = json.loads(capsys.readouterr().out)
    assert len(remote["results"]) == len(local["results"]) == 6
    assert _rows(remote["results"]) == _rows(local["results"])
    assert remote["cache"]["scheduler"]["workers"] == 1 and remote["cache"]["checked"] == 6
    assert {r["verdict"] for r in remote["results"]} >= {"proved", "defined"}


def _citing_derivation() -> tuple[Derivation, str]:
    """A derivation outside the catalogue (so it travels pickled) whose chain cites a step of ``bias_sign``."""
    bias_sign = catalogue.get("bias_sign")
    cited = bias_sign.step("log u ≤ u − 1")
    (u,) = cited.domain.ranges
    x = sp.Symbol("x", positive=True)
    chain = Step(
        "log x ≤ x − 1 by citation",
        sp.log(x),
        x - 1,
        "chain",
        Domain({x: (sp.Rational(1, 2), 2)}),
        relation="<=",
        links=[Link(sp.log(x), x - 1, "<=", cite="bias_sign / log u ≤ u − 1", subs={u: x})],
    )
    der = Derivation(
        "citing_bias_sign", "a chain citing bias_sign", [chain], result=chain.name, depends_on=("bias_sign",)
    )
    return der, cited.name


def test_a_chain_goes_after_the_step_it_cites_and_reads_it_on_the_worker(cluster, own_cache):
    local_cluster, worker_cache = cluster
    der, cited = _citing_derivation()
    ders = [catalogue.get("bias_sign"), der]
    opts = {"trials": TRIALS, "seed": 0}
    local, _ = runner.verify_derivations(ders, opts, workers=1, use_cache=False)
    order: list[str] = []
    backend = Cluster(local_cluster.scheduler_address)
    remote, _ = runner.verify_derivations(
        ders,
        opts,
        use_cache=False,
        backend=backend,
        on_result=lambda name, res, _cached: order.append(res.step),
    )
    for name in ("bias_sign", der.name):
        assert [tuple(getattr(r, f) for f in FIELDS) for r in remote[name]] == [
            tuple(getattr(r, f) for f in FIELDS) for r in local[name]
        ]
    assert remote[der.name][0].verdict == "proved"
    assert order.index(cited) < order.index(der.steps[0].name)  # the dependency wave
    # the cited verdict travelled with the chain's task into the worker's own run cache
    key = runner._derivation_keys([ders[0]], opts)["bias_sign"][1]
    assert (worker_cache / "infonce-bounds" / "verify" / key[:2] / f"{key}.json").exists()
    assert backend.info["workers"] == 1


def test_check_through_the_scheduler_gives_the_local_verdicts(cluster, own_cache, capsys):
    path = own_cache / "claims.toml"
    path.write_text(CLAIMS)
    argv = ["check", str(path), "--trials", "300", "--json"]
    assert main([*argv, "--no-cache", "--workers", "1"]) == 1  # the planted false claim is refuted
    local = json.loads(capsys.readouterr().out)
    assert main([*argv, "--no-cache", "--scheduler", cluster[0].scheduler_address]) == 1
    remote = json.loads(capsys.readouterr().out)
    assert _rows(remote["claims"], "name") == _rows(local["claims"], "name")
    seen = {c["name"]: c for c in remote["claims"]}
    assert seen["planted false"]["verdict"] == "refuted" and seen["planted false"]["counterexample"]
    # 'built on base' waited for the claims it uses and was proved from their results (the dependency wave)
    assert seen["built on base"]["method"].startswith("citation route: instance of 'base'")
    # the same run cache as a local check: the second run is answered from it
    assert main([*argv, "--scheduler", cluster[0].scheduler_address]) == 1
    again = json.loads(capsys.readouterr().out)
    assert all(c["cached"] for c in again["claims"]) and _rows(again["claims"], "name") == _rows(
        local["claims"], "name"
    )


_CRASH = """
import os
import infonce_bounds.derivations.checks as checks

_real = getattr(checks, "_unpatched_check_step", checks.check_step)  # Dask may run a preload twice in one worker
checks._unpatched_check_step = _real


def check_step(step, **opts):
    if step.name == "kills its worker":
        os._exit(1)
    return _real(step, **opts)


checks.check_step = check_step
"""


def test_a_worker_that_dies_costs_only_its_claim(tmp_path_factory, own_cache, monkeypatch, capsys):
    """The claim that kills its worker (on the cluster and again in the local slot that re-checks it) is "error";
    the claims checked beside it keep their verdicts, and ``check`` exits 3 as a local run does."""
    import dask

    from infonce_bounds.derivations import checks

    preload = own_cache / "crash_preload.py"
    preload.write_text(_CRASH)
    path = own_cache / "claims.toml"
    path.write_text(
        CLAIMS
        + textwrap.dedent(
            """
            [[claim]]
            name = "kills its worker"
            sympy = "x**2 >= 0"
            where = { x = [0, 1] }
            """
        )
    )
    real = checks.check_step

    def crash_here_too(step, **opts):
        if step.name == "kills its worker":
            import os

            os._exit(1)
        return real(step, **opts)

    monkeypatch.setattr(checks, "check_step", crash_here_too)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):  # give up at the first death
        with _cluster(tmp_path_factory.mktemp("crash-xdg"), preload=[str(preload)]) as c:
            code = main(
                ["check", str(path), "--trials", "300", "--json", "--no-cache", "--scheduler", c.scheduler_address]
            )
    out = json.loads(capsys.readouterr().out)
    assert code == 3
    seen = {x["name"]: x for x in out["claims"]}
    assert seen["kills its worker"]["verdict"] == "error" and "WorkerDied" in seen["kills its worker"]["method"]
    assert seen["base"]["verdict"] == "proved" and seen["planted false"]["verdict"] == "refuted"
    assert seen["built on base"]["verdict"] == "proved"


@pytest.mark.parametrize("command", [["verify", "in_batch"], ["check", "FILE"], ["report", "--quick"]])
@pytest.mark.parametrize("address", ["not an address", "tcp://host", "127.0.0.1:99999", ""])
def test_a_bad_address_is_exit_2_naming_the_flag_before_any_work(command, address, tmp_path, monkeypatch, capsys):
    def no_work(*a, **k):  # pragma: no cover - reached only if the address were accepted
        raise AssertionError("work started before the scheduler address was checked")

    monkeypatch.setattr(runner, "run_steps", no_work)
    path = tmp_path / "claims.toml"
    path.write_text(CLAIMS)
    argv = [str(path) if a == "FILE" else a for a in command]
    if command[0] == "report":
        argv += ["--out", str(tmp_path / "report")]
    assert main([*argv, "--scheduler", address]) == 2
    err = capsys.readouterr().err.strip()
    assert "--scheduler" in err and "HOST:PORT" in err and "\n" not in err


def test_without_dask_the_error_names_the_extra(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed: the import fails
    assert main(["verify", "in_batch", "--scheduler", "tcp://127.0.0.1:8786"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler" in err and "infonce-bounds[distributed]" in err


def test_a_scheduler_that_does_not_answer_is_exit_2(tmp_path, capsys):
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    path = tmp_path / "claims.toml"
    path.write_text(CLAIMS)
    assert main(["check", str(path), "--scheduler", f"tcp://127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err
    assert "--scheduler" in err and "does not answer" in err


def test_engine_identity_is_the_package_and_the_engine():
    engine, whole = cache.engine_version(), cache.catalogue_key({})
    from infonce_bounds.derivations.run import dask_worker

    assert dask_worker.identity() == (engine, whole)


def test_a_worker_with_another_package_refuses_the_task():
    """A worker whose engine or ``derivations`` sources differ would answer with another version's verdicts."""
    from infonce_bounds.derivations.run import dask_worker

    engine, whole = dask_worker.identity()
    calls: list = []
    with pytest.raises(dask_worker.WorkerMismatch, match="--scheduler: a Dask worker runs another infonce-bounds"):
        dask_worker.run_task(
            calls.append, ("catalogue", "in_batch", None, None, None), {}, (engine, "0" * 64), ("x", 0)
        )
    assert calls == []  # nothing was checked
    # the same identity: checked (in the worker's check process, forked here and closed after)
    try:
        assert dask_worker.run_task(tuple, ("catalogue", "in_batch", None, None, None), {}, (engine, whole), [1]) == (
            1,
        )
    finally:
        if dask_worker._CHILD:
            dask_worker._CHILD[0].close()
            dask_worker._CHILD.clear()


def _where(_task=None) -> tuple[bool, int]:
    """(runs in its process's main thread, where the budget can arm SIGALRM and cap memory; its pid)."""
    import os
    import threading

    return threading.current_thread() is threading.main_thread(), os.getpid()


def test_a_worker_checks_in_a_main_thread_where_the_budget_has_its_deadlines(cluster):
    """Dask runs a task in a thread, where ``budget._deadline`` cannot arm (a claim then runs past its budget:
    measured 19 s for a 10 s budget); ``run_task`` checks in a forked process whose thread is the main one."""
    import cloudpickle
    from distributed import Client

    from infonce_bounds.derivations.run import dask_worker

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # this test module is not importable there
    try:
        with Client(cluster[0].scheduler_address, set_as_default=False) as client:
            in_task_thread, worker_pid = client.submit(_where, pure=False).result()
            source = ("catalogue", "in_batch", None, None, None)
            main, check_pid = client.submit(
                dask_worker.run_task, _where, source, {}, dask_worker.identity(), (), pure=False
            ).result()
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert not in_task_thread  # what a check in the task itself would get
    assert main and check_pid != worker_pid


def test_a_derivation_that_cannot_travel_is_one_error_before_any_work(cluster, own_cache):
    """A copy of ``loss`` is not the catalogue's (so it would be pickled), and SymPy cannot unpickle its ``Str``
    names: the error names the derivation and the flag instead of a worker's traceback."""
    copy = dataclasses.replace(catalogue.get("loss"))
    checked: list = []
    with pytest.raises(ValueError, match=r"--scheduler: derivation 'loss' is not the catalogue's and cannot be sent"):
        runner.verify_derivations(
            [copy],
            {"trials": 100, "seed": 0},
            use_cache=False,
            backend=Cluster(cluster[0].scheduler_address),
            on_result=lambda *a: checked.append(a),
        )
    assert checked == []
