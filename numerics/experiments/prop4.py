"""Experiment ``prop4``: Lemma 1's B_τ and Prop. 4 (paper, ours, the ℓ∞ route (18)) on the digits data, beside
the actual loss change between two checkpoints of a trained embedding; how tight each bound is.

Setting (``digits`` module): scikit-learn's digits, the augmentation kernel M as positives, n tuples
(anchor from the training pool, positive ~ M(anchor, ·), k negatives from the pool: the pooled layout),
φ_W(x) = W(x − x̄)/‖W(x − x̄)‖ trained by full-batch Adam on the DCL risk (``digits.train``). The two checkpoints
are W after ``steps/2`` and after ``steps`` steps of the same run (same initialisation, deterministic
full-batch updates: the first half of the long run is the short run).

Measured (``numerics.b_tau``, ``numerics.prop4_bound``):
  ``b_tau``       B_τ of Lemma 1 of the raw inputs (pixels in [0, 1], 64 per image) and of the centred
                  inputs x − x̄ that φ_W sees (the z of (C) for this class);
  per β ∈ {1 ∨ 2/τ (Lemma 1's choice), ∞}: per tuple the paper's and our right-hand side of Prop. 4 and
                  (18), the actual |ℓ(φ_W1) − ℓ(φ_W2)| (ℓ of (14)); tightness = bound / actual over tuples
                  with actual > 1e-12 (median, max, and the min, which is ≥ 1 when the bound holds);
  ``rho``         ρ_n^info(φ_W1, φ_W2) and its bounds by Lemma 1's step (51) (paper, ours) and the RMS of (18).
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import common, digits

NAME = "prop4"
REQUIRES = {"sklearn": "experiments"}
HELP = "Prop. 4 (paper, ours, (18)) vs the actual loss change between two checkpoints on the digits data; B_τ"
FULL = {"k": [64], "n": 2000, "steps": 200}
QUICK = {"k": [32], "n": 200, "steps": 20}
OPTIONS = ("k", "n", "steps", "tau", "dim")
SIZE_OPTIONS = ("k", "n", "steps")
ROUTES = ("paper", "ours", "linf")
ROUTE_LABELS = {"paper": "Prop. 4 as printed", "ours": "Prop. 4 sharpened (ours)", "linf": "ℓ∞ route (18)"}


def tightness(bound: np.ndarray, actual: np.ndarray) -> dict:
    """bound/actual over the tuples whose actual change exceeds 1e-12 (below that the ratio is rounding)."""
    keep = actual > 1e-12
    if not keep.any():
        return {"median": None, "max": None, "min": None, "tuples": 0}
    r = bound[keep] / actual[keep]
    return {"median": float(np.median(r)), "max": float(r.max()), "min": float(r.min()), "tuples": int(keep.sum())}


def measure(tau: float, d: int, n: int, k: int, steps: int, seed: int) -> dict:
    from ..api import b_tau, prop4_bound

    rng = np.random.default_rng([seed, 13])
    train_img, _ = digits.split(rng)
    mean_img = train_img.mean(axis=0)
    T = digits.make_tuples(train_img, mean_img, n, k, rng)
    raw_pool = train_img.reshape(len(train_img), -1)
    raw_pos = T.pos_u + mean_img.reshape(-1)
    bt_raw = b_tau(raw_pool[T.anchor_idx], raw_pos, raw_pool, tau, index=T.neg_idx)
    bt_centred = b_tau(T.pool_u[T.anchor_idx], T.pos_u, T.pool_u, tau, index=T.neg_idx)
    half = max(1, steps // 2)
    W1, trace1 = digits.train(T, tau, d, half, np.random.default_rng([seed, 14]))
    W2, trace2 = digits.train(T, tau, d, steps, np.random.default_rng([seed, 14]))

    def phi(W):
        eX, _ = digits.embed(W, T.pool_u)
        eP, _ = digits.embed(W, T.pos_u)
        return (np.ascontiguousarray(eX[T.anchor_idx]), eP, eX)

    f1, f2 = phi(W1), phi(W2)
    per_beta = {}
    for name, beta in (("lemma1", max(1.0, 2.0 / tau)), ("max", math.inf)):
        r = prop4_bound(f1, f2, tau, beta, index=T.neg_idx)
        per_beta[name] = {
            "beta": beta,
            "tightness": {route: tightness(getattr(r, route), r.actual) for route in ROUTES},
            "holds": {route: bool(np.all(r.actual <= getattr(r, route) * (1 + 1e-12) + 1e-13)) for route in ROUTES},
            "actual": {"median": float(np.median(r.actual)), "max": float(r.actual.max())},
            "rho": {
                "info": r.rho_info,
                "paper": r.rho_paper,
                "ours": r.rho_ours,
                "linf": r.rho_linf,
            },
            "ratios": {route: (getattr(r, route) / np.maximum(r.actual, 1e-300)).tolist() for route in ROUTES},
        }
    return {
        "b_tau_raw": bt_raw._asdict(),
        "b_tau_centred": bt_centred._asdict(),
        "checkpoints": {
            "steps": [half, steps],
            "risk": [trace1[-1], trace2[-1]],
            "distance_W": float(np.linalg.norm(W2 - W1)),
        },
        "per_beta": per_beta,
    }


def run(opts: dict, out, seed: int, workers=None, scheduler=None) -> dict:
    t0 = time.perf_counter()
    tau = opts.get("tau") or 0.5
    d = opts.get("dim") or 16
    k = int(opts["k"][0])
    digits.load_images()  # fail early (one line) if scikit-learn is missing
    res = measure(tau, d, opts["n"], k, opts["steps"], seed)
    record = {
        "experiment": NAME,
        "seed": seed,
        "parameters": {
            "tau": tau,
            "d": d,
            "k": k,
            "n": opts["n"],
            "steps": opts["steps"],
            "quick": opts["quick"],
            "data": "sklearn.datasets.load_digits (1797 images 8x8), pooled layout over the training pool",
        },
        "versions": common.versions(),
        "run": {"computed": 1, "reused": 0, "seconds": time.perf_counter() - t0},
        **{key: v for key, v in res.items()},
    }
    record["note"] = "\n".join(headline(record))
    js, png = common.finish(out, NAME, _strip(record), plot(res, tau, k))
    return {"json": js, "png": png, "record": record}


def _strip(record: dict) -> dict:
    """The JSON keeps the per-tuple ratios only as their summaries (the plot shows their distribution)."""
    out = dict(record)
    out["per_beta"] = {
        b: {key: v for key, v in val.items() if key != "ratios"} for b, val in record["per_beta"].items()
    }
    return out


def plot(res: dict, tau: float, k: int):
    """Histogram of log10(bound/actual) per route and β (``plotstyle``)."""
    from .. import plotstyle

    fig, axes = plotstyle.figure(len(res["per_beta"]), height=3.8)
    for ax, val in zip(np.atleast_1d(axes), res["per_beta"].values()):
        for route in ROUTES:
            r = np.asarray(val["ratios"][route])
            r = r[np.isfinite(r) & (r > 0) & (r < 1e300)]
            kind = "paper" if route == "paper" else ("ours" if route == "ours" else "prior")
            ax.hist(np.log10(r), bins=40, alpha=0.5, label=plotstyle.label(ROUTE_LABELS[route], kind))
        ax.axvline(0.0, color="k", lw=0.8)
        beta = "∞" if not math.isfinite(val["beta"]) else f"{val['beta']:g}"
        ax.set(
            xlabel="log10(bound / actual |Δℓ|)",
            ylabel="tuples",
            title=f"digits, τ = {tau}, k = {k}, β = {beta}",
        )
        plotstyle.count_axis(ax, "y")  # a histogram counts tuples
        plotstyle.legend(ax, ncol=1)
    return fig


def headline(rec: dict) -> list[str]:
    b_raw, b_c = rec["b_tau_raw"], rec["b_tau_centred"]
    lines = [
        f"B_τ (τ = {rec['parameters']['tau']}): raw inputs {b_raw['value']:.4g} "
        f"(anchors {b_raw['anchors']:.3g} + positives {b_raw['positives']:.3g} + negatives {b_raw['negatives']:.3g}); "
        f"centred inputs {b_c['value']:.4g}",
    ]
    for val in rec["per_beta"].values():
        beta = "∞" if not math.isfinite(val["beta"]) else f"{val['beta']:g}"
        parts = []
        for route in ROUTES:
            t = val["tightness"][route]
            if t["median"] is None:
                parts.append(f"{route}: no tuple moved")
                continue
            ok = "holds" if val["holds"][route] else "VIOLATED"
            parts.append(f"{route} median {t['median']:.3g}×, max {t['max']:.3g}× ({ok})")
        rho = val["rho"]
        lines.append(
            f"β = {beta}: bound/actual |Δℓ| per tuple: " + "; ".join(parts) + f". ρ_n^info = {rho['info']:.3g}, "
            f"bounded by {rho['paper']:.3g} (paper, (51)), {rho['ours']:.3g} (ours), {rho['linf']:.3g} ((18))"
        )
    return lines
