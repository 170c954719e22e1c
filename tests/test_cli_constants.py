"""``infonce-bounds constants`` and ``compare``: defaults, formats, bad input (exit 2), huge values, plot."""

from __future__ import annotations

import argparse
import importlib
import json

import pytest

from infonce_bounds.numerics.cli import main


def _has(mod: str, attr: str) -> bool:
    try:
        return hasattr(importlib.import_module(f"infonce_bounds.derivations.{mod}"), attr)
    except ImportError:
        return False


HAS_ALL = _has("bias", "bias_bound") and _has("rademacher", "complexity_avg") and _has("rademacher", "complexity_max")
needs_all = pytest.mark.skipif(not HAS_ALL, reason="derivations.bias / derivations.rademacher functions missing")


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_constants_runs_with_defaults(capsys):
    assert main(["constants"]) == 0
    out = capsys.readouterr().out
    assert "τ = 0.1, k = 256" in out and "n = 50000, δ = 0.05, L = 1, p = 10000, R = 1" in out
    for name in ("sample_variability", "complexity", "finite_k_bias", "bound", "loss_range"):
        assert name in out
    assert "upper end of an outward-rounded interval" in out


def test_constants_json_rows_are_certified(capsys):
    data = _json(capsys, ["constants", "--json"])
    assert data["parameters"]["tau"] == 0.1 and data["parameters"]["gamma"] == 20  # numbers (issue 28) …
    assert data["parameters_exact"]["tau"] == "0.1"  # … and the exact rationals beside them
    names = [r["name"] for r in data["rows"]]
    assert {"sample_variability", "complexity", "finite_k_bias", "bound"} <= set(names)
    for r in data["rows"]:
        assert r["show"] and r["provenance"] in ("ours", "classical", "paper")
        if r["status"] == "certified":
            lo, hi = r["interval"]  # JSON numbers, rounded outward from the printed decimal ends
            assert isinstance(hi, float) and lo <= hi and r["value"] == hi
            lo_t, hi_t = r["interval_text"]
            assert lo <= float(lo_t) and float(hi_t) <= hi and r["value_text"] == hi_t
            assert r["float_in_interval"] or r["float_intermediate_overflow"]


@needs_all
def test_constants_every_row_available(capsys):
    data = _json(capsys, ["constants", "--json"])
    assert all(r["status"] == "certified" or r["name"] == "holder_exponent" for r in data["rows"])
    rows = {r["name"]: r for r in data["rows"]}
    parts = sum(float(rows[x]["value"]) for x in ("sample_variability", "complexity", "finite_k_bias"))
    assert float(rows["bound"]["value"]) == pytest.approx(parts, rel=1e-5)


def test_show_names_resolve(capsys):
    from infonce_bounds.derivations import catalogue

    data = _json(capsys, ["constants", "--json"])
    known = set(catalogue.names())
    for r in data["rows"]:
        if r["status"] == "certified":
            assert r["show"] in known, r


def test_constants_latex(capsys):
    assert main(["constants", "--latex", "--tau", "0.001"]) == 0
    out = capsys.readouterr().out
    assert r"\begin{tabular}" in out and r"\end{table}" in out
    assert r"\times 10^{" in out  # huge values in scientific form


def test_huge_values_are_certified_never_inf_or_nan(capsys):
    data = _json(capsys, ["constants", "--json", "--tau", "0.001", "--k", "1"])
    for r in data["rows"]:
        if r["status"] != "certified":
            continue
        assert r["value_text"] not in ("inf", "nan") and "nan" not in r["value_text"]
    sv = {r["name"]: r for r in data["rows"]}["sample_variability"]
    assert sv["value"] > 0
    bias = {r["name"]: r for r in data["rows"]}.get("bias_constant")
    if bias and bias["status"] == "certified":  # beyond the float range: no JSON number, the text says it
        assert "e+" in bias["value_text"] and bias["float_overflows"] and bias["value"] is None


@pytest.mark.parametrize(
    "argv,flag",
    [
        (["--tau", "0"], "--tau"),
        (["--tau", "-1"], "--tau"),
        (["--tau", "abc"], "--tau"),
        (["--tau", "nan"], "--tau"),
        (["--gamma", "5"], "--gamma"),
        (["--gamma", "x"], "--gamma"),
        (["--beta", "0.5"], "--beta"),
        (["--beta", "x"], "--beta"),
        (["--beta", "-2"], "--beta"),
        (["--k", "0"], "--k"),
        (["--k", "2.5"], "--k"),
        (["--n", "0"], "--n"),
        (["--delta", "0"], "--delta"),
        (["--delta", "1"], "--delta"),
        (["--lipschitz", "-1"], "--lipschitz"),
        (["--params", "-3"], "--params"),
        (["--radius", "-0.5"], "--radius"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, flag):
    assert main(["constants", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and flag in err and repr(argv[1]) in err
    assert "allowed" in err


def test_gamma_given_and_auto(capsys):
    auto = _json(capsys, ["constants", "--json", "--k", "64"])
    given = _json(capsys, ["constants", "--json", "--k", "64", "--gamma", "40"])
    assert auto["gamma_choice"].startswith("auto") and given["gamma_choice"] == "given"
    assert given["parameters"]["gamma"] == 40
    assert "beta" not in auto["parameters"]


def test_beta_is_the_papers_and_passes_through(capsys):
    """--beta takes the paper's β ≥ 1 (β = 1 and β < 1/τ are fine: it is not our γ) and leaves γ alone."""
    base = _json(capsys, ["constants", "--json", "--k", "64"])
    for b, shown in (("1", "1"), ("2", "2"), ("3/2", "1.5")):
        got = _json(capsys, ["constants", "--json", "--k", "64", "--beta", b])
        assert got["parameters_exact"]["beta"] == shown and got["parameters"]["gamma"] == base["parameters"]["gamma"]
        assert [r["value"] for r in got["rows"]] == [r["value"] for r in base["rows"]]
    assert main(["constants", "--k", "64", "--beta", "2"]) == 0
    assert "β = 2" in capsys.readouterr().out
    assert main(["constants", "--beta", "0.9"]) == 2
    err = capsys.readouterr().err
    assert "--beta" in err and "β ∈ [1, 1e300]" in err and "gamma" in err


def test_loss_names(capsys):
    dcl = _json(capsys, ["constants", "--json", "--k", "64"])
    assert dcl["loss"] == "dcl"
    ell = _json(capsys, ["constants", "--json", "--k", "64", "--loss", "infonce"])
    std = _json(capsys, ["constants", "--json", "--k", "64", "--loss", "standard"])
    sv = lambda d: next(r["value"] for r in d["rows"] if r["name"] == "sample_variability")
    assert ell["loss"] == "infonce" and sv(ell) == sv(std) != sv(dcl)  # ℓ (14) is a shift of ℓ_std
    assert main(["constants", "--json", "--k", "64", "--loss", "averaged"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["loss"] == "dcl" and "deprecated" in out.err


def test_compare_plot_and_note(capsys, tmp_path):
    png = tmp_path / "cmp.png"
    assert main(["compare", "--k", "1,4,...,64", "--plot", str(png), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["k"] for r in data["rows"]] == [1, 4, 16, 64]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for r in data["rows"]:
        for key in ("sample_variability", "large_k_deviation", "complexity_klinear", "complexity_logk"):
            assert r[key]["float_in_interval"]


@needs_all
def test_compare_averaged_flattens_max_grows(capsys, tmp_path):
    assert main(["compare", "--k", "1,64,4096", "--plot", str(tmp_path / "c.png"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    q = data["quoted"]
    avg = [float(q[x]["complexity_avg"]) for x in ("1", "64", "4096")]
    mx = [float(q[x]["complexity_max"]) for x in ("1", "64", "4096")]
    # default τ = 0.5: the averaged term's growth slows down (64× more negatives, < 1.5× the penalty) …
    assert avg[2] / avg[1] < 1.5 and avg[2] / avg[1] < avg[1] / avg[0]
    # … while the max-type term keeps growing close to √k (√64 = 8)
    assert mx[2] / mx[1] > 5
    assert "k = 4096" in data["note"]


@pytest.mark.parametrize("text", ["0,1", "1,x", "1,...,8", "4,2,...,1", ""])
def test_compare_bad_k_list(capsys, tmp_path, text):
    assert main(["compare", "--k", text, "--no-plot"]) == 2
    assert "--k" in capsys.readouterr().err


def test_report_sections(tmp_path):
    from infonce_bounds.numerics.commands import compare, constants

    ns = argparse.Namespace(quick=True)
    md = constants.section_constants(tmp_path, ns)
    assert "| quantity |" in md and "sample_variability" in md
    md2 = compare.section_compare(tmp_path, ns)
    assert "compare.png" in md2 and (tmp_path / "compare.png").exists()


# --- issue 28: misspelt --set, --set without --paper, numbers as JSON numbers


def test_misspelt_set_name_is_refused_with_the_valid_names(capsys):
    """`constants --paper --set tauu=1` was silently ignored (exit 0)."""
    assert main(["constants", "--paper", "--set", "tauu=1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'tauu'" in err and "a_cov" in err and "E_w2" in err
    assert main(["constants", "--set", "a_cov=2"]) == 2  # not the paper's rows: --set does nothing there
    assert "--paper" in capsys.readouterr().err
    # planted: a valid name is accepted and reaches Theorem 1's rows
    assert main(["constants", "--paper", "--set", "a_cov=2", "--set", "E_w2=1.5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["theorem1"]["status"] == "certified"


def test_compare_json_numbers_are_numbers_rounded_outward(capsys):
    from fractions import Fraction

    data = _json(capsys, ["compare", "--k", "1,64", "--no-plot", "--json"])
    for row in data["rows"]:
        assert isinstance(row["k"], int) and isinstance(row["gamma"], (int, float))
        cell = row["bound"]
        assert isinstance(cell["upper"], float) and isinstance(cell["interval"][0], float)
        assert Fraction(cell["upper"]) >= Fraction(cell["upper_text"])  # never understated
        assert Fraction(cell["lo"]) <= Fraction(cell["lo_text"])
        assert cell["interval"] == [cell["lo"], cell["upper"]]


def test_python_api_errors_name_python_parameters():
    import infonce_bounds

    with pytest.raises(ValueError, match=r"^tau = 1e\+300 is out of range; allowed: τ ∈ \[1e-3, 1e2\]"):
        infonce_bounds.constants(tau=1e300)
    with pytest.raises(ValueError, match=r"^trials = 0 is out of range"):
        infonce_bounds.verify(["in_batch"], trials=0)
    with pytest.raises(ValueError, match=r"^seed = -1 "):
        infonce_bounds.verify(["in_batch"], seed=-1)
    with pytest.raises(ValueError, match="list of result names"):
        infonce_bounds.verify("in_batch")
