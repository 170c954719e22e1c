"""Sign of the finite-k bias (ours): ``CE − R̃ = E_x[log Z(x) − E log Z_k(x)] ≥ 0`` for τ > 0, k ≥ 1.

Jensen's inequality for the concave log, through ``log u ≤ u − 1`` at ``u = Z_k/Z`` (``E U = 1``); equality iff W is
a.s. constant. Notation: ``derivations.bias_forms``.
"""

from __future__ import annotations

import sympy as sp

from .bias_forms import (
    _DRAWS,
    _LAW,
    _U_POS,
    _V_JENSEN,
    _ZK,
    BiasGap,
    ElogZk,
    _expect_route,
)
from .bias_laws import (
    _law_check,
)
from .ledger import Derivation, Domain, Step
from .symbols import Z, k, tau, u


def _sign() -> Derivation:
    steps = [
        Step(
            "bias of one anchor",
            BiasGap(tau, k),
            sp.log(Z) - ElogZk(tau, k),
            kind="definition",
            domain=_LAW | Domain({Z: (0, sp.oo)}),
            note="CE − R̃ = E_x[log Z(x) − E log Z_k(x)]; the loss terms −s⁺/τ cancel exactly",
        ),
        Step(
            "log u ≤ u − 1",
            sp.log(u),
            u - 1,
            kind="inequality",
            relation="<=",
            provenance="classical",
            reference="concavity of log (tangent at u = 1)",
            # all u > 0: it is used at u = Z_k/Z ∈ [e^{−2/τ}, e^{2/τ}], beyond any finite box for small τ
            domain=_U_POS,
        ),
        Step(
            "Jensen: CE − R̃ ≥ 0",
            BiasGap(tau, k),
            0,
            kind="inequality",
            relation=">=",
            domain=_LAW | _DRAWS,
            route=_expect_route(
                "jensen",
                _law_check(
                    lambda L, tv, kv, sm: (0 * sm["gap"], sm["gap"]), "take u = Z_k/Z, E U = 1: E log U ≤ E U − 1 = 0"
                ),
                phi=sp.Lambda(_V_JENSEN, sp.log(_V_JENSEN)),
                inner=_ZK,
            ),
            note="in expectation over k draws; equality iff W is a.s. constant",
        ),
    ]
    return Derivation(
        "bias_sign",
        "Sign of the finite-k bias: R̃ ≤ CE",
        steps,
        result="Jensen: CE − R̃ ≥ 0",
        source="ours",
        summary="Jensen's inequality for the concave log: the DCL risk R̃ never exceeds the cross-entropy.",
    )


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 40


def derivations() -> list[Derivation]:
    """The derivations of this module, in proof order."""
    return [_sign()]
