"""The library a citing check reads: what the engine asks of the run layer, without importing it.

``Library`` is the contract: ``derivation(name)`` (a ``Derivation`` by name, ``DerivationError`` when there is
none), ``cached(der, step, opts)`` (a stored ``StepResult`` of that step checked with ``opts``, or ``None``),
``key(step, opts)`` (the content key of ``step`` checked with ``opts``: equal keys, equal verdicts) and
``memo_load(key)`` / ``memo_store(key, result)`` (the ``StepResult`` s the running ``verify`` shares between its
workers; ``None`` / nothing outside a run); ``begin(step, opts)`` / ``end()`` bracket the check of one outermost
chain (the library may compute the keys of every derivation it cites at once, and forgets them after).

The engine (``checks/``) imports neither the catalogue nor the runner: a library is *installed*. The run layer
installs its ``CatalogueLibrary`` (citations resolve against the catalogue) before every run; when the engine is used on its own and nothing is installed yet, ``current()`` installs the
one the package names in ``infonce_bounds.derivations.DEFAULT_LIBRARY`` ("module:Class", configuration of the
package root, not an import of the engine). Where that names nothing, a chain's citation resolves to nothing
(the chain is refuted as citing a missing derivation, never proved) and nothing is cached.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ..ledger import Derivation, DerivationError, Step, StepResult


class Library(Protocol):
    def derivation(self, name: str) -> Derivation: ...

    def cached(self, der: Derivation, step: Step, opts: Mapping[str, Any]) -> StepResult | None: ...

    def key(self, step: Step, opts: Mapping[str, Any]) -> str | None: ...

    def memo_load(self, key: str) -> StepResult | None: ...

    def memo_store(self, key: str, result: StepResult) -> None: ...

    def begin(self, step: Step, opts: Mapping[str, Any]) -> None: ...

    def end(self) -> None: ...


class _Empty:
    """No library installed: nothing to cite, nothing cached."""

    def derivation(self, name: str) -> Derivation:
        raise DerivationError(f"no library of cited claims is installed (derivation {name!r} is unknown)")

    def cached(self, der: Derivation, step: Step, opts: Mapping[str, Any]) -> StepResult | None:
        return None

    def key(self, step: Step, opts: Mapping[str, Any]) -> str | None:
        return None

    def memo_load(self, key: str) -> StepResult | None:
        return None

    def memo_store(self, key: str, result: StepResult) -> None:
        return None

    def begin(self, step: Step, opts: Mapping[str, Any]) -> None:
        return None

    def end(self) -> None:
        return None


_INSTALLED: list[Library | None] = [None]


def install(library: Library) -> Library:
    """Make ``library`` the one citing checks read; returns the one it replaces."""
    previous = current()
    _INSTALLED[0] = library
    return previous


def current() -> Library:
    """The installed library; the package's default (``DEFAULT_LIBRARY``) when none is, else an empty one."""
    if _INSTALLED[0] is None:
        _INSTALLED[0] = _default()
    return _INSTALLED[0]


def _default() -> Library:
    import importlib

    spec = getattr(importlib.import_module(__name__.rsplit(".", 2)[0]), "DEFAULT_LIBRARY", None)
    if not spec:
        return _Empty()
    module, _, cls = spec.partition(":")
    return getattr(importlib.import_module(module), cls)()
