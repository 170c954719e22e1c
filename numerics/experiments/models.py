"""The test-bed models of the experiments, with exact and Monte Carlo finite-k quantities.

Notation (brief): anchor x ~ π, positive x⁺ ~ M(x, ·), negatives y_1 … y_k ~ π i.i.d.,
W = e^{s(x, Y)/τ}, Z(x) = E W, Z_k = (1/k) Σ_j W_j, U = Z_k/Z.

* finite-k bias  R̃ − CE = E_x[E log Z_k(x) − log Z(x)] = E_x E[log U]     (≤ 0 by Jensen)
* search offset  D_k = H_k − log k − R̃ = (1/τ)(E_M s(x, ·) − E Σ_j P̂_k(x, j) s(x, y_j)),
  P̂_k(x, j) = m(x, y_j)/Σ_i m(x, y_i), m = dM(x, ·)/dπ  (the idealised search's weights).

Two kinds of model:

``FloatFiniteModel``  N states with probabilities π, a row-stochastic kernel M with full support
    (so Σ_i m(x, y_i) > 0 always), unit embeddings Φ (N × d) and similarities S = Φ Φᵀ ∈ [−1, 1].
    Exact values enumerate the multinomial counts of the k negatives over the N states
    (C(k + N − 1, N − 1) compositions; used while that is ≤ ``EXACT_LIMIT``); beyond, Monte Carlo
    draws the counts ``rng.multinomial(k, π)`` (cost O(N) per sample, whatever k).

``SphereModel``  π uniform on S^{d−1}, identity embedding, positives von Mises–Fisher with
    concentration κ around the anchor, so m(x, y) = e^{κ t}/E e^{κ T} with t = ⟨x, y⟩. By rotation
    invariance everything depends on the cosine T of a uniform point, whose density is
    ∝ (1 − t²)^{(d−3)/2} on [−1, 1]; moments E[T^j e^{bT}] are computed by mpmath quadrature
    (30 digits) and checked in the tests against E e^{bT} = Γ(d/2)(2/b)^{d/2−1} I_{d/2−1}(b).
    T is sampled as 2 Beta((d−1)/2, (d−1)/2) − 1.

Monte Carlo estimators use exact control variates with known mean zero, which keeps them unbiased
and makes their standard error O(1/k) like the quantity itself:
    log U − (U − 1)                                   for R̃ − CE    (E U = 1)
    A/B − μ_A − [(A − μ_A) − μ_A (B − 1)]              for E[A/B] − μ_A (E A = μ_A, E B = 1)
with A = (1/k) Σ m_j s_j, B = (1/k) Σ m_j, μ_A = E_π[m s] = E_M s.
"""

from __future__ import annotations

import dataclasses
import math
from functools import cache, lru_cache

import numpy as np

#: largest number of multinomial compositions enumerated exactly per anchor
EXACT_LIMIT = 2_000_000


# ----------------------------------------------------------------------------------------------
# finite models
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class FloatFiniteModel:
    """A finite-state contrastive model in float64: π (N,), M (N, N) row-stochastic, Φ (N, d) unit rows, τ.

    The experiments' float64 form of a finite model (their Monte Carlo and float enumeration); the exact one, in
    rationals and to any number of digits, is ``numerics.finite.FiniteModel`` (also named ``ExactFiniteModel``).
    The old name ``FiniteModel`` of this module is a deprecated alias."""

    name: str
    pi: np.ndarray
    M: np.ndarray
    Phi: np.ndarray
    tau: float

    def __post_init__(self):
        pi, M, Phi = (np.asarray(a, float) for a in (self.pi, self.M, self.Phi))
        if self.tau <= 0 or not math.isfinite(self.tau):
            raise ValueError(f"tau must be > 0 and finite, got {self.tau!r}")
        if pi.ndim != 1 or np.any(pi <= 0) or abs(pi.sum() - 1) > 1e-12:
            raise ValueError("pi must be a positive probability vector")
        if M.shape != (len(pi), len(pi)) or np.any(M <= 0) or np.max(np.abs(M.sum(1) - 1)) > 1e-12:
            raise ValueError("M must be a row-stochastic matrix with full support, shape (N, N)")
        if np.max(np.abs(np.linalg.norm(Phi, axis=1) - 1)) > 1e-12:
            raise ValueError("Phi must have unit rows")

    @property
    def N(self) -> int:
        return len(self.pi)

    @property
    def S(self) -> np.ndarray:
        return np.clip(self.Phi @ self.Phi.T, -1.0, 1.0)

    @property
    def m(self) -> np.ndarray:
        """m(x, y) = M(x, y)/π(y), the density of M(x, ·) with respect to π."""
        return self.M / self.pi[None, :]

    def W(self) -> np.ndarray:
        """W_x(y) = e^{s(x, y)/τ}; overflows for τ ≲ 1.4e-3 (e^{1/τ} > 1.8e308): the sums use ``Ws``."""
        return np.exp(self.S / self.tau)

    def Z(self) -> np.ndarray:
        return self.W() @ self.pi

    @property
    def shift(self) -> np.ndarray:
        """m(x) = max_y s(x, y), the per-anchor shift of ``Ws``."""
        return self.S.max(axis=1)

    def Ws(self) -> np.ndarray:
        """W_x(y) e^{−m(x)/τ} = e^{(s(x, y) − m(x))/τ} ∈ (0, 1]: W scaled per anchor. Every ratio used here
        (U = Z_k/Z, κ₂/Z², κ₃/Z³) is unchanged by the scale, and nothing overflows at τ = 1e-3."""
        return np.exp((self.S - self.shift[:, None]) / self.tau)

    def Zs(self) -> np.ndarray:
        """Z(x) e^{−m(x)/τ}, the scaled partition function (≥ min_y π(y) > 0: no underflow)."""
        return self.Ws() @ self.pi

    def log_Z(self) -> np.ndarray:
        """log Z(x) = m(x)/τ + log Zs(x), without forming Z."""
        return self.shift / self.tau + np.log(self.Zs())

    def ce(self) -> float:
        """CE = E_x[ −E_M s(x, ·)/τ + log Z(x) ] = E_x[ (m(x) − E_M s(x, ·))/τ + log Zs(x) ]."""
        pos = np.sum(self.M * (self.S - self.shift[:, None]), axis=1)  # ≤ 0, O(1): no 1/τ-size cancellation
        return float(self.pi @ (-pos / self.tau + np.log(self.Zs())))

    def leading(self) -> tuple[float, float]:
        """(a₁, a₂) with R̃ − CE = −a₁/k + a₂/k² + O(k⁻³): a₁ = E_x κ₂/(2Z²), a₂ = E_x[κ₃/(3Z³) − 3κ₂²/(4Z⁴)]."""
        W, Z = self.Ws(), self.Zs()  # scale-free ratios
        c = W - Z[:, None]
        k2 = (c**2) @ self.pi
        k3 = (c**3) @ self.pi
        return float(self.pi @ (k2 / (2 * Z**2))), float(self.pi @ (k3 / (3 * Z**3) - 3 * k2**2 / (4 * Z**4)))

    def delta1(self) -> float:
        """δ₁ = (1/τ) E_x[Cov_π(m, m s) − E_π(m s) Var_π(m)], the 1/k coefficient of D_k."""
        m, S, pi = self.m, self.S, self.pi
        Em = m @ pi  # = 1
        Ems = (m * S) @ pi
        cov = (m * m * S) @ pi - Em * Ems
        var = (m * m) @ pi - Em**2
        return float(pi @ (cov - Ems * var)) / self.tau

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "tau": self.tau,
            "pi": self.pi.tolist(),
            "M": self.M.tolist(),
            "Phi": self.Phi.tolist(),
        }


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def finite_models(tau: float = 0.5) -> list[FloatFiniteModel]:
    """The built-in finite models (fixed: their internal generator seed is not the experiment's seed).

    * ``binary``  2 states at angle 2π/3 on the circle, π = (0.7, 0.3), M keeps the state w.p. 0.8.
    * ``ring6``   6 equally spaced points on the circle, π ∝ (1, 2, 3, 1, 2, 3),
                  M(x, y) ∝ π(y) e^{2 cos(θ_x − θ_y)} (a discrete von Mises kernel).
    * ``random8`` 8 random unit vectors in R³, π ~ Dirichlet(2·1), M ∝ π(y) e^{3 s(x, y)} · noise.
    """
    g = np.random.default_rng(20261129)
    out = []
    ang = np.array([0.0, 2 * np.pi / 3])
    out.append(
        FloatFiniteModel(
            "binary",
            np.array([0.7, 0.3]),
            np.array([[0.8, 0.2], [0.2, 0.8]]),
            np.column_stack([np.cos(ang), np.sin(ang)]),
            tau,
        )
    )
    th = 2 * np.pi * np.arange(6) / 6
    pi = np.array([1, 2, 3, 1, 2, 3], float)
    pi /= pi.sum()
    K = pi[None, :] * np.exp(2 * np.cos(th[:, None] - th[None, :]))
    out.append(
        FloatFiniteModel("ring6", pi, K / K.sum(1, keepdims=True), np.column_stack([np.cos(th), np.sin(th)]), tau)
    )
    Phi = _unit(g.normal(size=(8, 3)))
    pi = g.dirichlet(2 * np.ones(8))
    K = pi[None, :] * np.exp(3 * Phi @ Phi.T) * g.uniform(0.5, 1.5, size=(8, 8))
    out.append(FloatFiniteModel("random8", pi, K / K.sum(1, keepdims=True), Phi, tau))
    return out


def finite_model(name: str, tau: float) -> FloatFiniteModel:
    for mdl in finite_models(tau):
        if mdl.name == name:
            return mdl
    raise ValueError(f"unknown finite model {name!r}; known: {[m.name for m in finite_models(tau)]}")


def _log(U: np.ndarray) -> np.ndarray:
    """log U: log1p(U − 1) near 1 (no cancellation), log U elsewhere (U − 1 rounds to −1 when U < 1e-16)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.abs(U - 1) < 0.5, np.log1p(U - 1), np.log(U))


def _log_U(
    C: np.ndarray, log_w: np.ndarray, log_norm: float, log_C: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(log U, U) for U = Σ_y C_y e^{log_w_y} / e^{log_norm}, row by row of the counts C, max-shifted.

    Why: at τ = 1e-3 the scaled weights e^{(s − m)/τ} of far states underflow to 0, and a draw of only far
    states made U = 0 and log U = −inf; here log U stays finite (≈ −2000) and near U = 1 it is
    log1p(U − 1), with no cancellation. ``log_C`` = log C when the caller has it (the same counts for every
    anchor state). The row maximum is taken column by column: the same value as ``A.max(axis=1)`` (a
    maximum is exact in any order), three times faster on these short rows.
    """
    if log_C is None:
        with np.errstate(divide="ignore"):
            log_C = np.log(C)  # −inf where C_y = 0
    A = log_C + log_w[None, :]
    mx = A[:, 0].copy()
    for j in range(1, A.shape[1]):
        np.maximum(mx, A[:, j], out=mx)
    mx = mx[:, None]
    log_u = mx[:, 0] + np.log(np.exp(A - mx).sum(axis=1)) - log_norm
    U = np.exp(log_u)
    with np.errstate(invalid="ignore"):
        near = np.abs(U - 1) < 0.5
        log_u = np.where(near, np.log1p(np.where(near, U - 1, 0.0)), log_u)
    return log_u, U


def n_compositions(k: int, N: int) -> int:
    return math.comb(k + N - 1, N - 1)


@cache
def compositions(k: int, N: int) -> np.ndarray:
    """All count vectors c ∈ ℕ^N with Σ c = k, shape (C(k+N−1, N−1), N), int32."""
    if N == 1:
        return np.array([[k]], dtype=np.int32)
    blocks = []
    for c0 in range(k + 1):
        rest = compositions(k - c0, N - 1)
        blocks.append(np.column_stack([np.full(len(rest), c0, np.int32), rest]))
    return np.concatenate(blocks)


def _multinomial_logpmf(C: np.ndarray, k: int, pi: np.ndarray) -> np.ndarray:
    logfact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, k + 1)))])
    return logfact[k] - logfact[C].sum(1) + C @ np.log(pi)


def exact_possible(model: FloatFiniteModel, k: int) -> bool:
    return n_compositions(k, model.N) <= EXACT_LIMIT


def finite_exact(model: FloatFiniteModel, k: int) -> dict:
    """Exact (enumerated) R̃ − CE and D_k for a finite model: float64 sums over the compositions."""
    if not exact_possible(model, k):
        raise ValueError(f"k = {k} needs {n_compositions(k, model.N)} compositions (> {EXACT_LIMIT}); use Monte Carlo")
    C = compositions(k, model.N).astype(float)
    P = np.exp(_multinomial_logpmf(C.astype(np.int64), k, model.pi))
    Z, S, m = model.Zs(), model.S, model.m  # U = Z_k/Z is scale-free
    gap = 0.0
    snis = 0.0
    logW = (S - model.shift[:, None]) / model.tau
    with np.errstate(divide="ignore"):
        log_C = np.log(C)  # once for every anchor state
    for x in range(model.N):
        log_u, U = _log_U(C, logW[x], math.log(k * Z[x]), log_C)
        gap += model.pi[x] * float(P @ (log_u - (U - 1)))  # E(U − 1) = 0 exactly
        A = (C @ (m[x] * S[x])) / k
        B = (C @ m[x]) / k
        snis += model.pi[x] * float(P @ (A / B - float(m[x] * S[x] @ model.pi)))  # subtract inside: less cancellation
    compositions.cache_clear()
    return {"gap": gap, "gap_se": 0.0, "D": -snis / model.tau, "D_se": 0.0, "method": "exact"}


def finite_mc(model: FloatFiniteModel, k: int, n: int, rng: np.random.Generator, chunk: int = 200_000) -> dict:
    """Monte Carlo R̃ − CE and D_k (n samples per anchor state, stratified over x, control variates)."""
    Z, S, m = model.Zs(), model.S, model.m  # U = Z_k/Z is scale-free
    logW = (S - model.shift[:, None]) / model.tau
    gap = gvar = d = dvar = 0.0
    for x in range(model.N):
        g_sum = g_sq = d_sum = d_sq = 0.0
        muA = float(m[x] * S[x] @ model.pi)
        done = 0
        while done < n:
            b = min(chunk, n - done)
            C = rng.multinomial(k, model.pi, size=b).astype(float)
            log_u, U = _log_U(C, logW[x], math.log(k * Z[x]))
            g = log_u - (U - 1)
            A = (C @ (m[x] * S[x])) / k
            B = (C @ m[x]) / k
            e = A / B - muA - ((A - muA) - muA * (B - 1))
            g_sum += g.sum()
            g_sq += (g * g).sum()
            d_sum += e.sum()
            d_sq += (e * e).sum()
            done += b
        gm, dm = g_sum / n, d_sum / n
        gap += model.pi[x] * gm
        gvar += model.pi[x] ** 2 * max(g_sq / n - gm**2, 0.0) / (n - 1)
        d += model.pi[x] * dm
        dvar += model.pi[x] ** 2 * max(d_sq / n - dm**2, 0.0) / (n - 1)
    return {
        "gap": gap,
        "gap_se": math.sqrt(gvar),
        "D": -d / model.tau,
        "D_se": math.sqrt(dvar) / model.tau,
        "method": f"monte carlo ({n} samples per anchor state)",
    }


# ----------------------------------------------------------------------------------------------
# the sphere model
# ----------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class SphereModel:
    """π uniform on S^{d−1}, identity embedding, positives vMF(κ) around the anchor, temperature τ."""

    d: int = 8
    kappa: float = 4.0
    tau: float = 0.5
    name: str = "sphere"

    def __post_init__(self):
        if self.d < 2:
            raise ValueError(f"d must be ≥ 2, got {self.d}")
        if self.tau <= 0:
            raise ValueError(f"tau must be > 0, got {self.tau}")
        if self.kappa <= 0:
            raise ValueError(f"kappa must be > 0, got {self.kappa}")

    def moment(self, b: float, j: int = 0) -> float:
        """E[T^j e^{bT}] for the cosine T of a uniform point on S^{d−1} (mpmath quadrature, 30 digits)."""
        return float(sphere_moment(self.d, b, j))

    def Z(self) -> float:
        """Z = E e^{T/τ}; inf for τ ≲ 1.4e-3 (the sums use ``Zs``)."""
        return self.moment(1 / self.tau)

    def Zs(self) -> float:
        """Z e^{−1/τ} = E e^{(T − 1)/τ} (T ≤ 1: no overflow at any τ)."""
        return float(sphere_moment(self.d, 1 / self.tau, 0, shift=1))

    def ce(self) -> float:
        """CE = −E_vMF[T]/τ + log Z = (1 − E_vMF[T])/τ + log Zs, E_vMF[T] = E[T e^{κT}]/E[e^{κT}]."""
        et = self.moment(self.kappa, 1) / self.moment(self.kappa)
        return (1 - et) / self.tau + math.log(self.Zs())

    def leading(self) -> tuple[float, float]:
        import mpmath

        with mpmath.workdps(30):
            b = mpmath.mpf(1) / mpmath.mpf(self.tau)
            m1, m2, m3 = (sphere_moment(self.d, j * b, 0) for j in (1, 2, 3))
            k2 = m2 - m1**2
            k3 = m3 - 3 * m2 * m1 + 2 * m1**3
            return float(k2 / (2 * m1**2)), float(k3 / (3 * m1**3) - 3 * k2**2 / (4 * m1**4))

    def delta1(self) -> float:
        """δ₁ = (1/τ)[E(m² T) − E(mT) − E(mT)(E m² − 1)], m = e^{κT}/E e^{κT}."""
        import mpmath

        with mpmath.workdps(30):
            kap = mpmath.mpf(self.kappa)
            Mk = sphere_moment(self.d, kap, 0)
            Em2 = sphere_moment(self.d, 2 * kap, 0) / Mk**2
            Em2t = sphere_moment(self.d, 2 * kap, 1) / Mk**2
            Emt = sphere_moment(self.d, kap, 1) / Mk
            return float((Em2t - Emt - Emt * (Em2 - 1)) / mpmath.mpf(self.tau))

    def sample_T(self, rng: np.random.Generator, size) -> np.ndarray:
        a = (self.d - 1) / 2
        return 2 * rng.beta(a, a, size=size) - 1

    def to_dict(self) -> dict:
        return {"name": self.name, "d": self.d, "kappa": self.kappa, "tau": self.tau}


@lru_cache(maxsize=256)
def sphere_moment(d: int, b, j: int = 0, shift=0):
    """E[T^j e^{b(T − shift)}] = ∫ t^j e^{b(t − shift)} (1 − t²)^{(d−3)/2} dt / B(1/2, (d−1)/2) over [−1, 1]
    (mpmath, 30 digits); ``shift = 1`` keeps the value ≤ 1 at any b (a float even at b = 1/τ = 1000)."""
    import mpmath

    with mpmath.workdps(30):
        b = mpmath.mpf(b)
        c = mpmath.mpf(shift)
        e = mpmath.mpf(d - 3) / 2
        norm = mpmath.beta(mpmath.mpf(1) / 2, mpmath.mpf(d - 1) / 2)
        f = lambda t: t**j * mpmath.exp(b * (t - c)) * (1 - t * t) ** e
        return mpmath.quad(f, [-1, 0, 1]) / norm


def sphere_mc(model: SphereModel, k: int, n: int, rng: np.random.Generator, chunk_values: int = 2_000_000) -> dict:
    """Monte Carlo R̃ − CE and D_k on the sphere model (n samples of k negatives; control variates)."""
    Z = model.Zs()  # with e^{(T − 1)/τ} below: U = Z_k/Z is scale-free
    Mk = model.moment(model.kappa)
    muA = model.moment(model.kappa, 1) / Mk
    b = max(1, chunk_values // k)
    g_sum = g_sq = d_sum = d_sq = 0.0
    done = 0
    while done < n:
        r = min(b, n - done)
        T = model.sample_T(rng, (r, k))
        X = (T - 1) / model.tau  # ≤ 0
        mx = X.max(axis=1)
        log_u = mx + np.log(np.exp(X - mx[:, None]).sum(axis=1)) - math.log(k * Z)  # no log 0 at τ = 1e-3
        U = np.exp(log_u)
        g = np.where(np.abs(U - 1) < 0.5, _log(U), log_u) - (U - 1)
        mT = np.exp(model.kappa * T) / Mk
        A = (mT * T).mean(1)
        B = mT.mean(1)
        e = A / B - muA - ((A - muA) - muA * (B - 1))
        g_sum += g.sum()
        g_sq += (g * g).sum()
        d_sum += e.sum()
        d_sq += (e * e).sum()
        done += r
    gm, dm = g_sum / n, d_sum / n
    return {
        "gap": gm,
        "gap_se": math.sqrt(max(g_sq / n - gm**2, 0.0) / (n - 1)),
        "D": -dm / model.tau,
        "D_se": math.sqrt(max(d_sq / n - dm**2, 0.0) / (n - 1)) / model.tau,
        "method": f"monte carlo ({n} samples)",
    }


def __getattr__(name: str):
    if name == "FiniteModel":  # the exact model has that name (numerics.finite); this one says it is float64
        import warnings

        warnings.warn(
            "numerics.experiments.models.FiniteModel is now FloatFiniteModel (the exact model is "
            "numerics.finite.FiniteModel, also named ExactFiniteModel)",
            DeprecationWarning,
            stacklevel=2,
        )
        return FloatFiniteModel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
