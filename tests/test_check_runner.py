"""``check FILE`` through ``verify``'s runner: workers, the run cache, crash isolation, dependency waves."""

from __future__ import annotations

import json
import os

import pytest

import infonce_bounds.derivations.checks as checks
from infonce_bounds.derivations.checks.budget import CHECK
from infonce_bounds.derivations.run.claims import claim_key
from infonce_bounds.derivations.userclaims import check, parse
from infonce_bounds.numerics.cli import main

TRIALS = 300

MIXED = r"""
[[claim]]
name = "square"
claim = 'x^{2} + 3 \ge 0'
where = { x = [-4, 4] }

[[claim]]
name = "log below the line"
claim = '\log(1 + x) \le x'
where = { x = [0, 5] }

[[claim]]
name = "planted false"
claim = 'e^{x} \le 1 + x + x^{2}'
where = { x = [0, 3] }

[[claim]]
name = "undefined on half"
claim = '\log(x) \le x'
where = { x = [-1, 1] }

[[claim]]
name = "falls over"
sympy = "x**3 + 1 >= 1"
where = { x = [0, 2] }

[[claim]]
name = "exp above tangent"
claim = 'e^{x} \ge 1 + x'
where = { x = [-2, 2] }
"""


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """A run cache of this test's own: what another test cached must not answer here."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path


def _falling_over(monkeypatch, calls: list | None = None, crash: str | None = None) -> None:
    """``check_step`` raising on the claim "falls over" (and ``os._exit`` on ``crash``); counts its calls."""
    real = checks.check_step

    def patched(step, **opts):
        if calls is not None:
            calls.append((step.name, opts))
        if step.name == "falls over":
            raise RuntimeError("planted internal error")
        if step.name == crash:
            os._exit(7)  # a worker dying mid-claim (a crash in a C library, the OOM killer)
        return real(step, **opts)

    monkeypatch.setattr(checks, "check_step", patched)


def _verdicts(out: dict) -> list[tuple[str, str, str]]:
    return [(c["name"], c["verdict"], c["method"]) for c in out["claims"]]


def test_parallel_equals_serial_on_a_mixed_file(own_cache, monkeypatch):
    _falling_over(monkeypatch)
    serial = check(MIXED, trials=TRIALS, workers=1, use_cache=False)
    parallel = check(MIXED, trials=TRIALS, workers=2, use_cache=False)
    assert parallel["cache"] == {"cached": 0, "checked": 6, "workers": 2}
    assert _verdicts(parallel) == _verdicts(serial)  # the same verdicts, methods, and the file's order
    by = {c["name"]: c["verdict"] for c in parallel["claims"]}
    assert by == {
        "square": "proved",
        "log below the line": "proved",
        "planted false": "refuted",  # the planted false claim is never proved
        "undefined on half": "ill-posed",
        "falls over": "error",
        "exp above tangent": "proved",
    }
    for key in ("counterexample", "worst_ratio", "covered", "trials"):
        assert [c[key] for c in parallel["claims"]] == [c[key] for c in serial["claims"]], key
    assert parallel["exit_status"] == serial["exit_status"] == 3


def test_second_run_is_answered_from_the_cache_without_a_check(own_cache, monkeypatch, capsys):
    f = own_cache / "claims.toml"
    f.write_text(MIXED)
    calls: list = []
    _falling_over(monkeypatch, calls)
    first = check(f, trials=TRIALS, workers=1)
    assert first["cache"]["cached"] == 0 and len(calls) == 6
    calls.clear()
    again = check(f, trials=TRIALS, workers=1)
    # every claim but the internal error (never stored) from the cache: one check, of "falls over"
    assert [c["name"] for c in again["claims"] if not c["cached"]] == ["falls over"]
    assert [name for name, _ in calls] == ["falls over"]
    assert again["cache"] == {"cached": 5, "checked": 1, "workers": 1}
    assert _verdicts(again) == _verdicts(first)
    assert [c["seconds"] for c in again["claims"][:4]] == [c["seconds"] for c in first["claims"][:4]]
    # the CLI says so, in the s column and in the summary
    assert main(["check", str(f), "--trials", str(TRIALS)]) == 3
    out = capsys.readouterr().out
    assert "cache: 5 claim(s) answered from the cache" in out
    square = next(line for line in out.splitlines() if line.startswith("square "))
    assert square.rstrip().endswith("cached")
    # --no-cache checks everything again
    calls.clear()
    assert main(["check", str(f), "--trials", str(TRIALS), "--no-cache", "--workers", "1", "--json"]) == 3
    assert len(calls) == 6 and not any(c["cached"] for c in json.loads(capsys.readouterr().out)["claims"])


def test_a_changed_claim_is_checked_again(own_cache, monkeypatch):
    calls: list = []
    _falling_over(monkeypatch, calls)
    check(MIXED, trials=TRIALS, workers=1)
    calls.clear()
    edited = MIXED.replace("x^{2} + 3 \\ge 0", "x^{2} + 4 \\ge 0").replace("x = [0, 5]", "x = [0, 6]")
    out = check(edited, trials=TRIALS, workers=1)
    assert sorted(name for name, _ in calls) == ["falls over", "log below the line", "square"]
    assert [c["name"] for c in out["claims"] if not c["cached"]] == ["square", "log below the line", "falls over"]
    # what changes a verdict changes the key: trials, seed, the budget
    calls.clear()
    check(MIXED, trials=TRIALS + 1, workers=1)
    assert len(calls) == 6
    calls.clear()
    check(MIXED, trials=TRIALS, seed=1, workers=1)
    assert len(calls) == 6
    calls.clear()
    check(MIXED, trials=TRIALS, workers=1, budget=CHECK.but(claim_seconds=20.0))
    assert len(calls) == 6


def test_the_key_is_the_parsed_content():
    _, (a, b, c, d) = parse(
        "[[claim]]\nname = 'a'\nclaim = 'x^{2} \\ge 0'\nwhere = { x = [-1, 1] }\n"
        "[[claim]]\nname = 'b'\nsympy = 'x**2 >= 0'\nwhere = { x = [-1, 1] }\nnote = 'prose'\n"
        "[[claim]]\nname = 'c'\nsympy = 'x**2 >= 0'\nwhere = { x = [-1, 2] }\n"
        "[[claim]]\nname = 'd'\nclaim = 'x^{2} \\ge 0'\nwhere = { x = [-1, 1] }\nnote = 'other prose'\n"
    )
    opts = {"trials": 100, "seed": 0}
    # two spellings (LaTeX, SymPy) of one statement, another note: one key; the name seeds the falsifier
    b_as_a = type(b)(**{**vars(b), "name": "a"})
    b_as_a.step = type(b.step)(**{**{f: getattr(b.step, f) for f in b.step.__dataclass_fields__}, "name": "a"})
    assert claim_key(b_as_a, opts, CHECK) == claim_key(a, opts, CHECK)
    assert claim_key(d, opts, CHECK) != claim_key(a, opts, CHECK)  # the same claim, another name
    assert claim_key(b, opts, CHECK) != claim_key(c, opts, CHECK)  # another range
    assert claim_key(a, opts, CHECK) != claim_key(a, {**opts, "seed": 1}, CHECK)
    assert claim_key(a, opts, CHECK) != claim_key(a, {**opts, "trials": 101}, CHECK)
    assert claim_key(a, opts, CHECK) != claim_key(a, opts, CHECK.but(memory_mb=256.0))
    assert claim_key(a, opts, CHECK) != claim_key(a, opts, CHECK, ["the key of a cited claim"])


def test_identical_claims_under_two_names_are_not_one_entry(own_cache):
    """The falsifier draws from ``seed:name``: each name's own check is what the cache gives back."""
    text = "".join(
        f"[[claim]]\nname = 'log{i}'\nclaim = '\\log(1 + x) \\le x'\nwhere = {{ x = [0, 4] }}\n" for i in range(4)
    )
    cold = check(text, trials=2000, workers=1)
    warm = check(text, trials=2000, workers=2)
    assert all(c["cached"] for c in warm["claims"])
    assert [c["evidence"] for c in warm["claims"]] == [c["evidence"] for c in cold["claims"]]
    alone = [
        check(
            text.split("\n[[claim]]")[0] if i == 0 else "[[claim]]" + text.split("\n[[claim]]")[i],
            trials=2000,
            use_cache=False,
        )
        for i in range(4)
    ]  # noqa: E501
    assert [x["claims"][0]["evidence"] for x in alone] == [c["evidence"] for c in cold["claims"]]


def test_a_crashing_worker_costs_its_claim_only(own_cache, monkeypatch, capsys):
    _falling_over(monkeypatch, crash="log below the line")
    f = own_cache / "claims.toml"
    f.write_text(MIXED)
    assert main(["check", str(f), "--trials", str(TRIALS), "--json", "--workers", "2"]) == 3
    out = json.loads(capsys.readouterr().out)
    by = {c["name"]: c for c in out["claims"]}
    assert by["log below the line"]["verdict"] == "error"
    assert (
        "worker process" in by["log below the line"]["method"]
        and "ended without answering" in by["log below the line"]["method"]
    )
    assert by["falls over"]["verdict"] == "error"
    assert [by[n]["verdict"] for n in ("square", "planted false", "undefined on half", "exp above tangent")] == [
        "proved",
        "refuted",
        "ill-posed",
        "proved",
    ]
    assert [c["name"] for c in out["claims"]] == list(by)  # the file's order


USES = r"""
[[claim]]
name = "base"
claim = '\log(1 + x) \le x'
where = { x = [0, 2] }

[[claim]]
name = "other"
claim = 'x^{2} \ge 0'
where = { x = [-1, 1] }

[[claim]]
name = "built on base"
claim = '\log(1 + x) \le x + 1'
where = { x = [0, 2] }
uses = ["base", "other"]
"""


@pytest.mark.parametrize("workers", [1, 2])
def test_a_claim_runs_after_the_claims_it_uses_and_receives_their_results(own_cache, workers):
    out = check(USES, trials=TRIALS, workers=workers, use_cache=False)
    seen = {c["name"]: c for c in out["claims"]}
    # proved as an instance of 'base': the route had base's result (a missing one reads "not proved: its citation")
    assert seen["built on base"]["verdict"] == "proved"
    assert seen["built on base"]["method"].startswith("citation route: instance of 'base'")
    assert seen["built on base"]["uses_not_proved"] == []
    assert "citation" not in seen["base"]["method"]
    # from the cache the cited results come back too
    again = check(USES, trials=TRIALS, workers=workers)
    assert all(c["cached"] for c in again["claims"])


def test_progress_reports_every_claim_once_in_parallel(own_cache):
    calls: list = []
    out = check(MIXED.replace("falls over", "x cubed"), trials=TRIALS, workers=2, on_result=lambda *a: calls.append(a))
    assert [c[0] for c in calls] == list(range(1, 7)) and all(c[1] == 6 for c in calls)
    assert sorted(c[2] for c in calls) == sorted(c["name"] for c in out["claims"])


def test_bad_workers(tmp_path, capsys):
    f = tmp_path / "ok.toml"
    f.write_text("[[claim]]\nname = 'a'\nsympy = 'x <= 1'\nwhere = { x = [0, 1] }\n")
    assert main(["check", str(f), "--workers", "0"]) == 2
    assert "--workers must be ≥ 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="workers"):
        check(f, workers=0)


def _long_file(n: int, bad: tuple[int, ...] = ()) -> str:
    out = []
    for i in range(n):
        body = f"x^{{2}} + {i} \\ge 0" if i not in bad else "x^{2} \\ge \\frac{1}{"  # unbalanced: malformed
        out.append(f"[[claim]]\nname = 'c{i}'\nclaim = '{body}'\nwhere = {{ x = [-{i + 1}, 1] }}\n")
    out.append("[[claim]]\nname = 'two-sided'\nclaim = '\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1'\n")
    out.append("[[claim]]\nname = 'last'\nsympy = 'x <= 2'\nwhere = { x = [0, 1] }\nuses = ['c0', 'two-sided']\n")
    return "\n".join(out)


def test_a_long_file_is_read_in_parallel_as_serially():
    from infonce_bounds.derivations.userclaims import PARALLEL_READ

    text = _long_file(PARALLEL_READ + 10)
    der1, serial = parse(text, workers=1)
    der2, parallel = parse(text, workers=2)
    assert [c.name for c in parallel] == [c.name for c in serial] == [s.name for s in der2.steps]
    assert [c.read_sympy for c in parallel] == [c.read_sympy for c in serial]
    assert [c.second_reader for c in parallel] == [c.second_reader for c in serial]
    opts = {"trials": 100, "seed": 0}
    assert [claim_key(c, opts, CHECK) for c in parallel] == [claim_key(c, opts, CHECK) for c in serial]
    assert parallel[-2].step.check is not None  # the two-sided limit's check came back from its reader
    assert parallel[-1].uses == ("c0", "two-sided")


def test_a_long_file_raises_its_first_malformed_claim():
    from infonce_bounds.derivations.userclaims import PARALLEL_READ, ClaimFileError

    text = _long_file(PARALLEL_READ + 20, bad=(PARALLEL_READ + 15, PARALLEL_READ + 5))
    with pytest.raises(ClaimFileError) as serial:
        parse(text, workers=1)
    with pytest.raises(ClaimFileError) as parallel:
        parse(text, workers=2)
    assert str(parallel.value) == str(serial.value) and f"c{PARALLEL_READ + 5}" in str(parallel.value)


def test_the_engine_imports_neither_the_runner_nor_the_catalogue():
    """Every import in ``checks/`` (module level and inside functions): none reaches ``run`` or ``catalogue``."""
    import ast
    import pathlib

    import infonce_bounds.derivations as pkg

    root = pathlib.Path(pkg.__file__).parent
    bad, seen = [], 0
    for f in sorted((root / "checks").rglob("*.py")):
        package = ["infonce_bounds", "derivations", *f.parent.relative_to(root).parts]
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                mod = ".".join([*base, *([node.module] if node.module else [])])
                targets = [mod, *(f"{mod}.{a.name}" for a in node.names)]
            else:
                continue
            seen += 1
            for t in targets:
                if t.startswith(("infonce_bounds.derivations.run", "infonce_bounds.derivations.catalogue")):
                    bad.append(f"{f.relative_to(root)}:{node.lineno}: {t}")
    assert seen > 100 and not bad, bad


@pytest.mark.parametrize("workers", [1, 2])
def test_reading_a_long_file_reports_progress(workers):
    from infonce_bounds.derivations.userclaims import PARALLEL_READ

    seen: list = []
    _, claims = parse(_long_file(PARALLEL_READ + 10), workers=workers, on_read=lambda *a: seen.append(a))
    total = len(claims)
    assert seen[0] == (1, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and all(t == total for _, t in seen)


def test_a_verdict_the_clock_may_have_shaped_is_not_stored():
    from infonce_bounds.derivations.run.claims import ClaimPlan

    plan = ClaimPlan([], {"trials": 1, "seed": 0}, CHECK)
    ok = {"verdict": "proved", "method": "symbolic", "evidence": "", "seconds": 0.2}
    assert plan.storable(ok)
    for method, evidence in [
        ("symbolic; falsifier: time budget spent", ""),
        ("interval arithmetic", "interval arithmetic: time budget spent after 300 boxes"),
        ("symbolic", "simplify of the gap: time budget (4 s) spent"),
        ("x", "sign: memory budget (512 MB) spent"),
    ]:
        assert not plan.storable({**ok, "method": method, "evidence": evidence}), (method, evidence)
    assert not plan.storable({**ok, "seconds": 0.5 * CHECK.claim_seconds})  # long enough for silent cuts
    assert not plan.storable({**ok, "verdict": "error"})
    assert ClaimPlan([], {"trials": 1, "seed": 0}, CHECK.but(claim_seconds=None)).storable({**ok, "seconds": 60.0})
