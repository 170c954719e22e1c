"""The paper's custom checkers at the budget `verify` and `report` run by default (10⁵ falsifier trials).

`infonce-bounds report` once stopped with an OverflowError from Lemma 6's checker on a point drawn only
at the report's own budget (then 20 000 trials), which no test ran. Now `report` runs `verify`'s
budget and seed (``checks.DEFAULTS``; they share the verify cache), and this test runs every step of
every paper derivation with exactly those options, so each point that `verify` or `report` draws is
drawn here first. Marked slow: the whole paper at 10⁵ trials took 850 s wall here (2 cores shared,
load 5–8; prop4 147 s, prop2 132 s, prop1 102 s, lemma6 89 s, the rest under 70 s each); the rest of
the suite checks every step at a small budget (tests/test_engine.py). In the suite it runs a hundredth of
the budget (``suite_budget.SUITE_TRIALS``, shared with the report test and the engine's coverage test
through the session's verify cache); `INFONCE_BOUNDS_FULL_BUDGET=1 python -m pytest tests/test_report_budget.py` runs the full one.
"""

from __future__ import annotations

import os

import pytest
from suite_budget import SUITE_TRIALS

from infonce_bounds.derivations import catalogue
from infonce_bounds.derivations.checks import DEFAULTS
from infonce_bounds.derivations.run import runner

PAPER = [d for d in catalogue.all_derivations() if d.source == "paper"]


def test_report_and_verify_share_the_engines_budget():
    import argparse

    from infonce_bounds.numerics.commands import report, verify

    for mod in (report, verify):
        p = argparse.ArgumentParser()
        mod.add_arguments(p)
        # None: the engine's DEFAULTS, resolved (and keyed) in one place, verify_all
        assert p.parse_args([]).trials is None, mod.__name__


#: the full budget costs ~14 min of a 2-core CI run, so the suite runs it in a reduced size (a hundredth of the
#: trials, the same seed) unless INFONCE_BOUNDS_FULL_BUDGET=1 asks for exactly verify's and report's budget
FULL = os.environ.get("INFONCE_BOUNDS_FULL_BUDGET") == "1"
TRIALS = DEFAULTS["trials"] if FULL else SUITE_TRIALS


def test_the_suite_budget_is_a_hundredth_of_the_engines():
    assert SUITE_TRIALS == DEFAULTS["trials"] // 100


@pytest.mark.slow
@pytest.mark.parametrize("der", PAPER, ids=[d.name for d in PAPER])
def test_paper_checkers_run_at_the_default_budget(der):
    # through the runner and the session's verify cache: a step the report test or the engine's
    # coverage test already checked at this budget is read back, not checked a second time
    by_der, _ = runner.verify_derivations([der], {"trials": TRIALS, "seed": DEFAULTS["seed"]}, workers=1)
    for st, res in zip(der.steps, by_der[der.name]):  # an exception while checking fails the test
        assert res.as_expected, (st.name, res.verdict, res.evidence)
