"""``checks.sums.prove_sums``: claims over ``j = 1..k`` for every ``k`` proved by shown reductions, planted false
claims of each kind never proved, and no verdict for claims the route does not take."""

from __future__ import annotations

import statistics
import time

import pytest
import sympy as sp

from infonce_bounds.derivations import userclaims
from infonce_bounds.derivations.checks import DEFAULTS
from infonce_bounds.derivations.checks.sums import SumsOutcome, prove_sums
from infonce_bounds.derivations.ledger import Domain, Step

LSE = r"\log\left(\sum_{j=1}^{k} e^{a_j}\right)"
A1 = '{ k = "integer [1, inf]", "a[j]" = [-1, 1] }'
SOFT = r"\frac{e^{s_1/\tau}}{\sum_{j=1}^{k} e^{s_j/\tau}}"
S1 = '{ k = "integer [1, inf]", "s[j]" = [-1, 1], tau = [0.05, 10] }'

#: the k-claims of the public benchmark (claims-bench/public.toml), as written there
PUBLIC_TRUE = {
    "lse upper": ("claim", LSE + r" \le 1 + \log(k)", A1),
    "lse lower": ("claim", LSE + r" \ge -1 + \log(k)", A1),
    "jensen for exp": (
        "claim",
        r"\frac{1}{k}\sum_{j=1}^{k} e^{a_j} \ge e^{\frac{1}{k}\sum_{j=1}^{k} a_j}",
        '{ k = "integer [1, inf]", "a[j]" = [-3, 3] }',
    ),
    "softmax weight": ("claim", SOFT + r" \le \frac{e^{2/\tau}}{k}", S1),
    # the LaTeX `(k-1) e^{...}` (an implicit product) does not parse on this branch: the same tree in SymPy syntax
    "negatives below log k": (
        "sympy",
        "log(1 + (k - 1)*exp(-2/tau)) <= log(k)",
        '{ k = "integer [1, inf]", tau = [0.01, 100] }',
    ),
    "Bernoulli": ("claim", r"(1 + x)^{k} \ge 1 + k x", '{ x = [-1, 10], k = "integer [1, inf]" }'),
    "loss range below 4/tau": (
        "claim",
        r"\log\left(1 + k e^{2/\tau}\right) - \log\left(1 + k e^{-2/\tau}\right) \le \frac{4}{\tau}",
        '{ k = "integer [1, inf]", tau = [0.05, 100] }',
    ),
}

#: planted false claims, one per kind (the public benchmark's two, and the brief's)
PLANTED_FALSE = {
    "lse with half log k": ("claim", LSE + r" \le 1 + \frac{\log(k)}{2}", A1),
    "sum of squares bounded": ("claim", r"\sum_{j=1}^{k} a_j^{2} \le 20", A1),
    "jensen reversed": (
        "claim",
        r"\frac{1}{k}\sum_{j=1}^{k} e^{a_j} \le e^{\frac{1}{k}\sum_{j=1}^{k} a_j}",
        '{ k = "integer [1, inf]", "a[j]" = [-3, 3] }',
    ),
    "softmax with e^{1/tau}": ("claim", SOFT + r" \le \frac{e^{1/\tau}}{k}", S1),
    "Bernoulli with 2kx": ("claim", r"(1 + x)^{k} \ge 1 + 2 k x", '{ x = [-1, 10], k = "integer [1, inf]" }'),
    "loss range below 3/tau": (
        "claim",
        r"\log\left(1 + k e^{2/\tau}\right) - \log\left(1 + k e^{-2/\tau}\right) \le \frac{3}{\tau}",
        '{ k = "integer [1, inf]", tau = [0.05, 100] }',
    ),
}


def _step(name: str, field: str, text: str, where: str) -> Step:
    """The Step ``userclaims.parse`` builds from a one-claim file."""
    _, claims = userclaims.parse(f"[[claim]]\nname = {name!r}\n{field} = '{text}'\nwhere = {where}\n")
    return claims[0].step


def _by_hand(text: str, ranges: dict, relation: str) -> Step:
    """A Step from SymPy text over ``ranges`` (symbol or IndexedBase → range): SymPy-syntax vector claims do not
    parse on this branch (the vector label loses its assumptions), so their Step is built as the parser would."""
    k = sp.Symbol("k", integer=True, positive=True)
    tau = sp.Symbol("tau", positive=True)
    ns = {
        "k": k,
        "tau": tau,
        "a": sp.IndexedBase(sp.Symbol("a", real=True)),
        "s": sp.IndexedBase(sp.Symbol("s", real=True)),
    }
    ns["b"] = sp.IndexedBase(sp.Symbol("b", real=True))
    ns["x"] = sp.Symbol("x", real=True)
    lhs, rhs = (sp.sympify(side, locals=ns) for side in text.split(" ? "))
    dom = Domain({ns[name] if name in ns else sp.Symbol(name, real=True): r_ for name, r_ in ranges.items()})
    return Step("by hand", lhs, rhs, kind="inequality", relation=relation, domain=dom)


@pytest.mark.parametrize("name", sorted(PUBLIC_TRUE))
def test_public_k_claims_are_proved_with_the_reduction_shown(name):
    step = _step(name, *PUBLIC_TRUE[name])
    out = prove_sums(step, DEFAULTS)
    assert isinstance(out, SumsOutcome)
    assert out.proved, out.reduction
    assert out.reduction and out.method
    # the proof covers the whole stated domain, k up to ∞ included
    assert out.covered == {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in step.domain.ranges.items()}
    assert out.covered["k"] == ("1", "oo")


def test_the_reduction_names_its_steps():
    up = prove_sums(_step("lse upper", *PUBLIC_TRUE["lse upper"]), DEFAULTS)
    assert "termwise: each term exp(a[j]) ∈ [exp(-1), E]" in up.reduction
    assert "M1 = E" in up.reduction and "relaxed to a real" in up.reduction
    jensen = prove_sums(_step("jensen", *PUBLIC_TRUE["jensen for exp"]), DEFAULTS)
    assert "Jensen" in jensen.reduction and "≥ exp(M1)" in jensen.reduction
    soft = prove_sums(_step("softmax", *PUBLIC_TRUE["softmax weight"]), DEFAULTS)
    assert "exp(s_1/tau) + (k - 1)·M1" in soft.reduction  # the numerator's own term split off the sum
    bern = prove_sums(_step("Bernoulli", *PUBLIC_TRUE["Bernoulli"]), DEFAULTS)
    # (1 + x)^k − 1 − kx is increasing in k (its k-derivative proved ≥ 0 by the route itself), so k = 1 is the
    # worst; which sub-route proves the derivative depends on the time each is given, so only its naming is fixed
    assert "∂/∂k ≥ 0 on the box" in bern.reduction
    assert "increasing in k, so k = 1" in bern.reduction
    loss = prove_sums(_step("loss", *PUBLIC_TRUE["loss range below 4/tau"]), DEFAULTS)
    assert "decreasing in k; write u = 1/k" in loss.reduction


@pytest.mark.parametrize("name", sorted(PLANTED_FALSE))
def test_planted_false_claims_are_never_proved(name):
    out = prove_sums(_step(name, *PLANTED_FALSE[name]), DEFAULTS)
    assert out is not None and not out.proved
    assert out.covered is None
    assert out.reduction.startswith(("not proved", "not reduced"))


A = {"k": (1, sp.oo), "a": (-1, 1)}
POS = {"k": (1, sp.oo), "a": (sp.Rational(1, 2), 2)}
SJ = {"k": (1, sp.oo), "s": (-1, 1), "tau": (sp.Rational(1, 20), 10)}

AP = {"k": (1, sp.oo), "a": (0, 2)}
ABP = {"k": (1, sp.oo), "a": (0, 1), "b": (0, 3)}
SA = {**SJ, "a": (0, 3)}
SAS = {**SJ, "a": (-2, 2)}
SW = "Sum(exp(s[j]/tau)*a[j], (j, 1, k))/Sum(exp(s[j]/tau), (j, 1, k))"
SW2 = "Sum(exp(s[j]/tau)*a[j]**2, (j, 1, k))/Sum(exp(s[j]/tau), (j, 1, k))"
HW = "Sum(exp(s[j]/tau)*Abs(a[j]), (j, 1, k))/Sum(exp(s[j]/tau), (j, 1, k))"
SQ = "Sum(exp(s[j]/tau)*a[j], (j, 1, k))/(1 + Sum(exp(s[j]/tau), (j, 1, k)))"
BETA = {"k": (1, sp.oo), "a": (0, 2), "x": (1, 4)}

#: the classical reductions (power means, ℓ_p norms, Minkowski, weighted Jensen, largest weight): true claims and
#: a planted false one of each (the inequality reversed, or a constant too small)
CLASSICAL = [
    # (a root of a mean whose range reaches 0 has no finite derivative there: the claim is written in powers)
    ("(Sum(a[j]**2, (j, 1, k))/k)**3 ? (Sum(a[j]**3, (j, 1, k))/k)**2", AP, "<=", True),
    ("(Sum(a[j]**2, (j, 1, k))/k)**(1/2) ? (Sum(a[j]**3, (j, 1, k))/k)**(1/3)", AP, ">=", False),
    ("(Sum(a[j]**x, (j, 1, k))/k)**(4/x) ? Sum(a[j]**4, (j, 1, k))/k", BETA, "<=", True),
    (
        "(Sum(Abs(a[j])**x, (j, 1, k))/k)**(4/x) ? Sum(a[j]**4, (j, 1, k))/k",
        {**BETA, "a": (-2, 2)},
        "<=",
        True,
    ),
    ("(Sum(a[j]**3, (j, 1, k)))**2 ? (Sum(a[j]**2, (j, 1, k)))**3", AP, "<=", True),
    # a signed odd power is no power of |a|: the power-mean relation is not drawn for it
    ("(Sum(a[j]**3, (j, 1, k))/k)**2 ? (Sum(a[j]**2, (j, 1, k))/k)**3", A, ">=", False),
    ("(Sum(a[j]**3, (j, 1, k)))**(1/3) ? (Sum(a[j]**2, (j, 1, k)))**(1/2)", AP, ">=", False),
    (
        "sqrt(Sum((a[j] + b[j])**2, (j, 1, k))) ? sqrt(Sum(a[j]**2, (j, 1, k))) + sqrt(Sum(b[j]**2, (j, 1, k)))",
        ABP,
        "<=",
        True,
    ),
    (
        "sqrt(Sum((a[j] + b[j])**2, (j, 1, k))) ? sqrt(Sum(a[j]**2, (j, 1, k))) + sqrt(Sum(b[j]**2, (j, 1, k)))",
        ABP,
        ">=",
        False,
    ),
    (f"({SW})**2 ? {SW2}", SAS, "<=", True),
    (f"({SW})**2 ? {SW2}", SAS, ">=", False),
    (f"{SW2} - ({SW})**2 ? 0", SAS, ">=", True),
    (f"{SW2} - 2*({SW})**2 ? 0", SAS, ">=", False),
    (f"{SW} ? exp(2/tau)*Sum(a[j], (j, 1, k))/k", SA, "<=", True),
    (f"{SW} ? exp(1/tau)*Sum(a[j], (j, 1, k))/k", SA, "<=", False),
    (f"{SW} ? (exp(2/tau)*Sum(a[j]**2, (j, 1, k))/k)**(1/2)", SA, "<=", True),
    (f"{SQ} ? exp(2/tau)*Sum(a[j], (j, 1, k))/(k + exp(2/tau))", SA, "<=", True),
    (f"{SQ} ? Sum(a[j], (j, 1, k))/k", SA, ">=", False),
    # Σ_j p_j² ≤ max_j p_j (a power of the weight itself), and the r-th power form of continuity's D_r(w)
    ("Sum(exp(2*s[j]/tau), (j, 1, k))/Sum(exp(s[j]/tau), (j, 1, k))**2 ? 1/(1 + (k - 1)*exp(-2/tau))", SJ, "<=", True),
    ("Sum(exp(2*s[j]/tau), (j, 1, k))/Sum(exp(s[j]/tau), (j, 1, k))**2 ? 1/k", SJ, "<=", False),
    (
        "k**(x - 1)*Sum(exp(x*s[j]/tau), (j, 1, k))/Sum(exp(s[j]/tau), (j, 1, k))**x ? (k/(1 + (k - 1)*exp(-2/tau)))**(x - 1)",
        {**SJ, "x": (1, 3)},
        "<=",
        True,
    ),
    (
        "k**(x - 1)*Sum(exp(x*s[j]/tau), (j, 1, k))/Sum(exp(s[j]/tau), (j, 1, k))**x ? 1",
        {**SJ, "x": (1, 3)},
        "<=",
        False,
    ),
    # Hölder with the softmax weights as one factor (continuity's D_r(w)·M_q(h)), and a constant too small
    (
        f"{HW} ? (Sum(Abs(a[j])**(x/(x - 1)), (j, 1, k))/k)**((x - 1)/x)*(k**(x - 1)*Sum(exp(x*s[j]/tau), (j, 1, k))"
        "/Sum(exp(s[j]/tau), (j, 1, k))**x)**(1/x)",
        {**SAS, "x": (sp.Rational(3, 2), 4)},
        "<=",
        True,
    ),
    (
        f"{HW} ? (Sum(Abs(a[j])**(x/(x - 1)), (j, 1, k))/k)**((x - 1)/x)*(k**(x - 1)*Sum(exp(x*s[j]/tau), (j, 1, k))"
        "/Sum(exp(s[j]/tau), (j, 1, k))**x)**(1/x)/2",
        {**SAS, "x": (sp.Rational(3, 2), 4)},
        "<=",
        False,
    ),
    ("log(exp(a[1]) + exp(a[2]) + exp(a[3])) - a[1] ? 0", {"a": (-1, 1)}, ">=", True),
    ("log(exp(a[1]) + exp(a[2]) + exp(a[3])) - a[1] ? 1", {"a": (-1, 1)}, ">=", False),
]

#: claims of the same kinds that the benchmark does not hold: (text "lhs ? rhs", ranges, relation, true?)
KINDS = [
    ("Sum(a[j]**2, (j, 1, k)) ? k", A, "<=", True),
    ("log(Sum(exp(a[j]), (j, 1, k))/k) ? Sum(a[j], (j, 1, k))/k", A, ">=", True),
    ("Sum(a[j]**2, (j, 1, k))/k ? (Sum(a[j], (j, 1, k))/k)**2", A, ">=", True),
    ("Sum(a[j]**2, (j, 1, k))/k ? (Sum(a[j], (j, 1, k))/k)**2", A, "<=", False),
    ("exp(s[1]/tau)/Sum(exp(s[j]/tau), (j, 1, k)) ? exp(-2/tau)/k", SJ, ">=", True),
    ("exp(s[1]/tau)/Sum(exp(s[j]/tau), (j, 1, k)) ? exp(-1/tau)/k", SJ, ">=", False),
    ("log(Sum(exp((s[j] - s[1])/tau), (j, 1, k))) ? log(k) + 2/tau", SJ, "<=", True),
    ("log(Sum(exp((s[j] - s[1])/tau), (j, 1, k))) ? log(k)", SJ, ">=", False),
    ("Product(a[j], (j, 1, k))**(1/k) ? Sum(a[j], (j, 1, k))/k", POS, "<=", True),
    ("Product(a[j], (j, 1, k))**(1/k) ? Sum(a[j], (j, 1, k))/k", POS, ">=", False),
    ("Product(1 + a[j], (j, 1, k)) ? 2**k", {"k": (1, sp.oo), "a": (0, 1)}, "<=", True),
    ("Sum(exp(a[j]), (j, 2, k)) ? E*(k - 1)", A, "<=", True),
    ("Sum(a[j]*b[j], (j, 1, k)) ? k", {**A, "b": (-1, 1)}, "<=", True),
    # Popoviciu (variance ≤ (b − a)²/4) and Hoeffding's lemma (log-mean-exp − mean ≤ (b − a)²/8): extremes at corners
    ("Sum(a[j]**2, (j, 1, k))/k - (Sum(a[j], (j, 1, k))/k)**2 ? 1/4", {"k": (1, sp.oo), "a": (0, 1)}, "<=", True),
    ("Sum(a[j]**2, (j, 1, k))/k - (Sum(a[j], (j, 1, k))/k)**2 ? 1/5", {"k": (1, sp.oo), "a": (0, 1)}, "<=", False),
    ("log(Sum(exp(a[j]), (j, 1, k))) ? log(k) + Sum(a[j], (j, 1, k))/k + 1/2", A, "<=", True),
    ("log(Sum(exp(a[j]), (j, 1, k))) ? log(k) + Sum(a[j], (j, 1, k))/k + 47/100", A, "<=", False),
    ("Sum(a[j], (j, 1, k)) ? 5", {"k": (1, 5), "a": (-1, 1)}, "<=", True),
    ("Sum(a[j], (j, 1, k)) ? 4", {"k": (1, 5), "a": (-1, 1)}, "<=", False),
    ("(1 + 1/k)**k ? E", {"k": (1, sp.oo)}, "<=", True),
    ("exp(k*x) ? 1 + k*x", {"k": (1, sp.oo), "x": (-1, 1)}, ">=", True),
    ("exp(k*x) ? 1 + 2*k*x", {"k": (1, sp.oo), "x": (-1, 1)}, ">=", False),
    ("(1 + 1/k)**k ? 27/10", {"k": (1, sp.oo)}, "<=", False),
    # in logarithms (both sides > 0): G^k ≤ e^{kM} is k(M − log G) ≥ 0; (1 + x/k)^k ≤ e^x is x − k log(1 + x/k) ≥ 0
    (
        "Product(1 + a[j], (j, 1, k)) ? exp(Sum(a[j], (j, 1, k)))",
        {"k": (1, sp.oo), "a": (-sp.Rational(1, 2), 1)},
        "<=",
        True,
    ),
    (
        "Product(1 + a[j], (j, 1, k)) ? exp(Sum(a[j], (j, 1, k))/2)",
        {"k": (1, sp.oo), "a": (-sp.Rational(1, 2), 1)},
        "<=",
        False,
    ),
    ("(1 + x/k)**k ? exp(x)", {"k": (1, sp.oo), "x": (0, 3)}, "<=", True),
    ("(1 + x/k)**k ? exp(x)", {"k": (1, sp.oo), "x": (0, 3)}, ">=", False),
    ("(1 + x/k)**k ? exp(9*x/10)", {"k": (1, sp.oo), "x": (0, 3)}, "<=", False),
    # classical reductions, each instance checked (classical.py): power means, ℓ_p norms, Minkowski, weighted
    # Jensen with softmax weights, the largest softmax weight, a tilted variance, the "+1" normaliser
    *CLASSICAL,
]


@pytest.mark.parametrize("text, ranges, relation, true", KINDS, ids=[f"{c[0]} {c[2]}" for c in KINDS])
def test_claims_of_the_same_kinds(text, ranges, relation, true):
    out = prove_sums(_by_hand(text, ranges, relation), DEFAULTS)
    assert out is not None
    assert out.proved is true, out.reduction


def test_claims_without_a_sum_or_an_unbounded_integer_are_left_to_the_other_routes():
    assert prove_sums(_step("tangent", "claim", r"e^{x} \ge 1 + x", "{ x = [-5, 5] }"), DEFAULTS) is None
    bounded = _step("bounded k", "claim", r"(1 + x)^{k} \ge 1 + k x", '{ x = [0, 1], k = "integer [1, 4]" }')
    assert prove_sums(bounded, DEFAULTS) is None
    shift = r"\log\left(\sum_{j=1}^{k} e^{a_j + c}\right) = c + \log\left(\sum_{j=1}^{k} e^{a_j}\right)"
    ident = _step("shift", "claim", shift, '{ k = "integer [1, inf]", "a[j]" = [-5, 5], c = [-5, 5] }')
    assert prove_sums(ident, DEFAULTS) is None  # an identity: not this route's


def test_linear_sums_takes_constant_factors_out_and_keeps_different_sums_apart():
    """``linear_sums``: ``Σ_j C·f_j = C·Σ_j f_j`` with one index for every sum, an identity; sums over different
    summands or ranges stay different."""
    from infonce_bounds.derivations.checks.sums import linear_sums

    k, tau = sp.Symbol("k", integer=True, positive=True), sp.Symbol("tau", positive=True)
    j, i = sp.Symbol("j", integer=True), sp.Symbol("i", integer=True)
    s = sp.IndexedBase(sp.Symbol("s", real=True))
    norm = sp.Sum(sp.exp(s[i] / tau), (i, 1, k))
    nested = sp.Sum(sp.exp(s[j] / tau) * s[j] / (tau * norm), (j, 1, k))
    flat = sp.Sum(sp.exp(s[j] / tau) * s[j], (j, 1, k)) / (tau * sp.Sum(sp.exp(s[j] / tau), (j, 1, k)))
    assert linear_sums(nested - flat) == 0
    assert linear_sums(nested - 2 * flat) != 0
    assert linear_sums(sp.Sum(s[j], (j, 1, k)) - sp.Sum(s[j], (j, 2, k))) != 0


def test_corners_reduction_is_shown():
    text = "Sum(a[j]**2, (j, 1, k))/k - (Sum(a[j], (j, 1, k))/k)**2 ? 1/4"
    out = prove_sums(_by_hand(text, {"k": (1, sp.oo), "a": (0, 1)}, "<="), DEFAULTS)
    assert out.proved and out.method.startswith("sum reduction (termwise bounds, extremes at corners")
    assert "so its minimum is at a vertex: m entries at 1, the rest at 0" in out.reduction


def test_median_time_per_public_claim_is_under_two_seconds():
    times = []
    public = ("lse with half log k", "sum of squares bounded")
    for name, spec in {**PUBLIC_TRUE, **{n_: PLANTED_FALSE[n_] for n_ in public}}.items():
        step = _step(name, *spec)
        t0 = time.perf_counter()
        prove_sums(step, DEFAULTS)
        times.append(time.perf_counter() - t0)
    assert statistics.median(times) <= 2.0, times


def test_a_relaxed_k_is_never_given_a_negative_base():
    """(1 + x)^k ≥ 1 + kx is false at x = −2.2, k = 21. ``check_step`` lets enclosures clip outside a function's
    domain once the *claim* is proved defined (integer k: (1 + x)^k is), but the route's relaxed claim (real k) and
    its k-derivative (log(1 + x)) are undefined for 1 + x < 0: the route must not prove it under that context."""
    from infonce_bounds.derivations import intervals

    wrong = _step("Bernoulli past -2", "claim", r"(1 + x)^{k} \ge 1 + k x", '{ x = [-2.2, 1], k = "integer [1, inf]" }')
    right = _step("Bernoulli", *PUBLIC_TRUE["Bernoulli"])
    with intervals.assume_defined(True):
        out = prove_sums(wrong, DEFAULTS)
        assert out is not None and not out.proved, out.reduction
        assert prove_sums(right, DEFAULTS).proved
