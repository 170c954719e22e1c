"""Proposition 2 (§3.3): if (B) holds and ξ_1, ξ_2, … are i.i.d. π_data, then for φ, k ≥ 1, τ > 0,

    |∫ E CrossEnt[M̂_k(z, ·) ‖ Q̂^φ_{τ,k}(z, ·)] π(dz) − R(φ; k, τ)| ≤ (4/(τk)) E|dM(Z, ·)/dπ(Z')|² + log(1 + e^{2/τ}/k).

Per anchor z the three quantities are computed from their definitions ((9), (2), (26)) on one anchor's
finite law: atoms with similarity s_i = s(z, ·), π-weight π_i and density w_i = dM(z, ·)/dπ (> 0, see
the Lemma 3 erratum), the positive drawn from ν = M(z, ·). The statement, and (12) = its first half,
are then checked exactly; both bounds are linear in E_π w², so the per-anchor bounds integrate.

Errata found: (i) the third equality of the chain after (30) prints the numerator Σ_j ⟨φ(z), φ(ξ_j)⟩
without the factor dM(z, ·)/dπ(ξ_j) (false as printed; the next display has the factor); (ii) after
(30), "{ξ_1, …, ξ_k} is a subset of, or equal to, the support of M̂_k(z, ·)" is the wrong way round:
supp M̂_k(z, ·) ⊆ {ξ_j}, and a ξ_j with dM(z, ·)/dπ(ξ_j) = 0 is not in the support.

Proved (ours, chains citing lemma3 at w ↦ r = dM(z, ·)/dπ with r > 0 stated, checked to map into Lemma 3's
domain; a step checks that Lemma 3's error read at w ↦ r is E[Σ s r/Σ r] − E_ν s): the statement under
dM(z, ·)/dπ > 0 (the hypothesis the printed proof needs), and with Lemma 3's constant sharpened. As printed, under
(B) alone, the statement and (12) stay unproved: M̂_k is 0/0 with positive probability (the Lemma 3 erratum). So
do the chain's second equality and "comparing with (29)" (their reduction cancels M̂_k's ratio, sound only where
Σ_j r_j > 0); their "ours ... under dM(z, ·)/dπ > 0" versions are proved, and the chains cite those.

Ours: Lemma 3's constant replaced by ours gives the first term (1/(τk)) E_z[2√(s_z(s_z − 1)) + 2(s_z − 1)],
s_z = E_π w_z², ≤ (1/(τk))(2√(s(s − 1)) + 2(s − 1)) with s = E w² (concavity of √(s(s − 1))).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from ..ledger import Derivation, Domain, Link, Step
from ..render import printed
from ..symbols import TAU_RANGE, Ew2, W, Zk, i, j, k, rn, s, t, tau, u, x
from . import Erratum
from . import lemma3 as _lemma3
from ._laws import DRAWS, MU_HAT, W_BOUNDS, Expect, Law, expect, expectation_route, fmax, law_check, mu_hat
from .lemma3 import OURS_CONST, ew2

POSITION = (3, 3)

_LAW = TAU_RANGE | Domain({k: (1, sp.oo), Ew2: (1, sp.oo)}, name="one anchor's finite law, k ≥ 1")
Hk = sp.Function("E_CrossEnt_hat")  #: ∫ E CrossEnt[M̂_k ‖ Q̂_k] dπ (one anchor)
Rstd = sp.Function("R")  #: R(φ; k, τ) (one anchor)
Rt = sp.Function("R_tilde")  #: R̃(φ; k, τ) (one anchor)
FIRST = 4 * Ew2 / (tau * k)
SECOND = sp.log(1 + sp.exp(2 / tau) / k)

#: R and R̃ of one anchor as expectations (route "expectation"): the positive's similarity s⁺ ~ ν, a coordinate
#: of its own (only its range [−1, 1] is used), and the negatives' μ̂; R = E log(1/k + e^{−s⁺/τ}μ̂),
#: R̃ = E[−s⁺/τ] + E log μ̂
S_POS = sp.IndexedBase("s_pos", real=True)
_SP1 = S_POS[1]
DEFS = {
    Rstd(tau, k): Expect(sp.log(1 / k + sp.exp(-_SP1 / tau) * MU_HAT)),
    Rt(tau, k): Expect(-_SP1 / tau) + Expect(sp.log(MU_HAT)),
}
#: R − R̃ = E[log(1/k + e^{−s⁺/τ}μ̂) − log(e^{−s⁺/τ}μ̂)] (linearity)
OFFSET = sp.log(1 / k + sp.exp(-_SP1 / tau) * MU_HAT) + _SP1 / tau - sp.log(MU_HAT)
_PAIR = DRAWS | Domain({S_POS: (-1, 1)}, name="s⁺ ∈ [−1, 1]")

#: the empirical kernel's quantities over the draws ξ_j ~ π with density r_j = dM(z, ·)/dπ(ξ_j) (route
#: "expectation", rule "moments"): E CrossEnt[M̂_k ‖ Q̂_k] from (9)'s first line, −E Σ_j (r_j/Σ_i r_i)(s_j/τ − log μ̂),
#: and E_ν g(s⁺) = E_π[r g(s)] for the positive; both sides of each identity are undefined on {Σ r_j = 0}, so the
#: identities are proved only under _KERNEL_POSITIVE (the route refuses to cancel a ratio that can be 0/0)
_RS = sp.Sum(rn[i], (i, 1, k))
KERNEL_DEFS = {
    Hk(tau, k): Expect(-sp.Sum(rn[j] / _RS * (s[j] / tau - sp.log(MU_HAT)), (j, 1, k))),
    Rt(tau, k): Expect(-rn[1] * s[1] / tau) + Expect(sp.log(MU_HAT)),
    sp.Function("E_weighted_sim")(tau, k): Expect(sp.Sum(s[j] * rn[j], (j, 1, k)) / sp.Sum(rn[j], (j, 1, k))),
    sp.Function("E_log_mu_hat")(tau, k): Expect(sp.log(MU_HAT)),
    sp.Function("E_nu_s")(tau): Expect(rn[1] * s[1]),
}
_KERNEL_DRAWS = Domain({s: (-1, 1), rn: (0, sp.oo)}, name="s_j ∈ [−1, 1], r_j ≥ 0")
#: ours' hypothesis for citing Lemma 3 without a convention: dM(z, ·)/dπ > 0 (M(z, ·) ~ π), so Σ_j r_j > 0 and M̂_k
#: is defined on every sample (under (B) alone it is 0/0 with positive probability: the Lemma 3 erratum)
_KERNEL_POSITIVE = Domain(
    {s: (-1, 1), rn: (0, sp.oo)}, (rn.label > 0,), name="s_j ∈ [−1, 1], r_j = dM(z, ·)/dπ(ξ_j) > 0"
)

# Lemma 3 at ν = M(z, ·), π = π_data, f = s(z, ·): its error E[Σ s w/Σ w] − E_ν f read with the density draws w ↦ r
# (the instance the chains below cite; the step "ours: Lemma 3's error at f = s, w = r" checks the meanings agree)
E_WS, E_NU_S = sp.Function("E_weighted_sim")(tau, k), sp.Function("E_nu_s")(tau)
L3_ERR = _lemma3.Err(k)
INSTANCE = {_lemma3.w.label: rn.label}  #: the substitution into Lemma 3's domain: w (≥ 0, > 0 stated) ↦ r
INSTANCE_DEFS = {**KERNEL_DEFS, L3_ERR: _lemma3.DEFS[L3_ERR].xreplace({_lemma3.w: rn})}
INSTANCE_STEP = "ours: Lemma 3's error at f = s, w = r"
L3_POSITIVE = "lemma3 / ours: statement under ν ~ π (w > 0)"
_ABS_R = "ours: |R − R̃| ≤ log(1 + e^{2/τ}/k) ((28) both ways)"
#: the two identities of the proof read from M̂_k's ratio r_j/Σ_i r_i, proved where it is defined on every sample
SECOND_EQ_POSITIVE = "ours: (9) from (30) under dM(z, ·)/dπ > 0"
CMP29_POSITIVE = "ours: comparing with (29) under dM(z, ·)/dπ > 0"
_RATIO_UNPROVED = (
    "a claim over every law of the draws, attacked on exact finite laws; not proved as printed: both sides hold "
    "M̂_k's ratio r_j/Σ_i r_i, 0/0 on {{Σ_j r_j = 0}}, possible under (B) (r_j = dM(z, ·)/dπ(ξ_j) ≥ 0: the Lemma 3 "
    "erratum), and their reduction cancels it (x/x = 1), which holds only where Σ_j r_j > 0; with dM(z, ·)/dπ > 0 "
    "stated it is proved (step '{ours}')"
)


# ----------------------------------------------------------------------- one anchor's quantities
def _mhat(lw: Law, cnt: tuple) -> list:
    den = sum(c * w_ for c, w_ in zip(cnt, lw.dens))
    return [c * w_ / den for c, w_ in zip(cnt, lw.dens)]


def cross_ent_hat(L: Any, lw: Law) -> Any:
    """E CrossEnt[M̂_k ‖ Q̂_k] from (9)'s first line: −Σ_i M̂_k({atom i}) log(dQ̂/dπ̂)(atom i)."""

    def fn(cnt):
        lmh = L.log(mu_hat(L, lw, cnt))
        return -sum(m_ * (s_ / lw.tau - lmh) for m_, s_, c in zip(_mhat(lw, cnt), lw.sims, cnt) if c)

    return expect(L, lw, fn)


def _nu(lw: Law) -> list:
    return [p_ * w_ for p_, w_ in zip(lw.probs, lw.dens)]


def risk(L: Any, lw: Law) -> Any:
    """R of (2) for this anchor: E over s⁺ ~ ν and the k negatives of log(1/k + (1/k)Σ_j e^{(s_j − s⁺)/τ})."""
    kk = lw.k + 0 * lw.tau
    return sum(
        n_ * expect(L, lw, lambda cnt, sp_=sp_: L.log(1 / kk + L.exp(-sp_ / lw.tau) * mu_hat(L, lw, cnt)))
        for n_, sp_ in zip(_nu(lw), lw.sims)
    )


def risk_tilde(L: Any, lw: Law) -> Any:
    """R̃ of (26) for this anchor: E[−s⁺/τ] + E log μ̂."""
    pos = sum(n_ * (-s_ / lw.tau) for n_, s_ in zip(_nu(lw), lw.sims))
    return pos + expect(L, lw, lambda cnt: L.log(mu_hat(L, lw, cnt)))


def weighted_sim(L: Any, lw: Law) -> Any:
    """E[Σ_j s_j w_j / Σ_j w_j]."""
    return expect(L, lw, lambda cnt: sum(m_ * s_ for m_, s_ in zip(_mhat(lw, cnt), lw.sims)))


def _unweighted(L: Any, lw: Law) -> Any:
    """E[Σ_j s_j / Σ_j w_j], the chain's third line as printed."""
    return expect(
        L,
        lw,
        lambda cnt: sum(c * s_ for c, s_ in zip(cnt, lw.sims)) / sum(c * w_ for c, w_ in zip(cnt, lw.dens)),
    )


def _first_num(L: Any, lw: Law) -> Any:
    return 4 * ew2(L, lw) / (lw.tau * lw.k)


def _second_num(L: Any, lw: Law) -> Any:
    return L.log(1 + L.exp(2 / lw.tau) / lw.k)


def _ours_first_num(L: Any, lw: Law) -> Any:
    s2 = ew2(L, lw)
    return (2 * L.sqrt(fmax(s2 * (s2 - 1), 0 * s2)) + 2 * (s2 - 1)) / (lw.tau * lw.k)


def _id(lhs, rhs):
    def claim(L: Any, lw: Law) -> tuple[Any, Any]:
        return abs(lhs(L, lw) - rhs(L, lw)) / (1 + abs(rhs(L, lw))), 0 * lw.tau

    return claim


def _law(claim, reason: str) -> Any:
    return law_check(claim, reason, with_density=True)


def _kernel_route(claim, reason: str) -> tuple[str, dict]:
    """Rule "moments" on the empirical kernel's quantities (``KERNEL_DEFS``), the law check beside it."""
    return expectation_route("moments", _law(claim, reason), defs=KERNEL_DEFS)


def _second_equality(L: Any, lw: Law) -> Any:
    """−(1/τ) E[Σ s w/Σ w] + E log μ̂."""
    return -weighted_sim(L, lw) / lw.tau + expect(L, lw, lambda cnt: L.log(mu_hat(L, lw, cnt)))


def _cmp_lhs(L: Any, lw: Law) -> Any:
    return abs(cross_ent_hat(L, lw) - risk_tilde(L, lw))


def _cmp_rhs(L: Any, lw: Law) -> Any:
    """|E[Σ s w/Σ w] − E_ν s|/τ."""
    return abs(weighted_sim(L, lw) - sum(n_ * s_ for n_, s_ in zip(_nu(lw), lw.sims))) / lw.tau


PAPER_L3 = 4 * Ew2 / k  #: Lemma 3's printed bound (times τ: the first term)


def _first_term_chain(first: Any, lemma: str, lemma_rhs: Any) -> list:
    """|∫E CrossEnt − R| ≤ |R − R̃| + |∫E CrossEnt − R̃| (triangle) = |R − R̃| + |E[Σ s r/Σ r] − E_ν s|/τ ((29))
    = |R − R̃| + |Lemma 3's error at w ↦ r|/τ ≤ |R − R̃| + ``first`` (Lemma 3 ``lemma``, bound ``lemma_rhs``, at
    w ↦ r: dM(z, ·)/dπ > 0 stated maps into w > 0) ≤ ``first`` + log(1 + e^{2/τ}/k) ((28) both ways)."""
    d_ = sp.Abs(Rstd(tau, k) - Rt(tau, k))
    return [
        Link(
            sp.Abs(Hk(tau, k) - Rstd(tau, k)),
            d_ + sp.Abs(Hk(tau, k) - Rt(tau, k)),
            "<=",
            cite=f"lemma3 / {_lemma3._TRI}",
            subs={_lemma3._P: Rstd(tau, k) - Rt(tau, k), _lemma3._Q: Hk(tau, k) - Rt(tau, k)},
        ),
        Link(
            d_ + sp.Abs(Hk(tau, k) - Rt(tau, k)),
            d_ + sp.Abs(E_WS - E_NU_S) / tau,
            "=",
            cite=f"prop2 / {CMP29_POSITIVE}",  # the chains state r > 0: the ratio is defined on every sample
        ),
        Link(d_ + sp.Abs(E_WS - E_NU_S) / tau, d_ + sp.Abs(L3_ERR) / tau, "=", cite=f"prop2 / {INSTANCE_STEP}"),
        Link(
            d_ + sp.Abs(L3_ERR) / tau,
            d_ + lemma_rhs / tau,
            "<=",
            cite=lemma,
            subs=INSTANCE,
            factor=1 / tau,
            note="Lemma 3 at ν = M(z, ·), f = s: r > 0 stated maps into w > 0",
        ),
        Link(d_ + lemma_rhs / tau, first + SECOND, "<=", cite=f"prop2 / {_ABS_R}"),
    ]


def _ours_steps() -> list[Step]:
    """Our steps of prop2: the printed ones with their missing hypothesis stated, or sharpened."""
    return [
        Step(
            SECOND_EQ_POSITIVE,
            Hk(tau, k),
            -sp.Function("E_weighted_sim")(tau, k) / tau + sp.Function("E_log_mu_hat")(tau, k),
            kind="identity",
            domain=_LAW | _KERNEL_POSITIVE,
            route=_kernel_route(
                _id(cross_ent_hat, _second_equality), "CrossEnt from its definition vs −(1/τ)∫s dM̂_k + E log μ̂"
            ),
            note="the chain's second equality with dM(z, ·)/dπ > 0 stated: Σ_j r_j > 0 on every sample, so M̂_k's "
            "ratio is defined and cancelling it is sound",
        ),
        Step(
            CMP29_POSITIVE,
            sp.Abs(Hk(tau, k) - Rt(tau, k)),
            sp.Abs(sp.Function("E_weighted_sim")(tau, k) - sp.Function("E_nu_s")(tau)) / tau,
            kind="identity",
            domain=_LAW | _KERNEL_POSITIVE,
            route=_kernel_route(_id(_cmp_lhs, _cmp_rhs), "the log μ̂ terms cancel"),
            note="'Comparing with (29)' with dM(z, ·)/dπ > 0 stated (M̂_k defined on every sample); the step the "
            "chains below and eq11_12's cite",
        ),
        Step(
            INSTANCE_STEP,
            sp.Abs(E_WS - E_NU_S) / tau,
            sp.Abs(L3_ERR) / tau,
            kind="identity",
            domain=_LAW | _KERNEL_POSITIVE,
            route=expectation_route(
                "moments",
                _law(
                    _id(_cmp_rhs, lambda L, lw: abs(_lemma3.snis_error(L, lw)) / lw.tau),
                    "Prop. 2's |E[Σ s r/Σ r] − E_ν s|/τ against lemma3's SNIS error of the same law",
                ),
                defs=INSTANCE_DEFS,
                facts={Expect(rn[1]): 1},
            ),
            note="Lemma 3's SNIS error with w ↦ r = dM(z, ·)/dπ (a density: E_π r = 1) and f ↦ s = ⟨φ(z), φ(·)⟩ "
            "∈ [−1, 1] is Prop. 2's E[Σ s r/Σ r] − E_ν s: the substitution the chains below use",
        ),
        Step(
            _ABS_R,
            sp.Abs(Rstd(tau, k) - Rt(tau, k)),
            SECOND,
            kind="inequality",
            relation="<=",
            domain=_LAW | _PAIR,
            route=expectation_route(
                "abs",
                _law(lambda L, lw: (abs(risk(L, lw) - risk_tilde(L, lw)), _second_num(L, lw)), "(28) both ways"),
                defs=DEFS,
                bounds=W_BOUNDS,
                then=[
                    {"rule": "pointwise", "integrand": SECOND - sp.log(1 + sp.exp(_SP1 / tau) / (k * MU_HAT))},
                    {"rule": "pointwise", "integrand": SECOND + OFFSET},
                ],
            ),
            note="R − R̃ ≤ log(1 + e^{2/τ}/k) and R̃ − R ≤ 0 ≤ log(1 + e^{2/τ}/k), each by monotonicity of expectation",
        ),
        Step(
            "ours: statement under dM(z, ·)/dπ > 0",
            sp.Abs(Hk(tau, k) - Rstd(tau, k)),
            FIRST + SECOND,
            kind="chain",
            relation="<=",
            domain=_LAW | _KERNEL_POSITIVE | _PAIR,
            links=_first_term_chain(FIRST, "lemma3 / ours: statement as printed, under ν ~ π (w > 0)", PAPER_L3),
            note="Proposition 2 as printed with the hypothesis its proof needs stated (M̂_k defined on every sample)",
        ),
        Step(
            "ours: first term with Lemma 3's constant sharpened",
            sp.Abs(Hk(tau, k) - Rstd(tau, k)),
            OURS_CONST / (tau * k) + SECOND,
            kind="chain",
            relation="<=",
            domain=_LAW | _KERNEL_POSITIVE | _PAIR,
            links=_first_term_chain(OURS_CONST / (tau * k), L3_POSITIVE, OURS_CONST / k),
            note="dM(z, ·)/dπ > 0 stated (M̂_k defined on every sample); per anchor, linear in E_π w², so it integrates",
        ),
    ]


def _prop2() -> Derivation:
    rsum = sp.Sum(rn[j], (j, 1, k))
    idx = Domain({s: (-1, 1), rn: (sp.Rational(1, 10**6), 10), k: (1, sp.oo)})
    steps = [
        Step(
            "statement",
            sp.Abs(Hk(tau, k) - Rstd(tau, k)),
            FIRST + SECOND,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="Proposition 2",
            domain=_LAW,
            check=_law(
                lambda L, lw: (abs(cross_ent_hat(L, lw) - risk(L, lw)), _first_num(L, lw) + _second_num(L, lw)),
                "as printed, one anchor",
            ),
            unproved="a claim over every law of the draws, attacked on exact finite laws; not proved as printed: a "
            "chain (27)–(28) whose (28) is proved and whose (27) is Lemma 3's statement, unproved as printed (under (B) "
            "alone Σ_j dM(z, ·)/dπ(ξ_j) = 0 with positive probability, where M̂_k is 0/0: the Lemma 3 erratum); "
            "with dM(z, ·)/dπ > 0 stated it is proved (step 'ours: statement under dM(z, ·)/dπ > 0')",
        ),
        Step(
            "(27)–(28) decomposition",
            x - u,
            printed(sp.Add(x, -W, W, -u, evaluate=False), (x - W) + (W - u)),  # (27) + (28), R̃ added and taken away
            kind="identity",
            provenance="paper",
            reference="(27)–(28)",
            domain=Domain({x: (-10, 10), u: (sp.Rational(1, 100), 10), W: (sp.Rational(1, 100), 10)}),
            note="x = ∫E CrossEnt, W = R̃, u = R",
        ),
        Step(
            "(29) R̃ rearranged",
            sp.log(sp.Sum(sp.exp((s[j] - x) / tau), (j, 1, k))) - sp.log(k),
            -x / tau + sp.log(sp.Sum(sp.exp(s[j] / tau), (j, 1, k)) / k),
            kind="identity",
            provenance="paper",
            reference="(29), first equality",
            domain=idx | Domain({x: (-1, 1), tau: (sp.Rational(1, 10), 10)}),
            note="x = s⁺; pointwise, so also in expectation",
        ),
        Step(
            "(30) density of Q̂ w.r.t. π̂",
            # (30): Q̂'s atom over π̂'s atom, Q̂ = u e^{s/τ}/(k μ̂) times 1/π̂ = k/u
            printed(
                sp.Mul(sp.UnevaluatedExpr(u * W / (k * Zk)), sp.UnevaluatedExpr(k / u), evaluate=False),
                (u * W / (k * Zk)) / (u / k),
            ),
            W / Zk,
            kind="identity",
            provenance="paper",
            reference="(30)",
            domain=Domain({u: (1, 100), W: (sp.Rational(1, 100), 100), Zk: (sp.Rational(1, 100), 100), k: (1, 100)}),
            note="an atom hit u times: Q̂ = u e^{s/τ}/(k μ̂), π̂ = u/k; W = e^{s/τ}, Z_k = μ̂",
        ),
        Step(
            "(30) remark as printed: every ξ_j in supp M̂_k",
            rn[1] / rsum,
            0,
            kind="inequality",
            relation=">",
            provenance="paper",
            reference="after (30): '{ξ_1, …, ξ_k} is a subset of, or equal to, the support of M̂_k(z, ·)'",
            domain=Domain({rn: (0, 10), k: (1, sp.oo)}),
            expected="refuted",
            note="M̂_k(z, {ξ_1}) > 0 fails when dM(z, ·)/dπ(ξ_1) = 0, which (B) allows",
        ),
        Step(
            "(30) remark corrected: supp M̂_k ⊆ {ξ_j}",
            sp.Sum(rn[j] / rsum, (j, 1, k)),
            1,
            kind="identity",
            domain=Domain({rn: (sp.Rational(1, 10**6), 10), k: (1, sp.oo)}),
            note="M̂_k(z, {ξ_1, …, ξ_k}) = 1: (30) is needed only on the support of M̂_k",
        ),
        Step(
            "chain, second equality: (9) from (30)",
            Hk(tau, k),
            -sp.Function("E_weighted_sim")(tau, k) / tau + sp.Function("E_log_mu_hat")(tau, k),
            kind="identity",
            provenance="paper",
            reference="proof of Proposition 2, chain after (30), second equality",
            domain=_LAW | _KERNEL_DRAWS,
            route=_kernel_route(
                _id(cross_ent_hat, _second_equality), "CrossEnt from its definition vs −(1/τ)∫s dM̂_k + E log μ̂"
            ),
            unproved=_RATIO_UNPROVED.format(ours=SECOND_EQ_POSITIVE),
        ),
        Step(
            "chain, third equality as printed",
            sp.Sum(s[j], (j, 1, k)) / rsum,
            sp.Sum(s[j] * rn[j], (j, 1, k)) / rsum,
            kind="identity",
            provenance="paper",
            reference="proof of Proposition 2, chain after (30), third equality: numerator Σ_j ⟨φ(z), φ(ξ_j)⟩",
            domain=idx,
            expected="refuted",
            note="∫ ⟨φ(z), φ(z')⟩ M̂_k(z, dz') = Σ_j s_j r_j/Σ_j r_j, r_j = dM(z, ·)/dπ(ξ_j)",
        ),
        Step(
            "chain, third equality corrected",
            sp.Sum(s[j] * rn[j] / rsum, (j, 1, k)),
            sp.Sum(s[j] * rn[j], (j, 1, k)) / rsum,
            kind="identity",
            domain=idx,
            note="the definition of M̂_k substituted; the next display of the proof has this form",
        ),
        Step(
            "chain, third equality, in expectation (printed)",
            sp.Function("E_unweighted")(tau, k),
            sp.Function("E_weighted_sim")(tau, k),
            kind="identity",
            provenance="paper",
            reference="proof of Proposition 2, chain after (30), third equality",
            domain=_LAW,
            check=_law(_id(_unweighted, weighted_sim), "E[Σ s_j/Σ w_j] vs E[Σ s_j w_j/Σ w_j]"),
            expected="refuted",
            unproved="a claim over every law of the draws, attacked on exact finite laws; the expectation route does not prove it: an erratum: the law search refutes it",
        ),
        Step(
            "comparing with (29)",
            sp.Abs(Hk(tau, k) - Rt(tau, k)),
            sp.Abs(sp.Function("E_weighted_sim")(tau, k) - sp.Function("E_nu_s")(tau)) / tau,
            kind="identity",
            provenance="paper",
            reference="proof of Proposition 2, 'Comparing with (29)' (an equality for one anchor)",
            domain=_LAW | _KERNEL_DRAWS,
            route=_kernel_route(_id(_cmp_lhs, _cmp_rhs), "the log μ̂ terms cancel"),
            unproved=_RATIO_UNPROVED.format(ours=CMP29_POSITIVE),
        ),
        Step(
            "(12): Lemma 3 with f = ⟨φ(z), φ(·)⟩",
            sp.Abs(Hk(tau, k) - Rt(tau, k)),
            FIRST,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Proposition 2 (the bound of (27)); display (12)",
            domain=_LAW,
            check=_law(lambda L, lw: (abs(cross_ent_hat(L, lw) - risk_tilde(L, lw)), _first_num(L, lw)), "Lemma 3"),
            unproved="a claim over every law of the draws, attacked on exact finite laws; not proved as printed: an "
            "instance of Lemma 3's statement, unproved as printed (the ratio and M̂_k are 0/0 on {Σ_j w_j = 0}, "
            "possible under (B): the erratum); with dM(z, ·)/dπ > 0 stated it is proved as a cited instance of "
            "Lemma 3 (eq11_12's step 'ours: (12) under dM(z, ·)/dπ > 0')",
        ),
        Step(
            "(28): 0 ≤ R − R̃",
            Rstd(tau, k) - Rt(tau, k),
            0,
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="proof of Proposition 2, (28)",
            domain=_LAW | _PAIR,
            route=expectation_route(
                "pointwise",
                _law(lambda L, lw: (0 * lw.tau, risk(L, lw) - risk_tilde(L, lw)), "monotonicity of log"),
                defs=DEFS,
                integrand=OFFSET,
                bounds=W_BOUNDS,
            ),
        ),
        Step(
            "(28): log(1/k + c) − log c = log(1 + 1/(kc))",
            sp.log(1 / k + u) - sp.log(u),
            sp.log(1 + 1 / (k * u)),
            kind="identity",
            provenance="paper",
            reference="proof of Proposition 2, (28)",
            domain=Domain({u: (sp.Rational(1, 10**6), 10**6), k: (1, sp.oo)}),
        ),
        Step(
            "(28): each e^{(s_j − s⁺)/τ} ≥ e^{−2/τ}",
            sp.exp((x - t) / tau),
            sp.exp(-2 / tau),
            kind="inequality",
            relation=">=",
            provenance="paper",
            reference="proof of Proposition 2, (28): 'uses φ ∈ B(Z, S^{d−1})'",
            domain=TAU_RANGE | Domain({x: (-1, 1), t: (-1, 1)}),
            note="x = s_j, t = s⁺; so 1/Σ_j e^{(s_j − s⁺)/τ} ≤ e^{2/τ}/k",
        ),
        Step(
            "(28): R − R̃ ≤ log(1 + e^{2/τ}/k)",
            Rstd(tau, k) - Rt(tau, k),
            SECOND,
            kind="inequality",
            relation="<=",
            provenance="paper",
            reference="proof of Proposition 2, (28)",
            domain=_LAW | _PAIR,
            route=expectation_route(
                "pointwise",
                _law(lambda L, lw: (risk(L, lw) - risk_tilde(L, lw), _second_num(L, lw)), "the two steps above"),
                defs=DEFS,
                # the same integrand written as the proof reads it: log(1/k + c) − log c = log(1 + 1/(kc))
                integrand=SECOND - sp.log(1 + sp.exp(_SP1 / tau) / (k * MU_HAT)),
                bounds=W_BOUNDS,
            ),
        ),
        *_ours_steps(),
    ]
    return Derivation(
        "prop2",
        "Proposition 2: InfoNCE risk vs expected empirical cross-entropy",
        steps,
        result="statement",
        source="paper",
        depends_on=("prop1", "lemma3"),
        paper_claim="|∫E CrossEnt[M̂_k‖Q̂_k]dπ − R| ≤ (4/(τk))E|dM/dπ|² + log(1 + e^{2/τ}/k)",
        summary="Holds (where M̂_k is defined); two errata in the proof: the chain's third line drops the "
        "factor dM/dπ(ξ_j), and the support remark after (30) is reversed.",
    )


def derivations() -> list[Derivation]:
    return [_prop2()]


ERRATA = [
    Erratum(
        location="Appendix A, proof of Proposition 2, chain after (30), third equality",
        as_printed=r"-\frac{1}{\tau}\int \mathbb{E}\Big[\frac{\sum_j \langle\phi(z),\phi(\xi_j)\rangle}"
        r"{\sum_j \frac{dM(z,\cdot)}{d\pi}(\xi_j)}\Big]\pi(dz) + \dots",
        kind="false as printed",
        result="prop2",
        printed_step="chain, third equality as printed",
        corrected_step="chain, third equality corrected",
        correction=r"numerator \sum_j \langle\phi(z),\phi(\xi_j)\rangle \frac{dM(z,\cdot)}{d\pi}(\xi_j)",
        consequence="Proposition 2 stands: the next display (and Lemma 3's application) uses the corrected form",
    ),
    Erratum(
        location="Appendix A, proof of Proposition 2, remark after (30)",
        as_printed=r"\{\xi_1,\ldots,\xi_k\} is a subset of, or equal to, the support of \widehat{M}_k(z,\cdot)",
        kind="false as printed",
        result="prop2",
        printed_step="(30) remark as printed: every ξ_j in supp M̂_k",
        corrected_step="(30) remark corrected: supp M̂_k ⊆ {ξ_j}",
        correction=r"the support of \widehat{M}_k(z,\cdot) is a subset of \{\xi_1,\ldots,\xi_k\}",
        consequence="none: (30) is only needed on the support of M̂_k, which the corrected inclusion gives",
    ),
]
