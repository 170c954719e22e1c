"""Experiment ``rate``: R̃ − CE = E_x[E log Z_k(x) − log Z(x)] against k, and its log-log slope.

Paper (Prop. 1 and (11), §3.2–3.4): R̃ − CE = O(1/k) (R̃ the DCL risk with k negatives); §1.3: Wang and Isola
report O(1/√k). We measure the gap on the
finite models of ``models.finite_models`` (exact enumeration while C(k + N − 1, N − 1) ≤ 2·10⁶,
Monte Carlo with a control variate beyond) and on the continuous sphere model (uniform π on
S^{d−1}, von Mises–Fisher positives, Z by 30-digit quadrature, Monte Carlo gap), fit the slope of
log|R̃ − CE| against log k for k ≥ ``k_fit_min`` with a 95 % interval, and compare the measured
coefficient k·|R̃ − CE| at the largest k with the exact leading term a₁ = E_x Var(W)/(2Z²)
(−a₁/k + a₂/k², cumulant expansion of the brief). The rigorous bound C(τ)/k of ``derivations.bias``
is overlaid when that module is importable.
"""

from __future__ import annotations

import functools
import math
import time

import numpy as np

from . import common
from .models import (
    SphereModel,
    exact_possible,
    finite_exact,
    finite_mc,
    finite_model,
    finite_models,
    n_compositions,
    sphere_mc,
)

NAME = "rate"
HELP = "R̃ − CE (DCL risk) against k on finite and sphere models; log-log slope with 95% CI vs −1 and −1/2"
FULL = {"k": [2**i for i in range(13)], "samples": 200_000, "sphere_samples": 20_000}
QUICK = {"k": [1, 4, 16, 64, 128, 256, 512, 1024], "samples": 20_000, "sphere_samples": 2_000}
OPTIONS = ("k", "samples", "tau", "dim")
SIZE_OPTIONS = ("k", "samples")
K_FIT_MIN = 64


#: largest (count vectors × N²) handed to ``numerics.finite`` (mpmath: binary k = 1024 takes ~0.6 s); beyond, the
#: float64 enumeration of ``models.finite_exact`` (the tests check the two agree where both run)
FINITE_MP_BUDGET = 5_000


def exact_finite_gap(model, k: int) -> dict:
    """Exact R̃ − CE and D_k = H_k − log k − R̃ on a finite model (``numerics.finite`` keys R̃ as ``R_k``).

    Uses ``numerics.finite`` (the bias engineer's exact mpmath enumeration, 20 digits) when it is
    importable and the enumeration is small enough (``FINITE_MP_BUDGET``); otherwise the float64
    enumeration of ``models.finite_exact`` (same sum, checked against a 40-digit brute force).
    """
    cost = n_compositions(k, model.N) * model.N**2
    if cost <= FINITE_MP_BUDGET:
        try:
            from infonce_bounds.numerics.finite import FiniteModel as ExactModel
        except ImportError:
            ExactModel = None
        if ExactModel is not None:
            import mpmath

            fm = ExactModel.from_dict(
                {
                    "name": model.name,
                    "tau": model.tau,
                    "pi": model.pi.tolist(),
                    "M": model.M.tolist(),
                    "phi": model.Phi.tolist(),
                }
            )
            with mpmath.workdps(20):
                ex = fm.exact_at(k, with_search=True)
                ce = fm.cross_entropy()
                gap = ex["R_k"] - ce
                D = ex["H_k"] - mpmath.log(k) - ex["R_k"]
            return {
                "gap": float(gap),
                "gap_se": 0.0,
                "D": float(D),
                "D_se": 0.0,
                "method": "exact",
                "engine": "numerics.finite (mpmath, 20 digits)",
            }
    res = finite_exact(model, k)
    res["engine"] = "numerics.experiments.models.finite_exact (float64)"
    return res


def point(pt: dict, ss: np.random.SeedSequence) -> dict:
    rng = np.random.default_rng(ss)
    t0 = time.perf_counter()
    if pt["model"] == "sphere":
        mdl = SphereModel(d=pt["d"], kappa=pt["kappa"], tau=pt["tau"])
        res = sphere_mc(mdl, pt["k"], pt["samples"], rng)
    else:
        mdl = finite_model(pt["model"], pt["tau"])
        res = (
            dict(_exact_point(pt["model"], pt["tau"], pt["k"]))
            if exact_possible(mdl, pt["k"])
            else finite_mc(mdl, pt["k"], pt["samples"], rng)
        )
    res["seconds"] = time.perf_counter() - t0
    return res


@functools.lru_cache(maxsize=256)
def _exact_point(name: str, tau: float, k: int) -> dict:
    """``exact_finite_gap`` of a built-in finite model, memoised in the process: the exact points use no random
    draw, so ``search`` (the same points as ``rate``) reads them back instead of enumerating them again when both
    run in one process (the report). Callers copy the dict."""
    return exact_finite_gap(finite_model(name, tau), k)


def rigorous_bound(tau: float):
    """(C(τ), provenance) from ``derivations.bias.bias_constant`` if importable, else (None, reason)."""
    try:
        import sympy as sp

        from infonce_bounds.derivations import bias

        c = float(sp.N(bias.bias_constant(sp.Rational(str(tau)))))
        return c, "derivations.bias.bias_constant(tau) (ours)"
    except Exception as exc:  # noqa: BLE001
        return None, f"derivations.bias.bias_constant unavailable ({type(exc).__name__})"


def summarise(ks, gaps, ses, a1, exact_flags):
    ks = np.asarray(ks, float)
    gaps = np.asarray(gaps, float)
    ses = np.asarray(ses, float)
    sel = ks >= K_FIT_MIN
    if sel.sum() < 3:  # small grids: the largest three k
        sel = ks >= np.sort(ks)[-3] if len(ks) >= 3 else np.ones_like(ks, bool)
    all_exact = all(np.asarray(exact_flags)[sel])
    se_fit = None if all_exact else np.where(ses[sel] > 0, ses[sel], np.abs(gaps[sel]) * 1e-12)
    fit = common.loglog_slope(ks[sel], gaps[sel], se_fit)
    # measured coefficient k·|gap| on the top factor-4 of the k range
    top = ks >= ks.max() / 4
    c = ks[top] * np.abs(gaps[top])
    cse = ks[top] * ses[top]
    if np.all(cse > 0):
        wts = 1 / cse**2
        coef = float(np.sum(wts * c) / wts.sum())
        coef_se = float(1 / math.sqrt(wts.sum()))
    else:
        coef, coef_se = float(c[np.argmax(ks[top])]), 0.0
    lo, hi = fit["slope_ci"]
    return {
        **fit,
        "slope_ci_within_target": bool(lo >= -1.05 and hi <= -0.95),
        "excludes_minus_half": bool(not (lo <= -0.5 <= hi)),
        "leading_coefficient": a1,
        "measured_coefficient": coef,
        "measured_coefficient_ci": [coef - 1.959964 * coef_se, coef + 1.959964 * coef_se],
        "measured_at_k": ks[top].tolist(),
        "leading_vs_measured_rel_diff": abs(a1 - coef) / coef,
    }


def run(opts: dict, out, seed: int, workers=None, scheduler=None) -> dict:
    tau = opts.get("tau") or 0.5
    d = opts.get("dim") or 8
    kappa = 4.0
    ks = opts["k"]
    if len(ks) < 2:
        raise ValueError(f"--k needs at least 2 values to fit a slope, got {ks}")
    models = finite_models(tau)
    points = []
    for mdl in models:
        points += [{"model": mdl.name, "k": k, "tau": tau, "samples": opts["samples"]} for k in ks]
    points += [
        {"model": "sphere", "k": k, "tau": tau, "samples": opts["sphere_samples"], "d": d, "kappa": kappa} for k in ks
    ]
    t0 = time.perf_counter()
    results, stats = common.sweep(NAME, point, points, out=out, seed=seed, workers=workers, scheduler=scheduler)
    C, C_src = rigorous_bound(tau)
    per_model = {}
    sphere = SphereModel(d=d, kappa=kappa, tau=tau)
    for mdl in [*models, sphere]:
        rows = [(p, r) for p, r in zip(points, results) if p["model"] == mdl.name]
        a1, a2 = mdl.leading()
        ks_m = [p["k"] for p, _ in rows]
        gaps = [r["gap"] for _, r in rows]
        ses = [r["gap_se"] for _, r in rows]
        exact = [r["method"] == "exact" for _, r in rows]
        summ = summarise(ks_m, gaps, ses, a1, exact)
        per_model[mdl.name] = {
            "model": mdl.to_dict(),
            "kind": "sphere" if mdl is sphere else "finite",
            "ce": mdl.ce(),
            "a1": a1,
            "a2": a2,
            "points": [
                {
                    "k": p["k"],
                    "gap": r["gap"],
                    "gap_se": r["gap_se"],
                    "gap_ci": [r["gap"] - 1.959964 * r["gap_se"], r["gap"] + 1.959964 * r["gap_se"]],
                    "method": r["method"],
                    "engine": r.get("engine", "numpy monte carlo"),
                    "leading": -a1 / p["k"],
                    "two_term": -a1 / p["k"] + a2 / p["k"] ** 2,
                    "rigorous_bound": (-C / p["k"]) if C is not None else None,
                    "seconds": r["seconds"],
                }
                for p, r in rows
            ],
            **summ,
        }
    finite_ok = all(
        per_model[m.name]["slope_ci_within_target"] and per_model[m.name]["excludes_minus_half"] for m in models
    )
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
        "rigorous_constant": C,
        "rigorous_constant_source": C_src,
        "models": per_model,
        "conclusion": {
            "finite_models_slope_within_[-1.05,-0.95]_and_exclude_-1/2": finite_ok,
            "slopes": {k: v["slope"] for k, v in per_model.items()},
            "leading_vs_measured_rel_diff": {k: v["leading_vs_measured_rel_diff"] for k, v in per_model.items()},
        },
    }
    fig = plot(per_model, tau)
    js, png = common.finish(out, NAME, record, fig)
    return {"json": js, "png": png, "record": record}


def plot(per_model: dict, tau: float):
    """Left: measured |R̃ − CE| (points, 95 % bars) with its leading term a₁/k and the rigorous C(τ)/k;
    right: k·|R̃ − CE| → a₁. Style from ``numerics.plotstyle``."""
    from .. import plotstyle

    plt = plotstyle.pyplot()
    fig, (ax1, ax2) = plotstyle.figure(2, height=4.2)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for c, (name, m) in zip(colors, per_model.items()):
        ks = np.array([p["k"] for p in m["points"]], float)
        g = np.abs([p["gap"] for p in m["points"]])
        se = np.array([p["gap_se"] for p in m["points"]])
        lo, hi = m["slope_ci"]
        ax1.errorbar(
            ks,
            g,
            yerr=1.96 * se,
            color=c,
            label=f"{name} model, measured: slope {m['slope']:.3f} [{lo:.3f}, {hi:.3f}]",
            **plotstyle.style("measured"),
        )
        ax1.plot(
            ks, m["a1"] / ks, color=c, label=rf"{name} model, leading term $a_1/k$ (ours)", **plotstyle.style("ours")
        )
        rb = [p["rigorous_bound"] for p in m["points"]]
        if rb[0] is not None and m["kind"] == "finite" and name == next(iter(per_model)):
            ax1.plot(ks, np.abs(rb), color="k", label=r"rigorous bound $C(\tau)/k$ (ours)", **plotstyle.style("ours"))
        ax2.errorbar(
            ks, ks * g, yerr=1.96 * ks * se, color=c, label=f"{name} model, measured", **plotstyle.style("measured")
        )
        ax2.axhline(m["a1"], color=c, label=rf"{name} model, $a_1$ (ours)", **plotstyle.style("ours", linewidth=1))
    k0 = np.array([1, max(max(p["k"] for p in m["points"]) for m in per_model.values())], float)
    ax1.plot(k0, 0.3 / np.sqrt(k0), label=r"reference slope $-1/2$ (a $k^{-1/2}$ law)", **plotstyle.style("reference"))
    ax1.set(
        xscale="log",
        yscale="log",
        xlabel=r"number of negatives $k$",
        ylabel=r"$|\tilde R - \mathrm{CE}|$ (nats)",
        title=rf"finite-$k$ bias, $\tau$ = {tau}",
    )
    ax2.set(
        xscale="log",
        xlabel=r"number of negatives $k$",
        ylabel=r"$k\,|\tilde R - \mathrm{CE}|$ (nats)",
        title=r"$k \times$ bias $\to a_1 = \mathbf{E}\,\mathrm{Var}(W)/(2Z^2)$",
    )
    plotstyle.legend(ax1, ncol=1)
    plotstyle.legend(ax2, ncol=1)
    return fig


def headline(rec: dict) -> list[str]:
    """One line per model: slope, 95 % interval, leading vs measured coefficient."""
    lines = []
    for name, m in rec["models"].items():
        lo, hi = m["slope_ci"]
        lines.append(
            f"{name:8s} slope {m['slope']:+.4f} [{lo:+.4f}, {hi:+.4f}]  a1 = {m['leading_coefficient']:.4f}  "
            f"k·|gap| at k≥{min(m['measured_at_k']):.0f} = {m['measured_coefficient']:.4f}  "
            f"(rel. diff {100 * m['leading_vs_measured_rel_diff']:.2f} %)"
        )
    return lines
