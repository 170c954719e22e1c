"""Re-entry into the engine from inside a check: ``check_step(step, **opts)`` and ``prove_by_routes(...)`` for
the checkers whose claims have parts that are claims again.

A chain checks its cited steps, a conjunction its parts, ``Derivation.verify`` each of its steps (all through
the package's dispatcher ``checks.check_step``), and the inequality checker tries the route registry
(``checks.routes``), whose hinted routes use the inequality checker on their certificates. Those calls recurse;
the imports need not: this module imports nothing of the engine, and the package (``checks/__init__``) installs
itself here when it is imported, which any import of a ``checks`` module does first. So the engine's import
graph, counting the imports inside functions, has no cycle (``tests/test_import_graph.py``), while every call
still goes to the package's ``check_step`` as it stands when called (a test that patches
``checks.check_step`` patches the recursion too, as the former function-level ``from . import check_step``
did).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

_ENGINE: list[ModuleType] = []


def install(package: ModuleType) -> None:
    """Called once by ``checks/__init__``: ``package`` provides ``check_step`` and the ``routes`` registry."""
    _ENGINE[:] = [package]


def _engine() -> ModuleType:
    if not _ENGINE:  # pragma: no cover - importing this module imports the package first
        raise RuntimeError("the checks package is not installed (import infonce_bounds.derivations.checks)")
    return _ENGINE[0]


def check_step(step: Any, **options: Any) -> Any:
    """The package's dispatcher ``checks.check_step(step, **options)``, looked up when called."""
    return _engine().check_step(step, **options)


def prove_by_routes(step: Any, strict: bool, opts: Any, run: Any) -> Any:
    """``checks.routes.prove_by_routes``: the first route that proves ``step``, and notes (see there)."""
    return _engine().routes.prove_by_routes(step, strict, opts, run)
