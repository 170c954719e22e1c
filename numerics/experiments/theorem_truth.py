"""Experiment ``theorem``'s model with a known truth and its kernels (``experiments.theorem`` runs the sweep).

``KnownTruthModel`` (N states on R², π, a full-support positive kernel M, the circle embedding φ_θ) and its
compiled sums: ``exact_truth`` (the paper's left-hand side and the population risk over every count vector
of the k negatives, compensated float64, k ≤ ``K_MAX``), the grid losses of a stretch of tuples over the ERM
grid (``_grid_loss_sums``, spacing R/``GRID_STEPS``), ``cross_entropy_limit`` and the Monte Carlo check
``monte_carlo_lhs``. See ``experiments.theorem`` for the definitions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import prange

from .._jit import helper, kernel
from ..logsumexp import dot, exp_terms

#: lattice spacing of the ERM grid is R / GRID_STEPS
GRID_STEPS = 8
#: the truth enumerates C(k + 3, 3) count vectors: 2.3e7 at k = 512 (about 15 s of CPU); k = 4096 would need 1.1e10
K_MAX = 512


# ----------------------------------------------------------------------------------------------
# the model
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownTruthModel:
    """N states z (N × 2), π, M (rows sum to 1, every entry > 0), the ball Θ = {‖θ − θ₀‖ ≤ R}."""

    name: str
    z: np.ndarray
    pi: np.ndarray
    M: np.ndarray
    theta0: np.ndarray
    R: float
    C_Phi: float = 1.0  #: (C) for the angle class, proved in derivations.angle_class
    d_Theta: int = 2

    def __post_init__(self):
        z, pi, M = self.z, self.pi, self.M
        N = len(pi)
        if z.shape != (N, 2) or M.shape != (N, N) or self.theta0.shape != (2,):
            raise ValueError("model: z must be N × 2, M N × N and θ₀ of length 2")
        if np.any(pi <= 0) or abs(pi.sum() - 1) > 1e-12:
            raise ValueError(f"model: π must be positive and sum to 1, got {pi.tolist()}")
        if np.any(M <= 0) or np.any(np.abs(M.sum(1) - 1) > 1e-12):
            raise ValueError("model: M must have every entry > 0 (full support) and rows summing to 1")
        if not self.R > 0:
            raise ValueError(f"model: R must be > 0, got {self.R}")

    @property
    def N(self) -> int:
        return len(self.pi)

    def phi(self, theta) -> np.ndarray:
        """φ_θ(z_x) = (cos⟨θ, z_x⟩, sin⟨θ, z_x⟩) for every state x (N × 2)."""
        ang = self.z @ np.asarray(theta, float)
        return np.column_stack([np.cos(ang), np.sin(ang)])

    def sims(self, theta) -> np.ndarray:
        """s(x, y) = ⟨φ_θ(z_x), φ_θ(z_y)⟩ = cos⟨θ, z_x − z_y⟩ (N × N)."""
        ang = self.z @ np.asarray(theta, float)
        return np.cos(ang[:, None] - ang[None, :])

    def density(self) -> np.ndarray:
        """w(x, y) = dM(x, ·)/dπ(y) = M(x, y)/π(y)."""
        return self.M / self.pi[None, :]

    def ew2(self) -> float:
        """E|dM(Z, ·)/dπ(Z')|² = Σ_x π(x) Σ_y M(x, y)²/π(y), Z, Z' i.i.d. π."""
        return float(np.sum(self.pi[:, None] * self.M**2 / self.pi[None, :]))

    def grid(self) -> np.ndarray:
        """The ERM grid: θ₀ + (R/GRID_STEPS)(i, j) for integers with i² + j² ≤ GRID_STEPS² (G × 2)."""
        s = GRID_STEPS
        pts = [(i, j) for i in range(-s, s + 1) for j in range(-s, s + 1) if i * i + j * j <= s * s]
        return self.theta0[None, :] + (self.R / s) * np.array(pts, float)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "z": self.z.tolist(),
            "pi": self.pi.tolist(),
            "M": self.M.tolist(),
            "theta0": self.theta0.tolist(),
            "R": self.R,
            "C_Phi": self.C_Phi,
            "d_Theta": self.d_Theta,
            "class": "φ_θ(z) = (cos⟨θ, z⟩, sin⟨θ, z⟩), ‖θ − θ₀‖ ≤ R (derivations.angle_class)",
        }


def default_model() -> KnownTruthModel:
    """Four states on the unit circle (angles 0°, 100°, 190°, 280°), π = (0.3, 0.3, 0.2, 0.2); each state's
    positives go mostly (0.7; 0.1 to each other state) to its 'partner' (0 ↔ 2, 1 ↔ 3), which θ₀ = (√2, √2) places
    far from it on S¹; the ball R = 1/2 lets ERM close only part of that gap (at τ = 1/2 the k → ∞ cross-entropy
    is 2.24 at θ₀ and 1.43 at its minimum over the grid), so the truth stays well above 0."""
    deg = np.deg2rad([0.0, 100.0, 190.0, 280.0])
    z = np.column_stack([np.cos(deg), np.sin(deg)])
    pi = np.array([0.3, 0.3, 0.2, 0.2])
    partner = [2, 3, 0, 1]
    M = np.full((4, 4), 0.1)
    for x, p in enumerate(partner):
        M[x, p] = 0.7
    return KnownTruthModel("circle4", z, pi, M, np.array([math.sqrt(2), math.sqrt(2)]), 0.5)


# ----------------------------------------------------------------------------------------------
# kernels
# ----------------------------------------------------------------------------------------------


@helper
def _lse(row, poly, bits):
    """log Σ_j e^{row_j}, max-shifted: ``logsumexp`` of ``numerics.logsumexp`` with caller-owned scratch
    (``poly`` float64, ``bits`` int64, each as long as ``row``), so the inner loops do not allocate."""
    m = np.max(row)  # exact, as ``row_max``; compiled for float64 only (``row_max`` also compiles its float32 branch)
    if m == -math.inf:
        return m
    exp_terms(row, m, 1.0, poly, bits)
    return m + math.log(dot(poly, bits.view(np.float64)))


def _logsumexp(row: np.ndarray) -> float:
    """log Σ_j e^{row_j} of a float64 vector from Python, through ``_lse`` (already compiled for the truth's
    kernels: the same operations as ``numerics.logsumexp.logsumexp`` on a row without +inf, no second compile)."""
    row = np.ascontiguousarray(row, dtype=np.float64)
    return float(_lse(row, np.empty(len(row)), np.empty(len(row), dtype=np.int64)))


@helper
def _two(a, b, buf, poly, bits):
    """log(e^a + e^b) through ``_lse`` (``buf``, ``poly``, ``bits``: 2-vectors of scratch)."""
    buf[0] = a
    buf[1] = b
    return _lse(buf, poly, bits)


#: below this many inner-loop iterations (``_grid_work`` / ``_truth_work``) a kernel's serial form is used: it
#: runs in well under a second, and compiles in a third of the CPU of the ``prange`` form (measured cold:
#: 0.7 s against 2.1 s for the grid sums, 2.9 s against 4.4 s with the truth), which the quick form would
#: otherwise pay for nothing. Both forms run the same helper per outer index and sum in the same fixed order,
#: so they return the same bits (tests/test_experiment_theorem.py).
SERIAL_BELOW = 2 * 10**7


@helper
def _grid_loss_one(g, xs, ys, cs, counts, a, logk):
    """Σ_u counts[u] · ℓ(θ_g, (xs[u], ys[u], cs[u])) at one grid point g.

    a[g, x, y] = s_θg(x, y)/τ and ℓ = log(1/k + (1/k) Σ_y c_y e^{a[x,y] − a[x,y⁺]}). The log-sum-exp's shift is
    hoisted out of the loop over tuples: m = max_y a[g, x, y] and E[y] = e^{a[g,x,y] − m} (``exp_terms``) once per
    (g, x), so S = Σ_y c_y E[y] ≥ 1 whenever the maximising state has a count (its term is c ≥ 1: the helper's
    argument, no underflow); then t = log S + m − a[x,y⁺] ≥ 0 and ℓ = t + log(1 + e^{−t}) − log k (a two-term
    max-shifted log-sum-exp). A tuple whose maximising state has count 0 goes through ``_lse`` itself.
    Neumaier-compensated sum.
    """
    U = xs.shape[0]
    N = a.shape[1]
    row = np.empty(N)
    poly = np.empty(N)
    bits = np.empty(N, dtype=np.int64)
    E = np.empty((N, N))
    mx = np.empty(N)
    arg = np.empty(N, dtype=np.int64)
    for x in range(N):
        best = 0
        for y in range(1, N):
            if a[g, x, y] > a[g, x, best]:
                best = y
        arg[x] = best
        mx[x] = a[g, x, best]
        exp_terms(a[g, x], mx[x], 1.0, poly, bits)
        scale = bits.view(np.float64)
        for y in range(N):
            E[x, y] = poly[y] * scale[y]
    s = 0.0
    comp = 0.0
    for u in range(U):
        x = xs[u]
        if cs[u, arg[x]] > 0:
            S = 0.0
            for y in range(N):
                S += cs[u, y] * E[x, y]
            t = math.log(S) + mx[x] - a[g, x, ys[u]]
        else:
            for y in range(N):
                c = cs[u, y]
                row[y] = math.log(c) + a[g, x, y] if c > 0 else -math.inf
            t = _lse(row, poly, bits) - a[g, x, ys[u]]
        if t >= 0:
            ell = t + math.log1p(math.exp(-t)) - logk
        else:
            ell = math.log1p(math.exp(t)) - logk
        term = counts[u] * ell
        v = s + term
        if abs(s) >= abs(term):
            comp += (s - v) + term
        else:
            comp += (term - v) + s
        s = v
    return s + comp


@kernel
def _grid_loss_sums_parallel(xs, ys, cs, counts, a, logk):
    """``_grid_loss_one`` at every grid point g (prange over g)."""
    out = np.zeros(a.shape[0])
    for g in prange(a.shape[0]):
        out[g] = _grid_loss_one(g, xs, ys, cs, counts, a, logk)
    return out


@kernel(parallel=False)
def _grid_loss_sums_serial(xs, ys, cs, counts, a, logk):
    """``_grid_loss_one`` at every grid point g, in order."""
    out = np.zeros(a.shape[0])
    for g in range(a.shape[0]):
        out[g] = _grid_loss_one(g, xs, ys, cs, counts, a, logk)
    return out


def _grid_work(xs, a) -> int:
    """Inner-loop iterations of the grid sums: grid points × distinct tuples × states."""
    return a.shape[0] * len(xs) * a.shape[1]


def _grid_loss_sums(xs, ys, cs, counts, a, logk):
    """Σ_u counts[u] · ℓ(θ_g, tuple u) for every grid point g (``_grid_loss_one``), by the serial kernel below
    ``SERIAL_BELOW`` iterations and the ``prange`` one above."""
    fn = _grid_loss_sums_serial if _grid_work(xs, a) < SERIAL_BELOW else _grid_loss_sums_parallel
    return fn(xs, ys, cs, counts, a, logk)


@helper
def _truth_slice(c0, logpi, w, a, k, lgam, logc, with_risk):
    """(LHS, R) restricted to the count vectors with first count c0: Σ over the compositions c of k − c0 into
    N − 1 parts of Mult(c) × Σ_x π(x) [(9) at x; E_{y⁺} ℓ], Neumaier-compensated.

    (9) at x = −(1/τ) Σ_y c_y w(x,y) s(x,y) / Σ_y c_y w(x,y) + log((1/k) Σ_y c_y e^{s(x,y)/τ}), with a = s/τ.
    """
    N = logpi.shape[0]
    logk = math.log(k)
    c = np.zeros(N, dtype=np.int64)
    row = np.empty(N)
    buf = np.empty(2)
    poly = np.empty(N)
    bits = np.empty(N, dtype=np.int64)
    poly2 = np.empty(2)
    bits2 = np.empty(2, dtype=np.int64)
    c[0] = c0
    rem = k - c0
    # first composition of rem into parts 1 … N−1: everything in the last part
    for i in range(1, N):
        c[i] = 0
    c[N - 1] = rem
    s_l = 0.0
    e_l = 0.0
    s_r = 0.0
    e_r = 0.0
    while True:
        logp = lgam[k]
        for y in range(N):
            logp += c[y] * logpi[y] - lgam[c[y]]
        p = math.exp(logp)
        tl = 0.0
        tr = 0.0
        for x in range(N):
            num = 0.0
            den = 0.0
            for y in range(N):
                num += c[y] * w[x, y] * a[x, y]
                den += c[y] * w[x, y]
                row[y] = logc[c[y]] + a[x, y]
            L = _lse(row, poly, bits) - logk
            tl += math.exp(logpi[x]) * (-num / den + L)
            if with_risk:
                er = 0.0
                for yp in range(N):
                    er += _mpos(w, logpi, x, yp) * _two(-logk, L - a[x, yp], buf, poly2, bits2)
                tr += math.exp(logpi[x]) * er
        # compensated accumulation of p·tl and p·tr
        v = p * tl
        t = s_l + v
        e_l += (s_l - t) + v if abs(s_l) >= abs(v) else (v - t) + s_l
        s_l = t
        v = p * tr
        t = s_r + v
        e_r += (s_r - t) + v if abs(s_r) >= abs(v) else (v - t) + s_r
        s_r = t
        # next composition of rem into parts 1 … N−1 (colex: move one unit left of the last nonzero)
        if N == 1:
            break
        j = N - 1
        while j >= 1 and c[j] == 0:
            j -= 1
        if j <= 1:
            break
        tail = c[j]
        c[j] = 0
        c[j - 1] += 1
        c[N - 1] = tail - 1
    return s_l + e_l, s_r + e_r


@helper
def _log_counts(k):
    """log c for c = 0 … k (−inf at 0)."""
    logc = np.empty(k + 1)
    logc[0] = -math.inf
    for i in range(1, k + 1):
        logc[i] = math.log(i)
    return logc


@kernel
def _exact_truth_parallel(logpi, w, a, k, lgam, with_risk):
    """(LHS, R): ``_truth_slice`` for every first count c0 (prange over c0), summed in the order of c0."""
    logc = _log_counts(k)
    lhs_part = np.zeros(k + 1)
    r_part = np.zeros(k + 1)
    for c0 in prange(k + 1):
        lhs_part[c0], r_part[c0] = _truth_slice(c0, logpi, w, a, k, lgam, logc, with_risk)
    lhs = 0.0
    r = 0.0
    for c0 in range(k + 1):  # fixed order: the result does not depend on the threads
        lhs += lhs_part[c0]
        r += r_part[c0]
    return lhs, r


@kernel(parallel=False)
def _exact_truth_serial(logpi, w, a, k, lgam, with_risk):
    """(LHS, R): ``_truth_slice`` for every first count c0, summed in the order of c0 (as the prange form)."""
    logc = _log_counts(k)
    lhs_part = np.zeros(k + 1)
    r_part = np.zeros(k + 1)
    for c0 in range(k + 1):
        lhs_part[c0], r_part[c0] = _truth_slice(c0, logpi, w, a, k, lgam, logc, with_risk)
    lhs = 0.0
    r = 0.0
    for c0 in range(k + 1):
        lhs += lhs_part[c0]
        r += r_part[c0]
    return lhs, r


def _truth_work(N: int, k: int, with_risk: bool) -> int:
    """Inner-loop iterations of the truth: count vectors × N² (five times that with the risk)."""
    return math.comb(k + N - 1, N - 1) * N * N * (5 if with_risk else 1)


def _exact_truth(logpi, w, a, k, lgam, with_risk):
    """(LHS, R) over every count vector (``_truth_slice`` per first count), by the serial kernel below
    ``SERIAL_BELOW`` iterations and the ``prange`` one above."""
    small = _truth_work(logpi.shape[0], k, with_risk) < SERIAL_BELOW
    return (_exact_truth_serial if small else _exact_truth_parallel)(logpi, w, a, k, lgam, with_risk)


@helper
def _mpos(w, logpi, x, y):
    """M(x, y) = w(x, y) π(y)."""
    return w[x, y] * math.exp(logpi[y])


def exact_truth(model: KnownTruthModel, theta, k: int, tau: float, with_risk: bool = False) -> dict:
    """LHS(θ) = ∫ E CrossEnt[M̂_k ‖ Q̂^φ_{τ,k}] dπ and (``with_risk``) R(θ; k, τ) of (2), exactly (float64,
    compensated sums; the risk costs five times the LHS, so it is skipped unless asked)."""
    if not (isinstance(k, (int, np.integer)) and 1 <= k <= K_MAX):
        raise ValueError(f"k = {k!r} is out of range; allowed: an integer in [1, {K_MAX}]")
    if not (0.001 <= tau <= 100):
        raise ValueError(f"tau = {tau!r} is out of range; allowed: τ in [0.001, 100]")
    a = np.ascontiguousarray(model.sims(theta) / tau)
    lgam = np.array([math.lgamma(i + 1) for i in range(k + 1)])
    lhs, r = _exact_truth(np.log(model.pi), np.ascontiguousarray(model.density()), a, int(k), lgam, bool(with_risk))
    return {"lhs": float(lhs), "risk": float(r) if with_risk else None}


def cross_entropy_limit(model: KnownTruthModel, theta, tau: float) -> float:
    """∫ CrossEnt[M ‖ Q^φ_τ] dπ of (7) (the k → ∞ limit), for orientation."""
    s = model.sims(theta)
    out = 0.0
    for x in range(model.N):
        row = np.log(model.pi) + s[x] / tau
        out += model.pi[x] * (-(model.M[x] @ s[x]) / tau + _logsumexp(row))
    return out


def monte_carlo_lhs(model: KnownTruthModel, theta, k: int, tau: float, samples: int, rng) -> tuple[float, float]:
    """Monte Carlo estimate (mean, standard error) of LHS(θ) from (9) on drawn ξ_1 … ξ_k (a check of the truth)."""
    s = model.sims(theta)
    w = model.density()
    xs = rng.choice(model.N, size=samples, p=model.pi)
    xi = rng.choice(model.N, size=(samples, k), p=model.pi)
    vals = np.empty(samples)
    for i in range(samples):
        x = xs[i]
        sv = s[x, xi[i]]
        wv = w[x, xi[i]]
        row = np.ascontiguousarray(sv / tau)
        vals[i] = -(wv @ sv) / wv.sum() / tau + _logsumexp(row) - math.log(k)
    return float(vals.mean()), float(vals.std(ddof=1) / math.sqrt(samples))
