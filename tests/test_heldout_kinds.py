"""Held-out claims of issue 29's kinds (``tests/data/heldout_kinds.toml``, written without running the engine on
them; truth by the argument beside each claim and ``tests/data/heldout_kinds_truth.py``): each claim checked alone
by ``userclaims.check``: a false claim is refuted at a replayable point and never proved; a true claim is never
refuted, and if proved, on its whole domain. Whether a true claim is *proved* can depend on the time its routes get
(the sums route's sub-proofs run under a 2.5 s deadline), so the proportion proved is asserted over the file (issue
29: at least 87 %), not claim by claim; the known gaps (true claims no route proves yet) are listed with the reason."""

from __future__ import annotations

import functools
import pathlib

import pytest
import sympy as sp

from infonce_bounds.derivations import userclaims

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

FILE = pathlib.Path(__file__).parent / "data" / "heldout_kinds.toml"
CLAIMS = {c["name"]: c for c in tomllib.loads(FILE.read_text())["claim"]}

#: true claims no route proves yet (verified numerically): why, in one line each
GAPS = {
    "Bernoulli KL below chi-square": "touching: the second p- (and q-) derivative changes sign far from the zero line "
    "p = q; the fixed-width strip does not fit near the corners, an adaptive one costs minutes",
    "(1 + x)^k below e^{kx}": "sums: in logarithms k(x − log(1 + x)) ≥ 0 needs 1 + x > 0, and the range reaches x = −1 "
    "where (1 + x)^k = 0; the route does not split off that face",
}

#: the slowest claims (≥ 4 s each alone on an idle machine): in the slow run only
SLOW = {
    "cosh above 1 + x^2/2 on R",
    "softplus below its quadratic at 0 on R",
    "Pinsker with 2.02 (false)",
    "(1 + x/k)^k below 1 + x + 0.7 x^2 (false for k >= 74)",
    "Bernoulli with the range extended to -2.2 (false)",
    "Bernoulli KL below chi-square",
    "(1 + x)^k below e^{kx}",
}


@functools.cache
def _checked(name: str) -> dict:
    """The claim checked alone (its own file), once per session."""
    return userclaims.check({"claim": [CLAIMS[name]]})["claims"][0]


def _params():
    for name in CLAIMS:
        marks = []
        if name in SLOW:
            marks.append(pytest.mark.slow)
        yield pytest.param(name, marks=marks, id=name)


def test_the_file_is_a_third_false_and_the_gaps_are_its_own():
    expects = [c["expect"] for c in CLAIMS.values()]
    assert len(expects) >= 30 and set(expects) == {"proved", "refuted"}
    assert 0.3 <= expects.count("refuted") / len(expects) <= 0.4
    assert all(CLAIMS[g]["expect"] == "proved" for g in GAPS) and SLOW <= set(CLAIMS)


@pytest.mark.parametrize("name", list(_params()))
def test_heldout_claim_meets_its_expect(name):
    row = _checked(name)
    expect = CLAIMS[name]["expect"]
    # soundness first: a true claim is never refuted, a false one never proved
    assert row["verdict"] != ("refuted" if expect == "proved" else "proved"), (row["method"], row["evidence"])
    if expect == "proved":
        assert row["verdict"] in ("proved", "verified numerically"), (row["verdict"], row["method"])
        if row["verdict"] == "proved":
            assert row["whole_domain"], row["covered"]
    else:
        assert row["verdict"] == "refuted" and row["counterexample"], row


def test_at_least_87_percent_of_the_true_claims_are_proved():
    """Issue 29's bar on claims of the benchmark's kinds that the engine was not built on (27 of 29 here, the two
    known gaps aside; a time race under load may cost one or two)."""
    true = [n for n, c in CLAIMS.items() if c["expect"] == "proved"]
    not_proved = sorted(n for n in true if _checked(n)["verdict"] != "proved")
    assert (len(true) - len(not_proved)) / len(true) >= 0.87, not_proved
    assert set(GAPS) <= set(not_proved) or not GAPS  # a gap that is proved now should leave the list


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.slow] if n in SLOW else []) for n in GAPS])
def test_known_gaps_are_never_refuted(name):
    assert _checked(name)["verdict"] in ("proved", "verified numerically")


def test_gate_takes_an_integer_exponent_value_as_an_integer_power():
    """(1 + x)^k ≥ 1 + kx at x = −11/5: false at k = 21 ((−6/5)^21 = −46.005 < −45.2), true at k = 19 (−31.95 ≥
    −40.8). The exponent is the integer symbol k, given its value by the point: the gate takes (−6/5)^21 as an integer
    power, not as exp(21·log(−6/5)) (undefined)."""
    from infonce_bounds.derivations.checks.refute import confirm

    x = sp.Symbol("x", real=True)
    k = sp.Symbol("k", integer=True, positive=True)
    lhs, rhs = (1 + x) ** k, 1 + k * x
    got = confirm(lhs, rhs, ">=", {x: sp.Rational(-11, 5), k: 21})
    assert got is not None and got.point == {"x": "-2.2", "k": "21"}
    assert confirm(lhs, rhs, ">=", {x: sp.Rational(-11, 5), k: 19}) is None
    assert confirm(lhs, rhs, ">=", {x: sp.Rational(-11, 5), k: 20}) is None  # even k: 1.2^20 ≥ −43
