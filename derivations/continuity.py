"""Continuity of the log-mean-exp in the negatives' similarities: the ℓ∞ (max) bound and the γ family.

|F(v) − F(v')| ≤ C(γ, τ, k) · ((1/k) Σ_j |v_j − v'_j|^q)^{1/q},  F(v) = log((1/k) Σ_j e^{v_j/τ}),
for v, v' ∈ [−1, 1]^k, τ > 0, k ≥ 1, γ ≥ 1/τ, with

* q(γ, τ) = γτ/(γτ − 1), the Hölder conjugate of r = γτ (q = ∞ at γ = 1/τ);
* C(γ, τ, k) = (1/τ) · M_k(τ)^{1 − 1/(γτ)},  M_k(τ) = k e^{2/τ}/(e^{2/τ} + k − 1) ≤ min(k, e^{2/τ}),
  the bound on the scaled softmax weights k w_j over [−1, 1]^k (``weight_bound``);
* γ = 1/τ gives C = 1/τ and the max over the negatives (the classical ℓ∞-Lipschitz bound);
  γ → ∞ gives q → 1 (the plain average) with C → M_k/τ → e^{2/τ}/τ as k → ∞;
* the k-free bound (1/τ) exp(2/τ − 2/(γτ²)) (``uniform_factor``) is the k → ∞ limit of C and lies above
  it for every k;
* the data-dependent factor ((1/k) Σ_j (k w_j)^r)^{1/r} = exp(Λ(γ; z)/(γτ) − Λ(1/τ; z)) (an identity,
  ``data_factor``), Λ(b; z) = log mean_j e^{b z_j}; its supremum over the segment replaces M_k^{1−1/r}.

γ is the toolkit's own *similarity-space exponent*; it is not the paper's β. The paper's Proposition 4
takes a power mean with exponent β ≥ 1 (which it calls the inverse temperature) of the negatives'
embedding differences ‖φ(z_j⁻) − φ'(z_j⁻)‖, with factor (3/τ) e^{2/(βτ)}; ours takes one with exponent q
of the similarity differences |v_j − v'_j|. The exponents agree when q = β ⇔ γ = β/(τ(β − 1))
(``gamma_from_paper_beta``), and there ``uniform_factor`` = e^{2/(βτ)}/τ: β = 1 ↔ γ = ∞ (plain average),
β → ∞ ↔ γ → 1/τ (the max). Identity steps "map to the paper's β: …" check both.

Proof (the ledger ``continuity``): mean value along the segment z + t h, ∂F/∂v_j = w_j/τ (softmax weights);
Hölder for the normalised counting measure with exponents (r, q); (1/k) Σ (k w_j)^r ≤ max_j (k w_j)^{r−1}
because Σ_j w_j = 1; k w_j ≤ M_k because x ↦ x/(x + c) increases.

Embeddings off the unit sphere (``continuity_factor(..., rho=ρ)``): if the similarities lie in [−ρ, ρ]
(ρ = ‖φ(x)‖ · max_j ‖φ(x_j)‖, so the negatives' norms enter), F_τ(v) = F_{τ/ρ}(v/ρ) gives
C_ρ(γ, τ, k) = (1/τ) (k e^{2ρ/τ}/(e^{2ρ/τ} + k − 1))^{1/q}; for large k its logarithmic sensitivity to
the norms, ∂ log C/∂ρ → 2/(qτ), grows without bound as τ → 0 (brief, item 6). With one norm per negative,
a_j = ‖φ(x)‖ ‖φ(x_j)‖, ``continuity_factor_norms`` uses max_j k e^{a_j/τ}/(e^{a_j/τ} + Σ_{i≠j} e^{−a_i/τ}).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import mpmath
import sympy as sp

from .ledger import Derivation, Domain, Shown, Step
from .results import ClosedForm, KernelFormula
from .symbols import TAU_MAX, TAU_MIN, beta, gamma, h, j, k, lam_gamma, lam_tau, q, r, rho, t, tau, v, x, y, z

ONE = sp.Integer(1)


# ----------------------------------------------------------------------------- validation


def _num(value: Any) -> bool:
    return isinstance(value, (int, float, mpmath.mpf)) or (isinstance(value, sp.Basic) and value.is_number)


def _check(tau_: Any = None, gamma_: Any = None, k_: Any = None, rho_: Any = None) -> None:
    """ValueError naming the parameter, its value and the allowed range (numeric arguments only)."""
    if tau_ is not None and _num(tau_) and not float(tau_) > 0:
        raise ValueError(f"tau must be > 0, got {tau_!r}")
    if k_ is not None and _num(k_) and (float(k_) < 1 or float(k_) != int(float(k_))):
        raise ValueError(f"k must be an integer ≥ 1, got {k_!r}")
    if rho_ is not None and _num(rho_) and not float(rho_) > 0:
        raise ValueError(f"rho must be > 0, got {rho_!r}")
    if (
        gamma_ is not None
        and _num(gamma_)
        and tau_ is not None
        and _num(tau_)
        and sp.nsimplify(gamma_) * sp.nsimplify(tau_) < 1 - sp.Rational(1, 10**12)
    ):
        raise ValueError(f"gamma must be ≥ 1/tau = {1 / float(tau_):.6g}, got {gamma_!r}")


def _s(value: Any) -> Any:
    """A SymPy number for a Python number (floats kept as exact binary rationals), symbols unchanged."""
    if isinstance(value, float):
        return sp.Rational(value)
    if isinstance(value, mpmath.mpf):
        return sp.Float(value, 30)
    return sp.sympify(value)


def _r(gamma_: Any, tau_: Any) -> Any:
    """r = γτ; a numeric r within the validation tolerance below 1 (γ = 1/τ in floats) is taken as 1."""
    r_ = _s(gamma_) * _s(tau_)
    if r_.is_number and r_ < 1:
        return sp.Integer(1)
    return r_


# ----------------------------------------------------------------------------- public constants


def holder_exponent(gamma_: Any = gamma, tau_: Any = tau) -> sp.Expr:
    """q(γ, τ) = γτ/(γτ − 1), the Hölder conjugate of r = γτ; valid for γ ≥ 1/τ (q = ∞ at γ = 1/τ)."""
    _check(tau_, gamma_)
    r_ = _r(gamma_, tau_)
    if r_ == 1:
        return sp.oo
    return r_ / (r_ - 1)


def gamma_from_paper_beta(beta_: Any = beta, tau_: Any = tau) -> sp.Expr:
    """γ(β, τ) = β/(τ(β − 1)): the γ of our family whose power-mean exponent q equals the paper's β.

    The paper's Proposition 4 takes a power mean with exponent β ≥ 1 of the negatives' *embedding*
    differences ‖φ(z_j⁻) − φ'(z_j⁻)‖; our family takes one with exponent q = γτ/(γτ − 1) of the
    negatives' *similarity* differences |v_j − v'_j|. q = β ⇔ γ = β/(τ(β − 1)); β = 1 (plain average)
    ↔ γ = ∞, β → ∞ (the max) ↔ γ → 1/τ. Valid for τ > 0, β ≥ 1 (∞ at β = 1).
    """
    beta_, tau_ = _s(beta_), _s(tau_)
    if beta_.is_number and beta_ < 1:
        raise ValueError(f"beta must be ≥ 1 (the paper's power-mean exponent), got {beta_}")
    if beta_ == 1:
        return sp.oo
    return beta_ / (tau_ * (beta_ - 1))


def weight_bound(tau_: Any = tau, k_: Any = k, rho_: Any = ONE) -> sp.Expr:
    """M_k = k e^{2ρ/τ}/(e^{2ρ/τ} + k − 1) = k/(1 + (k − 1) e^{−2ρ/τ}): max of k·softmax on [−ρ, ρ]^k.

    Valid for τ > 0, k ≥ 1, ρ > 0; M_1 = 1, M_k ≤ min(k, e^{2ρ/τ}) and M_k ↑ e^{2ρ/τ} as k → ∞.
    """
    _check(tau_, None, k_, rho_)
    tau_, k_, rho_ = _s(tau_), _s(k_), _s(rho_)
    return k_ / (1 + (k_ - 1) * sp.exp(-2 * rho_ / tau_))


def continuity_factor(gamma_: Any = gamma, tau_: Any = tau, k_: Any = k, rho_: Any = ONE) -> sp.Expr:
    """C(γ, τ, k) = (1/τ) M_k^{1 − 1/(γτ)}: |F(v) − F(v')| ≤ C · ((1/k) Σ_j |v_j − v'_j|^q)^{1/q}.

    The γ-continuity factor, for v, v' ∈ [−ρ, ρ]^k (ρ = 1: unit-norm embeddings), τ > 0, k ≥ 1,
    γ ≥ 1/τ, q = ``holder_exponent(γ, τ)``. γ = 1/τ gives 1/τ (the ℓ∞ bound, q = ∞).
    Source: ours (derivation ``continuity``); the brief's k-free factor is ``uniform_factor``.
    """
    _check(tau_, gamma_, k_, rho_)
    return weight_bound(tau_, k_, rho_) ** (1 - 1 / _r(gamma_, tau_)) / _s(tau_)


def uniform_factor(gamma_: Any = gamma, tau_: Any = tau, rho_: Any = ONE) -> sp.Expr:
    """(1/τ) exp(2ρ/τ − 2ρ/(γτ²)): the k-free factor (the brief's), = lim_{k→∞} ``continuity_factor``.

    Valid for τ > 0, γ ≥ 1/τ, similarities in [−ρ, ρ]; ≥ ``continuity_factor`` for every k ≥ 1.
    """
    _check(tau_, gamma_, None, rho_)
    gamma_, tau_, rho_ = _s(gamma_), _s(tau_), _s(rho_)
    return sp.exp(2 * rho_ / tau_ - 2 * rho_ / (gamma_ * tau_**2)) / tau_


def max_lipschitz(tau_: Any = tau) -> sp.Expr:
    """1/τ: |F(v) − F(v')| ≤ max_j |v_j − v'_j| / τ for all v, v' ∈ R^k (the ℓ∞ form, classical)."""
    _check(tau_)
    return 1 / _s(tau_)


def data_factor(lam_gamma: Any, lam_tau: Any, gamma_: Any = gamma, tau_: Any = tau) -> sp.Expr:
    """exp(Λ(γ; z)/(γτ) − Λ(1/τ; z)) = ((1/k) Σ_j (k w_j)^r)^{1/r}, r = γτ, w = softmax(z/τ).

    ``lam_gamma`` = Λ(γ; z), ``lam_tau`` = Λ(1/τ; z), Λ(b; z) = log((1/k) Σ_j e^{b z_j}); γ ≥ 1/τ.
    The data-dependent replacement of M_k^{1−1/r} in ``continuity_factor`` (sup over the segment).
    """
    _check(tau_, gamma_)
    return sp.exp(_s(lam_gamma) / (_s(gamma_) * _s(tau_)) - _s(lam_tau))


def l2_lipschitz(gamma_: Any = gamma, tau_: Any = tau, k_: Any = k, rho_: Any = ONE) -> sp.Expr:
    """C(γ, τ, k) · k^{−min(1/2, 1/q)}: an ℓ2-Lipschitz constant of F on [−ρ, ρ]^k from the γ family.

    From M_q(h) ≤ k^{−1/2} ‖h‖₂ (q ≤ 2, power means) and M_q(h) = k^{−1/q} ‖h‖_q ≤ k^{−1/q} ‖h‖₂ (q ≥ 2).
    Minimal over γ ≥ 1/τ at γ = 2/τ (``optimal_gamma``), where it equals (1/τ) √(M_k/k).
    """
    _check(tau_, gamma_, k_, rho_)
    q_ = holder_exponent(gamma_, tau_)
    if q_ == sp.oo:
        kexp = sp.Integer(0)
    elif q_.is_number:
        kexp = sp.Min(sp.Rational(1, 2), 1 / q_)
    else:
        kexp = sp.Min(sp.Rational(1, 2), 1 / q_)
    return continuity_factor(gamma_, tau_, k_, rho_) * _s(k_) ** (-kexp)


def continuity_factor_norms(gamma_: Any, tau_: Any, rho_x: Any, rho_negs: Sequence[Any], dps: int = 30) -> mpmath.mpf:
    """(1/τ) (max_j k e^{a_j/τ}/(e^{a_j/τ} + Σ_{i≠j} e^{−a_i/τ}))^{1 − 1/(γτ)},  a_j = ‖φ(x)‖ ‖φ(x_j)‖.

    The γ-continuity factor when the embeddings are not unit-norm: the similarity of negative j lies in
    [−a_j, a_j], and k w_j = k e^{z_j/τ}/(e^{z_j/τ} + Σ_{i≠j} e^{z_i/τ}) increases in z_j and decreases in z_i,
    so the bracket bounds max_j k w_j; the rest of the proof is the ledger ``continuity``. Each negative's norm
    enters through e^{±a_j/τ}: as τ → 0 the factor is driven by the largest norm product (brief, item 6).
    Equals ``continuity_factor(γ, τ, k, ρ)`` when every a_j = ρ. Valid for τ > 0, γ ≥ 1/τ, norms > 0.
    """
    _check(tau_, gamma_, len(rho_negs), rho_x)
    for j_, rj in enumerate(rho_negs):
        if not float(rj) > 0:
            raise ValueError(f"rho_negs[{j_}] must be > 0, got {rj!r}")
    with mpmath.workdps(dps):
        t_ = mpmath.mpf(tau_)
        a = [mpmath.mpf(rho_x) * mpmath.mpf(rj) for rj in rho_negs]
        k_ = len(a)
        lows = [mpmath.exp(-(ai - a[0]) / t_) for ai in a]  # e^{−a_i/τ} scaled by e^{a_0/τ}
        total_low = mpmath.fsum(lows)
        best = mpmath.mpf(0)
        for j_ in range(k_):
            # k e^{a_j/τ}/(e^{a_j/τ} + Σ_{i≠j} e^{−a_i/τ}) = k/(1 + e^{−a_j/τ} Σ_{i≠j} e^{−a_i/τ}), in the scaled form
            rest = (total_low - lows[j_]) * mpmath.exp(-(a[j_] + a[0]) / t_)
            best = max(best, k_ / (1 + rest))
        r_ = max(mpmath.mpf(gamma_) * t_, mpmath.mpf(1))
        return best ** (1 - 1 / r_) / t_


class GammaChoice(NamedTuple):
    """The γ chosen by ``optimal_gamma``, the bound it gives and what was minimised."""

    gamma: mpmath.mpf
    bound: mpmath.mpf
    criterion: str


def optimal_gamma(
    tau_: Any, k_: Any, h_: Sequence[Any] | None = None, rho_: Any = 1, gamma_max: Any = None, dps: int = 30
) -> GammaChoice:
    """γ minimising the bound it feeds; golden-section search in log(γτ − 1) over [1/τ, γ_max].

    * ``h_`` None: minimise the ℓ2-Lipschitz constant ``l2_lipschitz(γ, τ, k)`` (what the averaged
      Rademacher bound ``rademacher.complexity_avg`` is proportional to). The minimiser is γ = 2/τ
      (q = 2) for every k ≥ 2, proved in the ledger (step "γ = 2/τ minimises the ℓ2 constant").
    * ``h_`` a perturbation vector (|v_j − v'_j|, length k): minimise C(γ, τ, k) · M_q(h), the
      continuity bound for that perturbation; γ = 1/τ (the max) is a candidate and wins for spiky h.
    """
    _check(tau_, None, k_, rho_)
    with mpmath.workdps(dps):
        tau_m, k_i = mpmath.mpf(tau_), int(k_)
        rho_m = mpmath.mpf(rho_)
        mk = k_i / (1 + (k_i - 1) * mpmath.exp(-2 * rho_m / tau_m))
        if h_ is not None:
            hs = [abs(mpmath.mpf(e)) for e in h_]
            if len(hs) != k_i:
                raise ValueError(f"h must have k = {k_i} entries, got {len(hs)}")
            hmax = max(hs)

            def objective(r_):
                if r_ == 1:
                    return hmax / tau_m
                q_ = r_ / (r_ - 1)
                mq = (mpmath.fsum(e**q_ for e in hs) / k_i) ** (1 / q_) if hmax > 0 else mpmath.mpf(0)
                return mk ** (1 - 1 / r_) * mq / tau_m

            criterion = "continuity bound C(γ, τ, k)·M_q(h) for the given h"
        else:

            def objective(r_):
                kexp = mpmath.mpf(0) if r_ == 1 else min(mpmath.mpf(1) / 2, 1 - 1 / r_)
                return mk ** (1 - 1 / r_) * mpmath.mpf(k_i) ** (-kexp) / tau_m

            criterion = "ℓ2-Lipschitz constant C(γ, τ, k)·k^(−min(1/2, 1/q)) (feeds complexity_avg)"
        r_hi = mpmath.mpf(gamma_max) * tau_m if gamma_max is not None else mpmath.mpf(10) ** 6
        # search u = log(r − 1) ∈ [−40, log(r_hi − 1)], plus the endpoint r = 1 (γ = 1/τ)
        lo, hi = mpmath.mpf(-40), mpmath.log(r_hi - 1)
        grid = [lo + (hi - lo) * i_ / 400 for i_ in range(401)]
        vals = [objective(1 + mpmath.exp(u_)) for u_ in grid]
        i0 = min(range(len(vals)), key=lambda i_: vals[i_])
        a_, b_ = grid[max(0, i0 - 1)], grid[min(len(grid) - 1, i0 + 1)]
        g = (mpmath.sqrt(5) - 1) / 2
        for _ in range(200):
            c_, d_ = b_ - g * (b_ - a_), a_ + g * (b_ - a_)
            if objective(1 + mpmath.exp(c_)) <= objective(1 + mpmath.exp(d_)):
                b_ = d_
            else:
                a_ = c_
        r_best = 1 + mpmath.exp((a_ + b_) / 2)
        best = objective(r_best)
        if objective(mpmath.mpf(1)) <= best:
            r_best, best = mpmath.mpf(1), objective(mpmath.mpf(1))
        return GammaChoice(r_best / tau_m, best, criterion)


# ----------------------------------------------------------------------------- symbolic pieces


def F_expr(vec: sp.IndexedBase = v, k_: Any = k, tau_: Any = tau) -> sp.Expr:
    """F(v) = log((1/k) Σ_j e^{v_j/τ}) = Λ(1/τ; v)."""
    return sp.log(sp.Sum(sp.exp(vec[j] / tau_), (j, 1, k_)) / k_)


def _softmax(vec_j: sp.Expr, vec_of: Callable[[sp.Symbol], sp.Expr], k_: Any = k, tau_: Any = tau) -> sp.Expr:
    i_ = sp.Dummy("i", integer=True, positive=True)
    return sp.exp(vec_j / tau_) / sp.Sum(sp.exp(vec_of(i_) / tau_), (i_, 1, k_))


def _lme(b_: Any, vec: sp.IndexedBase, k_: Any = k) -> sp.Expr:
    """Λ(b; z) = log((1/k) Σ_j e^{b z_j}) (same as ``loss.log_mean_exp``)."""
    return sp.log(sp.Sum(sp.exp(b_ * vec[j]), (j, 1, k_)) / k_)


def power_mean(expr_j: sp.Expr, q_: Any, k_: Any = k) -> sp.Expr:
    """M_q = ((1/k) Σ_j |e_j|^q)^{1/q} of the entries e_j = ``expr_j`` (a function of ``j``)."""
    return (sp.Sum((expr_j**2) ** (q_ / 2), (j, 1, k_)) / k_) ** (1 / q_)  # |e|^q without Abs (cheaper)


# ----------------------------------------------------------------------------- proof hints


def _powsimp(e: sp.Expr) -> sp.Expr:
    """Combine powers of positive bases (every base in the steps using it is > 0)."""
    return sp.simplify(sp.powsimp(sp.expand(e)))


def factored_check(
    certificate: sp.Expr, simplifier: Callable[[sp.Expr], sp.Expr] | None = None
) -> tuple[str, dict[str, Any]]:
    """``Step.route`` of the certificate route (``checks/certificate.py``) for ``gap = certificate``, a factored form
    of ``rhs − lhs`` whose sign interval arithmetic certifies: the hint ``("certificate", {"certificate": c})``, data
    (the name is historical: no checker is built). ``simplifier``: None or ``_powsimp`` (the hint's named
    reduction ``"powsimp"``, tried on ``gap − certificate`` after the exact rational rewrites)."""
    if simplifier is not None and simplifier is not _powsimp:
        raise ValueError(f"simplifier must be None or continuity._powsimp (a named reduction), got {simplifier!r}")
    return ("certificate", {"certificate": certificate, **({"reduction": "powsimp"} if simplifier is _powsimp else {})})


# ----------------------------------------------------------------------------- the ledger

QUAD_TAU_MIN = 0.05  #: below it the mean value integrand is a near-step in t and quadrature needs many panels

TAU_BOX = (TAU_MIN, TAU_MAX)
#: M_k written so that interval arithmetic sees M_k ≥ 1 and M_k/k ≤ 1 (each k-dependence isolated)
_M_GE_1 = 1 + (k - 1) * (1 - sp.exp(-2 / tau)) / (1 + (k - 1) * sp.exp(-2 / tau))
_M_OVER_K = 1 / (1 + (k - 1) * sp.exp(-2 / tau))
R_BOX = (sp.Rational(101, 100), 100)  # r = γτ for vector claims (q = r/(r − 1) finite)
#: certificates (gap = certificate, factored: no cancellation for interval arithmetic) of the weight bound and of
#: sharpened ≤ uniform
_WEIGHT_CERT = (
    k
    * (k - 1)
    * sp.exp(-2 / tau)
    * (sp.exp((2 + y - x) / tau) - 1)
    / ((1 + (k - 1) * sp.exp((y - x) / tau)) * (1 + (k - 1) * sp.exp(-2 / tau)))
)
_UNIFORM_CERT = sp.exp(2 / tau - 2 / (r * tau)) * (1 - (1 / (1 + (sp.exp(2 / tau) - 1) / k)) ** (1 - 1 / r))


def _domains() -> dict[str, Domain]:
    return {
        "vec": Domain(
            {tau: TAU_BOX, k: (1, sp.oo), v: (-1, 1), z: (-1, 1), t: (0, 1)},
            name="τ ∈ [1e-3, 1e2], k ≥ 1, v, z ∈ [−1, 1]^k, t ∈ [0, 1]",
        ),
        "holder": Domain(
            {tau: TAU_BOX, k: (1, sp.oo), z: (-1, 1), h: (-2, 2), r: R_BOX},
            name="τ ∈ [1e-3, 1e2], k ≥ 1, z ∈ [−1, 1]^k, h ∈ [−2, 2]^k, r = γτ ∈ [1.01, 100]",
        ),
        "result": Domain(
            {tau: TAU_BOX, k: (1, sp.oo), v: (-1, 1), z: (-1, 1), r: R_BOX},
            name="τ ∈ [1e-3, 1e2], k ≥ 1, v, z ∈ [−1, 1]^k, r = γτ ∈ [1.01, 100]",
        ),
        "pow": Domain({y: (0, sp.oo), r: (1, sp.oo)}, name="y ≥ 0 (ω = e^{−y} ∈ (0, 1]), r ≥ 1"),
        "weight": Domain(
            {tau: TAU_BOX, k: (1, sp.oo), x: (-1, 1), y: (-1, 1)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, x, y ∈ [−1, 1]"
        ),
        "tk": Domain({tau: TAU_BOX, k: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1"),
        "tkr": Domain({tau: TAU_BOX, k: (1, sp.oo), r: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, r = γτ ≥ 1"),
        "tkrho": Domain(
            {tau: TAU_BOX, k: (1, sp.oo), gamma: (sp.Rational(1, 100), 10**5), rho: (sp.Rational(1, 100), 100)},
            constraints=(sp.Ge(gamma * tau, 1),),
            name="τ ∈ [1e-3, 1e2], k ≥ 1, γτ ≥ 1, ρ ∈ [1e-2, 1e2]",
        ),
        "tq": Domain({tau: TAU_BOX, q: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], q ≥ 1"),
        "tbeta": Domain(
            {tau: TAU_BOX, beta: (sp.Rational(101, 100), sp.oo)}, name="τ ∈ [1e-3, 1e2], the paper's β ∈ [1.01, ∞)"
        ),
        "tb": Domain(
            {tau: TAU_BOX, gamma: (sp.Rational(1, 100), sp.oo), k: (1, sp.oo)}, name="τ ∈ [1e-3, 1e2], γ > 0, k ≥ 1"
        ),
    }


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 50


def _linear_sums(e: sp.Expr) -> sp.Expr:
    """``checks.sums.linear_sums``: the sums' constant factors taken outside, one index for every sum (an identity)."""
    from .checks.sums import linear_sums

    return linear_sums(e)


def _composition(D: dict[str, Domain], F_seg: sp.Expr, grad_along: sp.Expr, w_z: sp.Expr, qr: sp.Expr):
    """The mean value step (FTC along z + th), the pointwise bound on its integrand at every z ∈ [−1, 1]^k, and
    γ-continuity's hint composing them (``checks/mean_value_composition.py``): the segment's point z + th and its
    direction h = v − z put in the pointwise step's z and h."""
    from .checks import mean_value_composition

    mean_value = Step(
        "mean value along the segment: F(v) − F(z) = ∫₀¹ (1/τ) Σ_j w_j(z + t h) h_j dt",
        F_expr(v) - F_expr(z),
        sp.Integral(grad_along, (t, 0, 1)),
        kind="identity",
        domain=D["vec"],
        provenance="classical",
        reference="fundamental theorem of calculus (F is C¹ on R^k)",
        # FTC with F along the segment as the antiderivative (step 1 is its derivative); quadrature attacks beside
        route=("quadrature", {"floor": {tau: QUAD_TAU_MIN}, "antiderivative": F_seg, "reduction": "linear_sums"}),
    )
    pointwise = Step(
        "pointwise: (1/τ) Σ_j w_j(z) |h_j| ≤ C(γ, τ, k) · M_q(h) at every z ∈ [−1, 1]^k (Hölder, D_r(w) ≤ M_k^{1−1/r})",
        sp.Sum(w_z * sp.sqrt(h[j] ** 2), (j, 1, k)) / tau,
        continuity_factor(r / tau, tau, k) * power_mean(h[j], qr),
        kind="inequality",
        relation="<=",
        domain=D["holder"],
        provenance="ours",
        note="the two steps above in one claim (the sums route: largest softmax weight, then Hölder); the bound on "
        "the mean value integrand at each point z + th of the segment",
    )
    i_ = sp.Symbol("i", integer=True, positive=True)
    at = {z: sp.Lambda(i_, z[i_] + t * (v[i_] - z[i_])), h: sp.Lambda(i_, v[i_] - z[i_])}
    return mean_value, pointwise, mean_value_composition.hint(t, mean_value, [pointwise], at)


def derivations() -> list[Derivation]:
    D = _domains()
    hj = v[j] - z[j]
    seg = lambda i_: z[i_] + t * (v[i_] - z[i_])
    F_seg = sp.log(sp.Sum(sp.exp(seg(j) / tau), (j, 1, k)) / k)
    grad_along = sp.Sum(_softmax(seg(j), seg) * hj, (j, 1, k)) / tau
    w_z = _softmax(z[j], lambda i_: z[i_])
    qr = r / (r - 1)
    Mk = weight_bound(tau, k)
    Dr = power_mean(k * w_z, r)  # ((1/k) Σ (k w_j)^r)^{1/r}
    adv_vec = [
        {k: 2, v[1]: 1, v[2]: -1, z[1]: -1, z[2]: -1, r: 2, tau: sp.Rational(1, 2)},
        {
            k: 12,
            **{v[i_]: -1 for i_ in range(1, 13)},
            v[1]: 1,
            **{z[i_]: -1 for i_ in range(1, 13)},
            r: sp.Rational(101, 100),
            tau: sp.Rational(1, 10),
        },
        {k: 1, v[1]: 1, z[1]: -1, r: 100, tau: 100},
    ]
    mean_value, pointwise, along = _composition(D, F_seg, grad_along, w_z, qr)
    steps = [
        Step(
            "F along the segment: d/dt F(z + t h) = (1/τ) Σ_j w_j(z + t h) h_j",
            sp.diff(F_seg, t),
            grad_along,
            kind="identity",
            domain=D["vec"],
            provenance="ours",
            # SymPy's simplify cannot take the inner sum (its own dummy index) out of the outer one (2.7 s of
            # strategies for no reduction): linearity does (Σ_j C·f_j = C·Σ_j f_j, one index for every sum)
            simplifier=_linear_sums,
            note="w = softmax((z + t h)/τ); h = v − z; the segment stays in [−1, 1]^k (convexity)",
        ),
        mean_value,
        Step(
            "Hölder for the normalised counting measure: Σ_j w_j |h_j| ≤ D_r(w) · M_q(h)",
            sp.Sum(w_z * sp.sqrt(h[j] ** 2), (j, 1, k)),
            Dr * power_mean(h[j], qr),
            kind="inequality",
            relation="<=",
            domain=D["holder"],
            provenance="classical",
            reference="Hölder's inequality (Hardy, Littlewood & Pólya, Inequalities, 1952, Thm 13) with "
            "Σ_j w_j|h_j| = (1/k) Σ_j (k w_j)|h_j|, exponents r = γτ and q = r/(r − 1)",
            adversarial=[{k: 3, z[1]: 1, z[2]: -1, z[3]: -1, h[1]: 2, h[2]: 2, h[3]: 2, r: 2, tau: 1}],
            note="vector claim: falsifier only; D_r(w) = ((1/k) Σ_j (k w_j)^r)^{1/r}",
        ),
        Step(
            "data-dependent factor: D_r(w) = exp(Λ(γ; z)/(γτ) − Λ(1/τ; z)), γ = r/τ",
            Dr,
            data_factor(_lme(r / tau, z), _lme(1 / tau, z), r / tau, tau),
            kind="identity",
            domain=D["holder"],
            provenance="ours",
            # the softmax power (k² e^{2z_j/τ}/(Σ_i e^{z_i/τ})²)^{r/2} split over its positive factors and the
            # normaliser taken out of the sum (linearity), then SymPy's simplify: a symbolic identity
            simplifier=lambda e: sp.simplify(_linear_sums(e)),
            note="k w_j = e^{z_j/τ − Λ(1/τ; z)}; raise to r = γτ, average, take the r-th root",
        ),
        Step(
            "power reduction (reduced scalar, ω = e^{−y} = k w_j / max_i k w_i): ω^r ≤ ω",
            sp.exp(-r * y),
            sp.exp(-y),
            kind="inequality",
            relation="<=",
            domain=D["pow"],
            provenance="ours",
            route=("certificate", {"certificate": sp.exp(-y) * (1 - sp.exp(-(r - 1) * y))}),
            note="summed with Σ_j w_j = 1 it gives (1/k) Σ_j (k w_j)^r ≤ max_j (k w_j)^{r−1}",
        ),
        Step(
            "weight bound (reduced scalar): k w_j = k/(1 + (k−1) e^{(y−x)/τ}) ≤ M_k = k/(1 + (k−1) e^{−2/τ})",
            k / (1 + (k - 1) * sp.exp((y - x) / tau)),
            Mk,
            kind="inequality",
            relation="<=",
            domain=D["weight"],
            provenance="ours",
            route=factored_check(_WEIGHT_CERT),
            note="x = z_j, and τ log of the mean of the other k − 1 terms e^{z_i/τ} is some y ∈ [−1, 1]",
        ),
        Step(
            "D_r(w) ≤ M_k^{1 − 1/r} on [−1, 1]^k (vector form of the two steps above)",
            Dr,
            Mk ** (1 - 1 / r),
            kind="inequality",
            relation="<=",
            domain=D["holder"],
            provenance="ours",
            adversarial=[{k: 12, z[1]: 1, **{z[i_]: -1 for i_ in range(2, 13)}, r: 100, tau: sp.Rational(1, 2)}],
        ),
        pointwise,
        Step(
            "M_k ≤ e^{2/τ}",
            Mk,
            sp.exp(2 / tau),
            kind="inequality",
            relation="<=",
            domain=D["tk"],
            provenance="ours",
            route=("certificate", {"certificate": sp.exp(2 / tau) * (sp.exp(2 / tau) - 1) / (sp.exp(2 / tau) + k - 1)}),
        ),
        Step(
            "M_k ≤ k",
            Mk,
            k,
            kind="inequality",
            relation="<=",
            domain=D["tk"],
            provenance="ours",
            route=("certificate", {"certificate": k * (k - 1) * sp.exp(-2 / tau) / (1 + (k - 1) * sp.exp(-2 / tau))}),
        ),
        Step(
            "sharpened ≤ uniform: M_k^{1−1/r} ≤ exp(2/τ − 2/(γτ²)), r = γτ",
            Mk ** (1 - 1 / r),
            sp.exp(2 / tau - 2 / (r * tau)),
            kind="inequality",
            relation="<=",
            domain=D["tkr"],
            provenance="ours",
            route=factored_check(_UNIFORM_CERT),
        ),
        Step(
            "γ-continuity: |F(v) − F(z)| ≤ C(γ, τ, k) · M_q(v − z), C = (1/τ) M_k^{1−1/(γτ)}",
            F_expr(v) - F_expr(z),
            continuity_factor(r / tau, tau, k) * power_mean(hj, qr),
            kind="inequality",
            relation="<=",
            domain=D["result"],
            provenance="ours",
            adversarial=adv_vec,
            # F(v) − F(z) = ∫₀¹ g dt (the mean value step) and g ≤ its triangle majorant, the pointwise step at
            # z + th, which stays in [−1, 1]^k (both ends do: a box is convex), h = v − z ∈ [−2, 2]^k
            route=along,
            note="the mean value step and the pointwise step at each point of the segment; stated for F(v) − F(z): "
            "the rhs is symmetric in (v, z), so swapping them gives the absolute value",
        ),
        Step(
            "shift: F(z + c·1) = F(z) + c/τ (hence |F(v) − F(z)| ≤ max_j |h_j|/τ with monotonicity)",
            sp.log(sp.Sum(sp.exp((z[j] + x) / tau), (j, 1, k)) / k),
            F_expr(z) + x / tau,
            kind="identity",
            domain=D["holder"] | Domain({x: (-2, 2)}),
            provenance="classical",
            reference="translation property of log-sum-exp",
            note="with ∂F/∂v_j = w_j/τ ≥ 0: the ℓ∞ bound, 1/τ",
        ),
        Step(
            "γ = 1/τ: lim_{γ→1/τ} C(γ, τ, k) = 1/τ (the max over the negatives)",
            continuity_factor(gamma, tau, k),
            1 / tau,
            kind="limit",
            var=gamma,
            point=1 / tau,
            domain=D["tb"],
            provenance="ours",
        ),
        Step(
            "γ = 1/τ: lim_{γ→1/τ⁺} q = ∞ (ℓ_q mean → max)",
            holder_exponent(gamma, tau),
            sp.oo,
            kind="limit",
            var=gamma,
            point=1 / tau,
            domain=D["tb"],
            provenance="ours",
        ),
        Step(
            "γ → ∞: q → 1 (the plain average over the negatives)",
            holder_exponent(gamma, tau),
            1,
            kind="limit",
            var=gamma,
            domain=D["tb"],
            provenance="ours",
        ),
        Step(
            "γ → ∞: C → M_k/τ",
            continuity_factor(gamma, tau, k),
            Mk / tau,
            kind="limit",
            var=gamma,
            domain=D["tb"],
            provenance="ours",
        ),
        Step(
            "k → ∞ at γ → ∞: M_k/τ → e^{2/τ}/τ",
            Mk / tau,
            sp.exp(2 / tau) / tau,
            kind="limit",
            var=k,
            domain=D["tk"],
            provenance="ours",
        ),
        Step(
            "k → ∞: C(γ, τ, k) → (1/τ) exp(2/τ − 2/(γτ²)) (the uniform factor)",
            continuity_factor(gamma, tau, k),
            uniform_factor(gamma, tau),
            kind="limit",
            var=k,
            domain=D["tb"],
            provenance="ours",
        ),
        Step(
            "map to the paper's β: q(γ, τ) = β at γ = β/(τ(β − 1)) (q = β ⇔ γ = β/(τ(β − 1)))",
            holder_exponent(gamma_from_paper_beta(beta, tau), tau),
            beta,
            kind="identity",
            domain=D["tbeta"],
            provenance="ours",
            note="the paper's β (Prop. 4) is a power-mean exponent on embedding differences ‖φ(z_j⁻) − φ'(z_j⁻)‖; "
            "our q is one on similarity differences |v_j − v'_j|: the two power means have the same exponent here",
        ),
        Step(
            "map to the paper's β: at γ = β/(τ(β − 1)) the uniform factor is the paper's e^{2/(βτ)}/τ",
            uniform_factor(gamma_from_paper_beta(beta, tau), tau),
            sp.exp(2 / (beta * tau)) / tau,
            kind="identity",
            domain=D["tbeta"],
            provenance="ours",
            note="Prop. 4's negatives term is (3/τ) e^{2/(βτ)} M_β(‖Δ_j⁻‖); ours, for the DCL loss's F, is "
            "C(γ, τ, k) M_q(|Δv_j|) with C ≤ e^{2/(βτ)}/τ at q = β (the steps above)",
        ),
        Step(
            "map to the paper's β: β → ∞ (the paper's max) ↔ γ → 1/τ (our max form)",
            gamma_from_paper_beta(beta, tau),
            1 / tau,
            kind="limit",
            var=beta,
            domain=D["tbeta"],
            provenance="ours",
        ),
        Step(
            "norms: C_ρ(γ, τ, k) = C(γρ, τ/ρ, k)/ρ (similarities in [−ρ, ρ], F_τ(v) = F_{τ/ρ}(v/ρ))",
            Shown(continuity_factor(gamma, tau, k, rho), r"C_\rho(\gamma, \tau, k)", "C_ρ(γ, τ, k)"),
            Shown(continuity_factor(gamma * rho, tau / rho, k), r"C(\gamma\rho, \tau/\rho, k)", "C(γρ, τ/ρ, k)") / rho,
            kind="identity",
            domain=D["tkrho"],
            provenance="ours",
        ),
        Step(
            "low τ: ∂ log C_ρ^{(k=∞)}/∂ρ = 2/(qτ) → ∞ as τ → 0",
            sp.diff(sp.log(uniform_factor(gamma, tau, rho)), rho).subs(gamma, (q / (q - 1)) / tau),
            sp.oo,
            kind="limit",
            var=tau,
            point=0,
            domain=D["tq"] | Domain({q: (sp.Rational(101, 100), sp.oo), rho: (sp.Rational(1, 100), 100)}),
            provenance="ours",
            note="sensitivity of the k → ∞ constant to the norm bound ρ; at finite k, C_ρ → k^{1/q}/τ as τ → 0",
        ),
        Step(
            "M_k = 1 + (k − 1)(1 − e^{−2/τ})/(1 + (k − 1) e^{−2/τ}) (so M_k ≥ 1 is visible)",
            Mk,
            _M_GE_1,
            kind="identity",
            domain=D["tk"],
            provenance="ours",
        ),
        Step(
            "γ = 2/τ minimises the ℓ2 constant, branch γτ ≥ 2: M_k^{1/2} ≤ M_k^{1 − 1/r}",
            _M_GE_1 ** sp.Rational(1, 2),
            _M_GE_1 ** (1 - 1 / r),
            kind="inequality",
            relation="<=",
            domain=Domain({tau: TAU_BOX, k: (1, sp.oo), r: (2, sp.oo)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, r = γτ ≥ 2"),
            provenance="ours",
            route=factored_check(_M_GE_1 ** sp.Rational(1, 2) * (_M_GE_1 ** (sp.Rational(1, 2) - 1 / r) - 1), _powsimp),
            note="l2_lipschitz = C(γ, τ, k) k^{−1/2} for q ≤ 2: increasing in r, smallest at r = 2",
        ),
        Step(
            "γ = 2/τ minimises the ℓ2 constant, branch 1 ≤ γτ ≤ 2: (M_k/k)^{1/2} ≤ (M_k/k)^{1 − 1/r}",
            (Mk / k) ** sp.Rational(1, 2),
            (Mk / k) ** (1 - 1 / r),
            kind="inequality",
            relation="<=",
            domain=Domain({tau: TAU_BOX, k: (1, sp.oo), r: (1, 2)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, r = γτ ∈ [1, 2]"),
            provenance="ours",
            route=(
                "certificate",
                {"certificate": _M_OVER_K ** (1 - 1 / r) * (1 - _M_OVER_K ** (1 / r - sp.Rational(1, 2)))},
            ),
            note="l2_lipschitz = C(γ, τ, k) k^{−1/q} = (M_k/k)^{1−1/r}/τ for q ≥ 2: decreasing in r",
        ),
        Step(
            "cross-check: ‖∇F(z)‖₂ = (1/τ) ‖w‖₂ ≤ (1/τ) √(M_k/k) = l2_lipschitz(2/τ, τ, k)",
            sp.sqrt(sp.Sum(w_z**2, (j, 1, k))) / tau,
            l2_lipschitz(2 / tau, tau, k),
            kind="inequality",
            relation="<=",
            domain=D["holder"],
            provenance="ours",
            adversarial=[
                {k: 12, z[1]: 1, **{z[i_]: -1 for i_ in range(2, 13)}, tau: sp.Rational(1, 3)},
                {k: 2, z[1]: 1, z[2]: -1, tau: sp.Rational(1, 1000)},
            ],
            note="the gradient route to the ℓ2 constant agrees with the γ family at its optimum γ = 2/τ",
        ),
    ]
    return [
        Derivation(
            "continuity",
            "continuity of the log-mean-exp in the negatives: ℓ∞ bound and the γ family",
            steps,
            result="γ-continuity: |F(v) − F(z)| ≤ C(γ, τ, k) · M_q(v − z), C = (1/τ) M_k^{1−1/(γτ)}",
            source="ours",
            paper_claim="Proposition 4 (derivation prop4): |ℓ(φ) − ℓ(φ')| ≤ (4/τ)‖Δ^a‖ + (1/τ)‖Δ^+‖ + (3/τ) e^{2/(βτ)} "
            "((1/k) Σ_j ‖Δ_j^-‖^β)^{1/β}, β ≥ 1, a power mean over the negatives' embedding differences; ours "
            "is in their similarities with exponent q = γτ/(γτ − 1), and q = β ⇔ γ = β/(τ(β − 1))",
            summary="F(v) = log((1/k) Σ_j e^{v_j/τ}); C(γ, τ, k) = (1/τ) (k e^{2/τ}/(e^{2/τ} + k − 1))^{1 − 1/(γτ)}, "
            "q = γτ/(γτ − 1)",
            objects={
                "holder_exponent": holder_exponent,
                "continuity_factor": continuity_factor,
                "weight_bound": weight_bound,
                "uniform_factor": uniform_factor,
                "max_lipschitz": max_lipschitz,
                "data_factor": data_factor,
                "l2_lipschitz": l2_lipschitz,
            },
        )
    ]


#: what ``infonce-bounds constants`` certifies from this module (``derivations.results``)
CLOSED_FORMS = [
    ClosedForm("holder_exponent", "q(γ, τ) = γτ/(γτ − 1)", holder_exponent, "ours", "k-free", show="continuity"),
    ClosedForm("continuity_factor", "C(γ, τ, k)", continuity_factor, "ours", "bounded in k", show="continuity"),
    ClosedForm(
        "uniform_factor",
        "(1/τ) e^{2/τ − 2/(γτ²)} = lim_k C(γ, τ, k)",
        uniform_factor,
        "ours",
        "k-free",
        show="continuity",
    ),
    ClosedForm(
        "l2_lipschitz",
        "C(γ, τ, k) k^{−min(1/2, 1/q)} (feeds 2·Rad)",
        l2_lipschitz,
        "ours",
        "→ 0 like k^{-1/2} for γ ≥ 2/τ",
        show="rademacher_avg",
    ),
    ClosedForm("max_lipschitz", "1/τ (ℓ∞ form)", max_lipschitz, "classical", "k-free", show="continuity"),
]

#: the data-dependent factor the numba kernels evaluate from Λ at b = γ and b = 1/τ (``numerics.codegen``)
KERNEL_FORMULAS = [
    KernelFormula(
        "data_factor",
        ("lam_gamma", "lam_tau", "gamma", "tau"),
        lambda: data_factor(lam_gamma, lam_tau, gamma, tau),
        "derivations.continuity.data_factor",
        "continuity / data-dependent factor: D_r(w) = exp(Λ(γ; z)/(γτ) − Λ(1/τ; z)), γ = r/τ",
        "exp(Λ(γ; z)/(γτ) − Λ(1/τ; z)), the data-dependent continuity factor, from Λ at b = γ and b = 1/τ.",
    ),
]
