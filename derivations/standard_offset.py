"""InfoNCE risk R vs DCL risk R̃ (ours): ``R_std,k − log k − R̃ ∈ [log(1 + e^{−2/τ}/k), log(1 + e^{2/τ}/k)]
⊂ [0, e^{2/τ}/k]`` for τ > 0, k ≥ 1: the expectation of the pointwise relation proved in derivation ``loss``.
"""

from __future__ import annotations

import sympy as sp

from .bias_forms import (
    _DRAWS,
    _LAW,
    _expect_route,
    standard_offset_bound,
    standard_offset_lower,
)
from .bias_laws import (
    _law_check,
    _softplus,
)
from .ledger import Derivation, Step
from .symbols import k, tau


def _offset() -> Derivation:
    off = sp.Function("E_offset")
    steps = [
        Step(
            "expected offset, upper end",
            off(tau, k),
            standard_offset_bound(),
            kind="inequality",
            relation="<=",
            domain=_LAW | _DRAWS,
            route=_expect_route(
                "pointwise",
                _law_check(
                    lambda L, tv, kv, sm: (sm["offset_hi"], _softplus(L, 2 / tv - L.log(kv))),
                    "pointwise bound of derivation `loss`, taken at s⁺ = 1",
                ),
            ),
            note="R − R̃ = E[ℓ − ℓ̃] = E log(1 + e^{s⁺/τ}/(k Z_k)); pointwise bounds: derivation `loss`",
        ),
        Step(
            "expected offset, lower end",
            off(tau, k),
            standard_offset_lower(),
            kind="inequality",
            relation=">=",
            domain=_LAW | _DRAWS,
            route=_expect_route(
                "pointwise",
                _law_check(
                    lambda L, tv, kv, sm: (_softplus(L, -2 / tv - L.log(kv)), sm["offset_lo"]),
                    "pointwise bound of derivation `loss`, taken at s⁺ = −1",
                ),
            ),
        ),
    ]
    return Derivation(
        "standard_offset",
        "InfoNCE risk R (2) vs DCL risk R̃: the expected offset R − R̃ = R_std − log k − R̃",
        steps,
        result="expected offset, upper end",
        source="ours",
        depends_on=("loss",),
        summary="0 < log(1 + e^{−2/τ}/k) ≤ R_std,k − log k − R̃ ≤ log(1 + e^{2/τ}/k) ≤ e^{2/τ}/k.",
    )


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 44


def derivations() -> list[Derivation]:
    """The derivations of this module, in proof order."""
    return [_offset()]
