"""Finite-k bias R̃ − CE = E_x[E log Z_k(x) − log Z(x)] ∈ [−C(τ)/k, 0], for τ > 0 and k ≥ 1.

Here ``W = e^{s(x, Y)/τ}`` with ``Y ~ π``, ``Z = E W`` and ``Z_k`` is the mean of ``k`` i.i.d.
copies of ``W``; ``R̃`` is the paper's DCL risk (§3.4) with k negatives, the risk of the DCL loss
``ℓ̃ = −s⁺/τ + log Z_k`` (R̃ at k = 1 is written R̃_1) and ``CE = E[−s⁺/τ + log Z(x)]`` the expected cross-entropy between
``M(x, ·)`` and ``Q^φ_τ(x, ·)`` (densities taken with respect to ``π``). Since ``s ∈ [−1, 1]``,
``W ∈ [m, M] = [e^{−1/τ}, e^{1/τ}]`` and ``ρ = M/m = e^{2/τ}``.

Results (each a ``Derivation``, all ``source="ours"``; the paper states only the rate O(1/k)):

* ``bias_sign``          ``R̃ − CE ≤ 0`` (Jensen, through ``log u ≤ u − 1``).
* ``bias_expansion``     ``E log Z_k − log Z = −κ₂/(2kZ²) + [κ₃/(3Z³) − 3κ₂²/(4Z⁴)]/k² + O(k⁻³)``
  from the cumulant generating function of the mean and the Taylor series of ``log(1 + x)``.
* ``bias_asymptotic_constant``  ``κ₂/(2Z²) ≤ sinh²(1/τ)/2`` — the supremum of the *leading*
  coefficient. It is **not** a finite-k bound: a two-point law exceeds ``sinh²(1/τ)/(2k)``
  (``tests/test_bias.py`` exhibits one by exact computation).
* ``bias_bound``         ``0 ≤ CE − R̃ ≤ min(C(τ)/k, D(τ))`` (``bias_bound_sharp(τ, k)``; ``bias_bound(τ, k)``
  is ``C(τ)/k`` alone) with the explicit
  ``D(τ) = log((e^{2/τ} − 1)τ/2) − 1 + (2/τ)/(e^{2/τ} − 1)`` (``bias_bound_k_free``: E log Z_k is
  nondecreasing in k and the k = 1 gap is at most D) and
  ``C(τ) = bias_constant(τ) = (e^{2/τ} − 1)·min(0.2163, (1 + 1/(3τ))/(4τ))``; C is within a factor
  1.04 of the sharp constant c*(τ) of the same route for τ ≤ 1/2 and τ ≥ 10, and within 1.7 for all
  τ (``c_star``; the worst region is τ ≈ 1–2, where the two closed forms cross).
* ``bias_simple_constant``  ``C(τ) ≤ e^{2/τ}/4``.
* ``standard_offset``    ``R_std,k − log k − R̃ ∈ [log(1 + e^{−2/τ}/k), log(1 + e^{2/τ}/k)] ⊂ [0, e^{2/τ}/k]``
  (the expectation of the pointwise relation proved in derivation ``loss``).
* ``bias_deviation_route``  the earlier ``O(k^{-1/2})`` route: ``E|log Z_k − log Z| ≤ (e^{2/τ} − 1)/(2√k)``.

Each result is its own module (one ``Derivation`` each, ``bias_bound`` with its corollary
``bias_simple_constant``): ``bias_sign``, ``bias_expansion``, ``bias_asymptotic_constant``, ``bias_bound``,
``standard_offset``, ``bias_deviation_route``; their closed forms and notation are in ``bias_forms``, the exact
finite-law sums in ``bias_laws``. This module is an overview and keeps the names importable from one place
(``from infonce_bounds.derivations import bias``); it registers nothing (the catalogue finds the result modules).

Claims about expectations over a law of ``W`` cannot be stated as one SymPy expression; their
steps carry a checker (``_law_check``) that computes both sides *exactly* (enumerating the
multinomial compositions of the ``k`` draws) on random and extreme finite laws, including the
two-point laws at ``{m, M}`` where Bhatia–Davis is an equality, and confirms any violation at 50
digits. Every scalar step is stated in reduced form for the standard checkers (symbolic,
interval, falsifier); where interval arithmetic cannot certify a claim whose gap vanishes on the
boundary of its domain, the step says so and is checked by the falsifier alone.

The exact enumeration helpers (``compositions``, ``composition_probabilities``) are shared with
``numerics/finite.py``.
"""

from __future__ import annotations

from . import bias_asymptotic_constant as _asymptotic_module
from . import bias_bound as _bound_module  # the name bias_bound is the closed form C(τ)/k below
from . import bias_deviation_route as _deviation_module
from . import bias_expansion as _expansion_module
from . import bias_sign as _sign_module
from . import standard_offset as _offset_module
from .bias_bound import (  # noqa: F401 - re-exported, tests read some private names
    _PHI,
    _c_numeric,
    _d_numeric,
    _phi_numeric,
)
from .bias_forms import (  # noqa: F401 - re-exported, tests read some private names
    C_A,
    COSH_T,
    H_OF_Y,
    PADE_H,
    RHO,
    SINH_T,
    W_MAX,
    W_MIN,
    AbsDev,
    BiasGap,
    ElogZk,
    QuadBound,
    VarW,
    asymptotic_bias_constant,
    bias_bound,
    bias_bound_k_free,
    bias_bound_sharp,
    bias_constant,
    bias_constant_A,
    bias_constant_B,
    c_star,
    deviation_bound,
    deviation_constant,
    leading_bias_term,
    second_order_bias_term,
    simple_bias_constant,
    standard_offset_bound,
    standard_offset_lower,
)
from .bias_laws import (  # noqa: F401 - re-exported, tests read some private names
    LARGE_K,
    WINDOW_KEYS,
    _law_check,
    _law_summary,
    _law_summary_batch,
    _law_summary_float,
    _window_sums,
    composition_probabilities,
    compositions,
    law_log_gap,
)
from .ledger import Derivation


def derivations() -> list[Derivation]:
    """The finite-k bias derivations, in proof order (from their result modules)."""
    mods = (_sign_module, _expansion_module, _asymptotic_module, _bound_module, _offset_module, _deviation_module)
    return [der for mod in mods for der in mod.derivations()]


__all__ = [
    "C_A",
    "asymptotic_bias_constant",
    "bias_bound",
    "bias_bound_k_free",
    "bias_bound_sharp",
    "bias_constant",
    "bias_constant_A",
    "bias_constant_B",
    "c_star",
    "composition_probabilities",
    "compositions",
    "derivations",
    "deviation_bound",
    "deviation_constant",
    "law_log_gap",
    "leading_bias_term",
    "second_order_bias_term",
    "simple_bias_constant",
    "standard_offset_bound",
    "standard_offset_lower",
]
