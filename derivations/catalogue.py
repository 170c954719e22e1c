"""Ordered registry of every derivation: name → ``Derivation``, read by the CLI, README and tests.

Each module listed in ``MODULES`` defines ``derivations() -> list[Derivation]``. The order of
``MODULES`` is the order of the proof: later results depend on earlier ones. The paper's own results
follow, found in ``derivations/paper/`` and ordered by their position in the paper.
"""

from __future__ import annotations

import importlib
from functools import lru_cache

from .ledger import Derivation, DerivationError

MODULES: tuple[str, ...] = (
    "loss",
    "rewriting",
    "gateaux",
    "bias",
    "continuity",
    "rademacher",
    "theorem",
    "prior",
)


class UnknownResult(DerivationError):
    """A result name that the catalogue does not hold."""


@lru_cache(maxsize=1)
def _build() -> dict[str, Derivation]:
    from . import paper

    out: dict[str, Derivation] = {}
    mods = [importlib.import_module(f"{__package__}.{m}") for m in MODULES] + paper.modules()
    for mod in mods:
        mod_name = mod.__name__.rsplit(".", 1)[-1]
        for der in mod.derivations():
            if der.name in out:
                raise DerivationError(f"two derivations named {der.name!r} ({mod_name})")
            for dep in der.depends_on:
                if dep not in out:
                    raise DerivationError(f"{der.name!r} depends on {dep!r}, which is not registered before it")
            out[der.name] = der
    return out


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
