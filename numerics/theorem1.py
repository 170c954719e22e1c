"""Theorem 1 on data, certified: every term of the paper's version (its "const." made explicit) and ours, the
toolkit's θ-Lipschitz route, the trivial cap 2/τ, the minimum and which term attains it.

  ∫ E CrossEnt[M̂_k(z, ·) ‖ Q̂^φ_{τ,k}(z, ·)] π(dz) ≤ R̂_n + complexity + variability + bias,   w.p. ≥ 1 − δ,

  paper:   complexity = (192/τ)√(d_Θ/n) min{A√(log 3 + 1), √(log(1 + 2A) + 1)},  A = eRB_τC_Φ,
           variability = (12/τ)√(log(2/δ)/(2n)),  bias = (4/(τk)) E|dM/dπ|² + log(1 + e^{2/τ}/k);
  ours:    the constants 192 max(κ, δ'), 3τ(b − a) and Lemma 3's 2√(s(s − 1)) + 2(s − 1), s = E|dM/dπ|²;
  toolkit: complexity = 2 · complexity_direct(τ, n, L, d_Θ, R) (θ-Lipschitz chaining, ``derivations.theorem``),
           variability = (b − a)√(log(1/δ)/(2n)) (one-sided McDiarmid), bias as ours;

domain: τ > 0, k, n, d_Θ ≥ 1, δ ∈ (0, 1), R, C_Φ, L > 0, B_τ ≥ 0, E|dM/dπ|² ≥ 1, R̂_n in the range of ℓ (14).

Every expression is built by ``derivations`` (``paper.theorem1.bound_terms``, ``theorem.trivial_ce``,
``theorem.complexity_direct_term``, ``theorem.sample_variability``); nothing is retyped here. Each number is the
upper end of an outward-rounded Arb interval (``numerics.certify``, as ``infonce-bounds constants`` prints),
converted to the float at or above it, so no bound is understated. Inputs are read exactly from their shortest
decimal ``repr`` (``certify.exact``). Validation of the inputs is the caller's (``numerics.api.theorem1_bound``).
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any, NamedTuple

import mpmath

#: what each version is, as reported
PROVENANCE = {
    "paper": "paper (Theorem 1 as printed; const. = 192 and 12 derived from its Props. 3 and 5)",
    "ours": "ours (the catalogue's proved constants in the paper's route)",
    "toolkit": "ours (derivations.theorem: θ-Lipschitz chaining, one-sided deviation; bias as ours)",
}


class Theorem1Version(NamedTuple):
    """One version of Theorem 1: its three terms, bound = R̂_n + the three, capped = min(bound, trivial) and the
    term attaining the minimum: ``"bound"``, ``"trivial"`` or ``"tie"`` (the certified intervals overlap)."""

    complexity: float
    variability: float
    bias: float
    bound: float
    capped: float
    active: str
    provenance: str


class Theorem1Bound(NamedTuple):
    """Theorem 1 on data: the paper's version, ours, the toolkit's (``None`` without a Lipschitz constant), the
    trivial cap 2/τ of the left side, and the data's quantities (B_τ, A = eRB_τC_Φ, the min-term, the
    constants: {"complexity": {"paper", "ours"}, "variability": {"paper", "ours"}})."""

    paper: Theorem1Version
    ours: Theorem1Version
    toolkit: Theorem1Version | None
    trivial: float
    rhat: float
    b_tau: float
    A: float
    min_term: float
    constants: dict
    n: int
    k: int
    tau: float
    delta: float
    notes: tuple


def float_up(x: Any) -> float:
    """The smallest float ≥ x (``mpmath.mpf``): an upper end stays an upper end (``inf`` beyond the range)."""
    f = float(x)
    if math.isfinite(f) and mpmath.mpf(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def active_of(bound: Any, trivial: Any) -> str:
    """Which of two certified values (anything with ``lo``, ``hi``) attains their minimum: ``"bound"`` when the
    bound's upper end is at most the cap's lower end, ``"trivial"`` in the opposite case, else ``"tie"``. The one
    rule: ``constants --paper`` uses it on the same intervals and ``constants.active_term`` on its printed ends."""
    if bound.hi <= trivial.lo:
        return "bound"
    if trivial.hi <= bound.lo:
        return "trivial"
    return "tie"


@cache
def _exprs() -> dict:
    """The SymPy expressions, built once: {version: {term: expr}}, the trivial cap, A and the min-term."""
    import sympy as sp

    from infonce_bounds.derivations import theorem
    from infonce_bounds.derivations.paper import prop5, theorem1
    from infonce_bounds.derivations.symbols import B_tau as B_sym
    from infonce_bounds.derivations.symbols import L, R, Rhat_n, a_cov, d_Theta, k, n, tau
    from infonce_bounds.derivations.symbols import delta as delta_sym

    out: dict = {v: theorem1.bound_terms(v) for v in theorem1.VERSIONS}
    ours = out["ours"]
    out["toolkit"] = {
        "complexity": theorem.complexity_direct_term(tau, n, L, d_Theta, R),
        "variability": theorem.sample_variability("infonce", tau, k, n, delta_sym),
        "bias": ours["bias"],
    }
    out["toolkit"]["bound"] = sum((out["toolkit"][t] for t in ("complexity", "variability", "bias")), sp.Integer(0))
    for v in ("paper", "ours", "toolkit"):
        out[v]["bound"] = Rhat_n + out[v]["bound"]
    A = prop5.a_of(B_sym)
    out["A"] = A
    out["min_term"] = theorem1.min_term_expr().subs(a_cov, A)
    out["trivial"] = theorem.trivial_ce()
    out["constants"] = {
        short: {v: theorem1.constant(name, v) for v in theorem1.VERSIONS}
        for short, name in (
            ("complexity", "theorem1_complexity_constant"),
            ("variability", "theorem1_variability_constant"),
        )
    }
    return out


def _cert(expr, values: dict):
    from .certify import certify

    return certify(expr, {s: v for s, v in values.items() if s in expr.free_symbols})


def evaluate(
    *,
    tau: float,
    k: int,
    n: int,
    delta: float,
    d_theta: int,
    c_phi: float,
    radius: float,
    ew2: float,
    b_tau: float,
    rhat: float,
    lipschitz: float | None = None,
) -> Theorem1Bound:
    """Every term of Theorem 1 at validated values (see the module docstring); the toolkit's version needs
    ``lipschitz`` = L, the Lipschitz constant of θ ↦ φ_θ(z) uniformly over the inputs (C_Φ sup‖z‖ under (C))."""
    from infonce_bounds.derivations.paper.theorem1 import A_RANGE
    from infonce_bounds.derivations.symbols import B_tau, C_Phi, Ew2, L, R, Rhat_n, d_Theta
    from infonce_bounds.derivations.symbols import delta as delta_sym
    from infonce_bounds.derivations.symbols import k as k_sym
    from infonce_bounds.derivations.symbols import n as n_sym
    from infonce_bounds.derivations.symbols import tau as tau_sym

    E = _exprs()
    values = {
        tau_sym: tau,
        k_sym: int(k),
        n_sym: int(n),
        delta_sym: delta,
        d_Theta: int(d_theta),
        C_Phi: c_phi,
        R: radius,
        B_tau: b_tau,
        Ew2: ew2,
        Rhat_n: rhat,
    }
    if lipschitz is not None:
        values[L] = lipschitz
    trivial = _cert(E["trivial"], values)
    versions: dict = {}
    for v in ("paper", "ours", "toolkit"):
        if v == "toolkit" and lipschitz is None:
            versions[v] = None
            continue
        c = {t: _cert(E[v][t], values) for t in ("complexity", "variability", "bias", "bound")}
        b_up, t_up = float_up(c["bound"].hi), float_up(trivial.hi)
        versions[v] = Theorem1Version(
            complexity=float_up(c["complexity"].hi),
            variability=float_up(c["variability"].hi),
            bias=float_up(c["bias"].hi),
            bound=b_up,
            capped=min(b_up, t_up),
            active=active_of(c["bound"], trivial),
            provenance=PROVENANCE[v],
        )
    A = _cert(E["A"], values)
    notes = []
    lo, hi = A_RANGE
    if not (lo <= A.lo and A.hi <= hi):
        notes.append(
            f"A = eRB_τC_Φ = {float_up(A.hi):.6g} lies outside [{float(lo):g}, {float(hi):g}], the range on which the "
            "ledger checked the chain of Theorem 1 (prop5's Cauchy–Schwarz step is proved there); the paper states "
            "it for every A"
        )
    return Theorem1Bound(
        paper=versions["paper"],
        ours=versions["ours"],
        toolkit=versions["toolkit"],
        trivial=float_up(trivial.hi),
        rhat=float(rhat),
        b_tau=float(b_tau),
        A=float_up(A.hi),
        min_term=float_up(_cert(E["min_term"], values).hi),
        constants={
            short: {v: float_up(_cert(e, values).hi) for v, e in pair.items()} for short, pair in E["constants"].items()
        },
        n=int(n),
        k=int(k),
        tau=float(tau),
        delta=float(delta),
        notes=tuple(notes),
    )


def rhat_range(tau: float, k: int) -> tuple[float, float]:
    """(a, b) = (log(1/k + e^{−2/τ}), log(1/k + e^{2/τ})), the range of ℓ (14) (``paper._gen``), as floats
    outward (a rounded down, b up): R̂_n, a mean of ℓ, lies in it."""
    from infonce_bounds.derivations.paper import _gen
    from infonce_bounds.derivations.symbols import k as k_sym
    from infonce_bounds.derivations.symbols import tau as tau_sym

    lo = _cert(_gen.loss_lo(), {tau_sym: tau, k_sym: int(k)})
    hi = _cert(_gen.loss_hi(), {tau_sym: tau, k_sym: int(k)})
    return -float_up(-lo.lo), float_up(hi.hi)
