"""The verify cache: keys that are the same in every process, that change exactly where the content
changes, and an unchanged catalogue answered without SymPy or numba."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import types

import pytest
import sympy as sp

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.ledger import Derivation, Domain, Step, StepResult, Verdict
from infonce_bounds.derivations.run import cache as _checkcache
from infonce_bounds.derivations.run import runner

x = sp.Symbol("x", real=True)
OPTS = {"trials": 100_000, "seed": 0}

#: every step's key and fingerprint checks, printed as JSON by a fresh interpreter
_KEYS_SCRIPT = r"""
import json, pathlib, re, sys
from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.run import runner
ders = catalogue.all_derivations()
keys = runner._derivation_keys(ders, {"trials": 100000, "seed": 0})
out = {"keys": {}, "bad": []}
pkg = str(pathlib.Path(runner.__file__).resolve().parents[2])  # the clone (or install) directory
for d in ders:
    for st, key in zip(d.steps, keys[d.name]):
        out["keys"][d.name + "/" + st.name] = key
        text = runner.step_fingerprint(st, {"trials": 100000, "seed": 0})
        if pkg in text or re.search(r"0x[0-9a-f]{6,}", text) or runner._TOO_DEEP in text:
            out["bad"].append(d.name + "/" + st.name)
print(json.dumps(out))
"""


def _keys_in_fresh_process(hashseed: str, cwd) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    proc = subprocess.run(
        [sys.executable, "-c", _KEYS_SCRIPT], env=env, cwd=cwd, capture_output=True, text=True, check=True
    )
    return json.loads(proc.stdout)


def test_every_step_key_is_the_same_in_two_fresh_processes(tmp_path):
    # different string-hash seeds (set order) and working directories; SymPy's Dummy counter differs too
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = _keys_in_fresh_process("1", tmp_path / "a")
    two = _keys_in_fresh_process("2", tmp_path / "b")
    assert one["keys"].keys() == two["keys"].keys()
    assert len(one["keys"]) == sum(len(d.steps) for d in catalogue.all_derivations())
    differ = sorted(k for k in one["keys"] if one["keys"][k] != two["keys"][k])
    assert differ == [], f"{len(differ)} unstable keys, e.g. {differ[:3]}"
    # nothing machine-specific enters a key: no absolute path, no object address, nothing cut off
    assert one["bad"] == [], one["bad"][:3]
    assert len(set(one["keys"].values())) == len(one["keys"])  # and no two steps share a key


def test_dummy_symbols_are_numbered_by_appearance():
    i1, i2 = sp.Dummy("i"), sp.Dummy("i")
    a = Step("s", sp.Sum(x * i1, (i1, 1, 3)), 6 * x, domain=Domain({x: (0, 1)}))
    b = Step("s", sp.Sum(x * i2, (i2, 1, 3)), 6 * x, domain=Domain({x: (0, 1)}))
    assert runner.step_key(a, OPTS) == runner.step_key(b, OPTS)
    # two distinct dummies stay distinct: Σ_i Σ_j i ≠ Σ_i Σ_j j must not collide with Σ_i Σ_i …
    j1 = sp.Dummy("i")
    c = Step("s", sp.Sum(sp.Sum(i1, (i1, 1, 2)), (j1, 1, 2)), 6, domain=Domain({x: (0, 1)}))
    d = Step("s", sp.Sum(sp.Sum(j1, (i1, 1, 2)), (j1, 1, 2)), 6, domain=Domain({x: (0, 1)}))
    assert runner.step_key(c, OPTS) != runner.step_key(d, OPTS)


# ---------------------------------------------------------------------------------- what a key sees


def _dependents(name: str, ders: list[Derivation]) -> set[str]:
    out = {name}
    for d in ders:  # registration order: a dependent comes after what it depends on
        if set(d.depends_on) & out:
            out.add(d.name)
    return out


def _changed_keys(ders: list[Derivation], edited: list[Derivation]) -> set[tuple[str, int]]:
    before = runner._derivation_keys(ders, OPTS)
    after = runner._derivation_keys(edited, OPTS)
    return {(d.name, i) for d in ders for i in range(len(d.steps)) if before[d.name][i] != after[d.name][i]}


def _edit(ders: list[Derivation], name: str, index: int, **changes) -> list[Derivation]:
    out = []
    for d in ders:
        if d.name == name:
            steps = list(d.steps)
            steps[index] = dataclasses.replace(steps[index], **changes)
            d = dataclasses.replace(d, steps=steps)
        out.append(d)
    return out


def _target(ders: list[Derivation], custom: bool) -> tuple[str, int]:
    """A step (with a custom checker, or not) of a derivation that other derivations depend on."""
    used = {dep for d in ders for dep in d.depends_on}
    for d in ders:
        for i, st in enumerate(d.steps):
            if d.name in used and (st.check is not None) == custom and st.kind != "definition":
                return d.name, i
    raise AssertionError("no such step in the catalogue")


def test_an_edited_step_changes_exactly_its_key_and_its_dependents():
    ders = catalogue.all_derivations()
    name, i = _target(ders, custom=False)
    step = ders[[d.name for d in ders].index(name)].steps[i]
    edited = _edit(ders, name, i, rhs=step.rhs + 1)
    deps = _dependents(name, ders)
    expected = {(name, i)} | {(d.name, j) for d in ders if d.name in deps - {name} for j in range(len(d.steps))}
    assert len(deps) > 1
    assert _changed_keys(ders, edited) == expected
    # prose is not content: a new note or reference changes no key
    assert _changed_keys(ders, _edit(ders, name, i, note="reworded")) == set()


def test_an_edited_custom_checker_changes_exactly_its_key_and_its_dependents():
    ders = catalogue.all_derivations()
    name, i = _target(ders, custom=True)
    original = ders[[d.name for d in ders].index(name)].steps[i].check

    def stricter(step, opts, _inner=original):  # new code around the same checker
        return _inner(step, {**opts, "trials": opts["trials"] + 1})

    deps = _dependents(name, ders)
    expected = {(name, i)} | {(d.name, j) for d in ders if d.name in deps - {name} for j in range(len(d.steps))}
    assert _changed_keys(ders, _edit(ders, name, i, check=stricter)) == expected


def _module_with_checker(helper_src: str, other_src: str) -> types.FunctionType:
    mod = types.ModuleType("infonce_cache_test_mod")
    exec(
        "def helper(v):\n" + helper_src + "\n"
        "def unrelated():\n" + other_src + "\n"
        "def checker(step, opts):\n    return helper(opts)\n",
        mod.__dict__,
    )
    return mod.checker


def test_key_follows_the_helpers_a_checker_calls_and_ignores_unrelated_code():
    def key(checker):
        return runner.step_key(Step("s", x, x, domain=Domain({x: (0, 1)}), check=checker), OPTS)

    base = key(_module_with_checker("    return 1", "    return 0"))
    assert key(_module_with_checker("    return 1", "    return 0")) == base
    assert key(_module_with_checker("    return 2", "    return 0")) != base  # the helper it calls changed
    assert key(_module_with_checker("    return 1", "    return 5")) == base  # code it never calls changed


def test_a_planted_wrong_cache_entry_is_not_served_for_a_changed_step(tmp_path, monkeypatch):
    """The key must be able to fail: a step edited to a false claim is re-checked and refuted."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    good = Derivation(
        "cache_test_good",
        "t",
        [Step("x² ≥ 0", x**2, 0, kind="inequality", relation=">=", domain=Domain({x: (-2, 2)}))],
        result="x² ≥ 0",
    )
    bad = dataclasses.replace(good, steps=[dataclasses.replace(good.steps[0], rhs=sp.Integer(1))])
    res, _ = runner.verify_derivations([good], {"trials": 200}, workers=1)
    assert res["cache_test_good"][0].verdict is Verdict.PROVED
    res, stats = runner.verify_derivations([bad], {"trials": 200}, workers=1)
    assert stats["checked"] == 1 and res["cache_test_good"][0].verdict is Verdict.REFUTED


# ---------------------------------------------------------------------------------- the CLI's cached path

_CLI_PROBE = r"""
import sys
from infonce_bounds.numerics.cli import main
status = main(sys.argv[1:])
heavy = sorted(m for m in ("sympy", "numpy", "numba", "flint") if m in sys.modules)
print("HEAVY=" + ",".join(heavy))
sys.exit(status)
"""


def _cli(argv, env):
    return subprocess.run([sys.executable, "-c", _CLI_PROBE, *argv], env=env, capture_output=True, text=True)


def test_unchanged_catalogue_is_answered_without_sympy_or_numba(tmp_path, monkeypatch):
    """`verify` with a warm catalogue entry: the table from the cache, no heavy import, exit status 0."""
    from infonce_bounds.numerics.commands.verify import verify_all

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    small = [catalogue.get("loss")]
    monkeypatch.setattr(catalogue, "all_derivations", lambda: small)
    monkeypatch.setattr(catalogue, "iter_derivations", lambda: iter(small))  # what verify builds lazily
    first = verify_all([], 200, None, progress=False, workers=1)
    assert first["cache"]["catalogue_hit"] is False and first["cache"]["checked"] == len(small[0].steps)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    proc = _cli(["verify", "--trials", "200"], env)
    assert proc.returncode == 0, proc.stderr
    assert "(catalogue unchanged)" in proc.stdout and "HEAVY=\n" in proc.stdout
    assert f"{len(small[0].steps)} steps in" in proc.stdout
    # another budget is another key: a miss, which builds the catalogue (and imports SymPy)
    assert _checkcache.load(_checkcache.catalogue_key({"trials": 201, "seed": None})) is None
    # the same run asked for with the seed given explicitly hits the same entry
    hit = verify_all([], 200, 0, progress=False, workers=1)
    assert hit["cache"]["catalogue_hit"] is True


def test_an_edited_source_file_misses_the_catalogue_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    extra = tmp_path / "extra"
    extra.mkdir()
    import infonce_bounds.derivations as pkg

    monkeypatch.setattr(pkg, "__path__", [*pkg.__path__, str(extra)])
    (extra / "toy.py").write_text("A = 1\n")
    k1 = _checkcache.catalogue_key(OPTS)
    assert _checkcache.catalogue_key(OPTS) == k1
    (extra / "toy.py").write_text("A = 2\n")
    assert _checkcache.catalogue_key(OPTS) != k1
    assert _checkcache.catalogue_key({**OPTS, "trials": 7}) != _checkcache.catalogue_key(OPTS)


def test_verify_help_states_the_engines_default_budget(capsys):
    from infonce_bounds.derivations.checks import DEFAULTS
    from infonce_bounds.numerics.cli import main

    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    assert f"{DEFAULTS['trials']}" in capsys.readouterr().out


def test_cached_results_round_trip():
    res = StepResult("s", "inequality", Verdict.VERIFIED, "falsifier", "e", worst_ratio=0.5, trials=9)
    back = runner.result_from_dict(json.loads(json.dumps(res.as_dict())))
    assert back.as_dict() == res.as_dict()


def test_key_sees_a_change_inside_mutually_recursive_helpers():
    ns: dict = {}
    exec("def f(n):\n    return g(n - 1) if n else 0\ndef g(n):\n    return f(n) + 1\n", ns)
    step = Step("s", x, x, domain=Domain({x: (0, 1)}), check=ns["f"])
    before = runner.step_key(step, OPTS)
    exec("def g(n):\n    return f(n) + 2\n", ns)  # f unchanged; the g it calls is new
    assert runner.step_key(step, OPTS) != before


def test_a_worker_that_dies_costs_no_result(tmp_path, monkeypatch, capsys):
    """A worker killed mid-check (out of memory, say): the remaining steps are checked in the parent."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    parent = os.getpid()

    def dies_in_a_worker(step, opts):
        if os.getpid() != parent:
            os._exit(9)
        return StepResult(step.name, step.kind, Verdict.PROVED, "planted: proved in the parent only")

    steps = [Step(f"s{i}", x, x, domain=Domain({x: (0, 1)}), check=dies_in_a_worker) for i in range(3)]
    der = Derivation("cache_test_dies", "t", steps, result="s0")
    res, stats = runner.verify_derivations([der], {"trials": 10}, workers=2)
    assert [r.verdict for r in res["cache_test_dies"]] == [Verdict.PROVED] * 3 and stats["checked"] == 3
    assert "a worker process died" in capsys.readouterr().err


# ------------------------------------------------------- hinted routes: keyed by name, parameters, engine


def _hinted(name: str = "monotone", **params) -> Step:
    """``log(1 + x) ≤ x`` on [0, 1] from its end 0, by the route ``name`` with ``params`` (keys only: not checked)."""
    base = {"end": 0, "derivative": x / (1 + x), "var": x, "side": "left"}
    return Step(
        "log below the line",
        sp.log(1 + x),
        x,
        "inequality",
        Domain({x: (0, 1)}),
        relation="<=",
        route=(name, {**base, **params}),
    )


def test_a_hinted_step_is_keyed_by_its_route_name_parameters_and_the_engine_never_code():
    from infonce_bounds.derivations.run import route_keys

    step = _hinted()
    text = runner.step_fingerprint(step, OPTS)
    assert route_keys.LAYOUT in text and text.startswith(_checkcache.engine_version())
    assert "'monotone'" in text and "code(" not in text and "fn(" not in text
    key = runner.step_key(step, OPTS)
    assert runner.step_key(_hinted(), OPTS) == key  # the same hint built again
    reordered = dataclasses.replace(step, route=("monotone", dict(reversed(list(step.route[1].items())))))
    assert runner.step_key(reordered, OPTS) == key  # a mapping, not an order
    # two steps that differ only in the route's parameters (or its name) have different keys
    others = [
        _hinted(end=1),
        _hinted(derivative=x / (2 + x)),
        _hinted(side="right"),
        _hinted(extra=sp.Rational(1, 2)),
        _hinted("certificate"),
    ]
    keys = [runner.step_key(s, OPTS) for s in others]
    assert key not in keys and len(set(keys)) == len(keys)
    # and the claim itself is in the key: another domain, another key
    assert runner.step_key(dataclasses.replace(step, domain=Domain({x: (0, 2)})), OPTS) != key


_HINTED_KEY_SCRIPT = r"""
import json, sympy as sp
from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.ledger import Domain, Step
from infonce_bounds.derivations.run import runner
x = sp.Symbol("x", real=True)
opts = {"trials": 100000, "seed": 0}
own = Step("log below the line", sp.log(1 + x), x, "inequality", Domain({x: (0, 1)}), relation="<=",
           route=("monotone", {"end": 0, "derivative": x / (1 + x), "var": x, "side": "left"}))
hinted = [s for s in catalogue.get("angle_class").steps if s.route is not None]
print(json.dumps({"own": runner.step_key(own, opts), **{s.name: runner.step_key(s, opts) for s in hinted}}))
"""


def test_an_unchanged_hinted_step_keeps_its_key_across_processes(tmp_path):
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    proc = subprocess.run(
        [sys.executable, "-c", _HINTED_KEY_SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True, check=True
    )
    there = json.loads(proc.stdout)
    here = {"own": runner.step_key(_hinted(), OPTS)}
    here.update({s.name: runner.step_key(s, OPTS) for s in catalogue.get("angle_class").steps if s.route is not None})
    assert len(here) >= 3 and there == here  # own + the angle class's hinted steps (monotone ×2, conjunction)


def test_a_hint_parameter_that_is_code_is_refused_naming_it():
    step = _hinted(derivative=lambda t: t / (1 + t))
    with pytest.raises(ValueError, match=r"route 'monotone' parameter 'derivative' is a function, not data"):
        runner.step_key(step, OPTS)


def test_a_check_closure_beside_a_route_is_keyed_by_its_code():
    """The closure decides (``check_step`` runs it first): its code is in the key, as for any ``check=``."""

    def lenient(step, opts):
        return None

    def strict(step, opts):
        return 0

    a, b = (dataclasses.replace(_hinted(), check=fn) for fn in (lenient, strict))
    assert "route-v1" not in runner.step_fingerprint(a, OPTS)
    assert runner.step_key(a, OPTS) != runner.step_key(b, OPTS) != runner.step_key(_hinted(), OPTS)


def test_a_parameter_the_route_declares_as_code_is_keyed_by_its_code():
    """The expectation route's law ``attack`` (a numeric search, never the proof) may be code
    (``HintedRoute.code``): keyed by its bytecode, so another attack is another key; a code parameter the
    route does not declare is still refused."""

    def attack_a(step, opts):
        return None

    def attack_b(step, opts):
        return 0

    def hinted(attack):
        return Step(
            "E log ≤ log E",
            x,
            x + 1,
            "inequality",
            Domain({x: (0, 1)}),
            relation="<=",
            route=("expectation", {"rule": "pointwise", "attack": attack}),
        )

    a, b = (runner.step_key(hinted(fn), OPTS) for fn in (attack_a, attack_b))
    assert a != b and a == runner.step_key(hinted(attack_a), OPTS)
    bad = dataclasses.replace(hinted(attack_a), route=("expectation", {"rule": "pointwise", "phi": attack_a}))
    with pytest.raises(ValueError, match=r"route 'expectation' parameter 'phi' is a function, not data"):
        runner.step_key(bad, OPTS)
