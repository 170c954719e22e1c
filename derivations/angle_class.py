"""Assumption (C) for the angle class (ours): φ_θ(z) = (cos⟨θ, z⟩, sin⟨θ, z⟩) ∈ S¹, θ, z ∈ R^{d_in}, d_Θ = d_in:

  ‖φ_θ(z) − φ_θ'(z)‖₂ = 2|sin(⟨θ − θ', z⟩/2)| ≤ |⟨θ − θ', z⟩| ≤ C_Φ ‖z‖₂ ‖θ − θ'‖₂  with C_Φ = 1,

for every z ∈ R^{d_in} and θ, θ' ∈ R^{d_Θ} (so on any ball Θ of (19)), and C_Φ = 1 is the smallest constant.

Why this class: the §5 remark that normalised bias-free networks satisfy (C) fails (``derivations.paper.
assumption_c``: they are positively homogeneous in z), and a pure rotation of all embeddings leaves every loss
unchanged (useless for ERM). Here each input is turned by its own angle ⟨θ, z⟩, which vanishes with z: (C)
holds on all of R^{d_in}, and different θ give different losses. The experiment ``theorem`` uses it with
d_in = d_Θ = 2 (``numerics.experiments.theorem``).

Proof, one step each: the embedding is a unit vector; the chord identity (cos(ψ + α) − cos ψ)² + (sin(ψ + α) −
sin ψ)² = 4 sin²(α/2); 2 sin(α/2) ≤ α and −2 sin(α/2) ≤ α for α ≥ 0 (both gaps vanish at 0 and have the
derivatives 2 sin²(α/4) ≥ 0 and 2 cos²(α/4) ≥ 0), so 2|sin(α/2)| ≤ α; Cauchy–Schwarz |⟨Δθ, z⟩| ≤ ‖Δθ‖‖z‖
(in R² by Lagrange's identity); together (C) with C_Φ = 1; and 2 sin(α/2)/α → 1 as α → 0, so no C_Φ < 1 works.
"""

from __future__ import annotations

import sympy as sp

from .ledger import Derivation, Domain, Step
from .paper._gen import all_of
from .results import ClosedForm
from .symbols import ang, dth1, dth2, dtheta, phase, t_line, z_norm, zc1, zc2

ORDER = 87  # after prior (80): a model for the experiments, used by nothing in the proof chain

#: the constant of (C) for the angle class, proved below
C_PHI = sp.Integer(1)

_ANG = Domain({ang: (0, sp.oo)}, name="α = |⟨θ − θ', z⟩| ≥ 0")
_REAL = Domain({phase: (-sp.oo, sp.oo), ang: (0, sp.oo)}, name="ψ real, α ≥ 0")
_R2 = Domain(
    {dth1: (-sp.oo, sp.oo), dth2: (-sp.oo, sp.oo), zc1: (-sp.oo, sp.oo), zc2: (-sp.oo, sp.oo)}, name="θ − θ', z ∈ R²"
)
#: (C) itself: ‖z‖ and ‖θ − θ'‖ over wide ranges, t = |⟨θ − θ', z⟩|/(‖θ − θ'‖‖z‖) ∈ [0, 1] (Cauchy–Schwarz)
_C = Domain(
    {z_norm: (sp.Rational(1, 10**6), 10**3), dtheta: (0, 10**3), t_line: (0, 1)},
    name="‖z‖ ∈ [1e-6, 1e3], ‖θ − θ'‖ ∈ [0, 1e3], t ∈ [0, 1]",
)


def angle_embedding(theta_dot_z: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """φ_θ(z) = (cos⟨θ, z⟩, sin⟨θ, z⟩) ∈ S¹, from the angle ⟨θ, z⟩ (any real)."""
    return sp.cos(theta_dot_z), sp.sin(theta_dot_z)


def half_chord_upper() -> Step:
    """2 sin(α/2) ≤ α for α ≥ 0."""
    return Step(
        "2 sin(α/2) ≤ α for α ≥ 0 (the gap vanishes at 0, its derivative is 2 sin²(α/4) ≥ 0)",
        2 * sp.sin(ang / 2),
        ang,
        kind="inequality",
        relation="<=",
        domain=_ANG,
        provenance="classical",
        reference="|sin x| ≤ |x| (e.g. Abramowitz & Stegun 4.3.79)",
        route=("monotone", {"end": 0, "derivative": 2 * sp.sin(ang / 4) ** 2, "var": ang}),
    )


def half_chord_lower() -> Step:
    """−2 sin(α/2) ≤ α for α ≥ 0."""
    return Step(
        "−2 sin(α/2) ≤ α for α ≥ 0 (the gap vanishes at 0, its derivative is 2 cos²(α/4) ≥ 0)",
        -2 * sp.sin(ang / 2),
        ang,
        kind="inequality",
        relation="<=",
        domain=_ANG,
        provenance="classical",
        reference="|sin x| ≤ |x| (e.g. Abramowitz & Stegun 4.3.79)",
        route=("monotone", {"end": 0, "derivative": 2 * sp.cos(ang / 4) ** 2, "var": ang}),
    )


def cauchy_schwarz() -> Step:
    """⟨Δθ, z⟩² ≤ ‖Δθ‖²‖z‖² in R², by Lagrange's identity."""
    return Step(
        "Cauchy–Schwarz in R²: ⟨θ − θ', z⟩² ≤ ‖θ − θ'‖²‖z‖² (gap = (Δθ₁z₂ − Δθ₂z₁)², Lagrange's identity)",
        (dth1 * zc1 + dth2 * zc2) ** 2,
        (dth1**2 + dth2**2) * (zc1**2 + zc2**2),
        kind="inequality",
        relation="<=",
        certificate=(dth1 * zc2 - dth2 * zc1) ** 2,
        domain=_R2,
        provenance="classical",
        reference="Cauchy–Schwarz inequality (Lagrange's identity in R²)",
    )


def condition_c(c_phi: sp.Expr = C_PHI) -> Step:
    """(C) for the angle class with constant ``c_phi``: 2|sin(‖z‖‖Δθ‖t/2)| ≤ c_phi ‖z‖ ‖Δθ‖, t ∈ [0, 1]."""
    parts = [half_chord_upper(), half_chord_lower(), cauchy_schwarz()]
    return Step(
        f"(C) for the angle class: ‖φ_θ(z) − φ_θ'(z)‖ = 2|sin(α/2)| ≤ α ≤ {c_phi}·‖z‖‖θ − θ'‖, "
        "α = ‖z‖‖θ − θ'‖t, t ∈ [0, 1]",
        2 * sp.Abs(sp.sin(z_norm * dtheta * t_line / 2)),
        c_phi * z_norm * dtheta,
        kind="inequality",
        relation="<=",
        domain=_C,
        provenance="ours",
        reference="assumption (C) (§4.2)",
        # proved on the stated box (the conjunction's cover); the argument itself holds for every ‖z‖, ‖θ − θ'‖ ≥ 0
        check=all_of(
            parts,
            "2|sin(α/2)| ≤ α from its two signs, α ≤ ‖z‖‖Δθ‖ by Cauchy–Schwarz",
            subs=[{ang: z_norm * dtheta * t_line}, {ang: z_norm * dtheta * t_line}, None],
        ),
        note="t = |⟨θ − θ', z⟩|/(‖θ − θ'‖‖z‖) ≤ 1 is the Cauchy–Schwarz step; the falsifier attacks the claim itself",
    )


def derivations() -> list[Derivation]:
    c1, s1 = angle_embedding(phase + ang)
    c0, s0 = angle_embedding(phase)
    steps = [
        Step(
            "φ_θ(z) = (cos⟨θ, z⟩, sin⟨θ, z⟩) is a unit vector: φ_θ ∈ B(R^{d_in}, S¹)",
            c1**2 + s1**2,
            1,
            domain=_REAL,
            provenance="ours",
        ),
        Step(
            "chord: ‖φ_θ(z) − φ_θ'(z)‖² = (cos(ψ + α) − cos ψ)² + (sin(ψ + α) − sin ψ)² = 4 sin²(α/2), "
            "ψ = ⟨θ', z⟩, α = ⟨θ − θ', z⟩",
            (c1 - c0) ** 2 + (s1 - s0) ** 2,
            4 * sp.sin(ang / 2) ** 2,
            domain=_REAL,
            provenance="ours",
            simplifier=lambda e: sp.simplify(sp.expand_trig(sp.expand(e))),
        ),
        half_chord_upper(),
        half_chord_lower(),
        cauchy_schwarz(),
        condition_c(),
        Step(
            "C_Φ = 1 is the smallest constant: 2 sin(α/2)/α → 1 as α → 0",
            2 * sp.sin(ang / 2) / ang,
            1,
            kind="limit",
            var=ang,
            point=0,
            domain=_ANG,
            provenance="ours",
        ),
    ]
    return [
        Derivation(
            "angle_class",
            "Assumption (C) for φ_θ(z) = (cos⟨θ, z⟩, sin⟨θ, z⟩): C_Φ = 1 on all of R^{d_in}",
            steps,
            result=condition_c().name,
            source="ours",
            summary="The angle class satisfies (C) with C_Φ = 1 for every z and θ; no smaller constant works. "
            "The experiment `theorem` uses it with d_Θ = 2.",
        )
    ]


CLOSED_FORMS = [
    ClosedForm(
        "angle_class_C_Phi",
        "C_Φ of the angle class φ_θ(z) = (cos⟨θ, z⟩, sin⟨θ, z⟩)",
        lambda: C_PHI,
        "ours",
        "independent of k, n, τ",
        show="angle_class",
        note="(C) proved on all of R^{d_in}; the smallest constant (tight as ⟨θ − θ', z⟩ → 0)",
    ),
]
