"""``infonce_bounds.theorem1_bound``: Theorem 1 on data (issue 13). Agreement with ``experiment theorem``'s numbers
as recorded before the API existed, and with ``constants`` and ``constants --paper``; a planted wrong constant in
the catalogue is caught; the trivial cap and its active term; arrays and a precomputed B_τ give one answer; bad
input is a ValueError naming the parameter and its range."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import infonce_bounds
from infonce_bounds.derivations.paper import theorem1 as D
from infonce_bounds.numerics import api
from infonce_bounds.numerics import theorem1 as T1
from infonce_bounds.numerics.experiments import theorem as T

RECORDED = json.loads((Path(__file__).parent / "data" / "theorem_quick_b37f7d7.json").read_text())
#: the old route summed floats, the API takes certified upper ends: they differ by rounding only (≤ 3e-16 seen)
REL = 1e-13
TERMS = ("complexity", "variability", "bias", "bound")


def _model_kwargs(model) -> dict:
    return {
        "d_theta": model.d_Theta,
        "c_phi": model.C_Phi,
        "radius": model.R,
        "ew2": model.ew2(),
        "lipschitz": T.lipschitz(model),
        "delta": RECORDED["parameters"]["delta"],
    }


def _disagreements(got: api.__class__, row: dict, k: int, tau: float) -> list[str]:
    """Where the API's result differs from a recorded row by more than REL (paths), else []."""
    bad = []

    def cmp(path, a, b):
        if abs(a - b) > REL * max(abs(a), abs(b)):
            bad.append(f"{path}: {a!r} != {b!r}")

    for which, version in (("paper", got.paper), ("ours", got.ours), ("ours_direct", got.toolkit)):
        for t in TERMS:
            cmp(f"{which}/{t}", getattr(version, t), row[which][t])
    cmp("A", got.A, row["A"])
    cmp("min_term", got.min_term, row["min_term"])
    cmp("trivial", got.trivial, row["trivial"])
    for c, pair in row["constants"].items():
        for v, val in pair.items():
            cmp(f"constants/{c}/{v}", got.constants[c][v], val)
    return bad


def _api_at(row: dict, k: int, tau: float, model):
    return infonce_bounds.theorem1_bound(row["B_tau"], tau, rhat=row["rhat"], n=row["n"], k=k, **_model_kwargs(model))


def _recorded_rows():
    for point in RECORDED["points"]:
        for row in point["per_n"]:
            yield point["k"], point["tau"], row


def test_agrees_with_experiment_theorems_recorded_numbers():
    model = T.default_model()
    rows = list(_recorded_rows())
    assert len(rows) == len(RECORDED["parameters"]["recorded_n"])
    for k, tau, row in rows:
        assert _disagreements(_api_at(row, k, tau, model), row, k, tau) == [], row["n"]


@pytest.mark.parametrize(
    ("name", "index", "wrong", "path"),
    [
        ("theorem1_complexity_constant", 0, 191, "paper/complexity"),  # the paper's 192 off by one
        (
            "theorem1_variability_constant",
            1,
            3 * D.tau * D._gen.loss_range() * sp.Rational(101, 100),
            "ours/variability",
        ),
    ],
)
def test_a_planted_wrong_constant_is_caught(monkeypatch, name, index, wrong, path):
    """The API reads the catalogue's constants: a wrong one there makes the agreement above fail, naming the term."""
    consts = []
    for c in D.CONSTANTS:
        if c.name == name:
            right = c.build()
            built = tuple(wrong if i == index else right[i] for i in range(2))
            c = dataclasses.replace(c, build=lambda built=built: built)
        consts.append(c)
    monkeypatch.setattr(D, "CONSTANTS", consts)
    T1._exprs.cache_clear()
    try:
        k, tau, row = next(_recorded_rows())
        bad = _disagreements(_api_at(row, k, tau, T.default_model()), row, k, tau)
    finally:
        monkeypatch.undo()
        T1._exprs.cache_clear()
    assert any(b.startswith(path) for b in bad), bad


def _inside(value: float, interval: list[str]) -> bool:
    """The float upper end lies in the printed interval, widened by the printed rounding (never below its lower end
    and at most its rounded-up upper end)."""
    return Decimal(interval[0]) <= Decimal(value) <= Decimal(interval[1])


def test_agrees_with_the_constants_command():
    """τ = 1/2, k = 256, n = 10⁶, δ = 0.05, L = 1, d_Θ = p = 2, R = 1/2: the toolkit version's complexity and
    variability are `constants --loss infonce`'s complexity_direct and sample_variability; the four constants are
    `constants --paper`'s theorem1 rows (each value inside the printed certified interval)."""
    from infonce_bounds.numerics.commands import paper_constants

    got = infonce_bounds.theorem1_bound(
        3.0, 0.5, rhat=1.0, n=10**6, k=256, d_theta=2, c_phi=1.0, radius=0.5, ew2=1.5, delta=0.05, lipschitz=1.0
    )
    rows = {
        r["name"]: r
        for r in infonce_bounds.constants(
            tau="0.5", k=256, n=10**6, delta="0.05", lipschitz=1, params=2, radius="0.5", loss="infonce", digits=12
        )["rows"]
    }
    assert _inside(got.toolkit.complexity, rows["complexity_direct"]["interval_text"])
    assert _inside(got.toolkit.variability, rows["sample_variability"]["interval_text"])
    ns = argparse.Namespace(tau="0.5", k="256", beta="auto", digits=12, prove=False, set=None)
    prows = {r["name"]: r for r in paper_constants.payload(ns)["rows"]}
    for short, name in (
        ("complexity", "theorem1_complexity_constant"),
        ("variability", "theorem1_variability_constant"),
    ):
        assert _inside(got.constants[short]["paper"], prows[name]["paper_interval"])
        assert _inside(got.constants[short]["ours"], prows[name]["ours_interval"])


def test_planted_wrong_agreement_with_constants_fails():
    """The interval check above can fail: the ours constant is not in the paper's interval (192μ < 192)."""
    from infonce_bounds.numerics.commands import paper_constants

    got = infonce_bounds.theorem1_bound(3.0, 0.5, rhat=1.0, n=10**6, k=256, d_theta=2, c_phi=1.0, radius=0.5, ew2=1.5)
    ns = argparse.Namespace(tau="0.5", k="256", beta="auto", digits=12, prove=False, set=None)
    prows = {r["name"]: r for r in paper_constants.payload(ns)["rows"]}
    assert not _inside(got.constants["complexity"]["ours"], prows["theorem1_complexity_constant"]["paper_interval"])


def test_every_version_is_capped_by_the_trivial_bound():
    kw = {"d_theta": 2, "c_phi": 1.0, "radius": 0.5, "ew2": 1.5, "lipschitz": 1.0}
    small = infonce_bounds.theorem1_bound(3.0, 0.5, rhat=1.0, n=1000, k=16, **kw)
    for v in (small.paper, small.ours, small.toolkit):
        assert v.active == "trivial" and v.capped == small.trivial == 4.0 < v.bound
    big = infonce_bounds.theorem1_bound(3.0, 0.5, rhat=1.0, n=10**8, k=256, **kw)
    for v in (big.paper, big.ours, big.toolkit):
        assert v.active == "bound" and v.capped == v.bound < big.trivial
        assert v.bound == pytest.approx(1.0 + v.complexity + v.variability + v.bias, rel=1e-15)
    assert big.ours.bound < big.paper.bound and big.toolkit.bound < big.ours.bound
    assert big.notes and "outside" in big.notes[0]  # A = e · 0.5 · 3 > 2: beyond the ledger's checked range
    assert infonce_bounds.theorem1_bound(0.5, 0.5, rhat=1.0, n=10**8, k=256, **kw).notes == ()


def test_paper_terms_from_their_printed_formulas():
    """An independent float reading of Theorem 1 as printed (192, 12, 4E w²) at one point."""
    got = infonce_bounds.theorem1_bound(3.0, 0.5, rhat=1.0, n=10**6, k=256, d_theta=2, c_phi=1.0, radius=0.5, ew2=1.5)
    A = math.e * 0.5 * 3.0
    mins = min(A * math.sqrt(math.log(3) + 1), math.sqrt(math.log(1 + 2 * A) + 1))
    assert got.A == pytest.approx(A, rel=1e-15) and got.min_term == pytest.approx(mins, rel=1e-15)
    assert got.paper.complexity == pytest.approx(192 / 0.5 * math.sqrt(2e-6) * mins, rel=1e-14)
    assert got.paper.variability == pytest.approx(12 / 0.5 * math.sqrt(math.log(40) / 2e6), rel=1e-14)
    assert got.paper.bias == pytest.approx(4 * 1.5 / 128 + math.log(1 + math.exp(4) / 256), rel=1e-14)
    assert got.toolkit is None  # no Lipschitz constant given


def test_arrays_and_a_precomputed_b_tau_agree(rng):
    n, k, d, m = 40, 6, 3, 25
    a, p, ng = rng.normal(size=(n, d)), rng.normal(size=(n, d)), rng.normal(size=(n, k, d))
    kw = {"rhat": 0.5, "d_theta": 3, "c_phi": 1.0, "radius": 0.1, "ew2": 2.0}
    from_arrays = infonce_bounds.theorem1_bound((a, p, ng), 0.25, **kw)
    bt = infonce_bounds.b_tau(a, p, ng, 0.25)
    assert from_arrays == infonce_bounds.theorem1_bound(bt, 0.25, n=n, k=k, **kw)
    assert from_arrays == infonce_bounds.theorem1_bound(bt.value, 0.25, n=n, k=k, **kw)
    assert from_arrays.n == n and from_arrays.k == k and from_arrays.b_tau == bt.value
    pool, idx = rng.normal(size=(m, d)), rng.integers(0, m, size=(n, k))
    pooled = infonce_bounds.theorem1_bound((a, p, pool), 0.25, index=idx, **kw)
    assert pooled.b_tau == infonce_bounds.b_tau(a, p, pool, 0.25, index=idx).value and pooled.k == k


def test_namespace():
    assert infonce_bounds.theorem1_bound is api.theorem1_bound
    assert "theorem1_bound" in infonce_bounds.__all__


_GOOD = {"rhat": 1.0, "n": 1000, "k": 16, "d_theta": 2, "c_phi": 1.0, "radius": 0.5, "ew2": 1.5}


@pytest.mark.parametrize(
    ("data", "tau", "change", "needle"),
    [
        (3.0, 0.0, {}, "tau"),
        (3.0, -1.0, {}, "tau"),
        (3.0, 0.5, {"n": 0}, "n must be an integer ≥ 1"),
        (3.0, 0.5, {"k": 2.5}, "k must be an integer ≥ 1"),
        (3.0, 0.5, {"d_theta": 0}, "d_theta must be an integer ≥ 1"),
        (3.0, 0.5, {"delta": 1.0}, "delta = 1.0 is out of range; allowed: 0 < δ < 1"),
        (3.0, 0.5, {"delta": 0}, "delta"),
        (3.0, 0.5, {"c_phi": 0.0}, "c_phi = 0.0 is out of range; allowed: C_Φ > 0"),
        (3.0, 0.5, {"radius": -1.0}, "radius = -1.0 is out of range; allowed: R > 0"),
        (3.0, 0.5, {"ew2": 0.5}, "ew2 = 0.5 is out of range; allowed: E|dM/dπ|² ≥ 1"),
        (3.0, 0.5, {"rhat": math.nan}, "rhat"),
        (3.0, 0.5, {"rhat": 5.0}, "rhat = 5.0 is out of range; allowed: the range of ℓ (14)"),
        (3.0, 0.5, {"rhat": -4.0}, "rhat = -4.0 is out of range"),
        (3.0, 0.5, {"lipschitz": 0.0}, "lipschitz = 0.0 is out of range; allowed: L > 0"),
        (-1.0, 0.5, {}, "data = -1.0 is out of range; allowed: B_τ ≥ 0"),
        (math.inf, 0.5, {}, "data = inf is out of range"),
        ("3", 0.5, {}, "data must be a real number"),
        (3.0, 0.5, {"n": None}, "n and k must be given"),
        ((np.zeros((2, 2)), np.zeros((2, 2))), 0.5, {}, "sequence of length 2"),
        (
            (np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 3, 2))),
            0.5,
            {"n": 5, "k": None},
            "n = 5 disagrees with the data",
        ),
        (
            (np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 3, 2))),
            0.5,
            {"n": None, "k": 16},
            "k = 16 disagrees with the data",
        ),
        ((np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 3))), 0.5, {"n": None, "k": None}, "negatives"),
        (3.0, 0.5, {"index": np.zeros((2, 2), dtype=np.int64)}, "index applies only"),
    ],
)
def test_bad_input_names_the_parameter_and_range(data, tau, change, needle):
    with pytest.raises(ValueError) as exc:
        infonce_bounds.theorem1_bound(data, tau, **{**_GOOD, **change})
    assert needle in str(exc.value)


def test_a_b_tau_at_another_tau_is_refused(rng):
    a, p, ng = rng.normal(size=(5, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 3, 2))
    bt = infonce_bounds.b_tau(a, p, ng, 0.25)
    with pytest.raises(ValueError, match="BTau computed at tau = 0.25"):
        infonce_bounds.theorem1_bound(bt, 0.5, **_GOOD)


def test_the_catalogue_expressions_are_the_printed_theorem():
    """bound_terms sums to Theorem 1's printed right side (minus R̂_n) once dev and A are substituted back."""
    from infonce_bounds.derivations.paper import prop3, prop5
    from infonce_bounds.derivations.symbols import B_tau, a_cov, dev

    for v in D.VERSIONS:
        terms = D.bound_terms(v)
        back = terms["bound"] - terms["complexity"] - terms["variability"] - terms["bias"]
        assert sp.simplify(back) == 0
    paper = D.bound_terms("paper")["bound"]
    printed = D.bound_printed().subs({dev: prop3.deviation(), a_cov: prop5.a_of(B_tau)})
    assert sp.simplify(paper - printed) == 0
