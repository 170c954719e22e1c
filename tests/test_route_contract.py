"""The contract every proof route keeps, checked over every entry of ``routes.ROUTES``, ``routes.HINTED`` and the
citation route (``citation.prove_by_citation``), each on the cases of ``CASES`` (true claims and planted false ones):

1. a planted false claim is never proved (each route has several: off by a small constant, a range extended past
   where the claim holds);
2. a refutation comes only through the gate: a ``ROUTES`` outcome never says refuted at all; a REFUTED
   ``StepResult`` (hinted and citation routes) carries a counterexample that ``refute.replay`` confirms again;
3. a proved cover contains the stated domain (``ledger.covers``);
4. the route returns within its budget slice, ``ROUTE_SECONDS`` (the ``route_seconds`` option's default) plus
   ``SLACK`` (the machine is shared: generous, yet a route that sleeps 30 s fails it): a ``ROUTES`` entry under
   ``budget.run_symbolic`` with that deadline, as the engine runs it (it must not swallow the deadline); a hinted
   or citation route, which the engine runs bare, on a clock of ``ROUTE_SECONDS`` that it must keep itself;
5. a true claim is proved, and not refuted.

A route added to a registry is parametrised here at once and fails until ``CASES`` has its cases; the fake routes at
the end (one that proves everything, one that sleeps through its deadline) show the contract can fail.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import time
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
import sympy as sp

from infonce_bounds.derivations import intervals, userclaims
from infonce_bounds.derivations.checks import DEFAULTS, check_step, refute, routes
from infonce_bounds.derivations.checks.budget import CHECK, Budget, Spent, default_budget_set, run_symbolic
from infonce_bounds.derivations.checks.citation import prove_by_citation
from infonce_bounds.derivations.checks.sampling import _sides
from infonce_bounds.derivations.ledger import Domain, Step, StepResult, Verdict, covers, free_names

#: a route's slice (``inequality.check_inequality`` gives each route ``opts["route_seconds"]``, default 4 s)
ROUTE_SECONDS = 4.0
#: how much later than its deadline a route may return: unwinding, Arb cleanup, a loaded machine
SLACK = 4.0
OPTS = {**DEFAULTS, "trials": 1500, "spot_points": 2, "box_budget": 600, "route_seconds": ROUTE_SECONDS}
R = sp.Rational
oo = sp.oo


@dataclass(frozen=True)
class Case:
    """One claim for a route: the ``step`` (a hinted route's hint is ``step.route``) and, for the citation route,
    the cited claims (``cited()``: ``(name, Step, StepResult)`` as ``check FILE`` hands them)."""

    name: str
    step: Step
    cited: Callable[[], list] = lambda: []


@dataclass(frozen=True)
class Cases:
    true: list[Case]
    false: list[Case] = field(default_factory=list)


def claim(lhs: Any, rel: str, rhs: Any, ranges: Mapping | None = None, route: tuple | None = None, name: str = ""):
    """A ``Case`` for ``lhs rel rhs`` on the box ``ranges`` (``rel`` "=" makes an identity)."""
    kind, relation = ("identity", None) if rel == "=" else ("inequality", rel)
    name = name or f"{sp.sstr(lhs)} {rel} {sp.sstr(rhs)}"
    step = Step(name, lhs, rhs, kind=kind, relation=relation, domain=Domain(dict(ranges or {})), route=route)
    return Case(name, step)


def _parsed(text: str, where: str) -> Case:
    """A ``Case`` from one claim as a user writes it (LaTeX and ``where``): the sums route reads that shape."""
    _, claims = userclaims.parse(f"[[claim]]\nname = 'c'\nclaim = '{text}'\nwhere = {where}\n")
    return Case(text, claims[0].step)


# ------------------------------------------------------------------------------------------------ the cases

x = sp.Symbol("x_rc", real=True)
y = sp.Symbol("y_rc", real=True)
z = sp.Symbol("z_rc", real=True)
t = sp.Symbol("t_rc", real=True)
c = sp.Symbol("c_rc", real=True)
eps = sp.Symbol("eps_rc", real=True)
xp = sp.Symbol("xp_rc", positive=True)
BERN = '{ x = [-1, 10], k = "integer [1, inf]" }'
LSE = r"\log\left(\sum_{j=1}^{k} e^{a_j}\right)"
A1 = '{ k = "integer [1, inf]", "a[j]" = [-1, 1] }'
SOFT = r"\frac{e^{s_1/\tau}}{\sum_{j=1}^{k} e^{s_j/\tau}}"
S1 = '{ k = "integer [1, inf]", "s[j]" = [-1, 1], tau = [0.05, 10] }'
p = sp.Symbol("p_rc", real=True)
q = sp.Symbol("q_rc", real=True)
lam = sp.Symbol("lam_rc", real=True)
PQ = (R(1, 1000), R(999, 1000))


def _sums() -> Cases:
    return Cases(
        true=[_parsed(r"(1 + x)^{k} \ge 1 + k x", BERN), _parsed(LSE + r" \le 1 + \log(k)", A1)],
        false=[
            _parsed(r"(1 + x)^{k} \ge 1 + k x + \frac{1}{100}", BERN),  # off by 1/100 (at x = 0)
            _parsed(r"(1 + x)^{k} \ge 1 + k x", '{ x = [-3, 10], k = "integer [1, inf]" }'),  # fails at x = −3, k = 5
            _parsed(LSE + r" \le 1 + \log(k) - \frac{1}{100}", A1),  # off by 1/100 (all a_j = 1)
            _parsed(r"(1 + x)^{k} > 1 + k x", BERN),  # strict: equal at k = 1 and at x = 0
            _parsed(SOFT + r" \le \frac{e^{1/\tau}}{k}", S1),  # e^{2/τ} needed; hard: the route runs out of time
        ],
    )


def _unbounded() -> Cases:
    return Cases(
        true=[claim(sp.log(1 + x), "<=", x, {x: (0, oo)}), claim(sp.exp(x), ">=", 1 + x, {x: (-oo, oo)})],
        false=[
            claim(sp.log(1 + x), "<=", x - R(1, 100), {x: (0, oo)}),  # off by 1/100 at x = 0
            claim(sp.exp(x), ">=", 1 + x + R(1, 10**6), {x: (-oo, oo)}),  # off by 1e-6 at the touching point
            claim(sp.tanh(x), "<=", x, {x: (-1, oo)}),  # holds on [0, ∞) only
            claim(1 + x, "<", sp.exp(x), {x: (-oo, oo)}),  # strict: equal at x = 0
            claim(sp.cosh(x), "<=", sp.exp(R(49, 100) * x**2), {x: (-oo, oo)}),  # the constant off by 1/100
        ],
    )


def _touching() -> Cases:
    return Cases(
        true=[
            claim(1 + x, "<=", sp.exp(x), {x: (-30, 30)}),
            claim(sp.cosh(x), "<=", sp.exp(x**2 / 2), {x: (-50, 50)}),
        ],
        false=[
            claim(1 + x + R(1, 10**6), "<=", sp.exp(x), {x: (-30, 30)}),  # off by 1e-6 at the touching point
            claim(sp.cosh(x), "<=", sp.exp(R(49, 100) * x**2), {x: (-50, 50)}),  # the constant off by 1/100
            claim(sp.tanh(x), "<=", x, {x: (-1, 40)}),  # holds on [0, 40] only
            claim(1 + x, "<", sp.exp(x), {x: (-30, 30)}),  # strict: equal at x = 0
            # two variables, a line of touching points; the constant 2 off by 1/100 (hard: seconds)
            claim(
                R(201, 100) * (p - q) ** 2,
                "<=",
                p * sp.log(p / q) + (1 - p) * sp.log((1 - p) / (1 - q)),
                {p: PQ, q: PQ},
            ),
            claim(  # Hoeffding's lemma for a two-point law with 1/9 for 1/8 (hard: the route runs out of time)
                sp.log(p * sp.exp(lam * (1 - p)) + (1 - p) * sp.exp(-lam * p)),
                "<=",
                lam**2 / 9,
                {p: (0, 1), lam: (-20, 20)},
            ),
        ],
    )


def _mean_value() -> Cases:
    dom = {xp: (2, 3), eps: (-1, 1), c: (0, 1)}
    hint = ("mean value", {"path": sp.log(xp + t), "var": t, "point": c, "start": 0, "end": eps})
    quotient = (sp.log(xp + eps) - sp.log(xp)) / eps
    lip = {y: (-40, 40), z: (-40, 40)}
    soft = sp.log(1 + sp.exp(y)) - sp.log(1 + sp.exp(z))

    def lipschitz(L, ranges=lip):
        hint_ = ("mean value", {"path": sp.log(1 + sp.exp(t)), "var": t, "start": z, "end": y, "bound": L})
        return claim(soft, "<=", L * sp.Abs(y - z), ranges, hint_)

    wide = {xp: (R(1, 2), 3), eps: (-1, 1), c: (0, 1)}

    def sigmoid_bound(L):  # σ' ≤ 1/4, touching at t = 0
        sig = 1 / (1 + sp.exp(-t))
        hint_ = ("mean value", {"path": sig, "var": t, "start": z, "end": y, "bound": L})
        return claim(sig.subs(t, y) - sig.subs(t, z), "<=", L * sp.Abs(y - z), lip, hint_)

    return Cases(
        true=[claim(quotient, "=", 1 / (xp + c * eps), dom, hint), lipschitz(1), sigmoid_bound(R(1, 4))],
        false=[
            claim(quotient, "=", 1 / (xp + c * eps) + R(1, 100), dom, hint),  # off by 1/100
            claim(quotient, "=", R(99, 100) / (xp + c * eps), dom, hint),  # off by 1 %
            claim(quotient, "=", 1 / (xp + c * eps), wide, hint),  # x + ε reaches 0 and below: log undefined
            lipschitz(R(99, 100)),  # sigmoid reaches 0.99 near t = 4.6
            sigmoid_bound(R(1, 4) - R(1, 1000)),  # off by 1/1000 at t = 0
        ],
    )


def _monotone() -> Cases:
    log_hint = ("monotone", {"end": 0, "derivative": x / (1 + x), "var": x})
    quad_hint = ("monotone", {"end": 0, "derivative": x**2 / (1 + x), "var": x})
    sin_hint = ("monotone", {"end": 0, "derivative": 1 - sp.cos(x), "var": x})
    sin_cubic = ("monotone", {"end": 0, "derivative": 1 - sp.cos(x) - 3 * x**2 / 1000, "var": x})
    return Cases(
        true=[
            claim(sp.log(1 + x), "<=", x, {x: (0, 10)}, log_hint),
            claim(x - x**2 / 2, "<=", sp.log(1 + x), {x: (0, 5)}, quad_hint),
            claim(sp.sin(x), "<=", x, {x: (0, 100)}, sin_hint),  # gap' = 1 − cos x touches 0 at every 2πn
        ],
        false=[
            claim(sp.log(1 + x), "<=", x - R(1, 100), {x: (0, 10)}, log_hint),  # off by 1/100 at the end
            claim(x - x**2 / 2 + R(1, 100), "<=", sp.log(1 + x), {x: (0, 5)}, quad_hint),  # off by 1/100
            claim(x - x**2 / 2, "<=", sp.log(1 + x), {x: (R(-1, 2), 5)}, quad_hint),  # false at x = −1/2
            claim(sp.log(1 + x), "<", x, {x: (0, 10)}, log_hint),  # strict: equal at the end
            claim(sp.sin(x) + x**3 / 1000, "<=", x, {x: (0, 100)}, sin_cubic),  # the derivative's sign fails
        ],
    )


def _certificate() -> Cases:
    a = sp.Symbol("a_rc", positive=True)
    b = sp.Symbol("b_rc", positive=True)
    ab = {a: (R(1, 100), 4), b: (R(1, 100), 4)}
    amgm = (sp.sqrt(a) - sp.sqrt(b)) ** 2 / 2  # (a + b)/2 − √(ab): zero along a = b

    def cert(lhs, rel, rhs, ranges, c_):
        return claim(lhs, rel, rhs, ranges, ("certificate", {"certificate": c_}))

    return Cases(
        true=[
            cert(x**2, "<=", x, {x: (0, 1)}, x * (1 - x)),  # touching at both ends
            cert(sp.sqrt(a * b), "<=", (a + b) / 2, ab, amgm),  # touching along a line
        ],
        false=[
            cert(x**2, "<=", x, {x: (0, 2)}, x * (1 - x)),  # the range past where it holds: the certificate < 0
            cert(x**2 + R(1, 100), "<=", x, {x: (0, 1)}, x * (1 - x) - R(1, 100)),  # off by 1/100 at the ends
            cert(sp.sqrt(a * b) + R(1, 100), "<=", (a + b) / 2, ab, amgm - R(1, 100)),  # off by 1/100 on a = b
            cert(x**2, "<=", x, {x: (0, 2)}, x**2),  # a wrong certificate (≥ 0) for a false claim
            cert(x**2, "<", x, {x: (0, 1)}, x * (1 - x)),  # strict: equal at the ends
            cert(x / 2, "<=", x**2, {x: (0, 1)}, x * (x - R(1, 2))),  # a product with a factor < 0 on (0, 1/2)
        ],
    )


def _power_series() -> Cases:
    yp = sp.Symbol("y_rc", positive=True)
    m = sp.Symbol("m_rc", integer=True, positive=True)
    tail = sp.Sum(yp**m / sp.factorial(m), (m, 2, oo))  # e^y − 1 − y
    hint = ("power series", {"series": tail, "var": yp})
    exp_m1 = sp.Sum(yp**m / sp.factorial(m), (m, 1, oo))  # e^y − 1
    h_hint = (
        "power series",
        {"factor": exp_m1, "series": sp.Sum((m - 1) * yp**m / sp.factorial(m), (m, 2, oo)), "var": yp},
    )
    box = {yp: (R(1, 10**6), 40)}
    return Cases(
        true=[
            claim(1 + yp, "<=", sp.exp(yp), box, hint),
            claim(yp / (1 - sp.exp(-yp)), ">=", 1, box, h_hint),  # h(y) ≥ 0, cancelling as y → 0
        ],
        false=[
            claim(1 + yp + R(1, 100), "<=", sp.exp(yp), box, hint),  # off by 1/100 near 0
            claim(1 + yp + yp**2 / 2 + R(1, 10**6), "<=", sp.exp(yp), box, hint),  # off by 1e-6
            claim(yp / (1 - sp.exp(-yp)), ">=", 1 + R(1, 100), box, h_hint),  # off by 1/100 as y → 0
        ],
    )


def _quadrature() -> Cases:
    log_int = sp.Integral(1 / (1 + t), (t, 0, x))
    anti = ("quadrature", {"antiderivative": sp.log(1 + t)})
    sq_int = sp.Integral(t**2, (t, 0, x))
    return Cases(
        true=[
            claim(sp.log(1 + x), "=", log_int, {x: (0, 5)}, anti),
            claim(
                x**3 / 3 - y**3 / 3,
                "=",
                sp.Integral(t**2, (t, y, x)),
                {x: (-2, 2), y: (-2, 2)},
                ("quadrature", {"antiderivative": t**3 / 3}),
            ),
        ],
        false=[
            claim(sp.log(1 + x) + R(1, 100), "=", log_int, {x: (0, 5)}, anti),  # off by 1/100
            claim(sp.log(1 + x), "=", sp.Integral(1 / (1 + t) + t / 1000, (t, 0, x)), {x: (0, 5)}, anti),  # G' ≠ f
            claim(sp.log(1 + x), "=", log_int, {x: (-2, 1)}, anti),  # x ≤ −1: the log and the integral undefined
            claim(x**3 / 3, "=", sp.Integral(t**2 + R(1, 1000), (t, 0, x)), {x: (0, 3)}, ("quadrature", {})),
            claim(x**3 / 3 + x / 10**6, "=", sq_int, {x: (1, 3)}, ("quadrature", {"points": 4})),  # off by 1e-6·x
        ],
    )


def _attack_only() -> Cases:
    """Never a proof: a true claim is only verified, a planted false one is refuted through the gate."""
    hint = ("attack only", {"reason": "planted: the sides meet along the line y = x"})
    return Cases(
        true=[claim((x - y) ** 2, ">=", 0, {x: (0, 1), y: (0, 1)}, hint)],
        false=[
            claim((x - y) ** 2, ">=", R(1, 100), {x: (0, 1), y: (0, 1)}, hint),  # fails along y = x
            claim(x * y, "<=", R(99, 100), {x: (0, 1), y: (0, 1)}, hint),  # fails at the corner (1, 1)
        ],
    )


def _integral_bound() -> Cases:
    tp = sp.Symbol("tp_rc", positive=True)
    lin = sp.Integral(tp, (tp, 0, xp))
    cs = ("integral bound", {"rule": "cauchy-schwarz", "antiderivative": tp**3 / 3})
    direct = ("integral bound", {"rule": "direct", "antiderivative": tp**2 / 2})
    box = {xp: (R(1, 10), 2)}
    return Cases(
        true=[
            claim(lin, "<=", xp**2 / sp.sqrt(3), box, cs),  # Cauchy–Schwarz: ∫ t ≤ (x · x³/3)^{1/2}
            claim(lin, "<=", xp**2 / 2, box, direct),  # touching: equal everywhere
        ],
        false=[
            claim(lin, "<=", xp**2 / 2 - R(1, 1000), box, direct),  # off by 1/1000
            claim(lin, "<=", xp * xp**3 / 3, box, cs),  # the square root dropped: x⁴/3 < x²/2 for x < 1.2
            claim(lin, "<=", xp**2 / 3, box, ("integral bound", {"rule": "direct", "antiderivative": tp**2 / 3})),
        ],
    )


def _rademacher_affine() -> Cases:
    rf, rg = sp.Symbol("RF_rc", nonnegative=True), sp.Symbol("RG_rc", real=True)
    val = sp.Symbol("val_rc", real=True)
    box = {rf: (0, 10), rg: (-10, 10), x: (R(1, 10), 4), y: (-5, 5)}

    def aff(rhs, mp, ranges=box, **extra):
        hint = ("rademacher affine", {"complexity": rf, "value": val, "map": mp, **extra})
        return claim(rg, "=", rhs, ranges, hint)

    return Cases(
        true=[aff(x * rf, x * val + y), aff(rf / x, (val - y) / x)],
        false=[
            aff(2 * x * rf, x * val + y),  # a wrong scale
            aff(-x * rf, -x * val + y),  # a negative scale: sup becomes −inf
            aff(x * rf, x * val + y, {**box, x: (-1, 4)}),  # the scale's range extended below 0
            aff(x * rf, x * val + y * val**2),  # not affine in the value
        ],
    )


def _classical_theorem() -> Cases:
    rf, rv, l2 = (sp.Symbol(n_, nonnegative=True) for n_ in ("RF_rc", "RV_rc", "L2_rc"))
    box = {rf: (0, 10), rv: (0, 10), l2: (0, 5)}
    words = {"lipschitz": "by definition of L2", "class": "one class"}

    def maurer(rhs, ranges=box, discharge=words):
        hint = {"theorem": "maurer2016", "with": {"R_F": rf, "L2": l2, "R_V": rv}, "discharge": discharge}
        return claim(rf, "<=", rhs, ranges, ("classical theorem", hint))

    # "lse_linf": |log(1 + Σ_j e^{v_j/τ}) − log(1 + Σ_j e^{w_j/τ})| ≤ (1/τ) max_j |v_j − w_j|, k = 2
    vs, ws = sp.symbols("v1_rc v2_rc", real=True), sp.symbols("w1_rc w2_rc", real=True)
    t_ = sp.Symbol("tau_rc", positive=True)
    vbox = {**{s_: (-2, 2) for s_ in vs + ws}, t_: (R(1, 10), 10)}

    def lse(rhs, c=1):
        ev, ew = [s_ / t_ for s_ in vs], [s_ / t_ for s_ in ws]
        f = lambda u: sp.log(c + sum(sp.exp(x_) for x_ in u))  # noqa: E731
        hint = {"theorem": "lse_linf", "with": {"c": c, "m": 1, "v": ev, "v'": ew}}
        return claim(sp.Abs(f(ev) - f(ew)), "<=", rhs, vbox, ("classical theorem", hint))

    linf = sp.Max(*[sp.Abs(a_ - b_) for a_, b_ in zip(vs, ws)]) / t_
    return Cases(
        true=[maurer(sp.sqrt(2) * l2 * rv), maurer(2 * l2 * rv), lse(linf), lse(linf, c=0)],
        false=[
            maurer(l2 * rv),  # √2 replaced by 1
            maurer(sp.sqrt(2) * l2 * rv - R(1, 100)),  # off by 1/100
            maurer(sp.sqrt(2) * l2 * rv, discharge={"class": "one class"}),  # a hypothesis not discharged
            lse(R(99, 100) * linf, c=0),  # Lipschitz constant 0.99: false at w = v + c·1
            lse(sp.Min(*[sp.Abs(a_ - b_) for a_, b_ in zip(vs, ws)]) / t_),  # ℓ∞ replaced by the min
        ],
    )


@functools.cache
def _lemma(lhs: Any, rel: str, rhs: Any, lo: Any, hi: Any) -> tuple[str, Step, StepResult]:
    """A cited claim over ``x`` and its verdict from the engine, as ``check FILE`` passes earlier claims."""
    st = claim(lhs, rel, rhs, {x: (lo, hi)}).step
    with default_budget_set(CHECK):
        return (st.name, st, check_step(st, trials=2000))


def _citation() -> Cases:
    def citing(case: Case, *lemmas: tuple) -> Case:
        return dataclasses.replace(case, cited=lambda: [_lemma(*lem) for lem in lemmas])

    log_le = (sp.log(1 + x), "<=", x, 0, oo)  # proved by the engine
    log_half = (sp.log(1 + x), ">=", x / 2, 0, 1)  # proved on [0, 1]; true up to x ≈ 2.51 only
    log_false = (sp.log(1 + x), "<=", x / 2, 0, 1)  # refuted by the engine: never to be used
    sq = {y: (-3, 3)}
    return Cases(
        true=[
            citing(claim(sp.log(1 + y**2), "<=", y**2, sq), log_le),
            citing(claim(sp.log(1 + y), ">=", y / 2, {y: (0, 1)}), log_half),
        ],
        false=[
            citing(claim(sp.log(1 + y**2), "<=", y**2 - R(1, 100), sq), log_le),  # off by 1/100 at y = 0
            citing(claim(sp.log(1 + y), ">=", y / 2, {y: (0, 4)}), log_half),  # the range past where it holds
            citing(claim(sp.log(1 + y**2), "<=", y**2 / 2, sq), log_false),  # a refuted citation
            citing(claim(sp.log(1 + y**2), "<", y**2, sq), log_le),  # strict from a non-strict lemma: equal at y = 0
        ],
    )


def _minmax() -> Cases:
    hint = ("lattice", {})  # both registries share the name: the ROUTES entry ignores the hint

    def mm(lhs, rel, rhs, ranges):
        return claim(lhs, rel, rhs, ranges, hint)

    taylor = sp.Abs(sp.log(1 + x) - x)
    half = {x: (R(-1, 2), 10)}
    chi = 4 * x / sp.Min(1, 2 * x)
    pos = {x: (R(1, 100), 100)}
    return Cases(
        true=[
            mm(taylor, "<=", x**2 / (2 * sp.Min(1, 1 + x) ** 2), half),  # a case split at x = 0, touching there
            mm(chi, "<=", sp.Max(2, 4 * x), pos),  # 1/Min = Max(1/·) for positive arguments
            mm(sp.Min(y, z * x), "<=", sp.Max(y, z) * sp.Min(1, x), {y: (0, 1), z: (0, 1), x: (0, 100)}),
        ],
        false=[
            mm(taylor, "<=", R(49, 100) * x**2 / sp.Min(1, 1 + x) ** 2, half),  # the constant off by 1/100
            mm(taylor, "<=", x**2 / 2, half),  # true on [0, 10] only: below 0 the remainder exceeds x²/2
            mm(chi, "<=", sp.Max(2, 4 * x) - R(1, 100), pos),  # off by 1/100
            mm(sp.Min(y, 2 * x), "<=", sp.Max(y, x) * sp.Min(1, x), {y: (0, 1), x: (0, 2)}),  # κ = 2 > 1: fails
            mm(sp.Min(x, 1), "<", x, {x: (0, 2)}),  # strict: equal for x ≤ 1
        ],
    )


def _expectation() -> Cases:
    from infonce_bounds.derivations.checks.expectation import Expect

    xs = sp.IndexedBase("x_rc", real=True)
    j_, n_ = sp.Symbol("j_rc", integer=True, positive=True), sp.Symbol("n_rc", integer=True, positive=True)
    mean = sp.Sum(sp.exp(xs[j_]), (j_, 1, n_)) / n_
    mu = Expect(sp.exp(xs[1]))
    dom = {xs: (-1, 1), n_: (1, oo)}
    var = Expect((sp.exp(xs[1]) - mu) ** 2)
    v_ = sp.Symbol("v_rc", positive=True)
    jensen = {
        "rule": "jensen",
        "phi": sp.Lambda(v_, sp.log(v_)),
        "inner": mean,
        "bounds": {sp.exp(xs[1]): (R(1, 3), 3)},
    }
    moments = ("expectation", {"rule": "moments"})
    return Cases(
        true=[
            claim(Expect((mean - mu) ** 2), "=", var / n_, dom, moments),  # E(μ̂ − μ)² = Var/n
            claim(Expect(sp.log(mean)), "<=", sp.log(mu), dom, ("expectation", jensen)),  # Jensen, log concave
        ],
        false=[
            claim(Expect((mean - mu) ** 2), "=", var / n_**2, dom, moments),  # a wrong moment identity
            claim(Expect(sp.log(mean)), ">=", sp.log(mu), dom, ("expectation", {**jensen, "shape": "convex"})),
            claim(Expect(sp.log(mean)), "<", sp.log(mu), dom, ("expectation", jensen)),  # strict: equal for constants
        ],
    )


def _touching_curve() -> Cases:
    return Cases(
        true=[
            claim(sp.log(y), "<=", sp.log(x) + (y - x) / x, {x: (R(1, 10), 10), y: (R(1, 10), 10)}),  # zero curve y = x
            claim(c * t, "<=", sp.log(1 + (sp.exp(c) - 1) * t), {c: (R(1, 100), 20), t: (0, 1)}),  # a concave chord
        ],
        false=[
            # a zero curve y = x of the wrong curvature for x < 1/2
            claim(0, "<=", (y - x) ** 2 * (x - R(1, 2)), {x: (0, 1), y: (0, 1)}),
            claim(sp.log(1 + (sp.exp(c) - 1) * t), "<=", c * t, {c: (R(1, 100), 20), t: (0, 1)}),  # the wrong side
        ],
    )


def _taylor() -> Cases:
    """x = u (y_rc), x₀ = m (x_rc) on [1/2, 2]: second order with |f''| ≤ 4, third order with |·|³ and max(·, 0)³."""
    hint = ("taylor", {})
    box = {x: (R(1, 2), 2), y: (R(1, 2), 2)}
    t2 = sp.log(x) - sp.log(y) + (y - x) / x - (y - x) ** 2 / (2 * x**2)  # −(log u − Taylor₂ of log about m)
    lemma = sp.log(y) - sp.log(x) - (y - x) / x  # log u − log m − (u − m)/m, ≥ −2(u − m)² as 1/ξ² ≤ 4
    return Cases(
        true=[
            claim(0, "<=", lemma + 2 * (y - x) ** 2, box, hint),
            claim(0, "<=", t2 + 8 * sp.Abs(y - x) ** 3 / 3, box, hint),
            claim(0, "<=", t2 + sp.Max(y - x, 0) ** 3 / (3 * x**3), box, hint),
        ],
        false=[
            claim(0, "<=", lemma + (y - x) ** 2, box, hint),  # remainder constant halved: 1/ξ² ≤ 2 fails
            claim(0, "<=", lemma - 2 * (y - x) ** 2, box, hint),  # the wrong sign
            claim(0, "<=", lemma + 2 * (y - x) ** 2, {x: (R(1, 4), 2), y: (R(1, 4), 2)}, hint),  # range past 1/2
            claim(0, "<=", t2 + sp.Abs(y - x) ** 3 / 3, box, hint),  # the wrong bound on 1/ξ³ (1, not 8)
            claim(0, "<=", t2 + sp.Max(y - x, 0) ** 3 / (6 * x**3), box, hint),  # max(·, 0)³ term halved
        ],
    )


def _conjunction() -> Cases:
    from infonce_bounds.derivations.checks.conjunction import hint

    def parts(lo, hi, bound=1):
        dom = Domain({x: (lo, hi), y: (lo, hi)})
        return [claim(v, "<=", bound, {x: (lo, hi), y: (lo, hi)}).step for v in (x, y)], dom

    def conj(lhs, rel, rhs, lo, hi, bound=1, **kw):
        ps, _ = parts(lo, hi, bound)
        return claim(lhs, rel, rhs, {x: (lo, hi), y: (lo, hi)}, hint(ps, "contract", **kw))

    return Cases(
        true=[
            conj(sp.Max(x, y), "<=", 1, 0, 1, implication="pieces"),  # max entrywise, touching at x = 1
            conj(2 * x + 3 * y, "<=", 5, 0, 1, multipliers=[2, 3]),  # a nonnegative combination
        ],
        false=[
            conj(x + y, "<=", 1, 0, 1),  # true parts that do not imply it: false at (1, 1)
            conj(sp.Max(x, y), "<=", 1, 0, 2),  # the range past where it holds: the parts are false too
            conj(sp.Max(x, y), "<=", R(99, 100), 0, 1, bound=R(99, 100)),  # off by 1/100: false parts
            conj(sp.Max(x, y), "<", 1, 0, 1),  # strict from non-strict parts: equal at x = 1
        ],
    )


def _configuration() -> Cases:
    """Claims over every configuration (the coordinate box inside the balls, so the cover holds it); the cases
    themselves live with the route's own tests."""
    import test_route_configuration as cfg

    case = lambda name, build: Case(name, build())  # noqa: E731
    return Cases(
        true=[case("Cauchy–Schwarz", cfg.cauchy_schwarz), case("convex combination ≤ max", cfg.jensen_max)],
        false=[case(name, build) for name, build in cfg.FALSE.items() if "lemma8" not in name],
    )


def _monotone_comparison() -> Cases:
    """gap = w·(G(p) − G(q)): G(v) = 1/(1 + v) decreasing (by G'), and g(v) = (v − 1 − log v)/(v − 1)², 0/0 at
    v = 1, decreasing by its integral form ∫₀¹ t/(1 + t(v − 1)) dt."""
    v = sp.Symbol("v_rc", positive=True)
    box = {x: (0, 2), y: (0, 2)}

    def recip(lhs, rhs, w, p_, q_, direction="decreasing", G=1 / (1 + v), ranges=box):
        hint = {"G": sp.Lambda(v, G), "weight": w, "p": p_, "q": q_, "direction": direction}
        return claim(lhs, ">=", rhs, ranges, ("monotone comparison", hint))

    g = (v - 1 - sp.log(v)) / (v - 1) ** 2
    g_hint = {
        "G": sp.Lambda(v, g),
        "direction": "decreasing",
        "integral": sp.Integral(t / (1 + t * (v - 1)), (t, 0, 1)),
        "antiderivative": t / (v - 1) - sp.log(1 + t * (v - 1)) / (v - 1) ** 2,
        "removable": [1],
    }
    xp_ = sp.Symbol("xq_rc", positive=True)
    qbox = {xp_: (R(1, 100), R(99, 100)), y: (0, 5)}  # a < 1: g(a) is 0/0 at a = 1
    uq = xp_ * sp.exp(y)

    def quad(rhs, ranges=qbox, **over):
        hint = {**g_hint, "weight": (uq - 1) ** 2, "p": xp_, "q": uq, **over}
        return claim(sp.log(xp_) + y, ">=", rhs, ranges, ("monotone comparison", hint))

    gx = g.subs(v, xp_)
    return Cases(
        true=[
            recip(y**2 / (1 + x), y**2 / (1 + x + y), y**2, x, x + y),
            quad((uq - 1) - gx * (uq - 1) ** 2),  # log u ≥ (u − 1) − g(a)(u − 1)², u = a eʸ ≥ a crossing 1
        ],
        false=[
            recip(1 / (1 + x + y), 1 / (1 + x), 1, x + y, x),  # false: q ≥ p fails (x ≥ x + y)
            recip(1 / (1 + x + y), 1 / (1 + x), 1, x + y, x, "increasing"),  # false: G is not increasing
            recip(-(y**2) / (1 + x), -(y**2) / (1 + x + y), -(y**2), x, x + y),  # false: the weight −y² ≤ 0
            recip(1 / (1 + x), 1 / (1 + x + y) + R(1, 100), 1, x, x + y),  # false at y = 0: the identity fails
            recip((x - 1) ** 2, (x + y - 1) ** 2, 1, x, x + y, G=(v - 1) ** 2),  # false at (1, 1): G not monotone
            quad((uq - 1) - gx * (uq - 1) ** 2 + R(1, 1000)),  # off by 1/1000 (equal at y = 0)
            # the wrong side: g(q) ≥ g(p) claimed, with g said increasing (∂_v h ≤ 0: not proved)
            claim(
                (uq - 1) - gx * (uq - 1) ** 2,
                ">=",
                sp.log(xp_) + y,
                qbox,
                (
                    "monotone comparison",
                    {**g_hint, "weight": (uq - 1) ** 2, "p": uq, "q": xp_, "direction": "increasing"},
                ),
            ),
        ],
    )


def _mean_value_composition() -> Cases:
    """FTC along the segment and a proved pointwise bound (the cases live with the route's own tests)."""
    import test_route_mean_value_composition as mvc

    return Cases(
        true=[Case("softplus difference ≤ (3/4)|b − a|", mvc.true_claim())],
        false=[Case(name, build()) for name, build in mvc.FALSE.items()],
    )


def _termwise() -> Cases:
    """Σ a_i ≤ Σ b_i term by term (the cases live with the route's own tests)."""
    import test_route_termwise as tw

    return Cases(true=[Case(s_.name, s_) for s_ in tw.TRUE], false=[Case(name, s_) for name, s_ in tw.FALSE.items()])


def _integral_enclosure() -> Cases:
    """g(a) = ∫₀¹ t/(1 + t(a − 1)) dt (decreasing, g(1) = 1/2, g(1/2) = 0.7726…) in a claim: replaced by its closed
    form where a avoids 1, by a variable over [g(hi), g(lo)] where it may not."""
    a_ = sp.Symbol("a_ie", positive=True)
    v = sp.Symbol("v_ie", positive=True)
    hint = {
        "G": sp.Lambda(v, (v - 1 - sp.log(v)) / (v - 1) ** 2),
        "integral": sp.Integral(t / (1 + t * (v - 1)), (t, 0, 1)),
        "antiderivative": t / (v - 1) - sp.log(1 + t * (v - 1)) / (v - 1) ** 2,
        "removable": [1],
        "direction": "decreasing",
    }
    g_a = sp.Integral(t / (1 + t * (a_ - 1)), (t, 0, 1))
    half, one = {a_: (R(1, 2), 1)}, {a_: (R(1, 2), R(9, 10))}

    def case(rel, rhs, ranges, **over):
        return claim(g_a, rel, rhs, ranges, ("integral enclosure", {**hint, **over}))

    pieces = [
        {"var": a_, "range": (R(1, 2), R(9, 10)), "mode": "closed"},
        {"var": a_, "range": (R(9, 10), 1), "mode": "enclose"},
    ]
    return Cases(
        true=[
            case("<=", R(4, 5), half, mode="enclose"),  # g ≤ g(1/2) < 4/5, a = 1 included
            case(">=", R(1, 2), one, mode="closed"),  # a ≤ 9/10 < 1: the closed form
            case("<=", R(4, 5), half, pieces=pieces),
        ],
        false=[
            case("<=", R(3, 4), half, mode="enclose"),  # false: g(1/2) = 0.7726… > 3/4 (a constant too small)
            case(">=", R(53, 100), half, mode="closed"),  # false near a = 1 (g(1) = 1/2), where a hits the 0/0 point
            case("<=", R(77, 100), half, pieces=pieces),  # false at a = 1/2, on the closed piece
        ],
    )


#: routes that never prove (an attack with its reason): a true claim must come out verified numerically, not proved
NEVER_PROVES = frozenset({"attack only"})

#: route name → its contract cases (a builder, called at collection); a new route needs an entry here
CASES: dict[str, Callable[[], Cases]] = {
    "sums": _sums,
    "unbounded": _unbounded,
    "touching": _touching,
    "touching curve": _touching_curve,
    "taylor": _taylor,
    "mean value": _mean_value,
    "monotone": _monotone,
    "certificate": _certificate,
    "power series": _power_series,
    "quadrature": _quadrature,
    "monotone comparison": _monotone_comparison,
    "integral enclosure": _integral_enclosure,
    "attack only": _attack_only,
    "integral bound": _integral_bound,
    "rademacher affine": _rademacher_affine,
    "classical theorem": _classical_theorem,
    "lattice": _minmax,
    "conjunction": _conjunction,
    "expectation": _expectation,
    "configuration": _configuration,
    "mean value composition": _mean_value_composition,
    "termwise": _termwise,
    "citation": _citation,
}

# -------------------------------------------------------------------------------------------- the contract


def _citation_route(step: Step, cited: list, opts: Mapping[str, Any]) -> StepResult | None:
    return prove_by_citation(step, cited, opts, None, [])


#: the citation route is no registry's entry (``check FILE`` calls it for a claim with ``uses``): its own table
CITATION: dict[str, Callable[..., Any]] = {"citation": _citation_route}


def _entries() -> list[tuple[str, str]]:
    """Every registered route: (registry, name)."""
    return (
        [("routes", n) for n in routes.ROUTES]
        + [("hinted", n) for n in routes.HINTED]
        + [("citation", n) for n in CITATION]
    )


def _run(registry: str, name: str, case: Case) -> Any:
    """The route's own entry point on the case, as the engine calls it, with a clock of ``ROUTE_SECONDS``."""
    opts = {**OPTS, "clock": Budget(claim_seconds=ROUTE_SECONDS, symbolic_seconds=ROUTE_SECONDS).started()}
    step = case.step
    if registry == "routes":
        return routes.ROUTES[name].prove(step, _sides(step)[2], opts)
    if registry == "hinted":
        if step.route is None or step.route[0] != name:
            raise AssertionError(f"case {case.name!r} of hinted route {name!r} does not name it in Step.route")
        return routes.prove_hinted(step, opts)
    return CITATION[name](step, case.cited(), opts)


def _existence_replays(step: Step, cx: Mapping[str, Any]) -> bool:
    """A mean value refutation of ``lhs = rhs(c) for some c ∈ [0, 1]`` at a point without c: the gate shows
    ``lhs`` beyond the rhs enclosure's outer end there, and Arb encloses ``rhs`` over every c ∈ [0, 1] inside it."""
    c_ = step.route[1]["point"]
    names = {str(s_): s_ for s_ in free_names(step.lhs) | free_names(step.rhs)}
    point = {names[k_]: refute.parse_exact(v) for k_, v in cx.items() if k_ in names}
    rel = cx["relation"]
    end = sp.Rational(cx["rhs_enclosure"][1 if rel == "<=" else 0])
    if not refute.replay({str(k_): v for k_, v in point.items()}, step.lhs.subs(point), end, rel):
        return False
    rhs_c = step.rhs.subs(point)
    cuts = [R(i, 128) for i in range(129)]
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        b = intervals.interval_eval(rhs_c, {c_: (lo, hi)})
        if not (b.hi <= intervals.to_iv(end, end).lo if rel == "<=" else b.lo >= intervals.to_iv(end, end).hi):
            return False
    return True


def _replays(step: Step, cx: Any) -> bool:
    """Whether the gate refutes ``step`` again from the counterexample alone."""
    if not isinstance(cx, Mapping):
        return False
    hint = step.route[1] if step.route else {}
    names = {str(s_) for s_ in free_names(step.lhs) | free_names(step.rhs)}
    if "point" in hint and str(hint["point"]) not in cx:  # the existence shape: no c at the point works
        return _existence_replays(step, cx)
    coords = {k_: v for k_, v in cx.items() if k_ in names or k_ in refute.RESERVED}
    return refute.replay(coords, step.lhs, step.rhs, step.relation or "=", step.domain)


def contract_violations(registry: str, name: str, case: Case, true: bool) -> tuple[list[str], float]:
    """What the route breaks of the contract (module docstring) on one case, and its wall seconds."""
    bad: list[str] = []
    step = case.step
    if registry == "routes" and not routes.ROUTES[name].applies(step):
        bad.append("the case is not of the route's shape (applies() is False): it tests nothing")
    # the engine runs a ROUTES entry under run_symbolic (its slice is that deadline: the route must let it
    # through); a hinted or citation route runs bare under the claim's clock, so it must stop by itself: the
    # deadline here is only a net past the limit
    net = ROUTE_SECONDS if registry == "routes" else ROUTE_SECONDS + SLACK + 2
    t0 = time.perf_counter()
    out = run_symbolic(_run, registry, name, case, deadline=net, memory=None, stage=f"route {name}")
    wall = time.perf_counter() - t0
    if wall > ROUTE_SECONDS + SLACK:
        bad.append(f"returned after {wall:.1f} s, past its {ROUTE_SECONDS:g} s slice by more than {SLACK:g} s")
    if isinstance(out, Spent) or out is None:
        proved, refuted, covered, cx = False, False, None, None
    elif isinstance(out, StepResult):
        proved, refuted = out.verdict is Verdict.PROVED, out.verdict is Verdict.REFUTED
        covered, cx = out.covered, out.counterexample
    else:
        proved, covered, cx = bool(getattr(out, "proved", False)), getattr(out, "covered", None), None
        refuted = bool(getattr(out, "refuted", False) or getattr(out, "counterexample", None))
        refuted = refuted or getattr(out, "verdict", None) is Verdict.REFUTED
        if refuted:
            bad.append("a ROUTES outcome says refuted: only the gate (refute.confirm) refutes")
    if refuted and registry != "routes" and not _replays(step, cx):
        bad.append(f"REFUTED without a counterexample the gate confirms again: {cx!r}"[:300])
    if proved and not covers(covered, step.domain):
        bad.append(f"proved, but its cover {covered} does not contain the stated domain {step.domain.ranges}")
    if not true and proved:
        bad.append("a planted false claim was proved")
    if true and not proved and name not in NEVER_PROVES:
        bad.append(f"a true claim was not proved: {str(out)[:300]}")
    if name in NEVER_PROVES and (proved or (true and getattr(out, "verdict", None) is not Verdict.VERIFIED)):
        bad.append(
            f"a route that never proves gave {getattr(out, 'verdict', out)} on a {'true' if true else 'false'} claim"
        )
    if true and refuted:
        bad.append("a true claim was refuted")
    return bad, wall


def _params() -> list:
    out = []
    for registry, name in _entries():
        build = CASES.get(name)
        cases = build() if build is not None else None
        if not cases or not cases.true or len(cases.false) < 2:
            out.append(pytest.param(registry, name, None, None, id=f"{name}-no-cases"))
            continue
        for i, case in enumerate(cases.true):
            out.append(pytest.param(registry, name, case, True, id=f"{name}-true-{i}"))
        for i, case in enumerate(cases.false):
            out.append(pytest.param(registry, name, case, False, id=f"{name}-false-{i}"))
    return out


@pytest.mark.parametrize("registry, name, case, true", _params())
def test_every_registered_route_keeps_the_contract(registry, name, case, true):
    if case is None:
        pytest.fail(
            f"route {name!r} ({registry}) has no contract cases: add to CASES in tests/test_route_contract.py at least "
            "one true claim and two planted false ones (see README, 'Adding a route')"
        )
    bad, wall = contract_violations(registry, name, case, true)
    assert not bad, f"{name} on {case.name!r} ({'true' if true else 'planted false'}, {wall:.1f} s): {bad}"


# ---------------------------------------------------------------------------- the contract can fail


def _proves_everything(step: Step, strict: bool, opts: Mapping[str, Any]) -> Any:
    cover = {str(s_): (str(lo), str(hi)) for s_, (lo, hi) in step.domain.ranges.items()}
    return _Out(True, cover)


@dataclass(frozen=True)
class _Out:
    proved: bool
    covered: dict | None
    method: str = "fake"
    reduction: str = "none"


def test_a_new_route_without_cases_fails_naming_it(monkeypatch):
    monkeypatch.setitem(routes.ROUTES, "brand new", routes.Route("brand new", lambda s: True, _proves_everything))
    params = [p for p in _params() if p.values[1] == "brand new"]
    assert [p.id for p in params] == ["brand new-no-cases"]


def test_a_route_that_proves_everything_is_flagged(monkeypatch):
    monkeypatch.setitem(routes.ROUTES, "fake", routes.Route("fake", lambda s: True, _proves_everything))
    for case in _touching().false:
        bad, _ = contract_violations("routes", "fake", case, False)
        assert "a planted false claim was proved" in bad


def test_a_route_with_a_cover_short_of_the_domain_or_a_refutation_of_its_own_is_flagged(monkeypatch):
    def short(step, strict, opts):
        return _Out(True, {str(s_): ("0", "1") for s_ in step.domain.ranges})

    @dataclass(frozen=True)
    class Refutes:
        proved: bool = False
        covered: None = None
        counterexample: dict = field(default_factory=lambda: {"x_rc": "0"})

    monkeypatch.setitem(routes.ROUTES, "short", routes.Route("short", lambda s: True, short))
    monkeypatch.setitem(routes.ROUTES, "refutes", routes.Route("refutes", lambda s: True, lambda *a: Refutes()))
    case = _touching().true[0]
    assert any("does not contain the stated domain" in b for b in contract_violations("routes", "short", case, True)[0])
    assert any("only the gate" in b for b in contract_violations("routes", "refutes", case, True)[0])


def test_a_hinted_route_refuting_without_a_confirmed_counterexample_is_flagged(monkeypatch):
    def refutes(step, params, opts):
        return StepResult(step.name, step.kind, Verdict.REFUTED, "fake", "", counterexample={"x_rc": "1"})

    monkeypatch.setitem(routes.HINTED, "monotone", dataclasses.replace(routes.HINTED["monotone"], prove=refutes))
    bad, _ = contract_violations("hinted", "monotone", _monotone().true[0], True)  # log(1 + 1) ≤ 1 holds at x = 1
    assert any("gate confirms" in b for b in bad) and "a true claim was refuted" in bad


def test_a_route_that_sleeps_past_its_slice_is_flagged(monkeypatch):
    """A route that sleeps 30 s is cut at its deadline (and proves nothing); one that swallows the deadline and
    sleeps on returns late, and the wall-time check says so. (A deadline counts CPU time, and a call that waits
    is stopped after ``WALL_FACTOR`` times it of wall time: set to 1 here, so sleeping is cut at the slice.)"""
    from infonce_bounds.derivations.checks import budget

    monkeypatch.setattr(budget, "WALL_FACTOR", 1.0)

    def sleeps(step, strict, opts):
        time.sleep(30)
        return _Out(True, None)

    def swallows(step, strict, opts):
        until = time.monotonic() + ROUTE_SECONDS + SLACK + 3
        while time.monotonic() < until:
            try:
                time.sleep(until - time.monotonic())
            except BaseException:  # noqa: BLE001, S110 - the planted fault: the deadline is eaten
                pass
        return _Out(False, None)

    monkeypatch.setitem(routes.ROUTES, "sleeps", routes.Route("sleeps", lambda s: True, sleeps))
    monkeypatch.setitem(routes.ROUTES, "swallows", routes.Route("swallows", lambda s: True, swallows))
    case = _touching().true[0]
    bad, wall = contract_violations("routes", "sleeps", case, True)
    assert wall < ROUTE_SECONDS + SLACK and any("not proved" in b for b in bad)
    bad, wall = contract_violations("routes", "swallows", case, False)
    assert wall > ROUTE_SECONDS + SLACK and any("past its" in b for b in bad), (wall, bad)


# ------------------------------------------------------------------------------ README: "Adding a route"


def _readme_blocks() -> dict[str, str]:
    """The README's "Adding a route" code blocks by the file their first line names."""
    import pathlib

    text = (pathlib.Path(__file__).resolve().parents[1] / "README.md").read_text()
    part = text.split("<!-- adding-a-route:start -->")[1].split("<!-- adding-a-route:end -->")[0]
    blocks = [b.split("```")[0] for b in part.split("```python\n")[1:]]
    return {b.splitlines()[0].lstrip("# ").split(":")[0].split(" ")[0]: b for b in blocks}


def _install_readme_route(monkeypatch, module_text: str) -> None:
    blocks = _readme_blocks()
    assert set(blocks) == {
        "derivations/checks/constant.py",
        "derivations/checks/routes.py",
        "tests/test_route_contract.py",
    }
    pkg = "infonce_bounds.derivations.checks"
    mod = types.ModuleType(f"{pkg}.constant")
    mod.__package__ = pkg
    exec(compile(module_text, "README: derivations/checks/constant.py", "exec"), mod.__dict__)
    monkeypatch.setitem(sys.modules, f"{pkg}.constant", mod)
    monkeypatch.setattr(routes, "ROUTES", dict(routes.ROUTES))
    exec(compile(blocks["derivations/checks/routes.py"], "README: routes.py", "exec"), dict(vars(routes)))
    monkeypatch.setattr(sys.modules[__name__], "CASES", dict(CASES))
    exec(compile(blocks["tests/test_route_contract.py"], "README: cases", "exec"), dict(globals(), CASES=CASES))


def test_the_readme_route_is_registered_and_keeps_the_contract(monkeypatch):
    """The README's example, pasted as written, adds a registered route whose cases pass; the same route with its
    sign test broken (it proves a negative gap) is caught by its own planted false cases."""
    module_text = _readme_blocks()["derivations/checks/constant.py"]
    _install_readme_route(monkeypatch, module_text)
    assert ("routes", "constant") in _entries()
    cases = CASES["constant"]()
    assert cases.true and len(cases.false) >= 2
    for truth, group in ((True, cases.true), (False, cases.false)):
        for case in group:
            assert contract_violations("routes", "constant", case, truth)[0] == [], case.name
    broken = module_text.replace("sign < 0", "sign < -1")
    assert broken != module_text
    _install_readme_route(monkeypatch, broken)
    assert any(contract_violations("routes", "constant", case, False)[0] for case in CASES["constant"]().false)


def test_the_citation_cases_cite_what_they_say():
    """The planted citation cases rest on the engine's verdicts of the cited claims: the refuted one is refuted."""
    verdicts = {case.name: [res.verdict for _, _, res in case.cited()] for case in _citation().true + _citation().false}
    assert sorted(set(map(str, sum(verdicts.values(), [])))) == ["proved", "refuted"], verdicts


def test_a_mean_value_refutation_at_a_point_where_some_c_works_is_flagged(monkeypatch):
    """The existence shape's replay is not vacuous: the route's real counterexample for the claim off by 1/100,
    handed back as the verdict on the true claim (where the quotient lies in rhs's range over c), is rejected."""
    true, false = _mean_value().true[0], _mean_value().false[0]
    real = routes.prove_hinted(false.step, {**OPTS, "clock": None})
    assert real.verdict is Verdict.REFUTED and _replays(false.step, real.counterexample)
    fake = dataclasses.replace(routes.HINTED["mean value"], prove=lambda s, p, o: real)
    monkeypatch.setitem(routes.HINTED, "mean value", fake)
    bad, _ = contract_violations("hinted", "mean value", true, True)
    assert any("gate confirms" in b for b in bad), bad


def test_a_hinted_route_that_ignores_its_clock_is_flagged(monkeypatch):
    """The engine runs a hinted route bare: one that sleeps 30 s past its clock is stopped only by the test's net,
    and flagged."""

    def sleeps(step, params, opts):
        time.sleep(30)
        return routes.HINTED["monotone"].prove(step, params, opts)

    real = routes.HINTED["monotone"]
    monkeypatch.setitem(routes.HINTED, "monotone", dataclasses.replace(real, prove=sleeps))
    bad, wall = contract_violations("hinted", "monotone", _monotone().false[0], False)
    assert ROUTE_SECONDS + SLACK < wall < 30 and any("past its" in b for b in bad), (wall, bad)
