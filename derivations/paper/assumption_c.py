"""Assumption (C) (§4.2): Z = R^{d_in}; Θ = {θ ∈ R^{d_Θ} : ‖θ − θ₀‖₂ ≤ R} (19); for all θ, θ' ∈ Θ and z ∈ Z,

  ‖φ_θ(z) − φ_θ'(z)‖₂ ≤ C_Φ ‖z‖₂ ‖θ − θ'‖₂,   φ_θ ∈ B(Z, S^{d−1}).

Two consequences are checked here: the diameter of Θ is 2R (not R: see Prop. 5's erratum), and the §5 remark
that a bias-free network satisfies (C). That remark fails: a sphere-valued φ_θ = f_θ/‖f_θ‖ built from a bias-free
(positively homogeneous) network has φ_θ(cz) = φ_θ(z) for c > 0, so (C) at cz forces φ_θ(z) = φ_θ'(z) as c → 0 —
(C) then holds only for classes that do not depend on θ; the unnormalised network satisfies the Lipschitz bound
but is not sphere-valued (f_θ(0) = 0). The smallest instance (one linear layer, d_in = 1, d = 2) is checked.
"""

from __future__ import annotations

import sympy as sp

from ..ledger import Derivation, Domain, Step
from ..render import printed
from ..symbols import C_Phi, D_anc, R, dtheta, t_line, t_line2, theta_off, z_norm
from . import Erratum

POSITION = (4, 2, 0)

_LINE = Domain({R: (sp.Rational(1, 1000), 1000), t_line: (-1, 1), t_line2: (-1, 1)}, name="R > 0, t, t' ∈ [−1, 1]")
_NET = Domain(
    {R: (sp.Rational(1, 1000), 1000), z_norm: (sp.Rational(1, 10**9), 1), C_Phi: (sp.Rational(1, 1000), 10**6)},
    name="R ∈ [1e-3, 1e3], ‖z‖ ∈ [1e-9, 1], C_Φ ∈ [1e-3, 1e6]",
)


def _normalised(theta1: sp.Expr, zz: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """φ_θ(z) = θz/‖θz‖ for the one-layer bias-free network f_θ(z) = θz, θ = (θ₁, 0) ∈ R², z ∈ R."""
    nrm = sp.Abs(theta1 * zz)
    return theta1 * zz / nrm, sp.Integer(0)


def derivations() -> list[Derivation]:
    u1, u2 = _normalised(R, z_norm)
    w1, w2 = _normalised(-R, z_norm)
    steps = [
        Step(
            "(19): θ ∈ Θ on a line through θ₀: θ = θ₀ + R t u, ‖u‖ = 1, |t| ≤ 1, so ‖θ − θ₀‖ = R|t|",
            theta_off,
            R * sp.Abs(t_line),
            kind="definition",
            domain=Domain({**_LINE.ranges, theta_off: (0, sp.oo)}),
            provenance="paper",
            reference="(19)",
        ),
        Step(
            "(C): ‖φ_θ(z) − φ_θ'(z)‖₂ ≤ C_Φ ‖z‖₂ ‖θ − θ'‖₂ (the bound, named D)",
            D_anc,
            C_Phi * z_norm * dtheta,
            kind="definition",
            domain=Domain({D_anc: (0, 2), C_Phi: (0, sp.oo), z_norm: (0, sp.oo), dtheta: (0, sp.oo)}),
            provenance="paper",
            reference="assumption (C)",
        ),
        Step(
            "ours: ‖θ − θ'‖ = R|t − t'| ≤ 2R on Θ (the diameter of Θ is 2R)",
            R * (t_line - t_line2),
            2 * R,
            kind="inequality",
            relation="<=",
            domain=_LINE,
            provenance="ours",
            reference="(19)",
            note="stated for t − t' ≥ 0; the other sign is the same claim with t and t' swapped",
        ),
        Step(
            "ours: the diameter 2R is attained: θ = θ₀ + Ru, θ' = θ₀ − Ru",
            # ‖θ − θ'‖ = R|t − t'| at the two ends t = 1, t' = −1 of the diameter
            printed(
                sp.Subs(R * sp.Abs(t_line - t_line2), (t_line, t_line2), (1, -1)),
                (R * sp.Abs(t_line - t_line2)).subs({t_line: 1, t_line2: -1}),
            ),
            2 * R,
            domain=_LINE,
            provenance="ours",
            reference="(19)",
        ),
        Step(
            "§5 remark: a bias-free network normalised onto S^{d−1} satisfies (C) "
            "(one layer: θ = (R, 0), θ' = (−R, 0), z > 0: 2 ≤ C_Φ z · 2R)",
            sp.sqrt((u1 - w1) ** 2 + (u2 - w2) ** 2),
            C_Phi * z_norm * 2 * R,
            kind="inequality",
            relation="<=",
            domain=_NET,
            provenance="paper",
            reference="§5, 'Neural networks': (C) is satisfied by a fully connected MLP with zero biases",
            expected="refuted",
            note="the left side is 2 for every z > 0 (positive homogeneity), the right side → 0 as z → 0",
        ),
        Step(
            "ours: the unnormalised network f_θ(z) = θz meets the Lipschitz bound with C_Φ = 1 "
            "(‖f_θ(z) − f_θ'(z)‖ = |z|‖θ − θ'‖) but ‖f_θ(z)‖ = R|z| ≠ 1: it is not in B(Z, S^{d−1})",
            # |f_θ(z) − f_θ'(z)| at θ = R, θ' = −R, as |Rz − (−R)z|
            printed(
                sp.Abs(sp.Add(R * z_norm, -sp.Mul(sp.UnevaluatedExpr(-R), z_norm, evaluate=False), evaluate=False)),
                sp.Abs(R * z_norm - (-R) * z_norm),
            ),
            z_norm * 2 * R,
            domain=_NET,
            provenance="ours",
        ),
    ]
    return [
        Derivation(
            "assumption_c",
            "Assumption (C): Θ a ball of radius R, ‖φ_θ(z) − φ_θ'(z)‖ ≤ C_Φ ‖z‖ ‖θ − θ'‖",
            steps,
            result="ours: ‖θ − θ'‖ = R|t − t'| ≤ 2R on Θ (the diameter of Θ is 2R)",
            source="paper",
            paper_claim="(C) The input space is R^{d_in}; Θ = {‖θ − θ₀‖₂ ≤ R} (19); ‖φ_θ(z) − φ_θ'(z)‖₂ ≤ C_Φ‖z‖₂‖θ − θ'‖₂",
            summary="The diameter of Θ is 2R. The §5 claim that bias-free MLPs satisfy (C) fails for every "
            "sphere-valued (normalised) such network that depends on θ.",
        )
    ]


ERRATA = [
    Erratum(
        location="§5 'Neural networks' (remark on assumption (C))",
        as_printed="assumption (C) is satisfied if φ is a fully connected multilayer perceptron with: Euclidean input "
        "domain; a 1-Lipschitz activation function such as ReLU; zero biases; weights constrained …",
        kind="hypothesis not met",
        result="assumption_c",
        printed_step="§5 remark: a bias-free network normalised onto S^{d−1} satisfies (C) "
        "(one layer: θ = (R, 0), θ' = (−R, 0), z > 0: 2 ≤ C_Φ z · 2R)",
        corrected_step="ours: the unnormalised network f_θ(z) = θz meets the Lipschitz bound with C_Φ = 1 "
        "(‖f_θ(z) − f_θ'(z)‖ = |z|‖θ − θ'‖) but ‖f_θ(z)‖ = R|z| ≠ 1: it is not in B(Z, S^{d−1})",
        correction="an MLP output is not on S^{d−1}; normalised, a bias-free (positively homogeneous) network has "
        "φ_θ(cz) = φ_θ(z), and (C) at cz → 0 forces φ_θ = φ_θ' on z ≠ 0. (C) needs a class whose outputs at "
        "small ‖z‖ barely move with θ (e.g. a non-homogeneous last layer); the Lipschitz bound alone holds for f_θ",
        consequence="Lemma 1, Prop. 5 and Theorem 1 are unaffected as stated, but do not apply to the class the "
        "remark names",
    )
]
