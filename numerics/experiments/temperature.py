"""Experiment ``temperature``: the bias constant, the continuity factor and the measured gap over τ ∈ [0.02, 2].

Paper (§4.2, after Prop. 5): as τ → 0 the bound becomes more and more sensitive to the negatives'
embeddings; low temperature can mean a larger generalisation error, higher τ regularises.
For each τ on the grid we record
  * the finite-k bias constant: C(τ) of ``derivations.bias`` (when importable), the brief's simple
    e^{2/τ}/4, and the *measured* k·(CE − R̃) at k = 16 and 256 on the finite models of ``models``
    (exact or Monte Carlo) with their asymptotic a₁(τ) = E Var(W)/(2Z²);
  * the continuity factor of ``derivations.continuity`` at k (max form β = 1/τ, β = 2/τ, and the
    k-free average form β → ∞);
  * the Theorem-1 components at the same (n, k, τ, δ, L, p, R) as the trained maps (``bounds``);
  * trained on the digits data (as ``generalisation``, fixed k): the measured gap
    CE(held-out) − R̂_n and the fixed-k gap, and the *data-dependent* continuity factor
    exp(Λ(β; z)/(βτ) − Λ(1/τ; z)) at β = 2/τ on held-out similarity vectors z (k negatives),
    averaged over anchors (max also kept): how much the softmax weights of the negatives concentrate.
"""

from __future__ import annotations

import time

import numpy as np

from . import bounds, common, digits, generalisation
from .models import exact_possible, finite_exact, finite_mc, finite_models

NAME = "temperature"
#: module → the extra that installs it (the measured gap trains on the digits data)
REQUIRES = {"sklearn": "experiments"}

HELP = "bias constant, continuity factor and measured gap over τ ∈ [0.02, 2]; the τ → 0 sensitivity"
FULL = {
    "taus": [0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0],
    "k": [16],
    "seeds": 3,
    "n": 500,
    "steps": 200,
    "eval_n": 4000,
    "samples": 50_000,
}
QUICK = {"taus": [0.05, 0.5, 2.0], "k": [16], "seeds": 2, "n": 200, "steps": 40, "eval_n": 1000, "samples": 5_000}
OPTIONS = ("taus", "k", "seeds", "n", "steps", "samples", "dim")
SIZE_OPTIONS = ("taus", "k", "seeds", "n", "steps", "samples")
BIAS_KS = (16, 256)


def _lme(Z: np.ndarray, b: float) -> np.ndarray:
    A = b * Z
    mx = A.max(axis=1, keepdims=True)
    return mx[:, 0] + np.log(np.mean(np.exp(A - mx), axis=1))


def data_factor(tau: float, k: int):
    """A picklable ``extra`` for ``generalisation.train_and_measure``: the data-dependent continuity factor."""
    return _DataFactor(tau, k)


class _DataFactor:
    def __init__(self, tau, k):
        self.tau, self.k = tau, k

    def __call__(self, W, test_img, mean_img, rng) -> dict:
        m = len(test_img)
        E, _ = digits.embed(W, (test_img - mean_img).reshape(m, -1))
        neg = rng.integers(0, m, size=(m, self.k))
        Z = np.take_along_axis(E @ E.T, neg, axis=1)
        beta = 2.0 / self.tau
        f = np.exp(_lme(Z, beta) / (beta * self.tau) - _lme(Z, 1.0 / self.tau))
        return {
            "data_factor_mean": float(f.mean()),
            "data_factor_max": float(f.max()),
            "data_factor_beta_tau": beta * self.tau,
        }


def point(pt: dict, ss: np.random.SeedSequence) -> dict:
    if pt["kind"] == "bias":
        rng = np.random.default_rng(ss)
        mdl = next(m for m in finite_models(pt["tau"]) if m.name == pt["model"])
        res = (
            finite_exact(mdl, pt["k"]) if exact_possible(mdl, pt["k"]) else finite_mc(mdl, pt["k"], pt["samples"], rng)
        )
        return {"gap": res["gap"], "gap_se": res["gap_se"], "method": res["method"], "a1": mdl.leading()[0]}
    return generalisation.train_and_measure(pt, ss, extra=data_factor(pt["tau"], pt["k"]))


def run(opts: dict, out, seed: int, workers=None, scheduler=None) -> dict:
    taus = sorted(opts["taus"])
    k = opts["k"][0] if len(opts["k"]) == 1 else None
    if k is None:
        raise ValueError(f"--k for temperature takes one value (the fixed k), got {opts['k']}")
    d = opts.get("dim") or 16
    digits.load_images()
    points = []
    for tau in taus:
        points += [
            {
                "kind": "train",
                "k": k,
                "rep": r,
                "seed": seed,
                "tau": tau,
                "d": d,
                "n": opts["n"],
                "steps": opts["steps"],
                "eval_n": opts["eval_n"],
                "radius": generalisation.RADIUS,
            }
            for r in range(opts["seeds"])
        ]
        points += [
            {"kind": "bias", "model": m.name, "k": kb, "tau": tau, "samples": opts["samples"]}
            for m in finite_models(tau)
            for kb in BIAS_KS
        ]
    t0 = time.perf_counter()
    results, stats = common.sweep(NAME, point, points, out=out, seed=seed, workers=workers, scheduler=scheduler)
    per_tau = {}
    for tau in taus:
        train = [r for p, r in zip(points, results) if p["tau"] == tau and p["kind"] == "train"]
        bias = [(p, r) for p, r in zip(points, results) if p["tau"] == tau and p["kind"] == "bias"]
        measured = {}
        for p, r in bias:
            measured.setdefault(p["model"], {})[str(p["k"])] = {
                "k_times_gap": -p["k"] * r["gap"],
                "se": p["k"] * r["gap_se"],
                "method": r["method"],
            }
            measured[p["model"]]["a1"] = r["a1"]
        worst = max(v[str(kb)]["k_times_gap"] for v in measured.values() for kb in BIAS_KS)
        per_tau[repr(tau)] = {
            "tau": tau,
            "bias_constant": {**bounds.bias_constant(tau), "measured_max_k_times_gap": worst, "measured": measured},
            "continuity_factor": bounds.continuity_values(tau, k),
            "theorem": bounds.theorem_values(
                tau,
                k,
                opts["n"],
                generalisation.DELTA,
                max(r["lipschitz"] for r in train),
                64 * d,
                generalisation.RADIUS,
            ),
            **{
                m: common.mean_ci([r[m] for r in train])
                for m in (
                    "gap",
                    "gap_same_k",
                    "empirical_risk",
                    "test_ce",
                    "test_risk_k",
                    "data_factor_mean",
                    "data_factor_max",
                )
            },
            "runs": train,
        }
        # losses scale like 1/τ: τ·gap compares temperatures in the same units (similarity units)
        per_tau[repr(tau)]["tau_times_gap"] = common.mean_ci([tau * r["gap"] for r in train])
    record = {
        "experiment": NAME,
        "seed": seed,
        "parameters": {
            "taus": taus,
            "k": k,
            "d": d,
            "seeds": opts["seeds"],
            "n": opts["n"],
            "steps": opts["steps"],
            "eval_n": opts["eval_n"],
            "samples": opts["samples"],
            "bias_ks": list(BIAS_KS),
            "radius": generalisation.RADIUS,
            "quick": opts["quick"],
        },
        "versions": common.versions(),
        "run": {**stats, "seconds": time.perf_counter() - t0},
        "per_tau": per_tau,
        "note": note(per_tau, taus),
    }
    js, png = common.finish(out, NAME, record, plot(per_tau, taus, k))
    return {"json": js, "png": png, "record": record}


def note(per_tau: dict, taus: list[float]) -> str:
    lo, hi = per_tau[repr(taus[0])], per_tau[repr(taus[-1])]
    return (
        f"τ = {taus[0]}: gap {lo['gap']['mean']:.3f} (τ·gap {lo['tau_times_gap']['mean']:.3f}), "
        f"fixed-k gap {lo['gap_same_k']['mean']:.3f}, "
        f"data factor {lo['data_factor_mean']['mean']:.3g}; τ = {taus[-1]}: gap {hi['gap']['mean']:.3f} "
        f"(τ·gap {hi['tau_times_gap']['mean']:.3f}), "
        f"fixed-k gap {hi['gap_same_k']['mean']:.3f}, data factor {hi['data_factor_mean']['mean']:.3g}. "
        f"Measured max k·(CE − R̃) on the finite models: {lo['bias_constant']['measured_max_k_times_gap']:.3g} "
        f"at τ = {taus[0]} vs {hi['bias_constant']['measured_max_k_times_gap']:.3g} at τ = {taus[-1]}."
    )


def plot(per_tau: dict, taus: list[float], k: int):
    """Measured gap, bias constants and continuity factors against τ (``numerics.plotstyle``); the
    Theorem-1 bound, in nats, has its own right-hand axis beside the (unitless) factors."""
    from .. import plotstyle

    fig, axes = plotstyle.figure(3, height=4.2)
    t = np.array(taus)
    rows = [per_tau[repr(x)] for x in taus]
    ax = axes[0]
    for key, lab in (
        ("gap", r"gap CE(held-out) $- \hat R_n$"),
        ("gap_same_k", r"fixed-$k$ gap $\tilde R$(held-out) $- \hat R_n$"),
    ):
        m = np.array([r[key]["mean"] for r in rows], float)
        lo = np.array([r[key]["ci"][0] if r[key]["ci"][0] is not None else np.nan for r in rows], float)
        hi = np.array([r[key]["ci"][1] if r[key]["ci"][1] is not None else np.nan for r in rows], float)
        (line,) = ax.plot(t, m, marker="o", label=lab + " (measured)")
        ax.fill_between(t, lo, hi, alpha=0.2, color=line.get_color())
    ax.set(xscale="log", xlabel=r"temperature $\tau$", ylabel="nats", title=f"measured gap on digits, $k$ = {k}")
    ax = axes[1]
    ax.plot(
        t,
        [r["bias_constant"]["simple_e2tau_over_4"] for r in rows],
        label=r"simple constant $e^{2/\tau}/4$ (ours)",
        **plotstyle.style("ours", linestyle="-."),
    )
    if all(r["bias_constant"]["C"] is not None for r in rows):
        ax.plot(t, [r["bias_constant"]["C"] for r in rows], label=r"$C(\tau)$ (ours)", **plotstyle.style("ours"))
    for name in rows[0]["bias_constant"]["measured"]:
        ax.plot(
            t,
            [r["bias_constant"]["measured"][name]["256"]["k_times_gap"] for r in rows],
            label=rf"$256\,(\mathrm{{CE}} - R_{{256}})$, {name} model (measured)",
            **plotstyle.style("measured", linestyle=":"),
        )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel=r"temperature $\tau$",
        ylabel=r"bias constant (nats $\times k$)",
        title=r"finite-$k$ bias constant against $\tau$",
    )
    ax = axes[2]
    cf = [r["continuity_factor"] for r in rows]
    keys = [k_ for k_ in cf[0] if k_.startswith("max_form")], [k_ for k_ in cf[0] if k_.endswith("2_over_tau")]
    keys += ([k_ for k_ in cf[0] if k_.startswith("average_form")],)
    labels = (r"max form, exponent $1/\tau$", r"exponent $2/\tau$", r"average form (exponent $\to \infty$)")
    for found, lab in zip(keys, labels):
        if found and all(found[0] in c for c in cf):
            ax.plot(t, [c[found[0]] for c in cf], label=f"continuity factor, {lab} (ours)", **plotstyle.style("ours"))
    ax.plot(
        t, [r["data_factor_mean"]["mean"] for r in rows], color="k", marker="o", label="data factor, trained embedding"
    )
    ax.plot(
        t,
        [r["data_factor_max"]["mean"] for r in rows],
        color="k",
        marker="^",
        linestyle="--",
        label="data factor, max over anchors",
    )
    ax.set(
        xscale="log",
        yscale="log",
        xlabel=r"temperature $\tau$",
        ylabel="factor (no unit)",
        title=f"continuity factors, $k$ = {k}",
    )
    others = []
    if all(r["theorem"].get("available") for r in rows):
        tw = plotstyle.twin_axis(ax, "Theorem 1 bound (nats)", log=True)
        tw.plot(
            t,
            [r["theorem"]["bound"] for r in rows],
            color="r",
            label="Theorem 1 bound (ours, right axis)",
            **plotstyle.style("ours", linewidth=2),
        )
        others.append(tw)
    plotstyle.legend(axes[0], ncol=1)
    plotstyle.legend(axes[1], ncol=1)
    plotstyle.combined_legend(ax, others)
    return fig


def headline(rec: dict) -> list[str]:
    return [rec["note"]]
