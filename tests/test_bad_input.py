"""Issue 15: every bad input a clear one-line error (exit 2) or a correct result; one test per reported row.

CLI rows run in-process (``numerics.cli.main``); each asserts the exit status, that stderr is one line
naming the parameter (no traceback), and that refusals come before the work (a time bound).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from infonce_bounds.numerics.certify import format_down, format_up
from infonce_bounds.numerics.cli import main
from infonce_bounds.numerics.experiments.models import (
    SphereModel,
    finite_exact,
    finite_mc,
    finite_models,
    sphere_mc,
    sphere_moment,
)
from infonce_bounds.numerics.finite import FiniteModel
from infonce_bounds.numerics.validate import InputCopyWarning, OutsideValidatedRangeWarning

EXAMPLE = {
    "tau": "1/4",
    "pi": ["1/2", "1/3", "1/6"],
    "M": [["3/5", "3/10", "1/10"], ["1/4", "1/2", "1/4"], ["1/5", "2/5", "2/5"]],
    "phi": [["1", "0"], ["3/5", "4/5"], ["-4/5", "3/5"]],
}


def _uniform(N: int) -> dict:
    return {"tau": "1", "pi": [f"1/{N}"] * N, "M": [[f"1/{N}"] * N for _ in range(N)], "phi": [["1"]] * N}


def one_line_error(capsys, *needles: str) -> str:
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and err.count("\n") == 0, err
    for nd in needles:
        assert nd in err, (nd, err)
    return err


# ------------------------------------------------------------------------------------------ constants


def _rows_at(tau):
    """The constants' rows at τ, past the command's range check (the certification path itself)."""
    from infonce_bounds.numerics import bound_constants as B
    from infonce_bounds.numerics.certify import exact

    raw = {**B.DEFAULTS, "tau": "0.1"}
    values = B.validate(raw)
    values[B.tau] = exact(tau)
    values[B.gamma] = 1 / values[B.tau]
    return {r["name"]: r for r in B.rows_for(values)}


@pytest.mark.parametrize("tau", ["1e-20", "1e-300"])
def test_tiny_tau_certifies_huge_values(tau):
    """Row 1: `constants --tau 1e-20` raised OverflowError in certify._fmt; the certification path still prints the
    huge values, rounded up from their enclosure, and log C(τ) = 2/τ + O(1) as the formula says (the command now
    refuses τ outside [1e-3, 1e2], where the bounds are not proved: test_constants_tau_outside_its_range)."""
    from infonce_bounds.derivations import bias
    from infonce_bounds.derivations.symbols import tau as tau_sym
    from infonce_bounds.numerics.certify import enclose

    t0 = time.perf_counter()
    rows = _rows_at(tau)
    assert time.perf_counter() - t0 < 60
    printed = mpmath.mpf(rows["bias_constant"]["value"])
    _, hi = enclose(bias.bias_constant(tau_sym), {tau_sym: tau})
    assert printed >= hi and (printed - hi) / hi < mpmath.mpf("1e-5")
    t = mpmath.mpf(tau)
    assert abs(mpmath.log(printed) * t / 2 - 1) < 3 * t  # log C = 2/τ + O(1)


@pytest.mark.parametrize("tau", ["1e-20", "1e-300", "1e-4", "100.0001", "1e154", "1e155", "1e300"])
def test_constants_tau_outside_its_range(capsys, tau):
    """Issue 28: `constants --tau 1e300` printed an internal certification message with τ in 300 digits (1e154: a
    NameError traceback); τ beyond [1e-3, 1e2], where the inequalities behind the constants are proved, is one line
    naming --tau and that range, exit 2, from constants and compare alike."""
    for cmd in (["constants"], ["compare", "--no-plot", "--k", "2"]):
        assert main([*cmd, "--tau", tau]) == 2
        err = one_line_error(capsys, "--tau", "[1e-3, 1e2]")
        assert len(err) < 200


@pytest.mark.parametrize("tau", ["1e-6", "1e-10"])
def test_constants_small_tau_is_fast(tau):
    """Row 2: τ = 1e-6 … 1e-10 gave no output for > 150 s (the exact decimal rounding of e^{2·10⁶})."""
    t0 = time.perf_counter()
    assert "bias_constant" in _rows_at(tau)
    assert time.perf_counter() - t0 < 30


@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["--tau", "1e-3000"], ["--tau", "[1e-3, 1e2]"]),
        (["--tau", "1e3000"], ["--tau", "[1e-3, 1e2]"]),
        (["--n", "1e3000"], ["--n", "[1, 1e300]"]),
        (["--beta", "1e-3000"], ["--beta", "[1, 1e300]"]),
        (["--gamma", "1e-3000"], ["--gamma", "[1/τ, 1e300]"]),
        (["--gamma", "1e3000"], ["--gamma", "[1/τ, 1e300]"]),
        (["--k", "9" * 500], ["--k", "characters long"]),
        (["--delta", "1e-301"], ["--delta", "[1e-300, 1)"]),
    ],
)
def test_constants_unevaluable_values_are_refused(capsys, argv, needles):
    assert main(["constants", *argv]) == 2
    one_line_error(capsys, *needles)


def test_far_formatting_rounds_outward():
    """_fmt beyond 2^±3000: the interval route; directed rounding checked against a 60-digit reference."""
    for x in (mpmath.exp(mpmath.mpf(2) * 10**6), mpmath.exp(-(mpmath.mpf(10) ** 5)), mpmath.mpf(10) ** 4000 * 3):
        up, down = format_up(x, 6), format_down(x, 6)
        with mpmath.workdps(60):
            assert mpmath.mpf(up) >= x >= mpmath.mpf(down)
            assert (mpmath.mpf(up) - mpmath.mpf(down)) / x < mpmath.mpf("2.1e-5")  # at most 2 units of the 6th digit
    assert format_up(-mpmath.exp(mpmath.mpf(10) ** 4), 4).startswith("-")
    # planted: a value rounded the wrong way is detected by the same comparison
    x = mpmath.mpf(10) ** 4000 * 3
    assert not (mpmath.mpf("2.99999e4000") >= x)


# ------------------------------------------------------------------------------------------ experiments at τ = 1e-3


@pytest.mark.parametrize("tau", [0.001, 0.0014, 0.003])
def test_finite_models_are_overflow_free_in_the_stated_range(tau):
    """Row 3: at τ ∈ [1e-3, 3e-3] e^{s/τ} overflowed (then a TypeError on None); the scaled forms are exact."""
    for model in finite_models(tau):
        assert math.isfinite(model.ce())
        a1, a2 = model.leading()
        assert math.isfinite(a1) and a1 > 0 and math.isfinite(a2)
        k = 4 if model.N > 2 else 16
        res = finite_exact(model, k)
        assert math.isfinite(res["gap"]) and res["gap"] < 0 and math.isfinite(res["D"])
        # the same gap from the 30-digit enumeration of numerics.finite
        fm = FiniteModel.from_dict(
            {"tau": repr(tau), "pi": model.pi.tolist(), "M": model.M.tolist(), "phi": model.Phi.tolist()}
        )
        with mpmath.workdps(30):
            ref = fm.exact_at(k, with_search=False, with_std=False)["R_k"] - fm.cross_entropy()
        assert res["gap"] == pytest.approx(float(ref), rel=1e-9)
        mc = finite_mc(model, k, 2000, np.random.default_rng(1))
        assert math.isfinite(mc["gap"]) and math.isfinite(mc["gap_se"])


def test_sphere_model_is_overflow_free_at_tau_1e3():
    mdl = SphereModel(d=8, kappa=4.0, tau=0.001)
    assert math.isfinite(mdl.ce()) and mdl.Zs() > 0
    # Zs = Z e^{−1/τ} against the closed form Γ(d/2)(2/b)^{d/2−1} I_{d/2−1}(b) e^{−b}, 30 digits
    with mpmath.workdps(30):
        b = mpmath.mpf(1000)
        closed = mpmath.gamma(4) * (2 / b) ** 3 * mpmath.besseli(3, b) * mpmath.exp(-b)
        assert float(sphere_moment(8, 1000.0, 0, shift=1)) == pytest.approx(float(closed), rel=1e-10)
    res = sphere_mc(mdl, 4, 500, np.random.default_rng(2))
    assert math.isfinite(res["gap"]) and math.isfinite(res["gap_se"]) and res["gap"] < 0


def test_experiment_at_tau_1e3_runs(tmp_path, capsys):
    argv = ["experiment", "search", "--k", "2,8", "--samples", "300", "--tau", "0.001", "--workers", "1"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    rec = json.loads((tmp_path / "search.json").read_text())
    gaps = [p[q] for m in rec["models"].values() for p in m["points"] for q in ("R_k", "D_k")]
    assert gaps and all(g is not None and math.isfinite(g) for g in gaps)
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("tau", ["1e-4", "101", "nan", "inf", "0"])
def test_experiment_tau_outside_the_stated_range_is_refused(tmp_path, capsys, tau):
    assert main(["experiment", "rate", "--tau", tau, "--out", str(tmp_path)]) == 2
    one_line_error(capsys, "--tau", "τ ∈ [1e-3, 1e2]")  # the one range of τ (numerics.params)


# ------------------------------------------------------------------------------------------ exact


@pytest.fixture
def model_file(tmp_path):
    def write(data, name="m.json"):
        p = tmp_path / name
        p.write_text(json.dumps(data)) if not isinstance(data, bytes) else p.write_bytes(data)
        return str(p)

    return write


@pytest.mark.parametrize(
    ("data", "k", "needles"),
    [
        (_uniform(1), "1000000000", ["k = 1000000000", "budget"]),  # row 4: memory grew without bound
        (_uniform(1), "1-300000000", ["--k", "at most 100000"]),  # row 5: MemoryError in the k parser
        (_uniform(400), "1-2", ["k = 2", "budget"]),  # row 6: > 120 s
        (_uniform(1), "1-100000", ["budget"]),
        (EXAMPLE, "1-150,3000", ["k = 3000", "count vectors"]),  # row 7: 70 s, then an error on k = 3000
    ],
)
def test_exact_refuses_before_work(capsys, model_file, data, k, needles):
    t0 = time.perf_counter()
    assert main(["exact", model_file(data), "--k", k]) == 2
    assert time.perf_counter() - t0 < 15  # refused from N and k alone
    one_line_error(capsys, *needles)


def test_exact_large_model_refused_from_its_size(capsys, model_file):
    """Row 6: N = 3000 states: refused from the file's sizes, before its 9·10⁶ entries are converted."""
    assert main(["exact", model_file(_uniform(800)), "--k", "1"]) == 2
    one_line_error(capsys, "N = 800", "budget")


def test_exact_budget_option_is_honoured_and_validated(capsys, model_file):
    path = model_file(EXAMPLE)
    assert main(["exact", path, "--k", "1-60", "--budget", "1e5"]) == 2
    one_line_error(capsys, "budget 1e+05")
    assert main(["exact", path, "--k", "1-3", "--budget", "1e5", "--json"]) == 0
    assert [r["k"] for r in json.loads(capsys.readouterr().out)["by_k"]] == [1, 2, 3]
    for bad in ("0", "-1", "nan", "lots"):
        assert main(["exact", path, "--budget", bad]) == 2
        one_line_error(capsys, "--budget", repr(bad))


def test_work_estimate_tracks_the_time():
    """The estimate is an estimate: within a factor 20 of 15 µs per unit on this example (planted: a k-list
    20× larger is estimated at least 10× more work)."""
    m = FiniteModel.example()
    t0 = time.perf_counter()
    m.evaluate(range(1, 16), budget=None)
    dt = time.perf_counter() - t0
    w = m.work(range(1, 16))[0]
    assert 15e-6 * w / 20 < dt < 15e-6 * w * 20
    assert m.work(range(1, 301))[0] > 10 * w


@pytest.mark.parametrize(
    ("tau", "needles"),
    [
        ("1e300", ["tau = '1e300'", "1e-30 ≤ τ ≤ 1e+30"]),  # row 8: ZeroDivisionError
        ("1e999999999", ["tau = '1e999999999'", "±300"]),  # row 8: hang
        ("1" * 2000, ["tau", "characters long"]),
    ],
)
def test_exact_model_tau_out_of_range(capsys, model_file, tau, needles):
    t0 = time.perf_counter()
    assert main(["exact", model_file({**EXAMPLE, "tau": tau})]) == 2
    assert time.perf_counter() - t0 < 10
    one_line_error(capsys, *needles)


@pytest.mark.parametrize("tau", ["1e-30", "1e30", "1/1000", "100"])
def test_exact_model_tau_at_the_ends_is_accurate(tau):
    """At the ends of the accepted τ range the guard digits cover the cancellation: 20 digits agree with 60."""
    m = FiniteModel.from_dict({**EXAMPLE, "tau": tau})
    res = m.evaluate([1, 2], digits=20, search=False)
    ref = m.evaluate([1, 2], digits=60, search=False)
    for r, q in zip(res["by_k"], ref["by_k"]):
        assert mpmath.almosteq(r["gap"], q["gap"], rel_eps=mpmath.mpf(10) ** -18)
        assert r["gap"] < 0
    assert Fraction(tau) == m.tau


def test_exact_deep_binary_and_latin1_files(capsys, model_file):
    """Rows 9–10: RecursionError; decode errors that did not name the file."""
    deep = model_file(("[" * 100_000 + "]" * 100_000).encode(), "deep.json")
    assert main(["exact", deep]) == 2
    one_line_error(capsys, "deep.json", "nests")
    binary = model_file(bytes(range(256)), "bin.json")
    assert main(["exact", binary]) == 2
    one_line_error(capsys, "bin.json", "not UTF-8", "0x80")
    latin = model_file('{"name": "café"}'.encode("latin-1"), "latin.json")
    assert main(["exact", latin]) == 2
    one_line_error(capsys, "latin.json", "0xe9")
    huge_int = model_file(('{"tau": ' + "1" * 5000 + "}").encode(), "int.json")
    assert main(["exact", huge_int]) == 2
    one_line_error(capsys, "int.json")


def test_exact_interrupt_keeps_finished_rows(monkeypatch):
    """Ctrl-C inside the enumeration: the finished rows are returned, flagged ``interrupted``."""
    m = FiniteModel.example()
    real = FiniteModel.exact_at
    calls = []

    def fake(self, k_, **kw):
        calls.append(k_)
        if k_ == 3:
            raise KeyboardInterrupt
        return real(self, k_, **kw)

    monkeypatch.setattr(FiniteModel, "exact_at", fake)
    res = m.evaluate(range(1, 6), digits=10)
    assert res["interrupted"] and [r["k"] for r in res["by_k"]] == [1, 2]


# ------------------------------------------------------------------------------------------ API rows


def _unit_rows(rng, *shape):
    x = rng.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def test_in_batch_float32_tiny_tau_is_not_wrong():
    """float32(1/τ) = inf at τ = 1e-40 made every float32 row 0.0 (and symmetric=True half the right value)."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(3)
    a, p = _unit_rows(rng, 6, 4), _unit_rows(rng, 6, 4)
    a32, p32 = a.astype(np.float32), p.astype(np.float32)
    for sym in (False, True):
        with pytest.warns(OutsideValidatedRangeWarning, match=r"tau = 1e-40 is outside \[0.001, 100\]"):
            ref = api.infonce_loss_in_batch(a32.astype(np.float64), p32.astype(np.float64), 1e-40, symmetric=sym)
        with pytest.warns(OutsideValidatedRangeWarning):
            got = api.infonce_loss_in_batch(a32, p32, 1e-40, symmetric=sym)
        big = ref > 1e30
        assert big.any()  # planted: rows of size 1/τ exist, so a 0.0 there is caught
        assert np.allclose(got[big], ref[big], rtol=1e-5)


@pytest.mark.parametrize("bad", ["False", "no", 0, None, 1])
def test_boolean_options_are_booleans(bad):
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(4)
    a, p = _unit_rows(rng, 3, 2), _unit_rows(rng, 3, 2)
    with pytest.raises(ValueError, match="symmetric must be True or False"):
        api.infonce_loss_in_batch(a, p, 1.0, symmetric=bad)
    with pytest.raises(ValueError, match="normalize must be True or False"):
        api.infonce_loss(a, p, _unit_rows(rng, 3, 2, 2), 1.0, normalize=bad)


@pytest.mark.parametrize("scale", [1e-200, 1e-310, 1e200])
def test_normalize_rows_near_the_float_range(scale):
    """[1e-200, 0, …] is not zero: it normalises to e₀ (its squared norm underflows); [1e200, …] overflows."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(5)
    a, p, ng = _unit_rows(rng, 2, 3), _unit_rows(rng, 2, 3), _unit_rows(rng, 2, 4, 3)
    ref = api.infonce_loss(a, p, ng, 0.5)
    got = api.infonce_loss(a * scale, p, ng * scale, 0.5, normalize=True)
    assert np.allclose(got, ref, rtol=1e-12, atol=1e-13)
    e0 = np.zeros((1, 4))
    e0[0, 0] = scale
    out = api.infonce_loss(e0, e0, np.stack([e0, -e0], axis=1), 1.0, normalize=True)
    assert out[0] == pytest.approx(float(mpmath.log((1 + mpmath.exp(-2)) / 2)), rel=1e-13)
    with pytest.raises(ValueError, match="is zero"):  # a zero row still is refused
        api.infonce_loss(0 * e0, e0, np.stack([e0, e0], axis=1), 1.0, normalize=True)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda api: api.risk(["a"]), "losses"),
        (lambda api: api.risk([[1.0], [2.0, 3.0]]), "losses"),
        (lambda api: api.infonce_loss_pooled(*_pool_args(), [[1, 2], [3]], 1.0), "index"),
        (lambda api: api.infonce_loss_pooled(*_pool_args(), [["a", "b"], ["c", "d"]], 1.0), "index"),
        (lambda api: api.log_mean_exp([[1.0], [2.0, 3.0]], [1.0]), "scores"),
    ],
)
def test_array_arguments_are_named(call, name):
    from infonce_bounds.numerics import api

    with pytest.raises(ValueError) as info:
        call(api)
    assert str(info.value).startswith(name), str(info.value)


def _pool_args():
    rng = np.random.default_rng(6)
    return _unit_rows(rng, 2, 3), _unit_rows(rng, 2, 3), _unit_rows(rng, 4, 3)


def _dcl_reference(a, p, ng, tau):
    """50-digit DCL loss log((1/k) Σ_j e^{z_j}), z_j = ⟨a, n_j − p⟩/τ from the same float inputs (compensated)."""
    with mpmath.workdps(50):
        out = []
        for i in range(len(a)):
            z = [
                mpmath.fsum(mpmath.mpf(x) * (mpmath.mpf(y) - mpmath.mpf(q)) for x, y, q in zip(a[i], n, p[i])) / tau
                for n in ng[i]
            ]
            m = max(z)
            out.append(m + mpmath.log1p(mpmath.fsum(mpmath.expm1(v - m) for v in z) / len(z)))
        return out


@pytest.mark.parametrize("tau", [100.0, 1.0, 1e300])
def test_small_dcl_losses_keep_relative_accuracy(monkeypatch, tau):
    """Near-zero DCL losses (negatives 1e-6 from the positive): were c − log k, 2 % off at τ = 100 and exactly 0
    at τ = 1e300; now within 1e-9 relative of a 50-digit reference (pooled layout too)."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(7)
    a = _unit_rows(rng, 3, 3)
    ng = np.stack([a] * 4, axis=1) + 1e-6 * rng.normal(size=(3, 4, 3))
    ng /= np.linalg.norm(ng, axis=-1, keepdims=True)
    ref = _dcl_reference(a, a, ng, tau)
    outside = pytest.warns(OutsideValidatedRangeWarning) if tau > 100 else contextlib.nullcontext()
    with outside:
        got = api.infonce_loss(a, a, ng, tau, variant="dcl")
    with outside:
        pooled = api.infonce_loss_pooled(a, a, ng.reshape(-1, 3), np.arange(12).reshape(3, 4), tau, variant="dcl")
    for out in (got, pooled):
        assert all(v != 0 and abs((v - r) / r) < 1e-9 for v, r in zip(out, ref))
    # planted: the uncompensated closing form fails the same check
    monkeypatch.setattr(api, "SMALL_DCL", 0.0)
    with outside:
        plain = api.infonce_loss(a, a, ng, tau, variant="dcl")
    assert not all(v != 0 and abs((v - r) / r) < 1e-9 for v, r in zip(plain, ref))


def _batch_dcl_reference(a, p, tau):
    """50-digit in-batch DCL rows: anchor i, negatives p_j (j ≠ i), from the same float inputs."""
    B = len(a)
    ng = np.stack([np.delete(p, i, axis=0) for i in range(B)])
    return _dcl_reference(a, p, ng, tau)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("tau", [100.0, 1.0])
def test_small_in_batch_dcl_losses_keep_relative_accuracy(monkeypatch, tau, dtype):
    """The in-batch DCL loss near 0 (τ = 100, s_j = s⁺ + O(1e-12); float32: O(1e-8)) was c − log(B − 1), good only to 1e-16·log B
    absolutely; now within 1e-9 relative of a 50-digit reference, rows and (symmetric) columns."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(8)
    e = _unit_rows(rng, 1, 5)
    a = e + (1e-12 if dtype == np.float64 else 1e-4) * rng.normal(size=(6, 5))  # float32: above its rounding
    a = (a / np.linalg.norm(a, axis=-1, keepdims=True)).astype(dtype)
    p = a.copy()
    a64, p64 = a.astype(np.float64), p.astype(np.float64)
    rows_ref = _batch_dcl_reference(a64, p64, tau)
    cols_ref = _batch_dcl_reference(p64, a64, tau)
    assert all(0 < abs(r) < 1e-6 for r in rows_ref)  # the case is the near-zero one
    got = api.infonce_loss_in_batch(a, p, tau, variant="dcl")
    assert all(v != 0 and abs((v - r) / r) < 1e-9 for v, r in zip(got, rows_ref))
    sym = api.infonce_loss_in_batch(a, p, tau, variant="dcl", symmetric=True)
    sym_ref = [(r + c) / 2 for r, c in zip(rows_ref, cols_ref)]
    assert all(abs((v - r) / r) < 1e-9 for v, r in zip(sym, sym_ref))
    # planted: the uncompensated closing form fails the same check
    monkeypatch.setattr(api, "SMALL_DCL", 0.0)
    plain = api.infonce_loss_in_batch(a, p, tau, variant="dcl")
    assert not all(v != 0 and abs((v - r) / r) < 1e-9 for v, r in zip(plain, rows_ref))


def test_in_batch_dcl_compensation_works_block_by_block(monkeypatch):
    """More near-zero rows than one block of differences holds: every block is recomputed (BLOCK_ENTRIES shrunk)."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(9)
    a = _unit_rows(rng, 1, 3) + 1e-10 * rng.normal(size=(9, 3))
    a /= np.linalg.norm(a, axis=-1, keepdims=True)
    monkeypatch.setattr(api, "BLOCK_ENTRIES", 2 * 9 * 3)  # two rows per block
    got = api.infonce_loss_in_batch(a, a, 100.0, variant="dcl")
    ref = _batch_dcl_reference(a, a, 100.0)
    assert all(abs((v - r) / r) < 1e-9 for v, r in zip(got, ref))


# ------------------------------------------------------------------------------------------ τ outside [1e-3, 1e2]


def _api_calls(a, p, ng, tau):
    from infonce_bounds.numerics import api

    k = ng.shape[1]
    idx = np.arange(a.shape[0] * k).reshape(-1, k)
    return {
        "infonce_loss": lambda: api.infonce_loss(a, p, ng, tau, "standard"),
        "infonce_risk": lambda: api.infonce_risk(a, p, ng, tau).mean,
        "infonce_loss_pooled": lambda: api.infonce_loss_pooled(a, p, ng.reshape(-1, a.shape[1]), idx, tau, "infonce"),
        "infonce_loss_in_batch": lambda: api.infonce_loss_in_batch(a, p, tau, symmetric=True),
        "softmax_weights": lambda: api.softmax_weights(a, ng, tau),
        "search_cross_entropy": lambda: api.search_cross_entropy(a, ng, np.ones(ng.shape[:2]), tau),
        "infonce_gradient": lambda: api.infonce_gradient(a, p, ng, tau).anchors,
    }


@pytest.mark.parametrize("tau", [1e-5, 5e-4, 200.0, 1e6])
def test_tau_outside_the_validated_range_warns_and_is_right(tau):
    """Row 'infonce_loss(..., tau=1e300)': no warning outside the stated range. Now every API function warns
    (a specific class, naming the range validated) and the value still matches a 50-digit reference."""
    rng = np.random.default_rng(10)
    a, p, ng = _unit_rows(rng, 3, 4), _unit_rows(rng, 3, 4), _unit_rows(rng, 3, 5, 4)
    for name, call in _api_calls(a, p, ng, tau).items():
        with pytest.warns(OutsideValidatedRangeWarning, match=r"outside \[0.001, 100\]") as rec:
            out = np.asarray(call())
        assert rec[0].filename == __file__, (name, rec[0].filename)  # attributed to the caller's line
        assert np.all(np.isfinite(out)), name
    from infonce_bounds.numerics import api

    with pytest.warns(OutsideValidatedRangeWarning):
        got = api.infonce_loss(a, p, ng, tau, "standard")
    with mpmath.workdps(50):
        for i in range(3):
            sp_ = mpmath.fsum(mpmath.mpf(x) * mpmath.mpf(y) for x, y in zip(a[i], p[i]))
            tot = mpmath.fsum(
                mpmath.exp((mpmath.fsum(mpmath.mpf(x) * mpmath.mpf(y) for x, y in zip(a[i], n)) - sp_) / tau)
                for n in ng[i]
            )
            ref = mpmath.log1p(tot)
            assert abs(got[i] - ref) <= 1e-12 * (abs(ref) + 2 / tau)


@pytest.mark.parametrize("tau", [1e-3, 0.5, 100.0])
def test_tau_inside_the_validated_range_is_silent(tau):
    """Planted: the warning is not raised inside [1e-3, 1e2] (pytest runs warnings as errors)."""
    rng = np.random.default_rng(11)
    a, p, ng = _unit_rows(rng, 2, 3), _unit_rows(rng, 2, 3), _unit_rows(rng, 2, 2, 3)
    for call in _api_calls(a, p, ng, tau).values():
        call()


def test_tau_whose_exponent_overflows_is_refused():
    """τ < 2/DBL_MAX: the exponent 2/τ of a loss is not a float; refused naming τ (was inf or nan)."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(12)
    a, ng = _unit_rows(rng, 2, 3), _unit_rows(rng, 2, 2, 3)
    with pytest.raises(ValueError, match=r"tau must be ≥ 1.113e-308.*got 1e-308"):
        api.infonce_loss(a, -a, ng, 1e-308)
    with pytest.warns(OutsideValidatedRangeWarning):  # just above: huge but finite, ≈ (s_j − s⁺)/τ
        out = api.infonce_loss(a, -a, ng, 2e-308, "standard")
    assert np.all(np.isfinite(out)) and np.all(out > 1e307)


def test_gradient_that_would_underflow_or_overflow_is_refused():
    """A float64 gradient at τ = 1e300 has entries ≈ 1e-300/(n k): subnormal, refused; a float32 gradient at
    τ = 1e-40 overflows float32, refused naming τ (was inf)."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(13)
    a, p, ng = _unit_rows(rng, 4, 3), _unit_rows(rng, 4, 3), _unit_rows(rng, 4, 300, 3)
    idx = np.arange(1200).reshape(4, 300)
    with pytest.warns(OutsideValidatedRangeWarning), pytest.raises(ValueError, match="tau = 1e.300 is too large"):
        api.infonce_gradient(a, p, ng, 1e300)
    with pytest.warns(OutsideValidatedRangeWarning), pytest.raises(ValueError, match="tau = 1e.300 is too large"):
        api.infonce_gradient_pooled(a, p, ng.reshape(-1, 3), idx, 1e300)
    with pytest.warns(OutsideValidatedRangeWarning), pytest.raises(ValueError, match="tau = 1e.300 is too large"):
        api.infonce_gradient_in_batch(a, p, 1e300)
    f32 = [x.astype(np.float32) for x in (a, p, ng)]
    with pytest.warns(OutsideValidatedRangeWarning), pytest.raises(ValueError, match="tau = 1e-40 is too small"):
        api.infonce_gradient(*f32, 1e-40)
    with pytest.warns(OutsideValidatedRangeWarning), pytest.raises(ValueError, match="tau = 1e-40 is too small"):
        api.infonce_gradient_in_batch(f32[0], f32[1], 1e-40)
    # planted: the same float64 gradient at τ = 1e280 is representable and returned (entries ≈ 1e-280/(n k))
    with pytest.warns(OutsideValidatedRangeWarning):
        g = api.infonce_gradient(a, p, ng, 1e280)
    assert np.all(np.isfinite(g.anchors)) and np.max(np.abs(g.negatives)) > 1e-286


# ------------------------------------------------------------------------------------------ dtypes and layouts


def _peak_bytes(call):
    """Peak bytes numpy allocated (numpy reports its buffers to tracemalloc) during ``call()``, and its result."""
    import tracemalloc

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        out = call()
        return tracemalloc.get_traced_memory()[1] - base, out
    finally:
        tracemalloc.stop()


def _odd_negatives(ng):
    """The same values as float32, in Fortran order, as a strided view, with reversed (negative) strides."""
    wide = np.empty((*ng.shape[:-1], 2 * ng.shape[-1]))
    wide[..., ::2] = ng
    return {
        "float32": ng.astype(np.float32),
        "fortran": np.asfortranarray(ng),
        "strided": wide[..., ::2],
        "reversed": np.ascontiguousarray(ng[::-1])[::-1],
        "float32-fortran": np.asfortranarray(ng.astype(np.float32)),
    }


def test_mixed_dtypes_and_layouts_are_read_in_place():
    """Row 'float32 negatives with float64 anchors; Fortran-ordered input: silent full copy (1.5 GiB → 4.9 GB)'.
    Every per-anchor and pooled function reads the big array as given: the extra memory of a call stays below
    a quarter of the negatives' size (a float64 copy of them would be 1× or 2×: planted below), no
    InputCopyWarning (pytest runs warnings as errors), and the values match the C-ordered float64 call on the
    same numbers."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(14)
    n, k, d = 64, 128, 32  # negatives: 2 MiB in float64
    a, p, ng = _unit_rows(rng, n, d), _unit_rows(rng, n, d), _unit_rows(rng, n, k, d)
    idx = np.arange(n * k).reshape(n, k)
    w = rng.random((n, k))
    for name, odd in _odd_negatives(ng).items():
        same = odd.astype(np.float64)  # C-ordered float64 of the same values
        pool = odd.reshape(-1, d)  # made here, outside the measured call (a view, except for "reversed")
        calls = {
            "infonce_loss": (lambda x: api.infonce_loss(a, p, x, 0.1, "standard")),
            "infonce_loss dcl": (lambda x: api.infonce_loss(a, p, x, 0.1)),
            "infonce_gradient": (lambda x: api.infonce_gradient(a, p, x, 0.1).anchors),
            "similarities": (lambda x: api.similarities(a, p, x)[1]),
            "softmax_weights": (lambda x: api.softmax_weights(a, x, 0.1)),
            "search_cross_entropy": (lambda x: api.search_cross_entropy(a, x, w, 0.1)),
        }
        if name in ("float32", "strided", "reversed"):  # rows of the pool stay contiguous enough to gather
            calls["infonce_loss_pooled"] = lambda x: api.infonce_loss_pooled(a, p, x, idx, 0.1)
        for fname, call in calls.items():
            arg, arg64 = (odd, same) if fname != "infonce_loss_pooled" else (pool, same.reshape(-1, d))
            call(arg)  # compiles this dtype/layout's specialisation first (compiling allocates too)
            peak, got = _peak_bytes(lambda call=call, arg=arg: call(arg))
            ref = call(arg64)
            # outputs are not copies: the result (twice, for temporaries of its size), and the gradient's
            # ∂/∂negatives, an array of the negatives' own size and dtype
            extra = 2 * got.nbytes + (odd.nbytes + 2 * a.nbytes if fname == "infonce_gradient" else 0)
            assert peak - extra < ng.nbytes / 4, (name, fname, peak, ng.nbytes)
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12, err_msg=f"{name} {fname}")
    # planted: the measurement sees a copy of the negatives (what the old boundary made)
    peak, _ = _peak_bytes(lambda: np.ascontiguousarray(np.asfortranarray(ng)))
    assert not peak < ng.nbytes / 4


def test_copies_that_remain_are_announced():
    """What is still copied says so (InputCopyWarning: the argument, its size, why): a Fortran-ordered or
    float32 (n, d) anchors array beside float64 arrays, a Fortran-ordered pool (its rows are gathered), the
    float32 half of a mixed in-batch pair. In-batch Fortran order is read by BLAS as it is (no warning)."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(15)
    a, p, ng = _unit_rows(rng, 6, 4), _unit_rows(rng, 6, 4), _unit_rows(rng, 6, 3, 4)
    ref = api.infonce_loss(a, p, ng, 0.5)
    with pytest.warns(InputCopyWarning, match=r"^anchors \(Fortran-ordered float64 array of shape \(6, 4\)\).*MiB"):
        got = api.infonce_loss(np.asfortranarray(a), p, ng, 0.5)
    np.testing.assert_allclose(got, ref, rtol=1e-14)
    with pytest.warns(InputCopyWarning, match=r"^positives \(C-ordered float32 .* float64 .*another array"):
        api.infonce_loss(a, p.astype(np.float32), ng, 0.5)
    idx = np.arange(18).reshape(6, 3)
    with pytest.warns(InputCopyWarning, match=r"^pool \(Fortran-ordered .*gather"):
        got = api.infonce_loss_pooled(a, p, np.asfortranarray(ng.reshape(-1, 4)), idx, 0.5)
    np.testing.assert_allclose(got, ref, rtol=1e-14)
    with pytest.warns(InputCopyWarning, match=r"^anchors \(C-ordered float32 .*one BLAS product"):
        api.infonce_loss_in_batch(a.astype(np.float32), p, 0.5)
    ib = api.infonce_loss_in_batch(a, p, 0.5)
    np.testing.assert_allclose(api.infonce_loss_in_batch(np.asfortranarray(a), np.asfortranarray(p), 0.5), ib)
    # int32 and Fortran-ordered index arrays are read as given (no copy, no warning)
    got = api.infonce_loss_pooled(a, p, ng.reshape(-1, 4), np.asfortranarray(idx.astype(np.int32)), 0.5)
    np.testing.assert_allclose(got, ref, rtol=1e-14)


def test_mixed_float32_negatives_match_a_50_digit_reference():
    """float32 negatives with float64 anchors are widened per product (float64 sums), not rounded to float32
    similarities: the loss matches 50 digits of the same numbers to 1e-12 (planted: an all-float32 call does not)."""
    from infonce_bounds.numerics import api

    rng = np.random.default_rng(16)
    a, p = _unit_rows(rng, 4, 8), _unit_rows(rng, 4, 8)
    ng32 = _unit_rows(rng, 4, 5, 8).astype(np.float32)
    ref = _dcl_reference(a, p, ng32.astype(np.float64), 0.05)
    got = api.infonce_loss(a, p, ng32, 0.05)
    assert all(abs(v - r) < 1e-12 * max(1, abs(r)) for v, r in zip(got, ref))
    lo = api.infonce_loss(a.astype(np.float32), p.astype(np.float32), ng32, 0.05)
    assert not all(abs(v - r) < 1e-12 * max(1, abs(r)) for v, r in zip(lo, ref))


# ------------------------------------------------------------------------------------------ CLI rows without their own test yet


def test_negative_seed_names_the_option(tmp_path, capsys):
    """Row '--seed -1': the error did not name --seed."""
    assert main(["experiment", "rate", "--quick", "--seed", "-1", "--out", str(tmp_path)]) == 2
    one_line_error(capsys, "--seed", "-1", "seed ∈ [0, 2^63 − 1]")


def test_compare_plot_path_is_the_file_written(tmp_path, capsys):
    """Row 'compare --plot DIR / --plot name': wrote DIR.png / name.png but reported the path without .png;
    '--plot /etc/hostname/c.png' said only "File exists"."""
    from infonce_bounds.numerics.commands.compare import plot_path

    assert plot_path(str(tmp_path)) == tmp_path / "compare.png"
    assert plot_path(str(tmp_path / "sub") + "/") == tmp_path / "sub" / "compare.png"
    assert plot_path(str(tmp_path / "name")) == tmp_path / "name.png"
    assert plot_path(str(tmp_path / "x.PNG")) == tmp_path / "x.PNG"
    assert main(["compare", "--k", "1,4", "--plot", str(tmp_path / "name")]) == 0
    out = capsys.readouterr()
    assert str(tmp_path / "name.png") in out.out + out.err and (tmp_path / "name.png").is_file()
    assert not (tmp_path / "name").exists()
    afile = tmp_path / "hostname"
    afile.write_text("x")
    assert main(["compare", "--k", "1,4", "--plot", str(afile / "c.png")]) == 2
    one_line_error(capsys, "--plot", "is a file, not a directory")


def test_temperature_grid_at_the_low_end_of_the_stated_range(tmp_path, capsys):
    """Row 'temperature --taus 0.001': overflow warning, then a TypeError traceback. Now τ = 0.001 runs (small
    sizes, ~20 s) with finite measured gaps, and just outside the stated range it is refused naming --taus."""
    argv = ["experiment", "temperature", "--taus", "0.001", "--seeds", "1", "--n", "40", "--steps", "3"]
    assert main([*argv, "--workers", "1", "--out", str(tmp_path)]) == 0
    assert "Traceback" not in capsys.readouterr().err
    row = json.loads((tmp_path / "temperature.json").read_text())["per_tau"]["0.001"]
    assert math.isfinite(row["bias_constant"]["measured_max_k_times_gap"])
    assert main(["experiment", "temperature", "--taus", "0.0009", "--out", str(tmp_path)]) == 2
    one_line_error(capsys, "--taus", "0.0009", "τ ∈ [1e-3, 1e2]")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fortran_negatives_are_screened_in_their_own_pass(dtype):
    """The Fortran-order loss pass (``per_anchor.checked_loss_kernel_t``, blocks of anchors across a block
    boundary) screens the negatives like the C-order one: a NaN or a non-unit row is named exactly; clean
    input gives the C-order losses, every variant (planted: a shifted loss would fail the same comparison)."""
    from infonce_bounds.numerics import api
    from infonce_bounds.numerics.per_anchor import FORTRAN_BLOCK

    rng = np.random.default_rng(17)
    n = FORTRAN_BLOCK + 5
    a, p = _unit_rows(rng, n, 6).astype(dtype), _unit_rows(rng, n, 6).astype(dtype)
    ng = _unit_rows(rng, n, 4, 6).astype(dtype)
    for var in ("dcl", "standard", "infonce"):
        ref = api.infonce_loss(a, p, ng, 0.2, var)
        got = api.infonce_loss(a, p, np.asfortranarray(ng), 0.2, var)
        tol = 1e-13 if dtype == np.float64 else 1e-5
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
        assert not np.allclose(got + 10 * tol, ref, rtol=tol, atol=tol)
    for bad_value, needle in ((np.nan, "row (66, 1) holds NaN"), (1.5, "row (66, 1) has norm")):
        bad = np.asfortranarray(ng.copy())
        bad[66, 1, 3] = bad_value
        with pytest.raises(ValueError, match=re.escape(needle)):
            api.infonce_loss(a, p, bad, 0.2)
