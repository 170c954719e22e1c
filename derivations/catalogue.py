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
from collections.abc import Iterator
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


class _Registry:
    """What discovery has built so far: modules are built in order, each once, as they are asked for."""

    def __init__(self) -> None:
        self.table: dict[str, Derivation] = {}
        self.pending: list[ModuleType] | None = None  # modules not built yet (None: not discovered yet)

    def build_next(self) -> bool:
        """Build the next result module's derivations; False when every module is built."""
        if self.pending is None:
            self.pending = modules()
        if not self.pending:
            return False
        mod = self.pending[0]
        mod_name = mod.__name__.rsplit(".", 1)[-1]
        built = {}
        for der in mod.derivations():
            if der.name in self.table or der.name in built:
                raise DerivationError(f"two derivations named {der.name!r} ({mod_name})")
            for dep in der.depends_on:
                if dep not in self.table and dep not in built:
                    raise DerivationError(f"{der.name!r} depends on {dep!r}, which is not registered before it")
            built[der.name] = der
        self.table.update(built)  # a module that fails leaves nothing half-registered
        self.pending.pop(0)
        return True


_REG = _Registry()


def _build() -> dict[str, Derivation]:
    while _REG.build_next():
        pass
    return _REG.table


def iter_derivations() -> Iterator[Derivation]:
    """Every derivation in registration order, each result module built only when the iteration reaches it.

    ``verify`` starts checking the first derivations while the later ones are still being built; what has
    been built stays built (``all_derivations`` afterwards builds nothing twice).
    """
    i = 0
    while True:
        items = list(_REG.table.values())
        yield from items[i:]
        i = len(items)
        if not _REG.build_next():
            return


def refresh() -> None:
    """Forget what discovery found (a module was added or removed while the process runs)."""
    global _REG
    _toolkit_modules.cache_clear()
    _REG = _Registry()


def names() -> list[str]:
    """All result names, in proof order."""
    return list(_build())


def get(name: str) -> Derivation:
    """The derivation called ``name``; ``UnknownResult`` lists the known names otherwise."""
    while name not in _REG.table and _REG.build_next():  # build only as far as the module that defines it
        pass
    table = _REG.table
    if name not in table:
        raise UnknownResult(f"unknown result {name!r}; known results: {', '.join(table)}")
    return table[name]


def all_derivations() -> list[Derivation]:
    return list(_build().values())
