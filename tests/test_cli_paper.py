"""`infonce-bounds errata` and `infonce-bounds constants --paper`: JSON, exit codes, ratios never overstated."""

from __future__ import annotations

import json

import mpmath
import pytest

from infonce_bounds.derivations import paper
from infonce_bounds.numerics.cli import main

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


def _rows(capsys, *argv):
    assert main(["constants", "--paper", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)["rows"]


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
