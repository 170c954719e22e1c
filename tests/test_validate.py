"""Every bad input gives a ValueError naming the argument (and its shape/value and what is allowed),
raised at the Python boundary: no numba traceback, no wrong number."""

from __future__ import annotations

import numpy as np
import pytest

from infonce_bounds import numerics


def unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


@pytest.fixture
def good(rng):
    n, k, d = 3, 4, 5
    return unit(rng.standard_normal((n, d))), unit(rng.standard_normal((n, d))), unit(rng.standard_normal((n, k, d)))


def _raises(fn, *words):
    with pytest.raises(ValueError) as info:
        fn()
    msg = str(info.value)
    assert "numba" not in msg.lower() and "Traceback" not in msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


def test_good_input_passes(good):
    a, p, n = good
    assert numerics.infonce_loss(a, p, n, 0.1).shape == (3,)


@pytest.mark.parametrize("tau", (0, -1.0, float("nan"), float("inf"), "0.1", None, True, 1e-320))
def test_bad_tau(good, tau):
    a, p, n = good
    _raises(lambda: numerics.infonce_loss(a, p, n, tau), "tau", "> 0")


def test_bad_variant(good):
    a, p, n = good
    _raises(lambda: numerics.infonce_loss(a, p, n, 0.1, variant="mean"), "variant", "'mean'", "'dcl'", "'infonce'")


def test_mismatched_shapes(good):
    a, p, n = good
    _raises(lambda: numerics.infonce_loss(a, p[:2], n, 0.1), "positives", "(2, 5)")
    _raises(lambda: numerics.infonce_loss(a, p, n[:, :, :4], 0.1), "negatives", "d = 5")
    _raises(lambda: numerics.infonce_loss(a, p, n[0], 0.1), "negatives", "(n, k, d)")
    _raises(lambda: numerics.infonce_loss(a[0], p, n, 0.1), "anchors", "(n, d)")


def test_zero_negatives(good):
    a, p, n = good
    _raises(lambda: numerics.infonce_loss(a, p, n[:, :0], 0.1), "negatives", "k = 0", "k ≥ 1")


def test_nan_and_inf(good):
    a, p, n = good
    n = n.copy()
    n[1, 2, 3] = np.nan
    _raises(lambda: numerics.infonce_loss(a, p, n, 0.1), "negatives", "(1, 2)", "NaN or inf")
    a = a.copy()
    a[2, 0] = np.inf
    _raises(lambda: numerics.infonce_loss(a, p, good[2], 0.1), "anchors", "(2,)", "NaN or inf")


def test_non_unit_rows_and_normalize(good):
    a, p, n = good
    _raises(lambda: numerics.infonce_loss(2 * a, p, n, 0.1), "anchors", "unit rows", "normalize=True")
    np.testing.assert_allclose(
        numerics.infonce_loss(2 * a, p, 3 * n, 0.1, normalize=True), numerics.infonce_loss(a, p, n, 0.1), rtol=1e-13
    )
    z = a.copy()
    z[0] = 0
    _raises(lambda: numerics.infonce_loss(z, p, n, 0.1, normalize=True), "anchors", "zero")


@pytest.mark.parametrize("dtype", (np.int64, np.int32, bool, np.complex128, np.float16))
def test_integer_and_other_dtypes_refused(good, dtype):
    a, p, n = good
    _raises(
        lambda: numerics.infonce_loss(a.astype(dtype), p, n, 0.1), "anchors", "float64 or float32", str(np.dtype(dtype))
    )


def test_non_contiguous_converted(good):
    a, p, n = good
    a_f = np.asfortranarray(a)
    n_strided = np.repeat(n, 2, axis=2)[:, :, ::2]  # a strided view holding exactly n
    assert not a_f.flags.c_contiguous and not n_strided.flags.c_contiguous
    # the strided negatives are read in place; the Fortran-ordered (n, d) anchors are copied, and say so
    with pytest.warns(numerics.validate.InputCopyWarning, match="^anchors"):
        got = numerics.infonce_loss(a_f, p, n_strided, 0.1)
    # not bit for bit: a strided row's dot product is split into vector lanes differently (≤ a few ulp)
    np.testing.assert_allclose(got, numerics.infonce_loss(a, p, n, 0.1), rtol=1e-15, atol=0)


def test_mixed_dtypes_promote_to_float64(good):
    a, p, n = good
    with pytest.warns(numerics.validate.InputCopyWarning, match="^anchors .*float32"):
        out = numerics.infonce_loss(a.astype(np.float32), p, n, 0.1)
    assert out.dtype == np.float64 and np.all(np.isfinite(out))


def test_pooled_index_errors(good, rng):
    a, p, _ = good
    pool = unit(rng.standard_normal((10, 5)))
    idx = rng.integers(0, 10, (3, 4))
    assert numerics.infonce_loss_pooled(a, p, pool, idx, 0.1).shape == (3,)
    bad = idx.copy()
    bad[1, 2] = 10
    _raises(lambda: numerics.infonce_loss_pooled(a, p, pool, bad, 0.1), "index", "[0, 10)", "[1, 2]", "= 10")
    bad[1, 2] = -1
    _raises(lambda: numerics.infonce_loss_pooled(a, p, pool, bad, 0.1), "index", "= -1")
    _raises(lambda: numerics.infonce_loss_pooled(a, p, pool, idx.astype(float), 0.1), "index", "integer")
    _raises(lambda: numerics.infonce_loss_pooled(a, p, pool, idx[:, :0], 0.1), "index", "k ≥ 1")
    _raises(lambda: numerics.infonce_loss_pooled(a, p, pool, idx[:2], 0.1), "index", "(3, k)")
    _raises(lambda: numerics.infonce_loss_pooled(a, p, pool[:, :4], idx, 0.1), "pool", "d = 5")


def test_in_batch_errors(good):
    a, p, _ = good
    _raises(lambda: numerics.infonce_loss_in_batch(a[:1], p[:1], 0.1), "anchors", "B ≥ 2")
    _raises(lambda: numerics.infonce_loss_in_batch(a, p[:2], 0.1), "positives")


def test_other_outputs_errors(good, rng):
    a, p, n = good
    z = rng.uniform(-1, 1, (3, 4))
    _raises(lambda: numerics.log_mean_exp(z, [1.0, -2.0]), "b ", "> 0")
    _raises(lambda: numerics.log_mean_exp(z, []), "b must")
    zn = z.copy()
    zn[0, 1] = np.nan
    _raises(lambda: numerics.log_mean_exp(zn, [1.0]), "scores", "finite", "[0, 1]")
    _raises(lambda: numerics.data_continuity_factor(z, 5.0, 0.1), "gamma", "≥ 1/tau = 10")
    _raises(lambda: numerics.data_continuity_factor(z, tau=0.1, beta=0.5), "beta", "≥ 1")
    _raises(lambda: numerics.data_continuity_factor(z, 20.0, 0.1, beta=2.0), "exactly one of gamma", "beta")
    _raises(lambda: numerics.data_continuity_factor(z, tau=0.1), "exactly one of gamma")
    _raises(lambda: numerics.search_cross_entropy(a, n, np.ones((3, 5)), 0.1), "ideal_weights", "(3, 4)")
    _raises(lambda: numerics.search_cross_entropy(a, n, -np.ones((3, 4)), 0.1), "ideal_weights", "≥ 0")
    w0 = np.ones((3, 4))
    w0[2] = 0
    _raises(lambda: numerics.search_cross_entropy(a, n, w0, 0.1), "ideal_weights", "row 2", "sums to 0")
    _raises(lambda: numerics.risk([]), "losses")


def test_parallel_validation_path_on_large_array(rng):
    """Arrays at or above SERIAL_BELOW entries are checked by the threaded kernel: same errors."""
    from infonce_bounds.numerics import validate

    n, k, d = 64, 64, 64
    assert n * k * d >= validate.SERIAL_BELOW
    a = unit(rng.standard_normal((n, d)))
    negs = unit(rng.standard_normal((n, k, d)))
    negs[10, 20, 30] = np.inf
    _raises(lambda: numerics.infonce_loss(a, a, negs, 0.1), "negatives", "(10, 20)", "NaN or inf")
    negs[10, 20] = 0.5
    _raises(lambda: numerics.infonce_loss(a, a, negs, 0.1), "negatives", "(10, 20)", "norm 4")


@pytest.mark.parametrize("dtype", (np.float64, np.float32))
def test_negatives_screen_and_exact_recheck(rng, dtype):
    """The loss pass screens | ‖n‖² − 1 | > tol; flagged anchors are re-checked exactly, so the screen's
    margin neither lets a bad row through nor refuses a good one, and the error names the same row as
    the full check (a non-finite row first, wherever it is; the last, partial group of anchors too)."""
    from infonce_bounds.numerics.validate import UNIT_TOL

    tol = UNIT_TOL[np.dtype(dtype)]
    n, k, d = 7, 5, 8  # 7 anchors: one full group of STREAMS = 4 and a partial one
    a = unit(rng.standard_normal((n, d))).astype(dtype)
    negs = unit(rng.standard_normal((n, k, d)))
    ref = numerics.infonce_loss(a, a, negs.astype(dtype), 0.1)
    inside = negs.copy()
    inside[6, 4] *= 1 + 0.9 * tol  # | ‖n‖² − 1 | ≈ 1.8 tol: flagged by the screen, passes the exact check
    np.testing.assert_allclose(numerics.infonce_loss(a, a, inside.astype(dtype), 0.1), ref, rtol=0, atol=1e-3)
    outside = negs.copy()
    outside[6, 4] *= 1 + 1.05 * tol  # | ‖n‖² − 1 | ≈ 2.1 tol: a screen looser than 2 tol would miss it
    _raises(lambda: numerics.infonce_loss(a, a, outside.astype(dtype), 0.1), "negatives", "(6, 4)", "unit rows")
    both = outside.copy()
    both[1, 0] *= 3.0
    both[5, 2, 1] = np.nan  # non-finite beats non-unit, as in the full check
    _raises(lambda: numerics.infonce_loss(a, a, both.astype(dtype), 0.1), "negatives", "(5, 2)", "NaN or inf")
    huge = negs.copy()
    huge[3, 1] = 1e200 if dtype == np.float64 else 1e30  # finite entries whose ‖n‖² overflows: not unit
    _raises(lambda: numerics.infonce_loss(a, a, huge.astype(dtype), 0.1), "negatives", "(3, 1)", "unit rows")


def test_grouped_loss_kernels_are_bit_identical_to_one_anchor_at_a_time(rng):
    """The STREAMS grouping changes the memory access order only: every anchor's value is bit-identical
    to the single-anchor computation (``row_logit``), for n not a multiple of the group size."""
    from infonce_bounds.numerics.per_anchor import STREAMS, checked_loss_kernel, close_loss, loss_kernel, row_logit

    n, k, d = 4 * STREAMS + 3, 9, 16
    a = unit(rng.standard_normal((n, d)))
    p = unit(rng.standard_normal((n, d)))
    negs = unit(rng.standard_normal((n, k, d)))
    one = np.array([close_loss(row_logit(a[i], p[i], negs[i], 0.05, np.empty(k))[0], k, 1) for i in range(n)])
    out, out2, screen = np.empty(n), np.empty(n), np.empty(n)
    loss_kernel(a, p, negs, 0.05, 1, out)
    checked_loss_kernel(a, p, negs, 0.05, 1, out2, screen)
    assert np.array_equal(out, one) and np.array_equal(out2, one)
    assert np.all(screen < 1e-14)


# --- issue 28: one table of parameter ranges (numerics.params), read by the CLI, the Python API and the README


def test_readme_parameter_table_is_the_table():
    import pathlib

    from infonce_bounds.numerics import params

    readme = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split("<!-- parameter-table:start -->\n")[1].split("<!-- parameter-table:end -->")[0]
    assert block.strip() == params.markdown_table().strip(), "README: paste params.markdown_table()"


def _outside(p):
    """Values just outside ``p``'s range (and one that is no number), as text."""
    from fractions import Fraction

    out = ["abc"]
    if p.lo is not None:
        lo = Fraction(p.lo)
        out.append(str(lo - 1) if p.integer else (f"{float(lo) * 0.999:.6g}" if lo > 0 else "-1e-9"))
    if p.hi is not None:
        hi = Fraction(p.hi)
        out.append(str(int(hi) + 1) if p.integer else (f"{float(hi) * 1.001:.6g}" if hi != 1 else "1"))
    return out


_BOUND_NAMES = ("tau", "k", "gamma", "beta", "n", "delta", "lipschitz", "params", "radius", "digits")


@pytest.mark.parametrize("name", _BOUND_NAMES)
def test_out_of_range_is_refused_alike_by_cli_and_python(capsys, name):
    """Every value outside a parameter's range: exit 2 with one line naming ``--name`` and the table's allowed text
    from ``constants``; a ValueError naming ``name`` (never ``--name``) and the same text from Python."""
    import infonce_bounds
    from infonce_bounds.numerics import params
    from infonce_bounds.numerics.cli import main

    p = params.PARAMETERS[name]
    for bad in _outside(p):
        assert main(["constants", f"--{name}", bad]) == 2, (name, bad)
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and f"--{name} = " in err and p.allowed() in err, err
        with pytest.raises(ValueError) as exc:
            infonce_bounds.constants(**{name: bad})
        msg = str(exc.value)
        assert msg.startswith(f"{name} = ") and "--" not in msg and p.allowed() in msg, msg


@pytest.mark.parametrize("name", [n for n in _BOUND_NAMES if n not in ("k", "digits")])
def test_constants_and_compare_refuse_the_same_values(capsys, name):
    from infonce_bounds.numerics import params
    from infonce_bounds.numerics.cli import main

    for bad in _outside(params.PARAMETERS[name]):
        assert main(["constants", f"--{name}", bad]) == 2
        one = capsys.readouterr().err.split("error: ", 1)[1]
        assert main(["compare", "--no-plot", "--k", "2", f"--{name}", bad]) == 2
        assert capsys.readouterr().err.split("error: ", 1)[1] == one  # the same message, word for word


@pytest.mark.parametrize("text", ["1", "256", "1e12", "+7", "1E3", "1e300", "1e301", "0", "2.5", "1.5e3", "-3", "k"])
def test_one_k_grammar_for_constants_and_compare(text):
    """`--k 1e12` was accepted by constants and refused by compare: a single k is read by one grammar and range."""
    from infonce_bounds.numerics import params
    from infonce_bounds.numerics.klist import parse_k_list

    def ok(fn):
        try:
            return fn()
        except ValueError:
            return "refused"

    single = ok(lambda: int(params.read("k", text, "--k")))
    listed = ok(lambda: parse_k_list(text, max_k=params.integer_token(params.PARAMETERS["k"].hi)).tolist()[0])
    assert single == listed, (text, single, listed)


@pytest.mark.parametrize(
    "corner",
    [
        {"tau": "1e-3"},
        {"tau": "1e2", "k": "1e300"},
        {"tau": "1e2", "n": "1e300", "lipschitz": "1e-300", "radius": "1e-300", "params": "1"},
        {"tau": "1e2", "n": "1", "lipschitz": "1e300", "radius": "1e300", "params": "1e300", "delta": "1e-300"},
        {"tau": "1e-3", "gamma": "1e300", "k": "1e300", "beta": "1e300"},
        {"lipschitz": "0", "radius": "0", "delta": "0.999999999"},
    ],
)
def test_corners_of_the_allowed_ranges_are_certified(corner):
    """What the table allows is certified: every row at the corners (a value below the float range, 8.9e-750 at
    n = 1e300 and τ = 100, failed the float check before certify knew underflow)."""
    from infonce_bounds.numerics import bound_constants as B

    data, _ = B.compute({**B.DEFAULTS, **corner})
    assert all(r["status"] == "certified" or r["name"] == "holder_exponent" for r in data["rows"])


def test_certify_underflow_is_checked_not_waved_through():
    """Planted: a formula whose float route underflows to 0 although its value fits a float still fails."""
    import sympy as sp

    from infonce_bounds.numerics.certify import CertificationError, certify

    x = sp.Symbol("x", positive=True)
    tiny = certify(sp.exp(-x), {x: 2000})  # e^{-2000}: below the float range, float 0.0: consistent
    assert tiny.underflow and tiny.float_in_interval and tiny.float_value == 0.0
    y = sp.Symbol("y", positive=True)
    with pytest.raises(CertificationError):  # e^{-1000}·1e300 ≈ 5e-135 fits a float; the float route gives 0.0
        certify(sp.exp(-x) * y, {x: 1000, y: 10**300})


# --- issue 28: broadcast (zero-stride) inputs are read in place; a copy is announced or, too large, refused


def _units(rng, *shape):
    x = rng.normal(size=shape)
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def test_broadcast_negatives_are_not_materialised():
    """10⁷ negatives that are one row repeated (np.broadcast_to): checked and normalised on the distinct row, read in
    place; before, normalize=True made 550 MiB of temporaries and prop4_bound copied them (10⁹: out of memory)."""
    import tracemalloc
    import warnings

    import infonce_bounds as ib

    rng = np.random.default_rng(5)
    n, k, d = 100, 100_000, 4
    a, p, row = _units(rng, n, d), _units(rng, n, d), _units(rng, d)
    ng = np.broadcast_to(row, (n, k, d))
    dense = np.broadcast_to(row, (3, 5, d)).copy()
    same = lambda x, y: np.testing.assert_allclose(x, y, rtol=1e-13, atol=1e-15)  # noqa: E731 - the dot's rounding
    for norm in (False, True):  # the values of the materialised array, on a small case (and compiled first)
        same(
            ib.infonce_loss(a[:3], p[:3], np.broadcast_to(row, (3, 5, d)), 0.5, normalize=norm),
            ib.infonce_loss(a[:3], p[:3], dense, 0.5, normalize=norm),
        )
    small = ((a[:3], p[:3], np.broadcast_to(row, (3, 5, d))), (p[:3], a[:3], np.broadcast_to(row, (3, 5, d))))
    same(ib.prop4_bound(*small, 0.5, 2.0).ours, ib.prop4_bound(*((x, y, dense) for x, y, _ in small), 0.5, 2.0).ours)
    # an eighth of the materialised negatives (320 MB): what remains are per-row temporaries (a few rows' k
    # negatives re-read in a compensated form); before, normalize=True peaked at 550 MB and prop4_bound at 660 MB
    budget = n * k * d * 8 // 8
    calls = (
        lambda a, p, ng: ib.infonce_loss(a, p, ng, 0.5),
        lambda a, p, ng: ib.infonce_loss(a, p, ng, 0.5, normalize=True),
        lambda a, p, ng: ib.prop4_bound((a, p, ng), (p, a, ng), 0.5, 2.0),
        lambda a, p, ng: ib.search_cross_entropy(a, ng, np.broadcast_to(1.0, ng.shape[:2]), 0.5),
    )
    for call in calls:
        call(a[:3], p[:3], np.broadcast_to(row, (3, 5, d)))  # compiled for these strides before measuring
        tracemalloc.start()
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no copy, so no InputCopyWarning either
            call(a, p, ng)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < budget, peak


def test_broadcast_bad_row_is_still_refused():
    """Planted: the check on the distinct rows is a check: a non-unit or NaN row repeated is named."""
    import infonce_bounds as ib

    rng = np.random.default_rng(6)
    a, p = _units(rng, 4, 3), _units(rng, 4, 3)
    with pytest.raises(ValueError, match=r"negatives must have unit rows.*row \(0, 0\)"):
        ib.infonce_loss(a, p, np.broadcast_to(np.array([2.0, 0, 0]), (4, 1000, 3)), 0.5)
    with pytest.raises(ValueError, match="negatives must be finite"):
        ib.infonce_loss(a, p, np.broadcast_to(np.array([np.nan, 0, 0]), (4, 1000, 3)), 0.5, normalize=True)


def test_broadcast_copy_is_announced_or_refused(monkeypatch):
    """A copy of a caller's array is announced (InputCopyWarning with its size); a broadcast whose copy would not fit
    in half the free memory is refused naming the argument and the memory it would need."""
    import infonce_bounds as ib
    from infonce_bounds.numerics import validate as V

    rng = np.random.default_rng(7)
    n, k, d = 200_000, 2, 4
    anchors = np.broadcast_to(_units(rng, d), (n, d))
    p, ng = _units(rng, n, d), _units(rng, n, k, d)
    with pytest.warns(V.InputCopyWarning, match=r"anchors \(broadcast float64 array of shape \(200000, 4\)\)"):
        ib.infonce_loss(anchors, p, ng, 0.5)
    monkeypatch.setattr(V, "copy_limit", lambda: 1 << 20)  # 1 MiB free, as a full machine would have
    with pytest.raises(ValueError, match=r"anchors is a broadcast .* would need 6\.1 MiB"):
        ib.infonce_loss(anchors, p, ng, 0.5)
    z32 = rng.normal(size=(5, 3)).astype(np.float32)  # and a dtype widening is a copy too: announced
    with pytest.warns(V.InputCopyWarning, match="similarities"):
        ib.numerics.api.data_continuity_factor(z32, tau=0.5, beta=1.0)


def test_a_huge_k_is_refused_naming_the_negatives_not_an_out_of_memory(monkeypatch):
    """Issue 28, audited: 10⁹ broadcast negatives to 4 anchors (k = 2.5·10⁸) cost nothing as an array, but every
    per-anchor kernel keeps k values per anchor per thread (29.8 GiB on two threads): b_tau ended in numba's
    SystemError and the loss ran out of memory. Refused before any kernel runs, naming the argument; a k whose
    working rows fit is computed as before."""
    import infonce_bounds as ib
    from infonce_bounds.numerics import validate as V

    rng = np.random.default_rng(8)
    a, p, row = _units(rng, 4, 8), _units(rng, 4, 8), _units(rng, 8)
    monkeypatch.setattr(V, "copy_limit", lambda: 8 << 30)  # 16 GiB free, whatever this machine has
    huge = np.broadcast_to(row, (4, 250_000_000, 8))
    for call in (
        lambda ng: ib.infonce_loss(a, p, ng, 0.5),
        lambda ng: ib.infonce_risk(a, p, ng, 0.5),
        lambda ng: ib.b_tau(a, p, ng, 0.5),
        lambda ng: ib.infonce_gradient(a, p, ng, 0.5),
    ):
        with pytest.raises(ValueError, match=r"negatives has k = 250000000 negatives per anchor.*would need"):
            call(huge)
    monkeypatch.setattr(V, "copy_limit", lambda: 1 << 20)  # 2 MiB free: k = 10⁵ no longer fits either
    with pytest.raises(ValueError, match=r"negatives has k = 100000 "):
        ib.infonce_loss(a, p, np.broadcast_to(row, (4, 100_000, 8)), 0.5)
    monkeypatch.undo()
    small = np.broadcast_to(row, (4, 1000, 8))
    np.testing.assert_allclose(ib.infonce_loss(a, p, small, 0.5), ib.infonce_loss(a, p, small.copy(), 0.5), rtol=1e-13)
