"""Experiments: model quantities by independent routes, the fits, the digits pipeline, the CLI contract
(quick forms, JSON keys, resumability, reproducibility, bad input → exit 2, nothing partial left)."""

from __future__ import annotations

import itertools
import json
import math

import mpmath
import numpy as np
import pytest

from infonce_bounds.numerics.cli import main
from infonce_bounds.numerics.experiments import common, digits
from infonce_bounds.numerics.experiments.models import (
    SphereModel,
    exact_possible,
    finite_exact,
    finite_mc,
    finite_models,
    sphere_mc,
    sphere_moment,
)

# ----------------------------------------------------------------------------------------------
# models: exact values against brute force, Monte Carlo against exact
# ----------------------------------------------------------------------------------------------


def _brute_force(model, k):
    """R̃ − CE and D_k by summing over all N^k ordered k-tuples in 40-digit mpmath (independent route)."""
    with mpmath.workdps(40):
        pi = [mpmath.mpf(float(v)) for v in model.pi]
        S = [[mpmath.mpf(float(v)) for v in row] for row in model.S]
        m = [[mpmath.mpf(float(model.M[x, y])) / pi[y] for y in range(model.N)] for x in range(model.N)]
        tau = mpmath.mpf(model.tau)
        gap = D = mpmath.mpf(0)
        for x in range(model.N):
            Z = mpmath.fsum(pi[y] * mpmath.exp(S[x][y] / tau) for y in range(model.N))
            Es = mpmath.fsum(pi[y] * m[x][y] * S[x][y] for y in range(model.N))
            for tup in itertools.product(range(model.N), repeat=k):
                pr = mpmath.fprod(pi[y] for y in tup)
                Zk = mpmath.fsum(mpmath.exp(S[x][y] / tau) for y in tup) / k
                snis = mpmath.fsum(m[x][y] * S[x][y] for y in tup) / mpmath.fsum(m[x][y] for y in tup)
                gap += pi[x] * pr * (mpmath.log(Zk) - mpmath.log(Z))
                D += pi[x] * pr * (Es - snis) / tau
        return float(gap), float(D)


@pytest.mark.parametrize("name,k", [("binary", 1), ("binary", 5), ("ring6", 1), ("ring6", 3), ("random8", 2)])
def test_finite_exact_matches_brute_force(name, k):
    model = next(m for m in finite_models(0.5) if m.name == name)
    ref_gap, ref_D = _brute_force(model, k)
    got = finite_exact(model, k)
    assert got["gap"] == pytest.approx(ref_gap, rel=1e-10, abs=1e-14)
    assert got["D"] == pytest.approx(ref_D, rel=1e-10, abs=1e-14)
    assert got["gap"] < 0  # Jensen


@pytest.mark.parametrize("name,k", [("binary", 256), ("ring6", 3), ("random8", 2)])
def test_float64_enumeration_agrees_with_numerics_finite(name, k):
    """Our float64 enumeration (used where mpmath is too slow) against numerics.finite's mpmath one."""
    pytest.importorskip("infonce_bounds.numerics.finite")
    from infonce_bounds.numerics.experiments import rate

    model = next(m for m in finite_models(0.5) if m.name == name)
    saved = rate.FINITE_MP_BUDGET
    try:
        rate.FINITE_MP_BUDGET = 10**9
        ref = rate.exact_finite_gap(model, k)
    finally:
        rate.FINITE_MP_BUDGET = saved
    assert ref["engine"].startswith("numerics.finite")
    ours = finite_exact(model, k)
    assert ours["gap"] == pytest.approx(ref["gap"], rel=1e-10)
    assert ours["D"] == pytest.approx(ref["D"], rel=1e-10)


def test_finite_mc_agrees_with_exact(rng):
    model = next(m for m in finite_models(0.5) if m.name == "ring6")
    ex = finite_exact(model, 12)
    mc = finite_mc(model, 12, 40_000, rng)
    assert abs(mc["gap"] - ex["gap"]) < 4.5 * mc["gap_se"]
    assert abs(mc["D"] - ex["D"]) < 4.5 * mc["D_se"]
    assert mc["gap_se"] < 0.02 * abs(ex["gap"])  # the control variate keeps the error O(1/k)


def test_small_tau_gap_is_finite_and_negative():
    """τ = 0.02: U spans e^{±100}; log U must not round to −inf (the bug log1p(U − 1) had)."""
    for model in finite_models(0.02):
        res = finite_exact(model, 4) if exact_possible(model, 4) else None
        if res is not None:
            assert math.isfinite(res["gap"]) and res["gap"] < 0


@pytest.mark.parametrize("d", [3, 8])
def test_sphere_moments_against_closed_forms(d, mp50):
    """E e^{bT}: quadrature vs Γ(d/2)(2/b)^{d/2−1} I_{d/2−1}(b) (and sinh(b)/b for d = 3)."""
    for b in (0.5, 2.0, 10.0):
        closed = (
            mpmath.gamma(mpmath.mpf(d) / 2)
            * (2 / mpmath.mpf(b)) ** (mpmath.mpf(d) / 2 - 1)
            * mpmath.besseli(mpmath.mpf(d) / 2 - 1, b)
        )
        assert float(sphere_moment(d, b, 0)) == pytest.approx(float(closed), rel=1e-12)
        if d == 3:
            assert float(closed) == pytest.approx(math.sinh(b) / b, rel=1e-12)
        # E[T e^{bT}] = d/db E[e^{bT}] = Γ(d/2) 2^ν b^{−ν} I_{ν+1}(b), ν = d/2 − 1 (d/db b^{−ν}I_ν = b^{−ν}I_{ν+1})
        nu = mpmath.mpf(d) / 2 - 1
        deriv = mpmath.gamma(mpmath.mpf(d) / 2) * 2**nu * mpmath.mpf(b) ** (-nu) * mpmath.besseli(nu + 1, b)
        assert float(sphere_moment(d, b, 1)) == pytest.approx(float(deriv), rel=1e-12)
        if d == 3:
            assert float(deriv) == pytest.approx(math.cosh(b) / b - math.sinh(b) / b**2, rel=1e-12)


def test_sphere_mc_at_k1_has_closed_form(rng):
    """k = 1: R_1 − CE = E T/τ − log Z = −log Z; D_1 = (E_vMF T − E_π T)/τ = E_vMF T/τ."""
    mdl = SphereModel(d=5, kappa=3.0, tau=0.5)
    res = sphere_mc(mdl, 1, 200_000, rng)
    assert abs(res["gap"] - (-math.log(mdl.Z()))) < 4.5 * res["gap_se"]
    evmf = mdl.moment(mdl.kappa, 1) / mdl.moment(mdl.kappa)
    assert abs(res["D"] - evmf / mdl.tau) < 4.5 * res["D_se"]


def test_leading_term_matches_exact_rate_at_large_k():
    """k·(CE − R̃) → a₁ = E Var(W)/(2Z²), with a₂/k the next correction (cumulant expansion)."""
    model = next(m for m in finite_models(0.5) if m.name == "binary")
    a1, a2 = model.leading()
    k = 2048
    gap = finite_exact(model, k)["gap"]
    assert -k * gap == pytest.approx(a1 - a2 / k, rel=1e-4)
    assert -k * gap != pytest.approx(a1 / 2, rel=0.05)  # planted: half the coefficient is refuted


# ----------------------------------------------------------------------------------------------
# fits
# ----------------------------------------------------------------------------------------------


def test_slope_fit_recovers_exponents_and_can_fail(rng):
    k = 2.0 ** np.arange(6, 13)
    exact = common.loglog_slope(k, 0.4 / k)
    assert exact["slope"] == pytest.approx(-1.0, abs=1e-12)
    se = 0.01 * 0.4 / k
    noisy = common.loglog_slope(k, 0.4 / k + se * rng.normal(size=k.size), se)
    assert noisy["slope_ci"][0] < -1.0 < noisy["slope_ci"][1]
    # planted: a 1/√k law must be reported as −1/2 and land outside the target window
    half = common.loglog_slope(
        k, 0.4 / np.sqrt(k) + 0.01 * 0.4 / np.sqrt(k) * rng.normal(size=k.size), 0.01 * 0.4 / np.sqrt(k)
    )
    assert half["slope_ci"][0] < -0.5 < half["slope_ci"][1]
    assert not (half["slope_ci"][0] >= -1.05 and half["slope_ci"][1] <= -0.95)


def test_mean_ci_and_t_quantiles():
    assert common.t975(1) == pytest.approx(12.706)
    assert common.t975(1000) == pytest.approx(1.96, abs=0.01)
    ci = common.mean_ci([1.0, 2.0, 3.0])
    assert ci["mean"] == 2.0 and ci["ci"][0] == pytest.approx(2 - 4.303 / math.sqrt(3))


def test_parse_list():
    assert common.parse_list("1..16", int, "--k") == [1, 2, 4, 8, 16]
    assert common.parse_list("3, 5", int, "--k") == [3, 5]
    for bad in ("", ",", "16..1", "a,b"):
        with pytest.raises(ValueError, match="--k"):
            common.parse_list(bad, int, "--k")


# ----------------------------------------------------------------------------------------------
# digits pipeline
# ----------------------------------------------------------------------------------------------


def test_digits_file_is_sklearns_load_digits():
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_digits

    assert np.array_equal(digits.load_images(), load_digits().images / 16.0)


def test_augmentation_kernel(rng):
    img = digits.load_images()[:50]
    a, b = digits.augment(img, rng), digits.augment(img, rng)
    assert a.shape == img.shape and a.min() >= 0 and a.max() <= 1
    assert not np.array_equal(a, b)  # a random kernel
    # but close to its own image: more correlated with it than with the other images
    C = np.corrcoef(a.reshape(50, -1), img.reshape(50, -1))[:50, 50:]
    assert np.mean(np.diag(C)) > np.mean(C[~np.eye(50, dtype=bool)]) + 0.1


def test_risk_gradient_matches_finite_differences(rng):
    train, _ = digits.split(rng)
    mean = train.mean(0)
    T = digits.make_tuples(train, mean, 40, 6, rng)
    W = rng.normal(size=(5, 64))
    r, g = digits.risk_and_grad(W, T, 0.3)  # kernel backend (numerics.infonce_gradient_pooled)
    r_np, g_np = digits.risk_and_grad(W, T, 0.3, backend="numpy")
    assert r == pytest.approx(r_np, rel=1e-12) and np.allclose(g, g_np, rtol=1e-10, atol=1e-13)
    for _ in range(12):
        i, j = rng.integers(5), rng.integers(64)
        E = np.zeros_like(W)
        E[i, j] = 1e-6
        fd = (digits.risk_and_grad(W + E, T, 0.3, False)[0] - digits.risk_and_grad(W - E, T, 0.3, False)[0]) / 2e-6
        assert g[i, j] == pytest.approx(fd, rel=1e-5, abs=1e-8)


def test_training_lowers_the_risk_and_respects_the_radius(rng):
    train, _ = digits.split(rng)
    T = digits.make_tuples(train, train.mean(0), 100, 8, rng)
    W, trace = digits.train(T, 0.5, 8, 30, rng, radius=5.0)
    assert trace[-1] < trace[0] - 0.1
    assert np.linalg.norm(W) <= 5.0 + 1e-9


# ----------------------------------------------------------------------------------------------
# CLI: quick forms, JSON contract, resume, reproducibility, bad input
# ----------------------------------------------------------------------------------------------


def _run(tmp_path, *argv):
    return main(["experiment", *argv, "--out", str(tmp_path), "--workers", "1"])


def _no_partials(path):
    assert not [p for p in path.rglob("*") if ".partial" in p.name]


def test_rate_quick(tmp_path):
    assert _run(tmp_path, "rate", "--quick") == 0
    rec = json.loads((tmp_path / "rate.json").read_text())
    assert (tmp_path / "rate.png").stat().st_size > 10_000
    assert rec["seed"] == 0 and rec["versions"]["numpy"] and rec["parameters"]["quick"] is True
    for name in ("binary", "ring6", "random8", "sphere"):
        m = rec["models"][name]
        assert len(m["slope_ci"]) == 2 and m["slope_ci"][0] <= m["slope"] <= m["slope_ci"][1]
    for name in ("binary", "ring6", "random8"):
        m = rec["models"][name]
        assert m["slope_ci_within_target"] and m["excludes_minus_half"], (name, m["slope_ci"])
        assert m["leading_vs_measured_rel_diff"] < 0.05
    _no_partials(tmp_path)
    # resume: everything is reused, the numbers are identical
    before = {n: m["points"] for n, m in rec["models"].items()}
    assert _run(tmp_path, "rate", "--quick") == 0
    rec2 = json.loads((tmp_path / "rate.json").read_text())
    assert rec2["run"]["computed"] == 0 and rec2["run"]["reused"] == rec["run"]["points"]
    assert {
        n: [{k: v for k, v in p.items() if k != "seconds"} for p in m["points"]] for n, m in rec2["models"].items()
    } == {n: [{k: v for k, v in p.items() if k != "seconds"} for p in pts] for n, pts in before.items()}


def test_search_quick(tmp_path):
    assert _run(tmp_path, "search", "--quick") == 0
    rec = json.loads((tmp_path / "search.json").read_text())
    for name, m in rec["models"].items():
        assert -1.15 < m["D_slope"] < -0.85, name
        assert m["delta1_vs_measured_rel_diff"] < 0.1, name
        p = m["points"][-1]
        assert p["H_k_minus_log_k"] - p["R_k"] == pytest.approx(p["D_k"])


def test_generalisation_quick(tmp_path):
    assert _run(tmp_path, "generalisation", "--quick") == 0
    rec = json.loads((tmp_path / "generalisation.json").read_text())
    assert sorted(rec["per_k"], key=int) == ["1", "16", "256"]
    for row in rec["per_k"].values():
        for key in ("gap", "empirical_risk", "test_ce", "gap_same_k"):
            assert row[key]["n"] == 2 and row[key]["ci"][0] <= row[key]["mean"] <= row[key]["ci"][1]
        assert "theorem" in row and "prior" in row
    assert "k = 1:" in rec["note"] and "k = 256:" in rec["note"]
    assert (tmp_path / "generalisation.png").exists()


def test_temperature_quick(tmp_path):
    assert _run(tmp_path, "temperature", "--quick") == 0
    rec = json.loads((tmp_path / "temperature.json").read_text())
    taus = rec["parameters"]["taus"]
    lo, hi = rec["per_tau"][repr(taus[0])], rec["per_tau"][repr(taus[-1])]
    # the measured finite-k bias constant grows as τ falls, and stays below the rigorous one when present
    assert lo["bias_constant"]["measured_max_k_times_gap"] > hi["bias_constant"]["measured_max_k_times_gap"]
    for row in rec["per_tau"].values():
        if row["bias_constant"]["C"] is not None:
            assert row["bias_constant"]["measured_max_k_times_gap"] <= row["bias_constant"]["C"]


def test_reproducible_across_worker_counts(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["experiment", "search", "--k", "2,8", "--samples", "500", "--out", str(a), "--workers", "1"]) == 0
    assert main(["experiment", "search", "--k", "2,8", "--samples", "500", "--out", str(b), "--workers", "2"]) == 0
    ra, rb = (json.loads((p / "search.json").read_text())["models"] for p in (a, b))
    assert {n: m["points"] for n, m in ra.items()} == {n: m["points"] for n, m in rb.items()}
    c = tmp_path / "c"
    assert (
        main(
            ["experiment", "search", "--k", "2,8", "--samples", "500", "--out", str(c), "--workers", "1", "--seed", "1"]
        )
        == 0
    )
    rc = json.loads((c / "search-seed1.json").read_text())["models"]  # per-seed file: seeds never overwrite
    assert rc["sphere"]["points"] != ra["sphere"]["points"]  # the seed matters


def _boom(point, ss):
    if point["i"] == 2:
        raise RuntimeError("interrupted")
    return {"value": float(np.random.default_rng(ss).random()), "i": point["i"]}


def _fine(point, ss):
    return {"value": float(np.random.default_rng(ss).random()), "i": point["i"]}


def test_interrupted_sweep_keeps_finished_points_and_resumes(tmp_path):
    pts = [{"i": i} for i in range(4)]
    with pytest.raises(RuntimeError):
        common.sweep("toy", _boom, pts, out=tmp_path, seed=3, workers=1)
    assert len(list((tmp_path / "toy.points").glob("*.json"))) == 2
    assert not (tmp_path / "toy.json").exists()
    res, stats = common.sweep("toy", _fine, pts, out=tmp_path, seed=3, workers=1)
    assert stats["reused"] == 2 and stats["computed"] == 2
    fresh, _ = common.sweep("toy", _fine, pts, out=tmp_path / "fresh", seed=3, workers=1)
    assert res == fresh  # resumed points equal freshly computed ones
    _no_partials(tmp_path)


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["nosuch"], "unknown experiment"),
        (["rate", "--k", ","], "empty item"),
        (["rate", "--k", "64..8"], "empty"),
        (["rate", "--quick", "--k", "1,2"], "--quick"),
        (["search", "--k", "16"], "at least 2"),
        (["generalisation", "--quick", "--seeds", "3"], "--quick"),
        (["rate", "--steps", "10"], "does not apply"),
        (["rate", "--tau", "-1"], "--tau"),
        (["rate", "--scheduler", "tcp://127.0.0.1:9"], "--scheduler"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, needle):
    assert main(["experiment", *argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err
    assert not list(tmp_path.rglob("*.json"))


def test_unwritable_out_is_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["experiment", "rate", "--quick", "--out", str(blocker / "sub")]) == 2
    err = capsys.readouterr().err.strip()
    assert "--out" in err and "\n" not in err


def test_dask_scheduler_runs_the_same_sweep(tmp_path):
    """--scheduler on a local Dask cluster gives the same numbers as the local pool."""
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address="127.0.0.1:0") as cluster:
        assert (
            main(
                [
                    "experiment",
                    "search",
                    "--k",
                    "2,8",
                    "--samples",
                    "300",
                    "--out",
                    str(tmp_path / "dask"),
                    "--scheduler",
                    cluster.scheduler_address,
                ]
            )
            == 0
        )
    assert (
        main(
            [
                "experiment",
                "search",
                "--k",
                "2,8",
                "--samples",
                "300",
                "--out",
                str(tmp_path / "local"),
                "--workers",
                "1",
            ]
        )
        == 0
    )
    a, b = (json.loads((tmp_path / d / "search.json").read_text()) for d in ("dask", "local"))
    assert a["run"]["scheduler"] == cluster.scheduler_address
    assert {n: m["points"] for n, m in a["models"].items()} == {n: m["points"] for n, m in b["models"].items()}


def test_theorem_values_match_direct_substitution():
    """The lambdified Theorem-1 components equal SymPy's own evaluation of theorem_terms at numbers."""
    pytest.importorskip("infonce_bounds.derivations.rademacher")
    import sympy as sp

    from infonce_bounds.derivations.theorem import theorem_terms
    from infonce_bounds.numerics.experiments import bounds

    got = bounds.theorem_values(0.5, 16, 500, 0.05, 20.0, 1024, 10.0)
    assert got["available"]
    b = got["gamma"]
    terms = theorem_terms(sp.Rational(1, 2), sp.Rational(repr(b)), 16, 500, sp.Rational(1, 20), 20, 1024, 10)
    for name, t in terms.items():
        assert got[name] == pytest.approx(float(sp.N(t.expr, 30)), rel=1e-12)
    assert got["bound"] == pytest.approx(got["sample_variability"] + got["complexity"] + got["finite_k_bias"])


def test_report_section_embeds_plots(tmp_path, monkeypatch):
    """The report section runs each experiment's quick form and embeds its plot (one tiny experiment here)."""
    import argparse

    from infonce_bounds.numerics.commands import experiment
    from infonce_bounds.numerics.experiments import search

    monkeypatch.setattr(experiment, "EXPERIMENTS", {"search": "search"})
    monkeypatch.setattr(search, "QUICK", {"k": [2, 8], "samples": 300, "sphere_samples": 300})
    md = experiment.report_section(tmp_path, argparse.Namespace(quick=True))
    assert "![search](experiments/search.png)" in md and "δ1 =" in md
    assert (tmp_path / "experiments" / "search.png").exists() and (tmp_path / "experiments" / "search.json").exists()


def test_quick_lane_gives_the_numbers_of_a_run_here(tmp_path):
    """The report's second process runs an experiment's quick form to the same record, headline and plot name
    as a run in this process (a point's seed comes from its key, never from the process that draws it)."""
    from infonce_bounds.numerics.commands import experiment

    lane = experiment.QuickLane(tmp_path / "lane", names=("search",))
    try:
        there = lane.result("search")
    finally:
        lane.close()
    here = experiment.run_quick("search", tmp_path / "here", workers=1)
    assert there["lines"] == here["lines"] and there["png"] == here["png"] == "search.png"
    drop = ("run", "versions")
    rec = {p: json.loads((tmp_path / p / "experiments" / "search.json").read_text()) for p in ("lane", "here")}
    assert {k: v for k, v in rec["lane"].items() if k not in drop} == {
        k: v for k, v in rec["here"].items() if k not in drop
    }
    assert "search" in lane and "rate" not in lane


def test_quick_lane_failure_reaches_the_report(tmp_path):
    """An experiment that fails in the second process fails the report section with its error (planted: an
    unwritable output directory), and the lane is ended."""
    from infonce_bounds.numerics.commands import experiment

    blocker = tmp_path / "file"
    blocker.write_text("")
    lane = experiment.QuickLane(blocker, names=("search",))
    with pytest.raises(ValueError, match="cannot be written"):
        lane.result("search")
    lane.close(failed=True)
