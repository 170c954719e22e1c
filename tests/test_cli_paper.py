"""`infonce-bounds errata` and `infonce-bounds constants --paper`: JSON, exit codes, ratios never overstated."""

from __future__ import annotations

import json

import mpmath
import pytest
import sympy as sp

from infonce_bounds.derivations import paper
from infonce_bounds.numerics.cli import main
from infonce_bounds.numerics.jsonout import GATE_KEYS

REQUIRED = {
    "lemma5_range",
    "prop3_variability",
    "lemma1_constant",
    "prop5_constant",
    "theorem1_complexity_constant",
    "theorem1_variability_constant",
}


def test_errata_json_runs_every_erratum(capsys):
    assert main(["errata", "--json", "--trials", "300"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["count"] == len(paper.errata()) >= 5
    locs = {r["location"] for r in out["errata"]}
    assert "Appendix B.2, proof of Prop. 5, after (54)" in locs
    assert "Theorem 1 (§5), complexity penalty and sample variability" in locs
    for r in out["errata"]:
        assert r["kind"] in paper.ERRATUM_KINDS and r["correction"] and r["consequence"]
        if r["printed_step"]:
            assert r["printed_step"]["verdict"] == "refuted" and r["printed_step"]["counterexample"]
            # issue 28: the point as JSON numbers (null beyond the float range), its exact text beside
            ce, text = r["printed_step"]["counterexample"], r["printed_step"]["counterexample_text"]
            assert set(ce) == set(text)
            coords = {k: v for k, v in ce.items() if k not in GATE_KEYS and not k.endswith("_enclosure")}
            assert all(v is None or isinstance(v, (int, float)) for v in coords.values())
            for side in (k for k in ce if k.endswith("_enclosure")):  # Arb enclosures, as [lo, hi] numbers
                assert all(v is None or isinstance(v, (int, float)) for v in ce[side])
        if r["corrected_step"]:
            assert r["corrected_step"]["verdict"] == "proved"


def test_errata_text_shows_run_evidence(capsys):
    assert main(["errata", "--trials", "300"]) == 0
    out = capsys.readouterr().out
    assert "counterexample:" in out and "→ refuted" in out and "→ proved" in out


def test_errata_exit_1_when_a_printed_step_stops_being_refuted(monkeypatch, capsys):
    fake = paper.Erratum(
        location="planted",
        as_printed="b − a ≤ 4/τ",
        kind="false as printed",
        result="lemma5",
        printed_step="ours: b − a ≤ 4/τ (in ε = 1/k; tight only as ε → 0)",  # a true step: not refuted
        corrected_step="ours: attained value = b − a",
    )
    monkeypatch.setattr(paper, "errata", lambda: [fake])
    assert main(["errata", "--trials", "200"]) == 1
    captured = capsys.readouterr()
    assert "PROBLEM" in captured.out and "not refuted" in captured.out


def _as_text(obj):
    """The JSON with each number replaced by its certified text (``x_text`` beside ``x``), after checking that the
    number is that text rounded outward (issue 28: numbers as JSON numbers): an upper end (paper, ours, a bound)
    rounded up, a ratio (a lower end) rounded down, an interval [down, up]; null beyond the float range."""
    from fractions import Fraction

    if isinstance(obj, list):
        return [_as_text(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {key: _as_text(v) for key, v in obj.items() if not key.endswith("_text")}
    for key, text in obj.items():
        if not key.endswith("_text") or key[:-5] not in obj:
            continue
        num, name = obj[key[:-5]], key[:-5]
        if isinstance(text, list):
            assert num is None or (
                (num[0] is None or Fraction(num[0]) <= Fraction(text[0]))
                and (num[1] is None or Fraction(num[1]) >= Fraction(text[1]))
            ), (name, num, text)
        elif num is not None:
            if name == "ratio":
                assert Fraction(num) <= Fraction(text), (name, num, text)
            else:
                assert Fraction(num) >= Fraction(text), (name, num, text)
        out[name] = text
    if "parameters_exact" in obj:
        out["parameters"] = obj["parameters_exact"]
    return out


def _rows(capsys, *argv):
    assert main(["constants", "--paper", "--json", *argv]) == 0
    return _as_text(json.loads(capsys.readouterr().out))["rows"]


@pytest.mark.parametrize("tau", ["0.001", "0.1", "0.5", "1", "100"])
@pytest.mark.parametrize("k", ["1", "256", "1000000"])
def test_constants_paper_json_rows_and_ratios(capsys, tau, k):
    rows = _rows(capsys, "--tau", tau, "--k", k, "--beta", "2")
    names = {r["name"] for r in rows}
    assert REQUIRED <= names
    assert len(rows) == len(paper.constants())
    for r in rows:
        assert {"name", "paper", "ours", "ratio", "source"} <= set(r)
        if r["ratio"] is None:  # a constant in another quantity (e.g. Lemma 3's E_π[w²]) says what it needs
            assert r["name"] not in REQUIRED and r["status"].startswith("needs --set")
            continue
        ratio = mpmath.mpf(r["ratio"])  # mpmath: ratios reach e^{868} at τ = 1e-3
        assert ratio >= 1 - mpmath.mpf(1e-12), r
        # the printed ratio is a lower bound: it never exceeds paper_hi / ours_lo
        assert ratio <= mpmath.mpf(r["paper_interval"][1]) / mpmath.mpf(r["ours_interval"][0]) * (1 + mpmath.mpf(1e-12))


def test_constants_paper_values_at_tau_0_1(capsys):
    rows = {r["name"]: r for r in _rows(capsys, "--tau", "0.1", "--k", "256", "--beta", "2")}
    assert rows["lemma5_range"]["paper"] == "40"
    assert rows["prop5_constant"]["ours"] == "72"  # 96 · 3/4
    assert rows["lemma1_constant"]["ratio"].startswith("1.3333")
    assert float(rows["lemma5_range"]["ours"]) == pytest.approx(25.5452, abs=1e-4)


def test_constants_paper_prove_runs_the_steps(capsys):
    rows = _rows(capsys, "--tau", "0.5", "--k", "8", "--prove")
    assert all(r.get("proof_verdict") == "proved" for r in rows if r["name"] in REQUIRED)


@pytest.mark.parametrize(
    ("argv", "flag"),
    [(["--beta", "0.5"], "--beta"), (["--beta", "x"], "--beta"), (["--tau", "-1"], "--tau"), (["--k", "0"], "--k")],
)
def test_constants_paper_bad_input_is_one_line_exit_2(capsys, argv, flag):
    assert main(["constants", "--paper", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and "Traceback" not in err


def test_constants_paper_text_table(capsys):
    assert main(["constants", "--paper", "--tau", "1", "--k", "256", "--beta", "2"]) == 0
    out = capsys.readouterr().out
    assert "ratio" in out and "prop5_constant" in out and "lower end of the interval quotient" in out


def test_constants_paper_set_gives_other_symbols(capsys):
    rows = {r["name"]: r for r in _rows(capsys, "--set", "E_w2=2")}
    if "lemma3_constant" in rows:
        assert rows["lemma3_constant"]["status"] == "certified" and float(rows["lemma3_constant"]["ratio"]) >= 1 - 1e-12
    assert main(["constants", "--paper", "--set", "E_w2"]) == 2
    assert "--set" in capsys.readouterr().err


def _theorem1(capsys, *argv):
    assert main(["constants", "--paper", "--json", *argv]) == 0
    return _as_text(json.loads(capsys.readouterr().out))["theorem1"]


def test_constants_paper_theorem1_is_capped_by_the_trivial_bound(capsys):
    """Issue 13: each Theorem-1 version --paper prints takes the min with 2/τ − log(1/k + e^{−2/τ}) and names the
    active term. τ = 0.5, k = 64 (the issue's example): both versions exceed the cap; τ = 10, k = 4096, n = 1e8: both
    are below it."""
    t1 = _theorem1(capsys, "--tau", "0.5", "--k", "64", "--set", "a_cov=2", "--set", "E_w2=1.5")
    assert t1["status"] == "certified" and [v["name"] for v in t1["versions"]] == ["paper", "ours"]
    cap = mpmath.mpf(t1["trivial"])
    with mpmath.workdps(50):
        ref = 4 - mpmath.log(mpmath.mpf(1) / 64 + mpmath.exp(-4))  # 2/τ − log(1/k + e^{−2/τ}), 50 digits
    assert ref <= cap <= ref * (1 + mpmath.mpf(1e-5))
    for v in t1["versions"]:
        assert v["active"] == "trivial" and v["capped"] == t1["trivial"] and mpmath.mpf(v["bound"]) > cap
    paper, ours = t1["versions"]
    assert mpmath.mpf(ours["bound"]) < mpmath.mpf(paper["bound"])
    t1 = _theorem1(
        capsys,
        "--tau",
        "10",
        "--k",
        "4096",
        "--n",
        "100000000",
        "--params",
        "10",
        "--set",
        "a_cov=1",
        "--set",
        "E_w2=1.5",
    )
    for v in t1["versions"]:
        assert (
            v["active"] == "bound" and v["capped"] == v["bound"] and mpmath.mpf(v["bound"]) < mpmath.mpf(t1["trivial"])
        )


def test_constants_paper_theorem1_cap_comes_from_the_derivation(capsys, monkeypatch):
    """Planted wrong: a cap of 1e6 in derivations.theorem makes the bound the active term at the issue's example."""
    from infonce_bounds.derivations import theorem

    monkeypatch.setattr(theorem, "trivial_bound", lambda loss="dcl", *a: sp.Integer(10**6))
    t1 = _theorem1(capsys, "--tau", "0.5", "--k", "64", "--set", "a_cov=2", "--set", "E_w2=1.5")
    assert all(v["active"] == "bound" for v in t1["versions"])


def test_constants_paper_theorem1_says_what_it_needs(capsys):
    t1 = _theorem1(capsys)
    assert t1["versions"] == [] and "--set a_cov=VALUE" in t1["status"] and "--set E_w2=VALUE" in t1["status"]
    assert main(["constants", "--paper", "--set", "a_cov=1", "--set", "E_w2=2"]) == 0
    out = capsys.readouterr().out
    assert "Theorem 1" in out and "active: trivial" in out


@pytest.mark.parametrize(("sets", "needle"), [(["a_cov=0", "E_w2=2"], "a_cov"), (["a_cov=1", "E_w2=0.5"], "E_w2")])
def test_constants_paper_theorem1_bad_input_exit_2(capsys, sets, needle):
    argv = [x for s in sets for x in ("--set", s)]
    assert main(["constants", "--paper", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "out of range" in err
