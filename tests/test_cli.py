"""The command line: every subcommand of this module runs, exit codes, JSON output, bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from suite_budget import SUITE_TRIALS

from infonce_bounds.numerics.cli import main


def test_verify_one_result_json(capsys):
    assert main(["verify", "in_batch", "--json", "--trials", "500"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {r["result"] for r in out["results"]} == {"in_batch"}
    assert all(r["verdict"] != "refuted" for r in out["results"])
    assert out["counts"]
    for r in out["results"]:  # issue 28: the boxes as JSON numbers (unbounded ends null), their texts beside
        for key in ("covered", "attacked"):
            if r[key]:
                for name, ends in r[key].items():
                    assert all(e is None or isinstance(e, (int, float)) for e in ends), (key, name, ends)
                    assert len(r[key + "_text"][name]) == 2


def test_verify_table_names_methods(capsys):
    assert main(["verify", "gateaux", "--trials", "500"]) == 0
    out = capsys.readouterr().out
    assert "symbolic simplification to 0" in out and "steps in" in out


def test_unknown_result_is_a_one_line_error(capsys):
    assert main(["verify", "no_such_result"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown result 'no_such_result'" in err[0]


def test_bad_trials(capsys):
    assert main(["verify", "loss", "--trials", "0"]) == 2
    assert "--trials = 0 is out of range; allowed: an integer trials ∈ [1, 1e9]" in capsys.readouterr().err


def test_show_unicode_and_latex(capsys):
    assert main(["show", "loss"]) == 0
    uni = capsys.readouterr().out
    assert "exact relation" in uni and "← result" in uni
    assert main(["show", "loss", "--latex"]) == 0
    tex = capsys.readouterr().out
    assert r"\begin{enumerate}" in tex and r"\log" in tex


def test_show_lists_results(capsys):
    assert main(["show"]) == 0
    assert "gateaux" in capsys.readouterr().out


def test_report_unwritable_out_is_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["report", "--out", str(blocker / "sub"), "--trials", "10"]) == 2
    assert "cannot be written" in capsys.readouterr().err


def test_console_script_exit_status_on_argparse_error():
    proc = subprocess.run(
        [sys.executable, "-m", "infonce_bounds.numerics.cli", "verify", "--trials", "x"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv", [["--help"], ["verify", "--help"]])
def test_help_exits_zero(argv):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0


def test_report_pdf_without_pdflatex_is_exit_2(tmp_path, capsys, monkeypatch):
    from infonce_bounds.numerics import latex

    monkeypatch.setattr(latex.shutil, "which", lambda name: None)
    assert main(["report", "--pdf", "--out", str(tmp_path / "r"), "--trials", "10"]) == 2
    err = capsys.readouterr().err
    assert "--pdf needs pdflatex" in err and "Traceback" not in err
    assert not (tmp_path / "r" / "REPORT.md").exists()  # refused before the long run


def test_report_builds_with_summary_and_plots(tmp_path, capsys):
    # the main job end to end, in its quick form: summary first, every section, plots beside it
    from infonce_bounds.numerics.latex import have_pdflatex

    out = tmp_path / "rep"
    pdf = ["--pdf"] if have_pdflatex() else []  # the PDF from the same run, where TeX is installed
    # the suite's budget: the engine's coverage test and the paper checkers read these verdicts back
    assert main(["report", "--quick", "--trials", str(SUITE_TRIALS), "--out", str(out), *pdf]) == 0
    if pdf:
        assert (out / "REPORT.pdf").read_bytes()[:5] == b"%PDF-" and (out / "REPORT.pdf").stat().st_size > 20_000
    text = (out / "REPORT.md").read_text()
    assert text.startswith("# infonce-bounds report\n\nBuilt in ")
    assert text.index("## Summary") < text.index("## Verified derivations")
    assert "0 refuted" not in text and "refuted" not in text.split("## Verified derivations")[0]
    for png in ("compare.png", "experiments/rate.png"):
        assert (out / png).stat().st_size > 1000
    assert not (out / "REPORT.md.partial").exists()
    # what a reader sees: no Python None, no file outside the package, the errata count of `errata`
    from infonce_bounds.derivations import paper

    assert not re.search(r"\bNone\b", text), "a None in the report's prose"
    assert "../" not in text and "examples/finite_model.json` of `infonce_bounds.numerics`" in text
    assert f"The paper's errata (`infonce-bounds errata`): {len(paper.errata())}," in text
