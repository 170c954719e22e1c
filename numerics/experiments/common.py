"""Shared machinery of the experiments: resumable point store, parallel sweeps, seeds, fits, output.

A sweep is a list of *points* (JSON-able dicts of parameters). Each point is computed by a
module-level function ``fn(point, seed_seq) -> dict`` and its result is stored, as soon as it is
finished, in ``OUT/NAME.points/<key>.json`` (written to a temporary file and renamed, so a file
there is always complete). The key hashes the experiment name, a code version, the point and the
seed, so a rerun with the same parameters reuses finished points (an interrupted sweep resumes)
and a rerun with other parameters computes new ones. The final ``NAME.json`` / ``NAME.png`` are
also written through a temporary file and a rename: nothing partial is left looking complete.

Seeds: a point's random stream is ``SeedSequence(seed, spawn_key=(crc32(key),))``, so results do
not depend on the number of workers, on the order of completion or on which points were resumed.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import math
import multiprocessing
import os
import pathlib
import platform
import re
import signal
import subprocess
import sys
import threading
import zlib
from collections.abc import Callable, Iterable

import numpy as np

from ..progress import Progress

#: bump when a point function changes meaning, so stale cached points are not reused
CODE_VERSION = "3"

# two-sided 97.5% Student-t quantiles for small degrees of freedom (Abramowitz–Stegun table 26.10);
# beyond 30 the normal quantile 1.95996 is within 0.1 %.
_T975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
    21: 2.080,
    22: 2.074,
    23: 2.069,
    24: 2.064,
    25: 2.060,
    26: 2.056,
    27: 2.052,
    28: 2.048,
    29: 2.045,
    30: 2.042,
}


def t975(dof: int) -> float:
    """Two-sided 95 % Student-t quantile t_{0.975, dof} (normal 1.95996 beyond 30 dof)."""
    if dof < 1:
        return math.inf
    return _T975.get(dof, 1.959964 + 2.4 / dof if dof > 30 else 1.959964)


# ----------------------------------------------------------------------------------------------
# output directory, atomic writes, versions
# ----------------------------------------------------------------------------------------------


def prepare_out(out: str | os.PathLike) -> pathlib.Path:
    """Create ``out`` and check it can be written; ``ValueError`` naming it otherwise."""
    path = pathlib.Path(out)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ValueError(f"--out {str(path)!r} cannot be written: {exc.strerror or exc}") from None
    return path


def write_json_atomic(path: pathlib.Path, obj) -> None:
    """Write JSON to ``path`` via ``path.partial`` and a rename (never a half-written file)."""
    tmp = path.with_name(path.name + f".partial-{os.getpid()}")
    tmp.write_text(json.dumps(obj, indent=1, sort_keys=False, default=_json_default) + "\n")
    tmp.replace(path)


def save_figure_atomic(fig, path: pathlib.Path) -> None:
    """Save a matplotlib figure as PNG via a temporary file and a rename."""
    import matplotlib.pyplot as plt

    from .. import plotstyle

    tmp = path.with_name(path.name + f".partial-{os.getpid()}")
    # the legends below the axes are outside the layout (plotstyle.legend): name them so the PNG takes them in
    fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight", bbox_extra_artists=plotstyle.legends(fig))
    plt.close(fig)
    tmp.replace(path)


def _json_default(o):
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


def clean(x):
    """Recursively turn numpy scalars/arrays into plain Python; non-finite floats into None."""
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [clean(v) for v in x]
    if isinstance(x, np.ndarray):
        return clean(x.tolist())
    if isinstance(x, (np.floating, float)):
        f = float(x)
        return f if math.isfinite(f) else None
    if isinstance(x, np.integer):
        return int(x)
    return x


def versions() -> dict:
    """Versions of everything that can change a number, and the git commit if there is one."""
    from importlib.metadata import PackageNotFoundError, version  # metadata only: importing sklearn costs ~5 s

    out = {"python": platform.python_version(), "numpy": np.__version__}
    for dist in ("matplotlib", "scikit-learn", "numba", "mpmath", "sympy", "dask", "distributed", "infonce-bounds"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:  # optional, or run from a checkout without installing
            out[dist] = None
    try:
        root = pathlib.Path(__file__).resolve().parents[2]
        out["git_commit"] = (
            subprocess.run(
                ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
            ).stdout.strip()
            or None
        )
    except Exception:  # noqa: BLE001
        out["git_commit"] = None
    return out


def matplotlib_agg():
    """pyplot on the non-interactive Agg backend (no display needed), in the toolkit's style."""
    from .. import plotstyle

    return plotstyle.pyplot()


# ----------------------------------------------------------------------------------------------
# point store and sweeps
# ----------------------------------------------------------------------------------------------


def point_key(name: str, point: dict, seed: int) -> str:
    blob = json.dumps({"experiment": name, "code": CODE_VERSION, "point": point, "seed": seed}, sort_keys=True)
    return f"{zlib.crc32(blob.encode()):08x}-{zlib.adler32(blob.encode()):08x}"


def point_seed(key: str, seed: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(key.encode()),))


class Store:
    """Finished points of one experiment in ``OUT/NAME.points/`` (one complete JSON file each)."""

    def __init__(self, out: pathlib.Path, name: str, seed: int):
        self.dir = out / f"{name}.points"
        self.name, self.seed = name, seed

    def key(self, point: dict) -> str:
        return point_key(self.name, point, self.seed)

    def get(self, point: dict):
        path = self.dir / f"{self.key(point)}.json"
        if not path.exists():
            return None
        try:
            rec = json.loads(path.read_text())
        except (OSError, ValueError):
            return None  # unreadable: recompute (a complete file is only ever renamed into place)
        return rec["result"] if rec.get("point") == point else None

    def put(self, point: dict, result: dict) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(
            self.dir / f"{self.key(point)}.json",
            {"experiment": self.name, "seed": self.seed, "point": point, "result": clean(result)},
        )


#: one point at a time per process: mpmath's working precision is process-global, so two points in
#: threads of one process (a Dask worker with several threads) could change each other's precision
_CALL_LOCK = threading.Lock()


def _call(fn, point, key, seed):
    # one BLAS thread per point: points already run in parallel, and oversubscribed BLAS threads
    # made the training loop ~7x slower on a busy 2-core machine
    with _CALL_LOCK:
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
            return fn(point, point_seed(key, seed))
        with threadpool_limits(1):
            return fn(point, point_seed(key, seed))


def _round_trip(obj):
    return json.loads(json.dumps(clean(obj)))


_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.\-_]+):\d{1,5}$")


def check_scheduler_address(address: str) -> None:
    """``ValueError`` unless ``address`` reads as [PROTOCOL://]HOST:PORT (checked before dask sees it)."""
    if re.match(r"^inproc://\S+$", address):  # an in-process cluster (LocalCluster(processes=False))
        return
    port = address.rsplit(":", 1)[-1]
    if not _ADDRESS.match(address) or not (0 < int(port if port.isdigit() else 0) < 65536):
        raise ValueError(
            f"--scheduler {address!r} is not a scheduler address; allowed: [tcp://]HOST:PORT with a port in 1 … 65535, "
            "e.g. tcp://127.0.0.1:8786"
        )


def connect_scheduler(address: str):
    """A ``dask.distributed`` client for ``address``; ``ValueError`` if dask is absent or it does not answer."""
    check_scheduler_address(address)
    try:
        from dask.distributed import Client
    except ImportError:
        raise ValueError(
            f"--scheduler {address!r} needs dask.distributed, which is not installed "
            "(pip install 'infonce-bounds[distributed]')"
        ) from None
    # a Client whose constructor failed still runs __del__, which raises again ("Exception ignored in …"):
    # that second report is silenced here, the first becomes the one-line error
    old_hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None
    try:
        return Client(address, timeout=3, set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - OSError / TimeoutError / ValueError depending on the version
        raise ValueError(f"--scheduler {address!r} does not answer: {type(exc).__name__}: {exc}") from None
    finally:
        import gc

        gc.collect()  # run the failed Client's __del__ now, under the silent hook
        sys.unraisablehook = old_hook


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def cap_workers(workers: int | None) -> int:
    """``workers`` (default: all cores) capped at the usable cores, with a note on stderr when capped:
    more processes than cores only time-share the cores (measured 6× slower with 32 processes on 2)."""
    cores = usable_cores()
    if workers is None:
        return cores
    if workers > cores:
        log(f"note: --workers {workers} capped at the {cores} usable cores (more processes would only share them)")
        return cores
    return workers


# ----------------------------------------------------------------------------------------------
# worker processes: no orphans, Ctrl-C handled by the parent
# ----------------------------------------------------------------------------------------------


def _die_with_parent(parent_pid: int) -> None:
    """Pool initializer: a worker ends when its parent does, even when the parent is SIGKILLed.

    On Linux the kernel sends SIGKILL on the parent's death (prctl PR_SET_PDEATHSIG); everywhere, a daemon
    thread also polls getppid() (which changes when the parent dies), closing the race in which the parent
    died before prctl ran. SIGINT is ignored in workers: the parent handles Ctrl-C and ends them itself.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG = 1
        except (OSError, AttributeError):  # pragma: no cover - no libc symbol
            pass
    if os.getppid() != parent_pid:
        os._exit(1)

    def watch():
        import time

        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(0.5)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _end_pool(pool) -> None:
    """Cancel queued points and end the worker processes now (error or Ctrl-C): finished points are
    already stored; waiting for running ones made Ctrl-C take 6–12 s."""
    procs = list(getattr(pool, "_processes", {}).values()) if getattr(pool, "_processes", None) else []
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.kill()
        except (OSError, ValueError, AttributeError):
            pass
    for p in procs:
        try:
            p.join(timeout=0.5)
        except (OSError, ValueError, AssertionError, AttributeError):
            pass


# ----------------------------------------------------------------------------------------------
# one run per (--out, experiment, seed) at a time
# ----------------------------------------------------------------------------------------------


class OutLock:
    """``OUT/STEM.lock`` holding the owner's pid: a second run of the same experiment and seed on the same
    ``--out`` refuses clearly (exit 2) instead of computing everything again and racing on the outputs.

    A lock whose pid is no longer alive on this host (a killed run) is stale and taken over.
    """

    def __init__(self, out: pathlib.Path, name: str, seed: int):
        self.path = pathlib.Path(out) / f"{output_stem(name, seed)}.lock"
        self.name, self.seed = name, seed
        self.held = False

    def _owner(self) -> dict | None:
        try:
            return json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None

    @staticmethod
    def _alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # exists, owned by another user
            return True
        return True

    def acquire(self) -> None:
        me = {"pid": os.getpid(), "host": platform.node(), "experiment": self.name, "seed": self.seed}
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                owner = self._owner()
                if owner is None:  # being written by its owner this instant, or garbage: look again
                    import time

                    time.sleep(0.2)
                    owner = self._owner()
                stale = owner is None or (
                    owner.get("host") == me["host"] and not self._alive(int(owner.get("pid", -1)))
                )
                if stale:
                    try:
                        self.path.unlink()
                    except FileNotFoundError:
                        pass
                    continue
                raise ValueError(
                    f"--out {str(self.path.parent)!r} is in use by another run of experiment {self.name!r} "
                    f"with --seed {self.seed} (pid {owner.get('pid')} on {owner.get('host')}, lock file "
                    f"{self.path.name}); wait for it to finish and rerun (its finished points are reused), or "
                    "choose another --out"
                ) from None
            with os.fdopen(fd, "w") as fh:
                fh.write(json.dumps(me))
            self.held = True
            return
        raise ValueError(f"--out {str(self.path.parent)!r}: cannot take the lock file {self.path.name}")

    def release(self) -> None:
        if self.held:
            owner = self._owner()
            if owner is not None and owner.get("pid") == os.getpid():
                try:
                    self.path.unlink()
                except FileNotFoundError:
                    pass
            self.held = False

    def __enter__(self):
        self.acquire()
        return self

    def __exit__(self, *exc):
        self.release()
        return False


def sweep(
    name: str,
    fn: Callable,
    points: Iterable[dict],
    *,
    out: pathlib.Path,
    seed: int,
    workers: int | None = None,
    scheduler: str | None = None,
    label: str | None = None,
) -> tuple[list[dict], dict]:
    """Run ``fn`` on every point not already stored; return results in point order and run stats.

    ``workers=1`` runs in this process; otherwise a ``ProcessPoolExecutor`` (spawn context: no fork of a
    threaded process) with ``workers`` processes (default: the number of cores), or the Dask cluster at
    ``scheduler``. Results pass through JSON before use, so a resumed point and a fresh one are identical.
    """
    points = list(points)
    store = Store(out, name, seed)
    results: list = [None] * len(points)
    todo = []
    for i, pt in enumerate(points):
        got = store.get(pt)
        if got is None:
            todo.append(i)
        else:
            results[i] = got
    stats = {
        "points": len(points),
        "reused": len(points) - len(todo),
        "computed": len(todo),
        "workers": 1,
        "scheduler": scheduler,
    }
    bar = Progress(len(todo), label or name)
    if not todo:
        return results, stats
    if scheduler:
        client = connect_scheduler(scheduler)
        try:
            from dask.distributed import as_completed

            info = client.scheduler_info()
            workers_info = info.get("workers", {}) if isinstance(info, dict) else {}
            stats["workers"] = len(workers_info)  # the cluster's, not this process's 1
            stats["threads"] = sum(int(w.get("nthreads", 1)) for w in workers_info.values())
            futs = {client.submit(_call, fn, points[i], store.key(points[i]), seed, pure=False): i for i in todo}
            for fut in as_completed(list(futs), loop=client.loop):
                i = futs[fut]
                res = _round_trip(fut.result())
                store.put(points[i], res)
                results[i] = res
                bar.update(1, _describe(points[i]))
        finally:
            client.close()
            bar.close()
        return results, stats
    workers = cap_workers(workers)
    workers = max(1, min(workers, len(todo)))
    stats["workers"] = workers
    try:
        if workers == 1:
            for i in todo:
                res = _round_trip(_call(fn, points[i], store.key(points[i]), seed))
                store.put(points[i], res)
                results[i] = res
                bar.update(1, _describe(points[i]))
        else:
            ctx = multiprocessing.get_context("spawn")
            pool = cf.ProcessPoolExecutor(
                max_workers=workers, mp_context=ctx, initializer=_die_with_parent, initargs=(os.getpid(),)
            )
            try:
                # SIGINT is blocked while the workers are spawned: a spawned interpreter inherits the
                # mask, so Ctrl-C during its start-up cannot print a traceback from inside it (it only
                # stays pending there; the parent ends the workers), and here it is delivered on unblock
                old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                try:
                    futs = {pool.submit(_call, fn, points[i], store.key(points[i]), seed): i for i in todo}
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
                for fut in cf.as_completed(futs):
                    i = futs[fut]
                    res = _round_trip(fut.result())
                    store.put(points[i], res)  # finished points are kept even if a later one fails
                    results[i] = res
                    bar.update(1, _describe(points[i]))
            except BaseException:  # error or Ctrl-C: drop queued points, end the running ones now
                _end_pool(pool)
                raise
            pool.shutdown()
    finally:
        bar.close()
    return results, stats


def _describe(point: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in point.items() if not isinstance(v, (list, dict)))[:40]


# ----------------------------------------------------------------------------------------------
# statistics
# ----------------------------------------------------------------------------------------------


def loglog_slope(k, y, se=None) -> dict:
    """Fit log|y| = a + b log k; return slope b with a 95 % confidence interval.

    With standard errors ``se`` of ``y`` (Monte Carlo), a weighted least-squares fit with weights
    1/Var(log|y|) ≈ (y/se)² (delta method) and a z-interval on the known variances, widened by the
    residual scatter when the fit is worse than the error bars (χ²/dof > 1). Without ``se`` (exact
    values), ordinary least squares with a Student-t interval on the residuals: the interval then
    measures how far the points are from a straight line (curvature from the 1/k² term).
    """
    k = np.asarray(k, float)
    y = np.abs(np.asarray(y, float))
    X = np.column_stack([np.ones_like(k), np.log(k)])
    ly = np.log(y)
    n = len(k)
    if n < 2:
        raise ValueError(f"a slope needs at least 2 points, got {n}")
    if se is not None:
        se = np.asarray(se, float)
        var = np.maximum((se / y) ** 2, 1e-300)
        Wt = 1.0 / var
        XtW = X.T * Wt
        cov = np.linalg.inv(XtW @ X)
        coef = cov @ (XtW @ ly)
        resid = ly - X @ coef
        chi2 = float(np.sum(resid**2 * Wt))
        dof = n - 2
        scale = max(1.0, chi2 / dof) if dof > 0 else 1.0
        half = 1.959964 * math.sqrt(cov[1, 1] * scale)
        method = "weighted least squares on log|y| (delta-method variances), 95 % z-interval, inflated by χ²/dof if > 1"
    else:
        coef, *_ = np.linalg.lstsq(X, ly, rcond=None)
        resid = ly - X @ coef
        dof = n - 2
        if dof <= 0:
            half = math.inf
        else:
            s2 = float(resid @ resid) / dof
            cov = s2 * np.linalg.inv(X.T @ X)
            half = t975(dof) * math.sqrt(cov[1, 1])
        chi2 = None
        method = "ordinary least squares on log|y|, 95 % Student-t interval from the residuals"
    b = float(coef[1])
    return {
        "slope": b,
        "slope_ci": [b - half, b + half],
        "intercept": float(coef[0]),
        "n_points": n,
        "k_range": [float(k.min()), float(k.max())],
        "chi2": chi2,
        "method": method,
    }


def mean_ci(values) -> dict:
    """Mean and 95 % Student-t interval over independent replicates (seeds)."""
    v = np.asarray([x for x in values if x is not None], float)
    n = len(v)
    if n == 0:
        return {"mean": None, "ci": [None, None], "sd": None, "n": 0}
    m = float(v.mean())
    if n == 1:
        return {"mean": m, "ci": [None, None], "sd": None, "n": 1}
    sd = float(v.std(ddof=1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return {"mean": m, "ci": [m - half, m + half], "sd": sd, "n": n}


def missing_extra(mod) -> str | None:
    """One line naming the extra to install when an experiment module's ``REQUIRES`` are absent."""
    import importlib.util

    for module, extra in getattr(mod, "REQUIRES", {}).items():
        if importlib.util.find_spec(module) is None:
            return f'needs {module}, which is not installed: pip install "infonce-bounds[{extra}]"'
    return None


def parse_list(text: str | None, kind, name: str):
    """Parse a comma-separated list; lists of k use the one k-list syntax (``numerics.klist``)."""
    if text is None:
        return None
    if kind is int:
        from ..klist import parse_k_list

        return parse_k_list(text, name, max_values=10_000).tolist()
    parts = [p for p in text.replace(" ", "").split(",") if p]
    try:
        vals = [kind(p) for p in parts]
    except ValueError:
        raise ValueError(f"{name} must be a comma-separated list of {kind.__name__}s, got {text!r}") from None
    if not vals:
        raise ValueError(f"{name} is empty: give at least one value, got {text!r}")
    return vals


def output_stem(name: str, seed: int) -> str:
    """``NAME`` for seed 0, ``NAME-seedS`` otherwise: runs with different seeds never overwrite each other."""
    return name if not seed else f"{name}-seed{seed}"


def finish(out: pathlib.Path, name: str, record: dict, fig) -> tuple[pathlib.Path, pathlib.Path]:
    """Write ``STEM.png`` then ``STEM.json`` atomically (the JSON last: its presence means done), with STEM
    from ``output_stem`` and the record's seed."""
    stem = output_stem(name, int(record.get("seed") or 0))
    png = out / f"{stem}.png"
    js = out / f"{stem}.json"
    save_figure_atomic(fig, png)
    record = dict(record)
    record["png"] = png.name
    write_json_atomic(js, clean(record))
    return js, png


def log(msg: str) -> None:
    print(msg, file=sys.stderr)
