"""The InfoNCE loss family: averaged ℓ_k, standard ℓ, the symmetric in-batch form, and the
exact relation between the two normalisations.

With similarities s⁺ (positive) and s_1 … s_k (negatives) in [−1, 1] and temperature τ > 0:

* averaged:  ℓ_k = −s⁺/τ + log((1/k) Σ_j e^{s_j/τ}) = −s⁺/τ + Λ(1/τ; s);
* standard:  ℓ   = −log(e^{s⁺/τ} / (e^{s⁺/τ} + Σ_j e^{s_j/τ}));
* relation:  ℓ − log k − ℓ_k = log(1 + e^{s⁺/τ}/(k Z_k)),  Z_k = (1/k) Σ_j e^{s_j/τ},
  which lies in [log(1 + e^{−2/τ}/k), log(1 + e^{2/τ}/k)] ⊂ [0, e^{2/τ}/k].

Both losses are functions of the *logit* c = log Σ_j e^{(s_j − s⁺)/τ}:
ℓ_k = c − log k and ℓ = log(1 + e^c); the numeric kernels evaluate exactly these closing
formulas (generated from here), after a max-shifted log-sum-exp for c.
"""

from __future__ import annotations

import sympy as sp

from .ledger import Derivation, Domain, Step
from .symbols import TAU_MAX, TAU_MIN, Zk, b, c, ell, ell_k, g, j, k, s, s_pos, tau, x, z
from .symbols import B_batch as _B
from .symbols import S as _S
from .symbols import m_shift as x_shift
from .symbols import zeta as y

SIM_DOMAIN = Domain(
    {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s_pos: (-1, 1), s: (-1, 1)},
    name="τ ∈ [1e-3, 1e2], k ≥ 1, s⁺, s_j ∈ [−1, 1]",
)


def log_mean_exp(b_, z_, k_):
    """Λ(b; z) = log((1/k) Σ_{j=1}^k e^{b z_j}); the log-partition at inverse temperature b."""
    return sp.log(sp.Sum(sp.exp(b_ * z_[j]), (j, 1, k_)) / k_)


def Z_k_expr(k_=k):
    """Z_k = (1/k) Σ_j e^{s_j/τ}, the empirical partition function over the k negatives."""
    return sp.Sum(sp.exp(s[j] / tau), (j, 1, k_)) / k_


def averaged_loss(k_=k):
    """ℓ_k = −s⁺/τ + log((1/k) Σ_j e^{s_j/τ}); valid for τ > 0, k ≥ 1."""
    return -s_pos / tau + sp.log(Z_k_expr(k_))


def standard_loss(k_=k):
    """ℓ = −log(e^{s⁺/τ} / (e^{s⁺/τ} + Σ_j e^{s_j/τ})) (CPC / SimCLR); valid for τ > 0, k ≥ 1."""
    num = sp.exp(s_pos / tau)
    return -sp.log(num / (num + sp.Sum(sp.exp(s[j] / tau), (j, 1, k_))))


#: c = log Σ_j e^{(s_j − s⁺)/τ}, the logit both losses are closing functions of
logit_expr = sp.log(sp.Sum(sp.exp((s[j] - s_pos) / tau), (j, 1, k)))


def averaged_from_logit(c_=c, k_=k):
    """ℓ_k = c − log k, with c = log Σ_j e^{(s_j − s⁺)/τ}."""
    return c_ - sp.log(k_)


def standard_from_logit(c_=c):
    """ℓ = log(1 + e^c) (softplus of the logit); the kernels use its stable rewrite."""
    return sp.log(1 + sp.exp(c_))


def standard_offset(k_=k):
    """ℓ − log k − ℓ_k = log(1 + e^{s⁺/τ}/(k Z_k)); in [log(1 + e^{−2/τ}/k), log(1 + e^{2/τ}/k)]."""
    return sp.log(1 + sp.exp(s_pos / tau) / (k_ * Z_k_expr(k_)))


def in_batch_row_loss(i_, B_=_B):
    """Row i of the SimCLR in-batch loss: −S_ii/τ + log Σ_{j=1}^B e^{S_ij/τ}."""
    return -_S[i_, i_] / tau + sp.log(sp.Sum(sp.exp(_S[i_, j] / tau), (j, 1, B_)))


def in_batch_col_loss(i_, B_=_B):
    """Column i (positives as anchors): −S_ii/τ + log Σ_{j=1}^B e^{S_ji/τ}."""
    return -_S[i_, i_] / tau + sp.log(sp.Sum(sp.exp(_S[j, i_] / tau), (j, 1, B_)))


def symmetric_in_batch_loss(B_):
    """Symmetric in-batch InfoNCE: (1/(2B)) Σ_i [row_i + col_i] (CLIP-style), concrete B."""
    return sp.Add(*[in_batch_row_loss(i_, B_) + in_batch_col_loss(i_, B_) for i_ in range(1, B_ + 1)]) / (2 * B_)


def _expand_logs(e):
    return sp.simplify(sp.expand_log(sp.expand(e), force=True))


#: place in the proof: catalogue discovery registers result modules by increasing ORDER
ORDER = 10


def derivations() -> list[Derivation]:
    D = SIM_DOMAIN
    Dk = Domain(
        {tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s_pos: (-1, 1), s: (-1, 1), c: (-sp.oo, sp.oo)},
        name="τ ∈ [1e-3, 1e2], k ≥ 1, s ∈ [−1, 1], c ∈ ℝ",
    )
    Dg = Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), g: (-2, 2)}, name="τ ∈ [1e-3, 1e2], k ≥ 1, g ∈ [−2, 2]")
    Db = Domain(
        {b: (sp.Rational(1, 100), 1000), k: (1, sp.oo), z: (-1, 1), x_shift: (-10, 10)},
        name="b ∈ [1e-2, 1e3], k ≥ 1, z_j ∈ [−1, 1], m ∈ [−10, 10]",
    )
    offset = standard_offset()
    lower = sp.log(1 + sp.exp(-2 / tau) / k)
    upper = sp.log(1 + sp.exp(2 / tau) / k)
    steps = [
        Step(
            "Z_k, the empirical partition function",
            Zk,
            Z_k_expr(),
            kind="definition",
            domain=D | Domain({Zk: (0, sp.oo)}),
            provenance="paper",
            note="mean of k i.i.d. copies of W = e^{s(x, Y)/τ}",
        ),
        Step(
            "averaged InfoNCE ℓ_k",
            ell_k,
            averaged_loss(),
            kind="definition",
            domain=D | Domain({ell_k: (-sp.oo, sp.oo)}),
            provenance="paper",
        ),
        Step(
            "standard InfoNCE ℓ",
            ell,
            standard_loss(),
            kind="definition",
            domain=D | Domain({ell: (-sp.oo, sp.oo)}),
            provenance="paper",
        ),
        Step(
            "ℓ_k as log-mean-exp: ℓ_k = Λ(1/τ; s) − s⁺/τ",
            averaged_loss(),
            log_mean_exp(1 / tau, s, k) - s_pos / tau,
            domain=D,
            provenance="ours",
        ),
        Step(
            "shift invariance of Λ: Λ(b; z) = m b + Λ(b; z − m)",
            log_mean_exp(b, z, k),
            x_shift * b + sp.log(sp.Sum(sp.exp(b * (z[j] - x_shift)), (j, 1, k)) / k),
            domain=Db,
            provenance="classical",
            reference="max-shifted log-sum-exp; e.g. Blanchard, Higham & Higham (2021)",
            simplifier=_expand_logs,
            note="with m = max_j z_j every exponent is ≤ 0: no overflow at τ = 1e-3",
        ),
        Step(
            "ℓ_k from the logit: ℓ_k = c − log k",
            averaged_loss(),
            averaged_from_logit(logit_expr, k),
            domain=D,
            simplifier=_expand_logs,
        ),
        Step(
            "ℓ from the logit: ℓ = log(1 + e^c)",
            standard_loss(),
            standard_from_logit(logit_expr),
            domain=D,
            simplifier=_expand_logs,
            note="log1p(Σ_j e^{(s_j − s⁺)/τ}) keeps relative accuracy when the positive dominates",
        ),
        Step(
            "exact relation ℓ − log k − ℓ_k = log(1 + e^{s⁺/τ}/(k Z_k))",
            standard_loss() - sp.log(k) - averaged_loss(),
            offset,
            domain=D,
            simplifier=_expand_logs,
        ),
        Step(
            "relation in closing form: log(1 + e^c) − c = log(1 + e^{−c})",
            standard_from_logit() - averaged_from_logit() - sp.log(k),
            sp.log(1 + sp.exp(-c)),
            domain=Dk,
            simplifier=_expand_logs,
        ),
        Step(
            "Z_k lies in [e^{−1/τ}, e^{1/τ}] (upper)",
            Z_k_expr(),
            sp.exp(1 / tau),
            kind="inequality",
            relation="<=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1)}),
            provenance="ours",
        ),
        Step(
            "Z_k lies in [e^{−1/τ}, e^{1/τ}] (lower)",
            Z_k_expr(),
            sp.exp(-1 / tau),
            kind="inequality",
            relation=">=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo), s: (-1, 1)}),
            provenance="ours",
        ),
        Step(
            "offset in reduced form: with Z_k = e^{ζ/τ}, g = s⁺ − ζ ∈ [−2, 2]",
            sp.log(1 + sp.exp((g + y) / tau) / (k * sp.exp(y / tau))),
            sp.log(1 + sp.exp(g / tau) / k),
            domain=Dg | Domain({y: (-1, 1)}),
            simplifier=_expand_logs,
        ),
        Step(
            "offset upper bound log(1 + e^{2/τ}/k)",
            sp.log(1 + sp.exp(g / tau) / k),
            upper,
            kind="inequality",
            relation="<=",
            domain=Dg,
        ),
        Step(
            "offset lower bound log(1 + e^{−2/τ}/k)",
            sp.log(1 + sp.exp(g / tau) / k),
            lower,
            kind="inequality",
            relation=">=",
            domain=Dg,
        ),
        Step(
            "log(1 + x) ≤ x for x ≥ 0, hence offset ≤ e^{2/τ}/k",
            sp.log(1 + x),
            x,
            kind="inequality",
            relation="<=",
            domain=Domain({x: (0, sp.oo)}),
            provenance="classical",
            reference="concavity of log (tangent line at 1)",
            note="applied with x = e^{2/τ}/k",
        ),
        Step(
            "offset ≥ 0",
            lower,
            0,
            kind="inequality",
            relation=">=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), k: (1, sp.oo)}),
        ),
        Step(
            "k × offset → e^{s⁺/τ}/Z_k as k → ∞ (Z_k held fixed)",
            k * sp.log(1 + sp.exp(s_pos / tau) / (k * Zk)),
            sp.exp(s_pos / tau) / Zk,
            kind="limit",
            var=k,
            domain=Domain({tau: (TAU_MIN, TAU_MAX), s_pos: (-1, 1), Zk: (sp.exp(-1) / 10, 10)}),
            note="in expectation (Z_k → Z a.s.) k E[ℓ − log k − ℓ_k] → E[e^{s(x,x⁺)/τ}/Z(x)]",
        ),
    ]
    loss = Derivation(
        "loss",
        "The InfoNCE loss family and the exact relation between its two normalisations",
        steps,
        result="exact relation ℓ − log k − ℓ_k = log(1 + e^{s⁺/τ}/(k Z_k))",
        source="ours",
        paper_claim="two normalisations of InfoNCE with k negatives (standard and averaged)",
        summary="Both losses are closing functions of one logit; their gap is log(1 + e^{s⁺/τ}/(k Z_k)) ∈ [0, e^{2/τ}/k].",
        objects={"averaged_loss": averaged_loss(), "standard_loss": standard_loss(), "logit": logit_expr},
    )
    Bc = 3
    in_batch_steps = [
        Step(
            "in-batch row i is the standard loss with k = B − 1 negatives",
            in_batch_row_loss(1, Bc).doit(),
            standard_loss(Bc - 1).doit().subs({s_pos: _S[1, 1], s[1]: _S[1, 2], s[2]: _S[1, 3]}),
            domain=Domain({tau: (TAU_MIN, TAU_MAX), _S: (-1, 1)}),
            simplifier=_expand_logs,
            note="concrete B = 3: the other positives are the anchor's negatives (SimCLR convention)",
        ),
        Step(
            "symmetric in-batch loss = mean of the row (anchor→positive) and column (positive→anchor) losses",
            symmetric_in_batch_loss(Bc).doit(),
            (
                sp.Add(*[in_batch_row_loss(i_, Bc) for i_ in range(1, Bc + 1)]).doit()
                + sp.Add(*[in_batch_col_loss(i_, Bc) for i_ in range(1, Bc + 1)]).doit()
            )
            / (2 * Bc),
            domain=Domain({tau: (TAU_MIN, TAU_MAX), _S: (-1, 1)}),
        ),
        Step(
            "in-batch row loss ≥ log-count gap: row_i ≥ 0",
            in_batch_row_loss(1, Bc).doit(),
            0,
            kind="inequality",
            relation=">=",
            domain=Domain({tau: (TAU_MIN, TAU_MAX), _S: (-1, 1)}),
            note="the positive is one of the B terms of the partition, so the softmax probability is ≤ 1",
        ),
    ]
    in_batch = Derivation(
        "in_batch",
        "The in-batch (SimCLR) and symmetric forms of InfoNCE",
        in_batch_steps,
        result="in-batch row i is the standard loss with k = B − 1 negatives",
        source="ours",
        depends_on=("loss",),
        summary="In-batch losses are standard losses whose negatives are the other positives of the batch.",
    )
    return [loss, in_batch]
