"""The one runner of ``verify`` and ``check FILE``: content-hashed result cache and worker processes.

``run_steps(ders, plan, workers, use_cache, on_result)`` is the loop: cache look-up, worker slots
(``pool``), longest first, dependency waves, results in step order. A ``Plan`` says how one kind of run
keys, orders and checks its steps: ``verify``'s (``verify_derivations``, below) and ``check``'s
(``claims.ClaimPlan``: a user claim keyed on its parsed content).

A catalogue step's cache key is a SHA-256 of everything its verdict depends on: every field of the step but
its prose (``note``, ``reference``): both sides and the certificate by ``srepr``, kind, relation,
domain, adversarial points, expected; the *code* of a custom checker or simplifier (bytecode,
constants, defaults, closure, and, followed through its globals, the code of every function of ours
it calls and the source hash of every module or class of ours it names); the checker options; the
*engine version* (``derivations.run.cache``); and the keys of the derivations it depends on. So an
unchanged catalogue re-verifies from the cache, an edited step (or checker) re-checks only itself and
the derivations that depend on its derivation, and an engine change re-checks everything.

A key is the same in every process and on every machine: SymPy's ``Dummy`` symbols (whose
``dummy_index`` is a per-process counter) are numbered by first appearance within the step, sets and
frozensets are sorted, numpy arrays hashed by bytes, and no absolute path or object address enters.

Two levels: the *catalogue key* (``cache.catalogue_key``: every source file of the package
plus the options) answers an unchanged catalogue without building it; otherwise steps are looked up
one by one. The cache lives in ``$XDG_CACHE_HOME/infonce-bounds/verify`` (default
``~/.cache/infonce-bounds/verify``), never inside the package. ``use_cache=False`` forces every check.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
import types
from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import sympy as sp

from ..checks.verdicts import restored
from ..ledger import Derivation, DerivationError, Step, StepResult
from .cache import cache_dir, canonical_options, catalogue_key, engine_version, file_hash, load, store

__all__ = [
    "cache_dir",
    "catalogue_key",
    "engine_version",
    "load",
    "step_fingerprint",
    "step_key",
    "store",
    "verify_derivations",
]

#: step fields that are prose for the reader: they cannot change a verdict
_PROSE = frozenset({"note", "reference"})


_MAX_DEPTH = 40
_TOO_DEEP = "<too deep>"


def _canon(obj: Any, depth: int = 0) -> str:
    """A deterministic text fingerprint of a step attribute (SymPy trees by ``srepr``, code by bytecode)."""
    if depth > _MAX_DEPTH:  # never reached by the catalogue (a test checks): data nested this deep is cut
        return _TOO_DEEP
    if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
        return repr(obj)
    if isinstance(obj, sp.Basic):
        return _tree(obj)
    if isinstance(obj, Mapping):
        items = sorted((_canon(k, depth + 1), _canon(v, depth + 1)) for k, v in obj.items())
        return "{" + ",".join(f"{k}:{v}" for k, v in items) + "}"
    if isinstance(obj, (list, tuple, set, frozenset)):
        parts = [_canon(v, depth + 1) for v in obj]
        if isinstance(obj, (set, frozenset)):
            parts.sort()  # iteration order of a set follows the per-process string hash seed
        return type(obj).__name__ + "[" + ",".join(parts) + "]"
    if isinstance(obj, types.CodeType):
        return _code(obj)
    if isinstance(obj, types.MethodType):
        return f"method({_canon(obj.__self__, depth + 1)},{_canon(obj.__func__, depth + 1)})"
    if isinstance(obj, types.FunctionType):
        return _function(obj, depth)
    if isinstance(obj, functools.partial):
        return f"partial({_canon(obj.func, depth + 1)},{_canon(obj.args, depth + 1)},{_canon(obj.keywords, depth + 1)})"
    if isinstance(obj, types.ModuleType):
        return _module_ref(obj)
    if isinstance(obj, type):
        return _class_ref(obj)
    if dataclasses.is_dataclass(obj):
        return type(obj).__name__ + _canon({f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}, depth + 1)
    if type(obj).__module__ == "numpy" or type(obj).__module__.startswith("numpy."):
        import numpy as np

        if isinstance(obj, np.ndarray):  # repr abbreviates a long array: hash every byte
            arr = np.ascontiguousarray(obj)
            return f"ndarray({arr.dtype.str},{arr.shape},{hashlib.sha256(arr.tobytes()).hexdigest()})"
        if isinstance(obj, np.generic):
            return f"{type(obj).__name__}({obj.item()!r})"
    if callable(obj) and isinstance(getattr(obj, "__wrapped__", None), types.FunctionType):  # lru_cache, wraps
        return f"wrapped({_canon(obj.__wrapped__, depth + 1)})"
    if callable(obj) and not _ours(type(obj).__module__):  # builtins, ufuncs, SymPy functions …
        name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__qualname__
        return f"ext({getattr(obj, '__module__', None) or type(obj).__module__}.{name})"
    if _ours(type(obj).__module__):  # an instance of one of our classes: its class's source and its state
        return f"obj({_class_ref(type(obj))},{_canon(getattr(obj, '__dict__', {}), depth + 1)})"
    return f"{type(obj).__module__}.{type(obj).__qualname__}:{obj!r}"


#: id → (node, text) of the SymPy nodes printed during one key computation (steps share subtrees)
_TREE_MEMO: dict[int, tuple[Any, str]] = {}


@functools.cache
def _plain(cls: type) -> bool:
    """A SymPy class whose instances are equal exactly when their class and ``args`` are (``Basic``'s own
    ``_hashable_content``): such a node is printed from its children; any other (atoms, ``Lambda``,
    applied undefined functions, indexed objects with assumptions, …) by ``srepr``."""
    return getattr(cls, "_hashable_content", None) in _ARGS_ONLY


#: the ``_hashable_content`` methods that return ``self._args`` and nothing else
_ARGS_ONLY = (sp.Basic._hashable_content, sp.Expr._hashable_content)


def _tree(e: sp.Basic) -> str:
    """``srepr``'s information at a fraction of its cost: ``Class(child, …)`` over the stored ``args``.

    ``args`` are stored in SymPy's canonical order (``Basic.compare``, which does not depend on the
    string hash seed), so the text is the same in every process; a node whose equality rests on more
    than its class and args is printed by ``srepr`` itself. Memoised by identity within one key
    computation: the catalogue's steps share large subtrees.
    """
    hit = _TREE_MEMO.get(id(e))
    if hit is not None and hit[0] is e:
        return hit[1]
    cls = type(e)
    if e.args and _plain(cls):
        text = f"{cls.__name__}({','.join(_tree(a) for a in e.args)})"
    else:
        text = sp.srepr(e)
    _TREE_MEMO[id(e)] = (e, text)
    return text


@lru_cache(maxsize=1)
def _external_roots() -> frozenset[str]:
    """Top-level module names of the standard library and of installed distributions other than ours."""
    from importlib import metadata

    roots = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
    roots |= {top for top, dists in metadata.packages_distributions().items() if "infonce-bounds" not in dists}
    roots.discard("infonce_bounds")
    return frozenset(roots)


def _ours(module: str | None) -> bool:
    """Code of this project (or of a user's or test's module), as opposed to a library's."""
    if not module:
        return True
    return module.split(".", 1)[0] not in _external_roots()


#: path → source hash, within one key computation (a class's module is named by many steps)
_FILE_MEMO: dict[str, str] = {}


def _source_hash(path: str) -> str:
    if path not in _FILE_MEMO:
        _FILE_MEMO[path] = file_hash(path)
    return _FILE_MEMO[path]


def _module_ref(mod: types.ModuleType) -> str:
    if _ours(mod.__name__):
        return f"module({mod.__name__},{_source_hash(getattr(mod, '__file__', None) or '')})"
    return f"module({mod.__name__})"


def _class_ref(cls: type) -> str:
    name = f"{cls.__module__}.{cls.__qualname__}"
    mod = sys.modules.get(cls.__module__)
    if _ours(cls.__module__) and mod is not None:
        return f"class({name},{_source_hash(getattr(mod, '__file__', None) or '')})"
    return f"class({name})"


def _code(code: types.CodeType) -> str:
    consts = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            consts.append(_code(c))
        elif isinstance(c, frozenset):  # `x in {"a", "b"}`: the order follows the string hash seed
            consts.append("frozenset" + repr(sorted(map(repr, c))))
        else:
            consts.append(repr(c))
    return f"code({code.co_code.hex()},{consts},{code.co_names})"


def _names(code: types.CodeType) -> set[str]:
    """Global and attribute names used by ``code`` and the code nested in it (lambdas, comprehensions)."""
    out = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out |= _names(c)
    return out


#: id → (function, fingerprint) for the functions fingerprinted during one key computation
_FN_MEMO: dict[int, tuple[Any, str | None]] = {}
#: how many recursive references were met (a fingerprint that met one is not memoised)
_CYCLES = [0]


def _function(fn: types.FunctionType, depth: int) -> str:
    """Bytecode, defaults, closure, attributes, and what the code names in its globals, recursively.

    Following the globals makes an edit to a helper the checker calls reach the key (the helper's
    bytecode is part of it); an unrelated edit elsewhere in the same file does not. A function of a
    library is named, not followed: the library's version is in the engine version.
    """
    engine = _engine_function(fn)
    if engine is not None:
        return engine
    memo = _FN_MEMO.get(id(fn))
    if memo is not None and memo[0] is fn:
        if memo[1] is not None:
            return memo[1]
        _CYCLES[0] += 1  # recursion: named here; its code is in the text of the call being built
        return f"fnref({fn.__module__}.{fn.__qualname__})"
    cycles = _CYCLES[0]
    _FN_MEMO[id(fn)] = (fn, None)
    cells = [c.cell_contents for c in (fn.__closure__ or ()) if _cell_ok(c)]
    attrs = {k: v for k, v in vars(fn).items() if not k.startswith("_")}
    g = fn.__globals__
    refs = []
    # depth restarts at a function: functions are memoised and a cycle is named, so this terminates
    for name in sorted(_names(fn.__code__)):
        if name in g and not name.startswith("__"):
            val = g[name]
            if isinstance(val, types.FunctionType) and not _ours(val.__module__):
                refs.append(f"{name}:ext({val.__module__}.{val.__qualname__})")
            else:
                refs.append(f"{name}:{_canon(val, 0)}")
    text = (
        f"fn({fn.__module__}.{fn.__qualname__},{_code(fn.__code__)},{_canon(fn.__defaults__, 0)},"
        f"{_canon(fn.__kwdefaults__, 0)},{_canon(cells, 0)},{_canon(attrs, 0)},globals{{{','.join(refs)}}})"
    )
    if _CYCLES[0] == cycles:
        _FN_MEMO[id(fn)] = (fn, text)
    else:  # inside a recursion the text depends on where it was entered: never reuse it
        del _FN_MEMO[id(fn)]
    return text


@lru_cache(maxsize=1)
def _engine_modules() -> frozenset[str]:
    """Module names of the files the engine version hashes (``cache.engine_files``)."""
    from . import cache as _checkcache

    root = __name__.rsplit(".", 2)[0]  # infonce_bounds.derivations
    parts = [p.with_suffix("").parts for p in _checkcache.engine_files()]
    return frozenset(".".join((root, *(q[:-1] if q[-1] == "__init__" else q))) for q in parts)


def _engine_function(fn: types.FunctionType) -> str | None:
    """A module-level function of the engine, by name: its source is in the engine version already.

    A nested function (``law_check``'s ``check``, say) carries the data of its closure and is followed.
    """
    mod = fn.__module__
    if mod not in _engine_modules():
        return None
    if "<locals>" in fn.__qualname__:
        return None
    obj: Any = sys.modules.get(mod)
    for part in fn.__qualname__.split("."):
        obj = getattr(obj, part, None)
    return f"engine({mod}.{fn.__qualname__})" if obj is fn else None


def _clear_memos() -> None:
    """Forget what one key computation memoised (code, trees and files may change between two)."""
    _FN_MEMO.clear()
    _TREE_MEMO.clear()
    _FILE_MEMO.clear()


def _cell_ok(c: Any) -> bool:
    try:
        c.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


#: SymPy's per-process Dummy counter, in srepr (``dummy_index=17``) and lambdified names (``_Dummy_17``)
_DUMMY = re.compile(r"(dummy_index=|_Dummy_)(\d+)")


def _renumber_dummies(text: str) -> str:
    """Number ``Dummy`` symbols by first appearance: the same tree gives the same text in every process."""
    seen: dict[str, int] = {}
    return _DUMMY.sub(lambda m: f"{m.group(1)}{seen.setdefault(m.group(2), len(seen))}", text)


def step_key(step: Step, options: Mapping[str, Any], upstream: str = "") -> str:
    """The content hash of ``step`` checked with ``options`` (see the module docstring)."""
    _clear_memos()  # code may have been redefined since the last call (a notebook, a test)
    try:
        return _step_key(step, options, upstream)
    finally:
        _clear_memos()


def step_fingerprint(step: Step, options: Mapping[str, Any], upstream: str = "") -> str:
    """The text ``step_key`` hashes: engine version, upstream, options and every non-prose field."""
    _clear_memos()
    try:
        return _fingerprint(step, options, upstream)
    finally:
        _clear_memos()


def _fingerprint(step: Step, options: Mapping[str, Any], upstream: str) -> str:
    fields = [engine_version(), upstream, canonical_options(options)]
    if step.route is not None and step.check is None:  # a hinted route: name, parameters, claim; no code
        from .route_keys import route_fields

        return _renumber_dummies("\x1f".join([*fields, *route_fields(step, _canon, _PROSE)]))
    for f in dataclasses.fields(step):  # every field, so a field added to Step is keyed without an edit here
        if f.name not in _PROSE:
            fields.append(f"{f.name}={_canon(getattr(step, f.name))}")
    return _renumber_dummies("\x1f".join(fields))


def _step_key(step: Step, options: Mapping[str, Any], upstream: str) -> str:
    return hashlib.sha256(_fingerprint(step, options, upstream).encode()).hexdigest()


def result_from_dict(d: Mapping[str, Any]) -> StepResult:
    """Rebuild a ``StepResult`` from ``StepResult.as_dict()`` (``verdicts.restored``)."""
    return restored(d)


# ----------------------------------------------------------------------------- running


#: the derivations being checked, added by the parent as they are built; a worker inherits them when it forks
_REGISTRY: dict[str, Derivation] = {}
#: the run's step keys by derivation, ``name → (derivation, options, keys)``; a worker inherits them, and the
#: chain checker reads its citations' keys here instead of computing them again
_RUN_KEYS: dict[str, tuple[Derivation, str, list[str]]] = {}


#: a directory for what one ``verify`` run memoises across its workers (chains' parts); None outside a run
_RUN_DIR: list[str | None] = [None]


def run_memo_load(key: str) -> Any:
    """What this run stored under ``key`` (``run_memo_store``), or ``None`` (also outside a run)."""
    if _RUN_DIR[0] is None:
        return None
    try:
        return json.loads(Path(_RUN_DIR[0], key + ".json").read_text())
    except (OSError, ValueError):
        return None


def run_memo_store(key: str, payload: Any) -> None:
    """Keep ``payload`` for the rest of this run (its workers too); removed when the run ends."""
    if _RUN_DIR[0] is None:
        return
    path = Path(_RUN_DIR[0], key + ".json")
    try:
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(payload))
        tmp.replace(path)  # atomic: the other worker reads the whole entry or none
    except OSError:
        pass


def run_keys(der: Derivation, options: Mapping[str, Any]) -> list[str] | None:
    """The keys the running ``verify`` computed for ``der`` with ``options``; ``None`` if it computed none."""
    hit = _RUN_KEYS.get(der.name)
    if hit is None or hit[0] is not der or hit[1] != canonical_options(options):
        return None
    return hit[2]


def _check_one(task: tuple[str, int, dict]) -> tuple[str, int, dict, float, float]:
    """Worker: check step ``index`` of derivation ``name`` (inherited from the parent through fork).

    Returns the result, its wall seconds and its CPU seconds (this process's, so a loaded machine
    does not inflate it).
    """
    from ..checks import check_step

    name, index, options = task
    step = _REGISTRY[name].steps[index]
    t0, c0 = time.perf_counter(), time.process_time()
    res = check_step(step, **options)
    res.seconds = time.perf_counter() - t0
    return name, index, res.as_dict(), res.seconds, time.process_time() - c0


class _KeyBook:
    """Step keys, derivation by derivation; a derivation's upstream is the hash of the keys it depends on.

    A dependency is looked up among the derivations given, then in the catalogue (built only as far as it
    must be). The fingerprint memos (``_clear_memos``) are shared by every key the book computes: one
    ``verify`` run, or one ``_derivation_keys`` call.
    """

    def __init__(self, given: Mapping[str, Derivation], options: Mapping[str, Any]) -> None:
        self.given = dict(given)
        self.options = dict(options)
        self.memo: dict[str, list[str]] = {}
        self.ups: dict[str, str] = {}
        self.step_memo: dict[tuple[str, str], str] = {}

    def add(self, der: Derivation) -> None:
        self.given[der.name] = der

    def derivation(self, name: str) -> Derivation:
        if name in self.given:
            return self.given[name]
        from .. import catalogue

        return catalogue.get(name)

    def upstream(self, name: str) -> str:
        if name not in self.ups:
            deps = self.derivation(name).depends_on
            self.ups[name] = hashlib.sha256("".join("".join(self.keys(dep)) for dep in deps).encode()).hexdigest()
        return self.ups[name]

    def key_of(self, name: str, step_name: str) -> str:
        if (name, step_name) not in self.step_memo:
            st = self.derivation(name).step(step_name)
            up = self.upstream(name)
            if st.links:  # a chain rests on the verdicts of the steps it cites, in its own derivation too
                cited = [
                    self.key_of(*link.cited) if self._exists(*link.cited) else link.cite
                    for link in st.links
                    if link.cite
                ]
                up = hashlib.sha256((up + "".join(cited)).encode()).hexdigest()
            self.step_memo[(name, step_name)] = _step_key(st, self.options, up)
        return self.step_memo[(name, step_name)]

    def _exists(self, name: str, step_name: str) -> bool:  # a citation of nothing is refuted by the chain checker
        try:
            der = self.derivation(name)
        except DerivationError:
            return False
        return step_name in {x.name for x in der.steps}

    def keys(self, name: str) -> list[str]:
        if name not in self.memo:
            self.memo[name] = [self.key_of(name, st.name) for st in self.derivation(name).steps]
        return self.memo[name]


def _derivation_keys(ders: Iterable[Derivation], options: Mapping[str, Any]) -> dict[str, list[str]]:
    """Step keys per derivation; a derivation's upstream is the hash of the keys it depends on."""
    ders = list(ders)
    book = _KeyBook({d.name: d for d in ders}, options)
    _clear_memos()  # shared by the steps of this one computation: a helper is fingerprinted once
    try:
        return {d.name: book.keys(d.name) for d in ders}
    finally:
        _clear_memos()


def _estimate(step: Step, options: Mapping[str, Any]) -> float:
    """A rough CPU estimate (s) of ``step``'s check, from what its checker will do; only the order matters.

    Used when no earlier run's time is cached, so that a cold run still starts the long checks first:
    the falsifier's trials dominate an inequality (a vector claim, a custom law checker several times
    more), a definition costs nothing, an identity is cheap unless it holds a sum or an integral.
    """
    budget = max(float(options.get("trials", 100_000)) / 100_000, 0.05)
    heavy = any(
        isinstance(e, sp.Basic) and e.has(sp.Sum, sp.Product, sp.Integral, sp.Derivative) for e in (step.lhs, step.rhs)
    )
    if step.kind == "definition":
        return 0.0
    if step.kind == "chain":
        return 1.0 + 0.3 * len(step.links)
    if step.kind == "inequality":
        return budget * (0.6 if step.check is not None else 0.7 if heavy else 0.15)
    if step.kind == "identity":
        return 0.5 if step.check is not None or heavy else 0.07
    return 0.05


#: a slot is forked while the catalogue is still being built once this much work (estimated s) is ready
_EARLY_WORK = 1.0
#: tasks sent ahead to a slot, so that it never waits for the parent (which may be building a module)
_AHEAD = 2


def verify_derivations(
    ders: Iterable[Derivation],
    options: Mapping[str, Any],
    workers: int = 2,
    use_cache: bool = True,
    on_result: Callable[[str, StepResult, bool], None] | None = None,
    backend: Callable[..., None] | None = None,
) -> tuple[dict[str, list[StepResult]], dict[str, Any]]:
    """Check every step of ``ders`` (catalogue derivations); returns (results by derivation, stats).

    ``ders`` may be a lazy iterable (``catalogue.iter_derivations()``): the first worker is forked as soon
    as there is work for it, and checks the first derivations while this process builds the others.
    Steps go longest first (an earlier run's time from the cache, else ``_estimate``); a chain goes as
    soon as every step of this run that it cites is stored, so it reads their verdicts from the cache.

    ``stats``: ``{"cached": n, "checked": n, "workers": w, "cpu": {derivation: CPU seconds checked now},
    "overhead": {...}}`` (``overhead``: this process's CPU seconds building derivations and computing keys,
    and the wall seconds until the first check started). Results keep each step's own check time
    (``seconds``), also when they come from the cache. A worker that dies (killed, out of memory) costs
    no result: the steps not returned yet are checked in this process.
    """
    plan = _CataloguePlan(options)
    return run_steps(ders, plan, workers=workers, use_cache=use_cache, on_result=on_result, backend=backend)


class Plan:
    """What ``run_steps`` needs to know about one kind of run (``verify``'s catalogue, ``check``'s claim file).

    ``keys(der)``: the content key of each step (equal keys, equal verdicts); ``estimate(der, i)``: a rough
    CPU estimate (s) of checking step ``i`` when no earlier run's time is stored; ``waits(der, i, index_of)``:
    the tasks ``(derivation, index)`` of this run that must be finished first; ``task_options(task, results)``:
    the options sent with a task (``results``: what is finished so far); ``work``: the module-level function
    a worker (and the serial loop) runs on ``(name, index, options)``, returning ``(name, index, payload,
    seconds, cpu)``; ``result(payload, seconds, index)``: the result kept (``seconds`` None: from the cache); ``storable(payload)``: whether it may be
    cached; ``isolates``/``died(task, why)``: a plan that isolates gives a task whose worker died checking it
    the payload ``died`` returns, and goes on with a fresh worker; one that does not (``verify``: a killed
    worker costs no result) checks what is left in this process.
    """

    work: Callable[[tuple[str, int, dict]], tuple[str, int, Any, float, float]]
    isolates = False  #: a dead worker costs its task (``died``) instead of sending the rest to this process
    label = "verify"  #: the command, in messages
    what = "step"  #: what one task checks, in messages

    def keys(self, der: Derivation) -> list[str]:
        raise NotImplementedError

    def estimate(self, der: Derivation, index: int) -> float:
        return 0.05

    def waits(self, der: Derivation, index: int, index_of: Mapping[tuple[str, str], int]) -> set[tuple[str, int]]:
        return set()

    def task_options(self, task: tuple[str, int], results: Mapping[str, list[Any]]) -> dict:
        raise NotImplementedError

    def result(self, payload: Any, seconds: float | None, index: int) -> Any:
        return payload

    def storable(self, payload: Any) -> bool:
        return True

    def died(self, task: tuple[str, int], why: str) -> Any:
        raise NotImplementedError


class _CataloguePlan(Plan):
    """``verify``: keys by ``_KeyBook`` (code fingerprints, upstream derivations), chains after their citations."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        self.book = _KeyBook({}, self.options)
        self.work = _check_one

    def keys(self, der: Derivation) -> list[str]:
        self.book.add(der)
        return self.book.keys(der.name)

    def estimate(self, der: Derivation, index: int) -> float:
        return _estimate(der.steps[index], self.options)

    def waits(self, der: Derivation, index: int, index_of: Mapping[tuple[str, str], int]) -> set[tuple[str, int]]:
        st = der.steps[index]
        cited = {(link.cited[0], index_of.get(link.cited)) for link in st.links if link.cite}
        return {c for c in cited if c[1] is not None}  # type: ignore[misc]

    def task_options(self, task: tuple[str, int], results: Mapping[str, list[Any]]) -> dict:
        return self.options

    def result(self, payload: Any, seconds: float | None, index: int) -> StepResult:
        res = result_from_dict(payload)
        if seconds is not None:
            res.seconds = seconds
        return res


def run_steps(
    ders: Iterable[Derivation],
    plan: Plan,
    workers: int = 2,
    use_cache: bool = True,
    on_result: Callable[[str, Any, bool], None] | None = None,
    backend: Callable[..., None] | None = None,
) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Check every step of ``ders`` as ``plan`` says; returns (results by derivation, in step order; stats).

    The one loop behind ``verify`` and ``check FILE``: a step whose key is stored is answered from the run
    cache (``on_result(name, result, True)``); the others go to ``workers`` forked slots (one process when
    ``workers`` ≤ 1 or at most one step is left), longest first, each as soon as the steps it waits for are
    finished (dependency waves), and are stored as they come back (``on_result(name, result, False)``).
    """
    from .library import install_default
    from .pool import Slot, SlotDied, ready

    install_default()
    t_start, c_start = time.perf_counter(), time.process_time()
    given = list(ders) if isinstance(ders, (list, tuple)) else None
    source = iter(given if given is not None else ders)
    if given is not None and isinstance(plan, _CataloguePlan):
        for d in given:
            plan.book.add(d)
    opts_text = canonical_options(getattr(plan, "options", {}))
    order: list[str] = []
    out: dict[str, list[Any]] = {}
    index_of: dict[tuple[str, str], int] = {}
    pending: dict[tuple[str, int], float] = {}  # task → estimated seconds
    waits: dict[tuple[str, int], set[tuple[str, int]]] = {}  # task → the tasks of this run it waits for
    finished: set[tuple[str, int]] = set()
    cpu: dict[str, float] = {}
    over = {"build_cpu": 0.0, "keys_cpu": 0.0, "first_check_wall": None}
    counts = {"cached": 0, "checked": 0}
    state = {"built": False, "serial": workers <= 1 and backend is None}
    slots: list[Slot] = []
    for der in given or ():  # a chain may cite a step of a derivation given later in the list
        for i, st in enumerate(der.steps):
            index_of[(der.name, st.name)] = i

    def register(der: Derivation) -> None:
        c0 = time.process_time()
        keys = plan.keys(der)
        over["keys_cpu"] += time.process_time() - c0
        order.append(der.name)
        _REGISTRY[der.name] = der
        _RUN_KEYS[der.name] = (der, opts_text, keys)
        out[der.name] = [None] * len(der.steps)
        for i, st in enumerate(der.steps):
            index_of[(der.name, st.name)] = i
        for i, key in enumerate(keys):
            hit = load(key) if use_cache else None
            if hit is not None:
                res = plan.result(hit, None, i)
                out[der.name][i] = res
                counts["cached"] += 1
                finished.add((der.name, i))
                if on_result:
                    on_result(der.name, res, True)
                continue
            prev = load(key + "-t")  # the time a previous run took: longest first
            pending[(der.name, i)] = float(prev) if isinstance(prev, (int, float)) else plan.estimate(der, i)
            counts["checked"] += 1
            w = plan.waits(der, i, index_of)
            if w:
                waits[(der.name, i)] = w

    def build_one() -> bool:
        c0 = time.process_time()
        try:
            der = next(source)
        except StopIteration:
            state["built"] = True
            return False
        finally:
            over["build_cpu"] += time.process_time() - c0
        register(der)
        return True

    def runnable(task: tuple[str, int]) -> bool:
        return waits.get(task, set()) <= finished

    def pick(knows: frozenset[str] | None, force: bool = False) -> tuple[str, int] | None:
        """The longest runnable task (in one process: the first, so a serial run goes in the given order)."""
        best = None
        for task, est in pending.items():
            if (knows is None or task[0] in knows) and (force or runnable(task)):
                if best is None or est > pending[best]:
                    best = task
                if state["serial"]:
                    break
        if best is not None:
            del pending[best]
            if over["first_check_wall"] is None:
                over["first_check_wall"] = time.perf_counter() - t_start
        return best

    def done(name: str, index: int, payload: Any, seconds: float, cpu_seconds: float) -> None:
        cpu[name] = cpu.get(name, 0.0) + cpu_seconds
        res = plan.result(payload, seconds, index)
        out[name][index] = res
        key = _RUN_KEYS[name][2][index]
        if plan.storable(payload):
            store(key, payload)  # before the steps waiting for it are sent: a chain reads it from the cache
            store(key + "-t", seconds)
        finished.add((name, index))
        if on_result:
            on_result(name, res, False)

    def task_of(task: tuple[str, int]) -> tuple[str, int, dict]:
        return (*task, plan.task_options(task, out))

    def stuck() -> bool:  # nothing runnable, nothing running: a citation cycle; check them anyway
        return bool(pending) and not any(s.inflight for s in slots) and not any(map(runnable, pending))

    def lost(slot: Slot, why: str, unsent: tuple[str, int] | None = None) -> bool:
        """``slot`` died. A plan that isolates (``check``) charges its task being checked (the first in flight)
        with ``plan.died`` and goes on with a fresh slot; True then. Otherwise (``verify``) False."""
        if unsent is not None:  # picked, never sent: still to check
            pending[unsent] = 0.0
        if not plan.isolates:
            return False
        head = slot.inflight.pop(0)[:2] if slot.inflight else None
        for task in slot.inflight:  # sent ahead, never started: checked by another slot
            pending[task[:2]] = 0.0
        slot.inflight.clear()
        slot.close()
        slots.remove(slot)
        if head is not None:
            done(head[0], head[1], plan.died(head, why), 0.0, 0.0)
        return True

    _clear_memos()

    def drain(timeout: float | None) -> None:
        """Take every result a worker has ready (``timeout`` None: wait for one); a worker lost is replaced."""
        for slot in ready(slots, timeout):
            try:
                _task, result = slot.receive()
            except SlotDied as exc:
                if not lost(slot, str(exc)):
                    raise
                continue
            done(*result)

    _REGISTRY.clear()
    _RUN_KEYS.clear()
    _RUN_DIR[0] = tempfile.mkdtemp(prefix="infonce-verify-run-")
    try:
        try:
            if backend is not None:  # another executor instead of the slots (a Dask cluster: ``dask_backend``)
                backend(plan, build_one, pending, waits, finished, pick, task_of, done, _RUN_KEYS)
            while not state["serial"]:
                drain(0)
                if state["built"] and not slots and counts["checked"] <= 1:
                    state["serial"] = True  # one step (or none) to check: no process to fork
                    break
                work = sum(est for task, est in pending.items() if runnable(task))
                if len(slots) < workers and (state["built"] or (not slots and work >= _EARLY_WORK)):
                    if pending:
                        slots.append(Slot(plan.work, order))
                for slot in list(slots):
                    if state["built"] and not slot.inflight and len(slot.knows) < len(order) and pending:
                        slot.close()  # forked before the catalogue was complete: fork it again, knowing all
                        fresh = Slot(plan.work, order)
                        slots[slots.index(slot)] = fresh
                        slot = fresh
                    force = stuck()
                    while len(slot.inflight) < _AHEAD:
                        task = pick(slot.knows, force)
                        if task is None:
                            break
                        try:
                            slot.send(task_of(task))
                        except SlotDied as exc:
                            if not lost(slot, str(exc), unsent=task):
                                raise
                            break
                if not state["built"]:
                    build_one()
                    continue
                if not pending and not any(s.inflight for s in slots):
                    break
                drain(None)  # wait for a result
        except SlotDied:
            for slot in slots:
                for task in slot.inflight:
                    pending[task[:2]] = 0.0
                slot.inflight.clear()
                slot.close()
            slots = []
            while build_one():
                pass
            print(
                f"{plan.label}: a worker process died; checking the {len(pending)} remaining {plan.what}(s) in this process",
                file=sys.stderr,
            )
            state["serial"] = True
        finally:
            for slot in slots:
                slot.close()
        if state["serial"]:
            while build_one():
                pass
            while pending:
                task = pick(None) or pick(None, force=True)
                done(*plan.work(task_of(task)))  # type: ignore[arg-type]
    finally:
        shutil.rmtree(_RUN_DIR[0], ignore_errors=True)
        _RUN_DIR[0] = None
    _clear_memos()
    over["parent_cpu"] = time.process_time() - c_start
    stats = {
        "cached": counts["cached"],
        "checked": counts["checked"],
        "workers": workers if counts["checked"] > 1 else 1,
        "cpu": cpu,
        "overhead": over,
    }
    return {name: list(out[name]) for name in order}, stats
