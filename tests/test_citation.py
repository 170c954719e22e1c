"""The citation route (``checks/citation.py``): a claim proved as an instance of a proved cited claim.

Planted wrong uses (a substitution that leaves the cited domain, a refuted citation, a claim that is not an
instance, an unknown name) must never come out proved; a true claim is never refuted by the route.
"""

from __future__ import annotations

import pathlib
import re

import pytest
import sympy as sp

from infonce_bounds.derivations import userclaims
from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks import implication as implication_mod
from infonce_bounds.derivations.checks.budget import CHECK, default_budget_set
from infonce_bounds.derivations.checks.citation import prove_by_citation
from infonce_bounds.derivations.ledger import Verdict
from infonce_bounds.derivations.render import render_latex
from infonce_bounds.derivations.userclaims import ClaimFileError, check, parse
from infonce_bounds.numerics.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
TRIALS = 2000

LEMMA = """
[[claim]]
name = "log(1 + x) <= x"
claim = '\\log(1 + x) \\le x'
where = { x = [0, "inf"] }
"""


def _readme_example() -> str:
    text = (ROOT / "README.md").read_text()
    m = re.search(r"<!-- check-example:start -->\n```toml\n(.*?)```", text, re.S)
    assert m, "the README's check example is missing"
    return m.group(1)


def _by_name(out: dict) -> dict:
    return {c["name"]: c for c in out["claims"]}


def _route(text: str, claim: str, cited: list[str], given=None):
    """``prove_by_citation`` on one claim of ``text`` with its cited claims checked first; and the notes."""
    _, claims = parse(text)
    by = {c.name: c for c in claims}
    with default_budget_set(CHECK):
        cited_ = [(n, by[n].step, check_step(by[n].step, trials=TRIALS)) for n in cited]
        notes: list[str] = []
        given = by[claim].substitution if given is None else given
        res = prove_by_citation(by[claim].step, cited_, dict(DEFAULTS, trials=TRIALS), given, notes)
    return res, notes


def test_readme_standard_loss_offset_is_proved_from_the_cited_lemma():
    out = check(_readme_example(), trials=TRIALS)
    row = _by_name(out)["standard-loss offset"]
    assert row["verdict"] == "proved", row
    assert row["method"].startswith("citation route: instance of 'log(1 + x) <= x' with x = exp(2/tau)/k"), row
    assert "domain mapped: x ↦ exp(2/tau)/k ∈ [0, " in row["method"] and "⊆ [0, ∞]" in row["method"]
    assert "the claim is the instance itself" in row["method"]
    assert row["covered"] == "the citation route's reduction: the whole stated domain"
    assert row["whole_domain"] and row["uses_not_proved"] == []
    assert "instance log(1 + exp(2/tau)/k) ≤ exp(2/tau)/k" in row["evidence"]


def test_the_route_is_named_in_the_latex_export_and_the_table():
    from infonce_bounds.numerics.commands.check import format_report

    text = (
        LEMMA
        + """
[[claim]]
name = "offset"
claim = '\\log(1 + e^{2/\\tau}/k) \\le e^{2/\\tau}/k'
where = { k = "integer [1, inf]", tau = ["1/10", 10] }
uses = ["log(1 + x) <= x"]
"""
    )
    der, claims = parse(text)
    with default_budget_set(CHECK):
        opts = {"trials": TRIALS, "seed": 0}
        results = [userclaims.check_claim(c, {}, {}, opts)[0] if not c.uses else None for c in claims]
        results[1] = userclaims.check_claim(
            claims[1], {claims[0].name: results[0]}, {claims[0].name: claims[0].step}, opts
        )[0]
    tex = render_latex(der, results)
    assert "citation route: instance of" in tex and r"\ensuremath{\mapsto}" in tex and "domain mapped" in tex
    table = format_report(check(text, trials=TRIALS))
    assert "citation route: instance" in table and "the citation route's reduction" in table


def test_user_substitution_and_glue_by_a_remainder():
    text = (
        LEMMA
        + """
[[claim]]
name = "glue"
claim = '\\log(1 + u^{2}) \\le u^{2} + u^{4}'
where = { u = [-3, 3] }
uses = ["log(1 + x) <= x"]
with = { x = "u^{2}" }
"""
    )
    row = _by_name(check(text, trials=TRIALS))["glue"]
    assert row["verdict"] == "proved" and "with x = u**2" in row["method"], row
    assert "remainder u**4" in row["method"]


def test_glue_by_the_engine_when_the_implication_rules_do_not_apply(monkeypatch):
    # lhs ≤ instance lhs ≤ instance rhs ≤ rhs, the outer comparisons by check_step
    monkeypatch.setattr(implication_mod, "implied", lambda *a, **k: (False, "disabled for the test"))
    text = (
        LEMMA
        + """
[[claim]]
name = "true glue"
claim = '\\log(1 + u) - u^{2} \\le u + \\sin^{2}(u)'
where = { u = [0, 3] }
uses = ["log(1 + x) <= x"]

[[claim]]
name = "false glue"
claim = '\\log(1 + u) + u^{2} \\le u + \\sin^{2}(u)'
where = { u = [0, 3] }
uses = ["log(1 + x) <= x"]
"""
    )
    res, notes = _route(text, "true glue", ["log(1 + x) <= x"])
    assert res is not None and res.verdict == Verdict.PROVED, notes
    assert "glue:" in res.method and "instance lhs ≤ instance rhs" in res.method
    res, notes = _route(text, "false glue", ["log(1 + x) <= x"])
    assert res is None and any("not an instance" in n for n in notes), notes


PLANTED_OUTSIDE = """
[[claim]]
name = "log(1 + x) >= x - x^2/2"
claim = '\\log(1 + x) \\ge x - \\frac{x^{2}}{2}'
where = { x = [0, "inf"] }

[[claim]]
name = "outside, matched"
claim = '\\log(1 - t) \\ge -t - \\frac{t^{2}}{2}'
where = { t = ["1/10", "1/2"] }
uses = ["log(1 + x) >= x - x^2/2"]

[[claim]]
name = "outside, given"
claim = '\\log(1 - t) \\ge -t - \\frac{t^{2}}{2}'
where = { t = ["1/10", "1/2"] }
uses = ["log(1 + x) >= x - x^2/2"]
with = { x = "-t" }
"""


@pytest.mark.parametrize("name", ["outside, matched", "outside, given"])
def test_a_substitution_leaving_the_cited_domain_is_not_proved(name):
    # planted false: the lemma holds for x ≥ 0 only; at x = −t < 0 the claim fails
    res, notes = _route(PLANTED_OUTSIDE, name, ["log(1 + x) >= x - x^2/2"])
    assert res is None
    assert any("x ↦ -t is not shown to stay in [0, ∞]" in n for n in notes), notes
    row = _by_name(check(PLANTED_OUTSIDE, trials=TRIALS))[name]
    assert row["verdict"] == "refuted" and "x ↦ -t is not shown" in row["evidence"], row


def test_a_claim_citing_a_refuted_claim_is_not_proved_and_says_so():
    text = """
[[claim]]
name = "false lemma"
claim = 'e^{x} \\le 1 + x + x^{2}'
where = { x = [0, 3] }

[[claim]]
name = "cites false"
claim = 'e^{2 w} \\le 1 + 2 w + 4 w^{2}'
where = { w = [0, "1/2"] }
uses = ["false lemma"]
expect = "proved"
"""
    out = check(text, trials=TRIALS)
    row = _by_name(out)["cites false"]
    # true on [0, 1/2] and provable on its own, but its proof as written rests on a refuted lemma
    assert row["verdict"] == "verified numerically", row
    assert row["method"].startswith("not proved: its citation 'false lemma' (refuted) is not proved"), row
    assert row["uses_not_proved"] == ["false lemma"] and not row["as_expected"] and out["exit_status"] == 1
    # and the route itself never uses an unproved citation
    res, _ = _route(text, "cites false", ["false lemma"])
    assert res is None


def test_a_claim_that_is_not_an_instance_is_not_proved():
    text = (
        LEMMA
        + """
[[claim]]
name = "not an instance (false)"
claim = '\\log(1 + 2 y) \\le y'
where = { y = [0, 5] }
uses = ["log(1 + x) <= x"]

[[claim]]
name = "not an instance (true)"
claim = '\\sin(y) \\le y'
where = { y = [0, 5] }
uses = ["log(1 + x) <= x"]
"""
    )
    res, notes = _route(text, "not an instance (false)", ["log(1 + x) <= x"])
    assert res is None and any("not an instance" in n for n in notes), notes
    res, notes = _route(text, "not an instance (true)", ["log(1 + x) <= x"])
    assert res is None, res
    rows = _by_name(check(text, trials=TRIALS))
    assert rows["not an instance (false)"]["verdict"] == "refuted"
    assert rows["not an instance (true)"]["verdict"] != "refuted"
    assert not rows["not an instance (true)"]["method"].startswith("citation route")


@pytest.mark.parametrize(
    "uses, extra, field, words",
    [
        ('["no such claim"]', "", "uses", "no claim named 'no such claim' earlier in this file, nor a catalogue step"),
        ('["loss / no such step"]', "", "uses", "'loss / no such step'"),
        ('["later"]', "", "uses", "comes later in the file"),
        ('["b"]', "", "uses", "cannot use itself"),
        ('["log(1 + x) <= x"]', 'with = { z = "2*y" }', "with", "'z' is not a symbol of the cited"),
        ("[]", 'with = { x = "2*y" }', "with", "needs `uses`"),
    ],
)
def test_bad_uses_are_input_errors(tmp_path, capsys, uses, extra, field, words):
    text = (
        LEMMA
        + f"""
[[claim]]
name = "b"
claim = '\\log(1 + 2 y) \\le 2 y'
where = {{ y = [0, 5] }}
uses = {uses}
{extra}

[[claim]]
name = "later"
sympy = 'y <= 1'
where = {{ y = [0, 1] }}
"""
    )
    with pytest.raises(ClaimFileError) as err:
        parse(text)
    assert f"claim 'b': field {field!r}" in str(err.value) and words in str(err.value), str(err.value)
    path = tmp_path / "claims.toml"
    path.write_text(text)
    assert main(["check", str(path)]) == 2
    assert words in capsys.readouterr().err


@pytest.mark.parametrize("a, b", [(1, 0), (2, 1), (-1, 3), (1, -1), (-2, 1), (3, "1/2")])
def test_proved_exactly_when_the_map_lands_in_the_cited_domain(a, b):
    # log(1 + (a t + b)) ≤ a t + b on t ∈ [0, 1]: an instance of the lemma at x = a t + b, whose image
    # [min, max] of {b, a + b} must lie in [0, ∞); the claim is true wherever a t + b > −1, and the route,
    # which never refutes, must prove it exactly when the mapping is inside the lemma's domain
    b = sp.Rational(b)
    text = (
        LEMMA
        + f"""
[[claim]]
name = "affine"
sympy = 'log(1 + ({a})*t + ({b})) <= ({a})*t + ({b})'
where = {{ t = [0, 1] }}
uses = ["log(1 + x) <= x"]
"""
    )
    res, notes = _route(text, "affine", ["log(1 + x) <= x"])
    inside = min(b, a + b) >= 0
    if inside:
        assert res is not None and res.verdict == Verdict.PROVED, notes
    else:
        assert res is None, res.method


def test_a_catalogue_step_is_cited_by_its_derivation_and_name():
    text = """
[[claim]]
name = "log(2t) <= 2t - 1"
claim = '\\log(2 t) \\le 2 t - 1'
where = { t = ["1/10", 5] }
uses = ["bias_sign / log u ≤ u − 1"]
"""
    row = check(text, trials=TRIALS)["claims"][0]
    assert row["verdict"] == "proved", row
    assert row["method"].startswith("citation route: instance of 'bias_sign / log u ≤ u − 1' with u = 2*t"), row


def test_an_identity_is_proved_as_an_instance_and_a_wrong_one_is_not():
    text = """
[[claim]]
name = "log of a product"
sympy = 'log(a*b) = log(a) + log(b)'
where = { a = ["1/10", 10], b = ["1/10", 10] }

[[claim]]
name = "instance"
sympy = 'log(2*c) = log(2) + log(c)'
where = { c = ["1/5", 5] }
uses = ["log of a product"]
with = { a = "2", b = "c" }

[[claim]]
name = "wrong"
sympy = 'log(2*c) = log(2) + 2*log(c)'
where = { c = ["1/5", 5] }
uses = ["log of a product"]
"""
    res, notes = _route(text, "instance", ["log of a product"])
    assert res is not None and res.verdict == Verdict.PROVED and "the claim is the instance" in res.method, notes
    res, notes = _route(text, "wrong", ["log of a product"])
    assert res is None


def test_two_citations_combine_into_a_chain(monkeypatch):
    # a ≤ b from one lemma and b ≤ c from another: with the single-lemma glue disabled, only the combination
    # of both instances can prove the claim; a false claim citing the same two is not proved
    from infonce_bounds.derivations.checks import citation

    monkeypatch.setattr(citation, "_glue", lambda *a, **k: None)
    # and no remainder by branch and bound: one lemma plus e^t − 1 − t ≥ 0 would otherwise do
    from infonce_bounds.derivations.checks import interval

    monkeypatch.setattr(interval, "certify_nonnegative", lambda *a, **k: type("Out", (), {"status": "undecided"})())
    text = (
        LEMMA
        + """
[[claim]]
name = "x <= e^x - 1"
claim = 'x \\le e^{x} - 1'
where = { x = [0, "inf"] }

[[claim]]
name = "chain"
claim = '\\log(1 + t) \\le e^{t} - 1'
where = { t = [0, "inf"] }
uses = ["log(1 + x) <= x", "x <= e^x - 1"]

[[claim]]
name = "chain, false"
claim = '\\log(1 + 3 t) \\le e^{t} - 1'
where = { t = [0, "inf"] }
uses = ["log(1 + x) <= x", "x <= e^x - 1"]
"""
    )
    both = ["log(1 + x) <= x", "x <= e^x - 1"]
    res, notes = _route(text, "chain", both)
    assert res is not None and res.verdict == Verdict.PROVED, notes
    assert "instance 1 of 'log(1 + x) <= x' with x = t; instance 2 of 'x <= e^x - 1' with x = t" in res.method
    assert "gap[instance 1] + gap[instance 2]" in res.method, res.method
    res, notes = _route(text, "chain, false", both)
    assert res is None and any("together do not imply" in n for n in notes), notes
