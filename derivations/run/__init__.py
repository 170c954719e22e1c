"""The run layer: how claims are checked in bulk, cached and shown; the engine (``checks/``) imports none of it.

* ``cache``   — the run cache's storage, the engine version and the catalogue key (files and hashes only:
  ``verify`` reads it before importing SymPy);
* ``keys``    — content keys of steps (what a cached verdict depends on) and the run's shared memo;
* ``runner``  — ``run_steps``, the one loop behind ``verify`` and ``check FILE``:
  worker slots, cache look-up and store, longest first, dependency waves (a chain after the steps it
  cites, a user claim after the claims it ``uses``), a progress callback;
* ``pool``    — the worker slots (forked processes fed over pipes, never outliving their parent);
* ``dask_backend`` — the same tasks on a Dask cluster (``--scheduler ADDRESS``) instead of the slots: the
  client, a ``backend`` the caller gives ``run_steps``; ``dask_worker`` — the worker's side (a check process);
* ``route_keys`` — the key of a step that names a hinted route: route name, parameters (data) and engine version;
* ``claims``  — ``check FILE``'s plan: a claim's key from its parsed content, the check under the check
  budget, an internal error or a dead worker isolated to its claim;
* ``library`` — the catalogue as the engine's library of cited claims (``checks.library``).

Nothing is imported here: ``infonce-bounds verify`` imports ``run.cache`` without SymPy.
"""
