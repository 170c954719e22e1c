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


def _between(tag: str) -> str:
    return README.split(f"<!-- {tag}:start -->")[1].split(f"<!-- {tag}:end -->")[0]


def test_core_install_skips_listed_are_the_experiments_whose_extras_it_lacks():
    """The README's list of experiments a core install skips is the code's: every experiment whose ``REQUIRES``
    names a module of an extra (not a core dependency), so ``missing_extra`` skips it without that extra."""
    import importlib

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    from infonce_bounds.numerics.commands.experiment import EXPERIMENTS

    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = {re.split(r"[<>=!~;\[ ]", d)[0].lower() for d in py["dependencies"]}
    skipped = set()
    for name, mod_name in EXPERIMENTS.items():
        mod = importlib.import_module(f"infonce_bounds.numerics.experiments.{mod_name}")
        for _module, extra in getattr(mod, "REQUIRES", {}).items():
            pkgs = {re.split(r"[<>=!~;\[ ]", d)[0].lower() for d in py["optional-dependencies"][extra]}
            assert pkgs - core, f"{name}: extra {extra!r} adds nothing to the core install"
            skipped.add(name)
    listed = set(re.findall(r"`([a-z0-9_]+)`", _between("core-install-skips")))
    assert listed == skipped, f"README lists {sorted(listed)}; a core install skips {sorted(skipped)}"


def test_readme_types_no_experiment_run_time():
    """Run times change with the code and the machine: each run records its own (``run.seconds``); the
    experiments table must not carry a typed one."""
    table = README.split("## Experiments (full forms")[1].split("###")[0]
    assert not re.search(r"\d\s*s\b|\bmin\b|not yet timed", table), "typed run time in the experiments table"
    assert "full-form time" not in README


def test_benchmark_figures_in_the_readme_are_those_of_the_results_file():
    """Every time (``N s``) the README quotes from the verify/report benchmark is a figure of
    ``benchmarks/RESULTS.md`` (rounded as printed), so a re-run that changes RESULTS.md fails here until the
    README follows it."""
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text()
    recorded = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?) s\b", results)]
    quoted = re.findall(r"(\d+(?:\.(\d+))?) s\b", _between("bench-figures"))
    assert quoted, "no figures between the bench-figures markers"
    for text, dec in quoted:
        places = len(dec)
        assert any(round(y, places) == float(text) for y in recorded), f"README's {text} s is not in RESULTS.md"
