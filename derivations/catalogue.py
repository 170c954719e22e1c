"""Ordered registry of every derivation: name → ``Derivation``, read by the CLI, README and tests.

No list to edit: a module of ``derivations/`` is a result module when it defines ``ORDER`` (its place
in the proof) and ``derivations() -> list[Derivation]`` (see ``derivations.results`` for the rest of
what a result module may declare). Modules are registered by increasing ``ORDER``, so later results
may depend on earlier ones (``Derivation.depends_on`` is checked). The paper's own results follow,
found in ``derivations/paper/`` and ordered by their position in the paper.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from types import ModuleType

from .ledger import Derivation, DerivationError


class UnknownResult(DerivationError):
    """A result name that the catalogue does not hold."""


def _is_result_module(mod: ModuleType) -> bool:
    return isinstance(getattr(mod, "ORDER", None), (int, float)) and callable(getattr(mod, "derivations", None))


@lru_cache(maxsize=1)
def _toolkit_modules() -> tuple[ModuleType, ...]:
    pkg = importlib.import_module(__package__)
    found = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.ispkg or info.name.startswith("_"):  # subpackages (paper/, checks/) have their own rules
            continue
        mod = importlib.import_module(f"{__package__}.{info.name}")
        if _is_result_module(mod):
            found.append(mod)
    orders: dict[float, str] = {}
    for mod in found:
        name = mod.__name__.rsplit(".", 1)[-1]
        if mod.ORDER in orders:
            raise DerivationError(f"result modules {orders[mod.ORDER]!r} and {name!r} share ORDER = {mod.ORDER}")
        orders[mod.ORDER] = name
    return tuple(sorted(found, key=lambda m: m.ORDER))


def modules() -> list[ModuleType]:
    """Every result module, in registration order: the toolkit's by ``ORDER``, then the paper's by position."""
    from . import paper

    return [*_toolkit_modules(), *paper.modules()]


def module_names() -> tuple[str, ...]:
    """The toolkit's result modules (short names), in proof order."""
    return tuple(m.__name__.rsplit(".", 1)[-1] for m in _toolkit_modules())


def __getattr__(name: str):  # the registry used to be a tuple to edit; it is now discovered
    if name == "MODULES":
        return module_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@lru_cache(maxsize=1)
def _build() -> dict[str, Derivation]:
    out: dict[str, Derivation] = {}
    for mod in modules():
        mod_name = mod.__name__.rsplit(".", 1)[-1]
        for der in mod.derivations():
            if der.name in out:
                raise DerivationError(f"two derivations named {der.name!r} ({mod_name})")
            for dep in der.depends_on:
                if dep not in out:
                    raise DerivationError(f"{der.name!r} depends on {dep!r}, which is not registered before it")
            out[der.name] = der
    return out


def refresh() -> None:
    """Forget what discovery found (a module was added or removed while the process runs)."""
    _toolkit_modules.cache_clear()
    _build.cache_clear()


def names() -> list[str]:
    """All result names, in proof order."""
    return list(_build())


def get(name: str) -> Derivation:
    """The derivation called ``name``; ``UnknownResult`` lists the known names otherwise."""
    table = _build()
    if name not in table:
        raise UnknownResult(f"unknown result {name!r}; known results: {', '.join(table)}")
    return table[name]


def all_derivations() -> list[Derivation]:
    return list(_build().values())
