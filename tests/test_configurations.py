"""``checks.configurations.ConfigurationClaim``: a claim over random finite vectors, attacked by the law search.
Cauchy–Schwarz |⟨u, v⟩| ≤ ‖u‖‖v‖ is not refuted; the planted half of it is, with the entries ``shown`` in the
counterexample; a malformed claim is an error naming the field; Lemma 6's dominated-convergence step uses it."""

from __future__ import annotations

import math
import random

import pytest

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.configurations import ConfigurationClaim
from infonce_bounds.derivations.ledger import DerivationError, Step, Verdict
from infonce_bounds.derivations.paper import lemma6

OPTS = {**DEFAULTS, "trials": 2000, "seed": 0}


def _draw(seed, n):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        d = rng.choice((2, 3, 8))
        out.append({"u": [rng.gauss(0, 1) for _ in range(d)], "v": [rng.gauss(0, 1) for _ in range(d)], "d": d})
    return out


def _cs(factor):
    def claim(P, lib=math):
        dot = sum(a * b for a, b in zip(P["u"], P["v"]))
        nu, nv = (lib.sqrt(sum(a * a for a in P[key])) for key in ("u", "v"))
        return abs(dot), factor * nu * nv

    return claim


def _step(factor):
    chk = ConfigurationClaim(_cs(factor), _draw, ("d",), {"d": ("2", "8")}, "random vectors", "d ∈ {2, 3, 8}")
    return Step("cauchy–schwarz", 0, 0, kind="inequality", relation="<=", check=chk)


def test_true_claim_is_not_refuted():
    res = check_step(_step(1), **OPTS)
    assert res.verdict is Verdict.VERIFIED and res.attacked == {"d": ("2", "8")}


def test_planted_half_is_refuted():
    res = check_step(_step(0.5), **OPTS)
    assert res.verdict is Verdict.REFUTED and "d" in res.counterexample


def test_malformed_claim_names_the_field():
    with pytest.raises(DerivationError, match="shown"):
        ConfigurationClaim(_cs(1), _draw, (), {}, "x", "y")
    with pytest.raises(DerivationError, match="claim and draw"):
        ConfigurationClaim(None, _draw, ("d",), {}, "x", "y")


def test_lemma6_dominated_convergence_is_a_configuration_claim():
    (st,) = [s for d in lemma6.derivations() for s in d.steps if s.name.startswith("dominated-convergence")]
    assert isinstance(st.check, ConfigurationClaim)
    assert check_step(st, **OPTS).verdict is Verdict.VERIFIED
