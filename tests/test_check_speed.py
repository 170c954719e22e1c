"""Where ``check`` spares work whose outcome cannot change a verdict (issue 28: 10 000 simple claims in 5 min).

Under ``check``'s per-claim budget (``budget.CHECK``):

* a claim whose sign the assumptions do not settle meets a probe of the falsifier first (its seeds, the box's
  corners, ``inequality.PROBE`` random points); a gate-confirmed counterexample there ends the check, and the
  proof stages, which cannot prove a false claim (their failure is a check's slowest path), do not run;
* a claim proved gets the falsifier's seeds and random phase, not its pattern search (which climbs toward a
  violation the proof excludes), and its method says so.

Elsewhere (``verify``, ``check_step`` with the catalogue's budget) nothing changes. Verdicts are the same either
way: a false claim the probe misses is still refuted by the falsifier after the proof stages, a true one is
never refuted.
"""

from __future__ import annotations

import sympy as sp

from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.budget import CHECK
from infonce_bounds.derivations.checks.inequality import PROBE
from infonce_bounds.derivations.ledger import Domain, Step, Verdict
from infonce_bounds.derivations.userclaims import check

TRIALS = 20_000


def _rows(claims: list[dict]) -> dict[str, dict]:
    out = check({"claim": claims}, trials=TRIALS, workers=1, use_cache=False)
    return {c["name"]: c for c in out["claims"]}


def test_a_false_claim_found_by_the_probe_skips_the_proof_stages():
    rows = _rows(
        [
            # false for x < 0 (the cubic term): the probe's corner x = −5 is a violation
            {"name": "exp above a quadratic", "claim": "e^{x} \\ge 1 + x + \\frac{x^{2}}{2}", "where": {"x": [-5, 5]}},
            # false on (0, 1.5): the probe's random points hit it
            {"name": "log above", "claim": "\\log(1 + x) \\ge x - \\frac{x^{2}}{3}", "where": {"x": [0, 4]}},
        ]
    )
    for name, row in rows.items():
        assert row["verdict"] == "refuted", (name, row["method"])
        assert row["counterexample"] is not None
        # no proof stage ran: neither the interval stage's nor a route's note is in the record
        assert "interval:" not in row["evidence"] and "route" not in row["evidence"], (name, row["evidence"])
        assert row["trials"] <= TRIALS


def test_a_false_claim_the_probe_misses_is_still_refuted():
    # false only on |x − 1| < 0.0019 of [0, 9] (the minimum, 1.99999 − 2): the probe misses it (this seed), the
    # falsifier after the proof stages does not (planted false, never proved)
    rows = _rows([{"name": "cubic", "claim": "x^{3} - 3 x + 1.99999 \\ge 0", "where": {"x": [0, 9]}}])
    assert rows["cubic"]["verdict"] == "refuted", rows["cubic"]["method"]
    assert rows["cubic"]["trials"] > PROBE  # found after the probe


def test_a_proved_claim_gets_no_pattern_search_and_says_so():
    rows = _rows(
        [
            {"name": "tanh", "claim": "\\tanh(x) \\le x", "where": {"x": [0, 7]}},
            {"name": "cubic", "claim": "x^{3} - 3 x + 2 \\ge 0", "where": {"x": [0, 5]}},
        ]
    )
    for name, row in rows.items():
        assert row["verdict"] == "proved", (name, row["method"])
        assert "no pattern search: already proved" in row["method"], row["method"]
        # the seeds and the random phase (60% of the trials) ran; the pattern search's 40% did not
        assert 0.5 * TRIALS <= row["trials"] < 0.7 * TRIALS, row["trials"]
        assert row["worst_ratio"] is not None and row["worst_ratio"] <= 1


def _tanh_step() -> Step:
    x = sp.Symbol("x", real=True)
    return Step("tanh below x", sp.tanh(x), x, kind="inequality", relation="<=", domain=Domain({x: (0, 7)}))


def test_without_a_claim_budget_the_falsifier_runs_in_full():
    # verify and the Python API (the catalogue's budget): the whole falsifier, pattern search included
    full = check_step(_tanh_step(), trials=5000)
    assert full.verdict is Verdict.PROVED and full.trials == 5000 and "pattern search" not in full.method
    quick = check_step(_tanh_step(), trials=5000, budget=CHECK)
    assert quick.verdict is Verdict.PROVED and quick.trials < 5000 and "no pattern search" in quick.method
