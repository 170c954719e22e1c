"""Route hints (route "expectation", ``checks/expectation.py``) for two law steps of ``bias.py``: the O(k^{-1/2})
deviation bound and the monotonicity of E log Z_k in k. Over the draws s_j ∈ [−1, 1]: W_1 = e^{s_1/τ} ∈ [m, M] =
[e^{−1/τ}, e^{1/τ}], Z = E W_1, Z_k = k⁻¹Σ_j W_j.

* ``deviation_route``: E|log Z_k − log Z| ≤ e^{1/τ}E|Z_k − Z| (mean value theorem, |log'| ≤ e^{1/τ} on [m, M]),
  ≤ e^{1/τ}(E(Z_k − Z)²)^{1/2} (Cauchy–Schwarz), and e^{2/τ}E(Z_k − Z)² = e^{2/τ}Var W/k ≤ e^{2/τ}sinh²(1/τ)/k
  = (e^{2/τ} − 1)²/(4k) (moments, then Popoviciu by monotonicity of expectation: integrand (M − W)(W − m) ≥ 0,
  remainder (Z − cosh(1/τ))² ≥ 0).
* ``leave_one_out_route``: E log Z_k ≥ E log Z_{k−1} for k ≥ 2 (Z_k the mean of its k leave-one-out means, log
  concave, the leave-one-out means distributed as Z_{k−1}).

Each takes the module's law checker factory (``bias._law_check``) and builds the step's attack with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy as sp

from .checks.expectation import Expect
from .checks.expectation_sums import sum_simplifier
from .symbols import j, k, s, tau

__all__ = ["deviation_route", "leave_one_out_route", "sum_simplifier"]

_W1 = sp.exp(s[1] / tau)
_ZE = Expect(_W1)
_ZK = sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k
_M, _MM = sp.exp(-1 / tau), sp.exp(1 / tau)
_BOUNDS = {_W1: (_M, _MM)}
_V = sp.Symbol("v", positive=True)
_LOG = sp.Lambda(_V, sp.log(_V))


def deviation_route(law_check: Callable, exp_: Callable) -> tuple[str, dict]:
    """``E_abs_log_dev(τ, k) ≤ (e^{2/τ} − 1)/(2√k)``: Lipschitz, then Cauchy–Schwarz, then Popoviciu."""
    attack = law_check(
        lambda L, tv, kv, sm: (sm["abs_dev"], (exp_(L, 2 / tv) - 1) / (2 * L.sqrt(kv))), "e^{1/τ}·sinh(1/τ)/√k"
    )
    popoviciu = {
        "rule": "pointwise",
        "integrand": _MM**2 * (_MM - _W1) * (_W1 - _M) / k,
        "remainder": _MM**2 * (_ZE - (_MM + _M) / 2) ** 2 / k,
    }
    params: dict[str, Any] = {
        "rule": "lipschitz",
        "defs": {sp.Function("E_abs_log_dev")(tau, k): Expect(sp.Abs(sp.log(_ZK) - sp.log(_ZE)))},
        "bounds": _BOUNDS,
        "f": _LOG,
        "L": _MM,
        "u": _ZK,
        "v": _ZE,
        "then": {"rule": "cauchy_schwarz", "x": _ZK - _ZE, "then": popoviciu},
        "attack": attack,
    }
    return ("expectation", params)


def leave_one_out_route(law_check: Callable) -> tuple[str, dict]:
    """``E_log_Z_k(τ, k) ≥ E_log_Z_k(τ, k − 1)``, k ≥ 2: leave-one-out averaging with φ = log."""
    attack = law_check(
        lambda L, tv, kv, sm: (0 * sm["gap"], sm["gap_prev"] - sm["gap"]), "E log Z_k − E log Z_{k−1} ≥ 0", prev=True
    )
    params: dict[str, Any] = {
        "rule": "leave_one_out",
        "defs": {sp.Function("E_log_Z_k"): sp.Lambda((tau, k), Expect(sp.log(_ZK)))},
        "bounds": _BOUNDS,
        "phi": _LOG,
        "inner": _ZK,
        "attack": attack,
    }
    return ("expectation", params)
