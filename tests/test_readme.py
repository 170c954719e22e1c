"""The README's 'paper vs ours' table and its two commands agree with the code."""

from __future__ import annotations

import pathlib
import re

from infonce_bounds.derivations import catalogue

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _table() -> dict[str, str]:
    block = README.split("<!-- provenance-table:start -->")[1].split("<!-- provenance-table:end -->")[0]
    rows = re.findall(r"^\| `([a-z_0-9]+)` \| (paper|ours|classical) \|", block, flags=re.M)
    return dict(rows)


def test_provenance_table_matches_catalogue():
    table = _table()
    cat = {name: catalogue.get(name).source for name in catalogue.names()}
    assert table == cat


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest" in README and "python -m pytest" in ci
    assert 'pip install -e ".[all]"' in README and '-e ".[all]"' in ci
