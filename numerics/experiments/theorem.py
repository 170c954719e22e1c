"""Experiment ``theorem``: Theorem 1 on a model with a known truth, from n = 10³ to 10⁸ tuples.

The class (ours, ``derivations.angle_class``): φ_θ(z) = (cos⟨θ, z⟩, sin⟨θ, z⟩) ∈ S¹, θ ∈ Θ = {‖θ − θ₀‖ ≤ R} ⊂ R²
(d_Θ = d_in = 2); assumption (C) holds on all of R² with C_Φ = 1 (proved in the ledger).

The data (a finite-state model): N states z_1 … z_N ∈ R², π_data = π on them, a positive-pair kernel M with full
support (so dM(z, ·)/dπ > 0 and M̂_k never divides 0/0). For every θ the paper's left-hand side

  LHS(θ) = Σ_x π(x) E_{ξ ~ π^k} CrossEnt[M̂_k(x, ·) ‖ Q̂^φ_{τ,k}(x, ·)]   ((9), m = k)

and the population risk R(θ; k, τ) of (2) are finite sums over the C(k + N − 1, N − 1) count vectors of the k
unseen points (multinomial probabilities), evaluated in float64 by ``exact_truth`` with compensated sums
(agreement with a 30-digit mpmath route, ``numerics.finite``, to 1e-12 is tested; so is a Monte Carlo check).

A tuple is (anchor x, positive y⁺ ~ M(x, ·), the count vector c ~ Multinomial(k, π) of its k negatives): ℓ of (14)
depends on nothing else, so n = 10⁸ tuples at k = 256 are drawn and reduced in chunks of 10⁶ into a histogram
of distinct (x, y⁺, c) and never held in memory. Each *point* of the sweep is one stretch of the tuple stream
between two recorded n (1, 2, 5 × 10^j) and returns, for every θ of a fixed grid over Θ (square lattice of
spacing R/GRID_STEPS inside the ball), the sum of ℓ over its tuples, and the state counts of anchors, positives
and negatives (for B_τ of Lemma 1). Prefix sums give R̂_n(θ) at every recorded n exactly; ERM is the grid
minimiser (an honest grid search, reported as such; the bound holds uniformly over Θ, so any θ̂ is covered).

Per (k, τ, n): R̂_n(θ̂_n), LHS(θ̂_n) (the truth), the paper's Theorem 1 with its constants made explicit
(192 and 12, ``derivations.paper.theorem1``; A = e R B_τ C_Φ from the data's B_τ; the finite-k bias of Prop. 2),
ours (the catalogue's proved constants 192 max(κ, δ'), 3τ(b − a) and Lemma 3's 2√(s(s − 1)) + 2(s − 1)),
the toolkit's own route (``derivations.theorem``: 2 × the θ-Lipschitz chaining bound ``complexity_direct`` with
L = C_Φ max‖z‖, and the one-sided deviation (b − a)√(log(1/δ)/(2n)), plus Prop. 2's bias with our Lemma 3 constant),
and the trivial bound 2/τ (every CrossEnt of (9) lies in [−2/τ, 2/τ]), every version capped by it with its active
term: all through the public ``infonce_bounds.theorem1_bound`` (the catalogue's formulas, certified upper ends);
the smallest recorded n at which each bound is below 2/τ, and the smallest at which it is also within 2× the truth (when the truth is positive).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numba import prange

from .._jit import helper, kernel
from ..logsumexp import dot, exp_terms
from . import common

NAME = "theorem"
HELP = "Theorem 1 on a known-truth model: R̂_n, the true LHS, the paper's bound, ours, 2/τ, for n up to 1e8"
FULL = {"k": [64, 256], "taus": [0.5, 1.0], "n": 10**8}
QUICK = {"k": [16], "taus": [0.5], "n": 5 * 10**4}
OPTIONS = ("k", "taus", "tau", "n")
SIZE_OPTIONS = ("k", "n")

#: confidence of Theorem 1 (probability ≥ 1 − δ)
DELTA = 0.05
#: tuples drawn per batch inside a point (memory: 6 int64 per tuple)
BATCH = 10**6
#: lattice spacing of the ERM grid is R / GRID_STEPS
GRID_STEPS = 8
#: the recorded n: 1, 2, 5 × 10^j from 10³
N_MIN = 1000
N_MAX = 10**9
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


# ----------------------------------------------------------------------------------------------
# the tuple stream
# ----------------------------------------------------------------------------------------------


def recorded_ns(n_max: int) -> list[int]:
    """1, 2, 5 × 10^j from N_MIN up to n_max, and n_max itself."""
    out, j = [], 3
    while True:
        for m in (1, 2, 5):
            v = m * 10**j
            if v > n_max:
                return sorted(set([*out, n_max]))
            out.append(v)
        j += 1


def draw_tuples(model: KnownTruthModel, k: int, size: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``size`` tuples of (A): anchors x ~ π, positives y⁺ ~ M(x, ·), negatives' counts c ~ Multinomial(k, π)."""
    xs = rng.choice(model.N, size=size, p=model.pi)
    cum = np.cumsum(model.M, axis=1)
    cum[:, -1] = 1.0
    u = rng.random(size)
    ys = (u[:, None] >= cum[xs]).sum(axis=1)
    cs = rng.multinomial(k, model.pi, size=size)
    return xs, ys, cs


def _encode(xs, ys, cs, N, k):
    key = xs * N + ys
    for y in range(N - 1):
        key = key * (k + 1) + cs[:, y]
    return key


def _decode(keys, N, k):
    keys = keys.copy()
    cs = np.empty((len(keys), N), dtype=np.int64)
    for y in range(N - 2, -1, -1):
        cs[:, y] = keys % (k + 1)
        keys //= k + 1
    cs[:, N - 1] = k - cs[:, : N - 1].sum(axis=1)
    return keys // N, keys % N, cs


def reduce_stretch(model: KnownTruthModel, k: int, size: int, rng) -> dict:
    """Draw ``size`` tuples in batches of BATCH, histogram the distinct (x, y⁺, c), return their counts."""
    N = model.N
    keys = np.empty(0, dtype=np.int64)
    cnt = np.empty(0, dtype=np.int64)
    anchors = np.zeros(N, dtype=np.int64)
    positives = np.zeros(N, dtype=np.int64)
    negatives = np.zeros(N, dtype=np.int64)
    left = size
    while left > 0:
        m = min(BATCH, left)
        xs, ys, cs = draw_tuples(model, k, m, rng)
        anchors += np.bincount(xs, minlength=N)
        positives += np.bincount(ys, minlength=N)
        negatives += cs.sum(axis=0)
        u, c = np.unique(_encode(xs, ys, cs, N, k), return_counts=True)
        allk = np.concatenate([keys, u])
        allc = np.concatenate([cnt, c])
        keys, inv = np.unique(allk, return_inverse=True)
        cnt = np.bincount(inv, weights=allc).astype(np.int64)
        left -= m
    return {"keys": keys, "counts": cnt, "anchors": anchors, "positives": positives, "negatives": negatives}


def grid_similarities(model: KnownTruthModel, grid: np.ndarray, tau: float) -> np.ndarray:
    """a[g, x, y] = s_θg(x, y)/τ (G × N × N)."""
    return np.ascontiguousarray(np.stack([model.sims(th) for th in grid]) / tau)


def point(pt: dict, ss: np.random.SeedSequence) -> dict:
    """One stretch of the tuple stream: the sums of ℓ over it at every grid θ, and its state counts."""
    t0 = time.perf_counter()
    model = default_model()
    k, tau = pt["k"], pt["tau"]
    rng = np.random.default_rng(ss)
    h = reduce_stretch(model, k, pt["size"], rng)
    xs, ys, cs = _decode(h["keys"], model.N, k)
    a = grid_similarities(model, model.grid(), tau)
    sums = _grid_loss_sums(
        np.ascontiguousarray(xs), np.ascontiguousarray(ys), np.ascontiguousarray(cs), h["counts"], a, math.log(k)
    )
    return {
        "size": pt["size"],
        "loss_sums": sums.tolist(),
        "anchors": h["anchors"].tolist(),
        "positives": h["positives"].tolist(),
        "negatives": h["negatives"].tolist(),
        "distinct_tuples": int(len(h["keys"])),
        "seconds": time.perf_counter() - t0,
    }


# ----------------------------------------------------------------------------------------------
# the bounds
# ----------------------------------------------------------------------------------------------


def b_tau(model: KnownTruthModel, anchors, positives, negatives, n: int, k: int, tau: float) -> float:
    """B_τ of Lemma 1 from the state counts: (mean ‖z^a‖²)^{1/2} + (mean ‖z^+‖²)^{1/2}
    + ((1/(nk)) Σ ‖z^-‖^{2/(1∧τ)})^{(1∧τ)/2}, the last in log space (q = 2/(1∧τ) reaches 2000 at τ = 1e-3)."""
    r = np.linalg.norm(model.z, axis=1)
    q = 2.0 / min(1.0, tau)
    neg = np.asarray(negatives, float)
    keep = neg > 0
    row = np.ascontiguousarray(np.log(neg[keep]) + q * np.log(r[keep]))
    log_mean = _logsumexp(row) - math.log(n * k)
    return (
        math.sqrt(float(np.asarray(anchors) @ r**2) / n)
        + math.sqrt(float(np.asarray(positives) @ r**2) / n)
        + math.exp(log_mean / q)
    )


def lipschitz(model: KnownTruthModel) -> float:
    """L = C_Φ max_x ‖z_x‖: θ ↦ φ_θ(z) is L-Lipschitz on the model's support (sup over the data of (C))."""
    return float(np.max(np.linalg.norm(model.z, axis=1)) * model.C_Phi)


def theorem_terms(model: KnownTruthModel, *, n: int, k: int, tau: float, rhat: float, btau: float) -> dict:
    """Every term of Theorem 1 at one (n, k, τ), from the public API ``infonce_bounds.theorem1_bound`` (the
    catalogue's formulas, certified upper ends): the paper's version (192, 12), ours, the toolkit route
    (``ours_direct``), each with ``capped`` = min(bound, 2/τ) and the ``active`` term."""
    from ..api import theorem1_bound

    r = theorem1_bound(
        btau,
        tau,
        rhat=rhat,
        n=n,
        k=k,
        delta=DELTA,
        d_theta=model.d_Theta,
        c_phi=model.C_Phi,
        radius=model.R,
        ew2=model.ew2(),
        lipschitz=lipschitz(model),
    )

    def version(v) -> dict:
        return {t: getattr(v, t) for t in ("complexity", "variability", "bias", "bound", "capped", "active")}

    return {
        "A": r.A,
        "min_term": r.min_term,
        "constants": r.constants,
        "paper": version(r.paper),
        "ours": version(r.ours),
        "ours_direct": version(r.toolkit),
        "trivial": r.trivial,
    }


# ----------------------------------------------------------------------------------------------
# the run
# ----------------------------------------------------------------------------------------------


def stretches(n_max: int) -> list[tuple[int, int]]:
    """(start, size) of the points: the stream cut at every recorded n."""
    ns = recorded_ns(n_max)
    out, prev = [], 0
    for v in ns:
        out.append((prev, v - prev))
        prev = v
    return out


def run(opts: dict, out, seed: int, workers=None, scheduler=None) -> dict:
    ks = opts["k"]
    taus = [opts["tau"]] if opts.get("tau") is not None else list(opts["taus"])
    n_max = int(opts["n"])
    if not (N_MIN <= n_max <= N_MAX):
        raise ValueError(f"--n = {n_max} is out of range; allowed: {N_MIN} ≤ n ≤ {N_MAX} (largest n of the sweep)")
    if max(ks) > K_MAX:
        raise ValueError(f"--k value {max(ks)} is out of range; allowed: 1 ≤ k ≤ {K_MAX}")
    model = default_model()
    grid = model.grid()
    cuts = stretches(n_max)
    points = [
        {"k": k, "tau": tau, "start": st, "size": sz, "model": model.name, "grid_steps": GRID_STEPS, "kernel": 2}
        for k in ks
        for tau in taus
        for st, sz in cuts
    ]
    t0 = time.perf_counter()
    results, stats = common.sweep(NAME, point, points, out=out, seed=seed, workers=workers, scheduler=scheduler)
    rows = []
    truth_cache: dict = {}
    for k in ks:
        for tau in taus:
            mine = [r for p, r in zip(points, results) if p["k"] == k and p["tau"] == tau]
            sums = np.zeros(len(grid))
            anchors = np.zeros(model.N)
            positives = np.zeros(model.N)
            negatives = np.zeros(model.N)
            n = 0
            per_n = []
            for r in mine:  # in stream order: prefix sums are R̂_n at the recorded n
                sums += np.asarray(r["loss_sums"])
                anchors += r["anchors"]
                positives += r["positives"]
                negatives += r["negatives"]
                n += r["size"]
                g = int(np.argmin(sums))
                key = (k, tau, g)
                if key not in truth_cache:
                    truth_cache[key] = exact_truth(model, grid[g], k, tau)
                truth = truth_cache[key]
                rhat = float(sums[g] / n)
                btau = b_tau(model, anchors, positives, negatives, n, k, tau)
                terms = theorem_terms(model, n=n, k=k, tau=tau, rhat=rhat, btau=btau)
                per_n.append(
                    {
                        "n": n,
                        "theta_hat": grid[g].tolist(),
                        "rhat": rhat,
                        "truth": truth["lhs"],
                        "B_tau": btau,
                        **terms,
                        "ratio_paper": terms["paper"]["bound"] / truth["lhs"] if truth["lhs"] > 0 else None,
                        "ratio_ours": terms["ours"]["bound"] / truth["lhs"] if truth["lhs"] > 0 else None,
                        "ratio_ours_direct": terms["ours_direct"]["bound"] / truth["lhs"] if truth["lhs"] > 0 else None,
                        "distinct_tuples": r["distinct_tuples"],
                    }
                )
            rows.append({"k": k, "tau": tau, "per_n": per_n, **summarise(per_n, tau)})
    record = {
        "experiment": NAME,
        "seed": seed,
        "parameters": {
            "k": ks,
            "taus": taus,
            "n_max": n_max,
            "recorded_n": recorded_ns(n_max),
            "delta": DELTA,
            "grid_points": len(grid),
            "grid_spacing": model.R / GRID_STEPS,
            "quick": opts["quick"],
        },
        "model": model.to_dict(),
        "E_w2": model.ew2(),
        "erm": f"grid search over {len(grid)} points of Θ (square lattice, spacing R/{GRID_STEPS}), exact R̂_n",
        "truth_method": "exact enumeration of the multinomial count vectors, float64 with compensated sums "
        "(tested against 30-digit mpmath to 1e-12)",
        "versions": common.versions(),
        "run": {**stats, "seconds": time.perf_counter() - t0},
        "points": rows,
    }
    fig = plot(rows)
    js, png = common.finish(out, NAME, record, fig)
    return {"json": js, "png": png, "record": record}


def summarise(per_n: list[dict], tau: float) -> dict:
    """Smallest recorded n with the bound below 2/τ; and below 2/τ and ≤ 2 × truth (truth > 0); at n = 10⁶ the
    ratio bound/truth and the excess bound − truth (the ratio depends on where the loss's zero is, the excess not)."""
    out = {}
    for which in ("paper", "ours", "ours_direct"):
        below = [r["n"] for r in per_n if r[which]["bound"] < r["trivial"]]
        within = [
            r["n"]
            for r in per_n
            if r[which]["bound"] < r["trivial"] and r["truth"] > 0 and r[which]["bound"] <= 2 * r["truth"]
        ]
        out[f"n_nonvacuous_{which}"] = min(below) if below else None
        out[f"n_within_2x_{which}"] = min(within) if within else None
    at = [r for r in per_n if r["n"] == 10**6]
    out["excess_at_1e6"] = (
        {w: at[0][w]["bound"] - at[0]["truth"] for w in ("paper", "ours", "ours_direct")} if at else None
    )
    out["ratio_at_1e6"] = (
        {"paper": at[0]["ratio_paper"], "ours": at[0]["ratio_ours"], "ours_direct": at[0]["ratio_ours_direct"]}
        if at
        else None
    )
    return out


def plot(rows: list[dict]):
    """Log-log: each bound against n, the truth and the trivial line 2/τ; one panel per (k, τ)."""
    from .. import plotstyle

    plotstyle.pyplot()
    fig, axes = plotstyle.figure(len(rows), height=4.2)
    axes = np.atleast_1d(axes)
    for ax, row in zip(axes, rows):
        ns = np.array([r["n"] for r in row["per_n"]], float)
        ax.plot(
            ns,
            [r["paper"]["bound"] for r in row["per_n"]],
            label="Theorem 1, paper's constants (192, 12)",
            **plotstyle.style("paper"),
        )
        ax.plot(
            ns,
            [r["ours"]["bound"] for r in row["per_n"]],
            label="Theorem 1, our proved constants",
            **plotstyle.style("ours"),
        )
        ax.plot(
            ns,
            [r["ours_direct"]["bound"] for r in row["per_n"]],
            label="Theorem 1, toolkit route (θ-Lipschitz chaining, ours)",
            **plotstyle.style("ours", linestyle="-."),
        )
        ax.plot(
            ns,
            [r["truth"] for r in row["per_n"]],
            label=r"truth $\int E\,\mathrm{CrossEnt}[\hat M_k\|\hat Q_k]\,d\pi$ at $\hat\theta_n$",
            **plotstyle.style("measured"),
        )
        ax.plot(
            ns, [r["rhat"] for r in row["per_n"]], label=r"$\hat R_n(\hat\theta_n)$", **plotstyle.style("reference")
        )
        ax.axhline(
            2 / row["tau"], label=r"trivial bound $2/\tau$", **plotstyle.style("reference", linewidth=1, color="k")
        )
        positive = all(r["rhat"] > 0 and r["truth"] > 0 for r in row["per_n"])
        ax.set(
            xscale="log",
            yscale="log" if positive else "symlog",  # a negative truth or risk stays visible
            xlabel=r"training tuples $n$",
            ylabel="nats",
            title=rf"$k$ = {row['k']}, $\tau$ = {row['tau']}",
        )
        if positive:
            plotstyle.plain_log_axis(ax, "y")  # under two decades: minor labels would crowd
        plotstyle.legend(ax, ncol=1)
    return fig


def _from_n(row: dict, key: str) -> str:
    """The smallest recorded n (``row[key]``), or "none up to n = N" when no recorded n qualifies."""
    v = row[key]
    if v is not None:
        return f"{v:g}"
    ns = [r["n"] for r in row.get("per_n", [])]
    return f"none up to n = {max(ns):g}" if ns else "no n recorded"


def headline(rec: dict) -> list[str]:
    """One line per (k, τ): the smallest recorded n at which each bound is below 2/τ and within 2× the truth
    (the run's largest n when none is), and bound/truth at n = 1e6 when the run reached it."""
    lines = []
    for row in rec["points"]:
        r6 = row["ratio_at_1e6"]
        below = ", ".join(
            f"{who} {_from_n(row, f'n_nonvacuous_{key}')}"
            for who, key in (("paper", "paper"), ("ours", "ours"), ("toolkit route", "ours_direct"))
        )
        within = ", ".join(
            f"{who} {_from_n(row, f'n_within_2x_{key}')}"
            for who, key in (("paper", "paper"), ("ours", "ours"), ("toolkit route", "ours_direct"))
        )
        lines.append(
            f"k={row['k']:<5d} τ={row['tau']:<6g} smallest recorded n with the bound below 2/τ: {below}; "
            f"with the bound within 2× the truth: {within}"
            + (
                f"; bound/truth at n = 1e6: paper {r6['paper']:.3g}, ours {r6['ours']:.3g}, "
                f"toolkit route {r6['ours_direct']:.3g}"
                if r6 and r6["ours"]
                else ""
            )
        )
    return lines
