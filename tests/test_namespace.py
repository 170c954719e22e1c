"""One import namespace, a core install that runs the main job, and CLI hygiene (issue 10)."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SOURCE_DIRS = ("derivations", "numerics", "src")


def _modules():
    for d in SOURCE_DIRS:
        yield from sorted((ROOT / d).rglob("*.py"))


def _imports(path: pathlib.Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


#: import name → distribution name, where they differ
DIST = {"sklearn": "scikit-learn", "dask": "distributed", "IPython": "ipykernel", "flint": "python-flint"}


def _declared(extras: tuple[str, ...] = ()) -> set[str]:
    reqs = list(PYPROJECT["project"]["dependencies"])
    opt = PYPROJECT["project"]["optional-dependencies"]
    for e in extras:
        reqs += [r for r in opt[e] if not r.startswith("infonce-bounds")]
    names = set()
    for r in reqs:
        name = r
        for sep in "<>=!~[; ":
            name = name.split(sep)[0]
        names.add(name.lower())
    return names


def test_no_module_imports_the_old_top_level_names():
    """Every import of the toolkit goes through infonce_bounds (or is relative)."""
    bad = [
        f"{p.relative_to(ROOT)}: {name}"
        for p in [*_modules(), *sorted((ROOT / "tests").glob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py"))]
        for name in _imports(p)
        if name in ("derivations", "numerics")
    ]
    assert not bad, bad


def test_every_third_party_import_is_declared():
    """The library's imports are core dependencies or named extras; the tests' are in [test] or an extra."""
    stdlib = set(sys.stdlib_module_names) | {"infonce_bounds", "__future__"}
    all_extras = tuple(k for k in PYPROJECT["project"]["optional-dependencies"] if k != "all")
    every = _declared(all_extras)
    missing = {}
    for p in [*_modules(), *sorted((ROOT / "tests").glob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py"))]:
        siblings = {q.stem for q in p.parent.glob("*.py")}  # a helper module beside the file (tests/suite_budget.py)
        for name in _imports(p) - stdlib - siblings:
            if DIST.get(name, name).lower() not in every and name not in ("torch", "pytorch_metric_learning"):
                missing.setdefault(name, []).append(str(p.relative_to(ROOT)))
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_core_modules_import_only_core_dependencies_at_module_level():
    """A module-level import of an extra would break the core install; extras are imported where used."""
    core = _declared()
    stdlib = set(sys.stdlib_module_names) | {"infonce_bounds", "__future__"}
    bad = []
    for p in _modules():
        tree = ast.parse(p.read_text())
        for node in tree.body:  # module level only
            names = []
            if isinstance(node, ast.Import):
                names = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module.split(".")[0]]
            bad += [
                f"{p.relative_to(ROOT)}: {n}" for n in names if n not in stdlib and DIST.get(n, n).lower() not in core
            ]
    assert not bad, bad


def test_version_is_in_one_place():
    import infonce_bounds

    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert "version" not in PYPROJECT["project"]
    from importlib.metadata import version

    assert version("infonce-bounds") == infonce_bounds.__version__


def test_top_level_exports_are_documented_and_importable():
    import infonce_bounds

    for name in infonce_bounds.__all__:
        obj = getattr(infonce_bounds, name)
        if name in ("__version__", "catalogue"):
            continue
        doc = obj.__doc__ or ""
        assert doc.strip(), f"infonce_bounds.{name} has no docstring"
        if callable(obj) and not isinstance(obj, type):
            assert "Parameters" in doc or "----------" in doc, f"infonce_bounds.{name}: not numpy-style"


def _run(*argv, **kw):
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from infonce_bounds.numerics.cli import main; sys.exit(main(sys.argv[1:]))",
            *argv,
        ],
        capture_output=True,
        text=True,
        **kw,
    )


def test_version_flag():
    import infonce_bounds

    out = _run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"infonce-bounds {infonce_bounds.__version__}"


def test_closed_stdout_exits_quietly():
    """`infonce-bounds constants --json | head -c 20`: no traceback, status 0 or 141."""
    code = (
        "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', 'import sys; from infonce_bounds."
        "numerics.cli import main; sys.exit(main(sys.argv[1:]))', 'constants', '--tau', '0.5', '--k', '64',"
        " '--json'], stdout=subprocess.PIPE, stderr=subprocess.PIPE); p.stdout.read(20); p.stdout.close();"
        " err = p.stderr.read().decode(); rc = p.wait(); print(rc); print(repr(err))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    rc, err = out.stdout.splitlines()
    assert int(rc) in (0, 141) and "Traceback" not in err and "Error" not in err, (rc, err)


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["compare", "--k", "1,x"], "--k"),
        (["exact", str(ROOT / "tests" / "data" / "own_two_point_extremal_tau2.json"), "--k", "0"], "--k"),
        (["experiment", "rate", "--k", "5-2"], "--k"),
        (["constants", "--k", "0"], "--k"),
    ],
)
def test_one_k_list_syntax_and_one_line_errors(argv, flag):
    out = _run(*argv, timeout=300)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and flag in out.stderr, out.stderr


def test_k_list_forms_agree():
    from infonce_bounds.numerics.klist import parse_k_list

    doubling = [2**i for i in range(13)]
    assert parse_k_list("1..4096").tolist() == doubling
    assert parse_k_list("1,2,4,...,4096").tolist() == doubling
    assert parse_k_list("1-8").tolist() == list(range(1, 9))
    assert parse_k_list("3,9,...,100").tolist() == [3, 9, 27, 81, 100]
    with pytest.raises(ValueError, match="at most 10"):
        parse_k_list("1-300000000", max_values=10)  # refused from its ranges, never materialised


def test_experiments_that_need_an_extra_say_so(monkeypatch):
    """On a core install the report skips (one line naming the extra) every experiment using the digits data."""
    import importlib
    import importlib.util

    from infonce_bounds.numerics.commands.experiment import EXPERIMENTS
    from infonce_bounds.numerics.experiments import common

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "sklearn" else real(name, *a))
    for mod_name in EXPERIMENTS.values():
        mod = importlib.import_module(f"infonce_bounds.numerics.experiments.{mod_name}")
        tree = ast.parse(pathlib.Path(mod.__file__).read_text())
        uses_digits = any(
            isinstance(node, ast.ImportFrom) and node.level >= 1 and "digits" in {a.name for a in node.names}
            for node in ast.walk(tree)
        )
        if uses_digits:
            assert common.missing_extra(mod) == (
                'needs sklearn, which is not installed: pip install "infonce-bounds[experiments]"'
            ), mod_name
        else:
            assert common.missing_extra(mod) is None, mod_name
