"""Verdicts are built only by ``checks/verdicts.py``, whose builders refuse a verdict that lacks what it means."""

from __future__ import annotations

import ast
import pathlib

import pytest
import sympy as sp

import infonce_bounds
from infonce_bounds import derivations, numerics
from infonce_bounds.derivations.checks import verdicts as V
from infonce_bounds.derivations.ledger import Domain, Step, StepResult, Verdict
from infonce_bounds.derivations.symbols import x

#: the one module that may call ``StepResult(``
BUILDERS = "derivations/checks/verdicts.py"
#: modules allowed to call ``StepResult(`` besides the builders: none (the test below fails on an entry that no
#: longer calls it, so the set cannot go stale)
NOT_YET_CONVERTED: frozenset[str] = frozenset()


def _sources() -> dict[str, pathlib.Path]:
    """Every module of the package, keyed by its path in the repository (derivations/…, numerics/…, src/…)."""
    roots = {
        "derivations": pathlib.Path(derivations.__file__).parent,
        "numerics": pathlib.Path(numerics.__file__).parent,
        "src/infonce_bounds": pathlib.Path(infonce_bounds.__file__).parent,
    }
    return {f"{name}/{p.relative_to(root).as_posix()}": p for name, root in roots.items() for p in root.rglob("*.py")}


def _constructions(path: pathlib.Path) -> list[int]:
    """Lines of ``path`` that call ``StepResult(…)`` (by name or as an attribute, ``ledger.StepResult(…)``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if (isinstance(f, ast.Name) and f.id == "StepResult") or (
                isinstance(f, ast.Attribute) and f.attr == "StepResult"
            ):
                lines.append(node.lineno)
    return lines


def test_no_step_result_is_built_outside_the_builders():
    sources = _sources()
    assert BUILDERS in sources and len(sources) > 50  # the walk sees the package
    found = {rel: _constructions(p) for rel, p in sources.items()}
    stray = {rel: lines for rel, lines in found.items() if lines and rel != BUILDERS and rel not in NOT_YET_CONVERTED}
    assert not stray, f"StepResult( outside {BUILDERS} (use its builders): {stray}"
    stale = sorted(rel for rel in NOT_YET_CONVERTED if not found.get(rel))
    assert not stale, f"converted: remove from NOT_YET_CONVERTED {stale}"
    assert found[BUILDERS]  # the builders do build


def test_the_walk_catches_a_hand_built_verdict(tmp_path):
    """The detector itself: both spellings of a construction are found, a mere mention is not."""
    src = tmp_path / "m.py"
    src.write_text(
        "from x import StepResult, ledger\n"
        "a = StepResult('s', 'identity', 'proved', 'm')\n"
        "b = ledger.StepResult('s', 'identity', 'proved', 'm')\n"
        "def f() -> StepResult: ...\n"
    )
    assert _constructions(src) == [2, 3]


STEP = Step("x ≤ 1", x, sp.Integer(1), "inequality", Domain({x: (0, 1)}), relation="<=")
RNG = {"x": ("0", "1")}


@pytest.mark.parametrize(
    ("build", "exc", "says"),
    [
        (lambda: V.proved(STEP, method="m", cover=None), ValueError, "cover"),
        (lambda: V.proved(STEP, method="m", cover=[("0", "1")]), ValueError, "cover"),
        (lambda: V.proved(STEP, method="m", cover={"x": "0..1"}), ValueError, "cover"),
        (lambda: V.proved(STEP, method="", cover=RNG), ValueError, "method"),
        (lambda: V.refuted(STEP, method="m", counterexample=None), ValueError, "counterexample"),
        (lambda: V.refuted(STEP, method="m", counterexample={}), ValueError, "counterexample"),
        (lambda: V.refuted_argument(STEP, method="m", reason=""), ValueError, "reason"),
        (lambda: V.verified(STEP, method="m", attacked=None), ValueError, "attacked"),
        (lambda: V.verified(STEP, method="m", attacked={}), ValueError, "attacked"),
        (lambda: V.undecided(STEP, method="  "), ValueError, "method"),
        (lambda: V.ill_posed(STEP, point={}, method="m"), ValueError, "point"),
        (lambda: V.ill_posed(STEP, point=None, method="m"), ValueError, "point"),
        (lambda: V.cited("link 1", kind="chain", reference=""), ValueError, "reference"),
        (lambda: V.defined("a name without a kind", method="m"), ValueError, "kind"),
        (lambda: V.defined(42, method="m"), ValueError, "step"),
        # a computed verdict goes through the same builder: its requirements hold
        (lambda: V.by_verdict(Verdict.PROVED, STEP, method="m", cover=None), ValueError, "cover"),
        (lambda: V.by_verdict(Verdict.VERIFIED, STEP, method="m", attacked=None), ValueError, "attacked"),
        (lambda: V.by_verdict(Verdict.REFUTED, STEP, method="m", counterexample=None), ValueError, "counterexample"),
        (lambda: V.by_verdict("holds", STEP, method="m"), ValueError, "verdict"),
        # a field that does not belong to the verdict
        (
            lambda: V.by_verdict(Verdict.VERIFIED, STEP, method="m", attacked=RNG, counterexample={"x": "1"}),
            TypeError,
            "counterexample",
        ),
        (lambda: V.by_verdict(Verdict.UNDECIDED, STEP, method="m", cover=RNG), TypeError, "cover"),
    ],
)
def test_builders_refuse_a_verdict_without_its_evidence(build, exc, says):
    with pytest.raises(exc, match=says):
        build()


def test_builders_fill_the_fields_the_verdict_means():
    p = V.proved(STEP, method="symbolic", cover=RNG, symbolic=True, attacked=RNG, trials=3)
    assert (p.step, p.kind, p.verdict, p.covered, p.symbolic, p.certified, p.counterexample) == (
        "x ≤ 1",
        "inequality",
        Verdict.PROVED,
        RNG,
        True,
        False,
        None,
    )
    r = V.refuted(STEP, method="falsifier", counterexample={"x": "2"}, evidence="at x = 2")
    assert r.verdict is Verdict.REFUTED and r.counterexample == {"x": "2"} and r.covered is None
    a = V.refuted_argument("link 1", kind="chain", method="citation not found", reason="no such step")
    assert (a.verdict, a.kind, a.evidence, a.counterexample) == (Verdict.REFUTED, "chain", "no such step", None)
    v = V.verified(STEP, method="falsifier", attacked=RNG, worst_ratio=0.5, trials=10)
    # a claim about constants has no range to attack: its one point was evaluated (a named part still needs one)
    const = Step("a claim about constants", sp.cos(sp.pi / 7), sp.Integer(1), "identity", Domain({}))
    assert V.verified(const, method="spot-check", attacked={}).attacked == {}
    with pytest.raises(ValueError, match="attacked"):
        V.verified("link 1", kind="identity", method="spot-check", attacked={})
    assert v.verdict is Verdict.VERIFIED and v.attacked == RNG and v.covered is None and not v.symbolic
    c = V.cited("link 1", kind="chain", reference="Hoeffding")
    assert c.verdict is Verdict.PROVED and c.method == f"{V.CITED}: Hoeffding" and c.covered is None
    ip = V.ill_posed(STEP, point={"x": "0"}, method="well-posedness")
    assert ip.verdict is Verdict.ILL_POSED and ip.counterexample == {"x": "0"}
    assert V.defined(STEP, method="definition").verdict is Verdict.DEFINED
    assert V.undecided(STEP, method="nothing decided").verdict is Verdict.UNDECIDED
    # a chain's part is named, with its own kind; a Step's kind may be overridden
    assert V.proved("link 1: instance", kind="identity", method="m", cover={}).kind == "identity"
    # by_verdict: the same value as the builder, optional fields at None/False dropped
    assert V.by_verdict(Verdict.VERIFIED, STEP, method="falsifier", attacked=RNG, cover=None, symbolic=False) == (
        V.verified(STEP, method="falsifier", attacked=RNG)
    )


@pytest.mark.parametrize(
    "res",
    [
        V.proved(STEP, method="m", cover=RNG, certified=True, trials=4, worst_ratio=0.25, attacked=RNG),
        V.refuted(STEP, method="m", counterexample={"x": "3/2", "lhs": "1.5"}, trials=2),
        V.verified(STEP, method="m", attacked=RNG, evidence="e"),
        V.ill_posed(STEP, point={"x": "0"}, method="m"),
    ],
)
def test_restored_gives_back_the_stored_record(res: StepResult):
    """The cache's round trip: ``as_dict`` then ``restored`` is the same record (the format is unchanged)."""
    res.provenance, res.expected, res.seconds = "paper", "refuted", 1.5
    res.unproved = "a reason" if res.verdict == Verdict.VERIFIED else ""
    back = V.restored(res.as_dict())
    assert back.as_dict() == res.as_dict()
    assert list(res.as_dict()) == [
        "step",
        "kind",
        "verdict",
        "method",
        "evidence",
        "worst_ratio",
        "trials",
        "counterexample",
        "seconds",
        "provenance",
        "symbolic",
        "certified",
        "expected",
        "as_expected",
        "covered",
        "attacked",
        "unproved",
    ]
