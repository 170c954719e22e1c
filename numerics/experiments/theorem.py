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

The model and its compiled sums (the truth, the grid losses) are in ``experiments.theorem_truth``.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import common
from .theorem_truth import (  # noqa: F401 - the model and its kernels, re-exported under the experiment's name
    GRID_STEPS,
    K_MAX,
    SERIAL_BELOW,
    KnownTruthModel,
    _exact_truth_parallel,
    _exact_truth_serial,
    _grid_loss_sums,
    _grid_loss_sums_parallel,
    _grid_loss_sums_serial,
    _grid_work,
    _logsumexp,
    _truth_work,
    cross_entropy_limit,
    default_model,
    exact_truth,
    monte_carlo_lhs,
)

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
#: the recorded n: 1, 2, 5 × 10^j from 10³
N_MIN = 1000
N_MAX = 10**9


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
