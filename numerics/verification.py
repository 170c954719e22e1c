"""Checking the catalogue: the library behind ``infonce_bounds.verify`` and ``infonce-bounds verify`` / ``report``.

``verify_all`` answers an unchanged catalogue from one cache entry (``derivations.run.cache``) without
importing SymPy, numpy, python-flint or numba; otherwise the derivations are built lazily and their steps
checked by worker processes (``derivations.run.runner``, ``pool``), each step's verdict cached.
"""

from __future__ import annotations

import time

# Only the cache's file-and-hash module at import time (see verify_all)
from infonce_bounds.derivations.run import cache as _checkcache

from .progress import Progress


def verify_all(
    names: list[str],
    trials: int | None = None,
    seed: int | None = None,
    progress: bool = True,
    workers: int = 2,
    use_cache: bool = True,
    scheduler: str | None = None,
) -> dict:
    """Run the checks; returns {"results": [...], "seconds": …, "counts": {...}, "cache": {...}}.

    ``trials``/``seed`` ``None`` mean the engine's defaults (``checks.DEFAULTS``). Steps are checked
    by ``workers`` processes; results come from the content-hashed cache
    (``derivations.run.runner``) unless ``use_cache`` is false. An unchanged catalogue is answered
    from one catalogue-level entry without building the derivations. ``scheduler``: the address of a Dask
    scheduler whose workers check the steps instead of local processes (the same verdicts).
    """
    t0 = time.perf_counter()
    # the catalogue entry is keyed on the options as given: a default (None) stands for DEFAULTS,
    # whose source file is part of the engine version, so a changed default is a miss
    given = {"trials": trials, "seed": seed}
    whole = None
    if use_cache and not names:
        whole = _checkcache.catalogue_key(given)
        hit = _checkcache.load(whole)
        if isinstance(hit, dict) and isinstance(hit.get("results"), list):
            hit["seconds"] = time.perf_counter() - t0
            hit["cache"] = {**hit.get("cache", {}), "catalogue_hit": True, "cached": len(hit["results"]), "checked": 0}
            return hit
    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.checks import DEFAULTS
    from infonce_bounds.derivations.ledger import Verdict
    from infonce_bounds.derivations.run import runner

    options = {
        "trials": DEFAULTS["trials"] if trials is None else trials,
        "seed": DEFAULTS["seed"] if seed is None else seed,
    }
    wholes = []  # catalogue keys, taken before any source is read to build the catalogue
    if whole is not None:
        # stored under every way of asking for these options: each one given, or left to its default
        forms: list[dict] = [{}]
        for name, value in options.items():
            alts = [value, None] if value == DEFAULTS[name] else [value]
            forms = [{**f, name: a} for f in forms for a in alts]
        wholes = [_checkcache.catalogue_key(form) for form in forms]
    bar = Progress(1, "verify", enabled=progress)
    seen: list = []

    def counted(it):  # the whole catalogue is built lazily, while the first workers check: count as it comes
        for der in it:
            seen.append(der)
            bar.total = sum(len(d.steps) for d in seen)
            yield der

    ders = counted([catalogue.get(n) for n in names] if names else catalogue.iter_derivations())

    def tick(name, res, _cached):
        bar.update(1, f"{name}: {res.step}")

    cluster = None
    if scheduler is not None:  # a Dask cluster's workers instead of local processes
        from infonce_bounds.derivations.run.dask_backend import Cluster

        cluster = Cluster(scheduler)
    by_der, stats = runner.verify_derivations(
        ders, options, workers=workers, use_cache=use_cache, on_result=tick, backend=cluster
    )
    if cluster is not None:  # the cluster's workers, not this process's
        stats = cluster.report(stats)
    bar.close()
    rows = []
    for der in seen:
        for res in by_der[der.name]:
            rows.append({"result": der.name, "source": der.source, **res.as_dict()})
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    summary = {
        "results": rows,
        "options": options,
        "seconds": time.perf_counter() - t0,
        "counts": counts,
        "symbolic": sum(r["symbolic"] for r in rows),
        "certified": sum(r["certified"] for r in rows),
        "falsifier_only": sum(r["verdict"] == str(Verdict.VERIFIED) and r["kind"] == "inequality" for r in rows),
        "cache": {**stats, "catalogue_hit": False},
    }
    for key in wholes:
        _checkcache.store(key, summary)
    return summary
