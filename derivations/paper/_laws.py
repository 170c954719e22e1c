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
import sympy as sp

from ..checks.expectation import Expect
from ..checks.laws import ARRAY, IDENTITY_CAP, LAW_CAP, Law, expect, fmax, fmin, law_check
from ..ledger import Domain
from ..symbols import j, k, s, tau

__all__ = [
    "ARRAY",
    "DRAWS",
    "GAP",
    "LOG",
    "MU",
    "MU_HAT",
    "VAR_W",
    "W1",
    "W_BOUNDS",
    "Expect",
    "expectation_route",
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
    """A ``Step.check`` running the route "certificate" (``checks/certificate.py``: ``gap = cert`` reduced
    symbolically, ``cert ≥ 0`` certified by SymPy's deduction or Arb, refutations through the gate) with this
    certificate; a step should name the route instead (``route=("certificate", {"certificate": cert})``). Kept
    for result modules not yet moved to the hint."""
    from ..checks.certificate import prove_certificate

    params = {"certificate": cert}
    return lambda step, opts: prove_certificate(step, params, opts)


# ------------------------------------------------------------------ the symbolic forms (route "expectation")
#
# The same quantities written as expectations over the k i.i.d. draws (``checks.expectation.Expect``): a draw is
# the similarity s_j = s(ξ_j) ∈ [−1, 1] to the anchor (and, where a claim needs ν, the density w_j = w(ξ_j)); one
# anchor's W_j = e^{s_j/τ}. A step states its claim with the printed placeholders and gives their meaning here
# as ``defs`` of the route, which proves the statement with those meanings substituted (and runs the law
# checker beside it as an independent attack).

#: the draw's range: s_j ∈ [−1, 1] (unit embeddings)
DRAWS = Domain({s: (-1, 1)}, name="s_j ∈ [−1, 1]")
#: W_1 = e^{s_1/τ}, its mean μ, the sample mean μ̂ over the k draws, Var W, the bias gap log μ − E log μ̂
W1 = sp.exp(s[1] / tau)
MU = Expect(W1)
MU_HAT = sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k
VAR_W = Expect((W1 - MU) ** 2)
GAP = sp.log(MU) - Expect(sp.log(MU_HAT))
#: e^{s/τ} ∈ [e^{−1/τ}, e^{1/τ}] for s ∈ [−1, 1] (proved by the route before use)
W_BOUNDS = {W1: (sp.exp(-1 / tau), sp.exp(1 / tau))}
_v = sp.Symbol("v", positive=True)
#: φ = log, concave on (0, ∞): Jensen's log μ ≥ E log μ̂
LOG = sp.Lambda(_v, sp.log(_v))


def jensen_gap_route(placeholder: Any, reason: str) -> tuple[str, dict]:
    """``Step.route`` for ``placeholder ≥ 0`` with ``placeholder = log μ − E log μ̂`` (one anchor's CE − R̃, (31)):
    Jensen for the concave log on μ̂'s range, the law search (``reason``) beside it. A.1 and (11) print it."""
    return expectation_route(
        "jensen",
        law_check(lambda L, lw: (0 * lw.tau, bias_gap(L, lw)), reason),
        defs={placeholder: GAP},
        phi=LOG,
        inner=MU_HAT,
        bounds=W_BOUNDS,
    )


def expectation_route(rule: str, attack: Callable | None = None, **params: Any) -> tuple[str, dict]:
    """``Step.route`` for the route "expectation" (``checks/expectation.py``) with ``rule`` and its parameters;
    ``attack`` is the step's law checker (``law_check``), run beside the proof as an independent attack."""
    out = {"rule": rule, **params}
    if attack is not None:
        out["attack"] = attack
    return ("expectation", out)
