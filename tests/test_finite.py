"""Exact finite-state models (numerics.finite, `infonce-bounds exact`) against an independent route.

The independent route is a brute-force sum over all N^k ordered tuples of negatives (and over the
positive), written here from the loss definitions of the brief, with its own JSON reading: it shares
no code with the multinomial enumeration of ``numerics.finite``.
"""

from __future__ import annotations

import itertools
import json
import pathlib
import re
from fractions import Fraction

import mpmath
import pytest

from infonce_bounds.numerics.cli import main
from infonce_bounds.numerics.finite import EXAMPLE_MODEL, FiniteModel, to_json
from infonce_bounds.numerics.klist import parse_k_list

DATA = pathlib.Path(__file__).parent / "data"
SHARED_EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "shared" / "examples" / "finite_model.json"
OWN_MODELS = sorted(DATA.glob("own_*.json"))
ALL_MODELS = [SHARED_EXAMPLE if SHARED_EXAMPLE.exists() else None, *OWN_MODELS]


def _q(v) -> mpmath.mpf:
    f = Fraction(repr(v)) if isinstance(v, float) else Fraction(str(v))
    return mpmath.mpf(f.numerator) / f.denominator


def brute_force(data: dict, k: int) -> dict:
    """CE, R_k, R_std,k, H_k by summing over every ordered k-tuple of negatives (current precision)."""
    tau = _q(data["tau"])
    pi = [_q(v) for v in data["pi"]]
    M = [[_q(v) for v in row] for row in data["M"]]
    phi = [[_q(v) for v in row] for row in data["phi"]]
    N = len(pi)
    s = [[mpmath.fsum(a * b for a, b in zip(phi[x], phi[y])) for y in range(N)] for x in range(N)]
    ce = r_avg = r_std = h = mpmath.mpf(0)
    h_defined = all(M[x][y] > 0 for x in range(N) for y in range(N) if pi[x] > 0 and pi[y] > 0)
    for x in range(N):
        if pi[x] == 0:
            continue
        logZ = mpmath.log(mpmath.fsum(pi[y] * mpmath.exp(s[x][y] / tau) for y in range(N)))
        for yp in range(N):
            ce += pi[x] * M[x][yp] * (-s[x][yp] / tau + logZ)
        for tup in itertools.product(range(N), repeat=k):
            pr = pi[x] * mpmath.fprod(pi[y] for y in tup)
            if pr == 0:
                continue
            e = [mpmath.exp(s[x][y] / tau) for y in tup]
            for yp in range(N):
                if M[x][yp] == 0:
                    continue
                ep = mpmath.exp(s[x][yp] / tau)
                r_avg += pr * M[x][yp] * (-s[x][yp] / tau + mpmath.log(mpmath.fsum(e) / k))
                r_std += pr * M[x][yp] * -mpmath.log(ep / (ep + mpmath.fsum(e)))
            if h_defined:
                mm = [M[x][y] / pi[y] for y in tup]
                phat = [v / mpmath.fsum(mm) for v in mm]
                qhat = [v / mpmath.fsum(e) for v in e]
                h += pr * -mpmath.fsum(p_ * mpmath.log(q_) for p_, q_ in zip(phat, qhat))
    return {"CE": ce, "R_k": r_avg, "R_std_k": r_std, "H_k": h if h_defined else None}


def test_embedded_example_is_the_shared_file():
    if not SHARED_EXAMPLE.exists():
        pytest.skip(f"{SHARED_EXAMPLE} not present")
    shared = json.loads(SHARED_EXAMPLE.read_text())
    for key in ("tau", "pi", "M", "phi"):
        assert shared[key] == EXAMPLE_MODEL[key], key


@pytest.mark.parametrize("path", [p for p in ALL_MODELS if p is not None], ids=lambda p: p.stem)
def test_enumeration_matches_brute_force(path):
    """Every exact quantity agrees with the N^k brute force to 1e-25 (k ≤ 4, or ≤ 3 for N = 4)."""
    data = json.loads(path.read_text())
    model = FiniteModel.from_json(path)
    kmax = 4 if len(data["pi"]) <= 3 else 3
    res = model.evaluate(range(1, kmax + 1), digits=30)
    tol = mpmath.mpf(10) ** -25
    with mpmath.workdps(40):
        for row in res["by_k"]:
            bf = brute_force(data, row["k"])
            assert abs(res["CE"] - bf["CE"]) < tol
            for key in ("R_k", "R_std_k", "H_k"):
                if bf[key] is None:
                    assert row[key] is None and res["h_k_note"]
                else:
                    assert abs(row[key] - bf[key]) < tol, (row["k"], key, row[key], bf[key])


def test_cli_json_matches_brute_force(capsys):
    """`infonce-bounds exact MODEL --k 1-4 --json` reproduces the brute-force values to 1e-25 (the digits, as text
    beside each JSON number: issue 28 made the numbers numbers)."""
    path = SHARED_EXAMPLE if SHARED_EXAMPLE.exists() else DATA / "own_N4_d3_tau_half.json"
    assert main(["exact", str(path), "--k", "1-4", "--digits", "30", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) >= {"CE", "Z", "by_k"} and [r["k"] for r in out["by_k"]] == [1, 2, 3, 4]
    assert isinstance(out["CE"], float) and out["CE"] == float(out["CE_text"])
    assert all(isinstance(z, float) for z in out["Z"]) and isinstance(out["tau"], float)
    for row in out["by_k"]:
        assert all(isinstance(row[key], float) and row[key] == float(t) for key, t in row["text"].items())
    data = json.loads(path.read_text())
    out = {**out, "CE": out["CE_text"], "Z": out["Z_text"]}
    with mpmath.workdps(40):
        for row in (r["text"] | {"k": r["k"]} for r in out["by_k"]):
            assert isinstance(row["R_k"], str) and len(row["R_k"].replace("-", "").replace(".", "")) >= 25
            bf = brute_force(data, row["k"])
            for key in ("R_k", "R_std_k", "H_k"):
                assert abs(mpmath.mpf(row[key]) - bf[key]) < mpmath.mpf(10) ** -25, (row["k"], key)
            # the paper's names: R̃ = R_k (DCL, §3.4), R = R_std,k − log k (the InfoNCE risk (2))
            assert abs(mpmath.mpf(row["R_tilde"]) - bf["R_k"]) < mpmath.mpf(10) ** -25
            assert abs(mpmath.mpf(row["R"]) - (bf["R_std_k"] - mpmath.log(row["k"]))) < mpmath.mpf(10) ** -25
            assert abs(mpmath.mpf(out["CE"]) - bf["CE"]) < mpmath.mpf(10) ** -25
        z_bf = [
            mpmath.fsum(
                _q(p)
                * mpmath.exp(
                    mpmath.fsum(_q(a) * _q(b) for a, b in zip(data["phi"][x], data["phi"][y])) / _q(data["tau"])
                )
                for y, p in enumerate(data["pi"])
            )
            for x in range(len(data["pi"]))
        ]
        for z_s, z_b in zip(out["Z"], z_bf):
            assert abs(mpmath.mpf(z_s) - z_b) < mpmath.mpf(10) ** -25


def test_cli_table_runs(capsys):
    assert main(["exact", str(DATA / "own_M_zero_entry_tau1.json"), "--k", "1,3"]) == 0
    cap = capsys.readouterr()
    assert "R̃ − CE" in cap.out and "H_k not computed" in cap.err


def test_k_one_is_a_rational_identity():
    """At k = 1, R_1 = E[(s(x, y₁) − s(x, x⁺))/τ]: a rational number for the example model."""
    m = FiniteModel.example()
    exact = sum(
        m.pi[x]
        * m.M[x][yp]
        * m.pi[y]
        * (sum(a * b for a, b in zip(m.phi[x], m.phi[y])) - sum(a * b for a, b in zip(m.phi[x], m.phi[yp])))
        / m.tau
        for x in range(m.N)
        for yp in range(m.N)
        for y in range(m.N)
    )
    with mpmath.workdps(40):
        r1 = m.exact_at(1)["R_k"]
        assert abs(r1 - mpmath.mpf(exact.numerator) / exact.denominator) < mpmath.mpf(10) ** -35


def _bad(**changes):
    data = json.loads(json.dumps(EXAMPLE_MODEL))
    for key, val in changes.items():
        data[key] = val
    return data


@pytest.mark.parametrize(
    "data, pattern",
    [
        (_bad(pi=["1/2", "1/3", "1/3"]), r"pi sums to 7/6, not 1"),
        (_bad(pi=["1/2", "2/3", "-1/6"]), r"pi\[2\] = -1/6 is negative"),
        (
            _bad(M=[["3/5", "3/10", "1/10"], ["1/4", "1/2", "1/5"], ["1/5", "2/5", "2/5"]]),
            r"M row 1 sums to 19/20, not 1",
        ),
        (_bad(M=[["3/5", "3/10", "1/10"], ["1/4", "1/2", "1/4"]]), r"M must have N = 3 rows"),
        (_bad(M=[["3/5", "3/10", "1/10"], ["1/4", "3/4"], ["1/5", "2/5", "2/5"]]), r"M row 1 must have N = 3 entries"),
        (
            _bad(M=[["3/5", "3/10", "1/10"], ["1/4", "1/2", "1/4"], ["6/5", "-1/5", "0"]]),
            r"M\[2\]\[1\] = -1/5 is negative",
        ),
        (_bad(phi=[["1", "0"], ["3/5", "4/5"], ["-4/5", "4/5"]]), r"phi row 2 has squared norm 32/25, not 1"),
        (_bad(phi=[["1", "0"], ["3/5", "4/5", "0"], ["-4/5", "3/5"]]), r"phi row 1 must have d = 2 entries"),
        (_bad(phi=[["1", "0"], ["3/5", "4/5"]]), r"phi must have N = 3 rows"),
        (_bad(tau="0"), r"tau = '0' must be > 0"),
        (_bad(tau="-1/4"), r"tau = '-1/4' must be > 0"),
        (_bad(pi=["1/2", "one third", "1/6"]), r"pi\[1\] = 'one third' is not a number"),
        (
            _bad(M=[["3/5", "3/10", None], ["1/4", "1/2", "1/4"], ["1/5", "2/5", "2/5"]]),
            r"M\[0\]\[2\] = None is not a number",
        ),
        ({"tau": "1", "pi": ["1"], "M": [["1"]]}, r"missing key 'phi'"),
    ],
)
def test_invalid_models_name_the_entry(data, pattern):
    with pytest.raises(ValueError, match=pattern) as exc:
        FiniteModel.from_dict(data)
    assert "\n" not in str(exc.value)


def test_unit_norm_tolerance_is_stated_and_applied():
    ok = _bad(phi=[[1.0, 0.0], [0.6, 0.8], [-0.8, 0.6000000000001]])  # ‖·‖² − 1 = 1.2e-13 < 1e-12
    FiniteModel.from_dict(ok)
    bad = _bad(phi=[[1.0, 0.0], [0.6, 0.8], [-0.8, 0.60001]])
    with pytest.raises(ValueError, match=r"phi row 2 .*tolerance 1e-12"):
        FiniteModel.from_dict(bad)


def test_cli_bad_model_is_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(_bad(M=[["3/5", "3/10", "1/10"], ["1/4", "1/2", "1/5"], ["1/5", "2/5", "2/5"]])))
    assert main(["exact", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "M row 1" in err
    assert main(["exact", str(tmp_path / "missing.json")]) == 2
    assert "cannot read model file" in capsys.readouterr().err
    path.write_text("{not json")
    assert main(["exact", str(path)]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    good = DATA / "own_two_point_extremal_tau2.json"
    for argv, msg in (
        (["--k", "0-3"], "k = 0 is out of range; allowed: integers k ≥ 1"),
        (["--k", "4-2"], "is empty"),
        (["--k", "a"], "'a' is not an integer k ≥ 1"),
        (["--digits", "2"], "--digits = '2' is out of range; allowed: an integer digits ∈ [5, 1000]"),
    ):
        assert main(["exact", str(good), *argv]) == 2
        assert msg in capsys.readouterr().err


def test_parse_k_spec():
    assert parse_k_list("1-8").tolist() == list(range(1, 9))
    assert parse_k_list("1,2, 4-5,2").tolist() == [1, 2, 4, 5]


def test_too_many_compositions_is_refused():
    m = FiniteModel.from_json(DATA / "own_N4_d3_tau_half.json")
    with pytest.raises(ValueError, match=r"k = 400 with 4 states needs \d+ count vectors"):
        m.exact_at(400)


def test_json_numbers_are_strings_at_requested_digits():
    m = FiniteModel.example()
    out = to_json(m.evaluate([2], digits=40), 40)
    ce = out["CE"]
    assert isinstance(ce, str) and len(ce.lstrip("-").replace(".", "").lstrip("0")) == 40


def test_report_section_renders():
    from infonce_bounds.numerics.commands.exact import section_finite_bias

    md = section_finite_bias(None, None)
    rows = [ln for ln in md.splitlines() if ln.startswith("| ") and ln[2].isdigit()]
    assert [ln.split("|")[1].strip() for ln in rows[:8]] == [str(k) for k in range(1, 9)]
    cells = [c.strip() for ln in rows for c in ln.split("|")[2:-1]]
    assert cells and not any(c.lstrip("−-") in ("inf", "+inf", "nan") for c in cells)


def _snis_terms(data: dict, k: int) -> tuple:
    """E s(x, x⁺) and E Σ_j P̂_k(x, j) s(x, y_j) by brute force over ordered tuples."""
    pi = [_q(v) for v in data["pi"]]
    M = [[_q(v) for v in row] for row in data["M"]]
    phi = [[_q(v) for v in row] for row in data["phi"]]
    N = len(pi)
    s = [[mpmath.fsum(a * b for a, b in zip(phi[x], phi[y])) for y in range(N)] for x in range(N)]
    e_pos = mpmath.fsum(pi[x] * M[x][y] * s[x][y] for x in range(N) for y in range(N))
    e_hat = mpmath.mpf(0)
    for x in range(N):
        for tup in itertools.product(range(N), repeat=k):
            mm = [M[x][y] / pi[y] for y in tup]
            e_hat += (
                pi[x]
                * mpmath.fprod(pi[y] for y in tup)
                * mpmath.fsum(m_ * s[x][y] for m_, y in zip(mm, tup))
                / mpmath.fsum(mm)
            )
    return e_pos, e_hat


@pytest.mark.parametrize(
    "path", [p for p in ALL_MODELS if p is not None and "zero_entry" not in p.name], ids=lambda p: p.stem
)
def test_search_interpretation_identity(path):
    """H_k − log k − R_k = (1/τ)(E s(x, x⁺) − E Σ_j P̂_k(x, j) s(x, y_j)) exactly (brief item 2)."""
    data = json.loads(path.read_text())
    model = FiniteModel.from_json(path)
    with mpmath.workdps(40):
        for k in (1, 2, 3):
            ex = model.exact_at(k)
            e_pos, e_hat = _snis_terms(data, k)
            lhs = ex["H_k"] - mpmath.log(k) - ex["R_k"]
            assert abs(lhs - (e_pos - e_hat) / _q(data["tau"])) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize(
    "model",
    [FiniteModel.example(), FiniteModel.from_json(DATA / "own_two_point_extremal_tau2.json")],
    ids=lambda m: m.name,
)
def test_search_gap_first_order(model):
    """k(H_k − log k − R_k) → δ₁ = (1/τ) E_x[Cov_π(m, m s) − E_π(m s) Var_π(m)] (self-normalised IS bias)."""
    with mpmath.workdps(30):
        S = model.similarities()
        pi = [model._mp(p) for p in model.pi]
        t_ = model._mp(model.tau)
        d1 = mpmath.mpf(0)
        for x in range(model.N):
            mm = [model._mp(model.M[x][y]) / pi[y] for y in range(model.N)]
            ms = [mm[y] * S[x][y] for y in range(model.N)]

            def E(f):
                return mpmath.fsum(p * v for p, v in zip(pi, f))

            cov = E([a * b for a, b in zip(mm, ms)]) - E(mm) * E(ms)
            var = E([a * a for a in mm]) - E(mm) ** 2
            d1 += pi[x] * (cov - E(ms) * var) / t_
        errs = []
        for k in (16, 128):
            ex = model.exact_at(k, with_std=False)
            errs.append(abs(k * (ex["H_k"] - mpmath.log(k) - ex["R_k"]) / d1 - 1))
        assert errs[1] < errs[0] and errs[1] < 0.05, errs


# --- issue 28: a model is validated where it is made; the two finite models have names that say the difference


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"pi": ["7/10", "7/10"]}, "pi sums to 7/5"),
        ({"pi": ["3/2", "-1/2"]}, "pi[1]"),
        ({"M": [["1", "0"], ["1/2", "1/4"]]}, "M row 1 sums to 3/4"),
        ({"phi": [["1"], ["1/2"]]}, "phi row 1"),
        ({"tau": "-1/2"}, "tau"),
        ({"M": [["1", "0"]]}, "M must have N = 2 rows"),
    ],
)
def test_python_construction_validates(kw, needle):
    """`FiniteModel(tau=1/2, pi=[7/10, 7/10], …)` was accepted in Python (only from_dict/from_json validated)."""
    good = {"tau": "1/2", "pi": ["1/2", "1/2"], "M": [["1", "0"], ["0", "1"]], "phi": [["1"], ["-1"]]}
    with pytest.raises(ValueError, match=re.escape(needle)):
        FiniteModel(**{**good, **kw})
    m = FiniteModel(**good)  # the same model, valid: accepted, entries exact
    assert m.pi == [Fraction(1, 2)] * 2 and m.tau == Fraction(1, 2)


def test_python_construction_takes_arrays_and_fractions():
    import numpy as np

    m = FiniteModel(tau=0.25, pi=np.array([0.5, 0.5]), M=((1, 0), (0, 1)), phi=np.array([[1.0], [-1.0]]))
    assert m.tau == Fraction(1, 4) and m.M == [[1, 0], [0, 1]] and m.phi == [[1], [-1]]
    assert FiniteModel(Fraction(1, 4), [Fraction(1)], [[1]], [[1]]).N == 1


def test_the_two_finite_models_are_named_apart():
    import infonce_bounds
    from infonce_bounds.numerics.experiments import models
    from infonce_bounds.numerics.finite import ExactFiniteModel

    assert infonce_bounds.FiniteModel is ExactFiniteModel is FiniteModel
    assert infonce_bounds.ExactFiniteModel is FiniteModel
    assert models.FloatFiniteModel is not FiniteModel
    with pytest.warns(DeprecationWarning, match="FloatFiniteModel"):
        assert models.FiniteModel is models.FloatFiniteModel
