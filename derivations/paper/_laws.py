"""Claim helpers for the claims of §3 / appendix A that are expectations over k i.i.d. draws.

A *law* is one anchor's view of the data: atoms ``i`` with similarity ``s_i ∈ [−1, 1]`` to the anchor,
probability ``π_i`` under π_data and (where a claim needs ν = M(z, ·)) density ``w_i = ν_i/π_i`` of the
positive-pair law. The checker, ``law_check``, and the exact multinomial expectation ``expect`` live in
``derivations.checks.laws`` (the one law falsifier that bias, prior and these modules share); this module
re-exports them (with ``fmax``/``fmin``, the max/min a claim can use on law batches too) and adds the quantities the paper's claims are written in (μ, μ̂, the bias gap, Var W), and
the proof-shaped checker ``factored_certificate`` (and ``monotone_from``, a closure over the route
"monotone" of ``checks/monotone.py``, which steps name as a hint instead).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import mpmath

from ..checks.custom import proof_cover, proof_result
from ..checks.laws import ARRAY, IDENTITY_CAP, LAW_CAP, Law, expect, fmax, fmin, law_check
from ..ledger import Step, StepResult

__all__ = [
    "ARRAY",
    "IDENTITY_CAP",
    "LAW_CAP",
    "Law",
    "bias_gap",
    "expect",
    "fmax",
    "fmin",
    "law_check",
    "mu",
    "mu_hat",
    "var_w",
]


def atom(L: Any, law: Law, i: int) -> Any:
    """e^{s_i/τ}, computed once per law, atom and back end (and precision: ``Law.memo``), and only when asked
    (an atom not drawn is not exponentiated: in floats e^{s/τ} may overflow)."""
    key = ("e^{s/tau}", i, id(L), mpmath.mp.prec if L is mpmath else 0)
    return law.memo(key, lambda: L.exp(law.sims[i] / law.tau))


def mu(L: Any, law: Law) -> Any:
    """μ = E e^{s/τ} (log-sum-exp free: callers with τ ≈ 1e-3 reach here only in mpmath)."""
    return sum(p_ * atom(L, law, i) for i, p_ in enumerate(law.probs))


def mu_hat(L: Any, law: Law, cnt: tuple) -> Any:
    """μ̂ = k⁻¹ Σ_j e^{s(ξ_j)/τ} for the draw with atom counts ``cnt``."""
    return sum(c * atom(L, law, i) for i, c in enumerate(cnt) if c) / law.k


def bias_gap(L: Any, law: Law) -> Any:
    """log μ − E log μ̂ (one anchor's CE − R̃, (31))."""
    m_ = mu(L, law)
    return L.log(m_) - expect(L, law, lambda cnt: L.log(mu_hat(L, law, cnt)))


def var_w(L: Any, law: Law) -> Any:
    m_ = mu(L, law)
    return sum(p_ * (atom(L, law, i) - m_) ** 2 for i, p_ in enumerate(law.probs))


def monotone_from(end: Any, derivative: Any, var: Any, side: str = "left") -> Callable:
    """A ``Step.check`` running the route "monotone" (``checks/monotone.py``) with these parameters; a step
    should name the route instead (``route=("monotone", {"end": …, "derivative": …, "var": …, "side": …})``).
    Kept for callers that swap a planted checker into a step."""
    from ..checks.monotone import prove_monotone

    params = {"end": end, "derivative": derivative, "var": var, "side": side}
    return lambda step, opts: prove_monotone(step, params, opts)


def factored_certificate(cert: Any) -> Callable:
    """Checker for ``small ≤ big`` given ``cert``, a factored form of the gap: SymPy must reduce
    ``gap − cert`` to 0, and ``cert ≥ 0`` must be certified by interval arithmetic on the step's domain
    (a product of factors each of one sign encloses without the cancellation the gap itself suffers).
    The falsifier then runs for the record."""
    import sympy as sp

    from ..checks import _sides, certify_nonnegative, falsify

    def check(step: Step, opts: dict) -> StepResult:
        small, big, _ = _sides(step)
        same = sp.simplify(big - small - cert) == 0
        outcome = certify_nonnegative(cert, step.domain, budget=opts["box_budget"])
        cert_ok = outcome.status == "proved"
        fz = falsify(step, opts)
        proved = same and cert_ok
        method = f"factored gap (SymPy: gap = certificate: {same}; interval: certificate ≥ 0: {cert_ok})"
        cover = proof_cover(step, outcome) if proved else None
        return proof_result(step, fz, proved, method, covered=cover, certified=True)

    return check
