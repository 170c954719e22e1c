"""Experiment ``generalisation``: train on real data with k negatives; the generalisation gap against k.

Paper (abstract, §5 after Theorem 1): the generalisation error stabilises as k grows; Theorem 1 bounds
CE − R̂_n (expected cross-entropy of the similarity search on unseen data minus the empirical risk)
by sample variability + complexity + finite-k bias. Setting (``digits`` module): scikit-learn's
digits, augmentation kernel M (shift, occlusion, noise), embedding φ_W(x) = W(x − x̄)/‖W(x − x̄)‖ with
‖W‖_F ≤ R, n fixed training tuples, full-batch Adam on the empirical DCL risk (paper §3.4) R̂_n.

Measured per (k, seed), then mean and 95 % Student-t interval over seeds:
  ``empirical_risk``   R̂_n at the trained W (the training objective);
  ``test_risk_k``      R̃ (DCL risk, k negatives) on held-out images (fresh anchors, positives, k negatives; Monte Carlo);
  ``test_ce``          held-out similarity-search cross-entropy CE(M, Q^φ_τ): −s(x, x⁺)/τ + log of the
                       mean of e^{s(x, y)/τ} over the whole held-out pool (y ≠ x), averaged over anchors
                       and augmentations (the k → ∞ risk; the left side of Theorem 1);
  ``gap``              test_ce − empirical_risk (what Theorem 1 bounds);
  ``gap_same_k``       test_risk_k − empirical_risk (the classical generalisation gap at fixed k);
  ``train_ce``         the same cross-entropy on the training pool.
The Theorem-1 components (``derivations.theorem``, minimised over a fixed γ grid) and the prior
bounds (``derivations.prior``) are evaluated at the same n, k, τ, δ = 0.05, p = 64 d, R and the
measured Lipschitz constant L = 2/ρ (``digits`` module), the largest over seeds.
"""

from __future__ import annotations

import time

import numpy as np

from . import bounds, common, digits

NAME = "generalisation"
#: module → the extra that installs it (``pip install "infonce-bounds[experiments]"``)
REQUIRES = {"sklearn": "experiments"}

HELP = "train a normalised linear embedding on the digits data with k negatives; generalisation gap vs k"
FULL = {"k": [2**i for i in range(9)], "seeds": 5, "n": 500, "steps": 200, "eval_n": 4000}
QUICK = {"k": [1, 16, 256], "seeds": 2, "n": 200, "steps": 40, "eval_n": 1000}
OPTIONS = ("k", "seeds", "n", "steps", "tau", "dim")
SIZE_OPTIONS = ("k", "seeds", "n", "steps")
RADIUS = 10.0
DELTA = 0.05
MEASURES = ("empirical_risk", "test_risk_k", "test_ce", "train_ce", "gap", "gap_same_k", "lipschitz")


def train_and_measure(pt: dict, ss: np.random.SeedSequence, extra=None) -> dict:
    """One training run: split and initialisation depend only on (seed, rep) — common random numbers
    across k — while the tuples and evaluation draws come from the point's own stream.
    ``extra(W, test_img, mean_img, rng) -> dict`` adds measurements on the trained map."""
    t0 = time.perf_counter()
    rep_rng = np.random.default_rng([pt["seed"], pt["rep"], 5])
    train_img, test_img = digits.split(rep_rng)
    mean_img = train_img.mean(axis=0)
    init_rng = np.random.default_rng([pt["seed"], pt["rep"], 6])
    rng = np.random.default_rng(ss)
    T = digits.make_tuples(train_img, mean_img, pt["n"], pt["k"], rng)
    W, trace = digits.train(T, pt["tau"], pt["d"], pt["steps"], init_rng, radius=pt["radius"])
    emp = digits.risk_and_grad(W, T, pt["tau"], grad=False)[0]
    test_risk = digits.population_risk(W, test_img, mean_img, pt["k"], pt["tau"], pt["eval_n"], rng)
    te = digits.search_cross_entropy(W, test_img, mean_img, pt["tau"], rng)
    tr = digits.search_cross_entropy(W, train_img, mean_img, pt["tau"], rng)
    more = extra(W, test_img, mean_img, rng) if extra is not None else {}
    return {
        **more,
        "empirical_risk": emp,
        "test_risk_k": test_risk,
        "test_ce": te["ce"],
        "train_ce": tr["ce"],
        "gap": te["ce"] - emp,
        "gap_same_k": test_risk - emp,
        "rho": min(te["rho"], tr["rho"]),
        "lipschitz": 2.0 / min(te["rho"], tr["rho"]),
        "weight_norm": float(np.linalg.norm(W)),
        "risk_trace": [trace[0], trace[len(trace) // 2], trace[-1]],
        "seconds": time.perf_counter() - t0,
    }


def point(pt: dict, ss: np.random.SeedSequence) -> dict:
    return train_and_measure(pt, ss)


def sweep_points(opts: dict, seed: int, tau: float, d: int, ks=None) -> list[dict]:
    return [
        {
            "k": k,
            "rep": r,
            "seed": seed,
            "tau": tau,
            "d": d,
            "n": opts["n"],
            "steps": opts["steps"],
            "eval_n": opts["eval_n"],
            "radius": RADIUS,
        }
        for k in (ks or opts["k"])
        for r in range(opts["seeds"])
    ]


def aggregate(points, results, ks) -> dict:
    per_k = {}
    for k in ks:
        rows = [r for p, r in zip(points, results) if p["k"] == k]
        per_k[str(k)] = {m: common.mean_ci([r[m] for r in rows]) for m in MEASURES}
        per_k[str(k)]["runs"] = rows
    return per_k


def stabilisation(per_k: dict, ks: list[int]) -> dict:
    """Does the gap stop changing? Compare the largest k with k/4 (or the previous grid point)."""
    if len(ks) < 2:
        return {"stabilises": None, "note": "needs at least two k values"}
    kmax = ks[-1]
    kprev = max([k for k in ks if k <= kmax / 4] or [ks[-2]])
    a, b = per_k[str(kprev)]["gap"], per_k[str(kmax)]["gap"]
    diff = b["mean"] - a["mean"]
    half = sum(((x["ci"][1] - x["ci"][0]) / 2) if x["ci"][0] is not None else 0.0 for x in (a, b))
    stab = abs(diff) <= max(0.1 * abs(b["mean"]), half)
    return {
        "stabilises": bool(stab),
        "k_compared": [kprev, kmax],
        "gap_change": diff,
        "gap_change_relative": diff / abs(b["mean"]) if b["mean"] else None,
        "ci_half_widths_sum": half,
    }


def run(opts: dict, out, seed: int, workers=None, scheduler=None) -> dict:
    tau = opts.get("tau") or 0.5
    d = opts.get("dim") or 16
    ks = opts["k"]
    points = sweep_points(opts, seed, tau, d)
    t0 = time.perf_counter()
    digits.load_images()  # fail early (one line) if scikit-learn is missing
    results, stats = common.sweep(NAME, point, points, out=out, seed=seed, workers=workers, scheduler=scheduler)
    per_k = aggregate(points, results, ks)
    p_count = 64 * d
    for k in ks:
        L = max(r["lipschitz"] for r in per_k[str(k)]["runs"])
        per_k[str(k)]["theorem"] = bounds.theorem_values(tau, k, opts["n"], DELTA, L, p_count, RADIUS)
        per_k[str(k)]["prior"] = bounds.prior_values(tau, k, opts["n"], L, p_count, RADIUS)
        per_k[str(k)]["bound_parameters"] = {
            "tau": tau,
            "k": k,
            "n": opts["n"],
            "delta": DELTA,
            "L": L,
            "p": p_count,
            "R": RADIUS,
        }
    stab = stabilisation(per_k, ks)
    note = closing_note(per_k, ks, stab)
    record = {
        "experiment": NAME,
        "seed": seed,
        "parameters": {
            "tau": tau,
            "d": d,
            "k": ks,
            "seeds": opts["seeds"],
            "n": opts["n"],
            "steps": opts["steps"],
            "eval_n": opts["eval_n"],
            "radius": RADIUS,
            "delta": DELTA,
            "n_train_pool": digits.N_TRAIN,
            "data": "sklearn.datasets.load_digits (1797 images 8x8)",
            "augmentation": "shift {-1,0,1}^2 zero fill; 3x3 occlusion w.p. 1/2; N(0, 0.1^2) noise, clip [0,1]",
            "quick": opts["quick"],
        },
        "versions": common.versions(),
        "run": {**stats, "seconds": time.perf_counter() - t0},
        "per_k": per_k,
        "stabilisation": stab,
        "note": note,
    }
    js, png = common.finish(out, NAME, record, plot(per_k, ks, tau, opts["n"]))
    return {"json": js, "png": png, "record": record}


def closing_note(per_k: dict, ks: list[int], stab: dict) -> str:
    parts = []
    for k in [k for k in (1, 16, 256) if k in ks] or ks:
        g = per_k[str(k)]["gap"]
        th = per_k[str(k)]["theorem"]
        ci = f" [{g['ci'][0]:.3f}, {g['ci'][1]:.3f}]" if g["ci"][0] is not None else ""
        bnd = (
            f"; Theorem-1 bound {th['bound']:.3g} (looser by ×{th['bound'] / g['mean']:.3g})"
            if th.get("available") and g["mean"] and g["mean"] > 0
            else (
                "; Theorem-1 bound not available" if not th.get("available") else f"; Theorem-1 bound {th['bound']:.3g}"
            )
        )
        parts.append(f"k = {k}: gap {g['mean']:.3f}{ci}{bnd}")
    verdict = {True: "the gap stabilises", False: "the gap is still changing", None: "stabilisation not assessed"}[
        stab.get("stabilises")
    ]
    extra = (
        f" (k = {stab['k_compared'][0]} → {stab['k_compared'][1]}: change {stab['gap_change']:+.3f})"
        if stab.get("k_compared")
        else ""
    )
    return (
        "Measured gap CE(held-out) − R̂_n, mean over seeds [95 % CI]: "
        + "; ".join(parts)
        + f". Verdict: {verdict} as k grows{extra}."
    )


#: Theorem-1 terms and earlier bounds as plotted: key → legend label in words
THEOREM_LABELS = {
    "bound": "Theorem 1 bound",
    "sample_variability": "sample variability",
    "complexity": r"complexity $2\,\mathrm{Rad}_n$",
    "finite_k_bias": r"finite-$k$ bias",
}
PRIOR_LABELS = {
    "large_k_deviation": r"$O(k^{-1/2})$ large-$k$ deviation",
    "complexity_klinear": r"complexity linear in $k$",
    "complexity_logk": r"complexity in $\log k$",
}


def plot(per_k: dict, ks: list[int], tau: float, n: int):
    """Risks, gaps and bounds against k on the digits data (mean over seeds, 95 % band); ``plotstyle``."""
    from .. import plotstyle

    fig, axes = plotstyle.figure(3, height=4.2)
    kk = np.array(ks, float)

    def band(ax, key, label, **kw):
        m = np.array([per_k[str(k)][key]["mean"] for k in ks], float)
        lo = np.array([per_k[str(k)][key]["ci"][0] if per_k[str(k)][key]["ci"][0] is not None else np.nan for k in ks])
        hi = np.array([per_k[str(k)][key]["ci"][1] if per_k[str(k)][key]["ci"][1] is not None else np.nan for k in ks])
        (line,) = ax.plot(kk, m, label=label, **kw)
        ax.fill_between(kk, lo, hi, alpha=0.2, color=line.get_color())
        return m

    band(axes[0], "empirical_risk", r"empirical risk $\hat R_n$ (train)", marker="o")
    band(axes[0], "test_risk_k", r"held-out $\tilde R$", marker="s")
    band(axes[0], "test_ce", "held-out search cross-entropy CE", marker="^")
    band(axes[0], "train_ce", "training-pool CE", marker="v", linestyle="-.")
    axes[0].set(
        xscale="log", xlabel=r"number of negatives $k$", ylabel="nats", title=rf"digits, $\tau$ = {tau}, $n$ = {n}"
    )
    gap = band(axes[1], "gap", r"gap CE(held-out) $- \hat R_n$", marker="o")
    band(axes[1], "gap_same_k", r"gap at fixed $k$: $\tilde R$(held-out) $- \hat R_n$", marker="s")
    axes[1].axhline(0, color="grey", lw=0.5)
    axes[1].set(
        xscale="log",
        xlabel=r"number of negatives $k$",
        ylabel="nats",
        title="generalisation gap (mean, 95 % CI over seeds)",
    )
    ax = axes[2]
    ax.plot(kk, np.abs(gap), color="k", label="|gap|, measured", **plotstyle.style("measured"))
    th = [per_k[str(k)]["theorem"] for k in ks]
    if all(t.get("available") for t in th):
        for name, lab in THEOREM_LABELS.items():
            lw = 2.2 if name == "bound" else 1.2
            ax.plot(
                kk, [t[name] for t in th], label=plotstyle.label(lab, "ours"), **plotstyle.style("ours", linewidth=lw)
            )
    else:
        ax.text(
            0.05,
            0.5,
            "Theorem-1 terms unavailable:\n" + th[0].get("reason", "")[:60],
            transform=ax.transAxes,
            fontsize=7,
        )
    pr = [per_k[str(k)]["prior"] for k in ks]
    if all(p.get("available") for p in pr):
        for name, lab in PRIOR_LABELS.items():
            ax.plot(kk, [p[name] for p in pr], label=plotstyle.label(lab, "prior"), **plotstyle.style("prior"))
    ax.set(xscale="log", yscale="log", xlabel=r"number of negatives $k$", ylabel="nats", title="bounds vs measured gap")
    for a in axes:
        plotstyle.legend(a, ncol=1)
    return fig


def headline(rec: dict) -> list[str]:
    return [rec["note"]]
