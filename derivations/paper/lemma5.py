"""Lemma 5 (appendix B): |ℓ(φ, z, k, τ) − ℓ(φ', z, k, τ)| ≤ 4/τ for every k ≥ 1, τ > 0, z ∈ Z^{2+k}, φ, φ' ∈ B(Z, S^{d−1}).

The printed proof bounds ℓ between a = log(1/k + e^{−2/τ}) and b = log(1/k + e^{2/τ}) and then b − a by 4/τ:

  b − a = log((1 + k e^{2/τ})/(1 + k e^{−2/τ})) = log(e^{2/τ}(1 + k e^{2/τ})/(e^{2/τ} + k))
        ≤ log(e^{2/τ}(e^{2/τ} + k e^{2/τ})/(1 + k)) = 4/τ.

Every line holds (checked below). Ours: b − a itself is the exact range — attained by s_j ≡ 1, s⁺ = −1 against
s_j ≡ −1, s⁺ = 1 (φ(z_j⁻) = φ(zᵃ) = −φ(z⁺) against φ'(z_j⁻) = −φ'(zᵃ), φ'(z⁺) = φ'(zᵃ)) — and it is below 4/τ
for every finite k: about 2/τ + log k for small τ (half the paper's), (4/τ)·k/(k + 1) for large τ. The paper's
4/τ is the supremum of b − a over k (k → ∞), never attained.
"""

from __future__ import annotations

import sympy as sp

from ..checks import conjunction as _conj
from ..ledger import Derivation, Domain, Step
from ..symbols import TAU_MAX, TAU_MIN, eps_k, j, k, s, s_pos, s_pos_prime, s_prime, tau, x
from . import PaperConstant, _gen

POSITION = (4, 1, 0)  # stated in appendix B; placed before Prop. 3, whose proof uses it

_E2 = sp.exp(2 / tau)


def loss(sims: sp.Expr = s, sp_: sp.Expr = s_pos) -> sp.Expr:
    """ℓ(φ, z, k, τ) of (14) in the similarities s_j = ⟨φ(zᵃ), φ(z_j⁻)⟩, s⁺ = ⟨φ(zᵃ), φ(z⁺)⟩."""
    return sp.log(1 / k + sp.Sum(sp.exp((sims[j] - sp_) / tau), (j, 1, k)) / k)


def _constant_loss(sj: int, sp_: int) -> sp.Expr:
    """ℓ when every s_j equals ``sj`` and s⁺ = ``sp_`` (the k equal summands added up)."""
    return sp.log(1 / k + sp.exp(sp.Integer(sj - sp_) / tau))


def attained_range() -> sp.Expr:
    """ℓ at s_j ≡ 1, s⁺ = −1 minus ℓ at s_j ≡ −1, s⁺ = 1: the largest change of the loss."""
    return _constant_loss(1, -1) - _constant_loss(-1, 1)


def tight_step(bound: sp.Expr) -> Step:
    """'the attained change ≤ bound': proved for bound = b − a; refuted for anything lower."""
    return Step(
        "ours: the range b − a is attained (s_j ≡ 1, s⁺ = −1 against s_j ≡ −1, s⁺ = 1)",
        attained_range(),
        bound,
        kind="inequality",
        relation="<=",
        domain=_gen.TAU_K,
        provenance="ours",
        reference="Lemma 5",
    )


def _sims_domain(extra: dict | None = None) -> Domain:
    return Domain(
        {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1), s_pos: (-1, 1), **(extra or {})},
        name="τ ∈ [1e-3, 1e2], k ≥ 1, s_j, s⁺ ∈ [−1, 1]",
    )


def _log_ratio_route(name: str, gap: sp.Expr, num: sp.Expr, den: sp.Expr, domain: Domain) -> tuple:
    """The conjunction hint proving ``gap ≥ 0`` as ``gap = log(1 + num/den)``, ``num ≥ 0``, ``den > 0``
    (``_gen.log_ratio_parts``; the identity's simplifier by name, the implication a rewrite by the sign facts)."""
    return _conj.hint(
        _gen.log_ratio_parts(name, gap, num, den, domain, "Lemma 5"),
        "gap = log(1 + N/D), N ≥ 0, D > 0",
        simplify={f"{name}: gap = log(1 + N/D)": "expand_log"},
        implication="rewrite",
    )


def derivations() -> list[Derivation]:
    b_minus_a = _gen.loss_hi() - _gen.loss_lo()
    steps = [
        Step(
            "each summand: e^{(s_j − s⁺)/τ} ≤ e^{2/τ} since |⟨φ(zᵃ), φ(z)⟩| ≤ 1",
            sp.exp((x - s_pos) / tau),
            _E2,
            kind="inequality",
            relation="<=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), x: (-1, 1), s_pos: (-1, 1)}, name="τ, s_j, s⁺ ∈ [−1, 1]"),
            provenance="paper",
            reference="Lemma 5, proof (‖φ‖_{2,∞} = 1)",
        ),
        Step(
            "each summand: e^{(s_j − s⁺)/τ} ≥ e^{−2/τ}",
            sp.exp((x - s_pos) / tau),
            sp.exp(-2 / tau),
            kind="inequality",
            relation=">=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), x: (-1, 1), s_pos: (-1, 1)}, name="τ, s_j, s⁺ ∈ [−1, 1]"),
            provenance="paper",
            reference="Lemma 5, proof (‖φ‖_{2,∞} = 1)",
        ),
        Step(
            "upper end: ℓ(φ, z, k, τ) ≤ log(1/k + e^{2/τ}) = b",
            loss(),
            _gen.loss_hi(),
            kind="inequality",
            relation="<=",
            domain=_sims_domain(),
            provenance="paper",
            reference="Lemma 5, proof, first display; proof of Prop. 3 (b)",
        ),
        Step(
            "lower end: ℓ(φ, z, k, τ) ≥ log(1/k + e^{−2/τ}) = a",
            loss(),
            _gen.loss_lo(),
            kind="inequality",
            relation=">=",
            domain=_sims_domain(),
            provenance="paper",
            reference="Lemma 5, proof, first display; proof of Prop. 3 (a)",
        ),
        Step(
            "b − a = log((1 + k e^{2/τ})/(1 + k e^{−2/τ}))",
            b_minus_a,
            sp.log((1 + k * _E2) / (1 + k / _E2)),
            domain=_gen.TAU_K,
            provenance="paper",
            reference="Lemma 5, proof, second display, first line",
            simplifier=lambda e: sp.simplify(sp.expand_log(e)),
        ),
        Step(
            "= log(e^{2/τ} (1 + k e^{2/τ})/(e^{2/τ} + k))",
            sp.log((1 + k * _E2) / (1 + k / _E2)),
            sp.log(_E2 * (1 + k * _E2) / (_E2 + k)),
            domain=_gen.TAU_K,
            provenance="paper",
            reference="Lemma 5, proof, second display, second line",
            simplifier=lambda e: sp.simplify(sp.expand_log(e)),
        ),
        Step(
            "≤ log(e^{2/τ} (e^{2/τ} + k e^{2/τ})/(1 + k)), using e^{2/τ} ≥ 1",
            sp.log(_E2 * (1 + k * _E2) / (_E2 + k)),
            sp.log(_E2 * (_E2 + k * _E2) / (1 + k)),
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_K,
            provenance="paper",
            reference="Lemma 5, proof, second display, third line",
            note="tight as k → ∞; the gap is log(1 + (e^{4/τ} − 1)/(1 + k e^{2/τ}))",
            route=_log_ratio_route(
                "Lemma 5 third line",
                sp.log(_E2 * (_E2 + k * _E2) / (1 + k)) - sp.log(_E2 * (1 + k * _E2) / (_E2 + k)),
                sp.exp(4 / tau) - 1,
                1 + k * _E2,
                _gen.TAU_K,
            ),
        ),
        Step(
            "log(e^{2/τ} (e^{2/τ} + k e^{2/τ})/(1 + k)) = 4/τ",
            sp.log(_E2 * (_E2 + k * _E2) / (1 + k)),
            4 / tau,
            domain=_gen.TAU_K,
            provenance="paper",
            reference="Lemma 5, proof, second display, last equality",
            simplifier=lambda e: sp.simplify(sp.expand_log(sp.factor(e))),
        ),
        Step(
            "ours: b − a = 2/τ + log(k + e^{−2/τ}) − log(1 + k e^{−2/τ}) (float-stable form)",
            b_minus_a,
            _gen.loss_range(),
            domain=_gen.TAU_K,
            provenance="ours",
            simplifier=lambda e: sp.simplify(sp.expand_log(sp.expand(e))),
        ),
        Step(
            "ours: the range at k = 1/ε: 2/τ + log(1 + ε e^{−2/τ}) − log(ε + e^{−2/τ})",
            _gen.loss_range().subs(k, 1 / eps_k),
            _gen.loss_range_eps(),
            domain=_gen.TAU_EPS,
            provenance="ours",
            simplifier=lambda e: sp.simplify(sp.expand_log(sp.together(e))),
        ),
        Step(
            "ours: b − a ≤ 4/τ (in ε = 1/k; tight only as ε → 0)",
            _gen.loss_range_eps(),
            4 / tau,
            kind="inequality",
            relation="<=",
            domain=_gen.TAU_EPS,
            provenance="ours",
            reference="Lemma 5",
            route=_log_ratio_route(
                "b − a ≤ 4/τ",
                4 / tau - _gen.loss_range_eps(),
                eps_k * (sp.exp(2 / tau) - sp.exp(-2 / tau)),
                1 + eps_k * sp.exp(-2 / tau),
                _gen.TAU_EPS,
            ),
        ),
        Step(
            "ours: attained value = b − a",
            attained_range(),
            _gen.loss_range(),
            domain=_gen.TAU_K,
            provenance="ours",
            simplifier=lambda e: sp.simplify(sp.expand_log(sp.expand(e))),
        ),
        tight_step(_gen.loss_range()),
        Step(
            "ours: |ℓ(φ) − ℓ(φ')| ≤ b − a (the range is the sharp constant of Lemma 5)",
            loss() - loss(s_prime, s_pos_prime),
            _gen.loss_range(),
            kind="inequality",
            relation="<=",
            domain=_sims_domain({s_prime: (-1, 1), s_pos_prime: (-1, 1)}),
            provenance="ours",
            reference="Lemma 5",
            note="follows from the two loss-end steps; the falsifier attacks it over two configurations",
        ),
    ]
    return [
        Derivation(
            "lemma5",
            "Lemma 5: |ℓ(φ, z, k, τ) − ℓ(φ', z, k, τ)| ≤ 4/τ (ours: the exact range b − a)",
            steps,
            result="ours: b − a ≤ 4/τ (in ε = 1/k; tight only as ε → 0)",
            source="paper",
            paper_claim="Lemma 5: for any k ≥ 1, τ > 0, z ∈ Z^{2+k}, φ, φ' ∈ B(Z, S^{d−1}): |ℓ(φ) − ℓ(φ')| ≤ 4/τ",
            summary="Every printed line holds; the exact range b − a = log((1 + k e^{2/τ})/(1 + k e^{−2/τ})) "
            "is attained and lies below 4/τ for every finite k (≈ half of it for small τ).",
        )
    ]


CONSTANTS = [
    PaperConstant(
        name="lemma5_range",
        label="Lemma 5: loss range b − a ≤ 4/τ",
        result="lemma5",
        build=lambda: (4 / tau, _gen.loss_range()),
        proof_step="ours: b − a ≤ 4/τ (in ε = 1/k; tight only as ε → 0)",
        note="ours = b − a is attained (s_j ≡ 1, s⁺ = −1 against s_j ≡ −1, s⁺ = 1); the paper's 4/τ is its "
        "supremum over k, approached as k → ∞ (ratio → 1 there), never attained",
        params=("tau", "k"),
    )
]

#: for each constant: the step that takes ours as its bound and is tight (lowering ours refutes it)
TIGHT = {"lemma5_range": tight_step}
