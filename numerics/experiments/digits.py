"""Real data for the generalisation experiments: scikit-learn's bundled digits, an augmentation kernel M,
a normalised linear embedding and its InfoNCE training loop (numpy, analytic gradient).

Data: ``sklearn.datasets.load_digits`` (1797 images 8 × 8, grey levels 0…16; shipped with
scikit-learn, no download), scaled to [0, 1]. A replicate splits them at random into a training
pool (``N_TRAIN`` = 1000 images) and a held-out pool (the other 797).

Positive generator M(x, ·) (random augmentation of one image, applied independently per draw):
  1. shift by (dy, dx) uniform on {−1, 0, 1}², zero fill;
  2. occlusion: with probability 1/2 a 3 × 3 square at a uniform position is set to 0;
  3. noise: add N(0, 0.1²) per pixel, then clip to [0, 1].

Embedding class (Lipschitz in its parameter where ‖W x‖ stays away from 0):
  φ_W(x) = W (x − x̄) / ‖W (x − x̄)‖ ∈ S^{d−1},  W ∈ R^{d × 64},  ‖W‖_F ≤ R,
x̄ the mean image of the training pool; p = 64 d parameters. On {W : ‖W u‖ ≥ ρ ‖u‖} the map
W ↦ φ_W(x) is 2‖x − x̄‖/(ρ‖x − x̄‖) = (2/ρ)-Lipschitz (Frobenius norm); we report the empirical
ρ = min over data of ‖W u‖/‖u‖ at the trained W, so L = 2/ρ is a measured, not an a-priori, constant.

Training: empirical risk of the DCL loss (paper §3.4) with k negatives on n fixed tuples (x, x⁺, x_1 … x_k),
x uniform on the training pool, x⁺ ~ M(x, ·), x_j uniform on the training pool:
  R̂_n(W) = (1/n) Σ_i [ −s(x_i, x_i⁺)/τ + log (1/k) Σ_j e^{s(x_i, x_ij)/τ} ],
minimised by full-batch Adam with projection onto the ball ‖W‖_F ≤ R. The embedding-level gradient comes
from the numba kernel ``numerics.infonce_gradient_pooled`` (numpy fallback, used as a check in the tests).
"""

from __future__ import annotations

import math
import pathlib
from functools import lru_cache

import numpy as np

N_TRAIN = 1000
SIDE = 8


@lru_cache(maxsize=1)
def load_images() -> np.ndarray:
    """The 1797 digits images as float64 (1797, 8, 8) in [0, 1] (read-only).

    Reads scikit-learn's bundled ``datasets/data/digits.csv.gz`` directly (the file ``load_digits``
    reads; importing ``sklearn`` itself costs ~5 s, which every worker process would pay); falls
    back to ``load_digits`` if the file is not where it is expected. The tests check both agree.
    """
    import importlib.util

    spec = importlib.util.find_spec("sklearn")
    if spec is None:
        raise ValueError("the generalisation experiments need scikit-learn (pip install 'infonce-bounds[experiments]')")
    path = pathlib.Path(spec.origin).parent / "datasets" / "data" / "digits.csv.gz"
    if path.exists():
        data = np.loadtxt(path, delimiter=",")
        img = data[:, :-1].reshape(-1, SIDE, SIDE) / 16.0
    else:  # pragma: no cover - layout change in a future scikit-learn
        from sklearn.datasets import load_digits

        img = load_digits().images.astype(float) / 16.0
    img.setflags(write=False)
    return img


def augment(images: np.ndarray, rng: np.random.Generator, noise: float = 0.1) -> np.ndarray:
    """One draw of M(x, ·) for each image in ``images`` (m, 8, 8): shift, occlusion, noise (see module doc)."""
    m = len(images)
    out = np.zeros_like(images)
    pad = np.zeros((m, SIDE + 2, SIDE + 2))
    pad[:, 1:-1, 1:-1] = images
    dy = rng.integers(-1, 2, size=m)
    dx = rng.integers(-1, 2, size=m)
    for a in (-1, 0, 1):
        for b in (-1, 0, 1):
            sel = (dy == a) & (dx == b)
            if sel.any():
                out[sel] = pad[sel, 1 - a : 1 - a + SIDE, 1 - b : 1 - b + SIDE]
    occ = rng.random(m) < 0.5
    r0 = rng.integers(0, SIDE - 2, size=m)
    c0 = rng.integers(0, SIDE - 2, size=m)
    rows = np.arange(SIDE)
    mask_r = (rows[None, :] >= r0[:, None]) & (rows[None, :] < r0[:, None] + 3)
    mask_c = (rows[None, :] >= c0[:, None]) & (rows[None, :] < c0[:, None] + 3)
    mask = mask_r[:, :, None] & mask_c[:, None, :] & occ[:, None, None]
    out[mask] = 0.0
    out = out + noise * rng.normal(size=out.shape)
    return np.clip(out, 0.0, 1.0)


def split(rng: np.random.Generator):
    """(train images, held-out images) of one replicate."""
    img = load_images()
    perm = rng.permutation(len(img))
    return img[perm[:N_TRAIN]], img[perm[N_TRAIN:]]


def embed(W: np.ndarray, U: np.ndarray):
    """(φ_W(u) rows, ‖W u‖) for centred inputs U (m, 64)."""
    Z = U @ W.T
    nz = np.linalg.norm(Z, axis=1)
    return Z / nz[:, None], nz


def _lme(S: np.ndarray, tau: float) -> np.ndarray:
    """Row-wise log mean exp(S/τ), max-shifted."""
    A = S / tau
    mx = A.max(axis=1, keepdims=True)
    return mx[:, 0] + np.log(np.mean(np.exp(A - mx), axis=1))


class Tuples:
    """n fixed training tuples: anchor images, their positives, negative indices into the pool (n, k)."""

    def __init__(self, pool_u: np.ndarray, anchor_idx, pos_u, neg_idx):
        self.pool_u, self.anchor_idx, self.pos_u, self.neg_idx = pool_u, anchor_idx, pos_u, neg_idx


def make_tuples(pool_img: np.ndarray, mean_img: np.ndarray, n: int, k: int, rng: np.random.Generator) -> Tuples:
    pool_u = (pool_img - mean_img).reshape(len(pool_img), -1)
    a = rng.integers(0, len(pool_img), size=n)
    pos = (augment(pool_img[a], rng) - mean_img).reshape(n, -1)
    neg = rng.integers(0, len(pool_img), size=(n, k))
    return Tuples(pool_u, a, pos, neg)


def _kernel():
    """``numerics.infonce_gradient_pooled`` (numba) if importable, else None (numpy fallback)."""
    try:
        from infonce_bounds.numerics.api import infonce_gradient_pooled
    except ImportError:  # pragma: no cover - the kernels are part of the package
        return None
    return infonce_gradient_pooled


def _back(g, e, nz, U):
    """Chain rule through e = z/‖z‖, z = W u: ∂/∂W = Σ_rows [(I − e eᵀ) g/‖z‖] uᵀ."""
    gz = (g - np.sum(g * e, axis=1, keepdims=True) * e) / nz[:, None]
    return gz.T @ U


def risk_and_grad(W: np.ndarray, T: Tuples, tau: float, grad: bool = True, backend: str = "kernel"):
    """R̂_n(W) on the tuples and its gradient in W.

    ``backend="kernel"``: the embedding-level gradient from ``numerics.infonce_gradient_pooled`` (numba),
    then the chain rule through the normalisation and the linear map; ``"numpy"``: everything in numpy.
    The tests check the two agree and match finite differences.
    """
    eX, nX = embed(W, T.pool_u)
    eP, nP = embed(W, T.pos_u)
    eA = eX[T.anchor_idx]
    n, k = T.neg_idx.shape
    kern = _kernel() if (grad and backend == "kernel") else None
    if kern is not None:
        g = kern(eA, eP, eX, T.neg_idx, tau)
        gX = np.array(g.pool, dtype=float)
        np.add.at(gX, T.anchor_idx, g.anchors)
        return float(g.loss), _back(gX, eX, nX, T.pool_u) + _back(np.asarray(g.positives), eP, nP, T.pos_u)
    Sfull = eA @ eX.T  # (n, N): cheaper than gathering (n, k, d)
    Sneg = np.take_along_axis(Sfull, T.neg_idx, axis=1)
    spos = np.sum(eA * eP, axis=1)
    lme = _lme(Sneg, tau)
    risk = float(np.mean(-spos / tau + lme))
    if not grad:
        return risk, None
    wts = np.exp(Sneg / tau - (lme[:, None] + np.log(k)))  # softmax weights, rows sum to 1
    G = np.zeros_like(Sfull)
    np.add.at(G, (np.repeat(np.arange(n), k), T.neg_idx.ravel()), wts.ravel() / tau)
    gA = (-eP / tau + G @ eX) / n
    gP = -eA / tau / n
    gX = (G.T @ eA) / n
    # anchors are pool rows: accumulate their gradient into the pool's
    np.add.at(gX, T.anchor_idx, gA)
    return risk, _back(gX, eX, nX, T.pool_u) + _back(gP, eP, nP, T.pos_u)


def project(W: np.ndarray, radius: float) -> np.ndarray:
    nrm = np.linalg.norm(W)
    return W if nrm <= radius else W * (radius / nrm)


def train(
    T: Tuples, tau: float, d: int, steps: int, rng: np.random.Generator, radius: float = 10.0, lr: float = 0.05
) -> tuple[np.ndarray, list[float]]:
    """Full-batch Adam on R̂_n with projection onto ‖W‖_F ≤ radius; returns W and the risk trace."""
    W = project(rng.normal(size=(d, T.pool_u.shape[1])) * (3.0 / math.sqrt(d * T.pool_u.shape[1])), radius)
    m = np.zeros_like(W)
    v = np.zeros_like(W)
    b1, b2, eps = 0.9, 0.999, 1e-8
    trace = []
    for t in range(1, steps + 1):
        risk, g = risk_and_grad(W, T, tau)
        trace.append(risk)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        W = project(W - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps), radius)
    return W, trace


def population_risk(W, pool_img, mean_img, k: int, tau: float, n: int, rng: np.random.Generator) -> float:
    """Monte Carlo R̃ (the DCL risk with k negatives) on a pool (fresh anchors, positives and negatives from that pool)."""
    T = make_tuples(pool_img, mean_img, n, k, rng)
    return risk_and_grad(W, T, tau, grad=False)[0]


def search_cross_entropy(W, pool_img, mean_img, tau: float, rng: np.random.Generator, reps: int = 4) -> dict:
    """Held-out similarity-search cross-entropy CE(M, Q^φ_τ) on a pool:
    mean over anchors x and ``reps`` draws x⁺ ~ M(x, ·) of −s(x, x⁺)/τ + log mean_{y ≠ x} e^{s(x, y)/τ}
    (π = the pool's empirical law, leaving the anchor out). Also returns the similarity matrix's
    data-dependent continuity factor for the diagnostics of the ``temperature`` experiment."""
    m = len(pool_img)
    U = (pool_img - mean_img).reshape(m, -1)
    eX, nX = embed(W, U)
    S = eX @ eX.T
    A = S / tau
    np.fill_diagonal(A, -np.inf)
    mx = A.max(axis=1, keepdims=True)
    lme = mx[:, 0] + np.log(np.sum(np.exp(A - mx), axis=1) / (m - 1))
    vals = []
    for _ in range(reps):
        eP, _ = embed(W, (augment(pool_img, rng) - mean_img).reshape(m, -1))
        vals.append(-np.sum(eX * eP, axis=1) / tau + lme)
    ce = float(np.mean(vals))
    rho = float(np.min(nX / np.linalg.norm(U, axis=1)))
    return {"ce": ce, "rho": rho}
