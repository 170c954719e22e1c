"""Assumption (C) for the angle class (``derivations/angle_class.py``): the conjunction of the two half-chord
bounds and Cauchy–Schwarz proves 2|sin(‖z‖‖Δθ‖t/2)| ≤ ‖z‖‖Δθ‖ on the stated box (its cover contains the domain,
with no wrapper widening it); a constant C_Φ below 1 is not proved (no C_Φ < 1 works: it is refuted)."""

from __future__ import annotations

import sympy as sp

from infonce_bounds.derivations import angle_class
from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.ledger import Verdict, covers

OPTS = {**DEFAULTS, "trials": 3000, "seed": 0}


def test_condition_c_is_proved_on_its_domain():
    st = angle_class.condition_c()
    res = check_step(st, **OPTS)
    assert res.verdict is Verdict.PROVED and covers(res.covered, st.domain)


def test_a_constant_below_one_is_not_proved():
    """C_Φ = 99/100: false for small α (2 sin(α/2)/α → 1); the parts do not imply it and the falsifier refutes it."""
    res = check_step(angle_class.condition_c(sp.Rational(99, 100)), **OPTS)
    assert res.verdict is Verdict.REFUTED and res.counterexample
