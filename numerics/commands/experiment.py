"""``infonce-bounds experiment NAME [options] [--out DIR] [--seed S] [--quick]``: measure the paper's claims.

Experiments (one module each in ``numerics/experiments/``): ``rate`` (R̃ − CE against k, slope; R̃ the DCL risk),
``search`` (H_k − log k against R̃), ``generalisation`` (trained embeddings on the digits data),
``temperature`` (constants and measured gap over τ). Each writes ``NAME.json`` (every number, the
parameters, the seed, the versions) and ``NAME.png`` into ``--out``; finished points are kept in
``NAME.points/`` so an interrupted sweep resumes. Sweeps run on all local cores by default
(``--workers``), or on a Dask cluster with ``--scheduler ADDRESS`` (optional dependency).
"""

from __future__ import annotations

import importlib
import sys

from ..experiments import common
from ..klist import SYNTAX

HELP = "run an experiment (rate, search, generalisation, temperature, theorem, prop4); writes NAME.json and NAME.png"

#: experiment name → module under numerics.experiments
EXPERIMENTS: dict[str, str] = {
    "rate": "rate",
    "search": "search",
    "generalisation": "generalisation",
    "temperature": "temperature",
    "theorem": "theorem",
    "prop4": "prop4",
}

_LIST_OPTS = {"k": int, "taus": float}
_INT_OPTS = ("samples", "seeds", "n", "steps", "dim")


def add_arguments(p) -> None:
    p.add_argument("name", metavar="NAME", help="one of: " + ", ".join(EXPERIMENTS))
    p.add_argument("--out", default="experiments", help="output directory (default ./experiments)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0); results are reproducible from it")
    p.add_argument("--quick", action="store_true", help="the reduced sizes the test suite runs")
    p.add_argument("--workers", type=int, default=None, help="local worker processes (default: all cores; 1 = serial)")
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the sweep on the Dask cluster at ADDRESS (needs dask.distributed)",
    )
    g = p.add_argument_group("sizes (each conflicts with --quick)")
    g.add_argument("--k", default=None, help=f"k grid: {SYNTAX}")
    g.add_argument("--samples", default=None, type=int, help="Monte Carlo samples per point (rate, search)")
    g.add_argument("--seeds", default=None, type=int, help="training seeds per point (generalisation, temperature)")
    g.add_argument(
        "--n", default=None, type=int, help="training tuples (generalisation, temperature); the largest n (theorem)"
    )
    g.add_argument("--steps", default=None, type=int, help="gradient steps (generalisation, temperature)")
    g.add_argument("--taus", default=None, help="temperature grid, e.g. '0.02,0.1,0.5,2' (temperature, theorem)")
    h = p.add_argument_group("parameters")
    h.add_argument("--tau", default=None, type=float, help="temperature τ (default depends on the experiment)")
    h.add_argument(
        "--dim",
        default=None,
        type=int,
        help="sphere dimension d (rate, search) or embedding dimension (generalisation, temperature)",
    )


def resolve(args) -> tuple[object, dict]:
    """Validate the command line against the experiment; return (module, options)."""
    if args.name not in EXPERIMENTS:
        raise ValueError(f"unknown experiment {args.name!r}; choose one of {', '.join(EXPERIMENTS)}")
    mod = importlib.import_module(f"infonce_bounds.numerics.experiments.{EXPERIMENTS[args.name]}")
    given = {}
    for opt in (*_LIST_OPTS, *_INT_OPTS, "tau"):
        val = getattr(args, opt, None)
        if val is None:
            continue
        if opt not in mod.OPTIONS:
            raise ValueError(
                f"--{opt} does not apply to experiment {args.name!r} (it takes "
                f"{', '.join('--' + o for o in mod.OPTIONS)})"
            )
        if opt in _LIST_OPTS:
            val = common.parse_list(val, _LIST_OPTS[opt], f"--{opt}")
        given[opt] = val
    if args.quick:
        clash = [o for o in given if o in mod.SIZE_OPTIONS]
        if clash:
            raise ValueError(
                f"--quick sets the sizes itself and contradicts --{clash[0]} "
                f"{getattr(args, clash[0])!r}; drop one of them"
            )
    for opt in _INT_OPTS:
        if opt in given and given[opt] < 1:
            raise ValueError(f"--{opt} must be ≥ 1, got {given[opt]}")
    if "k" in given and min(given["k"]) < 1:
        raise ValueError(f"--k values must be ≥ 1, got {min(given['k'])}")
    # the stated range: the models' scaled sums are exact there (and tested at both ends); below 1e-3 the
    # gaps grow like e^{2/τ}-size ratios that no Monte Carlo with these sample sizes resolves
    from .. import params as P  # the one table of ranges (τ the same as constants', seed, workers)

    if "tau" in given:
        P.PARAMETERS["tau"].read_fraction(given["tau"], "--tau")
    for t in given.get("taus") or ():
        P.PARAMETERS["tau"].read_fraction(t, "--taus value")
    if args.workers is not None:
        P.PARAMETERS["workers"].read_int(args.workers, "--workers")
    P.PARAMETERS["seed"].read_int(args.seed, "--seed")
    if args.scheduler is not None:
        common.check_scheduler_address(args.scheduler)
    opts = dict(mod.QUICK if args.quick else mod.FULL)
    opts.update(given)
    if "k" in given:
        opts["k"] = sorted(set(given["k"]))
    opts["quick"] = bool(args.quick)
    return mod, opts


def run(args) -> int:
    mod, opts = resolve(args)
    missing = common.missing_extra(mod)
    if missing:
        raise ValueError(f"experiment {args.name!r} {missing}")
    out = common.prepare_out(args.out)
    if args.scheduler:
        common.connect_scheduler(args.scheduler).close()  # fail fast, before any work
    with common.OutLock(out, args.name, args.seed):  # one run per (--out, experiment, seed) at a time
        res = mod.run(opts, out, args.seed, workers=args.workers, scheduler=args.scheduler)
    rec = res["record"]
    print(
        f"wrote {res['json']} and {res['png']} in {rec['run']['seconds']:.1f} s "
        f"({rec['run']['computed']} points computed, {rec['run']['reused']} reused)",
        file=sys.stderr,
    )
    for line in mod.headline(rec) if hasattr(mod, "headline") else []:
        print(line)
    return 0


#: the experiments the report runs in a second process, beside its other sections, when two cores are free:
#: the three that train on the digits data, which share the compiled pooled-gradient and B_τ kernels, so no
#: kernel is compiled in both processes (the other three and the sections need none of them). Measured by the
#: CLI, cold numba cache, warm verify cache: this lane 15.6 s of CPU with its start-up, the report's process 14.6 s.
SECOND_LANE = ("generalisation", "temperature", "prop4")


class _NotATerminal:
    """``sys.stderr`` of the second lane: the same stream, but no progress bars drawn over the first lane's."""

    def __init__(self, stream):
        self._stream = stream

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _lane_init(parent_pid: int) -> None:
    common._die_with_parent(parent_pid)
    sys.stderr = _NotATerminal(sys.stderr)


def run_quick(name: str, out_dir, workers: int | None = None) -> dict:
    """Run experiment ``name``'s quick form (seed 0) into ``OUT/experiments/``; returns what the report prints:
    ``{"name", "help", "missing"}`` or ``{"name", "help", "lines", "png", "json", "seconds"}`` (plain values)."""
    import pathlib
    import time

    mod = importlib.import_module(f"infonce_bounds.numerics.experiments.{EXPERIMENTS[name]}")
    missing = common.missing_extra(mod)
    if missing:
        return {"name": name, "help": mod.HELP, "missing": missing}
    sub = common.prepare_out(pathlib.Path(out_dir) / "experiments")
    opts = dict(mod.QUICK)
    opts["quick"] = True
    t0 = time.perf_counter()
    res = mod.run(opts, sub, 0, workers=workers)
    return {
        "name": name,
        "help": mod.HELP,
        "lines": list(mod.headline(res["record"])) if hasattr(mod, "headline") else [],
        "png": res["png"].name,
        "json": res["json"].name,
        "seconds": time.perf_counter() - t0,
    }


class QuickLane:
    """The ``SECOND_LANE`` experiments' quick forms, running in one spawned process while the report goes on.

    Each experiment runs serially there (``workers=1``) and the report's own experiments serially here, so the
    two processes keep the two cores busy with no pool per experiment: a pool's workers each import the
    toolkit and compile their kernels again (measured 49 s of CPU for the six quick forms in per-experiment
    pools, 32 s in one process, cold numba cache). The points, seeds and results are the same as in a pool
    (a point's seed comes from its key, never from the worker).
    """

    def __init__(self, out_dir=None, names=SECOND_LANE):
        import concurrent.futures as cf
        import multiprocessing
        import os

        self.names = tuple(n for n in names if n in EXPERIMENTS)
        self.pool = cf.ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_lane_init,
            initargs=(os.getpid(),),
        )
        self.futures: dict = {}
        # the process starts now and imports what the experiments need (numpy, numba, matplotlib, the digits
        # data), so that a report whose verify pass checks steps has the lane ready when the pass ends
        self.pool.submit(_warm_up, self.names)
        if out_dir is not None:
            self.start(out_dir)

    def start(self, out_dir) -> None:
        """Queue the experiments (once), run in ``names`` order; a result is collected when the report reaches it."""
        if not self.futures:
            self.futures = {n: self.pool.submit(run_quick, n, str(out_dir), 1) for n in self.names}

    def __contains__(self, name: str) -> bool:
        return name in self.futures

    def result(self, name: str) -> dict:
        return self.futures[name].result()

    def close(self, failed: bool = False) -> None:
        """Wait for the lane (``failed``: cancel what is queued and end the process now)."""
        if failed:
            common._end_pool(self.pool)
        else:
            self.pool.shutdown()


def _lane_wanted() -> bool:
    return common.usable_cores() >= 2 and any(n in EXPERIMENTS for n in SECOND_LANE)


def prepare_quick_lane(args) -> QuickLane | None:
    """Start the report's second process (``args.quick_lane``) without its experiments: it imports while the
    verify pass runs (about 1.5 s of CPU once, against waiting for those imports after the pass)."""
    if getattr(args, "quick_lane", None) is None and _lane_wanted():
        args.quick_lane = QuickLane()
    return getattr(args, "quick_lane", None)


def start_quick_lane(out_dir, args) -> QuickLane | None:
    """Queue the second lane's experiments (``args.quick_lane``, started here if ``prepare_quick_lane`` did not)
    when this process may use two or more cores."""
    lane = getattr(args, "quick_lane", None)
    if lane is None and _lane_wanted():
        lane = args.quick_lane = QuickLane()
    if lane is not None:
        lane.start(out_dir)
    return lane


def _warm_up(names) -> None:
    """Import what the experiments ``names`` use; a failure here is left to the experiment itself to report."""
    try:
        for n in names:
            importlib.import_module(f"infonce_bounds.numerics.experiments.{EXPERIMENTS[n]}")
        from ..experiments import digits

        common.matplotlib_agg()
        digits.load_images()  # ValueError without scikit-learn
        import numba  # noqa: F401
    except Exception:  # noqa: BLE001 - the run that follows reports it, with its own message
        pass


def _part(r: dict) -> str:
    head = f"### `{r['name']}` — {r['help']}\n\n"
    if "missing" in r:
        return head + f"Skipped: this experiment {r['missing']}.\n"
    return (
        head
        + "".join(f"    {ln}\n" for ln in r["lines"])
        + f"\n![{r['name']}](experiments/{r['png']})\n\n_{r['seconds']:.1f} s; data: `experiments/{r['json']}`_\n"
    )


def report_section(out_dir, args) -> str:
    """The report's "Experiments (quick forms)" section: every experiment's quick form into ``OUT/experiments/``
    (seed 0; finished points are reused on a rerun), with the plots embedded.

    The ``SECOND_LANE`` experiments run in the lane ``start_quick_lane`` started (the report starts it after its
    verify pass, so they overlap the sections between); the others run here, one point at a time.
    """
    lane = start_quick_lane(out_dir, args)
    parts = [
        (
            "Quick forms (the sizes the test suite runs; `infonce-bounds experiment NAME` without `--quick` runs "
            "the full forms). JSON with every number beside each plot in `experiments/`."
            + (
                f" {', '.join(f'`{n}`' for n in lane.names)} ran in a second process beside the sections above "
                "(times are each experiment's own)."
                if lane is not None and lane.names
                else ""
            )
            + "\n"
        )
    ]
    try:
        for name in EXPERIMENTS:
            r = (
                lane.result(name)
                if lane is not None and name in lane
                else run_quick(name, out_dir, 1 if lane else None)
            )
            parts.append(_part(r))
    except BaseException:
        if lane is not None:
            lane.close(failed=True)
        raise
    if lane is not None:
        lane.close()
    return "\n".join(parts)
