"""Numeric values of the derived bounds at the experiments' parameters (from ``derivations``).

Every function returns plain floats, or ``None`` with a reason when the module it needs is not
importable (the derivations are written concurrently), so an experiment never fails for lack of a
bound: it records why the overlay is missing.
"""

from __future__ import annotations

import math
from functools import lru_cache


def _num(expr) -> float:
    import sympy as sp

    v = complex(sp.N(expr, 30))
    return float(v.real) if abs(v.imag) < 1e-20 else math.nan


def _rat(x):
    import sympy as sp

    return sp.Rational(repr(float(x)))


def beta_grid(tau: float) -> list[float]:
    """The fixed (data-independent) β grid the bound is minimised over: β τ ∈ {1.25, 1.5, 2, 3, 5, 10}."""
    return [c / tau for c in (1.25, 1.5, 2.0, 3.0, 5.0, 10.0)]


@lru_cache(maxsize=1)
def _theorem_functions():
    """Theorem-1 components as mpmath functions of (τ, β, k, n, δ, L, p, R), lambdified once
    (substituting numbers into the SymPy expressions and calling ``sp.N`` took ~1 s per evaluation)."""
    import sympy as sp

    from derivations.symbols import L, R, beta, delta, k, n, p, tau
    from derivations.theorem import theorem_terms

    args = (tau, beta, k, n, delta, L, p, R)
    return {name: sp.lambdify(args, t.expr, "mpmath") for name, t in theorem_terms().items()}


def theorem_values(tau: float, k: int, n: int, delta: float, L: float, p: int, R: float) -> dict:
    """Theorem-1 components (``derivations.theorem.theorem_terms``) minimised over ``beta_grid``."""
    import mpmath

    try:
        fns = _theorem_functions()
    except Exception as exc:  # noqa: BLE001 - a dependency (bias, rademacher) may not exist yet
        return {"available": False, "reason": f"derivations.theorem unavailable: {type(exc).__name__}: {exc}"}
    best = None
    with mpmath.workdps(30):
        for b in beta_grid(tau):
            vals = {name: float(f(mpmath.mpf(tau), mpmath.mpf(b), int(k), int(n), mpmath.mpf(delta), mpmath.mpf(L),
                                  int(p), mpmath.mpf(R))) for name, f in fns.items()}
            if best is None or vals["bound"] < best["bound"]:
                best = {**vals, "beta": b}
    return {"available": True, **best, "provenance": "ours (derivations.theorem)"}


def prior_values(tau: float, k: int, n: int, L: float, p: int, R: float) -> dict:
    """Earlier bounds in Theorem-1 units (``derivations.prior.prior_terms``; our reconstructions)."""
    try:
        from derivations.prior import prior_terms

        vals = {name: _num(e) for name, e in prior_terms(_rat(tau), int(k), int(n), _rat(L), int(p), _rat(R)).items()}
    except Exception as exc:  # noqa: BLE001
        return {"available": False, "reason": f"derivations.prior unavailable: {type(exc).__name__}: {exc}"}
    return {"available": True, **vals, "provenance": "ours (reconstruction of earlier bounds, derivations.prior)"}


def bias_constant(tau: float) -> dict:
    """C(τ) of ``derivations.bias`` (0 ≤ CE − R_k ≤ C(τ)/k) and the brief's simple e^{2/τ}/4."""
    out = {"simple_e2tau_over_4": math.exp(2 / tau) / 4 if 2 / tau < 700 else math.inf}
    try:
        from derivations import bias

        out["C"] = _num(bias.bias_constant(_rat(tau)))
        out["C_source"] = "derivations.bias.bias_constant (ours)"
    except Exception as exc:  # noqa: BLE001
        out["C"] = None
        out["C_source"] = f"derivations.bias unavailable: {type(exc).__name__}"
    return out


def continuity_values(tau: float, k: int) -> dict:
    """Continuity factors of ``derivations.continuity``: max form (β = 1/τ) and average form (β → ∞)."""
    try:
        from derivations import continuity as c

        out = {"max_form_beta_1_over_tau": _num(c.continuity_factor(_rat(1 / tau), _rat(tau), int(k))),
               "beta_2_over_tau": _num(c.continuity_factor(_rat(2 / tau), _rat(tau), int(k))),
               "average_form_beta_inf": _num(c.uniform_factor(_rat(1e6 / tau), _rat(tau))),
               "source": "derivations.continuity (ours)"}
    except Exception as exc:  # noqa: BLE001
        out = {"source": f"derivations.continuity unavailable: {type(exc).__name__}: {exc}"}
    return out
