"""Experiment ``search``: H_k − log k against the DCL risk R̃, and their difference D_k = O(1/k).

Paper (Prop. 2 and (12), §3.3–3.4): the population risk is O(1/k) close to the cross-entropy H_k between the
softmax search over k unseen points with the learned similarity, Q̂_k(x, j) ∝ e^{s(x, y_j)/τ}, and
the idealised search P̂_k(x, j) ∝ m(x, y_j) (m = dM(x, ·)/dπ). Because Σ_j P̂_k(x, j) = 1 the
log-partition terms cancel exactly and
    D_k = H_k − log k − R̃ = (1/τ)(E_M s(x, ·) − E Σ_j P̂_k(x, j) s(x, y_j)),
the bias of a self-normalised importance-sampling estimate, δ₁/k + O(k⁻²) with
δ₁ = (1/τ) E_x[Cov_π(m, m s) − E_π(m s) Var_π(m)] (its sign depends on the model).
We measure R̃ and H_k − log k on the same models as ``rate`` (exactly, or by Monte Carlo with
control variates), fit the slope of log|D_k| for k ≥ 64 and compare k·D_k at the largest k with δ₁.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import common
from .models import SphereModel, finite_models
from .rate import point as _rate_point

NAME = "search"
HELP = "similarity-search interpretation: H_k − log k vs R̃; D_k = O(1/k) and its coefficient δ₁"
FULL = {"k": [2**i for i in range(13)], "samples": 200_000, "sphere_samples": 20_000}
QUICK = {"k": [1, 4, 16, 64, 128, 256, 512, 1024], "samples": 20_000, "sphere_samples": 2_000}
OPTIONS = ("k", "samples", "tau", "dim")
SIZE_OPTIONS = ("k", "samples")
K_FIT_MIN = 64


def point(pt: dict, ss: np.random.SeedSequence) -> dict:
    """Same computation as ``rate`` (gap and D_k come from the same draws); stored under ``search``."""
    return _rate_point(pt, ss)


def run(opts: dict, out, seed: int, workers=None, scheduler=None) -> dict:
    tau = opts.get("tau") or 0.5
    d = opts.get("dim") or 8
    kappa = 4.0
    ks = opts["k"]
    if len(ks) < 2:
        raise ValueError(f"--k needs at least 2 values to fit a slope, got {ks}")
    models = finite_models(tau)
    sphere = SphereModel(d=d, kappa=kappa, tau=tau)
    points = []
    for mdl in models:
        points += [{"model": mdl.name, "k": k, "tau": tau, "samples": opts["samples"]} for k in ks]
    points += [
        {"model": "sphere", "k": k, "tau": tau, "samples": opts["sphere_samples"], "d": d, "kappa": kappa} for k in ks
    ]
    t0 = time.perf_counter()
    results, stats = common.sweep(NAME, point, points, out=out, seed=seed, workers=workers, scheduler=scheduler)
    per_model = {}
    for mdl in [*models, sphere]:
        rows = [(p, r) for p, r in zip(points, results) if p["model"] == mdl.name]
        ce = mdl.ce()
        d1 = mdl.delta1()
        ksm = np.array([p["k"] for p, _ in rows], float)
        D = np.array([r["D"] for _, r in rows])
        Dse = np.array([r["D_se"] for _, r in rows])
        exact = all(r["method"] == "exact" for p, r in rows if p["k"] >= K_FIT_MIN)
        sel = ksm >= K_FIT_MIN
        if sel.sum() < 3:
            sel = ksm >= np.sort(ksm)[-3] if len(ksm) >= 3 else np.ones_like(ksm, bool)
        fit = common.loglog_slope(ksm[sel], D[sel], None if exact else np.where(Dse[sel] > 0, Dse[sel], 1e-300))
        top = ksm >= ksm.max() / 4
        c, cse = ksm[top] * D[top], ksm[top] * Dse[top]
        if np.all(cse > 0):
            wts = 1 / cse**2
            coef, coef_se = float(np.sum(wts * c) / wts.sum()), float(1 / math.sqrt(wts.sum()))
        else:
            coef, coef_se = float(c[-1]), 0.0
        per_model[mdl.name] = {
            "model": mdl.to_dict(),
            "ce": ce,
            "delta1": d1,
            "points": [
                {
                    "k": p["k"],
                    "R_k": ce + r["gap"],
                    "R_k_se": r["gap_se"],
                    "H_k_minus_log_k": ce + r["gap"] + r["D"],
                    "D_k": r["D"],
                    "D_k_se": r["D_se"],
                    "D_k_ci": [r["D"] - 1.959964 * r["D_se"], r["D"] + 1.959964 * r["D_se"]],
                    "method": r["method"],
                }
                for p, r in rows
            ],
            "D_slope": fit["slope"],
            "D_slope_ci": fit["slope_ci"],
            "D_fit": fit,
            "measured_coefficient": coef,
            "measured_coefficient_ci": [coef - 1.959964 * coef_se, coef + 1.959964 * coef_se],
            "measured_at_k": ksm[top].tolist(),
            "delta1_vs_measured_rel_diff": abs(d1 - coef) / abs(coef) if coef else None,
        }
    record = {
        "experiment": NAME,
        "seed": seed,
        "parameters": {
            "tau": tau,
            "k": ks,
            "samples": opts["samples"],
            "sphere_samples": opts["sphere_samples"],
            "d": d,
            "kappa": kappa,
            "k_fit_min": K_FIT_MIN,
            "quick": opts["quick"],
        },
        "versions": common.versions(),
        "run": {**stats, "seconds": time.perf_counter() - t0},
        "models": per_model,
        "conclusion": {
            "D_slopes": {k: v["D_slope"] for k, v in per_model.items()},
            "measured_coefficients": {k: v["measured_coefficient"] for k, v in per_model.items()},
            "delta1": {k: v["delta1"] for k, v in per_model.items()},
        },
    }
    js, png = common.finish(out, NAME, record, plot(per_model, tau))
    return {"json": js, "png": png, "record": record}


def plot(per_model: dict, tau: float):
    """Left: R̃ and H_k − log k against k with CE (thin); right: k·D_k → δ₁. Style from ``plotstyle``."""
    from .. import plotstyle

    plt = plotstyle.pyplot()
    fig, (ax1, ax2) = plotstyle.figure(2, height=4.2)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for c, (name, m) in zip(colors, per_model.items()):
        ks = np.array([p["k"] for p in m["points"]], float)
        ax1.plot(ks, [p["R_k"] for p in m["points"]], color=c, marker="o", label=f"{name} model: $\\tilde R$")
        ax1.plot(
            ks,
            [p["H_k_minus_log_k"] for p in m["points"]],
            color=c,
            marker="s",
            label=rf"{name} model: $H_k - \log k$",
            **plotstyle.style("ours", linestyle="-."),
        )
        ax1.axhline(m["ce"], label=f"{name} model: CE (the limit)", **plotstyle.style("reference", color=c))
        D = np.array([p["D_k"] for p in m["points"]])
        se = np.array([p["D_k_se"] for p in m["points"]])
        ax2.errorbar(
            ks,
            ks * D,
            yerr=1.96 * ks * se,
            color=c,
            label=rf"{name} model, measured: $\delta_1$ = {m['delta1']:.3f}, slope of $|D_k|$ {m['D_slope']:.3f}",
            **plotstyle.style("measured"),
        )
        ax2.axhline(
            m["delta1"], color=c, label=rf"{name} model: $\delta_1$ (ours)", **plotstyle.style("ours", linewidth=1)
        )
    ax1.set(
        xscale="log",
        xlabel=r"number of negatives $k$",
        ylabel="nats",
        title=rf"$\tilde R$ and $H_k - \log k$ tend to CE, $\tau$ = {tau}",
    )
    ax2.set(
        xscale="log",
        xlabel=r"number of negatives $k$",
        ylabel=r"$k\,D_k = k\,(H_k - \log k - \tilde R)$ (nats)",
        title=r"$k\,D_k \to \delta_1$",
    )
    plotstyle.legend(ax1)
    plotstyle.legend(ax2, ncol=1)
    return fig


def headline(rec: dict) -> list[str]:
    return [
        f"{name:8s} D_k slope {m['D_slope']:+.4f} [{m['D_slope_ci'][0]:+.4f}, {m['D_slope_ci'][1]:+.4f}]  "
        f"δ1 = {m['delta1']:+.4f}  k·D_k at k≥{min(m['measured_at_k']):.0f} = {m['measured_coefficient']:+.4f}"
        for name, m in rec["models"].items()
    ]
