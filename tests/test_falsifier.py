"""The falsifier's batched pattern search and the instance builder's loop printers: the same values as
the written-out sums, the same trial counts, and planted wrong claims still refuted."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, Verdict, check_step, falsify
from infonce_bounds.derivations.checks.sampling import Evaluator, expand_sums, fast_lambdify, loop_lambdify
from infonce_bounds.derivations.ledger import Domain, Step
from infonce_bounds.derivations.symbols import j, k, s

x, y, tau = sp.symbols("x y tau", real=True)
i_ = sp.Symbol("i", integer=True)
w = sp.IndexedBase("w")

#: expressions over vectors s, w (the catalogue's forms and the printers' corner cases)
LOOPED = [
    sp.log(sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k),
    sp.Sum(s[j] * sp.exp(s[j] / tau) / sp.Sum(sp.exp(s[i_] / tau), (i_, 1, k)), (j, 1, k)),
    sp.Sum((s[j] - sp.Sum(s[i_], (i_, 1, k)) / k) ** 2, (j, 1, k)),
    sp.Sum(s[j] * sp.Sum(s[i_] * s[j], (i_, 1, k)), (j, 1, k)),  # the inner body reads the outer index
    sp.Sum(sp.Integer(3) ** (-j) * s[j], (j, 1, k)),  # the index as a value (exact at 50 digits)
    sp.Sum(w[j, 1] * w[j, 2], (j, 1, k)),
    sp.Sum(sp.Piecewise((s[j], s[j] > 0), (-2 * s[j], True)) + sp.Min(s[j], x) + sp.Abs(s[j] - x), (j, 1, k)),
    sp.Product(1 + s[j] ** 2, (j, 1, k)) + sp.Sum(x, (j, 1, k)),
    sp.Sum(s[j], (j, 2, k)) + s[1],  # a shifted range and a fixed entry
    sp.Sum(s[j + 1] - s[j], (j, 1, k - 1)),  # an index expression, telescoping
]


@pytest.mark.parametrize("expr", LOOPED, ids=range(len(LOOPED)))
@pytest.mark.parametrize("kv", [1, 2, 5, 12])
def test_loop_printers_give_the_written_out_values(expr, kv, rng):
    dom = Domain({k: (1, sp.oo), s: (-1, 1), w: (-1, 1), x: (-1, 1), tau: (sp.Rational(1, 10), 10)})
    ev = Evaluator([expr], dom)
    inst = ev.instance({k: kv})
    assert inst.looped
    atoms = [a for a, _ in inst.entries]
    written = expand_sums(inst.exprs[0])
    assert written.atoms(sp.Indexed) <= set(atoms)  # the loops read every entry the written-out sum does
    names = inst.scalars + atoms
    pts = rng.uniform(-1, 1, (64, len(names)))
    for c_, sym in enumerate(names):
        if sym == tau:
            pts[:, c_] = rng.uniform(0.1, 10, 64)
    ref = fast_lambdify(names, [written], "numpy")
    got = np.broadcast_to(loop_lambdify(inst.scalars, atoms, inst.exprs, "numpy")(*pts.T)[0], (64,))
    want = np.broadcast_to(ref(*pts.T)[0], (64,))
    assert np.allclose(got, want, rtol=1e-12, atol=1e-12)
    f_mp = loop_lambdify(inst.scalars, atoms, inst.exprs, "mpmath")
    f_fl = loop_lambdify(inst.scalars, atoms, inst.exprs, "math")
    r_mp = fast_lambdify(names, [written], "mpmath")
    with mpmath.workdps(50):
        for row in pts[:4]:
            args = [mpmath.mpf(float(v)) for v in row]
            a, b = f_mp(*args)[0], r_mp(*args)[0]
            assert abs(a - b) <= mpmath.mpf(10) ** -45 * max(1, abs(b))
            assert f_fl(*row.tolist())[0] == pytest.approx(float(b), rel=1e-12, abs=1e-12)


def test_an_empty_sum_is_zero_and_a_sum_of_a_constant_counts_its_terms():
    expr = sp.Sum(sp.Rational(1, 2), (j, 2, k)) + x * sp.Sum(2, (j, 1, k))
    ev = Evaluator([expr], Domain({k: (1, sp.oo), x: (0, 1)}))
    for kv, want in [(1, 2.0), (4, 1.5 + 8.0)]:
        inst = ev.instance({k: kv})
        assert inst.looped and inst.scalars == [x]
        got = np.broadcast_to(inst.fn_np(np.ones(3))[0], (3,))
        assert np.allclose(got, want) and float(inst.fn_mp(mpmath.mpf(1))[0]) == want


@pytest.mark.parametrize("kv", [1, 3, 9])
def test_written_out_sums_equal_sympy_doit(kv):
    for expr in LOOPED[:6] + LOOPED[7:]:
        sub = expr.xreplace({k: sp.Integer(kv)})
        assert sp.simplify(expand_sums(sub) - sub.doit()) == 0


def test_an_integral_identity_is_spot_checked_by_quadrature_and_a_wrong_one_refuted():
    good = Step(
        "∫₀¹ e^{xt} dt = (e^x − 1)/x",
        sp.Integral(sp.exp(x * sp.Symbol("t")), (sp.Symbol("t"), 0, 1)),
        (sp.exp(x) - 1) / x,
        kind="identity",
        domain=Domain({x: (sp.Rational(1, 10), 3)}),
    )
    assert check_step(good).verdict in (Verdict.PROVED, Verdict.VERIFIED)
    bad = Step(
        "planted: ∫₀¹ e^{xt} dt = (e^x − 1)/x + 10⁻²⁰",
        good.lhs,
        good.rhs + sp.Rational(1, 10**20),
        kind="identity",
        domain=good.domain,
    )
    res = check_step(bad)
    assert res.verdict is Verdict.REFUTED and res.counterexample is not None


def test_a_vector_claim_with_index_weights_is_refuted_only_at_large_k():
    """Σ_j 2^{−j} s_j ≤ 0.999 fails only for k ≥ 10 (near s ≡ 1): the loop printers' index values."""
    st = Step(
        "planted: Σ_j 2^{−j} s_j ≤ 0.999",
        sp.Sum(2 ** (-j) * s[j], (j, 1, k)),
        sp.Rational(999, 1000),
        kind="inequality",
        relation="<=",
        domain=Domain({k: (1, 12), s: (-1, 1)}),
    )
    fz = falsify(st, {**DEFAULTS, "trials": 20000})
    assert fz.counterexample is not None and int(fz.counterexample["k"]) >= 10


def test_a_vector_identity_wrong_only_at_large_k_is_refuted_by_the_grouped_spot_check():
    """Σ_j s_j² = Σ_j s_j² + e^{−10⁴/k}: the difference is e^{−1667} at k = 6 (invisible at 50 digits), ~1 at
    k = 10⁹; the grouped points (three groups of equal coordinates, k up to 10⁹) see it."""
    lhs = sp.Sum(s[j] ** 2, (j, 1, k))
    st = Step(
        "planted: vector identity off at large k",
        lhs,
        lhs + sp.exp(-(10**4) / k),
        kind="identity",
        domain=Domain({k: (1, sp.oo), s: (-1, 1)}),
    )
    res = check_step(st)
    assert res.verdict is Verdict.REFUTED, res.method
    assert "large k" in res.method and int(res.counterexample["k"]) > 10**4


def test_a_true_vector_identity_states_the_large_k_range_it_was_spot_checked_on():
    """bias_bound's "leave-one-out means" (Z_k the mean of its k leave-one-out means; SymPy does not reduce the
    double sum): verified at k ≤ 6 coordinate by coordinate and at grouped points up to 10⁹; the same claim on a
    finite stated range is spot-checked only inside it."""
    from infonce_bounds.derivations import bias

    (proved_st,) = [s_ for d_ in bias.derivations() for s_ in d_.steps if s_.name == "leave-one-out means"]
    # the step itself is proved by its sum simplifier; the same claim without it is spot-checked
    st = Step(proved_st.name, proved_st.lhs, proved_st.rhs, kind="identity", domain=proved_st.domain)
    res = check_step(st)
    assert res.verdict is Verdict.VERIFIED, res.method
    assert res.attacked["k"][1] == str(10**9) and res.attacked["grouped_k"] == ("7", str(10**9))
    kk = [s_ for s_ in st.domain.ranges if str(s_) == "k"][0]
    finite = Step(st.name, st.lhs, st.rhs, kind="identity", domain=Domain({**st.domain.ranges, kk: (2, 40)}))
    capped = check_step(finite)
    assert capped.verdict is Verdict.VERIFIED and capped.attacked["grouped_k"] == ("7", "40")


def _bump(constrained: bool) -> Step:
    # a violation in a disk of radius ~1e-3 around (0.3, 0.6): the random phase almost never lands in it,
    # the pattern search climbs the bump from its best points
    bump = sp.exp(-(10**4) * ((x - sp.Rational(3, 10)) ** 2 + (y - sp.Rational(6, 10)) ** 2))
    cons = (y >= x,) if constrained else ()
    return Step(
        "planted: a narrow bump ≤ 0.99",
        bump,
        sp.Rational(99, 100),
        kind="inequality",
        relation="<=",
        domain=Domain({x: (0, 1), y: (0, 1)}, constraints=cons),
    )


@pytest.mark.parametrize("constrained", [False, True])
def test_the_pattern_search_climbs_to_an_interior_violation(constrained):
    fz = falsify(_bump(constrained), {**DEFAULTS, "trials": 20000})
    assert fz.counterexample is not None
    assert abs(float(fz.counterexample["x"]) - 0.3) < 0.01 and abs(float(fz.counterexample["y"]) - 0.6) < 0.01


@pytest.mark.parametrize(
    "step",
    [
        Step("x² ≤ 1", x**2, sp.Integer(1), kind="inequality", relation="<=", domain=Domain({x: (-1, 1)})),
        Step("constant", sp.Integer(1), sp.Integer(2), kind="inequality", relation="<=", domain=Domain({})),
        Step(
            "mean ≤ max",
            sp.Sum(s[j], (j, 1, k)) / k,
            sp.Integer(1),
            kind="inequality",
            relation="<=",
            domain=Domain({k: (1, 12), s: (-1, 1)}),
        ),
        Step(
            "constrained",
            x * y,
            sp.Integer(1),
            kind="inequality",
            relation="<=",
            domain=Domain({x: (0, 1), y: (0, 1)}, constraints=(y >= x,)),
        ),
    ],
    ids=["scalar", "no variables", "vector", "constrained"],
)
def test_every_falsifier_spends_exactly_its_budget(step):
    for n in (997, 5000):
        fz = falsify(step, {**DEFAULTS, "trials": n})
        assert fz.counterexample is None and fz.trials == n
