"""Closed forms and the vocabulary of the finite-k bias results: ``R̃ − CE = E_x[E log Z_k(x) − log Z(x)]``.

``W = e^{s(x, Y)/τ}`` with ``Y ~ π``, ``Z = E W``, ``Z_k`` the mean of ``k`` i.i.d. copies of ``W``; ``s ∈ [−1, 1]``,
so ``W ∈ [m, M] = [e^{−1/τ}, e^{1/τ}]`` and ``ρ = M/m = e^{2/τ}``; τ > 0, k ≥ 1. Here: the constants (``C_A``,
``W_MIN``, …), the closed forms the results prove (``bias_constant``, ``bias_bound_sharp``, ``standard_offset_bound``,
…), the placeholders of expectations over a law of ``W`` (``BiasGap``, ``ElogZk``, …), the result modules' shared
domains and the forms of the route "expectation". The results: ``derivations.bias`` (an overview).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath
import sympy as sp

from .checks.expectation import Expect
from .ledger import Domain
from .symbols import TAU_MIN, TAU_RANGE, Z, j, k, kappa, s, t, tau, u, y

# --------------------------------------------------------------------------------- constants

#: the rational constant c_A ≥ max_{y ≥ 0} e^{−y} h(y) = 0.2162165955… (certified in ``bias_bound``)
C_A = sp.Rational(2163, 10000)
#: W ∈ [m, M]; ρ = M/m
W_MIN = sp.exp(-1 / tau)
W_MAX = sp.exp(1 / tau)
RHO = sp.exp(2 / tau)

#: sinh(1/τ), cosh(1/τ) written with exponentials, so SymPy can match certificates exactly
SINH_T = (W_MAX - W_MIN) / 2
COSH_T = (W_MAX + W_MIN) / 2

#: h(y) = (a − 1 − log a)/(1 − a) at a = e^{−y}: the factor (1 − a) g(a) of the quadratic bound
H_OF_Y = y / (1 - sp.exp(-y)) - 1
#: the Padé-type upper bound h(y) ≤ y/2 + y²/12 (y ≥ 0)
PADE_H = y / 2 + y**2 / 12

# placeholders for expectations over a law of W (evaluated exactly by the law checker)
ElogZk = sp.Function("E_log_Z_k")  #: E log Z_k for one anchor
BiasGap = sp.Function("CE_minus_R")  #: CE − R̃ = log Z − E log Z_k for one anchor
AbsDev = sp.Function("E_abs_log_dev")  #: E|log Z_k − log Z|
VarW = sp.Function("Var_W")  #: Var(W)
QuadBound = sp.Function("quadratic_bound")  #: g(m/Z) Var(W)/(k Z²), g by its integral form (``g_integral``)


def leading_bias_term(k_: Any = k, kappa2: Any = kappa[2], Z_: Any = Z) -> sp.Expr:
    """−κ₂/(2kZ²): the leading term of E log Z_k − log Z as k → ∞ (κ₂ = Var W)."""
    k_, kappa2, Z_ = (sp.sympify(v_) for v_ in (k_, kappa2, Z_))
    return -kappa2 / (2 * k_ * Z_**2)


def second_order_bias_term(k_: Any = k, kappa2: Any = kappa[2], kappa3: Any = kappa[3], Z_: Any = Z) -> sp.Expr:
    """[κ₃/(3Z³) − 3κ₂²/(4Z⁴)]/k²: the k⁻² term of E log Z_k − log Z."""
    k_, kappa2, kappa3, Z_ = (sp.sympify(v_) for v_ in (k_, kappa2, kappa3, Z_))
    return (kappa3 / (3 * Z_**3) - 3 * kappa2**2 / (4 * Z_**4)) / k_**2


def bias_constant_A(tau_: Any = tau) -> sp.Expr:
    """C_A(τ) = c_A (e^{2/τ} − 1), c_A = 0.2163 ≥ max_y e^{−y}h(y): the constant for small τ; τ > 0."""
    tau_ = sp.sympify(tau_)  # a Python int/float must not turn the formula into float arithmetic
    return C_A * (sp.exp(2 / tau_) - 1)


def bias_constant_B(tau_: Any = tau) -> sp.Expr:
    """C_B(τ) = (e^{2/τ} − 1)(1 + 1/(3τ))/(4τ) ~ 1/(2τ²) as τ → ∞: the constant for large τ; τ > 0."""
    tau_ = sp.sympify(tau_)  # a Python int/float must not turn the formula into float arithmetic
    return (sp.exp(2 / tau_) - 1) * (1 + 1 / (3 * tau_)) / (4 * tau_)


def bias_constant(tau_: Any = tau) -> sp.Expr:
    """C(τ) = (e^{2/τ} − 1) min(0.2163, (1 + 1/(3τ))/(4τ)) = min(C_A, C_B) ≥ c*(τ): 0 ≤ CE − R̃ ≤ C(τ)/k; τ > 0.

    The sharp constant of the quadratic-bound route is
    ``c*(τ) = max_{a ∈ [e^{−2/τ}, 1)} (a e^{2/τ} − 1)(a − 1 − log a)/(1 − a)``. A maximum is not
    something ``mpmath.iv`` can enclose, so ``C`` replaces it by two proven closed-form upper
    bounds (derivation ``bias_bound``): with ``a = e^{−y}``, ``t = 2/τ`` and
    ``h(y) = y/(1 − e^{−y}) − 1``,

    * ``(e^{t−y} − 1)h(y) = e^{−y}h(y)·(e^t − e^y) ≤ max_y e^{−y}h(y)·(e^t − 1) ≤ 0.2163 (e^t − 1)``
      (the max interval-certified), sharp as τ → 0 (``C_A(τ)/c*(τ) → 1.0004``);
    * ``h(y) ≤ y/2 + y²/12`` (power series with nonnegative coefficients), the chord bound
      ``e^{t−y} − 1 ≤ (1 − y/t)(e^t − 1)`` and ``y(t − y) ≤ t²/4`` give
      ``(e^t − 1)(t/8)(1 + t/6) = C_B(τ)``, sharp as τ → ∞ (``C_B ~ 1/(2τ²) ~ c*(τ)``).

    Both are sums, products and exponentials of τ: ``intervals.interval_eval`` encloses ``C`` at
    any τ ∈ [1e-3, 1e2] (``e^{2000}`` is representable in mpmath). ``c_star(τ)`` evaluates the
    sharp max numerically for comparison.

    Parameters
    ----------
    tau_ : SymPy expression or number, the temperature τ > 0.

    Returns
    -------
    SymPy expression ``(e^{2/τ} − 1)·Min(2163/10000, (1 + 1/(3τ))/(4τ))`` (every k ≥ 1, τ > 0; its
    steps are checked on τ ∈ [1e-3, 1e2]).
    """
    tau_ = sp.sympify(tau_)  # a Python int/float must not turn the formula into float arithmetic
    return (sp.exp(2 / tau_) - 1) * sp.Min(C_A, (1 + 1 / (3 * tau_)) / (4 * tau_))


def bias_bound_k_free(tau_: Any = tau) -> sp.Expr:
    """D(τ) = log((e^L − 1)/L) − 1 + L/(e^L − 1), L = 2/τ: CE − R̃ ≤ CE − R̃_1 ≤ D(τ) for every k ≥ 1.

    ``sup`` of ``log E W − E log W`` over laws on ``[e^{−1/τ}, e^{1/τ}]`` (chord of the concave log),
    with ``E log Z_k`` nondecreasing in ``k``. ``D ≈ 2/τ − log(2/τ) − 1`` as τ → 0 (where C(τ)/k is
    astronomically loose unless ``k ≳ e^{2/τ}``) and ``D ~ 1/(2τ²)`` as τ → ∞. Written as
    ``L − 1 + log((1 − e^{−L})/L) + L e^{−L}/(1 − e^{−L})`` so that no float overflows at τ = 1e-3.
    """
    tau_ = sp.sympify(tau_)  # a Python int/float must not turn the formula into float arithmetic
    L_ = 2 / tau_
    return L_ - 1 + sp.log((1 - sp.exp(-L_)) / L_) + L_ * sp.exp(-L_) / (1 - sp.exp(-L_))


def bias_bound(tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """C(τ)/k: the O(1/k) bound 0 ≤ CE − R̃ ≤ C(τ)/k (``bias_constant``); τ > 0, k ≥ 1."""
    tau_, k_ = (sp.sympify(v_) for v_ in (tau_, k_))
    return bias_constant(tau_) / k_


def bias_bound_sharp(tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """min(C(τ)/k, D(τ)): the sharpest proved bound 0 ≤ CE − R̃ ≤ bias_bound_sharp(τ, k); τ > 0, k ≥ 1.

    ``C(τ)/k`` (``bias_bound``) carries the O(1/k) rate; the k-free ``D(τ) < 2/τ``
    (``bias_bound_k_free``) is the smaller one while ``k ≲ C(τ)/D(τ)``, i.e. at small τ. Written as
    ``exp(min(log C(τ) − log k, log D(τ)))`` so that its float form does not overflow at τ = 1e-3
    (``C(1e-3) ≈ 8·10⁸⁶⁷``).
    """
    tau_, k_ = (sp.sympify(v_) for v_ in (tau_, k_))
    log_c = 2 / tau_ + sp.log(1 - sp.exp(-2 / tau_)) + sp.log(sp.Min(C_A, (1 + 1 / (3 * tau_)) / (4 * tau_)))
    return sp.exp(sp.Min(log_c - sp.log(k_), sp.log(bias_bound_k_free(tau_))))


def simple_bias_constant(tau_: Any = tau) -> sp.Expr:
    """e^{2/τ}/4 ≥ C(τ): the simple rigorous constant; τ > 0."""
    tau_ = sp.sympify(tau_)  # a Python int/float must not turn the formula into float arithmetic
    return sp.exp(2 / tau_) / 4


def asymptotic_bias_constant(tau_: Any = tau) -> sp.Expr:
    """sinh²(1/τ)/2 = sup over laws on [e^{−1/τ}, e^{1/τ}] of κ₂/(2Z²): limit of k(CE − R̃) at worst.

    Not a finite-k bound (see the module docstring).
    """
    tau_ = sp.sympify(tau_)  # a Python int/float must not turn the formula into float arithmetic
    return sp.sinh(1 / tau_) ** 2 / 2


def standard_offset_bound(tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """log(1 + e^{2/τ}/k) ≥ R − R̃ = E[ℓ] − E[ℓ̃] ≥ 0 (ℓ the paper's (14) = ℓ_std − log k); ≤ e^{2/τ}/k; τ > 0, k ≥ 1.

    Written as ``v + log(1 + e^{−v})`` with ``v = 2/τ − log k`` (the same number), so that its float
    form does not overflow at τ = 1e-3.
    """
    tau_, k_ = (sp.sympify(v_) for v_ in (tau_, k_))
    v_ = 2 / tau_ - sp.log(k_)
    return v_ + sp.log(1 + sp.exp(-v_))


def standard_offset_lower(tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """log(1 + e^{−2/τ}/k) ≤ R − R̃ = E[ℓ] − E[ℓ̃] (ℓ the paper's (14)); τ > 0, k ≥ 1."""
    tau_, k_ = (sp.sympify(v_) for v_ in (tau_, k_))
    return sp.log(1 + sp.exp(-2 / tau_) / k_)


def deviation_constant(tau_: Any = tau) -> sp.Expr:
    """(e^{2/τ} − 1)/2 = e^{1/τ} sinh(1/τ): E|log Z_k − log Z| ≤ this/√k (the O(k^{-1/2}) route)."""
    tau_ = sp.sympify(tau_)  # a Python int/float must not turn the formula into float arithmetic
    return (sp.exp(2 / tau_) - 1) / 2


def deviation_bound(tau_: Any = tau, k_: Any = k) -> sp.Expr:
    """(e^{2/τ} − 1)/(2√k): the earlier-literature O(k^{-1/2}) bound on |R̃ − CE|; τ > 0, k ≥ 1."""
    tau_, k_ = (sp.sympify(v_) for v_ in (tau_, k_))
    return deviation_constant(tau_) / sp.sqrt(k_)


def c_star(tau_value: Any, dps: int = 30) -> mpmath.mpf:
    """c*(τ) = max_{0 < y ≤ 2/τ} (e^{2/τ−y} − 1) h(y), evaluated numerically (not an enclosure).

    Grid search on y followed by golden-section refinement, at ``dps`` digits. Used to show how
    close ``bias_constant`` is to the sharp constant of the quadratic-bound route.
    """
    with mpmath.workdps(dps):
        tv = 2 / mpmath.mpf(
            sp.Rational(sp.nsimplify(tau_value)) if not isinstance(tau_value, mpmath.mpf) else tau_value
        )

        def f(yv):
            return (mpmath.exp(tv - yv) - 1) * (yv / (-mpmath.expm1(-yv)) - 1)

        grid = [tv * (i_ + 0.5) / 400 for i_ in range(400)]
        best = max(range(400), key=lambda i_: f(grid[i_]))
        lo, hi = tv * best / 400, tv * (best + 1) / 400
        g = (mpmath.sqrt(5) - 1) / 2
        for _ in range(120):
            c1, c2 = hi - g * (hi - lo), lo + g * (hi - lo)
            if f(c1) < f(c2):
                lo = c1
            else:
                hi = c2
        return f((lo + hi) / 2)


def _series_route(factor_series: sp.Expr, gap_series: sp.Sum, var: sp.Symbol = y) -> tuple[str, dict]:
    """Route "power series" (``checks/power_series.py``): ``(rhs − lhs)·F = G`` for ``var > 0``, F with positive
    and G with nonnegative terms."""
    return ("power series", {"factor": factor_series, "series": gap_series, "var": var})


# --------------------------------------------------------------------------------- domains

#: u > 0, unbounded: the interval certifier settles [2, ∞) by monotonicity (d/du (u − 1 − log u) ≥ 0)
_U_POS = Domain({u: (0, sp.oo)}, name="u > 0")
_Y_POS = Domain({y: (sp.Rational(1, 10**6), 2 / TAU_MIN)}, name="y ∈ (0, 2/τ_min]")
_TAU_T = TAU_RANGE | Domain({t: (0, 1)}, name="t = yτ/2 ∈ [0, 1]")
#: y on [0, 2/τ] written as 2t/τ with t ∈ [0, 1]: a box domain, no constraint
Y_T = 2 * t / tau
_LAW = TAU_RANGE | Domain({k: (1, sp.oo)}, name="laws of W on [e^{−1/τ}, e^{1/τ}], k ≥ 1")

# The law steps' quantities as expectations over the draws (route "expectation", ``checks/expectation.py``): the
# negatives' similarities s_j ∈ [−1, 1], W_j = e^{s_j/τ}, Z = E W_1, Z_k = k⁻¹Σ_j W_j; the positive's similarity
# s⁺ ∈ [−1, 1] (the offset), a coordinate of its own (no moment of it is used, only its range)
S_POS = sp.IndexedBase("s_pos", real=True)
_W1 = sp.exp(s[1] / tau)
_ZE = Expect(_W1)
_ZK = sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k
#: g(u) = (u − 1 − log u)/(u − 1)², 0/0 at u = 1 (g(1) = 1/2), and its integral form ∫₀¹ t/(1 + t(u − 1)) dt,
#: defined for every u > 0 (the per-anchor bound's g(m/Z) at the law W ≡ m, where m/Z = 1)
G_U = (u - 1 - sp.log(u)) / (u - 1) ** 2
G_INTEGRAND = t / (1 + t * (u - 1))
G_ANTIDERIVATIVE = t / (u - 1) - sp.log(1 + t * (u - 1)) / (u - 1) ** 2


#: the integration variable of g's integral form (its own symbol: t is also a coordinate of the bias steps)
R_G = sp.Symbol("r_g", real=True)


def g_integral(arg: Any) -> sp.Integral:
    """g(arg) as its integral form ∫₀¹ r/(1 + r(arg − 1)) dr (defined for arg > 0, also at arg = 1)."""
    return sp.Integral(G_INTEGRAND.subs({t: R_G, u: arg}), (R_G, 0, 1))


#: a = m/Z and U = Z_k/Z of the per-anchor bound, as expectations over the draws
A_EXP = W_MIN / _ZE
U_EXP = _ZK / _ZE
_EXP_DEFS = {
    BiasGap(tau, k): sp.log(_ZE) - Expect(sp.log(_ZK)),
    QuadBound(tau, k): g_integral(A_EXP) * Expect((_W1 - _ZE) ** 2) / (k * _ZE**2),
    VarW(tau): Expect((_W1 - _ZE) ** 2),
    sp.Function("E_offset")(tau, k): Expect(sp.log(1 + sp.exp(S_POS[1] / tau) / (k * _ZK))),
    Z: _ZE,
}
_W_BOUNDS = {_W1: (W_MIN, W_MAX), sp.exp(S_POS[1] / tau): (W_MIN, W_MAX)}
_DRAWS = Domain({s: (-1, 1), S_POS: (-1, 1)}, name="s_j, s⁺ ∈ [−1, 1]")
_V_JENSEN = sp.Symbol("v", positive=True)


def _expect_route(rule: str, attack: Callable, **params: Any) -> tuple[str, dict]:
    """Route "expectation" with the forms above and the step's law check beside it (an independent attack)."""
    return ("expectation", {"rule": rule, "defs": _EXP_DEFS, "bounds": _W_BOUNDS, "attack": attack, **params})
