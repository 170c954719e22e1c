"""The configuration route (``checks/configuration.py``): claims over every embedding configuration proved by
classical vector rules on exact instances, then a scalar claim the engine proves; existence by an exact witness.

Planted false claims it must not prove (each differs from a true one by one thing): Cauchy–Schwarz with ‖u‖ ≤ 2
hypotheses but the bound 1; a convex combination whose weights sum to 2; a weighted triangle with weights of either
sign; (48)'s constant 3 replaced by 2.9; √6 replaced by √5 in the sharpness claim (the witness then exceeds it);
a wrong bilinear split; a typed claim that is not the printed step; a strict claim. True claims it proves and an
attack beside it does not refute; a false claim the attack refutes through the gate.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.configuration import FamilyMax, Inner, Norm, bilinear, realise
from infonce_bounds.derivations.ledger import DerivationError, Domain, Step, Verdict, covers, free_names
from infonce_bounds.derivations.paper import eq16_18
from infonce_bounds.derivations.paper._embed import vector_check

R = sp.Rational
OPTS = {**DEFAULTS, "trials": 2000}
u, v, w = sp.symbols("u_cf v_cf w_cf")
fa = sp.Symbol("fa_cf")
f, D = sp.IndexedBase("f_cf"), sp.IndexedBase("D_cf")
tau = sp.Symbol("tau_cf", positive=True)
beta = sp.Symbol("beta_cf", positive=True)
c = sp.Symbol("c_cf", real=True)
k = sp.Symbol("k_cf", integer=True, positive=True)
j, i = sp.symbols("j_cf i_cf", integer=True, positive=True)
PHI, PSI = sp.IndexedBase("phi_cf"), sp.IndexedBase("psi_cf")
XI, ETA = sp.IndexedBase("xi_cf"), sp.IndexedBase("eta_cf")
HALF = (-R(1, 2), R(1, 2))


def coords(name: str, d: int = 2) -> list:
    return [sp.Symbol(f"{name}{q}", real=True) for q in range(1, d + 1)]


def family(name: str, kk: int = 2, d: int = 2) -> list:
    return [coords(f"{name}{q}_", d) for q in range(1, kk + 1)]


def softmax(jj=j) -> sp.Expr:
    return sp.exp(Inner(fa, f[jj]) / tau) / sp.Sum(sp.exp(Inner(fa, f[i]) / tau), (i, 1, k))


SOFT_VECTORS = {fa: ("ball", 1), f: ("ball", 1), D: ("ball", 2)}
SOFT_COORDS = {fa: coords("a"), f: family("f"), D: family("d")}
SCALARS = {tau: (R(1, 20), 20), k: (1, sp.oo)}


def step(lhs, rhs, vectors, realised, at=None, scalars=None, box=(-1, 1), relation="<=", printed=None, **hint):
    """A step whose sides are the typed claim realised (or ``printed``), with the configuration route's hint."""
    at = at or {}
    scalars = SCALARS if scalars is None else scalars
    sides = printed or (realise(lhs, realised, at), realise(rhs, realised, at))
    free = {s_ for e in sides for s_ in sp.sympify(e).free_symbols if s_ not in scalars}
    ranges = {**scalars, **{s_: box for s_ in free}}
    hint = {"vectors": vectors, "claim": (lhs, rhs), "realise": realised, "at": at, "scalars": scalars, **hint}
    return Step(
        "claim", *sides, kind="inequality", relation=relation, domain=Domain(ranges), route=("configuration", hint)
    )


def verdict(st: Step):
    return check_step(st, **OPTS)


# --------------------------------------------------------------------------------------------- true claims


def cauchy_schwarz(radius=1, bound=1, box=HALF):
    vecs = {u: ("ball", radius), v: ("ball", radius)}
    return step(sp.Abs(Inner(u, v)), sp.Integer(bound), vecs, {u: coords("u"), v: coords("v")}, scalars={}, box=box)


def jensen_max(scale=1):
    lhs = Norm(sp.Sum(scale * softmax() * D[j], (j, 1, k)))
    return step(lhs, FamilyMax(Norm(D[j]), sp.Tuple(j, 1, k)), SOFT_VECTORS, SOFT_COORDS, {k: 2}, box=HALF)


def segment_bound(const):
    """‖ξ_j − η_j‖ ≤ const, ξ = (1 − c)φ + cφ', η = φ − φ' on the sphere, c ∈ [0, 1] ((48) with 3)."""
    vecs = {
        PHI: ("sphere", 1),
        PSI: ("sphere", 1),
        XI: ("def", sp.Lambda(i, (1 - c) * PHI[i] + c * PSI[i])),
        ETA: ("def", sp.Lambda(i, PHI[i] - PSI[i])),
    }
    lhs = FamilyMax(Norm(XI[j] - ETA[j]), sp.Tuple(j, 1, k))
    return step(lhs, const, vecs, {XI: family("x"), ETA: family("e")}, {k: 2}, scalars={**SCALARS, c: (0, 1)})


def lemma8(constant):
    rhs = constant * (sp.Sum(Norm(D[j]) ** beta, (j, 1, k)) / k) ** (1 / beta)
    lhs = Norm(sp.Sum(softmax() * D[j], (j, 1, k)))
    return step(lhs, rhs, SOFT_VECTORS, SOFT_COORDS, {k: 2}, scalars={**SCALARS, beta: (1, 50)})


def map_split(split):
    U, U2, DU = eq16_18.U, eq16_18.U2, eq16_18.DU
    realised = {U[x_]: coords(f"u{x_}", 3) for x_ in U} | {U2[x_]: coords(f"w{x_}", 3) for x_ in U2}
    realised |= {DU[x_]: [a - b for a, b in zip(realised[U[x_]], realised[U2[x_]])] for x_ in DU}
    lhs = sp.Abs(eq16_18.g_typed(U) - eq16_18.g_typed(U2))
    rhs = 2 * Norm(DU["a"]) + Norm(DU["+"]) + Norm(DU["-"])
    return step(lhs, rhs, eq16_18.MAP_VECTORS, realised, scalars={}, split=split)


def sharp(constant):
    hint = {
        "rule": "attained",
        "vectors": eq16_18.MAP_VECTORS,
        "witness": eq16_18.sqrt6_witness(),
        "quantity": eq16_18.SQRT6_RATIO,
    }
    return Step(
        "sharp", constant * (1 - R(1, 1000)), constant, kind="inequality", relation="<=", route=("configuration", hint)
    )


TRUE_SPLIT = Inner(eq16_18.DU["a"], eq16_18.U["+"] - eq16_18.U["-"]) + Inner(
    eq16_18.U2["a"], eq16_18.DU["+"] - eq16_18.DU["-"]
)


@pytest.mark.parametrize(
    "build",
    [
        lambda: cauchy_schwarz(),
        lambda: jensen_max(),
        lambda: segment_bound(3),
        lambda: lemma8(sp.exp(2 / (beta * tau))),
        lambda: map_split(TRUE_SPLIT),
        lambda: sharp(sp.sqrt(6)),
    ],
    ids=["cauchy-schwarz", "convex-combination-max", "(48)-three", "lemma8", "map-split", "sqrt6-attained"],
)
def test_true_configuration_claims_are_proved(build):
    """The rules prove each claim for every d and configuration with the hypotheses; the verdict is PROVED only
    where the step's coordinate box lies inside them (a proved verdict covers its stated domain), else the
    attack's, with the proof named and why it does not cover the box."""
    st = build()
    res = verdict(st)
    assert rules_prove(res), res.method
    if res.verdict is Verdict.PROVED:
        assert res.method.startswith("configuration route"), res.method
        assert covers(res.covered, st.domain, free_names(st.lhs) | free_names(st.rhs))
    else:
        assert res.verdict is not Verdict.REFUTED and "wider than these hypotheses" in res.unproved


def rules_prove(res) -> bool:
    """The configuration rules proved the claim (for every d), whether or not the box is inside the hypotheses."""
    return res.verdict is Verdict.PROVED or "proved for every d and every configuration" in res.method


def test_a_box_inside_the_balls_is_covered_and_a_box_outside_is_not():
    inside = verdict(cauchy_schwarz(box=HALF))  # corner norm √(1/2) ≤ 1: every box point is a configuration
    assert inside.verdict is Verdict.PROVED and covers(inside.covered, cauchy_schwarz(box=HALF).domain)
    outside = verdict(cauchy_schwarz(box=(-1, 1)))  # (1, 1) is outside the unit ball: the proof says nothing there
    assert outside.verdict is not Verdict.PROVED  # a proved verdict covers its stated domain (the engine's rule)
    assert "wider than these hypotheses" in outside.unproved


def test_the_reduction_names_each_rule_and_the_atoms():
    res = verdict(lemma8(sp.exp(2 / (beta * tau))))
    for rule in ("Cauchy–Schwarz", "triangle inequality over j", "sums route"):
        assert rule in res.method, res.method
    assert "∈ [-1, 1] for ⟨fa_cf, f_cf" in res.method and "∈ [0, 2] for ‖D_cf" in res.method


# ------------------------------------------------------------------------------------------- planted false


def _signed_weights():
    x = sp.IndexedBase("x_cf")
    lhs = Norm(sp.Sum(Inner(fa, f[j]) * D[j], (j, 1, k)))  # weights ⟨fa, f_j⟩ ∈ [−1, 1]: of either sign
    rhs = sp.Sum(Inner(fa, f[j]) * Norm(D[j]), (j, 1, k))
    del x
    return step(lhs, rhs, SOFT_VECTORS, SOFT_COORDS, {k: 2})


FALSE = {
    "cauchy-schwarz with ‖u‖ ≤ 2 and bound 1": lambda: cauchy_schwarz(radius=2, bound=1, box=(-1, 1)),
    "convex combination with weights summing to 2": lambda: jensen_max(scale=2),
    "weighted triangle with weights of either sign": _signed_weights,
    "(48) with 2.9 for 3": lambda: segment_bound(R(29, 10)),
    "lemma8 with e^{1/(βτ)}": lambda: lemma8(sp.exp(1 / (beta * tau))),
    "√5 for √6 in the sharpness claim": lambda: sharp(sp.sqrt(5)),
    "a wrong bilinear split (Δ_− dropped)": lambda: map_split(
        Inner(eq16_18.DU["a"], eq16_18.U["+"] - eq16_18.U["-"]) + Inner(eq16_18.U2["a"], eq16_18.DU["+"])
    ),
}


@pytest.mark.parametrize("name", list(FALSE))
def test_planted_false_claims_are_not_proved(name):
    res = verdict(FALSE[name]())
    assert res.verdict is not Verdict.PROVED, (name, res.method)
    assert "not proved" in res.method, res.method


def test_a_typed_claim_that_is_not_the_printed_step_is_not_proved():
    """The hint's claim proves ‖Σ p_j D_j‖ ≤ max_j ‖D_j‖; the printed step says ≤ ‖D_1‖: the link refuses it."""
    true = jensen_max()
    printed = (true.lhs, realise(Norm(D[1]), SOFT_COORDS, {k: 2}))
    lhs = Norm(sp.Sum(softmax() * D[j], (j, 1, k)))
    st = step(lhs, FamilyMax(Norm(D[j]), sp.Tuple(j, 1, k)), SOFT_VECTORS, SOFT_COORDS, {k: 2}, printed=printed)
    res = verdict(st)
    assert res.verdict is not Verdict.PROVED and "not the step's" in res.method


def test_a_strict_claim_is_not_proved():
    st = cauchy_schwarz()
    strict = Step("strict", st.lhs, st.rhs, kind="inequality", relation="<", domain=st.domain, route=st.route)
    res = verdict(strict)
    assert res.verdict is not Verdict.PROVED


# -------------------------------------------------------------------------------- the attack beside the proof


def _three(const):
    def claim(cfg, lib=math):
        from infonce_bounds.derivations.paper import prop4

        return prop4.attack_48(cfg, lib)[1], const

    return claim


def test_the_attack_refutes_a_false_claim_through_the_gate_and_spares_a_true_one():
    false = segment_bound(2)  # ‖ξ − η‖ = ‖−cφ + (1 + c)φ'‖ exceeds 2 on many configurations (2.9 only near φ' = −φ)
    hint = dict(false.route[1], attack=vector_check(_three(2.0)))
    res = verdict(
        Step(
            "2",
            false.lhs,
            false.rhs,
            kind="inequality",
            relation="<=",
            domain=false.domain,
            route=("configuration", hint),
        )
    )
    assert res.verdict is Verdict.REFUTED and res.counterexample
    true = segment_bound(3)
    hint = dict(true.route[1], attack=vector_check(_three(3.0)))
    res = verdict(
        Step(
            "3", true.lhs, true.rhs, kind="inequality", relation="<=", domain=true.domain, route=("configuration", hint)
        )
    )
    assert rules_prove(res) and res.verdict is not Verdict.REFUTED and res.trials > 0


# ------------------------------------------------------------------------------------------------ the rules


def test_bilinear_expansion_proves_the_polarisation_identity_and_rejects_a_wrong_one():
    from infonce_bounds.derivations.checks.configuration import Space

    sp_ = Space({u: ("ball", 1), v: ("ball", 1)}, {}, Step("s", 0, 0))
    polar = Inner(u + v, u + v) - Inner(u - v, u - v) - 4 * Inner(u, v)
    assert bilinear(polar, sp_) == 0
    assert bilinear(Inner(u + v, u + v) - Inner(u, u) - Inner(v, v) - Inner(u, v), sp_) != 0


@pytest.mark.parametrize(
    "hint, word",
    [
        ({"rule": "nope"}, "rule"),
        ({"vectors": {u: ("cube", 1)}, "claim": (Norm(u), 1)}, "vectors"),
        ({"vectors": {u: ("ball", 1)}}, "claim"),
        ({"vectors": {u: ("ball", 1)}, "claim": (Norm(u), 1), "attack": 3}, "attack"),
    ],
)
def test_a_malformed_hint_is_a_clear_error(hint, word):
    st = Step("bad", 0, 1, kind="inequality", relation="<=", route=("configuration", hint))
    with pytest.raises(DerivationError, match=word):
        verdict(st)
