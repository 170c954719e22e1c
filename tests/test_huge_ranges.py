"""Ranges near the float limit (issue 28: ``x^{2} \\ge 0`` on ``x ∈ [−1e308, 1e308]`` ended in numpy's
``OverflowError`` from ``uniform``, whose ``hi − lo`` is infinite there).

A draw from ``[lo, hi]`` whose width overflows is ``lo·(1 − u) + hi·u``: finite and inside the range. The
claims are checked end to end: true ones proved, false ones refuted at a point of the range, none an error.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import sympy as sp

from infonce_bounds.derivations.checks.sampling import Sampler
from infonce_bounds.derivations.ledger import Domain
from infonce_bounds.derivations.userclaims import check

x = sp.Symbol("x", real=True)
BIG = 1.7976931348623157e308  # the largest float


@pytest.mark.parametrize("lo, hi", [(-1e308, 1e308), (-BIG, BIG), (-BIG, 1.0), (-1e308, 9e307)])
def test_draws_from_a_range_wider_than_a_float_stay_inside_it(lo, hi):
    s = Sampler(Domain({x: (sp.Float(lo), sp.Float(hi))}), random.Random(0), 1e6, 12)
    arr = s.array(x, 4000, np.random.default_rng(0))
    one = [s.scalar(x) for _ in range(200)]
    for v in [*arr.tolist(), *one]:
        assert math.isfinite(v) and lo <= v <= hi
    # spread over the range, either side of its midpoint, not stuck at an end
    assert arr.min() < lo / 2 + hi / 2 < arr.max()
    for corner in s.corners([x], set()):
        assert math.isfinite(corner[x]) and lo <= corner[x] <= hi


def _checked(claims: list[dict]) -> dict[str, dict]:
    out = check({"claim": claims}, trials=3000, workers=1, use_cache=False)
    return {c["name"]: c for c in out["claims"]}


def test_claims_on_ranges_near_the_float_limit_are_decided_not_errors():
    rows = _checked(
        [
            {"name": "square", "claim": "x^{2} \\ge 0", "where": {"x": [-1e308, 1e308]}},
            {"name": "tangent", "claim": "e^{x} \\ge 1 + x", "where": {"x": [-BIG, BIG]}},
            {"name": "am-gm", "claim": "x^{2} + y^{2} \\ge 2 x y", "where": {"x": [-1e308, 1e308], "y": [-1, 1e308]}},
            # planted false: each fails on most of the range
            {"name": "below 1e307", "claim": "x \\le 10^{307}", "where": {"x": [-1e308, 1e308]}},
            {"name": "tanh below 0.999", "claim": "\\tanh(x) \\le 0.999", "where": {"x": [-BIG, BIG]}},
            {"name": "product", "claim": "x y \\ge -10", "where": {"x": [-1e308, 1e308], "y": [0, 1]}},
        ]
    )
    for name in ("square", "tangent", "am-gm"):
        assert rows[name]["verdict"] == "proved", (name, rows[name]["method"])
    for name in ("below 1e307", "tanh below 0.999", "product"):
        row = rows[name]
        assert row["verdict"] == "refuted", (name, row["method"])
        assert row["counterexample"] is not None
