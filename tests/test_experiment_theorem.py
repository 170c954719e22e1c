"""Theorem 1 on a known-truth model: (C) for the angle class (proved, and a smaller C_Φ refuted), the exact truth
against 30-digit mpmath and Monte Carlo, the chunked tuple stream, and the CLI contract of
``experiment theorem`` (quick form, resume, Dask agreement, bad input → exit 2)."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from infonce_bounds.derivations import angle_class
from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import Verdict
from infonce_bounds.numerics.cli import main
from infonce_bounds.numerics.experiments import theorem as T
from infonce_bounds.numerics.finite import FiniteModel

FAST = {"trials": 5000}

# ----------------------------------------------------------------------------------------------
# (C) for the angle class
# ----------------------------------------------------------------------------------------------


def test_condition_c_is_proved_with_c_phi_one():
    res = check_step(angle_class.condition_c(), **FAST)
    assert res.verdict == Verdict.PROVED, res.evidence
    assert res.worst_ratio is not None and res.worst_ratio > 0.99  # tight: C_Φ = 1 is approached


def test_a_smaller_c_phi_is_refuted():
    """Planted wrong: C_Φ = 9/10 fails for small angles (2 sin(α/2) ≈ α)."""
    res = check_step(angle_class.condition_c(sp.Rational(9, 10)), **FAST)
    assert res.verdict == Verdict.REFUTED


def test_monotone_steps_prove_and_a_wrong_derivative_does_not():
    assert check_step(angle_class.half_chord_upper(), **FAST).verdict == Verdict.PROVED
    assert check_step(angle_class.half_chord_lower(), **FAST).verdict == Verdict.PROVED
    wrong = angle_class.half_chord_upper()
    from infonce_bounds.derivations.paper._laws import monotone_from

    bad = dataclasses.replace(wrong, check=monotone_from(0, sp.cos(angle_class.ang / 4) ** 2, angle_class.ang))
    assert check_step(bad, **FAST).verdict != Verdict.PROVED  # the derivative must match the gap's


def test_embedding_is_unit_and_meets_c_numerically(rng):
    m = T.default_model()
    th = m.theta0 + np.array([0.3, -0.1])
    th2 = m.theta0 + np.array([-0.2, 0.25])
    assert np.allclose(np.linalg.norm(m.phi(th), axis=1), 1.0, atol=1e-15)
    lhs = np.linalg.norm(m.phi(th) - m.phi(th2), axis=1)
    rhs = np.linalg.norm(m.z, axis=1) * np.linalg.norm(th - th2)
    assert np.all(lhs <= rhs * (1 + 1e-12))


# ----------------------------------------------------------------------------------------------
# the truth
# ----------------------------------------------------------------------------------------------


def _finite(m, theta, tau):
    phi = m.phi(theta)
    return FiniteModel.from_dict(
        {
            "name": "angle",
            "tau": repr(float(tau)),
            "pi": [repr(float(v)) for v in m.pi],
            "M": [[repr(float(v)) for v in row] for row in m.M],
            "phi": [[repr(float(v)) for v in row] for row in phi],
        }
    )


@pytest.mark.parametrize("k,tau", [(1, 0.5), (5, 0.5), (9, 2.0), (6, 0.05)])
def test_exact_truth_matches_mpmath(k, tau):
    """LHS = H_k − log k of numerics.finite (30-digit mpmath) and R = R_std,k − log k, to 1e-12."""
    m = T.default_model()
    th = m.theta0 + np.array([0.1, -0.2])
    got = T.exact_truth(m, th, k, tau, with_risk=True)
    with mpmath.workdps(30):
        ex = _finite(m, th, tau).exact_at(k, with_search=True)
        lhs = float(ex["H_k"] - mpmath.log(k))
        risk = float(ex["R_std_k"] - mpmath.log(k))
    assert got["lhs"] == pytest.approx(lhs, abs=1e-12, rel=1e-12)
    assert got["risk"] == pytest.approx(risk, abs=1e-12, rel=1e-12)


def test_exact_truth_planted_wrong_fails():
    """The comparison above can fail: the truth at another θ differs from mpmath at this θ by ≫ 1e-12."""
    m = T.default_model()
    th = m.theta0 + np.array([0.1, -0.2])
    with mpmath.workdps(30):
        lhs = float(_finite(m, th, 0.5).exact_at(5, with_search=True)["H_k"] - mpmath.log(5))
    assert abs(T.exact_truth(m, th + np.array([0.01, 0.0]), 5, 0.5)["lhs"] - lhs) > 1e-6


def test_exact_truth_against_monte_carlo(rng):
    m = T.default_model()
    th = m.theta0 + np.array([-0.2, 0.3])
    exact = T.exact_truth(m, th, 32, 0.5)["lhs"]
    mean, se = T.monte_carlo_lhs(m, th, 32, 0.5, 20000, rng)
    assert abs(mean - exact) < 4.5 * se
    assert se < 0.01


def test_serial_and_prange_kernels_return_the_same_bits(rng):
    """The quick form's serial kernels (below ``SERIAL_BELOW``) and the ``prange`` ones of the full form sum the
    same helper's values in the same order: equal to the last bit, on the truth and on the grid sums."""
    m = T.default_model()
    args = (np.log(m.pi), np.ascontiguousarray(m.density()))
    for k, tau, with_risk in ((1, 0.5, True), (16, 0.05, True), (40, 2.0, False)):
        a = np.ascontiguousarray(m.sims(m.theta0 + np.array([0.1, -0.2])) / tau)
        lgam = np.array([math.lgamma(i + 1) for i in range(k + 1)])
        assert T._truth_work(m.N, k, with_risk) < T.SERIAL_BELOW  # the quick form's sizes take the serial one
        ser = T._exact_truth_serial(*args, a, k, lgam, with_risk)
        par = T._exact_truth_parallel(*args, a, k, lgam, with_risk)
        assert ser == par
    k = 16
    h = T.reduce_stretch(m, k, 20_000, rng)
    xs, ys, cs = (np.ascontiguousarray(v) for v in T._decode(h["keys"], m.N, k))
    a = T.grid_similarities(m, m.grid(), 0.5)
    ser = T._grid_loss_sums_serial(xs, ys, cs, h["counts"], a, math.log(k))
    par = T._grid_loss_sums_parallel(xs, ys, cs, h["counts"], a, math.log(k))
    assert ser.tobytes() == par.tobytes()
    # and the dispatch: the large sizes take the prange form
    assert T._truth_work(m.N, 256, True) >= T.SERIAL_BELOW
    assert T._grid_work(np.empty(10**5), a) >= T.SERIAL_BELOW


def test_truth_is_finite_at_the_ends_of_the_tau_range():
    m = T.default_model()
    for tau in (0.001, 100.0):
        v = T.exact_truth(m, m.theta0, 8, tau)["lhs"]
        assert math.isfinite(v) and abs(v) <= 2 / tau + 1e-12  # every CrossEnt of (9) lies in [−2/τ, 2/τ]


def test_prop2_holds_on_the_model():
    """|LHS − R| ≤ (4/(τk)) E w² + log(1 + e^{2/τ}/k) (Prop. 2) at a few θ, exactly."""
    m = T.default_model()
    for d in ([0, 0], [0.3, -0.3], [-0.4, 0.1]):
        th = m.theta0 + np.array(d, float)
        for k in (4, 16):
            r = T.exact_truth(m, th, k, 0.5, with_risk=True)
            assert abs(r["lhs"] - r["risk"]) <= 4 * m.ew2() / (0.5 * k) + math.log(1 + math.exp(4) / k)


# ----------------------------------------------------------------------------------------------
# the tuple stream and the bound terms
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("k,tau,size", [(16, 0.5, 1000), (16, 0.001, 300), (64, 100.0, 300)])
def test_histogram_reduction_equals_direct_losses(k, tau, size):
    """Σ ℓ over drawn tuples, tuple by tuple in 30-digit mpmath, equals the grid kernel on the reduced histogram
    (τ = 1e-3 exercises the overflow-free shift and the fallback when the maximising state has no count)."""
    m = T.default_model()
    ss = np.random.SeedSequence(7)
    res = T.point({"k": k, "tau": tau, "size": size}, ss)
    xs, ys, cs = T.draw_tuples(m, k, size, np.random.default_rng(ss))
    grid = m.grid()
    for g in (0, len(grid) // 2, len(grid) - 1):
        s = m.sims(grid[g])
        with mpmath.workdps(30):
            t = mpmath.mpf(tau)
            direct = mpmath.fsum(
                mpmath.log(
                    1 / mpmath.mpf(k)
                    + mpmath.fsum(
                        int(cs[i, y]) * mpmath.exp((mpmath.mpf(s[xs[i], y]) - mpmath.mpf(s[xs[i], ys[i]])) / t)
                        for y in range(m.N)
                    )
                    / k
                )
                for i in range(size)
            )
        assert res["loss_sums"][g] == pytest.approx(float(direct), rel=1e-12, abs=1e-9)
    assert res["negatives"] == cs.sum(axis=0).tolist() and sum(res["anchors"]) == size


def test_encode_decode_round_trip(rng):
    m = T.default_model()
    xs, ys, cs = T.draw_tuples(m, 256, 500, rng)
    x2, y2, c2 = T._decode(T._encode(xs, ys, cs, m.N, 256), m.N, 256)
    assert np.array_equal(xs, x2) and np.array_equal(ys, y2) and np.array_equal(cs, c2)


def test_b_tau_from_counts_matches_its_definition(rng):
    m = T.default_model()
    xs, ys, cs = T.draw_tuples(m, 8, 400, rng)
    r = np.linalg.norm(m.z, axis=1)
    for tau in (0.25, 2.0):
        q = 2 / min(1, tau)
        neg = np.repeat(np.arange(m.N)[None, :], 400, 0)
        direct = (
            math.sqrt(np.mean(r[xs] ** 2))
            + math.sqrt(np.mean(r[ys] ** 2))
            + (np.sum(cs * r[neg] ** q) / (400 * 8)) ** (1 / q)
        )
        got = T.b_tau(m, np.bincount(xs, minlength=4), np.bincount(ys, minlength=4), cs.sum(0), 400, 8, tau)
        assert got == pytest.approx(direct, rel=1e-13)


def test_theorem_terms_paper_constants_and_ours_smaller():
    m = T.default_model()
    t = T.theorem_terms(m, n=10**6, k=256, tau=0.5, rhat=1.0, btau=3.0)
    assert t["constants"]["complexity"]["paper"] == 192 and t["constants"]["variability"]["paper"] == 12
    A = math.e * 0.5 * 3.0
    mins = min(A * math.sqrt(math.log(3) + 1), math.sqrt(math.log(1 + 2 * A) + 1))
    assert t["paper"]["complexity"] == pytest.approx(192 / 0.5 * math.sqrt(2e-6) * mins, rel=1e-14)
    assert t["paper"]["variability"] == pytest.approx(12 / 0.5 * math.sqrt(math.log(40) / 2e6), rel=1e-14)
    assert t["paper"]["bias"] == pytest.approx(4 * m.ew2() / 128 + math.log(1 + math.exp(4) / 256), rel=1e-12)
    assert t["ours"]["bound"] < t["paper"]["bound"]
    assert t["trivial"] == 4.0 and all(t[v]["active"] == "bound" for v in ("paper", "ours", "ours_direct"))


def test_direct_route_matches_the_constants_command():
    """The toolkit route at τ = 0.5, k = 256, n = 1e6, L = 1, p = 2, R = 0.5 is what `constants` prints
    (complexity_direct 0.107007, sample_variability 0.00955448 for the InfoNCE loss, upper ends to 6 digits)."""
    t = T.theorem_terms(T.default_model(), n=10**6, k=256, tau=0.5, rhat=1.0, btau=3.0)["ours_direct"]
    c, v = t["complexity"], t["variability"]
    assert c == pytest.approx(0.107007, rel=1e-5) and c <= 0.107007
    assert v == pytest.approx(0.00955448, rel=1e-5) and v <= 0.00955448


def test_recorded_ns_and_stretches():
    assert T.recorded_ns(10**5) == [1000, 2000, 5000, 10**4, 2 * 10**4, 5 * 10**4, 10**5]
    assert T.recorded_ns(3000) == [1000, 2000, 3000]
    st = T.stretches(10**4)
    assert sum(s for _, s in st) == 10**4 and st[0] == (0, 1000)


# ----------------------------------------------------------------------------------------------
# the command
# ----------------------------------------------------------------------------------------------

SMALL = ["experiment", "theorem", "--k", "8", "--tau", "0.5", "--n", "5000"]


def _rows(path):
    return json.loads(path.read_text())["points"]


def test_quick_form(tmp_path):
    assert main(["experiment", "theorem", "--quick", "--out", str(tmp_path), "--workers", "1"]) == 0
    rec = json.loads((tmp_path / "theorem.json").read_text())
    assert (tmp_path / "theorem.png").exists()
    row = rec["points"][0]
    assert [r["n"] for r in row["per_n"]] == T.recorded_ns(5 * 10**4)
    for r in row["per_n"]:
        assert -2 / row["tau"] <= r["truth"] <= 2 / row["tau"]
        assert r["ours"]["bound"] < r["paper"]["bound"] and r["ours_direct"]["bound"] < r["ours"]["bound"]
        assert r["paper"]["bound"] >= r["truth"]  # Theorem 1 holds here (it may fail w.p. ≤ δ; not at this seed)
    assert rec["parameters"]["quick"] is True
    for r in row["per_n"]:  # every version capped by the trivial bound, with its active term
        for v in ("paper", "ours", "ours_direct"):
            assert r[v]["capped"] == min(r[v]["bound"], r["trivial"])
            assert r[v]["active"] == ("bound" if r[v]["bound"] < r["trivial"] else "trivial")
    # the numbers recorded before Theorem 1's terms moved into the public API: unchanged up to rounding
    ref = json.loads((Path(__file__).parent / "data" / "theorem_quick_b37f7d7.json").read_text())
    assert _differences(ref["points"], rec["points"]) == []


def _differences(ref, got, path: str = "points", rel: float = 1e-13) -> list[str]:
    """Paths where ``got`` differs from ``ref`` (floats beyond ``rel``, anything else at all); keys only in ``got``
    (added since) are ignored."""
    if isinstance(ref, dict):
        return [
            d
            for key in ref
            for d in (
                _differences(ref[key], got[key], f"{path}/{key}", rel) if key in got else [f"{path}/{key}: missing"]
            )
        ]
    if isinstance(ref, list):
        if len(ref) != len(got):
            return [f"{path}: length {len(got)} != {len(ref)}"]
        return [d for i, (a, b) in enumerate(zip(ref, got)) for d in _differences(a, b, f"{path}[{i}]", rel)]
    if isinstance(ref, float) and isinstance(got, (int, float)):
        return [] if abs(ref - got) <= rel * max(abs(ref), abs(got)) else [f"{path}: {got!r} != {ref!r}"]
    return [] if ref == got else [f"{path}: {got!r} != {ref!r}"]


def test_the_recorded_comparison_can_fail():
    """Planted wrong: a recorded bound moved by 1e-12 relative, or a flipped n, is reported."""
    ref = json.loads((Path(__file__).parent / "data" / "theorem_quick_b37f7d7.json").read_text())["points"]
    got = json.loads(json.dumps(ref))
    got[0]["per_n"][2]["paper"]["bound"] *= 1 + 1e-12
    got[0]["n_nonvacuous_ours_direct"] = 1000
    diffs = _differences(ref, got)
    assert len(diffs) == 2 and "paper/bound" in diffs[0] and "n_nonvacuous_ours_direct" in diffs[1]


def test_resume_reuses_finished_stretches(tmp_path):
    assert main([*SMALL, "--out", str(tmp_path), "--workers", "1"]) == 0
    first = _rows(tmp_path / "theorem.json")
    pts = sorted((tmp_path / "theorem.points").glob("*.json"))
    pts[-1].unlink()  # as if interrupted before the last stretch
    assert main([*SMALL, "--out", str(tmp_path), "--workers", "1"]) == 0
    rec = json.loads((tmp_path / "theorem.json").read_text())
    assert rec["run"]["reused"] == len(pts) - 1 and rec["run"]["computed"] == 1
    assert rec["points"] == first


def test_dask_run_gives_the_local_numbers(tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, host="127.0.0.1", protocol="tcp", dashboard_address=":0"
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        assert main([*SMALL, "--out", str(tmp_path / "dask"), "--scheduler", cluster.scheduler_address]) == 0
    assert main([*SMALL, "--out", str(tmp_path / "local"), "--workers", "1"]) == 0
    a, b = (json.loads((tmp_path / d / "theorem.json").read_text()) for d in ("dask", "local"))
    assert a["run"]["scheduler"] is not None
    assert a["points"] == b["points"]  # bit-identical: same chunks, same seeds, same reduction order


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--n", "10"], "--n"),
        (["--k", "5000"], "--k"),
        (["--tau", "0"], "--tau"),
        (["--quick", "--n", "2000"], "--quick"),
        (["--samples", "5"], "does not apply"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, needle):
    assert main(["experiment", "theorem", *argv, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert needle in err and "\n" not in err
    assert not list(tmp_path.rglob("*.json"))
