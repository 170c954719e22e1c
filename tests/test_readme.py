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
    """Every catalogue result has its row (a new result module needs one); the message gives the rows to paste."""
    table = _table()
    cat = {name: catalogue.get(name).source for name in catalogue.names()}
    missing = [
        f"| `{name}` | {src} | {catalogue.get(name).summary or catalogue.get(name).title} |"
        for name, src in cat.items()
        if table.get(name) != src
    ]
    stale = sorted(set(table) - set(cat))
    assert not missing and not stale, (
        "README provenance table: add or fix\n" + "\n".join(missing) + (f"\nremove: {stale}" if stale else "")
    )


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest" in README and "python -m pytest" in ci
    assert 'pip install -e ".[all]"' in README and '-e ".[all]"' in ci
