"""Route "conjunction" (``checks/conjunction.py``): parts as data checked by the engine, the implication checked,
a part proved once per content (never reused for another domain), a refutation only through the gate."""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import check_step, conjunction, refute
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers

FAST = {"trials": 2000, "seed": 0, "box_budget": 300}
x = sp.Symbol("x_cj", real=True)
y = sp.Symbol("y_cj", real=True)
R = sp.Rational
UNIT = Domain({x: (0, 1), y: (0, 1)})


def le(name, lhs, rhs, domain, **kw):
    return Step(name, lhs, rhs, kind="inequality", relation="<=", domain=domain, **kw)


def claim(lhs, rhs, domain, parts, reason="test", **kw):
    return le("claim", lhs, rhs, domain, route=conjunction.hint(parts, reason, **kw))


@pytest.fixture(autouse=True)
def _fresh_memo():
    conjunction._memo().clear()
    yield
    conjunction._memo().clear()


def test_max_of_proved_parts_is_proved_on_its_domain():
    parts = [le("x ≤ 1", x, 1, UNIT), le("y ≤ 1", y, 1, UNIT)]
    st = claim(sp.Max(x, y), 1, UNIT, parts, implication="pieces")
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.PROVED and covers(res.covered, st.domain)
    assert "max: each of its 2 entries is implied" in res.method


def test_a_nonnegative_combination_with_given_multipliers_is_proved():
    parts = [le("x ≤ 1", x, 1, UNIT), le("y ≤ 1", y, 1, UNIT)]
    st = claim(2 * x + 3 * y, 5, UNIT, parts, multipliers=[2, 3])
    assert check_step(st, **FAST).verdict is Verdict.PROVED


def test_true_parts_that_do_not_imply_a_true_claim_prove_nothing():
    """Planted: x² ≤ x holds on [0, 1], and so does y ≤ 1, which says nothing about it."""
    st = claim(x**2, x, Domain({x: (0, 1), y: (0, 1)}), [le("y ≤ 1", y, 1, UNIT)])
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.VERIFIED and "implication not established" in res.method


def test_true_parts_and_a_false_claim_is_never_proved_and_refuted_only_at_a_point_the_gate_replays():
    """Planted: x ≤ 1 and y ≤ 1 are true; x + y ≤ 1 is false at (1, 1)."""
    parts = [le("x ≤ 1", x, 1, UNIT), le("y ≤ 1", y, 1, UNIT)]
    st = claim(x + y, 1, UNIT, parts)
    res = check_step(st, **FAST)
    assert res.verdict is Verdict.REFUTED
    coords = {k_: v for k_, v in res.counterexample.items() if k_ not in refute.RESERVED}
    assert refute.replay(coords, st.lhs, st.rhs, "<=", st.domain)


def test_a_false_part_withholds_the_proof_and_refutes_nothing():
    """Planted: x ≤ 1/2 is false on [0, 1]; the claim max(x, y) ≤ 1 is true, so it is not refuted either."""
    parts = [le("x ≤ 1/2", x, R(1, 2), UNIT), le("y ≤ 1", y, 1, UNIT)]
    res = check_step(claim(sp.Max(x, y), 1, UNIT, parts), **FAST)
    assert res.verdict is Verdict.VERIFIED
    assert "a part is refuted" in res.method and "x ≤ 1/2: refuted" in res.evidence


def test_the_memo_does_not_reuse_a_proof_for_a_wider_domain():
    """``x ≤ 1`` is proved on [0, 1]; the same claim on [0, 2] is another key, checked (and refuted) on its own,
    and the conjunction built on it is not proved."""
    narrow = le("x ≤ 1", x, 1, Domain({x: (0, 1)}))
    wide = le("x ≤ 1", x, 1, Domain({x: (0, 2)}))
    assert conjunction.key(narrow, FAST) != conjunction.key(wide, FAST)
    assert check_step(claim(x / 2, 1, Domain({x: (0, 1)}), [narrow]), **FAST).verdict is Verdict.PROVED
    assert conjunction.checked(wide, FAST).verdict is Verdict.REFUTED
    res = check_step(claim(x / 2, 1, Domain({x: (0, 2)}), [wide]), **FAST)  # x/2 ≤ 1 is true on [0, 2]
    assert res.verdict is Verdict.VERIFIED


def test_an_identical_part_is_checked_once_whatever_its_name(monkeypatch):
    from infonce_bounds.derivations.checks import reentry

    calls = []
    real = reentry.check_step

    def counting(step, **opts):
        calls.append(step.name)
        return real(step, **opts)

    monkeypatch.setattr(reentry, "check_step", counting)
    a = claim(x / 2, 1, Domain({x: (0, 1)}), [le("x ≤ 1 (first name)", x, 1, Domain({x: (0, 1)}, name="a"))])
    b = claim(x / 3, 1, Domain({x: (0, 1)}), [le("x ≤ 1 (second name)", x, 1, Domain({x: (0, 1)}, name="b"))])
    ra, rb = check_step(a, **FAST), check_step(b, **FAST)
    assert ra.verdict is Verdict.PROVED and rb.verdict is Verdict.PROVED
    assert calls == ["x ≤ 1 (first name)"]
    assert "x ≤ 1 (second name): proved" in rb.evidence  # the reused result carries the part's own name


def test_a_nested_conjunction_is_a_part_like_any_claim():
    inner = claim(sp.Max(x, y), 1, UNIT, [le("x ≤ 1", x, 1, UNIT), le("y ≤ 1", y, 1, UNIT)])
    outer = claim(sp.Max(x, y) / 2, R(1, 2), UNIT, [inner], multipliers=[R(1, 2)])
    res = check_step(outer, **FAST)
    assert res.verdict is Verdict.PROVED and covers(res.covered, outer.domain)


def test_a_wrong_implication_rule_named_falls_back_to_the_search():
    parts = [le("x ≤ 1", x, 1, UNIT), le("y ≤ 1", y, 1, UNIT)]
    res = check_step(claim(sp.Max(x, y), 1, UNIT, parts, implication="monotone"), **FAST)
    assert res.verdict is Verdict.PROVED


def test_a_part_reused_across_the_catalogue_has_the_key_of_the_step_it_restates():
    """Prop. 3's, Prop. 5's and Theorem 1's part ``b − a ≤ 4/τ`` is Lemma 5's step: one content key, one proof."""
    from infonce_bounds.derivations.paper import lemma5, prop3

    step = lemma5.derivations()[0].step("ours: b − a ≤ 4/τ (in ε = 1/k; tight only as ε → 0)")
    user = next(s for s in prop3.derivations()[0].steps if s.route and s.route[0] == "conjunction")
    part = conjunction._step_of(user.route[1]["parts"][0], "part")
    assert conjunction.key(part, FAST) == conjunction.key(step, FAST) is not None


def test_the_catalogue_states_no_conjunction_as_a_closure():
    from infonce_bounds.derivations import catalogue

    for der in catalogue.all_derivations():
        for st in der.steps:
            assert st.check is None or "all_of" not in getattr(st.check, "__qualname__", ""), (der.name, st.name)


@pytest.mark.parametrize(
    "params, word",
    [
        ({"parts": []}, "'parts'"),
        ({"parts": [{"lhs": x, "rhs": 1}]}, "missing"),
        ({"parts": [conjunction.part(le("p", x, 1, UNIT))], "multipliers": [1, 2]}, "'multipliers'"),
        ({"parts": [conjunction.part(le("p", x, 1, UNIT))], "implication": "magic"}, "'implication'"),
        ({"parts": [{**conjunction.part(le("p", x, 1, UNIT)), "simplify": "magic"}]}, "'simplify'"),
    ],
)
def test_a_malformed_hint_names_its_parameter(params, word):
    st = le("claim", x, 1, UNIT, route=("conjunction", params))
    with pytest.raises(DerivationError, match=word):
        check_step(st, **FAST)


def test_a_part_that_is_code_is_refused():
    with pytest.raises(DerivationError, match="check= closure"):
        conjunction.part(le("p", x, 1, UNIT, check=lambda s, o: None))
    with pytest.raises(DerivationError, match="simplifier"):
        conjunction.part(Step("p", x, x, domain=UNIT, simplifier=sp.simplify))


class _RunMemo:
    """A library whose run memo is a dict (as the running ``verify`` shares one between its workers)."""

    def __init__(self, real):
        self.real, self.store = real, {}

    def key(self, step, opts):
        return self.real.key(step, opts)

    def memo_load(self, key):
        return self.store.get(key)

    def memo_store(self, key, result):
        self.store[key] = result


def test_a_part_another_worker_is_checking_is_waited_for_not_repeated(monkeypatch):
    import threading
    import time

    from infonce_bounds.derivations.checks import library

    part = le("x ≤ 1", x, 1, Domain({x: (0, 1)}))
    lib = _RunMemo(library.current())
    monkeypatch.setattr(library, "current", lambda: lib)
    k_ = conjunction.key(part, FAST)
    theirs = conjunction.checked(part, FAST)  # what the other worker will store
    conjunction._memo().clear()
    lib.store[k_ + conjunction._PENDING] = conjunction.undecided(part, method=f"-pending@{time.time():.3f}")
    threading.Timer(0.5, lambda: lib.store.__setitem__(k_, theirs)).start()
    computed = []
    res = conjunction.checked(part, FAST, lambda: computed.append(1) or theirs)
    assert res.verdict is Verdict.PROVED and not computed
    # a marker left long ago (its worker died): checked here, not waited for
    conjunction._memo().clear()
    lib.store.clear()
    lib.store[k_ + conjunction._PENDING] = conjunction.undecided(part, method="-pending@0.000")
    res = conjunction.checked(part, FAST, lambda: computed.append(1) or theirs)
    assert res.verdict is Verdict.PROVED and computed == [1]


def test_a_nested_conjunction_never_waits_for_its_own_mark(monkeypatch):
    """The part the route checks is the claim its own route then checks (one key): this process's mark is not
    another worker's, so nothing waits (it once waited the whole bound at each level)."""
    import time

    from infonce_bounds.derivations.checks import library

    lib = _RunMemo(library.current())
    monkeypatch.setattr(library, "current", lambda: lib)
    monkeypatch.setattr(conjunction, "_WAIT_SECONDS", 30.0)
    inner = claim(sp.Max(x, y), 1, UNIT, [le("x ≤ 1", x, 1, UNIT), le("y ≤ 1", y, 1, UNIT)])
    outer = claim(sp.Max(x, y) / 2, R(1, 2), UNIT, [inner], multipliers=[R(1, 2)])
    t0 = time.monotonic()
    assert check_step(outer, **FAST).verdict is Verdict.PROVED
    assert time.monotonic() - t0 < 25
