"""Content keys of steps: what a step's cached verdict depends on, hashed the same in every process.

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

The run's shared memo (``run_memo_load``/``run_memo_store``, ``run_keys``) lets the workers of one ``verify``
reuse the keys and part verdicts its parent computed; ``runner.run_steps`` sets it up and clears it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import sys
import types
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import sympy as sp

from ..checks.verdicts import restored
from ..ledger import Derivation, DerivationError, Step, StepResult
from .cache import canonical_options, engine_version, file_hash

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
