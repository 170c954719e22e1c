"""Rademacher complexity of the InfoNCE loss class over a Lipschitz-parametrised embedding class.

R̂_n(ℓ∘Θ) ≤ 6 c₀ J √(p/n) · [1/τ + √2 · L₂(F) · √k],  J = √(log(4(1 + max(2, 4LR)))),  c₀ = min(1, 2LR),

for the DCL loss (paper §3.4) ℓ̃_θ = −s⁺_θ/τ + F(s_θ), F(v) = log((1/k) Σ_j e^{v_j/τ}), similarities
s_j(θ) = ⟨φ_θ(x), φ_θ(x_j)⟩ with φ_θ(y) ∈ S^{d−1}, ‖φ_θ(y) − φ_θ'(y)‖ ≤ L ‖θ − θ'‖ for all y, θ ∈ R^p,
‖θ‖ ≤ R; R̂_n(G) = E_ε sup_{g ∈ G} (1/n) Σ_i ε_i g(z_i) (empirical; the bound is uniform in the sample, so it
also bounds the expected complexity). L₂(F) is an ℓ2-Lipschitz constant of F on [−1, 1]^k:

* ``complexity_max``: L₂ = 1/τ, from the ℓ∞ (max-over-negatives) bound and ‖h‖_∞ ≤ ‖h‖₂ — grows like √k;
* ``complexity_avg``: L₂ = C(γ, τ, k) k^{−min(1/2, 1/q)} from the γ family (``continuity.l2_lipschitz``); at
  γ = 2/τ (the minimiser) L₂ = (1/τ)√(M_k/k) and the bracket is 1/τ + √2 √M_k/τ → (1 + √2 e^{1/τ})/τ as
  k → ∞: it flattens in k.

Classical results used (quoted, provenance ``classical``):

1. Vector contraction (Maurer 2016, "A vector-contraction inequality for Rademacher complexities", ALT,
   Corollary 1): for h_i : R^K → R with |h_i(u) − h_i(u')| ≤ L₂ ‖u − u'‖₂ and any class of f : X → R^K,
   E sup_f Σ_i ε_i h_i(f(x_i)) ≤ √2 L₂ E sup_f Σ_i Σ_m ε_{im} f_m(x_i). Our L₂ for the γ family holds on
   [−1, 1]^k only; h = F∘clip (clip onto the cube is 1-Lipschitz in ℓ2 and the identity on the similarities)
   is L₂-Lipschitz on all of R^k and agrees with F on the class, so the corollary applies.
2. Chaining (Shalev-Shwartz & Ben-David 2014, Understanding Machine Learning, Lemma 27.4, M → ∞): for
   A ⊂ R^m and any c ≥ min_ā max_{a ∈ A} ‖a − ā‖, R(A) := (1/m) E sup_{a ∈ A} ⟨σ, a⟩ ≤ (6c/m) Σ_{l ≥ 1} 2^{−l}
   √(log N(c 2^{−l}, A)).
3. Covering the ball (Vershynin 2018, High-Dimensional Probability, Cor. 4.2.13): N(B_R ⊂ R^p, ε) ≤ (1 + 2R/ε)^p.

With them (ours): a class of m-point coordinate vectors that is Λ-Lipschitz in θ per coordinate and lies
within √m c₀ of a centre has R(A) ≤ 6 c₀ √(p/m) Σ_l 2^{−l} √(log(1 + 2^l χ)) ≤ 6 c₀ √(p/m) √(log(4(1 + χ))),
χ = 2ΛR/c₀ (``chaining_bound``): 1 + 2^l χ ≤ 2^l (1 + χ), Jensen with weights 2^{−l}, Σ_l l 2^{−l} = 2.
For similarities Λ = 2L (Cauchy–Schwarz on the sphere), c₀ = min(1, 2LR) (values in [−1, 1], centre θ = 0),
so χ = max(2, 4LR).

Honest note on k: the growth of ``complexity_max`` (∝ √k) is the price of the ℓ∞ → ℓ2 conversion inside the
vector-contraction route, not a property of the class. Bounding the loss directly as a (4L/τ)-Lipschitz
function of θ (|Δℓ| ≤ |Δs⁺|/τ + max_j |Δs_j|/τ) gives the k-free ``complexity_direct`` = (12/τ) c₀ J √(p/n),
which for this parametric class is below both. The averaging family matters where only the
vector-valued class is controlled (vector contraction): there it removes the √k.
"""

from __future__ import annotations

import itertools
import random
from typing import Any

import mpmath
import sympy as sp

from . import continuity as _cont
from .checks import DEFAULTS
from .checks.laws import search, search_result
from .ledger import Derivation, Domain, Link, Shown, Step, StepResult
from .symbols import TAU_MAX, TAU_MIN, L, Lam, R, Rad_n, Rad_vec, c0, chi, gamma, h, j, k, m_lvl, n, p, r, tau

SQRT2 = sp.sqrt(2)

#: the two complexities in the middle of the max-type and averaged chains (opaque, ≥ 0 as complexities of classes
#: holding a constant-free function of θ: E sup ≥ sup E = 0): R̂_n({z ↦ s⁺_θ(z)}) and R̂_n({z ↦ F(s_θ(z))})
Rad_pos = sp.Symbol("Rad_pos", nonnegative=True)
Rad_F = sp.Symbol("Rad_F", nonnegative=True)


# ----------------------------------------------------------------------------- validation


def _check(tau_=None, gamma_=None, k_=None, n_=None, L_=None, p_=None, R_=None) -> None:
    """ValueError naming the parameter, its value and the allowed range (numeric arguments only)."""
    _cont._check(tau_, gamma_, k_)
    num = _cont._num
    if n_ is not None and num(n_) and (float(n_) < 1 or float(n_) != int(float(n_))):
        raise ValueError(f"n must be an integer ≥ 1, got {n_!r}")
    if p_ is not None and num(p_) and (float(p_) < 1 or float(p_) != int(float(p_))):
        raise ValueError(f"p must be an integer ≥ 1, got {p_!r}")
    for name, val in (("L", L_), ("R", R_)):
        if val is not None and num(val) and not float(val) >= 0:
            raise ValueError(f"{name} must be ≥ 0, got {val!r}")


_s = _cont._s


# ----------------------------------------------------------------------------- public bounds


def chaining_bound(c0_: Any = c0, chi_: Any = chi, p_: Any = p, m_: Any = n) -> sp.Expr:
    """6 c₀ √(p/m) √(log(4(1 + χ))): bound on R(A) = (1/m) E sup_{a∈A} ⟨σ, a⟩ for a parametric class.

    Valid when A = {(g_i(θ))_{i ≤ m} : θ ∈ R^p, ‖θ‖ ≤ R}, each g_i Λ-Lipschitz in θ, A within √m c₀ of a
    centre (e.g. |g_i| ≤ c₀), and χ ≥ 2ΛR/c₀. From Shalev-Shwartz & Ben-David (2014) Lemma 27.4 (M → ∞)
    and Vershynin (2018) Cor. 4.2.13; the closing √(log(4(1 + χ))) is ours (derivation ``rademacher_chaining``).
    """
    c0_, chi_, p_, m_ = _s(c0_), _s(chi_), _s(p_), _s(m_)
    return 6 * c0_ * sp.sqrt(p_ / m_) * sp.sqrt(sp.log(4 * (1 + chi_)))


def similarity_radius(L_: Any = L, R_: Any = R) -> sp.Expr:
    """c₀ = min(1, 2LR): every similarity is in [−1, 1] and within 2LR of its value at θ = 0."""
    return sp.Min(1, 2 * _s(L_) * _s(R_))


def similarity_chi(L_: Any = L, R_: Any = R) -> sp.Expr:
    """χ = 2ΛR/c₀ with Λ = 2L, c₀ = min(1, 2LR): χ = max(2, 4LR) (no division, defined at L R = 0)."""
    return sp.Max(2, 4 * _s(L_) * _s(R_))


def entropy_factor(L_: Any = L, R_: Any = R) -> sp.Expr:
    """J = √(log(4(1 + max(2, 4LR)))), the chaining integral of the similarity classes."""
    return sp.sqrt(sp.log(4 * (1 + similarity_chi(L_, R_))))


def complexity_positive(tau_: Any = tau, n_: Any = n, L_: Any = L, p_: Any = p, R_: Any = R) -> sp.Expr:
    """(1/τ) · 6 c₀ J √(p/n) ≥ R̂_n({s⁺_θ/τ}): the positive-pair part of the loss class (k-free)."""
    _check(tau_, None, None, n_, L_, p_, R_)
    return chaining_bound(similarity_radius(L_, R_), similarity_chi(L_, R_), p_, n_) / _s(tau_)


def vector_complexity(k_: Any = k, n_: Any = n, L_: Any = L, p_: Any = p, R_: Any = R) -> sp.Expr:
    """6 c₀ J √(pk/n) ≥ (1/n) E sup_θ Σ_{i ≤ n} Σ_{m ≤ k} ε_im s_m(θ; x_i): chaining over the nk coordinates.

    = k · ``chaining_bound`` on m = nk points (the vector class seen as one class on nk points).
    """
    _check(None, None, k_, n_, L_, p_, R_)
    k_ = _s(k_)
    return k_ * chaining_bound(similarity_radius(L_, R_), similarity_chi(L_, R_), p_, _s(n_) * k_)


def complexity_max(tau_: Any = tau, k_: Any = k, n_: Any = n, L_: Any = L, p_: Any = p, R_: Any = R) -> sp.Expr:
    """R̂_n(ℓ̃ ∘ Θ) ≤ 6 c₀ J √(p/n) (1/τ)(1 + √2 √k): vector contraction with the max-type constant.

    Theorem bounded: the empirical Rademacher complexity of {(x, x⁺, x_1..x_k) ↦ ℓ̃(θ)} over ‖θ‖ ≤ R,
    φ_θ on the unit sphere and L-Lipschitz in θ ∈ R^p; F's ℓ2-Lipschitz constant 1/τ (from the ℓ∞ bound).
    τ > 0, k, n, p ≥ 1, L, R ≥ 0. Grows like √k (k → ∞: ∞; divided by √k: 6√2 c₀ J √(p/n)/τ).
    """
    _check(tau_, None, k_, n_, L_, p_, R_)
    return complexity_positive(tau_, n_, L_, p_, R_) + SQRT2 * vector_complexity(k_, n_, L_, p_, R_) / _s(tau_)


def complexity_avg(
    tau_: Any = tau, gamma_: Any = gamma, k_: Any = k, n_: Any = n, L_: Any = L, p_: Any = p, R_: Any = R
) -> sp.Expr:
    """R̂_n(ℓ̃ ∘ Θ) ≤ 6 c₀ J √(p/n) [1/τ + √2 C(γ, τ, k) k^{1/2 − min(1/2, 1/q)}]: the averaging family.

    Theorem bounded: as ``complexity_max`` (same class, same vector-contraction route), with F's ℓ2-Lipschitz
    constant ``continuity.l2_lipschitz(γ, τ, k)`` from the γ family; τ > 0, γ ≥ 1/τ, k, n, p ≥ 1, L, R ≥ 0.
    For γ ≥ 2/τ it stays bounded as k → ∞: → 6 c₀ J √(p/n)(1/τ)(1 + √2 exp((2/τ)(1 − 1/(γτ)))); minimal at
    γ = 2/τ (``continuity.optimal_gamma``), where it is 6 c₀ J √(p/n)(1/τ)(1 + √2 √M_k) ≤ ``complexity_max``.
    """
    _check(tau_, gamma_, k_, n_, L_, p_, R_)
    lip2 = _cont.l2_lipschitz(_s(gamma_), _s(tau_), _s(k_))
    return complexity_positive(tau_, n_, L_, p_, R_) + SQRT2 * lip2 * vector_complexity(k_, n_, L_, p_, R_)


def complexity_direct(tau_: Any = tau, n_: Any = n, L_: Any = L, p_: Any = p, R_: Any = R) -> sp.Expr:
    """(12/τ) c₀ J √(p/n): k-free bound from the loss being (4L/τ)-Lipschitz in θ (ℓ∞ form, no contraction).

    Same class and theorem as ``complexity_max``; chaining directly on the loss values (|ℓ| ≤ 2/τ, centre θ = 0
    within (4LR/τ)): c = (2/τ) c₀, χ = 2 (4L/τ) R / ((2/τ) c₀) = max(2, 4LR). For this parametric class it is
    the smallest of the three; the γ family's advantage is over the vector-contraction route.
    """
    _check(tau_, None, None, n_, L_, p_, R_)
    return chaining_bound(2 * similarity_radius(L_, R_) / _s(tau_), similarity_chi(L_, R_), p_, n_)


def k_limits() -> dict[str, sp.Expr]:
    """The k → ∞ behaviour of each bound (checked as ``limit`` steps of the ledger)."""
    base = 6 * similarity_radius() * entropy_factor() * sp.sqrt(p / n)
    return {
        "complexity_max": sp.oo,
        "complexity_max / sqrt(k)": base * SQRT2 / tau,
        "complexity_avg (gamma >= 2/tau)": base * (1 + SQRT2 * sp.exp(2 / tau - 2 / (gamma * tau**2))) / tau,
        "complexity_avg (gamma = 2/tau)": base * (1 + SQRT2 * sp.exp(1 / tau)) / tau,
        "complexity_direct": complexity_direct(),
    }


# ----------------------------------------------------------------------------- custom check: Maurer


def _maurer_classes(gen: Any, rng: random.Random, m: int, with_gamma: bool = False) -> list:
    """m classes: n, K ∈ {1, 2, 3}, 2–5 functions, τ log-uniform on [10^{−3/2}, 10], each value −1, +1 or
    uniform on [−1, 1] with probability 1/3 (the extremal values often); a class is an array (functions, n, K),
    all drawn by numpy a block at a time (one Python draw per value cost 5 µs). ``with_gamma``: also
    γ = (1 + 10^u)/τ, u uniform on [−2, 2] (γτ > 1), drawn after the rest (else γ is None)."""
    import numpy as np

    ns, Ks, nfs = gen.integers(1, 4, m), gen.integers(1, 4, m), gen.integers(2, 6, m)
    taus = 10 ** gen.uniform(-1.5, 1, m)
    sizes = nfs * ns * Ks
    total = int(sizes.sum())
    kind = gen.integers(0, 3, total)
    vals = np.where(kind == 0, -1.0, np.where(kind == 1, 1.0, gen.uniform(-1, 1, total)))
    vals.flags.writeable = False
    ends = np.cumsum(sizes).tolist()
    gammas = ((1 + 10 ** gen.uniform(-2, 2, m)) / taus).tolist() if with_gamma else [None] * m
    return [
        (n_, K_, t_, vals[e_ - z_ : e_].reshape(f_, n_, K_), g_)
        for n_, K_, f_, t_, z_, e_, g_ in zip(
            ns.tolist(), Ks.tolist(), nfs.tolist(), taus.tolist(), sizes.tolist(), ends, gammas
        )
    ]


def _maurer_batch(pts: list, factor: Any, sign_matrix: Any) -> tuple:
    """The float pass on many classes: F by a stable log-mean-exp, both sign sums as matrix products, one numpy
    pass per shape (n, K, functions); ``factor(pt)`` the bound's factor on R_vec for that class."""
    import numpy as np

    sm, bg = np.full(len(pts), np.nan), np.full(len(pts), np.nan)
    groups: dict[tuple, list[int]] = {}
    for i_, pt in enumerate(pts):
        groups.setdefault(pt[3].shape, []).append(i_)
    for (nf, n_, K_), idx in groups.items():
        A = np.stack([pts[i_][3] for i_ in idx])  # (B, functions, n, K)
        t_ = np.array([pts[i_][2] for i_ in idx])[:, None, None]
        mx = A.max(axis=3)
        vals = mx / t_ + np.log(np.exp((A - mx[..., None]) / t_[..., None]).mean(axis=3))  # (B, functions, n)
        lhs = (vals @ sign_matrix(n_).T).max(axis=1).mean(axis=1)  # (B, functions, signs) → max over f
        rv = A.reshape(len(idx), nf, n_ * K_) @ sign_matrix(n_ * K_).T
        sm[idx] = lhs
        bg[idx] = np.array([factor(pts[i_]) for i_ in idx]) * rv.max(axis=1).mean(axis=1)
    return sm, bg


def maurer_check(step: Step, opts: dict) -> StepResult:
    """Vector contraction E sup_f Σ_i ε_i F(f(x_i)) ≤ c(τ, γ, K) · E sup_f Σ_{i,m} ε_im f_m(x_i), by exact enumeration.

    c = ``step.rhs`` at Rad_vec = 1, Λ = 1/τ (√2 Λ R_vec: √2/τ; √2 L₂(γ, τ, k) R_vec: that constant at k = K), a
    function of τ, γ and k only (else ValueError). Random finite classes (≤ 5 functions, n ≤ 3 points, K ≤ 3
    coordinates, values in [−1, 1]) with h = F = log-mean-exp at temperature τ; γ drawn with γτ > 1 where c has
    it; both expectations are computed exactly over all sign patterns, in mpmath (15 digits in the search, 50 to
    confirm a violation: the shared search of ``checks.laws``). Evidence, not proof: the provenance is the reference.
    """
    factor_expr = step.rhs.subs({Rad_vec: 1, Lam: 1 / tau})
    extra = factor_expr.free_symbols - {tau, gamma, k}
    if extra:
        raise ValueError(f"maurer_check: the bound's factor on R_vec must depend on tau, gamma, k only, got {extra}")
    with_gamma = gamma in factor_expr.free_symbols
    factor_fn = sp.lambdify((tau, gamma, k), factor_expr, modules="math")

    def factor(pt: tuple) -> float:
        return float(factor_fn(pt[2], pt[4], pt[1]))

    def factor_mp(pt: tuple) -> Any:  # exact: τ, γ are binary floats, taken exactly
        sub = {tau: sp.Rational(pt[2]), k: pt[1]}
        if pt[4] is not None:
            sub[gamma] = sp.Rational(pt[4])
        return mpmath.mpf(str(sp.N(factor_expr.subs(sub), mpmath.mp.dps + 5)))

    signs_cache: dict[int, list] = {}

    def signs(m_):
        if m_ not in signs_cache:
            signs_cache[m_] = list(itertools.product((-1.0, 1.0), repeat=m_))
        return signs_cache[m_]

    def block(gen: Any, rng: random.Random, m: int) -> list:
        return _maurer_classes(gen, rng, m, with_gamma)

    def sample(rng: random.Random) -> tuple:
        import numpy as np

        return block(np.random.default_rng(rng.getrandbits(64)), rng, 1)[0]

    sign_arrays: dict[int, Any] = {}

    def sign_matrix(m_):
        if m_ not in sign_arrays:
            import numpy as np

            sign_arrays[m_] = np.asarray(signs(m_))
        return sign_arrays[m_]

    def evaluate(pt: tuple, exact: bool) -> tuple:
        if not exact:  # the float pass: the batch of one (F by a stable log-mean-exp, sign sums as products)
            sm, bg = evaluate_batch([pt])
            return float(sm[0]), float(bg[0])
        n_, K_, tau_, cls, _g = pt
        cls = cls.tolist()
        t_ = mpmath.mpf(tau_)

        def F(u_):
            mx = max(u_)
            return mx / t_ + mpmath.log(mpmath.fsum(mpmath.exp((e - mx) / t_) for e in u_) / len(u_))

        vals = [[F(f[i_]) for i_ in range(n_)] for f in cls]
        lhs = mpmath.fsum(
            max(mpmath.fsum(e * val[i_] for i_, e in enumerate(eps)) for val in vals) for eps in signs(n_)
        )
        flat = [[mpmath.mpf(f[i_][m_]) for i_ in range(n_) for m_ in range(K_)] for f in cls]
        rv = mpmath.fsum(max(mpmath.fsum(e * fv for e, fv in zip(eps, fl)) for fl in flat) for eps in signs(n_ * K_))
        return lhs / 2**n_, factor_mp(pt) * rv / 2 ** (n_ * K_)

    def evaluate_batch(pts: list) -> tuple:
        return _maurer_batch(pts, factor, sign_matrix)

    def describe(pt: tuple) -> dict[str, str]:
        n_, K_, tau_, cls, g_ = pt
        out = {"n": str(n_), "K": str(K_), "functions": str(len(cls)), "tau": f"{tau_:.6g}"}
        if g_ is not None:
            out["gamma"] = f"{g_:.6g}"
        return {**out, "class": repr(cls.tolist())}

    # one trial = one exactly enumerated class (float pass in numpy, batched by shape)
    out = search(
        step,
        {**DEFAULTS, **opts},
        budget=max(50, int(opts.get("trials", 100_000))),
        sample=sample,
        evaluate=evaluate,
        describe=describe,
        zero_ratio=0.0,  # a class whose functions coincide: both sides vanish, no evidence either way
        evaluate_batch=evaluate_batch,
        sample_block=block,
    )
    method = f"exact enumeration of Rademacher signs on {out.trials} random finite classes (n, K ≤ 3)"
    attacked = {"n": ("1", "3"), "K": ("1", "3"), "functions": ("2", "5"), "tau": ("10**(-3/2)", "10")}
    if with_gamma:
        attacked["gamma*tau"] = ("1 + 10**(-2)", "1 + 10**2")
    return search_result(step, out, method, attacked)


#: Maurer's corollary as a cited theorem (route "classical theorem"): the instance, its conditions (Λ, R_vec ≥ 0)
#: proved, its hypotheses discharged; exact sign enumeration on random finite classes is the attack beside it
MAURER_ROUTE = (
    "classical theorem",
    {
        "theorem": "maurer2016",
        "with": {"R_F": Rad_n, "L2": Lam, "R_V": Rad_vec},
        "discharge": {
            "lipschitz": "Λ is, by this step's definition, an ℓ2-Lipschitz constant of F on R^k (F∘clip, clip onto "
            "[−1, 1]^k being 1-Lipschitz, where Λ holds only on the cube)",
            "class": "Rad_n and R_vec are those complexities for the similarity class f = s_θ, θ ∈ Θ",
        },
        "attack": maurer_check,
    },
)


# ----------------------------------------------------------------------------- the chains' cited steps

CHAINING_BOUND = "chaining bound: R(A) ≤ 6 c₀ √(p/m) √(log(4(1 + χ)))"
WEIGHTS_ONE = "Σ_{l≥1} 2^{−l} = 1"
SCALE_DOUBLING = "scale doubling: 1 + 2^l χ ≤ 2^l (1 + χ)"
LEVEL_SUM = "Σ_{l≥1} 2^{−l} (l log 2 + log(1 + χ)) = log(4(1 + χ))"
JENSEN_ALL = "Jensen over all levels: 6 c₀ √(p/m) Σ_{l≥1} 2^{−l} √(log(1 + 2^l χ)) ≤ 6 c₀ √(p/m) √(log(4(1 + χ)))"
#: the chaining sum over every level l ≥ 1 (the identity checker cannot evaluate it at points: no spot-check of it)
CHAIN_SUM = sp.Sum(2 ** (-m_lvl) * sp.sqrt(sp.log(1 + 2**m_lvl * chi)), (m_lvl, 1, sp.oo))
#: 36 c₀² (p/m): the square of the chaining factor 6 c₀ √(p/m), inside Jensen's √
_SCALE2 = 36 * c0**2 * p / n
SUBADDITIVITY = "sum of classes: R̂_n(ℓ̃∘Θ) ≤ R̂_n(s⁺)/τ + R̂_n(F∘s)"
LSTAR_MAX = "L₂* = (1/τ)√(M_k/k) ≤ 1/τ"
VC_MAX = "vector contraction, L₂ = 1/τ: R̂_n(F∘s) ≤ √2 (1/τ) R_vec"
VC_AVG = "vector contraction, L₂ = C(γ, τ, k) k^{−min(1/2, 1/q)}: R̂_n(F∘s) ≤ √2 L₂ R_vec"
GRADIENT = "continuity / cross-check: ‖∇F(z)‖₂ = (1/τ) ‖w‖₂ ≤ (1/τ) √(M_k/k) = l2_lipschitz(2/τ, τ, k)"
MEAN_VALUE = "continuity / mean value along the segment: F(v) − F(z) = ∫₀¹ (1/τ) Σ_j w_j(z + t h) h_j dt"

#: Jensen for √ over the chaining levels (route "classical theorem"): weights 2^{−l}, each level's logarithm bounded
#: by scale doubling, their weighted sum by the identity; every hypothesis discharged by a proved step
JENSEN_ROUTE = (
    "classical theorem",
    {
        "theorem": "jensen_sqrt",
        "with": {"S": 6 * c0 * sp.sqrt(p / n) * CHAIN_SUM, "U": _SCALE2 * sp.log(4 * (1 + chi))},
        "discharge": {
            "series": (
                "cites",
                (f"rademacher_chaining / {WEIGHTS_ONE}",),
                "w_l = 2^{−l} ≥ 0 with Σ_l w_l = 1; x_l = 36 c₀² (p/m) log(1 + 2^l χ) ≥ 0 for χ ≥ 0, and "
                "S = Σ_l w_l √(x_l) (6 c₀ √(p/m) ≥ 0 taken inside the sum)",
            ),
            "mean": (
                "cites",
                (f"rademacher_chaining / {SCALE_DOUBLING}", f"rademacher_chaining / {LEVEL_SUM}"),
                "log is increasing, so log(1 + 2^l χ) ≤ l log 2 + log(1 + χ) for every l ≥ 1, and Σ_l 2^{−l} x_l ≤ "
                "36 c₀² (p/m) Σ_l 2^{−l}(l log 2 + log(1 + χ)) = 36 c₀² (p/m) log(4(1 + χ)) = U",
            ),
        },
    },
)

#: why F∘clip is L₂-Lipschitz on all of R^k, in words (the cited steps are checked by the route)
_CLIP = (
    "F(v) − F(z) = ∫₀¹ ⟨∇F(z + t h), h⟩ dt on the convex cube [−1, 1]^k (mean value), so |F(v) − F(z)| ≤ "
    "sup ‖∇F‖₂ ‖h‖₂ (Cauchy–Schwarz) ≤ L₂* ‖h‖₂; h = F∘clip (clip: the ℓ2 projection onto the cube, 1-Lipschitz) is "
    "then L₂*-Lipschitz on all of R^k and equals F on the similarities"
)
_CLASS = (
    "R̂_n(F∘s) and R_vec = (1/n) E sup_θ Σ_{i,m} ε_im s_m(θ; x_i) are those complexities for the one class f = s_θ "
    "(the k similarities of tuple i), θ ∈ Θ"
)


def _maurer_instance(l2: sp.Expr, cites: tuple[str, ...], why: str, attack: Any = None) -> tuple:
    """Maurer's corollary at F's ℓ2-Lipschitz constant ``l2`` (route "classical theorem"), the Lipschitz
    hypothesis discharged by the proved gradient bound ``GRADIENT`` and the steps ``cites`` (``why`` in words)."""
    hint: dict = {
        "theorem": "maurer2016",
        "with": {"R_F": Rad_F, "L2": l2, "R_V": Rad_vec},
        "discharge": {
            "lipschitz": ("cites", (MEAN_VALUE, GRADIENT, *cites), f"{_CLIP}; {why}"),
            "class": _CLASS,
        },
    }
    if attack is not None:
        hint["attack"] = attack
    return ("classical theorem", hint)


def sum_check(step: Step, opts: dict) -> StepResult:
    """R(c g + h) ≤ ``step.rhs`` at Rad_pos = R(g), Rad_F = R(h), c = −1/τ, by exact enumeration of the signs.

    R(f) = E_ε max_θ (1/n) Σ_i ε_i f_θ(z_i) on random finite classes: 2–5 indices θ, n ≤ 4 points, values of g and
    h −1, +1 or uniform on [−1, 1] (1/3 each), τ log-uniform on [10^{−3/2}, 10]; floats in the search, 50 digits
    to confirm a violation (the shared search of ``checks.laws``). Evidence, not proof."""
    import numpy as np

    bound = sp.lambdify((tau, Rad_pos, Rad_F), step.rhs, modules="mpmath")
    sign_rows: dict[int, Any] = {}

    def rows(n_: int) -> Any:
        if n_ not in sign_rows:
            sign_rows[n_] = np.asarray(list(itertools.product((-1.0, 1.0), repeat=n_)))
        return sign_rows[n_]

    def draw(gen: Any, shape: tuple) -> Any:
        kind = gen.integers(0, 3, shape)
        return np.where(kind == 0, -1.0, np.where(kind == 1, 1.0, gen.uniform(-1, 1, shape)))

    def sample(rng: random.Random) -> tuple:
        gen = np.random.default_rng(rng.getrandbits(64))
        m_, n_ = int(gen.integers(2, 6)), int(gen.integers(1, 5))
        return float(10 ** gen.uniform(-1.5, 1)), draw(gen, (m_, n_)), draw(gen, (m_, n_))

    def rad(vals: Any, exact: bool) -> Any:  # E_ε max_θ (1/n) Σ_i ε_i v_θi, over all 2^n sign rows
        n_ = vals.shape[1]
        if not exact:
            return float((rows(n_) @ vals.T).max(axis=1).mean() / n_)
        v_ = [[mpmath.mpf(x_) for x_ in row] for row in vals.tolist()]
        tot = mpmath.fsum(
            max(mpmath.fsum(e * x_ for e, x_ in zip(eps, row)) for row in v_) for eps in rows(n_).tolist()
        )
        return tot / (2**n_ * n_)

    def evaluate(pt: tuple, exact: bool) -> tuple:
        tau_, g_, h_ = pt
        if exact:
            t_ = mpmath.mpf(tau_)
            mixed = [[-mpmath.mpf(a_) / t_ + mpmath.mpf(b_) for a_, b_ in zip(ra, rb)] for ra, rb in zip(g_, h_)]
            n_ = g_.shape[1]
            lhs = mpmath.fsum(
                max(mpmath.fsum(e * x_ for e, x_ in zip(eps, row)) for row in mixed) for eps in rows(n_).tolist()
            ) / (2**n_ * n_)
            return lhs, bound(t_, rad(g_, True), rad(h_, True))
        return rad(-g_ / tau_ + h_, False), float(bound(tau_, rad(g_, False), rad(h_, False)))

    def describe(pt: tuple) -> dict[str, str]:
        tau_, g_, h_ = pt
        return {
            "tau": f"{tau_:.6g}",
            "n": str(g_.shape[1]),
            "indices": str(g_.shape[0]),
            "g": repr(g_.tolist()),
            "h": repr(h_.tolist()),
        }

    out = search(
        step,
        {**DEFAULTS, **opts},
        budget=max(50, int(opts.get("trials", 100_000)) // 20),
        sample=sample,
        evaluate=evaluate,
        describe=describe,
        zero_ratio=0.0,
    )
    method = f"exact enumeration of Rademacher signs on {out.trials} random finite classes (n ≤ 4, ≤ 5 indices)"
    return search_result(step, out, method, {"n": ("1", "4"), "indices": ("2", "5"), "tau": ("10**(-3/2)", "10")})


#: ℓ̃ = −s⁺/τ + F∘s: the sum of classes (c = −1/τ), by definition of the DCL loss
SUM_ROUTE = (
    "classical theorem",
    {
        "theorem": "rademacher_sum",
        "with": {"R_S": Rad_n, "a": 1 / tau, "R_G": Rad_pos, "R_H": Rad_F},
        "discharge": {
            "class": "ℓ̃_θ = c s⁺_θ + F(s_θ) with c = −1/τ (the DCL loss, by definition); Rad_n, Rad_pos, Rad_F are "
            "the complexities of {ℓ̃_θ}, {s⁺_θ}, {F∘s_θ} over the one parameter ball on the same sample",
        },
        "attack": sum_check,
    },
)


# ----------------------------------------------------------------------------- custom check: a concrete class


def rademacher_signs(seed: int, m: int) -> Any:
    """``[random.Random(seed).choice((-1.0, 1.0)) for _ in range(m)]`` as a numpy array, bit for bit, from the
    generator's 32-bit words in numpy (Python's ``choice`` of two items is ``getrandbits(2)``, the word's top two
    bits, redrawn while ≥ 2: a word is accepted when its top bit is 0 and gives index bit 30; numpy's MT19937
    continues Python's state, as in ``paper._embed.gauss_block``). ~50× faster than m Python calls."""
    import numpy as np

    _version, internal, _pending = random.Random(seed).getstate()
    bg = np.random.MT19937(0)
    bg.state = {"bit_generator": "MT19937", "state": {"key": np.array(internal[:624], np.uint32), "pos": internal[624]}}
    got: list = []
    have = 0
    while have < m:
        w = bg.random_raw(2 * (m - have) + 64)
        idx = (w[(w >> 31) == 0] >> 30) & 1
        got.append(idx)
        have += len(idx)
    return np.where(np.concatenate(got)[:m] == 1, 1.0, -1.0)


def class_check(step: Step, opts: dict) -> StepResult:
    """``Rad_n ≤ rhs`` on concrete classes: φ_θ(y) = (cos(θ a_y + b_y), sin(θ a_y + b_y)), |a_y| ≤ 1, |θ| ≤ R.

    Each class is 1-Lipschitz in θ ∈ R¹ (p = 1, L = 1) on S¹. R̂_n = E_ε sup_θ (1/n) Σ_i ε_i ℓ_θ(tuple_i) is
    estimated with a 201-point θ grid (a lower bound of the sup) and 200 sign draws; the claim is refuted
    only if the estimate exceeds ``rhs`` by more than 4 standard errors, i.e. the search of ``checks.laws``
    compares the estimate with ``rhs + 4 SE`` (a Monte-Carlo estimate: its "confirmation" repeats the same
    draws, and the bound is evaluated at 50 digits). Random τ, γ ≥ 1/τ, k ≤ 6, n ≤ 16.
    """
    import math

    def sample(rng: random.Random) -> tuple:
        n_, k_ = rng.randint(2, 16), rng.randint(1, 6)
        tau_ = 10 ** rng.uniform(-1, 1)
        gamma_ = (1 + 10 ** rng.uniform(-2, 2)) / tau_
        R_ = 10 ** rng.uniform(-1, 0.7)
        pts = [[(rng.uniform(-1, 1), rng.uniform(-math.pi, math.pi)) for _ in range(k_ + 2)] for _ in range(n_)]
        return n_, k_, tau_, gamma_, R_, pts, rng.getrandbits(32)

    def estimate(pt: tuple) -> tuple[float, float]:
        # the θ grid × tuples × negatives as numpy arrays (one class was 4·10⁴ Python-level cosines and
        # sums: 0.15 s); the sign draws still come one by one from the class's own generator
        import numpy as np

        n_, k_, tau_, _g, R_, pts, seed = pt
        th = np.array([-R_ + 2 * R_ * g_ / 200 for g_ in range(201)])[:, None]  # (201, 1)
        arr = np.asarray(pts, dtype=float)  # (n, k + 2, 2): anchor, positive, negatives
        ax, bx, ap, bp = arr[:, 0, 0], arr[:, 0, 1], arr[:, 1, 0], arr[:, 1, 1]
        an, bn = arr[:, 2:, 0], arr[:, 2:, 1]
        sp_ = np.cos(th * (ax - ap) + bx - bp)  # (201, n)
        sn = np.cos(th[:, :, None] * (ax[:, None] - an) + bx[:, None] - bn)  # (201, n, k)
        m_ = sn.max(axis=2)
        losses = -sp_ / tau_ + m_ / tau_ + np.log(np.exp((sn - m_[:, :, None]) / tau_).sum(axis=2) / k_)
        eps = rademacher_signs(seed, 200 * n_).reshape(200, n_)  # the class's own draws: re-evaluation repeats them
        draws = (eps @ losses.T).max(axis=1) / n_
        est = float(draws.mean())
        se = float(draws.std(ddof=1) / math.sqrt(len(draws)))
        return est, se

    bound_args = (tau, gamma, k, n, L, p, R)
    bound_fn = sp.lambdify(bound_args, step.rhs, modules="math")
    lambdified_ok: list[bool] = []  # checked once against SymPy's own evaluation: a mismatch keeps subs

    def bound_float(tau_, gamma_, k_, n_, R_) -> float:
        sub = {tau: sp.Float(tau_, 30), gamma: sp.Float(gamma_, 30), k: k_, n: n_, L: 1, p: 1, R: sp.Float(R_, 30)}
        if not lambdified_ok:
            ref = float(step.rhs.subs(sub))
            try:
                got = float(bound_fn(tau_, gamma_, k_, n_, 1, 1, R_))
                lambdified_ok.append(math.isclose(got, ref, rel_tol=1e-12, abs_tol=1e-300))
            except (TypeError, ValueError, OverflowError, ZeroDivisionError):
                lambdified_ok.append(False)
            return ref
        if lambdified_ok[0]:
            return float(bound_fn(tau_, gamma_, k_, n_, 1, 1, R_))
        return float(step.rhs.subs(sub))

    def evaluate(pt: tuple, exact: bool) -> tuple:
        n_, k_, tau_, gamma_, R_, _pts, _seed = pt
        est, se = estimate(pt)
        if exact:
            sub = {tau: sp.Float(tau_, 30), gamma: sp.Float(gamma_, 30), k: k_, n: n_, L: 1, p: 1, R: sp.Float(R_, 30)}
            return mpmath.mpf(est), mpmath.mpf(str(sp.N(step.rhs.subs(sub), mpmath.mp.dps))) + 4 * mpmath.mpf(se)
        return est, bound_float(tau_, gamma_, k_, n_, R_) + 4 * se

    def describe(pt: tuple) -> dict[str, str]:
        n_, k_, tau_, gamma_, R_, _pts, seed = pt
        return {
            "n": str(n_),
            "k": str(k_),
            "tau": f"{tau_:.6g}",
            "gamma": f"{gamma_:.6g}",
            "R": f"{R_:.6g}",
            "sign_seed": str(seed),
        }

    # one class costs a 201-point θ grid × 200 sign draws (~0.1 s): 100 classes at the default budget
    out = search(
        step,
        {**DEFAULTS, **opts},
        budget=max(4, int(opts.get("trials", 100_000)) // 1_000),
        sample=sample,
        evaluate=evaluate,
        describe=describe,
    )
    method = (
        f"Monte-Carlo Rademacher estimates on {out.trials} random 1-Lipschitz classes on S¹ (p = 1); "
        "ratio = estimate/(bound + 4 standard errors)"
    )
    attacked = {"n": ("2", "16"), "k": ("1", "6"), "tau": ("1/10", "10"), "R": ("1/10", "10**(7/10)"), "p": ("1", "1")}
    return search_result(step, out, method, attacked)


#: when the chain behind the max-type or averaged bound is not proved (a cited step not proved): the attack's verdict
UNPROVED_CLASS = (
    "a chain R̂_n(ℓ̃∘Θ) ≤ R̂_n(s⁺)/τ + R̂_n(F∘s) (sum of classes, cited) ≤ chaining(n)/τ + R̂_n(F∘s) (chaining bound) "
    "≤ … + √2 L₂ R_vec (Maurer, cited, L₂ from the proved gradient bound) ≤ … + √2 L₂ k chaining(nk) (the vector class "
    "on nk points) = the bound; proved only when every link is; otherwise the verdict of the attack beside it "
    "(Monte-Carlo Rademacher estimates on random 1-Lipschitz classes on S¹, p = 1)"
)


def class_chain_check(step: Step, opts: dict) -> StepResult:
    """A chain step ``Rad_n ≤ rhs`` (``checks.chain``) with ``class_check`` as the attack beside it.

    The attack runs first: its refutation (an estimate above rhs + 4 standard errors) refutes the claim. Otherwise
    the chain's verdict when it is proved or refuted (a link or a join fails: the argument is wrong), else the
    attack's (at most verified numerically), naming the chain's weakest link."""
    from .checks.chain import check_chain
    from .ledger import Verdict

    att = class_check(step, opts)
    if att.verdict is Verdict.REFUTED:
        return att
    res = check_chain(step, opts)
    if res.verdict is Verdict.PROVED:
        res.evidence = f"{res.evidence}; attack beside the chain: {att.method} ({att.verdict})"
        res.trials, res.attacked, res.worst_ratio = att.trials, att.attacked, att.worst_ratio
        return res
    if res.verdict is Verdict.REFUTED:
        return res
    att.method = f"{att.method}; chain not proved: {res.method}"
    return att


# ----------------------------------------------------------------------------- the ledger

_TAU = (TAU_MIN, TAU_MAX)
JENSEN_LEVELS = 16  #: chaining levels in the certified partial-sum check
_BIG = {n: (1, sp.oo), p: (1, sp.oo), L: (0, sp.oo), R: (0, sp.oo)}


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 60


def _maurer_step(dom_vc: Domain) -> Step:
    """Maurer's vector contraction as a step of the ledger, cited through route "classical theorem"."""
    return Step(
        "vector contraction: R̂_n(F∘f) ≤ √2 L₂ · R_vec",
        Rad_n,
        SQRT2 * Lam * Rad_vec,
        kind="inequality",
        relation="<=",
        domain=dom_vc,
        provenance="classical",
        reference="Maurer (2016), A vector-contraction inequality for Rademacher complexities, ALT, Corollary 1",
        route=MAURER_ROUTE,
        note="Λ here is F's ℓ2-Lipschitz constant L₂, R_vec = (1/n) E sup Σ_{i,m} ε_im f_m(x_i); "
        "attacked by exact sign enumeration on random finite classes",
    )


def derivations() -> list[Derivation]:
    lvl = m_lvl
    dom_chain = Domain(
        {c0: (0, sp.oo), chi: (sp.Rational(1, 10**6), sp.oo), p: (1, sp.oo), n: (1, sp.oo), Rad_n: (0, sp.oo)},
        name="c₀ ≥ 0, χ > 0, p, m ≥ 1",
    )
    dom_lvl = Domain({chi: (0, sp.oo), lvl: (1, sp.oo)}, name="χ ≥ 0, l ≥ 1 (every chaining level)")
    dom_chi = Domain({chi: (sp.Rational(1, 10**6), 10**6)}, name="χ ∈ [1e-6, 1e6]")
    dom_chi_all = Domain({chi: (0, sp.oo)}, name="χ ≥ 0")  # the identity is symbolic: every χ the CLI allows
    chain_sum = sp.Sum(2 ** (-lvl) * sp.sqrt(sp.log(1 + 2**lvl * chi)), (lvl, 1, sp.oo))
    chaining = Derivation(
        "rademacher_chaining",
        "chaining over the parameter ball: R(A) ≤ 6 c₀ √(p/m) √(log(4(1 + χ)))",
        [
            Step(
                "chaining (M → ∞) with the covering of the ball",
                Rad_n,
                6 * c0 * sp.sqrt(p / n) * chain_sum,
                kind="definition",
                domain=dom_chain,
                provenance="classical",
                reference="Shalev-Shwartz & Ben-David (2014), Understanding Machine Learning, Lemma 27.4; "
                "Vershynin (2018), High-Dimensional Probability, Cor. 4.2.13",
                note="quoted, not re-proved: R(A) ≤ (6c/m) Σ_l 2^{−l} √(log N(c 2^{−l}, A)) for any c ≥ the radius "
                "of A about a centre; c = √m c₀, N(ε, A) ≤ (1 + 2ΛR√m/ε)^p; here m = n, χ = 2ΛR/c₀",
            ),
            Step(
                "scale doubling: 1 + 2^l χ ≤ 2^l (1 + χ)",
                1 + 2**lvl * chi,
                2**lvl * (1 + chi),
                kind="inequality",
                relation="<=",
                domain=dom_lvl,
                provenance="ours",
                route=("certificate", {"certificate": 2**lvl - 1}),
            ),
            Step(
                "Σ_{l≥1} 2^{−l} (l log 2 + log(1 + χ)) = log(4(1 + χ))",
                sp.Sum(2 ** (-lvl) * (lvl * sp.log(2) + sp.log(1 + chi)), (lvl, 1, sp.oo)),
                sp.log(4 * (1 + chi)),
                kind="identity",
                domain=dom_chi_all,
                provenance="ours",
                simplifier=lambda e: sp.simplify(sp.expand_log(e.doit())),
            ),
            Step(
                f"Jensen (weights 2^{{−l}}, √ concave): Σ_{{l≤{JENSEN_LEVELS}}} 2^{{−l}} √(log(1 + 2^l χ)) ≤ √(log(4(1 + χ)))",
                sp.Sum(2 ** (-lvl) * sp.sqrt(sp.log(1 + 2**lvl * chi)), (lvl, 1, JENSEN_LEVELS)),
                sp.sqrt(sp.log(4 * (1 + chi))),
                kind="inequality",
                relation="<=",
                domain=dom_chi,
                provenance="classical",
                reference="Jensen's inequality with the two steps above",
                note="a partial sum, certified as evidence; the infinite sum follows from Jensen (Σ 2^{−l} = 1) "
                "with the two steps above, which is the rigorous route",
            ),
            Step(
                WEIGHTS_ONE,
                sp.Sum(2 ** (-lvl), (lvl, 1, sp.oo)),
                1,
                kind="identity",
                domain=dom_chi_all,
                provenance="ours",
                simplifier=lambda e: sp.simplify(e.doit()),
            ),
            Step(
                JENSEN_ALL,
                6 * c0 * sp.sqrt(p / n) * chain_sum,
                chaining_bound(),
                kind="inequality",
                relation="<=",
                domain=Domain(
                    {c0: (0, sp.oo), chi: (0, sp.oo), p: (1, sp.oo), n: (1, sp.oo)}, name="c₀, χ ≥ 0, p, m ≥ 1"
                ),
                provenance="ours",
                route=JENSEN_ROUTE,
                note="every level l ≥ 1 (the partial-sum step above is the numeric cross-check)",
            ),
            Step(
                CHAINING_BOUND,
                Rad_n,
                chaining_bound(),
                kind="chain",
                relation="<=",
                domain=dom_chain,
                provenance="ours",
                note="m = n points: the quoted chaining sum, then Jensen over all levels",
                links=[
                    Link(
                        Rad_n,
                        6 * c0 * sp.sqrt(p / n) * chain_sum,
                        cite="rademacher_chaining / chaining (M → ∞) with the covering of the ball",
                        reads="<=",
                    ),
                    Link(
                        6 * c0 * sp.sqrt(p / n) * chain_sum,
                        chaining_bound(),
                        cite=f"rademacher_chaining / {JENSEN_ALL}",
                    ),
                ],
            ),
        ],
        result=CHAINING_BOUND,
        source="ours",
        summary="R(A) ≤ 6 c₀ √(p/m) √(log(4(1 + χ))) for a Λ-Lipschitz class over ‖θ‖ ≤ R ⊂ R^p, χ = 2ΛR/c₀",
        objects={"chaining_bound": chaining_bound},
    )

    # ------------------------------------------------------------------ max-type and averaged
    dom_all = Domain(
        {tau: _TAU, k: (1, sp.oo), **_BIG, Rad_n: (0, sp.oo)}, name="τ ∈ [1e-3, 1e2], k, n, p ≥ 1, L, R ≥ 0"
    )
    dom_avg = Domain(
        {tau: _TAU, gamma: (sp.Rational(1, 100), sp.oo), k: (1, sp.oo), **_BIG, Rad_n: (0, sp.oo)},
        constraints=(sp.Ge(gamma * tau, 1),),
        name="τ ∈ [1e-3, 1e2], γτ ≥ 1, k, n, p ≥ 1, L, R ≥ 0",
    )
    dom_vc = Domain({Rad_vec: (0, sp.oo), Lam: (0, sp.oo), Rad_n: (0, sp.oo)}, name="complexities ≥ 0")
    maurer = _maurer_step(dom_vc)
    sim_lip = Step(
        "similarities are 2L-Lipschitz in θ and within min(1, 2LR) of θ = 0",
        Lam,
        2 * L,
        kind="definition",
        domain=Domain({Lam: (0, sp.oo), L: (0, sp.oo)}),
        provenance="classical",
        reference="Cauchy–Schwarz: |⟨a, b⟩ − ⟨a', b'⟩| ≤ ‖a − a'‖‖b‖ + ‖a'‖‖b − b'‖ on the unit sphere",
        note="so χ = 2ΛR/c₀ = 4LR/min(1, 2LR) = max(2, 4LR)",
    )
    chi_id = Step(
        "χ = 4LR/min(1, 2LR) = max(2, 4LR)",
        4 * L * R / sp.Min(1, 2 * L * R),
        similarity_chi(),
        kind="identity",
        domain=Domain({L: (sp.Rational(1, 1000), 1000), R: (sp.Rational(1, 1000), 1000)}),
        provenance="ours",
        # SymPy does not reduce 1/Min: both directions by the lattice route (4LR > 0 enters the Max)
        route=("lattice", {}),
    )
    vec_step = Step(
        "vector class on nk points: R_vec ≤ k · chaining(m = nk) = 6 c₀ J √(pk/n)",
        k
        * Shown(
            chaining_bound(similarity_radius(), similarity_chi(), p, n * k), r"\mathrm{chaining}(nk)", "chaining(nk)"
        ),
        6 * similarity_radius() * entropy_factor() * sp.sqrt(p * k / n),
        kind="identity",
        domain=dom_all,
        provenance="ours",
    )
    # ------------------------------------------------------------------ the chains: complexities in the middle
    mids = Domain({Rad_pos: (0, sp.oo), Rad_F: (0, sp.oo), Rad_vec: (0, sp.oo)}, name="complexities ≥ 0")
    ch = lambda m_: chaining_bound(similarity_radius(), similarity_chi(), p, m_)  # noqa: E731
    subs_c = {c0: similarity_radius(), chi: similarity_chi()}
    chain_cite = f"rademacher_chaining / {CHAINING_BOUND}"

    def class_links(l2: sp.Expr, vc_cite: str) -> list[Link]:
        """R̂_n ≤ R̂_n(s⁺)/τ + R̂_n(F∘s) ≤ ch(n)/τ + R̂_n(F∘s) ≤ ch(n)/τ + √2 L₂ R_vec ≤ ch(n)/τ + √2 L₂ k ch(nk)."""
        a1 = Rad_pos / tau + Rad_F
        a2 = ch(n) / tau + Rad_F
        a3 = ch(n) / tau + SQRT2 * l2 * Rad_vec
        a4 = ch(n) / tau + SQRT2 * l2 * k * ch(n * k)
        return [
            Link(Rad_n, a1, cite=f"rademacher_max / {SUBADDITIVITY}"),
            Link(
                a1,
                a2,
                cite=chain_cite,
                subs={Rad_n: Rad_pos, **subs_c},
                factor=1 / tau,
                note="the positive-pair class on n points (c₀, χ: step 'similarities are 2L-Lipschitz')",
            ),
            Link(a2, a3, cite=vc_cite),
            Link(
                a3,
                a4,
                cite=chain_cite,
                subs={Rad_n: Rad_vec / k, n: n * k, **subs_c},
                factor=SQRT2 * l2 * k,
                note="the vector class seen as one class on nk points: its complexity there is R_vec/k",
            ),
        ]

    subadd = Step(
        SUBADDITIVITY,
        Rad_n,
        Rad_pos / tau + Rad_F,
        kind="inequality",
        relation="<=",
        domain=Domain({tau: _TAU}) | Domain({Rad_n: (0, sp.oo)}) | mids,
        provenance="classical",
        reference="Bartlett & Mendelson (2002), JMLR 3, Theorem 12 (3), (7): sup of a sum ≤ sum of sups",
        route=SUM_ROUTE,
    )
    lstar = Step(
        LSTAR_MAX,
        _cont.l2_lipschitz(2 / tau, tau, k),
        1 / tau,
        kind="inequality",
        relation="<=",
        domain=Domain({tau: _TAU, k: (1, sp.oo)}),
        provenance="ours",
        note="M_k ≤ k: the gradient bound's constant is at most the max-type constant",
    )
    vc_max = Step(
        VC_MAX,
        Rad_F,
        SQRT2 * Rad_vec / tau,
        kind="inequality",
        relation="<=",
        domain=Domain({tau: _TAU}) | mids,
        provenance="classical",
        reference="Maurer (2016), A vector-contraction inequality for Rademacher complexities, ALT, Corollary 1",
        route=_maurer_instance(
            1 / tau,
            (f"rademacher_max / {LSTAR_MAX}",),
            "L₂* ≤ 1/τ (cited), so 1/τ is an ℓ2-Lipschitz constant of F∘clip",
            attack=maurer_check,
        ),
        note="the exact sign enumeration (maurer_check) is the attack beside the citation",
    )
    linf_l2 = Step(
        "max-type bound: R̂_n(ℓ̃∘Θ) ≤ complexity_max (ℓ∞ ≤ ℓ2 gives F the ℓ2 constant 1/τ)",
        Rad_n,
        complexity_max(),
        kind="chain",
        relation="<=",
        domain=dom_all | mids,
        provenance="ours",
        check=class_chain_check,
        unproved=UNPROVED_CLASS,
        links=class_links(1 / tau, f"rademacher_max / {VC_MAX}"),
        note="chain: sum of classes, chaining (n points), Maurer at L₂ = 1/τ, chaining (nk points); the Monte-Carlo "
        "estimates on concrete classes are the attack beside it",
    )
    cmax = complexity_max()
    maxder = Derivation(
        "rademacher_max",
        "Rademacher complexity through the max-type (ℓ∞) continuity bound: grows like √k",
        [
            sim_lip,
            chi_id,
            maurer,
            vec_step,
            subadd,
            lstar,
            vc_max,
            linf_l2,
            Step("k → ∞: complexity_max → ∞", cmax, sp.oo, kind="limit", var=k, domain=dom_all, provenance="ours"),
            Step(
                "k → ∞: complexity_max/√k → 6√2 c₀ J √(p/n)/τ",
                cmax / sp.sqrt(k),
                k_limits()["complexity_max / sqrt(k)"],
                kind="limit",
                var=k,
                domain=dom_all,
                provenance="ours",
            ),
            Step(
                "direct route is k-free: complexity_direct = (12/τ) c₀ J √(p/n)",
                Shown(complexity_direct(), r"\mathrm{complexity}_{\mathrm{direct}}", "complexity_direct"),
                12 * similarity_radius() * entropy_factor() * sp.sqrt(p / n) / tau,
                kind="identity",
                domain=dom_all,
                provenance="ours",
                note="|Δℓ| ≤ |Δs⁺|/τ + max_j |Δs_j|/τ ≤ (4L/τ)‖Δθ‖: chaining on the losses themselves",
            ),
        ],
        result="max-type bound: R̂_n(ℓ̃∘Θ) ≤ complexity_max (ℓ∞ ≤ ℓ2 gives F the ℓ2 constant 1/τ)",
        source="ours",
        depends_on=("continuity", "rademacher_chaining"),
        paper_claim="§1.2: earlier complexity bounds (Saunshi et al. 2019; Lei et al. 2023) grow with k",
        summary="R̂_n ≤ 6 c₀ J √(p/n) (1/τ)(1 + √2 √k), J = √(log(4(1 + max(2, 4LR)))), c₀ = min(1, 2LR)",
        objects={"complexity_max": complexity_max, "complexity_direct": complexity_direct},
    )

    hq = _cont.power_mean(h[j], r / (r - 1))
    l2norm = sp.sqrt(sp.Sum(h[j] ** 2, (j, 1, k)))
    dom_pm = lambda lo, hi: Domain(
        {k: (1, sp.oo), h: (-2, 2), r: (lo, hi)}, name=f"k ≥ 1, h ∈ [−2, 2]^k, r = γτ ∈ [{lo}, {hi}]"
    )
    cavg = complexity_avg()
    l2g = _cont.l2_lipschitz(gamma, tau, k)
    cavg_r = (
        complexity_positive()
        + SQRT2 * (_cont.weight_bound(tau, k) ** (1 - 1 / r) / tau) * k ** (-sp.Rational(1, 2)) * vector_complexity()
    )
    avgder = Derivation(
        "rademacher_avg",
        "Rademacher complexity through the γ-continuity family: stable as k → ∞",
        [
            Step(
                "power means, q ≤ 2 (γτ ≥ 2): M_q(h) ≤ k^{−1/2} ‖h‖₂",
                hq,
                l2norm / sp.sqrt(k),
                kind="inequality",
                relation="<=",
                domain=dom_pm(2, 100),
                provenance="classical",
                reference="power-mean inequality M_q ≤ M_2 for q ≤ 2 (Hardy, Littlewood & Pólya 1952, Thm 16)",
            ),
            Step(
                "q ≥ 2 (1 < γτ ≤ 2): M_q(h) = k^{−1/q} ‖h‖_q ≤ k^{−1/q} ‖h‖₂",
                hq,
                k ** (-(r - 1) / r) * l2norm,
                kind="inequality",
                relation="<=",
                domain=dom_pm(sp.Rational(101, 100), 2),
                provenance="classical",
                reference="monotonicity of ℓ_q norms: ‖h‖_q ≤ ‖h‖₂ for q ≥ 2",
            ),
            Step(
                VC_AVG,
                Rad_F,
                SQRT2 * l2g * Rad_vec,
                kind="inequality",
                relation="<=",
                domain=Domain(
                    {tau: _TAU, gamma: (sp.Rational(1, 100), sp.oo), k: (1, sp.oo)},
                    constraints=(sp.Ge(gamma * tau, 1),),
                )
                | mids,
                provenance="classical",
                reference="Maurer (2016), A vector-contraction inequality for Rademacher complexities, ALT, Corollary 1",
                route=_maurer_instance(
                    l2g,
                    (
                        "continuity / γ = 2/τ minimises the ℓ2 constant, branch γτ ≥ 2: M_k^{1/2} ≤ M_k^{1 − 1/r}",
                        "continuity / γ = 2/τ minimises the ℓ2 constant, branch 1 ≤ γτ ≤ 2: (M_k/k)^{1/2} ≤ "
                        "(M_k/k)^{1 − 1/r}",
                    ),
                    "with r = γτ ≥ 1, L₂ = (1/τ) M_k^{1−1/r} k^{−1/2} for r ≥ 2 and (1/τ)(M_k/k)^{1−1/r} for r ≤ 2, "
                    "each ≥ L₂* = (1/τ)√(M_k/k) by the branch steps (cited; multiplied by k^{−1/2}/τ, resp. 1/τ), so "
                    "L₂ is an ℓ2-Lipschitz constant of F∘clip",
                    attack=maurer_check,
                ),
            ),
            Step(
                "averaged bound: R̂_n(ℓ̃∘Θ) ≤ complexity_avg, L₂ = C(γ, τ, k) k^{−min(1/2, 1/q)}",
                Rad_n,
                cavg,
                kind="chain",
                relation="<=",
                domain=dom_avg | mids,
                provenance="ours",
                check=class_chain_check,
                unproved=UNPROVED_CLASS,
                links=class_links(l2g, f"rademacher_avg / {VC_AVG}"),
                note="chain: sum of classes, chaining (n points), Maurer at L₂ = continuity.l2_lipschitz, chaining "
                "(nk points); the Monte-Carlo estimates on concrete classes are the attack beside it",
            ),
            Step(
                "at γ = 2/τ: complexity_avg = 6 c₀ J √(p/n) (1/τ)(1 + √2 √M_k)",
                complexity_avg(tau, 2 / tau),
                6
                * similarity_radius()
                * entropy_factor()
                * sp.sqrt(p / n)
                / tau
                * (1 + SQRT2 * sp.sqrt(_cont.weight_bound(tau, k))),
                kind="identity",
                domain=dom_all,
                provenance="ours",
            ),
            Step(
                "averaged ≤ max-type at γ = 2/τ: √(M_k/k) ≤ 1",
                sp.sqrt(_cont.weight_bound(tau, k) / k),
                1,
                kind="inequality",
                relation="<=",
                domain=Domain({tau: _TAU, k: (1, sp.oo)}),
                provenance="ours",
                route=("certificate", {"certificate": 1 - 1 / sp.sqrt(1 + (k - 1) * sp.exp(-2 / tau))}),
            ),
            Step(
                "k → ∞ (γτ ≥ 2): complexity_avg → 6 c₀ J √(p/n)(1/τ)(1 + √2 e^{(2/τ)(1 − 1/(γτ))})",
                cavg_r,
                k_limits()["complexity_avg (gamma >= 2/tau)"].subs(gamma, r / tau),
                kind="limit",
                var=k,
                domain=Domain({tau: _TAU, r: (2, sp.oo), k: (1, sp.oo), **_BIG}),
                provenance="ours",
            ),
            Step(
                "k → ∞ at γ = 2/τ: → 6 c₀ J √(p/n)(1/τ)(1 + √2 e^{1/τ})",
                complexity_avg(tau, 2 / tau),
                k_limits()["complexity_avg (gamma = 2/tau)"],
                kind="limit",
                var=k,
                domain=dom_all,
                provenance="ours",
            ),
            Step(
                "approach to the limit: √M_k = e^{1/τ}(1 − (e^{2/τ} − 1)/(2k)) + O(1/k²)",
                sp.sqrt(_cont.weight_bound(tau, k)),
                sp.exp(1 / tau) * (1 - (sp.exp(2 / tau) - 1) / (2 * k)),
                kind="expansion",
                var=k,
                order=1,
                domain=Domain({tau: _TAU, k: (1, sp.oo)}),
                provenance="ours",
            ),
        ],
        result="averaged bound: R̂_n(ℓ̃∘Θ) ≤ complexity_avg, L₂ = C(γ, τ, k) k^{−min(1/2, 1/q)}",
        source="ours",
        depends_on=("continuity", "rademacher_chaining", "rademacher_max"),
        paper_claim="abstract and Prop. 5: 'the averaging effect of k negative samples in the InfoNCE loss carries "
        "over to stabilisation of the generalisation error as k grows' (the paper's constant: derivation prop5)",
        summary="R̂_n ≤ 6 c₀ J √(p/n) [1/τ + √2 C(γ, τ, k) k^{1/2 − min(1/2, 1/q)}]; at γ = 2/τ: (1/τ)(1 + √2 √M_k)",
        objects={"complexity_avg": complexity_avg, "l2_lipschitz": _cont.l2_lipschitz},
    )
    return [chaining, maxder, avgder]
