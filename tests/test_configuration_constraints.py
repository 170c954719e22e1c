"""Configuration claims whose stated domain is a coordinate box cut by the hypotheses' balls (``Domain``
constraints ``Σ_i v_i² ≤ r²``): the route proves them there (the cover contains the stated domain), and the
falsifier and the Arb gate honour the constraints (entries ``f[1]`` included), so

* a claim false inside the constraints is not proved, and the falsifier refutes it at an exact point inside them;
* a claim false only outside the constraints (at a box corner) is proved, and no falsifier refutes it;
* a box wider than the hypotheses with no constraint, or with the wrong one, is still not proved (the old
  protection), and a derived vector realised by free coordinates is covered only where the proof read it through
  its norm bound alone (not where it expanded the definition).
"""

from __future__ import annotations

import pytest
import sympy as sp

from infonce_bounds.derivations.checks import DEFAULTS, check_step
from infonce_bounds.derivations.checks.configuration import FamilyMax, Inner, Norm, realise
from infonce_bounds.derivations.checks.enclosures import in_domain
from infonce_bounds.derivations.checks.sampling import _satisfies
from infonce_bounds.derivations.ledger import Domain, Step, Verdict, covers, free_names

R = sp.Rational
OPTS = {**DEFAULTS, "trials": 2000}
u, v = sp.symbols("u_cc v_cc")
xi, eta = sp.symbols("xi_cc eta_cc")
PHI, PSI, XI, ETA = (sp.IndexedBase(n_) for n_ in ("phi_cc", "psi_cc", "xi_cc", "eta_cc"))
U, V = sp.IndexedBase("U_cc"), sp.IndexedBase("V_cc")
c = sp.Symbol("c_cc", real=True)
k = sp.Symbol("k_cc", integer=True, positive=True)
i, j = sp.symbols("i_cc j_cc", integer=True, positive=True)


def row(base: sp.IndexedBase, d: int = 2) -> list:
    return [base[q] for q in range(1, d + 1)]


def ball(r_: list, r2) -> sp.Rel:
    return sp.Le(sum(x_**2 for x_ in r_), r2)


def step(lhs, rhs, vectors, realised, ranges, constraints=(), at=None, scalars=None, **hint) -> Step:
    at = at or {}
    scalars = scalars or {}
    hint = {"vectors": vectors, "claim": (lhs, rhs), "realise": realised, "at": at, "scalars": scalars, **hint}
    return Step(
        "claim",
        realise(lhs, realised, at),
        realise(rhs, realised, at),
        kind="inequality",
        relation="<=",
        domain=Domain({**scalars, **ranges}, constraints=tuple(constraints)),
        route=("configuration", hint),
    )


def cauchy_schwarz(bound, constraints="balls", r2=1) -> Step:
    """|⟨u, v⟩| ≤ bound for ‖u‖, ‖v‖ ≤ 1 on the box [−1, 1]² × [−1, 1]² (corner (1, 1): ⟨u, u⟩ = 2)."""
    ru, rv = row(U), row(V)
    cons = [ball(ru, r2), ball(rv, r2)] if constraints == "balls" else []
    return step(
        sp.Abs(Inner(u, v)),
        sp.sympify(bound),
        {u: ("sphere", 1), v: ("ball", 1)},
        {u: ru, v: rv},
        {U: (-1, 1), V: (-1, 1)},
        cons,
    )


def plain(st: Step) -> Step:
    """The same printed claim on the same stated domain, checked by the engine's standard inequality checker."""
    return Step("plain", st.lhs, st.rhs, kind="inequality", relation="<=", domain=st.domain)


def proved_and_covers(res, st) -> bool:
    return res.verdict is Verdict.PROVED and covers(res.covered, st.domain, free_names(st.lhs) | free_names(st.rhs))


# ------------------------------------------------------------------------------ the constraints are the hypotheses


def test_a_box_cut_by_the_stated_balls_is_proved_and_covered():
    """Cauchy–Schwarz on [−1, 1]⁴ is false at the corner (⟨(1, 1), (1, 1)⟩ = 2), true where ‖u‖, ‖v‖ ≤ 1 (a sphere
    vector too: the rules read ‖u‖ ≤ 1 only): with the balls stated, the stated domain is the hypotheses."""
    st = cauchy_schwarz(1)
    res = check_step(st, **OPTS)
    assert proved_and_covers(res, st), res.method
    assert "2 stated constraints (U_cc[1]**2 + U_cc[2]**2 <= 1, …)" in res.method


def test_a_claim_false_only_outside_the_constraints_is_not_refuted():
    """The corner (1, 1, 1, 1) violates |⟨u, v⟩| ≤ 1 but lies outside the balls: no counterexample there."""
    st = plain(cauchy_schwarz(1))
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.REFUTED, res.counterexample
    corner = {U[1]: 1, U[2]: 1, V[1]: 1, V[2]: 1}
    assert not in_domain(corner, st.domain) and not _satisfies(st.domain, corner)


def test_a_claim_false_inside_the_constraints_is_refuted_at_a_point_inside_them():
    """|⟨u, v⟩| ≤ 1/2 fails at u = v = e_1: the route does not prove it, the falsifier refutes it at an exact
    point of the stated domain (both balls checked exactly)."""
    st = cauchy_schwarz(R(1, 2))
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED and "not proved" in res.method
    res = check_step(plain(st), **OPTS)
    assert res.verdict is Verdict.REFUTED, res.method
    pt = {key: sp.nsimplify(sp.Float(val, 30), rational=True) for key, val in res.counterexample.items() if "[" in key}
    assert set(pt) == {"U_cc[1]", "U_cc[2]", "V_cc[1]", "V_cc[2]"}
    assert pt["U_cc[1]"] ** 2 + pt["U_cc[2]"] ** 2 <= 1 and pt["V_cc[1]"] ** 2 + pt["V_cc[2]"] ** 2 <= 1


def test_the_falsifier_reports_no_point_outside_an_entry_constraint():
    """x₁ + x₂ ≤ 3/2 on the unit disc (max √2) is true; ≤ 13/10 is false inside it: refuted there, not at a box
    corner (before entries were read, a point with x₁² + x₂² > 1 was reported)."""
    a = sp.IndexedBase("a_cc")
    dom = Domain({a: (-1, 1)}, constraints=(ball(row(a), 1),))
    true = Step("t", a[1] + a[2], R(3, 2), kind="inequality", relation="<=", domain=dom)
    assert check_step(true, **OPTS).verdict is not Verdict.REFUTED
    false = Step("f", a[1] + a[2], R(13, 10), kind="inequality", relation="<=", domain=dom)
    res = check_step(false, **OPTS)
    assert res.verdict is Verdict.REFUTED
    x1, x2 = (sp.nsimplify(sp.Float(res.counterexample[f"a_cc[{q}]"], 30), rational=True) for q in (1, 2))
    assert x1**2 + x2**2 <= 1 and x1 + x2 > R(13, 10)


def test_in_domain_reads_entries_of_a_constraint():
    a = sp.IndexedBase("a_cc")
    dom = Domain({a: (-1, 1)}, constraints=(ball(row(a), 1),))
    assert in_domain({a[1]: R(3, 5), a[2]: R(4, 5)}, dom)  # on the circle: inside (closed)
    assert not in_domain({a[1]: R(3, 5), a[2]: R(9, 10)}, dom)
    assert _satisfies(dom, {a[1]: 0.6, a[2]: 0.7}) and not _satisfies(dom, {a[1]: 0.9, a[2]: 0.9})


# ------------------------------------------------------------------------------------------- the old protection


@pytest.mark.parametrize("cons", ["none", "radius √2"])
def test_a_box_wider_than_the_hypotheses_without_their_constraint_is_not_proved(cons):
    """No constraint (the box's corner is outside the balls), or a constraint wider than the hypothesis
    (‖u‖² ≤ 2 for ‖u‖ ≤ 1): the proof says nothing at some points of the stated domain."""
    st = cauchy_schwarz(1, constraints="none") if cons == "none" else cauchy_schwarz(1, r2=2)
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED
    assert "wider than these hypotheses" in res.unproved


def test_a_parameter_in_a_realised_row_keeps_the_proofs_range():
    """u realised as (c U₁, c U₂) with ‖u‖² ≤ 1 stated and c ∈ [−2, 2] stated, the proof's c ∈ [0, 1]: the cover
    gives c the proof's range, so the stated c ∈ [−2, 2] is not covered and the step is not proved."""
    ru, rv = row(U), row(V)
    cu = [c * x_ for x_ in ru]
    st = step(
        sp.Abs(Inner(u, v)),
        sp.Integer(1),
        {u: ("ball", 1), v: ("ball", 1)},
        {u: cu, v: rv},
        {U: (-1, 1), V: (-1, 1), c: (-2, 2)},
        [ball(cu, 1), ball(rv, 1)],
    )
    st.route[1]["scalars"] = {c: (0, 1)}
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED, res.covered
    assert "the proof's ranges miss the stated ones of c_cc" in res.unproved


# ----------------------------------------------------------------------- derived vectors realised by free coordinates

SEGMENT = {
    PHI: ("sphere", 1),
    PSI: ("sphere", 1),
    XI: ("def", sp.Lambda(i, (1 - c) * PHI[i] + c * PSI[i])),
    ETA: ("def", sp.Lambda(i, PHI[i] - PSI[i])),
}


def segment_bound(const, constraints: bool) -> Step:
    """max_j ‖ξ_j − η_j‖ ≤ const (ξ = (1 − c)φ + cφ', η = φ − φ'), ξ_j and η_j realised by free coordinates in
    [−1, 1]² (k = 2): ‖ξ_j‖ ≤ 1 needs its constraint (corner √2), ‖η_j‖ ≤ 2 holds on the box (corner √2 ≤ 2)."""
    x_, e_ = sp.IndexedBase("x_cc"), sp.IndexedBase("e_cc")
    xs = [[x_[q, p] for p in (1, 2)] for q in (1, 2)]
    es = [[e_[q, p] for p in (1, 2)] for q in (1, 2)]
    cons = [ball(r_, 1) for r_ in xs] if constraints else []
    return step(
        FamilyMax(Norm(XI[j] - ETA[j]), sp.Tuple(j, 1, k)),
        sp.sympify(const),
        SEGMENT,
        {XI: xs, ETA: es},
        {x_: (-1, 1), e_: (-1, 1)},
        cons,
        at={k: 2},
        scalars={c: (0, 1), k: (1, sp.oo)},
    )


def test_a_derived_vector_of_free_coordinates_is_covered_by_its_norm_bound():
    st = segment_bound(3, constraints=True)
    res = check_step(st, **OPTS)
    assert proved_and_covers(res, st), res.method
    res = check_step(segment_bound(3, constraints=False), **OPTS)  # ξ_j's box corner (1, 1) is outside its ball
    assert res.verdict is not Verdict.PROVED and "wider than these hypotheses" in res.unproved
    res = check_step(segment_bound(R(29, 10), constraints=True), **OPTS)  # false: ‖ξ − η‖ reaches 3
    assert res.verdict is not Verdict.PROVED


def test_a_derived_vector_the_proof_expands_is_not_covered_by_its_norm_bound():
    """‖ξ + η/2‖ ≤ 1 with ξ = (φ + φ')/2, η = φ − φ': as written the rules give 1 + 1; expanded, ξ + η/2 = φ, so the
    claim holds for every configuration. Realised by free ξ, η in their balls (‖ξ‖ ≤ 1, ‖η‖ ≤ 2) it is false
    (ξ = (1, 0), η = (2, 0) gives 2): the proof used what ξ and η are, so free coordinates are no configurations."""
    phi, psi = sp.symbols("phi_cc psi_cc")
    vecs = {phi: ("sphere", 1), psi: ("sphere", 1), xi: ("def", (phi + psi) / 2), eta: ("def", phi - psi)}
    X, E = sp.IndexedBase("X_cc"), sp.IndexedBase("E_cc")
    xs, es = row(X), row(E)
    st = step(
        Norm(xi + eta / 2), sp.Integer(1), vecs, {xi: xs, eta: es}, {X: (-1, 1), E: (-2, 2)}, [ball(xs, 1), ball(es, 4)]
    )
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED, res.method
    assert "proved for every d and every configuration" in res.method  # the rules prove it (expanded)
    assert "expanded it into its parts" in res.unproved
    assert check_step(plain(st), **OPTS).verdict is Verdict.REFUTED


# ------------------------------------------------------------------------------------------ the paper's steps


def _config_steps():
    from infonce_bounds.derivations import catalogue

    out = []
    for name in ("lemma8", "prop4", "eq16_18"):
        for st in catalogue.get(name).steps:
            if st.route is not None and st.route[0] == "configuration" and st.domain.constraints:
                out.append(pytest.param(st, id=f"{name}: {st.name[:40]}"))
    return out


@pytest.mark.parametrize("st", _config_steps())
def test_the_papers_configuration_steps_are_proved_on_their_stated_balls(st):
    """lemma8 ×4, prop4 ×4 and eq16_18's map split: stated on their boxes cut by the hypotheses' balls, proved
    there for every d (the cover contains the stated domain), the box's corner outside the stated domain."""
    res = check_step(st, **{**DEFAULTS, "trials": 400})
    assert proved_and_covers(res, st), res.method[:400]
    corner = {}
    for c_ in st.domain.constraints:
        for a_ in c_.atoms(sp.Indexed):
            corner[a_] = st.domain.ranges[a_.base.label][1]
    assert not in_domain(corner, st.domain)


def test_there_are_ten_of_them():
    assert len(_config_steps()) == 10


def test_eq18_is_proved_as_a_chain_and_not_without_the_balls():
    """(18) from (17) and the max split (which holds on the balls): proved on its stated domain (the balls);
    the same chain stated on the bare box (where (18) fails) does not cite the max split's constraints."""
    import dataclasses

    from infonce_bounds.derivations import catalogue
    from infonce_bounds.derivations.paper import eq16_18

    st = catalogue.get("eq16_18").step(eq16_18.RESULT)
    res = check_step(st, **{**DEFAULTS, "trials": 400})
    assert proved_and_covers(res, st), res.method[:400]
    bare = dataclasses.replace(st, name="(18) on the bare box", domain=Domain(st.domain.ranges))
    assert check_step(bare, **{**DEFAULTS, "trials": 400}).verdict is not Verdict.PROVED


# ------------------------------------------------------------------------------- the max and quadratic-form rules


def test_a_quadratic_form_is_proved_only_when_positive_semidefinite():
    from infonce_bounds.derivations.checks.configuration_terms import quadratic_form as _quadratic_form

    a, b, c_ = sp.symbols("a_q b_q c_q", real=True)
    assert _quadratic_form(
        2 * a + b + c_, sp.sqrt(6) * sp.sqrt(a**2 + b**2 + c_**2)
    )  # (a − 2b)² + (a − 2c)² + (b − c)²
    assert _quadratic_form(2 * a + b + c_, sp.sqrt(5) * sp.sqrt(a**2 + b**2 + c_**2)) is None  # √5 < √6: not PSD
    assert _quadratic_form(a + b, sp.sqrt(a**2 + b**2)) is None  # the diagonal a = b: (a + b)² = 4a² > 2a²
    assert _quadratic_form(a + b, sp.sqrt(2) * sp.sqrt(a**2 + b**2))


def _max_split(const):
    """The max split with √6 replaced by ``const`` (its printed and typed sides both)."""
    from infonce_bounds.derivations.paper import eq16_18

    st = next(p_.values[0] for p_ in _config_steps() if p_.values[0].name == eq16_18.MAX_SPLIT)
    hint = dict(st.route[1])
    lhs, rhs = hint["claim"]
    hint["claim"] = (lhs, rhs.xreplace({sp.sqrt(6): const}))
    return Step(
        "max split, constant changed",
        st.lhs,
        st.rhs.xreplace({sp.sqrt(6): const}),
        kind="inequality",
        relation="<=",
        domain=st.domain,
        route=("configuration", hint),
    )


def test_the_max_split_with_a_smaller_constant_is_not_proved():
    res = check_step(_max_split(sp.sqrt(5)), **{**DEFAULTS, "trials": 400})
    assert res.verdict is not Verdict.PROVED and "not proved" in res.method


def test_a_rhs_decreasing_in_its_max_is_not_replaced_term_by_term():
    """max_j ‖F_j‖ ≤ 5/2 − max_l ‖D_l‖ (F_j = e₁, D_l = 2e₁ gives 1 > 1/2): the rhs decreases in the max, so the
    rule "a term is at most the max" does not apply."""
    F, Dv, l_ = sp.IndexedBase("F_cc"), sp.IndexedBase("D_cc"), sp.Symbol("l_cc", integer=True, positive=True)
    fs = [[sp.IndexedBase("Fc_cc")[q, p] for p in (1, 2)] for q in (1, 2)]
    ds = [[sp.IndexedBase("Dc_cc")[q, p] for p in (1, 2)] for q in (1, 2)]
    st = step(
        FamilyMax(Norm(F[j]), sp.Tuple(j, 1, k)),
        R(5, 2) - FamilyMax(Norm(Dv[l_]), sp.Tuple(l_, 1, k)),
        {F: ("ball", 1), Dv: ("ball", 2)},
        {F: fs, Dv: ds},
        {sp.IndexedBase("Fc_cc"): (-1, 1), sp.IndexedBase("Dc_cc"): (-1, 1)},
        [ball(r_, 1) for r_ in fs],
        at={k: 2},
        scalars={k: (1, sp.oo)},
    )
    res = check_step(st, **OPTS)
    assert res.verdict is not Verdict.PROVED and "not proved nondecreasing" in res.method, res.method
