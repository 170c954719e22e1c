"""What a reader of the report sees: no Python ``None``, no file outside the package, figures from the run,
tables that say what their columns mean (issue 28, "Output a reader sees")."""

from __future__ import annotations

import argparse
import fnmatch
import json
import re

import pytest

from infonce_bounds.numerics.commands import report, verify
from infonce_bounds.numerics.commands.exact import EXAMPLE_RESOURCE, example_model_file, section_finite_bias

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- the example model


def test_the_example_model_is_package_data_read_with_importlib_resources():
    """The report's example is a file of the package (an installed user has it), equal to the embedded model."""
    from infonce_bounds.numerics.finite import EXAMPLE_MODEL

    res = example_model_file()
    assert res.is_file(), f"{EXAMPLE_RESOURCE} is not in the package"
    data = json.loads(res.read_text(encoding="utf-8"))
    for key in ("name", "tau", "pi", "M", "phi"):
        assert data[key] == EXAMPLE_MODEL[key], key
    # and a wheel carries it: pyproject's package-data for the package matches its path
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())
    package, name = EXAMPLE_RESOURCE
    globs = py["tool"]["setuptools"]["package-data"].get(package, [])
    assert any(fnmatch.fnmatch(name, g) for g in globs), f"{name} not covered by package-data {globs}"


def test_the_report_cites_the_example_by_its_package_name(tmp_path):
    text = section_finite_bias(tmp_path, argparse.Namespace())
    package, name = EXAMPLE_RESOURCE
    assert f"`{name}` of `{package}`" in text
    assert "../" not in text and "shared/examples" not in text  # no file of the source tree


# ----------------------------------------------------------------------------- no None in prose


def _theorem_record(found: bool) -> dict:
    per_n = [{"n": n} for n in (1000, 2000, 5000)]
    val = 2000 if found else None
    row = {"k": 16, "tau": 0.5, "per_n": per_n, "ratio_at_1e6": None}
    for who in ("paper", "ours", "ours_direct"):
        row[f"n_nonvacuous_{who}"] = val
        row[f"n_within_2x_{who}"] = val
    return {"points": [row]}


def test_theorem_headline_never_prints_none():
    from infonce_bounds.numerics.experiments import theorem

    (line,) = theorem.headline(_theorem_record(found=False))
    assert "None" not in line
    assert "none up to n = 5000" in line  # says how far it looked
    (line,) = theorem.headline(_theorem_record(found=True))
    assert "paper 2000" in line and "none" not in line


# ----------------------------------------------------------------------------- figures from the run


def _fake_summary(n_expected_false: int = 2) -> dict:
    rows = []
    for i in range(5):
        refuted = i < n_expected_false
        rows.append(
            {
                "result": "prop1" if i < 3 else "loss",
                "source": "paper" if i < 3 else "ours",
                "step": f"s{i}",
                "kind": "inequality",
                "verdict": "refuted" if refuted else "proved",
                "method": "interval arithmetic: certified on 1 boxes" if not refuted else "falsifier: 9 trials",
                "evidence": "",
                "worst_ratio": 101.0 if refuted else -0.334,
                "counterexample": {"x": "1"} if refuted else None,
                "seconds": 0.01,
                "symbolic": False,
                "certified": not refuted,
                "expected": "refuted" if refuted else None,
                "as_expected": True,
            }
        )
    return {
        "results": rows,
        "options": {"trials": 10},
        "seconds": 0.1,
        "counts": {"refuted": n_expected_false, "proved": 5 - n_expected_false},
        "symbolic": 0,
        "certified": 5 - n_expected_false,
        "falsifier_only": 0,
        "cache": {"catalogue_hit": True, "cached": 5},
    }


@pytest.fixture
def derivations_section(monkeypatch, tmp_path):
    monkeypatch.setattr(verify, "verify_all", lambda *a, **k: _fake_summary())
    args = argparse.Namespace(trials=10, summary=[])
    body = report.section_derivations(tmp_path, args)
    return body, args.summary


def test_errata_count_comes_from_the_errata_list(derivations_section):
    """The prose's errata figure is ``len(paper.errata())`` (what `errata --json` counts), not the number of
    refuted steps (2 in this summary) nor a typed number."""
    from infonce_bounds.derivations import paper
    from infonce_bounds.numerics.commands import errata

    body, summary = derivations_section
    n = len(paper.errata())
    assert n == errata.collect.__globals__["paper"].errata().__len__()  # the same function `errata` runs
    for text in (body, summary[0]):
        assert f"The paper's errata (`infonce-bounds errata`): {n}," in text
        assert "2 printed steps of the paper false, as expected" in text
        assert not re.search(r"\b2 errata\b", text)
    with_step = sum(bool(e.printed_step) for e in paper.errata())
    assert f"{with_step} of them shown false by a printed step" in body


def test_report_table_has_a_footer_for_every_column(derivations_section):
    body, _ = derivations_section
    head = next(ln for ln in body.splitlines() if ln.startswith("| result"))
    cols = [c.strip() for c in head.strip("|").split("|")]
    footer = body.split(head)[1]
    for c in cols:
        assert f"- **{c}**:" in footer, f"column {c!r} has no explanation under the table"
    assert "Negative:" in footer and "opposite sign" in footer  # the sign convention of the worst ratio
    assert "| -0.334 |" in body  # the number the footer explains


def test_verify_table_footer_and_singular_counts():
    text = verify.format_table(_fake_summary())
    assert "1 boxes" not in text and "certified on 1 box" in text
    tail = text.split("Columns:")[1]
    for col, _ in verify.VERIFY_COLUMNS:
        assert re.search(rf"^  {re.escape(col)} ", tail, re.M), col
    assert "Negative:" in tail and "> 1" in tail
    assert verify.singular_counts("on 1 boxes, 11 boxes, 1 laws, 21 trials") == "on 1 box, 11 boxes, 1 law, 21 trials"
