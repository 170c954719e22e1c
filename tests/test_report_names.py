"""The report and the experiments name the DCL risk as the paper does: R̃ (§3.4, the loss ℓ̃), never R_k.

``R_k`` survives only as a dictionary / JSON key (``numerics.finite`` and ``search.json`` keep it for the
programs that read them); every text a reader sees (report sections, help, headlines, plot labels) says R̃,
and the empirical DCL risk on the n training tuples is R̂_n (as in ``derivations.theorem``).
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1] / "numerics"
#: the files whose text ends up in the report or in an experiment's output
FILES = [
    ROOT / "report.py",
    ROOT / "finite.py",
    ROOT / "paper_a2.py",
    ROOT / "certify.py",
    *sorted((ROOT / "experiments").glob("*.py")),
    *sorted(p for p in (ROOT / "commands").glob("*.py") if p.name != "verify.py"),
]
#: the key, quoted as a key: "R_k", "R_k_se", ``R_k``
KEY = re.compile(r"\"R_k(?:_se)?\"|``R_k``")


def _stray(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if re.search(r"R_k|R̂_k|R_\{k\}", KEY.sub("", ln))]


def test_sources_name_the_dcl_risk_r_tilde():
    bad = {p.name: _stray(p.read_text()) for p in FILES}
    assert {name: lines for name, lines in bad.items() if lines} == {}


def test_the_check_finds_a_planted_r_k():
    """Planted wrong: a label or a sentence with R_k is caught; the quoted key is not."""
    assert _stray('ylabel=r"$|R_k - CE|$"') and _stray("the gap R_k − CE") and _stray("R̂_k at W")
    assert not _stray('p["R_k"] + ex["R_k_se"] and the key ``R_k``')


def test_help_texts_and_sections_say_r_tilde():
    from infonce_bounds.numerics.commands import exact, experiment

    for name, mod_name in experiment.EXPERIMENTS.items():
        mod = pytest.importorskip(f"infonce_bounds.numerics.experiments.{mod_name}")
        assert "R_k" not in mod.HELP, name
    assert "R_k" not in exact.HELP and "R̃" in exact.HELP
    text = exact.section_finite_bias(None, None)
    assert "R_k" not in text and "R̃ − CE" in text


def test_the_summary_line_of_rate_says_r_tilde(tmp_path):
    from infonce_bounds.numerics.commands import report

    (tmp_path / "experiments").mkdir()
    con = {"conclusion": {"slopes": {"binary": -1.0}}}
    (tmp_path / "experiments" / "rate.json").write_text(json.dumps(con))
    (line,) = report._experiment_findings(tmp_path)
    assert "R_k" not in line and "R̃ − CE" in line
