"""infonce-bounds: the InfoNCE bounds of Whiteley (arXiv 2607.09405), derived, checked and evaluated.

One import namespace with two subpackages:

* ``infonce_bounds.derivations``: SymPy derivations, one module per result, the step ledger and
  its checkers (no numpy, no numba);
* ``infonce_bounds.numerics``: numba kernels on embeddings, certified evaluation of constants,
  exact finite models, experiments and the ``infonce-bounds`` command line.

The names below are what a user calls; they are imported on first use, so ``import
infonce_bounds`` loads neither SymPy nor numba.

Environment. The library sets no process-wide variable. On a shared or small machine the kernels
run faster with ``OMP_WAIT_POLICY=passive`` and ``OPENBLAS_THREAD_TIMEOUT=4`` exported before
Python starts (the ``infonce-bounds`` command sets both when they are unset).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.2.0"

#: public name → (module, attribute)
_EXPORTS: dict[str, tuple[str, str]] = {
    # losses and kernels on embeddings
    "infonce_loss": ("infonce_bounds.numerics.api", "infonce_loss"),
    "infonce_risk": ("infonce_bounds.numerics.api", "infonce_risk"),
    "infonce_loss_pooled": ("infonce_bounds.numerics.api", "infonce_loss_pooled"),
    "infonce_loss_in_batch": ("infonce_bounds.numerics.api", "infonce_loss_in_batch"),
    "infonce_gradient": ("infonce_bounds.numerics.api", "infonce_gradient"),
    "softmax_weights": ("infonce_bounds.numerics.api", "softmax_weights"),
    "search_cross_entropy": ("infonce_bounds.numerics.api", "search_cross_entropy"),
    "risk": ("infonce_bounds.numerics.api", "risk"),
    # data-dependent terms of §4.2 and §5: B_τ of Lemma 1, Prop. 4 and (18), Theorem 1 on data
    "b_tau": ("infonce_bounds.numerics.api", "b_tau"),
    "prop4_bound": ("infonce_bounds.numerics.api", "prop4_bound"),
    "theorem1_bound": ("infonce_bounds.numerics.api", "theorem1_bound"),
    # exact finite models
    "FiniteModel": ("infonce_bounds.numerics.finite", "FiniteModel"),
    "ExactFiniteModel": ("infonce_bounds.numerics.finite", "ExactFiniteModel"),
    # constants, derivations, verification
    "constants": ("infonce_bounds._top", "constants"),
    "verify": ("infonce_bounds._top", "verify"),
    "check": ("infonce_bounds.derivations.userclaims", "check"),
    "catalogue": ("infonce_bounds.derivations.catalogue", None),
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:  # PEP 562: imported on first use
    if name in _EXPORTS:
        mod_name, attr = _EXPORTS[name]
        mod = importlib.import_module(mod_name)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'infonce_bounds' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
