"""The run cache's storage, engine version and catalogue key: files and hashes only, no SymPy.

``infonce-bounds verify`` asks this module first. When the whole catalogue is unchanged, its one
*catalogue entry* answers without importing SymPy, numpy, python-flint or numba and without building
a single derivation; only a miss goes on to ``derivations.run.runner`` (per-step keys, workers).

* *engine version*: a hash of the engine's own source (``ledger.py``, ``intervals.py``, every
  module of ``checks/`` and of ``run/``), the versions of the libraries a verdict depends on and the Python version
  (the key of a ``check=`` closure holds its bytecode, which changes between Python versions; a step that names a
  hinted route is keyed by the route's name and parameters as data, ``run.route_keys``);
* *catalogue key*: the engine version, every source file of the ``derivations`` package (by its path
  relative to the package directory, so the key is the same in any clone on any machine) and the
  checker options.

Entries are JSON files under ``$XDG_CACHE_HOME/infonce-bounds/verify`` (default
``~/.cache/infonce-bounds/verify``), never inside the package; a write is atomic.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

_DERIVATIONS = Path(__file__).resolve().parents[1]
_CHECKS = _DERIVATIONS / "checks"
_RUN = _DERIVATIONS / "run"

#: distributions whose version is part of every key: they compute or decide verdicts
LIBRARIES = ("sympy", "mpmath", "python-flint", "numpy")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "infonce-bounds" / "verify"


def file_hash(path: str | Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "?"


def _library_versions() -> str:
    from importlib import metadata

    out = []
    for dist in LIBRARIES:
        try:
            out.append(f"{dist}={metadata.version(dist)}")
        except metadata.PackageNotFoundError:  # pragma: no cover - core dependencies
            out.append(f"{dist}=?")
    return ";".join(out)


def engine_files() -> list[Path]:
    """The engine's source files, relative to the ``derivations`` package directory: the ledger, the interval
    back end, every module of ``checks/`` (its sub-packages too: the sums route lives in ``checks/sums/``)
    and the run layer (``run/``: how a check is run and keyed can change what is stored)."""
    files = [
        _DERIVATIONS / "ledger.py",
        _DERIVATIONS / "intervals.py",
        *sorted(_CHECKS.rglob("*.py")),
        *sorted(_RUN.glob("*.py")),
    ]
    return [f.relative_to(_DERIVATIONS) for f in files]


@lru_cache(maxsize=1)
def engine_version() -> str:
    """Hash of the engine's source, the libraries' versions and the Python version."""
    h = hashlib.sha256()
    for rel in engine_files():
        f = _DERIVATIONS / rel
        h.update(rel.as_posix().encode())
        h.update(file_hash(f).encode())
    h.update(_library_versions().encode())
    h.update(f"python{sys.version_info[0]}.{sys.version_info[1]}".encode())
    return h.hexdigest()[:16]


def canonical_options(options: Mapping[str, Any]) -> str:
    """Checker options as sorted JSON (values that JSON cannot hold by their ``repr``)."""
    return json.dumps(dict(options), sort_keys=True, default=repr)


def _package_dirs() -> list[Path]:
    """Every directory of the ``derivations`` package path (a result module may be added beside it)."""
    pkg = sys.modules.get(__package__.rsplit(".", 1)[0])  # infonce_bounds.derivations
    dirs = [Path(p) for p in getattr(pkg, "__path__", [])] or [_DERIVATIONS]
    return dirs


def catalogue_key(options: Mapping[str, Any]) -> str:
    """Hash of the engine version, every source file of the ``derivations`` package and ``options``."""
    h = hashlib.sha256(engine_version().encode())
    for i, d in enumerate(_package_dirs()):
        for f in sorted(Path(d).rglob("*.py")):
            h.update(f"{i}:{f.relative_to(d).as_posix()}".encode())
            h.update(file_hash(f).encode())
    h.update(canonical_options(options).encode())
    return h.hexdigest()


def _path(key: str) -> Path:
    return cache_dir() / key[:2] / f"{key}.json"


def load(key: str) -> Any:
    """The entry stored under ``key``, or ``None`` (absent or unreadable)."""
    try:
        return json.loads(_path(key).read_text())
    except (OSError, ValueError):
        return None


def store(key: str, payload: Any) -> None:
    path = _path(key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(payload))
        tmp.replace(path)  # atomic: a concurrent reader sees the old file or the new one
    except OSError:  # a read-only home is no reason to fail a verification
        pass
