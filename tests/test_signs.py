"""Signs a proof relies on come from Arb or exact arithmetic (checks/signs.py), never from SymPy's evalf.

Each planted false claim below has a margin far below double precision: SymPy's numeric sign deduction
(``is_nonnegative`` on a number evaluates it in floating point) called them true, and ``check`` proved them.
"""

from __future__ import annotations

import sympy as sp

from infonce_bounds.derivations.checks import check_step
from infonce_bounds.derivations.checks.signs import arb_sign, certain_nonnegative, signed_dummies
from infonce_bounds.derivations.ledger import Domain, Step, Verdict

x = sp.Symbol("x", real=True)
u = sp.Symbol("u", nonnegative=True)
t = sp.Symbol("t", positive=True)
R = sp.Rational


def test_arb_sign_exact_and_rising_precision():
    assert arb_sign(0) == 0 and arb_sign(R(-3, 7)) == -1 and arb_sign(R(1, 10**300)) == 1
    # false by 9.6e-175: decided at a few hundred bits
    assert arb_sign(sp.exp(-200) - sp.exp(-400) - sp.log(1 + sp.exp(-200))) == -1
    assert arb_sign(sp.log(1 + R(1, 10**30)) - R(1, 10**30) + R(1, 10**60)) == 1
    assert arb_sign(sp.pi - R(355, 113)) == -1 and arb_sign(sp.E - R(271828, 100000)) == 1
    assert arb_sign(sp.sin(1) - R(841470984807896, 10**15)) == 1
    assert arb_sign(sp.gamma(R(1, 3)) - R(2678938534707747, 10**15)) == 1


def test_arb_sign_undecided_is_none():
    # a zero not written as 0: Arb never decides it (a proof must not rely on it)
    assert arb_sign(sp.log(6) - sp.log(2) - sp.log(3)) is None
    assert arb_sign(sp.exp(-(10**6)) - sp.exp(-(10**6)), 64) == 0  # SymPy cancels it exactly on construction
    assert arb_sign(sp.log(-1 + sp.exp(-10))) is None  # outside log's domain: no sign
    assert arb_sign(sp.zoo) is None and arb_sign(sp.oo) is None and arb_sign(sp.I) is None
    # a margin of about 2^-11542: undecided at the default cap, decided with a higher one
    tiny = sp.exp(-sp.Integer(4000)) * sp.log(2)
    assert arb_sign(sp.log(1 + tiny) - tiny) is None
    assert arb_sign(sp.log(1 + tiny) - tiny, 16384) == -1


def test_arb_sign_rejects_symbols():
    import pytest

    with pytest.raises(ValueError, match="free symbols"):
        arb_sign(x + 1)
    with pytest.raises(ValueError, match="max_bits"):
        arb_sign(sp.pi, 8)


def test_signed_dummies_groups_constants():
    e = signed_dummies(x**2 + sp.pi - 3)
    assert e is not None and len(e.free_symbols) == 2
    (d,) = e.free_symbols - {x}
    assert d.is_positive
    assert signed_dummies(x + sp.log(6) - sp.log(2) - sp.log(3)) is None  # undecided constant


def test_certain_nonnegative_planted_false_sub_double_margins():
    # (x − 1/2)² + c with c = 10⁻³⁰ − 10⁻⁶⁰ − log(1 + 10⁻³⁰) ≈ −5e−61 < 0: false at x = 1/2
    c = R(1, 10**30) - R(1, 10**60) - sp.log(1 + R(1, 10**30))
    assert not certain_nonnegative((x - R(1, 2)) ** 2 + c)
    assert not certain_nonnegative(sp.exp(-200) - sp.exp(-400) - sp.log(1 + sp.exp(-200)))
    assert not certain_nonnegative(u * (sp.log(1 + sp.exp(-300)) - sp.exp(-300)))  # u·(−e^{−600}/2) < 0
    # with the margin the other way, proved
    assert certain_nonnegative((x - R(1, 2)) ** 2 - c)
    assert certain_nonnegative(u * (sp.log(1 + sp.exp(-300)) - sp.exp(-300) + sp.exp(-600)))
    assert certain_nonnegative(u * (sp.exp(-300) - sp.log(1 + sp.exp(-300))))


def test_certain_nonnegative_true_claims():
    assert certain_nonnegative(sp.exp(x) + x**2)
    assert certain_nonnegative(sp.exp(-x), strict=True)
    assert certain_nonnegative(1 + x**2, strict=True)
    assert certain_nonnegative(t * sp.log(1 + t), strict=True)
    assert not certain_nonnegative(x**2, strict=True)  # 0 at x = 0
    assert not certain_nonnegative(x**3)
    assert certain_nonnegative((x - 1) ** 4 * sp.exp(x))


def _ineq(lhs, rhs, domain, rel="<="):
    return Step("planted", lhs, rhs, kind="inequality", relation=rel, domain=domain)


def test_check_never_proves_sub_double_margins():
    # a constant claim false by 9.6e-175
    st = _ineq(sp.log(1 + sp.exp(-200)), sp.exp(-200) - sp.exp(-400), Domain({}))
    assert check_step(st, trials=200).verdict is Verdict.REFUTED
    # an interval face: false by 5e-61 at x = 1/2
    xd = Domain({x: (0, 1)})
    st = _ineq(sp.log(1 + R(1, 10**30)), R(1, 10**30) - R(1, 10**60) + (x - R(1, 2)) ** 2, xd)
    res = check_step(st, trials=200)
    assert res.verdict is Verdict.REFUTED, (res.method, res.evidence)
    # one of the same kind with another function: tanh(t) ≤ t − t³/3 + 2t⁵/15 is false by ≈ 17t⁷/315
    tt = R(1, 10**12)
    st = _ineq(sp.tanh(tt) + (x - R(1, 3)) ** 2 * 0, tt - tt**3 / 3 + 2 * tt**5 / 15 - (x - R(1, 3)) ** 2, xd, ">=")
    assert check_step(st, trials=200).verdict is not Verdict.PROVED


def test_check_still_proves_true_constant_claims():
    st = _ineq(sp.log(1 + sp.exp(-200)), sp.exp(-200), Domain({}))
    assert check_step(st, trials=200).verdict is Verdict.PROVED
    xd = Domain({x: (0, 1)})
    st = _ineq(sp.log(1 + R(1, 10**30)), R(1, 10**30) + (x - R(1, 2)) ** 2, xd)
    assert check_step(st, trials=200).verdict is Verdict.PROVED


def test_trig_and_inverse_margins_below_double_are_refuted():
    # cos(10⁻²⁰) = 1 − 10⁻⁴⁰/2 + 4e−82: the claim is false by 4e−82 at x = 0; atan(10⁻²⁵) < 10⁻²⁵ at x = 3
    xd = Domain({x: (-1, 1)})
    st = _ineq(sp.cos(R(1, 10**20)), 1 - R(1, 10**40) / 2 + x**2, xd)
    assert check_step(st, trials=300).verdict is Verdict.REFUTED
    st = _ineq(sp.atan(R(1, 10**25)), R(1, 10**25) - (x - 3) ** 2, Domain({x: (2, 4)}), ">=")
    assert check_step(st, trials=300).verdict is Verdict.REFUTED
    # and the true neighbours are proved
    st = _ineq(sp.cos(R(1, 10**20)), 1 - R(1, 10**40) / 2 + R(1, 10**81) + x**2, xd)
    assert check_step(st, trials=300).verdict is Verdict.PROVED


def test_trig_enclosures_contain_every_value():
    import random

    import mpmath

    from infonce_bounds.derivations import intervals

    rng = random.Random(7)
    for f in (sp.sin, sp.cos, sp.atan, sp.asinh, sp.erf):
        for _ in range(60):
            a = R(rng.randint(-4000, 4000), 200)
            b = a + R(rng.choice([1, 30, 200, 600, 1400]), 200)
            iv = intervals.interval_eval(f(x), {x: (a, b)})
            for i in range(41):
                v = sp.N(f(a + (b - a) * R(i, 40)), 40)
                assert iv.a <= mpmath.mpf(str(v)) <= iv.b, (f, a, b, i, iv)
    # a maximum inside the box is included (sin at π/2 on [1, 2]; cos at 0 on [−1, 1])
    assert intervals.interval_eval(sp.sin(x), {x: (1, 2)}).hi >= 1
    assert intervals.interval_eval(sp.cos(x), {x: (-1, 1)}).hi >= 1
