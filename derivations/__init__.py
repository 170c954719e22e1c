"""Symbolic derivations of the InfoNCE bounds: the step ledger and every result.

SymPy states and reduces the claims; mpmath gives the 50-digit spot-checks, confirmations and exact
finite models; python-flint (Arb) is the rigorous interval back end of every interval proof.

Design decision (issue 11): ``derivations/`` may import numpy *for the falsifier only*
(``checks/falsifier*.py``): claims are lambdified to numpy and evaluated on whole batches of points,
and every float-found violation is still confirmed at 50 digits with mpmath before a step is refuted.
Nothing that proves anything uses numpy; numba and ``numerics`` stay out of ``derivations/``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Derivation", "DerivationError", "Domain", "Step", "StepResult", "Verdict"]

#: the library of cited claims the engine reads when nothing installed one (``checks.library``): the run
#: layer's catalogue library. A name, not an import: the engine imports neither the runner nor the catalogue
DEFAULT_LIBRARY = "infonce_bounds.derivations.run.library:CatalogueLibrary"


def __getattr__(name: str) -> Any:  # PEP 562: the ledger (and SymPy) load on first use, so that
    # `infonce-bounds verify` can answer an unchanged catalogue from its cache without importing SymPy
    if name in __all__:
        from . import ledger

        return getattr(ledger, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
