"""Whole-catalogue checking: content-hashed result cache and two worker processes.

A step's cache key is a SHA-256 of everything its verdict depends on: the step's content (``srepr``
of both sides, kind, relation, domain, certificate, adversarial points, expected), the code of any
custom checker or simplifier (bytecode, constants and closure, plus the source of the module that
defines it), the checker options, the *engine version* (a hash of the engine's own source:
``ledger.py``, ``intervals.py`` and this package), and the keys of the derivations it depends on. So
an unchanged catalogue re-verifies from the cache, an edited step re-checks only itself and the
derivations that depend on its derivation, and an engine change re-checks everything.

Two levels: a *catalogue key* (hash of every source file of ``derivations/`` plus the options)
answers an unchanged catalogue without building it; otherwise steps are looked up one by one.

The cache lives in the user cache directory (``$XDG_CACHE_HOME/infonce-bounds/verify``, default
``~/.cache/infonce-bounds/verify``), never inside the package. ``use_cache=False`` forces every check.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import types
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from functools import lru_cache
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import sympy as sp

from ..ledger import Derivation, Step, StepResult, Verdict

_PKG = Path(__file__).resolve().parent
_DERIVATIONS = _PKG.parent


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "infonce-bounds" / "verify"


def _file_hash(path: str | Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "?"


@lru_cache(maxsize=1)
def engine_version() -> str:
    """Hash of the engine's source: the ledger, the interval back end and every checker module."""
    files = [_DERIVATIONS / "ledger.py", _DERIVATIONS / "intervals.py", *sorted(_PKG.glob("*.py"))]
    h = hashlib.sha256()
    for f in files:
        h.update(f.name.encode())
        h.update(_file_hash(f).encode())
    try:
        import flint

        h.update(str(flint.__version__).encode())
    except ImportError:  # pragma: no cover - a core dependency
        pass
    h.update(sp.__version__.encode())
    return h.hexdigest()[:16]


def catalogue_key(options: Mapping[str, Any]) -> str:
    """Hash of every source file under ``derivations/`` (the whole catalogue) and the options."""
    h = hashlib.sha256(engine_version().encode())
    for f in sorted(_DERIVATIONS.rglob("*.py")):
        h.update(str(f.relative_to(_DERIVATIONS)).encode())
        h.update(_file_hash(f).encode())
    h.update(_canon(options).encode())
    return h.hexdigest()


def _canon(obj: Any, depth: int = 0) -> str:
    """A deterministic text fingerprint of a step attribute (SymPy trees by ``srepr``, code by bytecode)."""
    if depth > 8:
        return "…"
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return repr(obj)
    if isinstance(obj, sp.Basic):
        return sp.srepr(obj)
    if isinstance(obj, Mapping):
        items = sorted((_canon(k, depth + 1), _canon(v, depth + 1)) for k, v in obj.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if isinstance(obj, (list, tuple, set, frozenset)):
        parts = [_canon(v, depth + 1) for v in obj]
        if isinstance(obj, (set, frozenset)):
            parts.sort()
        return "[" + ",".join(parts) + "]"
    if isinstance(obj, types.CodeType):
        return _code(obj, depth)
    if isinstance(obj, (types.FunctionType, types.MethodType)):
        fn = obj.__func__ if isinstance(obj, types.MethodType) else obj
        cells = [c.cell_contents for c in (fn.__closure__ or ()) if _cell_ok(c)]
        attrs = {k: v for k, v in vars(fn).items() if not k.startswith("_")}
        src = _file_hash(fn.__code__.co_filename)
        return (
            f"fn({fn.__module__}.{fn.__qualname__},{src},{_code(fn.__code__, depth)},"
            f"{_canon(fn.__defaults__, depth + 1)},{_canon(cells, depth + 1)},{_canon(attrs, depth + 1)})"
        )
    if hasattr(obj, "__dataclass_fields__"):
        return type(obj).__name__ + _canon({k: getattr(obj, k) for k in obj.__dataclass_fields__}, depth + 1)
    if callable(obj):
        return f"callable({type(obj).__module__}.{type(obj).__qualname__},{_canon(getattr(obj, '__dict__', {}), depth + 1)})"
    return f"{type(obj).__qualname__}:{obj!r}"


def _cell_ok(c: Any) -> bool:
    try:
        c.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _code(code: types.CodeType, depth: int) -> str:
    consts = [_code(c, depth + 1) if isinstance(c, types.CodeType) else repr(c) for c in code.co_consts]
    return f"code({code.co_code.hex()},{consts},{code.co_names})"


def step_key(step: Step, options: Mapping[str, Any], upstream: str = "") -> str:
    """The content hash of ``step`` checked with ``options`` (see the module docstring)."""
    d = step.domain
    fields = [
        engine_version(),
        upstream,
        step.name,
        step.kind,
        step.provenance,
        str(step.relation),
        sp.srepr(step.lhs),
        sp.srepr(step.rhs),
        _canon(step.var),
        _canon(step.point),
        _canon(step.order),
        _canon(step.certificate),
        _canon(dict(d.ranges)),
        _canon(list(d.constraints)),
        _canon(list(step.adversarial)),
        _canon(step.check),
        _canon(step.simplifier),
        str(step.expected),
        _canon(list(step.links)),  # a chain's links (citations, substitutions) decide its verdict
        _canon(dict(options)),
    ]
    return hashlib.sha256("\x1f".join(fields).encode()).hexdigest()


# ----------------------------------------------------------------------------- storage


def _path(key: str) -> Path:
    return cache_dir() / key[:2] / f"{key}.json"


def load(key: str) -> dict | None:
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


def result_from_dict(d: Mapping[str, Any]) -> StepResult:
    """Rebuild a ``StepResult`` from ``StepResult.as_dict()``."""
    res = StepResult(
        d["step"],
        d["kind"],
        Verdict(d["verdict"]),
        d["method"],
        d.get("evidence", ""),
        worst_ratio=d.get("worst_ratio"),
        trials=d.get("trials", 0),
        counterexample=d.get("counterexample"),
        seconds=d.get("seconds", 0.0),
        provenance=d.get("provenance", "ours"),
        certified=d.get("certified", False),
        symbolic=d.get("symbolic", False),
        expected=d.get("expected"),
    )
    for name in ("covered", "attacked"):
        if name in d and hasattr(res, name):
            setattr(res, name, d[name])
    return res


# ----------------------------------------------------------------------------- running


#: the derivations being checked, set before the worker processes fork (they inherit it: no pickling)
_REGISTRY: dict[str, Derivation] = {}


def _check_one(task: tuple[str, int, dict]) -> tuple[str, int, dict, float]:
    """Worker: check step ``index`` of derivation ``name`` (inherited from the parent through fork)."""
    from . import check_step

    name, index, options = task
    step = _REGISTRY[name].steps[index]
    t0 = time.perf_counter()
    res = check_step(step, **options)
    res.seconds = time.perf_counter() - t0
    return name, index, res.as_dict(), res.seconds


def _derivation_keys(ders: Iterable[Derivation], options: Mapping[str, Any]) -> dict[str, list[str]]:
    """Step keys per derivation; a derivation's upstream is the hash of the keys it depends on."""
    from .. import catalogue

    ders = list(ders)
    table = {**{d.name: d for d in catalogue.all_derivations()}, **{d.name: d for d in ders}}
    memo: dict[str, list[str]] = {}

    def keys(name: str) -> list[str]:
        if name not in memo:
            der = table[name]
            up = hashlib.sha256("".join("".join(keys(dep)) for dep in der.depends_on).encode()).hexdigest()
            memo[name] = [step_key(st, options, up) for st in der.steps]
        return memo[name]

    return {d.name: keys(d.name) for d in ders}


def verify_derivations(
    ders: list[Derivation],
    options: Mapping[str, Any],
    workers: int = 2,
    use_cache: bool = True,
    on_result: Callable[[str, StepResult, bool], None] | None = None,
) -> tuple[dict[str, list[StepResult]], dict[str, Any]]:
    """Check every step of ``ders`` (catalogue derivations); returns (results by derivation, stats).

    ``stats``: ``{"cached": n, "checked": n, "workers": w}``. Results keep each step's own check time
    (``seconds``), also when they come from the cache.
    """
    options = dict(options)
    keys = _derivation_keys(ders, options)
    out: dict[str, list[StepResult | None]] = {d.name: [None] * len(d.steps) for d in ders}
    todo: list[tuple[float, str, int]] = []
    cached = 0
    for der in ders:
        for i, key in enumerate(keys[der.name]):
            hit = load(key) if use_cache else None
            if hit is not None:
                res = result_from_dict(hit)
                out[der.name][i] = res
                cached += 1
                if on_result:
                    on_result(der.name, res, True)
            else:
                prev = load(key + "-t")  # the time a previous run took: longest first
                todo.append((float(prev or 1.0) if isinstance(prev, (int, float)) else 1.0, der.name, i))
    todo.sort(key=lambda t: -t[0])

    def done(name: str, index: int, payload: dict, seconds: float) -> None:
        res = result_from_dict(payload)
        res.seconds = seconds
        out[name][index] = res
        key = keys[name][index]
        store(key, res.as_dict())
        store(key + "-t", seconds)
        if on_result:
            on_result(name, res, False)

    tasks = [(name, i, options) for _, name, i in todo]
    _REGISTRY.clear()
    _REGISTRY.update({d.name: d for d in ders})
    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
            for name, i, payload, secs in pool.map(_check_one, tasks, chunksize=1):
                done(name, i, payload, secs)
    else:
        for t in tasks:
            done(*_check_one(t))
    stats = {"cached": cached, "checked": len(tasks), "workers": workers if len(tasks) > 1 else 1}
    return {k: list(v) for k, v in out.items()}, stats  # type: ignore[arg-type]
