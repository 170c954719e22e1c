"""The chain checker (issue 11): a chain of cited links proves its claim only when the links compose.

Each planted-wrong chain (a gap, a wrong-direction link, a citation that does not exist, one that cites
an erratum, a link that is not an instance of its citation, a substitution outside the cited domain) is
refuted; the right chain is proved.
"""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.ledger import Derivation, DerivationError, Domain, Link, Step, Verdict
from infonce_bounds.derivations.symbols import TAU_MAX, TAU_MIN, s_pos, tau, y

OPTS = {"trials": 2000, "seed": 0}
UPPER = "theorem / DCL loss upper end: τ ℓ̃ ≤ 2"
DOM = Domain({tau: (TAU_MIN, TAU_MAX), s_pos: (-1, 1), y: (-1, 1)})


def chain(links, lhs=(y - s_pos) / tau + 3, rhs=2 / tau + 3, relation="<=", domain=DOM):
    return Step("test chain", lhs, rhs, kind="chain", relation=relation, domain=domain, links=links)


def good_links():
    return [
        Link((y - s_pos) / tau + 3, 2 / tau + 3, "<=", cite=UPPER, factor=1 / tau),
    ]


def test_right_chain_is_proved():
    res = check_step(chain(good_links()), **OPTS)
    assert res.verdict == Verdict.PROVED, res.evidence
    assert "link 1" in res.evidence


def test_chain_with_algebra_link_is_proved():
    links = [*good_links(), Link(2 / tau + 3, sp.Add(sp.Integer(3), 2 / tau, evaluate=False), "=")]
    assert check_step(chain(links), **OPTS).verdict == Verdict.PROVED


def test_gap_between_links_is_refuted():
    links = [*good_links(), Link(2 / tau + 4, 2 / tau + 4, "=")]  # link 2 starts at 2/τ + 4, not 2/τ + 3
    res = check_step(chain(links, rhs=2 / tau + 4), **OPTS)
    assert res.verdict == Verdict.REFUTED and "gap" in res.method


def test_claim_endpoints_must_match():
    res = check_step(chain(good_links(), rhs=1 / tau + 3), **OPTS)
    assert res.verdict == Verdict.REFUTED and "claim's right side" in res.evidence


def test_wrong_direction_link_is_refuted():
    links = [Link((y - s_pos) / tau + 3, 2 / tau + 3, ">=", cite=UPPER, factor=1 / tau)]
    res = check_step(chain(links), **OPTS)
    assert res.verdict == Verdict.REFUTED and "wrong way" in res.evidence


def test_missing_citation_is_refuted():
    links = [Link((y - s_pos) / tau + 3, 2 / tau + 3, "<=", cite="theorem / no such step", factor=1 / tau)]
    res = check_step(chain(links), **OPTS)
    assert res.verdict == Verdict.REFUTED and "does not have" in res.evidence
    links = [Link((y - s_pos) / tau + 3, 2 / tau + 3, "<=", cite="nonexistent / x", factor=1 / tau)]
    assert check_step(chain(links), **OPTS).verdict == Verdict.REFUTED


def test_citing_an_erratum_is_refuted():
    from infonce_bounds.derivations import catalogue

    printed = next(s for s in catalogue.get("prop2").steps if s.expected == "refuted")
    links = [Link((y - s_pos) / tau + 3, 2 / tau + 3, "<=", cite=f"prop2 / {printed.name}", factor=1 / tau)]
    res = check_step(chain(links), **OPTS)
    assert res.verdict == Verdict.REFUTED and "erratum" in res.evidence


def test_citing_a_paper_premise_is_refuted():
    links = [
        Link(
            (y - s_pos) / tau + 3,
            2 / tau + 3,
            "<=",
            cite="prop3 / the deviation term: dev := √(log(2/δ)/(2n))",
        )
    ]
    res = check_step(chain(links), **OPTS)
    assert res.verdict == Verdict.REFUTED and "definition" in res.evidence


def test_link_not_an_instance_of_its_citation_is_refuted():
    # claims τℓ̃ ≤ 1 while the cited step proves only τℓ̃ ≤ 2
    links = [Link((y - s_pos) / tau + 3, 1 / tau + 3, "<=", cite=UPPER, factor=1 / tau)]
    res = check_step(chain(links, rhs=1 / tau + 3), **OPTS)
    assert res.verdict == Verdict.REFUTED and "instance" in res.evidence


def test_negative_factor_is_refuted():
    links = [Link(-(y - s_pos) / tau, -2 / tau, "<=", cite=UPPER, factor=-1 / tau)]
    res = check_step(chain(links, lhs=-(y - s_pos) / tau, rhs=-2 / tau), **OPTS)
    assert res.verdict == Verdict.REFUTED


def test_use_outside_the_cited_domain_is_refuted():
    wide = Domain({tau: (TAU_MIN, TAU_MAX), s_pos: (-2, 2), y: (-1, 1)})
    res = check_step(chain(good_links(), domain=wide), **OPTS)
    assert res.verdict == Verdict.REFUTED and "within" in res.evidence


def test_substituted_value_outside_the_cited_domain_is_refuted():
    # s⁺ ↦ 2y: the value ranges over [−2, 2] on the chain, outside the cited s⁺ ∈ [−1, 1]
    lhs = (y - 2 * y) / tau + 3
    links = [Link(lhs, 2 / tau + 3, "<=", cite=UPPER, factor=1 / tau, subs={s_pos: 2 * y})]
    res = check_step(chain(links, lhs=lhs), **OPTS)
    assert res.verdict == Verdict.REFUTED and "within" in res.evidence


def test_malformed_chains_are_rejected():
    with pytest.raises(DerivationError):
        Step("c", 1, 2, kind="chain", relation="<=", links=[])
    with pytest.raises(DerivationError):
        Link(1, 2, "≤")
    with pytest.raises(DerivationError):
        Link(1, 2, "<=", cite="no separator")
    with pytest.raises(DerivationError):  # a cited derivation must be a dependency (the cache follows it)
        Derivation("d", "d", [chain(good_links())], result="test chain", depends_on=())


def test_negative_constant_factor_is_refuted():
    # the instance holds with factor −1 (the cited gap, negated): the exact comparison of a constant
    # factor must refute it, as the inequality check of a symbolic one does
    links = [Link(-(y - s_pos), sp.Integer(-2), "<=", cite=UPPER, factor=-1)]
    res = check_step(chain(links, lhs=-(y - s_pos), rhs=sp.Integer(-2)), **OPTS)
    assert res.verdict == Verdict.REFUTED and "factor" in res.evidence


def test_negated_instance_of_an_inequality_is_refuted():
    # the link's gap is exactly minus the cited gap: the same tree up to sign is an instance of an
    # identity (either orientation), never of an inequality
    links = [Link(2 / tau + 3, (y - s_pos) / tau + 3, "<=", cite=UPPER, factor=1 / tau)]
    res = check_step(chain(links, lhs=2 / tau + 3, rhs=(y - s_pos) / tau + 3), **OPTS)
    assert res.verdict == Verdict.REFUTED and "instance" in res.evidence


def test_only_the_same_tree_skips_the_instance_check():
    from infonce_bounds.derivations.checks.chain import _same_tree

    e = (y - s_pos) / tau
    assert _same_tree(e, (y - s_pos) / tau, either_sign=False) is not None
    assert _same_tree(e, -e, either_sign=False) is None  # a negated inequality is no instance
    assert _same_tree(e, -e, either_sign=True) is not None  # an identity may be used either way
    assert _same_tree(e, y / tau - s_pos / tau, either_sign=True) is None  # equal in value only: the checker decides


def test_a_quoted_premise_is_labelled_cited_not_proved():
    """A chain link resting on a classical theorem taken as given says [cited: …], never [proved] (issue 25)."""
    from infonce_bounds.derivations import catalogue

    der = catalogue.get("theorem")
    step = next(s_ for s_ in der.steps if s_.kind == "chain" and any(link.reads for link in s_.links))
    res = check_step(step, **OPTS)
    assert res.verdict != Verdict.REFUTED, res.evidence
    quoted = [d for d in res.evidence.split("; ") if "[cited:" in d]
    assert quoted and not any("[proved]" in d for d in quoted)
