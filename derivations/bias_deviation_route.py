"""The earlier ``O(k^{-1/2})`` route (ours, for contrast): ``E|log Z_k − log Z| ≤ (e^{2/τ} − 1)/(2√k)`` for τ > 0,
k ≥ 1 (log is e^{1/τ}-Lipschitz on [e^{−1/τ}, e^{1/τ}], then Cauchy–Schwarz and Popoviciu).
"""

from __future__ import annotations

import sympy as sp

from .bias_forms import (
    _DRAWS,
    _LAW,
    COSH_T,
    SINH_T,
    W_MAX,
    W_MIN,
    AbsDev,
    deviation_bound,
)
from .bias_laws import (
    _exp,
    _law_check,
)
from .bias_routes import deviation_route
from .ledger import Derivation, Domain, Step
from .symbols import TAU_RANGE, Z, k, tau


def _deviation() -> Derivation:
    dom = TAU_RANGE | Domain({Z: (0, sp.oo)})
    steps = [
        Step(
            "Popoviciu via Bhatia–Davis",
            (W_MAX - Z) * (Z - W_MIN),
            SINH_T**2,
            kind="inequality",
            relation="<=",
            domain=dom,
            certificate=(Z - COSH_T) ** 2,
        ),
        Step(
            "Lipschitz log and Cauchy–Schwarz",
            AbsDev(tau, k),
            deviation_bound(),
            kind="inequality",
            relation="<=",
            domain=_LAW | _DRAWS,
            provenance="classical",
            reference="|log u − log v| ≤ e^{1/τ}|u − v| on [e^{−1/τ}, e^{1/τ}]; E|Z_k − Z| ≤ (Var W/k)^{1/2}",
            route=deviation_route(_law_check, _exp),  # mean value, Cauchy–Schwarz, Popoviciu (bias_routes.py)
        ),
    ]
    return Derivation(
        "bias_deviation_route",
        "The O(k^{-1/2}) route of the earlier literature (for contrast)",
        steps,
        result="Lipschitz log and Cauchy–Schwarz",
        source="ours",
        summary="|R̃ − CE| ≤ E|log Z_k − log Z| ≤ (e^{2/τ} − 1)/(2√k): rate k^{-1/2} only.",
    )


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 45


def derivations() -> list[Derivation]:
    """The derivations of this module, in proof order."""
    return [_deviation()]
